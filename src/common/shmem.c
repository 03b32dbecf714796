/*-------------------------------------------------------------------------
 *
 * shmem.c
 *	  The shared memory where backends and the storage worker meet.
 *
 * Requested in shmem_request_hook and set up in shmem_startup_hook, so it
 * exists only when the library is preloaded; wc_shared stays NULL in a
 * backend that loaded us later, which is how the backend side tells.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"

#include "common/progress.h"
#include "common/scanuse.h"
#include "common/shmem.h"

WcShared   *wc_shared = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static size_t
wc_shmem_size(void)
{
	return add_size(offsetof(WcShared, slots),
					mul_size(sizeof(WcSlot), MaxBackends));
}

static void
wc_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(wc_shmem_size());
	RequestAddinShmemSpace(wc_progress_shmem_size());
	RequestAddinShmemSpace(wc_scanuse_shmem_size());
}

static void
wc_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	wc_shared = ShmemInitStruct("widecolumn_fdw", wc_shmem_size(), &found);
	if (!found)
	{
		memset(wc_shared, 0, wc_shmem_size());
		SpinLockInit(&wc_shared->mutex);
		SpinLockInit(&wc_shared->xid_mutex);
		pg_atomic_init_u32(&wc_shared->busy_clients, 0);
		pg_atomic_init_u32(&wc_shared->slot_changes, 0);
		pg_atomic_init_u64(&wc_shared->family_changes, 0);
		pg_atomic_init_u64(&wc_shared->bigtable_commits, 0);
		pg_atomic_init_u32(&wc_shared->commits_logged, 0);
		wc_shared->nslots = MaxBackends;
	}
	wc_progress_shmem_init();
	wc_scanuse_shmem_init();
	LWLockRelease(AddinShmemInitLock);
}

/*
 * wc_cancels_has
 *		Is scan id among the first count cancels posted (the worker's read
 *		of the count)?
 */
bool
wc_cancels_has(WcCancels *cancels, uint32 count, uint32 id)
{
	uint32		oldest = count > WC_CANCEL_RING ? count - WC_CANCEL_RING : 0;

	pg_read_barrier();
	for (uint32 i = oldest; i < count; i++)
		if (cancels->ids[i % WC_CANCEL_RING] == id)
			return true;
	return false;
}

/*
 * wc_shmem_init
 *		Install the hooks that set up our shared memory.
 */
void
wc_shmem_init(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = wc_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = wc_shmem_startup;
}
