/*-------------------------------------------------------------------------
 *
 * serve.c
 *	  The storage worker's requests: one serve_<message> per request type,
 *	  dispatched by serve_request, as PostgreSQL's apply_dispatch does.
 *
 * A handler reads its request with wire.c's reader, acts, and writes its
 * answer (if the request has one: wc_msg_answered) to c->answer.  An error
 * is raised as usual, and wc_handle_request turns it into an ERROR answer,
 * or keeps it for the next answered request.
 *
 * Handlers are engine-neutral: what a request does to a database is its
 * engine's (engine.h), reached through the database the request names.
 * What the backend holds (writes, scans, snapshots) is kept here and in
 * runtime/clients.c.  An engine may write a COMMIT on a thread of its own
 * and answer it later; while it writes one in slices (a large commit), the
 * other COMMITs are held and served when it is over (wc_serve_held).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "portability/instr_time.h"
#include "storage/fd.h"
#include "utils/memutils.h"

#include "common/shmem.h"
#include "worker/worker.h"

static WcClientScan *
lookup_scan(WcClient *c, uint32 id)
{
	ListCell   *lc;

	foreach(lc, c->scans)
	{
		WcClientScan *cs = lfirst(lc);

		if (cs->id == id)
			return cs;
	}
	return NULL;
}

/* Make bound b if it is empty or b is on the side (-1 below, 1 above) of it. */
static void
widen(StringInfo bound, WcBytes b, int side)
{
	if (bound->len == 0 ||
		wc_compare_bytes(b.data, b.len, (uint8 *) bound->data, bound->len) * side > 0)
	{
		resetStringInfo(bound);
		appendBinaryStringInfo(bound, (const char *) b.data, b.len);
	}
}

/*
 * A scan whose small batch took this long here is slow (it passes over
 * many entries for each row it returns, or reads from disk): its next
 * batches go to the reader threads whatever their size.
 */
#define WC_SLOW_FILL_US		500

/*
 * fill_batch
 *		Fill a scan's next batch: on a reader thread (or a call thread, if
 *		it waits on a remote store), answered when it comes back
 *		(wc_collect_reads), or here if it is small or there are none.
 */
static void
fill_batch(WcClient *c, WcClientScan *cs)
{
	instr_time	start,
				took;

	if (wc_client_unwanted(c, cs->id))
	{
		/* its backend gave up on it: drop it, and answer as a cancel */
		resetStringInfo(&c->answer);
		wc_write_error(&c->answer, ERRCODE_QUERY_CANCELED,
					   "the scan's batch is no longer wanted", NULL, NULL);
		wc_client_drop_scan(c, cs);
		return;
	}
	cs->job.engine = cs->db->engine;
	cs->job.scan = cs->scan;
	cs->job.owner = c;
	if (cs->db->engine->fills_wait ||
		(wc_readers_running() && (cs->slow || !cs->db->engine->scan_is_small(cs->scan))))
	{
		c->reading = cs;
		if (wc_readers_submit(&cs->job, cs->db->engine->fills_wait))
			return;
		c->reading = NULL;
	}
	INSTR_TIME_SET_CURRENT(start);
	wc_read_job_run(&cs->job);
	INSTR_TIME_SET_CURRENT(took);
	INSTR_TIME_SUBTRACT(took, start);
	if (INSTR_TIME_GET_MICROSEC(took) > WC_SLOW_FILL_US)
		cs->slow = true;
	wc_client_finish_batch(c, cs);
}

/* Does an engine write a commit that the other COMMITs must wait for? */
static bool
commits_held(void)
{
	for (int e = 0; e < wc_nengines; e++)
		if (wc_engines[e]->holds_commits())
			return true;
	return false;
}

static void
serve_open(WcClient *c, WcReader *r)
{
	WcOpenRequest req;

	if (!wc_read_open(r, &req))
		wc_malformed("OPEN");
	for (int e = 0; e < wc_nengines; e++)
		if (strlen(wc_engines[e]->name) == req.engine.len &&
			memcmp(wc_engines[e]->name, req.engine.data, req.engine.len) == 0)
		{
			wc_write_open_answer(&c->answer, wc_engines[e]->open(&req)->id);
			return;
		}
	ereport(ERROR,
			(errcode(ERRCODE_PROTOCOL_VIOLATION),
			 errmsg("request from a backend names unknown storage engine \"%.*s\"",
					(int) req.engine.len, (const char *) req.engine.data)));
}

