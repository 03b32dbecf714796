/*-------------------------------------------------------------------------
 *
 * readrows.c
 *	  Reading a stored table's rows as this transaction sees them: the
 *	  storage worker's batches merged, in row-key order, with the rows the
 *	  transaction has written but not yet committed (txn.c).
 *
 * The foreign scan (scan.c) reads through here, and so does whatever reads
 * rows outside a scan: the family list and the types record (families.c,
 * coltypes.c, aggregate.c), IMPORT FOREIGN SCHEMA's sample (import.c),
 * ANALYZE (analyze.c) and INSERT ... ON CONFLICT DO NOTHING (wc_row_exists).
 * Their state is a WcScanState (read.h), of which a read outside the
 * executor fills only the fields read here.  The transaction's writes are
 * its cells as they replace the stored ones, its merges into aggregate
 * cells (common/aggfold.h), folded into the stored value, and its writes
 * to map columns (mapcolumn.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"

#include "common/aggfold.h"
#include "common/shmem.h"
#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/link/link.h"
#include "fdw/model/model.h"
#include "fdw/read/read.h"
#include "fdw/xact/xact.h"

/*
 * Ask for column a's cell, in ss's mapped columns.  A cell that several
 * columns map (the same bytes as text and as bytea, say) is asked for once,
 * since the worker answers each cell for one position; the others decode it
 * too (aliases).
 */
void
wc_scan_request_column(WcScanState *ss, int a)
{
	WcColumn   *col = &ss->table->cols[a - 1];

	for (int i = 0; i < ss->nmapped; i++)
		if (ss->mapped_lens[i] == col->famqual_len &&
			memcmp(ss->mapped_cols[i], col->famqual, col->famqual_len) == 0)
		{
			ss->alias_attnum[ss->naliases] = a;
			ss->alias_pos[ss->naliases++] = i;
			return;
		}
	ss->req_attnum[ss->nmapped] = a;
	ss->mapped_cols[ss->nmapped] = col->famqual;
	ss->mapped_lens[ss->nmapped] = col->famqual_len;
	ss->nmapped++;
}

/* Room for every column of ss's table in the arrays wc_scan_request_column fills. */
void
wc_scan_request_init(WcScanState *ss)
{
	int			n = Max(1, ss->table->natts);

	ss->req_attnum = palloc(sizeof(int) * n);
	ss->alias_attnum = palloc(sizeof(int) * n);
	ss->alias_pos = palloc(sizeof(int) * n);
	ss->mapped_cols = palloc(sizeof(uint8 *) * n);
	ss->mapped_lens = palloc(sizeof(size_t) * n);
	ss->nmapped = 0;
	ss->naliases = 0;
}

