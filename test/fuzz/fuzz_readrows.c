/*-------------------------------------------------------------------------
 *
 * fuzz_readrows.c
 *	  libFuzzer harness of src/worker/bigtable/readrows.c: Bigtable's
 *	  ReadRows cell chunks merged into rows.
 *
 *		clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *			test/fuzz/fuzz_readrows.c src/worker/bigtable/readrows.c \
 *			src/common/bytebuf.c src/common/keycodec.c
 *
 * The first byte chooses how the rest is read:
 *
 *  - even: as arbitrary chunks (a flags byte, then the lengths and bytes of
 *	  the fields it sets), the way a broken or hostile server could send
 *	  them.  Whatever the merger says must hold together: rows in strict key
 *	  order (descending for a reversed read), each with a cell, every part
 *	  of it inside the row's arena; an error stays an error.
 *
 *  - odd: as the recipe of a valid stream: rows of cells whose values are
 *	  split over chunks at places the input chooses, with resets that
 *	  discard part of a row before it is sent again whole.  The merger must
 *	  give back exactly the rows of the recipe, and no error.
 *
 * A violated property prints what failed and aborts, which libFuzzer
 * reports as a crash.
 *
 *-------------------------------------------------------------------------
 */
#include "worker/bigtable/readrows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/keycodec.h"

#define CHECK(cond) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "fuzz_readrows: %s:%d: check failed: %s\n", \
					__FILE__, __LINE__, #cond); \
			abort(); \
		} \
	} while (0)

typedef struct Input
{
	const uint8_t *p;
	size_t		n;
} Input;

static uint8_t
take(Input *in)
{
	if (in->n == 0)
		return 0;
	in->n--;
	return *in->p++;
}

/* Up to len bytes of the input, as a field's bytes. */
static const uint8_t *
take_bytes(Input *in, size_t len, size_t *got)
{
	const uint8_t *p = in->p;

	*got = len < in->n ? len : in->n;
	in->p += *got;
	in->n -= *got;
	return p;
}

/* The row just ended holds together, and follows the one before. */
static void
check_row(const WcBtRows *r, WcByteBuf *last, bool *have_last)
{
	CHECK(r->key.len > 0);
	CHECK(r->ncells > 0);
	for (int i = 0; i < r->ncells; i++)
	{
		const WcBtCell *c = &r->cells[i];

		CHECK(c->family_off + c->family_len <= r->arena.len);
		CHECK(c->qualifier_off + c->qualifier_len <= r->arena.len);
		CHECK(c->value_off + c->value_len <= r->arena.len);
	}
	if (*have_last)
	{
		int			cmp = wc_compare_bytes(r->key.data, r->key.len, last->data, last->len);

		CHECK(r->reversed ? cmp < 0 : cmp > 0);
	}
	wc_bytebuf_set(last, r->key.data, r->key.len);
	*have_last = true;
}

static void
arbitrary_chunks(Input *in, bool reversed)
{
	WcBtRows	r;
	WcByteBuf	last = {0};
	bool		have_last = false;
	bool		bad = false;

	wc_bt_rows_init(&r, reversed);
	while (in->n > 0)
	{
		uint8_t		flags = take(in);
		WcBtChunk	c;
		int			res;

		memset(&c, 0, sizeof(c));
		if (flags & 0x01)
			c.row_key = take_bytes(in, take(in) % 8, &c.row_key_len);
		if (flags & 0x02)
		{
			c.has_family = true;
			c.family = take_bytes(in, take(in) % 4, &c.family_len);
		}
		if (flags & 0x04)
		{
			c.has_qualifier = true;
			c.qualifier = take_bytes(in, take(in) % 4, &c.qualifier_len);
		}
		if (flags & 0x08)
			c.timestamp_micros = (int8_t) take(in);
		c.value = take_bytes(in, take(in) % 16, &c.value_len);
		if (flags & 0x10)
			c.value_size = (int8_t) take(in);
		c.reset_row = (flags & 0x20) != 0;
		c.commit_row = (flags & 0x40) != 0;
		c.has_labels = (flags & 0x80) != 0;

		res = wc_bt_rows_chunk(&r, &c);
		CHECK(res == WC_BT_MORE || res == WC_BT_ROW || res == WC_BT_BAD);
		if (bad)
			CHECK(res == WC_BT_BAD);
		if (res == WC_BT_BAD)
		{
			CHECK(r.error[0] != '\0');
			bad = true;
		}
		if (res == WC_BT_ROW)
			check_row(&r, &last, &have_last);
	}
	if (bad)
		CHECK(wc_bt_rows_end(&r) == WC_BT_BAD);
	else
		(void) wc_bt_rows_end(&r);
	wc_bt_rows_free(&r);
	wc_bytebuf_free(&last);
}

