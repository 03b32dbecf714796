/*-------------------------------------------------------------------------
 *
 * btsizes.c
 *	  A Bigtable table's sizes, from SampleRowKeys: the SAMPLE of
 *	  sample_row_keys() and of a parallel scan's split points, the
 *	  ESTIMATE of approximate_size() and ANALYZE, the planner's ROWS.
 *
 * The call is made on a thread of its own, as a commit's is (btcommit.c),
 * and the request answered once it is over (bt_sizes_collect): the main
 * thread never waits for Bigtable.  What a call brings is kept per table
 * for BT_SAMPLE_KEEP_US, and the planner's ROWS is answered from it at
 * once while it is that fresh, so that planning pays a call at most once
 * per table in that time, whatever the sessions; SAMPLE and ESTIMATE,
 * which a user asks for, always make one.
 *
 * The bytes between two keys are the sample's, at its granularity: the
 * offset of a key is that of the last sample at or before it, the end of
 * the table its total.  ROWS answers those bytes (not complete, no walk),
 * which the backend turns into rows at its own bytes per row.  The older
 * emulator sends no last sample for the table's end: its total is then
 * its last offset.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <pthread.h>

#include "utils/memutils.h"

#include "common/keycodec.h"
#include "worker/bigtable/bigtable.h"

/* How long a table's sample answers the planner (as btpolicies.c's). */
#define BT_SAMPLE_KEEP_US	(10 * 1000 * 1000)

/* A table's sample: keys ascending, each with the bytes before it. */
typedef struct BtSample
{
	char	   *table;			/* projects/P/instances/I/tables/T */
	int			n;
	uint8	  **keys;
	size_t	   *key_lens;
	uint64	   *offsets;
	uint64		total;
	uint64		at;				/* wc_unix_micros when it came */
	struct BtSample *next;
} BtSample;

typedef enum BtSizesKind
{
	BT_SIZES_SAMPLE,
	BT_SIZES_ESTIMATE,
	BT_SIZES_ROWS
} BtSizesKind;

/* A request waiting for its call (the thread fills the part below). */
typedef struct BtSizesJob
{
	BtJob		link;			/* first */
	WcClient   *client;
	WcBtDb	   *db;
	BtSizesKind kind;
	MemoryContext cxt;			/* the job and its ranges (main thread's) */
	char	   *table;
	WcBtRange  *ranges;			/* ESTIMATE, ROWS: as row keys */
	int			nranges;
	/* the thread's, malloc'd */
	int			n;
	int			cap;
	uint8	  **keys;
	size_t	   *key_lens;
	uint64	   *offsets;
	bool		ended;			/* a last sample with the empty key */
	bool		out_of_memory;	/* take_sample stopped the call for it */
	bool		ok;
	WcBtStatus	status;
	WcBtCancel	cancel;			/* bt_sizes_cancel: its backend gave up */
	struct BtSizesJob *next_out;	/* in under_way (main thread's) */
} BtSizesJob;

static BtJobs sizes_jobs = BT_JOBS_INIT;
static BtSizesJob *under_way = NULL;	/* started, not answered */

/*
 * The Bigtable table an escaped table name (a key's first component) is;
 * NULL for the table of families, which Bigtable does not hold (its rows
 * are GetTable's answers: btscan.c), so it has no size.
 */
static char *
table_name(WcBtDb *db, const uint8 *escaped, size_t len)
{
	size_t		nlen;
	char	   *path = bt_table_path(db, escaped, len, &nlen, "SAMPLE");

	return nlen == 0 ? NULL : path;
}

/*
 * The ranges of an ESTIMATE or ROWS request as row keys, into the job;
 * its table is their first component.
 */
