/*-------------------------------------------------------------------------
 *
 * analyze.c
 *	  ANALYZE of a widecolumn_fdw foreign table: a random sample of its rows.
 *
 * The whole table is read once, as this transaction sees it, through the
 * reader of stored rows (readrows.c), and a sample kept as file_fdw keeps one.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "commands/vacuum.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/sampling.h"

#include "fdw/exec/exec.h"
#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/link/link.h"
#include "fdw/meta/meta.h"
#include "fdw/model/model.h"
#include "fdw/read/read.h"
#include "fdw/xact/xact.h"

/*
 * wc_acquire_sample_rows
 *		ANALYZE: read every row once and keep a random sample (Vitter's
 *		reservoir, as file_fdw does).
 */
static int
wc_acquire_sample_rows(Relation relation, int elevel, HeapTuple *rows,
					   int targrows, double *totalrows, double *totaldeadrows)
{
	WcScanState ss;
	TupleDesc	desc = RelationGetDescr(relation);
	Datum	   *values = palloc(sizeof(Datum) * desc->natts);
	bool	   *nulls = palloc(sizeof(bool) * desc->natts);
	MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext, "widecolumn_fdw analyze",
												 ALLOCSET_DEFAULT_SIZES);
	MemoryContext old;
	ReservoirStateData rstate;
	double		rowstoskip = -1;
	int			numrows = 0;
	const uint8 *key;
	size_t		keylen;
	const uint8 **vals;
	size_t	   *lens;

	memset(&ss, 0, sizeof(ss));
	ss.table = wc_get_table(RelationGetRelid(relation));
	wc_aggregate_map(ss.table);
	ss.scan_cxt = CurrentMemoryContext;
	wc_scan_request_init(&ss);
	for (int a = 1; a <= ss.table->natts; a++)
		if (ss.table->cols[a - 1].kind == WC_COL_CELL)
			wc_scan_request_column(&ss, a);
	ss.db = wc_client_open_db(ss.table);
	ss.snapshot = wc_client_snapshot_acquire(ss.db);
	ss.horizon = wc_txn_horizon();
	ss.bulk = true;

	*totalrows = 0;
	reservoir_init_selection_state(&rstate, targrows);
	wc_scan_open(&ss, list_make1(wc_table_range(ss.table)));
	while (wc_scan_next(&ss, &key, &keylen, &vals, &lens))
	{
		vacuum_delay_point();
		MemoryContextReset(rowcxt);
		old = MemoryContextSwitchTo(rowcxt);
		wc_scan_decode_row(&ss, key, keylen, vals, lens, values, nulls);
		MemoryContextSwitchTo(old);

		if (numrows < targrows)
			rows[numrows++] = heap_form_tuple(desc, values, nulls);
		else
		{
			if (rowstoskip < 0)
				rowstoskip = reservoir_get_next_S(&rstate, *totalrows, targrows);
			if (rowstoskip <= 0)
			{
				int			k = (int) (targrows * sampler_random_fract(&rstate.randstate));

				heap_freetuple(rows[k]);
				rows[k] = heap_form_tuple(desc, values, nulls);
			}
			rowstoskip -= 1;
		}
		*totalrows += 1;
	}
	wc_scan_stop(&ss);
	wc_client_snapshot_release(ss.snapshot);
	MemoryContextDelete(rowcxt);
	*totaldeadrows = 0;

	ereport(elevel,
			(errmsg("\"%s\": scanned %.0f rows, keeping a sample of %d",
					RelationGetRelationName(relation), *totalrows, numrows)));
	return numrows;
}

static bool
wcAnalyzeForeignTable(Relation relation, AcquireSampleRowsFunc *func,
					  BlockNumber *totalpages)
{
	WcTable    *t = wc_get_table(RelationGetRelid(relation));
	uint64		bytes = wc_client_estimate(wc_client_open_db(t), list_make1(wc_table_range(t)));

	*func = wc_acquire_sample_rows;
	*totalpages = Max(1, bytes / BLCKSZ);
	return true;
}

void
wc_analyze_register(FdwRoutine *routine)
{
	routine->AnalyzeForeignTable = wcAnalyzeForeignTable;
}
