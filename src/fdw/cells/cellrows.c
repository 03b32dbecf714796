/*-------------------------------------------------------------------------
 *
 * cellrows.c
 *	  Executing a scan of a cells-layout foreign table: a row per cell
 *	  version the policies keep, read from the storage worker with a SCAN
 *	  of flag WC_SCAN_CELLS (worker/cellversions.c).
 *
 * The plan's filters (cellplan.c) are evaluated when the scan starts and
 * sent as the families, qualifier ranges and timestamp bounds the worker
 * seeks by.  A filter only narrows what is read: the plan checks every
 * condition on each row.
 *
 * The transaction's own uncommitted writes to the stored table, through
 * mapped and cells-layout tables, go with the request as its overlay,
 * which the worker reads as if it were stored: a version the commit will
 * stamp has a NULL ts until then.  (A mapped table's scan merges only the
 * mapped tables' writes: reading one after writing its stored table
 * through a cells-layout table is an error, wc_cells_check_reads.)
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "fdw/cells/cells.h"
#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/link/link.h"
#include "fdw/meta/meta.h"
#include "fdw/model/model.h"
#include "fdw/xact/xact.h"

/* The most of the transaction's own writes a scan sends with it. */
#define WC_MAX_OVERLAY_BYTES	(64 * 1024 * 1024)

/* Executor state, in ForeignScanState.fdw_state. */
typedef struct WcCellsScan
{
	WcCellsTable *ct;
	List	   *cond;
	List	   *filters;
	List	   *exprstates;
	uint32		db;
	uint32		snapshot;
	uint64		as_of;
	bool		as_of_start;	/* as_of is the transaction's start (Bigtable) */
	SubTransactionId subid;
	uint32		horizon;		/* the transaction's writes it sees: of mapped */
	int			nops;			/* ... and of cells-layout tables */
	bool		started;
	bool		remote;			/* a storage scan is open */
	bool		stored_done;
	uint32		scan;
	WcBatchReader batch;
	bool		have_batch;
	MemoryContext scan_cxt;
	MemoryContext row_cxt;
	uint64		versions_read;	/* for EXPLAIN ANALYZE */
	uint64		entries_read;
	uint64		requests_read;
} WcCellsScan;

/* The filters, evaluated: what the SCAN request asks for. */
typedef struct WcCellsWanted
{
	bool		none;			/* no version can match */
	List	   *fams;			/* StringInfo, escaped */
	bool		have_fams;
	List	   *points;			/* WcKeyRange of one qualifier each */
	bool		have_points;
	StringInfo	qlo;			/* range of qualifiers [qlo, qhi), escaped */
	StringInfo	qhi;
	int64		ts_min;
	int64		ts_max;
} WcCellsWanted;

/*
 * wc_cells_check_reads
 *		Refuse a read of a mapped table that would miss the transaction's
 *		writes to its stored table through a cells-layout table: a mapped
 *		scan merges only the mapped tables' writes.
 */
void
wc_cells_check_reads(WcTable *t)
{
	if (wc_cells_written(t))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot read foreign table \"%s\" after this transaction wrote to stored table \"%s\" through a cells-layout table",
						t->relname, t->table),
				 errdetail("A table that maps columns to cells does not show the transaction's writes through a cells-layout table before COMMIT."),
				 errhint("Commit the writes first, or read the stored table through a cells-layout table.")));
}

static void
wcCellsBeginForeignScan(ForeignScanState *node, int eflags)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	WcCellsScan *cs;

	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	cs = palloc0(sizeof(WcCellsScan));
	node->fdw_state = cs;
	cs->ct = wc_cells_table(RelationGetRelid(node->ss.ss_currentRelation));
	cs->cond = list_nth(plan->fdw_private, WcCellsPrivateCond);
	cs->filters = list_nth(plan->fdw_private, WcCellsPrivateFilters);
	cs->exprstates = ExecInitExprList(plan->fdw_exprs, (PlanState *) node);
	cs->scan_cxt = AllocSetContextCreate(node->ss.ps.state->es_query_cxt,
										 "widecolumn_fdw cells scan", ALLOCSET_DEFAULT_SIZES);
	cs->row_cxt = AllocSetContextCreate(node->ss.ps.state->es_query_cxt,
										"widecolumn_fdw cells row", ALLOCSET_SMALL_SIZES);

	/* as a mapped scan: the data as of when its statement (or cursor) starts */
	cs->db = wc_client_open_db(cs->ct->t);
	cs->snapshot = wc_client_snapshot_acquire(cs->db);
	cs->subid = GetCurrentSubTransactionId();
	cs->as_of = wc_as_of_for_read();
	if (cs->ct->t->engine == WC_ENGINE_BIGTABLE)
		cs->as_of = wc_bigtable_read_time(cs->as_of, &cs->as_of_start);
	/* the writes of earlier commands, as for a mapped scan (scan.c) */
	cs->horizon = wc_txn_horizon_at(node->ss.ps.state->es_snapshot->curcid);
	cs->nops = wc_cells_op_count_at(node->ss.ps.state->es_snapshot->curcid);
}

