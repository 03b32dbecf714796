/*-------------------------------------------------------------------------
 *
 * wire.c
 *	  Reading and writing the messages between a backend and the storage
 *	  worker (wire.h has their layout).
 *
 * One function per message and direction; nobody else touches the bytes
 * (but wirerows.c, for the rows a WRITE request carries).
 * The readers are strict: a request one accepts is whole and well formed
 * (lengths, counts, escaped key parts, tags), so what the worker does with
 * it cannot break the key layout.  Built with FRONTEND defined, this file
 * links without a server (the fuzzer does that): it needs only palloc and
 * StringInfo, which PostgreSQL's frontend library has too.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "common/aggfold.h"
#include "common/keycodec.h"
#include "common/wire.h"
#include "common/wire_int.h"

/*
 * wc_msg_answered
 *		Does the worker answer a request of this type?  Backends expect an
 *		answer for these only, and the worker keeps an error of the others
 *		for the next request that is answered.
 */
bool
wc_msg_answered(uint8 type)
{
	switch ((WcMsgType) type)
	{
		case WC_REQ_OPEN:
		case WC_REQ_SCAN:
		case WC_REQ_NEXT:
		case WC_REQ_COMMIT:
		case WC_REQ_ESTIMATE:
		case WC_REQ_COUNT:
		case WC_REQ_COMPACT:
		case WC_REQ_SAMPLE:
		case WC_REQ_ROWS:
		case WC_REQ_SHARE:
		case WC_REQ_ATTACH:
		case WC_REQ_HEAT:
		case WC_REQ_STATS:
		case WC_REQ_STAT_WORKER:
		case WC_REQ_STAT_DATABASES:
			return true;
		default:
			return false;
	}
}

static void
write_ranges(StringInfo buf, int n, const WcWireRange *ranges)
{
	wc_put_u32(buf, (uint32) n);
	for (int i = 0; i < n; i++)
	{
		wc_put_bytes(buf, ranges[i].start.data, ranges[i].start.len);
		wc_put_bytes(buf, ranges[i].end.data, ranges[i].end.len);
	}
}

/* The ranges, pointing into the message (palloc'd array; NULL if none). */
static bool
read_ranges(WcReader *r, int *n, WcWireRange **ranges)
{
	uint32		count = wc_get_u32(r);

	*n = 0;
	*ranges = NULL;
	/* each range takes at least two lengths: a count beyond that is a lie */
	if (r->bad || count > wc_reader_left(r) / 8)
		return fail(r);
	if (count == 0)
		return true;
	*ranges = palloc(sizeof(WcWireRange) * count);
	for (uint32 i = 0; i < count; i++)
	{
		(*ranges)[i].start = wc_get_bytes(r);
		(*ranges)[i].end = wc_get_bytes(r);
	}
	if (r->bad)
		return false;
	*n = (int) count;
	return true;
}

/* ---- requests ---- */

uint8
wc_read_type(WcReader *r)
{
	return r->bad || wc_reader_left(r) == 0 ? 0 : r->p[0];
}

void
wc_write_open(StringInfo buf, const WcOpenRequest *req)
{
	uint16		n = (uint16) req->noptions;

	begin(buf, WC_REQ_OPEN);
	wc_put_bytes(buf, req->engine.data, req->engine.len);
	wc_put_bytes(buf, req->target.data, req->target.len);
	appendBinaryStringInfo(buf, (const char *) &n, 2);
	for (int i = 0; i < req->noptions; i++)
	{
		wc_put_bytes(buf, req->options[i].name.data, req->options[i].name.len);
		wc_put_bytes(buf, req->options[i].value.data, req->options[i].value.len);
	}
}

