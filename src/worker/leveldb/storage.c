/*-------------------------------------------------------------------------
 *
 * storage.c
 *	  The wall around LevelDB.
 *
 * The only file that includes <leveldb/c.h>, and it runs only in the storage
 * worker.  Every LevelDB error string is freed here and turned into an
 * ereport with a fitting SQLSTATE, so the rest of the code never sees
 * errptr.  Iterator keys and values are valid only until the next move;
 * callers copy what they keep.  Small commits are written by a thread of
 * the worker's, the commit writer (commitwriter.c), through
 * storage_write_group, so that fsync does not stop the worker.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include <leveldb/c.h>

#include "common/file_perm.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/fd.h"
#include "lib/stringinfo.h"
#include "utils/memutils.h"

#include "worker/runtime/failure.h"
#include "worker/leveldb/storage.h"

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
	uint64		compactions;	/* ranges given to the compactor */
	pg_atomic_uint64 writes;	/* batches written, by either thread */
	off_t		log_size;		/* a memtable's: what a log is allocated to */
	uint64		log_allocated;	/* the number of the log last allocated */
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
	int			refs;			/* storage_snapshot_share's, plus one */
};

struct WcBatch
{
	leveldb_writebatch_t *wb;
	size_t		bytes;
};

/* What we were doing when LevelDB failed, for the error message. */
typedef enum WcStorageOp
{
	WC_OP_WARM_UP,
	WC_OP_OPEN,
	WC_OP_READ,
	WC_OP_WRITE
} WcStorageOp;

static void raise_leveldb_error(char *msg, WcStorageOp op, const char *path) pg_attribute_noreturn();
static void report_leveldb_error(char *err, WcStorageOp op, const char *path) pg_attribute_noreturn();

/* The synced writes and log syncs of the worker's main thread. */
static uint64 main_fsyncs = 0;

/* The compactor's thread (storage_compact_start). */
static struct
{
	bool		running;
	pthread_t	thread;
	WcDb	   *db;
	char	   *start;
	size_t		slen;
	char	   *end;			/* NULL: to the end */
	size_t		elen;
	volatile bool done;
} compactor;

/*
 * raise_leveldb_error
 *		Raise LevelDB's message (palloc'd) as an ERROR with a fitting code.
 */
static int
leveldb_error_code(const char *msg)
{
	if (strstr(msg, "No space left") != NULL)
		return ERRCODE_DISK_FULL;
	if (strncmp(msg, "Corruption", 10) == 0)
		return ERRCODE_DATA_CORRUPTED;
	if (strstr(msg, "lock") != NULL && strstr(msg, "temporarily unavailable") != NULL)
		return ERRCODE_OBJECT_IN_USE;
	return ERRCODE_IO_ERROR;
}

#define WC_HINT_CORRUPTED \
	"Restore the database's directory from a backup: LevelDB neither skips nor repairs damaged records."

static void
raise_leveldb_error(char *msg, WcStorageOp op, const char *path)
{
	int			code = leveldb_error_code(msg);

	ereport(ERROR,
			(errcode(code),
			 op == WC_OP_OPEN ? errmsg("could not open LevelDB database \"%s\"", path) :
			 op == WC_OP_READ ? errmsg("could not read LevelDB database \"%s\"", path) :
			 op == WC_OP_WRITE ? errmsg("could not write to LevelDB database \"%s\"", path) :
			 errmsg("could not start LevelDB's background thread in \"%s\"", path),
			 errdetail("LevelDB reported: %s", msg),
			 code == ERRCODE_DATA_CORRUPTED ?
			 errhint(WC_HINT_CORRUPTED) :
			 code == ERRCODE_OBJECT_IN_USE ?
			 errhint("Another process holds this LevelDB database open; only one process may use it at a time.") : 0));
}

/* Free LevelDB's message and raise it as an ERROR with a fitting code. */
static void
report_leveldb_error(char *err, WcStorageOp op, const char *path)
{
	char	   *msg = pstrdup(err);

	leveldb_free(err);
	raise_leveldb_error(msg, op, path);
}

