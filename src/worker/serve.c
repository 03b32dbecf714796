/*-------------------------------------------------------------------------
 *
 * serve.c
 *	  The storage worker's requests: one serve_<message> per request type,
 *	  dispatched by serve_request, as PostgreSQL's apply_dispatch does.
 *
 * A handler reads its request with wire.c's reader, acts, and writes its
 * answer (if the request has one: wc_msg_answered) to c->answer.  An error
 * is raised as usual, and wc_handle_request turns it into an ERROR answer,
 * or keeps it for the next answered request.  A COMMIT goes
 * to the commit writer thread (commitwriter.c) and is answered when it
 * comes back (wc_collect_commits), unless it is small enough and alone to
 * be written here (commit_writes).
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

static void
drop_scan(WcClient *c, WcClientScan *cs)
{
	c->scans = list_delete_ptr(c->scans, cs);
	cells_scan_close(cs->scan);
	MemoryContextDelete(cs->cxt);
}

static WcClientWrites *
client_writes(WcClient *c, uint32 db, bool create)
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
	WcClientWrites *w = client_writes(c, db, false);

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
 * finish_batch
 *		The answer to a scan's SCAN or NEXT once its batch is filled: the
 *		batch, or its error.  A scan that ends or fails is dropped.
 */
static void
finish_batch(WcClient *c, WcClientScan *cs)
{
	WcReadJob  *job = &cs->job;

	resetStringInfo(&c->answer);
	if (job->failed)
		wc_write_error(&c->answer, job->failure.sqlstate, job->failure.message,
					   job->failure.detail, job->failure.hint[0] ? job->failure.hint : NULL);
	else
	{
		const WcByteBuf *batch = cells_scan_batch(cs->scan);

		wc_heat_fold(cells_scan_db(cs->scan), cells_scan_heat(cs->scan));
		appendBinaryStringInfo(&c->answer, (const char *) batch->data, batch->len);
	}
	if (job->failed || job->done)
		drop_scan(c, cs);
}

/*
 * A scan whose small batch took this long here is slow (it passes over
 * many entries for each row it returns, or reads from disk): its next
 * batches go to the reader threads whatever their size.
 */
#define WC_SLOW_FILL_US		500

/*
 * fill_batch
 *		Fill a scan's next batch: on a reader thread, answered when it comes
 *		back (wc_collect_reads), or here if it is small or there are none.
 */
static void
fill_batch(WcClient *c, WcClientScan *cs)
{
	instr_time	start,
				took;

	cs->job.scan = cs->scan;
	cs->job.owner = c;
	if (wc_readers_running() && (cs->slow || !cells_scan_is_small(cs->scan)))
	{
		c->reading = cs;
		wc_readers_submit(&cs->job);
		return;
	}
	INSTR_TIME_SET_CURRENT(start);
	wc_read_job_run(&cs->job);
	INSTR_TIME_SET_CURRENT(took);
	INSTR_TIME_SUBTRACT(took, start);
	if (INSTR_TIME_GET_MICROSEC(took) > WC_SLOW_FILL_US)
		cs->slow = true;
	finish_batch(c, cs);
}

static void
serve_open(WcClient *c, WcReader *r)
{
	WcOpenRequest req;

	if (!wc_read_open(r, &req))
		wc_malformed("OPEN");
	wc_write_open_answer(&c->answer, wc_db_open(&req));
}

