/*-------------------------------------------------------------------------
 *
 * xacts.c
 *	  Which PostgreSQL transaction wrote each recent commit, and so which
 *	  snapshots see it: PostgreSQL decides the visibility of foreign
 *	  writes (docs/architecture.md, "Visibility").
 *
 * A backend sends its writes at PRE_COMMIT, before PostgreSQL's commit
 * record, under its transaction id.  The worker stores them stamped with
 * the commit's timestamp, as always, and with them, in the same LevelDB
 * batch, an entry under `00 00 xact` + the timestamp naming the writer
 * (docs/format.md).  Until every snapshot agrees on the writer (it has
 * ended, and is older than the cluster's oldest xmin), a read hides the
 * commit's entries from each snapshot that does not see the writer as
 * committed: a WcHidden of commit timestamps, made on the main thread
 * (which may ask PostgreSQL's commit log) and read by the reader threads
 * (which may not).  Then the entry goes (ldb_xacts_settle); a writer that
 * aborted (an error after its foreign commit, a killed backend, a crash
 * before the commit record) has the commit's entries deleted first, as
 * vacuum reclaims an aborted transaction's tuples.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "storage/lwlock.h"
#include "storage/procarray.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "common/keycodec.h"
#include "worker/leveldb/leveldb.h"
#include "worker/runtime/failure.h"

/* The prefix of the entries naming a commit's writer. */
static const uint8 xact_prefix[] = {0x00, 0x00, 'x', 'a', 'c', 't'};

/*
 * The prefix of the pre-images: what a commit replaced or removed of the
 * versions at their own timestamps, under the commit's timestamp and the
 * version's key (docs/format.md, "Stamped versions").
 */
static const uint8 pre_prefix[] = {0x00, 0x00, 'p', 'r', 'e'};

/* the record's value: u64 writer, str lowest, str highest[, u8 flags] */
#define XACT_PREIMAGES	0x01

#define XACT_KEY_LEN	(sizeof(xact_prefix) + WC_TS_LEN)

typedef enum WcXactStatus
{
	WC_XACT_UNKNOWN,			/* not asked yet, or still running */
	WC_XACT_COMMITTED,
	WC_XACT_ABORTED
} WcXactStatus;

/* One commit whose writer not every snapshot agrees on yet. */
typedef struct WcXact
{
	uint64		ts;				/* the commit's timestamp */
	FullTransactionId writer;
	WcXactStatus status;
	/* where its entries are, to delete them if the writer aborted */
	WcBytes		lowest;
	WcBytes		highest;
	bool		preimages;		/* it may have kept pre-images (rowcommit.c) */
} WcXact;

struct WcXacts
{
	MemoryContext cxt;
	int			n;
	int			cap;
	WcXact	   *recs;			/* by timestamp, as commits come */
	StringInfoData settled;		/* keys of settled records, deleted with
								 * the next commit (ldb_xacts_commit) */
	StringInfoData settled_pre; /* and the timestamps (u64) of those with
								 * pre-images, which go then too */
};

/*
 * The oldest xid the commit log holds, as a full xid.  A record whose
 * writer precedes it was left in LevelDB after it was settled (its delete
 * goes with a later commit), by a writer that ended long ago.  Such a
 * record is compared as a full xid only: one kept while more than 2^31
 * transactions went by (a database no commit reached again) has a 32-bit
 * xid that reads as one in the future, or as a running transaction's.
 * Every other record, like every snapshot's xmin, is at or after this xid
 * and less than 2^31 before the next, where 32-bit comparisons hold.
 */
static FullTransactionId
oldest_clog_full_xid(void)
{
	/* first: a truncation meanwhile only makes it older than it is */
	TransactionId oldest = ShmemVariableCache->oldestClogXid;
	FullTransactionId next = ReadNextFullTransactionId();
	uint32		behind = XidFromFullTransactionId(next) - oldest;

	/* in the first epoch after a pg_resetwal -x without -u: nothing older */
	if (behind > U64FromFullTransactionId(next))
		return FullTransactionIdFromEpochAndXid(0, FirstNormalTransactionId);
	return FullTransactionIdFromU64(U64FromFullTransactionId(next) - behind);
}

