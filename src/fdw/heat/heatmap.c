/*-------------------------------------------------------------------------
 *
 * heatmap.c
 *	  What the storage worker counted of the reads and writes of stored
 *	  tables: widecolumn.key_heatmap (Key Visualizer's heat map, as rows),
 *	  the view widecolumn.stat_tables and widecolumn.stat_reset.
 *
 * The worker keeps the counters (worker/heat.c, docs/heatmap.md): per
 * table a column per minute, each splitting the keys into ranges of its
 * own.  key_heatmap puts the minutes into the buckets asked for; where
 * the minutes of one bucket split the keys differently, it uses every
 * boundary of them, and spreads each minute's count over the finer
 * ranges its range covers, evenly.  So a bucket's ranges are ordered and
 * disjoint, and a bucket's values add up to what was counted in it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_foreign_server.h"
#include "catalog/pg_type.h"
#include "foreign/foreign.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "common/keycodec.h"
#include "common/scanuse.h"
#include "common/wireheat.h"
#include "fdw/fdw.h"
#include "fdw/link/link.h"
#include "fdw/model/model.h"

PG_FUNCTION_INFO_V1(wc_key_heatmap);
PG_FUNCTION_INFO_V1(wc_stat_get_tables);
PG_FUNCTION_INFO_V1(wc_stat_reset);

/* Buckets key_heatmap gives at most. */
#define WC_HEATMAP_MAX_BUCKETS	10000


static void
require(FunctionCallInfo fcinfo, int n, const char *name)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"%s\" must not be null", name)));
}

/* The counter of a metric's name; errors for another name. */
static int
metric_counter(const char *metric)
{
	static const char *const names[WC_HEAT_NCOUNTERS] = {
		[WC_HEAT_READS] = "reads",
		[WC_HEAT_SCANNED] = "scanned",
		[WC_HEAT_WRITES] = "writes",
		[WC_HEAT_BYTES_READ] = "bytes_read",
		[WC_HEAT_BYTES_WRITTEN] = "bytes_written",
	};

	for (int i = 0; i < WC_HEAT_NCOUNTERS; i++)
		if (strcmp(metric, names[i]) == 0)
			return i;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unrecognized heat map metric \"%s\"", metric),
			 errhint("The metrics are reads, writes, scanned, bytes_read and bytes_written.")));
	return 0;					/* keep the compiler quiet */
}

/*
 * key_text
 *		A row key (or a range's start: a prefix of one) as text: as it is
 *		when it is valid text in the database's encoding and the table's
 *		keys are text, else in bytea's text form, '\x' and hex digits.
 */
static Datum
key_text(WcTable *t, const uint8 *data, size_t len)
{
	bool		bytea_key = t->nparts == 0 && t->cols[t->rowkey_attnum - 1].type == BYTEAOID;

	if (!bytea_key && memchr(data, 0, len) == NULL &&
		pg_verifymbstr((const char *) data, (int) len, true))
		return PointerGetDatum(cstring_to_text_with_len((const char *) data, (int) len));
	{
		bytea	   *b = palloc(VARHDRSZ + len);

		SET_VARSIZE(b, VARHDRSZ + len);
		memcpy(VARDATA(b), data, len);
		return DirectFunctionCall1(textin, DirectFunctionCall1(byteaout, PointerGetDatum(b)));
	}
}

static int
bytes_cmp(const void *a, const void *b)
{
	const WcBytes *x = a,
			   *y = b;

	return wc_compare_bytes(x->data, x->len, y->data, y->len);
}

/* The position of key in the sorted, distinct keys[0, n). */
static int
key_index(const WcBytes *keys, int n, WcBytes key)
{
	const WcBytes *found = bsearch(&key, keys, n, sizeof(WcBytes), bytes_cmp);

	Assert(found != NULL);
	return (int) (found - keys);
}

/*
 * put_bucket
 *		The rows of one output bucket: the columns cols[0, n), their ranges
 *		refined to every boundary any of them has.
 */
