/*-------------------------------------------------------------------------
 *
 * reclaim.c
 *	  When the storage worker walks its databases to reclaim space
 *	  (sweep.c): the background sweep's pace, and the COUNT and COMPACT
 *	  requests, in slices between the other backends' requests.
 *
 * The background sweep walks every open database in turn, a naptime
 * (widecolumn_fdw.sweep_naptime) after its last pass if it was written to
 * since, a slice of WC_SWEEP_SLICE_US at a time, only when the worker has
 * no request to serve (main.c), resting as long after each: a request
 * waits for a slice at most, and the sweep takes at most half the worker's
 * time.  A COUNT (drop_family, drop_table) or COMPACT walks at full speed
 * but in slices too, so other sessions are served between them; COMPACT
 * then waits for LevelDB's compaction of its range, which runs in the
 * compactor's thread (storage.c), and the backend is answered at the end.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "common/keycodec.h"
#include "common/progress.h"
#include "common/shmem.h"
#include "worker/leveldb/leveldb.h"

/* widecolumn_fdw.sweep_naptime: seconds between passes; 0: no sweep */
int			ldb_sweep_naptime = 10;

/* Test hook: wait this long between two slices of a COUNT or COMPACT. */
int			ldb_debug_reclaim_pause = 0;

/* A slice's length, background or for a request. */
#define WC_SWEEP_SLICE_US		2000

/* COUNT and COMPACT requests under way (c->reclaim set) */
static int	reclaiming = 0;

/* The background sweep's state: one walk at a time. */
static struct
{
	WcSweep    *sw;
	uint32		db;
	TimestampTz next_slice;
	int			ndbs;
	uint64	   *commit_ts;		/* a database's last commit when its pass began */
	TimestampTz *pass_end;		/* and when its last pass ended */
} bg;

/* Is database id due for a pass (and is it open)? */
static bool
pass_due(uint32 id, TimestampTz now)
{
	WcOpenDb   *odb = ldb_odb_nth(id);
	int64		since;

	if (odb == NULL || !ldb_odb_mine(odb) || odb->db == NULL)
		return false;
	if (id >= (uint32) bg.ndbs)
	{
		int			n = Max(id + 1, bg.ndbs * 2);
		uint64	   *commit_ts = MemoryContextAllocZero(wc_worker_cxt, sizeof(uint64) * n);
		TimestampTz *pass_end = MemoryContextAllocZero(wc_worker_cxt, sizeof(TimestampTz) * n);

		if (bg.ndbs > 0)
		{
			memcpy(commit_ts, bg.commit_ts, sizeof(uint64) * bg.ndbs);
			memcpy(pass_end, bg.pass_end, sizeof(TimestampTz) * bg.ndbs);
			pfree(bg.commit_ts);
			pfree(bg.pass_end);
		}
		/* a database seen first is swept a naptime later */
		for (int i = bg.ndbs; i < n; i++)
			pass_end[i] = now;
		bg.commit_ts = commit_ts;
		bg.pass_end = pass_end;
		bg.ndbs = n;
	}
	since = now - bg.pass_end[id];

	/*
	 * After writes, a pass a naptime after the last; without, now and then,
	 * for the policies with a maximum age.
	 */
	return since >= (int64) ldb_sweep_naptime * USECS_PER_SEC &&
		(odb->last_commit_ts != bg.commit_ts[id] ||
		 since >= (int64) ldb_sweep_naptime * 60 * USECS_PER_SEC);
}

/*
 * ldb_sweep_background
 *		With no request waiting (main.c): a slice of the background sweep,
 *		if one is due.  Returns how many milliseconds until the next is.
 *
 * A slice takes WC_SWEEP_SLICE_US at most, then the sweep rests as long,
 * so that it takes at most half of the worker's time.
 */
