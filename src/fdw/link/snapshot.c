/*-------------------------------------------------------------------------
 *
 * snapshot.c
 *	  Which LevelDB snapshot a scan reads, and how long the storage worker
 *	  keeps it: the snapshot-lifetime policy of a session; and when a
 *	  REPEATABLE READ transaction's snapshot was taken, the time its reads
 *	  of a Bigtable server are as of.
 *
 * In READ COMMITTED each statement reads a snapshot of its own, tied to the
 * PostgreSQL snapshot it was taken under; in REPEATABLE READ and
 * SERIALIZABLE the first lasts the transaction (wc_client_snapshot_acquire
 * says how).  PostgreSQL's snapshot is kept registered while PostgreSQL
 * uses it, and let go as executors and utility statements end (the hooks
 * below), so that an idle transaction holds no xmin.  The worker's snapshot
 * is released at the next acquire or at the transaction's end.
 *
 * The snapshots live on the link (client.c): when the link is dropped,
 * they go with it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/executor.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "fdw/fdw.h"
#include "fdw/link/link.h"

typedef struct WcSnapUse
{
	uint32		db;
	uint32		id;
	TimestampTz statement;		/* 0: for the whole transaction */
	Snapshot	pg_snapshot;	/* PostgreSQL's, registered; or NULL */
	int			refs;			/* scans reading it */
	bool		current;		/* new scans of this statement use it */
	bool		ended;			/* pg_snapshot let go: no statement may take it */
} WcSnapUse;

static List *snaps = NIL;		/* WcSnapUse of this transaction, in snap_cxt */

static MemoryContext snap_cxt = NULL;

/*
 * When the transaction's snapshot was taken, in a transaction that reads
 * one throughout (REPEATABLE READ): the start of the first statement seen
 * with it set; 0 until then.
 */
static TimestampTz xact_snapshot_at = 0;

static ExecutorStart_hook_type prev_executor_start = NULL;
static ExecutorEnd_hook_type prev_executor_end = NULL;
static ProcessUtility_hook_type prev_process_utility = NULL;

static void release_unused(void);

/*
 * Is PostgreSQL's snapshot su was taken under still in use by anything but
 * us: active (other than once as popping, which is about to be popped), or
 * registered by a query or cursor (other than ending, whose executor is
 * ending and whose registration goes next)?  While it is, a
 * statement may read under it again (a stable function called again, the
 * next FETCH of a cursor), and must read su's snapshot again.
 */
static bool
pg_snapshot_in_use(WcSnapUse *su, QueryDesc *ending, Snapshot popping)
{
	Snapshot	snap = su->pg_snapshot;
	uint32		ours = 0;
	ListCell   *lc;

	if (snap->active_count > (snap == popping ? 1 : 0))
		return true;
	foreach(lc, snaps)
		if (((WcSnapUse *) lfirst(lc))->pg_snapshot == snap)
			ours++;
	if (ending != NULL && ending->snapshot == snap)
		ours++;
	if (ending != NULL && ending->crosscheck_snapshot == snap)
		ours++;
	return snap->regd_count > ours;
}

/* Is su's PostgreSQL snapshot (if it has one) still used by PostgreSQL? */
static bool
pg_snapshot_kept(WcSnapUse *su)
{
	return su->pg_snapshot != NULL && pg_snapshot_in_use(su, NULL, NULL);
}

/*
 * Does a scan, started or not, hold one of the link's snapshots, or is one
 * the snapshot of a statement still running (which a stable function
 * called again, say, must read again)?
 */
static bool
snapshots_held(void)
{
	ListCell   *lc;

	foreach(lc, snaps)
	{
		WcSnapUse  *su = lfirst(lc);

		if (su->refs > 0 ||
			(!su->ended && (su->pg_snapshot != NULL ? pg_snapshot_in_use(su, NULL, NULL) : su->current)))
			return true;
	}
	return false;
}

