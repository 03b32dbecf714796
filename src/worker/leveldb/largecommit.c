/*-------------------------------------------------------------------------
 *
 * largecommit.c
 *	  A commit of more than 4 MiB (a bulk load's), written while the worker
 *	  goes on serving the other sessions.
 *
 * Such a commit is written in chunks of about 4 MiB (docs/format.md,
 * "Large commits").  Written in one go, it held up every other session for
 * as long as it took, a second or more for a million rows.  Now the main
 * loop fills the next chunk from the commit's rows in slices of
 * WC_LARGE_SLICE_US between its other work, and the commit writer thread
 * (storage.c) writes each chunk while the next is filled.  Meanwhile:
 *
 * - No read may see part of the commit.  Reads of the latest state (a
 *   snapshot, or a scan without one) read the snapshot taken just before
 *   the first chunk: the commit is not answered yet, so a read that comes
 *   before it is a read that began before it.
 * - Every other COMMIT that writes waits until this one ends (it is held,
 *   and served then): a session that saw its commit answered must read it
 *   next, and reads still see the state before the large commit.
 * - The background sweep, COUNT and compact wait too: what they delete
 *   because of the commit's new versions could not come back if the commit
 *   were rolled back.
 *
 * A failure rolls the commit back, as a crash would (the database is
 * closed and reopened, and the pending-commit file says what to remove).
 * When the worker is asked to stop, it finishes the commit first
 * (ldb_large_commit_complete), as it finishes the commit writer's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/fd.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "common/progress.h"
#include "worker/leveldb/leveldb.h"

/*
 * How long the main loop fills a chunk before it serves the other sessions
 * again: the longest a point read waits for the commit.
 */
#define WC_LARGE_SLICE_US	200

/* Chunks with the commit writer at once: one written while one is filled. */
#define WC_LARGE_CHUNKS_OUT	2

/* Test hook: wait this long between chunks (the worker serves meanwhile). */
int			ldb_debug_large_commit_pause = 0;

static struct
{
	WcClient   *c;				/* the session committing; NULL: none */
	WcOpenDb   *odb;
	uint32		db;
	WcCommit   *cm;
	WcSnap	   *before;			/* the state before the first chunk */
	int			out;			/* chunks with the commit writer */
	int			written;		/* chunks written */
	bool		failing;		/* being rolled back */
	TimestampTz next_fill;		/* ldb_debug_large_commit_pause's */
	uint64		bytes;			/* of the rows: widecolumn.progress */
	TimestampTz reported;
} large;

/* Whether a commit writer's write is a chunk of the large commit. */
bool
ldb_large_commit_owns(void *owner)
{
	return owner == &large;
}

/*
 * ldb_large_commit_start
 *		Begin c's large commit of db; answered when it is written.
 */
void
ldb_large_commit_start(WcClient *c, WcOpenDb *odb, uint32 db)
{
	WcClientWrites *w = NULL;
	ListCell   *lc;

	foreach(lc, c->writes)
		if (((WcClientWrites *) lfirst(lc))->db == db)
			w = lfirst(lc);
	Assert(w != NULL && large.c == NULL);

	/* after every commit before it, and seen by no snapshot before it */
	storage_writer_drain();
	/* one of those failed: reopened before it is written to, as in engine.c */
	if (storage_write_failed(odb->db))
	{
		ldb_close_after_failure(odb);
		ldb_reopen(odb);
	}
	/* and after the logged ones are synced: redo never meets it */
	ldb_redo_sync(odb, false);
	large.cm = ldb_commit_large_begin(odb, w);
	large.before = storage_snapshot(odb->db);
	large.c = c;
	large.odb = odb;
	odb->large_writing = true;
	odb->large_before = large.before;
	large.db = db;
	large.out = 0;
	large.written = 0;
	large.bytes = 0;
	foreach(lc, w->msgs)
		large.bytes += ((StringInfo) lfirst(lc))->len;
	large.reported = GetCurrentTimestamp();
	wc_progress_count(c->slot, WC_UNIT_BYTES_WRITTEN, 0, true, large.bytes);
	c->answer_later = true;
}

/*
 * report
 *		Count the rows put in chunks in the committing backend's progress
 *		slot (common/progress.h), at most every 100 ms.
 */
static void
report(void)
{
	TimestampTz now = GetCurrentTimestamp();

	if (now - large.reported < 100 * 1000)
		return;
	large.reported = now;
	wc_progress_count(large.c->slot, WC_UNIT_BYTES_WRITTEN,
					  ldb_commit_large_done(large.cm), true, large.bytes);
}

/*
 * finish
 *		The commit is over: answer it (with edata's error if it failed).
 *		The COMMITs held meanwhile are served next (serve.c, wc_serve_held).
 */
