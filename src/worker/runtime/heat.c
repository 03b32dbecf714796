/*-------------------------------------------------------------------------
 *
 * heat.c
 *	  The key access heat map's counters: per stored table, key range and
 *	  minute, what was read, walked and written; the table statistics; and
 *	  the HEAT and STATS requests that give them (docs/heatmap.md).
 *
 * Everything here runs on the worker's main thread: a scan's reads are
 * counted into the scan on whichever thread fills its batch (heat.h) and
 * folded in here when the engine gives the batch out; a commit's writes
 * are counted as the engine adds each row to its batch; the sweep's
 * deletions as it ends a table.  The engine keeps them in the database
 * (leveldb/heatstore.c).  The counters are engine-neutral: they count
 * table-and-row keys (common/keycodec.h), whatever stores them.
 *
 * A table's history is a run of columns, one per minute in which it was
 * used.  The newest column's key ranges adapt to where the traffic is, as
 * Key Visualizer's do: a range that takes more than twice its share of
 * the column's traffic splits at the last key counted there (a key drawn
 * as the traffic is), and when the column has WC_HEAT_RANGES ranges
 * already, the two neighbours with the least traffic merge to make room.
 * A split halves the counts so far between the two halves.  A new column
 * starts with the boundaries of the one before.  Start keys are at most
 * WC_HEAT_KEY_MAX bytes of a row key; a key is counted in the range whose
 * start is the greatest at or below the key's first WC_HEAT_KEY_MAX
 * bytes, which is exactly the range of the whole key.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <time.h>

#include "utils/guc.h"
#include "utils/memutils.h"

#include "common/keycodec.h"
#include "common/wireheat.h"
#include "worker/runtime/heat.h"
#include "worker/worker.h"

bool		wc_key_stats = true;

/* A range splits once it has seen at least this much traffic. */
#define WC_HEAT_SPLIT_MIN	64

/*
 * The time, to the clock's tick (a few milliseconds): counters go to minutes.
 * It is read for every row a commit writes or a read returns, and on this
 * machine's virtual clock gettimeofday took 15% of the worker's time in a
 * bulk commit, where the coarse clock is a read of memory.
 */
uint64
wc_heat_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	return (uint64) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int
key_cmp(const uint8 *a, size_t alen, const uint8 *b, size_t blen)
{
	return wc_compare_bytes(a, alen, b, blen);
}

/*
 * row_prefix
 *		The first WC_HEAT_KEY_MAX bytes of the row key whose escaped form
 *		begins at k (n bytes: the rest of the key, or of a range's start,
 *		which may lack the terminator); their number.  *whole: the first
 *		bytes of a whole character (UTF-8's), for a key stored as a start.
 */
static size_t
row_prefix(const uint8 *k, size_t n, uint8 *out, size_t *whole)
{
	size_t		len = 0;
	bool		more = false;

	for (size_t i = 0; i < n; i++)
	{
		uint8		b = k[i];

		if (b == 0x00)
		{
			if (i + 1 >= n || k[i + 1] != 0xFF)
				break;
			i++;
		}
		if (len == WC_HEAT_KEY_MAX)
		{
			more = (b & 0xC0) == 0x80;
			break;
		}
		out[len++] = b;
	}
	*whole = len;
	/* the byte after the last is a continuation byte: a character is cut */
	if (more)
	{
		while (*whole > 0 && (out[*whole - 1] & 0xC0) == 0x80)
			(*whole)--;
		if (*whole > 0)
			(*whole)--;			/* its first byte */
	}
	return len;
}

