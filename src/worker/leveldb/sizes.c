/*-------------------------------------------------------------------------
 *
 * sizes.c
 *	  How big a table, or a range of it, is: Bigtable's SampleRowKeys
 *	  (SAMPLE) and the rows of key ranges for the planner (ROWS).
 *
 * Both go by LevelDB's own estimate of the bytes between two keys
 * (leveldb_approximate_sizes), which it reads from its table files'
 * indexes, not from the data: so it counts the files, not what is still
 * in the memtable (the most recent writes, up to the server's
 * write_buffer_size), and it is as fine as one data block.  A range the
 * estimate finds empty may hold writes not yet flushed: its entries are
 * walked and their bytes counted instead (ldb_sizes_range_bytes), at most two
 * memtables' worth (the one being written and the one being flushed), so
 * that a table that holds data never reports 0 bytes, and SAMPLE then
 * splits it by the bytes walked.  The last few walks are kept until the
 * database is next written.
 *
 * SAMPLE finds a split point for every step of bytes by bisecting the key
 * space between the last split point and the table's end with that
 * estimate, then takes the first stored row at or after the key found (one
 * seek): so it reads one entry per split point, and the keys it returns
 * are row keys of the table.  ROWS walks at most a given number of
 * entries, counting rows, so that the planner can tell how many bytes a
 * row takes, or the rows of a small range exactly.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "worker/leveldb/leveldb.h"

/* Bigtable's SampleRowKeys: a split point about every 64 MB ... */
#define WC_SAMPLE_STEP_BYTES	((uint64) 64 * 1024 * 1024)
/* ... and at least every 1/100 of the table ... */
#define WC_SAMPLE_MIN_PARTS		100
/* ... but no more than this many, so that the answer stays small. */
#define WC_SAMPLE_MAX			1000
/*
 * Halvings of the key interval per split point, at most; and how close in
 * bytes its ends must come, which is about LevelDB's grain (a data block:
 * the estimate of a key inside one is the block's start).
 */
#define WC_BISECT_STEPS			96
#define WC_BISECT_GRAIN			(16 * 1024)

struct WcSampling;

/*
 * Walk [start, end) counting the bytes of its keys
 * and values, until max; with split points each step bytes into sm when
 * sm is given.
 */
static uint64
walk_bytes(WcIter *it, const uint8 *start, size_t slen, const uint8 *end, size_t elen,
		   uint64 max, struct WcSampling *sm);

/* Two memtables: all a range LevelDB's estimate misses can hold. */
static uint64
fresh_max(WcOpenDb *odb)
{
	return (uint64) 2 * Max(odb->opts.write_buffer_mb, 1) * 1024 * 1024;
}

/*
 * The last walks of ldb_sizes_range_bytes, kept while nothing has been written
 * to their database since (a commit, a sweep's deletes): a cells-layout table planned again and again while all of
 * it is in the memtable walks it once (the walk costs about 0.8 ms a MB).
 * The main thread's only.
 */
#define WALKS_KEPT	8

typedef struct WcWalked
{
	WcOpenDb   *odb;			/* NULL: free */
	WcDb	   *db;				/* its LevelDB handle then ... */
	uint64		writes;			/* ... and the batches written to it */
	StringInfoData range;		/* start, then end */
	size_t		slen;
	uint64		bytes;
} WcWalked;

static WcWalked walked[WALKS_KEPT];
static int	next_walked = 0;

static WcWalked *
find_walk(WcOpenDb *odb, const uint8 *start, size_t slen, const uint8 *end, size_t elen)
{
	for (int i = 0; i < WALKS_KEPT; i++)
	{
		WcWalked   *w = &walked[i];

		if (w->odb == odb && w->db == odb->db && w->writes == storage_writes(odb->db) &&
			w->slen == slen && (size_t) w->range.len == slen + elen &&
			memcmp(w->range.data, start, slen) == 0 &&
			memcmp(w->range.data + slen, end, elen) == 0)
			return w;
	}
	return NULL;
}

static void
keep_walk(WcOpenDb *odb, const uint8 *start, size_t slen, const uint8 *end, size_t elen,
		  uint64 bytes)
{
	WcWalked   *w = &walked[next_walked];

	next_walked = (next_walked + 1) % WALKS_KEPT;
	if (w->range.data == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		initStringInfo(&w->range);
		MemoryContextSwitchTo(old);
	}
	resetStringInfo(&w->range);
	appendBinaryStringInfo(&w->range, (const char *) start, slen);
	appendBinaryStringInfo(&w->range, (const char *) end, elen);
	w->slen = slen;
	w->odb = odb;
	w->db = odb->db;
	w->writes = storage_writes(odb->db);
	w->bytes = bytes;
}

