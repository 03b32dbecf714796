/*-------------------------------------------------------------------------
 *
 * worker.h
 *	  What every part of the storage worker shares: the attached backends
 *	  and what they hold, and the engine-neutral worker's functions.
 *
 * The worker is three layers, each calling only the ones below it:
 *	- src/worker/ (main.c, serve.c, workerstats.c): the main loop and the
 *	  dispatch of requests;
 *	- a storage engine, behind engine.h (src/worker/leveldb/);
 *	- src/worker/runtime/: the backends' state, the reader threads, failure
 *	  capture, shared snapshots and the heat map's counters.
 * An engine's own declarations are in its folder (leveldb/leveldb.h).  In
 * the runtime, clients.c lets go of a backend's snapshots through
 * snapshare.c, which checks the backend's lost ids in clients.c: a shared
 * snapshot is one of a backend's, kept with the others.
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
#include "common/shmem.h"
#include "common/wire.h"
#include "worker/engine.h"
#include "worker/runtime/failure.h"

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
	WcDatabase *db;
	WcEngineSnap *snap;			/* held once for this backend */
	struct WcSharedSnap *shared;	/* snapshare.c: held with other backends;
									 * NULL: its own */
} WcClientSnap;

/*
 * The filling of a scan's batch, given to a reader thread (readers.c).
 * The thread sets done, failed and failure; the rest is the main thread's.
 */
typedef struct WcReadJob
{
	const WcEngine *engine;
	WcEngineScan *scan;
	bool		done;			/* the scan's last batch */
	bool		failed;
	WcFailure	failure;
	struct WcReadJob *next;		/* in the pool's lists */
	void	   *owner;			/* the WcClient that asked */
} WcReadJob;

#define WC_MAX_READER_THREADS	16

/*
 * A scan, by the backend's id; it and all it holds live in cxt (and the
 * buffers its batches grow: the engine's scan_close frees them).
 */
typedef struct WcClientScan
{
	uint32		id;
	MemoryContext cxt;
	WcDatabase *db;
	WcEngineScan *scan;
	WcReadJob	job;
	bool		slow;			/* its batches all go to the reader threads */
} WcClientScan;

/*
 * A scan or snapshot that wc_clients_lose_db took from a backend: the
 * backend's next use of it is an error, not an empty answer.
 */
typedef struct WcLost
{
	uint32		id;
	bool		is_scan;
	WcDatabase *db;
} WcLost;

/* A request held while the backend's commit is written (c->held). */
typedef struct WcHeldRequest
{
	StringInfoData request;
} WcHeldRequest;

/* An attached backend. */
typedef struct WcClient
{
	int			slot;
	dsm_handle	handle;
	dsm_segment *seg;
	shm_mq_handle *in;
	shm_mq_handle *out;
	WcCancels  *cancels;		/* in seg: the scans and calls it gave up on */
	uint32		cancels_seen;	/* their count when reading was last looked at */
	uint32		calls;			/* its answered requests but SCAN and NEXT */
	uint32		call_cancelled; /* the last of them cancelled */
	MemoryContext cxt;
	List	   *snaps;			/* WcClientSnap */
	List	   *scans;			/* WcClientScan */
	List	   *lost;			/* WcLost */
	List	   *writes;			/* WcClientWrites */
	StringInfoData answer;		/* built or waiting to be sent */
	bool		answer_pending;
	ErrorData  *deferred;		/* error of an unanswered request */
	bool		answer_later;	/* its request is answered later: a COMMIT
								 * being written or held, a Bigtable call */
	WcClientScan *reading;		/* its scan's batch is with a reader thread */
	bool		gone;			/* freed while either was: the one who
								 * answers it frees */
	struct WcReclaim *reclaim;	/* its COUNT or COMPACT under way */
	const WcEngine *reclaim_engine; /* whose reclaim that is */
	uint8		stat_type;		/* workerstats.c: a request answered later */
	instr_time	stat_start;		/* and when it was taken */
	bool		stat_blocked;	/* its answer found the queue full */
} WcClient;

