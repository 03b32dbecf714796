/*-------------------------------------------------------------------------
 *
 * rowscan.c
 *	  Reading rows: the Bigtable model on top of LevelDB, as the storage
 *	  worker's scans read it, into BATCH answers.
 *
 * A row is the run of entries that share the table and row-key
 * prefix.  Within it, the newest version of each cell counts; a cell whose
 * newest version is a tombstone is absent; a row tombstone (the empty family
 * and qualifier, which sorts first) hides every cell written before it.  A
 * row exists while it has one live cell.  Scans send only the cells that were
 * asked for, plus a flag saying whether the row has others.  A family asked
 * for alone (a map column) is sent as one value holding all its live cells.
 * A cell of an aggregate family whose newest version is a merge is the
 * fold of its merges down to its newest plain value.
 *
 * This file is the walk: a scan's opening (its ranges, policies and
 * dropped ranges), its way over LevelDB's entries forward or backward in
 * bounded batches, and its end.  What a row's entries make is rowread.c's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <stdlib.h>

#include "utils/memutils.h"

#include "common/keycodec.h"
#include "worker/runtime/heat.h"
#include "worker/leveldb/rowfilter.h"
#include "worker/leveldb/leveldb.h"
#include "worker/leveldb/rowscan.h"


static void skip_dropped_ranges(WcLdbScan *s, const WcScanRequest *req);

/*
 * parse_cell
 *		Find where the family+qualifier that starts at rowend ends in key k.
 *
 * The timestamp is the last WC_TS_LEN bytes, so only the shortest
 * family+qualifier and the terminator before the timestamp are checked.
 * Parsing both components of every entry took a tenth of a full scan, and
 * a malformed family+qualifier could only fail to match a column: the
 * columns and the row tombstone are compared with whole, valid ones.
 */
static size_t
parse_cell(const uint8 *k, size_t n, size_t rowend)
{
	if (n < rowend + 4 + WC_TS_LEN ||
		k[n - WC_TS_LEN - 2] != 0x00 || k[n - WC_TS_LEN - 1] != 0x01)
		wc_corrupt_key(k, n);
	return n - WC_TS_LEN;
}

/*
 * parse_key
 *		Find where the row prefix and the family+qualifier end in key k.
 */
static void
parse_key(const uint8 *k, size_t n, size_t *rowend, size_t *cellend)
{
	size_t		c;
	size_t		pos = 0;

	for (int part = 0; part < 2; part++)
	{
		if (wc_component_end(k + pos, n - pos, &c) != 0)
			wc_corrupt_key(k, n);
		pos += c;
	}
	*rowend = pos;
	*cellend = parse_cell(k, n, pos);
}

static int
slice_cmp(const void *a, const void *b)
{
	const WcSlice *x = a;
	const WcSlice *y = b;

	return wc_compare_bytes(x->p, x->len, y->p, y->len);
}

static const uint8 *
copy_bytes(WcBytes b)
{
	return memcpy(palloc(b.len + 1), b.data, b.len);
}

static bool
before_end(WcLdbScan *s, const uint8 *k, size_t n)
{
	WcSlice    *e = &s->ends[s->range];

	return e->len == 0 || wc_compare_bytes(k, n, e->p, e->len) < 0;
}

/*
 * load_policies
 *		Read the policies and drop times of the scan's table at its snapshot
 *		(with its own iterator, before it is positioned).  All the ranges of
 *		a scan are in one table, named by the first component of their keys.
 */
static void
load_policies(WcLdbScan *s)
{
	size_t		tlen;

	if (s->nranges == 0 ||
		wc_component_end(s->starts[0].p, s->starts[0].len, &tlen) != 0)
		return;
	ldb_table_meta_load(s->it, &s->hidden, s->starts[0].p, tlen, &s->meta);
}

/*
 * skip_dropped_ranges
 *		Take the row ranges drop_row_range dropped, and nothing was written
 *		into since, out of the scan's key ranges: it never reads them.
 */
