/*-------------------------------------------------------------------------
 *
 * rowdrops.c
 *	  Row ranges that widecolumn.drop_row_range dropped, as the storage
 *	  worker applies them: the ranges a scan need not read, the drop time
 *	  of a row, and the mark a commit leaves when it writes into a range.
 *
 * A drop is a cell of the table's row in the table of families
 * (docs/format.md, "Dropped row ranges"), wc:dropped_rows:<range>, whose
 * version is the drop's commit time: every entry of the range older than
 * that is gone, as for drop_table, at the cost of one entry however many
 * rows the range holds.  A DELETE of row-key ranges leaves
 * wc:deleted_rows:<range> instead, a row tombstone on every row of the
 * range: it hides the older entries from reads as of its time on, and the
 * sweep keeps what the policies keep behind it, as behind a row's own.  A read could hide those entries one by one, but
 * then a scan across a dropped range would still read them all.  So the
 * first commit that writes a value into a dropped range also writes
 * wc:dropped_rows_refilled:<range> (wc:deleted_rows_refilled:<range>):
 * while a range has no such mark newer
 * than its drop, every entry in it is older than the drop, and a scan
 * leaves the whole range out of its key ranges (ldb_rowdrops_subtract);
 * after one, the scan reads the range and hides the older entries row by
 * row (ldb_rowdrops_row), until the sweep has deleted them and the marks.
 *
 * The commit needs the table's drops as they are now, the commits before
 * it included: they are cached per database, loaded after the commit
 * writer has written every commit before (a drop may be among them), and
 * forgotten whenever a commit or the sweep changes a row of the table of
 * families.  A mark too many only makes reads of the range slower; a mark
 * missing would hide a committed row, which this order rules out.  So does
 * the other rule: a commit writes a mark of its own while the newest mark
 * is one of a commit not every snapshot agrees on (xacts.c), which a
 * reader may not see, or an aborted writer take back.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "common/keycodec.h"
#include "worker/leveldb/leveldb.h"

/*
 * The qualifiers of the cells, before the range: drop_row_range's drop, a
 * DELETE's range tombstone, and the refill marks of each.
 */
typedef struct WcRangeCell
{
	const char *prefix;
	bool		tombstone;
	bool		refill;
} WcRangeCell;

static const WcRangeCell range_cells[] = {
	{"dropped_rows:", false, false},
	{"dropped_rows_refilled:", false, true},
	{"deleted_rows:", true, false},
	{"deleted_rows_refilled:", true, true},
};

/* Which of range_cells a qualifier is (its prefix's length in *skip); NULL: none. */
static const WcRangeCell *
range_cell(const uint8 *qual, size_t qlen, size_t *skip)
{
	for (int i = 0; i < lengthof(range_cells); i++)
	{
		size_t		n = strlen(range_cells[i].prefix);

		if (qlen > n && memcmp(qual, range_cells[i].prefix, n) == 0)
		{
			*skip = n;
			return &range_cells[i];
		}
	}
	return NULL;
}

/* A table's drops, as the commits know them. */
typedef struct WcCachedTable
{
	uint8	   *table;			/* escaped, as the first component of a key */
	size_t		tlen;
	int			ndrops;
	WcRowDrop  *drops;
} WcCachedTable;

typedef struct WcRowDropCache
{
	MemoryContext cxt;
	int			ntables;
	int			cap;
	WcCachedTable *tables;
	WcCachedTable *last;		/* the table the last row was in */
	WcTableMeta pending;		/* the drops of the commit being stamped */
	bool		stale;			/* that commit changed the table of families */
} WcRowDropCache;

static WcBytes
bytes_copy(const uint8 *p, size_t len)
{
	WcBytes		b;

	b.data = memcpy(palloc(len + 1), p, len);
	b.len = len;
	return b;
}

/*
 * The qualifier, unescaped (palloc'd), of a cell of family wc, given as
 * its escaped family and qualifier; NULL for another family.
 */
static uint8 *
wc_qualifier(const uint8 *fq, size_t fqlen, size_t *qlen)
{
	static const uint8 wc[] = {'w', 'c', 0x00, 0x01};
	size_t		consumed;
	uint8	   *q;

	if (fqlen <= sizeof(wc) || memcmp(fq, wc, sizeof(wc)) != 0)
		return NULL;
	q = palloc(fqlen);
	if (wc_unescape(fq + sizeof(wc), fqlen - sizeof(wc), q, &consumed, qlen) != 0 ||
		consumed != fqlen - sizeof(wc))
	{
		pfree(q);
		return NULL;
	}
	return q;
}