/* in runtime/state.c: what every part of the worker shares */
extern WcClient **wc_clients;	/* by slot; wc_shared->nslots of them (main.c) */
extern MemoryContext wc_worker_cxt; /* lives as long as the worker */
extern MemoryContext wc_request_cxt;	/* reset after each request (serve.c) */
extern int	wc_debug_clock_step_back;
extern uint64 wc_unix_micros(void);
extern pg_attribute_noreturn() void wc_malformed(const char *type);
extern bool wc_loop_due(uint64 *looked, uint64 every_us);
extern uint32 wc_db_add(WcDatabase *db);
extern WcDatabase *wc_db_lookup(uint32 id);
extern WcDatabase *wc_db_nth(uint32 id);

/* in runtime/clients.c: what a backend holds, and its answers */
extern WcClientWrites *wc_client_writes(WcClient *c, uint32 db, bool create);
extern void wc_client_discard_writes(WcClient *c, uint32 db);
extern void wc_client_writes_walk(const WcClientWrites *w,
								  void (*fn) (void *arg, WcReader *rows, const WcRowWrite *row),
								  void *arg);
extern void wc_client_drop_scan(WcClient *c, WcClientScan *cs);
extern void wc_client_finish_batch(WcClient *c, WcClientScan *cs);
extern bool wc_client_unwanted(WcClient *c, uint32 scan);
extern void wc_client_cancel_unwanted(WcClient *c);
extern void wc_client_cancel_under_way(WcClient *c);
extern bool wc_collect_reads(void);
extern void wc_client_release_all(WcClient *c);
extern ErrorData *wc_client_take_error(WcClient *c);
extern void wc_client_answer_error(WcClient *c, ErrorData *edata);
extern void wc_serve_error(WcClient *c);
extern bool wc_served_synced_commit;
extern void wc_client_answered_later(WcClient *c);
extern void wc_client_answer_later(WcClient *c, void (*answer) (void *arg, StringInfo out),
								   void *arg);
extern void wc_client_hold_commit(WcClient *c, const uint8 *data, size_t len);
extern WcClient *wc_client_next_held(StringInfo request);
extern void wc_check_lost(WcClient *c, uint32 id, bool is_scan, bool letting_go);
extern void wc_clients_lose_db(WcDatabase *db);

/* in runtime/snapshare.c: snapshots several backends read (parallel scans) */
extern void wc_serve_share(WcClient *c, WcReader *r);
extern void wc_serve_attach(WcClient *c, WcReader *r);
extern void wc_snapshot_let_go(WcClientSnap *cs);

/* in runtime/readers.c: the reader threads */
extern int	wc_worker_threads;
extern int	wc_readers_start(int max_calls);
extern bool wc_readers_running(void);
extern bool wc_readers_submit(WcReadJob *job, bool waits);
extern WcReadJob *wc_readers_next_done(void);
extern void wc_readers_drain(void);
extern void wc_readers_stop(void);
extern void wc_read_job_run(WcReadJob *job);

/* in runtime/heat.c: the heat map's counters (heat.h) */
struct WcHeatScan;
struct WcHeatTable;
struct WcHeatColumn;
extern bool wc_key_stats;
extern uint64 wc_heat_now(void);
extern struct WcHeatTable *wc_heat_table(WcDatabase *db, const uint8 *name, size_t len,
										 bool create);
extern struct WcHeatColumn *wc_heat_add_column(struct WcHeatTable *t, uint64 start);
extern void wc_heat_fold(WcDatabase *db, struct WcHeatScan *h);
extern void wc_heat_write_row(WcDatabase *db, const uint8 *prefix, size_t plen,
							  uint64 values, uint64 tombstones, uint64 bytes);
extern void wc_heat_swept(WcDatabase *db, const uint8 *table, size_t tlen, uint64 removed);
extern void wc_serve_heat(WcClient *c, WcReader *r);
extern void wc_serve_stats(WcClient *c, WcReader *r);
extern void wc_heat_define_settings(void);

/* in main.c: the main loop and the attached backends */
extern void wc_worker_register(void);

/* in engines.c: the storage engines */
extern const WcEngine *const wc_engines[];
extern const int wc_nengines;

/* in serve.c: the requests */
extern void wc_serve_init(void);
extern void wc_handle_request(WcClient *c, const uint8 *data, size_t len);
extern bool wc_serve_held(void);

/* in workerstats.c: the worker's figures and its engines' */
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