static void
skip_dropped_ranges(WcLdbScan *s, const WcScanRequest *req)
{
	WcScanRequest r = *req;
	WcWireRange *in = palloc(sizeof(WcWireRange) * (s->nranges + 1));

	for (int i = 0; i < s->nranges; i++)
	{
		in[i].start.data = s->starts[i].p;
		in[i].start.len = s->starts[i].len;
		in[i].end.data = s->ends[i].p;
		in[i].end.len = s->ends[i].len;
	}
	r.nranges = ldb_rowdrops_subtract(&s->meta, s->as_of, in, s->nranges, &r.ranges);
	s->nranges = r.nranges;
	s->starts = palloc(sizeof(WcSlice) * (r.nranges + 1));
	s->ends = palloc(sizeof(WcSlice) * (r.nranges + 1));
	for (int i = 0; i < r.nranges; i++)
	{
		s->starts[i].p = r.ranges[i].start.data;
		s->starts[i].len = r.ranges[i].start.len;
		s->ends[i].p = r.ranges[i].end.data;
		s->ends[i].len = r.ranges[i].end.len;
	}
	if (req->flags & WC_SCAN_CELLS)
		s->vs = ldb_versions_open(&r, s->it, s->pre, &s->hidden, s->now,
								   Max(s->now, s->odb->last_commit_ts + 1),
								   ldb_version_policy, s);
}

/*
 * ldb_scan_open
 *		Start the scan a SCAN request asks for.
 */
WcLdbScan *
ldb_scan_open(WcOpenDb *odb, WcSnap *snap, const WcHidden *hidden, const WcScanRequest *req)
{
	WcLdbScan *s = palloc0(sizeof(WcLdbScan));
	bool		fill_cache = (req->flags & WC_SCAN_BULK) == 0;

	/*
	 * The request is freed after this call; keep our own copies.  A family
	 * asked for alone is one key component, family and qualifier two.
	 */
	s->cols = palloc(sizeof(WcSlice) * (req->ncols + 1));
	s->fams = palloc(sizeof(WcSlice) * (req->ncols + 1));
	for (int i = 0; i < req->ncols; i++)
	{
		size_t		flen;
		WcSlice    *c;

		(void) wc_component_end(req->cols[i].data, req->cols[i].len, &flen);
		c = flen == req->cols[i].len ? &s->fams[s->nfams++] : &s->cols[s->ncols++];
		c->p = copy_bytes(req->cols[i]);
		c->len = req->cols[i].len;
		c->idx = i;
	}
	s->row.fam_cells = palloc0(sizeof(WcByteBuf) * (s->nfams + 1));
	s->nranges = req->nranges;
	s->starts = palloc(sizeof(WcSlice) * (s->nranges + 1));
	s->ends = palloc(sizeof(WcSlice) * (s->nranges + 1));
	for (int i = 0; i < s->nranges; i++)
	{
		s->starts[i].p = copy_bytes(req->ranges[i].start);
		s->starts[i].len = req->ranges[i].start.len;
		s->ends[i].p = copy_bytes(req->ranges[i].end);
		s->ends[i].len = req->ranges[i].end.len;
	}
	qsort(s->cols, s->ncols, sizeof(WcSlice), slice_cmp);

	s->odb = odb;
	s->reverse = (req->flags & WC_SCAN_REVERSE) != 0;
	s->versions = (req->flags & WC_SCAN_VERSIONS) != 0;
	s->limit = req->limit;
	/*
	 * A bulk scan reads the table through: big batches mean fewer round
	 * trips.  Other scans start small, so that the backend decodes rows while
	 * the worker reads more (ldb_scan_fill); with no cells wanted
	 * (count(*)) the backend has little to do, and the batches are full-size
	 * from the start.
	 */
	s->batch_bytes = !fill_cache ? WC_BULK_BATCH_BYTES :
		s->ncols + s->nfams == 0 ? WC_BATCH_BYTES : WC_FIRST_BATCH_BYTES;
	/* A full scan must not push the point reads' blocks out of the cache. */
	s->it = storage_iter(odb->db, snap, fill_cache);
	s->fill_cache = fill_cache;
	s->as_of = req->as_of;
	ldb_hidden_copy(hidden, &s->hidden, CurrentMemoryContext);
	/* made now, with s->it: the same state of the database */
	if (s->hidden.preimages)
		s->pre = storage_iter(odb->db, snap, false);
	s->now = wc_unix_micros();
	s->heat.on = wc_key_stats;
	if (req->flags & WC_SCAN_FILTER)
		s->filter = ldb_row_filter_new(req);
	load_policies(s);
	if (s->meta.nrowdrops > 0)
		skip_dropped_ranges(s, req);
	else if (req->flags & WC_SCAN_CELLS)
		s->vs = ldb_versions_open(req, s->it, s->pre, &s->hidden, s->now,
								   Max(s->now, odb->last_commit_ts + 1),
								   ldb_version_policy, s);
	return s;
}

