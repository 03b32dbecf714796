/*-------------------------------------------------------------------------
 *
 * databases.c
 *	  The storage worker's open LevelDB databases: finding or opening one
 *	  by path, the registry of the databases this cluster created (each
 *	  opened at the worker's start to settle its commits), and reopening a
 *	  database after a failed write.
 *
 * A database's id is its place in the worker's list (runtime/state.c); a
 * database closed after a failed write keeps its id and is opened again at
 * its next use (ldb_ready).  Closing it takes every backend's scans and
 * snapshots on it first (LevelDB needs them gone), and their next use is
 * an error (runtime/clients.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>
#include <errno.h>
#include <sys/stat.h>

#include "storage/fd.h"
#include "utils/memutils.h"

#include "access/xlog.h"
#include "storage/lwlock.h"

#include "common/shmem.h"
#include "worker/leveldb/leveldb.h"
#include "worker/runtime/failure.h"

/*
 * The databases this cluster has created, one path a line, so that a
 * database directory that disappears (an unmounted volume, a deleted
 * directory) is an error rather than a new empty database.
 */
#define WC_REGISTRY		"widecolumn_fdw/databases"

/*
 * Call fn with each path of the registry, in order, until it returns
 * false; nothing when no database has been created yet.
 */
static void
registry_each(bool (*fn) (const char *path, void *arg), void *arg)
{
	FILE	   *f = AllocateFile(WC_REGISTRY, "r");
	char		line[MAXPGPATH + 2];

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
	{
		line[strcspn(line, "\n")] = '\0';
		if (line[0] != '\0' && !fn(line, arg))
			break;
	}
	FreeFile(f);
}

/* registry_has's test: false (stop) at the path sought. */
static bool
path_differs(const char *path, void *arg)
{
	const char **sought = arg;

	if (strcmp(path, *sought) != 0)
		return true;
	*sought = NULL;
	return false;
}