/* The range of col that holds a key (its first WC_HEAT_KEY_MAX bytes). */
static int
range_of(const WcHeatColumn *col, const uint8 *key, size_t len)
{
	int			lo = 0,
				hi = col->nranges - 1;

	/* the last range whose start is at or below the key; the first's is empty */
	while (lo < hi)
	{
		int			mid = (lo + hi + 1) / 2;

		if (key_cmp(col->r[mid].key, col->r[mid].klen, key, len) <= 0)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * wc_heat_table
 *		The counters of a table (escaped name), made if create and it has
 *		none; NULL for the table of families, which nobody reads as such.
 */
WcHeatTable *
wc_heat_table(WcDatabase *db, const uint8 *name, size_t len, bool create)
{
	WcHeatDb   *hd = db->heat;
	WcHeatTable **pos;
	WcHeatTable *t;

	if (hd == NULL ||
		(len == sizeof(wc_meta_table) && memcmp(name, wc_meta_table, len) == 0))
		return NULL;
	if (hd->last && key_cmp(hd->last->name, hd->last->namelen, name, len) == 0)
		return hd->last;
	for (pos = &hd->tables; *pos != NULL; pos = &(*pos)->next)
	{
		int			cmp = key_cmp((*pos)->name, (*pos)->namelen, name, len);

		if (cmp == 0)
			return hd->last = *pos;
		if (cmp > 0)
			break;
	}
	if (!create)
		return NULL;
	t = MemoryContextAllocZero(wc_worker_cxt, sizeof(WcHeatTable));
	t->name = MemoryContextAlloc(wc_worker_cxt, len);
	memcpy(t->name, name, len);
	t->namelen = len;
	t->next = *pos;
	*pos = t;
	return hd->last = t;
}

/*
 * wc_heat_add_column
 *		A new newest column of t, starting at start, with the boundaries of
 *		the one before (or one range); the oldest goes if t has the most.
 */
WcHeatColumn *
wc_heat_add_column(WcHeatTable *t, uint64 start)
{
	WcHeatColumn *prev = t->ncols > 0 ? wc_heat_column(t, t->ncols - 1) : NULL;
	WcHeatColumn *col;

	if (t->ncols == WC_HEAT_COLUMNS)
	{
		col = t->cols[t->first];
		if (t->nevicted < lengthof(t->evicted))
			t->evicted[t->nevicted++] = col->start;
		t->first = (t->first + 1) % WC_HEAT_COLUMNS;
		t->ncols--;
	}
	else
		col = MemoryContextAlloc(wc_worker_cxt, sizeof(WcHeatColumn));
	memset(col, 0, sizeof(*col));
	col->start = start;
	col->dirty = true;
	col->nranges = 1;
	if (prev != NULL)
	{
		col->nranges = prev->nranges;
		for (int i = 0; i < prev->nranges; i++)
		{
			col->r[i].klen = prev->r[i].klen;
			memcpy(col->r[i].key, prev->r[i].key, prev->r[i].klen);
		}
	}
	t->cols[(t->first + t->ncols) % WC_HEAT_COLUMNS] = col;
	t->ncols++;
	for (int i = 0; i < WC_HEAT_RANGES; i++)
		t->samples[i].weight = t->samples[i].next_try = 0;
	t->weight = 0;
	return col;
}

/* The column counts at now go to. */
static WcHeatColumn *
current_column(WcHeatTable *t, uint64 now)
{
	uint64		start = now - now % WC_HEAT_BUCKET_US;
	WcHeatColumn *newest = t->ncols > 0 ? wc_heat_column(t, t->ncols - 1) : NULL;

	/* (a clock stepped back counts in the newest) */
	if (newest != NULL && newest->start >= start)
		return newest;
	return wc_heat_add_column(t, start);
}

/* Merge ranges j and j + 1 of the newest column. */
static void
merge_ranges(WcHeatTable *t, WcHeatColumn *col, int j)
{
	WcHeatSample *a = &t->samples[j],
			   *b = &t->samples[j + 1];
	int			after = col->nranges - j - 2;

	for (int k = 0; k < WC_HEAT_NCOUNTERS; k++)
		col->r[j].c[k] += col->r[j + 1].c[k];
	if (b->weight > a->weight)
	{
		a->klen = b->klen;
		memcpy(a->key, b->key, b->klen);
	}
	a->weight += b->weight;
	a->next_try = 0;
	memmove(&col->r[j + 1], &col->r[j + 2], sizeof(WcHeatRange) * after);
	memmove(&t->samples[j + 1], &t->samples[j + 2], sizeof(WcHeatSample) * after);
	col->nranges--;
}

/*
 * maybe_split
 *		Split range i of the newest column at its sample, if it takes more
 *		than twice its share of the column's traffic.
 */
static void
maybe_split(WcHeatTable *t, WcHeatColumn *col, int i)
{
	WcHeatSample *s = &t->samples[i];
	int			after;

	if (s->weight < WC_HEAT_SPLIT_MIN || s->weight < s->next_try ||
		s->weight * WC_HEAT_RANGES <= 2 * t->weight)
		return;
	s->next_try = s->weight * 2;
	if (key_cmp(s->key, s->klen, col->r[i].key, col->r[i].klen) <= 0 ||
		(i + 1 < col->nranges &&
		 key_cmp(s->key, s->klen, col->r[i + 1].key, col->r[i + 1].klen) >= 0))
		return;
	if (col->nranges == WC_HEAT_RANGES)
	{
		int			best = -1;
		uint64		best_weight = 0;

		for (int j = 0; j + 1 < col->nranges; j++)
		{
			uint64		w = t->samples[j].weight + t->samples[j + 1].weight;

			if (j + 1 >= i && j <= i)
				continue;
			if (best < 0 || w < best_weight)
			{
				best = j;
				best_weight = w;
			}
		}
		/* not worth it: the quietest pair is as busy as half this range */
		if (best < 0 || best_weight * 2 >= s->weight)
			return;
		merge_ranges(t, col, best);
		if (best < i)
			i--;
		s = &t->samples[i];
	}
	after = col->nranges - i - 1;
	memmove(&col->r[i + 2], &col->r[i + 1], sizeof(WcHeatRange) * after);
	memmove(&t->samples[i + 2], &t->samples[i + 1], sizeof(WcHeatSample) * after);
	col->nranges++;
	col->r[i + 1].klen = s->klen;
	memcpy(col->r[i + 1].key, s->key, s->klen);
	for (int k = 0; k < WC_HEAT_NCOUNTERS; k++)
	{
		col->r[i + 1].c[k] = col->r[i].c[k] / 2;
		col->r[i].c[k] -= col->r[i + 1].c[k];
	}
	t->samples[i + 1] = *s;
	t->samples[i + 1].weight = s->weight / 2;
	s->weight -= t->samples[i + 1].weight;
	s->next_try = t->samples[i + 1].next_try = 0;
}

/*
 * count
 *		Add counters to the range of t that holds a row key (escaped, k[0,
 *		n)) in the current minute.
 */
static void
count(WcHeatTable *t, const uint8 *k, size_t n, const uint64 *c)
{
	uint8		key[WC_HEAT_KEY_MAX + 1];
	size_t		whole;
	size_t		len = row_prefix(k, n, key, &whole);
	WcHeatColumn *col = current_column(t, wc_heat_now());
	int			i = range_of(col, key, len);
	uint64		weight = c[WC_HEAT_SCANNED] + c[WC_HEAT_WRITES];
	WcHeatSample *s = &t->samples[i];

	for (int j = 0; j < WC_HEAT_NCOUNTERS; j++)
		col->r[i].c[j] += c[j];
	col->dirty = true;
	s->klen = (uint8) whole;
	memcpy(s->key, key, whole);
	s->weight += weight;
	t->weight += weight;
	maybe_split(t, col, i);
}

/*
 * table_of
 *		The counters of the table of a key (escaped table, then the rest);
 *		*rest where the rest begins.
 */
static WcHeatTable *
table_of(WcDatabase *db, const uint8 *k, size_t n, size_t *rest)
{
	if (!wc_key_stats || db->heat == NULL || wc_component_end(k, n, rest) != 0)
		return NULL;
	return wc_heat_table(db, k, *rest, true);
}

/*
 * wc_heat_fold
 *		Take what a scan counted since the last time (heat.h), on the main
 *		thread, once a batch is filled.
 */
void
wc_heat_fold(WcDatabase *db, WcHeatScan *h)
{
	for (int i = 0; i < h->nchunks; i++)
	{
		const WcHeatChunk *ch = &h->chunks[i];
		const uint8 *k = h->keys.data + ch->koff;
		size_t		rest;
		WcHeatTable *t = table_of(db, k, ch->klen, &rest);
		uint64		c[WC_HEAT_NCOUNTERS] = {0};

		if (t == NULL)
			continue;
		c[WC_HEAT_READS] = ch->rows;
		c[WC_HEAT_SCANNED] = ch->entries;
		c[WC_HEAT_BYTES_READ] = ch->bytes;
		count(t, k + rest, ch->klen - rest, c);
		t->totals[WC_STAT_READS] += ch->rows;
		t->totals[WC_STAT_ROWS_SCANNED] += ch->scanned;
		t->totals[WC_STAT_ENTRIES_SCANNED] += ch->entries;
		t->totals_dirty = true;
	}
	h->nchunks = 0;
	h->keys.len = 0;
}

/*
 * wc_heat_write_row
 *		A commit writes a row (its table+row prefix, escaped): values
 *		(present cells and merges), tombstones (row and cell tombstones and
 *		removed versions), and bytes (keys and values).
 */
void
wc_heat_write_row(WcDatabase *db, const uint8 *prefix, size_t plen,
				  uint64 values, uint64 tombstones, uint64 bytes)
{
	size_t		rest;
	WcHeatTable *t = table_of(db, prefix, plen, &rest);
	uint64		c[WC_HEAT_NCOUNTERS] = {0};

	if (t == NULL)
		return;
	c[WC_HEAT_WRITES] = values + tombstones;
	c[WC_HEAT_BYTES_WRITTEN] = bytes;
	count(t, prefix + rest, plen - rest, c);
	t->totals[WC_STAT_CELLS_WRITTEN] += values;
	t->totals[WC_STAT_TOMBSTONES_WRITTEN] += tombstones;
	t->totals_dirty = true;
}

/* The sweep ends its walk over a table (escaped), having deleted removed. */
void
wc_heat_swept(WcDatabase *db, const uint8 *table, size_t tlen, uint64 removed)
{
	size_t		rest;
	WcHeatTable *t = table_of(db, table, tlen, &rest);

	if (t == NULL)
		return;
	t->totals[WC_STAT_GC_REMOVED] += removed;
	t->last_sweep = wc_heat_now();
	t->totals_dirty = true;
}

/*
 * wc_serve_heat
 *		HEAT: a table's columns that end after since, oldest first.
 */
void
wc_serve_heat(WcClient *c, WcReader *r)
{
	WcHeatRequest req;
	WcHeatTable *t;
	int			first = 0;

	if (!wc_read_heat(r, &req))
		wc_malformed("HEAT");
	t = wc_heat_table(wc_db_lookup(req.db), req.table.data, req.table.len, false);
	if (t == NULL)
	{
		wc_write_heat_answer_begin(&c->answer, 0);
		return;
	}
	while (first < t->ncols &&
		   wc_heat_column(t, first)->start + WC_HEAT_BUCKET_US <= req.since)
		first++;
	wc_write_heat_answer_begin(&c->answer, t->ncols - first);
	for (int i = first; i < t->ncols; i++)
	{
		WcHeatColumn *col = wc_heat_column(t, i);

		wc_write_heat_answer_column(&c->answer, col->start, col->nranges);
		for (int j = 0; j < col->nranges; j++)
			wc_write_heat_answer_range(&c->answer, col->r[j].key, col->r[j].klen,
									   col->r[j].c);
	}
}

/*
 * wc_serve_stats
 *		STATS: every table's counters, after zeroing them if asked to.
 */
void
wc_serve_stats(WcClient *c, WcReader *r)
{
	WcStatsRequest req;
	WcDatabase *db;
	uint32		n = 0;
	uint64		now = wc_heat_now();

	if (!wc_read_stats(r, &req))
		wc_malformed("STATS");
	db = wc_db_lookup(req.db);
	for (WcHeatTable *t = db->heat ? db->heat->tables : NULL; t; t = t->next)
	{
		if (req.reset)
		{
			memset(t->totals, 0, sizeof(t->totals));
			t->stats_reset = now;
			t->totals_dirty = true;
		}
		n++;
	}
	wc_write_stats_answer_begin(&c->answer, n);
	for (WcHeatTable *t = db->heat ? db->heat->tables : NULL; t; t = t->next)
	{
		WcStatsAnswerTable a;
		uint8	   *end = palloc(t->namelen + 1);
		size_t		endlen = t->namelen;

		memcpy(end, t->name, t->namelen);
		a.table.data = t->name;
		a.table.len = t->namelen;
		memcpy(a.totals, t->totals, sizeof(a.totals));
		a.approx_bytes = 0;
		if (wc_successor(end, &endlen) == 0)
			a.approx_bytes = db->engine->range_bytes(db, t->name, t->namelen, end, endlen);
		a.last_sweep = t->last_sweep;
		a.stats_reset = t->stats_reset;
		wc_write_stats_answer_table(&c->answer, &a);
		pfree(end);
	}
}

/*
 * wc_heat_define_settings
 *		widecolumn_fdw.key_stats, which bench compares on against off.
 */
void
wc_heat_define_settings(void)
{
	DefineCustomBoolVariable("widecolumn_fdw.key_stats",
							 "Counts reads and writes per stored table and key range, for widecolumn.key_heatmap and widecolumn.stat_tables.",
							 "Off, the storage worker counts nothing; what it counted stays.",
							 &wc_key_stats,
							 true,
							 PGC_SIGHUP,
							 0,
							 NULL, NULL, NULL);
}
