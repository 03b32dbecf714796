/*-------------------------------------------------------------------------
 *
 * client.c
 *	  A backend's link to the storage worker.
 *
 * Each backend that uses widecolumn_fdw creates one DSM segment with a
 * request queue and an answer queue (common/shmem.h), and posts it in its
 * shared-memory slot for the worker to attach.  Requests are written with
 * common/wire.c and answered in order, so the backend keeps a FIFO of the
 * answers it expects and hands each to whoever waits for it: a call() here,
 * or a scan (remotescan.c).  The scans and snapshots on the link
 * (remotescan.c, snapshot.c) go with it when it is dropped.
 *
 * Nothing here waits without a timeout.  A scan waiting for a batch polls
 * the queue for a moment first (poll_for_answer); every longer wait is on
 * our latch, checks for interrupts, and checks that the worker we talk to
 * is still the one that is running, so a dead worker gives an error, never
 * a hang.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "storage/spin.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "common/poll.h"
#include "common/shmem.h"
#include "fdw/fdw.h"
#include "fdw/link/link.h"

#include <unistd.h>

/* How long to wait for a worker that is not running before giving up. */
#define WC_WORKER_START_TIMEOUT_MS	10000

/* Test hook: wait this long before sending a COMMIT (TAP test 012). */
static int	debug_pause_before_commit_ms = 0;

/*
 * An answer on its way: to a scan, or (scan 0) to call(), which numbers its
 * requests.  A call() interrupted while it waits (a cancel, a timeout)
 * leaves its answer to come; the next one must not take it for its own.
 */
typedef struct WcExpect
{
	uint32		scan;
	uint32		call;
} WcExpect;

typedef struct WcKnownDb
{
	char	   *path;
	uint32		id;
	bool		writes_out;		/* WRITEs sent that no COMMIT has followed */
} WcKnownDb;

typedef struct WcConn
{
	dsm_segment *seg;
	shm_mq_handle *out;
	shm_mq_handle *in;
	uint64		generation;
	bool		sending;		/* a message is half in the queue */
	List	   *expect;			/* WcExpect, oldest first */
	List	   *dbs;			/* WcKnownDb */
	StringInfoData sync_answer;
	bool		have_sync_answer;
	uint32		sync_answer_call;	/* the call() it answers */
	WcCancels  *cancels;		/* in seg: scans whose answers we gave up on */
	uint32		calls;			/* call()s made */
} WcConn;

static WcConn *conn = NULL;
static MemoryContext conn_cxt = NULL;
static uint32 next_id = 1;
static bool exit_hook_set = false;

static uint32 link_serial = 0;	/* links made by this backend */

static void conn_drop(void);
static bool receive_one(void);

static void
clear_slot(int code, Datum arg)
{
	int			slot = MyBackendId - 1;

	if (wc_shared == NULL || slot < 0 || slot >= wc_shared->nslots)
		return;
	SpinLockAcquire(&wc_shared->mutex);
	wc_shared->slots[slot].handle = 0;
	pg_atomic_fetch_add_u32(&wc_shared->slot_changes, 1);
	SpinLockRelease(&wc_shared->mutex);
}

static void
worker_state(pid_t *pid, uint64 *generation, Latch **latch)
{
	SpinLockAcquire(&wc_shared->mutex);
	*pid = wc_shared->worker_pid;
	*generation = wc_shared->generation;
	if (latch)
		*latch = wc_shared->worker_latch;
	SpinLockRelease(&wc_shared->mutex);
}

static void
check_preloaded(void)
{
	if (wc_shared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("widecolumn_fdw must be loaded via shared_preload_libraries"),
				 errhint("Add widecolumn_fdw to shared_preload_libraries in postgresql.conf and restart the server.")));
}

/*
 * conn_lost
 *		The worker went away: forget the link and raise an error.
 */
static void
conn_lost(void)
{
	conn_drop();
	ereport(ERROR,
			(errcode(ERRCODE_CONNECTION_FAILURE),
			 errmsg("lost connection to the widecolumn_fdw storage worker"),
			 errdetail("The storage worker exited or was restarted while this session was waiting for it."),
			 errhint("Retry the transaction. A COMMIT that was interrupted this way may or may not have been applied.")));
}

