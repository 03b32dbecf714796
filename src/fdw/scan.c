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

#include "access/htup_details.h"
#include "access/xact.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "parser/parsetree.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "access/sysattr.h"
#include "commands/vacuum.h"
#include "utils/sampling.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/paths.h"
#include "utils/array.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/prep.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "fdw/fdw.h"

/* What the plan tells the executor, in ForeignScan.fdw_private. */
enum WcScanPrivateIndex
{
	WcScanPrivateAttrs,			/* IntList of attnums needed (0: all) */
	WcScanPrivateCond,			/* key condition (pushdown.c), NIL: full scan */
	WcScanPrivateReverse,		/* Integer: read in descending key order */
	WcScanPrivateLimit,			/* Integer: rows the scan needs at most, 0: all */
	WcScanPrivateLockRows,		/* Integer: 0, or lock each row (the lock
								 * mode * 4 + the LockWaitPolicy, plus
								 * WC_LOCK_FOR_UPDATE or WC_LOCK_FOR_DELETE
								 * for the rows an UPDATE or DELETE changes)
								 * and read it afresh */
	WcScanPrivateCount
};

#define WC_LOCK_FOR_UPDATE	0x100
#define WC_LOCK_FOR_DELETE	0x200

/* What a path tells the plan, in ForeignPath.fdw_private. */
enum WcPathPrivateIndex
{
	WcPathPrivateReverse,
	WcPathPrivateLimit
};

/* Planner state, in RelOptInfo.fdw_private. */
typedef struct WcPlanState
{
	WcTable    *table;
	Bitmapset  *attrs_used;
	List	   *local_conds;	/* RestrictInfos checked locally */
	List	   *pushed_conds;	/* RestrictInfos the key ranges answer */
	bool		bytewise;		/* row-key order is the collation's order */
	double		rows_read;		/* rows the unparameterized scan reads */
} WcPlanState;

/* A LIKE the scan checks itself: its pattern was not a plain prefix. */
typedef struct WcLikeCheck
{
	Oid			func;
	Oid			collation;
	Datum		pattern;
} WcLikeCheck;

/* Executor state, in ForeignScanState.fdw_state. */
typedef struct WcScanState
{
	WcTable    *table;
	int			nreq;			/* cells asked of the worker */
	int			nmapped;		/* the first nmapped of them are columns */
	int		   *req_attnum;
	int			naliases;		/* more columns mapping a requested cell */
	int		   *alias_attnum;
	int		   *alias_pos;		/* the position of the cell they map */
	uint8	  **req_cols;
	size_t	   *req_lens;
	uint8	  **mapped_cols;	/* the mapped ones, fixed for the scan */
	size_t	   *mapped_lens;
	List	   *cond;
	List	   *exprstates;		/* of the values the condition compares with */
	bool		reverse;
	bool		bulk;			/* a full scan: keep it out of the block cache */
	List	   *like_checks;	/* WcLikeCheck, for this (re)scan */
	uint64		limit;
	bool		lock_rows;
	LOCKMODE	lock_mode;
	LockWaitPolicy lock_wait;
	int			lock_for;		/* 0, or WC_LOCK_FOR_UPDATE/DELETE */
	CommandId	output_cid;		/* the UPDATE's or DELETE's command */
	ExprState  *lock_qual;		/* the plan's quals, checked before locking */
	bool		versions;		/* ask for rows' versions (REPEATABLE READ locks) */
	MemoryContext row_cxt;
	MemoryContext scan_cxt;		/* reset at each (re)scan */

	/* what the scan reads: fixed when the executor starts it */
	SubTransactionId subid;		/* where its statement (or cursor) began */
	uint32		db;
	uint32		snapshot;
	uint32		horizon;

	/* while running */
	bool		started;
	bool		remote;			/* a storage scan is open */
	List	   *ranges;			/* WcKeyRange, ascending */
	uint32		scan;
	bool		stored_done;
	WcBatchReader batch;
	bool		have_batch;
	bool		have_stored;	/* the fields below hold the next stored row */
	const uint8 *s_key;
	size_t		s_keylen;
	bool		s_other;
	uint64		s_version;		/* with versions */
	uint64		m_version;		/* of the row merged_next returned; 0: none stored */
	const uint8 **s_vals;
	size_t	   *s_lens;
	const uint8 **w_vals;		/* a row being merged with txn changes */
	size_t	   *w_lens;
	WcTxnTable *tt;
	WcTxnRow   *orows;			/* this transaction's rows, in scan order */
	int			norows;
	int			opos;

	bool		advance_pending;	/* the stored row was handed out */

	/* for EXPLAIN ANALYZE */
	uint64		stored_rows;
	uint64		stored_entries;
} WcScanState;