bool
wc_read_open(WcReader *r, WcOpenRequest *req)
{
	uint16		n;

	if (!expect_type(r, WC_REQ_OPEN))
		return fail(r);
	req->engine = wc_get_bytes(r);
	req->target = wc_get_bytes(r);
	n = wc_get_u16(r);
	if (r->bad || n > WC_MAX_ENGINE_OPTIONS)
		return fail(r);
	req->noptions = n;
	for (int i = 0; i < n; i++)
	{
		req->options[i].name = wc_get_bytes(r);
		req->options[i].value = wc_get_bytes(r);
		if (r->bad || req->options[i].name.len == 0)
			return fail(r);
	}
	if (!finish(r))
		return false;
	/* a target is a C string to the worker (a path) */
	if (req->target.len == 0 || memchr(req->target.data, 0, req->target.len) != NULL)
		return fail(r);
	return true;
}

void
wc_write_snapshot(StringInfo buf, uint32 db, uint32 snapshot, const WcXidSnapshot *xs)
{
	begin(buf, WC_REQ_SNAPSHOT);
	wc_put_u32(buf, db);
	wc_put_u32(buf, snapshot);
	wc_put_u32(buf, xs->xmin);
	wc_put_u32(buf, xs->xmax);
	wc_put_u32(buf, xs->own);
	wc_put_u32(buf, xs->nxip);
	for (uint32 i = 0; i < xs->nxip; i++)
		wc_put_u32(buf, wc_xid_snapshot_xip(xs, i));
}

bool
wc_read_snapshot(WcReader *r, uint32 *db, uint32 *snapshot, WcXidSnapshot *xs)
{
	if (!expect_type(r, WC_REQ_SNAPSHOT))
		return fail(r);
	*db = wc_get_u32(r);
	*snapshot = wc_get_u32(r);
	xs->xmin = wc_get_u32(r);
	xs->xmax = wc_get_u32(r);
	xs->own = wc_get_u32(r);
	xs->nxip = wc_get_u32(r);
	xs->xip = NULL;
	if (r->bad || wc_reader_left(r) / 4 < xs->nxip)
		return fail(r);
	xs->xip_bytes = wc_get_raw(r, 4 * (size_t) xs->nxip);
	return finish(r);
}

void
wc_write_release(StringInfo buf, uint32 snapshot)
{
	begin(buf, WC_REQ_RELEASE);
	wc_put_u32(buf, snapshot);
}

bool
wc_read_release(WcReader *r, uint32 *snapshot)
{
	if (!expect_type(r, WC_REQ_RELEASE))
		return fail(r);
	*snapshot = wc_get_u32(r);
	return finish(r);
}

void
wc_write_share(StringInfo buf, uint32 snapshot)
{
	begin(buf, WC_REQ_SHARE);
	wc_put_u32(buf, snapshot);
}

bool
wc_read_share(WcReader *r, uint32 *snapshot)
{
	if (!expect_type(r, WC_REQ_SHARE))
		return fail(r);
	*snapshot = wc_get_u32(r);
	return finish(r);
}

void
wc_write_share_answer(StringInfo buf, uint64 token)
{
	begin(buf, WC_RESP_OK);
	wc_put_u64(buf, token);
}

bool
wc_read_share_answer(WcReader *r, uint64 *token)
{
	if (!expect_type(r, WC_RESP_OK))
		return fail(r);
	*token = wc_get_u64(r);
	return finish(r);
}

void
wc_write_attach(StringInfo buf, uint32 db, uint64 token, uint32 snapshot)
{
	begin(buf, WC_REQ_ATTACH);
	wc_put_u32(buf, db);
	wc_put_u64(buf, token);
	wc_put_u32(buf, snapshot);
}

bool
wc_read_attach(WcReader *r, uint32 *db, uint64 *token, uint32 *snapshot)
{
	if (!expect_type(r, WC_REQ_ATTACH))
		return fail(r);
	*db = wc_get_u32(r);
	*token = wc_get_u64(r);
	*snapshot = wc_get_u32(r);
	return finish(r);
}

