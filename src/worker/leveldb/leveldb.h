/*-------------------------------------------------------------------------
 *
 * leveldb.h
 *	  The LevelDB engine's own declarations: the Bigtable model on an
 *	  ordered store (src/worker/leveldb/), behind engine.h.
 *
 * Nothing outside this folder includes this header or storage.h, LevelDB's
 * wall: the engine-neutral worker reaches the engine through its table of
 * functions (engine.c, wc_leveldb_engine) alone.  Functions are grouped by
 * the file that defines them.
 *
 * Inside, calls run down: from engine.c through largecommit.c, reclaim.c
 * and databases.c; to the reads and the commit (rowscan.c and rowread.c, sizes.c,
 * sweep.c, rowcommit.c) and the undoing of one (rollback.c); to the records
 * they read (tablemeta.c, rowdrops.c, xacts.c, heatstore.c) and the cells'
 * own code (versions.c, rowfilter.c); to LevelDB's wall (storage.c,
 * commitwriter.c).  Two pairs call each other: tablemeta.c reads a table's
 * row drops through rowdrops.c, which loads the table's entry in the table
 * of families through tablemeta.c (one record, read two ways); and
 * storage.c waits for the commit writer before it closes a database and
 * counts its fsyncs, while the commit writer writes through storage.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_LEVELDB_H
#define WC_LEVELDB_H

#include "worker/worker.h"
#include "worker/leveldb/storage.h"

/*
 * Target sizes of scan batches (rowscan.c): the first, the next few, at
 * most; full scans: always the bulk size.
 */
#define WC_FIRST_BATCH_BYTES	(8 * 1024)
#define WC_SMALL_BATCH_BYTES	(16 * 1024)
#define WC_SMALL_BATCHES		6
#define WC_BATCH_BYTES			(128 * 1024)
#define WC_BULK_BATCH_BYTES		(512 * 1024)

/* An open database and the clock that stamps its commits. */
typedef struct WcOpenDb
{
	WcDatabase	base;			/* first: what the engine-neutral worker sees */
	char	   *path;			/* as first asked for, made canonical */
	bool		have_file_id;	/* dev and ino: the directory, once it exists */
	dev_t		dev;
	ino_t		ino;
	WcDbOptions opts;
	WcDb	   *db;				/* NULL: closed after a failed write */
	uint64		last_commit_ts;
	uint64		clock_stored;	/* the clock as stored: above every commit */
	struct WcRowDropCache *rowdrops;	/* rowdrops.c: tables' dropped ranges */
	bool		commit_partial; /* a commit's first batches are written, not
								 * its last: reopen to roll them back */
	struct WcXacts *xacts;		/* xacts.c: recent commits' writers */
	bool		large_writing;	/* largecommit.c: a large commit of it is
								 * being written */
	WcSnap	   *large_before;	/* and the state before it, which reads of
								 * the latest read meanwhile */
	/* redolog.c: commits logged in WAL; its `00 00 wal` entry as stored */
	bool		wal_have_id;
	uint8		wal_id[16];		/* WC_WAL_ID_LEN */
	bool		wal_dirty;		/* stored not clean: may need redo */
	uint64		wal_from;		/* stored: redo from this WAL position */
	bool		wal_unsynced;	/* logged batches written since the last sync */
	uint64		wal_written_at; /* the last one's time (µs, monotonic) */
} WcOpenDb;

/*
 * The commits a read hides (xacts.c): their timestamps, ascending.  Made
 * on the main thread, read anywhere.
 */
typedef struct WcHidden
{
	int			n;
	uint64	   *ts;
	bool		preimages;		/* one of them replaced or removed versions
								 * at their own timestamps: a read takes
								 * their pre-images (ldb_unstamp) */
} WcHidden;

/*
 * Is the commit stamped ts hidden?  Plain C, for the reader threads; on
 * every entry a scan reads, so inline, and one comparison while no commit
 * is unsettled.
 */
