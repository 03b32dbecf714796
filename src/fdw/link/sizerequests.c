/*-------------------------------------------------------------------------
 *
 * sizerequests.c
 *	  The requests that ask the storage worker about a stored table's size
 *	  (ESTIMATE, SAMPLE, ROWS: the planner, ANALYZE, approximate_size,
 *	  sample_row_keys) or reclaim its space (COUNT, COMPACT).
 *
 * Each is one call on the link (client.c): written with common/wire.c,
 * answered in turn, the answer read back here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fdw/link/link.h"

/* The engine's estimate of the bytes stored in ranges. */
uint64
wc_client_estimate(uint32 db, List *ranges)
{
	StringInfoData msg;
	WcEstimateRequest req;
	WcReader	r;
	uint64		bytes;

	req.db = wc_client_db_id(db);
	req.nranges = list_length(ranges);
	req.ranges = wc_client_wire_ranges(ranges);
	initStringInfo(&msg);
	wc_write_estimate(&msg, &req);
	pfree(req.ranges);
	wc_client_call(&msg, &r);
	pfree(msg.data);
	if (!wc_read_estimate_answer(&r, &bytes))
		wc_client_unexpected_answer();
	return bytes;
}

/*
 * The split points of a stored table (escaped), as its engine has them
 * (LevelDB's index, Bigtable's SampleRowKeys): n row keys (unescaped) and the bytes before each; *total the
 * table's bytes.
 */
void
wc_client_sample(uint32 db, const uint8 *table, size_t tlen, uint64 *total,
				 int *n, WcBytes **keys, uint64 **offsets)
{
	StringInfoData msg;
	WcSampleRequest req;
	WcReader	r;

	req.db = wc_client_db_id(db);
	req.table.data = table;
	req.table.len = tlen;
	initStringInfo(&msg);
	wc_write_sample(&msg, &req);
	wc_client_call(&msg, &r);
	pfree(msg.data);
	if (!wc_read_sample_answer(&r, total, n, keys, offsets))
		wc_client_unexpected_answer();
}

/* The rows in ranges, as a walk of at most max_entries entries finds them. */
void
wc_client_rows(uint32 db, List *ranges, uint32 max_entries, WcRowsAnswer *a)
{
	StringInfoData msg;
	WcRowsRequest req;
	WcReader	r;

	req.db = wc_client_db_id(db);
	req.max_entries = max_entries;
	req.nranges = list_length(ranges);
	req.ranges = wc_client_wire_ranges(ranges);
	initStringInfo(&msg);
	wc_write_rows(&msg, &req);
	pfree(req.ranges);
	wc_client_call(&msg, &r);
	pfree(msg.data);
	if (!wc_read_rows_answer(&r, a))
		wc_client_unexpected_answer();
}

/* A COUNT or COMPACT request's answer. */
static uint64
reclaim_call(StringInfo msg)
{
	WcReader	r;
	uint64		n;

	wc_client_call(msg, &r);
	pfree(msg->data);
	if (!wc_read_count_answer(&r, &n))
		wc_client_unexpected_answer();
	return n;
}

/*
 * The versions of a stored table (escaped), or of one of its families
 * (escaped; NULL: all), that a read could return now.
 */
uint64
wc_client_count(uint32 db, const uint8 *table, size_t tlen,
				const uint8 *family, size_t flen)
{
	StringInfoData msg;
	WcReclaimRequest req;

	req.db = wc_client_db_id(db);
	req.table.data = table;
	req.table.len = tlen;
	req.family.data = family;
	req.family.len = family ? flen : 0;
	initStringInfo(&msg);
	wc_write_count(&msg, &req);
	return reclaim_call(&msg);
}

/* Delete what no read can return of a table (escaped; NULL: all); how many. */
uint64
wc_client_compact(uint32 db, const uint8 *table, size_t tlen)
{
	StringInfoData msg;
	WcReclaimRequest req;

	req.db = wc_client_db_id(db);
	req.table.data = table;
	req.table.len = table ? tlen : 0;
	req.family.data = NULL;
	req.family.len = 0;
	initStringInfo(&msg);
	wc_write_compact(&msg, &req);
	return reclaim_call(&msg);
}
