/*-------------------------------------------------------------------------
 *
 * btoverlay.c
 *	  A transaction's own writes to a table of a Bigtable server, merged
 *	  into the rows a cells-layout scan reads of it as its COMMIT will
 *	  apply them.
 *
 * The overlay comes with the SCAN request (wire.h): the transaction's
 * writes before the scan's command, in the order its COMMIT sends them
 * (fdw/cells/cellrows.c).  Bigtable applies a row's mutations in order and
 * keeps no tombstones: a deleted row (DeleteFromRow) or column
 * (DeleteFromColumn) loses every cell it has then, whatever their times,
 * and a cell set after that stays, however old its time; a removed
 * version is DeleteFromColumn of its millisecond; a cell set at the time
 * of one it has replaces it (btcommit.c).  So a row's versions here are
 * the stored ones with the row's entries applied in turn, in the order
 * Bigtable gives a row's cells (family, qualifier, newest first).  A
 * version the COMMIT will stamp is given the scan's start, in Bigtable's
 * milliseconds, and is marked pending, as the LevelDB engine marks it;
 * it replaces or removes no version stored, since the COMMIT stamps a
 * millisecond after every one this worker stamped before (btcommit.c).
 * (LevelDB keeps tombstones, which hide the older versions written after
 * them in the same COMMIT too: README, "Bigtable servers".)
 *
 * The entries are applied by sorting the row's versions and entries by
 * column and time, not one entry at a time over every version, so that a
 * row of many versions written in one transaction (an import's) costs
 * n log n.
 *
 * bt_overlay_load runs on the main thread; the rest on a reader thread,
 * which allocates with malloc and fails through wc_fail.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/keycodec.h"
#include "worker/bigtable/bigtable.h"
#include "worker/runtime/failure.h"

/* An entry of the overlay, its key's parts unescaped. */
typedef struct BtOverlayEntry
{
	uint8		kind;			/* WC_OVERLAY_* */
	bool		pending;		/* stamped at COMMIT */
	int64		ts;				/* µs, a whole millisecond */
	const uint8 *row;
	size_t		row_len;
	const uint8 *family;
	size_t		family_len;
	const uint8 *qualifier;
	size_t		qualifier_len;
	const uint8 *value;
	size_t		value_len;
	int			seq;			/* its place in the request */
} BtOverlayEntry;

/*
 * What the row being merged has of a column: a version (a stored cell, or
 * an entry's), the removal of one (BT_REMOVE), or the deletion of every
 * version (BT_COLUMN_DELETED); seq says which came last, a stored cell
 * first of all.
 */
#define BT_COLUMN_DELETED	0	/* sorts first in its column */
#define BT_VERSION			1
#define BT_REMOVE			2

typedef struct BtVersion
{
	const uint8 *family;
	size_t		family_len;
	const uint8 *qualifier;
	size_t		qualifier_len;
	int			what;			/* BT_* */
	int64		ts;
	bool		pending;
	int			seq;			/* -1: stored */
	const uint8 *value;
	size_t		value_len;
	bool		left;			/* a version the merge leaves */
} BtVersion;

struct BtOverlay
{
	BtOverlayEntry *entries;	/* by row key, then as the request has them */
	int			n;
	int			next;			/* the first entry of the next row */
	/* the row merged last (malloc'd) */
	BtVersion  *versions;
	int			cap;
	WcBtRows	row;
	uint8	   *marks;			/* of each of row's cells: BT_MARK_* */
	int			marks_cap;
};

