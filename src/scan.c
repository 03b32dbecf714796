/*-------------------------------------------------------------------------
 *
 * scan.c
 *	  Planning and running a scan of a widecolumn_fdw foreign table.
 *
 * The planner decides which LevelDB key ranges a scan reads and which
 * columns it needs; the plan carries that in fdw_private (indexed by
 * WcScanPrivateIndex).  The executor streams rows from the storage worker
 * and merges them, in row-key order, with the rows this transaction has
 * written but not yet committed (txn.c), so a transaction reads its own
 * writes and nobody else's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "widecolumn_fdw.h"

/* What the plan tells the executor, in ForeignScan.fdw_private. */
enum WcScanPrivateIndex
{
	WcScanPrivateAttrs,			/* IntList of attnums needed (0: all) */
	WcScanPrivateCount
};

/* Planner state, in RelOptInfo.fdw_private. */
typedef struct WcPlanState
{
	WcTable    *table;
	Bitmapset  *attrs_used;
	List	   *local_conds;
} WcPlanState;

/* Executor state, in ForeignScanState.fdw_state. */
typedef struct WcScanState
{
	WcTable    *table;
	int			nreq;			/* cells asked of the worker */
	int		   *req_attnum;
	uint8	  **req_cols;
	size_t	   *req_lens;
	List	   *ranges;			/* WcKeyRange, ascending */
	bool		reverse;
	MemoryContext row_cxt;

	/* what the scan reads: fixed when the executor starts it */
	uint32		db;
	uint32		snapshot;
	uint32		horizon;

	/* while running */
	bool		started;
	uint32		scan;
	bool		stored_done;
	WcBatchReader batch;
	bool		have_batch;
	bool		have_stored;	/* the fields below hold the next stored row */
	const uint8 *s_key;
	size_t		s_keylen;
	bool		s_other;
	const uint8 **s_vals;
	size_t	   *s_lens;
	const uint8 **w_vals;		/* a row being merged with txn changes */
	size_t	   *w_lens;
	WcTxnTable *tt;
	WcTxnRow   *orows;			/* this transaction's rows, in scan order */
	int			norows;
	int			opos;

	/* for EXPLAIN ANALYZE */
	uint64		stored_rows;
} WcScanState;

/*
 * wcGetForeignRelSize
 *		Read the table's mapping and estimate its size.
 */
static void
wcGetForeignRelSize(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	WcPlanState *ps = palloc0(sizeof(WcPlanState));
	ListCell   *lc;

	ps->table = wc_get_table(foreigntableid);
	baserel->fdw_private = ps;

	pull_varattnos((Node *) baserel->reltarget->exprs, baserel->relid, &ps->attrs_used);
	foreach(lc, baserel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst(lc);

		ps->local_conds = lappend(ps->local_conds, ri);
		pull_varattnos((Node *) ri->clause, baserel->relid, &ps->attrs_used);
	}

	/* Until ANALYZE has run, assume a modest table. */
	if (baserel->tuples <= 0)
		baserel->tuples = 1000;
	baserel->rows = clamp_row_est(baserel->tuples *
								  clauselist_selectivity(root, ps->local_conds,
														 baserel->relid, JOIN_INNER, NULL));
}

static void
wcGetForeignPaths(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	Cost		startup = 10;
	Cost		total = startup + baserel->tuples * (cpu_tuple_cost * 2 + seq_page_cost / 50);

	add_path(baserel, (Path *) create_foreignscan_path(root, baserel, NULL,
													   baserel->rows, startup, total,
													   NIL, NULL, NULL, NIL));
}

static ForeignScan *
wcGetForeignPlan(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid,
				 ForeignPath *best_path, List *tlist, List *scan_clauses,
				 Plan *outer_plan)
{
	WcPlanState *ps = baserel->fdw_private;
	List	   *attrs = NIL;
	int			i = -1;

	while ((i = bms_next_member(ps->attrs_used, i)) >= 0)
	{
		AttrNumber	attno = i + FirstLowInvalidHeapAttributeNumber;

		if (attno == 0)
		{
			attrs = list_make1_int(0);
			break;
		}
		if (attno > 0)
			attrs = lappend_int(attrs, attno);
	}

	scan_clauses = extract_actual_clauses(scan_clauses, false);
	return make_foreignscan(tlist, scan_clauses, baserel->relid, NIL,
							list_make1(attrs), NIL, NIL, outer_plan);
}