static bool
registry_has(const char *path)
{
	const char *sought = path;

	registry_each(path_differs, &sought);
	return sought == NULL;
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

/*
 * The LevelDB settings a database was last opened with, kept in its
 * directory (docs/format.md), so that the worker's start opens it as its
 * server does: an open writes what LevelDB's log holds into a table file,
 * compressed or not as the settings say.
 */
#define WC_SETTINGS_FILE	"widecolumn-settings"

static bool settings_read(const char *dir, WcDbOptions *opts);

/*
 * For a database without the file (not opened by a build that writes it):
 * LevelDB's usual write buffer, and no compression, which changes nothing
 * a server with compression 'none' relies on (the table file the open
 * writes is compressed by later compactions if its server says so).
 */
static const WcDbOptions unknown_settings = {
	.cache_mb = 8,
	.write_buffer_mb = 16,
	.bloom_bits = 10,
	.compression = false
};

static char *
settings_path(const char *dir)
{
	return psprintf("%s/%s", dir, WC_SETTINGS_FILE);
}

static void
settings_write(WcOpenDb *odb)
{
	char	   *path = settings_path(odb->path);
	char	   *tmp = psprintf("%s.tmp", path);
	WcDbOptions old;
	FILE	   *f;
	bool		written;

	if (settings_read(odb->path, &old) && old.cache_mb == odb->opts.cache_mb &&
		old.write_buffer_mb == odb->opts.write_buffer_mb &&
		old.bloom_bits == odb->opts.bloom_bits && old.compression == odb->opts.compression)
		return;
	f = AllocateFile(tmp, "w");
	if (f == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", tmp)));
	written = fprintf(f, "cache_mb %u\nwrite_buffer_mb %u\nbloom_bits %u\ncompression %d\n",
					  odb->opts.cache_mb, odb->opts.write_buffer_mb, odb->opts.bloom_bits,
					  odb->opts.compression ? 1 : 0) >= 0;
	if (FreeFile(f) != 0 || !written)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", tmp)));
	durable_rename(tmp, path, ERROR);
	pfree(tmp);
	pfree(path);
}

/*
 * One line "name value" of the settings file at *p, value in [lo, hi]:
 * digits only, as settings_write writes them (a server's own ranges,
 * mapping.c).  Moves *p past the line.
 */
static bool
settings_line(const char **p, const char *name, unsigned long lo, unsigned long hi,
			  unsigned int *value)
{
	size_t		len = strlen(name);
	const char *v = *p + len + 1;
	char	   *end;
	unsigned long n;

	if (strncmp(*p, name, len) != 0 || (*p)[len] != ' ' || !isdigit((unsigned char) *v))
		return false;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno != 0 || *end != '\n' || n < lo || n > hi)
		return false;
	*value = (unsigned int) n;
	*p = end + 1;
	return true;
}

/*
 * The settings of the database in dir; false if it has none written, or
 * the file is not as settings_write writes it (then the caller opens it
 * with unknown_settings).
 */
static bool
settings_read(const char *dir, WcDbOptions *opts)
{
	char	   *path = settings_path(dir);
	FILE	   *f = AllocateFile(path, "r");
	char		text[256];
	size_t		len;
	const char *p = text;
	unsigned int cache,
				buffer,
				bloom,
				compression;
	bool		ok;

	pfree(path);
	if (f == NULL)
		return false;
	len = fread(text, 1, sizeof(text) - 1, f);
	ok = !ferror(f) && feof(f);
	FreeFile(f);
	text[len] = '\0';
	ok = ok && strlen(text) == len &&
		settings_line(&p, "cache_mb", 0, 65536, &cache) &&
		settings_line(&p, "write_buffer_mb", 1, 1024, &buffer) &&
		settings_line(&p, "bloom_bits", 0, 64, &bloom) &&
		settings_line(&p, "compression", 0, 1, &compression) &&
		*p == '\0';
	if (!ok)
		return false;
	memset(opts, 0, sizeof(*opts));
	opts->cache_mb = cache;
	opts->write_buffer_mb = buffer;
	opts->bloom_bits = bloom;
	opts->compression = compression != 0;
	return true;
}

/*
 * ldb_reopen
 *		Open odb's database, refusing to recreate one that has disappeared,
 *		and roll back a commit a crash interrupted.
 */
void
ldb_reopen(WcOpenDb *odb)
{
	if (!storage_exists(odb->path) && registry_has(odb->path))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FILE),
				 errmsg("LevelDB database \"%s\" is missing", odb->path),
				 errdetail("This cluster created a database there, but its directory or CURRENT file is gone."),
				 errhint("Restore the directory or mount the volume that holds it. To start again with an empty database, remove its line from \"%s\" in the data directory.",
						 WC_REGISTRY)));
	ldb_rowdrops_forget(odb);
	ldb_sizes_forget(odb);
	odb->db = storage_open(odb->path, &odb->opts);
	odb->commit_partial = false;
	PG_TRY();
	{
		ldb_redo_replay(odb);
		registry_add(odb->path);
		settings_write(odb);
		ldb_recover(odb);
		ldb_load_clock(odb);
		ldb_xacts_load(odb);
		odb->last_commit_ts = Max(odb->last_commit_ts, ldb_xacts_newest(odb));
		ldb_heat_load(odb);
		ldb_redo_opened(odb->path, true);
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

/* Before a request uses db: opened again if a failed write closed it. */
void
ldb_ready(WcDatabase *db)
{
	if (ldb_odb(db)->db == NULL)
		ldb_reopen(ldb_odb(db));
}

/*
 * A number option of OPEN, as the backend's option.c checked it; the
 * worker refuses what it did not send.
 */
static uint32
option_number(const WcEngineOption *o)
{
	char		text[16];
	char	   *end;
	unsigned long v;

	if (o->value.len == 0 || o->value.len >= sizeof(text))
		wc_malformed("OPEN");
	memcpy(text, o->value.data, o->value.len);
	text[o->value.len] = '\0';
	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno != 0 || *end != '\0' || v > PG_UINT32_MAX || text[0] < '0' || text[0] > '9')
		wc_malformed("OPEN");
	return (uint32) v;
}

/*
 * The LevelDB options of an OPEN (the server's cache_mb, write_buffer_mb,
 * bloom_bits and compression, as numbers).
 */