void
wc_write_scan(StringInfo buf, const WcScanRequest *req)
{
	uint16		ncols = (uint16) req->ncols;

	begin(buf, WC_REQ_SCAN);
	wc_put_u32(buf, req->db);
	wc_put_u32(buf, req->snapshot);
	wc_put_u32(buf, req->scan);
	appendStringInfoChar(buf, (char) req->flags);
	wc_put_u64(buf, req->limit);
	wc_put_u64(buf, req->as_of);
	appendBinaryStringInfo(buf, (const char *) &ncols, 2);
	for (int i = 0; i < req->ncols; i++)
		wc_put_bytes(buf, req->cols[i].data, req->cols[i].len);
	write_ranges(buf, req->nranges, req->ranges);
	if (req->flags & WC_SCAN_CELLS)
	{
		wc_put_u64(buf, req->ts_min);
		wc_put_u64(buf, req->ts_max);
		wc_put_u32(buf, (uint32) req->nfams);
		for (int i = 0; i < req->nfams; i++)
			wc_put_bytes(buf, req->fams[i].data, req->fams[i].len);
		write_ranges(buf, req->nquals, req->quals);
		wc_put_u32(buf, req->noverlay);
		if (req->overlay.len > 0)
			appendBinaryStringInfo(buf, (const char *) req->overlay.data, req->overlay.len);
	}
	else if (req->flags & WC_SCAN_FILTER)
	{
		uint16		n = (uint16) req->nfilters;

		appendBinaryStringInfo(buf, (const char *) &n, 2);
		for (int i = 0; i < req->nfilters; i++)
		{
			appendBinaryStringInfo(buf, (const char *) &req->filters[i].col, 2);
			appendStringInfoChar(buf, (char) req->filters[i].kind);
			appendStringInfoChar(buf, (char) req->filters[i].op);
			wc_put_u64(buf, req->filters[i].value);
			if (req->filters[i].kind == WC_FILTER_ORDERED_BYTES)
				appendBinaryStringInfo(buf, (const char *) req->filters[i].bytes,
									   (int) req->filters[i].value);
		}
	}
}

/*
 * read_filters
 *		The filters of a scan, checked: each names a column the request asks
 *		for, a family and qualifier (a family alone is a map), with a kind
 *		and an operator there are.
 */
static bool
read_filters(WcReader *r, WcScanRequest *req)
{
	uint16		n = wc_get_u16(r);

	if (r->bad || n == 0 || n > WC_MAX_SCAN_FILTERS)
		return fail(r);
	req->filters = palloc(sizeof(WcScanFilter) * n);
	for (int i = 0; i < n; i++)
	{
		WcScanFilter *f = &req->filters[i];

		f->col = wc_get_u16(r);
		f->kind = wc_get_u8(r);
		f->op = wc_get_u8(r);
		f->value = wc_get_u64(r);
		f->bytes = NULL;
		if (!r->bad && f->kind == WC_FILTER_ORDERED_BYTES)
		{
			f->bytes = wc_get_raw(r, (size_t) f->value);
			if (f->bytes == NULL && f->value > 0)
				return fail(r);
		}
		if (r->bad || f->col >= req->ncols || !components(req->cols[f->col], 2) ||
			f->kind < WC_FILTER_INT2 || f->kind > WC_FILTER_ORDERED_BYTES ||
			f->op < WC_FILTER_LT || f->op > WC_FILTER_IN ||
			(f->kind == WC_FILTER_BYTES && f->op != WC_FILTER_EQ && f->op != WC_FILTER_IN) ||
			(f->kind == WC_FILTER_ORDERED_BYTES && f->op == WC_FILTER_IN))
			return fail(r);
	}
	req->nfilters = n;
	return true;
}

/*
 * wc_write_overlay_entry
 *		Append an entry of a cells scan's overlay to buf.
 */
void
wc_write_overlay_entry(StringInfo buf, const uint8 *key, size_t key_len, uint8 kind,
					   bool pending, uint64 ts, const uint8 *value, size_t value_len)
{
	wc_put_bytes(buf, key, key_len);
	appendStringInfoChar(buf, (char) kind);
	appendStringInfoChar(buf, pending ? 1 : 0);
	wc_put_u64(buf, ts);
	wc_put_bytes(buf, value ? value : (const uint8 *) "", value_len);
}

