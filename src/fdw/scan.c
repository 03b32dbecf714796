/*-------------------------------------------------------------------------
 *
 * scan.c
 *	  Running a scan of a widecolumn_fdw foreign table.
 *
 * The executor computes the key ranges from the plan's condition (scan.h,
 * ranges.c), streams rows from the storage worker and merges them, in
 * row-key order, with the rows this transaction has written but not yet
 * committed (txn.c), so a transaction reads its own writes and nobody
 * else's.  A scan that locks rows (UPDATE, DELETE, FOR UPDATE) locks each
 * row it returns and reads it afresh.  Planning is plan.c's, EXPLAIN
 * explain.c's, ANALYZE's sample analyze.c's.  It also counts, for the advisor, the
 * rows it fetched and the rows its node returned (count_use).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "optimizer/clauses.h"
#include "storage/lock.h"
#include "utils/datum.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "common/scanuse.h"
#include "fdw/fdw.h"
#include "fdw/scan.h"

/* The node's ExecProcNode, counting the rows it returns. */
static TupleTableSlot *
count_kept(PlanState *ps)
{
	WcScanState *ss = ((ForeignScanState *) ps)->fdw_state;
	TupleTableSlot *slot = ss->use_exec(ps);

	if (!TupIsNull(slot))
		ss->use_kept++;
	return slot;
}

/*
 * count_use
 *		Count what the scan's node returns, for the advisor's
 *		scans_exceed_reads (adviseuse.c), in BeginForeignScan:
 *		ExecInitForeignScan has set its ExecProcNode, and ExecInitNode
 *		wraps whatever is there once we return.
 */
static void
count_use(ForeignScanState *node)
{
	WcScanState *ss = node->fdw_state;

	ss->count_use = true;
	ss->use_exec = node->ss.ps.ExecProcNode;
	node->ss.ps.ExecProcNode = count_kept;
}

/* At the scan's end: add its counts to the table's (common/scanuse.h). */
static void
use_end(WcScanState *ss)
{
	if (ss->use_scans > 0)
		wc_scanuse_add(MyDatabaseId, ss->table->serverid, ss->table->table,
					   ss->use_scans, ss->use_fetched, ss->use_kept);
}

/*
 * Ask for column a's cell, in ss's mapped columns.  A cell that several
 * columns map (the same bytes as text and as bytea, say) is asked for once,
 * since the worker answers each cell for one position; the others decode it
 * too (aliases).
 */
void
wc_scan_request_column(WcScanState *ss, int a)
{
	WcColumn   *col = &ss->table->cols[a - 1];

	for (int i = 0; i < ss->nmapped; i++)
		if (ss->mapped_lens[i] == col->famqual_len &&
			memcmp(ss->mapped_cols[i], col->famqual, col->famqual_len) == 0)
		{
			ss->alias_attnum[ss->naliases] = a;
			ss->alias_pos[ss->naliases++] = i;
			return;
		}
	ss->req_attnum[ss->nmapped] = a;
	ss->mapped_cols[ss->nmapped] = col->famqual;
	ss->mapped_lens[ss->nmapped] = col->famqual_len;
	ss->nmapped++;
}

/* Room for every column of ss's table in the arrays wc_scan_request_column fills. */
void
wc_scan_request_init(WcScanState *ss)
{
	int			n = Max(1, ss->table->natts);

	ss->req_attnum = palloc(sizeof(int) * n);
	ss->alias_attnum = palloc(sizeof(int) * n);
	ss->alias_pos = palloc(sizeof(int) * n);
	ss->mapped_cols = palloc(sizeof(uint8 *) * n);
	ss->mapped_lens = palloc(sizeof(size_t) * n);
	ss->nmapped = 0;
	ss->naliases = 0;
}

