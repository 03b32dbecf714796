/*-------------------------------------------------------------------------
 *
 * estimate.c
 *	  The planner's row counts of a foreign table before ANALYZE, and of
 *	  the key ranges a scan reads.
 *
 * A walk of a few thousand entries (wc_size_rows) tells them: it reads
 * entries, the memtable's too, where LevelDB's estimate of the bytes
 * between two keys (widecolumn.approximate_size, tablesizes.c) counts only
 * what its table files hold.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/link/link.h"
#include "fdw/planner/planner.h"

/* Entries the planner's walk of a table reads, at most ... */
#define WC_SIZE_WALK_ENTRIES	4096

/*
 * ... and of a scan's key ranges.  Every custom plan walks them again, and
 * a prepared prefix scan of a large table gets a custom plan at each
 * execution (its generic plan is costed with LIKE's default selectivity,
 * above the custom plans, so the plan cache keeps making them): a walk as
 * long as the table's read a 1,000-row prefix twice per query, once for
 * the estimate and once for the rows, a third of the storage worker's work
 * in such a workload.  A range of up to 512 entries (128 rows of four
 * cells) is still counted exactly; a longer one is estimated from its bytes.
 */
#define WC_RANGE_WALK_ENTRIES	512

/* Bytes a stored row takes, when LevelDB cannot say. */
#define WC_EST_ROW_BYTES	64

/*
 * The planner plans every query of an un-ANALYZEd table (autovacuum never
 * analyzes foreign tables), and a walk costs a few tenths of a millisecond,
 * which a point read by the simple protocol would pay each time: what a
 * walk of a table found is kept this long, per session.
 */
#define WC_SIZE_KEEP_US		(10 * USECS_PER_SEC)

typedef struct WcKnownSize
{
	Oid			serverid;
	char	   *table;
	TimestampTz at;
	double		tuples;
	double		row_bytes;
} WcKnownSize;

static List *known_sizes = NIL;

/*
 * wc_size_rows
 *		Before ANALYZE: the rows of the table (in *tuples) and, given the
 *		key ranges a scan reads (NIL: none), the rows in them (else -1).
 *
 * A walk of a few thousand entries from the start of the table tells the
 * bytes a row takes, and the rows of the table and of the ranges are their
 * bytes over that; a walk that reaches the end of the table, or of the
 * ranges, has counted their rows.  The table counts as 1,000 rows at
 * least, as it always has before ANALYZE.
 */
double
wc_size_rows(WcTable *t, List *ranges, double *tuples)
{
	uint32		db = wc_client_open_db(t);
	WcRowsAnswer a;
	double		row_bytes = WC_EST_ROW_BYTES;
	WcKnownSize *known = NULL;
	TimestampTz now = GetCurrentTimestamp();
	ListCell   *lc;

	foreach(lc, known_sizes)
	{
		WcKnownSize *k = lfirst(lc);

		if (k->serverid == t->serverid && strcmp(k->table, t->table) == 0)
			known = k;
	}
	if (known != NULL && now - known->at < WC_SIZE_KEEP_US)
	{
		*tuples = known->tuples;
		row_bytes = known->row_bytes;
	}
	else
	{
		wc_client_rows(db, list_make1(wc_table_range(t)), WC_SIZE_WALK_ENTRIES, &a);
		if (a.complete)
			*tuples = a.rows;
		else
		{
			if (a.walked_bytes > 0 && a.rows > 0)
				row_bytes = (double) a.walked_bytes / a.rows;
			*tuples = Max(a.rows, a.bytes / row_bytes);
		}
		*tuples = Max(1000, *tuples);
		if (known == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

			known = palloc0(sizeof(WcKnownSize));
			known->serverid = t->serverid;
			known->table = pstrdup(t->table);
			known_sizes = lappend(known_sizes, known);
			MemoryContextSwitchTo(old);
		}
		known->at = now;
		known->tuples = *tuples;
		known->row_bytes = row_bytes;
	}
	if (ranges == NIL)
		return -1;
	wc_client_rows(db, ranges, WC_RANGE_WALK_ENTRIES, &a);
	if (a.complete)
		return a.rows;
	return Min(*tuples, Max(a.rows, a.bytes / row_bytes));
}
