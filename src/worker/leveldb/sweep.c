/*-------------------------------------------------------------------------
 *
 * sweep.c
 *	  Reclaiming space: deleting the entries that no read can return any
 *	  more, for widecolumn.compact() and for the background sweep, and
 *	  counting the versions drop_family and drop_table delete.
 *
 * Reads are exact without this (rowscan.c hides what is gone); the sweep
 * only deletes, and deletes nothing a read could still return, by the
 * reader's own rules (the same wc_gc_deletes, the same version index:
 * every entry of a cell counts, tombstones too):
 *
 * - a version its family's policy deletes, and every version older than
 *   its family's drop (drop_family), its table's (drop_table) or its row
 *   range's (drop_row_range).  What a
 *   policy deletes is always a cell's oldest versions, so the index of a
 *   version it keeps never changes, and a read as of any time finds what it
 *   found before;
 * - a cell tombstone older than every version of its cell that is kept: it
 *   hides nothing;
 * - a row tombstone when no kept entry of the row is older than it;
 * - the drop markers in the table of families (tablemeta.c), once a walk
 *   over the whole table that began after they were written is over.
 *
 * It also folds the merges of an aggregate family's cell (fold_run): a run
 * of merges becomes one plain value at the newest one's key, which is what
 * a read returned for it, so that a cell merged a million times reads as
 * one written once.
 *
 * A row's deletes go into one LevelDB batch, so a crash leaves a row as it
 * was or swept, and a tombstone never outlives what it hid by less than a
 * batch.  Snapshots taken before a batch still see what it deletes (LevelDB
 * keeps it for them).  Commits only add versions newer than every existing
 * one, which can only make more of the old ones deletable; the walk reads
 * the latest state with a new iterator each slice.
 *
 * A walk goes in slices of a given length (ldb_sweep_slice), ending at a
 * row's end and starting again where it stopped: reclaim.c decides when.
 * A background walk has LevelDB compact each table it deleted much of, in
 * a thread of its own (storage.c), so that the files shrink.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>

#include "miscadmin.h"

#include "portability/instr_time.h"
#include "utils/memutils.h"

#include "common/aggfold.h"
#include "common/gcpolicy.h"
#include "common/keycodec.h"
#include "worker/leveldb/leveldb.h"

int			ldb_debug_crash_after_sweep_batches = 0;

/* The batch size a walk writes at. */
#define WC_SWEEP_BATCH_BYTES	(1024 * 1024)

/* The qualifier prefix of a drop_family marker (tablemeta.c), escaped family "wc". */
static const uint8 dropped_cell[] = {'w', 'c', 0x00, 0x01, 'd', 'r', 'o', 'p', 'p', 'e', 'd', ':'};

struct WcSweep
{
	WcOpenDb   *odb;
	MemoryContext cxt;			/* the walk's; slice_cxt is reset each slice */
	MemoryContext slice_cxt;
	bool		count_only;		/* count kept versions, delete nothing */
	bool		background;		/* compact each table it deleted much of */
	StringInfoData family;		/* count_only: this family (escaped), or all */
	StringInfoData end;			/* end of the walk's range; empty: none */
	StringInfoData cursor;		/* where the next slice starts */
	StringInfoData table;		/* the table being walked (escaped); empty: none */
	WcTableMeta start_meta;		/* its meta when its walk began */
	uint64		table_removed;
	uint64		table_seen;
	bool		table_kept;		/* it kept a row it could not decide
								 * (row_unsettled): its markers stay */
	uint64		removed;		/* entries deleted */
	uint64		counted;		/* count_only: versions kept */
	bool		done;
	/* for the slice */
	WcIter	   *it;
	WcBatch    *batch;
	WcTableMeta meta;			/* the table's meta at the slice's start */
	WcHidden	hidden;			/* the commits it goes without: not settled
								 * (xacts.c); a count, the latest data's */
	uint64		now;
	uint64		seen;			/* entries looked at in the slice */
	StringInfoData row;			/* the row's prefix */
	StringInfoData pending;		/* keys of tombstones that may go (str each) */
	StringInfoData rowtombs;	/* the row's row tombstones: u64 ts, str key */
};