static void
wcBeginForeignScan(ForeignScanState *node, int eflags)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	WcScanState *ss;
	List	   *attrs = list_nth(plan->fdw_private, WcScanPrivateAttrs);
	bool		all = list_member_int(attrs, 0);
	int			lock;

	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;

	ss = palloc0(sizeof(WcScanState));
	node->fdw_state = ss;
	ss->table = wc_get_table(RelationGetRelid(node->ss.ss_currentRelation));
	wc_aggregate_map(ss->table);
	ss->cond = list_nth(plan->fdw_private, WcScanPrivateCond);
	ss->reverse = intVal(list_nth(plan->fdw_private, WcScanPrivateReverse)) != 0;
	ss->limit = intVal(list_nth(plan->fdw_private, WcScanPrivateLimit));
	ss->filter_plan = list_nth(plan->fdw_private, WcScanPrivateFilters);
	lock = intVal(list_nth(plan->fdw_private, WcScanPrivateLockRows));
	ss->lock_rows = lock != 0;
	ss->lock_mode = (lock & 0xFF) / 4;
	ss->lock_wait = (lock & 0xFF) % 4;
	ss->lock_for = lock & (WC_LOCK_FOR_UPDATE | WC_LOCK_FOR_DELETE);
	ss->output_cid = node->ss.ps.state->es_output_cid;
	ss->versions = ss->lock_rows && IsolationUsesXactSnapshot();

	/*
	 * A row is locked only if the snapshot's version of it passes the
	 * plan's quals, as PostgreSQL locks only the rows its scan returns; the
	 * version read afresh under the lock is checked again if it differs.
	 * So the scan checks the quals itself, not ExecScan after it.  An
	 * EvalPlanQual recheck then checks them with the recheck quals.  (Quals
	 * with a subquery are left to ExecScan, after the lock: checking them
	 * twice could run a volatile subquery twice, and setting the subquery
	 * up twice would show it twice in EXPLAIN ANALYZE.)
	 */
	if (ss->lock_rows && node->ss.ps.qual != NULL &&
		!contain_subplans((Node *) plan->scan.plan.qual))
	{
		ss->lock_qual = node->ss.ps.qual;
		node->ss.ps.qual = NULL;
		node->fdw_recheck_quals =
			ExecInitQual(list_concat(list_copy(plan->fdw_recheck_quals), plan->scan.plan.qual),
						 (PlanState *) node);
	}
	ss->bulk = ss->cond == NIL;
	ss->exprstates = ExecInitExprList(plan->fdw_exprs, (PlanState *) node);
	ss->row_cxt = AllocSetContextCreate(node->ss.ps.state->es_query_cxt,
										"widecolumn_fdw row", ALLOCSET_SMALL_SIZES);
	ss->scan_cxt = AllocSetContextCreate(node->ss.ps.state->es_query_cxt,
										 "widecolumn_fdw scan", ALLOCSET_DEFAULT_SIZES);

	wc_scan_request_init(ss);
	for (int a = 1; a <= ss->table->natts; a++)
	{
		if (ss->table->cols[a - 1].kind != WC_COL_CELL)
			continue;
		if (!all && !list_member_int(attrs, a))
			continue;
		wc_scan_request_column(ss, a);
	}
	ss->nreq = ss->nmapped;
	ss->req_cols = ss->mapped_cols;
	ss->req_lens = ss->mapped_lens;

	/*
	 * The scan reads storage and this transaction's writes as they are now,
	 * when its statement starts, even if it is first read later (a cursor).
	 */
	ss->db = wc_client_open_db(ss->table);
	/* a parallel worker reads its leader's snapshot (parscan.c) */
	if (!(IsParallelWorker() && plan->scan.plan.parallel_aware))
		ss->snapshot = wc_client_snapshot_acquire(ss->db);
	ss->horizon = wc_txn_horizon_at(node->ss.ps.state->es_snapshot->curcid);
	ss->subid = GetCurrentSubTransactionId();
	if (ss->lock_rows)
		wc_as_of_forbid(ss->lock_for == 0);	/* FOR UPDATE, or a write */
	ss->as_of = wc_as_of_for_read();
	if (plan->operation == CMD_SELECT)
		count_use(node);
}

/*
 * wc_scan_key_values
 *		The values the key condition compares with: exprs evaluated in
 *		econtext, or, with econtext NULL, exprs that are all Consts
 *		(EXPLAIN of a plan whose values are known).
 */
