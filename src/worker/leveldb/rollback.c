/*-------------------------------------------------------------------------
 *
 * rollback.c
 *	  Undoing a commit: one a crash interrupted between its batches (the
 *	  pending-commit file, read at the next open), and one whose writer
 *	  PostgreSQL saw abort (xacts.c).
 *
 * Both delete the entries stamped with the commit's timestamp in the rows
 * it wrote, as the commit recorded them; below the commit (rowcommit.c)
 * and the record of writers (xacts.c), which both use it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/fd.h"

#include "worker/leveldb/leveldb.h"

/* The pending-commit file of odb. */
char *
ldb_pending_path(WcOpenDb *odb)
{
	return psprintf("%s/%s", odb->path, WC_PENDING_FILE);
}

/* Is key k (n bytes) in a row at or below the row prefix highest? */
bool
ldb_at_or_below_row(const uint8 *k, size_t n, const uint8 *highest, size_t len)
{
	return wc_compare_bytes(k, n, highest, len) <= 0 ||
		(n >= len && memcmp(k, highest, len) == 0);
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

/* Write batch out once it is large, so that a rollback is not one huge batch. */
static void
flush_if_full(WcOpenDb *odb, WcBatch *batch)
{
	if (storage_batch_bytes(batch) >= WC_COMMIT_CHUNK_BYTES)
	{
		ldb_redo_sync(odb, false);
		storage_write(odb->db, batch, true);
		storage_batch_clear(batch);
	}
}

/*
 * Remove the entry k (value v) if the commit stamped ts (tsbuf) wrote it,
 * or any entry if tsbuf is NULL.  A version the commit wrote at its own
 * timestamp names the commit in its stamp, not its key: it goes back to
 * its pre-image, or goes if it had none.  An entry at the commit's time
 * that a later commit stamped is that commit's, and stays.
 */
static void
recover_entry(WcOpenDb *odb, WcBatch *batch, const uint8 *tsbuf, uint64 ts,
			  const uint8 *k, size_t n, const uint8 *v, size_t vlen, uint64 *removed)
{
	uint64		stamp = 0;
	bool		stamped = v != NULL && wc_value_stamp(v, vlen, &stamp);

	if (tsbuf != NULL && stamped && stamp == ts)
	{
		StringInfoData pre;
		uint8	   *old;
		size_t		oldlen;

		initStringInfo(&pre);
		ldb_preimage_key(ts, k, n, &pre);
		old = storage_get(odb->db, (uint8 *) pre.data, pre.len, &oldlen);
		if (old != NULL)
		{
			storage_batch_put(batch, k, n, old, oldlen);
			pfree(old);
		}
		else
			storage_batch_delete(batch, k, n);
		pfree(pre.data);
		(*removed)++;
	}
	else if (tsbuf == NULL ||
			 (!stamped && n >= WC_TS_LEN && memcmp(k + n - WC_TS_LEN, tsbuf, WC_TS_LEN) == 0))
	{
		storage_batch_delete(batch, k, n);
		(*removed)++;
	}
	flush_if_full(odb, batch);
}

/*
 * rollback
 *		Delete every entry stamped ts between the row prefixes lowest and
 *		highest, and in the table of families below lowest: the refill
 *		marks of the row ranges the commit wrote into go there (rowdrops.c),
 *		whatever rows it wrote.  With exact_lowest, every entry of the rows
 *		from it to exact_highest goes too (versions at their own
 *		timestamps, written into rows that were empty).  The number of
 *		entries deleted.
 */
static uint64
rollback(WcOpenDb *odb, uint64 ts, WcBytes lowest, WcBytes highest,
		 WcBytes exact_lowest, WcBytes exact_highest)
{
	uint8		tsbuf[WC_TS_LEN];
	WcIter	   *it;
	WcBatch    *batch;
	uint64		removed = 0;

	wc_encode_ts(ts, tsbuf);
	batch = storage_batch_new();
	it = storage_iter(odb->db, NULL, false);
	PG_TRY();
	{
		for (storage_iter_seek(it, wc_meta_table, sizeof(wc_meta_table)); storage_iter_valid(it); storage_iter_next(it))
		{
			size_t		n;
			const uint8 *k = storage_iter_key(it, &n);

			size_t		vlen;
			const uint8 *v;

			if (n < sizeof(wc_meta_table) ||
				memcmp(k, wc_meta_table, sizeof(wc_meta_table)) != 0 ||
				(lowest.len > 0 && wc_compare_bytes(k, n, lowest.data, lowest.len) >= 0))
				break;
			v = storage_iter_value(it, &vlen);
			recover_entry(odb, batch, tsbuf, ts, k, n, v, vlen, &removed);
		}
		storage_iter_check(it);
		if (lowest.len > 0)
		{
			for (storage_iter_seek(it, lowest.data, lowest.len); storage_iter_valid(it); storage_iter_next(it))
			{
				size_t		n;
				const uint8 *k = storage_iter_key(it, &n);

				size_t		vlen;
				const uint8 *v;

				if (!ldb_at_or_below_row(k, n, highest.data, highest.len))
					break;
				v = storage_iter_value(it, &vlen);
				recover_entry(odb, batch, tsbuf, ts, k, n, v, vlen, &removed);
			}
			storage_iter_check(it);
		}
		if (exact_lowest.data != NULL)
		{
			for (storage_iter_seek(it, exact_lowest.data, exact_lowest.len);
				 storage_iter_valid(it); storage_iter_next(it))
			{
				size_t		n;
				const uint8 *k = storage_iter_key(it, &n);

				if (!ldb_at_or_below_row(k, n, exact_highest.data, exact_highest.len))
					break;
				recover_entry(odb, batch, NULL, ts, k, n, NULL, 0, &removed);
			}
			storage_iter_check(it);
		}
		/* the pre-images went back where they were: they go too */
		ldb_preimages_delete(odb, batch, ts);
		ldb_redo_sync(odb, false);
		storage_write(odb->db, batch, true);
	}
	PG_FINALLY();
	{
		storage_iter_free(it);
		storage_batch_free(batch);
	}
	PG_END_TRY();
	return removed;
}

/*
 * ldb_rollback
 *		Delete what the commit stamped ts wrote between the row prefixes
 *		lowest and highest (xacts.c: its writer aborted); the number of
 *		entries deleted.
 */
uint64
ldb_rollback(WcOpenDb *odb, uint64 ts, WcBytes lowest, WcBytes highest)
{
	WcBytes		none = {NULL, 0};

	return rollback(odb, ts, lowest, highest, none, none);
}

/*
 * ldb_recover
 *		Undo a commit that was interrupted between its batches (rollback).
 *		A commit of versions at their own timestamps names the rows that
 *		hold them, empty before it: every entry there goes.
 */
void
ldb_recover(WcOpenDb *odb)
{
	char	   *path = ldb_pending_path(odb);
	StringInfoData rec;
	WcReader	r;
	uint64		ts;
	WcBytes		lowest,
				highest,
				exact_lowest = {NULL, 0},
				exact_highest = {NULL, 0};
	uint64		removed;

	if (!pending_read(path, &rec))
		return;
	wc_reader_init(&r, rec.data, rec.len);
	ts = wc_get_u64(&r);
	lowest = wc_get_bytes(&r);
	highest = wc_get_bytes(&r);
	/* (written before 0.6.0, the file never has these) */
	if (wc_reader_left(&r) != 0)
	{
		exact_lowest = wc_get_bytes(&r);
		exact_highest = wc_get_bytes(&r);
	}
	if (r.bad || wc_reader_left(&r) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("malformed pending-commit file \"%s\"", path),
				 errhint("The LevelDB database may hold part of a commit. Restore it from a backup, or remove the file to keep what the commit wrote.")));
	removed = rollback(odb, ts, lowest, highest, exact_lowest, exact_highest);
	durable_unlink(path, ERROR);
	ereport(LOG,
			(errmsg("widecolumn_fdw rolled back an interrupted commit in LevelDB database \"%s\"",
					odb->path),
			 errdetail("%llu entries were removed.", (unsigned long long) removed)));
}