static void
read_options(const WcOpenRequest *req, WcDbOptions *opts)
{
	for (int i = 0; i < req->noptions; i++)
	{
		const WcEngineOption *o = &req->options[i];

		if (WC_ENGINE_OPTION_IS(o, "cache_mb"))
			opts->cache_mb = option_number(o);
		else if (WC_ENGINE_OPTION_IS(o, "write_buffer_mb"))
			opts->write_buffer_mb = option_number(o);
		else if (WC_ENGINE_OPTION_IS(o, "bloom_bits"))
			opts->bloom_bits = option_number(o);
		else if (WC_ENGINE_OPTION_IS(o, "compression"))
			opts->compression = option_number(o) != 0;
		else
			ereport(ERROR,
					(errcode(ERRCODE_PROTOCOL_VIOLATION),
					 errmsg("request from a backend names unknown LevelDB option \"%.*s\"",
							(int) o->name.len, (const char *) o->name.data)));
	}
}

/*
 * The database of the worker's list in the directory path, however it is
 * named ("/x" and "/x/", a symlink, a bind mount): opened twice in this
 * process, LevelDB would take its lock twice (the lock is per process), and
 * the second open's recovery would remove the first's live log.
 */
static WcOpenDb *
find_open(const char *path)
{
	struct stat st;
	bool		exists = stat(path, &st) == 0;
	WcDatabase *db;

	for (uint32 id = 0; (db = wc_db_nth(id)) != NULL; id++)
	{
		WcOpenDb   *odb = ldb_odb(db);

		if (!ldb_odb_mine(odb))
			continue;
		if (strcmp(odb->path, path) == 0 ||
			(exists && odb->have_file_id && odb->dev == st.st_dev && odb->ino == st.st_ino))
			return odb;
	}
	return NULL;
}

/* A database not open yet, opened and added to the worker's list. */
static WcOpenDb *
open_new(const char *path, const WcDbOptions *opts, const WcEngine *engine)
{
	MemoryContext old = MemoryContextSwitchTo(wc_worker_cxt);
	WcOpenDb   *odb = palloc0(sizeof(WcOpenDb));
	struct stat st;

	odb->base.engine = engine;
	odb->path = pstrdup(path);
	odb->base.name = odb->path;
	odb->opts = *opts;
	ldb_reopen(odb);
	if (stat(odb->path, &st) == 0)
	{
		odb->have_file_id = true;
		odb->dev = st.st_dev;
		odb->ino = st.st_ino;
	}
	MemoryContextSwitchTo(old);
	wc_db_add(&odb->base);
	return odb;
}

/*
 * ldb_open
 *		The database at a path, opened if it is not open yet (by engine:
 *		this one, which engine.c names).
 */
WcOpenDb *
ldb_open(const WcOpenRequest *req, const WcEngine *engine)
{
	char	   *path = pnstrdup((const char *) req->target.data, req->target.len);
	WcDbOptions opts = {0};
	WcOpenDb   *odb;

	read_options(req, &opts);
	canonicalize_path(path);
	odb = find_open(path);
	if (odb == NULL)
		return open_new(path, &opts, engine);
	if (odb->db == NULL)
		ldb_reopen(odb);
	return odb;
}

/* A failure of the start's pass over path, logged: its first use reports it. */
static void
log_settle_failure(const char *path, MemoryContext cxt)
{
	ErrorData  *edata = wc_caught_error(cxt);

	ereport(LOG,
			(errmsg("widecolumn_fdw storage worker could not settle the commits of LevelDB database \"%s\" at its start: %s",
					path, edata->message),
			 errdetail("They are settled when the database is next used.")));
	FreeErrorData(edata);
}

/*
 * Open path with the settings opts, settle its commits and close it again
 * (ldb_settle_registered); the number of commits left unsettled, -1 if
 * it could not.
 */
static int
settle_one(const char *path, const WcDbOptions *opts)
{
	WcOpenDb   *odb = palloc0(sizeof(WcOpenDb));
	MemoryContext old = CurrentMemoryContext;
	volatile int left = 0;

	odb->path = (char *) path;
	odb->base.name = odb->path;
	odb->opts = *opts;
	PG_TRY();
	{
		odb->db = storage_open(path, &odb->opts);
		ldb_redo_replay(odb);
		ldb_recover(odb);
		ldb_xacts_load(odb);
		left = ldb_xacts_settle_closing(odb);
	}
	PG_CATCH();
	{
		log_settle_failure(path, old);
		ldb_xacts_free(odb);
		left = -1;
	}
	PG_END_TRY();
	if (odb->db != NULL)
		storage_close(odb->db);
	pfree(odb);
	return left;
}