/*
 * add_cell
 *		Note in m a cell of table's row in the table of families whose
 *		qualifier (unescaped) is qual, if it is a drop or a refill mark.
 *		A kind's drops come before its marks (their qualifier sorts first).
 */
static void
add_cell(WcTableMeta *m, const uint8 *table, size_t tlen,
		 const uint8 *qual, size_t qlen, uint64 ts)
{
	size_t		skip;
	const WcRangeCell *kind = range_cell(qual, qlen, &skip);
	const uint8 *range;
	size_t		rlen;
	uint8	   *bound;
	size_t		c1,
				c2,
				slen,
				elen;
	WcRowDrop  *d;

	if (kind == NULL)
		return;
	range = qual + skip;
	rlen = qlen - skip;

	if (kind->refill)
	{
		for (int i = 0; i < m->nrowdrops; i++)
			if (m->rowdrops[i].tombstone == kind->tombstone &&
				m->rowdrops[i].qualifier.len == rlen &&
				memcmp(m->rowdrops[i].qualifier.data, range, rlen) == 0)
				m->rowdrops[i].refilled = ts;
		return;
	}

	/* the range: escape(start) escape(end), an empty end for none */
	if (wc_component_end(range, rlen, &c1) != 0 ||
		wc_component_end(range + c1, rlen - c1, &c2) != 0 || c1 + c2 != rlen)
		return;					/* not what drop_row_range writes */
	bound = palloc(tlen + 2 * rlen + 2);
	m->rowdrops = m->nrowdrops == 0 ? palloc(sizeof(WcRowDrop) * 4) :
		repalloc(m->rowdrops, sizeof(WcRowDrop) * (m->nrowdrops + 1));
	d = &m->rowdrops[m->nrowdrops++];
	memset(d, 0, sizeof(*d));
	d->tombstone = kind->tombstone;
	d->dropped = ts;
	d->qualifier = bytes_copy(range, rlen);

	/* start: the table, then the start's escaped bytes without terminator */
	memcpy(bound, table, tlen);
	{
		uint8	   *raw = palloc(c1);
		size_t		consumed;

		(void) wc_unescape(range, c1, raw, &consumed, &slen);
		slen = wc_escape_body(raw, slen, bound + tlen);
		pfree(raw);
	}
	d->start = bytes_copy(bound, tlen + slen);
	if (c2 == 2)
	{
		/* no end: the table's */
		size_t		n = tlen;

		memcpy(bound, table, tlen);
		(void) wc_successor(bound, &n);
		d->end = bytes_copy(bound, n);
	}
	else
	{
		uint8	   *raw = palloc(c2);
		size_t		consumed;

		(void) wc_unescape(range + c1, c2, raw, &consumed, &elen);
		elen = wc_escape_body(raw, elen, bound + tlen);
		d->end = bytes_copy(bound, tlen + elen);
		pfree(raw);
	}
	pfree(bound);
}

/*
 * ldb_rowdrops_cell
 *		The version at ts of a cell (escaped family and qualifier) of table's
 *		row in the table of families, its newest: if it is a drop or a
 *		refill mark, note it in m and return true.
 */
bool
ldb_rowdrops_cell(WcTableMeta *m, const uint8 *table, size_t tlen,
				 const uint8 *fq, size_t fqlen, uint64 ts)
{
	size_t		qlen,
				skip;
	uint8	   *q = wc_qualifier(fq, fqlen, &qlen);
	bool		ours = q != NULL && range_cell(q, qlen, &skip) != NULL;

	if (ours)
		add_cell(m, table, tlen, q, qlen, ts);
	if (q != NULL)
		pfree(q);
	return ours;
}

/*
 * ldb_rowdrops_cell_goes
 *		After a walk over the whole table that began when its meta was m,
 *		does this version (at ts) of a drop's or refill mark's cell go?  A
 *		drop goes if m has it at ts or later (every entry it hid is gone),
 *		and a range tombstone only if no kept entry was older (hides); the
 *		refill marks of a range go with its drop.
 */
bool
ldb_rowdrops_cell_goes(WcTableMeta *m, const uint8 *fq, size_t fqlen, uint64 ts)
{
	size_t		qlen,
				skip;
	uint8	   *q = wc_qualifier(fq, fqlen, &qlen);
	const WcRangeCell *kind = q ? range_cell(q, qlen, &skip) : NULL;
	bool		goes = false;

	for (int i = 0; kind != NULL && i < m->nrowdrops; i++)
	{
		WcRowDrop  *d = &m->rowdrops[i];

		if (d->tombstone != kind->tombstone || d->qualifier.len != qlen - skip ||
			memcmp(d->qualifier.data, q + skip, qlen - skip) != 0)
			continue;
		if (kind->refill)
			goes = !d->stays;
		else
		{
			/* a newer drop of the range, or a tombstone still needed */
			goes = ts <= d->dropped && !d->hides;
			d->stays |= !goes;
		}
		break;
	}
	if (q != NULL)
		pfree(q);
	return goes;
}

