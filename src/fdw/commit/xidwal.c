/*-------------------------------------------------------------------------
 *
 * xidwal.c
 *	  The WAL record that keeps a transaction id the store holds from being
 *	  given to another transaction after a crash.
 *
 * A transaction's foreign writes are stored under its xid before
 * PostgreSQL writes its commit record (commit.c).  Crash recovery sets the
 * next xid past the highest one it meets in WAL.  An xid that reached the
 * store but no durable WAL could be handed out again after a crash, and
 * its new owner's commit would make the orphaned writes visible.  So
 * before a transaction's writes are stored, durable WAL must say that the
 * next xid is past its own.
 *
 * Flushing WAL at each commit for that would cost a foreign write one
 * fsync more than a native one.  Instead a record reserves xids ahead, as
 * XLOG_NEXTOID reserves OIDs: its redo advances the next xid past the end
 * of the reservation.  Once one has been flushed, the transactions whose
 * xids it covers need no flush of their own.  Two things end a
 * reservation:
 *
 * - Its end: the last xid of the writer's page in the commit log, the
 *   commit-timestamp log and the subtransaction log, whichever comes first
 *   (some 800 xids).  Every page up to the next xid recovery may set then
 *   exists, as for an xid PostgreSQL handed out itself.
 * - A checkpoint.  Recovery replays WAL from the last checkpoint's redo
 *   point, and the checkpoint record holds the next xid as it was, not the
 *   reservation; a record before that point is never replayed.  So a
 *   reservation counts only while its record is at or after the current
 *   redo point.  A checkpoint that moves the point after this test reads
 *   the next xid after the move, so past the writer's (assigned first).
 *
 * Every foreign commit still inserts the record, flushed or not.  That
 * makes the transaction one that wrote WAL, so that its commit record is
 * flushed as a native write's is (synchronous_commit decides), not left
 * asynchronous, which a crash could take back after COMMIT returned.
 *
 * The record needs this library loaded when WAL is replayed: it is, since
 * it must be preloaded (widecolumn_fdw.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "datatype/timestamp.h"
#include "storage/spin.h"

#include "common/shmem.h"
#include "common/walrecord.h"
#include "fdw/commit/commit.h"

/*
 * The last xid of xid's page in the commit log (2 bits an xid), in the
 * commit-timestamp log (a TimestampTz and a RepOriginId an xid) and in the
 * subtransaction log (a TransactionId an xid), whichever comes first.  The
 * subtransaction log's matters on a standby promoted after replaying the
 * record: it extended that log to the writer's xid only.  Never the last
 * xid before the wraparound unless it is the writer's: recovery would set
 * the next xid to the new epoch's first, whose commit-log page does not
 * exist yet.
 */
static TransactionId
reservation_end(TransactionId xid)
{
	const uint64 clog_per_page = (uint64) BLCKSZ * 4;
	const uint64 committs_per_page = BLCKSZ / (sizeof(TimestampTz) + sizeof(RepOriginId));
	const uint64 subtrans_per_page = BLCKSZ / sizeof(TransactionId);
	uint64		end;

	end = Min((xid / clog_per_page + 1) * clog_per_page,
			  (xid / committs_per_page + 1) * committs_per_page);
	end = Min(end, (xid / subtrans_per_page + 1) * subtrans_per_page) - 1;
	end = Min(end, (uint64) MaxTransactionId - 1);
	return (TransactionId) Max(end, (uint64) xid);
}

/*
 * wc_xidwal_log
 *		Make sure that durable WAL puts the next xid past this transaction's
 *		before its writes are stored.  Assigns the transaction its xid.
 */
void
wc_xidwal_log(void)
{
	FullTransactionId fxid = GetTopFullTransactionId();
	TransactionId xid = XidFromFullTransactionId(fxid);
	uint64		full = U64FromFullTransactionId(fxid);
	xl_wc_xid_reserve xlrec;
	XLogRecPtr	end;
	XLogRecPtr	start;
	XLogRecPtr	redo;
	bool		covered;

	xlrec.last = full + (reservation_end(xid) - xid);
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, sizeof(xlrec));
	end = XLogInsert(WC_RMGR_ID, XLOG_WC_XID_RESERVE);
	start = ProcLastRecPtr;

	redo = GetRedoRecPtr();
	SpinLockAcquire(&wc_shared->xid_mutex);
	covered = full <= wc_shared->xids_reserved &&
		wc_shared->xids_reserved_at >= redo;
	SpinLockRelease(&wc_shared->xid_mutex);
	if (covered)
		return;

	XLogFlush(end);
	SpinLockAcquire(&wc_shared->xid_mutex);
	if (start >= wc_shared->xids_reserved_at)
	{
		wc_shared->xids_reserved = xlrec.last;
		wc_shared->xids_reserved_at = start;
	}
	SpinLockRelease(&wc_shared->xid_mutex);
}

static void
xidwal_redo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
	xl_wc_xid_reserve *xlrec = (xl_wc_xid_reserve *) XLogRecGetData(record);

	/* the storage worker redoes logged commits itself (redolog.c) */
	if (info == XLOG_WC_BATCH)
		return;
	if (info != XLOG_WC_XID_RESERVE)
		elog(PANIC, "widecolumn_fdw redo: unknown op code %u", info);
	AdvanceNextFullTransactionIdPastXid(XidFromFullTransactionId(FullTransactionIdFromU64(xlrec->last)));
}

static void
xidwal_desc(StringInfo buf, XLogReaderState *record)
{
	xl_wc_xid_reserve *xlrec = (xl_wc_xid_reserve *) XLogRecGetData(record);
	FullTransactionId last;

	if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) == XLOG_WC_BATCH)
	{
		appendStringInfo(buf, "commit batch of %u bytes",
						 XLogRecGetDataLen(record) - WC_WAL_ID_LEN);
		return;
	}
	last = FullTransactionIdFromU64(xlrec->last);
	appendStringInfo(buf, "xids reserved through %u:%u",
					 EpochFromFullTransactionId(last), XidFromFullTransactionId(last));
}

static const char *
xidwal_identify(uint8 info)
{
	switch (info & ~XLR_INFO_MASK)
	{
		case XLOG_WC_XID_RESERVE:
			return "XID_RESERVE";
		case XLOG_WC_BATCH:
			return "BATCH";
	}
	return NULL;
}

static RmgrData xidwal_rmgr = {
	.rm_name = "widecolumn_fdw",
	.rm_redo = xidwal_redo,
	.rm_desc = xidwal_desc,
	.rm_identify = xidwal_identify,
};

/* From _PG_init, which only preloading runs. */
void
wc_xidwal_register(void)
{
	RegisterCustomRmgr(WC_RMGR_ID, &xidwal_rmgr);
}
