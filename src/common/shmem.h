/*-------------------------------------------------------------------------
 *
 * shmem.h
 *	  The contract between the backends and the storage worker: the shared
 *	  memory they meet in, and the DSM segment each backend talks through.
 *
 * A backend creates a DSM segment holding a request queue and an answer
 * queue (found by their table-of-contents keys below), posts the segment's
 * handle in its slot of WcShared and sets the worker's latch.  What goes
 * through the queues is src/common/wire.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_SHMEM_H
#define WC_SHMEM_H

#include "access/xlogdefs.h"
#include "port/atomics.h"
#include "storage/dsm.h"
#include "storage/latch.h"
#include "storage/s_lock.h"

/* Identifies our DSM segments. */
#define WC_SHM_MAGIC			0x57434644

/* The table-of-contents keys of a backend's segment. */
#define WC_TOC_REQUEST_QUEUE	0	/* backend to worker */
#define WC_TOC_ANSWER_QUEUE		1	/* worker to backend */
#define WC_TOC_CANCELS			2	/* WcCancels */
#define WC_TOC_NKEYS			3

/* Sizes of the two queues. */
#define WC_REQUEST_QUEUE_SIZE	(256 * 1024)
#define WC_ANSWER_QUEUE_SIZE	(1024 * 1024)

/*
 * The longest database directory: LevelDB's file names go after it, and the
 * worker's registry of directories reads lines of MAXPGPATH.
 */
#define WC_MAX_PATH				(MAXPGPATH - 64)

/*
 * The scans (and calls) of a link whose answers the backend gave up on while they were
 * owed (an error or a cancel came first, or the scan was closed early): the
 * worker stops filling their batches, a call to a remote store in flight
 * cancelled (engine.h's scan_cancel).  The backend writes the id, then
 * counts it; the worker reads the count, then the ids.  Only the last
 * WC_CANCEL_RING are kept: an older one is filled as if it were wanted,
 * which costs time, never a wrong answer (the backend drops it).
 */
#define WC_CANCEL_RING			16

typedef struct WcCancels
{
	pg_atomic_uint32 count;		/* ids posted so far */
	uint32		ids[WC_CANCEL_RING];	/* the i-th at i % WC_CANCEL_RING */
	/*
	 * The last call (an answered request other than a scan's, numbered
	 * from 1 on the link by both sides) whose answer the backend gave up
	 * on, 0 if none: a remote store's call made for it is cancelled.
	 */
	pg_atomic_uint32 call;
} WcCancels;

extern bool wc_cancels_has(WcCancels *cancels, uint32 count, uint32 id);

/*
 * A backend's slot.  The generation changes each time the worker starts, so
 * a backend can tell that the worker it was talking to is gone even if a
 * new one has the same slot open.
 */
typedef struct WcSlot
{
	dsm_handle	handle;			/* the backend's segment, or 0 */
	uint64		generation;		/* worker generation it was posted for */
} WcSlot;

typedef struct WcShared
{
	slock_t		mutex;
	pid_t		worker_pid;		/* 0 while no worker runs */
	Latch	   *worker_latch;
	uint64		generation;
	/* clients the worker had work for in its last pass (backends poll) */
	pg_atomic_uint32 busy_clients;
	/* bumped at each change of a slot, so the worker rereads them only then */
	pg_atomic_uint32 slot_changes;
	/* bumped at each commit that changed a list of column families */
	pg_atomic_uint64 family_changes;
	/*
	 * bumped by a backend before and after each COMMIT it sends to a
	 * Bigtable server: a row locked with no change since a scan read it
	 * needs no reread (fdw/exec/scan.c)
	 */
	pg_atomic_uint64 bigtable_commits;
	/*
	 * 1 while the storage worker logs small commits in WAL
	 * (worker/leveldb/redolog.c): a synced COMMIT's answer does not wait
	 * for an fsync, so a backend polls for it (fdw/link/client.c)
	 */
	pg_atomic_uint32 commits_logged;
	/*
	 * the highest xid (a FullTransactionId) that durable WAL reserves, and
	 * where that record starts (fdw/commit/xidwal.c)
	 */
	slock_t		xid_mutex;
	uint64		xids_reserved;
	XLogRecPtr	xids_reserved_at;
	int			nslots;			/* MaxBackends: a backend's is MyBackendId - 1 */
	WcSlot		slots[FLEXIBLE_ARRAY_MEMBER];
} WcShared;

/* in shmem.c */
extern WcShared *wc_shared;
extern void wc_shmem_init(void);

#endif							/* WC_SHMEM_H */
