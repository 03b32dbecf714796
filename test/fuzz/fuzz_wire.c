/*-------------------------------------------------------------------------
 *
 * fuzz_wire.c
 *	  libFuzzer harness of the storage worker's request decoding: the
 *	  WcReader of src/common/wire.h and the structural checks of src/common/wire.c.
 *
 *		clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *			test/fuzz/fuzz_wire.c src/common/wire.c src/common/keycodec.c
 *
 * An input is one whole request as a backend sends it (type byte first,
 * src/common/wire.h), and the harness reads it as serve_request in worker.c does:
 *
 *  - WRITE: u32 db, then wc_check_write on the rest.  When the check
 *	  accepts, the rows are walked again exactly as cells_commit walks them
 *	  (str table+rowkey, u8 deleted, u32 ncells {str fq, u8 tag, str value}),
 *	  and that walk must never find the message short (r.bad), every prefix
 *	  must be exactly two escaped components and every fq two more with a
 *	  non-empty family, tags must be valid, and every key cells_commit would
 *	  build (prefix | fq | timestamp, and the row tombstone's) must have the
 *	  layout parse_key in cells.c accepts.  The rows up to any row boundary
 *	  must pass the check too.
 *
 *  - SCAN: u32 db, u32 snapshot, u32 scan, u8 reverse, u64 limit, then
 *	  wc_check_scan on the rest.  When it accepts, the rest is read again as
 *	  cells_scan_open reads it, which must not find it short, and every
 *	  column must be two escaped components.
 *
 *  - any other type byte: the remaining bytes go to both checks directly,
 *	  and the fixed-layout requests (OPEN, ESTIMATE, ...) are read as the
 *	  worker reads them, so the reader itself is exercised.
 *
 * libFuzzer hands over a buffer of exactly the input's size, so
 * AddressSanitizer reports any read past the end of the message.
 *
 *-------------------------------------------------------------------------
 */
#include "common/keycodec.h"
#include "common/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "fuzz_wire: %s:%d: check failed: %s\n", \
					__FILE__, __LINE__, #cond); \
			abort(); \
		} \
	} while (0)

/* cells.c */
static const uint8_t row_tombstone_fq[] = {0x00, 0x01, 0x00, 0x01};

/* s is exactly n components (wire.c's own test, redone independently) */
static int
n_components(const uint8_t *s, size_t len, int n)
{
	size_t		pos = 0;

	for (int i = 0; i < n; i++)
	{
		size_t		c = 0,
					c2 = 0,
					olen = 0;
		uint8_t    *out = malloc(len - pos + 1);
		int			r1,
					r2;

		CHECK(out != NULL);
		r1 = wc_component_end(s + pos, len - pos, &c);
		r2 = wc_unescape(s + pos, len - pos, out, &c2, &olen);
		free(out);
		CHECK(r1 == r2);
		if (r1 != 0)
			return 0;
		CHECK(c == c2 && c <= len - pos);
		pos += c;
	}
	return pos == len;
}

/* parse_key of cells.c must accept what cells_commit writes */
static void
check_stored_key(const uint8_t *prefix, size_t plen,
				 const uint8_t *fq, size_t fqlen)
{
	size_t		n = plen + fqlen + WC_TS_LEN;
	uint8_t    *k = malloc(n);
	size_t		pos = 0;

	CHECK(k != NULL);
	memcpy(k, prefix, plen);
	memcpy(k + plen, fq, fqlen);
	wc_encode_ts(1614945840000000ULL, k + plen + fqlen);
	for (int part = 0; part < 4; part++)
	{
		size_t		c;

		CHECK(wc_component_end(k + pos, n - pos, &c) == 0);
		pos += c;
		if (part == 1)
			CHECK(pos == plen);
	}
	CHECK(n - pos == WC_TS_LEN);
	free(k);
}

/* The span wc_check_write gave for the request walk_write reads. */
static WcRowSpan walk_span;

/*
 * The rows of an accepted WRITE, walked as cells_commit walks them.
 * Returns the offset of the end of the first row (0 if none).
 */
static size_t
walk_write(const uint8_t *data, size_t len)
{
	WcReader	r;
	size_t		first_row_end = 0;

	wc_reader_init(&r, data, len);
	while (!r.bad && wc_reader_left(&r) > 0)
	{
		size_t		plen;
		const uint8_t *prefix = wc_get_str(&r, &plen);
		uint8_t		deleted = wc_get_u8(&r);
		uint32_t	ncells = wc_get_u32(&r);

		CHECK(!r.bad);
		CHECK(prefix != NULL);
		CHECK(deleted == 0 || deleted == 1);
		CHECK(n_components(prefix, plen, 2));
		/* every row lies within the span wc_check_write found */
		CHECK(wc_compare_bytes(prefix, plen, walk_span.lowest, walk_span.lowest_len) >= 0);
		CHECK(wc_compare_bytes(prefix, plen, walk_span.highest, walk_span.highest_len) <= 0);
		if (deleted)
			check_stored_key(prefix, plen, row_tombstone_fq, sizeof(row_tombstone_fq));
		for (uint32_t i = 0; i < ncells && !r.bad; i++)
		{
			size_t		fqlen,
						vlen;
			const uint8_t *fq = wc_get_str(&r, &fqlen);
			uint8_t		tag = wc_get_u8(&r);
			const uint8_t *v = wc_get_str(&r, &vlen);

			CHECK(!r.bad);
			CHECK(fq != NULL && v != NULL);
			CHECK(n_components(fq, fqlen, 2));
			/* a cell never looks like the row tombstone: its family is not empty */
			CHECK(!(fqlen >= 2 && fq[0] == 0x00 && fq[1] == 0x01));
			CHECK(tag == WC_VALUE_PRESENT || tag == WC_VALUE_TOMBSTONE);
			CHECK(tag == WC_VALUE_PRESENT || vlen == 0);
			CHECK(vlen <= WC_MAX_VALUE);
			CHECK(v + vlen <= data + len);
			check_stored_key(prefix, plen, fq, fqlen);
		}
		CHECK(!r.bad);
		if (first_row_end == 0)
			first_row_end = (size_t) (r.p - data);
	}
	CHECK(!r.bad);
	CHECK(wc_reader_left(&r) == 0);
	return first_row_end;
}

