/*-------------------------------------------------------------------------
 *
 * sizes.c
 *	  How big a foreign table, or a range of its rows, is, as LevelDB
 *	  estimates it: the SQL functions widecolumn.sample_row_keys
 *	  (Bigtable's SampleRowKeys) and widecolumn.approximate_size, and the
 *	  planner's row counts before ANALYZE.
 *
 * LevelDB estimates the bytes between two keys from its table files'
 * indexes (worker/sizes.c), without reading the data, and does not count
 * what is still in its memtable: the writes since it last wrote one to a
 * file, up to the server's write_buffer_size.  The planner's walk of a few
 * thousand entries (wc_size_rows) reads entries, the memtable's too.
 *
 * Row keys cross these functions as text: a text (or varchar, or row-key
 * parts) table's keys as they are, a bytea table's in bytea's text form
 * ('\x...'), so that row_key::bytea gives them back.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "foreign/foreign.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "fdw/fdw.h"

PG_FUNCTION_INFO_V1(wc_sample_row_keys);
PG_FUNCTION_INFO_V1(wc_approximate_size);

/* Entries the planner's walk of a table reads, at most ... */
#define WC_SIZE_WALK_ENTRIES	4096

/*
 * ... and of a scan's key ranges.  Every custom plan walks them again, and
 * a prepared prefix scan of a large table gets a custom plan at each
 * execution (its generic plan is costed with LIKE's default selectivity,
 * above the custom plans, so the plan cache keeps making them): a walk as
 * long as the table's read a 1,000-row prefix twice per query, once for
 * the estimate and once for the rows, a third of the storage worker's work
 * in such a workload.  A range of up to 512 entries (128 rows of four
 * cells) is still counted exactly; a longer one is estimated from its bytes.
 */
#define WC_RANGE_WALK_ENTRIES	512

/* Bytes a stored row takes, when LevelDB cannot say. */
#define WC_EST_ROW_BYTES	64

/*
 * The planner plans every query of an un-ANALYZEd table (autovacuum never
 * analyzes foreign tables), and a walk costs a few tenths of a millisecond,
 * which a point read by the simple protocol would pay each time: what a
 * walk of a table found is kept this long, per session.
 */
#define WC_SIZE_KEEP_US		(10 * USECS_PER_SEC)

typedef struct WcKnownSize
{
	Oid			serverid;
	char	   *table;
	TimestampTz at;
	double		tuples;
	double		row_bytes;
} WcKnownSize;

static List *known_sizes = NIL;

/* Are the table's row keys bytea (else text)? */
static bool
rowkey_is_bytea(WcTable *t)
{
	return t->nparts == 0 && t->cols[t->rowkey_attnum - 1].type == BYTEAOID;
}

/* The LevelDB key where the row of argument n (a row key as text) starts. */
static uint8 *
key_arg(FunctionCallInfo fcinfo, int n, WcTable *t, size_t *len)
{
	Datum		v = PG_GETARG_DATUM(n);
	const uint8 *data;
	size_t		rlen;

	if (rowkey_is_bytea(t))
		v = DirectFunctionCall1(byteain, CStringGetDatum(TextDatumGetCString(v)));
	wc_rowkey_bytes(v, TEXTOID, &data, &rlen);
	return wc_row_key(t, data, rlen, len);
}

/* A row key as the text these functions give it as. */
static Datum
rowkey_text(WcTable *t, const uint8 *data, size_t len)
{
	if (rowkey_is_bytea(t))
		return CStringGetTextDatum(DatumGetCString(DirectFunctionCall1(byteaout,
																	   wc_decode_rowkey(data, len, BYTEAOID))));
	return wc_decode_rowkey(data, len, TEXTOID);
}

/*
 * wc_sample_row_keys
 *		widecolumn.sample_row_keys(t regclass) RETURNS TABLE (row_key text,
 *		offset_bytes bigint): Bigtable's SampleRowKeys.
 *
 * Row keys in order that split the table into pieces of about equal size,
 * each with the bytes of the rows before it; as in Bigtable, the last is
 * the empty key with the whole table's bytes, for the table's end.
 */
