/*-------------------------------------------------------------------------
 *
 * cells.c
 *	  The Bigtable model on top of LevelDB, as the storage worker runs it.
 *
 * Reading: a row is the run of entries that share the table and row-key
 * prefix.  Within it, the newest version of each cell counts; a cell whose
 * newest version is a tombstone is absent; a row tombstone (the empty family
 * and qualifier, which sorts first) hides every cell written before it.  A
 * row exists while it has one live cell.  Scans send only the cells that were
 * asked for, plus a flag saying whether the row has others.
 *
 * Writing: a commit's mutations are applied as one WriteBatch, every entry
 * stamped with the same commit timestamp, taken from a clock that never runs
 * backwards (a bound on the timestamps given out is stored, so a restart or a
 * clock step cannot make a new write older than an old one).
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

#include "common/keycodec.h"
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

/* The family and qualifier of a row tombstone: both empty. */
static const uint8 row_tombstone_fq[] = {0x00, 0x01, 0x00, 0x01};

typedef struct WcSlice
{
	const uint8 *p;
	size_t		len;
	uint16		idx;
} WcSlice;

/* An entry copied out of the iterator, for reverse scans. */
typedef struct WcEntry
{
	size_t		koff,
				klen,
				voff,
				vlen;
} WcEntry;

/* The row being assembled into the batch. */
typedef struct WcRowState
{
	int			start;			/* offset of the row in the batch */
	int			header;			/* offset of "other" and ncells */
	uint16		ncells;
	int			colpos;			/* first of s->cols not before the cell */
	bool		other;
	bool		live;
	uint64		tomb_ts;
	uint64		version;		/* WC_SCAN_VERSIONS */
	StringInfoData lastcell;
	bool		have_last;
} WcRowState;

struct WcCellScan
{
	WcOpenDb   *odb;
	WcIter	   *it;
	bool		reverse;
	bool		versions;		/* end each row with its version */
	uint64		limit;
	uint64		emitted;
	uint64		entries;
	int			ncols;
	WcSlice    *cols;			/* sorted bytewise, as a row's cells are */
	int			nranges;
	WcSlice    *starts;
	WcSlice    *ends;
	int			range;			/* position in iteration order */
	bool		positioned;
	bool		done;
	int			batch_bytes;	/* a batch ends once it is this large */
	int			batches;		/* batches filled so far */
	StringInfoData rowkey;		/* table+row prefix of the current row */
	StringInfoData arena;		/* reverse scans: the row's entries */
	WcEntry    *entries_buf;
	int			entries_cap;
	WcRowState	row;
};

static pg_attribute_noreturn() void
corrupt_key(const uint8 *k, size_t n)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("malformed key in LevelDB database"),
			 errdetail("The key is %zu bytes long and does not have the widecolumn_fdw layout.", n)));
}

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
		corrupt_key(k, n);
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
			corrupt_key(k, n);
		pos += c;
	}
	*rowend = pos;
	*cellend = parse_cell(k, n, pos);
}

static void
append_u32(StringInfo out, uint32 v)
{
	appendBinaryStringInfo(out, (const char *) &v, 4);
}

static int
slice_cmp(const void *a, const void *b)
{
	const WcSlice *x = a;
	const WcSlice *y = b;

	return wc_compare_bytes(x->p, x->len, y->p, y->len);
}

static bool
before_end(WcCellScan *s, const uint8 *k, size_t n)
{
	WcSlice    *e = &s->ends[s->range];

	return e->len == 0 || wc_compare_bytes(k, n, e->p, e->len) < 0;
}

/*
 * cells_scan_open
 *		Start a scan from the rest of a SCAN request.
 */