static void
pending_add(StringInfo buf, const uint8 *k, size_t n, uint64 ts)
{
	appendBinaryStringInfo(buf, (const char *) &ts, sizeof(ts));
	appendBinaryStringInfo(buf, (const char *) &n, sizeof(n));
	appendBinaryStringInfo(buf, (const char *) k, n);
}

/* Delete the keys in buf whose ts is at most below (all: UINT64_MAX). */
static void
pending_delete(WcSweep *sw, StringInfo buf, uint64 below)
{
	const char *p = buf->data;
	const char *end = buf->data + buf->len;

	while (p < end)
	{
		uint64		ts;
		size_t		n;

		memcpy(&ts, p, sizeof(ts));
		memcpy(&n, p + sizeof(ts), sizeof(n));
		p += sizeof(ts) + sizeof(n);
		if (ts <= below)
		{
			storage_batch_delete(sw->batch, (const uint8 *) p, n);
			sw->removed++;
			sw->table_removed++;
		}
		p += n;
	}
	resetStringInfo(buf);
}

/* Make buf the smallest key above every key it prefixes; false if none. */
static bool
successor(StringInfo buf)
{
	size_t		len = buf->len;

	if (wc_successor((uint8 *) buf->data, &len) != 0)
		return false;
	buf->len = (int) len;
	return true;
}

/*
 * fold_run
 *		The entry at the iterator (key k, n bytes) is a merge, the newest of
 *		a run: put their fold at its key and delete the others, in the
 *		row's batch.  The run ends at an entry older than the row's
 *		tombstone or the drop, or that is not a merge; a plain value there
 *		is its base, and stays an older version.  Leaves the iterator after
 *		the run; returns false if that is the end of the iterator.
 */
static bool
fold_run(WcSweep *sw, const uint8 *k, size_t n, uint64 stop_below)
{
	size_t		vlen;
	const uint8 *v = storage_iter_value(sw->it, &vlen);
	uint8		tag = v[0];
	int64		acc = wc_agg_get(v + 1);
	uint8		folded[1 + WC_AGG_LEN];
	uint64		stamp = 0;
	char	   *first = palloc(n);
	size_t		celllen = n - WC_TS_LEN;

	memcpy(first, k, n);
	while (storage_iter_next_key(sw->it, &k, &n))
	{
		if (n != celllen + WC_TS_LEN || memcmp(k, first, celllen) != 0 ||
			wc_decode_ts(k + celllen) < stop_below)
			break;
		sw->seen++;
		sw->table_seen++;
		v = storage_iter_value(sw->it, &vlen);
		/* a version at its own timestamp (settled: see sweep_row) */
		if (wc_value_stamp(v, vlen, &stamp))
		{
			if (v[WC_STAMP_LEN] == WC_VALUE_REMOVED)
				continue;		/* no version: the run goes on below it */
			v += WC_STAMP_LEN;
			vlen -= WC_STAMP_LEN;
		}
		if (vlen == 1 + WC_AGG_LEN && wc_agg_is_merge(v[0]))
		{
			acc = wc_agg_apply(v[0], true, acc, wc_agg_get(v + 1));
			storage_batch_delete(sw->batch, k, n);
			sw->removed++;
			sw->table_removed++;
			continue;
		}
		if (vlen == 1 + WC_AGG_LEN && v[0] == WC_VALUE_PRESENT)
			acc = wc_agg_apply(tag, true, wc_agg_get(v + 1), acc);
		/* not seen here after all: the caller's loop takes it */
		sw->seen--;
		sw->table_seen--;
		break;
	}
	folded[0] = WC_VALUE_PRESENT;
	wc_agg_put(acc, folded + 1);
	storage_batch_put(sw->batch, (const uint8 *) first, celllen + WC_TS_LEN,
					  folded, sizeof(folded));
	pfree(first);
	return storage_iter_valid(sw->it);
}

