/*-------------------------------------------------------------------------
 *
 * cellcommit.c
 *	  Writing rows: a transaction's mutations applied to LevelDB at its
 *	  commit, the clock that stamps them, and the recovery of a large
 *	  commit that a crash interrupted.
 *
 * A commit's mutations are applied as one WriteBatch, every entry stamped
 * with the same commit timestamp, taken from a clock that never runs
 * backwards (a bound on the timestamps given out is stored, so a restart or a
 * clock step cannot make a new write older than an old one).  A commit of
 * more than WC_COMMIT_CHUNK_BYTES is written in several batches, undone at
 * the next open if the worker dies between them (docs/format.md).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "storage/fd.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "worker/worker.h"

/*
 * The key holding the clock: a timestamp no commit has reached yet.  It sorts
 * before every table.  Rewriting it with every commit would put that low key
 * into every memtable, so that during a bulk load each flushed table file
 * would span the whole key space and LevelDB would merge them all, instead
 * of placing the load's sorted, disjoint files straight into a deeper level.
 * So it is written ahead, WC_CLOCK_AHEAD_US at a time: a commit writes it
 * only when its timestamp passes the stored one.
 */
static const uint8 clock_key[] = {0x00, 0x00, 'c', 'l', 'o', 'c', 'k'};

#define WC_CLOCK_AHEAD_US	(10 * USECS_PER_SEC)

/*
 * Read the stored clock, so that new commits sort after old ones.  Every
 * timestamp given out before is below it, so the next commits start there.
 */
void
cells_load_clock(WcOpenDb *odb)
{
	size_t		len;
	uint8	   *v = storage_get(odb->db, clock_key, sizeof(clock_key), &len);

	odb->last_commit_ts = 0;
	if (v != NULL && len == 8)
		memcpy(&odb->last_commit_ts, v, 8);
	odb->clock_stored = odb->last_commit_ts;
}

/* Test hook: a system clock this many seconds behind. */
int			wc_debug_clock_step_back = 0;

/* Microseconds since the Unix epoch: the clock commits are stamped by. */
uint64
cells_unix_micros(void)
{
	TimestampTz now = GetCurrentTimestamp() - (int64) wc_debug_clock_step_back * USECS_PER_SEC;

	return (uint64) (now + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY);
}

/*
 * A commit whose WRITE payloads come to more than this is written as several
 * LevelDB batches of about this size, so that LevelDB can switch memtables
 * and flush the first while the rest is being written, instead of holding
 * the whole load uncompressed in one memtable and its log.  The worker writes
 * them one after the other without serving any other request in between, so
 * no snapshot sees part of the commit; a crash in between is undone at the
 * next open, from the pending-commit file.
 */
#define WC_COMMIT_CHUNK_BYTES	(4 * 1024 * 1024)

/*
 * The record of a commit whose batches are not all written: u64 timestamp,
 * then str lowest row prefix, str highest row prefix.  It is a file in the
 * database's directory, not a LevelDB entry, for the clock's reason: an entry
 * written before the first batch and deleted with the last would make the
 * last memtable span the whole load.  LevelDB leaves files it does not name
 * alone.
 */
#define WC_PENDING_FILE "widecolumn-pending-commit"

typedef struct WcCommit
{
	WcOpenDb   *odb;
	WcBatch    *batch;
	bool		sync;
	bool		chunked;		/* written in several batches */
	uint64		ts;
	int			batches;		/* written so far */
	StringInfo	lowest;			/* the lowest and highest row prefix */
	StringInfo	highest;
} WcCommit;

static char *
pending_path(WcOpenDb *odb)
{
	return psprintf("%s/%s", odb->path, WC_PENDING_FILE);
}

/*
 * Write the pending-commit file, before the first batch.  With sync on it
 * reaches the disk first, so that no batch can survive a crash without it.
 */
