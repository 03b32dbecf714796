/*-------------------------------------------------------------------------
 *
 * btscan.c
 *	  A SCAN of a table on a Bigtable server: its key ranges become one
 *	  ReadRows request's row set, its columns the cells each row's BATCH
 *	  row carries.
 *
 * The backend's ranges are in the LevelDB key space (common/keycodec.h:
 * the escaped table, then the escaped row key); bt_key_bound turns each
 * bound back into a row key and whether Bigtable's range is open or closed
 * there, exactly, so that a range reads the rows LevelDB's would.  A batch
 * is one request, stopped (its call cancelled) once the batch is full; the
 * next goes on after the last row it kept, in either direction.
 *
 * A map column (a family alone) is the family's cells that are left,
 * packed in qualifier order as wire.h says.  A cells-layout scan reads
 * the transaction's own writes too, merged into the rows Bigtable gives
 * (btoverlay.c); a mapped scan's are merged by the backend.
 *
 * A column is its newest cell, or with as_of the newest as of then, and
 * the family's garbage-collection policy is applied on read as the LevelDB
 * engine applies it (worker/leveldb/rowread.c): the cell is not there if
 * the policy deletes it, its index counting every newer version of its
 * column, as_of's too new ones included, and its age from the scan's
 * start.  Bigtable collects lazily, so it may still hold such a cell.  The
 * policies come from GetTable (btpolicies.c).  The request asks only for
 * what that needs: the newest cell of each column (cells_per_column_limit
 * 1, under as_of's timestamp range when no family of the table counts its
 * versions), else every version, the columns' versions being counted here.
 * REPEATABLE READ's as_of, the transaction's start (WC_SCAN_AS_OF_START),
 * counts no version after it: what was there then is what the transaction
 * reads, a row another session updated since included, where
 * widecolumn.as_of reads the past as the policies have left it.
 * A row none of whose cells is left is no row, as on LevelDB.
 *
 * bt_scan_fill runs on a reader thread: plain C, errors through wc_fail.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/keycodec.h"
#include "worker/bigtable/bigtable.h"
#include "worker/runtime/failure.h"

/* Bytes of rows a batch holds before its request is stopped. */
#define BT_BATCH_BYTES		(256 * 1024)

typedef struct BtColumn
{
	uint8	   *family;
	size_t		family_len;
	uint8	   *qualifier;
	size_t		qualifier_len;
	bool		whole_family;	/* a map column: every cell of the family */
	uint16		idx;			/* its place in the request's columns */
	WcByteBuf	map;			/* whole_family: a row's cells, as wire.h packs them */
} BtColumn;

struct WcBtScan
{
	WcBtDb	   *db;
	char	   *table;			/* projects/P/instances/I/tables/T */
	bool		meta;			/* the table of families: Bigtable's tables */
	int			families_idx;	/* its families cell's column, or -1 */
	int			wc_idx;			/* its family "wc" alone (a map), or -1 */
	bool		reverse;
	bool		versions;		/* each row ends with its newest timestamp */
	uint64		limit;			/* 0: none */
	uint64		as_of;			/* µs; 0: now */
	bool		as_of_start;	/* as_of is the transaction's start: the
								 * versions after it are not counted */
	int64		as_of_hi;		/* its cells' bound: a cell at or after it is too new */
	uint64		now;			/* µs: the scan's start, for the policies' ages */
	bool		have_policies;
	BtPolicies	policies;		/* the table's families' (malloc'd) */
	int		   *live;			/* a row's cells that are left */
	/* the cells layout: a row per version, of these families and qualifiers */
	bool		cells;
	uint64		ts_min;
	uint64		ts_max;
	int			nfams;			/* escaped; 0: every family */
	WcBytes    *fams;
	int			nquals;			/* escaped, terminator included; 0: every one */
	WcWireRange *quals;
	WcByteBuf	escaped;		/* a cell's family or qualifier, escaped */
	uint64		row_versions;	/* the row's versions written */
	int			live_cap;
	int			ncols;
	BtColumn   *cols;
	int			nranges;
	WcBtRange  *ranges;			/* raw row keys; none: the scan is empty */
	WcBtRange  *work;			/* the next request's, clipped */
	WcBtFilter	filters[2];
	WcBtFilter	chain;			/* the scan's own filter (set_filter) */
	const WcBtFilter *conditions;	/* its storage filters' (btfilters.c), or
									 * NULL; chain goes into *inner */
	WcBtFilter *inner;
	BtOverlay  *overlay;		/* the cells layout's own writes, or NULL */
	/* as it goes */
	bool		done;
	bool		stored_done;	/* Bigtable's rows are read: the overlay's left */
	bool		have_last;
	WcByteBuf	last;			/* the last row a batch kept */
	uint64		emitted;
	uint64		cells_got;		/* cells the batch's call received */
	bool		full;			/* the call was stopped: the batch is full */
	bool		failed;			/* ... or writing a row failed: failure */
	WcFailure	failure;
	WcByteBuf	out;
	WcBatchWriter batch;
	WcBtCancel	cancel;			/* bt_scan_cancel: its backend gave up on it */
	bool		commits_waited;	/* for this worker's COMMITs before as_of */
};