static void
serve_snapshot(WcClient *c, WcReader *r)
{
	uint32		db,
				id;
	WcXidSnapshot xs;
	WcOpenDb   *odb;
	WcClientSnap *cs;
	WcHidden	hidden;

	if (!wc_read_snapshot(r, &db, &id, &xs))
		wc_malformed("SNAPSHOT");
	odb = wc_db_lookup(db);
	/* first: it may read the commit log, and fail */
	wc_xacts_hidden(odb, &xs, false, &hidden);
	MemoryContextSwitchTo(c->cxt);
	cs = palloc(sizeof(WcClientSnap));
	cs->id = id;
	cs->odb = odb;
	wc_hidden_copy(&hidden, &cs->hidden, c->cxt);
	/*
	 * While a large commit is written, the state before it.  Either way,
	 * taken with the hidden commits in the same turn: no commit comes
	 * between them.
	 */
	cs->snap = wc_large_commit_snapshot(odb) ?
		storage_snapshot_share(wc_large_commit_snapshot(odb)) :
		storage_snapshot(odb->db);
	cs->shared = NULL;
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
	WcOpenDb   *odb;
	WcSnap	   *snap = NULL;
	WcHidden	hidden;
	WcClientScan *cs;
	MemoryContext cxt;
	ListCell   *lc;

	if (!wc_read_scan(r, &req))
		wc_malformed("SCAN");
	odb = wc_db_lookup(req.db);
	if (req.snapshot != 0)
	{
		foreach(lc, c->snaps)
		{
			WcClientSnap *s = lfirst(lc);

			if (s->id == req.snapshot && s->odb == odb)
			{
				snap = s->snap;
				hidden = s->hidden;
			}
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
	else
		wc_xacts_hidden(odb, NULL, false, &hidden);	/* the latest data */

	cxt = AllocSetContextCreate(c->cxt, "widecolumn_fdw scan", ALLOCSET_SMALL_SIZES);
	MemoryContextSwitchTo(cxt);
	cs = palloc0(sizeof(WcClientScan));
	cs->id = req.scan;
	cs->cxt = cxt;
	/*
	 * While a large commit is written, the state before it: held by the
	 * scan once it is open (nothing can let go of it in between).
	 */
	if (snap == NULL && wc_large_commit_snapshot(odb) != NULL)
	{
		snap = wc_large_commit_snapshot(odb);
		cs->scan = cells_scan_open(odb, snap, &hidden, &req);
		cells_scan_hold(cs->scan, storage_snapshot_share(snap));
	}
	else
		cs->scan = cells_scan_open(odb, snap, &hidden, &req);
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
		drop_scan(c, cs);
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
	w = client_writes(c, req.db, true);
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

/* Write a commit's batch on this thread, and free it. */
static void
write_here(WcDb *db, WcBatch *batch, bool sync)
{
	PG_TRY();
	{
		storage_write(db, batch, sync);
	}
	PG_CATCH();
	{
		storage_batch_free(batch);
		PG_RE_THROW();
	}
	PG_END_TRY();
	storage_batch_free(batch);
}

/* The backend whose commit came last, by its segment: see commit_writes. */
static dsm_handle last_committer = 0;

/*
 * commit_writes
 *		Apply the writes a backend sent for db; they are gone either way.
 *
 * True when the commit went to the commit writer: wc_collect_commits
 * answers it.  A large commit is written here, after the writer's queue.
 */
static bool
commit_writes(WcClient *c, WcOpenDb *odb, uint32 db, bool sync)
{
	WcClientWrites *w = client_writes(c, db, false);
	WcBatch    *batch = NULL;
	volatile bool large = false;
	bool		alone;

	PG_TRY();
	{
		/*
		 * After a failed write the handle still serves reads, but is
		 * reopened before it is written to again.
		 */
		if (w != NULL && storage_write_failed(odb->db))
		{
			wc_db_close_after_failure(odb);
			wc_db_reopen(odb);
		}
		large = w != NULL && cells_commit_is_large(odb, w);
		/* answered when written, while the worker serves (largecommit.c) */
		if (large)
			wc_large_commit_start(c, odb, db);
		else if (w != NULL)
			batch = cells_commit(odb, w, sync);
	}
	PG_CATCH();
	{
		/* Part of the commit is written: reopening rolls it back. */
		if (odb->db != NULL && odb->commit_partial)
			wc_db_close_after_failure(odb);
		wc_client_discard_writes(c, db);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (w != NULL)
		wc_stat_commit(large);
	if (large)
		return true;
	wc_client_discard_writes(c, db);
	if (batch == NULL)
		return false;

	/*
	 * With no earlier commit still with the commit writer (whose order it
	 * must keep), the worker writes a small commit itself when that costs
	 * less than handing it to the writer's thread and back, two wake-ups on
	 * every transaction: always without an fsync to wait for, and with one
	 * when the same session commits again and nobody else kept the worker
	 * busy in its last pass (one session loading row by row).  Commits of
	 * several sessions in turn go to the writer, which gathers them under
	 * one fsync, and reads of other sessions go on while it syncs.
	 */
	alone = c->handle == last_committer &&
		pg_atomic_read_u32(&wc_shared->busy_clients) <= 1;
	last_committer = c->handle;
	if (storage_writer_idle() && (!sync || alone))
	{
		write_here(odb->db, batch, sync);
		return false;
	}
	storage_submit(odb->db, batch, sync, c);
	c->commit_waiting = true;
	return true;
}

static void
serve_commit(WcClient *c, WcReader *r)
{
	uint32		db;
	bool		sync;
	uint64		writer;
	WcClientWrites *w;

	if (!wc_read_commit(r, &db, &sync, &writer))
		wc_malformed("COMMIT");
	if ((w = client_writes(c, db, false)) != NULL)
		w->writer = writer;
	if (!commit_writes(c, wc_db_lookup(db), db, sync))
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

	if (!wc_read_estimate(r, &req))
		wc_malformed("ESTIMATE");
	wc_write_estimate_answer(&c->answer, cells_estimate(wc_db_lookup(req.db), &req));
}

/*
 * The versions of a table (or of one of its families) a read could return:
 * counted in slices between other requests (reclaim.c).
 */
static void
serve_count(WcClient *c, WcReader *r)
{
	WcReclaimRequest req;
	WcOpenDb   *odb;

	if (!wc_read_count(r, &req))
		wc_malformed("COUNT");
	odb = wc_db_lookup(req.db);
	wc_reclaim_start(c, odb,
					 wc_sweep_begin(odb, req.table.data, req.table.len, true,
									req.family.len > 0 ? req.family.data : NULL,
									req.family.len, false),
					 NULL, 0, false);
}

/* widecolumn.compact(): a walk in slices, then LevelDB's compaction. */
static void
serve_compact(WcClient *c, WcReader *r)
{
	WcReclaimRequest req;
	WcOpenDb   *odb;

	if (!wc_read_compact(r, &req))
		wc_malformed("COMPACT");
	odb = wc_db_lookup(req.db);
	/* what the transactions before it left, settled first if they may be */
	wc_xacts_settle(odb);
	wc_reclaim_start(c, odb,
					 wc_sweep_begin(odb, req.table.len > 0 ? req.table.data : NULL,
									req.table.len, false, NULL, 0, false),
					 req.table.data, req.table.len, true);
}

/* widecolumn.sample_row_keys(): split points from LevelDB's index. */
static void
serve_sample(WcClient *c, WcReader *r)
{
	WcSampleRequest req;

	if (!wc_read_sample(r, &req))
		wc_malformed("SAMPLE");
	sizes_sample(wc_db_lookup(req.db), &req, &c->answer);
}

/* The planner's rows of key ranges: a bounded walk. */
static void
serve_rows(WcClient *c, WcReader *r)
{
	WcRowsRequest req;
	WcRowsAnswer a;

	if (!wc_read_rows(r, &req))
		wc_malformed("ROWS");
	sizes_rows(wc_db_lookup(req.db), &req, &a);
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
 * take_error
 *		In a PG_CATCH while serving c: the error, taken out of the error
 *		state into c's memory.
 *
 * Files the failed work opened through fd.c are closed here: a backend's
 * transaction end would close them, but the worker runs no transactions.
 */
static ErrorData *
take_error(WcClient *c)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(c->cxt);
	edata = CopyErrorData();
	FlushErrorState();
	AtEOXact_Files(false);
	return edata;
}

/* Make c's answer the ERROR answer of edata. */
static void
answer_error(WcClient *c, ErrorData *edata)
{
	resetStringInfo(&c->answer);
	wc_write_error(&c->answer, edata->sqlerrcode, edata->message,
				   edata->detail, edata->hint);
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
	if (wc_large_commit_holds(c, data, len))
		return;
	if (c->deferred != NULL && wc_msg_answered(type))
	{
		/* A commit must not go ahead without the writes that failed. */
		serve_refused_commit(c, data, len);
		answer_error(c, c->deferred);
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
		ErrorData  *edata = take_error(c);

		if (wc_msg_answered(type))
		{
			answer_error(c, edata);
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
	 * COUNT or COMPACT when its walk is over (wc_reclaim_step), a scan's
	 * batch when a reader thread has filled it (wc_collect_reads).
	 */
	if (wc_msg_answered(type) && !c->commit_waiting && c->reclaim == NULL &&
		c->reading == NULL)
		c->answer_pending = true;
}

/*
 * wc_serve_error
 *		In a PG_CATCH while working for c outside a request: the error is
 *		its answer.
 */
void
wc_serve_error(WcClient *c)
{
	ErrorData  *edata = take_error(c);

	answer_error(c, edata);
	FreeErrorData(edata);
}

/*
 * wc_collect_commits
 *		Answer the commits the commit writer has written; true if any.
 */
bool
wc_collect_commits(void)
{
	void	   *owner;
	bool		any = false;

	while (storage_next_written(&owner))
	{
		WcClient   *c = owner;

		if (wc_large_commit_owns(owner))
		{
			wc_large_commit_written();
			any = true;
			continue;
		}

		MemoryContextSwitchTo(wc_request_cxt);
		resetStringInfo(&c->answer);
		PG_TRY();
		{
			storage_finish_written();
			wc_write_ok(&c->answer);
		}
		PG_CATCH();
		{
			ErrorData  *edata = take_error(c);

			answer_error(c, edata);
			FreeErrorData(edata);
		}
		PG_END_TRY();
		MemoryContextSwitchTo(wc_worker_cxt);
		MemoryContextReset(wc_request_cxt);

		c->commit_waiting = false;
		if (c->gone)
			MemoryContextDelete(c->cxt);
		else
			c->answer_pending = true;
		any = true;
	}
	return any;
}

/*
 * wc_collect_reads
 *		Answer the scans whose batches the reader threads have filled;
 *		true if any.
 *
 * No ereport here: a job's error is already data, written as the answer.
 * (wc_db_close_after_failure calls this in the middle of a request.)
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
			finish_batch(c, c->reading);
			c->reading = NULL;
			c->answer_pending = true;
		}
		any = true;
	}
	return any;
}

/* Set up this file's memory, in the worker's. */
void
wc_serve_init(void)
{
	wc_request_cxt = AllocSetContextCreate(wc_worker_cxt, "widecolumn_fdw request",
										   ALLOCSET_DEFAULT_SIZES);
}

/*
 * wc_client_release_all
 *		Let go of every scan and snapshot a backend holds (it has gone).
 */
void
wc_client_release_all(WcClient *c)
{
	ListCell   *lc;

	wc_reclaim_forget(c);
	foreach(lc, c->scans)
		cells_scan_close(((WcClientScan *) lfirst(lc))->scan);
	foreach(lc, c->snaps)
		wc_snapshot_let_go(lfirst(lc));
}