/*
 * storage_start_background_thread
 *		Make LevelDB start its compaction thread with every signal blocked.
 *
 * LevelDB starts one background thread the first time any database needs a
 * compaction, and a thread inherits the signal mask of the thread that made
 * it.  PostgreSQL's signal handlers must run on the worker's own thread, so
 * we force that start here, with signals blocked, by compacting a scratch
 * database once, beside the servers' databases.
 *
 * The worker does it as it starts, with elevel WARNING: if it cannot (the
 * directory is not writable), it goes on, and storage_open tries again with
 * ERROR before it opens any database, so that the sessions get the error
 * and a fixed directory needs no restart.  Dying instead would only have the
 * postmaster start the worker again every second, and every session told
 * that it is not running.
 */
void
storage_start_background_thread(int elevel)
{
	static bool started = false;
	char		path[MAXPGPATH];
	leveldb_options_t *opts;
	leveldb_writeoptions_t *wo;
	leveldb_t  *db;
	char	   *err = NULL;
	char	   *destroy_err = NULL;
	sigset_t	all,
				old;

	if (started)
		return;
	snprintf(path, sizeof(path), "%s/widecolumn_fdw/.warmup.%d", DataDir, MyProcPid);
	if (pg_mkdir_p(path, pg_dir_create_mode) != 0 && errno != EEXIST)
	{
		ereport(elevel,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", path),
				 elevel < ERROR ?
				 errdetail("No widecolumn_fdw table can be read or written until it can be created.") : 0));
		return;
	}

	opts = leveldb_options_create();
	wo = leveldb_writeoptions_create();
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

	leveldb_destroy_db(opts, path, &destroy_err);
	if (destroy_err != NULL)
		leveldb_free(destroy_err);
	leveldb_writeoptions_destroy(wo);
	leveldb_options_destroy(opts);
	if (err == NULL)
		started = true;
	else if (elevel >= ERROR)
		report_leveldb_error(err, WC_OP_WARM_UP, path);
	else
	{
		ereport(elevel,
				(errcode(leveldb_error_code(err)),
				 errmsg("could not start LevelDB's background thread in \"%s\"", path),
				 errdetail("LevelDB reported: %s", err)));
		leveldb_free(err);
	}
}

/*
 * storage_open
 *		Open (creating if needed) the database at path.
 */