/*
 * bt_key_bound
 *		The row key a bound of a range in the LevelDB key space stands for
 *		(k: what follows the table's component), into out (n bytes at
 *		most).
 *
 * k is a row key's escaped body, perhaps followed by bytes that are not
 * an escaped byte: its terminator (0x00 0x01, then maybe a cell's
 * family), or a byte the key space has between rows (0x00 0x02: after
 * every cell of the row, a successor's).  A start bound includes the row
 * key unless *adjust (Bigtable's start_key_open); an end bound excludes
 * it unless *adjust (end_key_closed).
 */
void
bt_key_bound(const uint8 *k, size_t n, bool is_end, uint8 *out, size_t *outlen, bool *adjust)
{
	size_t		i = 0,
				o = 0;

	while (i < n)
	{
		if (k[i] != 0x00)
			out[o++] = k[i++];
		else if (i + 1 < n && k[i + 1] == 0xFF)
		{
			out[o++] = 0x00;
			i += 2;
		}
		else
			break;
	}
	*outlen = o;
	*adjust = false;
	if (i + 1 >= n)				/* the body alone, or a lone 0x00 after it */
		return;
	if (k[i + 1] == 0x01)
	{
		/* the row itself; an end inside the row's cells takes it in */
		*adjust = is_end && n > i + 2;
		return;
	}
	/* 0x00 then 0x02..0xFE: after every key of the row, before q\0... */
	if (k[i + 1] != 0x00)
		*adjust = true;
}

/*
 * bt_table_path
 *		The Bigtable table that an escaped table component of the key space
 *		(escaped, len bytes, every one of them) names, as
 *		projects/P/instances/I/tables/T; *name_len is T's length, 0 for the
 *		table of families (btmeta.c).  request names a malformed one.
 */
char *
bt_table_path(const WcBtDb *db, const uint8 *escaped, size_t len, size_t *name_len,
			  const char *request)
{
	uint8	   *name = palloc(len + 1);
	size_t		used;

	if (wc_unescape(escaped, len, name, &used, name_len) != 0 || used != len)
		wc_malformed(request);
	return psprintf("%s/tables/%.*s", db->instance_name, (int) *name_len, name);
}

/* The bytes of a bound after the table's escaped component, or NULL. */
static const uint8 *
after_table(const WcBytes *b, const uint8 *table, size_t tlen, size_t *rest)
{
	if (b->len < tlen || memcmp(b->data, table, tlen) != 0)
		return NULL;
	*rest = b->len - tlen;
	return b->data + tlen;
}

static WcBytes
copy_wire_bytes(WcBytes b)
{
	WcBytes		c;
	uint8	   *p = palloc(b.len + 1);

	memcpy(p, b.data, b.len);
	c.data = p;
	c.len = b.len;
	return c;
}