/* A database is opened again: its walks go (a handle may come back at an old address). */
void
ldb_sizes_forget(WcOpenDb *odb)
{
	for (int i = 0; i < WALKS_KEPT; i++)
		if (walked[i].odb == odb)
			walked[i].odb = NULL;
}

/*
 * ldb_sizes_range_bytes
 *		The bytes of [start, end): LevelDB's estimate, or when that is 0 the
 *		bytes of the entries there, walked (writes still in the memtable).
 */
uint64
ldb_sizes_range_bytes(WcOpenDb *odb, const uint8 *start, size_t slen, const uint8 *end, size_t elen)
{
	uint64		bytes = storage_approximate_size(odb->db, start, slen, end, elen);
	WcWalked   *w;
	WcIter	   *it;

	if (bytes > 0)
		return bytes;
	if ((w = find_walk(odb, start, slen, end, elen)) != NULL)
		return w->bytes;
	it = storage_iter(odb->db, ldb_large_commit_snapshot(odb), false);
	PG_TRY();
	{
		bytes = walk_bytes(it, start, slen, end, elen, fresh_max(odb), NULL);
	}
	PG_FINALLY();
	{
		storage_iter_free(it);
	}
	PG_END_TRY();
	keep_walk(odb, start, slen, end, elen, bytes);
	return bytes;
}

/* LevelDB's estimate of the bytes from start up to key. */
static uint64
bytes_to(WcOpenDb *odb, const WcBytes *start, const uint8 *key, size_t len)
{
	return storage_approximate_size(odb->db, start->data, start->len, key, len);
}

/*
 * A key strictly between lo and hi (lo < hi): their middle, reading both
 * as fractions in base 256, with one byte more than the longer has so that
 * the middle of two neighbours exists.
 */
static void
key_between(const StringInfo lo, const StringInfo hi, StringInfo mid)
{
	int			len = Max(lo->len, hi->len) + 1;
	uint8	   *m;
	unsigned	carry = 0;

	resetStringInfo(mid);
	enlargeStringInfo(mid, len);
	m = (uint8 *) mid->data;
	for (int i = len - 1; i >= 0; i--)
	{
		unsigned	s = carry;

		if (i < lo->len)
			s += (uint8) lo->data[i];
		if (i < hi->len)
			s += (uint8) hi->data[i];
		m[i] = s & 0xFF;
		carry = s >> 8;
	}
	for (int i = 0; i < len; i++)
	{
		unsigned	b = m[i];

		m[i] = (uint8) ((b >> 1) | (carry << 7));
		carry = b & 1;
	}
	mid->len = len;
}

static void
copy_key(StringInfo dst, const uint8 *key, size_t len)
{
	resetStringInfo(dst);
	appendBinaryStringInfo(dst, (const char *) key, len);
}

/*
 * bisect
 *		Narrow [lo, hi] towards the first key at which the bytes from start
 *		reach target, given that lo is before it and hi at or after it; stop
 *		when the two are within tolerance bytes of each other.
 */
static void
bisect(WcOpenDb *odb, const WcBytes *start, StringInfo lo, uint64 lo_bytes,
	   StringInfo hi, uint64 hi_bytes, uint64 target, uint64 tolerance)
{
	StringInfoData mid;

	initStringInfo(&mid);
	for (int i = 0; i < WC_BISECT_STEPS && hi_bytes - lo_bytes > tolerance; i++)
	{
		uint64		b;

		key_between(lo, hi, &mid);
		b = bytes_to(odb, start, (const uint8 *) mid.data, mid.len);
		if (b >= target)
		{
			copy_key(hi, (const uint8 *) mid.data, mid.len);
			hi_bytes = b;
		}
		else
		{
			copy_key(lo, (const uint8 *) mid.data, mid.len);
			lo_bytes = b;
		}
	}
	pfree(mid.data);
}

/*
 * The length of the table and row-key components at the start of key, or 0
 * if it has no row key after the table's tlen bytes.
 */
static size_t
row_prefix_len(const uint8 *key, size_t len, size_t tlen)
{
	size_t		c;

	if (len <= tlen || wc_component_end(key + tlen, len - tlen, &c) != 0)
		return 0;
	return tlen + c;
}

/* What SAMPLE is finding. */
typedef struct WcSampling
{
	WcOpenDb   *odb;
	WcBytes		start;			/* the table's escaped name */
	uint8	   *end;			/* its successor */
	size_t		end_len;
	uint64		total;			/* the table's bytes */
	uint64		step;			/* between split points */
	WcBytes    *keys;			/* the split points found (row keys) */
	uint64	   *offsets;
	int			n;
	bool		walked;			/* the estimate found nothing: walk */
} WcSampling;