/* ldb_settle_registered's step for one registered database. */
static bool
settle_registered(const char *path, void *arg)
{
	MemoryContext old = CurrentMemoryContext;
	WcDbOptions opts;
	int			left;
	WcOpenDb   *known = find_open(path);

	/* one its first use could not open yet (in recovery, say) is settled */
	if (known != NULL && known->db != NULL)
		return true;
	if (!storage_exists(path))
	{
		/* gone, or not mounted yet: it may need the WAL the slot keeps */
		ldb_redo_opened(path, false);
		return true;
	}
	if (!settings_read(path, &opts))
		opts = unknown_settings;
	left = settle_one(path, &opts);
	/* one it could not open may need WAL kept for redo (redolog.c) */
	ldb_redo_opened(path, left >= 0);
	if (left <= 0)
		return true;
	PG_TRY();
	{
		if (known != NULL)
		{
			known->opts = opts;
			ldb_reopen(known);
		}
		else
			(void) open_new(path, &opts, &wc_leveldb_engine);
	}
	PG_CATCH();
	{
		log_settle_failure(path, old);
	}
	PG_END_TRY();
	return true;
}

/*
 * ldb_settle_registered
 *		At the worker's start: every database this cluster created is
 *		opened, has its commits settled, and is closed again, or kept open
 *		while some of them cannot be settled yet.
 *
 * A database is otherwise opened at its first use.  A writer that aborted
 * in a crash, between its store and its commit record, leaves a record
 * that only an open database settles (xacts.c).  Were the database not
 * used again until vacuum truncated the commit log past the writer, the
 * record would read as settled and committed, and the aborted writes as
 * visible.  With no read open yet, an aborted writer's entries go even
 * while the horizon holds them.  A writer still running (a prepared
 * transaction) keeps its database open, so that the main loop settles its
 * end in time.  Each
 * database is opened with the settings it was last opened with (or, with
 * none written, unknown_settings); one that cannot be opened is left for
 * its first use, and one already open under another name is skipped.  Not
 * during recovery, a standby's commit log being behind the primary's: false
 * then, and the worker's main loop calls again once recovery has ended.
 */
bool
ldb_settle_registered(void)
{
	if (RecoveryInProgress())
		return false;
	registry_each(settle_registered, NULL);
	ldb_redo_pass_done();
	return true;
}

/*
 * ldb_close_after_failure
 *		Close a database a write failed on, so that it can be reopened.
 *
 * The scans and snapshots of every backend on it go first (LevelDB needs
 * them gone before closing); their next use is an error.
 */
void
ldb_close_after_failure(WcOpenDb *odb)
{
	wc_clients_lose_db(&odb->base);
	storage_close(odb->db);
	odb->db = NULL;
	ereport(LOG,
			(errmsg("widecolumn_fdw is reopening LevelDB database \"%s\" after a failed write",
					odb->path)));
}

/* At the worker's end: nothing left to redo in odb (redolog.c). */
static void
sync_at_end(WcOpenDb *odb)
{
	MemoryContext old = CurrentMemoryContext;

	PG_TRY();
	{
		ldb_redo_sync(odb, true);
	}
	PG_CATCH();
	{
		ErrorData  *edata = wc_caught_error(old);

		ereport(LOG,
				(errmsg("widecolumn_fdw storage worker could not sync LevelDB database \"%s\" at its end: %s",
						odb->path, edata->message),
				 errdetail("Its last commits are redone from WAL when it is next opened.")));
		FreeErrorData(edata);
	}
	PG_END_TRY();
}

/*
 * ldb_close_all
 *		Close every database, at exit, after the backends' scans and
 *		snapshots are gone.
 */
void
ldb_close_all(void)
{
	WcDatabase *db;

	for (uint32 id = 0; (db = wc_db_nth(id)) != NULL; id++)
	{
		WcOpenDb   *odb = ldb_odb(db);

		if (!ldb_odb_mine(odb))
			continue;
		ldb_heat_store(odb, true);
		if (odb->db)
		{
			sync_at_end(odb);
			storage_close(odb->db);
		}
		odb->db = NULL;
	}
}