/* The columns of a scan of a stored table, and what it cannot do yet. */
static void
open_columns(WcBtScan *s, WcBtDb *db, const WcScanRequest *req)
{
	if (req->noverlay > 0 && !(req->flags & WC_SCAN_CELLS))
		wc_malformed("SCAN");
	if (req->flags & WC_SCAN_CELLS)
	{
		if (s->reverse)
			bt_not_yet(db, "a reverse scan of the cells layout");
		/* the versions wanted: kept as they came, compared escaped */
		s->cells = true;
		s->ts_min = req->ts_min;
		s->ts_max = req->ts_max;
		s->nfams = req->nfams;
		s->fams = palloc0(sizeof(WcBytes) * (req->nfams + 1));
		for (int i = 0; i < req->nfams; i++)
			s->fams[i] = copy_wire_bytes(req->fams[i]);
		s->nquals = req->nquals;
		s->quals = palloc0(sizeof(WcWireRange) * (req->nquals + 1));
		for (int i = 0; i < req->nquals; i++)
		{
			s->quals[i].start = copy_wire_bytes(req->quals[i].start);
			s->quals[i].end = copy_wire_bytes(req->quals[i].end);
		}
		return;
	}
	if (req->nfams > 0 || req->nquals > 0)
		wc_malformed("SCAN");

	/* the columns: an escaped family and qualifier each */
	s->ncols = req->ncols;
	s->cols = palloc0(sizeof(BtColumn) * Max(req->ncols, 1));
	for (int i = 0; i < req->ncols; i++)
	{
		const WcBytes *c = &req->cols[i];
		BtColumn   *col = &s->cols[i];
		size_t		used,
					used2;

		col->idx = i;
		col->family = palloc(c->len);
		col->qualifier = palloc(c->len);
		if (wc_unescape(c->data, c->len, col->family, &used, &col->family_len) != 0)
			wc_malformed("SCAN");
		if (used == c->len)
		{
			col->whole_family = true;
			continue;
		}
		if (wc_unescape(c->data + used, c->len - used, col->qualifier, &used2,
						&col->qualifier_len) != 0 || used + used2 != c->len)
			wc_malformed("SCAN");
	}
}

/*
 * bt_scan_open
 *		The scan of req, on the main thread: its table, columns and raw key
 *		ranges.
 */
WcBtScan *
bt_scan_open(WcBtDb *db, const WcScanRequest *req)
{
	WcBtScan   *s = palloc0(sizeof(WcBtScan));
	size_t		tlen = 0;
	size_t		tname_len;

	wc_bt_cancel_init(&s->cancel);
	s->db = db;
	s->reverse = (req->flags & WC_SCAN_REVERSE) != 0;
	s->versions = (req->flags & WC_SCAN_VERSIONS) != 0;
	s->limit = req->limit;
	s->as_of = req->as_of;
	s->as_of_start = (req->flags & WC_SCAN_AS_OF_START) != 0;

	/* no range (a drop of this transaction's took them all): no row */
	if (req->nranges == 0)
	{
		s->table = "";
		s->families_idx = s->wc_idx = -1;
		s->done = true;
		return s;
	}
	/* the table: the first component of every range's start */
	if (wc_component_end(req->ranges[0].start.data, req->ranges[0].start.len, &tlen) != 0)
		wc_malformed("SCAN");
	s->table = bt_table_path(db, req->ranges[0].start.data, tlen, &tname_len, "SCAN");
	/*
	 * The table of families (the empty name): a row per Bigtable table,
	 * whose families cell is made from GetTable (btmeta.c); its other
	 * records (column types, the row key's layout) are not kept here.
	 */
	s->meta = tname_len == 0;
	if (s->meta && req->noverlay > 0)
		wc_malformed("SCAN");
	s->families_idx = -1;
	s->wc_idx = -1;
	if (s->meta)
		bt_meta_columns(req, &s->families_idx, &s->wc_idx);
	else
		open_columns(s, db, req);

	/* the ranges, as row keys */
	s->ranges = palloc0(sizeof(WcBtRange) * req->nranges);
	s->work = palloc0(sizeof(WcBtRange) * req->nranges);
	for (int i = 0; i < req->nranges; i++)
	{
		const WcWireRange *wr = &req->ranges[i];
		WcBtRange  *r = &s->ranges[s->nranges];
		const uint8 *k;
		size_t		rest;
		uint8	   *buf;
		size_t		len;
		bool		adjust;

		k = after_table(&wr->start, req->ranges[0].start.data, tlen, &rest);
		if (k == NULL)
			wc_malformed("SCAN");
		buf = palloc(rest + 1);
		bt_key_bound(k, rest, false, buf, &len, &adjust);
		r->start = buf;
		r->start_len = len;
		r->start_open = adjust;

		/* no end, or one past the table's keys: the table's last row */
		k = after_table(&wr->end, req->ranges[0].start.data, tlen, &rest);
		if (k != NULL)
		{
			buf = palloc(rest + 1);
			bt_key_bound(k, rest, true, buf, &len, &adjust);
			/* an end at the empty row key: before every row Bigtable has */
			if (len == 0)
				continue;
			r->end = buf;
			r->end_len = len;
			r->end_closed = adjust;
		}
		s->nranges++;
	}

	/* as_of in Bigtable's milliseconds: cells up to its millisecond */
	s->as_of_hi = s->as_of != 0 ? (int64) (s->as_of / 1000 + 1) * 1000 : 0;
	if (!s->meta && (req->flags & WC_SCAN_FILTER))
		s->conditions = bt_filters_build(req, s->as_of_hi, &s->inner);
	s->now = wc_unix_micros();
	s->done = s->nranges == 0;
	/* what the COMMIT will stamp: at the time it would get now */
	if (!s->meta)
		s->overlay = bt_overlay_load(req, req->ranges[0].start.data, tlen, bt_commit_next_ts());
	return s;
}

