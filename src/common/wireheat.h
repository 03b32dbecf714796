/*-------------------------------------------------------------------------
 *
 * wireheat.h
 *	  The messages of the key access heat map and the table statistics
 *	  (HEAT, STATS: their layout is in wire.h's WcMsgType), and the only
 *	  functions that read and write them (wireheat.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_WIREHEAT_H
#define WC_WIREHEAT_H

#include "common/wire.h"

/* The counters of a heat map's key range, in this order on the wire. */
typedef enum WcHeatCounter
{
	WC_HEAT_READS,				/* rows returned */
	WC_HEAT_SCANNED,			/* LevelDB entries walked */
	WC_HEAT_WRITES,				/* entries written: cells and tombstones */
	WC_HEAT_BYTES_READ,			/* bytes of the rows returned */
	WC_HEAT_BYTES_WRITTEN,		/* bytes of the entries written */
	WC_HEAT_NCOUNTERS
} WcHeatCounter;

/* The counters of a table (widecolumn.stat_tables), in this order. */
typedef enum WcStatCounter
{
	WC_STAT_READS,
	WC_STAT_ROWS_SCANNED,
	WC_STAT_ENTRIES_SCANNED,
	WC_STAT_CELLS_WRITTEN,
	WC_STAT_TOMBSTONES_WRITTEN,
	WC_STAT_GC_REMOVED,
	WC_STAT_NCOUNTERS
} WcStatCounter;

typedef struct WcHeatRequest
{
	uint32		db;
	WcBytes		table;			/* escaped */
	uint64		since;			/* columns that end after it */
} WcHeatRequest;

typedef struct WcStatsRequest
{
	uint32		db;
	bool		reset;
} WcStatsRequest;

/* A column of a HEAT answer: its ranges' start keys and counters. */
typedef struct WcHeatAnswerColumn
{
	uint64		start;
	int			nranges;
	WcBytes    *keys;
	uint64	   *counters;		/* WC_HEAT_NCOUNTERS a range */
} WcHeatAnswerColumn;

/* A table of a STATS answer. */
typedef struct WcStatsAnswerTable
{
	WcBytes		table;			/* escaped */
	uint64		totals[WC_STAT_NCOUNTERS];
	uint64		approx_bytes;
	uint64		last_sweep;		/* µs since the Unix epoch; 0: none */
	uint64		stats_reset;
} WcStatsAnswerTable;

extern void wc_write_heat(StringInfo buf, const WcHeatRequest *req);
extern bool wc_read_heat(WcReader *r, WcHeatRequest *req);
extern void wc_write_heat_answer_begin(StringInfo buf, uint32 ncols);
extern void wc_write_heat_answer_column(StringInfo buf, uint64 start, uint32 nranges);
extern void wc_write_heat_answer_range(StringInfo buf, const uint8 *key, size_t klen,
									   const uint64 *counters);
extern bool wc_read_heat_answer(WcReader *r, int *ncols, WcHeatAnswerColumn **cols);

extern void wc_write_stats(StringInfo buf, const WcStatsRequest *req);
extern bool wc_read_stats(WcReader *r, WcStatsRequest *req);
extern void wc_write_stats_answer_begin(StringInfo buf, uint32 ntables);
extern void wc_write_stats_answer_table(StringInfo buf, const WcStatsAnswerTable *t);
extern bool wc_read_stats_answer(WcReader *r, int *ntables, WcStatsAnswerTable **tables);

#endif							/* WC_WIREHEAT_H */
