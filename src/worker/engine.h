/*-------------------------------------------------------------------------
 *
 * engine.h
 *	  What a storage engine provides the storage worker, at the level of
 *	  its requests: a table of functions each database points to.
 *
 * The engine-neutral worker (the main loop and the dispatch in
 * src/worker/, the clients, reader threads, failure capture, snapshot
 * sharing and the heat map's counters in src/worker/runtime/) decodes a
 * request, finds the database it names and calls its engine here; it calls
 * nothing else of an engine.  An engine lives in a folder of its own
 * (src/worker/leveldb/: the Bigtable model on an ordered store, and
 * LevelDB's wall) and may use the runtime below it, never the dispatch
 * above it.
 *
 * Every function runs on the worker's main thread and may ereport, except
 * scan_fill, which a reader thread may run: plain C, its errors captured
 * with runtime/failure.h.  Row-range drops and family changes are rows of
 * a commit (the backend writes them as cells of the table of families), so
 * they come through commit like any other write.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_ENGINE_H
#define WC_ENGINE_H

#include "lib/stringinfo.h"

#include "common/bytebuf.h"
#include "common/wire.h"

struct WcClient;
struct WcClientWrites;
struct WcHeatDb;

typedef struct WcEngine WcEngine;

/* What became of a COMMIT (engine.h's commit). */
typedef enum WcCommitOutcome
{
	WC_COMMIT_WRITTEN,			/* written: answer it now */
	WC_COMMIT_LATER,			/* being written: the engine answers it */
	WC_COMMIT_LARGE				/* the same, in slices; the engine frees its
								 * writes when it is over */
} WcCommitOutcome;

/*
 * A database as the engine-neutral worker knows it: the first member of
 * the engine's own struct (leveldb.h's WcOpenDb).
 */
typedef struct WcDatabase
{
	const WcEngine *engine;
	uint32		id;				/* its place in the worker's list (state.c) */
	char	   *name;			/* for messages: a LevelDB database's path */
	struct WcHeatDb *heat;		/* runtime/heat.c's counters; NULL: none */
} WcDatabase;

/* A snapshot and a scan, as the engine makes them. */
typedef struct WcEngineSnap WcEngineSnap;
typedef struct WcEngineScan WcEngineScan;

struct WcEngine
{
	const char *name;			/* the server option engine's value: "leveldb" */
	const char *title;			/* in messages: "LevelDB" */

	/* Its settings, defined with the worker's in the postmaster. */
	void		(*define_settings) (void);

	/*
	 * The worker starts (the fd its loop waits on, -1: none).  At its end:
	 * finish writes the commits under way and answers them, stop ends the
	 * engine's threads (after every held COMMIT is served), close_all
	 * closes the databases (after the backends' scans and snapshots).
	 */
	int			(*start) (int nslots);
	void		(*finish) (void);
	void		(*stop) (void);
	void		(*close_all) (void);

	/*
	 * Each pass of the main loop: the engine's own work (answers that are
	 * ready, commits and walks going on in slices); true if it did any.
	 * idle: nobody is waiting, a slice of background work; the most
	 * milliseconds the loop may sleep.
	 */
	bool		(*step) (void);
	long		(*idle) (void);

	/*
	 * OPEN: find or open a database (req->target, with the engine's own
	 * options); before each use: make it usable.
	 */
	WcDatabase *(*open) (const WcOpenRequest *req);
	void		(*ready) (WcDatabase *db);

	/*
	 * A snapshot of db as PostgreSQL's snapshot xs sees it; held again (a
	 * parallel scan's participants); let go of (each hold once).
	 */
	WcEngineSnap *(*snapshot) (WcDatabase *db, const WcXidSnapshot *xs);
	WcEngineSnap *(*snapshot_hold) (WcEngineSnap *snap);
	void		(*snapshot_release) (WcDatabase *db, WcEngineSnap *snap);

	/*
	 * A scan (snap NULL: the latest data), its batches, and its end.
	 * scan_fill may run on a reader thread; true at the last batch.
	 * scan_batch, on the main thread, gives the filled batch.  scan_cancel,
	 * on the main thread while a thread fills the scan (NULL: fills are
	 * short), makes that fill end soon, failed: its backend no longer
	 * wants it.
	 */
	WcEngineScan *(*scan_open) (WcDatabase *db, WcEngineSnap *snap,
								const WcScanRequest *req);
	bool		(*scan_fill) (WcEngineScan *scan);
	bool		(*scan_is_small) (WcEngineScan *scan);	/* filled here, at once */
	bool		fills_wait;		/* on a remote store: on the call threads */
	const WcByteBuf *(*scan_batch) (WcEngineScan *scan);
	void		(*scan_cancel) (WcEngineScan *scan);
	void		(*scan_close) (WcEngineScan *scan);

	/*
	 * COMMIT of the writes c sent for db.  holds_commits: a commit is being
	 * written that every other COMMIT must wait for (they are held, and
	 * served when it is false again).
	 */
	WcCommitOutcome (*commit) (struct WcClient *c, WcDatabase *db,
							   struct WcClientWrites *w, bool sync);
	bool		(*holds_commits) (void);

	/*
	 * The planner's figures: the bytes of ranges, rows of ranges, split
	 * points.  Each answers c's request into its last argument and returns
	 * true, or returns false to answer it later (after a call to a remote
	 * store, as the Bigtable engine's are: c->answer_later, then
	 * wc_client_answered_later).  call_cancel (NULL: none) cuts short the
	 * call under way for one answered later, c's backend having given up
	 * on the answer; a COMMIT's is never cut short.
	 */
	bool		(*estimate) (struct WcClient *c, WcDatabase *db, const WcEstimateRequest *req,
							 uint64 *bytes);
	bool		(*rows) (struct WcClient *c, WcDatabase *db, const WcRowsRequest *req,
						 WcRowsAnswer *a);
	bool		(*sample) (struct WcClient *c, WcDatabase *db, const WcSampleRequest *req,
						   StringInfo out);
	void		(*call_cancel) (struct WcClient *c);
	uint64		(*range_bytes) (WcDatabase *db, const uint8 *start, size_t slen,
								const uint8 *end, size_t elen);

	/* COUNT and COMPACT (reclaiming space): answered when done. */
	void		(*count) (struct WcClient *c, WcDatabase *db, const WcReclaimRequest *req);
	void		(*compact) (struct WcClient *c, WcDatabase *db, const WcReclaimRequest *req);
	void		(*client_gone) (struct WcClient *c);

	/*
	 * Figures: the fsyncs the engine made (STAT_WORKER); the figures of db
	 * for STAT_DATABASES (LevelDB's levels; NULL: the engine has none).
	 */
	uint64		(*fsyncs) (void);
	void		(*describe) (WcDatabase *db, WcDbStats *s);
};

/* the engines (src/worker/<engine>/engine.c) */
extern const WcEngine wc_leveldb_engine;
extern const WcEngine wc_bigtable_engine;

#endif							/* WC_ENGINE_H */