/*
 * oldest_clog_full_xid as it was at the last load or settling pass, for
 * reads, which should not take XidGenLock.  Only a load brings in a record
 * older than the commit log, and it refreshes this; one that the log's
 * truncation has passed since is less than 2^31 old, where 32-bit
 * comparisons still hold (and resolve looks again, under the lock).
 */
static FullTransactionId oldest_seen = {0};

/* Tests: start as if 2^31 xids had begun since (ldb_xacts_worker_start). */
bool		ldb_debug_age_recent_xmin = false;

/*
 * TransactionIdIsInProgress takes an xid that precedes RecentXmin as ended
 * without looking.  A backend's snapshots move RecentXmin; the worker
 * takes none, so its own would stay where its start left it, and 2^31
 * xids later every running writer would precede it and read as aborted,
 * its rows hidden and then deleted.  So before each look it is set (with
 * TransactionXmin, which the subtransaction log's lookups expect at or
 * below the xid) to the oldest xid any backend may still consider running.
 */
static void
refresh_recent_xmin(void)
{
	RecentXmin = TransactionXmin = GetOldestTransactionIdConsideredRunning();
}

/*
 * ldb_xacts_worker_start
 *		At the worker's start, before any look at a writer.  With the test
 *		setting, RecentXmin is put where 2^31 xids of uptime would leave it
 *		without refresh_recent_xmin: just past every running xid.
 */
void
ldb_xacts_worker_start(void)
{
	TransactionId aged;

	if (!ldb_debug_age_recent_xmin)
		return;
	aged = XidFromFullTransactionId(ReadNextFullTransactionId()) + ((uint32) 1 << 31) - 1000;
	if (!TransactionIdIsNormal(aged))
		aged = FirstNormalTransactionId;
	RecentXmin = TransactionXmin = aged;
}

static void
xact_key(uint64 ts, uint8 *key)
{
	memcpy(key, xact_prefix, sizeof(xact_prefix));
	wc_encode_ts(ts, key + sizeof(xact_prefix));
}

static struct WcXacts *
xacts_of(WcOpenDb *odb)
{
	if (odb->xacts == NULL)
	{
		MemoryContext cxt = AllocSetContextCreate(wc_worker_cxt, "widecolumn_fdw commits' writers",
												  ALLOCSET_SMALL_SIZES);

		odb->xacts = MemoryContextAllocZero(cxt, sizeof(struct WcXacts));
		odb->xacts->cxt = cxt;
		odb->xacts->settled.data = NULL;
	}
	return odb->xacts;
}

static int
xact_cmp(const void *a, const void *b)
{
	const WcXact *x = a;
	const WcXact *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts ? 1 : 0;
}

static WcBytes
copy_in(MemoryContext cxt, const uint8 *p, size_t len)
{
	WcBytes		b;
	uint8	   *d = MemoryContextAlloc(cxt, len + 1);

	if (len > 0)
		memcpy(d, p, len);
	b.data = d;
	b.len = len;
	return b;
}

static void
add_record(struct WcXacts *x, uint64 ts, FullTransactionId writer,
		   const uint8 *lo, size_t lolen, const uint8 *hi, size_t hilen, bool preimages)
{
	WcXact	   *r;

	if (x->n == x->cap)
	{
		x->cap = Max(16, x->cap * 2);
		x->recs = x->recs == NULL ?
			MemoryContextAlloc(x->cxt, sizeof(WcXact) * x->cap) :
			repalloc(x->recs, sizeof(WcXact) * x->cap);
	}
	r = &x->recs[x->n++];
	r->ts = ts;
	r->writer = writer;
	r->status = WC_XACT_UNKNOWN;
	r->lowest = copy_in(x->cxt, lo, lolen);
	r->highest = copy_in(x->cxt, hi, hilen);
	r->preimages = preimages;
}

