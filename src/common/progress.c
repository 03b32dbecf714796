/*-------------------------------------------------------------------------
 *
 * progress.c
 *	  The progress slots of long work (common/progress.h): their shared
 *	  memory, and the writes and reads both processes make.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/timestamp.h"

#include "common/progress.h"

WcProgress *wc_progress = NULL;

Size
wc_progress_shmem_size(void)
{
	return mul_size(sizeof(WcProgress), MaxBackends);
}

/* In shmem_startup_hook, under AddinShmemInitLock (common/shmem.c). */
void
wc_progress_shmem_init(void)
{
	bool		found;

	wc_progress = ShmemInitStruct("widecolumn_fdw progress", wc_progress_shmem_size(),
								  &found);
	if (!found)
	{
		memset(wc_progress, 0, wc_progress_shmem_size());
		for (int i = 0; i < MaxBackends; i++)
		{
			SpinLockInit(&wc_progress[i].mutex);
			pg_atomic_init_u64(&wc_progress[i].queued_at, 0);
		}
	}
}

/*
 * wc_progress_count
 *		The worker's count of the work it does for the backend of slot.
 *		Nothing shows unless that backend has named an operation.
 */
void
wc_progress_count(int slot, WcProgressUnit unit, uint64 done, bool has_total, uint64 total)
{
	WcProgress *p = &wc_progress[slot];

	SpinLockAcquire(&p->mutex);
	p->unit = unit;
	p->done = done;
	p->has_total = has_total;
	p->total = Max(total, done);
	SpinLockRelease(&p->mutex);
}

/* A consistent copy of slot. */
void
wc_progress_read(int slot, WcProgress *copy)
{
	WcProgress *p = &wc_progress[slot];

	SpinLockAcquire(&p->mutex);
	memcpy(copy, p, sizeof(WcProgress));
	SpinLockRelease(&p->mutex);
}

/*
 * wc_progress_queued
 *		The backend of slot queued a request: noted unless an earlier one
 *		is still waiting for the worker.
 */
void
wc_progress_queued(int slot)
{
	uint64		none = 0;

	if (wc_progress == NULL || slot < 0 || slot >= MaxBackends)
		return;
	(void) pg_atomic_compare_exchange_u64(&wc_progress[slot].queued_at, &none,
										  (uint64) GetCurrentTimestamp());
}

/*
 * wc_progress_take_queued
 *		The worker takes slot's request off its queue: how long it waited
 *		there (µs), or -1 if the backend did not note it.
 */
int64
wc_progress_take_queued(int slot)
{
	uint64		at = pg_atomic_exchange_u64(&wc_progress[slot].queued_at, 0);
	TimestampTz now;

	if (at == 0)
		return -1;
	now = GetCurrentTimestamp();
	return now > (TimestampTz) at ? now - (TimestampTz) at : 0;
}
