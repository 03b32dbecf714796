/*-------------------------------------------------------------------------
 *
 * versions.c
 *	  Reading every version of the cells of a table, for a cells-layout
 *	  foreign table (a SCAN with WC_SCAN_CELLS): one BATCH row per version
 *	  that the policies keep, in key order (row key, family, qualifier,
 *	  newest first).
 *
 * The rules are rowscan.c's, applied to each version rather than to a
 * cell's newest one: a version newer than as_of is passed over (but counts
 * for maxversions); a row tombstone hides the versions older than it, a
 * cell tombstone those older than it in its cell; a version the family's
 * policy deletes is not returned, nor any older one of its cell.
 * Tombstones themselves are never returned.
 *
 * The request's overlay, the transaction's own uncommitted writes, is
 * merged into what the scan reads as if it were stored (the merged
 * iterator, mi_*), those to be stamped at COMMIT with the time the next
 * commit would get: so the rules, and the policies, apply to them as they
 * will once they are committed.
 *
 * The request's families and qualifier ranges are sought to, never
 * stepped over: a row is read family by family, range by range.  Versions
 * older than ts_min, and older than whatever hides them, end their cell
 * with a seek.  Versions newer than ts_max are stepped over, as a cell
 * tombstone among them hides the older ones.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/aggfold.h"
#include "common/gcpolicy.h"
#include "common/keycodec.h"
#include "worker/leveldb/leveldb.h"

/* Entries stepped over in one place before a seek skips the rest. */
#define WC_STEPS_BEFORE_SEEK	8

/* An entry of the overlay, as it would be stored. */
typedef struct WcOverlay
{
	uint8	   *key;
	size_t		klen;
	uint8	   *val;
	size_t		vlen;
	bool		removed;		/* hides the stored entry of its key */
	bool		pending;		/* stamped at COMMIT: its time is not known */
	int			seq;			/* its place in the request: the last wins */
} WcOverlay;

typedef struct WcRange
{
	WcBytes		start;
	WcBytes		end;			/* len 0: none */
} WcRange;

struct WcVersionScan
{
	WcIter	   *it;
	WcIter	   *pre;			/* its scan's pre-images (NULL: none) */
	const WcHidden *hidden;		/* the commits it does not see: its scan's */
	uint64		as_of;			/* 0: now */
	uint64		now;
	uint64		ts_min;
	uint64		ts_max;
	uint64		limit;
	uint64		emitted;
	int			nranges;
	WcRange    *ranges;
	int			nfams;
	WcBytes    *fams;
	int			nquals;
	WcRange    *quals;
	WcVersionPolicyFn policy_of;
	void	   *policy_arg;
	int			range;
	bool		positioned;
	bool		done;
	uint64		entries;
	uint64		tomb_ts;		/* the current row's tombstone, or 0 */
	/* plain C buffers (bytebuf.h), as the reader threads fill batches */
	WcByteBuf	row;			/* the current row's prefix, escaped */
	WcByteBuf	prefix;			/* scratch: a key prefix (seek_to) */
	WcByteBuf	name;			/* scratch: an unescaped component */
	WcByteBuf	tomb;			/* the row tombstone's key prefix */
	WcByteBuf	family;			/* a family of the row, escaped */
	WcByteBuf	family_prefix;	/* row + family */
	WcByteBuf	cell;			/* a cell's key before its timestamp */
	WcByteBuf	successor;		/* skip_past's seek target */
	WcByteBuf	pre_key;		/* scratch: a pre-image's key */
	WcByteBuf	stored;			/* the stored entry's value as the scan
								 * reads it, when it was stamped */
	const uint8 *sv;			/* that value (NULL: the iterator's) */
	size_t		svlen;
	/* the overlay: the transaction's own writes, sorted, one per key */
	WcOverlay  *ov;
	int			nov;
	int			ovpos;			/* the first at or after the position */
	int			cur;			/* MI_NONE, MI_STORED or MI_OVERLAY */
	bool		shadows;		/* the overlay's entry replaces the stored one */
};

/* Where the merged position is. */
#define MI_NONE		0
#define MI_STORED	1
#define MI_OVERLAY	2

static void load_overlay(WcVersionScan *vs, const WcScanRequest *req, uint64 pending_ts);

static WcBytes
copy_bytes(WcBytes b)
{
	WcBytes		c;

	c.data = memcpy(palloc(b.len + 1), b.data, b.len);
	c.len = b.len;
	return c;
}