/*
 * row_unsettled
 *		Does the row the iterator is at (prefix row, rowlen bytes) hold an
 *		entry of a commit that not every snapshot agrees on?  Then the walk
 *		leaves the row as it is: what it could delete depends on who reads.
 *		The iterator is back where it was.
 */
static bool
row_unsettled(WcSweep *sw, const uint8 *row, size_t rowlen)
{
	StringInfoData first;
	const uint8 *k;
	size_t		n;
	bool		found = false;

	if (sw->hidden.n == 0)
		return false;
	initStringInfo(&first);
	k = storage_iter_key(sw->it, &n);
	appendBinaryStringInfo(&first, (const char *) k, n);
	do
	{
		size_t		vlen;
		const uint8 *v;
		uint64		stamp = 0;

		if (n >= rowlen + WC_TS_LEN &&
			ldb_hidden_has(&sw->hidden, wc_decode_ts(k + n - WC_TS_LEN)))
		{
			found = true;
			break;
		}
		/* a version at its own timestamp names its commit in its value */
		v = storage_iter_value(sw->it, &vlen);
		if (wc_value_stamp(v, vlen, &stamp) && ldb_hidden_has(&sw->hidden, stamp))
		{
			found = true;
			break;
		}
	} while (storage_iter_next_key(sw->it, &k, &n) &&
			 n >= rowlen + WC_TS_LEN && memcmp(k, row, rowlen) == 0);
	storage_iter_seek(sw->it, (const uint8 *) first.data, first.len);
	pfree(first.data);
	return found;
}

/* Pass over the row the iterator is at, keeping it all. */
static void
keep_row(WcSweep *sw, size_t rowlen)
{
	const uint8 *k;
	size_t		n;

	while (storage_iter_next_key(sw->it, &k, &n) &&
		   n >= (size_t) sw->row.len + WC_TS_LEN &&
		   memcmp(k, sw->row.data, sw->row.len) == 0)
		sw->seen++;
	/* every entry stays: the drops and tombstones over it too */
	if (sw->start_meta.nrowdrops > 0)
		ldb_rowdrops_hiding(&sw->start_meta, (const uint8 *) sw->row.data, rowlen, 0);
	sw->table_kept = true;
}

/*
 * sweep_row
 *		Decide every entry of the row the iterator is at (its first entry,
 *		whose table component ends at tlen), and leave the iterator after it.
 */
