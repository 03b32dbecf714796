/*-------------------------------------------------------------------------
 *
 * readrows.c
 *	  Merging Bigtable's ReadRows cell chunks into rows (readrows.h).
 *
 * Three states: between rows, in a row (its last chunk ended a cell), in
 * a cell (its last chunk said more of the value follows).  Every chunk is
 * checked before it changes anything; after an error the merger stays in
 * error, as the stream it read is not one to go on with.  A row may hold
 * at most WC_MAX_ROW bytes of cells, as a commit may write (keycodec.h):
 * a larger one is an error, not an allocation without bound.
 *
 *-------------------------------------------------------------------------
 */
#include "worker/bigtable/readrows.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/keycodec.h"

#define BETWEEN_ROWS	0
#define IN_ROW			1
#define IN_CELL			2
#define FAILED			3

void
wc_bt_rows_init(WcBtRows *r, bool reversed)
{
	memset(r, 0, sizeof(*r));
	r->reversed = reversed;
	r->state = BETWEEN_ROWS;
}

void
wc_bt_rows_free(WcBtRows *r)
{
	wc_bytebuf_free(&r->last_key);
	wc_bytebuf_free(&r->key);
	wc_bytebuf_free(&r->arena);
	wc_bytebuf_free(&r->family);
	wc_bytebuf_free(&r->qualifier);
	wc_bytebuf_free(&r->value);
	free(r->cells);
	r->cells = NULL;
	r->ncells = r->cap = 0;
}

static int
fail(WcBtRows *r, const char *why)
{
	snprintf(r->error, sizeof(r->error), "%s", why);
	r->state = FAILED;
	return WC_BT_BAD;
}

/* Does c name any part of a cell's key (or its labels)? */
static bool
names_cell(const WcBtChunk *c)
{
	return c->row_key_len > 0 || c->has_family || c->has_qualifier ||
		c->timestamp_micros != 0 || c->has_labels;
}

/* The row under way goes: the next chunk starts a row again. */
static void
discard_row(WcBtRows *r)
{
	r->key.len = 0;
	r->arena.len = 0;
	r->ncells = 0;
	r->value.len = 0;
	r->state = BETWEEN_ROWS;
}

/* The cell under way is complete: into the row. */
static bool
end_cell(WcBtRows *r)
{
	WcBtCell   *cell;

	if (r->arena.len + r->family.len + r->qualifier.len + r->value.len > WC_MAX_ROW)
		return false;
	if (r->ncells == r->cap)
	{
		int			cap = r->cap < 8 ? 8 : r->cap * 2;
		WcBtCell   *grown = realloc(r->cells, sizeof(WcBtCell) * cap);

		if (grown == NULL)
			return false;
		r->cells = grown;
		r->cap = cap;
	}
	cell = &r->cells[r->ncells++];
	cell->family_off = r->arena.len;
	cell->family_len = r->family.len;
	wc_bytebuf_append(&r->arena, r->family.data, r->family.len);
	cell->qualifier_off = r->arena.len;
	cell->qualifier_len = r->qualifier.len;
	wc_bytebuf_append(&r->arena, r->qualifier.data, r->qualifier.len);
	cell->timestamp_micros = r->timestamp_micros;
	cell->value_off = r->arena.len;
	cell->value_len = r->value.len;
	wc_bytebuf_append(&r->arena, r->value.data, r->value.len);
	r->value.len = 0;
	return true;
}

/*
 * wc_bt_rows_chunk
 *		Take the next chunk of the stream: WC_BT_ROW when it ended a row
 *		(r->key, r->cells[0, r->ncells) and r->arena hold it until the next
 *		call), WC_BT_MORE, or WC_BT_BAD (r->error).
 */
int
wc_bt_rows_chunk(WcBtRows *r, const WcBtChunk *c)
{
	if (r->state == FAILED)
		return WC_BT_BAD;

	/* a reset comes alone; a row cannot end in the middle of a value */
	if (c->reset_row && (names_cell(c) || c->value_len > 0 || c->value_size != 0 ||
						 c->commit_row))
		return fail(r, "a reset_row chunk has other fields set");
	if (c->commit_row && c->value_size > 0)
		return fail(r, "a commit_row chunk says more of its value follows");
	if (c->value_size < 0)
		return fail(r, "a chunk has a negative value_size");

	switch (r->state)
	{
		case BETWEEN_ROWS:
			if (c->reset_row)
				return fail(r, "a reset_row chunk comes between rows");
			if (c->row_key_len == 0 || !c->has_family || !c->has_qualifier)
				return fail(r, "the first chunk of a row lacks its row key, family or qualifier");
			if (c->row_key_len > WC_MAX_ROWKEY)
				return fail(r, "a row key is longer than 4 KiB");
			if (r->have_last)
			{
				int			cmp = wc_compare_bytes(c->row_key, c->row_key_len,
												   r->last_key.data, r->last_key.len);

				if (cmp == 0)
					return fail(r, "a row key comes twice");
				if ((cmp < 0) != r->reversed)
					return fail(r, "a row key is out of order");
			}
			/* a new row: what the last one left goes */
			discard_row(r);
			wc_bytebuf_set(&r->key, c->row_key, c->row_key_len);
			break;
		case IN_ROW:
			if (c->reset_row)
			{
				discard_row(r);
				return WC_BT_MORE;
			}
			if (c->row_key_len > 0 &&
				(c->row_key_len != r->key.len || memcmp(c->row_key, r->key.data, r->key.len) != 0))
				return fail(r, "a chunk names another row key before its row is committed");
			if (c->has_family && !c->has_qualifier)
				return fail(r, "a chunk names a family without a qualifier");
			break;
		case IN_CELL:
			if (c->reset_row)
			{
				discard_row(r);
				return WC_BT_MORE;
			}
			if (names_cell(c))
				return fail(r, "a chunk that goes on with a split value names a cell");
			break;
	}

	/* a new cell: its key, what it does not name kept from the cell before */
	if (r->state != IN_CELL)
	{
		if (c->has_family)
			wc_bytebuf_set(&r->family, c->family, c->family_len);
		if (c->has_qualifier)
			wc_bytebuf_set(&r->qualifier, c->qualifier, c->qualifier_len);
		r->timestamp_micros = c->timestamp_micros;
		r->value.len = 0;
	}
	if (r->value.len + c->value_len > WC_MAX_ROW)
		return fail(r, "a row is larger than 256 MiB");
	wc_bytebuf_append(&r->value, c->value, c->value_len);
	if (c->value_size > 0)
	{
		r->state = IN_CELL;
		return WC_BT_MORE;
	}
	if (!end_cell(r))
		return fail(r, "a row is larger than 256 MiB");
	if (!c->commit_row)
	{
		r->state = IN_ROW;
		return WC_BT_MORE;
	}
	wc_bytebuf_set(&r->last_key, r->key.data, r->key.len);
	r->have_last = true;
	r->state = BETWEEN_ROWS;
	return WC_BT_ROW;
}

/* The stream ended: WC_BT_BAD if it ended inside a row (or had failed). */
int
wc_bt_rows_end(WcBtRows *r)
{
	if (r->state == FAILED)
		return WC_BT_BAD;
	if (r->state != BETWEEN_ROWS)
		return fail(r, "the stream ends inside a row");
	return WC_BT_MORE;
}
