/*-------------------------------------------------------------------------
 *
 * storage.c
 *	  The wall around LevelDB.
 *
 * The only file that includes <leveldb/c.h>, and it runs only in the storage
 * worker.  Every LevelDB error string is freed here and turned into an
 * ereport with a fitting SQLSTATE, so the rest of the code never sees
 * errptr.  Iterator keys and values are valid only until the next move;
 * callers copy what they keep.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>
#include <sys/stat.h>
#include <leveldb/c.h>

#include "common/file_perm.h"
#include "miscadmin.h"
#include "storage.h"

struct WcDb
{
	leveldb_t  *db;
	leveldb_options_t *options;
	leveldb_cache_t *cache;
	leveldb_filterpolicy_t *filter;
	leveldb_writeoptions_t *sync_write;
	leveldb_writeoptions_t *async_write;
	char	   *path;
	bool		write_failed;	/* a write failed: the handle must be reopened */
};

struct WcIter
{
	leveldb_iterator_t *it;
	leveldb_readoptions_t *ropts;
	const char *path;
};

struct WcSnap
{
	const leveldb_snapshot_t *snap;
};

struct WcBatch
{
	leveldb_writebatch_t *wb;
	size_t		bytes;
};

/*
 * report_leveldb_error
 *		Free LevelDB's message and raise it as an ERROR with a fitting code.
 */
static void
report_leveldb_error(char *err, const char *what, const char *path)
{
	char	   *msg = pstrdup(err);
	int			code = ERRCODE_IO_ERROR;
	const char *hint = NULL;

	leveldb_free(err);
	if (strstr(msg, "No space left") != NULL)
		code = ERRCODE_DISK_FULL;
	else if (strncmp(msg, "Corruption", 10) == 0)
		code = ERRCODE_DATA_CORRUPTED;
	else if (strstr(msg, "lock") != NULL &&
			 strstr(msg, "temporarily unavailable") != NULL)
	{
		code = ERRCODE_OBJECT_IN_USE;
		hint = "Another process holds this LevelDB database open; only one process may use it at a time.";
	}

	ereport(ERROR,
			(errcode(code),
			 errmsg("could not %s LevelDB database \"%s\"", what, path),
			 errdetail("LevelDB reported: %s", msg),
			 hint ? errhint("%s", hint) : 0));
}

/*
 * storage_start_background_thread
 *		Make LevelDB start its compaction thread with every signal blocked.
 *
 * LevelDB starts one background thread the first time any database needs a
 * compaction, and a thread inherits the signal mask of the thread that made
 * it.  PostgreSQL's signal handlers must run on the worker's own thread, so
 * we force that start here, with signals blocked, by compacting a scratch
 * database once.
 */