void
wc_scan_key_values(List *exprs, ExprContext *econtext, Datum **values, bool **nulls)
{
	int			n = list_length(exprs);
	int			i = 0;
	ListCell   *lc;

	*values = palloc(sizeof(Datum) * Max(1, n));
	*nulls = palloc(sizeof(bool) * Max(1, n));
	foreach(lc, exprs)
	{
		if (econtext == NULL)
		{
			Const	   *c = lfirst_node(Const, lc);

			(*values)[i] = c->constvalue;
			(*nulls)[i] = c->constisnull;
		}
		else
			(*values)[i] = ExecEvalExpr(lfirst(lc), econtext, &(*nulls)[i]);
		i++;
	}
}

/* Compute the key ranges from the condition's current values. */
List *
wc_scan_ranges(ForeignScanState *node, WcScanState *ss)
{
	Datum	   *values;
	bool	   *nulls;
	ListCell   *lc;

	wc_scan_key_values(ss->exprstates, node->ss.ps.ps_ExprContext, &values, &nulls);

	/* Top-level LIKE patterns that are not plain prefixes: check rows. */
	ss->like_checks = NIL;
	if (ss->cond != NIL)
	{
		for_each_from(lc, ss->cond, 1)
		{
			List	   *atom = lfirst(lc);
			int			e;

			if (intVal(linitial(atom)) != WC_KEY_LIKE || list_length(atom) < 4)
				continue;
			e = intVal(lsecond(atom));
			if (nulls[e])
				continue;		/* LIKE NULL: no range, no row */
			{
				struct varlena *pat = PG_DETOAST_DATUM_PACKED(values[e]);
				StringInfoData prefix;
				bool		pure,
							no_wildcard;

				initStringInfo(&prefix);
				wc_like_prefix(VARDATA_ANY(pat), VARSIZE_ANY_EXHDR(pat),
							   ss->table->cols[ss->table->rowkey_attnum - 1].type == BYTEAOID,
							   &prefix, &pure, &no_wildcard);
				if (pure)
					continue;
			}
			{
				WcLikeCheck *lk = palloc(sizeof(WcLikeCheck));

				lk->func = (Oid) intVal(lthird(atom));
				lk->collation = (Oid) intVal(lfourth(atom));
				lk->pattern = datumCopy(values[e], false, -1);
				ss->like_checks = lappend(ss->like_checks, lk);
			}
		}
	}
	wc_storefilter_values(ss, values, nulls);
	return wc_eval_key_ranges(ss->cond, values, nulls, ss->table, NULL, NULL);
}

static void scan_open(WcScanState *ss, List *ranges);
static void stored_advance(WcScanState *ss);

/* Start the scan of the ranges the condition gives now (or of a chunk). */
static void
scan_start(ForeignScanState *node, WcScanState *ss)
{
	MemoryContextReset(ss->scan_cxt);
	MemoryContextSwitchTo(ss->scan_cxt);
	scan_open(ss, wc_parscan_first(ss, wc_scan_ranges(node, ss)));
}

/* The scan's next row; in a parallel scan, on in its next chunk. */
static bool
scan_next_row(WcScanState *ss, const uint8 **key, size_t *keylen,
			  const uint8 ***vals, size_t **lens)
{
	while (!wc_scan_next(ss, key, keylen, vals, lens))
		if (!wc_parscan_chunked(ss) || !wc_parscan_open_next(ss))
			return false;
	return true;
}

