/*-------------------------------------------------------------------------
 *
 * txn.c
 *	  A transaction's writes, held in this backend until COMMIT.
 *
 * Every INSERT, UPDATE and DELETE appends operations to one log for the
 * whole transaction; each stored table keeps its rows in key order (see
 * WcTxnTable in xact.h) so that reads find a row's operations.  Keeping a
 * log rather than only the latest state gives three things cheaply:
 *	- a scan sees the operations that existed when it started (its
 *	  "horizon"), so a statement never reads its own writes;
 *	- ROLLBACK TO SAVEPOINT truncates the log to where the savepoint began;
 *	- COMMIT replays each row once and sends the result to the worker, which
 *	  applies every row of the transaction in one LevelDB WriteBatch
 *	  (commit.c).
 *
 * Row locks are rowlock.c's; the transaction callbacks are commit.c's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"

#include "utils/memutils.h"

#include "common/aggfold.h"
#include "fdw/fdw.h"
#include "fdw/model/model.h"
#include "fdw/xact/xact.h"

typedef enum WcOpKind
{
	WC_OP_DELETE_ROW,
	WC_OP_PUT,
	WC_OP_DELETE_CELL,
	WC_OP_TOUCH,				/* nothing: the row was handled (wc_txn_touch_row) */
	WC_OP_MERGE					/* the value: a merge's tag, then its operand */
} WcOpKind;

typedef struct WcOp
{
	uint8		kind;
	uint32		col;			/* index into the table's columns */
	const uint8 *value;
	size_t		value_len;
} WcOp;

typedef struct WcLogEntry
{
	WcRowEntry *row;
	WcOp		op;
} WcLogEntry;

/*
 * The log is kept in segments of WC_LOG_SEGMENT entries, so that it grows
 * without copying what it holds.
 */
#define WC_LOG_SEGMENT_BITS	11
#define WC_LOG_SEGMENT		(1 << WC_LOG_SEGMENT_BITS)
#define LOG_ENTRY(i) \
	(&txn_log[(i) >> WC_LOG_SEGMENT_BITS][(i) & (WC_LOG_SEGMENT - 1)])

/*
 * Rows, their keys, their operation arrays and the values written live as
 * long as the transaction and are never freed one by one, so they are
 * carved out of large blocks (txn_alloc): a load of a million rows is
 * otherwise some seven million pallocs, each with its header and rounding,
 * and nearly twice the memory.
 */
#define WC_ARENA_MIN_BLOCK	(64 * 1024)
#define WC_ARENA_MAX_BLOCK	(8 * 1024 * 1024)

typedef struct WcSavepoint
{
	SubTransactionId subid;
	uint32		log_len;
} WcSavepoint;

static MemoryContext txn_cxt = NULL;

/*
 * Which command wrote each operation: the log from position start on, up to
 * the next boundary, was written by command cid.  A command's writes can be
 * interleaved with those of the commands its triggers and functions run,
 * so a command may have several spans.  PostgreSQL keeps the same in each
 * heap row (cmin/cmax) to tell a row its command changed (passed over) from
 * one a later command changed (an error).
 */
typedef struct WcCommandSpan
{
	uint32		start;
	CommandId	cid;
} WcCommandSpan;

static WcCommandSpan *command_spans = NULL;
static int	ncommand_spans = 0;
static int	command_spans_cap = 0;
static CommandId writing_cid = InvalidCommandId;	/* of log_append's caller */
List	   *wc_txn_tables = NIL;	/* see xact.h */
static WcLogEntry **txn_log = NULL;	/* the segments */
static uint32 txn_log_len = 0;
static int	txn_log_segments = 0;
static int	txn_log_segments_cap = 0;
static char *arena_next = NULL;
static size_t arena_left = 0;
static size_t arena_block = 0;
static List *savepoints = NIL;	/* in TopTransactionContext */

/*
 * The first log segment and the first arena block of every transaction,
 * kept for the session (block_alloc): allocated per transaction, their
 * 144 kB were malloc'd and freed each time, and glibc gave them back to
 * the kernel and took them again (brk and page faults), a cost single-row
 * write transactions paid in full.
 */
static void *first_segment = NULL;
static void *first_arena_block = NULL;

