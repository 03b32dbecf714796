/*-------------------------------------------------------------------------
 *
 * xact.h
 *	  What a transaction holds in this backend until it ends: its log of
 *	  writes to mapped tables (txn.c; a key range's rows of it, txnrange.c)
 *	  and of cell versions (celllog.c), its row locks (rowlock.c), its
 *	  predicate locks under SERIALIZABLE (ssi.c), the row ranges it drops
 *	  (droprange.c, with widecolumn.drop_row_range), and widecolumn.as_of,
 *	  which keeps reads of another time away from its writes (asof.c).
 *
 * It sits on the model and the link (a drop reports its progress; the
 * cells' log is sent in WRITE messages).  The end of a transaction, which
 * sends the logs and records the families and types they wrote in the
 * family list, is above that list, in commit.
 *
 * A circle stays inside.  A drop is written through the log and lives at
 * a position of it (droprange.c calls txn.c), so the log's replay leaves
 * out what a later drop dropped and a savepoint's rollback forgets the
 * drops made since (txn.c calls droprange.c); a drop is refused under
 * widecolumn.as_of as every write is (droprange.c calls asof.c), which
 * asks whether the transaction has written (asof.c calls txn.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_XACT_XACT_H
#define WC_FDW_XACT_XACT_H

#include "nodes/lockoptions.h"
#include "storage/lockdefs.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "fdw/fdw.h"

/* Target size of one WRITE message (commit.c). */
#define WC_WRITE_CHUNK_BYTES	(64 * 1024)

typedef struct WcTxnTable WcTxnTable;	/* its layout: below */

/* in txn.c */
extern WcTxnTable *wc_txn_table(WcTable *t, bool create);
extern void wc_txn_put_row(WcTable *t, CommandId cid, const uint8 *rowkey, size_t rowkey_len,
						   bool delete_first, int ncells, WcTxnCell *cells);
extern uint32 wc_txn_horizon(void);
extern uint32 wc_txn_horizon_at(CommandId curcid);
extern bool wc_txn_has_writes(void);
extern int	wc_txn_columns(WcTxnTable *tt, uint8 ***cols, size_t **lens);
extern void wc_txn_touch_row(WcTable *t, CommandId cid, const uint8 *rowkey, size_t rowkey_len);
extern bool wc_txn_changed_since(WcTable *t, uint32 horizon, const uint8 *rowkey,
								 size_t rowkey_len, CommandId cid, bool delete);
extern void wc_txn_savepoint_begin(SubTransactionId subid);
extern bool wc_txn_savepoint_end(SubTransactionId subid, bool rollback);
extern void wc_txn_reset(void);

/* in txnrange.c */
extern int	wc_txn_rows_in_range(WcTxnTable *tt, uint32 horizon,
								 const WcKeyRange *range, bool reverse,
								 WcTxnRow **rows);

/* in rowlock.c */
extern bool wc_txn_lock_row(WcTable *t, const uint8 *key, size_t len,
							LOCKMODE mode, LockWaitPolicy wait);
extern void wc_txn_lock_all_rows(WcTable *t);
extern void wc_txn_unlock_row(WcTable *t, const uint8 *key, size_t len,
							  LOCKMODE mode);
extern void wc_txn_forget_locks(SubTransactionId subid);
extern void wc_txn_reset_locks(void);

/* in rowreads.c: rows read under an UPDATE's or DELETE's lock (Bigtable) */
extern void wc_txn_note_read(WcTable *t, const uint8 *rowkey, size_t keylen, uint64 version);
extern bool wc_txn_read_version(WcTxnTable *tt, const uint8 *rowkey, size_t keylen,
								uint64 *version);
extern void wc_txn_reset_reads(void);

/* in ssi.c: SERIALIZABLE's predicate locks on foreign tables */
extern void wc_ssi_read(Relation rel, Snapshot snapshot);
extern void wc_ssi_write(Relation rel);
extern void wc_ssi_pre_commit(void);
extern void wc_ssi_reset(void);

/* in asof.c */
extern void wc_as_of_init(void);
extern uint64 wc_as_of(void);
extern uint64 wc_as_of_for_read(void);
extern uint64 wc_bigtable_read_time(uint64 as_of, bool *at_start);
extern void wc_as_of_forbid(bool lock);

/* in droprange.c: drop_row_range, and what its transaction reads */
extern uint8 *wc_prefix_end(const uint8 *p, size_t len, size_t *elen);
extern void wc_rowdrop(WcTable *t, const uint8 *start, size_t slen,
					   const uint8 *end, size_t elen, bool tombstone);