Datum
wc_sample_row_keys(PG_FUNCTION_ARGS)
{
	WcTable    *t = wc_table_arg(fcinfo, ACL_SELECT);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	uint64		total;
	int			n;
	WcBytes    *keys;
	uint64	   *offsets;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	InitMaterializedSRF(fcinfo, 0);
	wc_client_sample(wc_client_open_db(t), t->table_key, t->table_key_len,
					 &total, &n, &keys, &offsets);
	for (int i = 0; i <= n; i++)
	{
		values[0] = i < n ? rowkey_text(t, keys[i].data, keys[i].len) : CStringGetTextDatum("");
		values[1] = Int64GetDatum((int64) (i < n ? offsets[i] : total));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * wc_approximate_size
 *		widecolumn.approximate_size(t regclass, start_key text DEFAULT
 *		NULL, end_key text DEFAULT NULL) RETURNS bigint: LevelDB's estimate
 *		of the bytes of the rows from start_key (NULL: the first) up to,
 *		not including, end_key (NULL: to the end).
 */
Datum
wc_approximate_size(PG_FUNCTION_ARGS)
{
	WcTable    *t = wc_table_arg(fcinfo, ACL_SELECT);
	WcKeyRange *kr = wc_table_range(t);

	if (!PG_ARGISNULL(1))
		kr->start = key_arg(fcinfo, 1, t, &kr->start_len);
	if (!PG_ARGISNULL(2))
		kr->end = key_arg(fcinfo, 2, t, &kr->end_len);
	PG_RETURN_INT64((int64) wc_client_estimate(wc_client_open_db(t), list_make1(kr)));
}

/*
 * wc_size_rows
 *		Before ANALYZE: the rows of the table (in *tuples) and, given the
 *		key ranges a scan reads (NIL: none), the rows in them (else -1).
 *
 * A walk of a few thousand entries from the start of the table tells the
 * bytes a row takes, and the rows of the table and of the ranges are their
 * bytes over that; a walk that reaches the end of the table, or of the
 * ranges, has counted their rows.  The table counts as 1,000 rows at
 * least, as it always has before ANALYZE.
 */
double
wc_size_rows(WcTable *t, List *ranges, double *tuples)
{
	uint32		db = wc_client_open_db(t);
	WcRowsAnswer a;
	double		row_bytes = WC_EST_ROW_BYTES;
	WcKnownSize *known = NULL;
	TimestampTz now = GetCurrentTimestamp();
	ListCell   *lc;

	foreach(lc, known_sizes)
	{
		WcKnownSize *k = lfirst(lc);

		if (k->serverid == t->serverid && strcmp(k->table, t->table) == 0)
			known = k;
	}
	if (known != NULL && now - known->at < WC_SIZE_KEEP_US)
	{
		*tuples = known->tuples;
		row_bytes = known->row_bytes;
	}
	else
	{
		wc_client_rows(db, list_make1(wc_table_range(t)), WC_SIZE_WALK_ENTRIES, &a);
		if (a.complete)
			*tuples = a.rows;
		else
		{
			if (a.walked_bytes > 0 && a.rows > 0)
				row_bytes = (double) a.walked_bytes / a.rows;
			*tuples = Max(a.rows, a.bytes / row_bytes);
		}
		*tuples = Max(1000, *tuples);
		if (known == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

			known = palloc0(sizeof(WcKnownSize));
			known->serverid = t->serverid;
			known->table = pstrdup(t->table);
			known_sizes = lappend(known_sizes, known);
			MemoryContextSwitchTo(old);
		}
		known->at = now;
		known->tuples = *tuples;
		known->row_bytes = row_bytes;
	}
	if (ranges == NIL)
		return -1;
	wc_client_rows(db, ranges, WC_RANGE_WALK_ENTRIES, &a);
	if (a.complete)
		return a.rows;
	return Min(*tuples, Max(a.rows, a.bytes / row_bytes));
}