static void
refuse_merges(WcTable *t)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot read uncommitted merges of an aggregate family through cells-layout foreign table \"%s\"",
					t->relname),
			 errdetail("The transaction wrote to a column of an aggregate family of stored table \"%s\".",
					   t->table),
			 errhint("Commit the merges first, or read them through a foreign table that maps their columns.")));
}

/*
 * refuse_aggregate_values
 *		On a Bigtable server a value the transaction set in an aggregate
 *		family, through a mapped table or the cells layout, is not the
 *		version the overlay would show: its COMMIT makes a mapped table's
 *		an AddToCell at time 0 (commit.c), and Bigtable folds a SetCell
 *		into such a cell.  Refused, as a merge is.
 */
static void
refuse_aggregate_values(WcTable *t, StringInfo overlay, uint32 n)
{
	List	   *aggs = wc_aggregate_families(t->serverid, t->table);
	WcReader	r;

	if (aggs == NIL)
		return;
	wc_reader_init(&r, (const uint8 *) overlay->data, overlay->len);
	for (uint32 i = 0; i < n; i++)
	{
		WcOverlayEntry e;
		size_t		tlen,
					rlen;

		if (!wc_next_overlay_entry(&r, &e))
			elog(ERROR, "overlay of a SCAN request is malformed");
		/* the table's component, then the row key's: the family follows */
		if (e.kind != WC_OVERLAY_PUT ||
			wc_component_end(e.key.data, e.key.len, &tlen) != 0 ||
			wc_component_end(e.key.data + tlen, e.key.len - tlen, &rlen) != 0)
			continue;
		if (wc_aggregate_of(aggs, e.key.data + tlen + rlen, e.key.len - tlen - rlen) != 0)
			refuse_merges(t);
	}
}

/*
 * own_writes
 *		The transaction's writes to the scan's stored table before the scan
 *		began, as the overlay of the SCAN request (wire.h): a mapped
 *		table's rows as the commit will write them, then the cells-layout
 *		tables' operations, the order the commit applies them in.
 */
static void
own_writes(WcCellsScan *cs, WcScanRequest *req)
{
	WcTable    *t = cs->ct->t;
	WcTxnTable *tt = wc_txn_table(t, false);
	StringInfo	buf;
	StringInfoData key;

	if (tt == NULL)
		return;
	buf = makeStringInfo();
	initStringInfo(&key);
	wc_txn_sort_rows(tt);
	for (int r = 0; r < tt->nsorted; r++)
	{
		WcTxnRow	row;
		size_t		plen;
		uint8	   *prefix;

		if (!wc_txn_replay(tt, tt->rows[r], cs->horizon, &row))
			continue;
		prefix = wc_row_key(t, row.rowkey, row.rowkey_len, &plen);
		if (row.deleted)
		{
			resetStringInfo(&key);
			appendBinaryStringInfo(&key, (const char *) prefix, plen);
			appendBinaryStringInfo(&key, (const char *) wc_row_tombstone_fq,
								   sizeof(wc_row_tombstone_fq));
			wc_write_overlay_entry(buf, (uint8 *) key.data, key.len,
								   WC_OVERLAY_ROW_TOMBSTONE, true, 0, NULL, 0);
			req->noverlay++;
		}
		for (int i = 0; i < row.ncells; i++)
		{
			WcTxnCell  *c = &row.cells[i];

			if (c->merge != 0)
				refuse_merges(t);
			resetStringInfo(&key);
			appendBinaryStringInfo(&key, (const char *) prefix, plen);
			appendBinaryStringInfo(&key, (const char *) c->famqual, c->famqual_len);
			wc_write_overlay_entry(buf, (uint8 *) key.data, key.len,
								   c->value ? WC_OVERLAY_PUT : WC_OVERLAY_CELL_TOMBSTONE,
								   true, 0, c->value, c->value ? c->value_len : 0);
			req->noverlay++;
		}
	}
	wc_cells_overlay(tt, cs->nops, buf, &req->noverlay);
	if (t->engine == WC_ENGINE_BIGTABLE && req->noverlay > 0)
		refuse_aggregate_values(t, buf, req->noverlay);

	/*
	 * It goes with every scan of the table until COMMIT: a bulk load is
	 * read after it is committed.
	 */
	if (buf->len > WC_MAX_OVERLAY_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many uncommitted writes to read stored table \"%s\" through cells-layout foreign table \"%s\"",
						t->table, t->relname),
				 errdetail("The transaction's writes to the table take %d bytes; a scan of a cells-layout table takes at most %d.",
						   buf->len, WC_MAX_OVERLAY_BYTES),
				 errhint("Commit the writes first.")));
	req->overlay.data = (uint8 *) buf->data;
	req->overlay.len = buf->len;
}