static void
sweep_row(WcSweep *sw, const uint8 *k, size_t n, size_t tlen)
{
	size_t		rowlen;
	StringInfoData cell;
	uint64		idx = 0;
	const WcGcPolicy *policy = NULL;
	uint64		dropped = 0;
	bool		counting = false;
	uint64		oldest_kept = PG_UINT64_MAX;	/* of the row's cell entries */
	uint64		row_tomb = 0;	/* the newest row tombstone that counts */
	uint64		row_dropped;	/* the table's drop, or its range's */

	if (wc_component_end(k + tlen, n - tlen, &rowlen) != 0 ||
		n < tlen + rowlen + WC_TS_LEN)
	{
		storage_iter_next(sw->it);	/* not ours: the reader reports it */
		return;
	}
	rowlen += tlen;
	resetStringInfo(&sw->row);
	appendBinaryStringInfo(&sw->row, (const char *) k, rowlen);
	resetStringInfo(&sw->pending);
	resetStringInfo(&sw->rowtombs);
	/*
	 * A policy or drop not every snapshot agrees on could delete more, or
	 * less, than the one before it: the table waits for it.
	 */
	if (!sw->count_only && (sw->meta.hid_changes || sw->start_meta.hid_changes ||
							row_unsettled(sw, (const uint8 *) sw->row.data, rowlen)))
	{
		keep_row(sw, rowlen);
		return;
	}
	/*
	 * row_unsettled walked the row and sought back to its first entry: the
	 * same key, but the bytes k pointed to went with the iterator's move.
	 */
	k = storage_iter_key(sw->it, &n);
	initStringInfo(&cell);
	row_dropped = sw->meta.dropped;
	if (sw->meta.nrowdrops > 0)
	{
		/* a range DELETE's tombstone is the row's, one older than any */
		row_dropped = Max(row_dropped, ldb_rowdrops_row(&sw->meta, k, rowlen,
													   WC_ROWDROP_DROPS, 0));
		row_tomb = ldb_rowdrops_row(&sw->meta, k, rowlen, WC_ROWDROP_TOMBS, 0);
		if (row_tomb < row_dropped)
			row_tomb = 0;
	}

	for (;;)
	{
		const uint8 *fq = k + rowlen;
		size_t		fqlen = n - rowlen - WC_TS_LEN;
		uint64		ts = wc_decode_ts(k + n - WC_TS_LEN);
		size_t		vlen;
		const uint8 *v = storage_iter_value(sw->it, &vlen);
		uint64		stamp = 0;
		bool		gone;

		sw->seen++;
		sw->table_seen++;
		if (wc_value_stamp(v, vlen, &stamp))
		{
			/*
			 * A version at its own timestamp.  The walk leaves a row with
			 * an unsettled stamp alone, so its stamp is settled: it is its
			 * value, and a removed one is gone for every reader.  A count
			 * reads what the latest read does: not a version whose commit
			 * it does not see (nor, until that commit is decided, the
			 * version it replaced).
			 */
			if (sw->count_only && ldb_hidden_has(&sw->hidden, stamp))
				goto next_entry;
			if (v[WC_STAMP_LEN] == WC_VALUE_REMOVED)
			{
				if (!sw->count_only)
				{
					storage_batch_delete(sw->batch, k, n);
					sw->removed++;
					sw->table_removed++;
				}
				goto next_entry;
			}
			v += WC_STAMP_LEN;
			vlen -= WC_STAMP_LEN;
		}
		if (sw->count_only && ldb_hidden_has(&sw->hidden, ts))
		{
			/* a count reads what the latest read does (xacts.c) */
		}
		else if (fqlen == sizeof(wc_row_tombstone_fq) &&
			memcmp(fq, wc_row_tombstone_fq, fqlen) == 0)
		{
			/* decided at the row's end, when its oldest kept entry is known */
			if (ts < row_dropped)
				pending_add(&sw->rowtombs, k, n, 0);
			else
			{
				pending_add(&sw->rowtombs, k, n, ts);
				row_tomb = Max(row_tomb, ts);
			}
		}
		else
		{
			if (fqlen != (size_t) cell.len || memcmp(fq, cell.data, fqlen) != 0)
			{
				const WcFamilyMeta *fm = ldb_table_meta_family(&sw->meta, fq, fqlen);
				size_t		flen;

				/* the cell before: tombstones older than all it keeps go */
				if (!sw->count_only)
					pending_delete(sw, &sw->pending, PG_UINT64_MAX);
				resetStringInfo(&sw->pending);
				resetStringInfo(&cell);
				appendBinaryStringInfo(&cell, (const char *) fq, fqlen);
				idx = 0;
				policy = fm && fm->has_policy ? &fm->policy : NULL;
				dropped = Max(row_dropped, fm ? fm->dropped : 0);
				counting = sw->family.len == 0 ||
					(wc_component_end(fq, fqlen, &flen) == 0 && flen == (size_t) sw->family.len &&
					 memcmp(fq, sw->family.data, flen) == 0);
			}
			/* as rowscan.c's row_entry decides */
			gone = ts < dropped ||
				(policy != NULL &&
				 wc_gc_deletes(policy, idx, sw->now > ts ? sw->now - ts : 0));
			idx++;
			if (gone)
			{
				if (!sw->count_only)
				{
					storage_batch_delete(sw->batch, k, n);
					sw->removed++;
					sw->table_removed++;
				}
			}
			else if (!sw->count_only && vlen == 1 + WC_AGG_LEN && wc_agg_is_merge(v[0]) &&
					 ts >= row_tomb)
			{
				/* a run that reads see now: behind the row's tombstone, left as it is */
				resetStringInfo(&sw->pending);
				oldest_kept = Min(oldest_kept, ts);
				if (!fold_run(sw, k, n, Max(row_tomb, dropped)))
					break;
				k = storage_iter_key(sw->it, &n);
				if (n < (size_t) sw->row.len + WC_TS_LEN ||
					memcmp(k, sw->row.data, sw->row.len) != 0)
					break;
				continue;
			}
			else if (vlen > 0 && (v[0] == WC_VALUE_PRESENT || wc_agg_is_merge(v[0])))
			{
				/* the tombstones newer than a kept version hide it: they stay */
				resetStringInfo(&sw->pending);
				oldest_kept = Min(oldest_kept, ts);
				if (counting)
					sw->counted++;
			}
			else
				pending_add(&sw->pending, k, n, ts);
		}

next_entry:
		if (!storage_iter_next_key(sw->it, &k, &n) ||
			n < (size_t) sw->row.len + WC_TS_LEN ||
			memcmp(k, sw->row.data, sw->row.len) != 0)
			break;
	}
	if (!sw->count_only)
	{
		pending_delete(sw, &sw->pending, PG_UINT64_MAX);
		/* a row tombstone no kept entry is older than hides nothing */
		pending_delete(sw, &sw->rowtombs, oldest_kept);
		/* the range tombstones the walk may remove at its end are these */
		if (sw->start_meta.nrowdrops > 0)
			ldb_rowdrops_hiding(&sw->start_meta, (const uint8 *) sw->row.data, rowlen,
							   oldest_kept);
	}
	pfree(cell.data);
}