/*
 * wc_next_overlay_entry
 *		The next entry of an overlay that wc_read_scan has accepted.
 */
bool
wc_next_overlay_entry(WcReader *r, WcOverlayEntry *e)
{
	e->key = wc_get_bytes(r);
	e->kind = wc_get_u8(r);
	e->pending = wc_get_u8(r) != 0;
	e->ts = wc_get_u64(r);
	e->value = wc_get_bytes(r);
	return !r->bad;
}

/*
 * read_overlay
 *		The overlay of a cells scan, checked: every key is four whole
 *		components, a row tombstone's ends with the empty family and
 *		qualifier and a cell's does not, only a version has a value.
 */
static bool
read_overlay(WcReader *r, WcScanRequest *req)
{
	uint32		n = wc_get_u32(r);
	WcReader	entries;

	/* each entry takes at least 18 bytes: a count beyond that is a lie */
	if (r->bad || n > wc_reader_left(r) / 18)
		return fail(r);
	req->noverlay = n;
	req->overlay.data = r->p;
	entries = *r;
	for (uint32 i = 0; i < n; i++)
	{
		WcOverlayEntry e;
		size_t		t,
					k;
		bool		row_tomb;

		if (!wc_next_overlay_entry(&entries, &e) || !components(e.key, 4) ||
			e.kind > WC_OVERLAY_REMOVE)
			return fail(r);
		/* the family and qualifier: after the table and the row key */
		(void) wc_component_end(e.key.data, e.key.len, &t);
		(void) wc_component_end(e.key.data + t, e.key.len - t, &k);
		row_tomb = e.key.len - t - k == sizeof(wc_row_tombstone_fq) &&
			memcmp(e.key.data + t + k, wc_row_tombstone_fq, sizeof(wc_row_tombstone_fq)) == 0;
		/* an empty family is the row tombstone's only */
		if (!row_tomb && e.key.data[t + k] == 0x00 && e.key.data[t + k + 1] == 0x01)
			return fail(r);
		if (row_tomb != (e.kind == WC_OVERLAY_ROW_TOMBSTONE) ||
			(e.kind != WC_OVERLAY_PUT && e.value.len != 0) ||
			e.value.len > WC_MAX_VALUE)
			return fail(r);
	}
	req->overlay.len = entries.p - r->p;
	r->p = entries.p;
	return true;
}

/*
 * wc_read_scan
 *		Read a SCAN request; the columns and ranges point into the message.
 *		Every column is an escaped family and qualifier, or a family alone
 *		(never the empty one: that is the row tombstone's).
 */