WcDb *
storage_open(const char *path, const WcDbOptions *o)
{
	/*
	 * It lives until storage_close, whatever request opened it (a database
	 * is reopened in the middle of one, after a failed write).
	 */
	WcDb	   *d = MemoryContextAllocZero(TopMemoryContext, sizeof(WcDb));
	char	   *err = NULL;
	sigset_t	all,
				old;

	storage_start_background_thread(ERROR);
	if (pg_mkdir_p(pstrdup(path), pg_dir_create_mode) != 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", path)));

	d->path = MemoryContextStrdup(TopMemoryContext, path);
	d->options = leveldb_options_create();
	leveldb_options_set_create_if_missing(d->options, 1);
	/*
	 * A damaged record is an error, not skipped: recovering a log past one
	 * would apply the batches after it and not those in it, and a commit
	 * split into batches would come back in part.
	 */
	leveldb_options_set_paranoid_checks(d->options, 1);
	leveldb_options_set_write_buffer_size(d->options,
										  (size_t) o->write_buffer_mb * 1024 * 1024);
	leveldb_options_set_max_open_files(d->options, 500);
	leveldb_options_set_block_size(d->options, 16 * 1024);
	leveldb_options_set_compression(d->options,
									o->compression ? leveldb_snappy_compression : leveldb_no_compression);
	/*
	 * Always a cache of our own: without one LevelDB makes an 8 MB one, and
	 * a capacity of 0 is LevelDB's way of caching nothing.
	 */
	d->cache = leveldb_cache_create_lru((size_t) o->cache_mb * 1024 * 1024);
	leveldb_options_set_cache(d->options, d->cache);
	if (o->bloom_bits > 0)
	{
		d->filter = leveldb_filterpolicy_create_bloom((int) o->bloom_bits);
		leveldb_options_set_filter_policy(d->options, d->filter);
	}
	pg_atomic_init_u64(&d->writes, 0);
	d->sync_write = leveldb_writeoptions_create();
	leveldb_writeoptions_set_sync(d->sync_write, 1);
	d->async_write = leveldb_writeoptions_create();
	leveldb_writeoptions_set_sync(d->async_write, 0);

	/* what storage_allocate_log allocated and nothing wrote (logfiles.c) */
	ldb_logs_trim(path);

	/* LevelDB may start threads here; they must not take our signals. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	d->db = leveldb_open(d->options, path, &err);
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	if (err != NULL)
	{
		storage_close(d);
		report_leveldb_error(err, WC_OP_OPEN, path);
	}
	d->log_size = (off_t) o->write_buffer_mb * 1024 * 1024;
	storage_allocate_log(d);
	return d;
}

void
storage_close(WcDb *d)
{
	/* The commit writer may be writing to it, the compactor compacting it. */
	storage_writer_drain();
	if (compactor.running && compactor.db == d)
		storage_compact_wait();
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
	if (d->path)
		pfree(d->path);
	pfree(d);
}

WcSnap *
storage_snapshot(WcDb *d)
{
	WcSnap	   *s = MemoryContextAlloc(TopMemoryContext, sizeof(WcSnap));

	s->snap = leveldb_create_snapshot(d->db);
	s->refs = 1;
	return s;
}

/* One more holder of snapshot s: each lets go with storage_release. */
WcSnap *
storage_snapshot_share(WcSnap *s)
{
	s->refs++;
	return s;
}

void
storage_release(WcDb *d, WcSnap *s)
{
	if (--s->refs > 0)
		return;
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
	/* a damaged block is an error, not data (blocks in the cache are not read again) */
	leveldb_readoptions_set_verify_checksums(i->ropts, 1);
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

/*
 * storage_iter_check
 *		Raise the error, if any, the iteration met: it passes over what it
 *		cannot read.  With wc_fail, as scans run on the reader threads.
 */
void
storage_iter_check(WcIter *i)
{
	char	   *err = NULL;
	char		msg[1024];
	char		what[MAXPGPATH + 64];

	leveldb_iter_get_error(i->it, &err);
	if (err == NULL)
		return;
	snprintf(msg, sizeof(msg), "%s", err);
	leveldb_free(err);
	snprintf(what, sizeof(what), "could not read LevelDB database \"%s\"", i->path);
	wc_fail(leveldb_error_code(msg), what,
			leveldb_error_code(msg) == ERRCODE_DATA_CORRUPTED ? WC_HINT_CORRUPTED : NULL,
			"LevelDB reported: %s", msg);
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

/*
 * The batch's entries in order, for the WAL record of a logged commit
 * (redolog.c): for each, a byte 1 (put) or 0 (delete), the key's length
 * (4 bytes, native order: the record is read back by this build on this
 * machine), the key, and for a put the value's length and the value.
 */
static void
encode_put(void *state, const char *k, size_t klen, const char *v, size_t vlen)
{
	StringInfo	out = state;
	uint32		len = (uint32) klen;

	appendStringInfoChar(out, 1);
	appendBinaryStringInfo(out, (const char *) &len, sizeof(len));
	appendBinaryStringInfo(out, k, klen);
	len = (uint32) vlen;
	appendBinaryStringInfo(out, (const char *) &len, sizeof(len));
	appendBinaryStringInfo(out, v, vlen);
}

static void
encode_delete(void *state, const char *k, size_t klen)
{
	StringInfo	out = state;
	uint32		len = (uint32) klen;

	appendStringInfoChar(out, 0);
	appendBinaryStringInfo(out, (const char *) &len, sizeof(len));
	appendBinaryStringInfo(out, k, klen);
}

void
storage_batch_encode(WcBatch *b, StringInfo out)
{
	leveldb_writebatch_iterate(b->wb, out, encode_put, encode_delete);
}

/* The batch storage_batch_encode wrote into data; NULL if it is not one. */
WcBatch *
storage_batch_decode(const char *data, size_t len)
{
	WcBatch    *b = storage_batch_new();
	const char *p = data;
	const char *end = data + len;

	while (p < end)
	{
		char		op = *p++;
		uint32		klen,
					vlen;
		const char *key;

		if (end - p < (ptrdiff_t) sizeof(klen))
			goto bad;
		memcpy(&klen, p, sizeof(klen));
		p += sizeof(klen);
		if ((size_t) (end - p) < klen)
			goto bad;
		key = p;
		p += klen;
		if (op == 0)
		{
			storage_batch_delete(b, (const uint8_t *) key, klen);
			continue;
		}
		if (op != 1 || end - p < (ptrdiff_t) sizeof(vlen))
			goto bad;
		memcpy(&vlen, p, sizeof(vlen));
		p += sizeof(vlen);
		if ((size_t) (end - p) < vlen)
			goto bad;
		storage_batch_put(b, (const uint8_t *) key, klen, (const uint8_t *) p, vlen);
		p += vlen;
	}
	return b;
bad:
	storage_batch_free(b);
	return NULL;
}

/* Apply the batch atomically; with sync, durably before returning. */
void
storage_write(WcDb *d, WcBatch *b, bool sync)
{
	char	   *err = NULL;

	leveldb_write(d->db, sync ? d->sync_write : d->async_write, b->wb, &err);
	main_fsyncs += sync;
	pg_atomic_fetch_add_u64(&d->writes, 1);
	if (err != NULL)
	{
		/*
		 * LevelDB 1.23 goes on appending to a log whose last write failed
		 * part-way, at the wrong offsets; what follows would be dropped as
		 * corrupt when the log is next read.  The caller must close and
		 * reopen the database, which starts a new log.
		 */
		d->write_failed = true;
		report_leveldb_error(err, WC_OP_WRITE, d->path);
	}
}

/*
 * storage_sync_logs
 *		Make every write so far durable: fdatasync each of the database's
 *		log files, then its directory.
 *
 * A large commit's batches are written without sync and made durable
 * together at its end (cells.c).  LevelDB appends each write to its current
 * log; when it switches memtables it starts a new log without syncing the
 * old one, and deletes the old one only once its memtable is in a table file
 * that it has synced.  So syncing the logs there are now covers every write
 * before: those in deleted logs are in synced table files.  A log deleted
 * while we list them is such a log.
 */
void
storage_sync_logs(WcDb *d)
{
	DIR		   *dir = AllocateDir(d->path);
	struct dirent *de;

	main_fsyncs++;
	/* (an error leaves the files to the worker's error path: take_error) */
	while ((de = ReadDir(dir, d->path)) != NULL)
	{
		size_t		len = strlen(de->d_name);
		char	   *path;
		int			fd;

		if (len < 4 || strcmp(de->d_name + len - 4, ".log") != 0)
			continue;
		path = psprintf("%s/%s", d->path, de->d_name);
		fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
		if (fd < 0 && errno == ENOENT)
			continue;
		if (fd < 0 || pg_fdatasync(fd) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not fsync file \"%s\": %m", path)));
		CloseTransientFile(fd);
		pfree(path);
	}
	FreeDir(dir);
	/* the names of the logs started since the directory was last synced */
	(void) fsync_fname_ext(d->path, true, false, ERROR);
}

/*
 * storage_allocate_log
 *		Allocate the database's current log ahead of its writes, if LevelDB
 *		has started one since the last call (logfiles.c).
 */
void
storage_allocate_log(WcDb *d)
{
	ldb_logs_allocate(d->path, d->log_size, &d->log_allocated);
}

/*
 * The handle's failed-write flag, for commitwriter.c: its thread reads it
 * before a write and sets it under the writer's mutex, which
 * storage_write_failed takes to read it.
 */
bool
storage_failed_flag(WcDb *d)
{
	return d->write_failed;
}

void
storage_set_failed_flag(WcDb *d)
{
	d->write_failed = true;
}

const char *
storage_db_path(WcDb *d)
{
	return d->path;
}

/*
 * storage_write_group
 *		Write the n batches as one LevelDB write, synced if sync; false, with
 *		LevelDB's message in err, if it failed.  The commit writer's write
 *		(commitwriter.c), on its thread: plain C.
 */
bool
storage_write_group(WcDb *d, WcBatch *const *b, int n, bool sync, char *err, size_t errlen)
{
	leveldb_writeoptions_t *wo = sync ? d->sync_write : d->async_write;
	char	   *msg = NULL;

	if (n == 1)
		leveldb_write(d->db, wo, b[0]->wb, &msg);
	else
	{
		leveldb_writebatch_t *all = leveldb_writebatch_create();

		for (int i = 0; i < n; i++)
			leveldb_writebatch_append(all, b[i]->wb);
		leveldb_write(d->db, wo, all, &msg);
		leveldb_writebatch_destroy(all);
	}
	pg_atomic_fetch_add_u64(&d->writes, 1);
	if (msg == NULL)
		return true;
	snprintf(err, errlen, "%s", msg);
	leveldb_free(msg);
	return false;
}

/*
 * storage_writes
 *		How many batches have been written to the database (a change of the
 *		number: its content may have changed).
 */
uint64
storage_writes(WcDb *d)
{
	return pg_atomic_read_u64(&d->writes);
}

/* Raise the commit writer's failed write (commitwriter.c). */
void
storage_raise_write_error(char *msg, const char *path)
{
	raise_leveldb_error(msg, WC_OP_WRITE, path);
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
 * The compactor: a thread that runs LevelDB's compaction of a key range,
 * which can take seconds, while the worker goes on serving (the sweep's
 * way to give back the space of what it deleted: worker/leveldb/sweep.c).  One at
 * a time; like the commit writer it calls nothing but LevelDB.
 */

static void *
compactor_main(void *arg)
{
	leveldb_compact_range(compactor.db->db, compactor.start, compactor.slen,
						  compactor.end, compactor.elen);
	__atomic_store_n(&compactor.done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * storage_compact_start
 *		Start compacting [start, end) (end NULL: to the end) in the
 *		compactor's thread; false if it is still busy with another range.
 */
bool
storage_compact_start(WcDb *d, const uint8_t *start, size_t slen,
					  const uint8_t *end, size_t elen)
{
	sigset_t	all,
				old;
	int			rc;

	if (compactor.running && !storage_compact_busy())
		storage_compact_wait();
	if (compactor.running)
		return false;
	/* malloc'd: the thread reads them */
	compactor.db = d;
	compactor.start = malloc(slen + 1);
	compactor.slen = slen;
	compactor.end = end ? malloc(elen + 1) : NULL;
	compactor.elen = end ? elen : 0;
	if (compactor.start == NULL || (end && compactor.end == NULL))
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	memcpy(compactor.start, start, slen);
	if (end)
		memcpy(compactor.end, end, elen);
	compactor.done = false;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&compactor.thread, NULL, compactor_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
	{
		free(compactor.start);
		free(compactor.end);
		ereport(ERROR,
				(errmsg("could not start the compactor thread: %s", strerror(rc))));
	}
	compactor.running = true;
	d->compactions++;
	return true;
}

/* Is the compactor still compacting? */
bool
storage_compact_busy(void)
{
	return compactor.running && !__atomic_load_n(&compactor.done, __ATOMIC_ACQUIRE);
}

/* Wait for the compactor to finish its range. */
void
storage_compact_wait(void)
{
	if (!compactor.running)
		return;
	pthread_join(compactor.thread, NULL);
	free(compactor.start);
	free(compactor.end);
	compactor.running = false;
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
	char	   *val;
	uint8_t    *copy = NULL;

	leveldb_readoptions_set_verify_checksums(ro, 1);
	val = leveldb_get(d->db, ro, (const char *) key, klen, vlen, &err);

	leveldb_readoptions_destroy(ro);
	if (err != NULL)
		report_leveldb_error(err, WC_OP_READ, d->path);
	if (val != NULL)
	{
		copy = palloc(*vlen + 1);
		memcpy(copy, val, *vlen);
		leveldb_free(val);
	}
	return copy;
}

/* The synced writes (and syncs of a large commit's logs) so far. */
uint64_t
storage_fsyncs(void)
{
	return main_fsyncs + storage_writer_fsyncs();
}

/* The ranges the worker has had LevelDB compact in the database. */
uint64_t
storage_compactions(WcDb *d)
{
	return d->compactions;
}

/* A LevelDB property of the database ("leveldb.stats"), palloc'd; NULL: none. */
char *
storage_property(WcDb *d, const char *name)
{
	char	   *v = leveldb_property_value(d->db, name);
	char	   *copy;

	if (v == NULL)
		return NULL;
	copy = pstrdup(v);
	leveldb_free(v);
	return copy;
}
