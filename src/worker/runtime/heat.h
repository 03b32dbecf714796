/*-------------------------------------------------------------------------
 *
 * heat.h
 *	  The key access heat map's counting on a scan's side (docs/heatmap.md).
 *
 * A scan's batch is filled on a reader thread, which may call no
 * PostgreSQL function and must not touch the tables' counters the main
 * thread keeps: it counts into the scan's own WcHeatScan, a run of
 * chunks of at most WC_HEAT_CHUNK_ROWS rows, each with the key of its
 * first row.  The main thread folds the chunks into the table's counters
 * when it finishes the batch (heat.c, wc_heat_fold), attributing each
 * chunk to the key range of its first row.  Plain C, inline: it runs for
 * every row of every scan.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_HEAT_H
#define WC_HEAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/bytebuf.h"
#include "common/wireheat.h"
#include "worker/runtime/failure.h"

/* Rows a chunk counts at most: so a long scan spreads over its ranges. */
#define WC_HEAT_CHUNK_ROWS	64

typedef struct WcHeatChunk
{
	size_t		koff;			/* its first row's table+row prefix, in keys */
	size_t		klen;
	uint64_t	rows;			/* rows returned */
	uint64_t	scanned;		/* rows walked */
	uint64_t	entries;		/* LevelDB entries walked */
	uint64_t	bytes;			/* bytes of the rows returned, as sent */
} WcHeatChunk;

typedef struct WcHeatScan
{
	bool		on;				/* widecolumn_fdw.key_stats when it opened */
	WcByteBuf	keys;
	WcHeatChunk *chunks;		/* malloc'd, as the buffers are */
	int			nchunks;
	int			cap;
	uint64_t	row_entries;	/* the scan's entries when the row began */
	size_t		row_bytes;		/* the batch's length then */
} WcHeatScan;

/* A row begins at key k (table+row prefix, n bytes). */
static inline void
wc_heat_row_begin(WcHeatScan *h, const uint8_t *k, size_t n,
				  uint64_t entries, size_t batch_len)
{
	WcHeatChunk *c;

	if (!h->on)
		return;
	if (h->nchunks == 0 || h->chunks[h->nchunks - 1].scanned >= WC_HEAT_CHUNK_ROWS)
	{
		if (h->nchunks == h->cap)
		{
			int			cap = h->cap < 4 ? 4 : h->cap * 2;
			WcHeatChunk *grown = realloc(h->chunks, sizeof(WcHeatChunk) * cap);

			if (grown == NULL)
				wc_bytebuf_failed(sizeof(WcHeatChunk) * cap);
			h->chunks = grown;
			h->cap = cap;
		}
		c = &h->chunks[h->nchunks++];
		memset(c, 0, sizeof(*c));
		c->koff = h->keys.len;
		c->klen = n;
		wc_bytebuf_append(&h->keys, k, n);
	}
	h->chunks[h->nchunks - 1].scanned++;
	h->row_entries = entries;
	h->row_bytes = batch_len;
}

/* The row that began last ends; live: it is returned. */
static inline void
wc_heat_row_end(WcHeatScan *h, bool live, uint64_t entries, size_t batch_len)
{
	WcHeatChunk *c;

	if (!h->on || h->nchunks == 0)
		return;
	c = &h->chunks[h->nchunks - 1];
	c->entries += entries - h->row_entries;
	if (live)
	{
		c->rows++;
		c->bytes += batch_len - h->row_bytes;
	}
}

/*
 * A batch counted as a whole, from key k (a cells-layout table's, whose
 * rows versions.c reads).
 */
static inline void
wc_heat_batch(WcHeatScan *h, const uint8_t *k, size_t n, uint64_t rows,
			  uint64_t entries, size_t bytes)
{
	WcHeatChunk *c;

	if (!h->on || (rows == 0 && entries == 0))
		return;
	wc_heat_row_begin(h, k, n, 0, 0);
	c = &h->chunks[h->nchunks - 1];
	c->scanned += rows - 1;		/* row_begin counted one */
	c->rows += rows;
	c->entries += entries;
	c->bytes += bytes;
}

static inline void
wc_heat_scan_free(WcHeatScan *h)
{
	wc_bytebuf_free(&h->keys);
	free(h->chunks);
	h->chunks = NULL;
	h->nchunks = h->cap = 0;
}

/*
 * The counters, on the main thread only (heat.c counts, heatstore.c keeps
 * them in the database).  A table's history is a run of columns, one per
 * WC_HEAT_BUCKET_US in which it was used, the newest last; each column
 * splits the keys into at most WC_HEAT_RANGES ranges of its own, each
 * from its start key (the first's is empty) to the next one's.
 */
#define WC_HEAT_BUCKET_US	(60 * 1000000ULL)
#define WC_HEAT_RANGES		32
#define WC_HEAT_KEY_MAX		48	/* bytes of a start key, at most */
#define WC_HEAT_COLUMNS		256 /* columns a table keeps */

typedef struct WcHeatRange
{
	uint64_t	c[WC_HEAT_NCOUNTERS];
	uint8_t		klen;
	uint8_t		key[WC_HEAT_KEY_MAX];	/* a row key, or a prefix of one */
} WcHeatRange;

typedef struct WcHeatColumn
{
	uint64_t	start;			/* µs since the Unix epoch */
	bool		dirty;			/* changed since it was last stored */
	int			nranges;
	WcHeatRange r[WC_HEAT_RANGES];
} WcHeatColumn;

/* The newest column's range: the last key counted there, where it splits. */
typedef struct WcHeatSample
{
	uint8_t		klen;
	uint8_t		key[WC_HEAT_KEY_MAX];
	uint64_t	weight;			/* entries walked and written in the column */
	uint64_t	next_try;		/* weight at which to try to split again */
} WcHeatSample;

typedef struct WcHeatTable
{
	struct WcHeatTable *next;
	uint8_t    *name;			/* escaped, as in keys */
	size_t		namelen;
	uint64_t	totals[WC_STAT_NCOUNTERS];	/* since stats_reset */
	uint64_t	last_sweep;		/* µs; 0: never */
	uint64_t	stats_reset;	/* µs; 0: never */
	bool		totals_dirty;
	int			ncols;
	int			first;			/* the oldest column, in the ring */
	WcHeatColumn *cols[WC_HEAT_COLUMNS];
	WcHeatSample samples[WC_HEAT_RANGES];
	uint64_t	weight;			/* the newest column's, all ranges */
	int			nevicted;		/* columns let go, still stored */
	uint64_t	evicted[8];
} WcHeatTable;

typedef struct WcHeatDb
{
	WcHeatTable *tables;		/* in name order */
	WcHeatTable *last;			/* the one found last */
	uint64_t	stored_at;		/* when heatstore.c last wrote */
} WcHeatDb;

/* The i-th column of t, oldest first. */
static inline WcHeatColumn *
wc_heat_column(WcHeatTable *t, int i)
{
	return t->cols[(t->first + i) % WC_HEAT_COLUMNS];
}

#endif							/* WC_HEAT_H */