/*
 * set_filter
 *		The request's filter, once the policies are known: each column's
 *		newest cell, unless some family counts its versions and as_of may
 *		pass over newer ones (then every version, counted by write_row).
 */
static void
set_filter(WcBtScan *s)
{
	bool		counts = false;
	int			nf = 0;

	for (int i = 0; i < s->policies.n; i++)
		counts |= s->policies.policies[i].max_versions != 0;
	if (s->cells || (s->as_of != 0 && counts && !s->as_of_start))
	{
		s->chain.kind = WC_BT_FILTER_PASS;
		return;
	}
	if (s->as_of != 0)
	{
		s->filters[nf].kind = WC_BT_FILTER_TIMESTAMP_RANGE;
		s->filters[nf].lo = 0;
		s->filters[nf].hi = s->as_of_hi;
		nf++;
	}
	s->filters[nf].kind = WC_BT_FILTER_CELLS_PER_COLUMN;
	s->filters[nf].n = 1;
	nf++;
	s->chain.kind = WC_BT_FILTER_CHAIN;
	s->chain.children = s->filters;
	s->chain.nchildren = nf;
}

static int
compare_key(const uint8 *a, size_t alen, const WcByteBuf *b)
{
	return wc_compare_bytes(a, alen, b->data, b->len);
}

/*
 * clip
 *		The ranges still to read after the last row kept, into s->work;
 *		how many.
 */
static int
clip(WcBtScan *s)
{
	int			n = 0;

	for (int i = 0; i < s->nranges; i++)
	{
		WcBtRange  *r = &s->work[n];

		*r = s->ranges[i];
		if (!s->have_last)
		{
			n++;
			continue;
		}
		if (!s->reverse)
		{
			/* rows up to last are read */
			if (r->end_len > 0 && compare_key(r->end, r->end_len, &s->last) <= 0)
				continue;
			if (compare_key(r->start, r->start_len, &s->last) <= 0)
			{
				r->start = s->last.data;
				r->start_len = s->last.len;
				r->start_open = true;
			}
		}
		else
		{
			/* rows from last on are read */
			if (r->start_len > 0 && compare_key(r->start, r->start_len, &s->last) >= 0)
				continue;
			if (r->end_len == 0 || compare_key(r->end, r->end_len, &s->last) >= 0)
			{
				r->end = s->last.data;
				r->end_len = s->last.len;
				r->end_closed = false;
			}
		}
		n++;
	}
	return n;
}

/* A row for write_row, which wc_trapped calls with one argument. */
typedef struct BtRowJob
{
	WcBtScan   *s;
	const WcBtRows *rows;
	const uint8 *marks;			/* of each cell, BT_MARK_*; or NULL: none */
	bool		written;		/* a row of the batch: some cell was left */
} BtRowJob;