/* Start the stored scan of ranges and collect this transaction's rows. */
void
wc_scan_begin(WcScanState *ss, List *ranges)
{
	int			nranges;

	ss->ranges = ranges;
	nranges = list_length(ss->ranges);
	ss->advance_pending = false;
	ss->stored_done = true;
	ss->have_batch = false;
	ss->have_stored = false;
	ss->remote = false;
	ss->orows = NULL;
	ss->norows = 0;
	ss->opos = 0;
	ss->started = true;

	/* Contradictory bounds: nothing to read, not even a round trip. */
	if (nranges == 0)
		return;

	/*
	 * Also ask for the cells this transaction wrote, mapped here or not, so
	 * that a row whose last cells it deleted is known to be gone.
	 */
	ss->tt = wc_txn_table(ss->table, false);
	ss->nreq = ss->nmapped;
	ss->req_cols = ss->mapped_cols;
	ss->req_lens = ss->mapped_lens;
	if (ss->tt != NULL)
	{
		uint8	  **cols;
		size_t	   *lens;
		int			n = wc_txn_columns(ss->tt, &cols, &lens);
		uint8	  **all_cols = palloc(sizeof(uint8 *) * (ss->nmapped + n + 1));
		size_t	   *all_lens = palloc(sizeof(size_t) * (ss->nmapped + n + 1));

		/* a lookup of existence asks for no column: no array to copy */
		if (ss->nmapped > 0)
		{
			memcpy(all_cols, ss->req_cols, sizeof(uint8 *) * ss->nmapped);
			memcpy(all_lens, ss->req_lens, sizeof(size_t) * ss->nmapped);
		}
		for (int c = 0; c < n; c++)
		{
			bool		dup = false;

			for (int i = 0; i < ss->nmapped; i++)
				if (all_lens[i] == lens[c] && memcmp(all_cols[i], cols[c], lens[c]) == 0)
					dup = true;
			if (!dup && !wc_map_covers(ss->mapped_cols, ss->mapped_lens, ss->nmapped,
									   cols[c], lens[c]))
			{
				all_cols[ss->nreq] = cols[c];
				all_lens[ss->nreq] = lens[c];
				ss->nreq++;
			}
		}
		if (ss->nreq > WC_MAX_SCAN_COLUMNS)
			ss->nreq = wc_map_fold_families(all_cols, all_lens, ss->nmapped, ss->nreq);
		ss->req_cols = all_cols;
		ss->req_lens = all_lens;
	}
	ss->s_vals = palloc(sizeof(uint8 *) * Max(1, ss->nreq));
	ss->s_lens = palloc(sizeof(size_t) * Max(1, ss->nreq));
	ss->w_vals = palloc(sizeof(uint8 *) * Max(1, ss->nreq));
	ss->w_lens = palloc(sizeof(size_t) * Max(1, ss->nreq));

	if (ss->tt != NULL)
	{
		for (int r = 0; r < nranges; r++)
		{
			WcKeyRange *kr = list_nth(ss->ranges, ss->reverse ? nranges - 1 - r : r);
			WcTxnRow   *rows;
			int			n = wc_txn_rows_in_range(ss->tt, ss->horizon, kr, ss->reverse, &rows);

			ss->orows = ss->orows ? repalloc(ss->orows, sizeof(WcTxnRow) * (ss->norows + n + 1))
				: palloc(sizeof(WcTxnRow) * (n + 1));
			memcpy(ss->orows + ss->norows, rows, sizeof(WcTxnRow) * n);
			ss->norows += n;
		}
	}

	/*
	 * With our own writes merged in, or rows the scan filters itself,
	 * storage cannot stop at the limit.  Its filters would leave out a
	 * stored row that our writes make pass, and the rows a scan locks are
	 * read again under the lock: neither gets them.
	 */
	if (ss->table->engine == WC_ENGINE_BIGTABLE)
	{
		ss->bigtable_commits = pg_atomic_read_u64(&wc_shared->bigtable_commits);
		pg_memory_barrier();	/* read before the rows are */
	}
	ss->scan = wc_client_scan_begin(ss->table, ss->db, ss->snapshot, ss->as_of, ss->as_of_start,
									wc_rowdrop_any() ?
									wc_rowdrop_ranges(ss->table, ss->horizon, ss->ranges) :
									ss->ranges,
									ss->reverse, ss->bulk, ss->versions,
									ss->norows > 0 || ss->like_checks != NIL ? 0 : ss->limit,
									ss->req_cols, ss->req_lens, ss->nreq,
									ss->filters,
									ss->tt == NULL && !ss->lock_rows ? ss->nfilters : 0,
									ss->subid != InvalidSubTransactionId ? ss->subid :
									GetCurrentSubTransactionId());
	ss->remote = true;
	ss->stored_done = false;
}

/*
 * wc_scan_open
 *		Start reading ranges, for a scan outside the executor (ANALYZE, a
 *		row read afresh): the stored rows and this transaction's.
 */
void
wc_scan_open(WcScanState *ss, List *ranges)
{
	wc_scan_begin(ss, ranges);
	wc_scan_advance(ss);
}

void
wc_scan_stop(WcScanState *ss)
{
	if (ss->remote)
	{
		ss->stored_entries += wc_client_scan_entries(ss->scan);
		ss->stored_skipped += wc_client_scan_skipped(ss->scan);
		ss->stored_requests += wc_client_scan_requests(ss->scan);
		wc_client_scan_end(ss->scan);
	}
	ss->remote = false;
	ss->started = false;
}

static void
malformed_batch(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROTOCOL_VIOLATION),
			 errmsg("malformed batch from the widecolumn_fdw storage worker")));
}

/* Make the next stored row current, if there is one. */
void
wc_scan_advance(WcScanState *ss)
{
	WcReader   *r;
	WcBatchRow	row;

	ss->have_stored = false;
	while (!ss->have_batch || ss->batch.rows_left == 0)
	{
		if (ss->stored_done)
			return;
		if (ss->have_batch && ss->batch.done)
		{
			ss->stored_done = true;
			return;
		}
		if (!wc_client_scan_next_batch(ss->scan, &ss->batch))
		{
			ss->stored_done = true;
			return;
		}
		ss->have_batch = true;
	}

	r = &ss->batch.r;
	ss->batch.rows_left--;
	if (!wc_read_batch_row(r, &row))
		malformed_batch();
	ss->s_key = row.key.data;
	ss->s_keylen = row.key.len;
	ss->s_other = row.other;
	for (int i = 0; i < ss->nreq; i++)
		ss->s_vals[i] = NULL;
	for (int i = 0; i < row.ncells; i++)
	{
		uint16		idx;
		WcBytes		v;

		if (!wc_read_batch_cell(r, &idx, &v) || idx >= ss->nreq)
			malformed_batch();
		ss->s_vals[idx] = v.data;
		ss->s_lens[idx] = v.len;
	}
	if (ss->versions && !wc_read_batch_version(r, &ss->s_version))
		malformed_batch();
	ss->have_stored = true;
	ss->stored_rows++;
}