extern uint32 wc_rowdrop_dropped_at(struct WcTxnTable *tt, const uint8 *key, size_t len,
									uint32 horizon);
extern bool wc_rowdrop_any(void);
extern List *wc_rowdrop_ranges(WcTable *t, uint32 horizon, List *ranges);
extern void wc_rowdrop_truncate(uint32 len);
extern void wc_rowdrop_reset(void);

/* in celllog.c */

/* A row that versions are logged to (wc_cells_begin_row names it). */
typedef struct WcCellsRow
{
	WcTxnTable *tt;
	uint8	   *prefix;			/* escaped table and row key */
	size_t		prefix_len;
} WcCellsRow;

extern bool wc_cells_pending(void);
extern bool wc_cells_written(WcTable *t);
extern void wc_cells_famquals(WcTxnTable *tt, const uint8 ***famquals, size_t **lens, int *n);
extern void wc_cells_flush(WcTxnTable *tt, uint32 db, StringInfo payload);
extern int	wc_cells_op_count_at(CommandId curcid);
extern void wc_cells_overlay(WcTxnTable *tt, int upto, StringInfo buf, uint32 *n);
extern void wc_cells_init(void);
extern void wc_cells_begin_row(WcCellsRow *row, WcTable *t, const uint8 *rowkey,
							   size_t rowkey_len);
extern void wc_cells_log_version(const WcCellsRow *row, const uint8 *famqual,
								 size_t famqual_len, bool at_ts, uint64 ts, bool remove,
								 const uint8 *value, size_t value_len);
extern void wc_cells_put_at(const WcCellsRow *row, const uint8 *famqual, size_t famqual_len,
							uint64 ts, const uint8 *value, size_t value_len);

/*
 * The layout of the write log (txn.c), for the files that read it whole:
 * txnrange.c, which finds a key range's rows in it, commit.c, which sends
 * it to the worker, coltypes.c, which lists the columns written, and the
 * cells layout, which names a log's table.  Everything else sees the log
 * through the wc_txn_ functions above.
 */

/* A row key's bytes, by pointer. */
typedef struct WcRowKey
{
	const uint8 *data;
	size_t		len;
} WcRowKey;

typedef struct WcRowEntry
{
	WcRowKey	key;
	uint64		abbrev;			/* the key's first 8 bytes: abbrev_key */
	uint32	   *ops;			/* positions in the log, ascending */
	int			nops;
	int			cap;
} WcRowEntry;

struct WcTxnTable
{
	Oid			serverid;
	char	   *table;
	char	   *path;
	bool		sync;
	WcTable    *desc;			/* options used to open the database */
	uint8	   *table_key;
	size_t		table_key_len;

	/*
	 * The rows written, in rows[0..nrows).  The first nsorted are in key
	 * order, each key once.  The rest, the tail, are in the order they were
	 * first written, and a key may be there more than once (and in the
	 * sorted part too).  A bulk load in key order only ever appends to the
	 * sorted part.  A row out of order goes to the tail without a lookup,
	 * and wc_txn_sort_rows merges the tail in before the next read or the commit:
	 * a load in a few ascending runs costs a few merge passes, not a hash
	 * lookup per row and a full sort.  The tail notes where each of its
	 * ascending runs begins as it grows, so the merge need not look for
	 * them.
	 */
	WcRowEntry **rows;
	int			nrows;
	int			nsorted;
	int			rows_cap;
	int		   *tail_runs;		/* where each run of the tail begins */
	int			ntail_runs;
	int			tail_runs_cap;
	bool		tail_repeats;	/* a tail row has the key of the one before */
	/* the columns written, escaped family+qualifier */
	uint8	  **cols;
	size_t	   *col_lens;
	int			ncols;
	int			colcap;

	/*
	 * A map column writes a cell per key, so a transaction may write
	 * millions of distinct cells: they are found by hash (an open-addressed
	 * table of index + 1, 0 empty), and a row's replay takes its cells'
	 * places from col_slot (every entry -1 between replays), not from an
	 * array of them all.
	 */
	uint32	   *col_hash;
	uint32		col_hash_size;	/* a power of 2, or 0 */
	int		   *col_slot;
	int			col_slot_cap;
};

/* in txn.c */
/* The tables this transaction wrote to: WcTxnTable, in txn_cxt. */
extern List *wc_txn_tables;

extern void wc_txn_sort_rows(WcTxnTable *tt);
extern bool wc_txn_wrote_cell(WcTxnTable *tt, const uint8 *fq, size_t len);
extern bool wc_txn_replay(WcTxnTable *tt, WcRowEntry *row, uint32 horizon, WcTxnRow *out);

#endif							/* WC_FDW_XACT_XACT_H */