void
storage_start_background_thread(void)
{
	char		path[MAXPGPATH];
	leveldb_options_t *opts = leveldb_options_create();
	leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
	leveldb_t  *db;
	char	   *err = NULL;
	sigset_t	all,
				old;

	snprintf(path, sizeof(path), "%s/widecolumn_fdw/.warmup.%d", DataDir, MyProcPid);
	if (pg_mkdir_p(path, pg_dir_create_mode) != 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", path)));
	leveldb_options_set_create_if_missing(opts, 1);

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	db = leveldb_open(opts, path, &err);
	if (db != NULL)
	{
		leveldb_put(db, wo, "k", 1, "v", 1, &err);
		if (err == NULL)
			leveldb_compact_range(db, NULL, 0, NULL, 0);
		leveldb_close(db);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	if (err != NULL)
		report_leveldb_error(err, "warm up", path);
	leveldb_destroy_db(opts, path, &err);
	if (err != NULL)
		leveldb_free(err);
	leveldb_writeoptions_destroy(wo);
	leveldb_options_destroy(opts);
}

/*
 * storage_open
 *		Open (creating if needed) the database at path.
 */
WcDb *
storage_open(const char *path, const WcDbOptions *o)
{
	WcDb	   *d = palloc0(sizeof(WcDb));
	char	   *err = NULL;
	sigset_t	all,
				old;

	if (pg_mkdir_p(pstrdup(path), pg_dir_create_mode) != 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", path)));

	d->path = pstrdup(path);
	d->options = leveldb_options_create();
	leveldb_options_set_create_if_missing(d->options, 1);
	leveldb_options_set_paranoid_checks(d->options, 0);
	leveldb_options_set_write_buffer_size(d->options,
										  (size_t) o->write_buffer_mb * 1024 * 1024);
	leveldb_options_set_max_open_files(d->options, 500);
	leveldb_options_set_block_size(d->options, 16 * 1024);
	leveldb_options_set_compression(d->options,
									o->compression ? leveldb_snappy_compression : leveldb_no_compression);
	if (o->cache_mb > 0)
	{
		d->cache = leveldb_cache_create_lru((size_t) o->cache_mb * 1024 * 1024);
		leveldb_options_set_cache(d->options, d->cache);
	}
	if (o->bloom_bits > 0)
	{
		d->filter = leveldb_filterpolicy_create_bloom((int) o->bloom_bits);
		leveldb_options_set_filter_policy(d->options, d->filter);
	}
	d->sync_write = leveldb_writeoptions_create();
	leveldb_writeoptions_set_sync(d->sync_write, 1);
	d->async_write = leveldb_writeoptions_create();
	leveldb_writeoptions_set_sync(d->async_write, 0);

	/* LevelDB may start threads here; they must not take our signals. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	d->db = leveldb_open(d->options, path, &err);
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	if (err != NULL)
	{
		storage_close(d);
		report_leveldb_error(err, "open", path);
	}
	return d;
}

void
storage_close(WcDb *d)
{
	if (d->db)
		leveldb_close(d->db);
	if (d->options)
		leveldb_options_destroy(d->options);
	if (d->cache)
		leveldb_cache_destroy(d->cache);
	if (d->filter)
		leveldb_filterpolicy_destroy(d->filter);
	if (d->sync_write)
		leveldb_writeoptions_destroy(d->sync_write);
	if (d->async_write)
		leveldb_writeoptions_destroy(d->async_write);
	pfree(d);
}

WcSnap *
storage_snapshot(WcDb *d)
{
	WcSnap	   *s = palloc(sizeof(WcSnap));

	s->snap = leveldb_create_snapshot(d->db);
	return s;
}

void
storage_release(WcDb *d, WcSnap *s)
{
	leveldb_release_snapshot(d->db, s->snap);
	pfree(s);
}

/*
 * storage_iter
 *		An iterator over snap (NULL: the latest state).
 *
 * fill_cache is off for large scans so that they do not evict the blocks
 * that point reads need.
 */
WcIter *
storage_iter(WcDb *d, WcSnap *snap, bool fill_cache)
{
	WcIter	   *i = palloc(sizeof(WcIter));

	i->ropts = leveldb_readoptions_create();
	leveldb_readoptions_set_fill_cache(i->ropts, fill_cache);
	if (snap)
		leveldb_readoptions_set_snapshot(i->ropts, snap->snap);
	i->it = leveldb_create_iterator(d->db, i->ropts);
	i->path = d->path;
	return i;
}

void
storage_iter_free(WcIter *i)
{
	leveldb_iter_destroy(i->it);
	leveldb_readoptions_destroy(i->ropts);
	pfree(i);
}

void
storage_iter_seek(WcIter *i, const uint8_t *key, size_t len)
{
	leveldb_iter_seek(i->it, (const char *) key, len);
}

void
storage_iter_seek_last(WcIter *i)
{
	leveldb_iter_seek_to_last(i->it);
}

bool
storage_iter_valid(WcIter *i)
{
	return leveldb_iter_valid(i->it);
}

void
storage_iter_next(WcIter *i)
{
	leveldb_iter_next(i->it);
}

/*
 * Step forward and take the key, in one call: a scan does this for every
 * entry.  False at the end (or on an error: see storage_iter_check).
 */
bool
storage_iter_next_key(WcIter *i, const uint8_t **key, size_t *len)
{
	leveldb_iter_next(i->it);
	if (!leveldb_iter_valid(i->it))
		return false;
	*key = (const uint8_t *) leveldb_iter_key(i->it, len);
	return true;
}

void
storage_iter_prev(WcIter *i)
{
	leveldb_iter_prev(i->it);
}

const uint8_t *
storage_iter_key(WcIter *i, size_t *len)
{
	return (const uint8_t *) leveldb_iter_key(i->it, len);
}

const uint8_t *
storage_iter_value(WcIter *i, size_t *len)
{
	return (const uint8_t *) leveldb_iter_value(i->it, len);
}

/* Raise the error, if any, that ended the iteration early. */
void
storage_iter_check(WcIter *i)
{
	char	   *err = NULL;

	leveldb_iter_get_error(i->it, &err);
	if (err != NULL)
		report_leveldb_error(err, "read", i->path);
}

WcBatch *
storage_batch_new(void)
{
	WcBatch    *b = palloc(sizeof(WcBatch));

	b->wb = leveldb_writebatch_create();
	b->bytes = 0;
	return b;
}

void
storage_batch_put(WcBatch *b, const uint8_t *key, size_t klen,
				  const uint8_t *val, size_t vlen)
{
	leveldb_writebatch_put(b->wb, (const char *) key, klen,
						   (const char *) val, vlen);
	b->bytes += klen + vlen;
}

void
storage_batch_delete(WcBatch *b, const uint8_t *key, size_t klen)
{
	leveldb_writebatch_delete(b->wb, (const char *) key, klen);
	b->bytes += klen;
}

/* Bytes of keys and values put into the batch since it was made or cleared. */
size_t
storage_batch_bytes(WcBatch *b)
{
	return b->bytes;
}

/* Empty the batch, keeping its memory for the next one. */
void
storage_batch_clear(WcBatch *b)
{
	leveldb_writebatch_clear(b->wb);
	b->bytes = 0;
}

void
storage_batch_free(WcBatch *b)
{
	leveldb_writebatch_destroy(b->wb);
	pfree(b);
}

/* Apply the batch atomically; with sync, durably before returning. */
void
storage_write(WcDb *d, WcBatch *b, bool sync)
{
	char	   *err = NULL;

	leveldb_write(d->db, sync ? d->sync_write : d->async_write, b->wb, &err);
	if (err != NULL)
	{
		/*
		 * LevelDB 1.23 goes on appending to a log whose last write failed
		 * part-way, at the wrong offsets; what follows would be dropped as
		 * corrupt when the log is next read.  The caller must close and
		 * reopen the database, which starts a new log.
		 */
		d->write_failed = true;
		report_leveldb_error(err, "write to", d->path);
	}
}

/* Did a write fail, so that the handle must not be written to again? */
bool
storage_write_failed(WcDb *d)
{
	return d->write_failed;
}

/* Does a LevelDB database exist at path? */
bool
storage_exists(const char *path)
{
	struct stat st;

	return stat(psprintf("%s/CURRENT", path), &st) == 0;
}

/* LevelDB's estimate of the bytes on disk between start and end. */
uint64_t
storage_approximate_size(WcDb *d, const uint8_t *start, size_t slen,
						 const uint8_t *end, size_t elen)
{
	const char *starts[1] = {(const char *) start};
	const char *ends[1] = {(const char *) end};
	size_t		slens[1] = {slen};
	size_t		elens[1] = {elen};
	uint64_t	size = 0;

	leveldb_approximate_sizes(d->db, 1, starts, slens, ends, elens, &size);
	return size;
}

/*
 * storage_get
 *		Read one key from the latest state; returns a palloc'd copy or NULL.
 */
uint8_t *
storage_get(WcDb *d, const uint8_t *key, size_t klen, size_t *vlen)
{
	leveldb_readoptions_t *ro = leveldb_readoptions_create();
	char	   *err = NULL;
	char	   *val = leveldb_get(d->db, ro, (const char *) key, klen, vlen, &err);
	uint8_t    *copy = NULL;

	leveldb_readoptions_destroy(ro);
	if (err != NULL)
		report_leveldb_error(err, "read", d->path);
	if (val != NULL)
	{
		copy = palloc(*vlen + 1);
		memcpy(copy, val, *vlen);
		leveldb_free(val);
	}
	return copy;
}
