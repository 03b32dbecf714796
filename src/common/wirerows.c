/*-------------------------------------------------------------------------
 *
 * wirerows.c
 *	  The rows of a WRITE request (wire.h has their layout): written by the
 *	  backend's commit, checked cell by cell by the worker's reader, walked
 *	  again by the commit that applies them.
 *
 * Part of wire.c's format, in a file of its own for its size; it builds
 * the same way (FRONTEND for the fuzzer).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "common/aggfold.h"
#include "common/keycodec.h"
#include "common/wire.h"
#include "common/wire_int.h"

/*
 * wc_write_row, wc_write_row_cell
 *		Append a row of a WRITE request to rows (the row, then each of its
 *		ncells cells).  A NULL value deletes the cell.
 */
void
wc_write_row(StringInfo rows, const uint8 *prefix, size_t prefix_len,
			 bool deleted, uint32 ncells)
{
	wc_put_bytes(rows, prefix, prefix_len);
	appendStringInfoChar(rows, deleted ? WC_ROW_DELETED : 0);
	wc_put_u32(rows, ncells);
}

/*
 * wc_write_row_read
 *		A row the transaction read at version under an UPDATE's or DELETE's
 *		lock: its writes apply only if it has no newer cell (WC_ROW_READ).
 */
void
wc_write_row_read(StringInfo rows, const uint8 *prefix, size_t prefix_len,
				  bool deleted, uint64 version, uint32 ncells)
{
	wc_put_bytes(rows, prefix, prefix_len);
	appendStringInfoChar(rows, WC_ROW_READ | (deleted ? WC_ROW_DELETED : 0));
	appendBinaryStringInfo(rows, (const char *) &version, 8);
	wc_put_u32(rows, ncells);
}

void
wc_write_row_cell(StringInfo rows, const uint8 *famqual, size_t famqual_len,
				  const uint8 *value, size_t value_len)
{
	wc_put_bytes(rows, famqual, famqual_len);
	appendStringInfoChar(rows, value != NULL ? WC_VALUE_PRESENT : WC_VALUE_TOMBSTONE);
	if (value != NULL)
		wc_put_bytes(rows, value, value_len);
	else
		wc_put_u32(rows, 0);
}

/* A cell of a row: a merge (aggfold.h's tag) of an 8-byte operand. */
void
wc_write_row_cell_merge(StringInfo rows, const uint8 *famqual, size_t famqual_len,
						uint8 tag, const uint8 *operand)
{
	wc_put_bytes(rows, famqual, famqual_len);
	appendStringInfoChar(rows, (char) tag);
	wc_put_bytes(rows, operand, WC_AGG_LEN);
}

/*
 * wc_write_row_cell_at
 *		A cell of a row: the version at ts, or with value NULL the removal
 *		of exactly that version.
 */
void
wc_write_row_cell_at(StringInfo rows, const uint8 *famqual, size_t famqual_len,
					 const uint8 *value, size_t value_len, uint64 ts)
{
	wc_put_bytes(rows, famqual, famqual_len);
	appendStringInfoChar(rows, value != NULL ? WC_WRITE_PUT_AT : WC_WRITE_DELETE_AT);
	wc_put_u32(rows, (uint32) (8 + (value != NULL ? value_len : 0)));
	appendBinaryStringInfo(rows, (const char *) &ts, 8);
	if (value != NULL)
		appendBinaryStringInfo(rows, (const char *) value, value_len);
}

/* A cell of a row: the removal of the version this commit writes. */
void
wc_write_row_cell_remove_now(StringInfo rows, const uint8 *famqual, size_t famqual_len)
{
	wc_put_bytes(rows, famqual, famqual_len);
	appendStringInfoChar(rows, WC_WRITE_DELETE_NOW);
	wc_put_u32(rows, 0);
}

/* A WRITE request: the rows, which must hold whole rows. */
void
wc_write_write(StringInfo buf, uint32 db, const StringInfo rows)
{
	begin(buf, WC_REQ_WRITE);
	wc_put_u32(buf, db);
	appendBinaryStringInfo(buf, rows->data, rows->len);
}

/*
 * wc_next_row, wc_next_row_cell
 *		The next row of a WRITE request's rows, and its cells, without the
 *		checks: for rows wc_read_write has already accepted (the commit
 *		walks them again, and a bulk load has millions of cells).
 */
bool
wc_next_row(WcReader *rows, WcRowWrite *row)
{
	uint8		flags;

	if (rows->bad || wc_reader_left(rows) == 0)
		return false;
	row->prefix = wc_get_bytes(rows);
	flags = wc_get_u8(rows);
	row->deleted = (flags & WC_ROW_DELETED) != 0;
	row->read = (flags & WC_ROW_READ) != 0;
	row->read_version = row->read ? wc_get_u64(rows) : 0;
	row->ncells = wc_get_u32(rows);
	return !rows->bad;
}