/* The scan reads at snap, one of whose holders it is until it ends. */
void
ldb_scan_hold(WcLdbScan *s, WcSnap *snap)
{
	s->held = snap;
}

WcOpenDb *
ldb_scan_db(WcLdbScan *s)
{
	return s->odb;
}

/*
 * ldb_scan_close
 *		Free what the scan holds outside its memory context: the iterator
 *		and the buffers its batches grow (plain C, for the reader threads).
 */
void
ldb_scan_close(WcLdbScan *s)
{
	if (s->it)
		storage_iter_free(s->it);
	s->it = NULL;
	if (s->pre)
		storage_iter_free(s->pre);
	s->pre = NULL;
	wc_bytebuf_free(&s->pre_key);
	if (s->held && s->odb->db)
		storage_release(s->odb->db, s->held);
	s->held = NULL;
	for (int i = 0; i < s->nfams; i++)
		wc_bytebuf_free(&s->row.fam_cells[i]);
	wc_bytebuf_free(&s->row.lastcell);
	wc_bytebuf_free(&s->last_family);
	wc_bytebuf_free(&s->qual);
	wc_bytebuf_free(&s->out);
	wc_bytebuf_free(&s->rowkey);
	wc_bytebuf_free(&s->seek);
	wc_bytebuf_free(&s->arena);
	wc_heat_scan_free(&s->heat);
	free(s->entries_buf);
	s->entries_buf = NULL;
	s->entries_cap = 0;
	if (s->vs)
		ldb_versions_close(s->vs);
	s->vs = NULL;
}

/*
 * Older versions of a cell (or, with as_of, newer ones) are passed over one
 * by one at first, as a cell usually has few; after this many in a row a
 * seek skips the rest, so a cell that was written ten thousand times reads
 * about as fast as one written once (LevelDB's own iterator switches to a
 * seek the same way).
 */
#define WC_VERSIONS_BEFORE_SEEK	8

/*
 * seek_in_cell
 *		Move to the newest version at or before ts of the cell whose key
 *		(before its timestamp) is k[0, cellend), or to what follows the
 *		cell if it has none.  Timestamps are stored inverted, so the versions
 *		at or before ts are those from k + ~ts on; ts 0, the oldest possible
 *		version, skips every version but that one.
 */
static void
seek_in_cell(WcLdbScan *s, const uint8 *k, size_t cellend, uint64 ts)
{
	WcByteBuf  *target = &s->seek;

	wc_bytebuf_set(target, k, cellend);
	wc_bytebuf_reserve(target, WC_TS_LEN);
	wc_encode_ts(ts, target->data + cellend);
	target->len = cellend + WC_TS_LEN;
	storage_iter_seek(s->it, target->data, target->len);
}

/*
 * A batch is full at its size; with filters, that leave rows out, also after
 * a quarter as many entries as it has bytes, so that a fill stays short.
 */
static bool
batch_full(WcLdbScan *s, WcByteBuf *out, uint64 before)
{
	return out->len >= s->batch_bytes ||
		(s->filter && s->entries - before >= (uint64) s->batch_bytes / 4);
}

