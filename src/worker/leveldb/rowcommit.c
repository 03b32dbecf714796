/*-------------------------------------------------------------------------
 *
 * rowcommit.c
 *	  Writing rows: a transaction's mutations applied to LevelDB at its
 *	  commit, and the clock that stamps them.
 *
 * A commit's mutations are applied as one WriteBatch, every entry stamped
 * with the same commit timestamp, taken from a clock that never runs
 * backwards (a bound on the timestamps given out is stored, so a restart or a
 * clock step cannot make a new write older than an old one).  A commit of
 * more than WC_COMMIT_CHUNK_BYTES is written in several batches, undone at
 * the next open if the worker dies between them (rollback.c,
 * docs/format.md).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "portability/instr_time.h"
#include "storage/fd.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "worker/leveldb/leveldb.h"

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
ldb_load_clock(WcOpenDb *odb)
{
	size_t		len;
	uint8	   *v = storage_get(odb->db, clock_key, sizeof(clock_key), &len);

	odb->last_commit_ts = 0;
	if (v != NULL && len == 8)
		memcpy(&odb->last_commit_ts, v, 8);
	odb->clock_stored = odb->last_commit_ts;
}



struct WcCommit
{
	MemoryContext cxt;			/* holds this */
	WcOpenDb   *odb;
	WcBatch    *batch;			/* being filled */
	bool		sync;
	bool		chunked;		/* written in several batches */
	uint64		ts;
	uint8		tsbuf[WC_TS_LEN];
	int			batches;		/* taken so far */
	StringInfo	lowest;			/* the lowest and highest row prefix */
	StringInfo	highest;
	StringInfo	exact_lowest;	/* a chunked commit of exact versions: the */
	StringInfo	exact_highest;	/* rows that held nothing before it */
	List	   *msgs;			/* the WRITE payloads (StringInfo) */
	ListCell   *msg;			/* a large commit: the payload being read */
	WcReader	rows;			/* and where in it */
	StringInfoData key;			/* scratch */
	StringInfoData val;
	StringInfoData marks;
	StringInfoData pre;			/* a pre-image's key */
};

/*
 * Write the pending-commit file, before the first batch.  With sync on it
 * reaches the disk first, so that no batch can survive a crash without it.
 */
