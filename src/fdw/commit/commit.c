/*-------------------------------------------------------------------------
 *
 * commit.c
 *	  The end of a transaction: its writes sent to the worker and committed
 *	  at COMMIT, forgotten at ROLLBACK; a savepoint's at ROLLBACK TO.
 *
 * PostgreSQL's pre-commit callback replays the write log (txn.c) row by row
 * and sends it to the storage worker, which applies each database's rows
 * in one LevelDB WriteBatch.  Interrupts are held while it does, so that a
 * cancel cannot leave half of a transaction committed.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "utils/guc.h"

#include "common/aggfold.h"
#include "common/shmem.h"
#include "fdw/commit/commit.h"
#include "fdw/fdw.h"
#include "fdw/link/link.h"
#include "fdw/meta/meta.h"
#include "fdw/model/model.h"
#include "fdw/xact/xact.h"

/*
 * Test hooks: what happens after a transaction's foreign writes are stored
 * and before PostgreSQL's commit record (test/t/031_visibility.pl, the
 * isolation spec pgsnapshots): an error, which aborts the transaction, or a
 * wait for an advisory lock (pg_advisory_lock's, on this bigint key) that
 * another session holds.
 */
static bool debug_fail_after_store = false;
static int	debug_wait_after_store = 0;

static void
after_store(void)
{
	if (debug_wait_after_store != 0)
	{
		LOCKTAG		tag;
		int64		key = debug_wait_after_store;

		SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, (uint32) (key >> 32), (uint32) key, 1);
		(void) LockAcquire(&tag, ShareLock, false, false);
	}
	if (debug_fail_after_store)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("widecolumn_fdw.debug_fail_after_store is set: failing after the foreign writes are stored")));
}

/*
 * check_row_size
 *		Bigtable's limit on a row, applied to what the commit writes to it:
 *		an error before anything of the transaction is sent.
 */
static void
check_row_size(WcTxnTable *tt, const WcTxnRow *row)
{
	uint64		bytes = row->rowkey_len;

	for (int i = 0; i < row->ncells; i++)
		bytes += row->cells[i].famqual_len + row->cells[i].value_len;
	if (bytes > WC_MAX_ROW)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row of stored table \"%s\" is too large", tt->table),
				 errdetail("The transaction writes " UINT64_FORMAT " bytes to row key \"%s\"; the limit is %d.",
						   bytes, wc_printable_key(row->rowkey, row->rowkey_len), WC_MAX_ROW),
				 errhint("Spread the data over several rows, as Bigtable's schema design advises.")));
}

/*
 * write_cells
 *		A row's cells into a WRITE payload.  On a Bigtable server a value
 *		set in an aggregate family (an UPDATE's, or an INSERT's after the
 *		transaction deleted the cell) goes as the cell's deletion and a
 *		merge of the value, since Bigtable folds such a family's cells only
 *		through AddToCell (worker/bigtable/btcommit.c); aggs are the
 *		table's aggregate families there, else NIL.
 */
static void
write_cells(StringInfo payload, const uint8 *k, size_t klen, const WcTxnRow *row,
			List *aggs, bool read, uint64 version)
{
	uint32		ncells = (uint32) row->ncells;
	uint8	   *tags = NULL;

	if (aggs != NIL)
	{
		tags = palloc0(Max(1, row->ncells));
		for (int i = 0; i < row->ncells; i++)
		{
			const WcTxnCell *c = &row->cells[i];

			if (c->merge == 0 && c->value != NULL && c->value_len == WC_AGG_LEN)
				tags[i] = wc_aggregate_of(aggs, c->famqual, c->famqual_len);
			ncells += tags[i] != 0;
		}
	}
	if (read)
		wc_write_row_read(payload, k, klen, row->deleted, version, ncells);
	else
		wc_write_row(payload, k, klen, row->deleted, ncells);
	for (int i = 0; i < row->ncells; i++)
	{
		const WcTxnCell *c = &row->cells[i];

		if (tags != NULL && tags[i] != 0)
		{
			wc_write_row_cell(payload, c->famqual, c->famqual_len, NULL, 0);
			wc_write_row_cell_merge(payload, c->famqual, c->famqual_len, tags[i], c->value);
		}
		else if (c->merge != 0)
			wc_write_row_cell_merge(payload, c->famqual, c->famqual_len, c->merge, c->value);
		else
			wc_write_row_cell(payload, c->famqual, c->famqual_len, c->value, c->value_len);
	}
	if (tags != NULL)
		pfree(tags);
}