static void
pending_write(WcCommit *cm)
{
	char	   *path = pending_path(cm->odb);
	char	   *tmp = psprintf("%s.tmp", path);
	StringInfoData rec;
	int			fd;

	initStringInfo(&rec);
	appendBinaryStringInfo(&rec, (const char *) &cm->ts, 8);
	wc_put_bytes(&rec, cm->lowest->data, cm->lowest->len);
	wc_put_bytes(&rec, cm->highest->data, cm->highest->len);

	fd = OpenTransientFile(tmp, O_CREAT | O_TRUNC | O_WRONLY | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", tmp)));
	errno = 0;
	if (write(fd, rec.data, rec.len) != rec.len)
	{
		if (errno == 0)
			errno = ENOSPC;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", tmp)));
	}
	if (CloseTransientFile(fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", tmp)));
	if (cm->sync)
		durable_rename(tmp, path, ERROR);
	else if (rename(tmp, path) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not rename file \"%s\" to \"%s\": %m", tmp, path)));
	pfree(rec.data);
	pfree(tmp);
	pfree(path);
}

/*
 * Remove the pending-commit file: from then on the commit stands.  Until it
 * is gone (durably, with sync on) the commit can still be rolled back, so an
 * error here closes the database and the next open does so.
 */
static void
pending_remove(WcOpenDb *odb, bool sync)
{
	char	   *path = pending_path(odb);

	if (sync)
		durable_unlink(path, ERROR);
	else if (unlink(path) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not remove file \"%s\": %m", path)));
	pfree(path);
	odb->commit_partial = false;
}

/*
 * Put the clock in the commit's (first) batch if the commit's timestamp has
 * passed the stored one.  clock_stored moves at once: if the write fails,
 * the database is reopened, which reads the stored clock again.
 */
static void
commit_add_clock(WcCommit *cm)
{
	uint64		clock = cm->ts + WC_CLOCK_AHEAD_US;

	if (cm->ts > cm->odb->clock_stored)
	{
		storage_batch_put(cm->batch, clock_key, sizeof(clock_key), (uint8 *) &clock, 8);
		cm->odb->clock_stored = clock;
	}
}

/* Test hook: die (as kill -9 would) after this many batches of a commit. */
int			wc_debug_crash_after_commit_batches = 0;

/*
 * commit_write_batch
 *		Write the batch built so far.  The first carries the clock when the
 *		commit's timestamp has passed it.  None is synced on its own: when
 *		the commit is, all are made durable together after the last
 *		(storage_sync_logs), before the pending-commit file is removed, so
 *		that no batch can be lost once the commit counts as done.
 */
static void
commit_write_batch(WcCommit *cm, bool last)
{
	if (cm->batches == 0)
		commit_add_clock(cm);
	storage_write(cm->odb->db, cm->batch, false);
	storage_batch_clear(cm->batch);
	cm->batches++;
	/* Part of it is in LevelDB: until the file is removed, undo it. */
	if (cm->chunked)
		cm->odb->commit_partial = true;

	if (!last && wc_debug_crash_after_commit_batches > 0 &&
		cm->batches >= wc_debug_crash_after_commit_batches)
		raise(SIGKILL);
}

/*
 * Add one cell (or the row tombstone, with tag -1) to the batch.  key holds
 * the row's prefix, plen bytes; the cell's family, qualifier and timestamp
 * go after it.
 */
static void
commit_put(WcCommit *cm, StringInfo key, StringInfo val, size_t plen,
		   const uint8 *fq, size_t fqlen,
		   const uint8 *tsbuf, int tag, const uint8 *v, size_t vlen)
{
	key->len = plen;
	appendBinaryStringInfo(key, (const char *) fq, fqlen);
	appendBinaryStringInfo(key, (const char *) tsbuf, WC_TS_LEN);
	if (tag < 0)
	{
		storage_batch_put(cm->batch, (uint8 *) key->data, key->len, NULL, 0);
		return;
	}
	resetStringInfo(val);
	appendStringInfoChar(val, (char) tag);
	appendBinaryStringInfo(val, (const char *) v, vlen);
	storage_batch_put(cm->batch, (uint8 *) key->data, key->len,
					  (uint8 *) val->data, val->len);
}