/* Does m hold a drop? */
static bool
has_markers(const WcTableMeta *m)
{
	for (int i = 0; i < m->nfamilies; i++)
		if (m->families[i].dropped != 0)
			return true;
	return m->dropped != 0 || m->nrowdrops > 0;
}

/*
 * remove_markers
 *		After a walk over all of table (escaped), which began when its meta
 *		was m: delete drop_table's row tombstone and what it hid of the
 *		table's row of families, and drop_family's markers.
 */
static void
remove_markers(WcSweep *sw, const uint8 *table, size_t tlen, WcTableMeta *m)
{
	StringInfoData row;

	if (!has_markers(m) || sw->count_only)
		return;
	initStringInfo(&row);
	appendBinaryStringInfo(&row, (const char *) wc_meta_table, sizeof(wc_meta_table));
	appendBinaryStringInfo(&row, (const char *) table, tlen);
	storage_iter_seek(sw->it, (const uint8 *) row.data, row.len);
	while (storage_iter_valid(sw->it))
	{
		size_t		n;
		const uint8 *k = storage_iter_key(sw->it, &n);
		const uint8 *fq = k + row.len;
		size_t		fqlen;
		uint64		ts;
		bool		del;

		if (n < (size_t) row.len + WC_TS_LEN || memcmp(k, row.data, row.len) != 0)
			break;
		fqlen = n - row.len - WC_TS_LEN;
		ts = wc_decode_ts(k + n - WC_TS_LEN);
		if (fqlen == sizeof(wc_row_tombstone_fq) &&
			memcmp(fq, wc_row_tombstone_fq, fqlen) == 0)
			del = ts <= m->dropped;
		else
			del = ts < m->dropped;
		if (!del && fqlen > sizeof(dropped_cell) &&
			memcmp(fq, dropped_cell, sizeof(dropped_cell)) == 0)
		{
			/* wc:dropped:<family>: its family, escaped as in a data key */
			uint8	   *fam = palloc(fqlen);
			uint8	   *esc = palloc(WC_ESCAPED_MAX(fqlen));
			size_t		consumed,
						famlen;

			if (wc_unescape(fq + 4, fqlen - 4, fam, &consumed, &famlen) == 0 && famlen > 8)
			{
				const WcFamilyMeta *fm;

				famlen = wc_escape(fam + 8, famlen - 8, esc);
				fm = ldb_table_meta_family(m, esc, famlen);
				del = fm != NULL && ts <= fm->dropped;
			}
		}
		if (!del)
			del = ldb_rowdrops_cell_goes(m, fq, fqlen, ts);
		if (del)
			storage_batch_delete(sw->batch, k, n);
		storage_iter_next(sw->it);
	}
	storage_iter_check(sw->it);
	pfree(row.data);
	/* the commits' knowledge of the drops is out of date (rowdrops.c) */
	if (m->nrowdrops > 0)
		ldb_rowdrops_forget(sw->odb);
}