static StringInfo
escaped(const uint8 *data, size_t len)
{
	StringInfo	s = makeStringInfo();

	enlargeStringInfo(s, WC_ESCAPED_MAX(len));
	s->len = wc_escape(data, len, (uint8 *) s->data);
	return s;
}

/* The escaped bytes after every qualifier that starts with e's content. */
static StringInfo
after(StringInfo e)
{
	StringInfo	s = makeStringInfo();

	appendBinaryStringInfo(s, e->data, e->len);
	s->data[s->len - 1] = 0x02;		/* the terminator 00 01, as 00 02 */
	return s;
}

static int
stringinfo_cmp(StringInfo a, StringInfo b)
{
	return wc_compare_bytes((uint8 *) a->data, a->len, (uint8 *) b->data, b->len);
}

static int
fam_cmp(const ListCell *a, const ListCell *b)
{
	return stringinfo_cmp(lfirst(a), lfirst(b));
}

static int
point_cmp(const ListCell *a, const ListCell *b)
{
	WcKeyRange *x = lfirst(a);
	WcKeyRange *y = lfirst(b);

	return wc_compare_bytes(x->start, x->start_len, y->start, y->start_len);
}

/* The values of an = or IN filter's value. */
static List *
filter_values(int kind, Datum value, Oid type)
{
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *enulls;
	int			n;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	List	   *out = NIL;

	if (kind == WC_KEY_EQ)
		return list_make1(DatumGetPointer(value));
	arr = DatumGetArrayTypeP(value);
	get_typlenbyvalalign(ARR_ELEMTYPE(arr), &typlen, &typbyval, &typalign);
	deconstruct_array(arr, ARR_ELEMTYPE(arr), typlen, typbyval, typalign, &elems, &enulls, &n);
	for (int i = 0; i < n; i++)
		if (!enulls[i])
			out = lappend(out, DatumGetPointer(elems[i]));
	(void) type;
	return out;
}

static void
narrow_lo(WcCellsWanted *w, StringInfo s)
{
	if (w->qlo == NULL || stringinfo_cmp(s, w->qlo) > 0)
		w->qlo = s;
}

static void
narrow_hi(WcCellsWanted *w, StringInfo s)
{
	if (w->qhi == NULL || stringinfo_cmp(s, w->qhi) < 0)
		w->qhi = s;
}

