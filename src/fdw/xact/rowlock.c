/*-------------------------------------------------------------------------
 *
 * rowlock.c
 *	  Row locks: the rows a transaction locks to update, delete or SELECT
 *	  ... FOR UPDATE/SHARE, held until it ends.
 *
 * A row is locked by an advisory lock (field 4 = 3) on a hash of server,
 * table and row key, taken under a RowExclusiveLock on the table (an
 * advisory lock with field 4 = 4), whatever the row lock's mode.
 *
 * PostgreSQL's lock table is small (max_locks_per_transaction slots per
 * connection, shared), so a transaction that has locked
 * WC_ROW_LOCKS_PER_TABLE rows of a table tries to take an ExclusiveLock on
 * the table instead, which needs no more row locks.  It does not wait for
 * it: two transactions locking many different rows of one table would
 * then wait for each other, a deadlock, where PostgreSQL's own row locks
 * let both go on.  It tries again after each WC_ROW_LOCKS_PER_TABLE more
 * rows, and waits for it only past WC_ROW_LOCKS_WAIT rows, where the lock
 * table could run out.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/memutils.h"

#include "fdw/fdw.h"
#include "fdw/xact/xact.h"

#define WC_ROW_LOCKS_PER_TABLE	256
#define WC_ROW_LOCKS_WAIT		4096

/*
 * What this transaction holds per table, to take each table lock once.  A
 * subtransaction's locks go with its rollback, so its entries do too.
 */
typedef struct WcTableLocks
{
	uint64		table;
	SubTransactionId subid;		/* the one that took the table lock */
	int			rows;			/* row locks taken */
	bool		tried;			/* the ExclusiveLock, at this count of rows */
	bool		exclusive;
	SubTransactionId exclusive_subid;	/* the one that made it exclusive */
} WcTableLocks;

static List *table_locks = NIL;	/* in TopTransactionContext */

/* A lock not had at once: false to skip the row, or NOWAIT's error. */
static bool
lock_not_available(LockWaitPolicy wait, const char *relname)
{
	if (wait == LockWaitError)
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("could not obtain lock on row in relation \"%s\"", relname)));
	return false;
}

/*
 * The lock tags: table_tag sets a table's (field 4 = 4) and returns the
 * table's hash th, row_tag a row's (field 4 = 3) from its key and th.
 * Taking a lock and giving it back must build the same tag.
 */
static uint64
table_tag(WcTable *t, LOCKTAG *tag)
{
	uint64		th = hash_bytes_extended(t->table_key, (int) t->table_key_len, t->serverid);

	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, (uint32) (th >> 32), (uint32) th, 4);
	return th;
}

static void
row_tag(uint64 th, const uint8 *key, size_t len, LOCKTAG *tag)
{
	uint64		rh = hash_bytes_extended(key, (int) len, th);

	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, (uint32) (rh >> 32), (uint32) rh, 3);
}

/*
 * What this transaction holds of the table hashed th (its lock tag tag):
 * the RowExclusiveLock is taken the first time.  NULL if dont_wait and it
 * is not to be had.
 */
static WcTableLocks *
table_entry(uint64 th, LOCKTAG *tag, bool dont_wait)
{
	ListCell   *lc;
	WcTableLocks *tl;
	MemoryContext old;

	foreach(lc, table_locks)
		if (((WcTableLocks *) lfirst(lc))->table == th)
			return lfirst(lc);
	if (LockAcquire(tag, RowExclusiveLock, false, dont_wait) == LOCKACQUIRE_NOT_AVAIL)
		return NULL;
	old = MemoryContextSwitchTo(TopTransactionContext);
	tl = palloc0(sizeof(WcTableLocks));
	tl->table = th;
	tl->subid = GetCurrentSubTransactionId();
	table_locks = lappend(table_locks, tl);
	MemoryContextSwitchTo(old);
	return tl;
}

/*
 * wc_txn_lock_row
 *		Lock a row of t in mode until the transaction ends.
 *
 * The modes are those PostgreSQL takes for its own row locks, so that they
 * conflict alike: FOR KEY SHARE AccessShareLock, FOR SHARE RowShareLock,
 * FOR NO KEY UPDATE (and UPDATE) ExclusiveLock, FOR UPDATE (and DELETE)
 * AccessExclusiveLock.  With LockWaitSkip, returns false at once if
 * another transaction holds a conflicting lock; with LockWaitError, raises
 * NOWAIT's error then.
 */