static void
serve_snapshot(WcClient *c, WcReader *r)
{
	uint32		db,
				id;
	WcXidSnapshot xs;
	WcDatabase *d;
	WcEngineSnap *snap;
	WcClientSnap *cs;

	if (!wc_read_snapshot(r, &db, &id, &xs))
		wc_malformed("SNAPSHOT");
	d = wc_db_lookup(db);
	snap = d->engine->snapshot(d, &xs);
	cs = MemoryContextAlloc(c->cxt, sizeof(WcClientSnap));
	cs->id = id;
	cs->db = d;
	cs->snap = snap;
	cs->shared = NULL;
	MemoryContextSwitchTo(c->cxt);
	c->snaps = lappend(c->snaps, cs);
	MemoryContextSwitchTo(wc_request_cxt);
}

static void
serve_release(WcClient *c, WcReader *r)
{
	uint32		id;
	ListCell   *lc;

	if (!wc_read_release(r, &id))
		wc_malformed("RELEASE");
	foreach(lc, c->snaps)
	{
		WcClientSnap *cs = lfirst(lc);

		if (cs->id == id)
		{
			wc_snapshot_let_go(cs);
			c->snaps = foreach_delete_current(c->snaps, lc);
			pfree(cs);
			break;
		}
	}
	wc_check_lost(c, id, false, true);
}

static void
serve_scan(WcClient *c, WcReader *r)
{
	WcScanRequest req;
	WcDatabase *db;
	WcEngineSnap *snap = NULL;
	WcClientScan *cs;
	MemoryContext cxt;
	ListCell   *lc;

	if (!wc_read_scan(r, &req))
		wc_malformed("SCAN");
	db = wc_db_lookup(req.db);
	if (req.snapshot != 0)
	{
		foreach(lc, c->snaps)
		{
			WcClientSnap *s = lfirst(lc);

			if (s->id == req.snapshot && s->db == db)
				snap = s->snap;
		}
		if (snap == NULL)
		{
			wc_check_lost(c, req.snapshot, false, false);
			ereport(ERROR,
					(errcode(ERRCODE_PROTOCOL_VIOLATION),
					 errmsg("request from a backend names unknown snapshot %u",
							req.snapshot)));
		}
	}

	cxt = AllocSetContextCreate(c->cxt, "widecolumn_fdw scan", ALLOCSET_SMALL_SIZES);
	MemoryContextSwitchTo(cxt);
	cs = palloc0(sizeof(WcClientScan));
	cs->id = req.scan;
	cs->cxt = cxt;
	cs->db = db;
	cs->scan = db->engine->scan_open(db, snap, &req);
	MemoryContextSwitchTo(c->cxt);
	c->scans = lappend(c->scans, cs);
	MemoryContextSwitchTo(wc_request_cxt);
	fill_batch(c, cs);
}

static void
serve_next(WcClient *c, WcReader *r)
{
	uint32		id;
	WcClientScan *cs;

	if (!wc_read_next(r, &id))
		wc_malformed("NEXT");
	cs = lookup_scan(c, id);

	/*
	 * Backends ask for batches ahead, so one may ask after the scan's last
	 * batch: the answer is an empty last batch.
	 */
	if (cs == NULL)
	{
		wc_check_lost(c, id, true, false);
		wc_write_batch_over(&c->answer);
	}
	else
		fill_batch(c, cs);
}

static void
serve_close(WcClient *c, WcReader *r)
{
	uint32		id;
	WcClientScan *cs;

	if (!wc_read_close(r, &id))
		wc_malformed("CLOSE");
	cs = lookup_scan(c, id);
	if (cs != NULL)
		wc_client_drop_scan(c, cs);
	else
		wc_check_lost(c, id, true, true);
}

/* Keep a WRITE's rows until the COMMIT (or ABORT) of its database. */
static void
serve_write(WcClient *c, WcReader *r)
{
	WcWriteRequest req;
	WcClientWrites *w;
	StringInfo	rows;

	if (!wc_read_write(r, &req))
		wc_malformed("WRITE");
	(void) wc_db_lookup(req.db);
	MemoryContextSwitchTo(c->cxt);
	w = wc_client_writes(c, req.db, true);
	/* row prefixes are never empty: an empty bound is unset */
	if (req.lowest.data != NULL)
	{
		widen(&w->lowest, req.lowest, -1);
		widen(&w->highest, req.highest, 1);
	}
	if (req.exact_lowest.data != NULL)
	{
		widen(&w->exact_lowest, req.exact_lowest, -1);
		widen(&w->exact_highest, req.exact_highest, 1);
	}
	rows = makeStringInfo();
	appendBinaryStringInfo(rows, (const char *) req.rows.data, req.rows.len);
	w->msgs = lappend(w->msgs, rows);
	w->exact |= req.exact;
	MemoryContextSwitchTo(wc_request_cxt);
}

