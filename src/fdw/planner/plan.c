/*-------------------------------------------------------------------------
 *
 * plan.c
 *	  Planning a scan of a widecolumn_fdw foreign table.
 *
 * The planner decides which LevelDB key ranges a scan reads (pushdown.c
 * splits the restrictions), which columns it needs, whether it reads in
 * reverse, how many rows storage may stop after, and whether it locks the
 * rows it returns; the plan carries that to the executor (scan.c) in
 * fdw_private, indexed by WcScanPrivateIndex (planner.h).  Paths are offered
 * in row-key order, in reverse order, parameterized by an outer row's
 * values for nested loops (joinpaths.c), and partial, for a parallel scan
 * (partialpath.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/prep.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/lsyscache.h"

#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/model/model.h"
#include "fdw/planner/planner.h"

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

/* Are the expressions all Consts, so that their values are known now? */
static bool
all_consts(List *exprs)
{
	ListCell   *lc;

	foreach(lc, exprs)
		if (!IsA(lfirst(lc), Const))
			return false;
	return true;
}

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
	 * Before ANALYZE (reltuples -1), LevelDB's idea of the table's size, and
	 * of the key ranges' when their bounds are known now, will do (estimate.c);
	 * after it, its count, even 0, and statistics are better.
	 */
	if (baserel->tuples < 0)
	{
		List	   *ranges = NIL;
		double		in_ranges;

		if (cond != NIL && all_consts(exprs))
		{
			Datum	   *values;
			bool	   *nulls;

			wc_scan_key_values(exprs, NULL, &values, &nulls);
			ranges = wc_eval_key_ranges(cond, values, nulls, ps->table, NULL, NULL);
		}
		in_ranges = wc_size_rows(ps->table, ranges, &baserel->tuples);
		sel = in_ranges >= 0 ? in_ranges / baserel->tuples :
			clauselist_selectivity(root, ps->pushed_conds, baserel->relid, JOIN_INNER, NULL);
	}
	else
		sel = clauselist_selectivity(root, ps->pushed_conds, baserel->relid, JOIN_INNER, NULL);

	/* A row key names one row: equality reads one row per key. */
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
 * wc_scan_cost
 *		A round trip to the worker to start, then a small cost per row read
 *		and the local filters on each.
 */
void
wc_scan_cost(PlannerInfo *root, double rows_read, List *local, Cost *startup, Cost *total)
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

static void
wcGetForeignPaths(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	WcPlanState *ps = baserel->fdw_private;
	Cost		startup,
				total;
	bool		parts = ps->table->nparts > 0;
	List	   *asc = parts ? wc_parts_pathkeys(root, baserel, ps->table, false) :
		rowkey_pathkeys(root, baserel, ps, false);
	double		limit;
	int			common;

	wc_scan_cost(root, ps->rows_read, ps->local_conds, &startup, &total);
	limit = scan_limit(root, baserel, ps, asc);
	add_path(baserel, (Path *)
			 create_foreignscan_path(root, baserel, NULL, baserel->rows, startup, total,
									 asc, baserel->lateral_relids, NULL,
									 list_make2(makeInteger(0),
												makeInteger((int) Min(limit, PG_INT32_MAX)))));

	/* Bigtable's reverse scan, when the query wants descending keys. */
	if ((ps->bytewise || parts) && root->query_pathkeys != NIL)
	{
		List	   *desc = parts ? wc_parts_pathkeys(root, baserel, ps->table, true) :
			rowkey_pathkeys(root, baserel, ps, true);

		(void) pathkeys_count_contained_in(root->query_pathkeys, desc, &common);
		if (common > 0)
		{
			limit = scan_limit(root, baserel, ps, desc);
			add_path(baserel, (Path *)
					 create_foreignscan_path(root, baserel, NULL, baserel->rows, startup,
											 total, desc, baserel->lateral_relids, NULL,
											 list_make2(makeInteger(1),
														makeInteger((int) Min(limit, PG_INT32_MAX)))));
		}
	}

	wc_add_param_paths(root, baserel, ps->table);
	wc_parscan_add_path(root, baserel, ps->rows_read, ps->local_conds);
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
	List	   *filters;
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
	filters = lock_rows == 0 ?
		wc_storefilter_plan(root, baserel, ps->table, local, &exprs) : NIL;
	return make_foreignscan(tlist, extract_actual_clauses(local, false), baserel->relid,
							exprs,
							lappend(list_make5(attrs, cond,
											   list_nth(best_path->fdw_private, WcPathPrivateReverse),
											   makeInteger(limit),
											   makeInteger(lock_rows)),
									filters),
							NIL, extract_actual_clauses(pushed, false), outer_plan);
}

void
wc_plan_register(FdwRoutine *routine)
{
	routine->GetForeignRelSize = wcGetForeignRelSize;
	routine->GetForeignPaths = wcGetForeignPaths;
	routine->GetForeignPlan = wcGetForeignPlan;
}