/*
 * wait_for_worker
 *		Sleep on our latch until something happens, then check the worker.
 */
static void
wait_for_worker(void)
{
	pid_t		pid;
	uint64		generation;
	int			rc;

	rc = WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
				   1000L, PG_WAIT_EXTENSION);
	if (rc & WL_LATCH_SET)
		ResetLatch(MyLatch);
	CHECK_FOR_INTERRUPTS();
	wc_progress_tick();

	worker_state(&pid, &generation, NULL);
	if (pid == 0 || generation != conn->generation)
	{
		/*
		 * The worker is gone or leaving.  An answer it sent before it left
		 * (a COMMIT it had written) may still be in the queue: the link is
		 * lost only once the queue says the worker has detached and has
		 * nothing more (receive_one).
		 */
		while (!receive_one())
		{
			/* a worker that never attached our link sends nothing */
			if (shm_mq_get_sender(shm_mq_get_queue(conn->in)) == NULL)
				conn_lost();
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 10L, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
}

/*
 * poll_for_answer
 *		Wait for an answer without sleeping, for a short while; true if one
 *		came.
 *
 * Sleeping on the latch costs a wake-up per batch: the worker signals the
 * latch (a kill(2)) and the kernel schedules us again, which takes tens of
 * microseconds on a virtual machine, as long as the worker takes to fill a
 * small batch.  So for up to widecolumn_fdw.poll_microseconds we check the
 * queue, yielding the CPU between checks so that a process that needs it
 * (the worker itself, on a busy machine) runs first.  We do not poll while
 * the worker is serving other sessions too, nor with a single CPU: our turn
 * may be far off.
 */
/*
 * A synced COMMIT's answer waits for an fsync, longer than the poll: it
 * would only take a CPU from the worker and the rest of the machine.  Not
 * while the worker logs small commits in WAL: it answers once it has
 * written the batch, without sync.
 */
static bool answer_waits_for_fsync = false;

static bool
poll_for_answer(void)
{
	instr_time	start;

	if (answer_waits_for_fsync)
		return false;
	INSTR_TIME_SET_CURRENT(start);
	while (pg_atomic_read_u32(&wc_shared->busy_clients) <= 1 &&
		   wc_poll_again(&start))
	{
		for (int i = 0; i < 4; i++)
		{
			if (receive_one())
				return true;
			pg_spin_delay();
		}
	}
	return false;
}

/*
 * conn_get
 *		The link to the worker, made if there is none or the worker changed.
 */
static WcConn *
conn_get(void)
{
	pid_t		pid;
	uint64		generation;
	Latch	   *latch;
	shm_toc_estimator e;
	Size		size;
	shm_toc    *toc;
	shm_mq	   *req;
	shm_mq	   *resp;
	int			slot = MyBackendId - 1;
	TimestampTz start = GetCurrentTimestamp();

	check_preloaded();
	worker_state(&pid, &generation, &latch);
	if (conn != NULL && pid != 0 && conn->generation == generation)
		return conn;

	/*
	 * A new worker cannot continue what this transaction began with the old
	 * one: its open scans, the snapshot a REPEATABLE READ transaction must
	 * keep reading, a snapshot a scan not yet started holds (a cursor not
	 * yet fetched, the inner side of a join), whose ids, and its
	 * database's, mean nothing to the new worker, or something else, or the
	 * snapshot the running statement reads.
	 */
	if (conn != NULL && (wc_scans_open() || wc_snapshots_need_link()))
		conn_lost();
	if (conn != NULL)
		conn_drop();

	/* The postmaster restarts a worker that died; give it a moment. */
	while (pid == 0)
	{
		if (TimestampDifferenceExceeds(start, GetCurrentTimestamp(),
									   WC_WORKER_START_TIMEOUT_MS))
			ereport(ERROR,
					(errcode(ERRCODE_CONNECTION_FAILURE),
					 errmsg("the widecolumn_fdw storage worker is not running"),
					 errhint("Check the server log for why it exited.")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 100L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		worker_state(&pid, &generation, &latch);
	}

	if (slot < 0 || slot >= wc_shared->nslots)
		elog(ERROR, "backend id %d out of range", MyBackendId);

	if (conn_cxt == NULL)
		conn_cxt = AllocSetContextCreate(TopMemoryContext, "widecolumn_fdw connection",
										 ALLOCSET_DEFAULT_SIZES);
	if (!exit_hook_set)
	{
		on_shmem_exit(clear_slot, 0);
		exit_hook_set = true;
	}

	shm_toc_initialize_estimator(&e);
	shm_toc_estimate_chunk(&e, WC_REQUEST_QUEUE_SIZE);
	shm_toc_estimate_chunk(&e, WC_ANSWER_QUEUE_SIZE);
	shm_toc_estimate_chunk(&e, sizeof(WcCancels));
	shm_toc_estimate_keys(&e, WC_TOC_NKEYS);
	size = shm_toc_estimate(&e);

	conn = MemoryContextAllocZero(conn_cxt, sizeof(WcConn));
	conn->seg = dsm_create(size, 0);
	dsm_pin_mapping(conn->seg);
	toc = shm_toc_create(WC_SHM_MAGIC, dsm_segment_address(conn->seg), size);
	req = shm_mq_create(shm_toc_allocate(toc, WC_REQUEST_QUEUE_SIZE), WC_REQUEST_QUEUE_SIZE);
	shm_toc_insert(toc, WC_TOC_REQUEST_QUEUE, req);
	resp = shm_mq_create(shm_toc_allocate(toc, WC_ANSWER_QUEUE_SIZE), WC_ANSWER_QUEUE_SIZE);
	shm_toc_insert(toc, WC_TOC_ANSWER_QUEUE, resp);
	conn->cancels = shm_toc_allocate(toc, sizeof(WcCancels));
	pg_atomic_init_u32(&conn->cancels->count, 0);
	pg_atomic_init_u32(&conn->cancels->call, 0);
	shm_toc_insert(toc, WC_TOC_CANCELS, conn->cancels);
	shm_mq_set_sender(req, MyProc);
	shm_mq_set_receiver(resp, MyProc);
	{
		/* The handles must outlive the transaction. */
		MemoryContext old = MemoryContextSwitchTo(conn_cxt);

		conn->out = shm_mq_attach(req, conn->seg, NULL);
		conn->in = shm_mq_attach(resp, conn->seg, NULL);
		initStringInfo(&conn->sync_answer);
		MemoryContextSwitchTo(old);
	}
	conn->generation = generation;
	link_serial++;

	SpinLockAcquire(&wc_shared->mutex);
	wc_shared->slots[slot].handle = dsm_segment_handle(conn->seg);
	wc_shared->slots[slot].generation = generation;
	pg_atomic_fetch_add_u32(&wc_shared->slot_changes, 1);
	latch = wc_shared->worker_latch;
	SpinLockRelease(&wc_shared->mutex);
	if (latch)
		SetLatch(latch);
	return conn;
}

/* Forget the link; the worker sees us detach and frees what we held. */
static void
conn_drop(void)
{
	WcConn	   *old = conn;

	if (old == NULL)
		return;
	wc_scans_drop();
	wc_snapshots_drop();
	conn = NULL;
	clear_slot(0, 0);
	dsm_detach(old->seg);
	MemoryContextReset(conn_cxt);
}

/*
 * receive_one
 *		Take one answer off the queue and hand it to whoever expects it.
 *
 * Returns false when no answer was there.
 */
static bool
receive_one(void)
{
	shm_mq_result res;
	Size		len;
	void	   *data;
	WcExpect   *ex;

	res = shm_mq_receive(conn->in, &len, &data, true);
	if (res == SHM_MQ_WOULD_BLOCK)
		return false;
	if (res == SHM_MQ_DETACHED)
		conn_lost();
	if (conn->expect == NIL)
		elog(ERROR, "unexpected answer from the widecolumn_fdw storage worker");

	ex = linitial(conn->expect);
	conn->expect = list_delete_first(conn->expect);
	if (ex->scan == 0)
	{
		resetStringInfo(&conn->sync_answer);
		appendBinaryStringInfo(&conn->sync_answer, data, len);
		conn->have_sync_answer = true;
		conn->sync_answer_call = ex->call;
	}
	else
		wc_scans_answer(ex->scan, data, len);
	pfree(ex);
	return true;
}

/*
 * send_msg
 *		Put a request in the queue, reading answers while it is full.
 *
 * For a request answered to call() (expect_scan 0), returns its number.
 */
static uint32
send_msg(StringInfo msg, uint32 expect_scan, bool answered)
{
	conn->sending = true;
	wc_progress_queued(MyBackendId - 1);
	for (;;)
	{
		shm_mq_result res = shm_mq_send(conn->out, msg->len, msg->data, true, true);

		if (res == SHM_MQ_SUCCESS)
			break;
		if (res == SHM_MQ_DETACHED)
			conn_lost();
		/* The worker may be waiting for us to read before it reads more. */
		while (receive_one())
			;
		wait_for_worker();
	}
	conn->sending = false;

	if (answered)
	{
		MemoryContext old = MemoryContextSwitchTo(conn_cxt);
		WcExpect   *ex = palloc(sizeof(WcExpect));

		ex->scan = expect_scan;
		ex->call = expect_scan == 0 ? ++conn->calls : 0;
		conn->expect = lappend(conn->expect, ex);
		MemoryContextSwitchTo(old);
		return ex->call;
	}
	return 0;
}

/*
 * Raise the ERROR answer in buf as our own error.  Its sentences were
 * written out (and translated) in the worker's source: they are relayed
 * as they are, as postgres_fdw relays a remote server's.
 */
void
wc_client_raise_error(StringInfo buf)
{
	WcReader	r;
	WcErrorAnswer err;

	wc_reader_init(&r, buf->data, buf->len);
	if (!wc_read_error(&r, &err))
		elog(ERROR, "malformed error answer from the widecolumn_fdw storage worker");
	ereport(ERROR,
			(errcode(err.sqlstate),
			 errmsg_internal("%.*s", (int) err.message.len, (const char *) err.message.data),
			 err.detail.len ? errdetail_internal("%.*s", (int) err.detail.len,
												 (const char *) err.detail.data) : 0,
			 err.hint.len ? errhint("%.*s", (int) err.hint.len,
									(const char *) err.hint.data) : 0));
}

/* Wait for the answer to call number mine. */
static void
wait_for_call(uint32 mine)
{
	while (!conn->have_sync_answer || conn->sync_answer_call != mine)
	{
		if (!receive_one())
			wait_for_worker();
	}
}

/* Set the latch of the worker the link is with, after a cancel posted. */
static void
wake_worker(void)
{
	pid_t		pid;
	uint64		generation;
	Latch	   *latch;

	worker_state(&pid, &generation, &latch);
	if (latch && generation == conn->generation)
		SetLatch(latch);
}

/*
 * call
 *		Send a request that has an answer and wait for it.  An ERROR answer
 *		is raised; answer reads any other, from its type byte on.
 */
static void
call(StringInfo msg, WcReader *answer)
{
	uint32		mine = send_msg(msg, 0, true);

	/* answers to earlier calls that were interrupted are passed over */
	conn->have_sync_answer = false;
	PG_TRY();
	{
		wait_for_call(mine);
	}
	PG_CATCH();
	{
		/*
		 * Interrupted (a cancel, a timeout): its answer is passed over when
		 * it comes, and a call to Bigtable made for it need not go on to
		 * its deadline, holding up this session's next request.
		 */
		if (conn != NULL)
		{
			pg_atomic_write_u32(&conn->cancels->call, mine);
			wake_worker();
		}
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (wc_is_error(conn->sync_answer.data, conn->sync_answer.len))
		wc_client_raise_error(&conn->sync_answer);
	wc_reader_init(answer, conn->sync_answer.data, conn->sync_answer.len);
}

/* Make the link to the worker if there is none (a request with no database). */
void
wc_client_link(void)
{
	(void) conn_get();
}

/* call, for the other files that send an answered request */
void
wc_client_call(StringInfo msg, WcReader *answer)
{
	call(msg, answer);
}

void
wc_client_unexpected_answer(void)
{
	elog(ERROR, "unexpected answer from the widecolumn_fdw storage worker");
}

/* Send a request that has no answer (msg is freed). */
void
wc_client_send(StringInfo msg)
{
	send_msg(msg, 0, false);
	pfree(msg->data);
}

/* Send a request answered to scan id (msg is freed). */
void
wc_client_send_for_scan(StringInfo msg, uint32 scan)
{
	send_msg(msg, scan, true);
	pfree(msg->data);
}

/*
 * wc_client_cancel_scan
 *		Tell the worker that scan id's answers on their way are not wanted:
 *		it stops filling them (a Bigtable call in flight is cancelled, and
 *		so does not hold this session's next request until its deadline).
 */
void
wc_client_cancel_scan(uint32 id)
{
	uint32		n;

	if (conn == NULL)
		return;
	n = pg_atomic_read_u32(&conn->cancels->count);
	conn->cancels->ids[n % WC_CANCEL_RING] = id;
	pg_atomic_fetch_add_u32(&conn->cancels->count, 1);	/* a full barrier */
	wake_worker();
}

/* Wait until an answer arrives (and is handed to whoever expects it). */
void
wc_client_wait_for_answer(void)
{
	if (!receive_one() && !poll_for_answer())
		wait_for_worker();
}

/*
 * A database handle names a database on one link: the worker's id in the
 * low WC_DB_ID_BITS bits, the link's serial number above.  The worker's
 * ids are its own: after a new link to a new worker, an old handle may name
 * another database there, so it is refused as the old link's loss.
 */
#define WC_DB_ID_BITS	16
#define WC_DB_ID_MASK	((1U << WC_DB_ID_BITS) - 1)

static bool
handle_current(uint32 handle)
{
	return conn != NULL &&
		(handle >> WC_DB_ID_BITS) == (link_serial & (0xFFFFFFFFU >> WC_DB_ID_BITS));
}

/*
 * wc_client_db_id
 *		The worker's id of a database handle, checked against the link
 *		(made if there is none).
 */
uint32
wc_client_db_id(uint32 handle)
{
	(void) conn_get();
	if (!handle_current(handle))
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("lost connection to the widecolumn_fdw storage worker"),
				 errdetail("The storage worker was restarted during this statement."),
				 errhint("Retry the transaction. A COMMIT that was interrupted this way may or may not have been applied.")));
	return handle & WC_DB_ID_MASK;
}

/* A new id for a scan or snapshot, unique on this backend's links. */
uint32
wc_client_new_id(void)
{
	return next_id++;
}

/*
 * May a message be sent now?  Not without a link, nor while one is half
 * sent (an abort that interrupted it drops the link).
 */
bool
wc_client_can_send(void)
{
	return conn != NULL && !conn->sending;
}

/*
 * Ask the worker for a snapshot of database wid (a worker's id), named id,
 * that sees the commits PostgreSQL's snapshot pg sees.
 */
void
wc_client_send_snapshot(uint32 wid, uint32 id, Snapshot pg)
{
	StringInfoData msg;
	WcXidSnapshot xs;

	xs.xmin = pg->xmin;
	xs.xmax = pg->xmax;
	xs.own = GetTopTransactionIdIfAny();
	/* taken in recovery, every running transaction is in subxip */
	xs.nxip = pg->takenDuringRecovery ? (uint32) pg->subxcnt : pg->xcnt;
	xs.xip = pg->takenDuringRecovery ? pg->subxip : pg->xip;
	xs.xip_bytes = NULL;
	initStringInfo(&msg);
	wc_write_snapshot(&msg, wid, id, &xs);
	wc_client_send(&msg);
}

/* Tell the worker to drop snapshot id. */
void
wc_client_send_release(uint32 id)
{
	StringInfoData msg;

	initStringInfo(&msg);
	wc_write_release(&msg, id);
	wc_client_send(&msg);
}

/* ranges (WcKeyRange) as the wire carries them, in an array */
WcWireRange *
wc_client_wire_ranges(List *ranges)
{
	WcWireRange *out = palloc(sizeof(WcWireRange) * (list_length(ranges) + 1));
	int			i = 0;
	ListCell   *lc;

	foreach(lc, ranges)
	{
		WcKeyRange *kr = lfirst(lc);

		out[i].start.data = kr->start;
		out[i].start.len = kr->start_len;
		out[i].end.data = kr->end;
		out[i].end.len = kr->end_len;
		i++;
	}
	return out;
}

/* An option of the engine, added to an OPEN (value is kept until it is sent). */
static void
engine_option(WcOpenRequest *req, const char *name, const char *value)
{
	WcEngineOption *o = &req->options[req->noptions++];

	Assert(req->noptions <= WC_MAX_ENGINE_OPTIONS);
	o->name.data = (const uint8 *) name;
	o->name.len = strlen(name);
	o->value.data = (const uint8 *) value;
	o->value.len = strlen(value);
}

/*
 * The engine's options of an OPEN: LevelDB's settings as numbers
 * (worker/leveldb/databases.c), or how to reach a Bigtable instance
 * (worker/bigtable/engine.c).
 */
static void
engine_options(WcOpenRequest *req, const WcTable *t)
{
	const char *engine = t->engine == WC_ENGINE_BIGTABLE ? "bigtable" : "leveldb";

	req->engine.data = (const uint8 *) engine;
	req->engine.len = strlen(engine);
	req->noptions = 0;
	if (t->engine == WC_ENGINE_BIGTABLE)
	{
		const WcBigtableServer *bt = t->bigtable;

		engine_option(req, "endpoint", bt->endpoint);
		engine_option(req, "project", bt->project);
		engine_option(req, "instance", bt->instance);
		engine_option(req, "insecure", bt->insecure ? "1" : "0");
		engine_option(req, "app_profile", bt->app_profile ? bt->app_profile : "");
		engine_option(req, "timeout_ms", psprintf("%d", bt->timeout_ms));
		return;
	}
	engine_option(req, "cache_mb", psprintf("%u", t->cache_mb));
	engine_option(req, "write_buffer_mb", psprintf("%u", t->write_buffer_mb));
	engine_option(req, "bloom_bits", psprintf("%u", t->bloom_bits));
	engine_option(req, "compression", t->compression ? "1" : "0");
}

/*
 * wc_client_open_db
 *		The worker's id for the table's database, opening it if needed.
 */
uint32
wc_client_open_db(WcTable *t)
{
	WcConn	   *c = conn_get();
	ListCell   *lc;
	StringInfoData msg;
	WcOpenRequest req;
	WcReader	r;
	uint32		id;
	WcKnownDb  *kd;

	foreach(lc, c->dbs)
	{
		kd = lfirst(lc);
		if (strcmp(kd->path, t->path) == 0)
			return (link_serial << WC_DB_ID_BITS) | kd->id;
	}

	req.target.data = (const uint8 *) t->path;
	req.target.len = strlen(t->path);
	engine_options(&req, t);
	initStringInfo(&msg);
	wc_write_open(&msg, &req);
	call(&msg, &r);
	pfree(msg.data);
	if (!wc_read_open_answer(&r, &id))
		wc_client_unexpected_answer();

	{
		MemoryContext old = MemoryContextSwitchTo(conn_cxt);

		kd = palloc(sizeof(WcKnownDb));
		kd->path = pstrdup(t->path);
		kd->id = id;
		kd->writes_out = false;
		conn->dbs = lappend(conn->dbs, kd);
		MemoryContextSwitchTo(old);
	}
	if (id > WC_DB_ID_MASK)
		elog(ERROR, "widecolumn_fdw storage worker gave database id %u", id);
	return (link_serial << WC_DB_ID_BITS) | id;
}

/*
 * wc_client_quietly
 *		Run fn(arg), which sends messages, where an error cannot be raised:
 *		in a transaction's commit or abort.
 *
 * On an error (the link lost) the link is dropped instead, and the worker
 * frees everything we held there.  The error reset the interrupt holdoff
 * that our caller, PostgreSQL's commit or abort, still counts on: it is
 * put back.
 */
void
wc_client_quietly(void (*fn) (void *arg), void *arg)
{
	volatile uint32 holdoff = InterruptHoldoffCount;

	PG_TRY();
	{
		fn(arg);
	}
	PG_CATCH();
	{
		InterruptHoldoffCount = holdoff;
		FlushErrorState();
		conn_drop();
	}
	PG_END_TRY();
}

/* The link's entry of the worker's database id wid, or NULL. */
static WcKnownDb *
known_db(uint32 wid)
{
	ListCell   *lc;

	foreach(lc, conn->dbs)
		if (((WcKnownDb *) lfirst(lc))->id == wid)
			return lfirst(lc);
	return NULL;
}

/* Send one WRITE message: rows holds whole rows (wc_write_row). */
void
wc_client_write(uint32 db, StringInfo rows)
{
	StringInfoData msg;
	uint32		wid = wc_client_db_id(db);
	WcKnownDb  *kd = known_db(wid);

	if (kd != NULL)
		kd->writes_out = true;
	initStringInfo(&msg);
	wc_write_write(&msg, wid, rows);
	wc_client_send(&msg);
}

/*
 * Forget the WRITE messages sent for db.  Only a transaction that failed
 * between its WRITEs and its COMMIT leaves any (a COMMIT takes them all,
 * whether it succeeds or not): otherwise there is nothing to send.
 */
void
wc_client_abort(uint32 db)
{
	StringInfoData msg;
	WcKnownDb  *kd;

	/* a handle of an old link: the old worker took its writes with it */
	if (conn == NULL || conn->sending || !handle_current(db))
		return;
	kd = known_db(db & WC_DB_ID_MASK);
	if (kd != NULL && !kd->writes_out)
		return;
	initStringInfo(&msg);
	wc_write_abort(&msg, db & WC_DB_ID_MASK);
	wc_client_send(&msg);
}

/* Apply the WRITE messages sent for db, atomically. */
void
wc_client_commit(uint32 db, bool sync)
{
	StringInfoData msg;
	WcReader	r;

	if (debug_pause_before_commit_ms > 0)
	{
		/* to the end: a signal cuts pg_usleep short */
		TimestampTz end = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													  debug_pause_before_commit_ms);
		long		secs;
		int			usecs;

		for (;;)
		{
			TimestampDifference(GetCurrentTimestamp(), end, &secs, &usecs);
			if (secs == 0 && usecs == 0)
				break;
			pg_usleep(secs * 1000000L + usecs);
		}
	}
	initStringInfo(&msg);
	/* its writer: PostgreSQL's commit record makes it visible (xacts.c) */
	wc_write_commit(&msg, wc_client_db_id(db), sync,
					U64FromFullTransactionId(GetTopFullTransactionId()));
	answer_waits_for_fsync = sync && pg_atomic_read_u32(&wc_shared->commits_logged) == 0;
	call(&msg, &r);
	answer_waits_for_fsync = false;
	pfree(msg.data);
	/* The worker has applied or dropped every WRITE before the COMMIT. */
	{
		WcKnownDb  *kd = known_db(db & WC_DB_ID_MASK);

		if (kd != NULL)
			kd->writes_out = false;
	}
	if (!wc_read_ok(&r))
		wc_client_unexpected_answer();
}

static void
xact_end_cb(void *arg)
{
	wc_scans_forget_all();
	if (conn != NULL)
		wc_snapshots_release_all();
}

/* Close the scans a rolled-back subtransaction opened. */
void
wc_client_subxact_abort(SubTransactionId subid)
{
	if (conn == NULL)
		return;
	if (conn->sending)
		conn_drop();			/* the queue cannot be trusted */
	else
		wc_scans_subxact_abort(subid);
}

/*
 * wc_client_xact_end
 *		Release the transaction's snapshots and any scan left open.
 *
 * After an abort that interrupted a half-sent message the queue cannot be
 * trusted, so the link is dropped; the worker then frees everything we
 * held, and the next use makes a new link.
 */
void
wc_client_xact_end(bool abort)
{
	answer_waits_for_fsync = false; /* a COMMIT's error left it set */
	if (conn == NULL)
		return;
	if (abort && conn->sending)
	{
		conn_drop();
		return;
	}
	wc_snapshots_forget_pg();
	wc_client_quietly(xact_end_cb, NULL);
}

/*
 * wc_client_init
 *		Define the test setting of this file.
 */
void
wc_client_init(void)
{
	DefineCustomIntVariable("widecolumn_fdw.debug_pause_before_commit_ms",
							"Waits this long after sending a transaction's writes, before its COMMIT (for tests).",
							NULL,
							&debug_pause_before_commit_ms,
							0, 0, 60000,
							PGC_SUSET,
							GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);
}
