/*-------------------------------------------------------------------------
 *
 * wirestats.c
 *	  The messages that carry the storage worker's figures: STAT_WORKER
 *	  (requests served, latencies, commits, fsyncs, busy time) and
 *	  STAT_DATABASES (LevelDB's own figures), read and written here only.
 *
 * Their layout is fixed by the structs in wire.h: every field in order,
 * integers as the primitives write them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/wire_int.h"

void
wc_write_stat_worker(StringInfo buf)
{
	begin(buf, WC_REQ_STAT_WORKER);
}

bool
wc_read_stat_worker(WcReader *r)
{
	if (!expect_type(r, WC_REQ_STAT_WORKER))
		return fail(r);
	return finish(r);
}

void
wc_write_stat_databases(StringInfo buf)
{
	begin(buf, WC_REQ_STAT_DATABASES);
}

bool
wc_read_stat_databases(WcReader *r)
{
	if (!expect_type(r, WC_REQ_STAT_DATABASES))
		return fail(r);
	return finish(r);
}

void
wc_write_stat_worker_answer(StringInfo buf, const WcWorkerStats *s)
{
	begin(buf, WC_RESP_OK);
	wc_put_u64(buf, (uint64) s->started);
	wc_put_u64(buf, s->elapsed_us);
	wc_put_u64(buf, s->busy_us);
	wc_put_u64(buf, s->commits);
	wc_put_u64(buf, s->large_commits);
	wc_put_u64(buf, s->fsyncs);
	wc_put_u64(buf, s->answer_waits);
	wc_put_u64(buf, s->queue_waits);
	wc_put_u64(buf, s->queue_wait_us);
	wc_put_u64(buf, s->queue_wait_p99_us);
	wc_put_u64(buf, s->queue_wait_max_us);
	wc_put_u32(buf, (uint32) s->ntypes);
	for (int i = 0; i < s->ntypes; i++)
	{
		const WcRequestStats *t = &s->types[i];

		appendStringInfoChar(buf, (char) t->type);
		wc_put_u64(buf, t->calls);
		wc_put_u64(buf, t->total_us);
		wc_put_u64(buf, t->p99_us);
		wc_put_u64(buf, t->max_us);
		wc_put_u64(buf, t->deferred);
	}
}

bool
wc_read_stat_worker_answer(WcReader *r, WcWorkerStats *s)
{
	uint32		n;

	if (!expect_type(r, WC_RESP_OK))
		return fail(r);
	s->started = (int64) wc_get_u64(r);
	s->elapsed_us = wc_get_u64(r);
	s->busy_us = wc_get_u64(r);
	s->commits = wc_get_u64(r);
	s->large_commits = wc_get_u64(r);
	s->fsyncs = wc_get_u64(r);
	s->answer_waits = wc_get_u64(r);
	s->queue_waits = wc_get_u64(r);
	s->queue_wait_us = wc_get_u64(r);
	s->queue_wait_p99_us = wc_get_u64(r);
	s->queue_wait_max_us = wc_get_u64(r);
	n = wc_get_u32(r);
	if (n > WC_STAT_MAX_TYPES)
		return fail(r);
	s->ntypes = (int) n;
	for (int i = 0; i < s->ntypes; i++)
	{
		WcRequestStats *t = &s->types[i];

		t->type = wc_get_u8(r);
		t->calls = wc_get_u64(r);
		t->total_us = wc_get_u64(r);
		t->p99_us = wc_get_u64(r);
		t->max_us = wc_get_u64(r);
		t->deferred = wc_get_u64(r);
	}
	return finish(r);
}

/* The answer to STAT_DATABASES: this, then n wc_write_stat_database. */
void
wc_write_stat_databases_answer(StringInfo buf, uint32 n)
{
	begin(buf, WC_RESP_OK);
	wc_put_u32(buf, n);
}

void
wc_write_stat_database(StringInfo buf, const WcDbStats *s)
{
	wc_put_bytes(buf, s->path.data, s->path.len);
	appendStringInfoChar(buf, s->open ? 1 : 0);
	for (int i = 0; i < WC_STAT_LEVELS; i++)
	{
		wc_put_u32(buf, s->files[i]);
		wc_put_u64(buf, s->size_mb[i]);
	}
	wc_put_u64(buf, s->compactions);
	wc_put_u64(buf, s->compaction_seconds);
	wc_put_u64(buf, s->compaction_read_mb);
	wc_put_u64(buf, s->compaction_write_mb);
	wc_put_bytes(buf, s->stats.data, s->stats.len);
}

bool
wc_read_stat_databases_answer(WcReader *r, uint32 *n)
{
	if (!expect_type(r, WC_RESP_OK))
		return fail(r);
	*n = wc_get_u32(r);
	/* each takes more than 100 bytes */
	if (*n > wc_reader_left(r) / 100)
		return fail(r);
	return !r->bad;
}

/* One database of the answer; the last must end the message. */
bool
wc_read_stat_database(WcReader *r, WcDbStats *s, bool last)
{
	s->path = wc_get_bytes(r);
	s->open = wc_get_u8(r) != 0;
	for (int i = 0; i < WC_STAT_LEVELS; i++)
	{
		s->files[i] = wc_get_u32(r);
		s->size_mb[i] = wc_get_u64(r);
	}
	s->compactions = wc_get_u64(r);
	s->compaction_seconds = wc_get_u64(r);
	s->compaction_read_mb = wc_get_u64(r);
	s->compaction_write_mb = wc_get_u64(r);
	s->stats = wc_get_bytes(r);
	return last ? finish(r) : !r->bad;
}
