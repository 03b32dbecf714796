/*-------------------------------------------------------------------------
 *
 * commitwriter.c
 *	  The commit writer: a thread of the storage worker that writes commits
 *	  while the worker goes on serving reads.
 *
 * A synced write waits for fsync, a quarter of a millisecond or more, and
 * the worker is one thread: every session's reads used to wait for every
 * commit.  Now the worker hands a commit's batch over (storage_submit) and
 * answers the commit when it gets the batch back (storage_next_written).
 * The thread writes the batches in the order they came; the batches of one
 * database waiting when it starts a write go into that one write, with one
 * fsync, as LevelDB itself does for writers on several threads.  After a
 * failed write it writes nothing more to that database: what is queued for
 * it fails too, until the worker reopens it (see storage_write).
 *
 * The thread calls none of PostgreSQL's functions but snprintf, which only
 * formats: it writes through storage.c (storage_write_group, plain C: this
 * file never calls LevelDB), and copies LevelDB's error into the slot;
 * memory and errors are the worker's thread's work.  Slots are used in
 * order; counters only grow, and a slot is counter % size.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "utils/memutils.h"

#include "worker/leveldb/storage.h"

typedef struct WcWrite
{
	WcDb	   *db;
	WcBatch    *batch;
	bool		sync;
	void	   *owner;
	char	   *path;			/* for the error message: db may be gone */
	bool		failed;
	char		err[256];
} WcWrite;

static struct
{
	bool		running;
	pthread_t	thread;
	pthread_mutex_t mutex;
	pthread_cond_t wake;		/* the thread: work or stop */
	pthread_cond_t written;		/* storage_writer_drain: a write is done */
	int			efd;			/* readable when a write is done */
	bool		efd_set;		/* efd may be readable (under mutex) */
	WcWrite    *slots;
	uint64		size;
	uint64		submitted;		/* counters, under mutex */
	uint64		finished;
	uint64		collected;		/* only the worker's thread uses these two */
	uint64		drained;		/* collected when efd was last emptied */
	uint64		fsyncs;			/* synced writes, under mutex */
	bool		stop;
	WcBatch   **run;			/* the thread's: the batches of one write */
} writer;

/* The slot of counter n. */
#define WRITER_SLOT(n) (&writer.slots[(n) % writer.size])

static void *
writer_main(void *arg)
{
	pthread_mutex_lock(&writer.mutex);
	for (;;)
	{
		uint64		first = writer.finished;
		uint64		last = writer.submitted;

		if (first == last)
		{
			if (writer.stop)
				break;
			pthread_cond_wait(&writer.wake, &writer.mutex);
			continue;
		}
		pthread_mutex_unlock(&writer.mutex);

		/* Runs of one database, oldest first. */
		while (first < last)
		{
			WcWrite    *w = WRITER_SLOT(first);
			uint64		end = first + 1;
			bool		sync = w->sync;
			bool		ok = true;
			char		err[sizeof(w->err)];

			while (end < last && WRITER_SLOT(end)->db == w->db)
				sync |= WRITER_SLOT(end++)->sync;
			if (!storage_failed_flag(w->db))
			{
				for (uint64 n = first; n < end; n++)
					writer.run[n - first] = WRITER_SLOT(n)->batch;
				ok = storage_write_group(w->db, writer.run, (int) (end - first), sync,
										 err, sizeof(err));
			}
			pthread_mutex_lock(&writer.mutex);
			if (sync)
				writer.fsyncs++;
			if (!ok)
				storage_set_failed_flag(w->db);
			for (uint64 n = first; n < end; n++)
			{
				WcWrite    *x = WRITER_SLOT(n);

				x->failed = storage_failed_flag(w->db);
				if (x->failed)
					snprintf(x->err, sizeof(x->err), "%s",
							 ok ? "an earlier write to this database failed" : err);
			}
			writer.finished = end;
			/*
			 * Under the mutex: see storage_next_written.  Adding 1 to an
			 * eventfd fails only at a count of 2^64 - 1.
			 */
			if (!writer.efd_set &&
				write(writer.efd, &(uint64) {1}, sizeof(uint64)) < 0)
				abort();
			writer.efd_set = true;
			pthread_cond_broadcast(&writer.written);
			pthread_mutex_unlock(&writer.mutex);
			first = end;
		}
		pthread_mutex_lock(&writer.mutex);
	}
	pthread_mutex_unlock(&writer.mutex);
	return arg;
}

/*
 * storage_writer_start
 *		Start the commit writer, for at most capacity writes at a time; the
 *		descriptor returned is readable when one is done.
 */