static void
scan_forward(WcLdbScan *s, WcByteBuf *out)
{
	uint64		before = s->entries;

	while (!s->done && !batch_full(s, out, before))
	{
		const uint8 *k;
		size_t		n,
					rowend,
					cellend;
		WcSlice    *end;
		bool		end_in_row;
		int			older;
		int			newer;

		if (!s->positioned)
		{
			if (s->range >= s->nranges)
			{
				s->done = true;
				break;
			}
			storage_iter_seek(s->it, s->starts[s->range].p, s->starts[s->range].len);
			s->positioned = true;
		}
		if (!storage_iter_valid(s->it))
		{
			storage_iter_check(s->it);
			s->done = true;
			break;
		}
		k = storage_iter_key(s->it, &n);
		if (!before_end(s, k, n))
		{
			s->range++;
			s->positioned = false;
			continue;
		}

		parse_key(k, n, &rowend, &cellend);
		ldb_row_begin(s, k, rowend);

		/*
		 * Every entry of the row shares its prefix, so it is before the end
		 * bound as the first one is, unless the bound lies inside the row.
		 */
		end = &s->ends[s->range];
		end_in_row = end->len > rowend && memcmp(end->p, k, rowend) == 0;
		older = newer = 0;
		for (;;)
		{
			const uint8 *v;
			size_t		vlen;
			WcEntryKind kind;

			v = storage_iter_value(s->it, &vlen);
			kind = ldb_row_entry(s, k, n, rowend, cellend, v, vlen);
			older = kind == WC_ENTRY_OLDER ? older + 1 : 0;
			newer = kind == WC_ENTRY_NEWER ? newer + 1 : 0;
			if (older >= WC_VERSIONS_BEFORE_SEEK ||
				(newer >= WC_VERSIONS_BEFORE_SEEK &&
				 (s->row.policy == NULL || s->row.policy->max_versions == 0)))
			{
				/*
				 * A cell of many versions: skip the rest at once, or those
				 * after as_of (unless the policy counts them).
				 */
				seek_in_cell(s, k, cellend, older > 0 ? 0 : s->as_of);
				older = newer = 0;
				if (!storage_iter_valid(s->it))
					break;
				k = storage_iter_key(s->it, &n);
			}
			else if (!storage_iter_next_key(s->it, &k, &n))
				break;
			if (n < rowend || memcmp(k, s->rowkey.data, rowend) != 0 ||
				(end_in_row && !before_end(s, k, n)))
				break;
			cellend = parse_cell(k, n, rowend);
		}
		ldb_row_end(s);
	}
}

/*
 * scan_reverse
 *		Rows in descending key order.
 *
 * Entries of a row arrive backwards (oldest version first, row tombstone
 * last), so each row is copied out and then read forwards.
 */
static void
scan_reverse(WcLdbScan *s, WcByteBuf *out)
{
	uint64		before = s->entries;

	while (!s->done && !batch_full(s, out, before))
	{
		const uint8 *k;
		size_t		n,
					rowend,
					cellend;
		int			count = 0;

		if (!s->positioned)
		{
			WcSlice    *e;

			if (s->range >= s->nranges)
			{
				s->done = true;
				break;
			}
			e = &s->ends[s->nranges - 1 - s->range];
			if (e->len == 0)
				storage_iter_seek_last(s->it);
			else
			{
				storage_iter_seek(s->it, e->p, e->len);
				if (storage_iter_valid(s->it))
					storage_iter_prev(s->it);
				else
					storage_iter_seek_last(s->it);
			}
			s->positioned = true;
		}
		if (!storage_iter_valid(s->it))
		{
			storage_iter_check(s->it);
			s->range++;
			s->positioned = false;
			continue;
		}
		k = storage_iter_key(s->it, &n);
		{
			WcSlice    *b = &s->starts[s->nranges - 1 - s->range];
			WcSlice    *e = &s->ends[s->nranges - 1 - s->range];

			if (wc_compare_bytes(k, n, b->p, b->len) < 0 ||
				(e->len > 0 && wc_compare_bytes(k, n, e->p, e->len) >= 0))
			{
				s->range++;
				s->positioned = false;
				continue;
			}
		}

		parse_key(k, n, &rowend, &cellend);
		s->arena.len = 0;
		wc_bytebuf_set(&s->rowkey, k, rowend);
		for (;;)
		{
			const uint8 *v;
			size_t		vlen;
			WcSlice    *b = &s->starts[s->nranges - 1 - s->range];

			if (count == s->entries_cap)
			{
				WcEntry    *grown;

				s->entries_cap = Max(16, s->entries_cap * 2);
				grown = realloc(s->entries_buf, sizeof(WcEntry) * s->entries_cap);
				if (grown == NULL)
					wc_bytebuf_failed(sizeof(WcEntry) * s->entries_cap);
				s->entries_buf = grown;
			}
			v = storage_iter_value(s->it, &vlen);
			s->entries_buf[count].koff = s->arena.len;
			s->entries_buf[count].klen = n;
			wc_bytebuf_append(&s->arena, k, n);
			s->entries_buf[count].voff = s->arena.len;
			s->entries_buf[count].vlen = vlen;
			wc_bytebuf_append(&s->arena, v, vlen);
			count++;

			storage_iter_prev(s->it);
			if (!storage_iter_valid(s->it))
				break;
			k = storage_iter_key(s->it, &n);
			if (n < s->rowkey.len ||
				memcmp(k, s->rowkey.data, s->rowkey.len) != 0 ||
				wc_compare_bytes(k, n, b->p, b->len) < 0)
				break;
		}

		for (int i = count - 1; i >= 0; i--)
		{
			const uint8 *ek = s->arena.data + s->entries_buf[i].koff;
			const uint8 *ev = s->arena.data + s->entries_buf[i].voff;

			parse_key(ek, s->entries_buf[i].klen, &rowend, &cellend);
			if (i == count - 1)
				ldb_row_begin(s, ek, rowend);
			ldb_row_entry(s, ek, s->entries_buf[i].klen, rowend, cellend,
					  ev, s->entries_buf[i].vlen);
		}
		ldb_row_end(s);
	}
}