/* size bytes for the transaction: the session's *kept if first. */
static void *
block_alloc(void **kept, bool first, size_t size)
{
	if (!first)
		return MemoryContextAlloc(txn_cxt, size);
	if (*kept == NULL)
		*kept = MemoryContextAlloc(TopMemoryContext, size);
	return *kept;
}

/*
 * wc_txn_table
 *		This transaction's write state for t's stored table.
 */
WcTxnTable *
wc_txn_table(WcTable *t, bool create)
{
	ListCell   *lc;
	WcTxnTable *tt;
	MemoryContext old;

	foreach(lc, wc_txn_tables)
	{
		tt = lfirst(lc);
		if (tt->serverid == t->serverid && strcmp(tt->table, t->table) == 0)
		{
			/*
			 * The writes go to the directory the server named when they were
			 * made; reading or writing the table in another one would mix
			 * the two.
			 */
			if (strcmp(tt->path, t->path) != 0)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("the directory of the server of foreign table \"%s\" changed after this transaction wrote to it",
								t->relname),
						 errdetail("The transaction wrote to \"%s\"; the server now names \"%s\".",
								   tt->path, t->path),
						 errhint("Change a server's path in a transaction of its own.")));
			return tt;
		}
	}
	if (!create)
		return NULL;

	if (txn_cxt == NULL)
		txn_cxt = AllocSetContextCreate(TopTransactionContext,
										"widecolumn_fdw transaction writes",
										ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(txn_cxt);
	tt = palloc0(sizeof(WcTxnTable));
	tt->serverid = t->serverid;
	tt->table = pstrdup(t->table);
	tt->path = pstrdup(t->path);
	tt->sync = t->sync;
	tt->table_key = palloc(t->table_key_len);
	memcpy(tt->table_key, t->table_key, t->table_key_len);
	tt->table_key_len = t->table_key_len;

	/* t lives in executor memory: keep only what outlives a statement */
	tt->desc = palloc(sizeof(WcTable));
	memcpy(tt->desc, t, sizeof(WcTable));
	tt->desc->path = tt->path;
	tt->desc->table = tt->table;
	tt->desc->table_key = tt->table_key;
	tt->desc->relname = NULL;
	tt->desc->natts = 0;
	tt->desc->cols = NULL;

	wc_txn_tables = lappend(wc_txn_tables, tt);
	MemoryContextSwitchTo(old);
	return tt;
}

/*
 * array_room
 *		arr (of elements of elem bytes, n of them used, room for *cap) with
 *		room for one more: doubled, to at least min, in txn_cxt.  *cap
 *		changes only once the allocation has succeeded.
 */
static void *
array_room(void *arr, int n, int *cap, int min, size_t elem)
{
	int			newcap;

	if (n < *cap)
		return arr;
	newcap = Max(min, *cap * 2);
	arr = arr ? repalloc_huge(arr, elem * newcap) :
		MemoryContextAllocHuge(txn_cxt, elem * newcap);
	*cap = newcap;
	return arr;
}

/*
 * txn_alloc
 *		size bytes for the rest of the transaction, MAXALIGNed if aligned.
 */
static void *
txn_alloc(size_t size, bool aligned)
{
	size_t		pad = 0;
	char	   *p;

	if (aligned && arena_left > 0)
		pad = MAXALIGN((uintptr_t) arena_next) - (uintptr_t) arena_next;
	if (arena_next == NULL || pad + size > arena_left)
	{
		size_t		block = Min(Max(arena_block * 2, WC_ARENA_MIN_BLOCK),
								WC_ARENA_MAX_BLOCK);

		if (size > WC_ARENA_MAX_BLOCK / 8)
			return MemoryContextAllocHuge(txn_cxt, size);
		/* the state changes only once the allocation has succeeded */
		p = block_alloc(&first_arena_block,
						arena_next == NULL && block == WC_ARENA_MIN_BLOCK && size <= block,
						Max(block, size));
		arena_block = block;
		arena_next = p;
		arena_left = Max(block, size);
		pad = 0;
	}
	p = arena_next + pad;
	arena_next = p + size;
	arena_left -= pad + size;
	return p;
}

/*
 * The index of column fq in tt, or -1 and the free slot where it would go
 * (the hash table's size is a power of 2).
 */