/* Let go of the PostgreSQL snapshot that identified su's statement. */
static void
forget_pg_snapshot(WcSnapUse *su)
{
	if (su->pg_snapshot != NULL && TopTransactionResourceOwner != NULL)
		UnregisterSnapshotFromOwner(su->pg_snapshot, TopTransactionResourceOwner);
	su->pg_snapshot = NULL;
}

/* Tell the worker to drop a snapshot nobody will read from again. */
static void
snapshot_release(WcSnapUse *su)
{
	forget_pg_snapshot(su);
	wc_client_send_release(su->id);
	snaps = list_delete_ptr(snaps, su);
	pfree(su);
}

/* A new snapshot of db, with a new id, held once, in this transaction's list. */
static WcSnapUse *
snap_use_new(uint32 db)
{
	MemoryContext old;
	WcSnapUse  *su;

	if (snap_cxt == NULL)
		snap_cxt = AllocSetContextCreate(TopMemoryContext, "widecolumn_fdw snapshots",
										 ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(snap_cxt);
	su = palloc0(sizeof(WcSnapUse));
	su->db = db;
	su->id = wc_client_new_id();
	su->refs = 1;
	snaps = lappend(snaps, su);
	MemoryContextSwitchTo(old);
	return su;
}

/*
 * wc_client_snapshot_acquire
 *		The snapshot a scan starting in this statement reads db at.
 *
 * In READ COMMITTED each statement gets a snapshot of its own; in
 * REPEATABLE READ and SERIALIZABLE the first one lasts the transaction.
 * A scan holds its snapshot until wc_client_snapshot_release, so a cursor
 * declared in one statement and read in a later one still reads the
 * snapshot of its own statement.
 *
 * In READ COMMITTED a scan reads the snapshot taken under the same active
 * PostgreSQL snapshot: the statements of a volatile function each take a
 * PostgreSQL snapshot of their own, a stable function reads its caller's,
 * and a cursor's query reads the cursor's at every FETCH.  We keep that
 * PostgreSQL snapshot registered, so that its address cannot come back as
 * another's, for as long as PostgreSQL uses it (pg_snapshot_in_use); then it
 * is let go (release_unused), so that an idle transaction holds no xmin.  (A
 * transaction that wrote only here has no transaction id, so PostgreSQL's
 * snapshots alone do not change with its commit.)  Without an active
 * snapshot, a scan shares the statement's by its start time.
 */
uint32
wc_client_snapshot_acquire(uint32 db)
{
	TimestampTz stmt = IsolationUsesXactSnapshot() ? 0 : GetCurrentStatementStartTimestamp();
	Snapshot	pg_snapshot = IsolationUsesXactSnapshot() || !ActiveSnapshotSet() ? NULL :
		GetActiveSnapshot();
	ListCell   *lc;
	WcSnapUse  *su = NULL;
	uint32		wid;

	wid = wc_client_db_id(db);	/* the link made, and the handle checked */
	foreach(lc, snaps)
	{
		WcSnapUse  *u = lfirst(lc);

		if (u->db != db || u->ended)
			continue;
		if (pg_snapshot != NULL ? u->pg_snapshot == pg_snapshot :
			u->current && u->pg_snapshot == NULL && u->statement == stmt)
		{
			u->refs++;
			return u->id;
		}
	}

	/* The statement's or transaction's before: kept while still in use. */
	foreach(lc, snaps)
	{
		WcSnapUse  *u = lfirst(lc);

		if (u->db == db && u->current)
			su = u;
	}
	if (su != NULL)
	{
		su->current = false;
		if (su->refs == 0 && !pg_snapshot_kept(su))
			snapshot_release(su);
	}
	release_unused();

	su = snap_use_new(db);
	su->statement = stmt;
	su->current = true;
	if (pg_snapshot != NULL && pg_snapshot->copied)
		su->pg_snapshot = RegisterSnapshotOnOwner(pg_snapshot, TopTransactionResourceOwner);

	/*
	 * What it sees is what PostgreSQL's snapshot sees, whenever it is
	 * taken: the statement's (READ COMMITTED), the transaction's
	 * (REPEATABLE READ, SERIALIZABLE), the same for every server.
	 */
	wc_client_send_snapshot(wid, su->id,
							ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot());
	return su->id;
}

/*
 * wc_client_snapshot_share
 *		The token under which a parallel scan's workers read the leader's
 *		snapshot id (wc_client_snapshot_attach); it stays valid while the
 *		leader holds the snapshot.
 */
uint64
wc_client_snapshot_share(uint32 id)
{
	StringInfoData msg;
	WcReader	r;
	uint64		token;

	initStringInfo(&msg);
	wc_write_share(&msg, id);
	wc_client_call(&msg, &r);
	pfree(msg.data);
	if (!wc_read_share_answer(&r, &token))
		wc_client_unexpected_answer();
	return token;
}

/*
 * wc_client_snapshot_attach
 *		In a parallel worker: the leader's snapshot of db, shared under
 *		token, as a snapshot of this backend's.  A scan holds it, as one
 *		wc_client_snapshot_acquire gives, until wc_client_snapshot_release;
 *		no other scan takes it.
 */
uint32
wc_client_snapshot_attach(uint32 db, uint64 token)
{
	uint32		wid = wc_client_db_id(db);
	WcSnapUse  *su;
	StringInfoData msg;
	WcReader	r;

	su = snap_use_new(db);
	su->ended = true;

	initStringInfo(&msg);
	wc_write_attach(&msg, wid, token, su->id);
	wc_client_call(&msg, &r);
	pfree(msg.data);
	if (!wc_read_ok(&r))
		wc_client_unexpected_answer();
	return su->id;
}

/* A scan is done with its snapshot. */
void
wc_client_snapshot_release(uint32 id)
{
	ListCell   *lc;

	if (!wc_client_can_send())
		return;
	foreach(lc, snaps)
	{
		WcSnapUse  *su = lfirst(lc);

		if (su->id == id)
		{
			if (--su->refs == 0 && !su->current &&
				!pg_snapshot_kept(su))
				snapshot_release(su);
			return;
		}
	}
}

/*
 * release_unused_ending
 *		Let go of the PostgreSQL snapshots no statement uses any more (ending:
 *		a query whose executor is ending).
 *
 * Only PostgreSQL's snapshot, not the worker's: this runs as executors and
 * utility statements end, no place for a message that could fail.
 * release_unused, at the next snapshot_acquire, or the transaction's end
 * sends the worker its release.
 */
static void
release_unused_ending(QueryDesc *ending, Snapshot popping)
{
	ListCell   *lc;

	foreach(lc, snaps)
	{
		WcSnapUse  *su = lfirst(lc);

		if (!su->ended && su->pg_snapshot != NULL && !pg_snapshot_in_use(su, ending, popping))
		{
			forget_pg_snapshot(su);
			su->ended = true;
		}
	}
}

/* The same, and release the worker's snapshots nothing reads any more. */
static void
release_unused(void)
{
	ListCell   *lc;

	release_unused_ending(NULL, NULL);
	foreach(lc, snaps)
	{
		WcSnapUse  *su = lfirst(lc);

		if (su->ended && !su->current && su->refs == 0)
		{
			snapshot_release(su);
			release_unused();	/* the list changed under us: start over */
			return;
		}
	}
}

/*
 * The start of the current statement, or of the transaction if that is
 * later (a transaction begun by a procedure's COMMIT starts after the CALL
 * statement).
 */
static TimestampTz
statement_start(void)
{
	return Max(GetCurrentStatementStartTimestamp(), GetCurrentTransactionStartTimestamp());
}

/*
 * Note the statement the transaction's snapshot was taken in, if this is
 * it.  (A parallel worker's Bigtable scan is a parallel-aware one, which
 * reads its leader's time: parscan.c.)
 */
static void
note_xact_snapshot(void)
{
	if (xact_snapshot_at == 0 && FirstSnapshotSet && IsolationUsesXactSnapshot())
		xact_snapshot_at = statement_start();
}

/*
 * wc_xact_snapshot_time
 *		When the transaction's snapshot was taken (µs since the Unix epoch),
 *		the time a REPEATABLE READ transaction reads a Bigtable server as
 *		of, as PostgreSQL reads native tables as of its first statement,
 *		not its BEGIN.  It is the start of the first statement that ran with
 *		the snapshot set (taken in it, before the statement's executor or
 *		utility code ran): at most the statement's parse and plan before
 *		the snapshot itself.  PostgreSQL keeps no time with a snapshot
 *		(whenTaken is set for old_snapshot_threshold alone).
 */
uint64
wc_xact_snapshot_time(void)
{
	TimestampTz at;

	note_xact_snapshot();
	at = xact_snapshot_at;
	if (at == 0)
		at = statement_start();
	return (uint64) (at + WC_UNIX_TO_PG_US);
}

static void
snapshot_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT ||
		event == XACT_EVENT_PREPARE)
		xact_snapshot_at = 0;
}

