/*-------------------------------------------------------------------------
 *
 * worker.h
 *	  Declarations private to the storage worker (src/worker).
 *
 * The worker's state is a WcClient per attached backend (its queues, the
 * snapshots, scans and uncommitted writes it holds there) and a WcOpenDb
 * per LevelDB database.  Functions are grouped by the file that defines
 * them; LevelDB's wall is storage.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_WORKER_H
#define WC_WORKER_H

#include <sys/types.h>

#include "lib/stringinfo.h"
#include "nodes/pg_list.h"
#include "portability/instr_time.h"
#include "storage/dsm.h"
#include "storage/shm_mq.h"
#include "utils/elog.h"
#include "utils/palloc.h"

#include "common/gcpolicy.h"
#include "common/keycodec.h"
#include "common/wire.h"
#include "worker/failure.h"
#include "worker/storage.h"

/*
 * Target sizes of scan batches (cellscan.c): the first, the next few, at
 * most; full scans: always the bulk size.
 */
#define WC_FIRST_BATCH_BYTES	(8 * 1024)
#define WC_SMALL_BATCH_BYTES	(16 * 1024)
#define WC_SMALL_BATCHES		6
#define WC_BATCH_BYTES			(128 * 1024)
#define WC_BULK_BATCH_BYTES		(512 * 1024)

/* An open database and the clock that stamps its commits. */
typedef struct WcOpenDb
{
	char	   *path;			/* as first asked for, made canonical */
	bool		have_file_id;	/* dev and ino: the directory, once it exists */
	dev_t		dev;
	ino_t		ino;
	WcDbOptions opts;
	WcDb	   *db;				/* NULL: closed after a failed write */
	uint64		last_commit_ts;
	uint64		clock_stored;	/* the clock as stored: above every commit */
	struct WcRowDropCache *rowdrops;	/* rowdrops.c: tables' dropped ranges */
	bool		commit_partial; /* a commit's first batches are written, not
								 * its last: reopen to roll them back */
	struct WcHeatDb *heat;		/* heat.c: access statistics; NULL until loaded */
	struct WcXacts *xacts;		/* xacts.c: recent commits' writers */
} WcOpenDb;

/*
 * The commits a read hides (xacts.c): their timestamps, ascending.  Made
 * on the main thread, read anywhere.
 */
typedef struct WcHidden
{
	int			n;
	uint64	   *ts;
} WcHidden;

/*
 * Is the commit stamped ts hidden?  Plain C, for the reader threads; on
 * every entry a scan reads, so inline, and one comparison while no commit
 * is unsettled.
 */