/*
 * commit_bigtable
 *		The COMMIT of a Bigtable server's writes, counted before and after
 *		in WcShared.bigtable_commits, whether it fails or not: a row locked
 *		with the count unchanged since a scan read it needs no reread
 *		(fdw/exec/scan.c).
 */
static void
commit_bigtable(uint32 db, bool sync)
{
	pg_atomic_fetch_add_u64(&wc_shared->bigtable_commits, 1);
	PG_TRY();
	{
		wc_client_commit(db, sync);
	}
	PG_CATCH();
	{
		pg_atomic_fetch_add_u64(&wc_shared->bigtable_commits, 1);
		PG_RE_THROW();
	}
	PG_END_TRY();
	pg_atomic_fetch_add_u64(&wc_shared->bigtable_commits, 1);
}

/*
 * flush_db
 *		Send every row written to tables of one database, then commit it.
 *
 * The rows of the table of families go first, as they sort: the worker
 * learns a commit's row-range drops from them before it meets the rows
 * (worker/rowdrops.c).
 */
static void
flush_db(const char *path, uint32 horizon)
{
	ListCell   *lc;
	StringInfoData payload;
	uint32		db = 0;
	bool		sync = false;
	bool		opened = false;
	bool		bigtable = false;
	List	   *tables = NIL;
	List	   *aggregates = NIL;	/* of each of tables, on Bigtable */
	uint64		sent = 0;

	foreach(lc, wc_txn_tables)
	{
		WcTxnTable *tt = lfirst(lc);

		tables = tt->table[0] == '\0' ? lcons(tt, tables) : lappend(tables, tt);
	}
	initStringInfo(&payload);

	/* read before anything is sent: reading a family list is a scan */
	foreach(lc, tables)
	{
		WcTxnTable *tt = lfirst(lc);

		if (strcmp(tt->path, path) == 0 && tt->table[0] != '\0' &&
			tt->desc->engine == WC_ENGINE_BIGTABLE)
			aggregates = lappend(aggregates, wc_aggregate_families(tt->serverid, tt->table));
		else
			aggregates = lappend(aggregates, NIL);
	}
	foreach(lc, tables)
	{
		WcTxnTable *tt = lfirst(lc);
		List	   *aggs = list_nth(aggregates, foreach_current_index(lc));

		if (strcmp(tt->path, path) != 0)
			continue;
		if (!opened)
		{
			bigtable = tt->desc->engine == WC_ENGINE_BIGTABLE;
			db = wc_client_open_db(tt->desc);
			/* Anything a failed earlier attempt left there is not ours. */
			wc_client_abort(db);
			opened = true;
		}
		sync |= tt->sync;

		/*
		 * In key order: LevelDB's memtable then lays the rows out in the
		 * order scans read them, instead of one cache miss per entry.
		 */
		wc_txn_sort_rows(tt);
		for (int r = 0; r < tt->nsorted; r++)
		{
			WcRowEntry *e = tt->rows[r];
			WcTxnRow	row;
			size_t		klen;
			uint8	   *k;
			uint64		version = 0;
			bool		read;

			if (!wc_txn_replay(tt, e, horizon, &row))
				continue;
			check_row_size(tt, &row);
			k = wc_row_key(tt->desc, row.rowkey, row.rowkey_len, &klen);
			read = tt->desc->engine == WC_ENGINE_BIGTABLE &&
				wc_txn_read_version(tt, row.rowkey, row.rowkey_len, &version);
			write_cells(&payload, k, klen, &row, aggs, read, version);
			pfree(k);
			if (row.cells)
				pfree(row.cells);
			if (payload.len >= WC_WRITE_CHUNK_BYTES)
			{
				/* writes this large: a commit that may take a while */
				if (sent == 0)
					wc_progress_begin(WC_PROGRESS_COMMIT, NULL, WC_UNIT_BYTES_SENT, false, 0);
				wc_client_write(db, &payload);
				sent += payload.len;
				wc_progress_done(WC_UNIT_BYTES_SENT, sent);
				wc_progress_tick();
				resetStringInfo(&payload);
			}
		}
		wc_cells_flush(tt, db, &payload);
	}
	if (payload.len > 0)
		wc_client_write(db, &payload);
	pfree(payload.data);
	if (opened && bigtable)
		commit_bigtable(db, sync);
	else if (opened)
		wc_client_commit(db, sync);
	wc_progress_end();
}

/*
 * families_written
 *		Have the families that the transaction wrote to listed (families.c,
 *		wc_families_written), before its writes are sent: that may add a
 *		change to the log, and wait for a lock.
 */
