/*-------------------------------------------------------------------------
 *
 * readers.c
 *	  The threads that fill scans' batches while the main thread goes on
 *	  serving: the reader threads (widecolumn_fdw.worker_threads), for
 *	  fills that work the CPU and the disk, and the call threads, for fills
 *	  that wait on a remote store's answers.
 *
 * The main thread (serve.c) opens a scan, hands the filling of each of its
 * batches to the pool as a WcReadJob, takes no further request from that
 * backend until the job comes back, and sends the batch (or the job's
 * error) as the answer.  So a full scan's half-megabyte batches, or a read
 * that waits for the disk, no longer hold up the point reads of other
 * sessions, and on a machine with many CPUs as many batches are filled at
 * once as there are threads.  LevelDB allows reads from many threads.
 *
 * A fill that waits on a remote store (a Bigtable scan's ReadRows call)
 * spends its time idle: on the reader threads, sized to the CPUs, the
 * calls in flight, and so the sessions served at once, would stop at their
 * number, and with none the main thread would wait.  Such fills go to the
 * call threads instead: one is made whenever a fill is given and no call
 * thread is free, and kept, so that as many calls are in flight as there
 * are sessions waiting on one (a backend has one batch filled at a time:
 * they are at most the worker's slots).
 *
 * The threads run an engine's fill, which is plain C: it allocates with
 * malloc (bytebuf.h) and reports errors with wc_fail, caught here into the
 * job.  They call nothing of PostgreSQL, and every signal is blocked in
 * them, as in storage.c's commit writer.  A finished job is put on the done
 * list and an eventfd in the main loop's wait set is written.
 *
 * With worker_threads = 0 the main thread fills every batch that does not
 * wait on a remote store itself.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "utils/memutils.h"

#include "worker/worker.h"

int			wc_worker_threads = 0;

/* Threads that take jobs from one queue. */
typedef struct ThreadGroup
{
	const char *name;			/* the threads' */
	pthread_cond_t wake;		/* a job, or stop */
	WcReadJob  *head;			/* submitted, not started */
	WcReadJob  *tail;
	int			queued;
	int			waiting;		/* threads waiting for a job */
	int			nthreads;
	int			max;
	pthread_t  *threads;
} ThreadGroup;

static struct
{
	ThreadGroup readers;
	ThreadGroup callers;
	pthread_mutex_t mutex;
	pthread_cond_t idle;		/* wc_readers_drain: a job is done */
	WcReadJob  *done_head;		/* finished, not collected */
	WcReadJob  *done_tail;
	int			out;			/* submitted and not yet finished */
	bool		stop;
	bool		started;		/* the eventfd and the lists exist */
	int			efd;
	int			signalled;		/* the eventfd may be set (atomic) */
} pool;

static void
fill(void *arg)
{
	WcReadJob  *job = arg;

	job->done = job->engine->scan_fill(job->scan);
}

/*
 * wc_read_job_run
 *		Fill the job's batch on this thread, its error caught into the job.
 */
void
wc_read_job_run(WcReadJob *job)
{
	job->failed = !wc_trapped(fill, job, &job->failure);
}

static void *
thread_main(void *arg)
{
	ThreadGroup *g = arg;

	pthread_mutex_lock(&pool.mutex);
	for (;;)
	{
		WcReadJob  *job;

		while (g->head == NULL && !pool.stop)
		{
			g->waiting++;
			pthread_cond_wait(&g->wake, &pool.mutex);
			g->waiting--;
		}
		job = g->head;
		if (job == NULL)
			break;				/* stopping, and nothing is left */
		g->head = job->next;
		if (g->head == NULL)
			g->tail = NULL;
		g->queued--;
		pthread_mutex_unlock(&pool.mutex);

		wc_read_job_run(job);

		pthread_mutex_lock(&pool.mutex);
		job->next = NULL;
		if (pool.done_tail)
			pool.done_tail->next = job;
		else
			__atomic_store_n(&pool.done_head, job, __ATOMIC_RELEASE);
		pool.done_tail = job;
		pool.out--;
		pthread_cond_broadcast(&pool.idle);
		pthread_mutex_unlock(&pool.mutex);
		/*
		 * Written before the flag is set: the main thread, which clears
		 * the flag before it reads the eventfd, never leaves the eventfd set
		 * with the flag clear (it would wake for nothing, again and again).
		 * A full eventfd counter still wakes the loop: nothing to do.
		 */
		if (write(pool.efd, &(uint64) {1}, sizeof(uint64)) < 0)
			(void) 0;
		__atomic_store_n(&pool.signalled, 1, __ATOMIC_RELEASE);
		pthread_mutex_lock(&pool.mutex);
	}
	pthread_mutex_unlock(&pool.mutex);
	return NULL;
}

/* Start one more thread of g, every signal blocked in it; 0 or an errno. */
static int
start_thread(ThreadGroup *g)
{
	sigset_t	all,
				old;
	int			rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&g->threads[g->nthreads], NULL, thread_main, g);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0)
	{
		pthread_setname_np(g->threads[g->nthreads], g->name);
		g->nthreads++;
	}
	return rc;
}

static void
group_init(ThreadGroup *g, const char *name, int max)
{
	g->name = name;
	pthread_cond_init(&g->wake, NULL);
	g->max = max;
	g->threads = MemoryContextAllocZero(TopMemoryContext, sizeof(pthread_t) * Max(max, 1));
}

