/*-------------------------------------------------------------------------
 *
 * engine.c
 *	  The Bigtable engine's table of functions (engine.h): a database is a
 *	  Bigtable instance, reached through gRPC's wall (btclient.h).
 *
 * What this engine serves: OPEN (the instance's channel, made after fork
 * on the worker's main thread with every signal blocked, so that gRPC's
 * threads never take one), SCAN (btscan.c), on the reader threads, COMMIT
 * of writes and family changes (btcommit.c, btfamilies.c), on a thread of
 * its own per commit, and SAMPLE, ESTIMATE and ROWS from SampleRowKeys
 * (btsizes.c), on a thread of its own per call.  The threads wake the main
 * loop through one eventfd.  What a request can ask that is not built is
 * refused with 0A000 naming what it was (docs/architecture.md, "The
 * Bigtable engine").
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "utils/memutils.h"

#include "worker/bigtable/bigtable.h"

static WcBtDb *databases = NULL;

/* Refuse what the engine does not do yet: what it was, and where it stands. */
void
bt_not_yet(const WcBtDb *db, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s is not supported on a Bigtable server yet", what),
			 errdetail("Bigtable instance \"%s\" at \"%s\": this version reads and writes the mapped columns of tables on a Bigtable server.",
					   db->instance_name, db->endpoint)));
}

/*
 * bt_sqlstate
 *		The SQLSTATE a gRPC code stands for (docs/architecture.md): NOT_FOUND
 *		is the table (or, for a row's mutations, its family) missing.
 *		Plain C, for the threads' errors too.
 */
int
bt_sqlstate(int code, bool of_row)
{
	switch (code)
	{
		case WC_BT_NOT_FOUND:
			return of_row ? ERRCODE_UNDEFINED_OBJECT : ERRCODE_UNDEFINED_TABLE;
		case WC_BT_ALREADY_EXISTS:
			return ERRCODE_DUPLICATE_OBJECT;
		case WC_BT_DEADLINE_EXCEEDED:
			return ERRCODE_QUERY_CANCELED;
		case WC_BT_UNAVAILABLE:
			return ERRCODE_CONNECTION_FAILURE;
		case WC_BT_PERMISSION_DENIED:
		case WC_BT_UNAUTHENTICATED:
			return ERRCODE_INSUFFICIENT_PRIVILEGE;
		default:
			return ERRCODE_SYSTEM_ERROR;
	}
}

/*
 * bt_call_failed
 *		A failed call (call, of table) as the SQLSTATE its gRPC code stands
 *		for: wc_fail, so on a reader thread too.
 */
void
bt_call_failed(const WcBtDb *db, const char *call, const char *table, const WcBtStatus *st)
{
	if (st->code == WC_BT_NOT_FOUND)
		wc_fail(bt_sqlstate(st->code, false), "Bigtable table does not exist",
				"Create it with widecolumn.create_family(), or write to it: its first COMMIT makes it.",
				"%s: %s", table, st->message);
	if (st->code == WC_BT_DEADLINE_EXCEEDED)
		wc_fail(bt_sqlstate(st->code, false), "Bigtable request timed out",
				"The server option timeout sets how long a request may take.",
				"%s of %s took more than %d ms: %s", call, table, db->timeout_ms,
				st->message);
	wc_fail(bt_sqlstate(st->code, false), "Bigtable request failed", NULL,
			"%s of %s at %s (gRPC code %d): %s",
			call, table, db->endpoint, st->code, st->message);
}

static void
define_settings(void)
{
}

/*
 * The eventfd the worker's loop waits on: the engine's threads (a commit's,
 * a sample's) wake it when they are done.
 */
static int	wake_fd = -1;

void
bt_wake(void)
{
	uint64		one = 1;

	if (write(wake_fd, &one, sizeof(one)) < 0)
	{
		/* the counter is full: the loop is waking anyway */
	}
}

/*
 * bt_jobs_start
 *		Run fn(job) on a detached thread of its own, made with every signal
 *		blocked so that it never takes one, and count it out; 0, or
 *		pthread_create's error.  The thread ends with bt_jobs_done.
 */
int
bt_jobs_start(BtJobs *jobs, void *(*fn) (void *), BtJob *job)
{
	pthread_t	thread;
	pthread_attr_t attr;
	sigset_t	all,
				mask;
	int			rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &mask);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&thread, &attr, fn, job);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	if (rc == 0)
		jobs->out++;
	return rc;
}

/* On the job's thread: it is done; the main loop is woken to take it. */
void
bt_jobs_done(BtJobs *jobs, BtJob *job)
{
	pthread_mutex_lock(&jobs->lock);
	job->next = jobs->done;
	jobs->done = job;
	pthread_mutex_unlock(&jobs->lock);
	bt_wake();
}

