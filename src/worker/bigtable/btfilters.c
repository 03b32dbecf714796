/*-------------------------------------------------------------------------
 *
 * btfilters.c
 *	  A scan's storage filters (wire.h's WcScanFilter) as Bigtable
 *	  RowFilters: a condition per filter that lets a row through only if
 *	  the column's cell passes, so that Bigtable sends no row a filter
 *	  surely fails.
 *
 * Each filter (an IN list's run of them: one) becomes
 *
 *	condition(chain(column_range(family, [qualifier, qualifier]),
 *					[timestamp_range(0, as_of)], cells_per_column_limit(1),
 *					value_range ... or interleave of them),
 *			  then the next filter's condition (the last: the scan's own
 *			  filter), else block_all)
 *
 * over the column's newest cell.  The stored bytes compare as Bigtable's
 * value ranges do, byte by byte: text and bytea in the C collation as
 * they are; a big-endian two's-complement integer of its width in two
 * ranges when the comparison spans zero (the negative numbers' bytes sort
 * after the others'); a boolean's byte as an integer from 0 to 1.  What
 * has no such form (floats; bytes known only by their hash; a range that
 * would end at the empty value) is left to PostgreSQL: it gets no
 * condition.  PostgreSQL checks every filter again (fdw/planner/
 * storefilter.c), so a condition only has to let through every row the
 * filter passes; it does, except that a cell of the wrong width for its
 * integer column is compared as bytes too, and may be left out where the
 * LevelDB engine would send it for the backend to raise its error.
 *
 * Built on the main thread, when the scan opens, into the scan's memory;
 * the innermost condition's "then" is where the scan's own filter is put,
 * which the first fill makes once the policies are known (the outer
 * conditions share its branches, so they see it there).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/keycodec.h"
#include "worker/bigtable/bigtable.h"

/* Most ranges one filter's test takes: two per value of an IN list. */
#define BT_RANGES_PER_VALUE 2

/* A signed interval [lo, hi] of a column's integers. */
typedef struct BtInterval
{
	int64		lo;
	int64		hi;
} BtInterval;

/* The BE bytes of x in width bytes (two's complement), into out. */
static void
put_be(int64 x, int width, uint8 *out)
{
	uint64		u = (uint64) x;

	for (int i = width - 1; i >= 0; i--)
	{
		out[i] = (uint8) (u & 0xFF);
		u >>= 8;
	}
}

/*
 * The integers of op value among [min, max], as at most two intervals;
 * how many.
 */
static int
int_intervals(uint8 op, int64 v, int64 min, int64 max, BtInterval *out)
{
	switch (op)
	{
		case WC_FILTER_EQ:
		case WC_FILTER_IN:
			if (v < min || v > max)
				return 0;
			out[0].lo = out[0].hi = v;
			return 1;
		case WC_FILTER_LT:
			if (v <= min)
				return 0;
			out[0].lo = min;
			out[0].hi = Min(v - 1, max);
			return 1;
		case WC_FILTER_LE:
			if (v < min)
				return 0;
			out[0].lo = min;
			out[0].hi = Min(v, max);
			return 1;
		case WC_FILTER_GE:
			if (v > max)
				return 0;
			out[0].lo = Max(v, min);
			out[0].hi = max;
			return 1;
		case WC_FILTER_GT:
			if (v >= max)
				return 0;
			out[0].lo = Max(v + 1, min);
			out[0].hi = max;
			return 1;
		case WC_FILTER_NE:
			{
				int			n = 0;

				if (v < min || v > max)
				{
					out[0].lo = min;
					out[0].hi = max;
					return 1;
				}
				if (v > min)
				{
					out[n].lo = min;
					out[n++].hi = v - 1;
				}
				if (v < max)
				{
					out[n].lo = v + 1;
					out[n++].hi = max;
				}
				return n;
			}
	}
	return 0;
}

