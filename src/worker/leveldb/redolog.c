/*-------------------------------------------------------------------------
 *
 * redolog.c
 *	  Small commits made durable by WAL: each one's LevelDB batch logged in
 *	  a WAL record, written to LevelDB without sync, LevelDB synced lazily,
 *	  and the batches an operating-system crash took from LevelDB's log
 *	  redone from WAL when the database is next opened.
 *
 * A foreign commit used to wait for two fsyncs in a row, LevelDB's and
 * then its commit record's (the store must be durable before the commit
 * is).  Now the batch's WAL record comes before the commit record, and the
 * commit record's flush makes both durable: one fsync, as a native write
 * (docs/architecture.md, "One fsync").  What the rest needs:
 *
 * - What to redo.  Each database keeps under `00 00 wal` its WAL id (so
 *   that a record names the directory whatever path reaches it), the WAL
 *   position redo starts from, and whether it is clean (nothing to redo).
 *   The entry is written, synced, before the first logged batch after a
 *   clean state (position: WAL's insert position then, before the
 *   batch's record), and again at each sync (ldb_redo_sync).  Every write
 *   between that position and a crash is a logged batch: any other write
 *   is preceded by a sync (the callers of ldb_redo_sync), and commits wait
 *   while a large commit is written.  Redoing all of them in WAL's order,
 *   which is the order they were written in (both on the worker's main
 *   thread), leaves each key as the last of them left it, whichever of
 *   them the crash took: so redo is exact.
 *
 * - Keeping the WAL.  A physical replication slot, `widecolumn_fdw`, held
 *   by the worker, keeps WAL from the oldest position a database that is
 *   not clean may redo from.  Its position is advanced after the syncs,
 *   in memory; a checkpoint saves it before it removes WAL, and a crash
 *   that loses a later advance only keeps more.  After a start, it does
 *   not move until every registered database has been opened (the start's
 *   pass): one not clean holds it until it is opened and redone.
 *
 * Without the slot (wal_level minimal, max_replication_slots 0, or no
 * slot free) commits are synced in LevelDB as before.
 *
 * Main thread only: it calls PostgreSQL.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <time.h>
#include <sys/stat.h>

#include "access/xlog.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "access/xlogutils.h"
#include "replication/slot.h"
#include "storage/fd.h"
#include "storage/lwlock.h"
#include "utils/memutils.h"

#include "common/shmem.h"
#include "common/walrecord.h"
#include "worker/leveldb/leveldb.h"
#include "worker/runtime/failure.h"

#define WC_REDO_SLOT	"widecolumn_fdw"

/* How often unsynced databases are synced, and a quiet one made clean. */
#define REDO_SYNC_US	200000
#define REDO_CLEAN_US	1000000

/*
 * `00 00 wal`: the WAL id, the position (8 bytes, native), clean (1 byte),
 * and the directory's device and inode (8 bytes each, native) when the
 * entry was written: a copy of the directory is not the database the id
 * names, and is not redone with its batches.
 */
static const uint8 wal_key[] = {0x00, 0x00, 'w', 'a', 'l'};
#define WAL_VALUE_LEN	(WC_WAL_ID_LEN + sizeof(uint64) + 1 + 2 * sizeof(uint64))

/* The directory's device and inode; false if it cannot be read. */
static bool
dir_identity(const char *path, uint64 *dev, uint64 *ino)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return false;
	*dev = (uint64) st.st_dev;
	*ino = (uint64) st.st_ino;
	return true;
}

/*
 * Tests: log the batches and write nothing of them, nor sync, as if the
 * operating system had lost them and a crash were to come.
 */
bool		ldb_debug_lose_logged_writes = false;
/* Tests: write the batches, but never sync them (a crash loses nothing). */
bool		ldb_debug_defer_logged_syncs = false;

static bool redo_on = false;

static void warn_unopened(void);

/* widecolumn_fdw.wal_commits */
bool		ldb_wal_commits = true;

static uint64
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * Until the start's pass is over, and while a database it could not open
 * stays unopened (their paths here), the slot stays where it was: such a
 * database may need the WAL it keeps.
 */
static bool pass_done = false;
static List *unopened = NIL;

