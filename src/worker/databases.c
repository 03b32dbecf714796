/*-------------------------------------------------------------------------
 *
 * databases.c
 *	  The storage worker's open LevelDB databases: finding or opening one
 *	  by path, the registry of the databases this cluster created, and
 *	  reopening a database after a failed write.
 *
 * A database's id is its position in open_dbs, which only grows; a
 * database closed after a failed write keeps its id and is opened again at
 * its next use.  Closing it takes every backend's scans and snapshots on it
 * first (LevelDB needs them gone), and their next use is an error.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>

#include "storage/fd.h"
#include "utils/memutils.h"

#include "common/shmem.h"
#include "worker/worker.h"

static List *open_dbs = NIL;	/* WcOpenDb, index is the db id */

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

/*
 * wc_db_lookup
 *		The database a request names by id, opened again if a failed write
 *		closed it.
 */
WcOpenDb *
wc_db_lookup(uint32 id)
{
	WcOpenDb   *odb;

	if (id >= (uint32) list_length(open_dbs))
		ereport(ERROR,
				(errcode(ERRCODE_PROTOCOL_VIOLATION),
				 errmsg("request from a backend names unknown database %u", id)));
	odb = list_nth(open_dbs, id);
	if (odb->db == NULL)
		wc_db_reopen(odb);
	return odb;
}

/* The database of id, open or not, or NULL past the last (the sweep's walk). */
WcOpenDb *
wc_db_nth(uint32 id)
{
	return id < (uint32) list_length(open_dbs) ? list_nth(open_dbs, id) : NULL;
}

/*
 * wc_db_open
 *		The id of the database at a path, opened if it is not open yet.
 */
uint32
wc_db_open(const WcOpenRequest *req)
{
	char	   *path = pnstrdup((const char *) req->path.data, req->path.len);
	ListCell   *lc;
	WcOpenDb   *odb;
	uint32		id = 0;
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
	foreach(lc, open_dbs)
	{
		odb = lfirst(lc);
		if (strcmp(odb->path, path) == 0 ||
			(exists && odb->have_file_id && odb->dev == st.st_dev && odb->ino == st.st_ino))
		{
			if (odb->db == NULL)
				wc_db_reopen(odb);
			return id;
		}
		id++;
	}

	old = MemoryContextSwitchTo(wc_worker_cxt);
	odb = palloc0(sizeof(WcOpenDb));
	odb->path = pstrdup(path);
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
	open_dbs = lappend(open_dbs, odb);
	MemoryContextSwitchTo(old);
	return list_length(open_dbs) - 1;
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
 * wc_check_lost
 *		If wc_db_close_after_failure took the backend's scan or snapshot id,
 *		say so (an error); forget it if the backend is letting go of it.
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
				 errmsg("could not go on reading LevelDB database \"%s\": its snapshot is gone",
						l->odb->path),
				 errdetail("The storage worker reopened the database after a write to it failed, and the snapshots open on it went with it."),
				 errhint("Retry the transaction.")));
	}
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
				wc_snapshot_let_go(cs);
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

/*
 * wc_db_close_all
 *		Close every database, at exit, after the backends' scans and
 *		snapshots are gone.
 */
void
wc_db_close_all(void)
{
	ListCell   *lc;

	foreach(lc, open_dbs)
	{
		WcOpenDb   *odb = lfirst(lc);

		wc_heat_store(odb, true);
		if (odb->db)
			storage_close(odb->db);
		odb->db = NULL;
	}
}