/* A qualifier filter: the set of = or IN, or a bound of the range. */
static void
want_qualifier(WcCellsWanted *w, int kind, Datum value, bool bytes)
{
	struct varlena *v;
	StringInfo	e;

	if (kind == WC_KEY_EQ || kind == WC_KEY_IN)
	{
		ListCell   *lc;

		if (w->have_points)
			return;				/* one set is enough: the quals check the rest */
		w->have_points = true;
		foreach(lc, filter_values(kind, value, bytes ? BYTEAOID : TEXTOID))
		{
			WcKeyRange *kr = palloc0(sizeof(WcKeyRange));
			StringInfo	s;

			v = PG_DETOAST_DATUM_PACKED(PointerGetDatum(lfirst(lc)));
			s = escaped((uint8 *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
			kr->start = (uint8 *) s->data;
			kr->start_len = s->len;
			s = after(s);
			kr->end = (uint8 *) s->data;
			kr->end_len = s->len;
			w->points = lappend(w->points, kr);
		}
		return;
	}
	v = PG_DETOAST_DATUM_PACKED(value);
	if (kind == WC_KEY_LIKE)
	{
		StringInfoData prefix;
		bool		pure,
					no_wildcard;

		initStringInfo(&prefix);
		wc_like_prefix(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), bytes, &prefix, &pure, &no_wildcard);
		e = escaped((uint8 *) prefix.data, prefix.len);
		if (no_wildcard)
		{
			narrow_lo(w, e);
			narrow_hi(w, after(e));
		}
		else if (prefix.len > 0)
		{
			StringInfo	hi = makeStringInfo();
			size_t		hlen;

			/* every escaped qualifier with the prefix starts with its body */
			e->len -= 2;
			narrow_lo(w, e);
			appendBinaryStringInfo(hi, e->data, e->len);
			hlen = hi->len;
			if (wc_successor((uint8 *) hi->data, &hlen) == 0)
			{
				hi->len = hlen;
				narrow_hi(w, hi);
			}
		}
		return;
	}
	e = escaped((uint8 *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
	switch (kind)
	{
		case WC_KEY_LT:
			narrow_hi(w, e);
			break;
		case WC_KEY_LE:
			narrow_hi(w, after(e));
			break;
		case WC_KEY_GT:
			narrow_lo(w, after(e));
			break;
		case WC_KEY_GE:
			narrow_lo(w, e);
			break;
	}
}

/* A timestamp filter: bounds in µs since the Unix epoch. */
static void
want_ts(WcCellsWanted *w, int kind, TimestampTz ts)
{
	int64		us;

	if (TIMESTAMP_IS_NOBEGIN(ts))
	{
		if (kind == WC_KEY_LT || kind == WC_KEY_LE || kind == WC_KEY_EQ)
			w->none = true;
		return;
	}
	if (TIMESTAMP_IS_NOEND(ts))
	{
		if (kind == WC_KEY_GT || kind == WC_KEY_GE || kind == WC_KEY_EQ)
			w->none = true;
		return;
	}
	us = ts > PG_INT64_MAX - WC_UNIX_EPOCH_OFFSET_US ? PG_INT64_MAX : ts + WC_UNIX_EPOCH_OFFSET_US;
	if (kind == WC_KEY_GE || kind == WC_KEY_EQ)
		w->ts_min = Max(w->ts_min, us);
	if (kind == WC_KEY_GT)
		w->ts_min = Max(w->ts_min, us + 1);
	if (kind == WC_KEY_LE || kind == WC_KEY_EQ)
		w->ts_max = Min(w->ts_max, us);
	if (kind == WC_KEY_LT)
		w->ts_max = Min(w->ts_max, us - 1);
}

/*
 * eval_filters
 *		The filters with the values they compare with now.
 */
static void
eval_filters(WcCellsScan *cs, Datum *values, bool *nulls, WcCellsWanted *w)
{
	ListCell   *lc;

	memset(w, 0, sizeof(*w));
	w->ts_min = 0;
	w->ts_max = PG_INT64_MAX;
	foreach(lc, cs->filters)
	{
		List	   *f = lfirst(lc);
		int			kind = linitial_int(f);
		int			attnum = lsecond_int(f);
		int			e = lthird_int(f);

		/* a comparison with NULL is never true */
		if (nulls[e])
		{
			w->none = true;
			continue;
		}
		if (attnum == cs->ct->family)
		{
			ListCell   *lc2;

			if (w->have_fams)
				continue;
			w->have_fams = true;
			foreach(lc2, filter_values(kind, values[e], TEXTOID))
			{
				struct varlena *v = PG_DETOAST_DATUM_PACKED(PointerGetDatum(lfirst(lc2)));

				/* a name no family can have matches nothing */
				if (wc_valid_family(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v)))
					w->fams = lappend(w->fams, escaped((uint8 *) VARDATA_ANY(v),
													   VARSIZE_ANY_EXHDR(v)));
			}
		}
		else if (attnum == cs->ct->qualifier)
			want_qualifier(w, kind, values[e], cs->ct->qual_type == BYTEAOID);
		else
			want_ts(w, kind, DatumGetTimestampTz(values[e]));
	}
	if (w->have_fams && w->fams == NIL)
		w->none = true;
	if (w->have_points && w->points == NIL)
		w->none = true;
	if (w->ts_max < w->ts_min || w->ts_max < 0)
		w->none = true;
	if (!w->have_points && w->qlo != NULL && w->qhi != NULL && stringinfo_cmp(w->qlo, w->qhi) >= 0)
		w->none = true;
}

/* Remove neighbours equal by cmp from a sorted list. */
static List *
dedup(List *l, list_sort_comparator cmp)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, l)
		if (out == NIL || cmp(list_last_cell(out), lc) != 0)
			out = lappend(out, lfirst(lc));
	return out;
}