bool
ldb_redo_on(void)
{
	return redo_on;
}

/* Take the slot, creating it at the first start; false, logged, if not. */
static bool
take_slot(void)
{
	MemoryContext old = CurrentMemoryContext;
	volatile bool taken = false;

	PG_TRY();
	{
		if (MyReplicationSlot != NULL)
			;					/* still held: a drop that did not finish */
		else if (SearchNamedReplicationSlot(WC_REDO_SLOT, true) != NULL)
			ReplicationSlotAcquire(WC_REDO_SLOT, true);
		else
			ReplicationSlotCreate(WC_REDO_SLOT, false, RS_PERSISTENT, false);
		if (XLogRecPtrIsInvalid(MyReplicationSlot->data.restart_lsn))
		{
			/* new, or invalidated (max_slot_wal_keep_size): from now */
			ReplicationSlotReserveWal();
			ReplicationSlotMarkDirty();
			ReplicationSlotSave();
		}
		taken = true;
	}
	PG_CATCH();
	{
		ErrorData  *edata = wc_caught_error(old);

		ereport(LOG,
				(errmsg("widecolumn_fdw syncs each commit in LevelDB: could not take replication slot \"%s\": %s",
						WC_REDO_SLOT, edata->message)));
		FreeErrorData(edata);
		if (MyReplicationSlot != NULL)
			ReplicationSlotRelease();
	}
	PG_END_TRY();
	return taken;
}

/*
 * Stop logging commits (widecolumn_fdw.wal_commits turned off): every open
 * database synced and made clean, then the slot dropped, once no database
 * the start's pass could not open may still need its WAL.  False while it
 * cannot be done yet (the main loop asks again).
 */
static bool
drop_slot(void)
{
	WcOpenDb   *odb;

	/* commits go on being logged until every database is clean */
	for (uint32 i = 0; (odb = ldb_odb_nth(i)) != NULL; i++)
		if (ldb_odb_mine(odb) && odb->wal_dirty)
		{
			/* closed after a failed write: redone at its reopening */
			if (odb->db == NULL || odb->commit_partial || odb->large_writing ||
				storage_write_failed(odb->db))
				return false;
			ldb_redo_sync(odb, true);
			if (odb->wal_dirty)
				return false;	/* a test setting keeps it from syncing */
		}
	if (!pass_done || unopened != NIL)
	{
		warn_unopened();
		return false;
	}
	/* no commit is logged from here: each database is clean */
	redo_on = false;
	pg_atomic_write_u32(&wc_shared->commits_logged, 0);
	if (MyReplicationSlot != NULL)
		ReplicationSlotRelease();
	if (SearchNamedReplicationSlot(WC_REDO_SLOT, true) != NULL)
	{
		ReplicationSlotDrop(WC_REDO_SLOT, true);
		ereport(LOG,
				(errmsg("widecolumn_fdw dropped replication slot \"%s\": commits are synced in LevelDB",
						WC_REDO_SLOT)));
	}
	return true;
}

/*
 * ldb_redo_adjust
 *		The main loop's look, once a second and at the start: log commits in
 *		WAL while widecolumn_fdw.wal_commits is on and a slot can keep WAL
 *		(wal_level replica or logical, a slot free), taking the slot; with
 *		the setting off, sync every database and drop the slot, so that
 *		wal_level can be lowered to minimal (PostgreSQL does not start with
 *		a physical slot and wal_level minimal).  Not in recovery.
 */