bool
wc_txn_lock_row(WcTable *t, const uint8 *key, size_t len, LOCKMODE mode,
				LockWaitPolicy wait)
{
	LOCKTAG		tag;
	uint64		th = table_tag(t, &tag);
	WcTableLocks *tl = NULL;
	bool		dont_wait = wait != LockWaitBlock;

	tl = table_entry(th, &tag, dont_wait);
	if (tl == NULL)
		return lock_not_available(wait, t->relname);
	if (tl->exclusive)
		return true;
	if (tl->rows >= WC_ROW_LOCKS_PER_TABLE && tl->rows % WC_ROW_LOCKS_PER_TABLE == 0 &&
		!tl->tried)
	{
		bool		wait_for_it = tl->rows >= WC_ROW_LOCKS_WAIT && !dont_wait;

		tl->tried = true;
		if (LockAcquire(&tag, ExclusiveLock, false, !wait_for_it) != LOCKACQUIRE_NOT_AVAIL)
		{
			tl->exclusive = true;
			tl->exclusive_subid = GetCurrentSubTransactionId();
			return true;
		}
		/* not to be had now: go on with row locks */
	}
	row_tag(th, key, len, &tag);
	switch (LockAcquire(&tag, mode, false, dont_wait))
	{
		case LOCKACQUIRE_NOT_AVAIL:
			return lock_not_available(wait, t->relname);
		case LOCKACQUIRE_OK:
			tl->rows++;			/* a row not locked before */
			tl->tried = false;
			break;
		default:
			break;
	}
	return true;
}

/*
 * wc_txn_unlock_row
 *		Give back a lock on a row of t that wc_txn_lock_row took in mode,
 *		before the transaction ends: only a lock nothing was read under yet,
 *		as when a share lock turns out to be too weak.  Taking the stronger
 *		mode on top of it would deadlock with a second transaction doing the
 *		same (each waits for the other's share); given back first, the two
 *		take turns.  A lock this transaction took more than once stays.
 */
void
wc_txn_unlock_row(WcTable *t, const uint8 *key, size_t len, LOCKMODE mode)
{
	LOCKTAG		tag;

	row_tag(table_tag(t, &tag), key, len, &tag);
	if (!LockHeldByMe(&tag, mode))
		return;					/* under the table's ExclusiveLock */
	(void) LockRelease(&tag, mode, false);
}

/*
 * wc_txn_lock_all_rows
 *		Lock every row of t, those to come too, until the transaction ends:
 *		the ExclusiveLock on the table a transaction that has locked many
 *		rows takes (above), waited for.  drop_row_range (droprange.c) drops
 *		rows it does not read one by one; so an UPDATE or DELETE of one of
 *		them waits for it, and then finds it gone, as it would after a
 *		DELETE of the row.
 */
void
wc_txn_lock_all_rows(WcTable *t)
{
	LOCKTAG		tag;
	uint64		th = table_tag(t, &tag);
	WcTableLocks *tl;

	tl = table_entry(th, &tag, false);
	if (tl->exclusive)
		return;
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
	tl->exclusive = true;
	tl->exclusive_subid = GetCurrentSubTransactionId();
}

/*
 * wc_txn_forget_locks
 *		A subtransaction rolled back: the locks it took are gone.
 */
void
wc_txn_forget_locks(SubTransactionId subid)
{
	ListCell   *lc;

	foreach(lc, table_locks)
	{
		WcTableLocks *tl = lfirst(lc);

		if (tl->subid >= subid)
		{
			table_locks = foreach_delete_current(table_locks, lc);
			pfree(tl);
		}
		else if (tl->exclusive && tl->exclusive_subid >= subid)
			tl->exclusive = false;
	}
}

/*
 * wc_txn_reset_locks
 *		The transaction has ended, and its locks with it.
 */
void
wc_txn_reset_locks(void)
{
	/* the memory goes with TopTransactionContext */
	table_locks = NIL;
}
