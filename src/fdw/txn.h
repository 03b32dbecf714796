/*-------------------------------------------------------------------------
 *
 * txn.h
 *	  The layout of a transaction's write log, for the files that read it:
 *	  txn.c, which keeps it, txnrange.c, which finds a key range's rows in
 *	  it, and commit.c, which sends it to the worker.
 *
 * Everything else sees the log through the wc_txn_ functions of fdw.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_TXN_H
#define WC_FDW_TXN_H

#include "fdw/fdw.h"

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

/* The tables this transaction wrote to: WcTxnTable, in txn_cxt. */
extern List *wc_txn_tables;

extern void wc_txn_sort_rows(WcTxnTable *tt);
extern bool wc_txn_wrote_cell(WcTxnTable *tt, const uint8 *fq, size_t len);
extern bool wc_txn_replay(WcTxnTable *tt, WcRowEntry *row, uint32 horizon, WcTxnRow *out);

#endif							/* WC_FDW_TXN_H */