/*
 * Does d hide what is older than it from a read as of as_of (0: now)?  A
 * drop does at any time, a range tombstone from its time on.
 */
static bool
applies(const WcRowDrop *d, int kinds, uint64 as_of)
{
	if (d->tombstone)
		return (kinds & WC_ROWDROP_TOMBS) != 0 && (as_of == 0 || d->dropped <= as_of);
	return (kinds & WC_ROWDROP_DROPS) != 0;
}

/* A drop that a read as of as_of needs none of the range of. */
static bool
skippable(const WcRowDrop *d, uint64 as_of)
{
	return d->refilled < d->dropped &&
		applies(d, WC_ROWDROP_DROPS | WC_ROWDROP_TOMBS, as_of);
}

static int
drop_cmp(const void *a, const void *b)
{
	const WcRowDrop *x = *(const WcRowDrop *const *) a;
	const WcRowDrop *y = *(const WcRowDrop *const *) b;

	return wc_compare_bytes(x->start.data, x->start.len, y->start.data, y->start.len);
}

/*
 * ldb_rowdrops_subtract
 *		The key ranges (ascending, apart, an empty end for none) without
 *		the dropped ranges that hold nothing newer than their drop: a scan
 *		never reads those.  Returns the number of ranges in *out.
 */
int
ldb_rowdrops_subtract(const WcTableMeta *m, uint64 as_of, const WcWireRange *ranges,
					 int nranges, WcWireRange **out)
{
	const WcRowDrop **drops;
	int			ndrops = 0;
	int			n = 0;
	int			cap = nranges + 1;

	*out = (WcWireRange *) ranges;
	for (int i = 0; i < m->nrowdrops; i++)
		if (skippable(&m->rowdrops[i], as_of))
			ndrops++;
	if (ndrops == 0)
		return nranges;
	drops = palloc(sizeof(WcRowDrop *) * ndrops);
	ndrops = 0;
	for (int i = 0; i < m->nrowdrops; i++)
		if (skippable(&m->rowdrops[i], as_of))
			drops[ndrops++] = &m->rowdrops[i];
	qsort(drops, ndrops, sizeof(WcRowDrop *), drop_cmp);

	*out = palloc(sizeof(WcWireRange) * cap);
	for (int r = 0; r < nranges; r++)
	{
		WcBytes		cur = ranges[r].start;
		WcBytes		end = ranges[r].end;

		for (int i = 0; i < ndrops; i++)
		{
			const WcRowDrop *d = drops[i];

			if (wc_compare_bytes(d->end.data, d->end.len, cur.data, cur.len) <= 0)
				continue;		/* before cur */
			if (end.len > 0 &&
				wc_compare_bytes(d->start.data, d->start.len, end.data, end.len) >= 0)
				break;			/* this and the rest are after the range */
			if (wc_compare_bytes(d->start.data, d->start.len, cur.data, cur.len) > 0)
			{
				if (n == cap)
					*out = repalloc(*out, sizeof(WcWireRange) * (cap *= 2));
				(*out)[n].start = cur;
				(*out)[n].end = d->start;
				n++;
			}
			cur = d->end;
			if (end.len > 0 && wc_compare_bytes(cur.data, cur.len, end.data, end.len) >= 0)
				break;
		}
		if (end.len == 0 || wc_compare_bytes(cur.data, cur.len, end.data, end.len) < 0)
		{
			if (n == cap)
				*out = repalloc(*out, sizeof(WcWireRange) * (cap *= 2));
			(*out)[n].start = cur;
			(*out)[n].end = end;
			n++;
		}
	}
	pfree(drops);
	return n;
}

/* Is the row (its key's table and row-key components) in d's range? */
static bool
in_range(const WcRowDrop *d, const uint8 *row, size_t rowlen)
{
	return wc_compare_bytes(row, rowlen, d->start.data, d->start.len) >= 0 &&
		wc_compare_bytes(row, rowlen, d->end.data, d->end.len) < 0;
}

/*
 * ldb_rowdrops_row
 *		The time of the latest drop (of kinds) of a range the row is in that
 *		a read as of as_of applies (0: none): the row's entries older than
 *		that are gone for it.
 */