bool
wc_next_row_cell(WcReader *rows, WcCellWrite *cell)
{
	uint8		tag;

	cell->famqual = wc_get_bytes(rows);
	tag = wc_get_u8(rows);
	cell->value = wc_get_bytes(rows);
	cell->present = tag == WC_VALUE_PRESENT || tag == WC_WRITE_PUT_AT ||
		wc_agg_is_merge(tag);
	cell->merge = wc_agg_is_merge(tag) ? tag : 0;
	cell->exact = tag == WC_WRITE_PUT_AT || tag == WC_WRITE_DELETE_AT ||
		tag == WC_WRITE_DELETE_NOW;
	cell->now = tag == WC_WRITE_DELETE_NOW;
	cell->ts = 0;
	if (cell->exact && !cell->now && cell->value.len >= 8)
	{
		memcpy(&cell->ts, cell->value.data, 8);
		cell->value.data += 8;
		cell->value.len -= 8;
	}
	return !rows->bad;
}

/*
 * wc_read_row
 *		The next row of a WRITE request's rows, checked; false at their end,
 *		or if the row is malformed (then rows->bad is set).  Its ncells
 *		cells follow, read with wc_read_row_cell.
 */
bool
wc_read_row(WcReader *rows, WcRowWrite *row)
{
	const uint8 *start = rows->p;

	if (!wc_next_row(rows, row))
		return false;
	/* no flag but WC_ROW_* */
	if ((start[4 + row->prefix.len] & ~(WC_ROW_DELETED | WC_ROW_READ)) != 0 ||
		!components(row->prefix, 2) ||
		row->prefix.len > WC_ESCAPED_MAX(WC_MAX_ROWKEY) + WC_ESCAPED_MAX(WC_MAX_QUALIFIER))
		return fail(rows);
	/* each cell takes at least nine bytes: a count beyond that is a lie */
	if (row->ncells > wc_reader_left(rows) / 9)
		return fail(rows);
	return true;
}

bool
wc_read_row_cell(WcReader *rows, WcCellWrite *cell)
{
	const uint8 *start = rows->p;
	uint8		tag;
	uint32		rawlen;

	if (!wc_next_row_cell(rows, cell))
		return false;
	tag = start[4 + cell->famqual.len];
	if (!components(cell->famqual, 2))
		return fail(rows);
	/* an empty family is the row tombstone's */
	if (cell->famqual.len >= 2 && cell->famqual.data[0] == 0x00 &&
		cell->famqual.data[1] == 0x01)
		return fail(rows);
	if (tag != WC_VALUE_PRESENT && tag != WC_VALUE_TOMBSTONE &&
		tag != WC_WRITE_PUT_AT && tag != WC_WRITE_DELETE_AT && tag != WC_WRITE_DELETE_NOW &&
		!wc_agg_is_merge(tag))
		return fail(rows);
	/* a merge's operand is a 64-bit integer */
	if (cell->merge != 0 && cell->value.len != WC_AGG_LEN)
		return fail(rows);
	/* an exact cell's value starts with its timestamp */
	memcpy(&rawlen, start + 4 + cell->famqual.len + 1, 4);
	if (cell->exact && !cell->now && rawlen < 8)
		return fail(rows);
	if (!cell->present && cell->value.len != 0)
		return fail(rows);
	if (cell->value.len > WC_MAX_VALUE)
		return fail(rows);
	return true;
}

/* Make *bound b if it is unset or b is on the side (-1 below, 1 above) of it. */
static void
widen(WcBytes *bound, WcBytes b, int side)
{
	if (bound->data == NULL ||
		wc_compare_bytes(b.data, b.len, bound->data, bound->len) * side > 0)
		*bound = b;
}

/*
 * wc_read_write
 *		Read a WRITE request, checking every row and cell, and find the
 *		lowest and highest row prefix in it.
 */
bool
wc_read_write(WcReader *r, WcWriteRequest *req)
{
	WcReader	rows;
	WcRowWrite	row;

	req->lowest.data = req->highest.data = NULL;
	req->lowest.len = req->highest.len = 0;
	req->exact = false;
	req->exact_lowest.data = req->exact_highest.data = NULL;
	req->exact_lowest.len = req->exact_highest.len = 0;
	if (!expect_type(r, WC_REQ_WRITE))
		return fail(r);
	req->db = wc_get_u32(r);
	if (r->bad)
		return false;
	req->rows.data = r->p;
	req->rows.len = wc_reader_left(r);
	r->p = r->end;

	wc_reader_init(&rows, req->rows.data, req->rows.len);
	while (wc_read_row(&rows, &row))
	{
		bool		exact = false;

		widen(&req->lowest, row.prefix, -1);
		widen(&req->highest, row.prefix, 1);
		for (uint32 i = 0; i < row.ncells; i++)
		{
			WcCellWrite cell;

			if (!wc_read_row_cell(&rows, &cell))
				break;
			exact |= cell.exact;
		}
		if (exact)
		{
			widen(&req->exact_lowest, row.prefix, -1);
			widen(&req->exact_highest, row.prefix, 1);
		}
		req->exact |= exact;
	}
	if (rows.bad)
		return fail(r);
	return true;
}