static void
job_ranges(BtSizesJob *job, int nranges, const WcWireRange *wr)
{
	size_t		tlen = 0;

	job->ranges = palloc0(sizeof(WcBtRange) * Max(nranges, 1));
	if (nranges == 0)
	{
		job->table = NULL;
		return;
	}
	if (wc_component_end(wr[0].start.data, wr[0].start.len, &tlen) != 0)
		wc_malformed("ESTIMATE");
	job->table = table_name(job->db, wr[0].start.data, tlen);
	for (int i = 0; i < nranges; i++)
	{
		WcBtRange  *r = &job->ranges[job->nranges];
		uint8	   *buf;
		size_t		len;
		bool		adjust;

		if (wr[i].start.len < tlen || memcmp(wr[i].start.data, wr[0].start.data, tlen) != 0)
			wc_malformed("ESTIMATE");
		buf = palloc(wr[i].start.len - tlen + 1);
		bt_key_bound(wr[i].start.data + tlen, wr[i].start.len - tlen, false, buf, &len, &adjust);
		r->start = buf;
		r->start_len = len;
		/* an end past the table's keys, or none: the table's end */
		if (wr[i].end.len > tlen && memcmp(wr[i].end.data, wr[0].start.data, tlen) == 0)
		{
			buf = palloc(wr[i].end.len - tlen + 1);
			bt_key_bound(wr[i].end.data + tlen, wr[i].end.len - tlen, true, buf, &len, &adjust);
			r->end = buf;
			r->end_len = len;
		}
		job->nranges++;
	}
}

/* The sample could not be kept: the call stops, and says so. */
static bool
no_memory(BtSizesJob *job)
{
	job->out_of_memory = true;
	return false;
}

/* SampleRowKeys' callback, on the job's thread: the sample kept. */
static bool
take_sample(void *arg, const uint8_t *key, size_t len, int64_t offset)
{
	BtSizesJob *job = arg;
	uint8	   *copy;

	/* the empty key: the table's end, its offset the total */
	job->ended = len == 0;
	if (job->n == job->cap)
	{
		int			cap = job->cap == 0 ? 64 : job->cap * 2;
		uint8	  **keys = realloc(job->keys, sizeof(uint8 *) * cap);

		if (keys == NULL)
			return no_memory(job);
		job->keys = keys;
		if ((keys = realloc(job->key_lens, sizeof(size_t) * cap)) == NULL)
			return no_memory(job);
		job->key_lens = (size_t *) keys;
		if ((keys = realloc(job->offsets, sizeof(uint64) * cap)) == NULL)
			return no_memory(job);
		job->offsets = (uint64 *) keys;
		job->cap = cap;
	}
	copy = malloc(len + 1);
	if (copy == NULL)
		return no_memory(job);
	memcpy(copy, key, len);
	job->keys[job->n] = copy;
	job->key_lens[job->n] = len;
	job->offsets[job->n] = offset > 0 ? (uint64) offset : 0;
	job->n++;
	return true;
}

static void *
sizes_main(void *arg)
{
	BtSizesJob *job = arg;

	wc_bt_cancel_on(&job->cancel);
	job->ok = wc_bt_sample_row_keys(job->db->client, job->table, job->db->app_profile,
									job->db->timeout_ms, take_sample, job, &job->status);
	if (job->out_of_memory || (!job->ok && job->status.code == WC_BT_OK))
	{
		job->ok = false;
		job->status.code = WC_BT_RESOURCE_EXHAUSTED;
		snprintf(job->status.message, sizeof(job->status.message), "out of memory");
	}
	bt_jobs_done(&sizes_jobs, &job->link);
	return NULL;
}

/*
 * A new job for c's request of kind, in a memory context of its own.  It
 * is the request's until the call starts (start_job), so that an error
 * reading the request (a malformed one) takes it with the request's.
 */
static BtSizesJob *
new_job(WcClient *c, WcBtDb *db, BtSizesKind kind)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "widecolumn_fdw Bigtable sample",
											  ALLOCSET_SMALL_SIZES);
	BtSizesJob *job = MemoryContextAllocZero(cxt, sizeof(BtSizesJob));

	job->client = c;
	job->db = db;
	job->kind = kind;
	job->cxt = cxt;
	return job;
}

/* Make job's call on a thread of its own: c is answered when it is over. */
static void
start_job(BtSizesJob *job)
{
	int			rc;

	/* from here on the job outlives the request, until it is answered */
	MemoryContextSetParent(job->cxt, TopMemoryContext);
	wc_bt_cancel_init(&job->cancel);
	rc = bt_jobs_start(&sizes_jobs, sizes_main, &job->link);
	if (rc != 0)
	{
		wc_bt_cancel_destroy(&job->cancel);
		MemoryContextDelete(job->cxt);
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start a thread for a Bigtable call: %s", strerror(rc))));
	}
	job->next_out = under_way;
	under_way = job;
	job->client->answer_later = true;
}