static int
column_find(WcTxnTable *tt, const uint8 *fq, size_t len, uint32 *free_slot)
{
	uint32		mask = tt->col_hash_size - 1;
	uint32		slot;

	for (slot = hash_bytes(fq, (int) len) & mask; tt->col_hash[slot] != 0;
		 slot = (slot + 1) & mask)
	{
		uint32		i = tt->col_hash[slot] - 1;

		if (tt->col_lens[i] == len && memcmp(tt->cols[i], fq, len) == 0)
			return (int) i;
	}
	*free_slot = slot;
	return -1;
}

static uint32
column_index(WcTxnTable *tt, const uint8 *fq, size_t len)
{
	int			cap = tt->colcap;
	uint32		slot;
	int			found;

	/* at most half full */
	if ((uint32) tt->ncols + 1 > tt->col_hash_size / 2)
	{
		tt->col_hash_size = Max(16, tt->col_hash_size * 2);
		tt->col_hash = MemoryContextAllocHuge(txn_cxt, sizeof(uint32) * tt->col_hash_size);
		memset(tt->col_hash, 0, sizeof(uint32) * tt->col_hash_size);
		for (int i = 0; i < tt->ncols; i++)
		{
			(void) column_find(tt, tt->cols[i], tt->col_lens[i], &slot);
			tt->col_hash[slot] = i + 1;
		}
	}
	found = column_find(tt, fq, len, &slot);
	if (found >= 0)
		return (uint32) found;

	/* two arrays, one capacity: the second call sets it */
	tt->cols = array_room(tt->cols, tt->ncols, &cap, 8, sizeof(uint8 *));
	tt->col_lens = array_room(tt->col_lens, tt->ncols, &tt->colcap, 8, sizeof(size_t));
	tt->cols[tt->ncols] = memcpy(palloc(len), fq, len);
	tt->col_lens[tt->ncols] = len;
	tt->col_hash[slot] = tt->ncols + 1;
	return tt->ncols++;
}

/*
 * Room for n more operations in row->ops.  The array doubles, and the old
 * one is left in the arena, so a row's arrays come to at most twice its
 * operations.
 */
static void
row_reserve_ops(WcRowEntry *row, int n)
{
	int			cap = Max(4, row->cap);
	uint32	   *ops;

	if (row->nops + n <= row->cap)
		return;
	while (cap < row->nops + n)
		cap *= 2;
	ops = txn_alloc(sizeof(uint32) * cap, true);
	if (row->nops > 0)
		memcpy(ops, row->ops, sizeof(uint32) * row->nops);
	row->ops = ops;
	row->cap = cap;
}

static void
log_append(WcRowEntry *row, WcOpKind kind, uint32 col,
		   const uint8 *value, size_t value_len)
{
	WcLogEntry *e;

	if (txn_log_len == txn_log_segments * WC_LOG_SEGMENT)
	{
		WcLogEntry *segment;

		txn_log = array_room(txn_log, txn_log_segments, &txn_log_segments_cap, 16,
							 sizeof(WcLogEntry *));
		segment = block_alloc(&first_segment, txn_log_segments == 0,
							  sizeof(WcLogEntry) * WC_LOG_SEGMENT);
		txn_log[txn_log_segments++] = segment;
	}
	if (ncommand_spans == 0 || command_spans[ncommand_spans - 1].cid != writing_cid)
	{
		command_spans = array_room(command_spans, ncommand_spans, &command_spans_cap, 16,
								   sizeof(WcCommandSpan));
		command_spans[ncommand_spans].start = txn_log_len;
		command_spans[ncommand_spans].cid = writing_cid;
		ncommand_spans++;
	}
	e = LOG_ENTRY(txn_log_len);
	e->row = row;
	e->op.kind = kind;
	e->op.col = col;
	e->op.value = value;
	e->op.value_len = value_len;

	row_reserve_ops(row, 1);
	row->ops[row->nops++] = txn_log_len++;
}

/*
 * The key's first 8 bytes as a big-endian number, zeros past its end: it
 * orders most pairs of keys from different runs without reading the keys.
 */
static uint64
abbrev_key(const uint8 *key, size_t len)
{
	uint64		v = 0;

	for (size_t i = 0; i < 8; i++)
		v = (v << 8) | (i < len ? key[i] : 0);
	return v;
}