/*
 * Was the last request served a COMMIT to be synced?  Its session's next
 * request comes after PostgreSQL's own WAL flush of the commit record at
 * the least, longer than polling lasts: with no other session linked, the
 * worker does not poll (main.c).
 */
bool		wc_served_synced_commit = false;

/*
 * A COMMIT: its engine writes it, here or on a thread of its own (then it
 * is answered when written); the writes are gone either way.
 */
static void
serve_commit(WcClient *c, WcReader *r)
{
	uint32		db;
	bool		sync;
	uint64		writer;
	WcClientWrites *w;
	WcDatabase *d;
	volatile WcCommitOutcome outcome = WC_COMMIT_WRITTEN;

	if (!wc_read_commit(r, &db, &sync, &writer))
		wc_malformed("COMMIT");
	d = wc_db_lookup(db);
	w = wc_client_writes(c, db, false);
	if (w == NULL)
	{
		wc_write_ok(&c->answer);
		return;
	}
	w->writer = writer;
	wc_served_synced_commit = sync;
	PG_TRY();
	{
		outcome = d->engine->commit(c, d, w, sync);
	}
	PG_CATCH();
	{
		wc_client_discard_writes(c, db);
		PG_RE_THROW();
	}
	PG_END_TRY();
	wc_stat_commit(outcome == WC_COMMIT_LARGE);
	/* a large commit reads its writes as it goes: the engine frees them */
	if (outcome != WC_COMMIT_LARGE)
		wc_client_discard_writes(c, db);
	if (outcome == WC_COMMIT_WRITTEN)
		wc_write_ok(&c->answer);
}

static void
serve_abort(WcClient *c, WcReader *r)
{
	uint32		db;

	if (!wc_read_abort(r, &db))
		wc_malformed("ABORT");
	wc_client_discard_writes(c, db);
}

static void
serve_estimate(WcClient *c, WcReader *r)
{
	WcEstimateRequest req;
	WcDatabase *db;
	uint64		bytes;

	if (!wc_read_estimate(r, &req))
		wc_malformed("ESTIMATE");
	db = wc_db_lookup(req.db);
	if (db->engine->estimate(c, db, &req, &bytes))
		wc_write_estimate_answer(&c->answer, bytes);
}

/*
 * The versions of a table (or of one of its families) a read could return:
 * counted in slices between other requests, and answered then.
 */
static void
serve_count(WcClient *c, WcReader *r)
{
	WcReclaimRequest req;
	WcDatabase *db;

	if (!wc_read_count(r, &req))
		wc_malformed("COUNT");
	db = wc_db_lookup(req.db);
	db->engine->count(c, db, &req);
}

/* widecolumn.compact(): what no read can return, removed; answered then. */
static void
serve_compact(WcClient *c, WcReader *r)
{
	WcReclaimRequest req;
	WcDatabase *db;

	if (!wc_read_compact(r, &req))
		wc_malformed("COMPACT");
	db = wc_db_lookup(req.db);
	db->engine->compact(c, db, &req);
}

/* widecolumn.sample_row_keys(): split points. */
static void
serve_sample(WcClient *c, WcReader *r)
{
	WcSampleRequest req;
	WcDatabase *db;

	if (!wc_read_sample(r, &req))
		wc_malformed("SAMPLE");
	db = wc_db_lookup(req.db);
	(void) db->engine->sample(c, db, &req, &c->answer);
}

/* The planner's rows of key ranges: a bounded walk. */
static void
serve_rows(WcClient *c, WcReader *r)
{
	WcRowsRequest req;
	WcRowsAnswer a;
	WcDatabase *db;

	if (!wc_read_rows(r, &req))
		wc_malformed("ROWS");
	db = wc_db_lookup(req.db);
	if (db->engine->rows(c, db, &req, &a))
		wc_write_rows_answer(&c->answer, &a);
}

/*
 * serve_request
 *		Carry out one request; its answer, if it has one, goes to c->answer.
 */