/*
 * bt_sizes_cancel
 *		c's backend gave up on the answer of its call under way: cancel it
 *		(it is answered as any failed call, and the backend passes over
 *		the answer).
 */
void
bt_sizes_cancel(WcClient *c)
{
	for (BtSizesJob *job = under_way; job != NULL; job = job->next_out)
		if (job->client == c)
			wc_bt_cancel(&job->cancel);
}

static BtSample *
find_sample(WcBtDb *db, const char *table)
{
	for (BtSample *s = db->samples; s != NULL; s = s->next)
		if (strcmp(s->table, table) == 0)
			return s;
	return NULL;
}

/* The sample a job brought, kept as its table's (main thread). */
static BtSample *
keep_sample(BtSizesJob *job)
{
	WcBtDb	   *db = job->db;
	BtSample   *s = find_sample(db, job->table);
	MemoryContext old = MemoryContextSwitchTo(wc_worker_cxt);
	int			n = job->ended ? job->n - 1 : job->n;

	if (s == NULL)
	{
		s = palloc0(sizeof(BtSample));
		s->table = pstrdup(job->table);
		s->next = db->samples;
		db->samples = s;
	}
	else
	{
		for (int i = 0; i < s->n; i++)
			pfree(s->keys[i]);
		if (s->keys)
		{
			pfree(s->keys);
			pfree(s->key_lens);
			pfree(s->offsets);
		}
	}
	s->n = Max(n, 0);
	s->keys = palloc(sizeof(uint8 *) * (s->n + 1));
	s->key_lens = palloc(sizeof(size_t) * (s->n + 1));
	s->offsets = palloc(sizeof(uint64) * (s->n + 1));
	for (int i = 0; i < s->n; i++)
	{
		s->keys[i] = palloc(job->key_lens[i] + 1);
		memcpy(s->keys[i], job->keys[i], job->key_lens[i]);
		s->key_lens[i] = job->key_lens[i];
		s->offsets[i] = job->offsets[i];
	}
	s->total = job->n > 0 ? job->offsets[job->n - 1] : 0;
	s->at = wc_unix_micros();
	MemoryContextSwitchTo(old);
	return s;
}

/* The bytes of the rows before key in s: the last sample's at or before it. */
static uint64
offset_of(const BtSample *s, const uint8 *key, size_t len)
{
	uint64		off = 0;

	for (int i = 0; i < s->n; i++)
	{
		if (wc_compare_bytes(s->keys[i], s->key_lens[i], key, len) > 0)
			break;
		off = s->offsets[i];
	}
	return off;
}

/* The bytes of the ranges in s (a range with no end: to the table's end). */
static uint64
ranges_bytes(const BtSample *s, const WcBtRange *ranges, int nranges)
{
	uint64		bytes = 0;

	for (int i = 0; i < nranges; i++)
	{
		uint64		lo = offset_of(s, ranges[i].start, ranges[i].start_len);
		uint64		hi = ranges[i].end == NULL ? s->total :
			offset_of(s, ranges[i].end, ranges[i].end_len);

		if (hi > lo)
			bytes += hi - lo;
	}
	return bytes;
}

static void
rows_answer(const BtSample *s, const WcBtRange *ranges, int nranges, WcRowsAnswer *a)
{
	a->rows = 0;
	a->complete = false;
	a->walked_bytes = 0;
	a->bytes = ranges_bytes(s, ranges, nranges);
}

/* The answer of a job over (main thread): what its call brought, or its error. */
static void
answer(void *arg, StringInfo out)
{
	BtSizesJob *job = arg;
	BtSample   *s;

	if (!job->ok && job->status.code != WC_BT_NOT_FOUND)
		bt_call_failed(job->db, "SampleRowKeys", job->table, &job->status);
	/* a table Bigtable lacks has no rows (btscan.c): an empty sample */
	if (!job->ok)
	{
		for (int i = 0; i < job->n; i++)
			free(job->keys[i]);
		job->n = 0;
		job->ended = false;
	}
	s = keep_sample(job);
	switch (job->kind)
	{
		case BT_SIZES_SAMPLE:
			{
				WcBytes    *keys = palloc(sizeof(WcBytes) * (s->n + 1));

				for (int i = 0; i < s->n; i++)
				{
					keys[i].data = s->keys[i];
					keys[i].len = s->key_lens[i];
				}
				wc_write_sample_answer(out, s->total, s->n, keys, s->offsets);
				break;
			}
		case BT_SIZES_ESTIMATE:
			wc_write_estimate_answer(out, ranges_bytes(s, job->ranges, job->nranges));
			break;
		case BT_SIZES_ROWS:
			{
				WcRowsAnswer a;

				rows_answer(s, job->ranges, job->nranges, &a);
				wc_write_rows_answer(out, &a);
				break;
			}
	}
}

