/*-------------------------------------------------------------------------
 *
 * readers.c
 *	  The reader threads: a pool that fills scans' batches while the main
 *	  thread goes on serving (widecolumn_fdw.worker_threads).
 *
 * The main thread (serve.c) opens a scan, hands the filling of each of its
 * batches to the pool as a WcReadJob, takes no further request from that
 * backend until the job comes back, and sends the batch (or the job's
 * error) as the answer.  So a full scan's half-megabyte batches, or a read
 * that waits for the disk, no longer hold up the point reads of other
 * sessions, and on a machine with many CPUs as many batches are filled at
 * once as there are threads.  LevelDB allows reads from many threads.
 *
 * The threads run rowscan.c's fill, which is plain C: it allocates with
 * malloc (bytebuf.h) and reports errors with wc_fail, caught here into the
 * job.  They call nothing of PostgreSQL, and every signal is blocked in
 * them, as in storage.c's commit writer.  A finished job is put on the done
 * list and an eventfd in the main loop's wait set is written.
 *
 * With worker_threads = 0 the main thread fills every batch itself.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "worker/worker.h"

int			wc_worker_threads = 0;

static struct
{
	int			nthreads;
	pthread_t	threads[WC_MAX_READER_THREADS];
	pthread_mutex_t mutex;
	pthread_cond_t wake;		/* the threads: a job, or stop */
	pthread_cond_t idle;		/* wc_readers_drain: a job is done */
	WcReadJob  *queue_head;		/* submitted, not started */
	WcReadJob  *queue_tail;
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
reader_main(void *arg)
{
	pthread_mutex_lock(&pool.mutex);
	for (;;)
	{
		WcReadJob  *job;

		while (pool.queue_head == NULL && !pool.stop)
			pthread_cond_wait(&pool.wake, &pool.mutex);
		job = pool.queue_head;
		if (job == NULL)
			break;				/* stopping, and nothing is left */
		pool.queue_head = job->next;
		if (pool.queue_head == NULL)
			pool.queue_tail = NULL;
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

/*
 * wc_readers_start
 *		Start wc_worker_threads reader threads; returns the eventfd that
 *		says a job is done, or -1 if there are none.
 */
int
wc_readers_start(void)
{
	sigset_t	all,
				old;

	if (wc_worker_threads <= 0)
		return -1;
	pool.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (pool.efd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create an eventfd for the reader threads: %m")));
	pthread_mutex_init(&pool.mutex, NULL);
	pthread_cond_init(&pool.wake, NULL);
	pthread_cond_init(&pool.idle, NULL);

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < Min(wc_worker_threads, WC_MAX_READER_THREADS); i++)
	{
		int			rc = pthread_create(&pool.threads[i], NULL, reader_main, NULL);

		if (rc != 0)
		{
			/* fewer threads serve as well, only slower */
			ereport(WARNING,
					(errmsg("could not start a reader thread: %s", strerror(rc)),
					 errdetail("The storage worker runs with %d of the %d reader threads widecolumn_fdw.worker_threads asks for.",
							   pool.nthreads, wc_worker_threads)));
			break;
		}
		pthread_setname_np(pool.threads[i], "wc reader");
		pool.nthreads++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pool.nthreads == 0)
	{
		close(pool.efd);
		return -1;
	}
	pool.started = true;
	return pool.efd;
}

bool
wc_readers_running(void)
{
	return pool.nthreads > 0 && !pool.stop;
}

/* Give a job to the pool; it comes back through wc_readers_next_done. */
void
wc_readers_submit(WcReadJob *job)
{
	job->next = NULL;
	pthread_mutex_lock(&pool.mutex);
	if (pool.queue_tail)
		pool.queue_tail->next = job;
	else
		pool.queue_head = job;
	pool.queue_tail = job;
	pool.out++;
	pthread_cond_signal(&pool.wake);
	pthread_mutex_unlock(&pool.mutex);
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
	if (pool.nthreads == 0 || pool.stop)
		return;
	pthread_mutex_lock(&pool.mutex);
	pool.stop = true;
	pthread_cond_broadcast(&pool.wake);
	pthread_mutex_unlock(&pool.mutex);
	for (int i = 0; i < pool.nthreads; i++)
		pthread_join(pool.threads[i], NULL);
}