/* Start the storage scan of what the condition and filters select now. */
static void
cells_start(ForeignScanState *node, WcCellsScan *cs)
{
	WcTable    *t = cs->ct->t;
	Datum	   *values;
	bool	   *nulls;
	List	   *ranges;
	WcCellsWanted w;
	WcScanRequest req;
	int			i;
	ListCell   *lc;

	MemoryContextReset(cs->scan_cxt);
	MemoryContextSwitchTo(cs->scan_cxt);
	cs->started = true;
	cs->stored_done = true;
	cs->have_batch = false;
	wc_scan_key_values(cs->exprstates, node->ss.ps.ps_ExprContext, &values, &nulls);
	ranges = wc_eval_key_ranges(cs->cond, values, nulls, t, NULL, NULL);
	eval_filters(cs, values, nulls, &w);
	if (ranges == NIL || w.none)
		return;

	memset(&req, 0, sizeof(req));
	req.snapshot = cs->snapshot;
	req.flags = WC_SCAN_CELLS | (cs->cond == NIL && !w.have_fams ? WC_SCAN_BULK : 0);
	req.as_of = cs->as_of;
	if (cs->as_of_start)
		req.flags |= WC_SCAN_AS_OF_START;
	req.ts_min = (uint64) w.ts_min;
	req.ts_max = (uint64) w.ts_max;
	list_sort(w.fams, fam_cmp);
	w.fams = dedup(w.fams, fam_cmp);
	req.nfams = list_length(w.fams);
	req.fams = palloc(sizeof(WcBytes) * (req.nfams + 1));
	i = 0;
	foreach(lc, w.fams)
	{
		StringInfo	s = lfirst(lc);

		req.fams[i].data = (uint8 *) s->data;
		req.fams[i++].len = s->len;
	}
	if (w.have_points)
	{
		list_sort(w.points, point_cmp);
		w.points = dedup(w.points, point_cmp);
	}
	else if (w.qlo != NULL || w.qhi != NULL)
	{
		WcKeyRange *kr = palloc0(sizeof(WcKeyRange));

		kr->start = (uint8 *) (w.qlo ? w.qlo->data : "");
		kr->start_len = w.qlo ? w.qlo->len : 0;
		kr->end = (uint8 *) (w.qhi ? w.qhi->data : "");
		kr->end_len = w.qhi ? w.qhi->len : 0;
		w.points = list_make1(kr);
	}
	req.nquals = list_length(w.points);
	req.quals = wc_client_wire_ranges(w.points);
	own_writes(cs, &req);

	if (wc_rowdrop_ranges(t, cs->horizon, ranges) != ranges)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot read cells-layout foreign table \"%s\" after dropping a row range of it in the same transaction",
						t->relname),
				 errdetail("The transaction called widecolumn.drop_row_range on stored table \"%s\".",
						   t->table),
				 errhint("Commit the drop first, or read the rows through a foreign table that maps their columns.")));
	cs->scan = wc_client_scan_request(cs->db, &req, ranges,
									  cs->subid != InvalidSubTransactionId ? cs->subid :
									  GetCurrentSubTransactionId());
	cs->remote = true;
	cs->stored_done = false;
}

static void
malformed_batch(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROTOCOL_VIOLATION),
			 errmsg("malformed batch from the widecolumn_fdw storage worker")));
}

