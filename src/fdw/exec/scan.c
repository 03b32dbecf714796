/*-------------------------------------------------------------------------
 *
 * scan.c
 *	  Running a scan of a widecolumn_fdw foreign table.
 *
 * The executor computes the key ranges from the plan's condition (planner.h,
 * ranges.c) and reads them through readrows.c, which streams rows from the
 * storage worker and merges them, in row-key order, with the rows this
 * transaction has written but not yet committed (txn.c), so a transaction
 * reads its own writes and nobody else's.  A scan that locks rows (UPDATE, DELETE, FOR UPDATE) locks each
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
#include "common/shmem.h"
#include "fdw/exec/exec.h"
#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/link/link.h"
#include "fdw/meta/meta.h"
#include "fdw/model/model.h"
#include "fdw/planner/planner.h"
#include "fdw/read/read.h"
#include "fdw/xact/xact.h"

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
	/*
	 * Versions: REPEATABLE READ compares the snapshot's with the latest; on a
	 * Bigtable server an UPDATE or DELETE sends the one it read with its
	 * writes (rowreads.c).
	 */
	ss->versions = ss->lock_rows &&
		(IsolationUsesXactSnapshot() ||
		 (ss->lock_for != 0 && ss->table->engine == WC_ENGINE_BIGTABLE));

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
	if (ss->table->engine == WC_ENGINE_BIGTABLE)
		ss->as_of = wc_bigtable_read_time(ss->as_of, &ss->as_of_start);
	if (plan->operation == CMD_SELECT)
		count_use(node);
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

/* Start the scan of the ranges the condition gives now (or of a chunk). */
static void
scan_start(ForeignScanState *node, WcScanState *ss)
{
	MemoryContextReset(ss->scan_cxt);
	MemoryContextSwitchTo(ss->scan_cxt);
	wc_scan_begin(ss, wc_parscan_first(ss, wc_scan_ranges(node, ss)));
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

	/*
	 * On a Bigtable server a reread is a round trip a row.  If no session of
	 * this cluster committed to a Bigtable server since the scan was sent
	 * (each bumps the count before its COMMIT and after it), none changed
	 * a row it read, locked now: the row is as read.  Another Bigtable
	 * client's write since is for the COMMIT's condition to find, with the
	 * version read (rowreads.c), as it finds one after a reread.  Not in
	 * REPEATABLE READ, whose scans read as of the transaction's start: a
	 * COMMIT between that and the scan is a change to fail on now.
	 */
	if (t->engine == WC_ENGINE_BIGTABLE && snapshot_version != 0 &&
		!IsolationUsesXactSnapshot())
	{
		pg_memory_barrier();	/* the lock taken, then the count read */
		if (pg_atomic_read_u64(&wc_shared->bigtable_commits) == ss->bigtable_commits)
		{
			*changed = false;
			if (ss->lock_for != 0)
				wc_txn_note_read(t, k, klen, snapshot_version);
			*key = k;
			return true;
		}
	}
	found = wc_read_row_now_like(ss, k, klen, &nvals, &nlens, &version);

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
	if (ss->lock_for != 0 && t->engine == WC_ENGINE_BIGTABLE)
		wc_txn_note_read(t, k, klen, version);
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
		wc_scan_advance(ss);
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
	uint64		requests;

	if (ss == NULL)
		return;
	wc_scan_stop(ss);
	if (wc_scan_storage_read(node, &rows, &entries, &skipped, &requests))
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
					 uint64 *skipped, uint64 *requests)
{
	WcScanState *ss = node->fdw_state;

	if (ss == NULL)
		return false;
	*skipped = ss->stored_skipped + (ss->remote ? wc_client_scan_skipped(ss->scan) : 0);
	*rows = ss->stored_rows + *skipped;
	*entries = ss->stored_entries + (ss->remote ? wc_client_scan_entries(ss->scan) : 0);
	*requests = ss->stored_requests + (ss->remote ? wc_client_scan_requests(ss->scan) : 0);
	wc_parscan_workers_read(ss, rows, entries, skipped);
	return true;
}

void
wc_scan_register(FdwRoutine *routine)
{
	routine->BeginForeignScan = wcBeginForeignScan;
	routine->IterateForeignScan = wcIterateForeignScan;
	routine->ReScanForeignScan = wcReScanForeignScan;
	routine->EndForeignScan = wcEndForeignScan;
}