/* The jobs done since the last look, taken (main thread). */
BtJob *
bt_jobs_take(BtJobs *jobs)
{
	BtJob	   *done;

	if (jobs->out == 0)
		return NULL;
	pthread_mutex_lock(&jobs->lock);
	done = jobs->done;
	jobs->done = NULL;
	pthread_mutex_unlock(&jobs->lock);
	for (BtJob *j = done; j != NULL; j = j->next)
		jobs->out--;
	return done;
}

/* At the worker's end: every job out collected, by collect. */
void
bt_jobs_wait(BtJobs *jobs, bool (*collect) (void))
{
	while (jobs->out > 0)
	{
		if (!collect())
			pg_usleep(1000L);
	}
}

static int
start(int nslots)
{
	if (wake_fd < 0)
		wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (wake_fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create eventfd for the Bigtable engine: %m")));
	return wake_fd;
}

/* At the worker's end: the calls under way, answered once they are over. */
static void
finish(void)
{
	bt_commit_finish();
	bt_sizes_finish();
}

static void
nothing(void)
{
}

static void
close_all(void)
{
	for (WcBtDb *d = databases; d != NULL; d = d->next)
		if (d->client != NULL)
			wc_bt_close(d->client);
	databases = NULL;
}

static bool
step(void)
{
	uint64		n;
	bool		commits,
				sizes;

	if (read(wake_fd, &n, sizeof(n)) < 0)
	{
		/* nothing yet (EAGAIN): the lists say */
	}
	commits = bt_commit_collect();
	sizes = bt_sizes_collect();
	return commits || sizes;
}

static long
idle(void)
{
	return 60 * 1000L;
}

static char *
option_text(const WcEngineOption *o)
{
	return pnstrdup((const char *) o->value.data, o->value.len);
}

/*
 * open_db
 *		The instance req->target names (endpoint/projects/P/instances/I,
 *		then how it is reached: fdw/model/mapping.c), with its channel;
 *		connecting happens at the first call.
 */
static WcDatabase *
open_db(const WcOpenRequest *req)
{
	MemoryContext old;
	WcBtDb	   *d;
	WcBtStatus	st;
	sigset_t	all,
				mask;

	for (d = databases; d != NULL; d = d->next)
		if (strlen(d->base.name) == req->target.len &&
			memcmp(d->base.name, req->target.data, req->target.len) == 0)
			return &d->base;

	old = MemoryContextSwitchTo(wc_worker_cxt);
	d = palloc0(sizeof(WcBtDb));
	d->base.engine = &wc_bigtable_engine;
	d->base.name = pnstrdup((const char *) req->target.data, req->target.len);
	d->timeout_ms = 30000;
	d->app_profile = "";
	pthread_mutex_init(&d->policies_lock, NULL);
	for (int i = 0; i < req->noptions; i++)
	{
		const WcEngineOption *o = &req->options[i];

		if (WC_ENGINE_OPTION_IS(o, "endpoint"))
			d->endpoint = option_text(o);
		else if (WC_ENGINE_OPTION_IS(o, "project"))
			d->project = option_text(o);
		else if (WC_ENGINE_OPTION_IS(o, "instance"))
			d->instance = option_text(o);
		else if (WC_ENGINE_OPTION_IS(o, "insecure"))
			d->insecure = o->value.len == 1 && o->value.data[0] == '1';
		else if (WC_ENGINE_OPTION_IS(o, "app_profile"))
			d->app_profile = option_text(o);
		else if (WC_ENGINE_OPTION_IS(o, "timeout_ms"))
			d->timeout_ms = atoi(option_text(o));
		else
			ereport(ERROR,
					(errcode(ERRCODE_PROTOCOL_VIOLATION),
					 errmsg("request from a backend names unknown Bigtable option \"%.*s\"",
							(int) o->name.len, (const char *) o->name.data)));
	}
	if (d->endpoint == NULL || d->project == NULL || d->instance == NULL || d->timeout_ms <= 0)
		wc_malformed("OPEN");
	d->instance_name = psprintf("projects/%s/instances/%s", d->project, d->instance);
	MemoryContextSwitchTo(old);

	/* gRPC's threads, made from here on, inherit a mask of every signal */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &mask);
	d->client = wc_bt_connect(d->endpoint, d->insecure, &st);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	if (d->client == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_AUTHORIZATION_SPECIFICATION),
				 errmsg("could not make a channel to Bigtable at \"%s\": %s", d->endpoint, st.message),
				 errhint("Off an emulator, Google's application-default credentials must be available to the PostgreSQL server (GOOGLE_APPLICATION_CREDENTIALS).")));
	wc_db_add(&d->base);
	d->next = databases;
	databases = d;
	return &d->base;
}