/*
 * A version at a timestamp the backend chose (a cells-layout table's
 * INSERT or UPDATE), or the removal of exactly that version (its DELETE),
 * or of the version this commit writes in that cell (a DELETE of a version
 * the transaction wrote at commit time: the batch puts it, then deletes it).
 */
static void
commit_exact(WcCommit *cm, StringInfo key, size_t plen, const WcCellWrite *cell,
			 StringInfo val)
{
	uint8		tsbuf[WC_TS_LEN];

	/* the removal of a version this commit writes: at its own time */
	wc_encode_ts(cell->now ? cm->ts : cell->ts, tsbuf);
	if (cell->present)
	{
		commit_put(cm, key, val, plen, cell->famqual.data, cell->famqual.len, tsbuf,
				   WC_VALUE_PRESENT, cell->value.data, cell->value.len);
		return;
	}
	key->len = plen;
	appendBinaryStringInfo(key, (const char *) cell->famqual.data, cell->famqual.len);
	appendBinaryStringInfo(key, (const char *) tsbuf, WC_TS_LEN);
	storage_batch_delete(cm->batch, (uint8 *) key->data, key->len);
}

/* Put the refill marks wc_rowdrops_refill gave, present and empty. */
static void
put_marks(WcCommit *cm, StringInfo marks, StringInfo key, StringInfo val,
		  const uint8 *tsbuf)
{
	for (int pos = 0; pos < marks->len;)
	{
		uint32		len;

		memcpy(&len, marks->data + pos, sizeof(len));
		pos += sizeof(len);
		resetStringInfo(key);
		appendBinaryStringInfo(key, marks->data + pos, len);
		pos += len;
		commit_put(cm, key, val, len, (const uint8 *) "", 0, tsbuf, WC_VALUE_PRESENT,
				   (const uint8 *) "", 0);
	}
}

/*
 * Is this commit written in chunks by cells_commit?  The caller must then
 * wait for the commit writer first (storage_writer_drain), so that the
 * chunks go after every commit before it.
 */
bool
cells_commit_is_large(WcClientWrites *w)
{
	ListCell   *lc;
	size_t		total = 0;

	/*
	 * An interrupted large commit is undone by removing the entries stamped
	 * with its timestamp: that cannot undo a version written at another
	 * time, nor bring back a removed one.  So such a commit is one batch,
	 * whatever its size (docs/format.md, "Large commits").
	 */
	if (w->exact)
		return false;
	foreach(lc, w->msgs)
		total += ((StringInfo) lfirst(lc))->len;
	return total > WC_COMMIT_CHUNK_BYTES;
}

/*
 * cells_commit
 *		Apply the WRITE payloads of one transaction atomically.
 *
 * A commit of up to WC_COMMIT_CHUNK_BYTES is returned as one batch for the
 * caller to write (through the commit writer, storage_submit), with the
 * clock in it when the commit's timestamp has passed the stored one; if
 * that write fails, the database is reopened, which reads the stored clock
 * again.  A larger commit is written here, in chunks, and NULL returned.
 */