static void
put_bucket(ReturnSetInfo *rsinfo, WcTable *t, TimestampTz start, int counter,
		   const WcHeatAnswerColumn *cols, int n)
{
	int			nkeys = 0;
	WcBytes    *keys;
	double	   *acc;
	int			distinct = 0;

	for (int i = 0; i < n; i++)
		nkeys += cols[i].nranges;
	if (nkeys == 0)
		return;
	keys = palloc(sizeof(WcBytes) * nkeys);
	nkeys = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < cols[i].nranges; j++)
			keys[nkeys++] = cols[i].keys[j];
	qsort(keys, nkeys, sizeof(WcBytes), bytes_cmp);
	for (int i = 0; i < nkeys; i++)
		if (distinct == 0 || bytes_cmp(&keys[distinct - 1], &keys[i]) != 0)
			keys[distinct++] = keys[i];
	acc = palloc0(sizeof(double) * distinct);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < cols[i].nranges; j++)
		{
			uint64		v = cols[i].counters[j * WC_HEAT_NCOUNTERS + counter];
			int			from = key_index(keys, distinct, cols[i].keys[j]);
			int			to = j + 1 < cols[i].nranges ?
				key_index(keys, distinct, cols[i].keys[j + 1]) : distinct;

			for (int k = from; k < to; k++)
				acc[k] += (double) v / (to - from);
		}
	for (int k = 0; k < distinct; k++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		if (acc[k] <= 0)
			continue;
		values[0] = TimestampTzGetDatum(start);
		values[1] = key_text(t, keys[k].data, keys[k].len);
		if (k + 1 < distinct)
			values[2] = key_text(t, keys[k + 1].data, keys[k + 1].len);
		else
			nulls[2] = true;
		values[3] = Float8GetDatum(acc[k]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(acc);
	pfree(keys);
}

/*
 * wc_key_heatmap
 *		widecolumn.key_heatmap(t regclass, metric text DEFAULT 'reads',
 *		since timestamptz DEFAULT now() - interval '1 hour', buckets int
 *		DEFAULT 60) RETURNS TABLE (bucket_start timestamptz, start_key
 *		text, end_key text, value double precision)
 *
 * The time from since to now in buckets of equal length, and in each the
 * key ranges that had some of the metric; the last range of a bucket has
 * no end (NULL).  A minute of the worker's counts goes to the bucket its
 * start is in (since's bucket, for the minute since is in).
 */
Datum
wc_key_heatmap(PG_FUNCTION_ARGS)
{
	WcTable    *t = wc_table_arg(fcinfo, ACL_SELECT);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			counter;
	TimestampTz since;
	TimestampTz now = GetCurrentTimestamp();
	int			buckets;
	int64		width;
	StringInfoData msg;
	WcReader	r;
	WcHeatRequest req;
	int			ncols;
	WcHeatAnswerColumn *cols;

	if (t->engine == WC_ENGINE_BIGTABLE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("key_heatmap() does not apply to a table on a Bigtable server"),
				 errdetail("The storage worker counts key accesses only for LevelDB servers; Bigtable counts its own."),
				 errhint("Use Key Visualizer, in the Google Cloud console's Bigtable pages, for the table's heat map.")));
	require(fcinfo, 1, "metric");
	require(fcinfo, 2, "since");
	require(fcinfo, 3, "buckets");
	counter = metric_counter(text_to_cstring(PG_GETARG_TEXT_PP(1)));
	since = PG_GETARG_TIMESTAMPTZ(2);
	buckets = PG_GETARG_INT32(3);
	if (buckets <= 0 || buckets > WC_HEATMAP_MAX_BUCKETS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of heat map buckets must be between 1 and %d",
						WC_HEATMAP_MAX_BUCKETS),
				 errdetail("It is %d.", buckets)));
	if (TIMESTAMP_NOT_FINITE(since) || since >= now)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("heat map start \"since\" must be a time before now")));
	width = Max((now - since) / buckets, 1);

	InitMaterializedSRF(fcinfo, 0);
	req.db = wc_client_db_id(wc_client_open_db(t));
	req.table.data = t->table_key;
	req.table.len = t->table_key_len;
	req.since = since + WC_UNIX_TO_PG_US < 0 ? 0 : (uint64) (since + WC_UNIX_TO_PG_US);
	initStringInfo(&msg);
	wc_write_heat(&msg, &req);
	wc_client_call(&msg, &r);
	pfree(msg.data);
	if (!wc_read_heat_answer(&r, &ncols, &cols))
		wc_client_unexpected_answer();

	/* columns come oldest first: each bucket's are a run */
	for (int i = 0; i < ncols;)
	{
		TimestampTz start = (TimestampTz) cols[i].start - WC_UNIX_TO_PG_US;
		int64		b = (Max(start, since) - since) / width;
		int			n = 1;

		b = Min(b, buckets - 1);
		while (i + n < ncols &&
			   Min((Max((TimestampTz) cols[i + n].start - WC_UNIX_TO_PG_US, since) - since) / width,
				   buckets - 1) == b)
			n++;
		put_bucket(rsinfo, t, since + b * width, counter, &cols[i], n);
		i += n;
	}
	return (Datum) 0;
}