static inline bool
ldb_hidden_has(const WcHidden *h, uint64 ts)
{
	int			lo = 0,
				hi = h->n - 1;

	if (h->n == 0 || ts < h->ts[0] || ts > h->ts[h->n - 1])
		return false;
	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (h->ts[mid] == ts)
			return true;
		if (h->ts[mid] < ts)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

typedef struct WcLdbScan WcLdbScan;

/* in engine.c: the engine's table, and the snapshots it gives out */
struct WcEngineSnap
{
	WcSnap	   *snap;
	WcHidden	hidden;			/* the commits PostgreSQL's snapshot does not
								 * see, as of the LevelDB snapshot */
	int			holds;
};

/* in databases.c: the databases by path, reopening after failure */
extern WcOpenDb *ldb_open(const WcOpenRequest *req, const WcEngine *engine);
extern void ldb_ready(WcDatabase *db);
extern void ldb_reopen(WcOpenDb *odb);
extern void ldb_close_after_failure(WcOpenDb *odb);
extern void ldb_close_all(void);
extern bool ldb_settle_registered(void);
#define ldb_odb(db)	((WcOpenDb *) (db))
/*
 * The database of id as this engine's, or NULL past the last: a walk over
 * every database skips those of other engines (ldb_odb_mine).
 */
#define LDB_ENGINE_NAME	"leveldb"
#define ldb_odb_nth(id)	((WcOpenDb *) wc_db_nth(id))
#define ldb_odb_mine(odb)	(strcmp((odb)->base.engine->name, LDB_ENGINE_NAME) == 0)

/* What reads of odb's latest state read while its large commit runs. */
static inline WcSnap *
ldb_large_commit_snapshot(WcOpenDb *odb)
{
	return odb->large_writing ? odb->large_before : NULL;
}

/* Is a large commit being written, of any database (largecommit.c)? */
static inline bool
ldb_large_commit_active(void)
{
	WcOpenDb   *odb;

	for (uint32 i = 0; (odb = ldb_odb_nth(i)) != NULL; i++)
		if (ldb_odb_mine(odb) && odb->large_writing)
			return true;
	return false;
}

/* in rowscan.c: reading rows */
extern WcLdbScan *ldb_scan_open(WcOpenDb *odb, WcSnap *snap, const WcHidden *hidden,
									const WcScanRequest *req);
extern bool ldb_scan_fill(WcLdbScan *scan);
extern const WcByteBuf *ldb_scan_batch(WcLdbScan *scan);
extern bool ldb_scan_is_small(WcLdbScan *scan);
extern void ldb_scan_close(WcLdbScan *scan);
extern void ldb_scan_hold(WcLdbScan *scan, WcSnap *snap);
extern WcOpenDb *ldb_scan_db(WcLdbScan *scan);
extern struct WcHeatScan *ldb_scan_heat(WcLdbScan *scan);
extern uint64 ldb_estimate(WcOpenDb *odb, const WcEstimateRequest *req);

/* in heatstore.c: the heat map's counters, kept in the database */
extern void ldb_heat_load(WcOpenDb *odb);
extern void ldb_heat_store(WcOpenDb *odb, bool now);
extern void ldb_heat_store_due(void);

/* in sizes.c */
extern void ldb_sizes_sample(WcOpenDb *odb, const WcSampleRequest *req, StringInfo out);
extern void ldb_sizes_forget(WcOpenDb *odb);
extern uint64 ldb_sizes_range_bytes(WcOpenDb *odb, const uint8 *start, size_t slen,
								const uint8 *end, size_t elen);
extern void ldb_sizes_rows(WcOpenDb *odb, const WcRowsRequest *req, WcRowsAnswer *a);

/* in versions.c: every version, for a cells-layout table */
typedef struct WcVersionScan WcVersionScan;
/* a cell's family's policy (NULL: none), and the time of its drop, if any */
typedef const struct WcGcPolicy *(*WcVersionPolicyFn) (void *arg, const uint8 *row,
													   size_t rowlen, size_t fqlen,
													   uint64 *dropped);
extern WcVersionScan *ldb_versions_open(const WcScanRequest *req, WcIter *it, WcIter *pre,
										 const WcHidden *hidden, uint64 now,
										 uint64 pending_ts, WcVersionPolicyFn policy_of,
										 void *policy_arg);
extern bool ldb_versions_fill(WcVersionScan *vs, WcBatchWriter *w, const WcByteBuf *out,
							   int batch_bytes, uint64 *entries);
extern void ldb_versions_close(WcVersionScan *vs);

/* in tablemeta.c: a table's policies and drop times (the table of families) */
typedef struct WcFamilyMeta
{
	WcBytes		family;			/* escaped, as in a key */
	bool		listed;			/* in wc:families, not only dropped */
	bool		has_policy;		/* false: every version is kept */
	WcGcPolicy	policy;
	uint64		dropped;		/* drop_family's time: older versions are
								 * gone (0: none) */
} WcFamilyMeta;

/*
 * A row range drop_row_range dropped, or a DELETE of row-key ranges
 * deleted, as key bounds of the table's entries: [start, end), end the
 * table's own end when the range has none.
 */
typedef struct WcRowDrop
{
	WcBytes		start;
	WcBytes		end;
	bool		tombstone;		/* a DELETE's: a row tombstone on every row */
	uint64		dropped;		/* the drop's time: older entries are gone
								 * (a tombstone's: for reads from then on) */
	uint64		refilled;		/* the first commit into it since; 0: none */
	WcBytes		qualifier;		/* the range, as the drop cell's qualifier */
	bool		hides;			/* the sweep met a kept entry older (a
								 * tombstone's) */
	bool		stays;			/* the sweep keeps its cell (and so its marks) */
} WcRowDrop;

typedef struct WcTableMeta
{
	uint64		dropped;		/* drop_table's time: older entries are gone */
	int			nrowdrops;		/* drop_row_range's, by start */
	WcRowDrop  *rowdrops;
	int			nfamilies;
	WcFamilyMeta *families;
	const WcFamilyMeta *unlisted;	/* what a family in no list has; NULL:
									 * the table of families */
	bool		hid_changes;	/* a change the reader does not see was
								 * passed over */
} WcTableMeta;

extern void ldb_table_meta_load(WcIter *it, const WcHidden *hidden, const uint8 *table,
							   size_t tlen, WcTableMeta *m);
extern const WcFamilyMeta *ldb_table_meta_family(const WcTableMeta *m,
												const uint8 *fq, size_t fqlen);

/* in rowdrops.c: the row ranges drop_row_range dropped */
extern bool ldb_rowdrops_cell(WcTableMeta *m, const uint8 *table, size_t tlen,
							 const uint8 *fq, size_t fqlen, uint64 ts);
extern bool ldb_rowdrops_cell_goes(WcTableMeta *m, const uint8 *fq, size_t fqlen,
								  uint64 ts);
extern int	ldb_rowdrops_subtract(const WcTableMeta *m, uint64 as_of,
								 const WcWireRange *ranges, int nranges,
								 WcWireRange **out);
#define WC_ROWDROP_DROPS	1	/* drop_row_range's */
#define WC_ROWDROP_TOMBS	2	/* a DELETE's */
extern uint64 ldb_rowdrops_row(const WcTableMeta *m, const uint8 *row, size_t rowlen,
							  int kinds, uint64 as_of);
extern void ldb_rowdrops_hiding(WcTableMeta *m, const uint8 *row, size_t rowlen,
							   uint64 oldest_kept);
extern void ldb_rowdrops_commit_begin(WcOpenDb *odb, WcClientWrites *w);
extern bool ldb_rowdrops_refill(WcOpenDb *odb, const uint8 *row, size_t rowlen,
							   uint64 ts, StringInfo key);
extern void ldb_rowdrops_forget(WcOpenDb *odb);

/* in sweep.c: walks that delete what no read can return any more */
typedef struct WcSweep WcSweep;
extern int	ldb_debug_crash_after_sweep_batches;
extern WcSweep *ldb_sweep_begin(WcOpenDb *odb, const uint8 *table, size_t tlen,
							   bool count_only, const uint8 *family, size_t flen,
							   bool background);
extern bool ldb_sweep_slice(WcSweep *sw, int max_us);
extern uint64 ldb_sweep_result(WcSweep *sw);
extern void ldb_sweep_position(WcSweep *sw, WcBytes *cursor, WcBytes *end);
extern void ldb_sweep_end(WcSweep *sw);

/* in reclaim.c: when they walk (the background sweep, COUNT and COMPACT) */
extern int	ldb_sweep_naptime;
extern int	ldb_debug_reclaim_pause;
extern long ldb_sweep_background(void);
extern void ldb_reclaim_start(WcClient *c, WcOpenDb *odb, WcSweep *sw,
							 const uint8 *table, size_t tlen, bool compact);
extern int	ldb_reclaim_step(void);
extern void ldb_reclaim_forget(WcClient *c);

/*
 * A commit whose WRITE payloads come to more than this is written as several
 * LevelDB batches of about this size, so that LevelDB can switch memtables
 * and flush the first while the rest is being written, instead of holding
 * the whole load uncompressed in one memtable and its log.  largecommit.c
 * writes them while the worker serves, no read seeing part of the commit; a
 * crash in between is undone at the next open, from the pending-commit file.
 */
#define WC_COMMIT_CHUNK_BYTES	(4 * 1024 * 1024)

/*
 * The record of a commit whose batches are not all written: u64 timestamp,
 * then str lowest row prefix, str highest row prefix; for a commit of
 * versions at their own timestamps, then str lowest and str highest row
 * prefix of the rows that hold them, where nothing was stored before the
 * commit (ldb_commit_is_large), so that all of them go.  It is a file in the
 * database's directory, not a LevelDB entry, for the clock's reason: an entry
 * written before the first batch and deleted with the last would make the
 * last memtable span the whole load.  LevelDB leaves files it does not name
 * alone.
 */
#define WC_PENDING_FILE "widecolumn-pending-commit"

/* in rollback.c: undoing a commit */
extern char *ldb_pending_path(WcOpenDb *odb);
extern bool ldb_at_or_below_row(const uint8 *k, size_t n, const uint8 *highest, size_t len);
extern void ldb_recover(WcOpenDb *odb);
extern uint64 ldb_rollback(WcOpenDb *odb, uint64 ts, WcBytes lowest, WcBytes highest);

/* in rowcommit.c: writing rows, and the clock */
extern int	ldb_debug_crash_after_commit_batches;
extern bool ldb_debug_age_recent_xmin;
extern bool ldb_debug_lose_logged_writes;
extern bool ldb_debug_defer_logged_syncs;

/* redolog.c */
extern bool ldb_redo_on(void);
extern bool ldb_wal_commits;
extern void ldb_redo_adjust(void);
extern void ldb_redo_log(WcOpenDb *odb, WcBatch *batch);
extern void ldb_redo_sync(WcOpenDb *odb, bool clean);
extern void ldb_redo_sync_due(void);
extern void ldb_redo_replay(WcOpenDb *odb);
extern void ldb_redo_opened(const char *path, bool ok);
extern void ldb_redo_pass_done(void);
extern void ldb_xacts_worker_start(void);
extern void ldb_load_clock(WcOpenDb *odb);
extern bool ldb_commit_is_large(WcOpenDb *odb, WcClientWrites *w);
extern WcBatch *ldb_commit(WcOpenDb *odb, WcClientWrites *w, bool sync);
typedef struct WcCommit WcCommit;
extern WcCommit *ldb_commit_large_begin(WcOpenDb *odb, WcClientWrites *w);
extern bool ldb_commit_large_fill(WcCommit *cm, int max_us);
extern bool ldb_commit_large_has_chunk(WcCommit *cm);
extern bool ldb_commit_large_rows_over(WcCommit *cm);
extern WcBatch *ldb_commit_large_take(WcCommit *cm);
extern void ldb_commit_large_written(WcCommit *cm, int written, bool going_on);
extern void ldb_commit_large_end(WcCommit *cm);
extern void ldb_commit_large_abort(WcCommit *cm);
extern uint64 ldb_commit_large_done(WcCommit *cm);

/* in largecommit.c: a large commit, written while the worker serves */
extern void ldb_large_commit_start(WcClient *c, WcOpenDb *odb, uint32 db);
extern int	ldb_debug_large_commit_pause;
extern bool ldb_collect_commits(void);
extern bool ldb_large_commit_owns(void *owner);
extern void ldb_large_commit_written(void);
extern bool ldb_large_commit_step(void);
extern void ldb_large_commit_complete(void);

/* in xacts.c: which transaction wrote each recent commit, who sees it */
extern void ldb_xacts_load(WcOpenDb *odb);
extern void ldb_xacts_commit(WcOpenDb *odb, WcBatch *batch, uint64 ts, uint64 writer,
							 StringInfo lowest, StringInfo highest, bool preimages);
extern void ldb_preimage_key(uint64 ts, const uint8 *key, size_t klen, StringInfo out);
extern bool ldb_unstamp(const WcHidden *hidden, WcIter *pre, WcByteBuf *scratch,
						const uint8 *key, size_t klen, const uint8 **v, size_t *vlen);
extern void ldb_preimages_delete(WcOpenDb *odb, WcBatch *batch, uint64 ts);
extern void ldb_xacts_hidden(WcOpenDb *odb, const WcXidSnapshot *snap, bool settled,
							WcHidden *out);
extern void ldb_hidden_copy(const WcHidden *h, WcHidden *to, MemoryContext cxt);
extern void ldb_xacts_settle(WcOpenDb *odb);
extern int	ldb_xacts_settle_closing(WcOpenDb *odb);
extern uint64 ldb_xacts_newest(WcOpenDb *odb);
extern void ldb_xacts_free(WcOpenDb *odb);
extern void ldb_xacts_settle_due(void);
extern int	ldb_xacts_pending(WcOpenDb *odb);
extern bool ldb_xacts_unsettled(WcOpenDb *odb, uint64 ts);

#endif							/* WC_LEVELDB_H */
