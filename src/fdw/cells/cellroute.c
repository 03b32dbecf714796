/*-------------------------------------------------------------------------
 *
 * cellroute.c
 *	  Which layout's callbacks serve a foreign table: a table with OPTIONS
 *	  (layout 'cells') is served by the cells layout's (cellplan.c,
 *	  cellrows.c, cellwrite.c), every other by the mapped layout's.
 *
 * PostgreSQL asks the handler for one FdwRoutine per server, not per
 * table, so the first callback of each phase decides, and hands the rest
 * of the phase to the cells routine where PostgreSQL allows it: the
 * planner's RelOptInfo.fdwroutine, the executor's ForeignScanState and
 * ResultRelInfo each keep the routine they call.  The decision is made
 * from the table's options in the planner and from the plan's
 * fdw_private (its first element, a String, marks a cells plan) in the
 * executor.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "optimizer/pathnode.h"
#include "parser/parsetree.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "fdw/cells/cells.h"
#include "fdw/exec/exec.h"
#include "fdw/model/model.h"
#include "fdw/xact/xact.h"

/* The mapped layout's callbacks, as its files registered them. */
static FdwRoutine mapped;
static FdwRoutine *cells_routine = NULL;

static FdwRoutine *
cells(void)
{
	if (cells_routine == NULL)
	{
		FdwRoutine *r = MemoryContextAllocZero(TopMemoryContext, sizeof(FdwRoutine));

		r->type = T_FdwRoutine;
		wc_cells_plan_register(r);
		wc_cells_scan_register(r);
		wc_cells_modify_register(r);
		cells_routine = r;
	}
	return cells_routine;
}

static bool
is_cells_private(List *fdw_private)
{
	return fdw_private != NIL && linitial(fdw_private) != NULL &&
		IsA(linitial(fdw_private), String) &&
		strcmp(strVal(linitial(fdw_private)), WC_CELLS_MARKER) == 0;
}

static void
routeGetForeignRelSize(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	if (wc_cells_layout(foreigntableid))
	{
		/* GetForeignPaths and GetForeignPlan are then the cells layout's */
		baserel->fdwroutine = cells();
		cells()->GetForeignRelSize(root, baserel, foreigntableid);
		return;
	}
	mapped.GetForeignRelSize(root, baserel, foreigntableid);
}

static void
routeBeginForeignScan(ForeignScanState *node, int eflags)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;

	if (!(eflags & EXEC_FLAG_EXPLAIN_ONLY))
		wc_ssi_read(node->ss.ss_currentRelation, node->ss.ps.state->es_snapshot);
	if (is_cells_private(plan->fdw_private))
	{
		node->fdwroutine = cells();
		cells()->BeginForeignScan(node, eflags);
		return;
	}
	if (!(eflags & EXEC_FLAG_EXPLAIN_ONLY) && wc_cells_pending())
		wc_cells_check_reads(wc_get_table(RelationGetRelid(node->ss.ss_currentRelation)));
	mapped.BeginForeignScan(node, eflags);
}

static void
routeAddForeignUpdateTargets(PlannerInfo *root, Index rtindex,
							 RangeTblEntry *target_rte, Relation target_relation)
{
	if (wc_cells_layout(RelationGetRelid(target_relation)))
		cells()->AddForeignUpdateTargets(root, rtindex, target_rte, target_relation);
	else
		mapped.AddForeignUpdateTargets(root, rtindex, target_rte, target_relation);
}

static List *
routePlanForeignModify(PlannerInfo *root, ModifyTable *plan, Index resultRelation,
					   int subplan_index)
{
	if (wc_cells_layout(planner_rt_fetch(resultRelation, root)->relid))
		return cells()->PlanForeignModify(root, plan, resultRelation, subplan_index);
	return mapped.PlanForeignModify(root, plan, resultRelation, subplan_index);
}

/* A cells-layout table's DELETE removes versions: never whole ranges. */
static bool
routePlanDirectModify(PlannerInfo *root, ModifyTable *plan, Index resultRelation,
					  int subplan_index)
{
	if (wc_cells_layout(planner_rt_fetch(resultRelation, root)->relid))
		return false;
	return wc_plan_range_delete(root, plan, resultRelation, subplan_index);
}

static void
routeBeginForeignModify(ModifyTableState *mtstate, ResultRelInfo *rinfo,
						List *fdw_private, int subplan_index, int eflags)
{
	if (!(eflags & EXEC_FLAG_EXPLAIN_ONLY))
		wc_ssi_write(rinfo->ri_RelationDesc);
	if (is_cells_private(fdw_private))
	{
		/* ExecForeignInsert/Update/Delete and the end are then ours */
		rinfo->ri_FdwRoutine = cells();
		cells()->BeginForeignModify(mtstate, rinfo, fdw_private, subplan_index, eflags);
		return;
	}
	mapped.BeginForeignModify(mtstate, rinfo, fdw_private, subplan_index, eflags);
}

static void
routeBeginForeignInsert(ModifyTableState *mtstate, ResultRelInfo *rinfo)
{
	wc_ssi_write(rinfo->ri_RelationDesc);
	if (wc_cells_layout(RelationGetRelid(rinfo->ri_RelationDesc)))
	{
		rinfo->ri_FdwRoutine = cells();
		cells()->BeginForeignInsert(mtstate, rinfo);
		return;
	}
	mapped.BeginForeignInsert(mtstate, rinfo);
}

static bool
routeAnalyzeForeignTable(Relation relation, AcquireSampleRowsFunc *func,
						 BlockNumber *totalpages)
{
	/* no sample of versions: the planner's estimates come from LevelDB */
	if (wc_cells_layout(RelationGetRelid(relation)))
		return false;
	return mapped.AnalyzeForeignTable(relation, func, totalpages);
}

/*
 * wc_cells_register
 *		Put the routing callbacks in front of the mapped layout's, which
 *		routine already holds.
 */
void
wc_cells_register(FdwRoutine *routine)
{
	mapped = *routine;
	routine->GetForeignRelSize = routeGetForeignRelSize;
	routine->BeginForeignScan = routeBeginForeignScan;
	routine->AddForeignUpdateTargets = routeAddForeignUpdateTargets;
	routine->PlanForeignModify = routePlanForeignModify;
	routine->PlanDirectModify = routePlanDirectModify;
	routine->BeginForeignModify = routeBeginForeignModify;
	routine->BeginForeignInsert = routeBeginForeignInsert;
	routine->AnalyzeForeignTable = routeAnalyzeForeignTable;
}