/* Start the stored scan of ranges and collect this transaction's rows. */
static void
scan_open(WcScanState *ss, List *ranges)
{
	int			nranges;

	ss->ranges = ranges;
	nranges = list_length(ss->ranges);
	ss->advance_pending = false;
	ss->stored_done = true;
	ss->have_batch = false;
	ss->have_stored = false;
	ss->remote = false;
	ss->orows = NULL;
	ss->norows = 0;
	ss->opos = 0;
	ss->started = true;

	/* Contradictory bounds: nothing to read, not even a round trip. */
	if (nranges == 0)
		return;

	/*
	 * Also ask for the cells this transaction wrote, mapped here or not, so
	 * that a row whose last cells it deleted is known to be gone.
	 */
	ss->tt = wc_txn_table(ss->table, false);
	ss->nreq = ss->nmapped;
	ss->req_cols = ss->mapped_cols;
	ss->req_lens = ss->mapped_lens;
	if (ss->tt != NULL)
	{
		uint8	  **cols;
		size_t	   *lens;
		int			n = wc_txn_columns(ss->tt, &cols, &lens);
		uint8	  **all_cols = palloc(sizeof(uint8 *) * (ss->nmapped + n + 1));
		size_t	   *all_lens = palloc(sizeof(size_t) * (ss->nmapped + n + 1));

		/* a lookup of existence asks for no column: no array to copy */
		if (ss->nmapped > 0)
		{
			memcpy(all_cols, ss->req_cols, sizeof(uint8 *) * ss->nmapped);
			memcpy(all_lens, ss->req_lens, sizeof(size_t) * ss->nmapped);
		}
		for (int c = 0; c < n; c++)
		{
			bool		dup = false;

			for (int i = 0; i < ss->nmapped; i++)
				if (all_lens[i] == lens[c] && memcmp(all_cols[i], cols[c], lens[c]) == 0)
					dup = true;
			if (!dup && !wc_map_covers(ss->mapped_cols, ss->mapped_lens, ss->nmapped,
									   cols[c], lens[c]))
			{
				all_cols[ss->nreq] = cols[c];
				all_lens[ss->nreq] = lens[c];
				ss->nreq++;
			}
		}
		if (ss->nreq > WC_MAX_SCAN_COLUMNS)
			ss->nreq = wc_map_fold_families(all_cols, all_lens, ss->nmapped, ss->nreq);
		ss->req_cols = all_cols;
		ss->req_lens = all_lens;
	}
	ss->s_vals = palloc(sizeof(uint8 *) * Max(1, ss->nreq));
	ss->s_lens = palloc(sizeof(size_t) * Max(1, ss->nreq));
	ss->w_vals = palloc(sizeof(uint8 *) * Max(1, ss->nreq));
	ss->w_lens = palloc(sizeof(size_t) * Max(1, ss->nreq));

	if (ss->tt != NULL)
	{
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

	/*
	 * With our own writes merged in, or rows the scan filters itself,
	 * storage cannot stop at the limit.  Its filters would leave out a
	 * stored row that our writes make pass, and the rows a scan locks are
	 * read again under the lock: neither gets them.
	 */
	ss->scan = wc_client_scan_begin(ss->table, ss->db, ss->snapshot, ss->as_of,
									wc_rowdrop_any() ?
									wc_rowdrop_ranges(ss->table, ss->horizon, ss->ranges) :
									ss->ranges,
									ss->reverse, ss->bulk, ss->versions,
									ss->norows > 0 || ss->like_checks != NIL ? 0 : ss->limit,
									ss->req_cols, ss->req_lens, ss->nreq,
									ss->filters,
									ss->tt == NULL && !ss->lock_rows ? ss->nfilters : 0,
									ss->subid != InvalidSubTransactionId ? ss->subid :
									GetCurrentSubTransactionId());
	ss->remote = true;
	ss->stored_done = false;
}

/*
 * wc_scan_open
 *		Start reading ranges, for a scan outside the executor (ANALYZE, a
 *		row read afresh): the stored rows and this transaction's.
 */
void
wc_scan_open(WcScanState *ss, List *ranges)
{
	scan_open(ss, ranges);
	stored_advance(ss);
}

void
wc_scan_stop(WcScanState *ss)
{
	if (ss->remote)
	{
		ss->stored_entries += wc_client_scan_entries(ss->scan);
		ss->stored_skipped += wc_client_scan_skipped(ss->scan);
		wc_client_scan_end(ss->scan);
	}
	ss->remote = false;
	ss->started = false;
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
	WcBatchRow	row;

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
	if (!wc_read_batch_row(r, &row))
		malformed_batch();
	ss->s_key = row.key.data;
	ss->s_keylen = row.key.len;
	ss->s_other = row.other;
	for (int i = 0; i < ss->nreq; i++)
		ss->s_vals[i] = NULL;
	for (int i = 0; i < row.ncells; i++)
	{
		uint16		idx;
		WcBytes		v;

		if (!wc_read_batch_cell(r, &idx, &v) || idx >= ss->nreq)
			malformed_batch();
		ss->s_vals[idx] = v.data;
		ss->s_lens[idx] = v.len;
	}
	if (ss->versions && !wc_read_batch_version(r, &ss->s_version))
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
		if (cell->merge != 0)
			ss->w_vals[i] = wc_aggregate_apply_txn(ss->w_vals[i], &ss->w_lens[i], cell);
		else
		{
			ss->w_vals[i] = cell->value;
			ss->w_lens[i] = cell->value_len;
		}
	}
	wc_map_apply_txn(ss->req_cols, ss->req_lens, ss->nreq, row, ss->w_vals, ss->w_lens);
	for (int i = 0; i < ss->nreq; i++)
		if (ss->w_vals[i] != NULL)
			live = true;
	return live || *other;
}

