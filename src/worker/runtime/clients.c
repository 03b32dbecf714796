/*-------------------------------------------------------------------------
 *
 * clients.c
 *	  What an attached backend holds in the worker (its writes, scans and
 *	  snapshots), the answers that come after its request was served, and
 *	  the COMMITs held until the engine may take them.
 *
 * These are here, below the engines, so that an engine can answer a
 * backend later (a commit written, a COUNT walked), and take a database's
 * scans and snapshots from every backend before it closes the database
 * after a failed write, without calling up into the dispatch (serve.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/lwlock.h"

#include "storage/fd.h"
#include "utils/memutils.h"

#include "common/shmem.h"
#include "worker/worker.h"

/* COMMITs held while an engine writes a commit they must follow */
typedef struct WcHeldCommit
{
	WcClient   *c;
	StringInfoData request;
} WcHeldCommit;

static List *held = NIL;		/* WcHeldCommit, in TopMemoryContext */

/* The writes c sent for db, made if create and there are none. */
WcClientWrites *
wc_client_writes(WcClient *c, uint32 db, bool create)
{
	ListCell   *lc;
	WcClientWrites *w;

	foreach(lc, c->writes)
	{
		w = lfirst(lc);
		if (w->db == db)
			return w;
	}
	if (!create)
		return NULL;
	w = palloc0(sizeof(WcClientWrites));
	w->db = db;
	initStringInfo(&w->lowest);
	initStringInfo(&w->highest);
	initStringInfo(&w->exact_lowest);
	initStringInfo(&w->exact_highest);
	c->writes = lappend(c->writes, w);
	return w;
}

/* Forget the writes c sent for db (its commit or abort is over). */
void
wc_client_discard_writes(WcClient *c, uint32 db)
{
	WcClientWrites *w = wc_client_writes(c, db, false);

	if (w == NULL)
		return;
	list_free_deep(w->msgs);
	pfree(w->lowest.data);
	pfree(w->highest.data);
	pfree(w->exact_lowest.data);
	pfree(w->exact_highest.data);
	c->writes = list_delete_ptr(c->writes, w);
	pfree(w);
}

/* Close one of c's scans, and free it. */
void
wc_client_drop_scan(WcClient *c, WcClientScan *cs)
{
	c->scans = list_delete_ptr(c->scans, cs);
	cs->db->engine->scan_close(cs->scan);
	MemoryContextDelete(cs->cxt);
}

/*
 * wc_client_finish_batch
 *		The answer to a scan's SCAN or NEXT once its batch is filled: the
 *		batch, or its error.  A scan that ends or fails is dropped.
 */
void
wc_client_finish_batch(WcClient *c, WcClientScan *cs)
{
	WcReadJob  *job = &cs->job;

	resetStringInfo(&c->answer);
	if (job->failed)
		wc_write_error(&c->answer, job->failure.sqlstate, job->failure.message,
					   job->failure.detail, job->failure.hint[0] ? job->failure.hint : NULL);
	else
	{
		const WcByteBuf *batch = cs->db->engine->scan_batch(cs->scan);

		appendBinaryStringInfo(&c->answer, (const char *) batch->data, batch->len);
	}
	if (job->failed || job->done)
		wc_client_drop_scan(c, cs);
}

/* Has c's backend given up on the answers of its scan (shmem.h's WcCancels)? */
bool
wc_client_unwanted(WcClient *c, uint32 scan)
{
	return wc_cancels_has(c->cancels, pg_atomic_read_u32(&c->cancels->count), scan);
}

/*
 * wc_client_cancel_unwanted
 *		Cancel the filling of c's batch on a thread, or the call its
 *		request is to be answered after, if its backend has given up on
 *		the answer since the last look.  Engines whose fills are short have
 *		no scan_cancel, and a call that must run to its end (a COMMIT's)
 *		is not one an engine's call_cancel cuts short.
 */
void
wc_client_cancel_unwanted(WcClient *c)
{
	WcClientScan *cs = c->reading;

	if (cs != NULL)
	{
		uint32		n = pg_atomic_read_u32(&c->cancels->count);

		if (n == c->cancels_seen)
			return;
		c->cancels_seen = n;
		if (wc_cancels_has(c->cancels, n, cs->id))
			wc_client_cancel_under_way(c);
	}
	else if (c->answer_later)
	{
		uint32		call = pg_atomic_read_u32(&c->cancels->call);

		if (call != c->calls || call == c->call_cancelled)
			return;
		c->call_cancelled = call;
		wc_client_cancel_under_way(c);
	}
}

