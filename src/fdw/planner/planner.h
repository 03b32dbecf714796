/*-------------------------------------------------------------------------
 *
 * planner.h
 *	  Planning a scan of a mapped foreign table: its paths in row-key order
 *	  and reversed (plan.c), in the order of the row-key parts
 *	  (partorder.c), parameterized by a join's outer row (joinpaths.c) and
 *	  partial, for a parallel scan (partialpath.c); its storage filters
 *	  (storefilter.c); and its row counts before ANALYZE (estimate.c).
 *
 * The plan tells the executor what to read in ForeignScan.fdw_private,
 * indexed by WcScanPrivateIndex: plan.c writes it, exec reads it.
 * storefilter.c also evaluates a plan's filters when its scan starts and
 * shows them to EXPLAIN, so the executor calls down into it.  The
 * planner's state (WcPlanState) stays private to plan.c.
 *
 * A small circle stays inside: plan.c offers the parameterized and the
 * partial paths (joinpaths.c, partialpath.c), which cost their reads as
 * plan.c costs a scan's (wc_scan_cost).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_PLANNER_PLANNER_H
#define WC_FDW_PLANNER_PLANNER_H

#include "nodes/pathnodes.h"

#include "fdw/fdw.h"
#include "fdw/read/read.h"

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
	WcScanPrivateFilters,		/* storage filters (storefilter.c) */
	WcScanPrivateCount
};

#define WC_LOCK_FOR_UPDATE	0x100
#define WC_LOCK_FOR_DELETE	0x200

/* in plan.c */
extern void wc_plan_register(FdwRoutine *routine);
extern void wc_scan_cost(PlannerInfo *root, double rows_read, List *local,
						 Cost *startup, Cost *total);

/* in joinpaths.c */
extern void wc_add_param_paths(PlannerInfo *root, RelOptInfo *baserel, WcTable *t);

/* in partorder.c */
extern List *wc_parts_pathkeys(PlannerInfo *root, RelOptInfo *baserel, WcTable *t,
							   bool backward);

/* in partialpath.c */
extern const char *wc_parscan_serial_reason(void);
extern void wc_parscan_add_path(PlannerInfo *root, RelOptInfo *baserel, double rows_read,
								List *local_conds);

/* in storefilter.c */
extern List *wc_storefilter_plan(PlannerInfo *root, RelOptInfo *baserel, WcTable *t,
								 List *local, List **exprs);
extern void wc_storefilter_values(WcScanState *ss, Datum *values, bool *nulls);
extern char *wc_storefilter_explain(ForeignScan *plan, Relation rel, WcTable *t,
									 List *dpcontext);

/* in estimate.c */
extern double wc_size_rows(WcTable *t, List *ranges, double *tuples);

#endif							/* WC_FDW_PLANNER_PLANNER_H */