static void
serve_request(WcClient *c, const uint8 *data, size_t len)
{
	WcReader	r;

	wc_reader_init(&r, data, len);
	wc_served_synced_commit = false;
	switch ((WcMsgType) wc_read_type(&r))
	{
		case WC_REQ_OPEN:
			serve_open(c, &r);
			break;
		case WC_REQ_SNAPSHOT:
			serve_snapshot(c, &r);
			break;
		case WC_REQ_RELEASE:
			serve_release(c, &r);
			break;
		case WC_REQ_SCAN:
			serve_scan(c, &r);
			break;
		case WC_REQ_NEXT:
			serve_next(c, &r);
			break;
		case WC_REQ_CLOSE:
			serve_close(c, &r);
			break;
		case WC_REQ_WRITE:
			serve_write(c, &r);
			break;
		case WC_REQ_COMMIT:
			serve_commit(c, &r);
			break;
		case WC_REQ_ABORT:
			serve_abort(c, &r);
			break;
		case WC_REQ_ESTIMATE:
			serve_estimate(c, &r);
			break;
		case WC_REQ_COUNT:
			serve_count(c, &r);
			break;
		case WC_REQ_COMPACT:
			serve_compact(c, &r);
			break;
		case WC_REQ_SAMPLE:
			serve_sample(c, &r);
			break;
		case WC_REQ_ROWS:
			serve_rows(c, &r);
			break;
		case WC_REQ_SHARE:
			wc_serve_share(c, &r);
			break;
		case WC_REQ_ATTACH:
			wc_serve_attach(c, &r);
			break;
		case WC_REQ_HEAT:
			wc_serve_heat(c, &r);
			break;
		case WC_REQ_STATS:
			wc_serve_stats(c, &r);
			break;
		case WC_REQ_STAT_WORKER:
			wc_serve_stat_worker(c, &r);
			break;
		case WC_REQ_STAT_DATABASES:
			wc_serve_stat_databases(c, &r);
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_PROTOCOL_VIOLATION),
					 errmsg("request of unknown type %u from a backend",
							(unsigned) wc_read_type(&r))));
	}
}

/*
 * serve_refused_commit
 *		A COMMIT answered with an earlier request's error: its writes go.
 */
static void
serve_refused_commit(WcClient *c, const uint8 *data, size_t len)
{
	WcReader	r;
	uint32		db;
	bool		sync;
	uint64		writer;

	wc_reader_init(&r, data, len);
	if (wc_read_type(&r) == WC_REQ_COMMIT && wc_read_commit(&r, &db, &sync, &writer))
		wc_client_discard_writes(c, db);
}

/*
 * wc_handle_request
 *		Serve one request, turning an error into an answer.
 *
 * An error in a request that gets no answer is kept and given as the answer
 * to the next request that does, so the backend still hears of it.
 */
void
wc_handle_request(WcClient *c, const uint8 *data, size_t len)
{
	uint8		type = len > 0 ? data[0] : 0;

	resetStringInfo(&c->answer);
	if (type == WC_REQ_COMMIT && c->writes != NIL && commits_held())
	{
		wc_client_hold_commit(c, data, len);
		return;
	}
	if (c->deferred != NULL && wc_msg_answered(type))
	{
		/* A commit must not go ahead without the writes that failed. */
		serve_refused_commit(c, data, len);
		wc_client_answer_error(c, c->deferred);
		c->deferred = NULL;
		c->answer_pending = true;
		return;
	}

	MemoryContextSwitchTo(wc_request_cxt);
	PG_TRY();
	{
		serve_request(c, data, len);
	}
	PG_CATCH();
	{
		ErrorData  *edata = wc_client_take_error(c);

		if (wc_msg_answered(type))
		{
			wc_client_answer_error(c, edata);
			FreeErrorData(edata);
		}
		else if (c->deferred == NULL)
			c->deferred = edata;
		else
			FreeErrorData(edata);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(wc_worker_cxt);
	MemoryContextReset(wc_request_cxt);

	/*
	 * A commit with the commit writer is answered when it is written, a
	 * COUNT or COMPACT when its walk is over (ldb_reclaim_step), a scan's
	 * batch when a reader thread has filled it (wc_collect_reads).
	 */
	if (wc_msg_answered(type) && !c->answer_later && c->reclaim == NULL &&
		c->reading == NULL)
		c->answer_pending = true;
}

/* Set up this file's memory, in the worker's. */
void
wc_serve_init(void)
{
	wc_request_cxt = AllocSetContextCreate(wc_worker_cxt, "widecolumn_fdw request",
										   ALLOCSET_DEFAULT_SIZES);
}

/*
 * wc_serve_held
 *		Serve the COMMITs held while an engine wrote a commit they follow,
 *		until one of them holds the rest in turn; true if it served any.
 */
bool
wc_serve_held(void)
{
	StringInfoData request;
	WcClient   *c;
	bool		any = false;

	while (!commits_held() &&
		   (c = wc_client_next_held(&request)) != NULL)
	{
		wc_handle_request(c, (const uint8 *) request.data, request.len);
		pfree(request.data);
		any = true;
	}
	return any;
}