/* A split point: the row key of the stored key's first plen bytes, at offset. */
static void
add_split(WcSampling *sm, const uint8 *key, size_t plen, uint64 offset)
{
	uint8	   *raw = palloc(plen - sm->start.len);
	size_t		consumed;
	size_t		rawlen;

	(void) wc_unescape(key + sm->start.len, plen - sm->start.len, raw, &consumed, &rawlen);
	sm->keys[sm->n].data = raw;
	sm->keys[sm->n].len = rawlen;
	sm->offsets[sm->n] = offset;
	sm->n++;
}

/* Find the split points, reading an entry each with it. */
static void
sample_points(WcSampling *sm, WcIter *it)
{
	StringInfoData lo,
				hi;
	uint64		lo_bytes = 0;
	uint64		target;

	initStringInfo(&lo);
	initStringInfo(&hi);
	copy_key(&lo, sm->start.data, sm->start.len);
	for (target = sm->step; target < sm->total && sm->n < WC_SAMPLE_MAX;)
	{
		const uint8 *key;
		size_t		len;
		size_t		plen;
		uint64		offset;

		copy_key(&hi, sm->end, sm->end_len);
		bisect(sm->odb, &sm->start, &lo, lo_bytes, &hi, sm->total, target,
			   Max(sm->step / 8, WC_BISECT_GRAIN));

		/* the first row at or after the key found */
		storage_iter_seek(it, (const uint8 *) hi.data, hi.len);
		if (!storage_iter_valid(it))
			break;
		key = storage_iter_key(it, &len);
		if (wc_compare_bytes(key, len, sm->end, sm->end_len) >= 0)
			break;
		plen = row_prefix_len(key, len, sm->start.len);
		if (plen == 0)
			break;
		offset = bytes_to(sm->odb, &sm->start, key, plen);
		if (offset >= sm->total)
			break;
		if (offset > lo_bytes)
			add_split(sm, key, plen, offset);

		/*
		 * On from this row's start, whose bytes are before the next target;
		 * a row longer than a step gives one split point.
		 */
		copy_key(&lo, key, plen);
		lo_bytes = offset;
		target = Max(target + sm->step, (offset / sm->step + 1) * sm->step);
	}
	storage_iter_check(it);
}

static uint64
walk_bytes(WcIter *it, const uint8 *start, size_t slen, const uint8 *end, size_t elen,
		   uint64 max, struct WcSampling *sm)
{
	uint64		bytes = 0;
	uint64		target = sm ? sm->step : 0;
	StringInfoData row;

	initStringInfo(&row);
	for (storage_iter_seek(it, start, slen); storage_iter_valid(it); storage_iter_next(it))
	{
		size_t		klen,
					vlen;
		const uint8 *key = storage_iter_key(it, &klen);

		if (wc_compare_bytes(key, klen, end, elen) >= 0)
			break;
		(void) storage_iter_value(it, &vlen);

		if (sm != NULL)
		{
			size_t		plen = row_prefix_len(key, klen, sm->start.len);

			if (plen > 0 && (row.len != (int) plen || memcmp(row.data, key, plen) != 0))
			{
				/* a split point where a row begins at or past the next step */
				if (bytes >= target && sm->n < WC_SAMPLE_MAX)
				{
					add_split(sm, key, plen, bytes);
					target = (bytes / sm->step + 1) * sm->step;
				}
				copy_key(&row, key, plen);
			}
		}
		bytes += klen + vlen;
		if (bytes >= max)
			break;
	}
	storage_iter_check(it);
	pfree(row.data);
	return bytes;
}

/*
 * ldb_sizes_sample
 *		SAMPLE: Bigtable's SampleRowKeys for the table whose escaped name is
 *		req->table, as the answer in out.
 *
 * Each split point is a row key and the bytes of the rows before it; they
 * ascend in both.  The backend adds the end of the table.
 */
