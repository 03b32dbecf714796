/*-------------------------------------------------------------------------
 *
 * cells.h
 *	  The cells layout (a foreign table with OPTIONS (layout 'cells'): a row
 *	  per cell version): its columns, its plan's fdw_private, and the entry
 *	  points of its phases.
 *
 * cellroute.c hands a cells-layout table's callbacks to cellplan.c
 * (planning, EXPLAIN), cellrows.c (the scan) and cellwrite.c (INSERT,
 * UPDATE, DELETE); the transaction's log of cell versions they write is
 * xact's (celllog.c), and the mapped layout's files do not know about
 * this one.  It sits above the executor, whose row-identity and range
 * DELETE it reuses.
 *
 * A small circle stays inside: EXPLAIN ANALYZE of a cells scan
 * (cellplan.c) asks the scan what it read (cellrows.c), and the scan reads
 * the table's columns as cellplan.c finds them (wc_cells_table).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_CELLS_CELLS_H
#define WC_FDW_CELLS_CELLS_H

#include "commands/explain.h"
#include "nodes/execnodes.h"

#include "fdw/fdw.h"
#include "fdw/xact/xact.h"

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
extern bool wc_cells_scan_read(ForeignScanState *node, uint64 *versions, uint64 *entries,
							   uint64 *requests);

/* in cellwrite.c */
extern void wc_cells_modify_register(FdwRoutine *routine);

#endif							/* WC_FDW_CELLS_CELLS_H */