WcBatch *
cells_commit(WcOpenDb *odb, WcClientWrites *w, bool sync)
{
	uint64		ts = Max(cells_unix_micros(), odb->last_commit_ts + 1);
	uint8		tsbuf[WC_TS_LEN];
	WcCommit	cm;
	StringInfoData key;
	StringInfoData val;
	StringInfoData marks;
	bool		live;
	ListCell   *lc;

	memset(&cm, 0, sizeof(cm));
	cm.odb = odb;
	{
		/* It may outlive this request: the commit writer writes it. */
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		cm.batch = storage_batch_new();
		MemoryContextSwitchTo(old);
	}
	cm.ts = ts;
	cm.lowest = &w->lowest;
	cm.highest = &w->highest;
	wc_encode_ts(ts, tsbuf);
	initStringInfo(&key);
	initStringInfo(&val);
	initStringInfo(&marks);
	cm.chunked = cells_commit_is_large(w);

	/*
	 * A large commit is made durable even with sync off: its atomicity
	 * depends on it.  Without the fsyncs, a crash of the operating system
	 * could keep the removal of the pending-commit file and lose some of
	 * the batches, and the rest would stand.  It costs a few fsyncs a
	 * commit of more than 4 MiB.
	 */
	cm.sync = sync || cm.chunked;

	PG_TRY();
	{
		if (cm.chunked)
			pending_write(&cm);
		wc_rowdrops_commit_begin(odb, w);
		/* The rows were checked as they came (serve.c, wc_read_write). */
		foreach(lc, w->msgs)
		{
			StringInfo	msg = lfirst(lc);
			WcReader	rows;
			WcRowWrite	row;

			wc_reader_init(&rows, msg->data, msg->len);
			while (wc_next_row(&rows, &row))
			{
				if (cm.chunked &&
					storage_batch_bytes(cm.batch) >= WC_COMMIT_CHUNK_BYTES)
					commit_write_batch(&cm, false);
				resetStringInfo(&key);
				appendBinaryStringInfo(&key, (const char *) row.prefix.data, row.prefix.len);
				if (row.deleted)
					commit_put(&cm, &key, &val, row.prefix.len, wc_row_tombstone_fq,
							   sizeof(wc_row_tombstone_fq), tsbuf, -1, NULL, 0);
				live = false;
				for (uint32 i = 0; i < row.ncells; i++)
				{
					WcCellWrite cell;

					if (!wc_next_row_cell(&rows, &cell))
						break;
					live |= cell.present || cell.merge;
					if (cell.exact)
						commit_exact(&cm, &key, row.prefix.len, &cell, &val);
					else
						commit_put(&cm, &key, &val, row.prefix.len,
								   cell.famqual.data, cell.famqual.len, tsbuf,
								   cell.merge ? cell.merge :
								   cell.present ? WC_VALUE_PRESENT : WC_VALUE_TOMBSTONE,
								   cell.value.data, cell.value.len);
				}
				/* a value in a dropped row range: mark the range (rowdrops.c) */
				if (live)
				{
					resetStringInfo(&marks);
					if (wc_rowdrops_refill(odb, row.prefix.data, row.prefix.len, ts, &marks))
						put_marks(&cm, &marks, &key, &val, tsbuf);
				}
			}
			if (rows.bad)
				elog(ERROR, "rows of a WRITE request changed after they were checked");
		}
		if (cm.chunked)
		{
			commit_write_batch(&cm, true);
			storage_sync_logs(odb->db);
			pending_remove(odb, true);
		}
		else
			commit_add_clock(&cm);
	}
	PG_CATCH();
	{
		/*
		 * With no batch written nothing of the commit is in LevelDB, and the
		 * database stays open: the file would only be left for the next
		 * open to find nothing with.  Either way the timestamp is used up.
		 */
		if (cm.chunked && cm.batches == 0)
		{
			char	   *path = pending_path(odb);

			(void) unlink(path);
			pfree(path);
		}
		odb->last_commit_ts = ts;
		storage_batch_free(cm.batch);
		wc_rowdrops_forget(odb);
		PG_RE_THROW();
	}
	PG_END_TRY();
	odb->last_commit_ts = ts;
	if (!cm.chunked)
		return cm.batch;
	storage_batch_free(cm.batch);
	return NULL;
}