static bool
same_bytes(const uint8 *a, size_t aoff, size_t alen, size_t boff, size_t blen)
{
	return alen == blen && memcmp(a + aoff, a + boff, alen) == 0;
}

/* Does column col take cell c? */
static bool
column_takes(const BtColumn *col, const uint8 *a, const WcBtCell *c)
{
	if (col->family_len != c->family_len ||
		memcmp(col->family, a + c->family_off, c->family_len) != 0)
		return false;
	return col->whole_family ||
		(col->qualifier_len == c->qualifier_len &&
		 memcmp(col->qualifier, a + c->qualifier_off, c->qualifier_len) == 0);
}

/* Is version c of the cells layout's families, qualifiers and times? */
static bool
wanted_version(WcBtScan *s, const uint8 *a, const WcBtCell *c)
{
	uint64		ts = (uint64) c->timestamp_micros;
	bool		in = s->nquals == 0;
	size_t		len;

	if (ts < s->ts_min || ts > s->ts_max)
		return false;
	if (s->nfams > 0)
	{
		bool		listed = false;

		wc_bytebuf_reserve(&s->escaped, WC_ESCAPED_MAX(c->family_len));
		len = wc_escape(a + c->family_off, c->family_len, s->escaped.data);
		for (int i = 0; i < s->nfams && !listed; i++)
			listed = s->fams[i].len == len && memcmp(s->fams[i].data, s->escaped.data, len) == 0;
		if (!listed)
			return false;
	}
	if (s->nquals == 0)
		return true;
	wc_bytebuf_reserve(&s->escaped, WC_ESCAPED_MAX(c->qualifier_len));
	len = wc_escape(a + c->qualifier_off, c->qualifier_len, s->escaped.data);
	for (int i = 0; i < s->nquals && !in; i++)
		in = wc_compare_bytes(s->escaped.data, len, s->quals[i].start.data, s->quals[i].start.len) >= 0 &&
			(s->quals[i].end.len == 0 ||
			 wc_compare_bytes(s->escaped.data, len, s->quals[i].end.data, s->quals[i].end.len) < 0);
	return in;
}

/*
 * Version c of the row as a row of the batch: family, qualifier, value,
 * time; and an empty cell 3 if the COMMIT will stamp it (as LevelDB's
 * engine marks one, worker/leveldb/versions.c).
 */
static void
write_version(WcBtScan *s, const WcBtRows *rows, const WcBtCell *c, bool pending)
{
	const uint8 *a = rows->arena.data;

	memcpy(wc_write_batch_row(&s->batch, rows->key.len), rows->key.data, rows->key.len);
	wc_write_batch_row_key(&s->batch, rows->key.len);
	wc_write_batch_cell(&s->batch, 0, a + c->family_off, c->family_len);
	wc_write_batch_cell(&s->batch, 1, a + c->qualifier_off, c->qualifier_len);
	wc_write_batch_cell(&s->batch, 2, a + c->value_off, c->value_len);
	if (pending)
		wc_write_batch_cell(&s->batch, 3, (const uint8 *) "", 0);
	wc_write_batch_row_end(&s->batch, false, true, (uint64) c->timestamp_micros);
	s->row_versions++;
	s->emitted++;				/* LIMIT counts versions here */
}

/*
 * A row as it comes: the cell of each column that as_of and the policy
 * leave (Bigtable gives a column's cells together, newest first), to its
 * column in the batch.
 */