static int
entry_cmp(const void *a, const void *b)
{
	const BtOverlayEntry *x = a;
	const BtOverlayEntry *y = b;
	int			c = wc_compare_bytes(x->row, x->row_len, y->row, y->row_len);

	return c != 0 ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* The next escaped component of key[*off, len), unescaped into palloc'd bytes. */
static const uint8 *
component(const WcBytes *key, size_t *off, size_t *out_len)
{
	uint8	   *out = palloc(key->len - *off + 1);
	size_t		used;

	if (wc_unescape(key->data + *off, key->len - *off, out, &used, out_len) != 0)
		wc_malformed("SCAN");
	*off += used;
	return out;
}

/*
 * bt_overlay_load
 *		The request's overlay, whose keys all begin with table (the scan's
 *		escaped table component, tlen bytes); versions the COMMIT stamps at
 *		pending_ts.  NULL if it has none.
 */
BtOverlay *
bt_overlay_load(const WcScanRequest *req, const uint8 *table, size_t tlen, int64 pending_ts)
{
	BtOverlay  *ov;
	WcReader	r;

	if (req->noverlay == 0)
		return NULL;
	ov = palloc0(sizeof(BtOverlay));
	ov->entries = palloc(sizeof(BtOverlayEntry) * req->noverlay);
	wc_reader_init(&r, req->overlay.data, req->overlay.len);
	for (uint32 i = 0; i < req->noverlay; i++)
	{
		WcOverlayEntry e;
		BtOverlayEntry *o = &ov->entries[i];
		size_t		off = tlen;
		uint8	   *value;

		if (!wc_next_overlay_entry(&r, &e) || e.key.len < tlen ||
			memcmp(e.key.data, table, tlen) != 0 || e.kind > WC_OVERLAY_REMOVE)
			wc_malformed("SCAN");
		o->kind = e.kind;
		o->pending = e.pending;
		o->ts = e.pending ? pending_ts : (int64) (e.ts - e.ts % 1000);
		o->row = component(&e.key, &off, &o->row_len);
		o->family = o->qualifier = (const uint8 *) "";
		o->family_len = o->qualifier_len = 0;
		if (e.kind != WC_OVERLAY_ROW_TOMBSTONE)
		{
			o->family = component(&e.key, &off, &o->family_len);
			o->qualifier = component(&e.key, &off, &o->qualifier_len);
			if (off != e.key.len)
				wc_malformed("SCAN");
		}
		/* the request's bytes go with its message */
		value = palloc(e.value.len + 1);
		if (e.value.len > 0)
			memcpy(value, e.value.data, e.value.len);
		o->value = value;
		o->value_len = e.value.len;
		o->seq = (int) i;
	}
	ov->n = (int) req->noverlay;
	qsort(ov->entries, ov->n, sizeof(BtOverlayEntry), entry_cmp);
	return ov;
}

/*
 * bt_overlay_next_row
 *		The row key of the next row the overlay writes that has not been
 *		merged; false when there is none.
 */
bool
bt_overlay_next_row(const BtOverlay *ov, const uint8 **key, size_t *len)
{
	if (ov->next >= ov->n)
		return false;
	*key = ov->entries[ov->next].row;
	*len = ov->entries[ov->next].row_len;
	return true;
}

/* The end of the next row's entries. */
static int
row_end(const BtOverlay *ov)
{
	const BtOverlayEntry *first = &ov->entries[ov->next];
	int			end = ov->next + 1;

	while (end < ov->n &&
		   wc_compare_bytes(ov->entries[end].row, ov->entries[end].row_len,
							first->row, first->row_len) == 0)
		end++;
	return end;
}

/* Pass over the next row without merging it. */
void
bt_overlay_skip_row(BtOverlay *ov)
{
	if (ov->next < ov->n)
		ov->next = row_end(ov);
}

static int
column_cmp(const BtVersion *x, const BtVersion *y)
{
	int			c = wc_compare_bytes(x->family, x->family_len, y->family, y->family_len);

	return c != 0 ? c : wc_compare_bytes(x->qualifier, x->qualifier_len, y->qualifier, y->qualifier_len);
}

/*
 * By column, its deletions first, then by time, newest first (a pending
 * version's apart from a stored one of its time), then in the order they
 * came.
 */
static int
version_cmp(const void *a, const void *b)
{
	const BtVersion *x = a;
	const BtVersion *y = b;
	int			c = column_cmp(x, y);

	if (c == 0)
		c = (x->what == BT_COLUMN_DELETED ? 0 : 1) - (y->what == BT_COLUMN_DELETED ? 0 : 1);
	if (c == 0 && x->what != BT_COLUMN_DELETED)
		c = (x->ts < y->ts) - (x->ts > y->ts);
	if (c == 0 && x->what != BT_COLUMN_DELETED)
		c = (int) x->pending - (int) y->pending;
	if (c == 0)
		c = (x->seq > y->seq) - (x->seq < y->seq);
	return c;
}

static bool
same_time(const BtVersion *x, const BtVersion *y)
{
	return x->what != BT_COLUMN_DELETED && y->what != BT_COLUMN_DELETED &&
		x->ts == y->ts && x->pending == y->pending && column_cmp(x, y) == 0;
}

static void *
grow(void *p, int *cap, int need, size_t size)
{
	int			n = Max(*cap, 16);

	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	p = realloc(p, size * n);
	if (p == NULL)
		wc_fail(ERRCODE_OUT_OF_MEMORY, "out of memory", NULL,
				"A row of %d versions read with the transaction's own writes.", need);
	*cap = n;
	return p;
}

/*
 * bt_overlay_merge
 *		The next row the overlay writes, its entries applied to stored (the
 *		row as Bigtable has it, of the same key, or NULL if Bigtable gave
 *		none); *marks says which of its cells are the transaction's and
 *		which of those the COMMIT stamps (BT_MARK_*).  The row
 *		lasts until the next call.
 */
const WcBtRows *
bt_overlay_merge(BtOverlay *ov, const WcBtRows *stored, const uint8 **marks)
{
	int			end = row_end(ov);
	int			nv = 0;
	const BtOverlayEntry *first = &ov->entries[ov->next];
	WcBtRows   *out = &ov->row;
	int			row_deleted = -2;	/* the last deletion of the row, or -2 */
	int			column_deleted = -2;	/* ... of the column under way */
	int			kept = 0;

	ov->versions = grow(ov->versions, &ov->cap,
						(stored ? stored->ncells : 0) + (end - ov->next), sizeof(BtVersion));
	for (int i = 0; stored != NULL && i < stored->ncells; i++)
	{
		const uint8 *a = stored->arena.data;
		const WcBtCell *c = &stored->cells[i];
		BtVersion  *v = &ov->versions[nv++];

		v->family = a + c->family_off;
		v->family_len = c->family_len;
		v->qualifier = a + c->qualifier_off;
		v->qualifier_len = c->qualifier_len;
		v->what = BT_VERSION;
		v->ts = c->timestamp_micros;
		v->pending = false;
		v->seq = -1;
		v->value = a + c->value_off;
		v->value_len = c->value_len;
	}
	for (int i = ov->next; i < end; i++)
	{
		const BtOverlayEntry *e = &ov->entries[i];
		BtVersion  *v;

		if (e->kind == WC_OVERLAY_ROW_TOMBSTONE)
		{
			row_deleted = i;
			continue;
		}
		v = &ov->versions[nv++];
		v->family = e->family;
		v->family_len = e->family_len;
		v->qualifier = e->qualifier;
		v->qualifier_len = e->qualifier_len;
		v->what = e->kind == WC_OVERLAY_PUT ? BT_VERSION :
			e->kind == WC_OVERLAY_REMOVE ? BT_REMOVE : BT_COLUMN_DELETED;
		v->ts = e->ts;
		v->pending = e->pending;
		v->seq = i;
		v->value = e->value;
		v->value_len = e->value_len;
	}

	/*
	 * A version is left if nothing after it deleted it: the row's deletion,
	 * its column's, or a removal or another version of its time (a pending
	 * one: of the COMMIT's time, which no stored version has, btcommit.c).
	 * Sorted, the last of each time is the one to judge, after its
	 * column's deletions.
	 */
	qsort(ov->versions, nv, sizeof(BtVersion), version_cmp);
	for (int j = 0; j < nv; j++)
	{
		BtVersion  *v = &ov->versions[j];

		v->left = false;
		if (j == 0 || column_cmp(v, &ov->versions[j - 1]) != 0)
			column_deleted = -2;
		if (v->what == BT_COLUMN_DELETED)
			column_deleted = Max(column_deleted, v->seq);
		else if (j + 1 < nv && same_time(v, &ov->versions[j + 1]))
			continue;			/* a later one of its time decides */
		else
			v->left = v->what == BT_VERSION && v->seq > row_deleted && v->seq > column_deleted;
		kept += v->left;
	}

	/* as readrows.c lays a row out: its parts in the arena */
	wc_bytebuf_set(&out->key, first->row, first->row_len);
	out->arena.len = 0;
	out->cells = grow(out->cells, &out->cap, kept, sizeof(WcBtCell));
	ov->marks = grow(ov->marks, &ov->marks_cap, kept, sizeof(uint8));
	out->ncells = 0;
	for (int j = 0; j < nv; j++)
	{
		const BtVersion *v = &ov->versions[j];
		WcBtCell   *c;

		if (!v->left)
			continue;			/* (cells is NULL while nothing is left) */
		c = &out->cells[out->ncells];

		c->family_off = out->arena.len;
		c->family_len = v->family_len;
		wc_bytebuf_append(&out->arena, v->family, v->family_len);
		c->qualifier_off = out->arena.len;
		c->qualifier_len = v->qualifier_len;
		wc_bytebuf_append(&out->arena, v->qualifier, v->qualifier_len);
		c->value_off = out->arena.len;
		c->value_len = v->value_len;
		wc_bytebuf_append(&out->arena, v->value, v->value_len);
		c->timestamp_micros = v->ts;
		ov->marks[out->ncells++] = (v->pending ? BT_MARK_PENDING : 0) |
			(v->seq >= 0 ? BT_MARK_OWN : 0);
	}
	ov->next = end;
	*marks = ov->marks;
	return out;
}

/* What the overlay holds outside its memory context. */
void
bt_overlay_free(BtOverlay *ov)
{
	if (ov == NULL)
		return;
	free(ov->versions);
	free(ov->marks);
	free(ov->row.cells);
	wc_bytebuf_free(&ov->row.key);
	wc_bytebuf_free(&ov->row.arena);
}