static void
wcBeginForeignScan(ForeignScanState *node, int eflags)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	WcScanState *ss;
	List	   *attrs = list_nth(plan->fdw_private, WcScanPrivateAttrs);
	bool		all = list_member_int(attrs, 0);
	WcKeyRange *full;

	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;

	ss = palloc0(sizeof(WcScanState));
	node->fdw_state = ss;
	ss->table = wc_get_table(RelationGetRelid(node->ss.ss_currentRelation));
	ss->row_cxt = AllocSetContextCreate(node->ss.ps.state->es_query_cxt,
										"widecolumn_fdw row", ALLOCSET_SMALL_SIZES);

	ss->req_attnum = palloc(sizeof(int) * Max(1, ss->table->natts));
	ss->req_cols = palloc(sizeof(uint8 *) * Max(1, ss->table->natts));
	ss->req_lens = palloc(sizeof(size_t) * Max(1, ss->table->natts));
	for (int a = 1; a <= ss->table->natts; a++)
	{
		WcColumn   *col = &ss->table->cols[a - 1];

		if (col->kind != WC_COL_CELL)
			continue;
		if (!all && !list_member_int(attrs, a))
			continue;
		ss->req_attnum[ss->nreq] = a;
		ss->req_cols[ss->nreq] = col->famqual;
		ss->req_lens[ss->nreq] = col->famqual_len;
		ss->nreq++;
	}
	ss->s_vals = palloc(sizeof(uint8 *) * Max(1, ss->nreq));
	ss->s_lens = palloc(sizeof(size_t) * Max(1, ss->nreq));
	ss->w_vals = palloc(sizeof(uint8 *) * Max(1, ss->nreq));
	ss->w_lens = palloc(sizeof(size_t) * Max(1, ss->nreq));

	/* The whole table: every key that starts with the escaped table name. */
	full = palloc0(sizeof(WcKeyRange));
	full->start = ss->table->table_key;
	full->start_len = ss->table->table_key_len;
	full->end = palloc(ss->table->table_key_len);
	memcpy(full->end, ss->table->table_key, ss->table->table_key_len);
	full->end_len = ss->table->table_key_len;
	(void) wc_successor(full->end, &full->end_len);
	ss->ranges = list_make1(full);

	/*
	 * The scan reads storage and this transaction's writes as they are now,
	 * when its statement starts, even if it is first read later (a cursor).
	 */
	ss->db = wc_client_open_db(ss->table);
	ss->snapshot = wc_client_snapshot_acquire(ss->db);
	ss->horizon = wc_txn_horizon();
}

/* Start the stored scan and collect this transaction's rows. */
static void
scan_start(WcScanState *ss)
{
	ss->scan = wc_client_scan_begin(ss->table, ss->db, ss->snapshot, ss->ranges,
									ss->reverse, 0, ss->req_cols, ss->req_lens, ss->nreq);
	ss->stored_done = false;
	ss->have_batch = false;
	ss->have_stored = false;

	ss->tt = wc_txn_table(ss->table, false);
	ss->norows = 0;
	ss->opos = 0;
	if (ss->tt != NULL)
	{
		int			nranges = list_length(ss->ranges);

		for (int r = 0; r < nranges; r++)
		{
			WcKeyRange *kr = list_nth(ss->ranges, ss->reverse ? nranges - 1 - r : r);
			WcTxnRow   *rows;
			int			n = wc_txn_rows_in_range(ss->tt, ss->horizon, kr, ss->reverse, &rows);

			ss->orows = ss->orows ? repalloc(ss->orows, sizeof(WcTxnRow) * (ss->norows + n + 1))
				: palloc(sizeof(WcTxnRow) * (n + 1));
			memcpy(ss->orows + ss->norows, rows, sizeof(WcTxnRow) * n);
			ss->norows += n;
		}
	}
	ss->started = true;
}

