/*-------------------------------------------------------------------------
 *
 * workerstats.c
 *	  The storage worker's own figures (widecolumn.stat_worker and
 *	  stat_worker_info), counted on the main thread, and its engines'
 *	  (widecolumn.stat_leveldb: engine.h's describe), given out by the
 *	  STAT_WORKER and STAT_DATABASES requests.
 *
 * A request's latency runs from when the main loop takes it off its
 * session's queue to when its answer is ready: for a request answered later
 * (a commit the commit writer writes, a batch a reader thread fills, a
 * COUNT or compact, a COMMIT held behind a large commit) main.c looks again
 * on its next turn at that session, so the figure includes the wait for the
 * thread or the other work.  Each request type has a histogram of fixed
 * size (16 buckets of a microsecond, then 8 per power of two up to 2^36
 * µs, so that a p99 is within 12.5%), counted on the main thread only: no
 * lock, two clock reads per request.  The figures live as long as the
 * worker; a restart of the worker starts them again (started says when).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "port/pg_bitutils.h"
#include "portability/instr_time.h"
#include "utils/timestamp.h"

#include "worker/worker.h"

#define WC_HIST_LINEAR		16	/* 0 .. 15 µs, a bucket each */
#define WC_HIST_SUB			8	/* buckets per power of two above */
#define WC_HIST_MAX_BIT		36
#define WC_HIST_BUCKETS		(WC_HIST_LINEAR + (WC_HIST_MAX_BIT - 3) * WC_HIST_SUB)

typedef struct WcReqCounters
{
	uint64		calls;
	uint64		total_us;
	uint64		max_us;
	uint64		deferred;
	uint64		hist[WC_HIST_BUCKETS];
} WcReqCounters;

static struct
{
	TimestampTz started;
	WcReqCounters req[WC_STAT_MAX_TYPES];
	uint64		commits;
	uint64		large_commits;
	uint64		answer_waits;
	WcReqCounters queue;		/* requests' waits in their queue */
	bool		idle;			/* the last pass found nothing to do */
	instr_time	idle_since;
	uint64		idle_us;
} st;

/* The bucket of a latency: exact below 16 µs, then 8 per power of two. */
static int
bucket_of(uint64 us)
{
	int			bit;

	if (us < WC_HIST_LINEAR)
		return (int) us;
	bit = pg_leftmost_one_pos64(us);
	if (bit > WC_HIST_MAX_BIT)
		return WC_HIST_BUCKETS - 1;
	return WC_HIST_LINEAR + (bit - 4) * WC_HIST_SUB +
		(int) ((us >> (bit - 3)) & (WC_HIST_SUB - 1));
}

/* The highest latency of bucket b. */
static uint64
bucket_top(int b)
{
	int			bit;
	uint64		sub;

	if (b < WC_HIST_LINEAR)
		return (uint64) b;
	bit = (b - WC_HIST_LINEAR) / WC_HIST_SUB + 4;
	sub = (b - WC_HIST_LINEAR) % WC_HIST_SUB;
	return ((WC_HIST_SUB + sub + 1) << (bit - 3)) - 1;
}

/* The worker starts: its figures start with it. */
void
wc_stat_init(void)
{
	memset(&st, 0, sizeof(st));
	st.started = GetCurrentTimestamp();
}

static void
count(WcReqCounters *rc, uint64 us)
{
	rc->calls++;
	rc->total_us += us;
	rc->max_us = Max(rc->max_us, us);
	rc->hist[bucket_of(us)]++;
}

static void
record(uint8 type, instr_time start)
{
	instr_time	now;

	if (type >= WC_STAT_MAX_TYPES)
		return;
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	count(&st.req[type], INSTR_TIME_GET_MICROSEC(now));
}

/*
 * wc_stat_queued
 *		A request waited us in its queue before the main loop took it (the
 *		backend noted when it queued it: progress.c); -1: not noted.
 */
void
wc_stat_queued(int64 us)
{
	if (us >= 0)
		count(&st.queue, (uint64) us);
}

/*
 * wc_stat_served
 *		c's request of type, taken at start, has been served: counted now
 *		if its answer is ready (or it has none), else when it is.
 */
void
wc_stat_served(WcClient *c, uint8 type, instr_time start)
{
	if (wc_msg_answered(type) && !c->answer_pending)
	{
		if (type < WC_STAT_MAX_TYPES)
			st.req[type].deferred++;
		c->stat_type = type;
		c->stat_start = start;
		return;
	}
	record(type, start);
}