static void
write_row(void *arg)
{
	BtRowJob   *job = arg;
	WcBtScan   *s = job->s;
	const WcBtRows *rows = job->rows;
	const uint8 *a = rows->arena.data;
	bool		other = false;
	int64		newest = 0;
	int			nlive = 0;
	const WcBtCell *first = NULL;	/* of the column under way */
	const WcGcPolicy *policy = NULL;
	uint64		index = 0;
	bool		decided = false;

	if (rows->ncells > s->live_cap)
	{
		int			cap = Max(rows->ncells, 64);
		int		   *live = realloc(s->live, sizeof(int) * cap);

		if (live == NULL)
			wc_fail(ERRCODE_OUT_OF_MEMORY, "out of memory", NULL,
					"A row of %d cells from Bigtable.", rows->ncells);
		s->live = live;
		s->live_cap = cap;
	}
	for (int i = 0; i < rows->ncells; i++)
	{
		const WcBtCell *c = &rows->cells[i];
		uint64		v;

		if (first == NULL ||
			!same_bytes(a, first->family_off, first->family_len, c->family_off, c->family_len) ||
			!same_bytes(a, first->qualifier_off, first->qualifier_len, c->qualifier_off,
						c->qualifier_len))
		{
			if (first == NULL ||
				!same_bytes(a, first->family_off, first->family_len, c->family_off, c->family_len))
				policy = bt_policy_of(&s->policies, a + c->family_off, c->family_len);
			first = c;
			index = 0;
			decided = false;
		}
		/* the transaction's own are read whatever REPEATABLE READ's time */
		if (s->as_of != 0 && c->timestamp_micros >= s->as_of_hi &&
			!(job->marks != NULL && (job->marks[i] & BT_MARK_OWN)))
		{
			if (!decided && !s->as_of_start)
				index++;		/* too new: counted all the same */
			continue;
		}

		/*
		 * The row's version: its newest cell as of the read, live or not, as
		 * the condition of a COMMIT that rests on this read tests it
		 * (btcommit.c).
		 */
		newest = Max(newest, c->timestamp_micros);
		if (decided)
			continue;
		v = index++;
		if (policy != NULL &&
			wc_gc_deletes(policy, v, s->now > (uint64) c->timestamp_micros ?
						  s->now - (uint64) c->timestamp_micros : 0))
		{
			decided = true;		/* and every older version of the column */
			continue;
		}
		if (s->cells)
		{
			/* every version the policy keeps: a row of the batch each */
			if ((s->limit == 0 || s->emitted < s->limit) && wanted_version(s, a, c))
				write_version(s, rows, c, job->marks != NULL && (job->marks[i] & BT_MARK_PENDING));
			continue;
		}
		decided = true;
		s->live[nlive++] = i;
	}

	wc_bytebuf_set(&s->last, rows->key.data, rows->key.len);
	s->have_last = true;
	if (s->cells)
	{
		job->written = s->row_versions > 0;
		s->row_versions = 0;
		return;
	}
	if (nlive == 0)
		return;
	memcpy(wc_write_batch_row(&s->batch, rows->key.len), rows->key.data, rows->key.len);
	wc_write_batch_row_key(&s->batch, rows->key.len);
	for (int k = 0; k < nlive; k++)
	{
		const WcBtCell *c = &rows->cells[s->live[k]];
		bool		taken = false;

		for (int j = 0; j < s->ncols; j++)
		{
			BtColumn   *col = &s->cols[j];

			if (!column_takes(col, a, c))
				continue;
			taken = true;
			if (col->whole_family)
				wc_write_batch_map_entry(&col->map, a + c->qualifier_off, c->qualifier_len,
										 a + c->value_off, c->value_len);
			else
				wc_write_batch_cell(&s->batch, col->idx, a + c->value_off, c->value_len);
		}
		other |= !taken;
	}
	for (int j = 0; j < s->ncols; j++)
		if (s->cols[j].whole_family && s->cols[j].map.len > 0)
		{
			wc_write_batch_cell(&s->batch, s->cols[j].idx, s->cols[j].map.data, s->cols[j].map.len);
			s->cols[j].map.len = 0;
		}
	wc_write_batch_row_end(&s->batch, other, s->versions, (uint64) newest);
	job->written = true;
}

/*
 * The wall's callback, called from inside gRPC's C++ frames: a failure of
 * write_row (an allocation's, wc_fail's) must not jump across them.  It
 * is caught here, stops the call, and is raised once the call is over.
 */
static bool
take(WcBtScan *s, const WcBtRows *rows, const uint8 *marks)
{
	BtRowJob	job = {s, rows, marks, false};

	if (!wc_trapped(write_row, &job, &s->failure))
	{
		s->failed = true;
		return false;
	}
	if (!job.written)
		return true;
	if (!s->cells)
		s->emitted++;
	if (s->limit != 0 && s->emitted >= s->limit)
	{
		s->done = true;
		return false;
	}
	if (s->out.len >= BT_BATCH_BYTES)
	{
		s->full = true;
		return false;
	}
	return true;
}