WcCellScan *
cells_scan_open(WcOpenDb *odb, WcSnap *snap, WcReader *r, bool reverse,
				bool fill_cache, bool versions, uint64 limit)
{
	WcCellScan *s = palloc0(sizeof(WcCellScan));
	int			ncols = wc_get_u16(r);

	if (ncols > WC_MAX_SCAN_COLUMNS)
		r->bad = 1;
	s->ncols = r->bad ? 0 : ncols;
	s->cols = palloc(sizeof(WcSlice) * (s->ncols + 1));
	for (int i = 0; i < s->ncols; i++)
	{
		s->cols[i].p = wc_get_str(r, &s->cols[i].len);
		s->cols[i].idx = i;
	}
	s->nranges = wc_get_u32(r);
	if (r->bad || (size_t) s->nranges > wc_reader_left(r) / 8)
	{
		r->bad = 1;
		return s;
	}
	s->starts = palloc(sizeof(WcSlice) * (s->nranges + 1));
	s->ends = palloc(sizeof(WcSlice) * (s->nranges + 1));
	for (int i = 0; i < s->nranges; i++)
	{
		s->starts[i].p = wc_get_str(r, &s->starts[i].len);
		s->ends[i].p = wc_get_str(r, &s->ends[i].len);
	}
	if (r->bad)
		return s;

	/* The request is freed after this call; keep our own copies. */
	for (int i = 0; i < s->ncols; i++)
		s->cols[i].p = memcpy(palloc(s->cols[i].len + 1), s->cols[i].p, s->cols[i].len);
	for (int i = 0; i < s->nranges; i++)
	{
		s->starts[i].p = memcpy(palloc(s->starts[i].len + 1), s->starts[i].p, s->starts[i].len);
		s->ends[i].p = memcpy(palloc(s->ends[i].len + 1), s->ends[i].p, s->ends[i].len);
	}
	qsort(s->cols, s->ncols, sizeof(WcSlice), slice_cmp);

	s->odb = odb;
	s->reverse = reverse;
	s->versions = versions;
	s->limit = limit;
	/*
	 * A bulk scan reads the table through: big batches mean fewer round
	 * trips.  Other scans start small, so that the backend decodes rows while
	 * the worker reads more (cells_scan_fill); with no cells wanted
	 * (count(*)) the backend has little to do, and the batches are full-size
	 * from the start.
	 */
	s->batch_bytes = !fill_cache ? WC_BULK_BATCH_BYTES :
		s->ncols == 0 ? WC_BATCH_BYTES : WC_FIRST_BATCH_BYTES;
	/* A full scan must not push the point reads' blocks out of the cache. */
	s->it = storage_iter(odb->db, snap, fill_cache);
	initStringInfo(&s->rowkey);
	initStringInfo(&s->arena);
	initStringInfo(&s->row.lastcell);
	return s;
}

WcOpenDb *
cells_scan_db(WcCellScan *s)
{
	return s->odb;
}

void
cells_scan_close(WcCellScan *s)
{
	if (s->it)
		storage_iter_free(s->it);
	s->it = NULL;
}

static void
row_begin(WcCellScan *s, StringInfo out, const uint8 *k, size_t rowend)
{
	WcRowState *row = &s->row;
	size_t		tlen,
				consumed,
				rlen;

	resetStringInfo(&s->rowkey);
	appendBinaryStringInfo(&s->rowkey, (const char *) k, rowend);

	/* The batch carries the row key itself, not its escaped form. */
	row->start = out->len;
	enlargeStringInfo(out, 4 + rowend + 3);
	if (wc_component_end(k, rowend, &tlen) != 0 ||
		wc_unescape(k + tlen, rowend - tlen, (uint8 *) out->data + out->len + 4,
					&consumed, &rlen) != 0)
		corrupt_key(k, rowend);
	memcpy(out->data + out->len, &(uint32) {rlen}, 4);
	out->len += 4 + rlen;
	row->header = out->len;
	appendBinaryStringInfo(out, "\0\0\0", 3);	/* other, ncells */
	row->ncells = 0;
	row->colpos = 0;
	row->other = false;
	row->live = false;
	row->tomb_ts = 0;
	row->version = 0;
	row->have_last = false;
}

/*
 * row_entry
 *		Take one entry of the current row, entries in key order.
 */