bool
wc_read_scan(WcReader *r, WcScanRequest *req)
{
	uint16		ncols;

	req->ncols = 0;
	req->cols = NULL;
	req->nranges = 0;
	req->ranges = NULL;
	req->ts_min = 0;
	req->ts_max = PG_UINT64_MAX;
	req->nfams = 0;
	req->fams = NULL;
	req->nquals = 0;
	req->quals = NULL;
	req->noverlay = 0;
	req->overlay.data = NULL;
	req->overlay.len = 0;
	req->nfilters = 0;
	req->filters = NULL;
	if (!expect_type(r, WC_REQ_SCAN))
		return fail(r);
	req->db = wc_get_u32(r);
	req->snapshot = wc_get_u32(r);
	req->scan = wc_get_u32(r);
	req->flags = wc_get_u8(r);
	req->limit = wc_get_u64(r);
	req->as_of = wc_get_u64(r);
	ncols = wc_get_u16(r);
	if (r->bad || ncols > WC_MAX_SCAN_COLUMNS)
		return fail(r);
	req->cols = palloc(sizeof(WcBytes) * (ncols + 1));
	for (int i = 0; i < ncols; i++)
	{
		req->cols[i] = wc_get_bytes(r);
		if (r->bad || (!components(req->cols[i], 2) &&
					   (!components(req->cols[i], 1) || req->cols[i].len <= 2)))
			return fail(r);
	}
	req->ncols = ncols;
	if (!read_ranges(r, &req->nranges, &req->ranges))
		return false;
	if (req->flags & WC_SCAN_CELLS)
	{
		uint32		nfams;

		/* the versions of a row come in key order only */
		if (req->flags & WC_SCAN_REVERSE)
			return fail(r);
		req->ts_min = wc_get_u64(r);
		req->ts_max = wc_get_u64(r);
		nfams = wc_get_u32(r);
		if (r->bad || nfams > wc_reader_left(r) / 4)
			return fail(r);
		req->fams = palloc(sizeof(WcBytes) * (nfams + 1));
		for (uint32 i = 0; i < nfams; i++)
		{
			req->fams[i] = wc_get_bytes(r);
			if (r->bad || !components(req->fams[i], 1))
				return fail(r);
		}
		req->nfams = (int) nfams;
		if (!read_ranges(r, &req->nquals, &req->quals))
			return false;
		if (!read_overlay(r, req))
			return false;
	}
	else if ((req->flags & WC_SCAN_FILTER) && !read_filters(r, req))
		return false;
	/* a cells scan's rows are versions: no filter applies to them */
	if ((req->flags & WC_SCAN_CELLS) && (req->flags & WC_SCAN_FILTER))
		return fail(r);
	return finish(r);
}

void
wc_write_next(StringInfo buf, uint32 scan)
{
	begin(buf, WC_REQ_NEXT);
	wc_put_u32(buf, scan);
}

bool
wc_read_next(WcReader *r, uint32 *scan)
{
	if (!expect_type(r, WC_REQ_NEXT))
		return fail(r);
	*scan = wc_get_u32(r);
	return finish(r);
}

void
wc_write_close(StringInfo buf, uint32 scan)
{
	begin(buf, WC_REQ_CLOSE);
	wc_put_u32(buf, scan);
}

bool
wc_read_close(WcReader *r, uint32 *scan)
{
	if (!expect_type(r, WC_REQ_CLOSE))
		return fail(r);
	*scan = wc_get_u32(r);
	return finish(r);
}


void
wc_write_commit(StringInfo buf, uint32 db, bool sync, uint64 writer)
{
	begin(buf, WC_REQ_COMMIT);
	wc_put_u32(buf, db);
	appendStringInfoChar(buf, sync ? 1 : 0);
	wc_put_u64(buf, writer);
}

bool
wc_read_commit(WcReader *r, uint32 *db, bool *sync, uint64 *writer)
{
	if (!expect_type(r, WC_REQ_COMMIT))
		return fail(r);
	*db = wc_get_u32(r);
	*sync = wc_get_u8(r) != 0;
	*writer = wc_get_u64(r);
	/* no transaction id is 0 (InvalidTransactionId) */
	if (*writer == 0)
		return fail(r);
	return finish(r);
}

void
wc_write_abort(StringInfo buf, uint32 db)
{
	begin(buf, WC_REQ_ABORT);
	wc_put_u32(buf, db);
}

bool
wc_read_abort(WcReader *r, uint32 *db)
{
	if (!expect_type(r, WC_REQ_ABORT))
		return fail(r);
	*db = wc_get_u32(r);
	return finish(r);
}

void
wc_write_estimate(StringInfo buf, const WcEstimateRequest *req)
{
	begin(buf, WC_REQ_ESTIMATE);
	wc_put_u32(buf, req->db);
	write_ranges(buf, req->nranges, req->ranges);
}

bool
wc_read_estimate(WcReader *r, WcEstimateRequest *req)
{
	req->nranges = 0;
	req->ranges = NULL;
	if (!expect_type(r, WC_REQ_ESTIMATE))
		return fail(r);
	req->db = wc_get_u32(r);
	if (!read_ranges(r, &req->nranges, &req->ranges))
		return false;
	return finish(r);
}