void
ldb_sizes_sample(WcOpenDb *odb, const WcSampleRequest *req, StringInfo out)
{
	WcSampling	sm;
	WcIter	   *it;

	sm.odb = odb;
	sm.start = req->table;
	sm.end = palloc(sm.start.len);
	sm.end_len = sm.start.len;
	memcpy(sm.end, sm.start.data, sm.start.len);
	(void) wc_successor(sm.end, &sm.end_len);	/* a component ends in 00 01 */
	sm.total = storage_approximate_size(odb->db, sm.start.data, sm.start.len,
										sm.end, sm.end_len);
	sm.walked = sm.total == 0;
	sm.step = Min(WC_SAMPLE_STEP_BYTES, sm.total / WC_SAMPLE_MIN_PARTS);
	sm.step = Max(sm.step, sm.total / WC_SAMPLE_MAX);
	sm.step = Max(sm.step, 1);
	sm.keys = palloc(sizeof(WcBytes) * WC_SAMPLE_MAX);
	sm.offsets = palloc(sizeof(uint64) * WC_SAMPLE_MAX);
	sm.n = 0;

	/* during a large commit, the state before it, as every read */
	it = storage_iter(odb->db, ldb_large_commit_snapshot(odb), false);
	PG_TRY();
	{
		if (sm.walked)
		{
			/* all in the memtable: split by the bytes walked, in two passes */
			sm.total = walk_bytes(it, sm.start.data, sm.start.len, sm.end, sm.end_len,
								  fresh_max(odb), NULL);
			sm.step = Max(Min(WC_SAMPLE_STEP_BYTES, sm.total / WC_SAMPLE_MIN_PARTS),
						  sm.total / WC_SAMPLE_MAX);
			sm.step = Max(sm.step, 1);
			if (sm.total > 0)
				(void) walk_bytes(it, sm.start.data, sm.start.len, sm.end, sm.end_len,
								  sm.total, &sm);
		}
		else
			sample_points(&sm, it);
	}
	PG_FINALLY();
	{
		/* the iterator pins LevelDB's files: never leave it behind */
		storage_iter_free(it);
	}
	PG_END_TRY();
	wc_write_sample_answer(out, sm.total, sm.n, sm.keys, sm.offsets);
}

/*
 * Walk one range from its start, counting rows, until its end or until
 * *entries reaches max; true if it reached the end.  *stop is the key it
 * stopped at otherwise.
 */
static bool
walk_range(WcIter *it, const WcWireRange *rg, uint32 max, uint64 *entries,
		   StringInfo row, uint64 *rows, StringInfo stop)
{
	size_t		tlen;

	/* every range starts with its table's component */
	if (wc_component_end(rg->start.data, rg->start.len, &tlen) != 0)
		tlen = rg->start.len;
	resetStringInfo(row);
	for (storage_iter_seek(it, rg->start.data, rg->start.len);
		 storage_iter_valid(it); storage_iter_next(it))
	{
		size_t		len;
		const uint8 *key = storage_iter_key(it, &len);
		size_t		plen;

		if (rg->end.len > 0 && wc_compare_bytes(key, len, rg->end.data, rg->end.len) >= 0)
			break;
		if (*entries >= max)
		{
			copy_key(stop, key, len);
			return false;
		}
		(*entries)++;
		plen = row_prefix_len(key, len, tlen);
		if (plen > 0 && (row->len != (int) plen || memcmp(row->data, key, plen) != 0))
		{
			(*rows)++;
			copy_key(row, key, plen);
		}
	}
	storage_iter_check(it);
	return true;
}

/* Walk the ranges (see ldb_sizes_rows). */
static void
walk_ranges(WcOpenDb *odb, const WcRowsRequest *req, WcIter *it, WcRowsAnswer *a)
{
	uint64		entries = 0;
	StringInfoData row,
				stop;

	initStringInfo(&row);
	initStringInfo(&stop);
	for (int i = 0; i < req->nranges; i++)
	{
		const WcWireRange *rg = &req->ranges[i];
		uint64		range_bytes = storage_approximate_size(odb->db, rg->start.data, rg->start.len,
														   rg->end.data, rg->end.len);

		a->bytes += range_bytes;
		if (!a->complete)
			continue;
		if (walk_range(it, rg, req->max_entries, &entries, &row, &a->rows, &stop))
			a->walked_bytes += range_bytes;
		else
		{
			a->complete = false;
			a->walked_bytes += storage_approximate_size(odb->db, rg->start.data, rg->start.len,
														(const uint8 *) stop.data, stop.len);
		}
	}
}

/*
 * ldb_sizes_rows
 *		ROWS: walk the ranges in order, at most req->max_entries entries in
 *		all, counting the rows met, and estimate the bytes walked and the
 *		ranges' bytes.
 */
void
ldb_sizes_rows(WcOpenDb *odb, const WcRowsRequest *req, WcRowsAnswer *a)
{
	WcIter	   *it = storage_iter(odb->db, ldb_large_commit_snapshot(odb), false);

	memset(a, 0, sizeof(*a));
	a->complete = true;
	PG_TRY();
	{
		walk_ranges(odb, req, it, a);
	}
	PG_FINALLY();
	{
		storage_iter_free(it);
	}
	PG_END_TRY();
}

/* LevelDB's estimate of the bytes in the ranges of an ESTIMATE request. */
uint64
ldb_estimate(WcOpenDb *odb, const WcEstimateRequest *req)
{
	uint64		total = 0;

	for (int i = 0; i < req->nranges; i++)
		total += ldb_sizes_range_bytes(odb,
								   req->ranges[i].start.data, req->ranges[i].start.len,
								   req->ranges[i].end.data, req->ranges[i].end.len);
	return total;
}
