/*-------------------------------------------------------------------------
 *
 * main.c
 *	  The storage worker: the one process that opens the stores (LevelDB's
 *	  databases).  Its registration, its main loop, and the backends
 *	  attached to it.
 *
 * LevelDB allows one process per database, and PostgreSQL runs a process
 * per session, so every backend sends its requests here.  A backend creates
 * a DSM segment holding a request queue and an answer queue, posts the
 * segment's handle in its slot of our shared memory (common/shmem.h) and
 * sets our latch.
 *
 * The loop below serves every attached backend in turn and never waits on
 * any one of them: queues are read and written without blocking, an answer
 * that does not fit is kept and retried on the next round, and a scan
 * answers one bounded batch per request.  So a long scan in one session
 * cannot stall a point read in another.  Nor does a commit's fsync: the
 * engine writes a commit on a thread of its own and answers it when it is
 * written, and a commit of more than 4 MiB in slices (leveldb/largecommit.c);
 * each pass gives the engine its turn (engine.h's step).  Scans' batches
 * are filled by reader threads (runtime/readers.c), but for small ones.
 * When there is nothing to do the loop gives the engine a slice of its
 * background work (the sweep, leveldb/reclaim.c), then polls a little
 * before it sleeps (common/poll.c).
 *
 * Errors while serving a request are caught and sent back as ERROR answers;
 * the worker itself exits only on SIGTERM or postmaster death, and the
 * postmaster restarts it after a crash.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <time.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "common/poll.h"
#include "common/progress.h"
#include "common/shmem.h"
#include "worker/worker.h"

PGDLLEXPORT void wc_worker_main(Datum arg);

static volatile sig_atomic_t got_sigterm = false;

static void client_free(WcClient *c);

/*
 * wc_worker_register
 *		Register the storage worker with the postmaster.
 */
void
wc_worker_register(void)
{
	BackgroundWorker worker;

	DefineCustomIntVariable("widecolumn_fdw.debug_clock_step_back",
							"Sets the storage worker's clock this many seconds back (for tests).",
							NULL,
							&wc_debug_clock_step_back,
							0, 0, INT_MAX,
							PGC_SIGHUP,
							GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE | GUC_UNIT_S,
							NULL, NULL, NULL);

	DefineCustomIntVariable("widecolumn_fdw.worker_threads",
							"Sets the number of the storage worker's reader threads.",
							"They fill scans' batches while the worker's main thread serves other requests; 0 fills them on the main thread.  The default is the number of CPUs, at most 16.",
							&wc_worker_threads,
							Min(WC_MAX_READER_THREADS, Max(1, (int) sysconf(_SC_NPROCESSORS_ONLN))),
							0, WC_MAX_READER_THREADS,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	wc_heat_define_settings();
	for (int e = 0; e < wc_nengines; e++)
		wc_engines[e]->define_settings();

	memset(&worker, 0, sizeof(worker));
	/*
	 * A connection to no database, as the logical replication launcher
	 * has: PostgreSQL 15 shows a background worker in pg_stat_activity
	 * only once it has one.
	 */
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	/* a connection needs a consistent state (a standby's too) */
	worker.bgw_start_time = BgWorkerStart_ConsistentState;
	worker.bgw_restart_time = 1;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "widecolumn_fdw");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "wc_worker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "widecolumn_fdw storage worker");
	snprintf(worker.bgw_type, BGW_MAXLEN, "widecolumn_fdw storage worker");
	RegisterBackgroundWorker(&worker);
}