/* A cell of the recipe, and what the merger must give back of it. */
typedef struct Cell
{
	uint8_t		family;			/* 'a' + 0..2 */
	uint8_t		qualifier;
	int64_t		ts;
	uint8_t		value[24];
	size_t		len;
} Cell;

/* Send the cells of a row as chunks; split values where the input says. */
static int
send_row(WcBtRows *r, Input *in, const uint8_t *key, size_t keylen,
		 const Cell *cells, int ncells, bool commit)
{
	int			res = WC_BT_MORE;

	for (int i = 0; i < ncells; i++)
	{
		size_t		sent = 0;
		bool		first_chunk = true;

		do
		{
			WcBtChunk	c;
			size_t		piece = cells[i].len - sent;
			uint8_t		fam = cells[i].family;
			uint8_t		qual = cells[i].qualifier;

			if (piece > 0 && (take(in) & 1))
				piece = 1 + take(in) % piece;
			memset(&c, 0, sizeof(c));
			if (first_chunk)
			{
				if (i == 0)
				{
					c.row_key = key;
					c.row_key_len = keylen;
				}
				/* name the family when it changes (always on the first cell) */
				if (i == 0 || cells[i - 1].family != fam)
				{
					c.has_family = true;
					c.family = &fam;
					c.family_len = 1;
				}
				c.has_qualifier = true;
				c.qualifier = &qual;
				c.qualifier_len = 1;
				c.timestamp_micros = cells[i].ts;
			}
			c.value = cells[i].value + sent;
			c.value_len = piece;
			sent += piece;
			c.value_size = sent < cells[i].len ? (int32_t) cells[i].len : 0;
			c.commit_row = commit && i == ncells - 1 && sent == cells[i].len;
			res = wc_bt_rows_chunk(r, &c);
			CHECK(res != WC_BT_BAD);
			first_chunk = false;
		} while (sent < cells[i].len);
	}
	return res;
}

static void
valid_stream(Input *in, bool reversed)
{
	WcBtRows	r;
	int			nrows = 1 + take(in) % 6;
	uint8_t		key[8];
	size_t		keylen = 1;

	wc_bt_rows_init(&r, reversed);
	for (int row = 0; row < nrows; row++)
	{
		Cell		cells[6];
		int			ncells = 1 + take(in) % 6;
		int			res;

		/* keys ascend by their first byte, or descend for a reversed read */
		key[0] = (uint8_t) (reversed ? 250 - row * 10 : 10 + row * 10);
		keylen = 1 + take(in) % 4;
		for (size_t i = 1; i < keylen; i++)
			key[i] = take(in);
		for (int i = 0; i < ncells; i++)
		{
			cells[i].family = (uint8_t) ('a' + take(in) % 3);
			cells[i].qualifier = take(in);
			cells[i].ts = (int64_t) take(in) * 1000;
			cells[i].len = take(in) % sizeof(cells[i].value);
			for (size_t j = 0; j < cells[i].len; j++)
				cells[i].value[j] = take(in);
		}
		/* part of the row, then a reset, then the whole row */
		if (take(in) & 1)
		{
			int			partial = 1 + take(in) % ncells;

			CHECK(send_row(&r, in, key, keylen, cells, partial, false) == WC_BT_MORE);
			{
				WcBtChunk	reset;

				memset(&reset, 0, sizeof(reset));
				reset.reset_row = true;
				CHECK(wc_bt_rows_chunk(&r, &reset) == WC_BT_MORE);
			}
		}
		res = send_row(&r, in, key, keylen, cells, ncells, true);
		CHECK(res == WC_BT_ROW);
		CHECK(r.key.len == keylen && memcmp(r.key.data, key, keylen) == 0);
		CHECK(r.ncells == ncells);
		for (int i = 0; i < ncells; i++)
		{
			const WcBtCell *c = &r.cells[i];

			CHECK(c->family_len == 1 && r.arena.data[c->family_off] == cells[i].family);
			CHECK(c->qualifier_len == 1 && r.arena.data[c->qualifier_off] == cells[i].qualifier);
			CHECK(c->timestamp_micros == cells[i].ts);
			CHECK(c->value_len == cells[i].len);
			CHECK(cells[i].len == 0 ||
				  memcmp(r.arena.data + c->value_off, cells[i].value, cells[i].len) == 0);
		}
	}
	CHECK(wc_bt_rows_end(&r) == WC_BT_MORE);
	wc_bt_rows_free(&r);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		in = {data, size};
	uint8_t		mode = take(&in);

	if (mode & 1)
		valid_stream(&in, (mode & 2) != 0);
	else
		arbitrary_chunks(&in, (mode & 2) != 0);
	return 0;
}