void
wc_write_count(StringInfo buf, const WcReclaimRequest *req)
{
	begin(buf, WC_REQ_COUNT);
	wc_put_u32(buf, req->db);
	wc_put_bytes(buf, req->table.data, req->table.len);
	wc_put_bytes(buf, req->family.data, req->family.len);
}

/* COUNT: one table, and one family or none. */
bool
wc_read_count(WcReader *r, WcReclaimRequest *req)
{
	if (!expect_type(r, WC_REQ_COUNT))
		return fail(r);
	req->db = wc_get_u32(r);
	req->table = wc_get_bytes(r);
	req->family = wc_get_bytes(r);
	if (r->bad || !components(req->table, 1) ||
		(req->family.len > 0 && !components(req->family, 1)))
		return fail(r);
	return finish(r);
}

void
wc_write_compact(StringInfo buf, const WcReclaimRequest *req)
{
	begin(buf, WC_REQ_COMPACT);
	wc_put_u32(buf, req->db);
	wc_put_bytes(buf, req->table.data, req->table.len);
}

/* COMPACT: one table, or none (every table). */
bool
wc_read_compact(WcReader *r, WcReclaimRequest *req)
{
	if (!expect_type(r, WC_REQ_COMPACT))
		return fail(r);
	req->db = wc_get_u32(r);
	req->table = wc_get_bytes(r);
	req->family.data = NULL;
	req->family.len = 0;
	if (r->bad || (req->table.len > 0 && !components(req->table, 1)))
		return fail(r);
	return finish(r);
}

void
wc_write_sample(StringInfo buf, const WcSampleRequest *req)
{
	begin(buf, WC_REQ_SAMPLE);
	wc_put_u32(buf, req->db);
	wc_put_bytes(buf, req->table.data, req->table.len);
}

/* SAMPLE: one table. */
bool
wc_read_sample(WcReader *r, WcSampleRequest *req)
{
	if (!expect_type(r, WC_REQ_SAMPLE))
		return fail(r);
	req->db = wc_get_u32(r);
	req->table = wc_get_bytes(r);
	if (r->bad || !components(req->table, 1))
		return fail(r);
	return finish(r);
}

void
wc_write_rows(StringInfo buf, const WcRowsRequest *req)
{
	begin(buf, WC_REQ_ROWS);
	wc_put_u32(buf, req->db);
	wc_put_u32(buf, req->max_entries);
	write_ranges(buf, req->nranges, req->ranges);
}

bool
wc_read_rows(WcReader *r, WcRowsRequest *req)
{
	req->nranges = 0;
	req->ranges = NULL;
	if (!expect_type(r, WC_REQ_ROWS))
		return fail(r);
	req->db = wc_get_u32(r);
	req->max_entries = wc_get_u32(r);
	if (!read_ranges(r, &req->nranges, &req->ranges))
		return false;
	return finish(r);
}

/* ---- answers ---- */

void
wc_write_ok(StringInfo buf)
{
	begin(buf, WC_RESP_OK);
}

void
wc_write_open_answer(StringInfo buf, uint32 db)
{
	begin(buf, WC_RESP_OK);
	wc_put_u32(buf, db);
}

void
wc_write_estimate_answer(StringInfo buf, uint64 bytes)
{
	begin(buf, WC_RESP_OK);
	wc_put_u64(buf, bytes);
}

void
wc_write_count_answer(StringInfo buf, uint64 n)
{
	begin(buf, WC_RESP_OK);
	wc_put_u64(buf, n);
}

void
wc_write_sample_answer(StringInfo buf, uint64 total, int n,
					   const WcBytes *keys, const uint64 *offsets)
{
	begin(buf, WC_RESP_OK);
	wc_put_u64(buf, total);
	wc_put_u32(buf, (uint32) n);
	for (int i = 0; i < n; i++)
	{
		wc_put_bytes(buf, keys[i].data, keys[i].len);
		wc_put_u64(buf, offsets[i]);
	}
}

