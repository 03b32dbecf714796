/*-------------------------------------------------------------------------
 *
 * rowread.c
 *	  What a row's entries make, as a read decides them: the version of
 *	  each cell that counts (as_of, policies, drops, tombstones, the commits
 *	  the read does not see), an aggregate family's merges folded, and the
 *	  cells asked for sent into the batch.
 *
 * The walk over LevelDB (rowscan.c) hands each row's entries here in key
 * order, a cell's versions newest first: ldb_row_begin, ldb_row_entry for
 * each, ldb_row_end.  Plain C: reader threads run it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/aggfold.h"
#include "common/gcpolicy.h"
#include "common/keycodec.h"
#include "worker/leveldb/rowscan.h"

/* A row begins at key k, whose table and row prefix is k[0, rowend). */
void
ldb_row_begin(WcLdbScan *s, const uint8 *k, size_t rowend)
{
	WcRowState *row = &s->row;
	size_t		tlen,
				consumed,
				rlen;

	wc_bytebuf_set(&s->rowkey, k, rowend);
	wc_heat_row_begin(&s->heat, k, rowend, s->entries, s->out.len);

	/* The batch carries the row key itself, not its escaped form. */
	if (wc_component_end(k, rowend, &tlen) != 0 ||
		wc_unescape(k + tlen, rowend - tlen, wc_write_batch_row(&s->batch, rowend),
					&consumed, &rlen) != 0)
		wc_corrupt_key(k, rowend);
	wc_write_batch_row_key(&s->batch, rlen);
	row->colpos = 0;
	row->other = false;
	row->live = false;
	row->tomb_ts = 0;
	row->version = 0;
	row->range_dropped = s->meta.nrowdrops > 0 ?
		ldb_rowdrops_row(&s->meta, k, rowend, WC_ROWDROP_DROPS | WC_ROWDROP_TOMBS, s->as_of) : 0;
	row->have_last = false;
	row->folding = false;
	for (int i = 0; i < s->nfams; i++)
		row->fam_cells[i].len = 0;
	if (s->filter)
		ldb_row_filter_row_begin(s->filter);
}

/*
 * family_cell
 *		If the cell (escaped family and qualifier) is in a family asked for
 *		alone, add it and its value to that family's cells and return true.
 */
static bool
family_cell(WcLdbScan *s, const uint8 *fq, size_t fqlen, const uint8 *v, size_t vlen)
{
	size_t		flen;
	size_t		consumed;
	size_t		qlen;

	if (s->nfams == 0 || wc_component_end(fq, fqlen, &flen) != 0)
		return false;
	for (int i = 0; i < s->nfams; i++)
	{
		if (s->fams[i].len != flen || memcmp(s->fams[i].p, fq, flen) != 0)
			continue;
		s->qual.len = 0;
		wc_bytebuf_reserve(&s->qual, fqlen - flen);
		if (wc_unescape(fq + flen, fqlen - flen, s->qual.data, &consumed, &qlen) != 0)
			wc_corrupt_key(fq, fqlen);
		wc_write_batch_map_entry(&s->row.fam_cells[i], s->qual.data, qlen, v, vlen);
		return true;
	}
	return false;
}

/*
 * policy_of
 *		What the table's meta row says of the family of a cell (escaped
 *		family and qualifier), or NULL.  Cells come a family at a time: the
 *		last answer is kept.
 */
static const WcFamilyMeta *
policy_of(WcLdbScan *s, const uint8 *fq, size_t fqlen)
{
	size_t		flen;

	if (s->meta.unlisted == NULL || wc_component_end(fq, fqlen, &flen) != 0)
		return NULL;
	if (s->have_last_family && flen == s->last_family.len &&
		memcmp(fq, s->last_family.data, flen) == 0)
		return s->last_policy;
	wc_bytebuf_set(&s->last_family, fq, flen);
	s->have_last_family = true;
	s->last_policy = ldb_table_meta_family(&s->meta, fq, fqlen);
	return s->last_policy;
}

