/*-------------------------------------------------------------------------
 *
 * aggfold.h
 *	  Aggregate families (Bigtable's intsum, intmin, intmax): the stored
 *	  tags of a merge entry and how merges fold into a value.
 *
 * Plain C, shared by the backend (a transaction's own merges,
 * fdw/meta/aggregate.c) and the storage worker (reads and the sweep).
 * docs/format.md describes the entries.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_AGGFOLD_H
#define WC_AGGFOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * First byte of a stored merge entry (after keycodec.h's 00 and 01, and
 * wire.h's 02-04, which are never stored): the rest is the operand, a
 * 64-bit big-endian integer.  The same tags carry merges on the wire.
 */
#define WC_VALUE_SUM	0x05
#define WC_VALUE_MIN	0x06
#define WC_VALUE_MAX	0x07

#define WC_AGG_LEN		8		/* bytes of an operand or folded value */

static inline bool
wc_agg_is_merge(uint8_t tag)
{
	return tag >= WC_VALUE_SUM && tag <= WC_VALUE_MAX;
}

extern int64_t wc_agg_get(const uint8_t *p);
extern void wc_agg_put(int64_t v, uint8_t *p);
extern int64_t wc_agg_apply(uint8_t tag, bool have_base, int64_t base, int64_t operand);
extern uint8_t wc_agg_tag(const char *name);
extern const char *wc_agg_name(uint8_t tag);

#endif							/* WC_AGGFOLD_H */
