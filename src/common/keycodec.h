/*-------------------------------------------------------------------------
 *
 * keycodec.h
 *	  The byte layout of a cell's LevelDB key.
 *
 * Plain C with no PostgreSQL dependency, so that the storage worker, the
 * backend, the unit test, the fuzzers and the raw-LevelDB benchmark all
 * share one definition.  docs/format.md describes the layout.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_KEYCODEC_H
#define WC_KEYCODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes a component of n bytes can take once escaped, terminator included. */
#define WC_ESCAPED_MAX(n)	(2 * (size_t) (n) + 2)

/* Bytes of the timestamp that ends every key. */
#define WC_TS_LEN			8

/* Largest row key and qualifier we accept (before escaping). */
#define WC_MAX_ROWKEY		4096
#define WC_MAX_QUALIFIER	(16 * 1024)
#define WC_MAX_VALUE		(100 * 1024 * 1024)
#define WC_MAX_ROW			(256 * 1024 * 1024)	/* bytes one commit writes to a row */
#define WC_MAX_ROWKEY_PARTS	32

/*
 * The family and qualifier of a row tombstone: both empty, so it sorts
 * before every cell of its row.
 */
static const uint8_t wc_row_tombstone_fq[] = {0x00, 0x01, 0x00, 0x01};

/* First byte of every stored value. */
#define WC_VALUE_TOMBSTONE	0x00	/* the cell was deleted at this version */
#define WC_VALUE_PRESENT	0x01	/* the rest of the value is the data */
/*
 * A version at a timestamp of its own (the cells layout's, an import's): the
 * timestamp of the commit that wrote it, 8 bytes big-endian, then the value
 * as it would be stored, whose tag may be WC_VALUE_REMOVED: the version is
 * gone from that commit on (docs/format.md, "Stamped versions").
 */
#define WC_VALUE_STAMPED	0x08
#define WC_VALUE_REMOVED	0x09
#define WC_STAMP_LEN		(1 + 8)

/*
 * A big-endian unsigned integer of n bytes (n <= 8): how the numbers in
 * keys and cell values are stored (docs/format.md), for the backend's
 * decoding (valuecodec.c) and the worker's filters (rowfilter.c).
 */
static inline uint64_t
wc_get_be(const uint8_t *p, int n)
{
	uint64_t	v = 0;

	for (int i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

/*
 * The table of families (its name is empty, which no foreign table's can
 * be), escaped: its keys sort before every table's.
 */
extern const uint8_t wc_meta_table[2];

/* Is v a stamped value (with at least its inner tag)?  Its commit in *stamp. */
static inline bool
wc_value_stamp(const uint8_t *v, size_t vlen, uint64_t *stamp)
{
	if (vlen < WC_STAMP_LEN + 1 || v[0] != WC_VALUE_STAMPED)
		return false;
	*stamp = wc_get_be(v + 1, 8);
	return true;
}

/* The stamp of a value the commit ts writes (WC_STAMP_LEN bytes at p). */
static inline void
wc_put_stamp(uint64_t ts, uint8_t *p)
{
	p[0] = WC_VALUE_STAMPED;
	for (int i = 0; i < 8; i++)
		p[1 + i] = (uint8_t) (ts >> (56 - 8 * i));
}

extern size_t wc_escape(const uint8_t *src, size_t n, uint8_t *dst);
extern size_t wc_escape_body(const uint8_t *src, size_t n, uint8_t *dst);
extern int	wc_component_end(const uint8_t *src, size_t n, size_t *consumed);
extern int	wc_unescape(const uint8_t *src, size_t n, uint8_t *dst,
						size_t *consumed, size_t *outlen);
extern void wc_encode_ts(uint64_t ts, uint8_t *dst);
extern uint64_t wc_decode_ts(const uint8_t *src);
extern int	wc_successor(uint8_t *key, size_t *len);
extern int	wc_compare_bytes(const uint8_t *a, size_t alen,
							 const uint8_t *b, size_t blen);

#endif							/* WC_KEYCODEC_H */