/* Is the row key in one of ranges[0, n)? */
bool
bt_ranges_hold(const WcBtRange *ranges, int n, const uint8 *k, size_t len)
{
	for (int i = 0; i < n; i++)
	{
		const WcBtRange *r = &ranges[i];
		int			lo = wc_compare_bytes(k, len, r->start, r->start_len);
		int			hi = r->end_len == 0 ? -1 : wc_compare_bytes(k, len, r->end, r->end_len);

		if ((lo > 0 || (lo == 0 && !r->start_open)) && (hi < 0 || (hi == 0 && r->end_closed)))
			return true;
	}
	return false;
}

/* The overlay's next row, merged: wc_trapped's argument. */
typedef struct BtMergeJob
{
	WcBtScan   *s;
	const WcBtRows *stored;		/* Bigtable's row of its key, or NULL */
	const WcBtRows *merged;
	const uint8 *marks;
} BtMergeJob;

static void
merge_row(void *arg)
{
	BtMergeJob *j = arg;

	j->merged = bt_overlay_merge(j->s->overlay, j->stored, &j->marks);
}

static bool
take_merged(WcBtScan *s, const WcBtRows *stored)
{
	BtMergeJob	j = {s, stored, NULL, NULL};

	if (!wc_trapped(merge_row, &j, &s->failure))
	{
		s->failed = true;
		return false;
	}
	return take(s, j.merged, j.marks);
}

/*
 * take_overlay
 *		The overlay's rows in the scan's ranges before key (every one if
 *		key is NULL), which Bigtable does not have: the transaction's
 *		INSERTs.
 */
static bool
take_overlay(WcBtScan *s, const uint8 *key, size_t len)
{
	const uint8 *k;
	size_t		klen;

	while (bt_overlay_next_row(s->overlay, &k, &klen) &&
		   (key == NULL || wc_compare_bytes(k, klen, key, len) < 0))
	{
		if (!bt_ranges_hold(s->ranges, s->nranges, k, klen))
			bt_overlay_skip_row(s->overlay);
		else if (!take_merged(s, NULL))
			return false;
	}
	return true;
}

/* A row as Bigtable gives it, with the overlay's rows before it and its own. */
static bool
take_row(void *arg, const WcBtRows *rows)
{
	WcBtScan   *s = arg;
	const uint8 *k;
	size_t		klen;

	if (s->overlay != NULL && !take_overlay(s, rows->key.data, rows->key.len))
		return false;			/* the row is read again by the next call */
	s->cells_got += rows->ncells;
	if (s->overlay == NULL)
		return take(s, rows, NULL);
	if (bt_overlay_next_row(s->overlay, &k, &klen) &&
		wc_compare_bytes(k, klen, rows->key.data, rows->key.len) == 0)
		return take_merged(s, rows);
	return take(s, rows, NULL);
}

static pg_attribute_noreturn() void
raise_failure(WcBtScan *s)
{
	wc_fail(s->failure.sqlstate, s->failure.message,
			s->failure.hint[0] ? s->failure.hint : NULL, "%s", s->failure.detail);
}

/*
 * overlay_rest
 *		Once Bigtable's rows are read, the overlay's after the last of them;
 *		false if the batch filled first (the next batch goes on after its
 *		last row).
 */
static bool
overlay_rest(WcBtScan *s)
{
	if (s->overlay == NULL || (s->limit != 0 && s->emitted >= s->limit))
		return true;
	s->full = false;
	if (take_overlay(s, NULL, 0))
		return true;
	if (s->failed)
		raise_failure(s);
	return !s->full;
}

