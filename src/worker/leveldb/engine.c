/*-------------------------------------------------------------------------
 *
 * engine.c
 *	  The LevelDB engine's table of functions (engine.h): what each request
 *	  does to a LevelDB database, in terms of this folder's parts.
 *
 * The Bigtable model lives here on an ordered store: a scan reads rows of
 * cell versions (rowscan.c), a commit writes them with the clock's
 * timestamp (rowcommit.c; largecommit.c for one of more than 4 MiB), the
 * table of families gives policies and drops (tablemeta.c, rowdrops.c),
 * walks reclaim what no read can return (sweep.c, reclaim.c), and
 * PostgreSQL's snapshots decide which commits a read sees (xacts.c).
 * LevelDB itself is behind storage.c and its commit writer thread
 * (commitwriter.c); nothing outside this folder calls either.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xloginsert.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "common/shmem.h"
#include "worker/leveldb/leveldb.h"

/* ldb_reclaim_step's last answer: 2 while a COMPACT waits for LevelDB */
static int	reclaiming = 0;

static void
define_settings(void)
{
	DefineCustomIntVariable("widecolumn_fdw.debug_crash_after_commit_batches",
							"Kills the storage worker after this many batches of a multi-batch commit (for tests).",
							NULL,
							&ldb_debug_crash_after_commit_batches,
							0, 0, INT_MAX,
							PGC_SIGHUP,
							GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("widecolumn_fdw.wal_commits",
							 "Makes a small foreign commit durable by WAL, with one fsync, as a native write.",
							 "The storage worker logs each small commit's LevelDB batch in WAL, syncs LevelDB a few times a second, and keeps the WAL it may need to redo with the replication slot widecolumn_fdw. Off: each commit is synced in LevelDB before it is answered, and the worker drops the slot (needed before wal_level can be lowered to minimal).",
							 &ldb_wal_commits,
							 true,
							 PGC_SIGHUP,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("widecolumn_fdw.debug_lose_logged_writes",
							 "Makes the storage worker log small commits in WAL and not write them to LevelDB, as if an operating-system crash had lost them (for tests).",
							 NULL,
							 &ldb_debug_lose_logged_writes,
							 false,
							 PGC_SIGHUP,
							 GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("widecolumn_fdw.debug_defer_logged_syncs",
							 "Makes the storage worker never sync in LevelDB the small commits it logs in WAL (for tests).",
							 NULL,
							 &ldb_debug_defer_logged_syncs,
							 false,
							 PGC_SIGHUP,
							 GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("widecolumn_fdw.debug_age_recent_xmin",
							 "Starts the storage worker as if 2^31 transactions had begun since its start (for tests).",
							 NULL,
							 &ldb_debug_age_recent_xmin,
							 false,
							 PGC_SIGHUP,
							 GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("widecolumn_fdw.sweep_naptime",
							"Sets the time between two passes of the storage worker's background sweep over a database.",
							"The sweep deletes what no read can return any more, when the worker has nothing else to do; 0 turns it off.",
							&ldb_sweep_naptime,
							10, 0, 86400,
							PGC_SIGHUP,
							GUC_UNIT_S,
							NULL, NULL, NULL);

	DefineCustomIntVariable("widecolumn_fdw.debug_crash_after_sweep_batches",
							"Kills the storage worker after this many batches of deletes of a sweep or compaction (for tests).",
							NULL,
							&ldb_debug_crash_after_sweep_batches,
							0, 0, INT_MAX,
							PGC_SIGHUP,
							GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	DefineCustomIntVariable("widecolumn_fdw.debug_large_commit_pause",
							"Makes the storage worker wait this long between two chunks of a large commit (for tests).",
							NULL,
							&ldb_debug_large_commit_pause,
							0, 0, INT_MAX,
							PGC_SIGHUP,
							GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE | GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("widecolumn_fdw.debug_reclaim_pause",
							"Makes the storage worker wait this long between two slices of the walk of a COUNT or COMPACT (for tests).",
							NULL,
							&ldb_debug_reclaim_pause,
							0, 0, INT_MAX,
							PGC_SIGHUP,
							GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE | GUC_UNIT_MS,
							NULL, NULL, NULL);
}

/*
 * Whether the start's pass over the registry has run: a worker started
 * during recovery (a hot standby, an archive recovery) runs it once
 * recovery has ended (step).
 */
static bool registered_settled = false;

static int
start(int nslots)
{
	int			fd;

	storage_start_background_thread(WARNING);
	/* Each backend has at most one commit out, and one more if it left. */
	fd = storage_writer_start(2 * nslots);
	ldb_xacts_worker_start();
	ldb_redo_adjust();
	registered_settled = ldb_settle_registered();
	return fd;
}

/* At the worker's end: the large commit, then the commit writer's queue. */
static void
finish(void)
{
	ldb_large_commit_complete();
	storage_writer_drain();
	(void) ldb_collect_commits();
}

static void
stop(void)
{
	storage_writer_stop();
	(void) ldb_collect_commits();
}

/*
 * Once a second: allocate the log LevelDB started since, in every open
 * database (logfiles.c).
 */
static void
allocate_logs_due(void)
{
	static uint64 looked = 0;
	WcOpenDb   *odb;

	if (!wc_loop_due(&looked, 1000000))
		return;
	for (uint32 i = 0; (odb = ldb_odb_nth(i)) != NULL; i++)
		if (ldb_odb_mine(odb) && odb->db != NULL)
			storage_allocate_log(odb->db);
}

static bool
step(void)
{
	bool		busy = false;

	if (ldb_collect_commits())
		busy = true;
	if (ldb_large_commit_step())
		busy = true;
	reclaiming = ldb_reclaim_step();
	if (reclaiming == 1)
		busy = true;
	ldb_heat_store_due();
	ldb_xacts_settle_due();
	allocate_logs_due();
	ldb_redo_adjust();
	if (!registered_settled && !RecoveryInProgress())
		registered_settled = ldb_settle_registered();
	ldb_redo_sync_due();
	return busy;
}

static long
idle(void)
{
	long		timeout = ldb_sweep_background();

	/* a COMPACT waiting for LevelDB's compaction: look again soon */
	if (reclaiming == 2)
		timeout = Min(timeout, 10L);
	return timeout;
}

static WcDatabase *
open_db(const WcOpenRequest *req)
{
	return &ldb_open(req, &wc_leveldb_engine)->base;
}

/*
 * snapshot
 *		LevelDB's snapshot, and the commits PostgreSQL's snapshot xs does
 *		not see (xacts.c), taken in the same turn: no commit comes between.
 *		While a large commit is written, the state before it.
 */
static WcEngineSnap *
snapshot(WcDatabase *db, const WcXidSnapshot *xs)
{
	WcOpenDb   *odb = ldb_odb(db);
	WcHidden	hidden;
	WcEngineSnap *s;

	/* first: it may read the commit log, and fail */
	ldb_xacts_hidden(odb, xs, false, &hidden);
	s = MemoryContextAlloc(wc_worker_cxt, sizeof(WcEngineSnap));
	ldb_hidden_copy(&hidden, &s->hidden, wc_worker_cxt);
	s->snap = ldb_large_commit_snapshot(odb) ?
		storage_snapshot_share(ldb_large_commit_snapshot(odb)) :
		storage_snapshot(odb->db);
	s->holds = 1;
	return s;
}

static WcEngineSnap *
snapshot_hold(WcEngineSnap *s)
{
	s->holds++;
	return s;
}

/* LevelDB's snapshot goes with the last hold (unless the database has). */
static void
snapshot_release(WcDatabase *db, WcEngineSnap *s)
{
	if (--s->holds > 0)
		return;
	if (ldb_odb(db)->db != NULL)
		storage_release(ldb_odb(db)->db, s->snap);
	if (s->hidden.ts != NULL)
		pfree(s->hidden.ts);
	pfree(s);
}

/*
 * scan_open
 *		A scan of snap, or of the latest data.  While a large commit is
 *		written, the latest is the state before it: held by the scan once it
 *		is open (nothing can let go of it in between).
 */
static WcEngineScan *
scan_open(WcDatabase *db, WcEngineSnap *snap, const WcScanRequest *req)
{
	WcOpenDb   *odb = ldb_odb(db);
	WcHidden	hidden;
	WcLdbScan *scan;

	if (snap != NULL)
		return (WcEngineScan *) ldb_scan_open(odb, snap->snap, &snap->hidden, req);
	ldb_xacts_hidden(odb, NULL, false, &hidden); /* the latest data */
	if (ldb_large_commit_snapshot(odb) != NULL)
	{
		WcSnap	   *before = ldb_large_commit_snapshot(odb);

		scan = ldb_scan_open(odb, before, &hidden, req);
		ldb_scan_hold(scan, storage_snapshot_share(before));
	}
	else
		scan = ldb_scan_open(odb, NULL, &hidden, req);
	return (WcEngineScan *) scan;
}

static bool
scan_fill(WcEngineScan *scan)
{
	return ldb_scan_fill((WcLdbScan *) scan);
}

static bool
scan_is_small(WcEngineScan *scan)
{
	return ldb_scan_is_small((WcLdbScan *) scan);
}

/* The filled batch; what the scan counted for the heat map is taken now. */
static const WcByteBuf *
scan_batch(WcEngineScan *scan)
{
	WcLdbScan *cs = (WcLdbScan *) scan;

	wc_heat_fold(&ldb_scan_db(cs)->base, ldb_scan_heat(cs));
	return ldb_scan_batch(cs);
}

static void
scan_close(WcEngineScan *scan)
{
	ldb_scan_close((WcLdbScan *) scan);
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

/* The backend whose commit came last, by its segment: see commit. */
static dsm_handle last_committer = 0;

/*
 * commit
 *		Apply the writes w a backend sent for db.
 *
 * A commit of more than 4 MiB is written in slices while the worker
 * serves (largecommit.c); any other goes to the commit writer, answered
 * when it comes back (ldb_collect_commits), or is written here.
 */
static WcCommitOutcome
commit(WcClient *c, WcDatabase *db, WcClientWrites *w, bool sync)
{
	WcOpenDb   *odb = ldb_odb(db);
	WcBatch    *volatile batch = NULL;
	volatile bool large = false;
	volatile bool logged = false;
	bool		store_sync;
	bool		alone;

	PG_TRY();
	{
		/*
		 * After a failed write the handle still serves reads, but is
		 * reopened before it is written to again.
		 */
		if (storage_write_failed(odb->db))
		{
			ldb_close_after_failure(odb);
			ldb_reopen(odb);
		}
		large = ldb_commit_is_large(odb, w);
		/* answered when written, while the worker serves (largecommit.c) */
		if (large)
			ldb_large_commit_start(c, odb, w->db);
		else
		{
			batch = ldb_commit(odb, w, sync);

			/*
			 * Durable by WAL: written without sync (redolog.c); with sync
			 * off too, since redo must meet only logged batches.  A batch
			 * over WC_COMMIT_CHUNK_BYTES (an exact commit is one batch at
			 * any size) is not logged: synced, after the logged ones.
			 */
			if (batch != NULL && ldb_redo_on())
			{
				if (storage_batch_bytes(batch) <= WC_COMMIT_CHUNK_BYTES)
				{
					ldb_redo_log(odb, batch);
					logged = true;
				}
				else
					ldb_redo_sync(odb, false);
			}
			/* not logged after logged ones (the slot being dropped) */
			else if (batch != NULL && odb->wal_dirty)
				ldb_redo_sync(odb, false);
		}
	}
	PG_CATCH();
	{
		if (batch != NULL)
		{
			/*
			 * Made but not written: the clock and the commit's record in
			 * memory are ahead of the store; the database is read again.
			 */
			XLogResetInsertion();
			storage_batch_free(batch);
			if (odb->db != NULL)
				ldb_close_after_failure(odb);
		}
		/* Part of the commit is written: reopening rolls it back. */
		else if (odb->db != NULL && odb->commit_partial)
			ldb_close_after_failure(odb);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (large)
		return WC_COMMIT_LARGE;
	if (batch == NULL)
		return WC_COMMIT_WRITTEN;
	/* durable by WAL: written without sync */
	store_sync = sync && !logged;

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
	if (storage_writer_idle() && (!store_sync || alone))
	{
		write_here(odb->db, batch, store_sync);
		return WC_COMMIT_WRITTEN;
	}
	storage_submit(odb->db, batch, store_sync, c);
	c->answer_later = true;
	return WC_COMMIT_LATER;
}

static bool
holds_commits(void)
{
	return ldb_large_commit_active();
}

static bool
estimate(WcClient *c, WcDatabase *db, const WcEstimateRequest *req, uint64 *bytes)
{
	*bytes = ldb_estimate(ldb_odb(db), req);
	return true;
}

static bool
rows(WcClient *c, WcDatabase *db, const WcRowsRequest *req, WcRowsAnswer *a)
{
	ldb_sizes_rows(ldb_odb(db), req, a);
	return true;
}

/* widecolumn.sample_row_keys(): split points from LevelDB's index. */
static bool
sample(WcClient *c, WcDatabase *db, const WcSampleRequest *req, StringInfo out)
{
	ldb_sizes_sample(ldb_odb(db), req, out);
	return true;
}

static uint64
range_bytes(WcDatabase *db, const uint8 *start, size_t slen,
			const uint8 *end, size_t elen)
{
	return ldb_sizes_range_bytes(ldb_odb(db), start, slen, end, elen);
}

/* The versions of a table (or a family) a read could return, in slices. */
static void
count(WcClient *c, WcDatabase *db, const WcReclaimRequest *req)
{
	WcOpenDb   *odb = ldb_odb(db);

	ldb_reclaim_start(c, odb,
					 ldb_sweep_begin(odb, req->table.data, req->table.len, true,
									req->family.len > 0 ? req->family.data : NULL,
									req->family.len, false),
					 NULL, 0, false);
	c->reclaim_engine = &wc_leveldb_engine;
}

/* widecolumn.compact(): a walk in slices, then LevelDB's compaction. */
static void
compact(WcClient *c, WcDatabase *db, const WcReclaimRequest *req)
{
	WcOpenDb   *odb = ldb_odb(db);

	/* what the transactions before it left, settled first if they may be */
	ldb_xacts_settle(odb);
	ldb_reclaim_start(c, odb,
					 ldb_sweep_begin(odb, req->table.len > 0 ? req->table.data : NULL,
									req->table.len, false, NULL, 0, false),
					 req->table.data, req->table.len, true);
	c->reclaim_engine = &wc_leveldb_engine;
}

/*
 * parse_stats
 *		The per-level figures of LevelDB's leveldb.stats property: a line
 *		"level files size(MB) time(sec) read(MB) write(MB)" for each level
 *		that has files or has been compacted.
 */
static void
parse_stats(const char *text, WcDbStats *s)
{
	const char *line = text;

	while (line != NULL && *line != '\0')
	{
		int			level,
					files;
		double		size,
					secs,
					read,
					written;

		if (sscanf(line, "%d %d %lf %lf %lf %lf", &level, &files, &size, &secs,
				   &read, &written) == 6 && level >= 0 && level < WC_STAT_LEVELS)
		{
			s->files[level] = (uint32) Max(files, 0);
			s->size_mb[level] = (uint64) Max(size, 0);
			s->compaction_seconds += (uint64) Max(secs, 0);
			s->compaction_read_mb += (uint64) Max(read, 0);
			s->compaction_write_mb += (uint64) Max(written, 0);
		}
		line = strchr(line, '\n');
		if (line != NULL)
			line++;
	}
}

/* widecolumn.stat_leveldb's figures of a database. */
static void
describe(WcDatabase *db, WcDbStats *s)
{
	WcOpenDb   *odb = ldb_odb(db);
	char	   *text = NULL;

	s->path.data = (const uint8 *) odb->path;
	s->path.len = strlen(odb->path);
	s->open = odb->db != NULL;
	if (s->open)
	{
		text = storage_property(odb->db, "leveldb.stats");
		s->compactions = storage_compactions(odb->db);
	}
	if (text != NULL)
	{
		parse_stats(text, s);
		s->stats.data = (const uint8 *) text;
		s->stats.len = strlen(text);
	}
}

const WcEngine wc_leveldb_engine = {
	.name = LDB_ENGINE_NAME,
	.title = "LevelDB",
	.define_settings = define_settings,
	.start = start,
	.finish = finish,
	.stop = stop,
	.close_all = ldb_close_all,
	.step = step,
	.idle = idle,
	.open = open_db,
	.ready = ldb_ready,
	.snapshot = snapshot,
	.snapshot_hold = snapshot_hold,
	.snapshot_release = snapshot_release,
	.scan_open = scan_open,
	.scan_fill = scan_fill,
	.scan_is_small = scan_is_small,
	.scan_batch = scan_batch,
	.scan_close = scan_close,
	.commit = commit,
	.holds_commits = holds_commits,
	.estimate = estimate,
	.rows = rows,
	.sample = sample,
	.range_bytes = range_bytes,
	.count = count,
	.compact = compact,
	.client_gone = ldb_reclaim_forget,
	.fsyncs = storage_fsyncs,
	.describe = describe,
};