void
ldb_redo_adjust(void)
{
	static uint64 looked = 0;
	static bool said = false;	/* that WAL cannot be kept */
	static bool dropped = false;	/* no slot left to drop */

	if (RecoveryInProgress() || (looked != 0 && !wc_loop_due(&looked, 1000000)))
		return;
	if (looked == 0)
	{
		(void) wc_loop_due(&looked, 0);
		pg_atomic_write_u32(&wc_shared->commits_logged, 0);	/* an earlier worker's */
	}
	if (!ldb_wal_commits)
	{
		if ((redo_on || !dropped) && wal_level >= WAL_LEVEL_REPLICA)
		{
			MemoryContext old = CurrentMemoryContext;

			PG_TRY();
			{
				dropped = drop_slot();
			}
			PG_CATCH();
			{
				ErrorData  *edata = wc_caught_error(old);

				ereport(LOG,
						(errmsg("widecolumn_fdw storage worker could not drop replication slot \"%s\": %s",
								WC_REDO_SLOT, edata->message)));
				FreeErrorData(edata);
			}
			PG_END_TRY();
		}
		return;
	}
	if (redo_on)
		return;
	dropped = false;
	if (wal_level < WAL_LEVEL_REPLICA || max_replication_slots == 0)
	{
		if (!said)
			ereport(LOG,
					(errmsg("widecolumn_fdw syncs each commit in LevelDB: WAL cannot be kept for it"),
					 errdetail("Logging commits in WAL needs wal_level replica or logical and a free replication slot.")));
		said = true;
		return;
	}
	if (said)
		return;					/* the slot could not be taken: not again */
	said = !take_slot();
	if (said)
		return;
	redo_on = true;
	pg_atomic_write_u32(&wc_shared->commits_logged, 1);
}

/* Write odb's `00 00 wal` entry, synced, after a sync of its logs. */
static void
store_entry(WcOpenDb *odb, XLogRecPtr from, bool clean)
{
	uint8		value[WAL_VALUE_LEN];
	uint64		pos = from;
	uint64		dev,
				ino;
	WcBatch    *batch;

	if (!odb->wal_have_id)
	{
		if (!pg_strong_random(odb->wal_id, WC_WAL_ID_LEN))
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not generate a random WAL id for LevelDB database \"%s\"",
							odb->path)));
		odb->wal_have_id = true;
	}
	if (!dir_identity(odb->path, &dev, &ino))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat directory \"%s\": %m", odb->path)));
	batch = storage_batch_new();
	memcpy(value, odb->wal_id, WC_WAL_ID_LEN);
	memcpy(value + WC_WAL_ID_LEN, &pos, sizeof(pos));
	value[WC_WAL_ID_LEN + sizeof(pos)] = clean ? 1 : 0;
	memcpy(value + WC_WAL_ID_LEN + sizeof(pos) + 1, &dev, sizeof(dev));
	memcpy(value + WC_WAL_ID_LEN + sizeof(pos) + 1 + sizeof(dev), &ino, sizeof(ino));
	storage_batch_put(batch, wal_key, sizeof(wal_key), value, sizeof(value));
	PG_TRY();
	{
		storage_write(odb->db, batch, true);
	}
	PG_FINALLY();
	{
		storage_batch_free(batch);
	}
	PG_END_TRY();
	/* a log LevelDB started for it is named in the directory durably too */
	if (fsync_fname_ext(odb->path, true, false, ERROR) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not fsync directory \"%s\": %m", odb->path)));
	odb->wal_dirty = !clean;
	odb->wal_from = from;
}

/*
 * ldb_redo_log
 *		Log the batch of a small commit to odb in WAL, before the caller
 *		writes it without sync.  The session's commit record, after it in
 *		WAL, makes it durable.
 */
void
ldb_redo_log(WcOpenDb *odb, WcBatch *batch)
{
	StringInfoData enc;

	Assert(redo_on);
	if (!odb->wal_dirty)
	{
		/* after every write before it: redo starts here */
		storage_writer_drain();
		store_entry(odb, GetXLogInsertRecPtr(), false);
	}
	initStringInfo(&enc);
	storage_batch_encode(batch, &enc);
	XLogBeginInsert();
	XLogRegisterData((char *) odb->wal_id, WC_WAL_ID_LEN);
	XLogRegisterData(enc.data, enc.len);
	(void) XLogInsert(WC_RMGR_ID, XLOG_WC_BATCH);
	pfree(enc.data);
	odb->wal_unsynced = true;
	odb->wal_written_at = now_us();
	if (ldb_debug_lose_logged_writes)
		storage_batch_clear(batch);
}

/*
 * ldb_redo_sync
 *		Make odb's logged batches durable in LevelDB, and move its redo
 *		position past them (clean: nothing left to redo).  Before any write
 *		that is not a logged batch, while some are unsynced: redo must meet
 *		only logged batches after its position.
 */