/* A time the worker gave (µs since the Unix epoch; 0: none) as a Datum. */
static Datum
worker_time(uint64 us, bool *isnull)
{
	*isnull = us == 0;
	return TimestampTzGetDatum((TimestampTz) us - WC_UNIX_TO_PG_US);
}

/*
 * stats_call
 *		The worker's STATS for a server's database, or false if the server
 *		has stored nothing yet (its directory does not exist: asking would
 *		create it).
 */
static bool
stats_call(Oid serverid, bool reset, int *n, WcStatsAnswerTable **tables)
{
	WcTable    *meta = wc_get_meta_table(serverid);
	struct stat st;
	StringInfoData msg;
	WcReader	r;
	WcStatsRequest req;

	if (meta->engine == WC_ENGINE_BIGTABLE || stat(meta->path, &st) != 0)
		return false;
	req.db = wc_client_db_id(wc_client_open_db(meta));
	req.reset = reset;
	initStringInfo(&msg);
	wc_write_stats(&msg, &req);
	wc_client_call(&msg, &r);
	pfree(msg.data);
	if (!wc_read_stats_answer(&r, n, tables))
		wc_client_unexpected_answer();
	return true;
}

/* The widecolumn_fdw servers of this database, by OID. */
static List *
our_servers(void)
{
	Relation	rel = table_open(ForeignServerRelationId, AccessShareLock);
	TableScanDesc scan = table_beginscan_catalog(rel, 0, NULL);
	HeapTuple	tup;
	List	   *servers = NIL;

	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_foreign_server srv = (Form_pg_foreign_server) GETSTRUCT(tup);
		ForeignDataWrapper *fdw = GetForeignDataWrapper(srv->srvfdw);

		if (OidIsValid(fdw->fdwhandler) &&
			strcmp(get_func_name(fdw->fdwhandler), "widecolumn_fdw_handler") == 0)
			servers = lappend_oid(servers, srv->oid);
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	return servers;
}

/*
 * wc_stat_get_tables
 *		The rows of the view widecolumn.stat_tables: for each stored table
 *		of each widecolumn_fdw server the user has USAGE on (every server
 *		for members of pg_read_all_stats), what the worker counted.
 */
Datum
wc_stat_get_tables(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		all = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	foreach(lc, our_servers())
	{
		Oid			serverid = lfirst_oid(lc);
		int			n;
		WcStatsAnswerTable *tables;

		if (!all &&
			pg_foreign_server_aclcheck(serverid, GetUserId(), ACL_USAGE) != ACLCHECK_OK)
			continue;
		if (!stats_call(serverid, false, &n, &tables))
			continue;
		for (int i = 0; i < n; i++)
		{
			WcStatsAnswerTable *a = &tables[i];
			Datum		values[11];
			bool		nulls[11] = {false};
			uint8	   *name = palloc(a->table.len + 1);
			size_t		consumed,
						len;

			if (wc_unescape(a->table.data, a->table.len, name, &consumed, &len) != 0)
				wc_client_unexpected_answer();
			values[0] = CStringGetDatum(GetForeignServer(serverid)->servername);
			values[0] = DirectFunctionCall1(namein, values[0]);
			values[1] = PointerGetDatum(cstring_to_text_with_len((char *) name, (int) len));
			for (int k = 0; k < WC_STAT_NCOUNTERS; k++)
				values[2 + k] = Int64GetDatum((int64) a->totals[k]);
			values[8] = Int64GetDatum((int64) a->approx_bytes);
			values[9] = worker_time(a->last_sweep, &nulls[9]);
			values[10] = worker_time(a->stats_reset, &nulls[10]);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	return (Datum) 0;
}

/*
 * wc_stat_reset
 *		widecolumn.stat_reset() RETURNS void: zero the counters of
 *		widecolumn.stat_tables, of every table of every widecolumn_fdw
 *		server of this database, and what backends' scans counted of them
 *		(the advisor's scans_exceed_reads).  The heat map's history stays.
 *		Who may call it is a grant (the install script revokes it from
 *		PUBLIC).
 */
Datum
wc_stat_reset(PG_FUNCTION_ARGS)
{
	ListCell   *lc;

	foreach(lc, our_servers())
	{
		int			n;
		WcStatsAnswerTable *tables;

		(void) stats_call(lfirst_oid(lc), true, &n, &tables);
	}
	wc_scanuse_reset(MyDatabaseId);
	PG_RETURN_VOID();
}