/*
 * wc_client_cancel_under_way
 *		Cut short what is under way for c, whose backend no longer wants
 *		it (or has gone): its batch being filled, or the call it is to be
 *		answered after, where the engine can.
 */
void
wc_client_cancel_under_way(WcClient *c)
{
	WcClientScan *cs = c->reading;

	if (cs != NULL)
	{
		if (cs->db->engine->scan_cancel != NULL)
			cs->db->engine->scan_cancel(cs->scan);
	}
	else if (c->answer_later)
	{
		for (int e = 0; e < wc_nengines; e++)
			if (wc_engines[e]->call_cancel != NULL)
				wc_engines[e]->call_cancel(c);
	}
}

/*
 * wc_collect_reads
 *		Answer the scans whose batches the reader threads have filled;
 *		true if any.
 *
 * No ereport here: a job's error is already data, written as the answer.
 * (wc_clients_lose_db calls this in the middle of a request.)
 */
bool
wc_collect_reads(void)
{
	WcReadJob  *job;
	bool		any = false;

	while ((job = wc_readers_next_done()) != NULL)
	{
		WcClient   *c = job->owner;

		Assert(c->reading != NULL && &c->reading->job == job);
		if (c->gone)
		{
			/* its scans and snapshots were kept for the thread */
			c->reading = NULL;
			wc_client_release_all(c);
			MemoryContextDelete(c->cxt);
		}
		else
		{
			wc_client_finish_batch(c, c->reading);
			c->reading = NULL;
			c->answer_pending = true;
		}
		any = true;
	}
	return any;
}

/*
 * wc_client_release_all
 *		Let go of every scan and snapshot a backend holds (it has gone).
 */
void
wc_client_release_all(WcClient *c)
{
	ListCell   *lc;

	/* its COUNT or COMPACT, with the engine that walks it */
	if (c->reclaim != NULL)
		c->reclaim_engine->client_gone(c);
	foreach(lc, c->scans)
	{
		WcClientScan *cs = lfirst(lc);

		cs->db->engine->scan_close(cs->scan);
	}
	foreach(lc, c->snaps)
		wc_snapshot_let_go(lfirst(lc));
}

/*
 * wc_client_take_error
 *		In a PG_CATCH while serving c: the error, taken out of the error
 *		state into c's memory.
 *
 * Files the failed work opened through fd.c are closed here, and the
 * locks an error left held (the commit log's, when reading it fails) are
 * let go: a backend's transaction end would do both, but the worker runs
 * no transactions and holds no lock between requests.
 */
ErrorData *
wc_client_take_error(WcClient *c)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(c->cxt);
	edata = CopyErrorData();
	FlushErrorState();
	AtEOXact_Files(false);
	LWLockReleaseAll();
	return edata;
}

/* Make c's answer the ERROR answer of edata. */
void
wc_client_answer_error(WcClient *c, ErrorData *edata)
{
	resetStringInfo(&c->answer);
	wc_write_error(&c->answer, edata->sqlerrcode, edata->message,
				   edata->detail, edata->hint);
}

/*
 * wc_serve_error
 *		In a PG_CATCH while working for c outside a request: the error is
 *		its answer.
 */
void
wc_serve_error(WcClient *c)
{
	ErrorData  *edata = wc_client_take_error(c);

	wc_client_answer_error(c, edata);
	FreeErrorData(edata);
}

/*
 * wc_client_writes_walk
 *		Each row of w's WRITE payloads, in the order they came, to fn, with
 *		rows at the row's cells (fn reads them: wc_next_row_cell).  The
 *		rows were checked as they came (serve.c, wc_read_write).
 */
void
wc_client_writes_walk(const WcClientWrites *w,
					  void (*fn) (void *arg, WcReader *rows, const WcRowWrite *row),
					  void *arg)
{
	ListCell   *lc;

	foreach(lc, w->msgs)
	{
		StringInfo	msg = lfirst(lc);
		WcReader	rows;
		WcRowWrite	row;

		wc_reader_init(&rows, msg->data, msg->len);
		while (wc_next_row(&rows, &row))
			fn(arg, &rows, &row);
		if (rows.bad)
			elog(ERROR, "rows of a WRITE request changed after they were checked");
	}
}

/*
 * wc_client_answer_later
 *		Answer c's request, served earlier and finished since (by an
 *		engine's thread: a commit written, a call to a remote store made):
 *		what answer writes, or the error it raises.
 */