static void
free_job(BtSizesJob *job)
{
	wc_bt_cancel_destroy(&job->cancel);
	for (int i = 0; i < job->n; i++)
		free(job->keys[i]);
	free(job->keys);
	free(job->key_lens);
	free(job->offsets);
	MemoryContextDelete(job->cxt);
}

/*
 * bt_sizes_collect
 *		Answer the requests whose calls are over; true if any.
 */
bool
bt_sizes_collect(void)
{
	BtJob	   *jobs = bt_jobs_take(&sizes_jobs);
	bool		any = jobs != NULL;

	while (jobs != NULL)
	{
		BtSizesJob *job = (BtSizesJob *) jobs;

		jobs = jobs->next;
		for (BtSizesJob **p = &under_way; *p != NULL; p = &(*p)->next_out)
			if (*p == job)
			{
				*p = job->next_out;
				break;
			}
		wc_client_answer_later(job->client, answer, job);
		free_job(job);
	}
	return any;
}

/* At the worker's end: the calls under way, answered once they are over. */
void
bt_sizes_finish(void)
{
	bt_jobs_wait(&sizes_jobs, bt_sizes_collect);
}

/* SAMPLE: a call, answered later. */
bool
bt_sizes_sample(WcClient *c, WcBtDb *db, const WcSampleRequest *req, StringInfo out)
{
	BtSizesJob *job = new_job(c, db, BT_SIZES_SAMPLE);
	MemoryContext old = MemoryContextSwitchTo(job->cxt);

	job->table = table_name(db, req->table.data, req->table.len);
	MemoryContextSwitchTo(old);
	if (job->table == NULL)
	{
		MemoryContextDelete(job->cxt);
		wc_write_sample_answer(out, 0, 0, NULL, NULL);
		return true;
	}
	start_job(job);
	return false;
}

/*
 * A job of kind for the ranges of a request, or NULL when they are of no
 * Bigtable table (none, or the table of families'): they have no bytes.
 */
static BtSizesJob *
ranges_job(WcClient *c, WcBtDb *db, BtSizesKind kind, int nranges, const WcWireRange *ranges)
{
	BtSizesJob *job = new_job(c, db, kind);
	MemoryContext old = MemoryContextSwitchTo(job->cxt);

	job_ranges(job, nranges, ranges);
	MemoryContextSwitchTo(old);
	if (job->table != NULL)
		return job;
	MemoryContextDelete(job->cxt);
	return NULL;
}

/* ESTIMATE: a call, answered later. */
bool
bt_sizes_estimate(WcClient *c, WcBtDb *db, const WcEstimateRequest *req, uint64 *bytes)
{
	BtSizesJob *job = ranges_job(c, db, BT_SIZES_ESTIMATE, req->nranges, req->ranges);

	*bytes = 0;
	if (job == NULL)
		return true;
	start_job(job);
	return false;
}

/* ROWS: from the table's sample while it is fresh, else a call. */
bool
bt_sizes_rows(WcClient *c, WcBtDb *db, const WcRowsRequest *req, WcRowsAnswer *a)
{
	BtSizesJob *job = ranges_job(c, db, BT_SIZES_ROWS, req->nranges, req->ranges);
	BtSample   *s = job != NULL ? find_sample(db, job->table) : NULL;

	memset(a, 0, sizeof(*a));
	if (job == NULL)
		return true;
	if (s != NULL && wc_unix_micros() - s->at < BT_SAMPLE_KEEP_US)
	{
		rows_answer(s, job->ranges, job->nranges, a);
		MemoryContextDelete(job->cxt);
		return true;
	}
	start_job(job);
	return false;
}