/*
 * ldb_xacts_load
 *		At a database's open: the commits whose writers were not settled
 *		when it was last closed (or the cluster stopped).
 */
void
ldb_xacts_load(WcOpenDb *odb)
{
	struct WcXacts *x = xacts_of(odb);
	WcIter	   *it = storage_iter(odb->db, NULL, false);

	x->n = 0;
	if (x->settled.data != NULL)
	{
		resetStringInfo(&x->settled);
		resetStringInfo(&x->settled_pre);
	}
	PG_TRY();
	{
		for (storage_iter_seek(it, xact_prefix, sizeof(xact_prefix));
			 storage_iter_valid(it); storage_iter_next(it))
		{
			size_t		n,
						vlen;
			const uint8 *k = storage_iter_key(it, &n);
			const uint8 *v;
			WcReader	r;
			uint64		writer;
			WcBytes		lo,
						hi;
			uint8		flags = 0;

			if (n < sizeof(xact_prefix) || memcmp(k, xact_prefix, sizeof(xact_prefix)) != 0)
				break;
			v = storage_iter_value(it, &vlen);
			wc_reader_init(&r, v, vlen);
			writer = wc_get_u64(&r);
			lo = wc_get_bytes(&r);
			hi = wc_get_bytes(&r);
			/* (written before 0.10.0, a record has no flags) */
			if (!r.bad && wc_reader_left(&r) == 1)
				flags = wc_get_u8(&r);
			if (n != XACT_KEY_LEN || r.bad || wc_reader_left(&r) != 0)
				ereport(ERROR,
						(errcode(ERRCODE_DATA_CORRUPTED),
						 errmsg("malformed commit writer entry in LevelDB database \"%s\"", odb->path)));
			add_record(x, wc_decode_ts(k + sizeof(xact_prefix)),
					   FullTransactionIdFromU64(writer), lo.data, lo.len, hi.data, hi.len,
					   (flags & XACT_PREIMAGES) != 0);
		}
		storage_iter_check(it);
	}
	PG_FINALLY();
	{
		storage_iter_free(it);
	}
	PG_END_TRY();
	/* keys hold their time inverted, as every key does: newest first */
	if (x->n > 1)
		qsort(x->recs, x->n, sizeof(WcXact), xact_cmp);
	oldest_seen = oldest_clog_full_xid();
}

/* Add to batch the deletes of the records settled since the last commit. */
static void
settled_deletes(WcOpenDb *odb, WcBatch *batch)
{
	struct WcXacts *x = xacts_of(odb);

	if (x->settled.data == NULL || x->settled.len == 0)
		return;
	for (int off = 0; off < x->settled.len; off += XACT_KEY_LEN)
		storage_batch_delete(batch, (uint8 *) x->settled.data + off, XACT_KEY_LEN);
	for (int off = 0; off < x->settled_pre.len; off += sizeof(uint64))
	{
		uint64		pts;

		memcpy(&pts, x->settled_pre.data + off, sizeof(pts));
		ldb_preimages_delete(odb, batch, pts);
	}
	resetStringInfo(&x->settled);
	resetStringInfo(&x->settled_pre);
}

/*
 * ldb_xacts_commit
 *		Record in batch (the commit's first) and here that the commit
 *		stamped ts, whose entries lie between the row prefixes lowest and
 *		highest, was written by writer (and may keep pre-images).  From now
 *		on reads hide it from every snapshot that does not see writer as
 *		committed.
 */
