/*-------------------------------------------------------------------------
 *
 * client.c
 *	  A backend's link to the storage worker.
 *
 * Each backend that uses widecolumn_fdw creates one DSM segment with a
 * request queue and an answer queue, and posts it in its shared-memory slot
 * for the worker to attach.  Requests are answered in order, so the backend
 * keeps a FIFO of the answers it expects.  A scan asks for its next batch
 * as soon as it receives one (before the executor reads it), so the worker
 * fills batch n+1 while this backend decodes batch n; when two scans are
 * open at once, an answer that belongs to the other scan is kept for it.
 *
 * Nothing here waits without a timeout.  A scan waiting for a batch polls
 * the queue for a moment first (poll_for_answer); every longer wait is on
 * our latch, checks for interrupts, and checks that the worker we talk to
 * is still the one that is running, so a dead worker gives an error, never
 * a hang.
 *
 * Scans are named by id, not pointer, and their state lives here, in
 * memory of our own, so that executor memory freed at abort never leaves a
 * dangling pointer behind.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/executor.h"
#include "tcop/utility.h"
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
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "common/poll.h"
#include "common/shmem.h"
#include "fdw/fdw.h"

#include <unistd.h>

/* How long to wait for a worker that is not running before giving up. */
#define WC_WORKER_START_TIMEOUT_MS	10000

/*
 * How many batches a scan asks for ahead of the one being read: with two,
 * the worker has the next request in hand when it finishes a batch and
 * does not wait for this backend to wake up.
 */
#define WC_SCAN_AHEAD		2

/* Test hook: wait this long before sending a COMMIT (TAP test 012). */
static int	debug_pause_before_commit_ms = 0;

/* A scan's state on our side. */
typedef struct WcRemoteScan
{
	uint32		id;
	SubTransactionId subid;
	bool		finished;		/* the last batch has been handed out */
	int			asked;			/* answers on their way */
	int			nready;			/* answers received, not handed out */
	int			head;			/* the first of them in ready[] */
	StringInfoData current;		/* the batch being read */
	StringInfoData ready[WC_SCAN_AHEAD];
	uint64		entries;
} WcRemoteScan;

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
} WcKnownDb;

typedef struct WcSnapUse
{
	uint32		db;
	uint32		id;
	TimestampTz statement;		/* 0: for the whole transaction */
	Snapshot	pg_snapshot;	/* PostgreSQL's, registered; or NULL */
	int			refs;			/* scans reading it */
	bool		current;		/* new scans of this statement use it */
	bool		ended;			/* pg_snapshot let go: no statement may take it */
} WcSnapUse;

typedef struct WcConn
{
	dsm_segment *seg;
	shm_mq_handle *out;
	shm_mq_handle *in;
	uint64		generation;
	bool		sending;		/* a message is half in the queue */
	List	   *expect;			/* WcExpect, oldest first */
	List	   *scans;			/* WcRemoteScan */
	List	   *dbs;			/* WcKnownDb */
	List	   *snaps;			/* WcSnapUse of this transaction */
	StringInfoData sync_answer;
	bool		have_sync_answer;
	uint32		sync_answer_call;	/* the call() it answers */
	uint32		calls;			/* call()s made */
} WcConn;

static WcConn *conn = NULL;
static MemoryContext conn_cxt = NULL;
static uint32 next_id = 1;
static bool exit_hook_set = false;

static uint32 link_serial = 0;	/* links made by this backend */

static ExecutorEnd_hook_type prev_executor_end = NULL;
static ProcessUtility_hook_type prev_process_utility = NULL;

