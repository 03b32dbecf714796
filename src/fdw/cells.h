/*-------------------------------------------------------------------------
 *
 * cells.h
 *	  What the files of the cells layout share (a foreign table with
 *	  OPTIONS (layout 'cells'): a row per cell version): its columns,
 *	  its plan's fdw_private, and the entry points of its phases.
 *
 * cellroute.c hands a cells-layout table's callbacks to cellplan.c
 * (planning, EXPLAIN), cellrows.c (the scan) and cellwrite.c (INSERT,
 * UPDATE, DELETE and their transaction log); the mapped layout's files
 * do not know about it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_CELLS_H
#define WC_FDW_CELLS_H

#include "commands/explain.h"
#include "nodes/execnodes.h"

#include "fdw/fdw.h"

/* The columns of a cells-layout table. */
typedef struct WcCellsTable
{
	WcTable    *t;
	int			rowkey;			/* attnums */
	int			family;
	int			qualifier;
	int			ts;
	int			value;
	Oid			rowkey_type;
	Oid			qual_type;		/* TEXTOID or BYTEAOID (varchar as text) */
} WcCellsTable;

/*
 * ForeignScan.fdw_private of a cells scan.  Its first element, a String,
 * tells it from a mapped table's plan.  A filter is an IntList: the kind
 * (WC_KEY_EQ, WC_KEY_IN, WC_KEY_LT, ..., WC_KEY_LIKE), the attnum of the
 * column compared, the index of the value in fdw_exprs.
 */
enum WcCellsPrivateIndex
{
	WcCellsPrivateMarker,		/* String "cells" */
	WcCellsPrivateCond,			/* the row-key condition (pushdown.c), or NIL */
	WcCellsPrivateFilters,		/* List of filters */
	WcCellsPrivateNKeyQuals,	/* Integer: how many of fdw_recheck_quals are
								 * the row-key condition (the rest are the
								 * filters), for EXPLAIN */
	WcCellsPrivateCount
};

#define WC_CELLS_MARKER "cells"

/* Microseconds between the PostgreSQL epoch and the Unix epoch. */
#define WC_UNIX_EPOCH_OFFSET_US \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY)

/* in cellroute.c */
extern void wc_cells_register(FdwRoutine *routine);

/* in cellplan.c */
extern WcCellsTable *wc_cells_table(Oid relid);
extern void wc_cells_plan_register(FdwRoutine *routine);
extern void wc_cells_explain_scan(ForeignScanState *node, ExplainState *es);

/* in cellrows.c */
extern void wc_cells_scan_register(FdwRoutine *routine);
extern void wc_cells_check_reads(WcTable *t);
extern bool wc_cells_scan_read(ForeignScanState *node, uint64 *versions, uint64 *entries);

/* in cellwrite.c */
extern void wc_cells_modify_register(FdwRoutine *routine);

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

#endif							/* WC_FDW_CELLS_H */