static void
ready(WcDatabase *db)
{
}

/*
 * Bigtable keeps no snapshot across rows: a scan reads what each row is
 * when Bigtable reads it (README, "Bigtable servers").  The snapshot is a
 * count of its holds, for the worker's bookkeeping.
 */
typedef struct WcBtSnap
{
	int			holds;
} WcBtSnap;

static WcEngineSnap *
snapshot(WcDatabase *db, const WcXidSnapshot *xs)
{
	WcBtSnap   *s = MemoryContextAlloc(wc_worker_cxt, sizeof(WcBtSnap));

	s->holds = 1;
	return (WcEngineSnap *) s;
}

static WcEngineSnap *
snapshot_hold(WcEngineSnap *snap)
{
	((WcBtSnap *) snap)->holds++;
	return snap;
}

static void
snapshot_release(WcDatabase *db, WcEngineSnap *snap)
{
	if (--((WcBtSnap *) snap)->holds == 0)
		pfree(snap);
}

static WcEngineScan *
scan_open(WcDatabase *db, WcEngineSnap *snap, const WcScanRequest *req)
{
	return (WcEngineScan *) bt_scan_open((WcBtDb *) db, req);
}

static bool
scan_fill(WcEngineScan *scan)
{
	return bt_scan_fill((WcBtScan *) scan);
}

static void
scan_cancel(WcEngineScan *scan)
{
	bt_scan_cancel((WcBtScan *) scan);
}

static const WcByteBuf *
scan_batch(WcEngineScan *scan)
{
	return bt_scan_batch((WcBtScan *) scan);
}

static void
scan_close(WcEngineScan *scan)
{
	bt_scan_close((WcBtScan *) scan);
}

static WcCommitOutcome
commit(WcClient *c, WcDatabase *db, WcClientWrites *w, bool sync)
{
	return bt_commit(c, (WcBtDb *) db, w);
}

static bool
holds_commits(void)
{
	return false;
}

/* The planner's figures, from SampleRowKeys (btsizes.c). */
static bool
estimate(WcClient *c, WcDatabase *db, const WcEstimateRequest *req, uint64 *bytes)
{
	return bt_sizes_estimate(c, (WcBtDb *) db, req, bytes);
}

static bool
rows(WcClient *c, WcDatabase *db, const WcRowsRequest *req, WcRowsAnswer *a)
{
	return bt_sizes_rows(c, (WcBtDb *) db, req, a);
}

static bool
sample(WcClient *c, WcDatabase *db, const WcSampleRequest *req, StringInfo out)
{
	return bt_sizes_sample(c, (WcBtDb *) db, req, out);
}

static uint64
range_bytes(WcDatabase *db, const uint8 *start, size_t slen,
			const uint8 *end, size_t elen)
{
	return 0;
}

static void
count(struct WcClient *c, WcDatabase *db, const WcReclaimRequest *req)
{
	bt_not_yet((WcBtDb *) db, "counting versions");
}

/* Bigtable compacts on its own: there is nothing for compact() to do. */
static void
compact(struct WcClient *c, WcDatabase *db, const WcReclaimRequest *req)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("compact() does not apply to a Bigtable server"),
			 errdetail("Bigtable collects garbage and compacts its tables itself.")));
}

static void
client_gone(struct WcClient *c)
{
}

static uint64
fsyncs(void)
{
	return 0;
}

const WcEngine wc_bigtable_engine = {
	.name = "bigtable",
	.title = "Bigtable",
	.define_settings = define_settings,
	.start = start,
	.finish = finish,
	.stop = nothing,
	.close_all = close_all,
	.step = step,
	.idle = idle,
	.open = open_db,
	.ready = ready,
	.snapshot = snapshot,
	.snapshot_hold = snapshot_hold,
	.snapshot_release = snapshot_release,
	.scan_open = scan_open,
	.scan_fill = scan_fill,
	.fills_wait = true,			/* every scan's batch is a call to Bigtable */
	.scan_cancel = scan_cancel,
	.scan_batch = scan_batch,
	.scan_close = scan_close,
	.commit = commit,
	.holds_commits = holds_commits,
	.estimate = estimate,
	.rows = rows,
	.sample = sample,
	.call_cancel = bt_sizes_cancel,
	.range_bytes = range_bytes,
	.count = count,
	.compact = compact,
	.client_gone = client_gone,
	.fsyncs = fsyncs,
	.describe = NULL,
};
