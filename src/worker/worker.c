/*-------------------------------------------------------------------------
 *
 * worker.c
 *	  The storage worker: the one process that opens LevelDB.
 *
 * LevelDB allows one process per database, and PostgreSQL runs a process
 * per session, so every backend sends its requests here.  A backend creates
 * a DSM segment holding a request queue and an answer queue, posts the
 * segment's handle in its slot of our shared memory and sets our latch.
 *
 * The loop below serves every attached backend in turn and never waits on
 * any one of them: queues are read and written without blocking, an answer
 * that does not fit is kept and retried on the next round, and a scan
 * answers one bounded batch per request.  So a long scan in one session
 * cannot stall a point read in another.  Nor does a commit's fsync: a
 * commit's batch goes to the commit writer, a thread of storage.c, and the
 * commit is answered when it comes back (collect_commits).  When there is
 * nothing to do the loop polls a little before it sleeps (wc_poll_again).
 *
 * Errors while serving a request are caught and sent back as ERROR answers;
 * the worker itself exits only on SIGTERM or postmaster death, and the
 * postmaster restarts it after a crash.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>

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
#include "storage/shmem.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "common/keycodec.h"
#include "common/poll.h"
#include "common/shmem.h"
#include "worker/worker.h"

PGDLLEXPORT void wc_worker_main(Datum arg);

/* A snapshot or a scan a backend holds, by the id the backend chose. */
typedef struct WcClientSnap
{
	uint32		id;
	WcOpenDb   *odb;
	WcSnap	   *snap;
} WcClientSnap;

/* A scan and everything it holds live in cxt, deleted with the scan. */
typedef struct WcClientScan
{
	uint32		id;
	MemoryContext cxt;
	WcCellScan *scan;
} WcClientScan;

/*
 * A scan or snapshot that close_after_failure took from a client: the
 * client's next use of it is an error, not an empty answer.
 */
typedef struct WcLost
{
	uint32		id;
	bool		is_scan;
	WcOpenDb   *odb;
} WcLost;

typedef struct WcClient
{
	int			slot;
	dsm_handle	handle;
	dsm_segment *seg;
	shm_mq_handle *in;
	shm_mq_handle *out;
	MemoryContext cxt;
	List	   *snaps;
	List	   *scans;
	List	   *lost;			/* WcLost */
	List	   *writes;
	StringInfoData answer;		/* built or waiting to be sent */
	bool		answer_pending;
	ErrorData  *deferred;		/* error of an unanswered request */
	bool		commit_waiting; /* its commit is with the commit writer */
	bool		gone;			/* freed while it was: collect_commits frees */
} WcClient;

static WcClient **clients;		/* by slot */
static List *open_dbs = NIL;	/* WcOpenDb, index is the db id */
static MemoryContext worker_cxt;
static MemoryContext request_cxt;
static volatile sig_atomic_t got_sigterm = false;

static void client_free(WcClient *c);
static bool collect_commits(void);

/*
 * wc_worker_register
 *		Register the storage worker with the postmaster.
 */
