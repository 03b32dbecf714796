/*-------------------------------------------------------------------------
 *
 * fuzz_keycodec.c
 *	  libFuzzer harness of src/common/keycodec.c: escaping, decoding, order,
 *	  prefixes, successors and timestamps.
 *
 *		clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *			test/fuzz/fuzz_keycodec.c src/common/keycodec.c
 *
 * Every input is used twice:
 *
 *  - as arbitrary bytes, the way the storage worker meets a LevelDB key it
 *	  did not write: wc_component_end and wc_unescape walk it component by
 *	  component (as parse_key and row_begin in rowscan.c do) and must agree on
 *	  every component, never read past the end, and decode only canonical
 *	  encodings;
 *
 *  - split into four length-prefixed pieces p0..p3 (one length byte each;
 *	  a length past the end takes what is left) and a tail: every piece
 *	  round-trips through wc_escape/wc_unescape; escaping keeps bytewise
 *	  order of single components, of (p0, p1) against (p2, p3) as table and
 *	  row key, and of whole keys with timestamps (newest first); wc_escape_body
 *	  is a prefix of wc_escape exactly when the raw bytes are a prefix; and
 *	  wc_successor gives the exclusive upper bound of a prefix range, both of
 *	  raw bytes and of a table's and a row-key prefix's escaped keys.
 *
 * Output buffers are allocated at exactly the size the codec should write,
 * so AddressSanitizer catches a byte too many.  A violated property prints
 * what failed and aborts, which libFuzzer reports as a crash.
 *
 *-------------------------------------------------------------------------
 */
#include "common/keycodec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "fuzz_keycodec: %s:%d: check failed: %s\n", \
					__FILE__, __LINE__, #cond); \
			abort(); \
		} \
	} while (0)

typedef struct Bytes
{
	const uint8_t *p;
	size_t		n;
} Bytes;

static int
sign(int c)
{
	return (c > 0) - (c < 0);
}

static void *
xmalloc(size_t n)
{
	/* malloc(0) may return NULL; one byte keeps pointers valid */
	void	   *p = malloc(n ? n : 1);

	CHECK(p != NULL);
	return p;
}