/* Bytes a stored row takes, for estimates before ANALYZE. */
#define WC_EST_ROW_BYTES	64

/*
 * wcGetForeignRelSize
 *		Read the table's mapping, split the restrictions, estimate the size.
 */
static void
wcGetForeignRelSize(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	WcPlanState *ps = palloc0(sizeof(WcPlanState));
	WcColumn   *kc;
	List	   *exprs;
	List	   *cond;
	ListCell   *lc;
	double		sel;

	ps->table = wc_get_table(foreigntableid);
	baserel->fdw_private = ps;
	if (ps->table->nparts == 0)
	{
		kc = &ps->table->cols[ps->table->rowkey_attnum - 1];
		ps->bytewise = wc_collation_is_bytewise(kc->type, kc->collation);
	}

	pull_varattnos((Node *) baserel->reltarget->exprs, baserel->relid, &ps->attrs_used);
	cond = wc_classify_clauses(root, baserel, ps->table, baserel->baserestrictinfo,
							   &exprs, &ps->local_conds, &ps->pushed_conds);
	foreach(lc, ps->local_conds)
		pull_varattnos((Node *) ((RestrictInfo *) lfirst(lc))->clause, baserel->relid,
					   &ps->attrs_used);

	/*
	 * Before ANALYZE (reltuples -1), LevelDB's idea of the table's size will
	 * do; after it, its count, even 0, is better.
	 */
	if (baserel->tuples < 0)
	{
		uint64		bytes = wc_client_estimate(wc_client_open_db(ps->table),
											   list_make1(wc_table_range(ps->table)));

		baserel->tuples = Max(1000, bytes / WC_EST_ROW_BYTES);
	}

	/* A row key names one row: equality reads one row per key. */
	sel = clauselist_selectivity(root, ps->pushed_conds, baserel->relid, JOIN_INNER, NULL);
	ps->rows_read = clamp_row_est(baserel->tuples * sel);
	if (cond != NIL)
	{
		for_each_from(lc, cond, 1)
		{
			List	   *atom = lfirst(lc);
			int			kind = intVal(linitial(atom));

			if (kind == WC_KEY_EQ)
				ps->rows_read = 1;
			else if (kind == WC_KEY_IN && IsA(list_nth(exprs, intVal(lsecond(atom))), Const))
			{
				Const	   *c = list_nth(exprs, intVal(lsecond(atom)));

				if (!c->constisnull)
					ps->rows_read = Min(ps->rows_read,
										ArrayGetNItems(ARR_NDIM(DatumGetArrayTypeP(c->constvalue)),
													   ARR_DIMS(DatumGetArrayTypeP(c->constvalue))));
			}
		}
	}
	baserel->rows = clamp_row_est(ps->rows_read *
								  clauselist_selectivity(root, ps->local_conds,
														 baserel->relid, JOIN_INNER, NULL));
}

/*
 * scan_cost
 *		A round trip to the worker to start, then a small cost per row read
 *		and the local filters on each.
 */
static void
scan_cost(PlannerInfo *root, WcPlanState *ps, double rows_read, List *local,
		  Cost *startup, Cost *total)
{
	QualCost	qc;

	cost_qual_eval(&qc, local, root);
	*startup = 0.1 + qc.startup;
	*total = *startup + rows_read * (cpu_tuple_cost + 0.005 + qc.per_tuple);
}

