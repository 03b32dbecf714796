/*-------------------------------------------------------------------------
 *
 * tablesizes.c
 *	  How big a foreign table, or a range of its rows, is, as LevelDB
 *	  estimates it: the SQL functions widecolumn.sample_row_keys
 *	  (Bigtable's SampleRowKeys) and widecolumn.approximate_size.
 *
 * LevelDB estimates the bytes between two keys from its table files'
 * indexes (worker/sizes.c), without reading the data, and does not count
 * what is still in its memtable: the writes since it last wrote one to a
 * file, up to the server's write_buffer_size.  (The planner's row counts
 * before ANALYZE, estimate.c, walk entries instead, the memtable's too.)
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

#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/link/link.h"
#include "fdw/model/model.h"

PG_FUNCTION_INFO_V1(wc_sample_row_keys);
PG_FUNCTION_INFO_V1(wc_approximate_size);

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