void
ldb_redo_sync(WcOpenDb *odb, bool clean)
{
	XLogRecPtr	from;

	if (odb->db == NULL)
		return;
	if (!(odb->wal_unsynced || (clean && odb->wal_dirty)))
		return;
	/* the tests' lost or unsynced writes: a crash comes before the next sync */
	if (ldb_debug_lose_logged_writes || ldb_debug_defer_logged_syncs)
		return;
	storage_writer_drain();
	/*
	 * After a failed sync, a second one may report success for writes the
	 * kernel has dropped: the database is reopened, and redone from the
	 * position stored before, before it is written to again.
	 */
	if (storage_write_failed(odb->db))
		ereport(ERROR,
				(errcode(ERRCODE_IO_ERROR),
				 errmsg("LevelDB database \"%s\" must be reopened after a failed write", odb->path)));
	/* every batch logged before this position has been written */
	from = GetXLogInsertRecPtr();
	PG_TRY();
	{
		storage_sync_logs(odb->db);
		store_entry(odb, from, clean);
	}
	PG_CATCH();
	{
		storage_set_failed_flag(odb->db);
		PG_RE_THROW();
	}
	PG_END_TRY();
	odb->wal_unsynced = false;
}

/* Every ten minutes, the databases the slot keeps WAL for, unopened. */
static void
warn_unopened(void)
{
	static uint64 warned = 0;
	StringInfoData names;
	ListCell   *lc;

	if (unopened == NIL || !wc_loop_due(&warned, 600000000))
		return;
	initStringInfo(&names);
	foreach(lc, unopened)
		appendStringInfo(&names, "%s\"%s\"", names.len > 0 ? ", " : "", (char *) lfirst(lc));
	ereport(WARNING,
			(errmsg("replication slot \"%s\" keeps WAL for LevelDB databases the storage worker could not open since its start: %s",
					WC_REDO_SLOT, names.data),
			 errdetail("A database not opened since a crash may need that WAL to redo its last commits."),
			 errhint("Make them readable, or remove the line of a database gone for good from \"widecolumn_fdw/databases\" in the data directory and restart.")));
	pfree(names.data);
}

/* Move the slot to the oldest position a database may redo from. */
static void
advance_slot(void)
{
	XLogRecPtr	keep = GetXLogInsertRecPtr();
	WcOpenDb   *odb;

	warn_unopened();
	if (!pass_done || unopened != NIL || MyReplicationSlot == NULL)
		return;
	for (uint32 i = 0; (odb = ldb_odb_nth(i)) != NULL; i++)
		if (ldb_odb_mine(odb) && odb->wal_dirty && odb->wal_from < keep)
			keep = odb->wal_from;
	if (keep <= MyReplicationSlot->data.restart_lsn)
		return;
	SpinLockAcquire(&MyReplicationSlot->mutex);
	MyReplicationSlot->data.restart_lsn = keep;
	SpinLockRelease(&MyReplicationSlot->mutex);
	ReplicationSlotMarkDirty();
	ReplicationSlotsComputeRequiredLSN();
}

/*
 * ldb_redo_sync_due
 *		The main loop's look: five times a second, sync the databases with
 *		logged batches unsynced, make clean those quiet for a second (a
 *		clean database holds no WAL), and move the slot.
 */
void
ldb_redo_sync_due(void)
{
	static uint64 looked = 0;
	WcOpenDb   *odb;
	uint64		now;

	if (!redo_on || !wc_loop_due(&looked, REDO_SYNC_US))
		return;
	now = now_us();
	for (uint32 i = 0; (odb = ldb_odb_nth(i)) != NULL; i++)
	{
		MemoryContext old = CurrentMemoryContext;

		if (!ldb_odb_mine(odb) || odb->db == NULL || odb->commit_partial ||
			odb->large_writing || storage_write_failed(odb->db))
			continue;
		PG_TRY();
		{
			if (odb->wal_unsynced)
				ldb_redo_sync(odb, false);
			else if (odb->wal_dirty && now - odb->wal_written_at >= REDO_CLEAN_US)
				ldb_redo_sync(odb, true);
		}
		PG_CATCH();
		{
			ErrorData  *edata = wc_caught_error(old);

			ereport(LOG,
					(errmsg("widecolumn_fdw storage worker could not sync LevelDB database \"%s\": %s",
							odb->path, edata->message)));
			FreeErrorData(edata);
		}
		PG_END_TRY();
	}
	advance_slot();
}