long
ldb_sweep_background(void)
{
	TimestampTz now;
	TimestampTz end;
	volatile bool done = false;

	if (ldb_sweep_naptime <= 0)
		return 1000;
	/* what it deletes could not come back if the commit rolled back */
	if (ldb_large_commit_active())
		return 10;
	now = GetCurrentTimestamp();
	if (now < bg.next_slice)
		return (long) ((bg.next_slice - now + 999) / 1000);

	if (bg.sw == NULL)
	{
		for (uint32 id = 0; ldb_odb_nth(id) != NULL; id++)
		{
			if (!pass_due(id, now))
				continue;
			bg.db = id;
			bg.commit_ts[id] = ldb_odb_nth(id)->last_commit_ts;
			bg.sw = ldb_sweep_begin(ldb_odb_nth(id), NULL, 0, false, NULL, 0, true);
			break;
		}
		if (bg.sw == NULL)
			return 1000;
	}

	/* closed after a failed write: the pass is over */
	if (ldb_odb_nth(bg.db)->db == NULL)
		done = true;
	else
	{
		PG_TRY();
		{
			done = ldb_sweep_slice(bg.sw, WC_SWEEP_SLICE_US);
		}
		PG_CATCH();
		{
			ErrorData  *edata;

			MemoryContextSwitchTo(wc_worker_cxt);
			edata = CopyErrorData();
			FlushErrorState();
			ereport(LOG,
					(errmsg("widecolumn_fdw could not sweep LevelDB database \"%s\": %s",
							ldb_odb_nth(bg.db)->path, edata->message)));
			FreeErrorData(edata);
			done = true;
		}
		PG_END_TRY();
	}
	end = GetCurrentTimestamp();
	if (done)
	{
		ereport(DEBUG1,
					(errmsg("widecolumn_fdw swept LevelDB database \"%s\": %llu entries removed",
							ldb_odb_nth(bg.db)->path,
							(unsigned long long) ldb_sweep_result(bg.sw))));
		ldb_sweep_end(bg.sw);
		bg.sw = NULL;
		bg.pass_end[bg.db] = end;
	}
	bg.next_slice = end + (end - now);
	return (long) ((end - now + 999) / 1000);
}

/*
 * A COUNT or COMPACT request under way: its walk goes in slices between
 * the other backends' requests, then (COMPACT) LevelDB compacts the range
 * in the compactor's thread; the backend is answered at the end.
 */
typedef struct WcReclaim
{
	WcSweep    *sw;				/* the walk; NULL once it is over */
	WcOpenDb   *odb;
	bool		compact;		/* then compact [start, end) */
	bool		compacting;		/* the compactor has the range */
	StringInfoData start;		/* the table (escaped); empty: every table */
	StringInfoData end;			/* empty: to the end */
	uint64		result;
	/* widecolumn.progress: LevelDB's estimate of the bytes walked */
	StringInfoData walk_start;
	uint64		walk_total;
	TimestampTz reported;
	TimestampTz next_slice;		/* ldb_debug_reclaim_pause's */
} WcReclaim;

/* How often a walk's progress is counted (an estimate costs an index lookup). */
#define WC_PROGRESS_EVERY_MS	100

