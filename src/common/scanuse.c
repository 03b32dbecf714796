/*-------------------------------------------------------------------------
 *
 * scanuse.c
 *	  The shared table of what backends' scans fetched and kept
 *	  (common/scanuse.h): its memory, and the adds, reads and resets.
 *
 * An entry is claimed by compare-and-swap from free to being claimed, its
 * key written, then published as in use; its key never changes after.
 * Two backends that claim an entry for one table at once make two: a read
 * sums every entry of the table, a reset zeroes each.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "storage/shmem.h"
#include "utils/timestamp.h"

#include "common/scanuse.h"

static WcScanUse *wc_scanuse = NULL;

Size
wc_scanuse_shmem_size(void)
{
	return mul_size(sizeof(WcScanUse), WC_SCANUSE_ENTRIES);
}

/* In shmem_startup_hook, under AddinShmemInitLock (common/shmem.c). */
void
wc_scanuse_shmem_init(void)
{
	bool		found;

	wc_scanuse = ShmemInitStruct("widecolumn_fdw scan use", wc_scanuse_shmem_size(), &found);
	if (!found)
	{
		for (int i = 0; i < WC_SCANUSE_ENTRIES; i++)
		{
			WcScanUse  *e = &wc_scanuse[i];

			memset(e, 0, sizeof(WcScanUse));
			pg_atomic_init_u32(&e->state, 0);
			pg_atomic_init_u64(&e->scans, 0);
			pg_atomic_init_u64(&e->fetched, 0);
			pg_atomic_init_u64(&e->kept, 0);
			pg_atomic_init_u64(&e->since, 0);
			pg_atomic_init_u32(&e->reset, 0);
		}
	}
}

static bool
is_entry(WcScanUse *e, Oid db, Oid server, const char *table, uint32 len, uint32 hash)
{
	if (pg_atomic_read_u32(&e->state) != 2)
		return false;
	pg_read_barrier();
	return e->db == db && e->server == server && e->name_len == len && e->name_hash == hash &&
		memcmp(e->name, table, Min(len, WC_SCANUSE_TABLE_LEN)) == 0;
}

/*
 * wc_scanuse_add
 *		Add a scan's counts to its table's entry, claiming one if the table
 *		has none; dropped if every entry is taken.
 */
void
wc_scanuse_add(Oid db, Oid server, const char *table, uint64 scans, uint64 fetched, uint64 kept)
{
	uint32		len = strlen(table);
	uint32		hash = hash_bytes((const unsigned char *) table, len);
	WcScanUse  *e = NULL;

	if (wc_scanuse == NULL)
		return;					/* not preloaded: no shared memory */
	for (int i = 0; i < WC_SCANUSE_ENTRIES && e == NULL; i++)
		if (is_entry(&wc_scanuse[i], db, server, table, len, hash))
			e = &wc_scanuse[i];
	for (int i = 0; i < WC_SCANUSE_ENTRIES && e == NULL; i++)
	{
		uint32		free_state = 0;

		if (pg_atomic_read_u32(&wc_scanuse[i].state) != 0 ||
			!pg_atomic_compare_exchange_u32(&wc_scanuse[i].state, &free_state, 1))
			continue;
		e = &wc_scanuse[i];
		e->db = db;
		e->server = server;
		e->name_len = len;
		e->name_hash = hash;
		memcpy(e->name, table, Min(len, WC_SCANUSE_TABLE_LEN));
		pg_atomic_write_u64(&e->since, (uint64) GetCurrentTimestamp());
		pg_write_barrier();
		pg_atomic_write_u32(&e->state, 2);
	}
	if (e == NULL)
		return;
	pg_atomic_fetch_add_u64(&e->scans, scans);
	pg_atomic_fetch_add_u64(&e->fetched, fetched);
	pg_atomic_fetch_add_u64(&e->kept, kept);
}

/* The counts of a table, summed; false if none were counted. */
bool
wc_scanuse_read(Oid db, Oid server, const char *table, WcScanUseCounts *out)
{
	uint32		len = strlen(table);
	uint32		hash = hash_bytes((const unsigned char *) table, len);
	bool		found = false;

	memset(out, 0, sizeof(WcScanUseCounts));
	if (wc_scanuse == NULL)
		return false;
	for (int i = 0; i < WC_SCANUSE_ENTRIES; i++)
	{
		WcScanUse  *e = &wc_scanuse[i];
		int64		since;

		if (!is_entry(e, db, server, table, len, hash))
			continue;
		since = (int64) pg_atomic_read_u64(&e->since);
		if (!found || since < out->since)
		{
			out->since = since;
			out->reset = pg_atomic_read_u32(&e->reset) != 0;
		}
		found = true;
		out->scans += pg_atomic_read_u64(&e->scans);
		out->fetched += pg_atomic_read_u64(&e->fetched);
		out->kept += pg_atomic_read_u64(&e->kept);
	}
	return found;
}

/* Zero the counts of every table of a database (widecolumn.stat_reset). */
void
wc_scanuse_reset(Oid db)
{
	uint64		now = (uint64) GetCurrentTimestamp();

	if (wc_scanuse == NULL)
		return;
	for (int i = 0; i < WC_SCANUSE_ENTRIES; i++)
	{
		WcScanUse  *e = &wc_scanuse[i];

		if (pg_atomic_read_u32(&e->state) != 2)
			continue;
		pg_read_barrier();
		if (e->db != db)
			continue;
		pg_atomic_write_u64(&e->scans, 0);
		pg_atomic_write_u64(&e->fetched, 0);
		pg_atomic_write_u64(&e->kept, 0);
		pg_atomic_write_u64(&e->since, now);
		pg_atomic_write_u32(&e->reset, 1);
	}
}