/*
 * wc_aggregate_apply_txn
 *		The value of a cell that a scan read as stored (NULL: none) with a
 *		transaction's merge cell applied; *len its length.
 */
const uint8 *
wc_aggregate_apply_txn(const uint8 *stored, size_t *len, const WcTxnCell *cell)
{
	uint8	   *v = palloc(WC_AGG_LEN);
	int64		operand = wc_agg_get(cell->value);

	if (stored != NULL && *len == WC_AGG_LEN)
		operand = wc_agg_apply(cell->merge, true, wc_agg_get(stored), operand);
	wc_agg_put(operand, v);
	*len = WC_AGG_LEN;
	return v;
}

/* Apply this transaction's changes to a row's requested cells. */
static bool
apply_txn_row(WcScanState *ss, WcTxnRow *row, bool *other)
{
	bool		live = false;

	if (row->deleted)
	{
		*other = false;
		for (int i = 0; i < ss->nreq; i++)
			ss->w_vals[i] = NULL;
	}
	for (int c = 0; c < row->ncells; c++)
	{
		WcTxnCell  *cell = &row->cells[c];
		int			i;

		for (i = 0; i < ss->nreq; i++)
			if (ss->req_lens[i] == cell->famqual_len &&
				memcmp(ss->req_cols[i], cell->famqual, cell->famqual_len) == 0)
				break;
		if (i == ss->nreq)
		{
			if (cell->value != NULL)
				*other = true;
			continue;
		}
		if (cell->merge != 0)
			ss->w_vals[i] = wc_aggregate_apply_txn(ss->w_vals[i], &ss->w_lens[i], cell);
		else
		{
			ss->w_vals[i] = cell->value;
			ss->w_lens[i] = cell->value_len;
		}
	}
	wc_map_apply_txn(ss->req_cols, ss->req_lens, ss->nreq, row, ss->w_vals, ss->w_lens);
	for (int i = 0; i < ss->nreq; i++)
		if (ss->w_vals[i] != NULL)
			live = true;
	return live || *other;
}

/*
 * wc_scan_next
 *		The next row of the scan: stored rows and this transaction's rows,
 *		merged in key order.  The row stays valid until the next call.
 */
bool
wc_scan_next(WcScanState *ss, const uint8 **key, size_t *keylen,
			const uint8 ***vals, size_t **lens)
{
	if (ss->advance_pending)
	{
		wc_scan_advance(ss);
		ss->advance_pending = false;
	}

	for (;;)
	{
		WcTxnRow   *orow = ss->opos < ss->norows ? &ss->orows[ss->opos] : NULL;
		int			cmp;
		bool		other = false;

		if (!ss->have_stored && orow == NULL)
			return false;
		if (!ss->have_stored)
			cmp = 1;
		else if (orow == NULL)
			cmp = -1;
		else
		{
			cmp = wc_compare_bytes(ss->s_key, ss->s_keylen, orow->rowkey, orow->rowkey_len);
			if (ss->reverse)
				cmp = -cmp;
		}

		ss->m_version = cmp <= 0 ? ss->s_version : 0;
		if (cmp < 0)
		{
			/* a stored row this transaction has not touched */
			*key = ss->s_key;
			*keylen = ss->s_keylen;
			*vals = ss->s_vals;
			*lens = ss->s_lens;
			ss->advance_pending = true;
			return true;
		}

		if (cmp == 0)
		{
			other = ss->s_other;
			*key = ss->s_key;
			*keylen = ss->s_keylen;
			memcpy(ss->w_vals, ss->s_vals, sizeof(uint8 *) * ss->nreq);
			memcpy(ss->w_lens, ss->s_lens, sizeof(size_t) * ss->nreq);
		}
		else
		{
			for (int i = 0; i < ss->nreq; i++)
				ss->w_vals[i] = NULL;
			*key = orow->rowkey;
			*keylen = orow->rowkey_len;
		}
		ss->opos++;
		if (apply_txn_row(ss, orow, &other))
		{
			*vals = ss->w_vals;
			*lens = ss->w_lens;
			ss->advance_pending = (cmp == 0);
			return true;
		}
		if (cmp == 0)
			wc_scan_advance(ss);
	}
}

/*
 * wc_read_row_now_like
 *		Read one row as it is now, latest committed state merged with this
 *		transaction's writes, asking for the cells like asks for.  The
 *		values are copied into the current memory context.
 */