void
ldb_xacts_commit(WcOpenDb *odb, WcBatch *batch, uint64 ts, uint64 writer,
				 StringInfo lowest, StringInfo highest, bool preimages)
{
	struct WcXacts *x = xacts_of(odb);
	uint8		key[XACT_KEY_LEN];
	StringInfoData val;

	initStringInfo(&val);
	wc_put_u64(&val, writer);
	wc_put_bytes(&val, lowest->data, lowest->len);
	wc_put_bytes(&val, highest->data, highest->len);
	if (preimages)
		appendStringInfoChar(&val, XACT_PREIMAGES);
	xact_key(ts, key);
	storage_batch_put(batch, key, sizeof(key), (uint8 *) val.data, val.len);
	pfree(val.data);

	/*
	 * The records settled since the last commit go with it: the worker
	 * writes nothing of its own for them (a write of its own could meet a
	 * full disk, or a directory it cannot write, between two commits).  A
	 * record whose delete is lost with a failed commit is settled again
	 * at the next open.
	 */
	settled_deletes(odb, batch);
	add_record(x, ts, FullTransactionIdFromU64(writer),
			   (uint8 *) lowest->data, lowest->len, (uint8 *) highest->data, highest->len,
			   preimages);
}

/*
 * Ask the commit log about a writer that is no longer running.  Under
 * XactTruncationLock, as pg_xact_status asks: the log is not truncated
 * past the writer between the test and the read.
 */
static void
resolve(WcXact *r)
{
	if (r->status != WC_XACT_UNKNOWN)
		return;
	LWLockAcquire(XactTruncationLock, LW_SHARED);
	/* an aborted writer's entries were deleted before its record was settled */
	if (FullTransactionIdPrecedes(r->writer, oldest_clog_full_xid()))
		r->status = WC_XACT_COMMITTED;
	else
		r->status = TransactionIdDidCommit(XidFromFullTransactionId(r->writer)) ?
			WC_XACT_COMMITTED : WC_XACT_ABORTED;
	LWLockRelease(XactTruncationLock);
}

/* Is xid running (or not yet begun) for the snapshot: XidInMVCCSnapshot's test. */
static bool
in_snapshot(TransactionId xid, const WcXidSnapshot *s)
{
	if (xid == s->own)
		return true;
	if (TransactionIdPrecedes(xid, s->xmin))
		return false;
	if (TransactionIdFollowsOrEquals(xid, s->xmax))
		return true;
	for (uint32 i = 0; i < s->nxip; i++)
		if (wc_xid_snapshot_xip(s, i) == xid)
			return true;
	return false;
}

/*
 * ldb_xacts_hidden
 *		The commits a read must not see, into out (allocated in the current
 *		memory context):
 *		- snap given: those whose writer snap does not see as committed;
 *		- snap NULL, settled false: the latest data, those whose writer has
 *		  not committed (running, or aborted);
 *		- settled true: every commit not yet settled, for the walks that
 *		  delete what no read can return (a policy, a drop), which must go
 *		  by what every snapshot sees.
 *		Main thread only: it may read the commit log.
 */
void
ldb_xacts_hidden(WcOpenDb *odb, const WcXidSnapshot *snap, bool settled, WcHidden *out)
{
	struct WcXacts *x = odb->xacts;
	FullTransactionId oldest;

	out->n = 0;
	out->ts = NULL;
	out->preimages = false;
	if (x == NULL || x->n == 0)
		return;
	out->ts = palloc(sizeof(uint64) * x->n);
	oldest = oldest_seen;
	if (snap == NULL && !settled)
		refresh_recent_xmin();
	for (int i = 0; i < x->n; i++)
	{
		WcXact	   *r = &x->recs[i];
		TransactionId xid = XidFromFullTransactionId(r->writer);
		bool		long_ended = FullTransactionIdPrecedes(r->writer, oldest);
		bool		hide;

		if (settled)
			hide = true;
		else if (snap != NULL)
		{
			/*
			 * A writer the snapshot does not see running has ended before
			 * it was taken, so its commit log status is final.
			 */
			if (!long_ended && in_snapshot(xid, snap))
				hide = true;
			else
			{
				resolve(r);
				hide = r->status != WC_XACT_COMMITTED;
			}
		}
		else
		{
			if (r->status == WC_XACT_UNKNOWN &&
				(long_ended || !TransactionIdIsInProgress(xid)))
				resolve(r);
			hide = r->status != WC_XACT_COMMITTED;
		}
		if (hide)
		{
			out->ts[out->n++] = r->ts;
			out->preimages |= r->preimages;
		}
	}
}