void
wc_worker_register(void)
{
	BackgroundWorker worker;

	DefineCustomIntVariable("widecolumn_fdw.debug_crash_after_commit_batches",
							"Kills the storage worker after this many batches of a multi-batch commit (for tests).",
							NULL,
							&wc_debug_crash_after_commit_batches,
							0, 0, INT_MAX,
							PGC_SIGHUP,
							GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	DefineCustomIntVariable("widecolumn_fdw.debug_clock_step_back",
							"Sets the storage worker's clock this many seconds back (for tests).",
							NULL,
							&wc_debug_clock_step_back,
							0, 0, INT_MAX,
							PGC_SIGHUP,
							GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE | GUC_UNIT_S,
							NULL, NULL, NULL);

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
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
	ListCell   *lc;

	SpinLockAcquire(&wc_shared->mutex);
	wc_shared->worker_pid = 0;
	wc_shared->worker_latch = NULL;
	SpinLockRelease(&wc_shared->mutex);

	/*
	 * The writes in progress finish, and their backends are answered: a
	 * backend told nothing would roll back the rest of a transaction whose
	 * foreign part is committed.  (It reads the queue to the end before it
	 * takes the worker for gone: client.c, wait_for_worker.)
	 */
	storage_writer_stop();
	collect_commits();
	for (int i = 0; clients != NULL && i < wc_shared->nslots; i++)
	{
		WcClient   *c = clients[i];

		if (c != NULL && c->answer_pending)
			(void) shm_mq_send(c->out, c->answer.len, c->answer.data, true, true);
	}

	/*
	 * LevelDB must not be closed under a live iterator or snapshot (it
	 * aborts, and the postmaster restarts the whole cluster): the backends'
	 * scans and snapshots go first.
	 */
	for (int i = 0; clients != NULL && i < wc_shared->nslots; i++)
		if (clients[i] != NULL)
			client_free(clients[i]);

	foreach(lc, open_dbs)
	{
		WcOpenDb   *odb = lfirst(lc);

		if (odb->db)
			storage_close(odb->db);
		odb->db = NULL;
	}
}

/* Send an ERROR answer built from edata. */
static void
answer_error(StringInfo out, ErrorData *edata)
{
	uint32		len;

	resetStringInfo(out);
	appendStringInfoChar(out, WC_RESP_ERROR);
	appendBinaryStringInfo(out, (const char *) &edata->sqlerrcode, 4);
	len = edata->message ? strlen(edata->message) : 0;
	appendBinaryStringInfo(out, (const char *) &len, 4);
	appendBinaryStringInfo(out, edata->message ? edata->message : "", len);
	len = edata->detail ? strlen(edata->detail) : 0;
	appendBinaryStringInfo(out, (const char *) &len, 4);
	appendBinaryStringInfo(out, edata->detail ? edata->detail : "", len);
	len = edata->hint ? strlen(edata->hint) : 0;
	appendBinaryStringInfo(out, (const char *) &len, 4);
	appendBinaryStringInfo(out, edata->hint ? edata->hint : "", len);
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

static void
protocol_error(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROTOCOL_VIOLATION),
			 errmsg("malformed %s request from a backend", what)));
}

/*
 * The databases this cluster has created, one path a line, so that a
 * database directory that disappears (an unmounted volume, a deleted
 * directory) is an error rather than a new empty database.
 */
#define WC_REGISTRY		"widecolumn_fdw/databases"

static bool
registry_has(const char *path)
{
	FILE	   *f = AllocateFile(WC_REGISTRY, "r");
	char		line[MAXPGPATH + 2];
	bool		found = false;

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL)
	{
		line[strcspn(line, "\n")] = '\0';
		found = strcmp(line, path) == 0;
	}
	FreeFile(f);
	return found;
}

static void
registry_add(const char *path)
{
	FILE	   *f;

	if (registry_has(path))
		return;
	f = AllocateFile(WC_REGISTRY, "a");
	if (f == NULL ||
		fprintf(f, "%s\n", path) < 0 ||
		fflush(f) != 0 ||
		pg_fsync(fileno(f)) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not record LevelDB database \"%s\" in \"%s\": %m",
						path, WC_REGISTRY)));
	FreeFile(f);
}

/* Open odb's database, refusing to recreate one that has disappeared. */
static void
open_storage(WcOpenDb *odb)
{
	if (!storage_exists(odb->path) && registry_has(odb->path))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FILE),
				 errmsg("LevelDB database \"%s\" is missing", odb->path),
				 errdetail("This cluster created a database there, but its directory or CURRENT file is gone."),
				 errhint("Restore the directory or mount the volume that holds it. To start again with an empty database, remove its line from \"%s\" in the data directory.",
						 WC_REGISTRY)));
	odb->db = storage_open(odb->path, &odb->opts);
	odb->commit_partial = false;
	PG_TRY();
	{
		registry_add(odb->path);
		cells_recover(odb);
		cells_load_clock(odb);
	}
	PG_CATCH();
	{
		/*
		 * Not half recovered, and not holding LevelDB's lock: closed, and
		 * opened again (and recovered) at the next use.
		 */
		storage_close(odb->db);
		odb->db = NULL;
		PG_RE_THROW();
	}
	PG_END_TRY();
}