/*
 * ldb_versions_open
 *		The versions part of a SCAN request, on the scan's iterator.
 */
WcVersionScan *
ldb_versions_open(const WcScanRequest *req, WcIter *it, WcIter *pre, const WcHidden *hidden,
				  uint64 now, uint64 pending_ts, WcVersionPolicyFn policy_of,
				  void *policy_arg)
{
	WcVersionScan *vs = palloc0(sizeof(WcVersionScan));

	vs->it = it;
	vs->pre = pre;
	vs->hidden = hidden;
	vs->as_of = req->as_of;
	vs->now = now;
	vs->ts_min = req->ts_min;
	vs->ts_max = req->ts_max;
	vs->limit = req->limit;
	vs->policy_of = policy_of;
	vs->policy_arg = policy_arg;
	vs->nranges = req->nranges;
	vs->ranges = palloc(sizeof(WcRange) * (req->nranges + 1));
	for (int i = 0; i < req->nranges; i++)
	{
		vs->ranges[i].start = copy_bytes(req->ranges[i].start);
		vs->ranges[i].end = copy_bytes(req->ranges[i].end);
	}
	vs->nfams = req->nfams;
	vs->fams = palloc(sizeof(WcBytes) * (req->nfams + 1));
	for (int i = 0; i < req->nfams; i++)
		vs->fams[i] = copy_bytes(req->fams[i]);
	vs->nquals = req->nquals;
	vs->quals = palloc(sizeof(WcRange) * (req->nquals + 1));
	for (int i = 0; i < req->nquals; i++)
	{
		vs->quals[i].start = copy_bytes(req->quals[i].start);
		vs->quals[i].end = copy_bytes(req->quals[i].end);
	}
	load_overlay(vs, req, pending_ts);
	return vs;
}

/*
 * The merged iterator: the stored entries (the scan's LevelDB iterator)
 * with the overlay's in key order, an overlay entry replacing the stored one
 * of its key and a removal hiding it.  Without an overlay it is the
 * LevelDB iterator.
 */
static void
mi_settle(WcVersionScan *vs)
{
	for (;;)
	{
		bool		stored = storage_iter_valid(vs->it);
		WcOverlay  *o;
		int			cmp = 1;

		/* a commit the scan does not see is not there (xacts.c) */
		vs->sv = NULL;
		if (stored)
		{
			size_t		n,
						vlen;
			const uint8 *k = storage_iter_key(vs->it, &n);
			const uint8 *v;

			if (n >= WC_TS_LEN && ldb_hidden_has(vs->hidden, wc_decode_ts(k + n - WC_TS_LEN)))
			{
				storage_iter_next(vs->it);
				continue;
			}
			/* a version at its own timestamp, as of its commit or before */
			v = storage_iter_value(vs->it, &vlen);
			if (vlen > 0 && v[0] == WC_VALUE_STAMPED)
			{
				if (!ldb_unstamp(vs->hidden, vs->pre, &vs->pre_key, k, n, &v, &vlen))
				{
					storage_iter_next(vs->it);
					continue;
				}
				/* a pre-image's bytes last only until pre moves */
				wc_bytebuf_set(&vs->stored, v, vlen);
				vs->sv = vs->stored.data;
				vs->svlen = vlen;
			}
		}

		if (vs->ovpos >= vs->nov)
		{
			vs->cur = stored ? MI_STORED : MI_NONE;
			return;
		}
		o = &vs->ov[vs->ovpos];
		if (stored)
		{
			size_t		n;
			const uint8 *k = storage_iter_key(vs->it, &n);

			cmp = wc_compare_bytes(k, n, o->key, o->klen);
		}
		if (cmp < 0)
		{
			vs->cur = MI_STORED;
			return;
		}
		if (o->removed)
		{
			if (cmp == 0)
				storage_iter_next(vs->it);
			vs->ovpos++;
			continue;
		}
		vs->cur = MI_OVERLAY;
		vs->shadows = cmp == 0;
		return;
	}
}