static List *
rowkey_pathkeys(PlannerInfo *root, RelOptInfo *baserel, WcPlanState *ps, bool desc)
{
	WcColumn   *kc = &ps->table->cols[ps->table->rowkey_attnum - 1];
	Var		   *var;
	Oid			op;
	Oid			type;
	int32		typmod;
	Oid			collation;

	/*
	 * A partition or child table's ordering would need the parent's
	 * equivalence classes; one made here for the child's own column breaks
	 * the plan when the parent is pruned to that one child.
	 */
	if (!ps->bytewise || IS_OTHER_REL(baserel))
		return NIL;
	/* the column as the query names it: a domain, not its base type */
	get_atttypetypmodcoll(planner_rt_fetch(baserel->relid, root)->relid,
						  ps->table->rowkey_attnum, &type, &typmod, &collation);
	var = makeVar(baserel->relid, ps->table->rowkey_attnum, type, typmod, collation, 0);
	if (kc->type == BYTEAOID)
		op = desc ? get_commutator(ByteaLessOperator) : ByteaLessOperator;
	else
		op = desc ? get_commutator(TextLessOperator) : TextLessOperator;
	return build_expression_pathkey(root, (Expr *) var, NULL, op, baserel->relids, true);
}

/* Is this rel the whole query, so a LIMIT applies to its scan? */
static double
scan_limit(PlannerInfo *root, RelOptInfo *baserel, WcPlanState *ps, List *pathkeys)
{
	if (root->limit_tuples <= 0 || ps->local_conds != NIL)
		return 0;
	/* the planner's figure is then an estimate: ties may follow */
	if (root->parse->limitOption == LIMIT_OPTION_WITH_TIES)
		return 0;
	if (bms_membership(root->all_baserels) != BMS_SINGLETON)
		return 0;
	if (root->query_pathkeys != NIL && !pathkeys_contained_in(root->query_pathkeys, pathkeys))
		return 0;
	if (root->parse->rowMarks != NIL)
		return 0;
	return root->limit_tuples;
}

