/*-------------------------------------------------------------------------
 *
 * progress.h
 *	  The progress of long work (widecolumn.progress), in shared memory: a
 *	  slot per backend, as PostgreSQL's own progress reports have.
 *
 * A backend names what it runs (wc_progress_begin: the operation, the
 * table) in its slot, the slot of its link to the storage worker (its
 * backend id - 1); the worker, which does the work, counts what is done in
 * the slot of the backend it works for.  Each slot has its own spinlock:
 * the two write it at most every few milliseconds, and a reader takes a
 * consistent copy.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_PROGRESS_H
#define WC_PROGRESS_H

#include "port/atomics.h"
#include "storage/s_lock.h"

/* The operations (widecolumn.progress's operation column). */
typedef enum WcProgressOp
{
	WC_PROGRESS_NONE = 0,
	WC_PROGRESS_COMPACT,
	WC_PROGRESS_DROP_TABLE,
	WC_PROGRESS_DROP_ROW_RANGE,
	WC_PROGRESS_COMMIT,
	WC_PROGRESS_EXPORT_AVRO,
	WC_PROGRESS_IMPORT_AVRO,
	WC_PROGRESS_BACKUP,
	WC_PROGRESS_RESTORE
} WcProgressOp;

/* What done and total count (the unit column). */
typedef enum WcProgressUnit
{
	WC_UNIT_BYTES_WALKED = 0,	/* a walk over the table's entries: LevelDB's
								 * estimate of the bytes before its cursor */
	WC_UNIT_BYTES_COMPACTED,	/* LevelDB compacts the range (no count) */
	WC_UNIT_BYTES_SENT,			/* a commit's rows sent to the worker */
	WC_UNIT_BYTES_WRITTEN,		/* ... and written by it */
	WC_UNIT_RANGES,				/* drop_row_range's one range */
	WC_UNIT_VERSIONS_EXPORTED,	/* cell versions an export wrote to its file */
	WC_UNIT_FILE_BYTES			/* bytes an import read of its file */
} WcProgressUnit;

/* The longest stored table name kept (longer ones are cut). */
#define WC_PROGRESS_TABLE_LEN	128

typedef struct WcProgress
{
	slock_t		mutex;
	int			pid;			/* 0: the slot is free */
	WcProgressOp op;
	WcProgressUnit unit;
	bool		has_total;
	uint64		done;
	uint64		total;
	int64		started;		/* TimestampTz */
	char		table[WC_PROGRESS_TABLE_LEN];	/* empty: none */

	/*
	 * When the backend queued a request the worker has not taken yet (µs
	 * since the Unix epoch; 0: none), for stat_worker_info's queue waits.
	 * Set by the backend if 0, taken and cleared by the worker, without the
	 * mutex: the first of several queued requests is the one measured.
	 */
	pg_atomic_uint64 queued_at;
} WcProgress;

/* in progress.c */
extern WcProgress *wc_progress;	/* MaxBackends slots */
extern Size wc_progress_shmem_size(void);
extern void wc_progress_shmem_init(void);
extern void wc_progress_count(int slot, WcProgressUnit unit, uint64 done, bool has_total,
							  uint64 total);
extern void wc_progress_read(int slot, WcProgress *copy);
extern void wc_progress_queued(int slot);
extern int64 wc_progress_take_queued(int slot);

#endif							/* WC_PROGRESS_H */
