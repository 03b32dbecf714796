/*-------------------------------------------------------------------------
 *
 * statworker.c
 *	  The storage worker's figures as SQL: widecolumn.stat_worker (a row per
 *	  request type), stat_worker_info (one row: the worker as a whole) and
 *	  stat_leveldb (a row per LevelDB database the worker has open).
 *
 * The shape follows pg_stat_statements and pg_stat_statements_info: the
 * figures that have a row per kind of thing in one view, the ones that
 * exist once in another.  Each asks the worker (STAT_WORKER,
 * STAT_DATABASES) and so shows the running worker's figures: they start
 * again when it restarts (stat_worker_info.started).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_foreign_server.h"
#include "catalog/pg_type.h"
#include "foreign/foreign.h"
#include "funcapi.h"
#include "port.h"
#include "storage/spin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "common/shmem.h"
#include "fdw/link/link.h"
#include "fdw/model/model.h"

PG_FUNCTION_INFO_V1(wc_stat_worker);
PG_FUNCTION_INFO_V1(wc_stat_worker_info);
PG_FUNCTION_INFO_V1(wc_stat_leveldb);

/* The request types by name, as stat_worker shows them. */
static const char *const request_names[WC_STAT_MAX_TYPES] = {
	[WC_REQ_OPEN] = "open",
	[WC_REQ_SNAPSHOT] = "snapshot",
	[WC_REQ_RELEASE] = "release",
	[WC_REQ_SCAN] = "scan",
	[WC_REQ_NEXT] = "next",
	[WC_REQ_CLOSE] = "close",
	[WC_REQ_WRITE] = "write",
	[WC_REQ_COMMIT] = "commit",
	[WC_REQ_ABORT] = "abort",
	[WC_REQ_ESTIMATE] = "estimate",
	[WC_REQ_COUNT] = "count",
	[WC_REQ_COMPACT] = "compact",
	[WC_REQ_SAMPLE] = "sample",
	[WC_REQ_ROWS] = "rows",
	[WC_REQ_SHARE] = "share",
	[WC_REQ_ATTACH] = "attach",
	[WC_REQ_HEAT] = "heat",
	[WC_REQ_STATS] = "stats",
	[WC_REQ_STAT_WORKER] = "stat_worker",
	[WC_REQ_STAT_DATABASES] = "stat_databases",
};

static void
ask_worker(StringInfo msg, WcReader *r)
{
	wc_client_link();
	wc_client_call(msg, r);
}

/* The worker's figures, asked for now. */
static void
worker_stats(WcWorkerStats *s)
{
	StringInfoData msg;
	WcReader	r;

	initStringInfo(&msg);
	wc_write_stat_worker(&msg);
	ask_worker(&msg, &r);
	if (!wc_read_stat_worker_answer(&r, s))
		wc_client_unexpected_answer();
}

static double
ms(uint64 us)
{
	return (double) us / 1000.0;
}

/*
 * widecolumn.stat_worker() RETURNS TABLE (request text, calls bigint,
 *		total_ms float8, mean_ms float8, p99_ms float8, max_ms float8,
 *		deferred bigint)
 */