static void
row_entry(WcCellScan *s, StringInfo out, const uint8 *k, size_t n,
		  size_t rowend, size_t cellend, const uint8 *v, size_t vlen)
{
	WcRowState *row = &s->row;
	const uint8 *fq = k + rowend;
	size_t		fqlen = cellend - rowend;
	WcSlice    *col;
	char	   *dst;

	s->entries++;

	/* Only the newest version of a cell counts; older ones follow it. */
	if (row->have_last && fqlen == (size_t) row->lastcell.len &&
		memcmp(fq, row->lastcell.data, fqlen) == 0)
		return;
	if ((size_t) row->lastcell.maxlen <= fqlen)
		enlargeStringInfo(&row->lastcell, fqlen);
	memcpy(row->lastcell.data, fq, fqlen);
	row->lastcell.len = fqlen;
	row->have_last = true;

	/* any commit that wrote the row wrote the newest entry of some cell */
	if (s->versions)
		row->version = Max(row->version, wc_decode_ts(k + cellend));

	if (fqlen == sizeof(row_tombstone_fq) &&
		memcmp(fq, row_tombstone_fq, fqlen) == 0)
	{
		row->tomb_ts = wc_decode_ts(k + cellend);
		return;
	}
	if (row->tomb_ts != 0 && wc_decode_ts(k + cellend) < row->tomb_ts)
		return;
	if (vlen == 0 || (v[0] != WC_VALUE_PRESENT && v[0] != WC_VALUE_TOMBSTONE))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("malformed value in LevelDB database"),
				 errdetail("A stored value does not begin with a valid tag byte.")));
	if (v[0] == WC_VALUE_TOMBSTONE)
		return;

	row->live = true;

	/*
	 * A row's cells arrive in bytewise order, the order of s->cols: walk the
	 * two together instead of searching the columns for every cell.
	 */
	for (;;)
	{
		int			cmp;

		if (row->colpos == s->ncols)
		{
			row->other = true;
			return;
		}
		col = &s->cols[row->colpos];
		cmp = wc_compare_bytes(col->p, col->len, fq, fqlen);
		if (cmp == 0)
			break;
		if (cmp > 0)
		{
			row->other = true;
			return;
		}
		row->colpos++;
	}

	/* u16 column, u32 length, the value without its tag byte */
	enlargeStringInfo(out, 6 + vlen - 1);
	dst = out->data + out->len;
	memcpy(dst, &col->idx, 2);
	memcpy(dst + 2, &(uint32) {vlen - 1}, 4);
	memcpy(dst + 6, v + 1, vlen - 1);
	out->len += 6 + vlen - 1;
	out->data[out->len] = '\0';
	row->ncells++;
	(void) n;
}

/* Finish the row: keep it if it exists, otherwise take it back out. */
static void
row_end(WcCellScan *s, StringInfo out, uint32 *nrows)
{
	WcRowState *row = &s->row;

	if (!row->live)
	{
		out->len = row->start;
		out->data[out->len] = '\0';
		return;
	}
	out->data[row->header] = row->other ? 1 : 0;
	memcpy(out->data + row->header + 1, &row->ncells, 2);
	if (s->versions)
		appendBinaryStringInfo(out, (const char *) &row->version, 8);
	(*nrows)++;
	s->emitted++;
	if (s->limit != 0 && s->emitted >= s->limit)
		s->done = true;
}

