/*-------------------------------------------------------------------------
 *
 * scanuse.h
 *	  What backends' scans of stored tables kept of the rows they fetched,
 *	  in shared memory: the advisor's scans_exceed_reads reads it
 *	  (fdw/advise/adviseuse.c).
 *
 * The worker's counters cannot see a filter the executor applies after
 * the worker returned its rows, so the backend counts: a fixed table of
 * WC_SCANUSE_ENTRIES entries, one per (database, server, stored table),
 * claimed by the first scan of the table since the cluster started and
 * kept until it stops; once every entry is taken, the counts of further
 * tables are dropped.  Counts are added with atomics, without a lock.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_SCANUSE_H
#define WC_SCANUSE_H

#include "port/atomics.h"

#define WC_SCANUSE_ENTRIES		256
/* The stored table name's bytes kept; longer names are told by their hash. */
#define WC_SCANUSE_TABLE_LEN	128

typedef struct WcScanUse
{
	pg_atomic_uint32 state;		/* 0 free, 1 being claimed, 2 in use */
	Oid			db;				/* the key, fixed once in use */
	Oid			server;
	uint32		name_hash;
	uint32		name_len;
	char		name[WC_SCANUSE_TABLE_LEN];
	pg_atomic_uint64 scans;
	pg_atomic_uint64 fetched;	/* rows the scans read from storage */
	pg_atomic_uint64 kept;		/* ... and returned after their conditions */
	pg_atomic_uint64 since;		/* TimestampTz: counting began, or was reset */
	pg_atomic_uint32 reset;		/* since is a stat_reset's */
} WcScanUse;

/* What wc_scanuse_read sums. */
typedef struct WcScanUseCounts
{
	uint64		scans;
	uint64		fetched;
	uint64		kept;
	int64		since;			/* TimestampTz */
	bool		reset;
} WcScanUseCounts;

/* in scanuse.c */
extern Size wc_scanuse_shmem_size(void);
extern void wc_scanuse_shmem_init(void);
extern void wc_scanuse_add(Oid db, Oid server, const char *table, uint64 scans,
						   uint64 fetched, uint64 kept);
extern bool wc_scanuse_read(Oid db, Oid server, const char *table, WcScanUseCounts *out);
extern void wc_scanuse_reset(Oid db);

#endif							/* WC_SCANUSE_H */
