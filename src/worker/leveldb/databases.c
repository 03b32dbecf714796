/*-------------------------------------------------------------------------
 *
 * databases.c
 *	  The storage worker's open LevelDB databases: finding or opening one
 *	  by path, the registry of the databases this cluster created, and
 *	  reopening a database after a failed write.
 *
 * A database's id is its place in the worker's list (runtime/state.c); a
 * database closed after a failed write keeps its id and is opened again at
 * its next use (wc_db_ready).  Closing it takes every backend's scans and
 * snapshots on it first (LevelDB needs them gone), and their next use is
 * an error (runtime/clients.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>

#include "storage/fd.h"
#include "utils/memutils.h"

#include "common/shmem.h"
#include "worker/leveldb/leveldb.h"

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

/*
 * wc_db_reopen
 *		Open odb's database, refusing to recreate one that has disappeared,
 *		and roll back a commit a crash interrupted.
 */
void
wc_db_reopen(WcOpenDb *odb)
{
	if (!storage_exists(odb->path) && registry_has(odb->path))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FILE),
				 errmsg("LevelDB database \"%s\" is missing", odb->path),
				 errdetail("This cluster created a database there, but its directory or CURRENT file is gone."),
				 errhint("Restore the directory or mount the volume that holds it. To start again with an empty database, remove its line from \"%s\" in the data directory.",
						 WC_REGISTRY)));
	wc_rowdrops_forget(odb);
	sizes_forget(odb);
	odb->db = storage_open(odb->path, &odb->opts);
	odb->commit_partial = false;
	PG_TRY();
	{
		registry_add(odb->path);
		cells_recover(odb);
		cells_load_clock(odb);
		wc_xacts_load(odb);
		wc_heat_load(odb);
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
wc_db_ready(WcDatabase *db)
{
	if (wc_odb(db)->db == NULL)
		wc_db_reopen(wc_odb(db));
}

/*
 * wc_leveldb_open
 *		The database at a path, opened if it is not open yet.
 */
WcOpenDb *
wc_leveldb_open(const WcOpenRequest *req)
{
	char	   *path = pnstrdup((const char *) req->path.data, req->path.len);
	WcDatabase *db;
	WcOpenDb   *odb;
	struct stat st;
	bool		exists;
	MemoryContext old;

	/*
	 * One directory, however it is named ("/x" and "/x/", a symlink, a bind
	 * mount), is one database: opened twice in this process, LevelDB would
	 * take its lock twice (the lock is per process), and the second open's
	 * recovery would remove the first's live log.
	 */
	canonicalize_path(path);
	exists = stat(path, &st) == 0;
	for (uint32 id = 0; (db = wc_db_nth(id)) != NULL; id++)
	{
		if (db->engine != &wc_leveldb_engine)
			continue;
		odb = wc_odb(db);
		if (strcmp(odb->path, path) == 0 ||
			(exists && odb->have_file_id && odb->dev == st.st_dev && odb->ino == st.st_ino))
		{
			if (odb->db == NULL)
				wc_db_reopen(odb);
			return odb;
		}
	}

	old = MemoryContextSwitchTo(wc_worker_cxt);
	odb = palloc0(sizeof(WcOpenDb));
	odb->base.engine = &wc_leveldb_engine;
	odb->path = pstrdup(path);
	odb->base.name = odb->path;
	odb->opts.cache_mb = req->cache_mb;
	odb->opts.write_buffer_mb = req->write_buffer_mb;
	odb->opts.bloom_bits = req->bloom_bits;
	odb->opts.compression = req->compression;
	wc_db_reopen(odb);
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
 * wc_db_close_after_failure
 *		Close a database a write failed on, so that it can be reopened.
 *
 * The scans and snapshots of every backend on it go first (LevelDB needs
 * them gone before closing); their next use is an error.
 */
void
wc_db_close_after_failure(WcOpenDb *odb)
{
	wc_clients_lose_db(&odb->base);
	storage_close(odb->db);
	odb->db = NULL;
	ereport(LOG,
			(errmsg("widecolumn_fdw is reopening LevelDB database \"%s\" after a failed write",
					odb->path)));
}

/*
 * wc_db_close_all
 *		Close every database, at exit, after the backends' scans and
 *		snapshots are gone.
 */
void
wc_db_close_all(void)
{
	WcDatabase *db;

	for (uint32 id = 0; (db = wc_db_nth(id)) != NULL; id++)
	{
		WcOpenDb   *odb = wc_odb(db);

		if (db->engine != &wc_leveldb_engine)
			continue;
		wc_heat_store(odb, true);
		if (odb->db)
			storage_close(odb->db);
		odb->db = NULL;
	}
}