static void
scan_forward(WcCellScan *s, StringInfo out, uint32 *nrows)
{
	while (!s->done && out->len < s->batch_bytes)
	{
		const uint8 *k;
		size_t		n,
					rowend,
					cellend;
		WcSlice    *end;
		bool		end_in_row;

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
		row_begin(s, out, k, rowend);

		/*
		 * Every entry of the row shares its prefix, so it is before the end
		 * bound as the first one is, unless the bound lies inside the row.
		 */
		end = &s->ends[s->range];
		end_in_row = end->len > rowend && memcmp(end->p, k, rowend) == 0;
		for (;;)
		{
			const uint8 *v;
			size_t		vlen;

			v = storage_iter_value(s->it, &vlen);
			row_entry(s, out, k, n, rowend, cellend, v, vlen);
			if (!storage_iter_next_key(s->it, &k, &n))
				break;
			if (n < rowend || memcmp(k, s->rowkey.data, rowend) != 0 ||
				(end_in_row && !before_end(s, k, n)))
				break;
			cellend = parse_cell(k, n, rowend);
		}
		row_end(s, out, nrows);
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
scan_reverse(WcCellScan *s, StringInfo out, uint32 *nrows)
{
	while (!s->done && out->len < s->batch_bytes)
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
		resetStringInfo(&s->arena);
		resetStringInfo(&s->rowkey);
		appendBinaryStringInfo(&s->rowkey, (const char *) k, rowend);
		for (;;)
		{
			const uint8 *v;
			size_t		vlen;
			WcSlice    *b = &s->starts[s->nranges - 1 - s->range];

			if (count == s->entries_cap)
			{
				s->entries_cap = Max(16, s->entries_cap * 2);
				s->entries_buf = s->entries_buf ?
					repalloc(s->entries_buf, sizeof(WcEntry) * s->entries_cap) :
					palloc(sizeof(WcEntry) * s->entries_cap);
			}
			v = storage_iter_value(s->it, &vlen);
			s->entries_buf[count].koff = s->arena.len;
			s->entries_buf[count].klen = n;
			appendBinaryStringInfo(&s->arena, (const char *) k, n);
			s->entries_buf[count].voff = s->arena.len;
			s->entries_buf[count].vlen = vlen;
			appendBinaryStringInfo(&s->arena, (const char *) v, vlen);
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
			const uint8 *ek = (uint8 *) s->arena.data + s->entries_buf[i].koff;
			const uint8 *ev = (uint8 *) s->arena.data + s->entries_buf[i].voff;

			parse_key(ek, s->entries_buf[i].klen, &rowend, &cellend);
			if (i == count - 1)
				row_begin(s, out, ek, rowend);
			row_entry(s, out, ek, s->entries_buf[i].klen, rowend, cellend,
					  ev, s->entries_buf[i].vlen);
		}
		row_end(s, out, nrows);
	}
}

/*
 * A BATCH answer: type, u8 done, u32 rows, u64 entries read, then the rows.
 * batch_begin reserves the header; batch_end fills it in.
 */
static int
batch_begin(StringInfo out)
{
	int			header = out->len;

	appendStringInfoChar(out, WC_RESP_BATCH);
	appendBinaryStringInfo(out, "\0\0\0\0\0\0\0\0\0\0\0\0\0", 13);
	return header;
}

static void
batch_end(StringInfo out, int header, bool done, uint32 nrows, uint64 read)
{
	out->data[header + 1] = done ? 1 : 0;
	memcpy(out->data + header + 2, &nrows, 4);
	memcpy(out->data + header + 6, &read, 8);
}

/*
 * cells_scan_fill
 *		Append one BATCH answer of about s->batch_bytes to out; true if it
 *		is the last.
 */
bool
cells_scan_fill(WcCellScan *s, StringInfo out)
{
	int			header = batch_begin(out);
	uint32		nrows = 0;
	uint64		before = s->entries;
	uint64		read;

	if (s->reverse)
		scan_reverse(s, out, &nrows);
	else
		scan_forward(s, out, &nrows);

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
	read = s->entries - before;
	batch_end(out, header, s->done, nrows, read);
	return s->done;
}

/* Append the BATCH answer of a scan that has ended: done, no rows. */
void
cells_scan_empty_batch(StringInfo out)
{
	batch_end(out, batch_begin(out), true, 0, 0);
}

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

/* Microseconds since the Unix epoch. */
static uint64
unix_micros(void)
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

static void
malformed_write(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROTOCOL_VIOLATION),
			 errmsg("malformed write request from a backend")));
}

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
	append_u32(&rec, cm->lowest->len);
	appendBinaryStringInfo(&rec, cm->lowest->data, cm->lowest->len);
	append_u32(&rec, cm->highest->len);
	appendBinaryStringInfo(&rec, cm->highest->data, cm->highest->len);

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
 * Is this commit written in chunks by cells_commit?  The caller must then
 * wait for the commit writer first (storage_writer_drain), so that the
 * chunks go after every commit before it.
 */