/* The walk over the table it was walking is over. */
static void
end_table(WcSweep *sw)
{
	StringInfoData end;

	if (sw->table.len == 0)
		return;
	if (!sw->table_kept && !sw->start_meta.hid_changes)
		remove_markers(sw, (const uint8 *) sw->table.data, sw->table.len, &sw->start_meta);
	if (!sw->count_only)
		wc_heat_swept(&sw->odb->base, (const uint8 *) sw->table.data, sw->table.len,
					  sw->table_removed);

	/* Give LevelDB the space back, unless the table lost little. */
	if (sw->background && sw->table_removed >= 1000 &&
		sw->table_removed * 4 >= sw->table_seen)
	{
		initStringInfo(&end);
		appendBinaryStringInfo(&end, sw->table.data, sw->table.len);
		if (successor(&end))
			(void) storage_compact_start(sw->odb->db, (const uint8 *) sw->table.data,
										 sw->table.len, (const uint8 *) end.data, end.len);
	}
	resetStringInfo(&sw->table);
}

/* Begin the walk over a table (escaped); the iterator moves. */
static void
begin_table(WcSweep *sw, const uint8 *table, size_t tlen)
{
	MemoryContext old = MemoryContextSwitchTo(sw->cxt);

	appendBinaryStringInfo(&sw->table, (const char *) table, tlen);
	ldb_table_meta_load(sw->it, &sw->hidden, table, tlen, &sw->start_meta);
	MemoryContextSwitchTo(old);
	sw->meta = sw->start_meta;
	sw->table_removed = sw->table_seen = 0;
	sw->table_kept = false;
}

/*
 * sweep_meta_row
 *		A row of the table of families, for table X: its markers go now if
 *		X has no data at all (else the walk over X's data removes them).
 *		Leaves the iterator after the row.
 */
static void
sweep_meta_row(WcSweep *sw, const uint8 *k, size_t n, size_t tlen)
{
	size_t		rowlen;
	StringInfoData x;
	StringInfoData next;
	WcTableMeta m;
	bool		empty;

	if (wc_component_end(k + tlen, n - tlen, &rowlen) != 0)
	{
		storage_iter_next(sw->it);
		return;
	}
	/* X's name as its keys begin, and the key after this row */
	initStringInfo(&x);
	appendBinaryStringInfo(&x, (const char *) k + tlen, rowlen);
	initStringInfo(&next);
	appendBinaryStringInfo(&next, (const char *) k, tlen + rowlen);
	(void) successor(&next);

	ldb_table_meta_load(sw->it, &sw->hidden, (const uint8 *) x.data, x.len, &m);
	if (has_markers(&m) && !m.hid_changes)
	{
		storage_iter_seek(sw->it, (const uint8 *) x.data, x.len);
		empty = !storage_iter_valid(sw->it);
		if (!empty)
		{
			const uint8 *dk = storage_iter_key(sw->it, &n);

			empty = n < (size_t) x.len || memcmp(dk, x.data, x.len) != 0;
		}
		storage_iter_check(sw->it);
		if (empty)
			remove_markers(sw, (const uint8 *) x.data, x.len, &m);
	}
	storage_iter_seek(sw->it, (const uint8 *) next.data, next.len);
	pfree(x.data);
	pfree(next.data);
}