static void
mi_seek(WcVersionScan *vs, const uint8 *key, size_t len)
{
	int			lo = 0,
				hi = vs->nov;

	storage_iter_seek(vs->it, key, len);
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (wc_compare_bytes(vs->ov[mid].key, vs->ov[mid].klen, key, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	vs->ovpos = lo;
	mi_settle(vs);
}

static void
mi_next(WcVersionScan *vs)
{
	if (vs->cur == MI_STORED)
		storage_iter_next(vs->it);
	else if (vs->cur == MI_OVERLAY)
	{
		if (vs->shadows)
			storage_iter_next(vs->it);
		vs->ovpos++;
	}
	mi_settle(vs);
}

static bool
mi_valid(WcVersionScan *vs)
{
	return vs->cur != MI_NONE;
}

static const uint8 *
mi_key(WcVersionScan *vs, size_t *n)
{
	if (vs->cur == MI_OVERLAY)
	{
		*n = vs->ov[vs->ovpos].klen;
		return vs->ov[vs->ovpos].key;
	}
	return storage_iter_key(vs->it, n);
}

/* Is the entry at the position one the commit will stamp? */
static bool
mi_pending(WcVersionScan *vs)
{
	return vs->cur == MI_OVERLAY && vs->ov[vs->ovpos].pending;
}

static const uint8 *
mi_value(WcVersionScan *vs, size_t *n)
{
	if (vs->cur == MI_OVERLAY)
	{
		*n = vs->ov[vs->ovpos].vlen;
		return vs->ov[vs->ovpos].val;
	}
	if (vs->sv != NULL)
	{
		*n = vs->svlen;
		return vs->sv;
	}
	return storage_iter_value(vs->it, n);
}

static int
overlay_cmp(const void *a, const void *b)
{
	const WcOverlay *x = a;
	const WcOverlay *y = b;
	int			c = wc_compare_bytes(x->key, x->klen, y->key, y->klen);

	return c != 0 ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * load_overlay
 *		The request's overlay as entries to merge: pending ones stamped
 *		pending_ts, sorted, the last written of each key kept.
 */
static void
load_overlay(WcVersionScan *vs, const WcScanRequest *req, uint64 pending_ts)
{
	WcReader	r;
	int			n = 0;

	if (req->noverlay == 0)
		return;
	vs->ov = palloc(sizeof(WcOverlay) * req->noverlay);
	wc_reader_init(&r, req->overlay.data, req->overlay.len);
	for (uint32 i = 0; i < req->noverlay; i++)
	{
		WcOverlayEntry e;
		WcOverlay  *o = &vs->ov[i];

		if (!wc_next_overlay_entry(&r, &e))
			elog(ERROR, "overlay of a SCAN request changed after it was checked");
		o->klen = e.key.len + WC_TS_LEN;
		o->key = palloc(o->klen);
		memcpy(o->key, e.key.data, e.key.len);
		wc_encode_ts(e.pending ? pending_ts : e.ts, o->key + e.key.len);
		o->removed = e.kind == WC_OVERLAY_REMOVE;
		o->pending = e.pending;
		o->vlen = e.kind == WC_OVERLAY_PUT ? e.value.len + 1 :
			e.kind == WC_OVERLAY_CELL_TOMBSTONE ? 1 : 0;
		o->val = palloc(o->vlen + 1);
		if (o->vlen > 0)
			o->val[0] = e.kind == WC_OVERLAY_PUT ? WC_VALUE_PRESENT : WC_VALUE_TOMBSTONE;
		if (e.kind == WC_OVERLAY_PUT)
			memcpy(o->val + 1, e.value.data, e.value.len);
		o->seq = (int) i;
	}
	qsort(vs->ov, req->noverlay, sizeof(WcOverlay), overlay_cmp);
	for (uint32 i = 0; i < req->noverlay; i++)
	{
		if (n > 0 &&
			wc_compare_bytes(vs->ov[n - 1].key, vs->ov[n - 1].klen,
							 vs->ov[i].key, vs->ov[i].klen) == 0)
			vs->ov[n - 1] = vs->ov[i];	/* a later write of the same key */
		else
			vs->ov[n++] = vs->ov[i];
	}
	vs->nov = n;
}

/* The iterator's key, if it starts with p[0, plen); else NULL. */
static const uint8 *
key_under(WcVersionScan *vs, const uint8 *p, size_t plen, size_t *n)
{
	const uint8 *k;

	if (!mi_valid(vs))
		return NULL;
	k = mi_key(vs, n);
	if (*n < plen || memcmp(k, p, plen) != 0)
		return NULL;
	return k;
}

/* Seek to the key p[0, plen) + tail[0, tlen). */
static void
seek_to(WcVersionScan *vs, const uint8 *p, size_t plen, const uint8 *tail, size_t tlen)
{
	WcByteBuf  *s = &vs->prefix;

	wc_bytebuf_set(s, p, plen);
	wc_bytebuf_append(s, tail, tlen);
	mi_seek(vs, s->data, s->len);
}

/*
 * skip_past
 *		Move past every key that starts with p[0, plen), which ends with a
 *		component's terminator 00 01: a few steps, then a seek to the same
 *		bytes ending 00 02, which sorts after all of them and before
 *		anything else.
 */
static void
skip_past(WcVersionScan *vs, const uint8 *p, size_t plen)
{
	size_t		n;

	for (int i = 0; i < WC_STEPS_BEFORE_SEEK; i++)
	{
		if (key_under(vs, p, plen, &n) == NULL)
			return;
		mi_next(vs);
	}
	if (key_under(vs, p, plen, &n) == NULL)
		return;
	wc_bytebuf_set(&vs->successor, p, plen);
	vs->successor.data[plen - 1] = 0x02;
	mi_seek(vs, vs->successor.data, plen);
}

/* Unescape the component at c into vs->name; returns its escaped length. */
static size_t
unescape_name(WcVersionScan *vs, const uint8 *c, size_t n)
{
	size_t		consumed,
				len;

	vs->name.len = 0;
	wc_bytebuf_reserve(&vs->name, n);
	if (wc_unescape(c, n, vs->name.data, &consumed, &len) != 0)
		wc_corrupt_key(c, n);
	vs->name.len = len;
	return consumed;
}

/*
 * Append one version to the batch: row key, family, qualifier, value, ts;
 * and an empty cell 3 if the commit will stamp it (its ts is not known).
 */
static void
emit(WcVersionScan *vs, WcBatchWriter *w, const uint8 *fq, size_t fqlen,
	 const uint8 *v, size_t vlen, uint64 ts, bool pending)
{
	const uint8 *p = vs->row.data;
	size_t		tlen,
				consumed,
				rlen,
				flen;

	if (wc_component_end(p, vs->row.len, &tlen) != 0 ||
		wc_unescape(p + tlen, vs->row.len - tlen, wc_write_batch_row(w, vs->row.len),
					&consumed, &rlen) != 0)
		wc_corrupt_key(p, vs->row.len);
	wc_write_batch_row_key(w, rlen);
	flen = unescape_name(vs, fq, fqlen);
	wc_write_batch_cell(w, 0, vs->name.data, vs->name.len);
	unescape_name(vs, fq + flen, fqlen - flen);
	wc_write_batch_cell(w, 1, vs->name.data, vs->name.len);
	wc_write_batch_cell(w, 2, v + 1, vlen - 1);
	if (pending)
		wc_write_batch_cell(w, 3, (const uint8 *) "", 0);
	wc_write_batch_row_end(w, false, true, ts);
	vs->emitted++;
	if (vs->limit != 0 && vs->emitted >= vs->limit)
		vs->done = true;
}

/*
 * fold_merges
 *		A run of merges of an aggregate family's cell, the first (v) at the
 *		iterator, as one version: their fold into the newest plain value
 *		below them (which stays a version of its own), as rowscan.c reads
 *		the cell.  Leaves the iterator after the run; the version is the
 *		plain value out[0, 9).
 */
static void
fold_merges(WcVersionScan *vs, const uint8 *cell, size_t celllen, uint64 dropped,
			const uint8 *v, size_t vlen, uint8 *out)
{
	uint8		tag = v[0];
	int64		acc;
	const uint8 *k;
	size_t		n;

	if (vlen != 1 + WC_AGG_LEN)
		wc_corrupt_merge();
	acc = wc_agg_get(v + 1);
	mi_next(vs);
	while ((k = key_under(vs, cell, celllen, &n)) != NULL && n == celllen + WC_TS_LEN)
	{
		uint64		ts = wc_decode_ts(k + celllen);

		if (ts < vs->tomb_ts || ts < dropped)
			break;
		v = mi_value(vs, &vlen);
		if (vlen == 1 + WC_AGG_LEN && wc_agg_is_merge(v[0]))
		{
			vs->entries++;
			acc = wc_agg_apply(v[0], true, acc, wc_agg_get(v + 1));
			mi_next(vs);
			continue;
		}
		if (vlen == 1 + WC_AGG_LEN && v[0] == WC_VALUE_PRESENT)
			acc = wc_agg_apply(tag, true, wc_agg_get(v + 1), acc);
		break;
	}
	out[0] = WC_VALUE_PRESENT;
	wc_agg_put(acc, out + 1);
}

/*
 * cell_versions
 *		The versions of the cell at the iterator; leaves it after the cell.
 */
static void
cell_versions(WcVersionScan *vs, WcBatchWriter *w)
{
	size_t		n;
	const uint8 *k = mi_key(vs, &n);
	size_t		rowlen = vs->row.len;
	size_t		celllen;
	const uint8 *cell;
	const WcGcPolicy *policy;
	uint64		dropped;		/* drop_table's, drop_family's or drop_row_range's time */
	uint64		idx = 0;
	int			newer = 0;

	if (n < rowlen + 4 + WC_TS_LEN || k[n - WC_TS_LEN - 2] != 0x00 ||
		k[n - WC_TS_LEN - 1] != 0x01)
		wc_corrupt_key(k, n);
	/* the cell's key before its timestamp: entries of the cell have it */
	celllen = n - WC_TS_LEN;
	wc_bytebuf_set(&vs->cell, k, celllen);
	cell = vs->cell.data;
	policy = vs->policy_of(vs->policy_arg, k, rowlen, celllen - rowlen, &dropped);

	while (!vs->done && (k = key_under(vs, cell, celllen, &n)) != NULL &&
		   n == celllen + WC_TS_LEN)
	{
		uint64		ts = wc_decode_ts(k + celllen);
		size_t		vlen;
		const uint8 *v;

		vs->entries++;
		if (vs->as_of != 0 && ts > vs->as_of)
		{
			/* counted by maxversions, not returned */
			idx++;
			if (++newer >= WC_STEPS_BEFORE_SEEK &&
				(policy == NULL || policy->max_versions == 0 ||
				 idx >= policy->max_versions))
			{
				uint8		tsbuf[WC_TS_LEN];

				/* how many more does not matter: seek past them */
				wc_encode_ts(vs->as_of, tsbuf);
				seek_to(vs, cell, celllen, tsbuf, WC_TS_LEN);
			}
			else
				mi_next(vs);
			continue;
		}
		if (ts < vs->tomb_ts || ts < vs->ts_min || ts < dropped)
			break;
		if (policy != NULL && wc_gc_deletes(policy, idx, vs->now > ts ? vs->now - ts : 0))
			break;				/* and every older version too */
		v = mi_value(vs, &vlen);
		wc_check_value_tag(v, vlen);
		if (v[0] == WC_VALUE_TOMBSTONE)
			break;
		if (wc_agg_is_merge(v[0]))
		{
			uint8		folded[1 + WC_AGG_LEN];
			bool		pending = mi_pending(vs);

			fold_merges(vs, cell, celllen, dropped, v, vlen, folded);
			if (ts <= vs->ts_max)
				emit(vs, w, cell + rowlen, celllen - rowlen,
					 folded, sizeof(folded), ts, pending);
			idx++;
			continue;
		}
		if (ts <= vs->ts_max)
			emit(vs, w, cell + rowlen, celllen - rowlen, v, vlen, ts,
				 mi_pending(vs));
		idx++;
		mi_next(vs);
	}
	/* the cell's key ends with the qualifier's terminator */
	skip_past(vs, cell, celllen);
}

/*
 * family_versions
 *		The wanted cells of family fam (escaped) of the current row.
 */
static void
family_versions(WcVersionScan *vs, WcBatchWriter *w, const uint8 *fam, size_t flen)
{
	WcByteBuf  *pf = &vs->family_prefix;
	size_t		n;

	wc_bytebuf_set(pf, vs->row.data, vs->row.len);
	wc_bytebuf_append(pf, fam, flen);
	if (vs->nquals == 0)
	{
		if (key_under(vs, pf->data, pf->len, &n) == NULL)
			seek_to(vs, pf->data, pf->len, NULL, 0);
		while (!vs->done && key_under(vs, pf->data, pf->len, &n) != NULL)
			cell_versions(vs, w);
	}
	for (int q = 0; q < vs->nquals && !vs->done; q++)
	{
		WcRange    *r = &vs->quals[q];
		const uint8 *k;

		seek_to(vs, pf->data, pf->len, r->start.data, r->start.len);
		while (!vs->done && (k = key_under(vs, pf->data, pf->len, &n)) != NULL)
		{
			if (r->end.len > 0 &&
				wc_compare_bytes(k + pf->len, n - pf->len - WC_TS_LEN,
								 r->end.data, r->end.len) >= 0)
				break;
			cell_versions(vs, w);
		}
	}
	skip_past(vs, pf->data, pf->len);
}

/*
 * row_versions
 *		The versions of the row at the iterator, whose key k has the row
 *		prefix k[0, rowend).
 */
static void
row_versions(WcVersionScan *vs, WcBatchWriter *w, const uint8 *k, size_t n, size_t rowend)
{
	size_t		plen;
	const uint8 *tomb;

	wc_bytebuf_set(&vs->row, k, rowend);
	vs->tomb_ts = 0;

	/* The row tombstone sorts first: the newest one at or before as_of. */
	wc_bytebuf_set(&vs->tomb, vs->row.data, rowend);
	wc_bytebuf_append(&vs->tomb, wc_row_tombstone_fq, sizeof(wc_row_tombstone_fq));
	tomb = vs->tomb.data;
	plen = vs->tomb.len;
	if (key_under(vs, tomb, plen, &n) != NULL)
	{
		if (vs->as_of != 0)
		{
			uint8		tsbuf[WC_TS_LEN];

			wc_encode_ts(vs->as_of, tsbuf);
			seek_to(vs, tomb, plen, tsbuf, WC_TS_LEN);
		}
		k = key_under(vs, tomb, plen, &n);
		if (k != NULL && n == plen + WC_TS_LEN)
			vs->tomb_ts = wc_decode_ts(k + plen);
		skip_past(vs, tomb, plen);
	}

	if (vs->nfams > 0)
	{
		for (int f = 0; f < vs->nfams && !vs->done; f++)
			family_versions(vs, w, vs->fams[f].data, vs->fams[f].len);
	}
	else if (vs->nquals > 0)
	{
		/* each family of the row in turn */
		while (!vs->done && (k = key_under(vs, vs->row.data, vs->row.len, &n)) != NULL)
		{
			size_t		flen;

			if (wc_component_end(k + rowend, n - rowend, &flen) != 0)
				wc_corrupt_key(k, n);
			wc_bytebuf_set(&vs->family, k + rowend, flen);
			family_versions(vs, w, vs->family.data, flen);
		}
	}
	else
	{
		while (!vs->done && key_under(vs, vs->row.data, vs->row.len, &n) != NULL)
			cell_versions(vs, w);
	}
	if (!vs->done)
		skip_past(vs, vs->row.data, vs->row.len);
}

/*
 * ldb_versions_fill
 *		Add whole rows' versions to the batch w until out holds batch_bytes;
 *		true once the scan is over.  *entries counts the entries read.
 */
bool
ldb_versions_fill(WcVersionScan *vs, WcBatchWriter *w, const WcByteBuf *out,
				   int batch_bytes, uint64 *entries)
{
	vs->entries = 0;
	while (!vs->done && out->len < batch_bytes)
	{
		const uint8 *k;
		size_t		n,
					c,
					rowend;
		WcRange    *r;

		if (vs->range >= vs->nranges)
		{
			vs->done = true;
			break;
		}
		r = &vs->ranges[vs->range];
		if (!vs->positioned)
		{
			mi_seek(vs, r->start.data, r->start.len);
			vs->positioned = true;
		}
		if (!mi_valid(vs))
		{
			storage_iter_check(vs->it);
			vs->done = true;
			break;
		}
		k = mi_key(vs, &n);
		if (r->end.len > 0 && wc_compare_bytes(k, n, r->end.data, r->end.len) >= 0)
		{
			vs->range++;
			vs->positioned = false;
			continue;
		}
		if (wc_component_end(k, n, &c) != 0 ||
			wc_component_end(k + c, n - c, &rowend) != 0)
			wc_corrupt_key(k, n);
		row_versions(vs, w, k, n, c + rowend);
	}
	*entries += vs->entries;
	return vs->done;
}

/* Free the buffers the scan's batches grew. */
void
ldb_versions_close(WcVersionScan *vs)
{
	wc_bytebuf_free(&vs->row);
	wc_bytebuf_free(&vs->prefix);
	wc_bytebuf_free(&vs->name);
	wc_bytebuf_free(&vs->tomb);
	wc_bytebuf_free(&vs->family);
	wc_bytebuf_free(&vs->family_prefix);
	wc_bytebuf_free(&vs->cell);
	wc_bytebuf_free(&vs->successor);
	wc_bytebuf_free(&vs->pre_key);
	wc_bytebuf_free(&vs->stored);
}