static void
add_family(const char **families, int *n, const uint8 *famqual, size_t len)
{
	size_t		flen,
				consumed,
				unescaped;
	char	   *family;

	if (wc_component_end(famqual, len, &flen) != 0)
		return;
	family = palloc(flen + 1);
	if (wc_unescape(famqual, flen, (uint8 *) family, &consumed, &unescaped) != 0)
		return;
	family[unescaped] = '\0';
	for (int j = 0; j < *n; j++)
		if (strcmp(families[j], family) == 0)
			return;
	families[(*n)++] = family;
}

/*
 * The order in which a COMMIT locks its tables' rows of the family lists:
 * by server, then stored table name.  In the order of the writes, two
 * COMMITs writing to the same tables in opposite orders could each hold one
 * row and wait for the other's.
 */
static int
table_lock_order(const ListCell *a, const ListCell *b)
{
	const WcTxnTable *x = lfirst(a);
	const WcTxnTable *y = lfirst(b);

	if (x->serverid != y->serverid)
		return x->serverid < y->serverid ? -1 : 1;
	return strcmp(x->table, y->table);
}

static void
families_written(void)
{
	List	   *tables = list_copy(wc_txn_tables);
	ListCell   *lc;

	list_sort(tables, table_lock_order);
	foreach(lc, tables)
	{
		WcTxnTable *tt = lfirst(lc);
		const uint8 **famquals;
		size_t	   *lens;
		int			ncells;
		const char **families;
		int			n = 0;

		if (tt->table[0] == '\0')
			continue;			/* the family lists themselves */
		wc_cells_famquals(tt, &famquals, &lens, &ncells);
		families = palloc(sizeof(char *) * (tt->ncols + ncells + 1));
		for (int i = 0; i < tt->ncols; i++)
			add_family(families, &n, tt->cols[i], tt->col_lens[i]);
		for (int i = 0; i < ncells; i++)
			add_family(families, &n, famquals[i], lens[i]);
		if (n == 0)
			continue;
		/* first: it may lock the row for a change, families.c only shares it */
		wc_coltypes_written(tt, families, n);
		wc_families_written(tt->desc->serverid, tt->table, families, n);
	}
	list_free(tables);
}

/*
 * pre_commit
 *		Apply the transaction's writes, one atomic batch per database.
 *
 * An error here aborts the transaction.  With several databases (several
 * foreign servers) in one transaction the batches are applied one after
 * another, and a failure in a later one does not undo an earlier one.
 */
static void
pre_commit(void)
{
	List	   *paths = NIL;
	ListCell   *lc;
	uint32		horizon = wc_txn_horizon();

	foreach(lc, wc_txn_tables)
	{
		WcTxnTable *tt = lfirst(lc);
		ListCell   *lc2;
		bool		seen = false;

		foreach(lc2, paths)
			if (strcmp(lfirst(lc2), tt->path) == 0)
				seen = true;
		if (!seen)
			paths = lappend(paths, tt->path);
	}
	/*
	 * The foreign writes become visible with PostgreSQL's commit record of
	 * this transaction (worker/xacts.c).  Its xid must not be given to
	 * another transaction after a crash (xidwal.c).
	 */
	if (paths != NIL)
		wc_xidwal_log();
	foreach(lc, paths)
		flush_db(lfirst(lc), horizon);
	if (paths != NIL)
		after_store();
	list_free(paths);

	foreach(lc, wc_txn_tables)
		if (((WcTxnTable *) lfirst(lc))->table[0] == '\0')
		{
			wc_families_changed();
			break;
		}
}

/* The transaction has ended: forget its writes and its locks. */
static void
txn_reset(void)
{
	wc_txn_reset();
	wc_txn_reset_locks();
	wc_txn_reset_reads();
	wc_coltypes_reset();
	wc_ssi_reset();
}

/*
 * A cancel, or a terminate, that came during the foreign commit, put off
 * until the transaction has ended (see PRE_COMMIT).
 */
static bool cancel_after_commit = false;
static bool die_after_commit = false;

static void
restore_interrupts(void)
{
	if (cancel_after_commit)
	{
		cancel_after_commit = false;
		QueryCancelPending = true;
		InterruptPending = true;
	}
	if (die_after_commit)
	{
		die_after_commit = false;
		ProcDiePending = true;
		InterruptPending = true;
	}
}

/*
 * A Bigtable server applies a transaction's writes when they are sent,
 * which PREPARE TRANSACTION does: ROLLBACK PREPARED could not take them
 * back, so a transaction that wrote to one cannot be prepared.
 */