/* Above every key: the end of a walk that has none, for LevelDB's estimate. */
static const uint8 key_max[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

/*
 * report_walk
 *		Count how far c's walk is in the slot of c's progress
 *		(common/progress.h), at most every WC_PROGRESS_EVERY_MS.
 */
static void
report_walk(WcClient *c, bool first)
{
	WcReclaim  *r = c->reclaim;
	TimestampTz now = GetCurrentTimestamp();
	WcBytes		cursor,
				end;

	if (!first && now - r->reported < WC_PROGRESS_EVERY_MS * 1000)
		return;
	r->reported = now;
	ldb_sweep_position(r->sw, &cursor, &end);
	if (first)
	{
		appendBinaryStringInfo(&r->walk_start, (const char *) cursor.data, cursor.len);
		r->walk_total = end.len > 0 ?
			storage_approximate_size(r->odb->db, cursor.data, cursor.len, end.data, end.len) :
			storage_approximate_size(r->odb->db, cursor.data, cursor.len,
									 key_max, sizeof(key_max));
		wc_progress_count(c->slot, WC_UNIT_BYTES_WALKED, 0, true, r->walk_total);
		return;
	}
	wc_progress_count(c->slot, WC_UNIT_BYTES_WALKED,
					  storage_approximate_size(r->odb->db,
											   (const uint8 *) r->walk_start.data,
											   r->walk_start.len, cursor.data, cursor.len),
					  true, r->walk_total);
}

/*
 * ldb_reclaim_start
 *		Take on the walk sw for c's request: answered by ldb_reclaim_step
 *		when it is over, and with compact once LevelDB has compacted table
 *		(escaped; empty: everything).
 */
void
ldb_reclaim_start(WcClient *c, WcOpenDb *odb, WcSweep *sw, const uint8 *table, size_t tlen,
				 bool compact)
{
	MemoryContext old = MemoryContextSwitchTo(c->cxt);
	WcReclaim  *r = palloc0(sizeof(WcReclaim));

	r->sw = sw;
	r->odb = odb;
	r->compact = compact;
	initStringInfo(&r->start);
	initStringInfo(&r->end);
	if (tlen > 0)
	{
		size_t		elen = tlen;

		appendBinaryStringInfo(&r->start, (const char *) table, tlen);
		appendBinaryStringInfo(&r->end, (const char *) table, tlen);
		if (wc_successor((uint8 *) r->end.data, &elen) != 0)
			elen = 0;
		r->end.len = (int) elen;
	}
	initStringInfo(&r->walk_start);
	c->reclaim = r;
	reclaiming++;
	report_walk(c, true);
	MemoryContextSwitchTo(old);
}

/* The request is over: its answer is in c->answer. */
static void
reclaim_done(WcClient *c)
{
	WcReclaim  *r = c->reclaim;

	if (r->sw != NULL)
		ldb_sweep_end(r->sw);
	pfree(r->start.data);
	pfree(r->end.data);
	pfree(r->walk_start.data);
	pfree(r);
	c->reclaim = NULL;
	reclaiming--;
	c->answer_pending = true;
}

/* One step of c's request. */
static int
reclaim_one(WcClient *c)
{
	WcReclaim  *r = c->reclaim;
	volatile bool done = false;
	volatile int state = 1;

	MemoryContextSwitchTo(wc_request_cxt);
	PG_TRY();
	{
		if (r->odb->db == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("could not go on reading LevelDB database \"%s\"", r->odb->path),
					 errdetail("The storage worker reopened the database after a write to it failed."),
					 errhint("Run the function again.")));
		if (r->sw != NULL && ldb_debug_reclaim_pause > 0 &&
			GetCurrentTimestamp() < r->next_slice)
			state = 2;			/* the loop looks again in 10 ms */
		else if (r->sw != NULL)
		{
			if (ldb_debug_reclaim_pause > 0)
				r->next_slice = GetCurrentTimestamp() +
					(TimestampTz) ldb_debug_reclaim_pause * 1000;
			if (ldb_sweep_slice(r->sw, WC_SWEEP_SLICE_US))
			{
				r->result = ldb_sweep_result(r->sw);
				ldb_sweep_end(r->sw);
				r->sw = NULL;
				done = !r->compact;
			}
			else
				report_walk(c, false);
		}
		else if (!r->compacting)
		{
			r->compacting = storage_compact_start(r->odb->db,
												  (const uint8 *) r->start.data, r->start.len,
												  r->end.len > 0 ? (const uint8 *) r->end.data : NULL,
												  r->end.len);
			if (r->compacting)
				wc_progress_count(c->slot, WC_UNIT_BYTES_COMPACTED, 0, true, r->walk_total);
			state = 2;
		}
		else if (storage_compact_busy())
			state = 2;
		else
		{
			storage_compact_wait();
			done = true;
		}
		if (done)
		{
			resetStringInfo(&c->answer);
			wc_write_count_answer(&c->answer, r->result);
		}
	}
	PG_CATCH();
	{
		wc_serve_error(c);
		done = true;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(wc_worker_cxt);
	MemoryContextReset(wc_request_cxt);
	if (done)
		reclaim_done(c);
	return state;
}

/*
 * ldb_reclaim_step
 *		A step of every COUNT and COMPACT under way (main.c, each turn).
 *		Returns 0 if there are none, 1 if it worked, 2 if they only wait
 *		for LevelDB's compaction.
 */
int
ldb_reclaim_step(void)
{
	int			state = 0;

	/*
	 * The loop asks on every pass: with none under way, no walk over the
	 * slots (it was 7% of the worker's time under point reads).  COUNT and
	 * compact wait for a large commit, as the sweep does.
	 */
	if (reclaiming == 0 || ldb_large_commit_active())
		return 0;

	for (int i = 0; i < wc_shared->nslots; i++)
	{
		WcClient   *c = wc_clients[i];

		if (c != NULL && c->reclaim != NULL)
		{
			int			s = reclaim_one(c);

			state = state == 1 || s == 1 ? 1 : s;
		}
	}
	return state;
}

/* c has gone: its request goes with it. */
void
ldb_reclaim_forget(WcClient *c)
{
	if (c->reclaim == NULL)
		return;
	if (c->reclaim->sw != NULL)
		ldb_sweep_end(c->reclaim->sw);
	c->reclaim = NULL;			/* the rest is in c's memory */
	reclaiming--;
}