static TupleTableSlot *
wcCellsIterateForeignScan(ForeignScanState *node)
{
	WcCellsScan *cs = node->fdw_state;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	WcCellsTable *ct = cs->ct;
	MemoryContext old;
	WcBatchRow	row;
	WcBytes		cells[4];
	uint64		ts;
	WcColumn   *col = &ct->t->cols[ct->value - 1];

	ExecClearTuple(slot);
	if (!cs->started)
	{
		old = CurrentMemoryContext;
		cells_start(node, cs);
		MemoryContextSwitchTo(old);
	}
	while (!cs->have_batch || cs->batch.rows_left == 0)
	{
		if (cs->stored_done || (cs->have_batch && cs->batch.done) ||
			!wc_client_scan_next_batch(cs->scan, &cs->batch))
		{
			cs->stored_done = true;
			return slot;
		}
		cs->have_batch = true;
	}
	cs->batch.rows_left--;
	cs->versions_read++;
	/* a fourth, empty cell: a version this transaction's commit will stamp */
	if (!wc_read_batch_row(&cs->batch.r, &row) || row.ncells < 3 || row.ncells > 4)
		malformed_batch();
	for (int i = 0; i < row.ncells; i++)
	{
		uint16		idx;

		if (!wc_read_batch_cell(&cs->batch.r, &idx, &cells[i]) || idx != i)
			malformed_batch();
	}
	if (!wc_read_batch_version(&cs->batch.r, &ts))
		malformed_batch();

	MemoryContextReset(cs->row_cxt);
	old = MemoryContextSwitchTo(cs->row_cxt);
	for (int a = 0; a < slot->tts_tupleDescriptor->natts; a++)
	{
		slot->tts_values[a] = (Datum) 0;
		slot->tts_isnull[a] = true;
	}
	slot->tts_values[ct->rowkey - 1] = wc_decode_rowkey(row.key.data, row.key.len, ct->rowkey_type);
	slot->tts_values[ct->family - 1] = wc_decode_rowkey(cells[0].data, cells[0].len, TEXTOID);
	slot->tts_values[ct->qualifier - 1] = wc_decode_rowkey(cells[1].data, cells[1].len,
														   ct->qual_type);
	slot->tts_values[ct->ts - 1] = TimestampTzGetDatum((TimestampTz) ts - WC_UNIX_EPOCH_OFFSET_US);
	/* a value that does not decode is named by its own family and qualifier */
	col->family = pnstrdup((const char *) cells[0].data, cells[0].len);
	col->qualifier = ct->qual_type == BYTEAOID ?
		wc_printable_key(cells[1].data, cells[1].len) :
		pnstrdup((const char *) cells[1].data, cells[1].len);
	slot->tts_values[ct->value - 1] = wc_decode_value(cells[2].data, cells[2].len, ct->t,
													  ct->value, row.key.data, row.key.len);
	slot->tts_isnull[ct->rowkey - 1] = false;
	slot->tts_isnull[ct->family - 1] = false;
	slot->tts_isnull[ct->qualifier - 1] = false;
	slot->tts_isnull[ct->ts - 1] = row.ncells == 4;
	slot->tts_isnull[ct->value - 1] = false;
	MemoryContextSwitchTo(old);
	return ExecStoreVirtualTuple(slot);
}

static void
cells_stop(WcCellsScan *cs)
{
	if (cs->remote)
	{
		cs->entries_read += wc_client_scan_entries(cs->scan);
		cs->requests_read += wc_client_scan_requests(cs->scan);
		wc_client_scan_end(cs->scan);
	}
	cs->remote = false;
	cs->started = false;
}

static void
wcCellsReScanForeignScan(ForeignScanState *node)
{
	/* parameters may have changed: the ranges and filters are computed again */
	cells_stop(node->fdw_state);
}

static void
wcCellsEndForeignScan(ForeignScanState *node)
{
	WcCellsScan *cs = node->fdw_state;

	if (cs == NULL)
		return;
	cells_stop(cs);
	wc_client_snapshot_release(cs->snapshot);
}

/*
 * wc_cells_scan_read
 *		The versions the worker returned, the entries it read (a Bigtable
 *		server's cells received) and the requests it made of Bigtable, for
 *		EXPLAIN ANALYZE; false without a scan state.
 */
bool
wc_cells_scan_read(ForeignScanState *node, uint64 *versions, uint64 *entries, uint64 *requests)
{
	WcCellsScan *cs = node->fdw_state;

	if (cs == NULL)
		return false;
	*versions = cs->versions_read;
	*entries = cs->entries_read + (cs->remote ? wc_client_scan_entries(cs->scan) : 0);
	*requests = cs->requests_read + (cs->remote ? wc_client_scan_requests(cs->scan) : 0);
	return true;
}

void
wc_cells_scan_register(FdwRoutine *routine)
{
	routine->BeginForeignScan = wcCellsBeginForeignScan;
	routine->IterateForeignScan = wcCellsIterateForeignScan;
	routine->ReScanForeignScan = wcCellsReScanForeignScan;
	routine->EndForeignScan = wcCellsEndForeignScan;
}