static WcOpenDb *
lookup_db(uint32 id)
{
	WcOpenDb   *odb;

	if (id >= (uint32) list_length(open_dbs))
		protocol_error("database");
	odb = list_nth(open_dbs, id);
	if (odb->db == NULL)
		open_storage(odb);		/* closed after a failed write */
	return odb;
}

static void
note_lost(WcClient *c, uint32 id, bool is_scan, WcOpenDb *odb)
{
	WcLost	   *l = MemoryContextAlloc(c->cxt, sizeof(WcLost));
	MemoryContext old = MemoryContextSwitchTo(c->cxt);

	l->id = id;
	l->is_scan = is_scan;
	l->odb = odb;
	c->lost = lappend(c->lost, l);
	MemoryContextSwitchTo(old);
}

/*
 * If close_after_failure took the client's scan or snapshot id, say so (an
 * error); forget it if the client is letting go of it.
 */
static void
check_lost(WcClient *c, uint32 id, bool is_scan, bool letting_go)
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
				 errmsg("could not go on reading LevelDB database \"%s\": its snapshot is gone",
						l->odb->path),
				 errdetail("The storage worker reopened the database after a write to it failed, and the snapshots open on it went with it."),
				 errhint("Retry the transaction.")));
	}
}

/*
 * close_after_failure
 *		Close a database a write failed on, so that it can be reopened.
 *
 * The scans and snapshots of every backend on it go first (LevelDB needs
 * them gone before closing); their next use is an error.
 */
static void
close_after_failure(WcOpenDb *odb)
{
	for (int i = 0; i < wc_shared->nslots; i++)
	{
		WcClient   *c = clients[i];
		ListCell   *lc;

		if (c == NULL)
			continue;
		foreach(lc, c->scans)
		{
			WcClientScan *cs = lfirst(lc);

			if (cells_scan_db(cs->scan) == odb)
			{
				note_lost(c, cs->id, true, odb);
				cells_scan_close(cs->scan);
				c->scans = foreach_delete_current(c->scans, lc);
				MemoryContextDelete(cs->cxt);
			}
		}
		foreach(lc, c->snaps)
		{
			WcClientSnap *cs = lfirst(lc);

			if (cs->odb == odb)
			{
				note_lost(c, cs->id, false, odb);
				storage_release(odb->db, cs->snap);
				c->snaps = foreach_delete_current(c->snaps, lc);
				pfree(cs);
			}
		}
	}
	storage_close(odb->db);
	odb->db = NULL;
	ereport(LOG,
			(errmsg("widecolumn_fdw is reopening LevelDB database \"%s\" after a failed write",
					odb->path)));
}

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
	c->writes = lappend(c->writes, w);
	return w;
}

static void
discard_writes(WcClient *c, uint32 db)
{
	WcClientWrites *w = client_writes(c, db, false);

	if (w == NULL)
		return;
	list_free_deep(w->msgs);
	pfree(w->lowest.data);
	pfree(w->highest.data);
	c->writes = list_delete_ptr(c->writes, w);
	pfree(w);
}

/* Make bound p if it is empty or p is on the side (-1 below, 1 above) of it. */
static void
widen(StringInfo bound, const uint8 *p, size_t len, int side)
{
	if (bound->len == 0 ||
		wc_compare_bytes(p, len, (uint8 *) bound->data, bound->len) * side > 0)
	{
		resetStringInfo(bound);
		appendBinaryStringInfo(bound, (const char *) p, len);
	}
}

/*
 * Widen the span of the rows a client sent for a database by one request's:
 * a large commit's pending-commit record must cover them all.  (Row
 * prefixes are never empty.)
 */
static void
note_span(WcClientWrites *w, const WcRowSpan *span)
{
	if (span->lowest == NULL)
		return;
	widen(&w->lowest, span->lowest, span->lowest_len, -1);
	widen(&w->highest, span->highest, span->highest_len, 1);
}