/* A batch: bt_scan_fill's, on the scan's thread. */
static bool
fill_next(WcBtScan *s)
{
	WcBtRead	req;
	WcBtStatus	st;
	uint64		got = 0;
	int			n;

	/*
	 * REPEATABLE READ's time: a COMMIT of ours stamped before it and still
	 * being sent would be read part-way (Bigtable has no snapshot).
	 */
	if (s->as_of_start && !s->commits_waited)
	{
		bt_commit_wait(s->as_of_hi, &s->cancel);
		s->commits_waited = true;
	}
	s->out.len = 0;
	wc_write_batch_begin(&s->batch, &s->out);
	if (s->meta && !s->done)
	{
		s->emitted += bt_meta_read(s->db, s->table, s->ranges, s->nranges, s->reverse,
								   s->versions, s->limit, s->families_idx, s->wc_idx, &s->batch);
		s->done = true;
		wc_write_batch_end(&s->batch, true, 0, 0);
		return true;
	}
	if (!s->have_policies && !s->done)
	{
		/*
		 * A table Bigtable lacks has no rows, as a LevelDB table never
		 * written has none: its first COMMIT makes it (btfamilies.c).
		 */
		if (!bt_policies_get(s->db, s->table, s->now, &s->policies, &st))
		{
			if (st.code != WC_BT_NOT_FOUND)
				bt_call_failed(s->db, "ReadRows", s->table, &st);
			s->done = true;
		}
		s->have_policies = true;
		if (!s->done)
			set_filter(s);
	}
	n = s->done || s->stored_done ? 0 : clip(s);
	if (n == 0)
	{
		s->stored_done = true;
		s->done = overlay_rest(s);
		wc_write_batch_end(&s->batch, s->done, 0, 0);
		return s->done;
	}
	memset(&req, 0, sizeof(req));
	req.table = s->table;
	req.app_profile = s->db->app_profile;
	req.nranges = n;
	req.ranges = s->work;
	if (s->conditions != NULL)
	{
		*s->inner = s->chain;
		req.filter = s->conditions;
	}
	else
		req.filter = s->chain.kind == WC_BT_FILTER_PASS ? NULL : &s->chain;
	req.rows_limit = s->limit != 0 && !s->cells ? (int64) (s->limit - s->emitted) : 0;
	req.reversed = s->reverse;
	req.timeout_ms = s->db->timeout_ms;
	s->full = false;
	s->cells_got = 0;
	if (!wc_bt_read_rows(s->db->client, &req, take_row, s, &got, &st) &&
		!s->full && !s->done)
	{
		if (s->failed)
			raise_failure(s);
		/* dropped since the policies were read: no rows left */
		if (st.code != WC_BT_NOT_FOUND)
			bt_call_failed(s->db, "ReadRows", s->table, &st);
	}
	/*
	 * The call ended: the ranges are read, unless it stopped at rows_limit
	 * with rows left out (their cells all gone) and the LIMIT not reached.
	 */
	if (!s->full && !(req.rows_limit != 0 && got >= (uint64) req.rows_limit))
	{
		s->stored_done = true;
		s->done = overlay_rest(s);
	}
	wc_write_batch_end(&s->batch, s->done, s->cells_got, (uint32) (got - Min(got, s->batch.nrows)));
	wc_write_batch_requests(&s->batch, 1);
	return s->done;
}

/*
 * bt_scan_fill
 *		The next batch: one ReadRows call from where the last one stopped;
 *		true at the last.  The thread's calls are the scan's meanwhile, for
 *		bt_scan_cancel (a fill that fails leaves them so: the next fill on
 *		the thread sets its own before any call).
 */
bool
bt_scan_fill(WcBtScan *s)
{
	bool		done;

	wc_bt_cancel_on(&s->cancel);
	done = fill_next(s);
	wc_bt_cancel_on(NULL);
	return done;
}

/*
 * bt_scan_cancel
 *		On the main thread, while a thread may be filling s: its backend no
 *		longer wants the batch, so the call in flight, and any later one,
 *		ends with CANCELLED (the fill fails; the backend drops the answer).
 */
void
bt_scan_cancel(WcBtScan *s)
{
	wc_bt_cancel(&s->cancel);
}

const WcByteBuf *
bt_scan_batch(WcBtScan *s)
{
	return &s->out;
}

/* What the scan holds outside its memory context. */
void
bt_scan_close(WcBtScan *s)
{
	wc_bytebuf_free(&s->out);
	wc_bytebuf_free(&s->last);
	bt_policies_free(&s->policies);
	bt_overlay_free(s->overlay);
	free(s->live);
	wc_bytebuf_free(&s->escaped);
	for (int j = 0; j < s->ncols; j++)
		wc_bytebuf_free(&s->cols[j].map);
	wc_bt_cancel_destroy(&s->cancel);
}