static bool
ec_matches_rowkey(PlannerInfo *root, RelOptInfo *rel, EquivalenceClass *ec,
				  EquivalenceMember *em, void *arg)
{
	WcPlanState *ps = arg;
	Expr	   *e = em->em_expr;

	while (e && IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	return e && IsA(e, Var) && ((Var *) e)->varno == rel->relid &&
		((Var *) e)->varattno == ps->table->rowkey_attnum;
}

/*
 * add_param_paths
 *		Paths that look up "rowkey = outer value" once per outer row, so a
 *		nested loop probes by key instead of scanning.
 */
static void
add_param_paths(PlannerInfo *root, RelOptInfo *baserel, WcPlanState *ps)
{
	List	   *clauses = NIL;
	List	   *done = NIL;
	ListCell   *lc;

	foreach(lc, baserel->joininfo)
		clauses = lappend(clauses, lfirst(lc));
	if (baserel->has_eclass_joins)
		clauses = list_concat(clauses,
							  generate_implied_equalities_for_column(root, baserel,
																	 ec_matches_rowkey, ps,
																	 baserel->lateral_referencers));
	foreach(lc, clauses)
	{
		RestrictInfo *ri = lfirst(lc);
		Relids		outer;
		ParamPathInfo *ppi;
		Cost		startup,
					total;
		ListCell   *lc2;
		bool		seen = false;

		if (!wc_is_join_key_clause(root, baserel, ps->table, ri))
			continue;
		outer = bms_union(bms_difference(ri->clause_relids, baserel->relids),
						  baserel->lateral_relids);
		if (bms_is_empty(outer))
			continue;
		foreach(lc2, done)
			if (bms_equal(lfirst(lc2), outer))
				seen = true;
		if (seen)
			continue;
		done = lappend(done, outer);

		ppi = get_baserel_parampathinfo(root, baserel, outer);
		scan_cost(root, ps, 1, ps->local_conds, &startup, &total);
		add_path(baserel, (Path *)
				 create_foreignscan_path(root, baserel, NULL, Min(ppi->ppi_rows, 1),
										 startup, total, NIL, outer, NULL,
										 list_make2(makeInteger(0), makeInteger(0))));
	}
}

static void
wcGetForeignPaths(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	WcPlanState *ps = baserel->fdw_private;
	Cost		startup,
				total;
	List	   *asc = rowkey_pathkeys(root, baserel, ps, false);
	double		limit;

	scan_cost(root, ps, ps->rows_read, ps->local_conds, &startup, &total);
	limit = scan_limit(root, baserel, ps, asc);
	add_path(baserel, (Path *)
			 create_foreignscan_path(root, baserel, NULL, baserel->rows, startup, total,
									 asc, baserel->lateral_relids, NULL,
									 list_make2(makeInteger(0),
												makeInteger((int) Min(limit, PG_INT32_MAX)))));

	/* Bigtable's reverse scan, when the query wants descending keys. */
	if (ps->bytewise && root->query_pathkeys != NIL)
	{
		List	   *desc = rowkey_pathkeys(root, baserel, ps, true);

		if (desc != NIL && pathkeys_contained_in(desc, root->query_pathkeys))
		{
			limit = scan_limit(root, baserel, ps, desc);
			add_path(baserel, (Path *)
					 create_foreignscan_path(root, baserel, NULL, baserel->rows, startup,
											 total, desc, baserel->lateral_relids, NULL,
											 list_make2(makeInteger(1),
														makeInteger((int) Min(limit, PG_INT32_MAX)))));
		}
	}

	add_param_paths(root, baserel, ps);
}

/*
 * row_lock
 *		The rows an UPDATE or DELETE changes, or SELECT ... FOR UPDATE/SHARE
 *		returns, are locked and read afresh, so that two sessions updating
 *		one row one after the other do not lose either update: 0, or the
 *		lock (wc_txn_lock_row's mode * 4 + the wait policy).
 */
static int
row_lock(PlannerInfo *root, RelOptInfo *baserel)
{
	Query	   *parse = root->parse;
	PlanRowMark *rc;

	/* all_result_relids has the partitions of a partitioned table updated */
	if (bms_is_member(baserel->relid, root->all_result_relids))
	{
		if (parse->commandType == CMD_UPDATE)
			return WC_LOCK_FOR_UPDATE + ExclusiveLock * 4 + LockWaitBlock;
		if (parse->commandType == CMD_DELETE)
			return WC_LOCK_FOR_DELETE + AccessExclusiveLock * 4 + LockWaitBlock;
	}
	/* the plan's row marks include the children of a table FOR UPDATE */
	rc = get_plan_rowmark(root->rowMarks, baserel->relid);
	if (rc == NULL || rc->strength == LCS_NONE)
		return 0;
	switch (rc->strength)
	{
		case LCS_FORKEYSHARE:
			return AccessShareLock * 4 + rc->waitPolicy;
		case LCS_FORSHARE:
			return RowShareLock * 4 + rc->waitPolicy;
		case LCS_FORNOKEYUPDATE:
			return ExclusiveLock * 4 + rc->waitPolicy;
		default:
			return AccessExclusiveLock * 4 + rc->waitPolicy;
	}
}

static ForeignScan *
wcGetForeignPlan(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid,
				 ForeignPath *best_path, List *tlist, List *scan_clauses,
				 Plan *outer_plan)
{
	WcPlanState *ps = baserel->fdw_private;
	List	   *attrs = NIL;
	List	   *exprs;
	List	   *local;
	List	   *pushed;
	List	   *cond;
	int			limit = intVal(list_nth(best_path->fdw_private, WcPathPrivateLimit));
	int			i = -1;
	Bitmapset  *used = bms_copy(ps->attrs_used);
	ListCell   *lc;

	int			lock_rows = row_lock(root, baserel);

	cond = wc_classify_clauses(root, baserel, ps->table, scan_clauses, &exprs, &local, &pushed);
	foreach(lc, local)
		pull_varattnos((Node *) ((RestrictInfo *) lfirst(lc))->clause, baserel->relid, &used);
	if (local != NIL)
		limit = 0;

	while ((i = bms_next_member(used, i)) >= 0)
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

	/*
	 * When PostgreSQL rechecks a row after a concurrent update (EvalPlanQual),
	 * the scan gives back the row it returned, and only the plan's quals and
	 * the recheck quals are checked again.  The conditions turned into key
	 * ranges are recheck quals: they may compare with a column of another
	 * table whose row has changed.
	 */
	return make_foreignscan(tlist, extract_actual_clauses(local, false), baserel->relid,
							exprs,
							list_make5(attrs, cond,
									   list_nth(best_path->fdw_private, WcPathPrivateReverse),
									   makeInteger(limit),
									   makeInteger(lock_rows)),
							NIL, extract_actual_clauses(pushed, false), outer_plan);
}

/*
 * Ask for column a's cell, in ss's mapped columns.  A cell that several
 * columns map (the same bytes as text and as bytea, say) is asked for once,
 * since the worker answers each cell for one position; the others decode it
 * too (aliases).
 */
static void
request_column(WcScanState *ss, int a)
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

/* Room for every column of ss's table in the arrays request_column fills. */
static void
request_init(WcScanState *ss)
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
	ss->cond = list_nth(plan->fdw_private, WcScanPrivateCond);
	ss->reverse = intVal(list_nth(plan->fdw_private, WcScanPrivateReverse)) != 0;
	ss->limit = intVal(list_nth(plan->fdw_private, WcScanPrivateLimit));
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

	request_init(ss);
	for (int a = 1; a <= ss->table->natts; a++)
	{
		if (ss->table->cols[a - 1].kind != WC_COL_CELL)
			continue;
		if (!all && !list_member_int(attrs, a))
			continue;
		request_column(ss, a);
	}
	ss->nreq = ss->nmapped;
	ss->req_cols = ss->mapped_cols;
	ss->req_lens = ss->mapped_lens;

	/*
	 * The scan reads storage and this transaction's writes as they are now,
	 * when its statement starts, even if it is first read later (a cursor).
	 */
	ss->db = wc_client_open_db(ss->table);
	ss->snapshot = wc_client_snapshot_acquire(ss->db);
	ss->horizon = wc_txn_horizon();
	ss->subid = GetCurrentSubTransactionId();
}

