/*-------------------------------------------------------------------------
 *
 * exec.h
 *	  The executor's callbacks of a mapped foreign table: the scan (scan.c)
 *	  and its parallel share (parscan.c), EXPLAIN (explain.c), ANALYZE's
 *	  sample (analyze.c), INSERT, UPDATE, DELETE and COPY FROM (modify.c), a
 *	  DELETE of whole row-key ranges (rangedelete.c), and the advice for
 *	  INSERT ... ON CONFLICT (onconflict.c).
 *
 * They run the planner's plans, read through read, write to xact's log and
 * use the family list (meta).  The cells layout reuses a little of them
 * (wc_return_old_row, wc_plan_range_delete).
 *
 * A circle stays inside: a parallel scan is the scan read in chunks, so
 * scan.c asks parscan.c for the next chunk, and parscan.c computes the
 * scan's ranges to split (wc_scan_ranges).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_EXEC_EXEC_H
#define WC_FDW_EXEC_EXEC_H

#include "fdw/fdw.h"
#include "fdw/read/read.h"

/* A LIKE the scan checks itself: its pattern was not a plain prefix. */
typedef struct WcLikeCheck
{
	Oid			func;
	Oid			collation;
	Datum		pattern;
} WcLikeCheck;

/* in scan.c */
extern void wc_scan_register(FdwRoutine *routine);
extern void wc_scan_decode_row(WcScanState *ss, const uint8 *key, size_t keylen,
							   const uint8 **vals, size_t *lens, Datum *values, bool *nulls);
extern bool wc_scan_storage_read(ForeignScanState *node, uint64 *rows,
								 uint64 *entries, uint64 *skipped, uint64 *requests);
extern List *wc_scan_ranges(ForeignScanState *node, WcScanState *ss);

/* in parscan.c */
extern bool wc_parscan_chunked(WcScanState *ss);
extern List *wc_parscan_next_chunk(WcScanState *ss);
extern List *wc_parscan_first(WcScanState *ss, List *ranges);
extern bool wc_parscan_open_next(WcScanState *ss);
extern void wc_parscan_end(WcScanState *ss, uint64 rows, uint64 entries,
						   uint64 skipped);
extern void wc_parscan_workers_read(WcScanState *ss, uint64 *rows,
									uint64 *entries, uint64 *skipped);
extern void wc_parscan_explain(ForeignScanState *node, struct ExplainState *es);
extern void wc_parscan_register(FdwRoutine *routine);

/* in explain.c */
extern void wc_explain_register(FdwRoutine *routine);

/* in analyze.c */
extern void wc_analyze_register(FdwRoutine *routine);

/* in modify.c */
extern void wc_return_old_row(TupleTableSlot *planSlot, AttrNumber wholerow,
							  TupleTableSlot *slot);
extern void wc_modify_register(FdwRoutine *routine);

/* in rangedelete.c */
extern void wc_range_delete_register(FdwRoutine *routine);
extern bool wc_plan_range_delete(PlannerInfo *root, ModifyTable *plan, Index resultRelation,
								 int subplan_index);

/* in onconflict.c */
extern void wc_onconflict_init(void);

#endif							/* WC_FDW_EXEC_EXEC_H */