static WcRowEntry *
new_row(const uint8 *rowkey, size_t rowkey_len)
{
	WcRowEntry *row = txn_alloc(sizeof(WcRowEntry) + rowkey_len, true);

	memset(row, 0, sizeof(WcRowEntry));
	row->key.data = memcpy((char *) row + sizeof(WcRowEntry), rowkey, rowkey_len);
	row->key.len = rowkey_len;
	row->abbrev = abbrev_key(rowkey, rowkey_len);
	return row;
}

static int
row_cmp(const WcRowEntry *x, const WcRowEntry *y)
{
	return wc_compare_bytes(x->key.data, x->key.len, y->key.data, y->key.len);
}

/*
 * Give row a the operations of row b, which has the same key and was made
 * after it, and point their log entries at a.  While a later entry for its
 * key exists, a row gets no operations (find_row makes a new entry for every
 * write while the tail is not empty), so all of b's come after a's.
 */
static void
absorb_row(WcRowEntry *a, WcRowEntry *b)
{
	row_reserve_ops(a, b->nops);
	for (int j = 0; j < b->nops; j++)
	{
		Assert(a->nops == 0 || a->ops[a->nops - 1] < b->ops[j]);
		LOG_ENTRY(b->ops[j])->row = a;
		a->ops[a->nops++] = b->ops[j];
	}
	b->nops = 0;
}

/* row_cmp, quicker for rows whose keys differ in their first 8 bytes */
static int
merge_cmp(const WcRowEntry *x, const WcRowEntry *y)
{
	if (x->abbrev != y->abbrev)
		return x->abbrev < y->abbrev ? -1 : 1;
	return row_cmp(x, y);
}

/*
 * wc_txn_sort_rows
 *		Merge the tail of tt->rows into the sorted part.
 *
 * The sorted part and the tail's runs are merged pairwise until one run is
 * left.  The merge is stable, so rows with the same key stay in the order
 * they were made, which absorb_row needs when it makes them one.
 */
