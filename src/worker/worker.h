/*-------------------------------------------------------------------------
 *
 * worker.h
 *	  Declarations private to the storage worker (worker.c, cells.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_WORKER_H
#define WC_WORKER_H

#include "lib/stringinfo.h"
#include "nodes/pg_list.h"

#include "common/wire.h"
#include "worker/storage.h"

/*
 * Target sizes of scan batches (cells.c): the first, the next few, at most;
 * full scans: always the bulk size.
 */
#define WC_FIRST_BATCH_BYTES	(8 * 1024)
#define WC_SMALL_BATCH_BYTES	(16 * 1024)
#define WC_SMALL_BATCHES		6
#define WC_BATCH_BYTES			(128 * 1024)
#define WC_BULK_BATCH_BYTES		(512 * 1024)

/* An open database and the clock that stamps its commits. */
typedef struct WcOpenDb
{
	char	   *path;			/* as first asked for, made canonical */
	bool		have_file_id;	/* dev and ino: the directory, once it exists */
	dev_t		dev;
	ino_t		ino;
	WcDbOptions opts;
	WcDb	   *db;				/* NULL: closed after a failed write */
	uint64		last_commit_ts;
	uint64		clock_stored;	/* the clock as stored: above every commit */
	bool		commit_partial; /* a commit's first batches are written, not
								 * its last: reopen to roll them back */
} WcOpenDb;

typedef struct WcCellScan WcCellScan;

/* The writes a backend has sent for a database and not yet committed. */
typedef struct WcClientWrites
{
	uint32		db;
	List	   *msgs;			/* WRITE payloads (StringInfo) */
	StringInfoData lowest;		/* the lowest and highest row prefix in them */
	StringInfoData highest;
} WcClientWrites;

/* in worker.c */
extern void wc_worker_register(void);

/* in cells.c */
extern int	wc_debug_crash_after_commit_batches;
extern int	wc_debug_clock_step_back;
extern void cells_load_clock(WcOpenDb *odb);
extern void cells_recover(WcOpenDb *odb);
extern WcCellScan *cells_scan_open(WcOpenDb *odb, WcSnap *snap, WcReader *r,
								   bool reverse, bool fill_cache, bool versions,
								   uint64 limit);
extern bool cells_scan_fill(WcCellScan *scan, StringInfo out);
extern void cells_scan_empty_batch(StringInfo out);
extern void cells_scan_close(WcCellScan *scan);
extern WcOpenDb *cells_scan_db(WcCellScan *scan);
extern bool cells_commit_is_large(WcClientWrites *w);
extern WcBatch *cells_commit(WcOpenDb *odb, WcClientWrites *w, bool sync);
extern uint64 cells_estimate(WcOpenDb *odb, WcReader *r);

#endif							/* WC_WORKER_H */
