/*-------------------------------------------------------------------------
 *
 * scan.h
 *	  What the phases of a scan share: the plan's fdw_private (plan.c
 *	  writes it; scan.c and explain.c read it), and the executor's state
 *	  (scan.c), which ANALYZE (analyze.c) reads the table with too.
 *
 * The planner's state (WcPlanState) stays private to plan.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_SCAN_H
#define WC_FDW_SCAN_H

#include "fdw/fdw.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"

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
	List	   *filter_plan;	/* the plan's storage filters */
	int			nfilters;		/* ... with this (re)scan's values */
	WcScanFilter *filters;
	bool		ranges_dropped;	/* a DELETE's: done (rangedelete.c) */
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
	uint64		as_of;			/* widecolumn.as_of when it started; 0: now */
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

	struct WcParScan *par;		/* parscan.c: a parallel scan's share of
								 * the ranges; NULL: serial */

	/* for EXPLAIN ANALYZE */
	uint64		stored_rows;
	uint64		stored_entries;
	uint64		stored_skipped; /* rows the storage filters left out */

	/* for the advisor's scans_exceed_reads (scan.c counts); not a direct modify */
	bool		count_use;
	uint64		use_scans;		/* times the scan started */
	uint64		use_fetched;	/* rows it read (storage and this transaction's) */
	uint64		use_kept;		/* rows the node returned after its quals */
	ExecProcNodeMtd use_exec;	/* the node's own ExecProcNode */
} WcScanState;

/* in scan.c */
extern void wc_scan_decode_row(WcScanState *ss, const uint8 *key, size_t keylen,
							   const uint8 **vals, size_t *lens, Datum *values, bool *nulls);
extern bool wc_scan_storage_read(ForeignScanState *node, uint64 *rows,
								 uint64 *entries, uint64 *skipped);
extern List *wc_scan_ranges(ForeignScanState *node, WcScanState *ss);

/* in readrows.c */
extern void wc_scan_request_init(WcScanState *ss);
extern void wc_scan_request_column(WcScanState *ss, int a);
extern void wc_scan_begin(WcScanState *ss, List *ranges);
extern void wc_scan_open(WcScanState *ss, List *ranges);
extern void wc_scan_advance(WcScanState *ss);
extern bool wc_scan_next(WcScanState *ss, const uint8 **key, size_t *keylen,
						 const uint8 ***vals, size_t **lens);
extern void wc_scan_stop(WcScanState *ss);
extern bool wc_read_row_now_like(WcScanState *like, const uint8 *key, size_t keylen,
								 const uint8 ***vals, size_t **lens, uint64 *version);

/* in storefilter.c */
extern List *wc_storefilter_plan(PlannerInfo *root, RelOptInfo *baserel, WcTable *t,
								 List *local, List **exprs);
extern void wc_storefilter_values(WcScanState *ss, Datum *values, bool *nulls);
extern char *wc_storefilter_explain(ForeignScan *plan, Relation rel, WcTable *t,
									 List *dpcontext);

/* in partialpath.c */
extern const char *wc_parscan_serial_reason(void);
extern void wc_parscan_add_path(PlannerInfo *root, RelOptInfo *baserel, double rows_read,
								List *local_conds);

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

#endif							/* WC_FDW_SCAN_H */