/* policy_of for versions.c */
const WcGcPolicy *
ldb_version_policy(void *arg, const uint8 *row, size_t rowlen, size_t fqlen, uint64 *dropped)
{
	WcLdbScan *s = arg;
	const WcFamilyMeta *fm = policy_of(s, row + rowlen, fqlen);

	*dropped = Max(s->meta.dropped, fm ? fm->dropped : 0);
	if (s->meta.nrowdrops > 0)
		*dropped = Max(*dropped, ldb_rowdrops_row(&s->meta, row, rowlen,
												 WC_ROWDROP_DROPS | WC_ROWDROP_TOMBS,
												 s->as_of));
	return fm && fm->has_policy ? &fm->policy : NULL;
}

/*
 * emit_cell
 *		Send a live cell's data: to its column, if one asked for it, and to
 *		its family, if that was asked for alone.
 */
static void
emit_cell(WcLdbScan *s, const uint8 *fq, size_t fqlen, const uint8 *data, size_t len)
{
	WcRowState *row = &s->row;
	bool		in_family = family_cell(s, fq, fqlen, data, len);
	WcSlice    *col;

	/*
	 * A row's cells arrive in bytewise order, the order of s->cols: walk the
	 * two together instead of searching the columns for every cell.
	 */
	for (;;)
	{
		int			cmp;

		if (row->colpos == s->ncols)
		{
			row->other = row->other || !in_family;
			return;
		}
		col = &s->cols[row->colpos];
		cmp = wc_compare_bytes(col->p, col->len, fq, fqlen);
		if (cmp == 0)
			break;
		if (cmp > 0)
		{
			row->other = row->other || !in_family;
			return;
		}
		row->colpos++;
	}
	wc_write_batch_cell(&s->batch, col->idx, data, len);
	if (s->filter)
		ldb_row_filter_cell(s->filter, col->idx, data, len);
}


/*
 * fold_entry
 *		An older entry of a cell whose newest version is a merge: a merge
 *		joins the fold; the newest plain value is its base and ends it, as
 *		does a tombstone, a row tombstone or a drop (no base then).
 */
static WcEntryKind
fold_entry(WcLdbScan *s, uint64 ts, const uint8 *v, size_t vlen)
{
	WcRowState *row = &s->row;

	if (row->fold_closed)
		return WC_ENTRY_OLDER;
	if (ts < row->dropped || (row->tomb_ts != 0 && ts < row->tomb_ts) || vlen == 0)
	{
		row->fold_closed = true;
		return WC_ENTRY_OLDER;
	}
	if (wc_agg_is_merge(v[0]))
	{
		if (vlen != 1 + WC_AGG_LEN)
			wc_corrupt_merge();
		row->fold_value = wc_agg_apply(v[0], true, row->fold_value, wc_agg_get(v + 1));
		return WC_ENTRY_USED;
	}
	if (v[0] == WC_VALUE_PRESENT && vlen == 1 + WC_AGG_LEN)
		row->fold_value = wc_agg_apply(row->fold_tag, true, wc_agg_get(v + 1),
									   row->fold_value);
	row->fold_closed = true;
	return WC_ENTRY_USED;
}

/* The folded cell (row->lastcell) is complete: send its value. */
static void
fold_end(WcLdbScan *s)
{
	uint8		buf[WC_AGG_LEN];

	s->row.folding = false;
	wc_agg_put(s->row.fold_value, buf);
	emit_cell(s, s->row.lastcell.data, s->row.lastcell.len, buf, WC_AGG_LEN);
}

/*
 * ldb_row_entry
 *		Take one entry of the current row, entries in key order (a cell's
 *		versions newest first).
 *
 * One version of a cell counts: the newest, or with as_of the newest at or
 * before it; the cell is absent if that one is a tombstone, older than the
 * row's tombstone or its table's or family's drop, or one its family's
 * policy deletes (it is then gone or going, and is never returned).
 */