/* Decode a row into values and nulls, natts long. */
void
wc_scan_decode_row(WcScanState *ss, const uint8 *key, size_t keylen,
		   const uint8 **vals, size_t *lens, Datum *values, bool *nulls)
{
	WcTable    *t = ss->table;

	memset(nulls, true, sizeof(bool) * t->natts);
	if (t->nparts > 0)
		wc_key_split(t, key, keylen, values, nulls);
	else
	{
		values[t->rowkey_attnum - 1] =
			wc_decode_rowkey(key, keylen, t->cols[t->rowkey_attnum - 1].type);
		nulls[t->rowkey_attnum - 1] = false;
	}
	for (int i = 0; i < ss->nmapped + ss->naliases; i++)
	{
		int			a = i < ss->nmapped ? ss->req_attnum[i] : ss->alias_attnum[i - ss->nmapped];
		int			p = i < ss->nmapped ? i : ss->alias_pos[i - ss->nmapped];

		/* a map column is {} when its family has no cell, never NULL */
		if (t->cols[a - 1].map_type != InvalidOid)
			values[a - 1] = vals[p] == NULL ? wc_map_empty() :
				wc_map_decode(vals[p], lens[p], t, a, key, keylen);
		else if (vals[p] == NULL)
			continue;
		else
			values[a - 1] = wc_decode_value(vals[p], lens[p], t, a, key, keylen);
		nulls[a - 1] = false;
	}
}

static void
fill_slot(WcScanState *ss, TupleTableSlot *slot, const uint8 *key, size_t keylen,
		  const uint8 **vals, size_t *lens)
{
	ExecClearTuple(slot);
	wc_scan_decode_row(ss, key, keylen, vals, lens, slot->tts_values, slot->tts_isnull);
	ExecStoreVirtualTuple(slot);
}

/* Does the row in slot match the LIKE patterns the scan checks itself? */
static bool
like_checks_pass(WcScanState *ss, TupleTableSlot *slot)
{
	ListCell   *lc;

	foreach(lc, ss->like_checks)
	{
		WcLikeCheck *lk = lfirst(lc);
		Datum		key = slot->tts_values[ss->table->rowkey_attnum - 1];

		if (!DatumGetBool(OidFunctionCall2Coll(lk->func, lk->collation, key, lk->pattern)))
			return false;
	}
	return true;
}

/*
 * wc_scan_next
 *		The next row of the scan: stored rows and this transaction's rows,
 *		merged in key order.  The row stays valid until the next call.
 */