/* A closed value range [lo, hi] of width bytes into f. */
static void
int_range(WcBtFilter *f, int64 lo, int64 hi, int width)
{
	uint8	   *b = palloc(2 * width);

	put_be(lo, width, b);
	put_be(hi, width, b + width);
	memset(f, 0, sizeof(*f));
	f->kind = WC_BT_FILTER_VALUE_RANGE;
	f->range.start = b;
	f->range.start_len = width;
	f->range.end = b + width;
	f->range.end_len = width;
	f->range.end_closed = true;
}

/*
 * The value ranges of an integer filter into ranges (room for four):
 * each interval of its integers, split at zero, where the bytes of the
 * negative numbers begin again; how many.
 */
static int
int_ranges(const WcScanFilter *f, int width, bool is_signed, WcBtFilter *ranges)
{
	int64		max = is_signed ? (int64) ((UINT64CONST(1) << (8 * width - 1)) - 1) : 1;
	int64		min = is_signed ? -max - 1 : 0;
	BtInterval	iv[2];
	int			niv = int_intervals(f->op, (int64) f->value, min, max, iv);
	int			n = 0;

	for (int i = 0; i < niv; i++)
	{
		if (iv[i].lo < 0 && iv[i].hi >= 0)
		{
			int_range(&ranges[n++], 0, iv[i].hi, width);
			int_range(&ranges[n++], iv[i].lo, -1, width);
		}
		else
			int_range(&ranges[n++], iv[i].lo, iv[i].hi, width);
	}
	return n;
}

/*
 * The value ranges of a filter of bytes ordered as they are; -1 if it has
 * none (a range ending at the empty value, which a value range cannot
 * say).
 */
static int
bytes_ranges(const WcScanFilter *f, WcBtFilter *ranges)
{
	size_t		len = (size_t) f->value;
	uint8	   *b = palloc(len + 1);

	memcpy(b, f->bytes, len);
	memset(ranges, 0, sizeof(WcBtFilter) * 2);
	ranges[0].kind = ranges[1].kind = WC_BT_FILTER_VALUE_RANGE;
	switch (f->op)
	{
		case WC_FILTER_EQ:
		case WC_FILTER_IN:
		case WC_FILTER_LE:
		case WC_FILTER_LT:
			if (len == 0)
				return -1;
			if (f->op == WC_FILTER_EQ || f->op == WC_FILTER_IN)
			{
				ranges[0].range.start = b;
				ranges[0].range.start_len = len;
			}
			ranges[0].range.end = b;
			ranges[0].range.end_len = len;
			ranges[0].range.end_closed = f->op != WC_FILTER_LT;
			return 1;
		case WC_FILTER_GE:
		case WC_FILTER_GT:
			ranges[0].range.start = b;
			ranges[0].range.start_len = len;
			ranges[0].range.start_open = f->op == WC_FILTER_GT;
			return 1;
		case WC_FILTER_NE:
			if (len == 0)
				return -1;
			ranges[0].range.end = b;
			ranges[0].range.end_len = len;
			ranges[1].range.start = b;
			ranges[1].range.start_len = len;
			ranges[1].range.start_open = true;
			return 2;
	}
	return -1;
}

/* The value ranges of one filter into ranges (room for four); -1: none. */
static int
filter_ranges(const WcScanFilter *f, WcBtFilter *ranges)
{
	switch (f->kind)
	{
		case WC_FILTER_INT2:
			return int_ranges(f, 2, true, ranges);
		case WC_FILTER_INT4:
			return int_ranges(f, 4, true, ranges);
		case WC_FILTER_INT8:
			return int_ranges(f, 8, true, ranges);
		case WC_FILTER_BOOL:
			return int_ranges(f, 1, false, ranges);
		case WC_FILTER_ORDERED_BYTES:
			return bytes_ranges(f, ranges);
		default:
			return -1;			/* floats, hashed bytes: PostgreSQL's */
	}
}

/*
 * The predicate of the filters f[0, n) of one column (one filter, or an
 * IN list's run): its newest cell, passing one of their ranges; NULL if
 * one of them has no ranges.
 */