WcEntryKind
ldb_row_entry(WcLdbScan *s, const uint8 *k, size_t n,
		  size_t rowend, size_t cellend, const uint8 *v, size_t vlen)
{
	WcRowState *row = &s->row;
	const uint8 *fq = k + rowend;
	size_t		fqlen = cellend - rowend;
	uint64		ts = wc_decode_ts(k + cellend);
	uint64		idx;
	bool		tombstone = fqlen == sizeof(wc_row_tombstone_fq) &&
		memcmp(fq, wc_row_tombstone_fq, fqlen) == 0;

	s->entries++;

	/*
	 * A commit the snapshot does not see is not there for it: not a version,
	 * nor counted among the cell's versions by its policy.
	 */
	if (ldb_hidden_has(&s->hidden, ts))
		return WC_ENTRY_HIDDEN;
	/* a version at its own timestamp: as of the commit that wrote it, or before */
	if (vlen > 0 && v[0] == WC_VALUE_STAMPED &&
		!ldb_unstamp(&s->hidden, s->pre, &s->pre_key, k, n, &v, &vlen))
		return WC_ENTRY_HIDDEN;

	if (row->have_last && fqlen == row->lastcell.len &&
		memcmp(fq, row->lastcell.data, fqlen) == 0)
	{
		if (row->decided)
			return row->folding ? fold_entry(s, ts, v, vlen) : WC_ENTRY_OLDER;
	}
	else
	{
		if (row->folding)
			fold_end(s);
		wc_bytebuf_set(&row->lastcell, fq, fqlen);
		row->have_last = true;
		row->decided = false;
		row->cell_versions = 0;
		{
			const WcFamilyMeta *fm = tombstone ? NULL : policy_of(s, fq, fqlen);

			row->policy = fm && fm->has_policy ? &fm->policy : NULL;
			row->dropped = Max(Max(s->meta.dropped, fm ? fm->dropped : 0),
							   row->range_dropped);
		}

		/* any commit that wrote the row wrote the newest entry of some cell */
		if (s->versions)
			row->version = Max(row->version, ts);
	}

	idx = row->cell_versions++;
	if (s->as_of != 0 && ts > s->as_of)
	{
		/*
		 * Too new: an older version may count, unless the policy keeps no
		 * more versions than these by their count alone.
		 */
		if (row->policy != NULL && row->policy->max_versions != 0 &&
			idx + 1 >= row->policy->max_versions && row->policy->join != WC_GC_AND)
			row->decided = true;
		return row->decided ? WC_ENTRY_OLDER : WC_ENTRY_NEWER;
	}
	row->decided = true;

	/* dropped (drop_table, drop_family): gone even as of an older time */
	if (ts < row->dropped)
		return WC_ENTRY_USED;
	if (tombstone)
	{
		row->tomb_ts = ts;
		return WC_ENTRY_USED;
	}
	if (row->tomb_ts != 0 && ts < row->tomb_ts)
		return WC_ENTRY_USED;
	if (row->policy != NULL &&
		wc_gc_deletes(row->policy, idx, s->now > ts ? s->now - ts : 0))
		return WC_ENTRY_USED;
	wc_check_value_tag(v, vlen);
	if (v[0] == WC_VALUE_TOMBSTONE)
		return WC_ENTRY_USED;

	row->live = true;
	if (wc_agg_is_merge(v[0]))
	{
		if (vlen != 1 + WC_AGG_LEN)
			wc_corrupt_merge();
		row->folding = true;
		row->fold_closed = false;
		row->fold_tag = v[0];
		row->fold_value = wc_agg_get(v + 1);
		return WC_ENTRY_USED;
	}
	/* the value without its tag byte */
	emit_cell(s, fq, fqlen, v + 1, vlen - 1);
	return WC_ENTRY_USED;
}

/* Finish the row: keep it if it exists, otherwise take it back out. */
void
ldb_row_end(WcLdbScan *s)
{
	WcRowState *row = &s->row;

	if (row->folding)
		fold_end(s);
	/* a row its filters leave out is read, not returned, as a missing one */
	if (!row->live || (s->filter && !ldb_row_filter_passes(s->filter)))
	{
		wc_heat_row_end(&s->heat, false, s->entries, s->out.len);
		wc_write_batch_row_cancel(&s->batch);
		s->skipped += row->live;
		return;
	}
	for (int i = 0; i < s->nfams; i++)
		if (row->fam_cells[i].len > 0)
			wc_write_batch_cell(&s->batch, s->fams[i].idx,
								row->fam_cells[i].data, row->fam_cells[i].len);
	wc_write_batch_row_end(&s->batch, row->other, s->versions, row->version);
	wc_heat_row_end(&s->heat, true, s->entries, s->out.len);
	s->emitted++;
	if (s->limit != 0 && s->emitted >= s->limit)
		s->done = true;
}