/*
 * wc_readers_start
 *		Start wc_worker_threads reader threads (the call threads come when
 *		they are needed, at most max_calls); returns the eventfd that says
 *		a job is done.
 */
int
wc_readers_start(int max_calls)
{
	int			want = Min(wc_worker_threads, WC_MAX_READER_THREADS);

	pool.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (pool.efd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create an eventfd for the reader threads: %m")));
	pthread_mutex_init(&pool.mutex, NULL);
	pthread_cond_init(&pool.idle, NULL);
	group_init(&pool.readers, "wc reader", Max(want, 0));
	group_init(&pool.callers, "wc call", max_calls);
	pool.started = true;

	for (int i = 0; i < want; i++)
	{
		int			rc = start_thread(&pool.readers);

		if (rc != 0)
		{
			/* fewer threads serve as well, only slower */
			ereport(WARNING,
					(errmsg("could not start a reader thread: %s", strerror(rc)),
					 errdetail("The storage worker runs with %d of the %d reader threads widecolumn_fdw.worker_threads asks for.",
							   pool.readers.nthreads, wc_worker_threads)));
			break;
		}
	}
	return pool.efd;
}

/* Are there reader threads to give fills to? */
bool
wc_readers_running(void)
{
	return pool.readers.nthreads > 0 && !pool.stop;
}

/*
 * wc_readers_submit
 *		Give a job to the reader threads, or to the call threads if it waits
 *		on a remote store (one more made if none is free); it comes back
 *		through wc_readers_next_done.  False if no thread could take it: the
 *		caller runs it itself.
 */
bool
wc_readers_submit(WcReadJob *job, bool waits)
{
	ThreadGroup *g = waits ? &pool.callers : &pool.readers;
	int			rc = 0;

	job->next = NULL;
	pthread_mutex_lock(&pool.mutex);
	if (pool.stop)
	{
		pthread_mutex_unlock(&pool.mutex);
		return false;
	}
	if (g->tail)
		g->tail->next = job;
	else
		g->head = job;
	g->tail = job;
	g->queued++;
	pool.out++;
	if (waits && g->queued > g->waiting && g->nthreads < g->max)
		rc = start_thread(g);	/* it waits for the mutex, then takes a job */
	if (rc != 0 && g->nthreads == 0)
	{
		/* nobody to take it: it is the only one queued */
		g->head = g->tail = NULL;
		g->queued = 0;
		pool.out--;
		pthread_mutex_unlock(&pool.mutex);
		ereport(WARNING,
				(errmsg("could not start a thread for a call to a remote store: %s", strerror(rc)),
				 errdetail("The storage worker's main thread makes the call, and serves nobody else meanwhile.")));
		return false;
	}
	pthread_cond_signal(&g->wake);
	pthread_mutex_unlock(&pool.mutex);
	return true;
}

/* A finished job not yet collected, or NULL. */
WcReadJob *
wc_readers_next_done(void)
{
	WcReadJob  *job;
	uint64		count;

	if (!pool.started)
		return NULL;

	/*
	 * The loop asks on every pass: no system call unless a thread has
	 * finished a job since the last look.  Clear the eventfd before looking
	 * at the list: a job finished after the look writes it again, so the
	 * loop does not sleep with one waiting.
	 */
	if (__atomic_load_n(&pool.signalled, __ATOMIC_ACQUIRE) != 0)
	{
		__atomic_store_n(&pool.signalled, 0, __ATOMIC_SEQ_CST);
		if (read(pool.efd, &count, sizeof(count)) < 0)
			(void) 0;			/* it was clear: EAGAIN */
	}
	if (__atomic_load_n(&pool.done_head, __ATOMIC_ACQUIRE) == NULL)
		return NULL;
	pthread_mutex_lock(&pool.mutex);
	job = pool.done_head;
	if (job != NULL)
	{
		__atomic_store_n(&pool.done_head, job->next, __ATOMIC_RELAXED);
		if (pool.done_head == NULL)
			pool.done_tail = NULL;
	}
	pthread_mutex_unlock(&pool.mutex);
	return job;
}

/*
 * wc_readers_drain
 *		Wait until every job given to the pool is finished (a database is
 *		about to close under its iterators).
 */
void
wc_readers_drain(void)
{
	if (!pool.started)
		return;
	pthread_mutex_lock(&pool.mutex);
	while (pool.out > 0)
		pthread_cond_wait(&pool.idle, &pool.mutex);
	pthread_mutex_unlock(&pool.mutex);
}

/*
 * wc_readers_stop
 *		Finish the jobs given and stop the threads (the worker exits); the
 *		finished jobs can still be collected.
 */
void
wc_readers_stop(void)
{
	if (!pool.started || pool.stop)
		return;
	pthread_mutex_lock(&pool.mutex);
	pool.stop = true;
	pthread_cond_broadcast(&pool.readers.wake);
	pthread_cond_broadcast(&pool.callers.wake);
	pthread_mutex_unlock(&pool.mutex);
	for (int i = 0; i < pool.readers.nthreads; i++)
		pthread_join(pool.readers.threads[i], NULL);
	for (int i = 0; i < pool.callers.nthreads; i++)
		pthread_join(pool.callers.threads[i], NULL);
}
