/*-------------------------------------------------------------------------
 *
 * readrows.h
 *	  Bigtable's ReadRows answer, chunk by chunk, merged into rows: the
 *	  state machine a client of Bigtable's v2 API must run (readrows.c).
 *
 * Bigtable streams a read as cell chunks: a chunk that starts a row names
 * its key, family and qualifier; later chunks of the row name a new family
 * or qualifier only when they change; a value too large for one chunk is
 * split over several (value_size, on every chunk but the last, says so); a
 * chunk may end the row (commit_row) or discard what the row has so far
 * (reset_row, which comes alone).  Rows come in key order (reversed: the
 * other way), each once.  What breaks those rules is an error, and so is a
 * stream that ends inside a row.
 *
 * Plain C, no PostgreSQL, so that the threads of the Bigtable engine, its
 * unit test (test/readrows_test.c) and its fuzzer (test/fuzz/fuzz_readrows.c)
 * can run it.  The chunks come decoded from the wire by the caller.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_READROWS_H
#define WC_READROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/bytebuf.h"

/*
 * A cell chunk (google.bigtable.v2.ReadRowsResponse.CellChunk).  row_key
 * is set when it is not empty (a bytes field); family and qualifier are
 * wrappers, set or not; labels count only as there or not.
 */
typedef struct WcBtChunk
{
	const uint8_t *row_key;
	size_t		row_key_len;
	bool		has_family;
	const uint8_t *family;
	size_t		family_len;
	bool		has_qualifier;
	const uint8_t *qualifier;
	size_t		qualifier_len;
	int64_t		timestamp_micros;
	bool		has_labels;
	const uint8_t *value;
	size_t		value_len;
	int32_t		value_size;		/* > 0: the value goes on in the next chunk */
	bool		reset_row;
	bool		commit_row;
} WcBtChunk;

/* A cell of a merged row: its parts are in the row's arena. */
typedef struct WcBtCell
{
	size_t		family_off;
	size_t		family_len;
	size_t		qualifier_off;
	size_t		qualifier_len;
	int64_t		timestamp_micros;
	size_t		value_off;
	size_t		value_len;
} WcBtCell;

/* What wc_bt_rows_chunk says of a chunk */
#define WC_BT_MORE		0		/* taken; the row goes on */
#define WC_BT_ROW		1		/* it ended a row: key, cells and arena hold it */
#define WC_BT_BAD		(-1)	/* against the rules: error says which */

typedef struct WcBtRows
{
	bool		reversed;		/* rows come in descending key order */
	int			state;			/* readrows.c's */
	bool		have_last;
	WcByteBuf	last_key;		/* the last row ended */
	WcByteBuf	key;			/* the row under way, or just ended */
	WcByteBuf	arena;			/* its cells' families, qualifiers and values */
	WcBtCell   *cells;
	int			ncells;
	int			cap;
	/* the cell under way */
	WcByteBuf	family;
	WcByteBuf	qualifier;
	int64_t		timestamp_micros;
	WcByteBuf	value;
	char		error[160];
} WcBtRows;

extern void wc_bt_rows_init(WcBtRows *r, bool reversed);
extern int	wc_bt_rows_chunk(WcBtRows *r, const WcBtChunk *c);
extern int	wc_bt_rows_end(WcBtRows *r);
extern void wc_bt_rows_free(WcBtRows *r);

#endif							/* WC_READROWS_H */