/* On each turn at c: a request answered later is counted once it is. */
void
wc_stat_turn(WcClient *c)
{
	if (c->stat_type != 0 && c->answer_pending)
	{
		record(c->stat_type, c->stat_start);
		c->stat_type = 0;
	}
}

/* c's answer found its queue full (once per answer). */
void
wc_stat_answer_blocked(WcClient *c)
{
	if (!c->stat_blocked)
		st.answer_waits++;
	c->stat_blocked = true;
}

/* A COMMIT that wrote; large: in chunks (largecommit.c). */
void
wc_stat_commit(bool large)
{
	st.commits++;
	if (large)
		st.large_commits++;
}

/*
 * wc_stat_pass
 *		A pass of the main loop did work (busy) or found none: the time from
 *		the first idle pass to the next busy one is idle, a clock read at
 *		each change only.
 */
void
wc_stat_pass(bool busy)
{
	instr_time	now;

	if (busy == !st.idle)
		return;
	INSTR_TIME_SET_CURRENT(now);
	if (busy)
	{
		INSTR_TIME_SUBTRACT(now, st.idle_since);
		st.idle_us += INSTR_TIME_GET_MICROSEC(now);
	}
	else
		st.idle_since = now;
	st.idle = !busy;
}

/* The 99th percentile of rc's latencies: its bucket's top. */
static uint64
p99(const WcReqCounters *rc)
{
	uint64		want = rc->calls - rc->calls / 100;
	uint64		seen = 0;

	for (int b = 0; b < WC_HIST_BUCKETS; b++)
	{
		seen += rc->hist[b];
		if (seen >= want && seen > 0)
			return Min(bucket_top(b), rc->max_us);
	}
	return 0;
}

void
wc_serve_stat_worker(WcClient *c, WcReader *r)
{
	WcWorkerStats s;
	TimestampTz now = GetCurrentTimestamp();
	uint64		idle = st.idle_us;

	if (!wc_read_stat_worker(r))
		wc_malformed("STAT_WORKER");
	memset(&s, 0, sizeof(s));
	if (st.idle)
	{
		instr_time	t;

		INSTR_TIME_SET_CURRENT(t);
		INSTR_TIME_SUBTRACT(t, st.idle_since);
		idle += INSTR_TIME_GET_MICROSEC(t);
	}
	s.started = st.started;
	s.elapsed_us = now > st.started ? (uint64) (now - st.started) : 0;
	s.busy_us = s.elapsed_us > idle ? s.elapsed_us - idle : 0;
	s.commits = st.commits;
	s.large_commits = st.large_commits;
	for (int e = 0; e < wc_nengines; e++)
		s.fsyncs += wc_engines[e]->fsyncs();
	s.answer_waits = st.answer_waits;
	s.queue_waits = st.queue.calls;
	s.queue_wait_us = st.queue.total_us;
	s.queue_wait_p99_us = p99(&st.queue);
	s.queue_wait_max_us = st.queue.max_us;
	for (int t = 1; t < WC_STAT_MAX_TYPES; t++)
	{
		const WcReqCounters *rc = &st.req[t];
		WcRequestStats *o;

		if (rc->calls == 0 && rc->deferred == 0)
			continue;
		o = &s.types[s.ntypes++];
		o->type = (uint8) t;
		o->calls = rc->calls;
		o->total_us = rc->total_us;
		o->p99_us = p99(rc);
		o->max_us = rc->max_us;
		o->deferred = rc->deferred;
	}
	wc_write_stat_worker_answer(&c->answer, &s);
}

void
wc_serve_stat_databases(WcClient *c, WcReader *r)
{
	uint32		n = 0;
	WcDatabase *db;

	if (!wc_read_stat_databases(r))
		wc_malformed("STAT_DATABASES");
	for (uint32 id = 0; (db = wc_db_nth(id)) != NULL; id++)
		if (db->engine->describe != NULL)
			n++;
	wc_write_stat_databases_answer(&c->answer, n);
	for (uint32 id = 0; (db = wc_db_nth(id)) != NULL; id++)
	{
		WcDbStats	s;

		memset(&s, 0, sizeof(s));
		if (db->engine->describe == NULL)
			continue;
		db->engine->describe(db, &s);
		wc_write_stat_database(&c->answer, &s);
	}
}