static void
refuse_prepare_on_bigtable(void)
{
	ListCell   *lc;

	foreach(lc, wc_txn_tables)
	{
		WcTxnTable *tt = lfirst(lc);

		if (tt->desc->engine == WC_ENGINE_BIGTABLE)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot PREPARE a transaction that has written to a Bigtable server"),
					 errdetail("Bigtable applies the writes when they are sent, which PREPARE TRANSACTION does, and ROLLBACK PREPARED could not undo them."),
					 errhint("COMMIT the transaction instead.")));
	}
}

static void
wc_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PARALLEL_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:

			/*
			 * PREPARE TRANSACTION stores the writes as COMMIT does: they stay
			 * invisible while the prepared transaction is in progress, and
			 * COMMIT PREPARED makes them visible, ROLLBACK PREPARED takes
			 * them back (worker/xacts.c).
			 */
			if (wc_txn_horizon() == 0 && !wc_cells_pending())
				break;
			if (event == XACT_EVENT_PRE_PREPARE)
				refuse_prepare_on_bigtable();

			/*
			 * SERIALIZABLE checks for a serialization failure after these
			 * callbacks, when the foreign writes would already be
			 * committed: a retry, as its error suggests, would apply them
			 * twice.  So the check is made here first; once it has passed,
			 * no other transaction can make this one fail it.
			 */
			families_written();
			if (event != XACT_EVENT_PARALLEL_PRE_COMMIT && IsolationIsSerializable())
			{
				wc_ssi_pre_commit();
				PreCommit_CheckForSerializationFailure();
			}

			/*
			 * A cancel or terminate that arrived while the worker commits
			 * could not undo the commit, but would roll back the rest of the
			 * transaction: half of it would stand.  So interrupts are held
			 * while the writes are sent and committed.  No PG_FINALLY: an
			 * error ends the hold itself (errfinish sets the count to 0).
			 */
			HOLD_INTERRUPTS();
			pre_commit();
			RESUME_INTERRUPTS();

			/*
			 * One that came meanwhile cannot take the commit back: it waits
			 * until the transaction has ended, as during PostgreSQL's own
			 * commit, so that no wait in PostgreSQL's pre-commit steps after
			 * ours (PreCommit_Notify's lock) acts on it and rolls back the
			 * rest; a terminated session exits after its COMMIT.  (Those
			 * steps stay interruptible by what comes later, and their own
			 * errors can still split the transaction: README.)
			 */
			if (QueryCancelPending)
			{
				QueryCancelPending = false;
				cancel_after_commit = true;
			}
			if (ProcDiePending)
			{
				ProcDiePending = false;
				die_after_commit = true;
			}
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PREPARE:
			restore_interrupts();
			txn_reset();
			wc_client_xact_end(false);
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			restore_interrupts();
			txn_reset();
			wc_families_forget();
			wc_client_xact_end(true);
			break;
	}
}

static void
wc_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					SubTransactionId parentSubid, void *arg)
{
	switch (event)
	{
		case SUBXACT_EVENT_START_SUB:
			wc_txn_savepoint_begin(mySubid);
			break;
		case SUBXACT_EVENT_COMMIT_SUB:
		case SUBXACT_EVENT_ABORT_SUB:
			if (event == SUBXACT_EVENT_ABORT_SUB)
				wc_txn_forget_locks(mySubid);
			if (wc_txn_savepoint_end(mySubid, event == SUBXACT_EVENT_ABORT_SUB) &&
				event == SUBXACT_EVENT_ABORT_SUB)
				wc_client_subxact_abort(mySubid);
			break;
		case SUBXACT_EVENT_PRE_COMMIT_SUB:
			break;
	}
}

/*
 * wc_txn_init
 *		Register the transaction callbacks (from _PG_init).
 */
void
wc_txn_init(void)
{
	RegisterXactCallback(wc_xact_callback, NULL);
	RegisterSubXactCallback(wc_subxact_callback, NULL);
	DefineCustomBoolVariable("widecolumn_fdw.debug_fail_after_store",
							 "Fails a COMMIT after its foreign writes are stored (for tests).",
							 NULL,
							 &debug_fail_after_store,
							 false,
							 PGC_SUSET,
							 GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("widecolumn_fdw.debug_wait_after_store",
							"Makes a COMMIT wait, after its foreign writes are stored, for the advisory lock of this key (for tests).",
							NULL,
							&debug_wait_after_store,
							0, 0, INT_MAX,
							PGC_SUSET,
							GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);
}