static void
malformed_batch(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROTOCOL_VIOLATION),
			 errmsg("malformed batch from the widecolumn_fdw storage worker")));
}

/* Make the next stored row current, if there is one. */
static void
stored_advance(WcScanState *ss)
{
	WcReader   *r;
	uint16		ncells;

	ss->have_stored = false;
	while (!ss->have_batch || ss->batch.rows_left == 0)
	{
		if (ss->stored_done)
			return;
		if (ss->have_batch && ss->batch.done)
		{
			ss->stored_done = true;
			return;
		}
		if (!wc_client_scan_next_batch(ss->scan, &ss->batch))
		{
			ss->stored_done = true;
			return;
		}
		ss->have_batch = true;
	}

	r = &ss->batch.r;
	ss->batch.rows_left--;
	ss->s_key = wc_get_str(r, &ss->s_keylen);
	ss->s_other = wc_get_u8(r) != 0;
	ncells = wc_get_u16(r);
	for (int i = 0; i < ss->nreq; i++)
		ss->s_vals[i] = NULL;
	for (int i = 0; i < ncells && !r->bad; i++)
	{
		uint16		idx = wc_get_u16(r);
		size_t		len;
		const uint8 *v = wc_get_str(r, &len);

		if (idx >= ss->nreq)
			malformed_batch();
		ss->s_vals[idx] = v;
		ss->s_lens[idx] = len;
	}
	if (r->bad)
		malformed_batch();
	ss->have_stored = true;
	ss->stored_rows++;
}

/* Apply this transaction's changes to a row's requested cells. */
static bool
apply_txn_row(WcScanState *ss, WcTxnRow *row, bool *other)
{
	bool		live = false;

	if (row->deleted)
	{
		*other = false;
		for (int i = 0; i < ss->nreq; i++)
			ss->w_vals[i] = NULL;
	}
	for (int c = 0; c < row->ncells; c++)
	{
		WcTxnCell  *cell = &row->cells[c];
		int			i;

		for (i = 0; i < ss->nreq; i++)
			if (ss->req_lens[i] == cell->famqual_len &&
				memcmp(ss->req_cols[i], cell->famqual, cell->famqual_len) == 0)
				break;
		if (i == ss->nreq)
		{
			if (cell->value != NULL)
				*other = true;
			continue;
		}
		ss->w_vals[i] = cell->value;
		ss->w_lens[i] = cell->value_len;
	}
	for (int i = 0; i < ss->nreq; i++)
		if (ss->w_vals[i] != NULL)
			live = true;
	return live || *other;
}

static void
fill_slot(WcScanState *ss, TupleTableSlot *slot, const uint8 *key, size_t keylen,
		  const uint8 **vals, size_t *lens)
{
	WcTable    *t = ss->table;

	ExecClearTuple(slot);
	memset(slot->tts_isnull, true, sizeof(bool) * slot->tts_tupleDescriptor->natts);
	slot->tts_values[t->rowkey_attnum - 1] =
		wc_decode_rowkey(key, keylen, t->cols[t->rowkey_attnum - 1].type);
	slot->tts_isnull[t->rowkey_attnum - 1] = false;
	for (int i = 0; i < ss->nreq; i++)
	{
		int			a = ss->req_attnum[i];

		if (vals[i] == NULL)
			continue;
		slot->tts_values[a - 1] = wc_decode_value(vals[i], lens[i], t, a, key, keylen);
		slot->tts_isnull[a - 1] = false;
	}
	ExecStoreVirtualTuple(slot);
}

/*
 * wcIterateForeignScan
 *		The next row: stored rows and this transaction's rows, merged.
 */