/* Write a batch redone from WAL. */
static void
apply_batch(WcOpenDb *odb, WcBatch *batch)
{
	PG_TRY();
	{
		storage_write(odb->db, batch, false);
	}
	PG_CATCH();
	{
		storage_batch_free(batch);
		PG_RE_THROW();
	}
	PG_END_TRY();
	storage_batch_free(batch);
}

/* redo_records's count, read after an error too */
static uint64 redone_count;

/*
 * Redo, in WAL's order, every logged batch of odb from pos to the end of
 * WAL, counted in redone_count.
 */
static void
redo_records(WcOpenDb *odb, XLogReaderState *xlr, ReadLocalXLogPageNoWaitPrivate *priv,
			 XLogRecPtr pos)
{
	XLogRecPtr	first = XLogFindNextRecord(xlr, pos);

	if (XLogRecPtrIsInvalid(first))
	{
		if (priv->end_of_wal)
			return;				/* nothing logged since */
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("could not find the WAL from %X/%X to redo the commits of LevelDB database \"%s\"",
						LSN_FORMAT_ARGS(pos), odb->path),
				 errhint("The replication slot \"%s\" keeps that WAL; it may have been dropped or invalidated (max_slot_wal_keep_size).",
						 WC_REDO_SLOT)));
	}
	XLogBeginRead(xlr, first);
	for (;;)
	{
		char	   *errormsg = NULL;
		XLogRecord *rec = XLogReadRecord(xlr, &errormsg);
		char	   *data;
		uint32		len;
		WcBatch    *batch;

		if (rec == NULL)
		{
			if (priv->end_of_wal)
				break;
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("could not read WAL at %X/%X to redo the commits of LevelDB database \"%s\": %s",
							LSN_FORMAT_ARGS(xlr->EndRecPtr), odb->path,
							errormsg ? errormsg : "no record")));
		}
		if (XLogRecGetRmid(xlr) != WC_RMGR_ID ||
			(XLogRecGetInfo(xlr) & ~XLR_INFO_MASK) != XLOG_WC_BATCH)
			continue;
		data = XLogRecGetData(xlr);
		len = XLogRecGetDataLen(xlr);
		if (len < WC_WAL_ID_LEN || memcmp(data, odb->wal_id, WC_WAL_ID_LEN) != 0)
			continue;
		batch = storage_batch_decode(data + WC_WAL_ID_LEN, len - WC_WAL_ID_LEN);
		if (batch == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("malformed commit batch in WAL at %X/%X for LevelDB database \"%s\"",
							LSN_FORMAT_ARGS(xlr->ReadRecPtr), odb->path)));
		apply_batch(odb, batch);
		redone_count++;
	}
}

/*
 * ldb_redo_replay
 *		At an open: redo from WAL the logged batches of the database that
 *		its log may lack, and make it clean.  Before anything reads it.
 */
