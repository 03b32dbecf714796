/*-------------------------------------------------------------------------
 *
 * link.h
 *	  A backend's link to the storage worker (client.c): its requests and
 *	  their answers, the batches of the scans on it (remotescan.c), the
 *	  LevelDB snapshots they read (snapshot.c), and the progress a session
 *	  reports while it waits on the worker (progressview.c, with the view
 *	  widecolumn.progress).
 *
 * It knows the tables only as WcTable, and calls no other folder.  Its
 * files call each other in a circle, which stays inside: the link hands
 * each answer to the scan that waits for it, and drops its scans and
 * snapshots when it is dropped (client.c calls remotescan.c and
 * snapshot.c), while a scan or a snapshot is requests sent and answers
 * waited for on the link (remotescan.c and snapshot.c call client.c).
 * They are one link's parts, kept apart only to be read apart.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_LINK_LINK_H
#define WC_FDW_LINK_LINK_H

#include "utils/snapshot.h"

#include "common/progress.h"
#include "common/wire.h"
#include "fdw/fdw.h"

/* in client.c */
typedef struct WcBatchReader
{
	WcReader	r;
	uint32		rows_left;
	bool		done;
} WcBatchReader;

extern void wc_client_init(void);
extern uint32 wc_client_open_db(WcTable *t);
extern uint32 wc_client_db_id(uint32 handle);
extern uint32 wc_client_new_id(void);
extern bool wc_client_can_send(void);
extern void wc_client_send(StringInfo msg);
extern void wc_client_send_for_scan(StringInfo msg, uint32 scan);
extern void wc_client_cancel_scan(uint32 id);
extern void wc_client_wait_for_answer(void);
extern void wc_client_raise_error(StringInfo answer) pg_attribute_noreturn();
extern void wc_client_unexpected_answer(void) pg_attribute_noreturn();
extern void wc_client_call(StringInfo msg, WcReader *answer);
extern void wc_client_link(void);
extern void wc_client_quietly(void (*fn) (void *arg), void *arg);
extern WcWireRange *wc_client_wire_ranges(List *ranges);
extern void wc_client_send_snapshot(uint32 wid, uint32 id, Snapshot pg);
extern void wc_client_send_release(uint32 id);
extern void wc_client_write(uint32 db, StringInfo rows);
extern void wc_client_commit(uint32 db, bool sync);
extern void wc_client_abort(uint32 db);
extern uint64 wc_client_estimate(uint32 db, List *ranges);
extern uint64 wc_client_count(uint32 db, const uint8 *table, size_t tlen,
							  const uint8 *family, size_t flen);
extern uint64 wc_client_compact(uint32 db, const uint8 *table, size_t tlen);
extern void wc_client_sample(uint32 db, const uint8 *table, size_t tlen, uint64 *total,
							 int *n, WcBytes **keys, uint64 **offsets);
extern void wc_client_rows(uint32 db, List *ranges, uint32 max_entries, WcRowsAnswer *a);
extern void wc_client_xact_end(bool abort);
extern void wc_client_subxact_abort(SubTransactionId subid);

/* in remotescan.c */
extern uint32 wc_client_scan_begin(WcTable *t, uint32 db, uint32 snapshot,
								   uint64 as_of, bool as_of_start, List *ranges, bool reverse,
								   bool bulk, bool versions,
								   uint64 limit,
								   uint8 **cols, size_t *col_lens, int ncols,
								   const WcScanFilter *filters, int nfilters,
								   SubTransactionId subid);
extern uint32 wc_client_scan_request(uint32 db, WcScanRequest *req, List *ranges,
									 SubTransactionId subid);
extern bool wc_client_scan_next_batch(uint32 scan, WcBatchReader *out);
extern void wc_client_scan_end(uint32 scan);
extern uint64 wc_client_scan_entries(uint32 scan);
extern uint64 wc_client_scan_skipped(uint32 scan);
extern uint64 wc_client_scan_requests(uint32 scan);
extern void wc_scans_answer(uint32 scan, const void *data, size_t len);
extern bool wc_scans_open(void);
extern void wc_scans_forget_all(void);
extern void wc_scans_drop(void);
extern void wc_scans_subxact_abort(SubTransactionId subid);

/* in snapshot.c */
extern void wc_snapshot_init(void);
extern uint64 wc_xact_snapshot_time(void);
extern uint32 wc_client_snapshot_acquire(uint32 db);
extern uint64 wc_client_snapshot_share(uint32 id);
extern uint32 wc_client_snapshot_attach(uint32 db, uint64 token);
extern void wc_client_snapshot_release(uint32 snapshot);
extern bool wc_snapshots_need_link(void);
extern void wc_snapshots_forget_pg(void);
extern void wc_snapshots_drop(void);
extern void wc_snapshots_release_all(void);

/* in progressview.c: the progress of long work (widecolumn.progress) */
extern void wc_progress_init(void);
extern void wc_progress_begin(WcProgressOp op, const char *table, WcProgressUnit unit,
							  bool has_total, uint64 total);
extern void wc_progress_done(WcProgressUnit unit, uint64 done);
extern void wc_progress_end(void);
extern void wc_progress_tick(void);

#endif							/* WC_FDW_LINK_LINK_H */
