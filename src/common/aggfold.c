/*-------------------------------------------------------------------------
 *
 * aggfold.c
 *	  Folding the merges of an aggregate family's cell (aggfold.h).
 *
 * A cell's value is its newest plain value (the base; none after a
 * tombstone, a row tombstone or a value that is not 8 bytes) with every
 * newer merge applied, oldest first.  Sum wraps around as Bigtable's
 * intsum does (two's complement) rather than fail at a read: the write
 * that overflowed is long committed by then.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>
#include <strings.h>

#include "common/aggfold.h"

int64_t
wc_agg_get(const uint8_t *p)
{
	uint64_t	v = 0;

	for (int i = 0; i < WC_AGG_LEN; i++)
		v = (v << 8) | p[i];
	return (int64_t) v;
}

void
wc_agg_put(int64_t v, uint8_t *p)
{
	uint64_t	u = (uint64_t) v;

	for (int i = WC_AGG_LEN - 1; i >= 0; i--)
	{
		p[i] = (uint8_t) (u & 0xFF);
		u >>= 8;
	}
}

/* The value after a merge of operand with tag into base (if any). */
int64_t
wc_agg_apply(uint8_t tag, bool have_base, int64_t base, int64_t operand)
{
	if (!have_base)
		return operand;
	switch (tag)
	{
		case WC_VALUE_SUM:
			return (int64_t) ((uint64_t) base + (uint64_t) operand);
		case WC_VALUE_MIN:
			return operand < base ? operand : base;
		case WC_VALUE_MAX:
			return operand > base ? operand : base;
	}
	return operand;
}

/*
 * The tag of an aggregate's name ("sum", "min", "max", in any case, as
 * the policies' keywords are), or 0.
 */
uint8_t
wc_agg_tag(const char *name)
{
	if (strcasecmp(name, "sum") == 0)
		return WC_VALUE_SUM;
	if (strcasecmp(name, "min") == 0)
		return WC_VALUE_MIN;
	if (strcasecmp(name, "max") == 0)
		return WC_VALUE_MAX;
	return 0;
}

const char *
wc_agg_name(uint8_t tag)
{
	switch (tag)
	{
		case WC_VALUE_SUM:
			return "sum";
		case WC_VALUE_MIN:
			return "min";
		case WC_VALUE_MAX:
			return "max";
	}
	return NULL;
}