uint64
ldb_rowdrops_row(const WcTableMeta *m, const uint8 *row, size_t rowlen, int kinds,
				uint64 as_of)
{
	uint64		dropped = 0;

	for (int i = 0; i < m->nrowdrops; i++)
		if (m->rowdrops[i].dropped > dropped && applies(&m->rowdrops[i], kinds, as_of) &&
			in_range(&m->rowdrops[i], row, rowlen))
			dropped = m->rowdrops[i].dropped;
	return dropped;
}

/*
 * ldb_rowdrops_hiding
 *		The sweep keeps an entry of the row at oldest_kept: the range
 *		tombstones over it newer than that still hide something, and stay.
 */
void
ldb_rowdrops_hiding(WcTableMeta *m, const uint8 *row, size_t rowlen, uint64 oldest_kept)
{
	for (int i = 0; i < m->nrowdrops; i++)
		if (m->rowdrops[i].tombstone && m->rowdrops[i].dropped > oldest_kept &&
			in_range(&m->rowdrops[i], row, rowlen))
			m->rowdrops[i].hides = true;
}

/*
 * ldb_rowdrops_forget
 *		Forget what the commits knew of the database's drops.
 */
void
ldb_rowdrops_forget(WcOpenDb *odb)
{
	if (odb->rowdrops == NULL)
		return;
	MemoryContextDelete(odb->rowdrops->cxt);
	pfree(odb->rowdrops);
	odb->rowdrops = NULL;
}

static WcRowDropCache *
cache_of(WcOpenDb *odb)
{
	if (odb->rowdrops == NULL)
	{
		WcRowDropCache *c = MemoryContextAllocZero(TopMemoryContext,
												   sizeof(WcRowDropCache));

		c->cxt = AllocSetContextCreate(TopMemoryContext, "widecolumn_fdw row drops",
									   ALLOCSET_SMALL_SIZES);
		odb->rowdrops = c;
	}
	return odb->rowdrops;
}

/*
 * ldb_rowdrops_commit_begin
 *		A commit is about to be stamped: if it writes to the table of
 *		families, what the cache knows may change, and the drops it writes
 *		itself count for its own rows.
 */
void
ldb_rowdrops_commit_begin(WcOpenDb *odb, WcClientWrites *w)
{
	ListCell   *lc;
	bool		meta = false;
	WcRowDropCache *c = NULL;
	MemoryContext old = CurrentMemoryContext;

	/*
	 * The tables loaded during a commit that changed the table of
	 * families lack its changes: load them again, after it is written.
	 */
	if (odb->rowdrops != NULL && odb->rowdrops->stale)
		ldb_rowdrops_forget(odb);
	if (odb->rowdrops != NULL)
		odb->rowdrops->pending.nrowdrops = 0;

	/* the table of families' rows come first (fdw/commit/commit.c) */
	foreach(lc, w->msgs)
	{
		StringInfo	msg = lfirst(lc);
		WcReader	rows;
		WcRowWrite	row;

		wc_reader_init(&rows, msg->data, msg->len);
		while (wc_next_row(&rows, &row))
		{
			size_t		tlen;

			if (row.prefix.len < sizeof(wc_meta_table) ||
				memcmp(row.prefix.data, wc_meta_table, sizeof(wc_meta_table)) != 0)
				goto done;
			if (!meta)
			{
				ldb_rowdrops_forget(odb);
				c = cache_of(odb);
				c->stale = true;
				old = MemoryContextSwitchTo(c->cxt);
				meta = true;
			}
			if (wc_component_end(row.prefix.data + sizeof(wc_meta_table),
								 row.prefix.len - sizeof(wc_meta_table), &tlen) != 0)
				tlen = 0;		/* read its cells all the same */
			for (uint32 i = 0; i < row.ncells; i++)
			{
				WcCellWrite cell;

				if (!wc_next_row_cell(&rows, &cell))
					break;
				/* the row's key is the data table's name, escaped alike */
				if (cell.present && tlen > 0)
					(void) ldb_rowdrops_cell(&c->pending,
											row.prefix.data + sizeof(wc_meta_table), tlen,
											cell.famqual.data, cell.famqual.len, 1);
			}
		}
	}
done:
	if (meta)
		MemoryContextSwitchTo(old);
}