void
wc_write_rows_answer(StringInfo buf, const WcRowsAnswer *a)
{
	begin(buf, WC_RESP_OK);
	wc_put_u64(buf, a->rows);
	appendStringInfoChar(buf, a->complete ? 1 : 0);
	wc_put_u64(buf, a->walked_bytes);
	wc_put_u64(buf, a->bytes);
}

static void
put_cstring(StringInfo buf, const char *s)
{
	wc_put_bytes(buf, s ? s : "", s ? strlen(s) : 0);
}

/* The BATCH answer of a scan that has ended: its last, with no rows. */
void
wc_write_batch_over(StringInfo buf)
{
	begin(buf, WC_RESP_BATCH);
	appendStringInfoChar(buf, 1);
	wc_put_u32(buf, 0);
	wc_put_u64(buf, 0);
	wc_put_u32(buf, 0);
	wc_put_u32(buf, 0);			/* requests */
}

void
wc_write_error(StringInfo buf, int sqlstate, const char *message,
			   const char *detail, const char *hint)
{
	begin(buf, WC_RESP_ERROR);
	wc_put_u32(buf, (uint32) sqlstate);
	put_cstring(buf, message);
	put_cstring(buf, detail);
	put_cstring(buf, hint);
}

bool
wc_is_error(const void *data, size_t len)
{
	return len > 0 && ((const uint8 *) data)[0] == WC_RESP_ERROR;
}

bool
wc_read_error(WcReader *r, WcErrorAnswer *err)
{
	if (!expect_type(r, WC_RESP_ERROR))
		return fail(r);
	err->sqlstate = (int) wc_get_u32(r);
	err->message = wc_get_bytes(r);
	err->detail = wc_get_bytes(r);
	err->hint = wc_get_bytes(r);
	return finish(r);
}

bool
wc_read_ok(WcReader *r)
{
	if (!expect_type(r, WC_RESP_OK))
		return fail(r);
	return finish(r);
}

bool
wc_read_open_answer(WcReader *r, uint32 *db)
{
	if (!expect_type(r, WC_RESP_OK))
		return fail(r);
	*db = wc_get_u32(r);
	return finish(r);
}

bool
wc_read_estimate_answer(WcReader *r, uint64 *bytes)
{
	if (!expect_type(r, WC_RESP_OK))
		return fail(r);
	*bytes = wc_get_u64(r);
	return finish(r);
}

bool
wc_read_count_answer(WcReader *r, uint64 *n)
{
	if (!expect_type(r, WC_RESP_OK))
		return fail(r);
	*n = wc_get_u64(r);
	return finish(r);
}

bool
wc_read_sample_answer(WcReader *r, uint64 *total, int *n,
					  WcBytes **keys, uint64 **offsets)
{
	uint32		count;

	*n = 0;
	*keys = NULL;
	*offsets = NULL;
	if (!expect_type(r, WC_RESP_OK))
		return fail(r);
	*total = wc_get_u64(r);
	count = wc_get_u32(r);
	/* each sample takes at least a length and an offset */
	if (r->bad || count > wc_reader_left(r) / 12)
		return fail(r);
	if (count > 0)
	{
		*keys = palloc(sizeof(WcBytes) * count);
		*offsets = palloc(sizeof(uint64) * count);
	}
	for (uint32 i = 0; i < count; i++)
	{
		(*keys)[i] = wc_get_bytes(r);
		(*offsets)[i] = wc_get_u64(r);
	}
	*n = (int) count;
	return finish(r);
}

bool
wc_read_rows_answer(WcReader *r, WcRowsAnswer *a)
{
	if (!expect_type(r, WC_RESP_OK))
		return fail(r);
	a->rows = wc_get_u64(r);
	a->complete = wc_get_u8(r) != 0;
	a->walked_bytes = wc_get_u64(r);
	a->bytes = wc_get_u64(r);
	return finish(r);
}