bool
wc_read_row_now_like(WcScanState *like, const uint8 *key, size_t keylen,
			 const uint8 ***vals, size_t **lens, uint64 *version)
{
	WcTable    *t = like->table;
	WcScanState cur;
	const uint8 *k;
	size_t		klen;
	const uint8 **cvals;
	size_t	   *clens;
	bool		found;

	memset(&cur, 0, sizeof(cur));
	cur.table = t;
	cur.scan_cxt = CurrentMemoryContext;
	cur.nmapped = like->nmapped;
	cur.mapped_cols = like->mapped_cols;
	cur.mapped_lens = like->mapped_lens;
	cur.req_attnum = like->req_attnum;
	cur.db = like->db;
	cur.snapshot = 0;			/* the latest state */
	cur.horizon = wc_txn_horizon();
	cur.versions = like->versions;
	wc_scan_open(&cur, list_make1(wc_row_range(t, key, keylen)));
	found = wc_scan_next(&cur, &k, &klen, &cvals, &clens);
	if (version != NULL)
		*version = found ? cur.m_version : 0;
	*vals = palloc(sizeof(uint8 *) * Max(1, like->nmapped));
	*lens = palloc(sizeof(size_t) * Max(1, like->nmapped));
	for (int i = 0; found && i < like->nmapped; i++)
	{
		(*vals)[i] = cvals[i] ? memcpy(palloc(clens[i] + 1), cvals[i], clens[i]) : NULL;
		(*lens)[i] = clens[i];
	}
	wc_scan_stop(&cur);
	/* on Bigtable, what EXPLAIN ANALYZE counts of the scan's requests */
	if (t->engine == WC_ENGINE_BIGTABLE)
	{
		like->stored_requests += cur.stored_requests;
		like->stored_rows += cur.stored_rows;
		like->stored_entries += cur.stored_entries;
	}
	return found;
}

/*
 * wc_row_exists
 *		Does a row with this key exist, as this transaction sees it now?
 *
 * For INSERT ... ON CONFLICT DO NOTHING, which, like a unique index, looks
 * at the latest committed state rather than the statement's snapshot.
 */
bool
wc_row_exists(WcTable *t, const uint8 *key, size_t keylen)
{
	WcScanState none;
	const uint8 **vals;
	size_t	   *lens;

	memset(&none, 0, sizeof(none));
	none.table = t;
	none.db = wc_client_open_db(t);
	return wc_read_row_now_like(&none, key, keylen, &vals, &lens, NULL);
}

/*
 * wc_read_row_now
 *		Read one row of t as it is now (the latest committed state, with
 *		this transaction's writes), every cell t maps; vals and lens are
 *		indexed by the cells' order in t.
 */
bool
wc_read_row_now(WcTable *t, const uint8 *key, size_t keylen,
				const uint8 ***vals, size_t **lens)
{
	WcScanState like;

	memset(&like, 0, sizeof(like));
	like.table = t;
	like.scan_cxt = CurrentMemoryContext;
	wc_scan_request_init(&like);
	for (int a = 1; a <= t->natts; a++)
		if (t->cols[a - 1].kind == WC_COL_CELL)
			wc_scan_request_column(&like, a);
	like.db = wc_client_open_db(t);
	return wc_read_row_now_like(&like, key, keylen, vals, lens, NULL);
}

/*
 * wc_read_rows_begin, wc_read_rows_next, wc_read_rows_end
 *		Read every row of t at a snapshot, with this transaction's writes,
 *		outside a foreign scan (a function's reading): vals and lens are
 *		indexed by the order of t's cells, and valid until the next row.
 */
struct WcScanState *
wc_read_rows_begin(WcTable *t, uint32 db, uint32 snapshot)
{
	WcScanState *ss = palloc0(sizeof(WcScanState));

	ss->table = t;
	ss->scan_cxt = CurrentMemoryContext;
	wc_scan_request_init(ss);
	for (int a = 1; a <= t->natts; a++)
		if (t->cols[a - 1].kind == WC_COL_CELL)
			wc_scan_request_column(ss, a);
	ss->db = db;
	ss->snapshot = snapshot;
	ss->horizon = wc_txn_horizon();
	ss->as_of = wc_as_of_for_read();
	if (t->engine == WC_ENGINE_BIGTABLE)
		ss->as_of = wc_bigtable_read_time(ss->as_of, &ss->as_of_start);
	wc_scan_open(ss, list_make1(wc_table_range(t)));
	return ss;
}

bool
wc_read_rows_next(struct WcScanState *ss, const uint8 **key, size_t *keylen,
				  const uint8 ***vals, size_t **lens)
{
	return wc_scan_next(ss, key, keylen, vals, lens);
}

void
wc_read_rows_end(struct WcScanState *ss)
{
	wc_scan_stop(ss);
}