bool
wc_scan_next(WcScanState *ss, const uint8 **key, size_t *keylen,
			const uint8 ***vals, size_t **lens)
{
	if (ss->advance_pending)
	{
		stored_advance(ss);
		ss->advance_pending = false;
	}

	for (;;)
	{
		WcTxnRow   *orow = ss->opos < ss->norows ? &ss->orows[ss->opos] : NULL;
		int			cmp;
		bool		other = false;

		if (!ss->have_stored && orow == NULL)
			return false;
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

		ss->m_version = cmp <= 0 ? ss->s_version : 0;
		if (cmp < 0)
		{
			/* a stored row this transaction has not touched */
			*key = ss->s_key;
			*keylen = ss->s_keylen;
			*vals = ss->s_vals;
			*lens = ss->s_lens;
			ss->advance_pending = true;
			return true;
		}

		if (cmp == 0)
		{
			other = ss->s_other;
			*key = ss->s_key;
			*keylen = ss->s_keylen;
			memcpy(ss->w_vals, ss->s_vals, sizeof(uint8 *) * ss->nreq);
			memcpy(ss->w_lens, ss->s_lens, sizeof(size_t) * ss->nreq);
		}
		else
		{
			for (int i = 0; i < ss->nreq; i++)
				ss->w_vals[i] = NULL;
			*key = orow->rowkey;
			*keylen = orow->rowkey_len;
		}
		ss->opos++;
		if (apply_txn_row(ss, orow, &other))
		{
			*vals = ss->w_vals;
			*lens = ss->w_lens;
			ss->advance_pending = (cmp == 0);
			return true;
		}
		if (cmp == 0)
			stored_advance(ss);
	}
}

/*
 * read_row_now
 *		Read one row as it is now, latest committed state merged with this
 *		transaction's writes, asking for the cells like asks for.  The
 *		values are copied into the current memory context.
 */
static bool
read_row_now(WcScanState *like, const uint8 *key, size_t keylen,
			 const uint8 ***vals, size_t **lens, uint64 *version)
{
	WcTable    *t = like->table;
	WcScanState cur;
	const uint8 *k;
	size_t		klen;
	const uint8 **cvals;
	size_t	   *clens;
	bool		found;

	memset(&cur, 0, sizeof(cur));
	cur.table = t;
	cur.scan_cxt = CurrentMemoryContext;
	cur.nmapped = like->nmapped;
	cur.mapped_cols = like->mapped_cols;
	cur.mapped_lens = like->mapped_lens;
	cur.req_attnum = like->req_attnum;
	cur.db = like->db;
	cur.snapshot = 0;			/* the latest state */
	cur.horizon = wc_txn_horizon();
	cur.versions = like->versions;
	wc_scan_open(&cur, list_make1(wc_row_range(t, key, keylen)));
	found = wc_scan_next(&cur, &k, &klen, &cvals, &clens);
	if (version != NULL)
		*version = found ? cur.m_version : 0;
	*vals = palloc(sizeof(uint8 *) * Max(1, like->nmapped));
	*lens = palloc(sizeof(size_t) * Max(1, like->nmapped));
	for (int i = 0; found && i < like->nmapped; i++)
	{
		(*vals)[i] = cvals[i] ? memcpy(palloc(clens[i] + 1), cvals[i], clens[i]) : NULL;
		(*lens)[i] = clens[i];
	}
	wc_scan_stop(&cur);
	return found;
}

/*
 * lock_and_reread
 *		Lock a row for the rest of the transaction, then read its latest
 *		committed state (with this transaction's writes).
 *
 * As PostgreSQL does for heap rows, READ COMMITTED then goes on with the
 * latest version, and REPEATABLE READ fails if it differs from the one its
 * snapshot saw.  Returns false if the row is gone, locked by another
 * transaction under SKIP LOCKED, or if this transaction has written it
 * since the scan began (in this statement: an UPDATE joined
 * to two rows of another table, or in a later one: a cursor), which
 * PostgreSQL passes over too.
 */