/* What the cache knows of the table of a row, loaded if need be. */
static WcCachedTable *
cached_table(WcOpenDb *odb, const uint8 *row, size_t rowlen)
{
	WcRowDropCache *c = cache_of(odb);
	size_t		tlen;
	WcCachedTable *t;
	WcTableMeta m;
	WcHidden	everything = {0, NULL};
	WcIter	   *it;
	MemoryContext old;

	if (wc_component_end(row, rowlen, &tlen) != 0)
		return NULL;
	if (c->last && c->last->tlen == tlen && memcmp(c->last->table, row, tlen) == 0)
		return c->last;
	for (int i = 0; i < c->ntables; i++)
		if (c->tables[i].tlen == tlen && memcmp(c->tables[i].table, row, tlen) == 0)
			return c->last = &c->tables[i];

	/*
	 * A commit the writer has not written yet may have dropped a range; a
	 * large commit being written holds back every other (largecommit.c),
	 * and its own chunks drop none.
	 */
	if (!ldb_large_commit_active())
		storage_writer_drain();
	old = MemoryContextSwitchTo(c->cxt);
	/*
	 * Every drop stored, its writer committed or not: a row written after
	 * it needs a mark if the drop commits (an extra one if it aborts only
	 * costs reads of the range their speed).
	 */
	it = storage_iter(odb->db, NULL, true);
	PG_TRY();
	{
		ldb_table_meta_load(it, &everything, row, tlen, &m);
	}
	PG_FINALLY();
	{
		storage_iter_free(it);
	}
	PG_END_TRY();
	if (c->ntables == c->cap)
	{
		c->cap = Max(8, c->cap * 2);
		c->tables = c->tables ? repalloc(c->tables, sizeof(WcCachedTable) * c->cap) :
			palloc(sizeof(WcCachedTable) * c->cap);
	}
	t = &c->tables[c->ntables++];
	t->table = memcpy(palloc(tlen), row, tlen);
	t->tlen = tlen;
	t->ndrops = m.nrowdrops;
	t->drops = m.rowdrops;
	MemoryContextSwitchTo(old);
	return c->last = t;
}

/* Append the cell key (without its time) of d's refill mark to marks. */
static void
add_mark(StringInfo marks, const uint8 *table, size_t tlen, const WcRowDrop *d)
{
	const char *prefix = d->tombstone ? "deleted_rows_refilled:" : "dropped_rows_refilled:";
	size_t		plen = strlen(prefix);
	uint8	   *q = palloc(plen + d->qualifier.len);
	size_t		qlen = plen + d->qualifier.len;
	uint32		len;
	StringInfoData key;

	memcpy(q, prefix, plen);
	memcpy(q + plen, d->qualifier.data, d->qualifier.len);
	initStringInfo(&key);
	appendBinaryStringInfo(&key, (const char *) wc_meta_table, sizeof(wc_meta_table));
	appendBinaryStringInfo(&key, (const char *) table, tlen);
	enlargeStringInfo(&key, 6 + WC_ESCAPED_MAX(qlen));
	key.len += wc_escape((const uint8 *) "wc", 2, (uint8 *) key.data + key.len);
	key.len += wc_escape(q, qlen, (uint8 *) key.data + key.len);
	len = key.len;
	appendBinaryStringInfo(marks, (const char *) &len, sizeof(len));
	appendBinaryStringInfo(marks, key.data, key.len);
	pfree(key.data);
	pfree(q);
}

/*
 * ldb_rowdrops_refill
 *		A commit stamped ts writes a value into the row (escaped table and
 *		row key): append to marks, each as its length (uint32) and bytes,
 *		the cell keys (without time) of the refill marks it must write with
 *		it, for each range the row is in that has none newer than its drop.
 *		Returns whether it appended any.
 */
bool
ldb_rowdrops_refill(WcOpenDb *odb, const uint8 *row, size_t rowlen, uint64 ts,
				   StringInfo marks)
{
	WcCachedTable *t = cached_table(odb, row, rowlen);
	WcRowDropCache *c = odb->rowdrops;
	bool		any = false;

	if (t == NULL)
		return false;
	for (int i = 0; i < t->ndrops; i++)
	{
		WcRowDrop  *d = &t->drops[i];

		/*
		 * A mark whose commit not every snapshot agrees on yet does not
		 * count: a reader that does not see it must still find one newer
		 * than the drop if it sees this commit (xacts.c).
		 */
		if ((skippable(d, 0) || ldb_xacts_unsettled(odb, d->refilled)) &&
			in_range(d, row, rowlen))
		{
			add_mark(marks, t->table, t->tlen, d);
			d->refilled = ts;
			any = true;
		}
	}
	/* the commit's own drops, marked with their own time 1 until now */
	for (int i = 0; i < c->pending.nrowdrops; i++)
	{
		WcRowDrop  *d = &c->pending.rowdrops[i];

		if (d->refilled == 0 && in_range(d, row, rowlen))
		{
			add_mark(marks, t->table, t->tlen, d);
			d->refilled = ts;
			any = true;
		}
	}
	return any;
}