/* An accepted SCAN's rest, read again as cells_scan_open reads it. */
static void
walk_scan(const uint8_t *data, size_t len)
{
	WcReader	r;
	int			ncols;
	uint32_t	nranges;

	wc_reader_init(&r, data, len);
	ncols = wc_get_u16(&r);
	CHECK(!r.bad);
	CHECK(ncols <= WC_MAX_SCAN_COLUMNS);
	for (int i = 0; i < ncols; i++)
	{
		size_t		l;
		const uint8_t *c = wc_get_str(&r, &l);

		CHECK(!r.bad && c != NULL);
		CHECK(n_components(c, l, 2));
	}
	nranges = wc_get_u32(&r);
	CHECK(!r.bad);
	CHECK((size_t) nranges <= wc_reader_left(&r) / 8);
	/* cells_scan_open counts ranges in an int */
	CHECK(nranges <= (uint32_t) 0x7FFFFFFF);
	for (int i = 0; i < (int) nranges; i++)
	{
		size_t		sl,
					el;
		const uint8_t *s = wc_get_str(&r, &sl);
		const uint8_t *e = wc_get_str(&r, &el);

		CHECK(!r.bad && s != NULL && e != NULL);
	}
	CHECK(wc_reader_left(&r) == 0);
}

static void
write_request(const uint8_t *rest, size_t len)
{
	WcRowSpan	span;
	int			ok = wc_check_write(rest, len, &span);

	CHECK(ok == 0 || ok == -1);
	if (ok == 0)
	{
		size_t		first;

		walk_span = span;
		first = walk_write(rest, len);

		/* the span lies within the request and is ordered */
		CHECK((span.lowest == NULL) == (span.highest == NULL));
		CHECK((span.lowest == NULL) == (len == 0));
		if (span.lowest != NULL)
		{
			CHECK(span.lowest >= rest && span.lowest + span.lowest_len <= rest + len);
			CHECK(span.highest >= rest && span.highest + span.highest_len <= rest + len);
			CHECK(wc_compare_bytes(span.lowest, span.lowest_len,
								   span.highest, span.highest_len) <= 0);
		}

		/* whole rows at the front are a valid request on their own */
		if (first > 0)
		{
			uint8_t    *copy = malloc(first);

			CHECK(copy != NULL);
			memcpy(copy, rest, first);
			CHECK(wc_check_write(copy, first, NULL) == 0);
			free(copy);
		}
	}
}

static void
scan_request(const uint8_t *rest, size_t len)
{
	int			ok = wc_check_scan(rest, len);

	CHECK(ok == 0 || ok == -1);
	if (ok == 0)
		walk_scan(rest, len);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	WcReader	r;
	uint8_t		type;

	wc_reader_init(&r, data, size);
	type = wc_get_u8(&r);
	switch (type)
	{
		case WC_REQ_WRITE:
			(void) wc_get_u32(&r);	/* db */
			if (!r.bad)
				write_request(r.p, wc_reader_left(&r));
			break;

		case WC_REQ_SCAN:
			(void) wc_get_u32(&r);	/* db */
			(void) wc_get_u32(&r);	/* snapshot */
			(void) wc_get_u32(&r);	/* scan */
			(void) wc_get_u8(&r);	/* reverse */
			(void) wc_get_u64(&r);	/* limit */
			if (!r.bad)
				scan_request(r.p, wc_reader_left(&r));
			break;

		case WC_REQ_OPEN:
			{
				size_t		plen;

				(void) wc_get_str(&r, &plen);
				(void) wc_get_u32(&r);
				(void) wc_get_u32(&r);
				(void) wc_get_u32(&r);
				(void) wc_get_u8(&r);
				CHECK(r.bad || r.p <= r.end);
				break;
			}

		case WC_REQ_ESTIMATE:
			{
				uint32_t	n;

				(void) wc_get_u32(&r);	/* db */
				n = wc_get_u32(&r);
				for (uint32_t i = 0; i < n && !r.bad; i++)
				{
					size_t		sl,
								el;

					(void) wc_get_str(&r, &sl);
					(void) wc_get_str(&r, &el);
				}
				CHECK(r.bad || r.p <= r.end);
				break;
			}

		default:
			/* the payload alone, whichever check it may pass */
			if (!r.bad)
			{
				write_request(r.p, wc_reader_left(&r));
				scan_request(r.p, wc_reader_left(&r));
			}
			break;
	}
	return 0;
}