/* A copy of h in cxt. */
void
ldb_hidden_copy(const WcHidden *h, WcHidden *to, MemoryContext cxt)
{
	to->n = h->n;
	to->ts = NULL;
	to->preimages = h->preimages;
	if (h->n > 0)
	{
		to->ts = MemoryContextAlloc(cxt, sizeof(uint64) * h->n);
		memcpy(to->ts, h->ts, sizeof(uint64) * h->n);
	}
}

static void settle(WcOpenDb *odb, bool unread);

/*
 * ldb_xacts_settle
 *		Forget the commits every snapshot agrees on: writers that have
 *		ended and are older than the cluster's oldest xmin (vacuum's
 *		horizon).  An aborted one's entries are deleted first.  Not while
 *		a large commit is written or a walk goes on: their reads (an older
 *		LevelDB snapshot) would find the entries without the record.
 */
void
ldb_xacts_settle(WcOpenDb *odb)
{
	settle(odb, false);
}

/*
 * settle: ldb_xacts_settle's work; unread says that no read is open on the
 * database (the worker's start), so that an aborted writer's entries may go
 * while the horizon holds: no snapshot sees them.
 */
static void
settle(WcOpenDb *odb, bool unread)
{
	struct WcXacts *x = odb->xacts;
	TransactionId horizon;
	FullTransactionId oldest;
	int			kept = 0;

	if (x == NULL || x->n == 0 || odb->db == NULL || ldb_large_commit_active())
		return;
	horizon = GetOldestNonRemovableTransactionId(NULL);
	oldest = oldest_seen = oldest_clog_full_xid();
	refresh_recent_xmin();
	for (int i = 0; i < x->n; i++)
	{
		WcXact	   *r = &x->recs[i];
		TransactionId xid = XidFromFullTransactionId(r->writer);
		uint8		key[XACT_KEY_LEN];

		bool		keep;

		if (FullTransactionIdPrecedes(r->writer, oldest))
			keep = false;
		else if (!TransactionIdPrecedes(xid, horizon))
		{
			keep = true;
			if (unread && !TransactionIdIsInProgress(xid))
			{
				resolve(r);
				keep = r->status == WC_XACT_COMMITTED;
			}
		}
		else
			keep = TransactionIdIsInProgress(xid);
		if (keep)
		{
			x->recs[kept++] = *r;
			continue;
		}
		resolve(r);
		/*
		 * An aborted writer's entries are deleted before the record goes;
		 * not on a database whose last write failed (it is reopened first).
		 */
		if (r->status == WC_XACT_ABORTED)
		{
			if (storage_write_failed(odb->db))
			{
				x->recs[kept++] = *r;
				continue;
			}
			ereport(LOG,
					(errmsg("widecolumn_fdw removed %llu entries written by aborted transaction %u in LevelDB database \"%s\"",
							(unsigned long long) ldb_rollback(odb, r->ts, r->lowest, r->highest),
							xid, odb->path)));
		}
		xact_key(r->ts, key);
		if (x->settled.data == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(wc_worker_cxt);

			initStringInfo(&x->settled);
			initStringInfo(&x->settled_pre);
			MemoryContextSwitchTo(old);
		}
		appendBinaryStringInfo(&x->settled, (const char *) key, sizeof(key));
		/* a committed one's pre-images go with its record (rollback's did) */
		if (r->preimages && r->status == WC_XACT_COMMITTED)
			appendBinaryStringInfo(&x->settled_pre, (const char *) &r->ts, sizeof(r->ts));
	}
	x->n = kept;
	if (x->n == 0)
	{
		/* the records' bounds go with them */
		MemoryContextReset(x->cxt);
		x->recs = NULL;
		x->cap = 0;
	}
}

