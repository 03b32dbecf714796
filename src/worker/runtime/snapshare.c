/*-------------------------------------------------------------------------
 *
 * snapshare.c
 *	  Snapshots several backends read: the one a parallel scan's leader
 *	  took, which its participants (backends of their own, each its own
 *	  client) must read too, so that they all return the same data.
 *
 * A backend's snapshot ids are its own (serve.c's SNAPSHOT).  SHARE gives
 * one of them a token; ATTACH makes the token a snapshot of another backend,
 * under that backend's own id.  The engine's snapshot is then held by every
 * backend that has it (each hold let go of once: RELEASE, its backend
 * gone, or its database closed after a failed write), and the token stays
 * valid until the last lets go.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "worker/worker.h"

typedef struct WcSharedSnap
{
	uint64		token;
	WcDatabase *db;
	WcEngineSnap *snap;			/* the leader's */
	int			holders;		/* WcClientSnaps that name it */
} WcSharedSnap;

static List *shared_snaps = NIL;	/* WcSharedSnap, in wc_worker_cxt */
static uint64 next_token = 0;

/*
 * wc_serve_share
 *		SHARE: the token under which other backends may read one of c's
 *		snapshots; the same token each time it is asked.
 */
void
wc_serve_share(WcClient *c, WcReader *r)
{
	uint32		id;
	WcClientSnap *cs = NULL;
	ListCell   *lc;
	MemoryContext old;

	if (!wc_read_share(r, &id))
		wc_malformed("SHARE");
	foreach(lc, c->snaps)
		if (((WcClientSnap *) lfirst(lc))->id == id)
			cs = lfirst(lc);
	if (cs == NULL)
	{
		wc_check_lost(c, id, false, false);
		ereport(ERROR,
				(errcode(ERRCODE_PROTOCOL_VIOLATION),
				 errmsg("request from a backend names unknown snapshot %u", id)));
	}
	if (cs->shared == NULL)
	{
		/*
		 * Tokens start from the worker's start time, so that one given out
		 * by a worker that has since restarted names nothing here.
		 */
		if (next_token == 0)
			next_token = (uint64) GetCurrentTimestamp();
		old = MemoryContextSwitchTo(wc_worker_cxt);
		cs->shared = palloc(sizeof(WcSharedSnap));
		cs->shared->token = next_token++;
		cs->shared->db = cs->db;
		cs->shared->snap = cs->snap;
		cs->shared->holders = 1;
		shared_snaps = lappend(shared_snaps, cs->shared);
		MemoryContextSwitchTo(old);
	}
	wc_write_share_answer(&c->answer, cs->shared->token);
}

/*
 * wc_serve_attach
 *		ATTACH: make a shared snapshot one of c's, under the id c chose.
 */
void
wc_serve_attach(WcClient *c, WcReader *r)
{
	uint32		db,
				id;
	uint64		token;
	WcDatabase *d;
	WcSharedSnap *ss = NULL;
	WcClientSnap *cs;
	ListCell   *lc;
	MemoryContext old;

	if (!wc_read_attach(r, &db, &token, &id))
		wc_malformed("ATTACH");
	d = wc_db_lookup(db);
	foreach(lc, shared_snaps)
		if (((WcSharedSnap *) lfirst(lc))->token == token)
			ss = lfirst(lc);
	if (ss == NULL || ss->db != d)
		ereport(ERROR,
				(errcode(ERRCODE_SNAPSHOT_TOO_OLD),
				 errmsg("could not read the snapshot of a parallel scan's leader"),
		/* translator: the second %s is an engine's name, "LevelDB" */
				 errdetail("The storage worker holds no snapshot shared under token %llu on %s database \"%s\".",
						   (unsigned long long) token, d->engine->title, d->name),
				 errhint("Retry the query.")));
	old = MemoryContextSwitchTo(c->cxt);
	cs = palloc(sizeof(WcClientSnap));
	cs->id = id;
	cs->db = d;
	cs->snap = d->engine->snapshot_hold(ss->snap);
	cs->shared = ss;
	ss->holders++;
	c->snaps = lappend(c->snaps, cs);
	MemoryContextSwitchTo(old);
	wc_write_ok(&c->answer);
}

/*
 * wc_snapshot_let_go
 *		A backend lets go of one of its snapshots (the caller takes cs off
 *		its list); the token goes when nobody holds the snapshot.
 */
void
wc_snapshot_let_go(WcClientSnap *cs)
{
	WcSharedSnap *ss = cs->shared;

	if (ss != NULL && --ss->holders == 0)
	{
		shared_snaps = list_delete_ptr(shared_snaps, ss);
		pfree(ss);
	}
	cs->db->engine->snapshot_release(cs->db, cs->snap);
}