void
wc_client_answer_later(WcClient *c, void (*answer) (void *arg, StringInfo out), void *arg)
{
	MemoryContextSwitchTo(wc_request_cxt);
	resetStringInfo(&c->answer);
	PG_TRY();
	{
		answer(arg, &c->answer);
	}
	PG_CATCH();
	{
		wc_serve_error(c);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(wc_worker_cxt);
	MemoryContextReset(wc_request_cxt);
	wc_client_answered_later(c);
}

/*
 * wc_client_answered_later
 *		c's commit, written after its request was served, is answered (the
 *		caller wrote c->answer), or c has gone meanwhile and is freed.
 */
void
wc_client_answered_later(WcClient *c)
{
	c->answer_later = false;
	if (c->gone)
		MemoryContextDelete(c->cxt);
	else
		c->answer_pending = true;
}

/*
 * wc_client_hold_commit
 *		Keep c's COMMIT to serve once no engine holds commits back
 *		(wc_client_next_held).
 */
void
wc_client_hold_commit(WcClient *c, const uint8 *data, size_t len)
{
	WcHeldCommit *h;
	MemoryContext old;

	old = MemoryContextSwitchTo(c->cxt);
	h = palloc(sizeof(WcHeldCommit));
	h->c = c;
	initStringInfo(&h->request);
	appendBinaryStringInfo(&h->request, (const char *) data, len);
	MemoryContextSwitchTo(TopMemoryContext);
	held = lappend(held, h);
	MemoryContextSwitchTo(old);
	/* it takes no further request meanwhile, as a commit being written */
	c->answer_later = true;
}

/*
 * wc_client_next_held
 *		The first held COMMIT, taken off the list (its client's, whose
 *		memory holds *request until the caller frees it); NULL: none.
 *		Clients gone meanwhile are freed on the way.
 */
WcClient *
wc_client_next_held(StringInfo request)
{
	while (held != NIL)
	{
		WcHeldCommit *h = linitial(held);
		WcClient   *c = h->c;

		held = list_delete_first(held);
		c->answer_later = false;
		if (c->gone)
		{
			MemoryContextDelete(c->cxt);
			continue;
		}
		*request = h->request;
		pfree(h);
		return c;
	}
	return NULL;
}

static void
note_lost(WcClient *c, uint32 id, bool is_scan, WcDatabase *db)
{
	WcLost	   *l = MemoryContextAlloc(c->cxt, sizeof(WcLost));
	MemoryContext old = MemoryContextSwitchTo(c->cxt);

	l->id = id;
	l->is_scan = is_scan;
	l->db = db;
	c->lost = lappend(c->lost, l);
	MemoryContextSwitchTo(old);
}

/*
 * wc_check_lost
 *		If wc_clients_lose_db took the backend's scan or snapshot id, say so
 *		(an error); forget it if the backend is letting go of it.
 */
void
wc_check_lost(WcClient *c, uint32 id, bool is_scan, bool letting_go)
{
	ListCell   *lc;

	foreach(lc, c->lost)
	{
		WcLost	   *l = lfirst(lc);

		if (l->id != id || l->is_scan != is_scan)
			continue;
		if (letting_go)
		{
			c->lost = foreach_delete_current(c->lost, lc);
			pfree(l);
			return;
		}
		ereport(ERROR,
				(errcode(ERRCODE_SNAPSHOT_TOO_OLD),
		/* translator: the first %s is an engine's name, "LevelDB" */
				 errmsg("could not go on reading %s database \"%s\": its snapshot is gone",
						l->db->engine->title, l->db->name),
				 errdetail("The storage worker reopened the database after a write to it failed, and the snapshots open on it went with it."),
				 errhint("Retry the transaction.")));
	}
}

/*
 * wc_clients_lose_db
 *		Take every backend's scans and snapshots on db (its engine is about
 *		to close it after a failed write); their next use is an error.
 */
void
wc_clients_lose_db(WcDatabase *db)
{
	/* no reader thread may be in one of the scans closed below */
	wc_readers_drain();
	(void) wc_collect_reads();

	for (int i = 0; i < wc_shared->nslots; i++)
	{
		WcClient   *c = wc_clients[i];
		ListCell   *lc;

		if (c == NULL)
			continue;
		foreach(lc, c->scans)
		{
			WcClientScan *cs = lfirst(lc);

			if (cs->db == db)
			{
				note_lost(c, cs->id, true, db);
				db->engine->scan_close(cs->scan);
				c->scans = foreach_delete_current(c->scans, lc);
				MemoryContextDelete(cs->cxt);
			}
		}
		foreach(lc, c->snaps)
		{
			WcClientSnap *cs = lfirst(lc);

			if (cs->db == db)
			{
				note_lost(c, cs->id, false, db);
				wc_snapshot_let_go(cs);
				c->snaps = foreach_delete_current(c->snaps, lc);
				pfree(cs);
			}
		}
	}
}
