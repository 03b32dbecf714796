/*-------------------------------------------------------------------------
 *
 * partialpath.c
 *	  The partial path of a parallel scan, and why a scan whose plan is
 *	  parallel reads serially all the same.
 *
 * The executor's side, which hands the key ranges out to the participants
 * in chunks, is parscan.c's.  A transaction's own writes live in its
 * backend (txn.c), where the parallel workers cannot read them: a
 * transaction that has written reads serially.  The planner offers no
 * partial path then; a plan made before the writes (a prepared
 * statement's) is run by the leader alone, which EXPLAIN (VERBOSE or
 * ANALYZE) says.  Only the mapped layout's plain forward scans are
 * parallel: a scan that locks rows, reads in reverse, in order or up to a
 * limit, a cells-layout table and a scan parameterized by a join's outer
 * row read serially.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"

#include "fdw/planner/planner.h"
#include "fdw/xact/xact.h"

/*
 * Why a scan reads serially though its plan is parallel, or NULL.  The
 * parallel workers see neither this transaction's writes nor its dropped
 * row ranges.
 */
const char *
wc_parscan_serial_reason(void)
{
	if (wc_txn_has_writes() || wc_rowdrop_any() || wc_cells_pending())
		return "leader alone: this transaction has written to widecolumn_fdw tables";
	return NULL;
}

/*
 * wc_parscan_add_path
 *		Offer a parallel-aware scan of the whole of baserel's key ranges,
 *		and keep the other paths out of parallel plans.
 *
 * A scan that is not parallel-aware, run in a parallel worker (the inner
 * side of a parallel join, say), would read a snapshot of its own: so only
 * the partial path is parallel-safe.  Its workers are chosen as for a heap
 * of the bytes the scan reads, and the cost of reading rows is shared
 * among the participants as a parallel heap scan's is.
 */
void
wc_parscan_add_path(PlannerInfo *root, RelOptInfo *baserel, double rows_read,
					List *local_conds)
{
	ListCell   *lc;
	double		pages;
	int			workers;
	double		divisor;
	Cost		startup,
				total;
	ForeignPath *path;

	foreach(lc, baserel->pathlist)
		((Path *) lfirst(lc))->parallel_safe = false;

	if (!baserel->consider_parallel || !bms_is_empty(baserel->lateral_relids) ||
		root->parse->rowMarks != NIL || root->limit_tuples > 0 ||
		bms_is_member(baserel->relid, root->all_result_relids) ||
		wc_parscan_serial_reason() != NULL)
		return;

	if (baserel->pages > 0 && baserel->tuples > 0)
		pages = baserel->pages * Min(1.0, rows_read / baserel->tuples);
	else
		pages = rows_read * Max(baserel->reltarget->width, 32) / BLCKSZ;
	workers = compute_parallel_worker(baserel, Min(pages, (double) MaxBlockNumber), -1,
									  max_parallel_workers_per_gather);
	if (workers <= 0)
		return;

	/* as costsize.c's get_parallel_divisor */
	divisor = workers;
	if (parallel_leader_participation && 1.0 - 0.3 * workers > 0)
		divisor += 1.0 - 0.3 * workers;

	/* and the SHARE and SAMPLE round trips before the first row */
	wc_scan_cost(root, rows_read, local_conds, &startup, &total);
	total = startup + 0.2 + (total - startup) / divisor;
	startup += 0.2;
	path = create_foreignscan_path(root, baserel, NULL,
								   clamp_row_est(baserel->rows / divisor),
								   startup, total, NIL, NULL, NULL,
								   list_make2(makeInteger(0), makeInteger(0)));
	path->path.parallel_aware = true;
	path->path.parallel_safe = true;
	path->path.parallel_workers = workers;
	add_partial_path(baserel, (Path *) path);
}