static inline bool
wc_hidden_has(const WcHidden *h, uint64 ts)
{
	int			lo = 0,
				hi = h->n - 1;

	if (h->n == 0 || ts < h->ts[0] || ts > h->ts[h->n - 1])
		return false;
	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (h->ts[mid] == ts)
			return true;
		if (h->ts[mid] < ts)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

typedef struct WcCellScan WcCellScan;

/* The writes a backend has sent for a database and not yet committed. */
typedef struct WcClientWrites
{
	uint32		db;
	List	   *msgs;			/* the rows of WRITE requests (StringInfo) */
	StringInfoData lowest;		/* the lowest and highest row prefix in them */
	StringInfoData highest;
	bool		exact;			/* a cell with an explicit timestamp, or the
								 * removal of a version */
	StringInfoData exact_lowest;	/* the lowest and highest row prefix of */
	StringInfoData exact_highest;	/* the rows with such cells */
	uint64		writer;			/* the writing transaction's full id, from
								 * its COMMIT */
} WcClientWrites;

/* A snapshot a backend holds, by the id the backend chose. */
typedef struct WcClientSnap
{
	uint32		id;
	WcOpenDb   *odb;
	WcSnap	   *snap;
	WcHidden	hidden;			/* the commits PostgreSQL's snapshot does not
								 * see, as of the LevelDB snapshot */
	struct WcSharedSnap *shared;	/* snapshare.c: held with other backends;
									 * NULL: its own */
} WcClientSnap;

/*
 * The filling of a scan's batch, given to a reader thread (readers.c).
 * The thread sets done, failed and failure; the rest is the main thread's.
 */
typedef struct WcReadJob
{
	WcCellScan *scan;
	bool		done;			/* the scan's last batch */
	bool		failed;
	WcFailure	failure;
	struct WcReadJob *next;		/* in the pool's lists */
	void	   *owner;			/* the WcClient that asked */
} WcReadJob;

#define WC_MAX_READER_THREADS	16

/*
 * A scan, by the backend's id; it and all it holds live in cxt (and the
 * buffers its batches grow: cells_scan_close frees them).
 */
typedef struct WcClientScan
{
	uint32		id;
	MemoryContext cxt;
	WcCellScan *scan;
	WcReadJob	job;
	bool		slow;			/* its batches all go to the reader threads */
} WcClientScan;

/*
 * A scan or snapshot that wc_db_close_after_failure took from a backend:
 * the backend's next use of it is an error, not an empty answer.
 */
typedef struct WcLost
{
	uint32		id;
	bool		is_scan;
	WcOpenDb   *odb;
} WcLost;

/* An attached backend. */
typedef struct WcClient
{
	int			slot;
	dsm_handle	handle;
	dsm_segment *seg;
	shm_mq_handle *in;
	shm_mq_handle *out;
	MemoryContext cxt;
	List	   *snaps;			/* WcClientSnap */
	List	   *scans;			/* WcClientScan */
	List	   *lost;			/* WcLost */
	List	   *writes;			/* WcClientWrites */
	StringInfoData answer;		/* built or waiting to be sent */
	bool		answer_pending;
	ErrorData  *deferred;		/* error of an unanswered request */
	bool		commit_waiting; /* its commit is with the commit writer */
	WcClientScan *reading;		/* its scan's batch is with a reader thread */
	bool		gone;			/* freed while either was: wc_collect_commits
								 * or wc_collect_reads frees */
	struct WcReclaim *reclaim;	/* its COUNT or COMPACT under way (reclaim.c) */
	uint8		stat_type;		/* workerstats.c: a request answered later */
	instr_time	stat_start;		/* and when it was taken */
	bool		stat_blocked;	/* its answer found the queue full */
} WcClient;

/* in state.c: what every part of the worker shares */
extern WcClient **wc_clients;	/* by slot; wc_shared->nslots of them (main.c) */
extern MemoryContext wc_worker_cxt; /* lives as long as the worker */
extern MemoryContext wc_request_cxt;	/* reset after each request (serve.c) */
extern int	wc_debug_clock_step_back;
extern uint64 wc_unix_micros(void);
extern pg_attribute_noreturn() void wc_malformed(const char *type);

/* in main.c: the main loop and the attached backends */
extern void wc_worker_register(void);
extern bool wc_loop_due(uint64 *looked, uint64 every_us);

/* in serve.c: the requests */
extern void wc_serve_init(void);
extern void wc_handle_request(WcClient *c, const uint8 *data, size_t len);
extern bool wc_collect_commits(void);
extern bool wc_collect_reads(void);
extern void wc_client_release_all(WcClient *c);
extern void wc_serve_error(WcClient *c);
extern void wc_client_discard_writes(WcClient *c, uint32 db);

/* in snapshare.c: snapshots several backends read (parallel scans) */
extern void wc_serve_share(WcClient *c, WcReader *r);
extern void wc_serve_attach(WcClient *c, WcReader *r);
extern void wc_snapshot_let_go(WcClientSnap *cs);

/* in databases.c: the databases, their registry, reopening after failure */
extern uint32 wc_db_open(const WcOpenRequest *req);
extern WcOpenDb *wc_db_lookup(uint32 id);
extern WcOpenDb *wc_db_nth(uint32 id);
extern void wc_db_reopen(WcOpenDb *odb);
extern void wc_db_close_after_failure(WcOpenDb *odb);
extern void wc_db_close_all(void);
extern void wc_check_lost(WcClient *c, uint32 id, bool is_scan, bool letting_go);

/* in cellscan.c: reading rows */
extern WcCellScan *cells_scan_open(WcOpenDb *odb, WcSnap *snap, const WcHidden *hidden,
									const WcScanRequest *req);
extern bool cells_scan_fill(WcCellScan *scan);
extern const WcByteBuf *cells_scan_batch(WcCellScan *scan);
extern bool cells_scan_is_small(WcCellScan *scan);
extern void cells_scan_close(WcCellScan *scan);
extern void cells_scan_hold(WcCellScan *scan, WcSnap *snap);
extern WcOpenDb *cells_scan_db(WcCellScan *scan);
extern uint64 cells_estimate(WcOpenDb *odb, const WcEstimateRequest *req);

/* in heat.c and heatstore.c: the heat map's counters (heat.h) */
struct WcHeatScan;
struct WcHeatTable;
struct WcHeatColumn;
extern bool wc_key_stats;
extern struct WcHeatScan *cells_scan_heat(WcCellScan *scan);
extern uint64 wc_heat_now(void);
extern struct WcHeatTable *wc_heat_table(WcOpenDb *odb, const uint8 *name, size_t len,
										 bool create);
extern struct WcHeatColumn *wc_heat_add_column(struct WcHeatTable *t, uint64 start);
extern void wc_heat_fold(WcOpenDb *odb, struct WcHeatScan *h);
extern void wc_heat_write_row(WcOpenDb *odb, const uint8 *prefix, size_t plen,
							  uint64 values, uint64 tombstones, uint64 bytes);
extern void wc_heat_swept(WcOpenDb *odb, const uint8 *table, size_t tlen, uint64 removed);
extern void wc_serve_heat(WcClient *c, WcReader *r);
extern void wc_serve_stats(WcClient *c, WcReader *r);
extern void wc_heat_define_settings(void);
extern void wc_heat_load(WcOpenDb *odb);
extern void wc_heat_store(WcOpenDb *odb, bool now);
extern void wc_heat_store_due(void);

/* in sizes.c */
extern void sizes_sample(WcOpenDb *odb, const WcSampleRequest *req, StringInfo out);
extern void sizes_forget(WcOpenDb *odb);
extern uint64 sizes_range_bytes(WcOpenDb *odb, const uint8 *start, size_t slen,
								const uint8 *end, size_t elen);
extern void sizes_rows(WcOpenDb *odb, const WcRowsRequest *req, WcRowsAnswer *a);

/* in cellversions.c: every version, for a cells-layout table */
typedef struct WcVersionScan WcVersionScan;
/* a cell's family's policy (NULL: none), and the time of its drop, if any */
typedef const struct WcGcPolicy *(*WcVersionPolicyFn) (void *arg, const uint8 *row,
													   size_t rowlen, size_t fqlen,
													   uint64 *dropped);
extern WcVersionScan *versions_scan_open(const WcScanRequest *req, WcIter *it,
										 const WcHidden *hidden, uint64 now,
										 uint64 pending_ts, WcVersionPolicyFn policy_of,
										 void *policy_arg);
extern bool versions_scan_fill(WcVersionScan *vs, WcBatchWriter *w, const WcByteBuf *out,
							   int batch_bytes, uint64 *entries);
extern void versions_scan_close(WcVersionScan *vs);

/* in readers.c: the reader threads */
extern int	wc_worker_threads;
extern int	wc_readers_start(void);
extern bool wc_readers_running(void);
extern void wc_readers_submit(WcReadJob *job);
extern WcReadJob *wc_readers_next_done(void);
extern void wc_readers_drain(void);
extern void wc_readers_stop(void);
extern void wc_read_job_run(WcReadJob *job);

/* in tablemeta.c: a table's policies and drop times (the table of families) */
typedef struct WcFamilyMeta
{
	WcBytes		family;			/* escaped, as in a key */
	bool		listed;			/* in wc:families, not only dropped */
	bool		has_policy;		/* false: every version is kept */
	WcGcPolicy	policy;
	uint64		dropped;		/* drop_family's time: older versions are
								 * gone (0: none) */
} WcFamilyMeta;

/*
 * A row range drop_row_range dropped, or a DELETE of row-key ranges
 * deleted, as key bounds of the table's entries: [start, end), end the
 * table's own end when the range has none.
 */
typedef struct WcRowDrop
{
	WcBytes		start;
	WcBytes		end;
	bool		tombstone;		/* a DELETE's: a row tombstone on every row */
	uint64		dropped;		/* the drop's time: older entries are gone
								 * (a tombstone's: for reads from then on) */
	uint64		refilled;		/* the first commit into it since; 0: none */
	WcBytes		qualifier;		/* the range, as the drop cell's qualifier */
	bool		hides;			/* the sweep met a kept entry older (a
								 * tombstone's) */
	bool		stays;			/* the sweep keeps its cell (and so its marks) */
} WcRowDrop;

typedef struct WcTableMeta
{
	uint64		dropped;		/* drop_table's time: older entries are gone */
	int			nrowdrops;		/* drop_row_range's, by start */
	WcRowDrop  *rowdrops;
	int			nfamilies;
	WcFamilyMeta *families;
	const WcFamilyMeta *unlisted;	/* what a family in no list has; NULL:
									 * the table of families */
	bool		hid_changes;	/* a change the reader does not see was
								 * passed over */
} WcTableMeta;

extern const uint8 wc_meta_table[2];	/* the table of families, escaped */
extern void wc_table_meta_load(WcIter *it, const WcHidden *hidden, const uint8 *table,
							   size_t tlen, WcTableMeta *m);
extern const WcFamilyMeta *wc_table_meta_family(const WcTableMeta *m,
												const uint8 *fq, size_t fqlen);

/* in rowdrops.c: the row ranges drop_row_range dropped */
extern bool wc_rowdrops_cell(WcTableMeta *m, const uint8 *table, size_t tlen,
							 const uint8 *fq, size_t fqlen, uint64 ts);
extern bool wc_rowdrops_cell_goes(WcTableMeta *m, const uint8 *fq, size_t fqlen,
								  uint64 ts);
extern int	wc_rowdrops_subtract(const WcTableMeta *m, uint64 as_of,
								 const WcWireRange *ranges, int nranges,
								 WcWireRange **out);
#define WC_ROWDROP_DROPS	1	/* drop_row_range's */
#define WC_ROWDROP_TOMBS	2	/* a DELETE's */
extern uint64 wc_rowdrops_row(const WcTableMeta *m, const uint8 *row, size_t rowlen,
							  int kinds, uint64 as_of);
extern void wc_rowdrops_hiding(WcTableMeta *m, const uint8 *row, size_t rowlen,
							   uint64 oldest_kept);
extern void wc_rowdrops_commit_begin(WcOpenDb *odb, WcClientWrites *w);
extern bool wc_rowdrops_refill(WcOpenDb *odb, const uint8 *row, size_t rowlen,
							   uint64 ts, StringInfo key);
extern void wc_rowdrops_forget(WcOpenDb *odb);

/* in sweep.c: walks that delete what no read can return any more */
typedef struct WcSweep WcSweep;
extern int	wc_debug_crash_after_sweep_batches;
extern WcSweep *wc_sweep_begin(WcOpenDb *odb, const uint8 *table, size_t tlen,
							   bool count_only, const uint8 *family, size_t flen,
							   bool background);
extern bool wc_sweep_slice(WcSweep *sw, int max_us);
extern uint64 wc_sweep_result(WcSweep *sw);
extern void wc_sweep_position(WcSweep *sw, WcBytes *cursor, WcBytes *end);
extern void wc_sweep_end(WcSweep *sw);

/* in reclaim.c: when they walk (the background sweep, COUNT and COMPACT) */
extern int	wc_sweep_naptime;
extern int	wc_debug_reclaim_pause;
extern long wc_sweep_background(void);
extern void wc_reclaim_start(WcClient *c, WcOpenDb *odb, WcSweep *sw,
							 const uint8 *table, size_t tlen, bool compact);
extern int	wc_reclaim_step(void);
extern void wc_reclaim_forget(WcClient *c);

/* in cellcommit.c: writing rows, the clock, recovery */
extern int	wc_debug_crash_after_commit_batches;
extern void cells_load_clock(WcOpenDb *odb);
extern void cells_recover(WcOpenDb *odb);
extern uint64 cells_rollback(WcOpenDb *odb, uint64 ts, WcBytes lowest, WcBytes highest);
extern bool cells_commit_is_large(WcOpenDb *odb, WcClientWrites *w);
extern WcBatch *cells_commit(WcOpenDb *odb, WcClientWrites *w, bool sync);
typedef struct WcCommit WcCommit;
extern WcCommit *cells_commit_large_begin(WcOpenDb *odb, WcClientWrites *w);
extern bool cells_commit_large_fill(WcCommit *cm, int max_us);
extern bool cells_commit_large_has_chunk(WcCommit *cm);
extern bool cells_commit_large_rows_over(WcCommit *cm);
extern WcBatch *cells_commit_large_take(WcCommit *cm);
extern void cells_commit_large_written(WcCommit *cm, int written, bool going_on);
extern void cells_commit_large_end(WcCommit *cm);
extern void cells_commit_large_abort(WcCommit *cm);
extern uint64 cells_commit_large_done(WcCommit *cm);

/* in largecommit.c: a large commit, written while the worker serves */
extern void wc_large_commit_start(WcClient *c, WcOpenDb *odb, uint32 db);
extern int	wc_debug_large_commit_pause;
extern bool wc_large_commit_active(void);
extern WcSnap *wc_large_commit_snapshot(WcOpenDb *odb);
extern bool wc_large_commit_holds(WcClient *c, const uint8 *data, size_t len);
extern bool wc_large_commit_owns(void *owner);
extern void wc_large_commit_written(void);
extern bool wc_large_commit_step(void);
extern void wc_large_commit_complete(void);

/* in xacts.c: which transaction wrote each recent commit, who sees it */
extern void wc_xacts_load(WcOpenDb *odb);
extern void wc_xacts_commit(WcOpenDb *odb, WcBatch *batch, uint64 ts, uint64 writer,
							StringInfo lowest, StringInfo highest);
extern void wc_xacts_hidden(WcOpenDb *odb, const WcXidSnapshot *snap, bool settled,
							WcHidden *out);
extern void wc_hidden_copy(const WcHidden *h, WcHidden *to, MemoryContext cxt);
extern void wc_xacts_settle(WcOpenDb *odb);
extern void wc_xacts_settle_due(void);
extern int	wc_xacts_pending(WcOpenDb *odb);
extern bool wc_xacts_unsettled(WcOpenDb *odb, uint64 ts);

/* in workerstats.c: the worker's figures and LevelDB's */
extern void wc_stat_init(void);
extern void wc_stat_served(WcClient *c, uint8 type, instr_time start);
extern void wc_stat_turn(WcClient *c);
extern void wc_stat_queued(int64 us);
extern void wc_stat_answer_blocked(WcClient *c);
extern void wc_stat_commit(bool large);
extern void wc_stat_pass(bool busy);
extern void wc_serve_stat_worker(WcClient *c, WcReader *r);
extern void wc_serve_stat_databases(WcClient *c, WcReader *r);

#endif							/* WC_WORKER_H */