static void
wc_executor_start(QueryDesc *queryDesc, int eflags)
{
	note_xact_snapshot();
	if (prev_executor_start)
		prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

static void
wc_executor_end(QueryDesc *queryDesc)
{
	if (prev_executor_end)
		prev_executor_end(queryDesc);
	else
		standard_ExecutorEnd(queryDesc);
	release_unused_ending(queryDesc, NULL);
}

static void
wc_process_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
				   ProcessUtilityContext context, ParamListInfo params,
				   QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	/* a top-level statement's snapshot, popped when it returns */
	Snapshot	popping = context == PROCESS_UTILITY_TOPLEVEL && ActiveSnapshotSet() ?
		GetActiveSnapshot() : NULL;

	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context, params,
							 queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params,
								queryEnv, dest, qc);
	note_xact_snapshot();		/* a utility statement may take it (CALL, COPY FROM) */
	release_unused_ending(NULL, popping);
}

/*
 * wc_snapshots_need_link
 *		Does the transaction still need the link its snapshots are on?  A
 *		scan, started or not, holds one, or one is the snapshot of a
 *		statement still running, or the transaction reads one snapshot
 *		throughout (REPEATABLE READ): a new worker cannot continue them.
 */
bool
wc_snapshots_need_link(void)
{
	return snapshots_held() || (snaps != NIL && IsolationUsesXactSnapshot());
}

/* Let go of every PostgreSQL snapshot (the transaction is ending). */
void
wc_snapshots_forget_pg(void)
{
	ListCell   *lc;

	foreach(lc, snaps)
		forget_pg_snapshot(lfirst(lc));
}

/* The link is dropped: forget every snapshot; the worker frees its own. */
void
wc_snapshots_drop(void)
{
	wc_snapshots_forget_pg();
	snaps = NIL;
	if (snap_cxt != NULL)
		MemoryContextReset(snap_cxt);
}

/* At the transaction's end: tell the worker to drop every snapshot. */
void
wc_snapshots_release_all(void)
{
	ListCell   *lc;

	foreach(lc, snaps)
		wc_client_send_release(((WcSnapUse *) lfirst(lc))->id);
	wc_snapshots_drop();
}

/*
 * wc_snapshot_init
 *		Watch for queries' and utility statements' ends (release_unused),
 *		and for the transaction's snapshot (wc_xact_snapshot_time).
 */
void
wc_snapshot_init(void)
{
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = wc_executor_start;
	RegisterXactCallback(snapshot_xact_callback, NULL);
	prev_executor_end = ExecutorEnd_hook;
	ExecutorEnd_hook = wc_executor_end;
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = wc_process_utility;
}