/*
 * ldb_xacts_newest
 *		The newest commit with a record loaded (0: none): the clock goes
 *		past it at an open, whatever the stored clock says (redo may put
 *		back an older clock over an aborted commit's, redolog.c).
 */
uint64
ldb_xacts_newest(WcOpenDb *odb)
{
	struct WcXacts *x = odb->xacts;

	return x == NULL || x->n == 0 ? 0 : x->recs[x->n - 1].ts;
}

/* Is the commit stamped ts one not every snapshot agrees on yet? */
bool
ldb_xacts_unsettled(WcOpenDb *odb, uint64 ts)
{
	struct WcXacts *x = odb->xacts;
	int			lo = 0,
				hi;

	if (x == NULL)
		return false;
	hi = x->n - 1;
	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (x->recs[mid].ts == ts)
			return true;
		if (x->recs[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

/* The commits not yet settled, for the figures and tests. */
int
ldb_xacts_pending(WcOpenDb *odb)
{
	return odb->xacts ? odb->xacts->n : 0;
}

/* Free odb's records (a database closed, or a failure while loading them). */
void
ldb_xacts_free(WcOpenDb *odb)
{
	if (odb->xacts == NULL)
		return;
	if (odb->xacts->settled.data != NULL)
	{
		pfree(odb->xacts->settled.data);
		pfree(odb->xacts->settled_pre.data);
	}
	MemoryContextDelete(odb->xacts->cxt);
	odb->xacts = NULL;
}

/*
 * ldb_xacts_settle_closing
 *		At the worker's start, with no read open: settle what can be settled
 *		in a database about to be closed, aborted writers even while the
 *		horizon holds them, and write the deletes of the settled records in
 *		a batch of their own: no commit will take them.  The records are
 *		freed; the number of writers kept without a known commit (running:
 *		prepared transactions), whose end must find the database open.  A committed writer the
 *		horizon holds may stay in LevelDB: it reads as committed whenever it
 *		is loaded again.
 */
int
ldb_xacts_settle_closing(WcOpenDb *odb)
{
	WcBatch    *batch;
	int			left;

	if (odb->xacts == NULL)
		return 0;
	if (odb->xacts->n > 0)
		settle(odb, true);
	batch = storage_batch_new();
	PG_TRY();
	{
		settled_deletes(odb, batch);
		if (storage_batch_bytes(batch) > 0)
		{
			ldb_redo_sync(odb, false);
			storage_write(odb->db, batch, true);
		}
	}
	PG_FINALLY();
	{
		storage_batch_free(batch);
	}
	PG_END_TRY();
	/*
	 * Counted by what settle found, not asked again: a writer that ended
	 * since (a ROLLBACK PREPARED meanwhile) must still find it open.
	 */
	left = 0;
	for (int i = 0; i < odb->xacts->n; i++)
		if (odb->xacts->recs[i].status != WC_XACT_COMMITTED)
			left++;
	ldb_xacts_free(odb);
	return left;
}

/*
 * ldb_xacts_settle_due
 *		The main loop's look at every open database, ten times a second:
 *		settles what every snapshot agrees on.  An error is logged; the
 *		records stay for the next look.
 */
void
ldb_xacts_settle_due(void)
{
	static uint64 looked = 0;
	WcOpenDb   *odb;

	if (!wc_loop_due(&looked, 100000))
		return;
	for (uint32 i = 0; (odb = ldb_odb_nth(i)) != NULL; i++)
	{
		MemoryContext old = CurrentMemoryContext;

		if (!ldb_odb_mine(odb))
			continue;
		if (odb->db == NULL || odb->commit_partial)
			continue;
		PG_TRY();
		{
			ldb_xacts_settle(odb);
		}
		PG_CATCH();
		{
			ErrorData  *edata = wc_caught_error(old);

			ereport(LOG,
					(errmsg("widecolumn_fdw storage worker could not settle the commits of LevelDB database \"%s\": %s",
							odb->path, edata->message)));
			FreeErrorData(edata);
		}
		PG_END_TRY();
	}
}

/* The key of the pre-image of the version at key, kept by the commit ts. */
void
ldb_preimage_key(uint64 ts, const uint8 *key, size_t klen, StringInfo out)
{
	uint8		tsbuf[WC_TS_LEN];

	resetStringInfo(out);
	appendBinaryStringInfo(out, (const char *) pre_prefix, sizeof(pre_prefix));
	wc_encode_ts(ts, tsbuf);
	appendBinaryStringInfo(out, (const char *) tsbuf, WC_TS_LEN);
	appendBinaryStringInfo(out, (const char *) key, klen);
}

/*
 * ldb_preimages_delete
 *		Add to batch the deletes of every pre-image the commit ts kept.
 */
void
ldb_preimages_delete(WcOpenDb *odb, WcBatch *batch, uint64 ts)
{
	uint8		start[sizeof(pre_prefix) + WC_TS_LEN];
	WcIter	   *it = storage_iter(odb->db, NULL, false);

	memcpy(start, pre_prefix, sizeof(pre_prefix));
	wc_encode_ts(ts, start + sizeof(pre_prefix));
	PG_TRY();
	{
		for (storage_iter_seek(it, start, sizeof(start)); storage_iter_valid(it);
			 storage_iter_next(it))
		{
			size_t		n;
			const uint8 *k = storage_iter_key(it, &n);

			if (n < sizeof(start) || memcmp(k, start, sizeof(start)) != 0)
				break;
			storage_batch_delete(batch, k, n);
		}
		storage_iter_check(it);
	}
	PG_FINALLY();
	{
		storage_iter_free(it);
	}
	PG_END_TRY();
}

/*
 * ldb_unstamp
 *		The value a read takes of the version at key whose stored value *v
 *		is stamped: the stamped value if the read sees the commit that wrote
 *		it (false if that is a removal), else the version as it was before,
 *		its pre-image (false if there was none).  A pre-image may be
 *		stamped in turn, by an older commit.
 *
 * Plain C: reader threads run it.  pre is an iterator at the read's
 * LevelDB snapshot, NULL if the read hides no commit that kept pre-images
 * (hidden->preimages); scratch holds the pre-image's key.  *v then points
 * into pre's entry: valid until pre moves.
 */
bool
ldb_unstamp(const WcHidden *hidden, WcIter *pre, WcByteBuf *scratch,
			const uint8 *key, size_t klen, const uint8 **v, size_t *vlen)
{
	uint64		stamp = 0;

	while (*vlen > 0 && (*v)[0] == WC_VALUE_STAMPED)
	{
		uint8		tsbuf[WC_TS_LEN];
		const uint8 *k;
		size_t		n;

		if (!wc_value_stamp(*v, *vlen, &stamp))
			wc_check_value_tag(*v, 0);	/* too short: malformed, raises */
		if (!ldb_hidden_has(hidden, stamp))
		{
			*v += WC_STAMP_LEN;
			*vlen -= WC_STAMP_LEN;
			return (*v)[0] != WC_VALUE_REMOVED;
		}
		if (pre == NULL)
			return false;
		scratch->len = 0;
		wc_bytebuf_append(scratch, pre_prefix, sizeof(pre_prefix));
		wc_encode_ts(stamp, tsbuf);
		wc_bytebuf_append(scratch, tsbuf, WC_TS_LEN);
		wc_bytebuf_append(scratch, key, klen);
		storage_iter_seek(pre, scratch->data, scratch->len);
		if (!storage_iter_valid(pre))
		{
			storage_iter_check(pre);
			return false;
		}
		k = storage_iter_key(pre, &n);
		if (n != scratch->len || memcmp(k, scratch->data, n) != 0)
			return false;
		*v = storage_iter_value(pre, vlen);
	}
	return true;
}