/* Compute the key ranges from the condition's current values. */
static List *
scan_ranges(ForeignScanState *node, WcScanState *ss)
{
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	int			n = list_length(ss->exprstates);
	Datum	   *values = palloc(sizeof(Datum) * Max(1, n));
	bool	   *nulls = palloc(sizeof(bool) * Max(1, n));
	int			i = 0;
	ListCell   *lc;

	foreach(lc, ss->exprstates)
	{
		values[i] = ExecEvalExpr(lfirst(lc), econtext, &nulls[i]);
		i++;
	}

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
	return wc_eval_key_ranges(ss->cond, values, nulls, ss->table, NULL);
}

static void scan_open(WcScanState *ss, List *ranges);

/* Start the scan of the ranges the condition gives now. */
static void
scan_start(ForeignScanState *node, WcScanState *ss)
{
	MemoryContextReset(ss->scan_cxt);
	MemoryContextSwitchTo(ss->scan_cxt);
	scan_open(ss, scan_ranges(node, ss));
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
			if (!dup)
			{
				all_cols[ss->nreq] = cols[c];
				all_lens[ss->nreq] = lens[c];
				ss->nreq++;
			}
		}
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
	 * storage cannot stop at the limit.
	 */
	ss->scan = wc_client_scan_begin(ss->table, ss->db, ss->snapshot, ss->ranges,
									ss->reverse, ss->bulk, ss->versions,
									ss->norows > 0 || ss->like_checks != NIL ? 0 : ss->limit,
									ss->req_cols, ss->req_lens, ss->nreq,
									ss->subid != InvalidSubTransactionId ? ss->subid :
									GetCurrentSubTransactionId());
	ss->remote = true;
	ss->stored_done = false;
}

static void
scan_stop(WcScanState *ss)
{
	if (ss->remote)
	{
		ss->stored_entries += wc_client_scan_entries(ss->scan);
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
		ss->w_vals[i] = cell->value;
		ss->w_lens[i] = cell->value_len;
	}
	for (int i = 0; i < ss->nreq; i++)
		if (ss->w_vals[i] != NULL)
			live = true;
	return live || *other;
}

/* Decode a row into values and nulls, natts long. */
static void
decode_row(WcScanState *ss, const uint8 *key, size_t keylen,
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

		if (vals[p] == NULL)
			continue;
		values[a - 1] = wc_decode_value(vals[p], lens[p], t, a, key, keylen);
		nulls[a - 1] = false;
	}
}