static TupleTableSlot *
wcIterateForeignScan(ForeignScanState *node)
{
	WcScanState *ss = node->fdw_state;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	MemoryContext old;

	MemoryContextReset(ss->row_cxt);
	old = MemoryContextSwitchTo(ss->row_cxt);
	if (!ss->started)
	{
		MemoryContextSwitchTo(node->ss.ps.state->es_query_cxt);
		scan_start(ss);
		MemoryContextSwitchTo(ss->row_cxt);
		stored_advance(ss);
	}

	for (;;)
	{
		WcTxnRow   *orow = ss->opos < ss->norows ? &ss->orows[ss->opos] : NULL;
		int			cmp;
		bool		other = false;
		const uint8 *key;
		size_t		keylen;

		if (!ss->have_stored && orow == NULL)
		{
			ExecClearTuple(slot);
			break;
		}
		if (!ss->have_stored)
			cmp = 1;
		else if (orow == NULL)
			cmp = -1;
		else
		{
			cmp = wc_compare_bytes(ss->s_key, ss->s_keylen, orow->rowkey, orow->rowkey_len);
			if (ss->reverse)
				cmp = -cmp;
		}

		if (cmp < 0)
		{
			/* a stored row this transaction has not touched */
			fill_slot(ss, slot, ss->s_key, ss->s_keylen, ss->s_vals, ss->s_lens);
			stored_advance(ss);
			break;
		}

		if (cmp == 0)
		{
			other = ss->s_other;
			key = ss->s_key;
			keylen = ss->s_keylen;
			memcpy(ss->w_vals, ss->s_vals, sizeof(uint8 *) * ss->nreq);
			memcpy(ss->w_lens, ss->s_lens, sizeof(size_t) * ss->nreq);
		}
		else
		{
			for (int i = 0; i < ss->nreq; i++)
				ss->w_vals[i] = NULL;
			key = orow->rowkey;
			keylen = orow->rowkey_len;
		}
		ss->opos++;
		if (apply_txn_row(ss, orow, &other))
		{
			fill_slot(ss, slot, key, keylen, ss->w_vals, ss->w_lens);
			if (cmp == 0)
				stored_advance(ss);
			break;
		}
		if (cmp == 0)
			stored_advance(ss);
	}
	MemoryContextSwitchTo(old);
	return slot;
}

static void
wcReScanForeignScan(ForeignScanState *node)
{
	WcScanState *ss = node->fdw_state;

	if (ss->started)
		wc_client_scan_end(ss->scan);
	ss->started = false;
	ss->orows = NULL;
	ss->norows = 0;
}

static void
wcEndForeignScan(ForeignScanState *node)
{
	WcScanState *ss = node->fdw_state;

	if (ss == NULL)
		return;
	if (ss->started)
		wc_client_scan_end(ss->scan);
	wc_client_snapshot_release(ss->snapshot);
}

static void
wcExplainForeignScan(ForeignScanState *node, ExplainState *es)
{
	Relation	rel = node->ss.ss_currentRelation;
	WcTable    *t = wc_get_table(RelationGetRelid(rel));

	ExplainPropertyText("Stored Table", t->table, es);
	ExplainPropertyText("Row Ranges", "Full Scan", es);
	if (es->analyze && node->fdw_state != NULL)
	{
		WcScanState *ss = node->fdw_state;

		ExplainPropertyUInteger("Storage Rows Read", NULL, ss->stored_rows, es);
		ExplainPropertyUInteger("Storage Entries Read", NULL,
								ss->started ? wc_client_scan_entries(ss->scan) : 0, es);
	}
}

void
wc_scan_register(FdwRoutine *routine)
{
	routine->GetForeignRelSize = wcGetForeignRelSize;
	routine->GetForeignPaths = wcGetForeignPaths;
	routine->GetForeignPlan = wcGetForeignPlan;
	routine->BeginForeignScan = wcBeginForeignScan;
	routine->IterateForeignScan = wcIterateForeignScan;
	routine->ReScanForeignScan = wcReScanForeignScan;
	routine->EndForeignScan = wcEndForeignScan;
	routine->ExplainForeignScan = wcExplainForeignScan;
}