static void
wc_worker_sigterm(SIGNAL_ARGS)
{
	int			save_errno = errno;

	got_sigterm = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

/* On exit: say we are gone, and close the databases cleanly. */
static void
wc_worker_exit(int code, Datum arg)
{
	SpinLockAcquire(&wc_shared->mutex);
	wc_shared->worker_pid = 0;
	wc_shared->worker_latch = NULL;
	SpinLockRelease(&wc_shared->mutex);

	/*
	 * A read or a sizes call waiting on a remote store would hold the exit
	 * until its deadline: cut short (a COMMIT's calls are not).
	 */
	for (int i = 0; wc_clients != NULL && i < wc_shared->nslots; i++)
		if (wc_clients[i] != NULL)
			wc_client_cancel_under_way(wc_clients[i]);

	/*
	 * The writes in progress finish, and their backends are answered: a
	 * backend told nothing would roll back the rest of a transaction whose
	 * foreign part is committed.  (It reads the queue to the end before it
	 * takes the worker for gone: fdw/link/client.c, wait_for_worker.)  The
	 * reader threads finish their batches, as their scans must be closed
	 * before the databases.
	 */
	do
	{
		for (int e = 0; e < wc_nengines; e++)
			wc_engines[e]->finish();
	} while (wc_serve_held());
	for (int e = 0; e < wc_nengines; e++)
		wc_engines[e]->stop();
	wc_readers_stop();
	wc_collect_reads();
	for (int i = 0; wc_clients != NULL && i < wc_shared->nslots; i++)
	{
		WcClient   *c = wc_clients[i];

		if (c != NULL && c->answer_pending)
			(void) shm_mq_send(c->out, c->answer.len, c->answer.data, true, true);
	}

	/*
	 * LevelDB must not be closed under a live iterator or snapshot (it
	 * aborts, and the postmaster restarts the whole cluster): the backends'
	 * scans and snapshots go first.
	 */
	for (int i = 0; wc_clients != NULL && i < wc_shared->nslots; i++)
		if (wc_clients[i] != NULL)
			client_free(wc_clients[i]);

	for (int e = 0; e < wc_nengines; e++)
		wc_engines[e]->close_all();
}

/*
 * client_free
 *		Let go of a backend that has gone.  While a reader thread fills a
 *		batch of one of its scans, its scans and snapshots stay until the
 *		thread is done (wc_collect_reads); a call to a remote store under
 *		way for it is cancelled.
 */
static void
client_free(WcClient *c)
{
	if (c->reading == NULL)
		wc_client_release_all(c);
	wc_client_cancel_under_way(c);
	dsm_detach(c->seg);
	wc_clients[c->slot] = NULL;
	if (c->answer_later || c->reading != NULL)
		c->gone = true;
	else
		MemoryContextDelete(c->cxt);
}

/*
 * attach_clients
 *		Attach to the segments backends have posted since the last look.
 */
static void
attach_clients(uint64 generation)
{
	static bool scanned = false;
	static uint32 seen;
	uint32		changes = pg_atomic_read_u32(&wc_shared->slot_changes);

	/* The loop comes here on every pass, polling too: read slots only on news. */
	if (scanned && changes == seen)
		return;
	scanned = true;
	seen = changes;

	for (int i = 0; i < wc_shared->nslots; i++)
	{
		dsm_handle	h;
		uint64		gen;
		dsm_segment *seg;
		shm_toc    *toc;
		WcClient   *c;
		MemoryContext cxt;

		SpinLockAcquire(&wc_shared->mutex);
		h = wc_shared->slots[i].handle;
		gen = wc_shared->slots[i].generation;
		SpinLockRelease(&wc_shared->mutex);

		if (wc_clients[i] != NULL && wc_clients[i]->handle != h)
			client_free(wc_clients[i]);
		if (h == 0 || gen != generation || wc_clients[i] != NULL)
			continue;

		seg = dsm_attach(h);
		if (seg == NULL)
			continue;			/* the backend has already gone */
		toc = shm_toc_attach(WC_SHM_MAGIC, dsm_segment_address(seg));
		if (toc == NULL)
		{
			dsm_detach(seg);
			continue;
		}

		cxt = AllocSetContextCreate(wc_worker_cxt, "widecolumn_fdw client",
									ALLOCSET_DEFAULT_SIZES);
		c = MemoryContextAllocZero(cxt, sizeof(WcClient));
		c->cxt = cxt;
		c->slot = i;
		c->handle = h;
		c->seg = seg;
		{
			shm_mq	   *req = shm_toc_lookup(toc, WC_TOC_REQUEST_QUEUE, false);
			shm_mq	   *resp = shm_toc_lookup(toc, WC_TOC_ANSWER_QUEUE, false);

			c->cancels = shm_toc_lookup(toc, WC_TOC_CANCELS, false);
			shm_mq_set_receiver(req, MyProc);
			shm_mq_set_sender(resp, MyProc);
			MemoryContextSwitchTo(cxt);
			c->in = shm_mq_attach(req, seg, NULL);
			c->out = shm_mq_attach(resp, seg, NULL);
			initStringInfo(&c->answer);
			MemoryContextSwitchTo(wc_worker_cxt);
		}
		wc_clients[i] = c;
	}
}

/*
 * serve_client
 *		Do a bounded amount of work for one backend; true if any was done.
 */
static bool
serve_client(WcClient *c)
{
	bool		worked = false;

	wc_stat_turn(c);
	wc_client_cancel_unwanted(c);

	/*
	 * Nothing more until its commit is written, its COUNT or COMPACT is
	 * over, or its scan's batch is filled, in the order it sent.
	 */
	for (int n = 0; n < 16 && !c->answer_later && c->reclaim == NULL &&
		 c->reading == NULL; n++)
	{
		shm_mq_result res;
		Size		len;
		void	   *data;
		instr_time	start;
		uint8		type;

		if (c->answer_pending)
		{
			res = shm_mq_send(c->out, c->answer.len, c->answer.data, true, true);
			if (res == SHM_MQ_WOULD_BLOCK)
			{
				wc_stat_answer_blocked(c);
				return worked;
			}
			if (res == SHM_MQ_DETACHED)
			{
				client_free(c);
				return true;
			}
			c->answer_pending = false;
			c->stat_blocked = false;
			worked = true;
		}

		res = shm_mq_receive(c->in, &len, &data, true);
		if (res == SHM_MQ_WOULD_BLOCK)
			return worked;
		if (res == SHM_MQ_DETACHED)
		{
			client_free(c);
			return true;
		}
		type = len > 0 ? ((uint8 *) data)[0] : 0;
		/* numbered as the backend numbers its calls (fdw/link/client.c) */
		if (wc_msg_answered(type) && type != WC_REQ_SCAN && type != WC_REQ_NEXT)
			c->calls++;
		wc_stat_queued(wc_progress_take_queued(c->slot));
		INSTR_TIME_SET_CURRENT(start);
		wc_handle_request(c, data, len);
		wc_stat_served(c, type, start);
		worked = true;
	}
	return worked;
}

void
wc_worker_main(Datum arg)
{
	uint64		generation;
	WaitEventSet *wait_set;
	bool		idle = false;
	instr_time	idle_since;
	int			readers_fd;
	int			clients = 0;	/* linked sessions, in the last pass */

	pqsignal(SIGTERM, wc_worker_sigterm);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	/* there is no statement to cancel: pg_cancel_backend() does nothing */
	pqsignal(SIGINT, SIG_IGN);
	BackgroundWorkerUnblockSignals();
	/* in pg_stat_activity, as "widecolumn_fdw storage worker" (bgw_type) */
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);

	/* before any thread or scan grows a plain C buffer */
	wc_bytebuf_on_failure = wc_bytebuf_failed;
	wc_worker_cxt = AllocSetContextCreate(TopMemoryContext, "widecolumn_fdw worker",
										  ALLOCSET_DEFAULT_SIZES);
	wc_serve_init();
	wc_stat_init();
	MemoryContextSwitchTo(wc_worker_cxt);
	wc_clients = palloc0(sizeof(WcClient *) * wc_shared->nslots);

	wait_set = CreateWaitEventSet(TopMemoryContext, 3 + wc_nengines);
	AddWaitEventToSet(wait_set, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(wait_set, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
	for (int e = 0; e < wc_nengines; e++)
	{
		int			engine_fd = wc_engines[e]->start(wc_shared->nslots);

		if (engine_fd >= 0)
			AddWaitEventToSet(wait_set, WL_SOCKET_READABLE, engine_fd, NULL, NULL);
	}
	readers_fd = wc_readers_start(wc_shared->nslots);
	if (readers_fd >= 0)
		AddWaitEventToSet(wait_set, WL_SOCKET_READABLE, readers_fd, NULL, NULL);

	SpinLockAcquire(&wc_shared->mutex);
	generation = ++wc_shared->generation;
	wc_shared->worker_pid = MyProcPid;
	wc_shared->worker_latch = MyLatch;
	SpinLockRelease(&wc_shared->mutex);
	before_shmem_exit(wc_worker_exit, 0);

	ereport(LOG, (errmsg("widecolumn_fdw storage worker started")));

	while (!got_sigterm)
	{
		uint32		busy = 0;
		long		timeout;

		ResetLatch(MyLatch);
		/* a connected process must absorb barriers (DROP DATABASE waits) */
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}

		attach_clients(generation);
		for (int e = 0; e < wc_nengines; e++)
			if (wc_engines[e]->step())
				busy++;
		if (wc_serve_held())
			busy++;
		if (wc_collect_reads())
			busy++;
		clients = 0;
		for (int i = 0; i < wc_shared->nslots; i++)
			if (wc_clients[i] != NULL)
			{
				clients++;
				if (serve_client(wc_clients[i]))
					busy++;
			}
		if (pg_atomic_read_u32(&wc_shared->busy_clients) != busy)
			pg_atomic_write_u32(&wc_shared->busy_clients, busy);
		wc_stat_pass(busy > 0);

		if (busy > 0)
		{
			idle = false;
			continue;
		}

		/* Nobody is waiting: a slice of the engine's background work. */
		timeout = 1000L;
		for (int e = 0; e < wc_nengines; e++)
			timeout = Min(timeout, wc_engines[e]->idle());

		/*
		 * Poll a little before sleeping: the next request of a session that
		 * is scanning or running queries back to back is often that close,
		 * and a wake-up costs as much (fdw/link/client.c, poll_for_answer).
		 * Not after a synced COMMIT when its session is the only one: its
		 * next request follows its WAL flush, longer than the poll (serve.c).
		 */
		if (!idle)
		{
			INSTR_TIME_SET_CURRENT(idle_since);
			idle = true;
		}
		if (!(wc_served_synced_commit && clients == 1) && wc_poll_again(&idle_since))
			continue;
		idle = false;
		{
			WaitEvent	ev;

			(void) WaitEventSetWait(wait_set, Max(timeout, 1L), &ev, 1, PG_WAIT_EXTENSION);
		}
	}

	/* Exit code 0 would tell the postmaster never to start us again. */
	proc_exit(1);
}
