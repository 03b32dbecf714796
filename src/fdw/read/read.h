/*-------------------------------------------------------------------------
 *
 * read.h
 *	  A stored table's rows as this transaction sees them (readrows.c): the
 *	  storage worker's batches merged, in row-key order, with the
 *	  transaction's own writes.
 *
 * Whatever reads rows outside a foreign scan (the family list, the types
 * record, IMPORT FOREIGN SCHEMA's sample) reads one row with
 * wc_read_row_now or every row with wc_read_rows_begin; the executor's
 * scan (exec) keeps its state in the same WcScanState and reads with the
 * wc_scan_ functions.  It sits on xact (the logs), the link (the scans'
 * batches), keys (a table's and a row's key ranges) and the model.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_READ_READ_H
#define WC_FDW_READ_READ_H

#include "nodes/execnodes.h"

#include "fdw/fdw.h"
#include "fdw/link/link.h"
#include "fdw/xact/xact.h"

/*
 * The state of a read: the fields a read outside the executor fills
 * (wc_read_rows_begin), then those of a foreign scan (exec/scan.c), which
 * keeps it in ForeignScanState.fdw_state.
 */
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
	bool		as_of_start;	/* as_of is the transaction's start (Bigtable) */
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
	uint64		bigtable_commits;	/* WcShared's, before the scan was sent */
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
	uint64		stored_requests;	/* calls to a remote store (Bigtable) */

	/* for the advisor's scans_exceed_reads (scan.c counts); not a direct modify */
	bool		count_use;
	uint64		use_scans;		/* times the scan started */
	uint64		use_fetched;	/* rows it read (storage and this transaction's) */
	uint64		use_kept;		/* rows the node returned after its quals */
	ExecProcNodeMtd use_exec;	/* the node's own ExecProcNode */
} WcScanState;

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
extern const uint8 *wc_aggregate_apply_txn(const uint8 *stored, size_t *len,
										   const struct WcTxnCell *cell);
extern bool wc_row_exists(WcTable *t, const uint8 *key, size_t keylen);
extern bool wc_read_row_now(WcTable *t, const uint8 *key, size_t keylen,
							const uint8 ***vals, size_t **lens);
extern struct WcScanState *wc_read_rows_begin(WcTable *t, uint32 db, uint32 snapshot);
extern bool wc_read_rows_next(struct WcScanState *ss, const uint8 **key, size_t *keylen,
							  const uint8 ***vals, size_t **lens);
extern void wc_read_rows_end(struct WcScanState *ss);

#endif							/* WC_FDW_READ_READ_H */