/*
 * ldb_sweep_begin
 *		A walk over odb: over table (escaped; NULL: every table), counting
 *		the versions it keeps of family (escaped; NULL: every family) or
 *		deleting what is gone.  A background walk also has LevelDB compact
 *		each table it deleted much of.
 */
WcSweep *
ldb_sweep_begin(WcOpenDb *odb, const uint8 *table, size_t tlen, bool count_only,
			   const uint8 *family, size_t flen, bool background)
{
	MemoryContext cxt = AllocSetContextCreate(wc_worker_cxt, "widecolumn_fdw sweep",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	WcSweep    *sw = palloc0(sizeof(WcSweep));

	sw->odb = odb;
	sw->cxt = cxt;
	sw->slice_cxt = AllocSetContextCreate(cxt, "widecolumn_fdw sweep slice",
										  ALLOCSET_DEFAULT_SIZES);
	sw->count_only = count_only;
	sw->background = background;
	initStringInfo(&sw->family);
	if (family != NULL)
		appendBinaryStringInfo(&sw->family, (const char *) family, flen);
	initStringInfo(&sw->end);
	initStringInfo(&sw->cursor);
	initStringInfo(&sw->table);
	initStringInfo(&sw->row);
	initStringInfo(&sw->pending);
	initStringInfo(&sw->rowtombs);
	if (table != NULL)
	{
		appendBinaryStringInfo(&sw->cursor, (const char *) table, tlen);
		appendBinaryStringInfo(&sw->end, (const char *) table, tlen);
		if (!successor(&sw->end))
			resetStringInfo(&sw->end);
		/* its markers go even if it has no data left */
		ldb_xacts_hidden(odb, NULL, !count_only, &sw->hidden);
		sw->it = storage_iter(odb->db, NULL, false);
		PG_TRY();
		{
			begin_table(sw, table, tlen);
		}
		PG_FINALLY();
		{
			storage_iter_free(sw->it);
			sw->it = NULL;
		}
		PG_END_TRY();
	}
	MemoryContextSwitchTo(old);
	return sw;
}

/* Write what the slice deleted so far. */
static void
flush_batch(WcSweep *sw)
{
	static int	written = 0;

	if (sw->batch != NULL && storage_batch_bytes(sw->batch) > 0)
	{
		ldb_redo_sync(sw->odb, false);
		storage_write(sw->odb->db, sw->batch, false);
		/* the tests' crash in the middle of a walk (test/t/014_sweep_crash.pl) */
		if (ldb_debug_crash_after_sweep_batches > 0 &&
			++written >= ldb_debug_crash_after_sweep_batches)
		{
			storage_sync_logs(sw->odb->db);
			kill(MyProcPid, SIGKILL);
		}
	}
	if (sw->batch != NULL)
		storage_batch_clear(sw->batch);
}

/* The slice's loop: true when the walk is over. */
static bool
slice_loop(WcSweep *sw, int max_us, instr_time start)
{
	for (uint32 rows = 0;; rows++)
	{
		const uint8 *k;
		size_t		n,
					tlen;

		if (!storage_iter_valid(sw->it))
		{
			storage_iter_check(sw->it);
			end_table(sw);
			return true;
		}
		k = storage_iter_key(sw->it, &n);
		if (sw->end.len > 0 &&
			wc_compare_bytes(k, n, (const uint8 *) sw->end.data, sw->end.len) >= 0)
		{
			end_table(sw);
			return true;
		}
		/*
		 * Not before the first row: the slice's seeks alone can take longer
		 * than max_us (over the deletion markers of a table just swept),
		 * and a slice that stops before a row never gets on.
		 */
		if (max_us > 0 && rows > 0 && (rows & 15) == 0)
		{
			instr_time	now;

			INSTR_TIME_SET_CURRENT(now);
			INSTR_TIME_SUBTRACT(now, start);
			if (INSTR_TIME_GET_MICROSEC(now) >= max_us)
			{
				resetStringInfo(&sw->cursor);
				appendBinaryStringInfo(&sw->cursor, (const char *) k, n);
				return false;
			}
		}
		/* (a batch a row, for the tests' crash in the middle of a walk) */
		if (sw->batch != NULL &&
			(storage_batch_bytes(sw->batch) >= WC_SWEEP_BATCH_BYTES ||
			 ldb_debug_crash_after_sweep_batches > 0))
			flush_batch(sw);

		if (wc_component_end(k, n, &tlen) != 0)
		{
			storage_iter_next(sw->it);	/* the clock */
			sw->seen++;
		}
		else if (tlen == sizeof(wc_meta_table) && memcmp(k, wc_meta_table, tlen) == 0)
			sweep_meta_row(sw, k, n, tlen);
		else if (sw->table.len != (int) tlen || memcmp(k, sw->table.data, tlen) != 0)
		{
			StringInfoData here;

			initStringInfo(&here);
			appendBinaryStringInfo(&here, (const char *) k, n);
			end_table(sw);
			begin_table(sw, (const uint8 *) here.data, tlen);
			storage_iter_seek(sw->it, (const uint8 *) here.data, here.len);
			pfree(here.data);
		}
		else
			sweep_row(sw, k, n, tlen);
	}
}

/*
 * ldb_sweep_slice
 *		Walk on for about max_us microseconds (0: to the end), ending at a
 *		row's end; true when the walk is over.
 */
bool
ldb_sweep_slice(WcSweep *sw, int max_us)
{
	MemoryContext old = MemoryContextSwitchTo(sw->slice_cxt);
	instr_time	start;

	if (sw->done)
		return true;
	INSTR_TIME_SET_CURRENT(start);
	sw->seen = 0;
	sw->now = wc_unix_micros();
	PG_TRY();
	{
		/* in the same turn as the iterator: no commit comes between them */
		ldb_xacts_hidden(sw->odb, NULL, !sw->count_only, &sw->hidden);
		sw->it = storage_iter(sw->odb->db, NULL, false);
		if (!sw->count_only)
			sw->batch = storage_batch_new();
		/* the policies and drops as they are now */
		if (sw->table.len > 0)
			ldb_table_meta_load(sw->it, &sw->hidden, (const uint8 *) sw->table.data,
							   sw->table.len, &sw->meta);
		storage_iter_seek(sw->it, (const uint8 *) sw->cursor.data, sw->cursor.len);
		sw->done = slice_loop(sw, max_us, start);
		flush_batch(sw);
	}
	PG_FINALLY();
	{
		if (sw->batch != NULL)
			storage_batch_free(sw->batch);
		sw->batch = NULL;
		if (sw->it != NULL)
			storage_iter_free(sw->it);
		sw->it = NULL;
		MemoryContextSwitchTo(old);
		MemoryContextReset(sw->slice_cxt);
	}
	PG_END_TRY();
	return sw->done;
}

/*
 * Where the walk's next slice starts, and where it ends (empty: no end):
 * widecolumn.progress (reclaim.c).
 */
void
ldb_sweep_position(WcSweep *sw, WcBytes *cursor, WcBytes *end)
{
	cursor->data = (const uint8 *) sw->cursor.data;
	cursor->len = sw->cursor.len;
	end->data = (const uint8 *) sw->end.data;
	end->len = sw->end.len;
}

/* What the walk did: versions kept (count_only), or entries deleted. */
uint64
ldb_sweep_result(WcSweep *sw)
{
	return sw->count_only ? sw->counted : sw->removed;
}

void
ldb_sweep_end(WcSweep *sw)
{
	MemoryContextDelete(sw->cxt);
}