static void
fill_slot(WcScanState *ss, TupleTableSlot *slot, const uint8 *key, size_t keylen,
		  const uint8 **vals, size_t *lens)
{
	ExecClearTuple(slot);
	decode_row(ss, key, keylen, vals, lens, slot->tts_values, slot->tts_isnull);
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
 * merged_next
 *		The next row of the scan: stored rows and this transaction's rows,
 *		merged in key order.  The row stays valid until the next call.
 */
static bool
merged_next(WcScanState *ss, const uint8 **key, size_t *keylen,
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
	scan_open(&cur, list_make1(wc_row_range(t, key, keylen)));
	stored_advance(&cur);
	found = merged_next(&cur, &k, &klen, &cvals, &clens);
	if (version != NULL)
		*version = found ? cur.m_version : 0;
	*vals = palloc(sizeof(uint8 *) * Max(1, like->nmapped));
	*lens = palloc(sizeof(size_t) * Max(1, like->nmapped));
	for (int i = 0; found && i < like->nmapped; i++)
	{
		(*vals)[i] = cvals[i] ? memcpy(palloc(clens[i] + 1), cvals[i], clens[i]) : NULL;
		(*lens)[i] = clens[i];
	}
	scan_stop(&cur);
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
	}
	ExecClearTuple(slot);
	while (merged_next(ss, &key, &keylen, &vals, &lens))
	{
		bool		changed = false;

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
	scan_stop(ss);
}

static void
wcEndForeignScan(ForeignScanState *node)
{
	WcScanState *ss = node->fdw_state;

	if (ss == NULL)
		return;
	scan_stop(ss);
	wc_client_snapshot_release(ss->snapshot);
}

/* The condition in words, for values only known at run time. */
static void
describe_cond(StringInfo out, List *node, List *exprs, List *dpcontext)
{
	int			kind = intVal(linitial(node));
	static const char *const ops[] = {
		[WC_KEY_EQ] = "=", [WC_KEY_IN] = "= ANY", [WC_KEY_LT] = "<",
		[WC_KEY_LE] = "<=", [WC_KEY_GT] = ">", [WC_KEY_GE] = ">=",
		[WC_KEY_PREFIX] = "prefix", [WC_KEY_LIKE] = "LIKE"
	};
	ListCell   *lc;

	if (kind == WC_KEY_PARTS)
	{
		int			neq = intVal(lsecond(node));
		static const char *const cmp[] = {"", "<", "<=", "=", ">=", ">"};

		appendStringInfoString(out, "parts");
		for (int i = 0; i < neq; i++)
			appendStringInfo(out, "%s %d = %s", i == 0 ? "" : ",", i + 1,
							 deparse_expression(list_nth(exprs, intVal(list_nth(node, 2 + i))),
												dpcontext, false, false));
		for (int b = 0; b < 2; b++)
		{
			int			strategy = intVal(list_nth(node, 2 + neq + 2 * b));

			if (strategy != 0)
				appendStringInfo(out, "%s %d %s %s", neq > 0 || b > 0 ? "," : "", neq + 1,
								 cmp[strategy],
								 deparse_expression(list_nth(exprs, intVal(list_nth(node, 3 + neq + 2 * b))),
													dpcontext, false, false));
		}
		return;
	}

	if (kind == WC_KEY_AND || kind == WC_KEY_OR)
	{
		bool		first = true;

		appendStringInfoChar(out, '(');
		for_each_from(lc, node, 1)
		{
			if (!first)
				appendStringInfoString(out, kind == WC_KEY_AND ? " AND " : " OR ");
			describe_cond(out, lfirst(lc), exprs, dpcontext);
			first = false;
		}
		appendStringInfoChar(out, ')');
		return;
	}
	appendStringInfo(out, "%s %s", ops[kind],
					 deparse_expression(list_nth(exprs, intVal(lsecond(node))),
										dpcontext, false, false));
}

static void
wcExplainForeignScan(ForeignScanState *node, ExplainState *es)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	Relation	rel = node->ss.ss_currentRelation;
	WcTable    *t = wc_get_table(RelationGetRelid(rel));
	List	   *cond = list_nth(plan->fdw_private, WcScanPrivateCond);
	int			limit = intVal(list_nth(plan->fdw_private, WcScanPrivateLimit));
	bool		all_const = true;
	StringInfoData buf;
	ListCell   *lc;

	ExplainPropertyText("Stored Table", t->table, es);

	initStringInfo(&buf);
	foreach(lc, plan->fdw_exprs)
		if (!IsA(lfirst(lc), Const))
			all_const = false;
	if (all_const)
	{
		int			n = list_length(plan->fdw_exprs);
		Datum	   *values = palloc(sizeof(Datum) * Max(1, n));
		bool	   *nulls = palloc(sizeof(bool) * Max(1, n));
		int			i = 0;
		char	   *colon;

		foreach(lc, plan->fdw_exprs)
		{
			values[i] = ((Const *) lfirst(lc))->constvalue;
			nulls[i] = ((Const *) lfirst(lc))->constisnull;
			i++;
		}
		(void) wc_eval_key_ranges(cond, values, nulls, t, &buf);
		colon = strstr(buf.data, ": ");
		if (colon != NULL)
		{
			*colon = '\0';
			ExplainPropertyText(buf.data, colon + 2, es);
		}
		else
			ExplainPropertyText("Row Ranges", buf.data, es);
	}
	else
	{
		List	   *dpcontext = set_deparse_context_plan(es->deparse_cxt,
														 (Plan *) plan, NIL);
		List	   *only = list_length(cond) == 2 ? lsecond(cond) : NULL;

		/* one comparison reads best without parentheses */
		if (only != NULL && intVal(linitial(only)) > WC_KEY_OR)
		{
			describe_cond(&buf, only, plan->fdw_exprs, dpcontext);
			ExplainPropertyText(intVal(linitial(only)) == WC_KEY_EQ ? "Row Key" : "Row Key Condition",
								buf.data, es);
		}
		else
		{
			describe_cond(&buf, cond, plan->fdw_exprs, dpcontext);
			ExplainPropertyText("Row Key Condition", buf.data, es);
		}
	}
	if (intVal(list_nth(plan->fdw_private, WcScanPrivateReverse)))
		ExplainPropertyText("Scan Direction", "Reverse", es);
	if (limit > 0)
		ExplainPropertyInteger("Storage Limit", NULL, limit, es);

	if (es->analyze && node->fdw_state != NULL)
	{
		WcScanState *ss = node->fdw_state;

		ExplainPropertyUInteger("Storage Rows Read", NULL, ss->stored_rows, es);
		ExplainPropertyUInteger("Storage Entries Read", NULL,
								ss->stored_entries +
								(ss->remote ? wc_client_scan_entries(ss->scan) : 0), es);
	}
}

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
	ss.scan_cxt = CurrentMemoryContext;
	request_init(&ss);
	for (int a = 1; a <= ss.table->natts; a++)
		if (ss.table->cols[a - 1].kind == WC_COL_CELL)
			request_column(&ss, a);
	ss.db = wc_client_open_db(ss.table);
	ss.snapshot = wc_client_snapshot_acquire(ss.db);
	ss.horizon = wc_txn_horizon();
	ss.bulk = true;

	*totalrows = 0;
	reservoir_init_selection_state(&rstate, targrows);
	scan_open(&ss, list_make1(wc_table_range(ss.table)));
	stored_advance(&ss);
	while (merged_next(&ss, &key, &keylen, &vals, &lens))
	{
		vacuum_delay_point();
		MemoryContextReset(rowcxt);
		old = MemoryContextSwitchTo(rowcxt);
		decode_row(&ss, key, keylen, vals, lens, values, nulls);
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
	scan_stop(&ss);
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
wc_scan_register(FdwRoutine *routine)
{
	routine->AnalyzeForeignTable = wcAnalyzeForeignTable;
	routine->GetForeignRelSize = wcGetForeignRelSize;
	routine->GetForeignPaths = wcGetForeignPaths;
	routine->GetForeignPlan = wcGetForeignPlan;
	routine->BeginForeignScan = wcBeginForeignScan;
	routine->IterateForeignScan = wcIterateForeignScan;
	routine->ReScanForeignScan = wcReScanForeignScan;
	routine->EndForeignScan = wcEndForeignScan;
	routine->ExplainForeignScan = wcExplainForeignScan;
}