/* Read the pending-commit file at path; false if there is none. */
static bool
pending_read(const char *path, StringInfo rec)
{
	FILE	   *f = AllocateFile(path, PG_BINARY_R);
	char		buf[1024];
	size_t		n;

	if (f == NULL)
	{
		if (errno == ENOENT)
			return false;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", path)));
	}
	initStringInfo(rec);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		appendBinaryStringInfo(rec, buf, n);
	if (ferror(f))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read file \"%s\": %m", path)));
	FreeFile(f);
	return true;
}

/* Remove the entry k if the commit stamped tsbuf wrote it. */
static void
recover_entry(WcOpenDb *odb, WcBatch *batch, const uint8 *tsbuf, const uint8 *k,
			  size_t n, uint64 *removed)
{
	if (n >= WC_TS_LEN && memcmp(k + n - WC_TS_LEN, tsbuf, WC_TS_LEN) == 0)
	{
		storage_batch_delete(batch, k, n);
		(*removed)++;
	}
	if (storage_batch_bytes(batch) >= WC_COMMIT_CHUNK_BYTES)
	{
		storage_write(odb->db, batch, true);
		storage_batch_clear(batch);
	}
}

/*
 * cells_recover
 *		Undo a commit that was interrupted between its batches: remove every
 *		entry stamped with its timestamp between its lowest and highest row,
 *		and in the table of families below its lowest row: the refill marks
 *		of the row ranges it wrote into go there (rowdrops.c), whatever rows
 *		it wrote.
 */
void
cells_recover(WcOpenDb *odb)
{
	char	   *path = pending_path(odb);
	StringInfoData rec;
	WcReader	r;
	uint64		ts;
	uint8		tsbuf[WC_TS_LEN];
	WcBytes		lowest,
				highest;
	WcIter	   *it;
	WcBatch    *batch;
	uint64		removed = 0;

	if (!pending_read(path, &rec))
		return;
	wc_reader_init(&r, rec.data, rec.len);
	ts = wc_get_u64(&r);
	lowest = wc_get_bytes(&r);
	highest = wc_get_bytes(&r);
	if (r.bad || wc_reader_left(&r) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("malformed pending-commit file \"%s\"", path),
				 errhint("The LevelDB database may hold part of a commit. Restore it from a backup, or remove the file to keep what the commit wrote.")));
	wc_encode_ts(ts, tsbuf);

	batch = storage_batch_new();
	it = storage_iter(odb->db, NULL, false);
	PG_TRY();
	{
		for (storage_iter_seek(it, wc_meta_table, sizeof(wc_meta_table)); storage_iter_valid(it); storage_iter_next(it))
		{
			size_t		n;
			const uint8 *k = storage_iter_key(it, &n);

			if (n < sizeof(wc_meta_table) ||
				memcmp(k, wc_meta_table, sizeof(wc_meta_table)) != 0 ||
				wc_compare_bytes(k, n, lowest.data, lowest.len) >= 0)
				break;
			recover_entry(odb, batch, tsbuf, k, n, &removed);
		}
		storage_iter_check(it);
		for (storage_iter_seek(it, lowest.data, lowest.len); storage_iter_valid(it); storage_iter_next(it))
		{
			size_t		n;
			const uint8 *k = storage_iter_key(it, &n);

			if (wc_compare_bytes(k, n, highest.data, highest.len) > 0 &&
				(n < highest.len || memcmp(k, highest.data, highest.len) != 0))
				break;
			recover_entry(odb, batch, tsbuf, k, n, &removed);
		}
		storage_iter_check(it);
		storage_write(odb->db, batch, true);
		durable_unlink(path, ERROR);
	}
	PG_FINALLY();
	{
		storage_iter_free(it);
		storage_batch_free(batch);
	}
	PG_END_TRY();
	ereport(LOG,
			(errmsg("widecolumn_fdw rolled back an interrupted commit in LevelDB database \"%s\"",
					odb->path),
			 errdetail("%llu entries were removed.", (unsigned long long) removed)));
}