Datum
wc_stat_worker(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	WcWorkerStats s;

	InitMaterializedSRF(fcinfo, 0);
	worker_stats(&s);
	for (int i = 0; i < s.ntypes; i++)
	{
		const WcRequestStats *t = &s.types[i];
		Datum		values[7];
		bool		nulls[7] = {0};

		values[0] = CStringGetTextDatum(request_names[t->type] ?
										request_names[t->type] :
										psprintf("%u", (unsigned) t->type));
		values[1] = Int64GetDatum((int64) t->calls);
		values[2] = Float8GetDatum(ms(t->total_us));
		nulls[3] = t->calls == 0;
		values[3] = Float8GetDatum(t->calls ? ms(t->total_us) / t->calls : 0);
		values[4] = Float8GetDatum(ms(t->p99_us));
		values[5] = Float8GetDatum(ms(t->max_us));
		values[6] = Int64GetDatum((int64) t->deferred);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * widecolumn.stat_worker_info() RETURNS TABLE (pid int, started
 *		timestamptz, busy_fraction float8, commits bigint, large_commits
 *		bigint, fsyncs bigint, answer_waits bigint, queue_waits bigint,
 *		queue_wait_mean_ms float8, queue_wait_p99_ms float8,
 *		queue_wait_max_ms float8)
 */
Datum
wc_stat_worker_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	WcWorkerStats s;
	Datum		values[11];
	bool		nulls[11] = {0};
	pid_t		pid;

	InitMaterializedSRF(fcinfo, 0);
	worker_stats(&s);
	SpinLockAcquire(&wc_shared->mutex);
	pid = wc_shared->worker_pid;
	SpinLockRelease(&wc_shared->mutex);

	values[0] = Int32GetDatum((int32) pid);
	values[1] = TimestampTzGetDatum((TimestampTz) s.started);
	nulls[2] = s.elapsed_us == 0;
	values[2] = Float8GetDatum(s.elapsed_us ? (double) s.busy_us / s.elapsed_us : 0);
	values[3] = Int64GetDatum((int64) s.commits);
	values[4] = Int64GetDatum((int64) s.large_commits);
	values[5] = Int64GetDatum((int64) s.fsyncs);
	values[6] = Int64GetDatum((int64) s.answer_waits);
	values[7] = Int64GetDatum((int64) s.queue_waits);
	nulls[8] = s.queue_waits == 0;
	values[8] = Float8GetDatum(s.queue_waits ? s.queue_wait_us / 1000.0 / s.queue_waits : 0);
	values[9] = Float8GetDatum(s.queue_wait_p99_us / 1000.0);
	values[10] = Float8GetDatum(s.queue_wait_max_us / 1000.0);
	nulls[9] = nulls[10] = nulls[8];
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}

/*
 * server_of
 *		The widecolumn_fdw server of this database whose LevelDB database is
 *		at path (as the worker made it canonical), or NULL: the worker
 *		serves every database of the cluster, and only this one's servers
 *		can be named here.
 */
static char *
server_of(const char *path)
{
	Relation	rel = table_open(ForeignServerRelationId, AccessShareLock);
	SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	HeapTuple	tup;
	char	   *found = NULL;

	while (found == NULL && (tup = systable_getnext(scan)) != NULL)
	{
		Form_pg_foreign_server srv = (Form_pg_foreign_server) GETSTRUCT(tup);
		ForeignDataWrapper *fdw = GetForeignDataWrapper(srv->srvfdw);
		char	   *mine;

		if (!OidIsValid(fdw->fdwhandler) ||
			strcmp(get_func_name(fdw->fdwhandler), "widecolumn_fdw_handler") != 0)
			continue;
		mine = pstrdup(wc_get_meta_table(srv->oid)->path);
		canonicalize_path(mine);
		if (strcmp(mine, path) == 0)
			found = pstrdup(NameStr(srv->srvname));
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

static Datum
int_array(const Datum *d, int n, Oid type)
{
	return PointerGetDatum(construct_array(unconstify(Datum *, d), n, type,
										   type == INT4OID ? 4 : 8, true,
										   type == INT4OID ? TYPALIGN_INT : TYPALIGN_DOUBLE));
}

/*
 * widecolumn.stat_leveldb() RETURNS TABLE (server name, path text, open
 *		bool, files_per_level int[], mb_per_level bigint[], compactions
 *		bigint, compaction_seconds bigint, compaction_read_mb bigint,
 *		compaction_write_mb bigint, stats text)
 */
Datum
wc_stat_leveldb(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StringInfoData msg;
	WcReader	r;
	uint32		n;

	InitMaterializedSRF(fcinfo, 0);
	initStringInfo(&msg);
	wc_write_stat_databases(&msg);
	ask_worker(&msg, &r);
	if (!wc_read_stat_databases_answer(&r, &n) || (n == 0 && wc_reader_left(&r) != 0))
		wc_client_unexpected_answer();
	for (uint32 i = 0; i < n; i++)
	{
		WcDbStats	s;
		Datum		values[10];
		bool		nulls[10] = {0};
		Datum		files[WC_STAT_LEVELS];
		Datum		mb[WC_STAT_LEVELS];
		char	   *path;
		char	   *server;

		if (!wc_read_stat_database(&r, &s, i == n - 1))
			wc_client_unexpected_answer();
		path = pnstrdup((const char *) s.path.data, s.path.len);
		server = server_of(path);
		for (int l = 0; l < WC_STAT_LEVELS; l++)
		{
			files[l] = Int32GetDatum((int32) s.files[l]);
			mb[l] = Int64GetDatum((int64) s.size_mb[l]);
		}
		nulls[0] = server == NULL;
		if (server)
		{
			Name		nm = palloc0(NAMEDATALEN);

			namestrcpy(nm, server);
			values[0] = NameGetDatum(nm);
		}
		values[1] = CStringGetTextDatum(path);
		values[2] = BoolGetDatum(s.open);
		nulls[3] = nulls[4] = nulls[9] = !s.open;
		values[3] = int_array(files, WC_STAT_LEVELS, INT4OID);
		values[4] = int_array(mb, WC_STAT_LEVELS, INT8OID);
		values[5] = Int64GetDatum((int64) s.compactions);
		values[6] = Int64GetDatum((int64) s.compaction_seconds);
		values[7] = Int64GetDatum((int64) s.compaction_read_mb);
		values[8] = Int64GetDatum((int64) s.compaction_write_mb);
		values[9] = PointerGetDatum(cstring_to_text_with_len((const char *) s.stats.data,
															  s.stats.len));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