/*
 * ldb_scan_fill
 *		Fill the scan's next BATCH answer, of about s->batch_bytes
 *		(ldb_scan_batch gives it); true if it is the last.
 *
 * Plain C, for the reader threads (readers.c): its errors are wc_fail's.
 */
bool
ldb_scan_fill(WcLdbScan *s)
{
	uint64		before = s->entries;

	s->skipped = 0;
	s->out.len = 0;
	wc_write_batch_begin(&s->batch, &s->out);
	if (s->vs)
	{
		s->done = ldb_versions_fill(s->vs, &s->batch, &s->out, s->batch_bytes, &s->entries);
		/* counted as a whole, from where the scan's ranges begin */
		if (s->nranges > 0)
			wc_heat_batch(&s->heat, s->starts[0].p, s->starts[0].len, s->batch.nrows,
						  s->entries - before, s->out.len);
	}
	else if (s->reverse)
		scan_reverse(s, &s->out);
	else
		scan_forward(s, &s->out);

	/*
	 * LevelDB's iterator passes over a block it cannot read, and only
	 * records the error: rows would be missing without one.
	 */
	storage_iter_check(s->it);

	/*
	 * The first batches are small, so that the backend starts early and
	 * reads while the worker fills the next: a scan of a thousand rows is
	 * over in a few.  A longer scan gets bigger batches, for fewer round
	 * trips.
	 */
	if (++s->batches > WC_SMALL_BATCHES && s->batch_bytes < WC_BATCH_BYTES)
		s->batch_bytes *= 2;
	else if (s->batch_bytes < WC_SMALL_BATCH_BYTES)
		s->batch_bytes = WC_SMALL_BATCH_BYTES;
	wc_write_batch_end(&s->batch, s->done, s->entries - before, s->skipped);
	return s->done;
}

/* What the scan read since the main thread last took it (heat.c). */
WcHeatScan *
ldb_scan_heat(WcLdbScan *s)
{
	return &s->heat;
}

/* The batch ldb_scan_fill filled last. */
const WcByteBuf *
ldb_scan_batch(WcLdbScan *s)
{
	return &s->out;
}

/*
 * ldb_scan_is_small
 *		Whether the scan's next batch is a small one from the block cache:
 *		a point read's, or one of the first of a short scan.  The main thread
 *		fills those itself (serve.c): handing one to a reader thread and
 *		back costs the main thread more than the fill (27 us a point read
 *		against 15 us here), and on two CPUs even a 1,000-row prefix scan's
 *		16 KiB batches went 13-20% slower through the threads
 *		(test/bench/analysis.md).
 */
bool
ldb_scan_is_small(WcLdbScan *s)
{
	return s->batch_bytes <= WC_SMALL_BATCH_BYTES && s->fill_cache;
}