static WcBtFilter *
predicate(const WcScanRequest *req, const WcScanFilter *f, int n, int64 as_of_hi)
{
	WcBtFilter *ranges = palloc0(sizeof(WcBtFilter) * (n * 2 * BT_RANGES_PER_VALUE));
	WcBtFilter *chain = palloc0(sizeof(WcBtFilter) * 4);
	WcBtFilter *pred = palloc0(sizeof(WcBtFilter));
	const WcBytes *col = &req->cols[f->col];
	uint8	   *family = palloc(col->len + 1);
	uint8	   *qualifier = palloc(col->len + 1);
	size_t		used,
				used2,
				flen,
				qlen;
	int			nranges = 0;
	int			nchain = 0;

	for (int i = 0; i < n; i++)
	{
		int			k = filter_ranges(&f[i], ranges + nranges);

		if (k < 0)
			return NULL;
		nranges += k;
	}

	/* the column: a family and qualifier (a filter never takes a map) */
	if (wc_unescape(col->data, col->len, family, &used, &flen) != 0 || used == col->len ||
		wc_unescape(col->data + used, col->len - used, qualifier, &used2, &qlen) != 0)
		wc_malformed("SCAN");
	chain[nchain].kind = WC_BT_FILTER_COLUMN_RANGE;
	chain[nchain].bytes = family;
	chain[nchain].len = flen;
	chain[nchain].range.start = qualifier;
	chain[nchain].range.start_len = qlen;
	chain[nchain].range.end = qualifier;
	chain[nchain].range.end_len = qlen;
	chain[nchain].range.end_closed = true;
	nchain++;
	if (as_of_hi != 0)
	{
		chain[nchain].kind = WC_BT_FILTER_TIMESTAMP_RANGE;
		chain[nchain].hi = as_of_hi;
		nchain++;
	}
	chain[nchain].kind = WC_BT_FILTER_CELLS_PER_COLUMN;
	chain[nchain].n = 1;
	nchain++;
	if (nranges == 1)
		chain[nchain] = ranges[0];
	else
	{
		/* none: no value passes, and the row is left out */
		chain[nchain].kind = nranges == 0 ? WC_BT_FILTER_BLOCK : WC_BT_FILTER_INTERLEAVE;
		chain[nchain].children = ranges;
		chain[nchain].nchildren = nranges;
	}
	nchain++;
	pred->kind = WC_BT_FILTER_CHAIN;
	pred->children = chain;
	pred->nchildren = nchain;
	return pred;
}

/*
 * bt_filters_build
 *		The RowFilter of a scan with req's storage filters, or NULL if none
 *		of them has a condition.  *inner is where the scan's own filter goes
 *		(the innermost condition's "then"), once it is known.
 */
const WcBtFilter *
bt_filters_build(const WcScanRequest *req, int64 as_of_hi, WcBtFilter **inner)
{
	const WcBtFilter *top = NULL;
	int			end = req->nfilters;

	*inner = NULL;

	/* from the last filter out, each condition's "then" the one after it */
	while (end > 0)
	{
		int			start = end - 1;
		const WcScanFilter *last = &req->filters[start];
		WcBtFilter *pred;

		/* an IN list: the run of its values, one condition */
		if (last->op == WC_FILTER_IN)
			while (start > 0 && req->filters[start - 1].op == WC_FILTER_IN &&
				   req->filters[start - 1].col == last->col &&
				   req->filters[start - 1].kind == last->kind)
				start--;
		if (last->col >= req->ncols)
			wc_malformed("SCAN");
		pred = predicate(req, &req->filters[start], end - start, as_of_hi);
		if (pred != NULL)
		{
			WcBtFilter *cond = palloc0(sizeof(WcBtFilter));
			WcBtFilter *branches = palloc0(sizeof(WcBtFilter) * 3);

			branches[0] = *pred;
			if (top != NULL)
				branches[1] = *top;
			else
			{
				branches[1].kind = WC_BT_FILTER_PASS;
				*inner = &branches[1];
			}
			branches[2].kind = WC_BT_FILTER_BLOCK;
			cond->kind = WC_BT_FILTER_CONDITION;
			cond->children = branches;
			cond->nchildren = 3;
			top = cond;
		}
		end = start;
	}
	return top;
}