bool
cells_commit_is_large(WcClientWrites *w)
{
	ListCell   *lc;
	size_t		total = 0;

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
	uint64		ts = Max(unix_micros(), odb->last_commit_ts + 1);
	uint8		tsbuf[WC_TS_LEN];
	WcCommit	cm;
	StringInfoData key;
	StringInfoData val;
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
		foreach(lc, w->msgs)
		{
			StringInfo	msg = lfirst(lc);
			WcReader	r;

			wc_reader_init(&r, msg->data, msg->len);
			while (!r.bad && wc_reader_left(&r) > 0)
			{
				size_t		plen;
				const uint8 *prefix = wc_get_str(&r, &plen);
				bool		deleted = wc_get_u8(&r) != 0;
				uint32		ncells = wc_get_u32(&r);

				if (r.bad)
					break;
				if (cm.chunked &&
					storage_batch_bytes(cm.batch) >= WC_COMMIT_CHUNK_BYTES)
					commit_write_batch(&cm, false);
				resetStringInfo(&key);
				appendBinaryStringInfo(&key, (const char *) prefix, plen);
				if (deleted)
					commit_put(&cm, &key, &val, plen, row_tombstone_fq,
							   sizeof(row_tombstone_fq), tsbuf, -1, NULL, 0);
				for (uint32 i = 0; i < ncells && !r.bad; i++)
				{
					size_t		fqlen,
								vlen;
					const uint8 *fq = wc_get_str(&r, &fqlen);
					uint8		tag = wc_get_u8(&r);
					const uint8 *v = wc_get_str(&r, &vlen);

					if (!r.bad)
						commit_put(&cm, &key, &val, plen, fq, fqlen,
								   tsbuf, tag, v, vlen);
				}
			}
			if (r.bad)
				malformed_write();
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

/*
 * cells_recover
 *		Undo a commit that was interrupted between its batches: remove every
 *		entry stamped with its timestamp between its lowest and highest row.
 */
void
cells_recover(WcOpenDb *odb)
{
	char	   *path = pending_path(odb);
	StringInfoData rec;
	WcReader	r;
	uint64		ts;
	uint8		tsbuf[WC_TS_LEN];
	const uint8 *lowest,
			   *highest;
	size_t		llen,
				hlen;
	WcIter	   *it;
	WcBatch    *batch;
	uint64		removed = 0;

	if (!pending_read(path, &rec))
		return;
	wc_reader_init(&r, rec.data, rec.len);
	ts = wc_get_u64(&r);
	lowest = wc_get_str(&r, &llen);
	highest = wc_get_str(&r, &hlen);
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
		for (storage_iter_seek(it, lowest, llen); storage_iter_valid(it); storage_iter_next(it))
		{
			size_t		n;
			const uint8 *k = storage_iter_key(it, &n);

			if (wc_compare_bytes(k, n, highest, hlen) > 0 &&
				(n < hlen || memcmp(k, highest, hlen) != 0))
				break;
			if (n >= WC_TS_LEN && memcmp(k + n - WC_TS_LEN, tsbuf, WC_TS_LEN) == 0)
			{
				storage_batch_delete(batch, k, n);
				removed++;
			}
			if (storage_batch_bytes(batch) >= WC_COMMIT_CHUNK_BYTES)
			{
				storage_write(odb->db, batch, true);
				storage_batch_clear(batch);
			}
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

/* LevelDB's estimate of the bytes in the ranges of an ESTIMATE request. */
uint64
cells_estimate(WcOpenDb *odb, WcReader *r)
{
	uint32		n = wc_get_u32(r);
	uint64		total = 0;

	for (uint32 i = 0; i < n && !r->bad; i++)
	{
		size_t		slen,
					elen;
		const uint8 *s = wc_get_str(r, &slen);
		const uint8 *e = wc_get_str(r, &elen);

		if (!r->bad)
			total += storage_approximate_size(odb->db, s, slen, e, elen);
	}
	return total;
}