void
wc_txn_sort_rows(WcTxnTable *tt)
{
	int			n = tt->nrows;
	WcRowEntry **a;
	WcRowEntry **b;
	int		   *bounds;			/* run i is [bounds[i], bounds[i + 1]) */
	int			nruns = 0;
	int			w = 0;
	bool		repeats = tt->tail_repeats;
	MemoryContext old;

	if (tt->nsorted == n)
		return;

	/*
	 * One row in the tail, as when every write out of key order is
	 * followed by a read (INSERT ... ON CONFLICT DO NOTHING looks each key
	 * up): put it in place rather than merge, which would copy and compare
	 * every row each time.  absorb_row fails, if at all, before it changes
	 * anything.
	 */
	if (n - tt->nsorted == 1)
	{
		WcRowEntry *row = tt->rows[n - 1];
		int			lo = 0,
					hi = tt->nsorted;

		while (lo < hi)
		{
			int			mid = (lo + hi) / 2;

			if (merge_cmp(tt->rows[mid], row) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < tt->nsorted && row_cmp(tt->rows[lo], row) == 0)
		{
			absorb_row(tt->rows[lo], row);
			tt->nrows = n - 1;
		}
		else
		{
			memmove(&tt->rows[lo + 1], &tt->rows[lo], sizeof(WcRowEntry *) * (tt->nsorted - lo));
			tt->rows[lo] = row;
		}
		tt->nsorted = tt->nrows;
		tt->ntail_runs = 0;
		tt->tail_repeats = false;
		return;
	}

	/* reads call this too: the merged rows must outlive their statement */
	old = MemoryContextSwitchTo(txn_cxt);
	a = palloc_extended(sizeof(WcRowEntry *) * n, MCXT_ALLOC_HUGE);
	b = palloc_extended(sizeof(WcRowEntry *) * n, MCXT_ALLOC_HUGE);
	memcpy(a, tt->rows, sizeof(WcRowEntry *) * n);
	bounds = palloc(sizeof(int) * (tt->ntail_runs + 2));
	if (tt->nsorted > 0)
		bounds[nruns++] = 0;
	for (int r = 0; r < tt->ntail_runs; r++)
		bounds[nruns++] = tt->tail_runs[r];
	bounds[nruns] = n;

	while (nruns > 1)
	{
		int			merged = 0;
		WcRowEntry **t;

		for (int r = 0; r < nruns; r += 2)
		{
			int			l = bounds[r],
						mid = bounds[r + 1],
						end = r + 2 <= nruns ? bounds[r + 2] : mid,
						m = mid,
						o = l;

			while (l < mid && m < end)
			{
				int			c = merge_cmp(a[l], a[m]);

				repeats |= c == 0;
				b[o++] = c <= 0 ? a[l++] : a[m++];
			}
			while (l < mid)
				b[o++] = a[l++];
			while (m < end)
				b[o++] = a[m++];
			bounds[merged++] = bounds[r];
		}
		bounds[merged] = n;
		nruns = merged;
		t = a;
		a = b;
		b = t;
	}

	/*
	 * Rows with the same key are next to each other: make them one.  They
	 * go to b first, so that an error in absorb_row leaves tt->rows whole
	 * (a row absorbed by then has no operations left, and reads as none).
	 */
	for (int r = 0; r < n; r++)
	{
		if (repeats && w > 0 && row_cmp(b[w - 1], a[r]) == 0)
			absorb_row(b[w - 1], a[r]);
		else
			b[w++] = a[r];
	}
	memcpy(tt->rows, b, sizeof(WcRowEntry *) * w);
	pfree(a);
	pfree(b);
	pfree(bounds);
	tt->nrows = tt->nsorted = w;
	tt->ntail_runs = 0;
	tt->tail_repeats = false;
	MemoryContextSwitchTo(old);
}

/* Append a new row to tt->rows; it is in the sorted part if sorted. */
static WcRowEntry *
append_row(WcTxnTable *tt, const uint8 *rowkey, size_t rowkey_len, bool sorted)
{
	WcRowEntry *row = new_row(rowkey, rowkey_len);
	int			c = 1;			/* the new row against the tail's last */

	tt->rows = array_room(tt->rows, tt->nrows, &tt->rows_cap, 1024, sizeof(WcRowEntry *));
	if (!sorted && tt->nrows > tt->nsorted)
		c = row_cmp(tt->rows[tt->nrows - 1], row);
	tt->tail_repeats |= c == 0;
	if (sorted)
		tt->nsorted++;
	else if (tt->nrows == tt->nsorted || c > 0)
	{
		/* the tail's first row, or one below the row before it */
		tt->tail_runs = array_room(tt->tail_runs, tt->ntail_runs, &tt->tail_runs_cap,
								   16, sizeof(int));
		tt->tail_runs[tt->ntail_runs++] = tt->nrows;
	}
	tt->rows[tt->nrows++] = row;
	return row;
}

/*
 * find_row
 *		The entry of a row this transaction wrote; with create, a new one if
 *		there is none.
 *
 * With create, a row out of key order is appended to the tail without
 * looking for it, and may so get a second entry: wc_txn_sort_rows makes the two
 * one.  Without create (a read), the tail is merged in first.
 */
static WcRowEntry *
find_row(WcTxnTable *tt, const uint8 *rowkey, size_t rowkey_len, bool create)
{
	int			lo = 0,
				hi;

	if (!create)
		wc_txn_sort_rows(tt);
	else if (tt->nrows > tt->nsorted)
		return append_row(tt, rowkey, rowkey_len, false);
	hi = tt->nsorted;			/* after wc_txn_sort_rows merged the tail in */

	if (hi > 0)
	{
		WcRowEntry *last = tt->rows[hi - 1];
		int			c = wc_compare_bytes(rowkey, rowkey_len, last->key.data, last->key.len);

		if (c == 0)
			return last;
		if (c > 0)
			return create ? append_row(tt, rowkey, rowkey_len, true) : NULL;
	}
	else
		return create ? append_row(tt, rowkey, rowkey_len, true) : NULL;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;
		int			c = wc_compare_bytes(tt->rows[mid]->key.data, tt->rows[mid]->key.len,
										 rowkey, rowkey_len);

		if (c == 0)
			return tt->rows[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return create ? append_row(tt, rowkey, rowkey_len, false) : NULL;
}

/*
 * wc_txn_put_row
 *		Record a write of one row: optionally delete it first, then set cells
 *		(a cell with a NULL value is deleted).
 */
void
wc_txn_put_row(WcTable *t, CommandId cid, const uint8 *rowkey, size_t rowkey_len,
			   bool delete_first, int ncells, WcTxnCell *cells)
{
	WcTxnTable *tt = wc_txn_table(t, true);
	MemoryContext old = MemoryContextSwitchTo(txn_cxt);
	WcRowEntry *row = find_row(tt, rowkey, rowkey_len, true);

	writing_cid = cid;

	if (delete_first)
		log_append(row, WC_OP_DELETE_ROW, 0, NULL, 0);
	for (int i = 0; i < ncells; i++)
	{
		uint32		col = column_index(tt, cells[i].famqual, cells[i].famqual_len);

		if (cells[i].value == NULL)
			log_append(row, WC_OP_DELETE_CELL, col, NULL, 0);
		else if (cells[i].merge != 0)
		{
			uint8	   *v = txn_alloc(1 + cells[i].value_len, false);

			v[0] = cells[i].merge;
			memcpy(v + 1, cells[i].value, cells[i].value_len);
			log_append(row, WC_OP_MERGE, col, v, 1 + cells[i].value_len);
		}
		else
		{
			uint8	   *v = txn_alloc(Max(cells[i].value_len, 1), false);

			memcpy(v, cells[i].value, cells[i].value_len);
			log_append(row, WC_OP_PUT, col, v, cells[i].value_len);
		}
	}
	MemoryContextSwitchTo(old);
}

/*
 * wc_txn_touch_row
 *		Note that a statement handled a row without changing it (an UPDATE
 *		that set its cells to what they were), so that wc_txn_wrote_since
 *		knows the statement has been there.
 */
void
wc_txn_touch_row(WcTable *t, CommandId cid, const uint8 *rowkey, size_t rowkey_len)
{
	WcTxnTable *tt = wc_txn_table(t, true);
	MemoryContext old = MemoryContextSwitchTo(txn_cxt);

	writing_cid = cid;

	log_append(find_row(tt, rowkey, rowkey_len, true), WC_OP_TOUCH, 0, NULL, 0);
	MemoryContextSwitchTo(old);
}

/* Did this transaction write the cell fq (escaped family+qualifier) of tt? */
bool
wc_txn_wrote_cell(WcTxnTable *tt, const uint8 *fq, size_t len)
{
	uint32		slot;

	return tt->col_hash_size != 0 && column_find(tt, fq, len, &slot) >= 0;
}

/* The cells (escaped family+qualifier) this transaction wrote to tt. */
int
wc_txn_columns(WcTxnTable *tt, uint8 ***cols, size_t **lens)
{
	*cols = tt->cols;
	*lens = tt->col_lens;
	return tt->ncols;
}

/* The log position a scan starting now may see up to. */
uint32
wc_txn_horizon(void)
{
	return txn_log_len;
}

/*
 * wc_txn_horizon_at
 *		The log position a scan under a snapshot of command curcid may see
 *		up to: the writes of earlier commands, as a heap tuple is visible
 *		to a snapshot whose curcid is above its cmin.  So a stable function
 *		called by an INSERT does not see the rows that INSERT has written so
 *		far, and a cursor keeps its own command's view.
 */
uint32
wc_txn_horizon_at(CommandId curcid)
{
	int			lo = 0,
				hi = ncommand_spans;

	/* the first span of a command at or after curcid (cids only grow) */
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (command_spans[mid].cid < curcid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ncommand_spans ? command_spans[lo].start : txn_log_len;
}

/*
 * replay_merge
 *		A transaction's merge (op: tag then operand) of a cell whose state
 *		so far in the transaction is *cell; fresh if the transaction had
 *		not written the cell, and the row was not deleted, before: the cell
 *		is then a merge, to be folded into what is stored.  A merge after a
 *		plain value or a deletion is a plain value.  A value it makes is
 *		palloc'd.
 */
static void
replay_merge(WcTxnCell *cell, bool fresh, const uint8 *op)
{
	uint8	   *v;
	int64		operand = wc_agg_get(op + 1);

	if (fresh)
	{
		cell->merge = op[0];
		cell->value = op + 1;
		cell->value_len = WC_AGG_LEN;
		return;
	}
	v = palloc(WC_AGG_LEN);
	if (cell->value != NULL && cell->value_len == WC_AGG_LEN)
		wc_agg_put(wc_agg_apply(op[0], true, wc_agg_get(cell->value), operand), v);
	else
	{
		wc_agg_put(operand, v);
		cell->merge = 0;
	}
	cell->value = v;
	cell->value_len = WC_AGG_LEN;
}

/*
 * wc_txn_replay
 *		The state of a row after its operations before horizon.
 *
 * Returns false if it has none.  The cells array is palloc'd in the current
 * memory context; values point into the transaction's memory.
 */
bool
wc_txn_replay(WcTxnTable *tt, WcRowEntry *row, uint32 horizon, WcTxnRow *out)
{
	int		   *slot_of;
	uint32	   *used = NULL;	/* the columns of out->cells, in order */
	bool		any = false;
	uint32		dropped_at = 0;

	out->rowkey = row->key.data;
	out->rowkey_len = row->key.len;
	out->deleted = false;
	out->ncells = 0;
	out->cells = NULL;

	if (tt->col_slot_cap < tt->ncols)
	{
		int			old = tt->col_slot_cap;

		tt->col_slot = array_room(tt->col_slot, old, &tt->col_slot_cap, tt->ncols,
								  sizeof(int));
		for (int c = old; c < tt->col_slot_cap; c++)
			tt->col_slot[c] = -1;
	}
	slot_of = tt->col_slot;
	if (wc_rowdrop_any())
		dropped_at = wc_rowdrop_dropped_at(tt, row->key.data, row->key.len, horizon);

	for (int i = 0; i < row->nops; i++)
	{
		WcOp	   *op;
		bool		fresh;

		if (row->ops[i] >= horizon)
			break;
		if (row->ops[i] < dropped_at)
			continue;			/* before drop_row_range (droprange.c) */
		op = &LOG_ENTRY(row->ops[i])->op;
		if (op->kind == WC_OP_TOUCH)
			continue;
		if (!any)
		{
			/* each operation sets at most one cell */
			out->cells = palloc(sizeof(WcTxnCell) * row->nops);
			used = palloc(sizeof(uint32) * row->nops);
			any = true;
		}
		if (op->kind == WC_OP_DELETE_ROW)
		{
			out->deleted = true;
			for (int c = 0; c < out->ncells; c++)
				slot_of[used[c]] = -1;
			out->ncells = 0;
			continue;
		}
		fresh = slot_of[op->col] < 0;
		if (fresh)
		{
			used[out->ncells] = op->col;
			slot_of[op->col] = out->ncells++;
			out->cells[slot_of[op->col]].famqual = tt->cols[op->col];
			out->cells[slot_of[op->col]].famqual_len = tt->col_lens[op->col];
			out->cells[slot_of[op->col]].value = NULL;
			out->cells[slot_of[op->col]].merge = 0;
		}
		if (op->kind == WC_OP_MERGE)
		{
			replay_merge(&out->cells[slot_of[op->col]], fresh && !out->deleted,
								op->value);
			continue;
		}
		out->cells[slot_of[op->col]].value =
			op->kind == WC_OP_PUT ? op->value : NULL;
		out->cells[slot_of[op->col]].value_len = op->value_len;
		out->cells[slot_of[op->col]].merge = 0;
	}
	if (any)
	{
		for (int c = 0; c < out->ncells; c++)
			slot_of[used[c]] = -1;
		pfree(used);
	}
	if (dropped_at > 0)
		out->deleted = true;
	return any;
}

/* The command that wrote the operation at log position pos. */
static CommandId
command_at(uint32 pos)
{
	int			lo = 0,
				hi = ncommand_spans;

	/* the last span starting at or before pos; the first starts at 0 */
	while (hi - lo > 1)
	{
		int			mid = lo + (hi - lo) / 2;

		if (command_spans[mid].start <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return command_spans[lo].cid;
}

/*
 * wc_txn_changed_since
 *		Has this transaction written the row from horizon on, that is, in the
 *		statement the horizon belongs to or in a later one?
 *
 * A row that command cid (an UPDATE or DELETE) is about to change, and that
 * it changed itself already (a join handed it over twice), is passed over,
 * as PostgreSQL does (TM_SelfModified).  One that a later command changed
 * (a trigger or function the statement ran) is an error, as it is for a
 * heap row: changing it again would silently undo that change.  With
 * InvalidCommandId (a row lock) both are passed over, as by LockRows.
 */
bool
wc_txn_changed_since(WcTable *t, uint32 horizon, const uint8 *rowkey, size_t rowkey_len,
					 CommandId cid, bool delete)
{
	WcTxnTable *tt = wc_txn_table(t, false);
	WcRowEntry *e = tt ? find_row(tt, rowkey, rowkey_len, false) : NULL;
	uint32		last;

	if (e == NULL || e->nops == 0 || e->ops[e->nops - 1] < horizon)
		return false;
	last = e->ops[e->nops - 1];
	if (cid != InvalidCommandId && command_at(last) != cid && delete)
		ereport(ERROR,
				(errcode(ERRCODE_TRIGGERED_DATA_CHANGE_VIOLATION),
				 errmsg("tuple to be deleted was already modified by an operation triggered by the current command"),
				 errdetail("The row has key \"%s\" in foreign table \"%s\".",
						   wc_printable_key(rowkey, rowkey_len), t->relname),
				 errhint("Consider using an AFTER trigger instead of a BEFORE trigger to propagate changes to other rows.")));
	if (cid != InvalidCommandId && command_at(last) != cid)
		ereport(ERROR,
				(errcode(ERRCODE_TRIGGERED_DATA_CHANGE_VIOLATION),
				 errmsg("tuple to be updated was already modified by an operation triggered by the current command"),
				 errdetail("The row has key \"%s\" in foreign table \"%s\".",
						   wc_printable_key(rowkey, rowkey_len), t->relname),
				 errhint("Consider using an AFTER trigger instead of a BEFORE trigger to propagate changes to other rows.")));
	return true;
}

/*
 * truncate_log
 *		Forget every operation from position len on.
 */
static void
truncate_log(uint32 len)
{
	while (ncommand_spans > 0 && command_spans[ncommand_spans - 1].start >= len)
		ncommand_spans--;
	for (uint32 i = len; i < txn_log_len; i++)
	{
		WcRowEntry *row = LOG_ENTRY(i)->row;

		while (row->nops > 0 && row->ops[row->nops - 1] >= len)
			row->nops--;
	}
	txn_log_len = len;
	wc_rowdrop_truncate(len);
}

/*
 * wc_txn_savepoint_begin
 *		Note where subtransaction subid's writes begin in the log.
 */
void
wc_txn_savepoint_begin(SubTransactionId subid)
{
	MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
	WcSavepoint *sp = palloc(sizeof(WcSavepoint));

	sp->subid = subid;
	sp->log_len = txn_log_len;
	savepoints = lappend(savepoints, sp);
	MemoryContextSwitchTo(old);
}

/*
 * wc_txn_savepoint_end
 *		Subtransaction subid ends: with rollback, forget its writes.
 *
 * Returns false, and does nothing, if the log has no savepoint for it.
 */
bool
wc_txn_savepoint_end(SubTransactionId subid, bool rollback)
{
	WcSavepoint *sp;

	if (savepoints == NIL)
		return false;
	sp = llast(savepoints);
	if (sp->subid != subid)
		return false;
	if (rollback)
		truncate_log(sp->log_len);
	savepoints = list_delete_last(savepoints);
	pfree(sp);
	return true;
}

/*
 * wc_txn_reset
 *		The transaction has ended: forget its log.
 */
void
wc_txn_reset(void)
{
	/* the memory goes with TopTransactionContext */
	txn_cxt = NULL;
	wc_txn_tables = NIL;
	txn_log = NULL;
	txn_log_len = 0;
	txn_log_segments = 0;
	txn_log_segments_cap = 0;
	arena_next = NULL;
	arena_left = 0;
	arena_block = 0;
	savepoints = NIL;
	command_spans = NULL;
	ncommand_spans = 0;
	command_spans_cap = 0;
	wc_rowdrop_reset();
}

/* Has this transaction written to a widecolumn_fdw table? */
bool
wc_txn_has_writes(void)
{
	return wc_txn_tables != NIL;
}