static int
is_prefix(Bytes a, Bytes b)
{
	return a.n <= b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

static size_t
zeros(Bytes b)
{
	size_t		z = 0;

	for (size_t i = 0; i < b.n; i++)
		z += b.p[i] == 0;
	return z;
}

/* escape(b), in a buffer of exactly the expected size */
static Bytes
escaped(Bytes b)
{
	size_t		want = b.n + zeros(b) + 2;
	uint8_t    *d = xmalloc(want);
	size_t		got = wc_escape(b.p, b.n, d);

	CHECK(got == want);
	CHECK(got <= WC_ESCAPED_MAX(b.n));
	return (Bytes) {d, got};
}

static Bytes
escaped_body(Bytes b)
{
	size_t		want = b.n + zeros(b);
	uint8_t    *d = xmalloc(want);
	size_t		got = wc_escape_body(b.p, b.n, d);

	CHECK(got == want);
	return (Bytes) {d, got};
}

static Bytes
concat(Bytes a, Bytes b)
{
	uint8_t    *d = xmalloc(a.n + b.n);

	if (a.n)
		memcpy(d, a.p, a.n);
	if (b.n)
		memcpy(d + a.n, b.p, b.n);
	return (Bytes) {d, a.n + b.n};
}

static void
release(Bytes b)
{
	free((void *) b.p);
}

static int
cmp(Bytes a, Bytes b)
{
	return sign(wc_compare_bytes(a.p, a.n, b.p, b.n));
}

/*
 * Decode one component of arbitrary bytes both ways; they must agree.
 * Returns the bytes consumed, or 0 when the component is malformed.
 */
static size_t
decode_one(const uint8_t *src, size_t n)
{
	/* exactly n bytes of input, so a read past them is caught */
	uint8_t    *in = xmalloc(n);
	uint8_t    *out = xmalloc(n);
	size_t		c1 = (size_t) -1,
				c2 = (size_t) -1,
				olen = (size_t) -1;
	int			r1,
				r2;

	if (n)
		memcpy(in, src, n);
	r1 = wc_component_end(in, n, &c1);
	r2 = wc_unescape(in, n, out, &c2, &olen);
	CHECK(r1 == 0 || r1 == -1);
	CHECK(r1 == r2);
	if (r1 == 0)
	{
		Bytes		raw = {out, olen};
		Bytes		again;

		CHECK(c1 == c2);
		CHECK(c1 >= 2 && c1 <= n);
		CHECK(olen <= c1 - 2);
		/* the terminator ends it, and nothing but the terminator does */
		CHECK(in[c1 - 2] == 0x00 && in[c1 - 1] == 0x01);
		/* only canonical encodings decode: re-escaping gives the input */
		again = escaped(raw);
		CHECK(again.n == c1 && memcmp(again.p, in, c1) == 0);
		release(again);
	}
	free(in);
	free(out);
	return r1 == 0 ? c1 : 0;
}

/* Arbitrary bytes, taken component by component as the worker does. */
static void
decode_stream(const uint8_t *data, size_t size)
{
	size_t		pos = 0;

	while (pos < size)
	{
		size_t		c = decode_one(data + pos, size - pos);

		if (c == 0)
			break;
		pos += c;
		CHECK(pos <= size);
	}
	/* an empty input is never a component */
	CHECK(decode_one(data, 0) == 0);
}

/* escape, then decode: the same bytes, all of the escaped form consumed */
static void
round_trip(Bytes b)
{
	Bytes		e = escaped(b);
	Bytes		body = escaped_body(b);
	uint8_t    *out = xmalloc(e.n);
	size_t		c1 = 0,
				c2 = 0,
				olen = 0;

	CHECK(wc_component_end(e.p, e.n, &c1) == 0);
	CHECK(c1 == e.n);
	CHECK(wc_unescape(e.p, e.n, out, &c2, &olen) == 0);
	CHECK(c2 == e.n);
	CHECK(olen == b.n);
	CHECK(b.n == 0 || memcmp(out, b.p, b.n) == 0);
	/* the body is the escaped form without its terminator */
	CHECK(body.n + 2 == e.n && (body.n == 0 || memcmp(body.p, e.p, body.n) == 0));
	/* a component followed by anything still ends at the same place */
	{
		Bytes		more = concat(e, b);

		CHECK(wc_component_end(more.p, more.n, &c1) == 0 && c1 == e.n);
		release(more);
	}
	/* cut short, it is never a complete component */
	for (size_t cut = e.n >= 4 ? e.n - 4 : 0; cut < e.n; cut++)
		CHECK(wc_component_end(e.p, cut, &c1) == -1);
	free(out);
	release(e);
	release(body);
}

/* Timestamps: a round trip, and a later time gives smaller bytes. */
static void
timestamps(Bytes tail)
{
	uint64_t	t1 = 0,
				t2 = 0;
	uint8_t		e1[WC_TS_LEN],
				e2[WC_TS_LEN];

	if (tail.n >= 8)
		memcpy(&t1, tail.p, 8);
	if (tail.n >= 16)
		memcpy(&t2, tail.p + 8, 8);
	wc_encode_ts(t1, e1);
	wc_encode_ts(t2, e2);
	CHECK(wc_decode_ts(e1) == t1);
	CHECK(wc_decode_ts(e2) == t2);
	CHECK(sign(memcmp(e1, e2, WC_TS_LEN)) == -((t1 > t2) - (t1 < t2)));
}

/* A key table | row key | family | qualifier | ts, as ldb_commit builds it */
static Bytes
full_key(Bytes t, Bytes r, Bytes f, Bytes q, uint64_t ts)
{
	Bytes		parts[4] = {escaped(t), escaped(r), escaped(f), escaped(q)};
	uint8_t		tsb[WC_TS_LEN];
	Bytes		k = {NULL, 0};
	uint8_t    *d;

	wc_encode_ts(ts, tsb);
	for (int i = 0; i < 4; i++)
		k.n += parts[i].n;
	d = xmalloc(k.n + WC_TS_LEN);
	k.n = 0;
	for (int i = 0; i < 4; i++)
	{
		memcpy(d + k.n, parts[i].p, parts[i].n);
		k.n += parts[i].n;
		release(parts[i]);
	}
	memcpy(d + k.n, tsb, WC_TS_LEN);
	k.n += WC_TS_LEN;
	k.p = d;
	return k;
}

/* parse_key of rowscan.c: four components, then exactly the timestamp */
static void
parse_full_key(Bytes k, Bytes expect[4], uint64_t ts)
{
	size_t		pos = 0;

	for (int i = 0; i < 4; i++)
	{
		uint8_t    *out = xmalloc(k.n - pos);
		size_t		c = 0,
					c2 = 0,
					olen = 0;

		CHECK(wc_component_end(k.p + pos, k.n - pos, &c) == 0);
		CHECK(wc_unescape(k.p + pos, k.n - pos, out, &c2, &olen) == 0);
		CHECK(c == c2);
		CHECK(olen == expect[i].n && (olen == 0 || memcmp(out, expect[i].p, olen) == 0));
		free(out);
		pos += c;
	}
	CHECK(k.n - pos == WC_TS_LEN);
	CHECK(wc_decode_ts(k.p + pos) == ts);
}

/*
 * Order: bytewise order of raw components (shorter first) is the order of
 * their escaped forms, also when further components and a timestamp follow.
 */
static void
order(Bytes p[4], Bytes tail)
{
	Bytes		e[4];
	uint64_t	t1 = 0,
				t2 = 0;
	int			expect;

	for (int i = 0; i < 4; i++)
		e[i] = escaped(p[i]);

	/* single components */
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			CHECK(cmp(p[i], p[j]) == cmp(e[i], e[j]));

	/* (p0, p1) against (p2, p3) as table and row key */
	{
		Bytes		a = concat(e[0], e[1]);
		Bytes		b = concat(e[2], e[3]);

		expect = cmp(p[0], p[2]);
		if (expect == 0)
			expect = cmp(p[1], p[3]);
		CHECK(cmp(a, b) == expect);
		release(a);
		release(b);
	}

	/* whole keys: (p0, p1, p2, p3, t1) against (p0, p1, p3, p2, t2) */
	if (tail.n >= 8)
		memcpy(&t1, tail.p, 8);
	if (tail.n >= 16)
		memcpy(&t2, tail.p + 8, 8);
	{
		Bytes		k1 = full_key(p[0], p[1], p[2], p[3], t1);
		Bytes		k2 = full_key(p[0], p[1], p[3], p[2], t2);

		parse_full_key(k1, p, t1);
		expect = cmp(p[2], p[3]);
		if (expect == 0)
			expect = (t1 < t2) - (t1 > t2);		/* newest first */
		CHECK(cmp(k1, k2) == expect);
		release(k1);
		release(k2);
	}

	for (int i = 0; i < 4; i++)
		release(e[i]);
}

/* escape_body(a) starts escape(b) exactly when a starts b */
static void
prefixes(Bytes p[4])
{
	for (int i = 0; i < 4; i++)
	{
		Bytes		body = escaped_body(p[i]);

		for (int j = 0; j < 4; j++)
		{
			Bytes		e = escaped(p[j]);

			CHECK(is_prefix(body, e) == is_prefix(p[i], p[j]));
			release(e);
		}
		release(body);
	}
}

/* wc_successor(copy of key); returns the result in a fresh buffer */
static int
successor(Bytes key, Bytes *out)
{
	uint8_t    *k = xmalloc(key.n);
	size_t		len = key.n;
	int			r;
	size_t		ff = 0;

	if (key.n)
		memcpy(k, key.p, key.n);
	r = wc_successor(k, &len);
	while (ff < key.n && key.p[key.n - 1 - ff] == 0xFF)
		ff++;
	if (ff == key.n)
	{
		/* empty or all 0xFF: no upper bound */
		CHECK(r == -1);
		CHECK(len == 0);
		free(k);
		return -1;
	}
	CHECK(r == 0);
	CHECK(len == key.n - ff);
	CHECK(memcmp(k, key.p, len - 1) == 0);
	CHECK(k[len - 1] == (uint8_t) (key.p[len - 1] + 1));
	*out = (Bytes) {k, len};
	return 0;
}

/*
 * Whether x is in [start, end), end NULL for open-ended: the test of a
 * key range in rowscan.c (before_end).
 */
static int
in_range(Bytes x, Bytes start, const Bytes *end)
{
	return cmp(x, start) >= 0 && (end == NULL || cmp(x, *end) < 0);
}

/*
 * wc_successor: [key, successor) holds exactly the byte strings that
 * start with key; and the scans built on it (a whole table, a row-key
 * prefix within a table) read exactly the keys they should.
 */
static void
successors(Bytes p[4], Bytes tail)
{
	Bytes		s;
	int			have;

	/* raw bytes: p0 as the key, p0+p1 inside, p2 and p3 anywhere */
	have = successor(p[0], &s) == 0;
	if (have)
	{
		Bytes		x = concat(p[0], p[1]);

		CHECK(cmp(s, p[0]) > 0);
		CHECK(!is_prefix(p[0], s));
		CHECK(cmp(x, s) < 0);
		release(x);
	}
	for (int i = 1; i < 4; i++)
		CHECK(in_range(p[i], p[0], have ? &s : NULL) == is_prefix(p[0], p[i]));
	if (have)
		release(s);

	/*
	 * A table: [escape(p0), successor) holds every key of table p0 and no
	 * key of another table (here p2).
	 */
	{
		Bytes		start = escaped(p[0]);
		Bytes		k_in = full_key(p[0], p[1], p[2], p[3], 0);
		Bytes		k_other = full_key(p[2], p[1], p[0], p[3], ~(uint64_t) 0);

		have = successor(start, &s) == 0;
		CHECK(have);			/* an escaped component never ends in 0xFF */
		CHECK(in_range(k_in, start, &s));
		CHECK(in_range(k_other, start, &s) == (cmp(p[0], p[2]) == 0));
		release(s);
		release(start);
		release(k_in);
		release(k_other);
	}

	/*
	 * A row-key prefix in table p3: [escape(p3) body(p0), successor) holds
	 * the keys of rows of p3 whose key starts with p0 (p0+p1 does), and no
	 * other row (p2 is in it exactly when p0 starts it).
	 */
	{
		Bytes		t = escaped(p[3]);
		Bytes		body = escaped_body(p[0]);
		Bytes		start = concat(t, body);
		Bytes		rk = concat(p[0], p[1]);
		Bytes		k_in = full_key(p[3], rk, p[1], p[2], 7);
		Bytes		k_any = full_key(p[3], p[2], p[0], p[1], 7);
		Bytes		k_tail = full_key(p[3], tail, p[0], p[1], 7);

		have = successor(start, &s) == 0;
		CHECK(have);			/* start begins with an escaped component */
		CHECK(in_range(k_in, start, &s));
		CHECK(in_range(k_any, start, &s) == is_prefix(p[0], p[2]));
		CHECK(in_range(k_tail, start, &s) == is_prefix(p[0], tail));
		release(s);
		release(t);
		release(body);
		release(start);
		release(rk);
		release(k_in);
		release(k_any);
		release(k_tail);
	}
}

/* Four pieces, each a length byte and up to that many bytes, then a tail. */
static void
split(const uint8_t *data, size_t size, Bytes p[4], Bytes *tail)
{
	size_t		pos = 0;

	for (int i = 0; i < 4; i++)
	{
		size_t		len = 0;

		if (pos < size)
			len = data[pos++];
		if (len > size - pos)
			len = size - pos;
		p[i] = (Bytes) {data + pos, len};
		pos += len;
	}
	*tail = (Bytes) {data + pos, size - pos};
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Bytes		p[4];
	Bytes		tail;
	Bytes		whole = {data, size};

	decode_stream(data, size);
	round_trip(whole);

	split(data, size, p, &tail);
	for (int i = 0; i < 4; i++)
		round_trip(p[i]);
	round_trip(tail);
	timestamps(tail);
	order(p, tail);
	prefixes(p);
	successors(p, tail);
	return 0;
}