static void conn_drop(void);
static void forget_pg_snapshot(WcSnapUse *su);
static bool snapshots_held(void);
static bool pg_snapshot_in_use(WcSnapUse *su, QueryDesc *ending, Snapshot popping);
static void release_unused(void);
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
static bool
poll_for_answer(void)
{
	instr_time	start;

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
	if (conn != NULL &&
		(conn->scans != NIL || snapshots_held() ||
		 (conn->snaps != NIL && IsolationUsesXactSnapshot())))
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

static WcRemoteScan *
find_scan(uint32 id)
{
	ListCell   *lc;

	if (conn == NULL)
		return NULL;
	foreach(lc, conn->scans)
	{
		WcRemoteScan *s = lfirst(lc);

		if (s->id == id)
			return s;
	}
	return NULL;
}

/* Forget the link; the worker sees us detach and frees what we held. */
static void
conn_drop(void)
{
	WcConn	   *old = conn;
	ListCell   *lc;

	if (old == NULL)
		return;
	foreach(lc, old->snaps)
		forget_pg_snapshot(lfirst(lc));
	conn = NULL;
	clear_slot(0, 0);
	dsm_detach(old->seg);
	MemoryContextReset(conn_cxt);
}

/*
 * Is PostgreSQL's snapshot su was taken under still in use by anything but
 * us: active (other than once as popping, which is about to be popped), or
 * registered by a query or cursor (other than ending, whose executor is
 * ending and whose registration goes next)?  While it is, a
 * statement may read under it again (a stable function called again, the
 * next FETCH of a cursor), and must read su's snapshot again.
 */
static bool
pg_snapshot_in_use(WcSnapUse *su, QueryDesc *ending, Snapshot popping)
{
	Snapshot	snap = su->pg_snapshot;
	uint32		ours = 0;
	ListCell   *lc;

	if (snap->active_count > (snap == popping ? 1 : 0))
		return true;
	foreach(lc, conn->snaps)
		if (((WcSnapUse *) lfirst(lc))->pg_snapshot == snap)
			ours++;
	if (ending != NULL && ending->snapshot == snap)
		ours++;
	if (ending != NULL && ending->crosscheck_snapshot == snap)
		ours++;
	return snap->regd_count > ours;
}

/* Is su's PostgreSQL snapshot (if it has one) still used by PostgreSQL? */
static bool
pg_snapshot_kept(WcSnapUse *su)
{
	return su->pg_snapshot != NULL && pg_snapshot_in_use(su, NULL, NULL);
}

/*
 * Does a scan, started or not, hold one of the link's snapshots, or is one
 * the snapshot of a statement still running (which a stable function
 * called again, say, must read again)?
 */
static bool
snapshots_held(void)
{
	ListCell   *lc;

	foreach(lc, conn->snaps)
	{
		WcSnapUse  *su = lfirst(lc);

		if (su->refs > 0 ||
			(!su->ended && (su->pg_snapshot != NULL ? pg_snapshot_in_use(su, NULL, NULL) : su->current)))
			return true;
	}
	return false;
}

/* Let go of the PostgreSQL snapshot that identified su's statement. */
static void
forget_pg_snapshot(WcSnapUse *su)
{
	if (su->pg_snapshot != NULL && TopTransactionResourceOwner != NULL)
		UnregisterSnapshotFromOwner(su->pg_snapshot, TopTransactionResourceOwner);
	su->pg_snapshot = NULL;
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
	{
		WcRemoteScan *s = find_scan(ex->scan);

		if (s != NULL)
		{
			StringInfo	slot = &s->ready[(s->head + s->nready) % WC_SCAN_AHEAD];

			Assert(s->asked > 0 && s->nready < WC_SCAN_AHEAD);
			resetStringInfo(slot);
			appendBinaryStringInfo(slot, data, len);
			s->nready++;
			s->asked--;
		}
	}
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

/* Raise the ERROR answer in buf as our own error. */
static void
raise_answer_error(StringInfo buf)
{
	WcReader	r;
	int			code;
	size_t		mlen,
				dlen,
				hlen;
	const uint8 *m,
			   *d,
			   *h;

	wc_reader_init(&r, buf->data, buf->len);
	(void) wc_get_u8(&r);
	code = (int) wc_get_u32(&r);
	m = wc_get_str(&r, &mlen);
	d = wc_get_str(&r, &dlen);
	h = wc_get_str(&r, &hlen);
	if (r.bad)
		elog(ERROR, "malformed error answer from the widecolumn_fdw storage worker");
	ereport(ERROR,
			(errcode(code),
			 errmsg_internal("%.*s", (int) mlen, (const char *) m),
			 dlen ? errdetail_internal("%.*s", (int) dlen, (const char *) d) : 0,
			 hlen ? errhint("%.*s", (int) hlen, (const char *) h) : 0));
}

/*
 * call
 *		Send a request that has an answer and wait for it; OK answers only.
 */
static void
call(StringInfo msg, WcReader *answer)
{
	uint32		mine = send_msg(msg, 0, true);

	/* answers to earlier calls that were interrupted are passed over */
	conn->have_sync_answer = false;
	while (!conn->have_sync_answer || conn->sync_answer_call != mine)
	{
		if (!receive_one())
			wait_for_worker();
	}
	if (conn->sync_answer.len > 0 && conn->sync_answer.data[0] == WC_RESP_ERROR)
		raise_answer_error(&conn->sync_answer);
	if (conn->sync_answer.len == 0 || conn->sync_answer.data[0] != WC_RESP_OK)
		elog(ERROR, "unexpected answer from the widecolumn_fdw storage worker");
	wc_reader_init(answer, conn->sync_answer.data + 1, conn->sync_answer.len - 1);
}

static void
msg_begin(StringInfo msg, uint8 type)
{
	initStringInfo(msg);
	appendStringInfoChar(msg, (char) type);
}

static void
msg_u32(StringInfo msg, uint32 v)
{
	appendBinaryStringInfo(msg, (const char *) &v, 4);
}

static void
msg_str(StringInfo msg, const void *p, size_t len)
{
	msg_u32(msg, (uint32) len);
	appendBinaryStringInfo(msg, p, len);
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

/* The worker's id of a handle, checked against the current link. */
static uint32
db_id(uint32 handle)
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
	WcReader	r;
	uint32		id;
	WcKnownDb  *kd;

	foreach(lc, c->dbs)
	{
		kd = lfirst(lc);
		if (strcmp(kd->path, t->path) == 0)
			return (link_serial << WC_DB_ID_BITS) | kd->id;
	}

	msg_begin(&msg, WC_REQ_OPEN);
	msg_str(&msg, t->path, strlen(t->path));
	msg_u32(&msg, t->cache_mb);
	msg_u32(&msg, t->write_buffer_mb);
	msg_u32(&msg, t->bloom_bits);
	appendStringInfoChar(&msg, t->compression ? 1 : 0);
	call(&msg, &r);
	pfree(msg.data);
	id = wc_get_u32(&r);

	{
		MemoryContext old = MemoryContextSwitchTo(conn_cxt);

		kd = palloc(sizeof(WcKnownDb));
		kd->path = pstrdup(t->path);
		kd->id = id;
		conn->dbs = lappend(conn->dbs, kd);
		MemoryContextSwitchTo(old);
	}
	if (id > WC_DB_ID_MASK)
		elog(ERROR, "widecolumn_fdw storage worker gave database id %u", id);
	return (link_serial << WC_DB_ID_BITS) | id;
}

/* Tell the worker to drop a snapshot nobody will read from again. */
static void
snapshot_release(WcSnapUse *su)
{
	StringInfoData msg;

	forget_pg_snapshot(su);
	msg_begin(&msg, WC_REQ_RELEASE);
	msg_u32(&msg, su->id);
	send_msg(&msg, 0, false);
	pfree(msg.data);
	conn->snaps = list_delete_ptr(conn->snaps, su);
	pfree(su);
}

/*
 * wc_client_snapshot_acquire
 *		The snapshot a scan starting in this statement reads db at.
 *
 * In READ COMMITTED each statement gets a snapshot of its own; in
 * REPEATABLE READ and SERIALIZABLE the first one lasts the transaction.
 * A scan holds its snapshot until wc_client_snapshot_release, so a cursor
 * declared in one statement and read in a later one still reads the
 * snapshot of its own statement.
 *
 * In READ COMMITTED a scan reads the snapshot taken under the same active
 * PostgreSQL snapshot: the statements of a volatile function each take a
 * PostgreSQL snapshot of their own, a stable function reads its caller's,
 * and a cursor's query reads the cursor's at every FETCH.  We keep that
 * PostgreSQL snapshot registered, so that its address cannot come back as
 * another's, for as long as PostgreSQL uses it (pg_snapshot_in_use); then it
 * is let go (release_unused), so that an idle transaction holds no xmin.  (A
 * transaction that wrote only here has no transaction id, so PostgreSQL's
 * snapshots alone do not change with its commit.)  Without an active
 * snapshot, a scan shares the statement's by its start time.
 */
uint32
wc_client_snapshot_acquire(uint32 db)
{
	TimestampTz stmt = IsolationUsesXactSnapshot() ? 0 : GetCurrentStatementStartTimestamp();
	Snapshot	pg_snapshot = IsolationUsesXactSnapshot() || !ActiveSnapshotSet() ? NULL :
		GetActiveSnapshot();
	ListCell   *lc;
	WcSnapUse  *su = NULL;
	StringInfoData msg;
	MemoryContext old;
	uint32		wid;

	wid = db_id(db);			/* conn_get, and the handle checked */
	foreach(lc, conn->snaps)
	{
		WcSnapUse  *u = lfirst(lc);

		if (u->db != db || u->ended)
			continue;
		if (pg_snapshot != NULL ? u->pg_snapshot == pg_snapshot :
			u->current && u->pg_snapshot == NULL && u->statement == stmt)
		{
			u->refs++;
			return u->id;
		}
	}

	/* The statement's or transaction's before: kept while still in use. */
	foreach(lc, conn->snaps)
	{
		WcSnapUse  *u = lfirst(lc);

		if (u->db == db && u->current)
			su = u;
	}
	if (su != NULL)
	{
		su->current = false;
		if (su->refs == 0 && !pg_snapshot_kept(su))
			snapshot_release(su);
	}
	release_unused();

	old = MemoryContextSwitchTo(conn_cxt);
	su = palloc(sizeof(WcSnapUse));
	su->db = db;
	su->id = next_id++;
	su->statement = stmt;
	su->pg_snapshot = NULL;
	su->refs = 1;
	su->current = true;
	su->ended = false;
	conn->snaps = lappend(conn->snaps, su);
	MemoryContextSwitchTo(old);
	if (pg_snapshot != NULL && pg_snapshot->copied)
		su->pg_snapshot = RegisterSnapshotOnOwner(pg_snapshot, TopTransactionResourceOwner);

	msg_begin(&msg, WC_REQ_SNAPSHOT);
	msg_u32(&msg, wid);
	msg_u32(&msg, su->id);
	send_msg(&msg, 0, false);
	pfree(msg.data);
	return su->id;
}

/* A scan is done with its snapshot. */
void
wc_client_snapshot_release(uint32 id)
{
	ListCell   *lc;

	if (conn == NULL || conn->sending)
		return;
	foreach(lc, conn->snaps)
	{
		WcSnapUse  *su = lfirst(lc);

		if (su->id == id)
		{
			if (--su->refs == 0 && !su->current &&
				!pg_snapshot_kept(su))
				snapshot_release(su);
			return;
		}
	}
}

static void
msg_range(StringInfo msg, WcKeyRange *kr)
{
	msg_str(msg, kr->start, kr->start_len);
	msg_str(msg, kr->end, kr->end_len);
}

/*
 * wc_client_scan_begin
 *		Start a scan of ranges (WcKeyRange, ascending and disjoint).
 *
 * cols are the escaped family+qualifier of the cells wanted; a batch names
 * a cell by its position in this array.  The scan belongs to subtransaction
 * subid, and goes when that one is rolled back: the one whose statement,
 * or cursor, it serves, which may be older than the current one.
 */
uint32
wc_client_scan_begin(WcTable *t, uint32 db, uint32 snapshot, List *ranges,
					 bool reverse, bool bulk, bool versions, uint64 limit,
					 uint8 **cols, size_t *col_lens, int ncols,
					 SubTransactionId subid)
{
	StringInfoData msg;
	WcRemoteScan *s;
	ListCell   *lc;
	MemoryContext old;
	uint32		wid;

	wid = db_id(db);			/* conn_get, and the handle checked */
	old = MemoryContextSwitchTo(conn_cxt);
	s = palloc0(sizeof(WcRemoteScan));
	s->id = next_id++;
	s->subid = subid;
	initStringInfo(&s->current);
	for (int i = 0; i < WC_SCAN_AHEAD; i++)
		initStringInfo(&s->ready[i]);
	conn->scans = lappend(conn->scans, s);
	MemoryContextSwitchTo(old);

	msg_begin(&msg, WC_REQ_SCAN);
	msg_u32(&msg, wid);
	msg_u32(&msg, snapshot);
	msg_u32(&msg, s->id);
	appendStringInfoChar(&msg, (reverse ? WC_SCAN_REVERSE : 0) | (bulk ? WC_SCAN_BULK : 0) |
						 (versions ? WC_SCAN_VERSIONS : 0));
	appendBinaryStringInfo(&msg, (const char *) &limit, 8);
	appendBinaryStringInfo(&msg, (const char *) &(uint16) {ncols}, 2);
	for (int i = 0; i < ncols; i++)
		msg_str(&msg, cols[i], col_lens[i]);
	msg_u32(&msg, list_length(ranges));
	foreach(lc, ranges)
		msg_range(&msg, lfirst(lc));
	s->asked = 1;
	send_msg(&msg, s->id, true);
	pfree(msg.data);
	return s->id;
}

/*
 * wc_client_scan_next_batch
 *		Hand out the scan's next batch; false when there is none.
 *
 * The batch stays valid until the next call for the same scan.
 */
bool
wc_client_scan_next_batch(uint32 id, WcBatchReader *out)
{
	WcRemoteScan *s = find_scan(id);
	StringInfoData tmp;
	WcReader	r;
	uint64		entries;

	if (s == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("widecolumn_fdw scan is no longer open"),
				 errdetail("The link to the storage worker was lost or the transaction ended.")));
	if (s->finished)
		return false;

	while (s->nready == 0)
	{
		if (!receive_one() && !poll_for_answer())
			wait_for_worker();
		if (find_scan(id) != s)
			return false;		/* cannot happen: conn_lost raises */
	}

	/* The answer taken becomes current; its buffer is reused next. */
	tmp = s->current;
	s->current = s->ready[s->head];
	s->ready[s->head] = tmp;
	s->head = (s->head + 1) % WC_SCAN_AHEAD;
	s->nready--;

	if (s->current.len > 0 && s->current.data[0] == WC_RESP_ERROR)
	{
		s->finished = true;
		raise_answer_error(&s->current);
	}
	wc_reader_init(&r, s->current.data, s->current.len);
	if (wc_get_u8(&r) != WC_RESP_BATCH)
		elog(ERROR, "unexpected answer from the widecolumn_fdw storage worker");
	out->done = wc_get_u8(&r) != 0;
	out->rows_left = wc_get_u32(&r);
	entries = wc_get_u64(&r);
	if (r.bad)
		elog(ERROR, "malformed batch from the widecolumn_fdw storage worker");
	s->entries += entries;
	out->r = r;

	if (out->done)
		s->finished = true;
	else
	{
		/*
		 * Ask for the next batches now, so the worker works while we read.
		 * One of them may come after the last: the worker answers it with
		 * an empty last batch, which nobody reads.
		 */
		while (s->asked + s->nready < WC_SCAN_AHEAD)
		{
			StringInfoData msg;

			msg_begin(&msg, WC_REQ_NEXT);
			msg_u32(&msg, s->id);
			s->asked++;
			send_msg(&msg, s->id, true);
			pfree(msg.data);
		}
	}
	return true;
}

uint64
wc_client_scan_entries(uint32 id)
{
	WcRemoteScan *s = find_scan(id);

	return s ? s->entries : 0;
}

static void
scan_forget(WcRemoteScan *s)
{
	if (!s->finished && conn != NULL && !conn->sending)
	{
		StringInfoData msg;

		msg_begin(&msg, WC_REQ_CLOSE);
		msg_u32(&msg, s->id);
		send_msg(&msg, 0, false);
		pfree(msg.data);
	}
	/* An answer still on its way finds no scan and is dropped. */
	conn->scans = list_delete_ptr(conn->scans, s);
	pfree(s->current.data);
	for (int i = 0; i < WC_SCAN_AHEAD; i++)
		pfree(s->ready[i].data);
	pfree(s);
}

void
wc_client_scan_end(uint32 id)
{
	WcRemoteScan *s = find_scan(id);
	uint32		holdoff = InterruptHoldoffCount;

	if (s == NULL)
		return;
	if (IsTransactionState())
	{
		scan_forget(s);
		return;
	}

	/*
	 * The scan ends in a transaction's abort (a portal dropped): an error
	 * there, the link lost, must not escape, and it reset the interrupt
	 * holdoff the abort counts on.  Drop the link; the worker frees the
	 * scan.
	 */
	PG_TRY();
	{
		scan_forget(s);
	}
	PG_CATCH();
	{
		InterruptHoldoffCount = holdoff;
		FlushErrorState();
		conn_drop();
	}
	PG_END_TRY();
}

/* Send one WRITE message: payload holds whole rows. */
void
wc_client_write(uint32 db, StringInfo payload)
{
	StringInfoData msg;

	msg_begin(&msg, WC_REQ_WRITE);
	msg_u32(&msg, db_id(db));
	appendBinaryStringInfo(&msg, payload->data, payload->len);
	send_msg(&msg, 0, false);
	pfree(msg.data);
}

/* Forget the WRITE messages sent for db. */
void
wc_client_abort(uint32 db)
{
	StringInfoData msg;

	/* a handle of an old link: the old worker took its writes with it */
	if (conn == NULL || conn->sending || !handle_current(db))
		return;
	msg_begin(&msg, WC_REQ_ABORT);
	msg_u32(&msg, db & WC_DB_ID_MASK);
	send_msg(&msg, 0, false);
	pfree(msg.data);
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
	msg_begin(&msg, WC_REQ_COMMIT);
	msg_u32(&msg, db_id(db));
	appendStringInfoChar(&msg, sync ? 1 : 0);
	call(&msg, &r);
	pfree(msg.data);
}

/* LevelDB's estimate of the bytes stored in ranges. */
uint64
wc_client_estimate(uint32 db, List *ranges)
{
	StringInfoData msg;
	WcReader	r;
	ListCell   *lc;
	uint64		bytes;

	msg_begin(&msg, WC_REQ_ESTIMATE);
	msg_u32(&msg, db_id(db));
	msg_u32(&msg, list_length(ranges));
	foreach(lc, ranges)
		msg_range(&msg, lfirst(lc));
	call(&msg, &r);
	pfree(msg.data);
	bytes = wc_get_u64(&r);
	return bytes;
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
	ListCell   *lc;
	volatile uint32 holdoff = 0;

	if (conn == NULL)
		return;
	if (abort && conn->sending)
	{
		conn_drop();
		return;
	}
	foreach(lc, conn->snaps)
		forget_pg_snapshot(lfirst(lc));
	PG_TRY();
	{
		holdoff = InterruptHoldoffCount;
		while (conn != NULL && conn->scans != NIL)
			scan_forget(linitial(conn->scans));
		if (conn != NULL)
		{
			foreach(lc, conn->snaps)
			{
				StringInfoData msg;

				msg_begin(&msg, WC_REQ_RELEASE);
				msg_u32(&msg, ((WcSnapUse *) lfirst(lc))->id);
				send_msg(&msg, 0, false);
				pfree(msg.data);
			}
			list_free_deep(conn->snaps);
			conn->snaps = NIL;
		}
	}
	PG_CATCH();
	{
		/*
		 * At transaction end an error cannot be raised; start afresh.  The
		 * error reset the interrupt holdoff that our caller, PostgreSQL's
		 * commit or abort, still counts on: put it back.
		 */
		InterruptHoldoffCount = holdoff;
		FlushErrorState();
		conn_drop();
	}
	PG_END_TRY();
}

/* Close the scans a rolled-back subtransaction opened. */
void
wc_client_subxact_abort(SubTransactionId subid)
{
	ListCell   *lc;

	if (conn == NULL)
		return;
	if (conn->sending)
	{
		conn_drop();
		return;
	}
	foreach(lc, conn->scans)
	{
		WcRemoteScan *s = lfirst(lc);

		if (s->subid >= subid)
		{
			scan_forget(s);
			/* the list changed under us: start over */
			wc_client_subxact_abort(subid);
			return;
		}
	}
}

/*
 * release_unused_ending
 *		Let go of the PostgreSQL snapshots no statement uses any more (ending:
 *		a query whose executor is ending).
 *
 * Only PostgreSQL's snapshot, not the worker's: this runs as executors and
 * utility statements end, no place for a message that could fail.
 * release_unused, at the next snapshot_acquire, or the transaction's end
 * sends the worker its release.
 */
static void
release_unused_ending(QueryDesc *ending, Snapshot popping)
{
	ListCell   *lc;

	if (conn == NULL)
		return;
	foreach(lc, conn->snaps)
	{
		WcSnapUse  *su = lfirst(lc);

		if (!su->ended && su->pg_snapshot != NULL && !pg_snapshot_in_use(su, ending, popping))
		{
			forget_pg_snapshot(su);
			su->ended = true;
		}
	}
}

/* The same, and release the worker's snapshots nothing reads any more. */
static void
release_unused(void)
{
	ListCell   *lc;

	release_unused_ending(NULL, NULL);
	foreach(lc, conn->snaps)
	{
		WcSnapUse  *su = lfirst(lc);

		if (su->ended && !su->current && su->refs == 0)
		{
			snapshot_release(su);
			release_unused();	/* the list changed under us: start over */
			return;
		}
	}
}

static void
wc_executor_end(QueryDesc *queryDesc)
{
	if (prev_executor_end)
		prev_executor_end(queryDesc);
	else
		standard_ExecutorEnd(queryDesc);
	release_unused_ending(queryDesc, NULL);
}

static void
wc_process_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
				   ProcessUtilityContext context, ParamListInfo params,
				   QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	/* a top-level statement's snapshot, popped when it returns */
	Snapshot	popping = context == PROCESS_UTILITY_TOPLEVEL && ActiveSnapshotSet() ?
		GetActiveSnapshot() : NULL;

	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context, params,
							 queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params,
								queryEnv, dest, qc);
	release_unused_ending(NULL, popping);
}

/*
 * wc_client_init
 *		Define the test setting of this file, and watch for queries' and
 *		utility statements' ends (release_unused).
 */
void
wc_client_init(void)
{
	prev_executor_end = ExecutorEnd_hook;
	ExecutorEnd_hook = wc_executor_end;
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = wc_process_utility;

	DefineCustomIntVariable("widecolumn_fdw.debug_pause_before_commit_ms",
							"Waits this long after sending a transaction's writes, before its COMMIT (for tests).",
							NULL,
							&debug_pause_before_commit_ms,
							0, 0, 60000,
							PGC_SUSET,
							GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);
}