static void
finish(ErrorData *edata)
{
	WcClient   *c = large.c;

	if (large.before != NULL)
		storage_release(large.odb->db, large.before);
	large.before = NULL;
	large.odb->large_before = NULL;
	large.odb->large_writing = false;
	large.c = NULL;
	large.cm = NULL;
	large.failing = false;
	wc_client_discard_writes(c, large.db);
	resetStringInfo(&c->answer);
	if (edata)
		wc_write_error(&c->answer, edata->sqlerrcode, edata->message,
					   edata->detail, edata->hint);
	else
		wc_write_ok(&c->answer);
	wc_client_answered_later(c);
}

/*
 * fail
 *		In a PG_CATCH: roll the commit back.  The chunks with the commit
 *		writer are written first; then the database is closed, and its next
 *		open removes what the chunks wrote (the pending-commit file).
 */
static void
fail(void)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(wc_worker_cxt);
	edata = CopyErrorData();
	FlushErrorState();
	/* files the failed work opened (the logs' fsync): no transaction ends */
	AtEOXact_Files(false);
	large.failing = true;
	storage_writer_drain();
	while (large.out > 0 && ldb_collect_commits())
		;
	ldb_commit_large_abort(large.cm);
	large.cm = NULL;
	/* the snapshot goes before the database it is of */
	storage_release(large.odb->db, large.before);
	large.before = NULL;
	large.odb->large_before = NULL;
	if (large.odb->db != NULL && large.odb->commit_partial)
		ldb_close_after_failure(large.odb);
	finish(edata);
	FreeErrorData(edata);
}

/* What the commit writer's write came to: its error, if any (storage.c). */
static void
finish_written(void *arg, StringInfo out)
{
	storage_finish_written();
	wc_write_ok(out);
}

/*
 * ldb_collect_commits
 *		Answer the commits the commit writer has written; true if any.
 *		The large commit's chunks come back here too.
 */
bool
ldb_collect_commits(void)
{
	void	   *owner;
	bool		any = false;

	while (storage_next_written(&owner))
	{
		WcClient   *c = owner;

		if (ldb_large_commit_owns(owner))
		{
			ldb_large_commit_written();
			any = true;
			continue;
		}

		wc_client_answer_later(c, finish_written, NULL);
		any = true;
	}
	return any;
}

/*
 * ldb_large_commit_written
 *		The commit writer has written a chunk (ldb_collect_commits): its
 *		error, if any, fails the commit.
 */
void
ldb_large_commit_written(void)
{
	large.out--;
	large.written++;
	PG_TRY();
	{
		storage_finish_written();
		ldb_commit_large_written(large.cm, large.written, !large.failing);
	}
	PG_CATCH();
	{
		if (large.failing)
			FlushErrorState();	/* the first error is the one answered */
		else
			fail();
	}
	PG_END_TRY();
}

/*
 * step
 *		Fill the next chunk for up to max_us, and hand it to the commit
 *		writer when full; end the commit once every chunk is written.
 *		True if there was work to do.
 */
static bool
step(int max_us)
{
	WcCommit   *cm = large.cm;

	if (ldb_commit_large_rows_over(cm) && !ldb_commit_large_has_chunk(cm))
	{
		if (large.out > 0)
			return false;		/* the writer's eventfd wakes the loop */
		ldb_commit_large_end(cm);	/* on an error, fail() aborts it */
		large.cm = NULL;
		finish(NULL);
		return true;
	}
	if (large.out >= WC_LARGE_CHUNKS_OUT)
		return false;
	if (ldb_debug_large_commit_pause > 0 && GetCurrentTimestamp() < large.next_fill)
		return false;			/* the sweep's timeout wakes the loop */
	if (!ldb_commit_large_fill(cm, max_us))
	{
		report();
		return true;
	}
	report();
	if (ldb_commit_large_has_chunk(cm))
	{
		storage_submit(large.odb->db, ldb_commit_large_take(cm), false, &large);
		large.out++;
		large.next_fill = GetCurrentTimestamp() +
			(TimestampTz) ldb_debug_large_commit_pause * 1000;
	}
	return true;
}

/*
 * ldb_large_commit_step
 *		A slice of the large commit, if one runs; true if there was work.
 */
bool
ldb_large_commit_step(void)
{
	volatile bool worked = false;

	if (large.c == NULL)
		return false;
	MemoryContextSwitchTo(wc_worker_cxt);
	PG_TRY();
	{
		worked = step(WC_LARGE_SLICE_US);
	}
	PG_CATCH();
	{
		fail();
		worked = true;
	}
	PG_END_TRY();
	return worked;
}

/*
 * ldb_large_commit_complete
 *		The worker is stopping: write the whole commit now, and answer it.
 */
void
ldb_large_commit_complete(void)
{
	while (large.c != NULL)
	{
		if (!ldb_large_commit_step())
		{
			storage_writer_drain();
			(void) ldb_collect_commits();
		}
	}
}
