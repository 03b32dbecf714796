/*-------------------------------------------------------------------------
 *
 * txnrange.c
 *	  The rows a transaction wrote in a key range, as of a point of its
 *	  log: what a scan merges with the stored rows (readrows.c).
 *
 * The log keeps its rows in key order once wc_txn_sort_rows has merged in
 * the ones written out of order (xact.h), so a range is two binary searches
 * over them and a replay of each row between (txn.c, wc_txn_replay).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fdw/fdw.h"
#include "fdw/model/model.h"
#include "fdw/xact/xact.h"

/* Compare a row's stored key prefix (table, row key) with a range bound. */
static int
row_vs_bound(WcTxnTable *tt, WcRowEntry *e, const uint8 *bound, size_t blen)
{
	size_t		len;
	uint8	   *k = wc_row_key(tt->desc, e->key.data, e->key.len, &len);
	int			c = wc_compare_bytes(k, len, bound, blen);

	pfree(k);
	return c;
}

/* The first of tt's sorted rows, from lo on, at or after bound. */
static int
first_row_from(WcTxnTable *tt, int lo, const uint8 *bound, size_t blen)
{
	int			hi = tt->nsorted;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (row_vs_bound(tt, tt->rows[mid], bound, blen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * wc_txn_rows_in_range
 *		The rows this transaction wrote in range, in key order, as of horizon.
 */
int
wc_txn_rows_in_range(WcTxnTable *tt, uint32 horizon, const WcKeyRange *range,
					 bool reverse, WcTxnRow **rows)
{
	int			lo,
				hi,
				n = 0;

	wc_txn_sort_rows(tt);
	lo = first_row_from(tt, 0, range->start, range->start_len);
	hi = range->end_len > 0 ? first_row_from(tt, lo, range->end, range->end_len) :
		tt->nsorted;

	*rows = palloc(sizeof(WcTxnRow) * Max(1, hi - lo));
	for (int i = lo; i < hi; i++)
		if (wc_txn_replay(tt, tt->rows[i], horizon, &(*rows)[n]))
			n++;
	if (reverse)
	{
		for (int i = 0; i < n / 2; i++)
		{
			WcTxnRow	tmp = (*rows)[i];

			(*rows)[i] = (*rows)[n - 1 - i];
			(*rows)[n - 1 - i] = tmp;
		}
	}
	return n;
}