static bool
lock_and_reread(WcScanState *ss, const uint8 **key, size_t *keylen,
				const uint8 ***vals, size_t **lens, bool *changed)
{
	WcTable    *t = ss->table;
	uint8	   *k = memcpy(palloc(*keylen + 1), *key, *keylen);
	size_t		klen = *keylen;
	const uint8 **nvals;
	size_t	   *nlens;
	bool		found;
	bool		same;
	uint64		snapshot_version = ss->m_version;
	uint64		version;

	if (!wc_txn_lock_row(t, k, klen, ss->lock_mode, ss->lock_wait) ||
		wc_txn_changed_since(t, ss->horizon, k, klen,
							 ss->lock_for ? ss->output_cid : InvalidCommandId,
							 ss->lock_for == WC_LOCK_FOR_DELETE))
		return false;
	found = read_row_now(ss, k, klen, &nvals, &nlens, &version);

	/*
	 * FOR KEY SHARE conflicts only with a DELETE (an UPDATE never changes
	 * the key): a row updated meanwhile is returned as the snapshot saw it,
	 * as PostgreSQL does.
	 */
	if (ss->lock_mode == AccessShareLock && found)
	{
		*changed = false;
		return true;
	}

	same = found;
	for (int i = 0; same && i < ss->nmapped; i++)
		if ((nvals[i] == NULL) != ((*vals)[i] == NULL) ||
			(nvals[i] && (nlens[i] != (*lens)[i] || memcmp(nvals[i], (*vals)[i], nlens[i]) != 0)))
			same = false;
	*changed = !same;
	if (IsolationUsesXactSnapshot())
	{
		/*
		 * Any change to the row counts, not only to the cells read here: a
		 * DELETE reads none, and another foreign table may map others.
		 */
		if (!same || version != snapshot_version)
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("could not serialize access due to concurrent update"),
					 errdetail("Row key \"%s\" of foreign table \"%s\" changed after this transaction's snapshot.",
							   wc_printable_key(k, klen), t->relname)));
	}
	if (!found)
		return false;
	*key = k;
	*keylen = klen;
	*vals = nvals;
	*lens = nlens;
	return true;
}

/* Does the row in slot pass the plan's quals (a scan that locks rows)? */
static bool
lock_qual_passes(ForeignScanState *node, WcScanState *ss, TupleTableSlot *slot)
{
	ExprContext *econtext = node->ss.ps.ps_ExprContext;

	if (ss->lock_qual == NULL)
		return true;
	econtext->ecxt_scantuple = slot;
	if (ExecQual(ss->lock_qual, econtext))
		return true;
	InstrCountFiltered1(node, 1);
	ResetExprContext(econtext);
	return false;
}

/*
 * wcIterateForeignScan
 *		The next row, decoded into the scan slot.
 */
static TupleTableSlot *
wcIterateForeignScan(ForeignScanState *node)
{
	WcScanState *ss = node->fdw_state;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	MemoryContext old;
	const uint8 *key;
	size_t		keylen;
	const uint8 **vals;
	size_t	   *lens;

	MemoryContextReset(ss->row_cxt);
	old = MemoryContextSwitchTo(ss->row_cxt);
	if (!ss->started)
	{
		scan_start(node, ss);
		MemoryContextSwitchTo(ss->row_cxt);
		stored_advance(ss);
		ss->use_scans++;
	}
	ExecClearTuple(slot);
	while (scan_next_row(ss, &key, &keylen, &vals, &lens))
	{
		bool		changed = false;

		ss->use_fetched++;

		fill_slot(ss, slot, key, keylen, vals, lens);
		if (!like_checks_pass(ss, slot) ||
			(ss->lock_rows &&
			 (!lock_qual_passes(node, ss, slot) ||
			  !lock_and_reread(ss, &key, &keylen, &vals, &lens, &changed))))
		{
			ExecClearTuple(slot);
			continue;
		}
		if (changed)
		{
			/* changed meanwhile (READ COMMITTED): its latest version */
			fill_slot(ss, slot, key, keylen, vals, lens);
			if (!lock_qual_passes(node, ss, slot))
			{
				ExecClearTuple(slot);
				continue;
			}
		}
		break;
	}
	MemoryContextSwitchTo(old);
	return slot;
}

/*
 * wc_row_exists
 *		Does a row with this key exist, as this transaction sees it now?
 *
 * For INSERT ... ON CONFLICT DO NOTHING, which, like a unique index, looks
 * at the latest committed state rather than the statement's snapshot.
 */
bool
wc_row_exists(WcTable *t, const uint8 *key, size_t keylen)
{
	WcScanState none;
	const uint8 **vals;
	size_t	   *lens;

	memset(&none, 0, sizeof(none));
	none.table = t;
	none.db = wc_client_open_db(t);
	return read_row_now(&none, key, keylen, &vals, &lens, NULL);
}

