/*-------------------------------------------------------------------------
 *
 * walrecord.h
 *	  The library's WAL records (docs/format.md, "WAL"): a backend's xid
 *	  reservation (fdw/commit/xidwal.c, which owns the resource manager),
 *	  and the storage worker's logged commit (worker/leveldb/redolog.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_WALRECORD_H
#define WC_WALRECORD_H

/*
 * Our resource manager's id, among those PostgreSQL leaves to extensions
 * (128 to 255; docs/format.md, "WAL").
 */
#define WC_RMGR_ID				172

/* xl_wc_xid_reserve: the highest xid reserved, as a FullTransactionId */
#define XLOG_WC_XID_RESERVE		0x00

/*
 * A small commit's LevelDB batch, written by the storage worker before it
 * writes the batch without sync: the database's WAL id (WC_WAL_ID_LEN
 * bytes, kept in the database under `00 00 wal`), then the batch's
 * entries as storage_batch_encode writes them.  Recovery does nothing with
 * it; the worker reads it back to redo what an operating-system crash took
 * from LevelDB's log (redolog.c).
 */
#define XLOG_WC_BATCH			0x10

#define WC_WAL_ID_LEN			16

typedef struct xl_wc_xid_reserve
{
	uint64		last;
} xl_wc_xid_reserve;

#endif							/* WC_WALRECORD_H */