int
storage_writer_start(int capacity)
{
	sigset_t	all,
				old;
	int			rc;

	writer.size = capacity;
	writer.slots = MemoryContextAllocZero(TopMemoryContext, sizeof(WcWrite) * capacity);
	writer.run = MemoryContextAlloc(TopMemoryContext, sizeof(WcBatch *) * capacity);
	writer.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (writer.efd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create an event descriptor: %m")));
	pthread_mutex_init(&writer.mutex, NULL);
	pthread_cond_init(&writer.wake, NULL);
	pthread_cond_init(&writer.written, NULL);

	/* PostgreSQL's signal handlers must run on the worker's own thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&writer.thread, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start the commit writer thread: %s", strerror(rc))));
	/* So that top -H, perf and gdb tell it from LevelDB's own threads. */
	pthread_setname_np(writer.thread, "wc writer");
	writer.running = true;
	return writer.efd;
}

/* Let the writes in progress finish, then stop the thread (at exit). */
void
storage_writer_stop(void)
{
	if (!writer.running)
		return;
	pthread_mutex_lock(&writer.mutex);
	writer.stop = true;
	pthread_cond_signal(&writer.wake);
	pthread_mutex_unlock(&writer.mutex);
	pthread_join(writer.thread, NULL);
	writer.running = false;
}

/*
 * storage_submit
 *		Give the batch to the commit writer; it is written after every batch
 *		given before it.  owner comes back from storage_next_written.
 */
void
storage_submit(WcDb *d, WcBatch *b, bool sync, void *owner)
{
	WcWrite    *w;

	Assert(writer.running);
	if (writer.submitted - writer.collected >= writer.size)
		elog(ERROR, "too many commits waiting for the widecolumn_fdw commit writer");
	w = WRITER_SLOT(writer.submitted);
	w->db = d;
	w->batch = b;
	w->sync = sync;
	w->owner = owner;
	w->path = MemoryContextStrdup(TopMemoryContext, storage_db_path(d));
	w->failed = false;
	pthread_mutex_lock(&writer.mutex);
	writer.submitted++;
	pthread_cond_signal(&writer.wake);
	pthread_mutex_unlock(&writer.mutex);
}

/*
 * storage_next_written
 *		The owner of the oldest write that is done and not yet finished with
 *		storage_finish_written; false if there is none.
 */
bool
storage_next_written(void **owner)
{
	uint64		n;

	/*
	 * Nothing out, and the descriptor emptied since the last collected.
	 * (After storage_writer_stop too: the worker answers them as it exits.)
	 */
	if (writer.slots == NULL ||
		(writer.submitted == writer.collected && writer.collected == writer.drained))
		return false;

	pthread_mutex_lock(&writer.mutex);
	if (writer.collected < writer.finished)
	{
		pthread_mutex_unlock(&writer.mutex);
		*owner = WRITER_SLOT(writer.collected)->owner;
		return true;
	}

	/*
	 * The thread signals under the mutex, so every signal so far is for a
	 * write already collected: empty the descriptor, or the worker's wait
	 * would return at once.  Only if the thread wrote it since we last
	 * did: the loop asks on every pass, and a read is a system call.
	 */
	if (writer.efd_set)
	{
		while (read(writer.efd, &n, sizeof(n)) > 0)
			;
		writer.efd_set = false;
	}
	writer.drained = writer.collected;
	pthread_mutex_unlock(&writer.mutex);
	return false;
}

/* Free that write's batch, and raise its error if it failed. */
void
storage_finish_written(void)
{
	WcWrite    *w = WRITER_SLOT(writer.collected);
	char	   *path = pstrdup(w->path);
	bool		failed = w->failed;
	char	   *msg = pstrdup(w->err);

	writer.collected++;
	pfree(w->path);
	storage_batch_free(w->batch);
	if (failed)
		storage_raise_write_error(msg, path);
}

/*
 * Has every write given to the commit writer been written and collected?
 * (Only the worker's thread changes the two counts.)
 */
bool
storage_writer_idle(void)
{
	return !writer.running || writer.submitted == writer.collected;
}

/* Wait until every write given to the commit writer is done. */
void
storage_writer_drain(void)
{
	if (!writer.running)
		return;
	pthread_mutex_lock(&writer.mutex);
	while (writer.finished < writer.submitted)
		pthread_cond_wait(&writer.written, &writer.mutex);
	pthread_mutex_unlock(&writer.mutex);
}

/* Did a write fail, so that the handle must not be written to again? */
bool
storage_write_failed(WcDb *d)
{
	bool		failed;

	if (!writer.running)
		return storage_failed_flag(d);
	pthread_mutex_lock(&writer.mutex);
	failed = storage_failed_flag(d);
	pthread_mutex_unlock(&writer.mutex);
	return failed;
}

/* The synced writes the thread made so far (storage_fsyncs adds the worker's). */
uint64_t
storage_writer_fsyncs(void)
{
	uint64_t	n = 0;

	if (writer.slots != NULL)
	{
		pthread_mutex_lock(&writer.mutex);
		n = writer.fsyncs;
		pthread_mutex_unlock(&writer.mutex);
	}
	return n;
}