static void
wcReScanForeignScan(ForeignScanState *node)
{
	WcScanState *ss = node->fdw_state;

	/* Parameters may have changed: the ranges are computed again. */
	wc_scan_stop(ss);
}

static void
wcEndForeignScan(ForeignScanState *node)
{
	WcScanState *ss = node->fdw_state;
	uint64		rows;
	uint64		entries;
	uint64		skipped;

	if (ss == NULL)
		return;
	wc_scan_stop(ss);
	if (wc_scan_storage_read(node, &rows, &entries, &skipped))
		wc_parscan_end(ss, rows, entries, skipped);
	wc_client_snapshot_release(ss->snapshot);
	/* the advisor counts the rows read, those storage left out too */
	ss->use_fetched += ss->stored_skipped;
	if (ss->count_use)
		use_end(ss);
}

/*
 * wc_scan_storage_read
 *		What the scan has read from storage so far (rows, those its storage
 *		filters left out among them), for EXPLAIN ANALYZE: in every loop,
 *		and in a parallel scan by every participant;
 *		false if it has no state (EXPLAIN without ANALYZE).
 */
bool
wc_scan_storage_read(ForeignScanState *node, uint64 *rows, uint64 *entries,
					 uint64 *skipped)
{
	WcScanState *ss = node->fdw_state;

	if (ss == NULL)
		return false;
	*skipped = ss->stored_skipped + (ss->remote ? wc_client_scan_skipped(ss->scan) : 0);
	*rows = ss->stored_rows + *skipped;
	*entries = ss->stored_entries + (ss->remote ? wc_client_scan_entries(ss->scan) : 0);
	wc_parscan_workers_read(ss, rows, entries, skipped);
	return true;
}

/*
 * wc_read_row_now
 *		Read one row of t as it is now (the latest committed state, with
 *		this transaction's writes), every cell t maps; vals and lens are
 *		indexed by the cells' order in t.
 */
bool
wc_read_row_now(WcTable *t, const uint8 *key, size_t keylen,
				const uint8 ***vals, size_t **lens)
{
	WcScanState like;

	memset(&like, 0, sizeof(like));
	like.table = t;
	like.scan_cxt = CurrentMemoryContext;
	wc_scan_request_init(&like);
	for (int a = 1; a <= t->natts; a++)
		if (t->cols[a - 1].kind == WC_COL_CELL)
			wc_scan_request_column(&like, a);
	like.db = wc_client_open_db(t);
	return read_row_now(&like, key, keylen, vals, lens, NULL);
}

/*
 * wc_read_rows_begin, wc_read_rows_next, wc_read_rows_end
 *		Read every row of t at a snapshot, with this transaction's writes,
 *		outside a foreign scan (a function's reading): vals and lens are
 *		indexed by the order of t's cells, and valid until the next row.
 */
struct WcScanState *
wc_read_rows_begin(WcTable *t, uint32 db, uint32 snapshot)
{
	WcScanState *ss = palloc0(sizeof(WcScanState));

	ss->table = t;
	ss->scan_cxt = CurrentMemoryContext;
	wc_scan_request_init(ss);
	for (int a = 1; a <= t->natts; a++)
		if (t->cols[a - 1].kind == WC_COL_CELL)
			wc_scan_request_column(ss, a);
	ss->db = db;
	ss->snapshot = snapshot;
	ss->horizon = wc_txn_horizon();
	ss->as_of = wc_as_of_for_read();
	wc_scan_open(ss, list_make1(wc_table_range(t)));
	return ss;
}

bool
wc_read_rows_next(struct WcScanState *ss, const uint8 **key, size_t *keylen,
				  const uint8 ***vals, size_t **lens)
{
	return wc_scan_next(ss, key, keylen, vals, lens);
}

void
wc_read_rows_end(struct WcScanState *ss)
{
	wc_scan_stop(ss);
}

void
wc_scan_register(FdwRoutine *routine)
{
	routine->BeginForeignScan = wcBeginForeignScan;
	routine->IterateForeignScan = wcIterateForeignScan;
	routine->ReScanForeignScan = wcReScanForeignScan;
	routine->EndForeignScan = wcEndForeignScan;
}
