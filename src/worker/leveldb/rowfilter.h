/*-------------------------------------------------------------------------
 *
 * rowfilter.h
 *	  A scan's filters (WC_SCAN_FILTER), checked on each row's cells as
 *	  rowscan.c sends them.
 *
 * Plain C, for the reader threads: no PostgreSQL call but the palloc of
 * ldb_row_filter_new, made on the main thread when the scan opens.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_ROWFILTER_H
#define WC_ROWFILTER_H

#include "common/wire.h"

typedef struct WcRowFilter WcRowFilter;

extern WcRowFilter *ldb_row_filter_new(const WcScanRequest *req);
extern void ldb_row_filter_row_begin(WcRowFilter *f);
extern void ldb_row_filter_cell(WcRowFilter *f, int col, const uint8 *data, size_t len);
extern bool ldb_row_filter_passes(WcRowFilter *f);

#endif							/* WC_ROWFILTER_H */