void
ldb_redo_replay(WcOpenDb *odb)
{
	size_t		vlen;
	uint8	   *value = storage_get(odb->db, wal_key, sizeof(wal_key), &vlen);
	uint64		pos,
				dev,
				ino,
				here_dev,
				here_ino;
	XLogReaderState *volatile xlr;
	ReadLocalXLogPageNoWaitPrivate *priv;
	MemoryContext cxt = CurrentMemoryContext;
	uint64		redone;

	odb->wal_dirty = false;
	odb->wal_unsynced = false;
	odb->wal_have_id = false;
	if (value == NULL)
		return;					/* no commit logged yet */
	if (vlen != WAL_VALUE_LEN)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("LevelDB database \"%s\" has a malformed WAL entry", odb->path)));
	memcpy(odb->wal_id, value, WC_WAL_ID_LEN);
	memcpy(&pos, value + WC_WAL_ID_LEN, sizeof(pos));
	memcpy(&dev, value + WC_WAL_ID_LEN + sizeof(pos) + 1, sizeof(dev));
	memcpy(&ino, value + WC_WAL_ID_LEN + sizeof(pos) + 1 + sizeof(dev), sizeof(ino));
	odb->wal_have_id = true;
	odb->wal_from = pos;
	odb->wal_dirty = value[WC_WAL_ID_LEN + sizeof(pos)] == 0;
	pfree(value);
	/*
	 * The inode only: a device number may change at a reboot (device
	 * mapper, NFS), which is when redo is needed.
	 */
	(void) dev;
	if (!dir_identity(odb->path, &here_dev, &here_ino) || here_ino != ino)
	{
		/* a copy: the batches of its id are the original's */
		odb->wal_have_id = false;
		if (odb->wal_dirty)
		{
			ereport(WARNING,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("LevelDB database \"%s\" is a copy of another directory made with commits to redo from WAL; they are not redone in the copy",
							odb->path),
					 errdetail("Commits an operating-system crash took from the original's LevelDB log before it was copied are missing from the copy."),
					 errhint("Copy a database directory only while its cluster is stopped cleanly, or after the worker has opened it since a crash.")));
			odb->wal_unsynced = false;
			ldb_redo_sync(odb, true);
		}
		return;
	}
	if (!odb->wal_dirty)
		return;
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("LevelDB database \"%s\" has commits to redo from WAL", odb->path),
				 errdetail("It is redone, and opened, once recovery has ended.")));

	/* what is logged must be readable: flush it (after a crash, nothing) */
	XLogFlush(GetXLogInsertRecPtr());
	priv = palloc0(sizeof(ReadLocalXLogPageNoWaitPrivate));
	xlr = XLogReaderAllocate(wal_segment_size, NULL,
							 XL_ROUTINE(.page_read = &read_local_xlog_page_no_wait,
										.segment_open = &wal_segment_open,
										.segment_close = &wal_segment_close),
							 priv);
	if (xlr == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed while allocating a WAL reading processor.")));
	redone_count = 0;
	PG_TRY();
	{
		redo_records(odb, xlr, priv, pos);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		XLogReaderFree(xlr);
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_UNDEFINED_FILE)
			PG_RE_THROW();
		FlushErrorState();

		/*
		 * The WAL is gone (pg_resetwal; the slot dropped or invalidated):
		 * what it held of the commits since pos cannot be redone, as after
		 * pg_resetwal a native table's cannot.  The database is opened as
		 * LevelDB's log has it.
		 */
		ereport(WARNING,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("could not redo the commits of LevelDB database \"%s\" logged in WAL since %X/%X: %s",
						odb->path, LSN_FORMAT_ARGS(pos), edata->message),
				 errdetail("Commits an operating-system crash took from its LevelDB log since then are lost; the database is opened as its log has it."),
				 errhint("The replication slot \"%s\" keeps that WAL; it may have been dropped or invalidated (max_slot_wal_keep_size), or pg_resetwal may have removed it.",
						 WC_REDO_SLOT)));
		FreeErrorData(edata);
		xlr = NULL;
	}
	PG_END_TRY();
	if (xlr != NULL)
		XLogReaderFree(xlr);
	pfree(priv);
	redone = redone_count;
	odb->wal_unsynced = redone > 0;
	ldb_redo_sync(odb, true);
	if (redone > 0)
		ereport(LOG,
				(errmsg("widecolumn_fdw redid %llu commits from WAL in LevelDB database \"%s\"",
						(unsigned long long) redone, odb->path)));
}

/*
 * ldb_redo_opened
 *		path was opened, and redone (ok), or could not be opened: such a
 *		database, which may need redo, keeps the slot where it is.
 */
void
ldb_redo_opened(const char *path, bool ok)
{
	ListCell   *lc;

	foreach(lc, unopened)
		if (strcmp(lfirst(lc), path) == 0)
		{
			unopened = foreach_delete_current(unopened, lc);
			break;
		}
	if (!ok)
	{
		MemoryContext old = MemoryContextSwitchTo(wc_worker_cxt);

		unopened = lappend(unopened, pstrdup(path));
		MemoryContextSwitchTo(old);
	}
}

/* The start's pass is over: once every database it met is open, the slot moves. */
void
ldb_redo_pass_done(void)
{
	pass_done = true;
}