static void
pending_write(WcCommit *cm)
{
	char	   *path = ldb_pending_path(cm->odb);
	char	   *tmp = psprintf("%s.tmp", path);
	StringInfoData rec;
	int			fd;

	initStringInfo(&rec);
	appendBinaryStringInfo(&rec, (const char *) &cm->ts, 8);
	wc_put_bytes(&rec, cm->lowest->data, cm->lowest->len);
	wc_put_bytes(&rec, cm->highest->data, cm->highest->len);
	if (cm->exact_lowest != NULL)
	{
		wc_put_bytes(&rec, cm->exact_lowest->data, cm->exact_lowest->len);
		wc_put_bytes(&rec, cm->exact_highest->data, cm->exact_highest->len);
	}

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
	char	   *path = ldb_pending_path(odb);

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
int			ldb_debug_crash_after_commit_batches = 0;

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
 *
 * The version is stamped with the commit (WC_VALUE_STAMPED), a removal
 * stored as a stamped WC_VALUE_REMOVED, and a version the commit replaces
 * or removes kept as its pre-image: each read sees the version as it was
 * or as it is by whether it sees the commit (xacts.c, ldb_unstamp;
 * docs/architecture.md, "Versions at their own timestamps").  The commit
 * writer's queue is written before (ldb_commit), so what is stored is what
 * every earlier commit left.
 */
static void
commit_exact(WcCommit *cm, StringInfo key, size_t plen, const WcCellWrite *cell,
			 StringInfo val)
{
	uint8		tsbuf[WC_TS_LEN];
	uint8		stamp[WC_STAMP_LEN];
	uint8	   *old = NULL;
	size_t		oldlen = 0;

	wc_encode_ts(cell->now ? cm->ts : cell->ts, tsbuf);
	key->len = plen;
	appendBinaryStringInfo(key, (const char *) cell->famqual.data, cell->famqual.len);
	appendBinaryStringInfo(key, (const char *) tsbuf, WC_TS_LEN);
	/* the removal of a version this commit writes: hidden as the commit is */
	if (cell->now)
	{
		storage_batch_delete(cm->batch, (uint8 *) key->data, key->len);
		return;
	}
	/* a chunked commit writes into empty rows: it replaces nothing */
	if (!cm->chunked)
		old = storage_get(cm->odb->db, (uint8 *) key->data, key->len, &oldlen);
	if (old != NULL)
	{
		ldb_preimage_key(cm->ts, (uint8 *) key->data, key->len, &cm->pre);
		storage_batch_put(cm->batch, (uint8 *) cm->pre.data, cm->pre.len, old, oldlen);
		pfree(old);
	}
	else if (!cell->present)
	{
		/* nothing stored: only what this batch may have put goes */
		storage_batch_delete(cm->batch, (uint8 *) key->data, key->len);
		return;
	}
	wc_put_stamp(cm->ts, stamp);
	resetStringInfo(val);
	appendBinaryStringInfo(val, (const char *) stamp, sizeof(stamp));
	appendStringInfoChar(val, (char) (cell->present ? WC_VALUE_PRESENT : WC_VALUE_REMOVED));
	if (cell->present)
		appendBinaryStringInfo(val, (const char *) cell->value.data, cell->value.len);
	storage_batch_put(cm->batch, (uint8 *) key->data, key->len,
					  (uint8 *) val->data, val->len);
}

/* Put the refill marks ldb_rowdrops_refill gave, present and empty. */
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

/* Is nothing stored in the rows from row prefix lowest to highest? */
static bool
rows_empty(WcOpenDb *odb, StringInfo lowest, StringInfo highest)
{
	WcIter	   *it = storage_iter(odb->db, NULL, false);
	bool		empty = true;

	PG_TRY();
	{
		storage_iter_seek(it, (uint8 *) lowest->data, lowest->len);
		if (storage_iter_valid(it))
		{
			size_t		n;
			const uint8 *k = storage_iter_key(it, &n);

			empty = !ldb_at_or_below_row(k, n, (uint8 *) highest->data, highest->len);
		}
		storage_iter_check(it);
	}
	PG_FINALLY();
	{
		storage_iter_free(it);
	}
	PG_END_TRY();
	return empty;
}

/*
 * Is this commit written in chunks by ldb_commit_large_*?  The commit
 * writer has written every commit before it when the answer is yes.
 *
 * An interrupted large commit is undone by removing the entries stamped
 * with its timestamp: that cannot undo a version written at another time,
 * nor bring back a removed one.  So a commit with such versions is chunked
 * only when the rows that hold them held nothing at all before it (an
 * import into a new table, or into new rows): then undoing it removes
 * every entry of those rows (docs/format.md, "Large commits").  Otherwise
 * it is one batch, whatever its size.  Checking needs the commit writer's
 * queue written first, as a large commit does anyway.
 */
bool
ldb_commit_is_large(WcOpenDb *odb, WcClientWrites *w)
{
	ListCell   *lc;
	size_t		total = 0;

	foreach(lc, w->msgs)
		total += ((StringInfo) lfirst(lc))->len;
	if (total <= WC_COMMIT_CHUNK_BYTES)
		return false;
	if (!w->exact)
		return true;
	storage_writer_drain();
	return rows_empty(odb, &w->exact_lowest, &w->exact_highest);
}

/*
 * commit_row
 *		Add one row of a WRITE payload to the commit's batch: its row
 *		tombstone, its cells, and the refill marks of dropped row ranges it
 *		writes a value into.
 */
static void
commit_row(WcCommit *cm, WcReader *rows, const WcRowWrite *row)
{
	StringInfo	key = &cm->key;
	StringInfo	val = &cm->val;
	bool		live = false;
	uint64		values = 0;		/* for the heat map (heat.c) */
	uint64		bytes = 0;

	resetStringInfo(key);
	appendBinaryStringInfo(key, (const char *) row->prefix.data, row->prefix.len);
	if (row->deleted)
	{
		commit_put(cm, key, val, row->prefix.len, wc_row_tombstone_fq,
				   sizeof(wc_row_tombstone_fq), cm->tsbuf, -1, NULL, 0);
		bytes += key->len;
	}
	for (uint32 i = 0; i < row->ncells; i++)
	{
		WcCellWrite cell;

		if (!wc_next_row_cell(rows, &cell))
			break;
		live |= cell.present || cell.merge;
		values += cell.present || cell.merge;
		bytes += row->prefix.len + cell.famqual.len + WC_TS_LEN + 1 + cell.value.len;
		if (cell.exact)
			commit_exact(cm, key, row->prefix.len, &cell, val);
		else
			commit_put(cm, key, val, row->prefix.len,
					   cell.famqual.data, cell.famqual.len, cm->tsbuf,
					   cell.merge ? cell.merge :
					   cell.present ? WC_VALUE_PRESENT : WC_VALUE_TOMBSTONE,
					   cell.value.data, cell.value.len);
	}
	/* a value in a dropped row range: mark the range (rowdrops.c) */
	if (live)
	{
		resetStringInfo(&cm->marks);
		if (ldb_rowdrops_refill(cm->odb, row->prefix.data, row->prefix.len, cm->ts,
							   &cm->marks))
			put_marks(cm, &cm->marks, key, val, cm->tsbuf);
	}
	wc_heat_write_row(&cm->odb->base, row->prefix.data, row->prefix.len, values,
					  row->ncells - values + (row->deleted ? 1 : 0), bytes);
}

/* commit_row, as wc_client_writes_walk calls it */
static void
commit_row_of(void *arg, WcReader *rows, const WcRowWrite *row)
{
	commit_row((WcCommit *) arg, rows, row);
}

/*
 * commit_new
 *		The state of a commit of w's rows to odb, in its own memory (a large
 *		commit outlives the request that began it: largecommit.c).
 */
static WcCommit *
commit_new(WcOpenDb *odb, WcClientWrites *w, bool sync, bool chunked)
{
	MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "widecolumn_fdw commit",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	WcCommit   *cm = palloc0(sizeof(WcCommit));

	cm->cxt = cxt;
	cm->odb = odb;
	/* It may outlive the commit's memory: the commit writer writes it. */
	MemoryContextSwitchTo(TopMemoryContext);
	cm->batch = storage_batch_new();
	MemoryContextSwitchTo(cxt);
	cm->ts = Max(wc_unix_micros(), odb->last_commit_ts + 1);
	wc_encode_ts(cm->ts, cm->tsbuf);
	/* in the first batch: no part of the commit is stored without it */
	/*
	 * A chunked commit's exact versions go into empty rows (ldb_commit_is_large):
	 * it replaces none, and keeps no pre-image.
	 */
	ldb_xacts_commit(odb, cm->batch, cm->ts, w->writer, &w->lowest, &w->highest,
					 w->exact && !chunked);
	cm->lowest = &w->lowest;
	cm->highest = &w->highest;
	cm->msgs = w->msgs;
	initStringInfo(&cm->key);
	initStringInfo(&cm->val);
	initStringInfo(&cm->marks);
	initStringInfo(&cm->pre);
	cm->chunked = chunked;
	if (chunked && w->exact)
	{
		cm->exact_lowest = &w->exact_lowest;
		cm->exact_highest = &w->exact_highest;
	}

	/*
	 * A large commit is made durable even with sync off: its atomicity
	 * depends on it.  Without the fsyncs, a crash of the operating system
	 * could keep the removal of the pending-commit file and lose some of
	 * the batches, and the rest would stand.  It costs a few fsyncs a
	 * commit of more than 4 MiB.
	 */
	cm->sync = sync || cm->chunked;
	MemoryContextSwitchTo(old);
	return cm;
}

/*
 * commit_failed
 *		After an error in a commit: nothing of it is in LevelDB, or what is
 *		will be rolled back when the database is reopened (the caller closes
 *		it when odb->commit_partial).  Either way the timestamp is used up.
 */
static void
commit_failed(WcCommit *cm)
{
	/*
	 * With no batch written the database stays open: the file would only be
	 * left for the next open to find nothing with.
	 */
	if (cm->chunked && !cm->odb->commit_partial)
	{
		char	   *path = ldb_pending_path(cm->odb);

		(void) unlink(path);
		pfree(path);
	}
	cm->odb->last_commit_ts = cm->ts;
	ldb_rowdrops_forget(cm->odb);
	if (cm->batch)
		storage_batch_free(cm->batch);
	MemoryContextDelete(cm->cxt);
}

/*
 * ldb_commit
 *		Apply the WRITE payloads of one transaction of up to
 *		WC_COMMIT_CHUNK_BYTES atomically: returned as one batch for the
 *		caller to write (through the commit writer, storage_submit), with the
 *		clock in it when the commit's timestamp has passed the stored one; if
 *		that write fails, the database is reopened, which reads the stored
 *		clock again.  A larger commit goes through ldb_commit_large_*.
 */
WcBatch *
ldb_commit(WcOpenDb *odb, WcClientWrites *w, bool sync)
{
	WcCommit   *cm = commit_new(odb, w, sync, false);
	WcBatch    *batch;

	PG_TRY();
	{
		ldb_rowdrops_commit_begin(odb, w);
		/* versions it replaces are read as every earlier commit left them */
		if (w->exact)
			storage_writer_drain();
		wc_client_writes_walk(w, commit_row_of, cm);
		commit_add_clock(cm);
	}
	PG_CATCH();
	{
		commit_failed(cm);
		PG_RE_THROW();
	}
	PG_END_TRY();
	odb->last_commit_ts = cm->ts;
	batch = cm->batch;
	MemoryContextDelete(cm->cxt);
	return batch;
}

/*
 * ldb_commit_large_begin
 *		Begin a commit of more than WC_COMMIT_CHUNK_BYTES, written in chunks
 *		(largecommit.c says when): the pending-commit file is written first.
 *		The caller keeps w's rows until ldb_commit_large_end or _abort.
 */
WcCommit *
ldb_commit_large_begin(WcOpenDb *odb, WcClientWrites *w)
{
	WcCommit   *cm = commit_new(odb, w, true, true);

	PG_TRY();
	{
		pending_write(cm);
		ldb_rowdrops_commit_begin(odb, w);
	}
	PG_CATCH();
	{
		commit_failed(cm);
		PG_RE_THROW();
	}
	PG_END_TRY();
	cm->msg = list_head(cm->msgs);
	if (cm->msg)
	{
		StringInfo	msg = lfirst(cm->msg);

		wc_reader_init(&cm->rows, msg->data, msg->len);
	}
	return cm;
}

/*
 * ldb_commit_large_fill
 *		Add rows to the commit's next chunk until it holds
 *		WC_COMMIT_CHUNK_BYTES or the rows are over (true: take it), or
 *		max_us have passed (false: call again).
 */
bool
ldb_commit_large_fill(WcCommit *cm, int max_us)
{
	instr_time	start,
				now;
	int			n = 0;

	INSTR_TIME_SET_CURRENT(start);
	while (cm->msg != NULL)
	{
		WcRowWrite	row;

		if (storage_batch_bytes(cm->batch) >= WC_COMMIT_CHUNK_BYTES)
			return true;
		/* a clock read every 64 rows: rows take a microsecond or so */
		if ((++n & 63) == 0)
		{
			INSTR_TIME_SET_CURRENT(now);
			INSTR_TIME_SUBTRACT(now, start);
			if (INSTR_TIME_GET_MICROSEC(now) >= max_us)
				return false;
		}
		if (wc_next_row(&cm->rows, &row))
		{
			commit_row(cm, &cm->rows, &row);
			continue;
		}
		if (cm->rows.bad)
			elog(ERROR, "rows of a WRITE request changed after they were checked");
		cm->msg = lnext(cm->msgs, cm->msg);
		if (cm->msg)
		{
			StringInfo	msg = lfirst(cm->msg);

			wc_reader_init(&cm->rows, msg->data, msg->len);
		}
	}
	return true;
}

/*
 * The bytes of the commit's WRITE rows put in chunks so far
 * (widecolumn.progress: largecommit.c).
 */
uint64
ldb_commit_large_done(WcCommit *cm)
{
	uint64		done = 0;
	ListCell   *lc;

	foreach(lc, cm->msgs)
	{
		StringInfo	msg = lfirst(lc);

		if (lc == cm->msg)
			return done + (cm->rows.p - (const uint8 *) msg->data);
		done += msg->len;
	}
	return done;
}

/* Whether the chunk being filled holds anything. */
bool
ldb_commit_large_has_chunk(WcCommit *cm)
{
	return storage_batch_bytes(cm->batch) > 0;
}

/* Whether every row is in a chunk (taken, or being filled). */
bool
ldb_commit_large_rows_over(WcCommit *cm)
{
	return cm->msg == NULL;
}

/*
 * ldb_commit_large_take
 *		The chunk filled so far, for the caller to write (unsynced: see
 *		ldb_commit_large_end); the first carries the clock.  Until the
 *		commit ends, the database is rolled back at its next open.
 */
WcBatch *
ldb_commit_large_take(WcCommit *cm)
{
	WcBatch    *chunk;
	MemoryContext old;

	if (cm->batches == 0)
		commit_add_clock(cm);
	chunk = cm->batch;
	old = MemoryContextSwitchTo(TopMemoryContext);
	cm->batch = storage_batch_new();
	MemoryContextSwitchTo(old);
	cm->batches++;
	return chunk;
}

/*
 * ldb_commit_large_written
 *		A chunk is written: until the commit ends, the database is rolled
 *		back at its next open (so closed if the commit fails).  While it goes
 *		on, the test hook may kill the worker here, as a crash between two
 *		chunks would.
 */
void
ldb_commit_large_written(WcCommit *cm, int written, bool going_on)
{
	bool		last = ldb_commit_large_rows_over(cm) && !ldb_commit_large_has_chunk(cm) &&
		written == cm->batches;

	cm->odb->commit_partial = true;
	if (going_on && !last && ldb_debug_crash_after_commit_batches > 0 &&
		written >= ldb_debug_crash_after_commit_batches)
		raise(SIGKILL);
}

/*
 * ldb_commit_large_end
 *		Every chunk is written: make them all durable together (LevelDB's
 *		logs, synced here, hold every chunk not yet in a table file), then
 *		remove the pending-commit file, after which the commit stands.
 */
void
ldb_commit_large_end(WcCommit *cm)
{
	/* on an error the caller aborts the commit */
	storage_sync_logs(cm->odb->db);
	pending_remove(cm->odb, true);
	cm->odb->last_commit_ts = cm->ts;
	storage_batch_free(cm->batch);
	MemoryContextDelete(cm->cxt);
}

/* The large commit failed: see commit_failed. */
void
ldb_commit_large_abort(WcCommit *cm)
{
	commit_failed(cm);
}