/* Append a scan's next batch to out; a scan that ends or fails is dropped. */
static void
fill_batch(WcClient *c, WcClientScan *cs, StringInfo out)
{
	bool		done = false;

	PG_TRY();
	{
		MemoryContextSwitchTo(cs->cxt);
		done = cells_scan_fill(cs->scan, out);
		MemoryContextSwitchTo(request_cxt);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(request_cxt);
		drop_scan(c, cs);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (done)
		drop_scan(c, cs);
}

/*
 * commit_writes
 *		Apply the writes a client sent for db; they are gone either way.
 *
 * True when the commit went to the commit writer: collect_commits answers
 * it.  A large commit is written here, after the writer's queue.
 */
static bool
commit_writes(WcClient *c, WcOpenDb *odb, uint32 db, bool sync)
{
	WcClientWrites *w = client_writes(c, db, false);
	WcBatch    *batch = NULL;

	PG_TRY();
	{
		if (w != NULL && cells_commit_is_large(w))
			storage_writer_drain();

		/*
		 * After a failed write the handle still serves reads, but is
		 * reopened before it is written to again.
		 */
		if (w != NULL && storage_write_failed(odb->db))
		{
			close_after_failure(odb);
			open_storage(odb);
		}
		if (w != NULL)
			batch = cells_commit(odb, w, sync);
	}
	PG_CATCH();
	{
		/* Part of the commit is written: reopening rolls it back. */
		if (odb->db != NULL && odb->commit_partial)
			close_after_failure(odb);
		discard_writes(c, db);
		PG_RE_THROW();
	}
	PG_END_TRY();
	discard_writes(c, db);
	if (batch == NULL)
		return false;
	storage_submit(odb->db, batch, sync, c);
	c->commit_waiting = true;
	return true;
}

/*
 * collect_commits
 *		Answer the commits the commit writer has written; true if any.
 */
static bool
collect_commits(void)
{
	void	   *owner;
	bool		any = false;

	while (storage_next_written(&owner))
	{
		WcClient   *c = owner;

		MemoryContextSwitchTo(request_cxt);
		resetStringInfo(&c->answer);
		PG_TRY();
		{
			storage_finish_written();
			appendStringInfoChar(&c->answer, WC_RESP_OK);
		}
		PG_CATCH();
		{
			ErrorData  *edata = take_error(c);

			answer_error(&c->answer, edata);
			FreeErrorData(edata);
		}
		PG_END_TRY();
		MemoryContextSwitchTo(worker_cxt);
		MemoryContextReset(request_cxt);

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
 * open_db
 *		Answer an OPEN request: find or open the database at a path.
 */
static void
open_db(WcReader *r, StringInfo out)
{
	size_t		plen;
	const uint8 *p = wc_get_str(r, &plen);
	char	   *path;
	WcDbOptions opts;
	ListCell   *lc;
	WcOpenDb   *odb;
	uint32		id = 0;
	struct stat st;
	bool		exists;

	opts.cache_mb = wc_get_u32(r);
	opts.write_buffer_mb = wc_get_u32(r);
	opts.bloom_bits = wc_get_u32(r);
	opts.compression = wc_get_u8(r) != 0;
	if (r->bad || wc_reader_left(r) != 0 || plen == 0 || memchr(p, 0, plen) != NULL)
		protocol_error("open");
	path = pnstrdup((const char *) p, plen);

	/*
	 * One directory, however it is named ("/x" and "/x/", a symlink, a bind
	 * mount), is one database: opened twice in this process, LevelDB would
	 * take its lock twice (the lock is per process), and the second open's
	 * recovery would remove the first's live log.
	 */
	canonicalize_path(path);
	exists = stat(path, &st) == 0;
	foreach(lc, open_dbs)
	{
		odb = lfirst(lc);
		if (strcmp(odb->path, path) == 0 ||
			(exists && odb->have_file_id && odb->dev == st.st_dev && odb->ino == st.st_ino))
		{
			if (odb->db == NULL)
				open_storage(odb);
			goto found;
		}
		id++;
	}

	MemoryContextSwitchTo(worker_cxt);
	odb = palloc0(sizeof(WcOpenDb));
	odb->path = pstrdup(path);
	odb->opts = opts;
	open_storage(odb);
	if (stat(odb->path, &st) == 0)
	{
		odb->have_file_id = true;
		odb->dev = st.st_dev;
		odb->ino = st.st_ino;
	}
	open_dbs = lappend(open_dbs, odb);
	id = list_length(open_dbs) - 1;
	MemoryContextSwitchTo(request_cxt);

found:
	appendStringInfoChar(out, WC_RESP_OK);
	appendBinaryStringInfo(out, (const char *) &id, 4);
}

/*
 * serve_request
 *		Carry out one request; fills out with the answer if it has one.
 */
static void
serve_request(WcClient *c, const uint8 *data, size_t len, StringInfo out)
{
	WcReader	r;
	uint8		type;

	wc_reader_init(&r, data, len);
	type = wc_get_u8(&r);

	switch (type)
	{
		case WC_REQ_OPEN:
			open_db(&r, out);
			break;

		case WC_REQ_SNAPSHOT:
			{
				WcOpenDb   *odb = lookup_db(wc_get_u32(&r));
				WcClientSnap *cs;

				MemoryContextSwitchTo(c->cxt);
				cs = palloc(sizeof(WcClientSnap));
				cs->id = wc_get_u32(&r);
				cs->odb = odb;
				cs->snap = storage_snapshot(odb->db);
				c->snaps = lappend(c->snaps, cs);
				MemoryContextSwitchTo(request_cxt);
				break;
			}

		case WC_REQ_RELEASE:
			{
				uint32		id = wc_get_u32(&r);
				ListCell   *lc;

				foreach(lc, c->snaps)
				{
					WcClientSnap *cs = lfirst(lc);

					if (cs->id == id)
					{
						storage_release(cs->odb->db, cs->snap);
						c->snaps = foreach_delete_current(c->snaps, lc);
						pfree(cs);
						break;
					}
				}
				check_lost(c, id, false, true);
				break;
			}

		case WC_REQ_SCAN:
			{
				WcOpenDb   *odb = lookup_db(wc_get_u32(&r));
				uint32		snapid = wc_get_u32(&r);
				uint32		scanid = wc_get_u32(&r);
				uint8		flags = wc_get_u8(&r);
				uint64		limit = wc_get_u64(&r);
				WcSnap	   *snap = NULL;
				WcClientScan *cs;
				ListCell   *lc;

				if (snapid != 0)
				{
					foreach(lc, c->snaps)
					{
						WcClientSnap *s = lfirst(lc);

						if (s->id == snapid && s->odb == odb)
							snap = s->snap;
					}
					if (snap == NULL)
					{
						check_lost(c, snapid, false, false);
						protocol_error("scan");
					}
				}
				if (r.bad || wc_check_scan(r.p, wc_reader_left(&r)) != 0)
					protocol_error("scan");
				{
					MemoryContext cxt = AllocSetContextCreate(c->cxt, "widecolumn_fdw scan",
															  ALLOCSET_SMALL_SIZES);

					MemoryContextSwitchTo(cxt);
					cs = palloc(sizeof(WcClientScan));
					cs->id = scanid;
					cs->cxt = cxt;
					cs->scan = cells_scan_open(odb, snap, &r, (flags & WC_SCAN_REVERSE) != 0,
											   (flags & WC_SCAN_BULK) == 0,
											   (flags & WC_SCAN_VERSIONS) != 0, limit);
					MemoryContextSwitchTo(c->cxt);
					c->scans = lappend(c->scans, cs);
					MemoryContextSwitchTo(request_cxt);
				}
				if (r.bad)
				{
					drop_scan(c, cs);
					protocol_error("scan");
				}
				fill_batch(c, cs, out);
				break;
			}

		case WC_REQ_NEXT:
			{
				uint32		id = wc_get_u32(&r);
				WcClientScan *cs = lookup_scan(c, id);

				/*
				 * Backends ask for batches ahead, so one may ask after the
				 * scan's last batch: the answer is an empty last batch.
				 */
				if (cs == NULL)
				{
					check_lost(c, id, true, false);
					cells_scan_empty_batch(out);
				}
				else
					fill_batch(c, cs, out);
				break;
			}

		case WC_REQ_CLOSE:
			{
				uint32		id = wc_get_u32(&r);
				WcClientScan *cs = lookup_scan(c, id);

				if (cs != NULL)
					drop_scan(c, cs);
				else
					check_lost(c, id, true, true);
				break;
			}

		case WC_REQ_WRITE:
			{
				uint32		db = wc_get_u32(&r);
				WcClientWrites *w;
				StringInfo	msg;
				WcRowSpan	span;

				(void) lookup_db(db);
				if (r.bad || wc_check_write(r.p, wc_reader_left(&r), &span) != 0)
					protocol_error("write");
				MemoryContextSwitchTo(c->cxt);
				w = client_writes(c, db, true);
				note_span(w, &span);
				msg = makeStringInfo();
				appendBinaryStringInfo(msg, (const char *) r.p, wc_reader_left(&r));
				w->msgs = lappend(w->msgs, msg);
				MemoryContextSwitchTo(request_cxt);
				break;
			}

		case WC_REQ_COMMIT:
			{
				uint32		db = wc_get_u32(&r);
				bool		sync = wc_get_u8(&r) != 0;
				WcOpenDb   *odb = lookup_db(db);

				if (!commit_writes(c, odb, db, sync))
					appendStringInfoChar(out, WC_RESP_OK);
				break;
			}

		case WC_REQ_ABORT:
			discard_writes(c, wc_get_u32(&r));
			break;

		case WC_REQ_ESTIMATE:
			{
				WcOpenDb   *odb = lookup_db(wc_get_u32(&r));
				uint64		bytes = cells_estimate(odb, &r);

				appendStringInfoChar(out, WC_RESP_OK);
				appendBinaryStringInfo(out, (const char *) &bytes, 8);
				break;
			}

		default:
			protocol_error("unknown");
	}
	if (r.bad)
		protocol_error("truncated");
}

static bool
answered(uint8 type)
{
	return type == WC_REQ_OPEN || type == WC_REQ_SCAN || type == WC_REQ_NEXT ||
		type == WC_REQ_COMMIT || type == WC_REQ_ESTIMATE;
}

/*
 * handle_request
 *		Serve one request, turning an error into an answer.
 *
 * An error in a request that gets no answer is kept and given as the answer
 * to the next request that does, so the backend still hears of it.
 */
static void
handle_request(WcClient *c, const uint8 *data, size_t len)
{
	uint8		type = len > 0 ? data[0] : 0;

	resetStringInfo(&c->answer);
	if (c->deferred != NULL && answered(type))
	{
		/* A commit must not go ahead without the writes that failed. */
		if (type == WC_REQ_COMMIT && len >= 5)
		{
			uint32		db;

			memcpy(&db, data + 1, 4);
			discard_writes(c, db);
		}
		answer_error(&c->answer, c->deferred);
		c->deferred = NULL;
		c->answer_pending = true;
		return;
	}

	MemoryContextSwitchTo(request_cxt);
	PG_TRY();
	{
		serve_request(c, data, len, &c->answer);
	}
	PG_CATCH();
	{
		ErrorData  *edata = take_error(c);

		if (answered(type))
		{
			answer_error(&c->answer, edata);
			FreeErrorData(edata);
		}
		else if (c->deferred == NULL)
			c->deferred = edata;
		else
			FreeErrorData(edata);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(worker_cxt);
	MemoryContextReset(request_cxt);

	/* A commit with the commit writer is answered when it is written. */
	if (answered(type) && !c->commit_waiting)
		c->answer_pending = true;
}

static void
client_free(WcClient *c)
{
	ListCell   *lc;

	foreach(lc, c->scans)
		cells_scan_close(((WcClientScan *) lfirst(lc))->scan);
	foreach(lc, c->snaps)
	{
		WcClientSnap *cs = lfirst(lc);

		if (cs->odb->db)
			storage_release(cs->odb->db, cs->snap);
	}
	dsm_detach(c->seg);
	clients[c->slot] = NULL;
	if (c->commit_waiting)
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

		if (clients[i] != NULL && clients[i]->handle != h)
			client_free(clients[i]);
		if (h == 0 || gen != generation || clients[i] != NULL)
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

		cxt = AllocSetContextCreate(worker_cxt, "widecolumn_fdw client",
									ALLOCSET_DEFAULT_SIZES);
		c = MemoryContextAllocZero(cxt, sizeof(WcClient));
		c->cxt = cxt;
		c->slot = i;
		c->handle = h;
		c->seg = seg;
		{
			shm_mq	   *req = shm_toc_lookup(toc, WC_TOC_REQUEST_QUEUE, false);
			shm_mq	   *resp = shm_toc_lookup(toc, WC_TOC_ANSWER_QUEUE, false);

			shm_mq_set_receiver(req, MyProc);
			shm_mq_set_sender(resp, MyProc);
			MemoryContextSwitchTo(cxt);
			c->in = shm_mq_attach(req, seg, NULL);
			c->out = shm_mq_attach(resp, seg, NULL);
			initStringInfo(&c->answer);
			MemoryContextSwitchTo(worker_cxt);
		}
		clients[i] = c;
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

	/* Nothing more until its commit is written, in the order it sent. */
	for (int n = 0; n < 16 && !c->commit_waiting; n++)
	{
		shm_mq_result res;
		Size		len;
		void	   *data;

		if (c->answer_pending)
		{
			res = shm_mq_send(c->out, c->answer.len, c->answer.data, true, true);
			if (res == SHM_MQ_WOULD_BLOCK)
				return worked;
			if (res == SHM_MQ_DETACHED)
			{
				client_free(c);
				return true;
			}
			c->answer_pending = false;
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
		handle_request(c, data, len);
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

	pqsignal(SIGTERM, wc_worker_sigterm);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();

	worker_cxt = AllocSetContextCreate(TopMemoryContext, "widecolumn_fdw worker",
									   ALLOCSET_DEFAULT_SIZES);
	request_cxt = AllocSetContextCreate(worker_cxt, "widecolumn_fdw request",
										ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(worker_cxt);
	clients = palloc0(sizeof(WcClient *) * wc_shared->nslots);

	storage_start_background_thread();
	wait_set = CreateWaitEventSet(TopMemoryContext, 3);
	AddWaitEventToSet(wait_set, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(wait_set, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
	/* Each backend has at most one commit out, and one more if it left. */
	AddWaitEventToSet(wait_set, WL_SOCKET_READABLE,
					  storage_writer_start(2 * wc_shared->nslots), NULL, NULL);

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

		ResetLatch(MyLatch);
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}

		attach_clients(generation);
		if (collect_commits())
			busy++;
		for (int i = 0; i < wc_shared->nslots; i++)
			if (clients[i] != NULL && serve_client(clients[i]))
				busy++;
		if (pg_atomic_read_u32(&wc_shared->busy_clients) != busy)
			pg_atomic_write_u32(&wc_shared->busy_clients, busy);

		if (busy > 0)
		{
			idle = false;
			continue;
		}

		/*
		 * Poll a little before sleeping: the next request of a session that
		 * is scanning or running queries back to back is often that close,
		 * and a wake-up costs as much (client.c, poll_for_answer).
		 */
		if (!idle)
		{
			INSTR_TIME_SET_CURRENT(idle_since);
			idle = true;
		}
		if (wc_poll_again(&idle_since))
			continue;
		idle = false;
		{
			WaitEvent	ev;

			(void) WaitEventSetWait(wait_set, 1000L, &ev, 1, PG_WAIT_EXTENSION);
		}
	}

	/* Exit code 0 would tell the postmaster never to start us again. */
	proc_exit(1);
}
