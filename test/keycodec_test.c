/*-------------------------------------------------------------------------
 *
 * keycodec_test.c
 *	  Unit test of src/common/keycodec.c: escaping, order, timestamps, successors.
 *
 * Plain C, no PostgreSQL:
 *		cc -Wall -Wextra -Isrc test/keycodec_test.c src/common/keycodec.c
 *
 * Every check compares the codec with an expectation computed here without
 * the codec: literal byte vectors from docs/format.md, or small reference
 * implementations of the documented rules (escape 0x00 as 0x00 0xFF, end
 * with 0x00 0x01; bytewise order with the shorter string first; timestamps
 * inverted big-endian).  Random inputs come from a fixed-seed generator, so
 * a failure always reproduces.
 *
 * Output: one TAP line per group ("ok N - ..." / "not ok N - ..."), details
 * of failures as "# " lines, and finally "keycodec: N passed, M failed",
 * where N and M count individual checks.  Exits 1 if any check failed.
 *
 *-------------------------------------------------------------------------
 */
#include "common/keycodec.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- bookkeeping ---------- */

static long n_passed = 0;
static long n_failed = 0;
static long group_failed = 0;
static long group_checks = 0;
static int	group_no = 0;
static const char *group_name = NULL;

#define MAX_REPORTED_PER_GROUP 20

static void
begin_group(const char *name)
{
	group_name = name;
	group_failed = 0;
	group_checks = 0;
}

static void
end_group(void)
{
	group_no++;
	if (group_failed == 0)
		printf("ok %d - %s (%ld checks)\n", group_no, group_name, group_checks);
	else
		printf("not ok %d - %s (%ld of %ld checks failed)\n",
			   group_no, group_name, group_failed, group_checks);
	fflush(stdout);
}

/* Record one check; on failure print the formatted detail line. */
static int
check(int ok, const char *fmt,...)
{
	group_checks++;
	if (ok)
	{
		n_passed++;
		return 1;
	}
	n_failed++;
	group_failed++;
	if (group_failed <= MAX_REPORTED_PER_GROUP)
	{
		va_list		ap;

		printf("#   FAIL [%s]: ", group_name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	else if (group_failed == MAX_REPORTED_PER_GROUP + 1)
		printf("#   (further failures in this group not shown)\n");
	return 0;
}

/* Hex of a byte string into a static buffer (truncated when long). */
static const char *
hex(const uint8_t *p, size_t n)
{
	static char bufs[4][200];
	static int	which = 0;
	char	   *b = bufs[which++ & 3];
	size_t		o = 0;

	if (n == 0)
		return "(empty)";
	for (size_t i = 0; i < n && o + 4 < sizeof(bufs[0]); i++)
		o += snprintf(b + o, sizeof(bufs[0]) - o, "%02X", p[i]);
	if (o + 4 >= sizeof(bufs[0]))
		snprintf(b + o, sizeof(bufs[0]) - o, "...");
	return b;
}

static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

/* ---------- deterministic random numbers (splitmix64) ---------- */

static uint64_t rng_state = UINT64_C(0x5EED0F0EC0DEC000);

static uint64_t
rnd(void)
{
	uint64_t	z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static size_t
rnd_below(size_t n)
{
	return n == 0 ? 0 : (size_t) (rnd() % n);
}

/* A byte biased toward the interesting values 0x00, 0x01, 0xFF. */
static uint8_t
rnd_byte(void)
{
	static const uint8_t special[] = {0x00, 0x00, 0x00, 0x01, 0x01, 0xFF, 0xFF, 0x02, 0xFE, 'a'};
	uint64_t	r = rnd();

	if (r % 100 < 60)
		return special[(r >> 8) % sizeof(special)];
	return (uint8_t) (r >> 16);
}

static void
rnd_bytes(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = rnd_byte();
}

/* ---------- references, written from the documented rules ---------- */

/* 0x00 -> 0x00 0xFF, every other byte as is; no terminator. */
static size_t
ref_escape_body(const uint8_t *s, size_t n, uint8_t *d)
{
	size_t		o = 0;

	for (size_t i = 0; i < n; i++)
	{
		if (s[i] == 0)
		{
			d[o++] = 0x00;
			d[o++] = 0xFF;
		}
		else
			d[o++] = s[i];
	}
	return o;
}

static size_t
ref_escape(const uint8_t *s, size_t n, uint8_t *d)
{
	size_t		o = ref_escape_body(s, n, d);

	d[o++] = 0x00;
	d[o++] = 0x01;
	return o;
}

/* Bytewise order, unsigned bytes, a proper prefix first; -1, 0 or 1. */
static int
ref_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	for (size_t i = 0; i < alen && i < blen; i++)
	{
		if (a[i] < b[i])
			return -1;
		if (a[i] > b[i])
			return 1;
	}
	if (alen < blen)
		return -1;
	if (alen > blen)
		return 1;
	return 0;
}

static int
sign(int x)
{
	return (x > 0) - (x < 0);
}

static int
is_prefix(const uint8_t *p, size_t plen, const uint8_t *s, size_t slen)
{
	if (plen > slen)
		return 0;
	for (size_t i = 0; i < plen; i++)
		if (p[i] != s[i])
			return 0;
	return 1;
}

static size_t
count_zeros(const uint8_t *s, size_t n)
{
	size_t		z = 0;

	for (size_t i = 0; i < n; i++)
		z += s[i] == 0;
	return z;
}

/* ---------- escaping round trips ---------- */

#define GUARD 16
#define GUARD_BYTE 0xA5

/*
 * Escape s with wc_escape and wc_escape_body, compare with the reference and
 * the length formula, check nothing is written past the end, then decode
 * with wc_unescape and wc_component_end (with trailing bytes after it).
 */
static void
round_trip(const uint8_t *s, size_t n, const char *what)
{
	size_t		cap = WC_ESCAPED_MAX(n) + GUARD;
	uint8_t    *enc = xmalloc(cap);
	uint8_t    *body = xmalloc(cap);
	uint8_t    *ref = xmalloc(cap);
	uint8_t    *dec = xmalloc(n + GUARD);
	uint8_t    *tail;
	size_t		reflen = ref_escape(s, n, ref);
	size_t		explen = n + count_zeros(s, n) + 2;
	size_t		len,
				blen,
				consumed = 12345,
				outlen = 12345,
				cend = 12345;
	int			rc,
				guard_ok;

	memset(enc, GUARD_BYTE, cap);
	len = wc_escape(s, n, enc);
	check(len == explen, "%s: wc_escape length %zu, expected %zu", what, len, explen);
	check(len <= WC_ESCAPED_MAX(n), "%s: wc_escape length %zu exceeds WC_ESCAPED_MAX(%zu) = %zu",
		  what, len, n, (size_t) WC_ESCAPED_MAX(n));
	check(len == reflen && memcmp(enc, ref, reflen) == 0,
		  "%s: wc_escape(%s) = %s, expected %s", what, hex(s, n), hex(enc, len), hex(ref, reflen));
	guard_ok = 1;
	for (size_t i = reflen; i < cap; i++)
		if (enc[i] != GUARD_BYTE)
			guard_ok = 0;
	check(guard_ok, "%s: wc_escape wrote past the %zu bytes it should", what, reflen);

	memset(body, GUARD_BYTE, cap);
	blen = wc_escape_body(s, n, body);
	check(blen == explen - 2 && memcmp(body, ref, explen - 2) == 0,
		  "%s: wc_escape_body(%s) = %s, expected %s", what, hex(s, n), hex(body, blen),
		  hex(ref, explen - 2));
	check(body[explen - 2] == GUARD_BYTE,
		  "%s: wc_escape_body wrote a byte past the body", what);

	/* decode, with junk after the component that must be left alone */
	tail = xmalloc(reflen + 3);
	memcpy(tail, ref, reflen);
	tail[reflen] = 0x00;
	tail[reflen + 1] = 0x07;
	tail[reflen + 2] = 0xEE;
	memset(dec, GUARD_BYTE, n + GUARD);
	rc = wc_unescape(tail, reflen + 3, dec, &consumed, &outlen);
	check(rc == 0, "%s: wc_unescape of %s returned %d", what, hex(tail, reflen + 3), rc);
	check(rc == 0 && consumed == reflen, "%s: wc_unescape consumed %zu, expected %zu",
		  what, consumed, reflen);
	check(rc == 0 && outlen == n && memcmp(dec, s, n) == 0,
		  "%s: wc_unescape gave %s (%zu bytes), expected %s", what, hex(dec, outlen),
		  outlen, hex(s, n));
	guard_ok = 1;
	for (size_t i = n; i < n + GUARD; i++)
		if (dec[i] != GUARD_BYTE)
			guard_ok = 0;
	check(guard_ok, "%s: wc_unescape wrote past the %zu decoded bytes", what, n);

	rc = wc_component_end(tail, reflen + 3, &cend);
	check(rc == 0 && cend == reflen, "%s: wc_component_end returned %d, consumed %zu, expected 0, %zu",
		  what, rc, cend, reflen);

	/* exactly the component, nothing after it */
	consumed = outlen = cend = 0;
	rc = wc_unescape(ref, reflen, dec, &consumed, &outlen);
	check(rc == 0 && consumed == reflen && outlen == n && memcmp(dec, s, n) == 0,
		  "%s: wc_unescape of the bare component failed (rc %d, consumed %zu, outlen %zu)",
		  what, rc, consumed, outlen);
	rc = wc_component_end(ref, reflen, &cend);
	check(rc == 0 && cend == reflen, "%s: wc_component_end of the bare component: rc %d, consumed %zu",
		  what, rc, cend);

	free(enc);
	free(body);
	free(ref);
	free(dec);
	free(tail);
}

/* Literal vectors: the layout of docs/format.md, byte for byte. */
static void
test_escape_vectors(void)
{
	static const struct
	{
		const char *raw;
		size_t		rawlen;
		const char *esc;
		size_t		esclen;
	}			v[] = {
		{"", 0, "\x00\x01", 2},
		{"a", 1, "a\x00\x01", 3},
		{"\x00", 1, "\x00\xFF\x00\x01", 4},
		{"\xFF", 1, "\xFF\x00\x01", 3},
		{"\x01", 1, "\x01\x00\x01", 3},
		{"a\x00" "b", 3, "a\x00\xFF" "b\x00\x01", 6},
		{"\x00\x00", 2, "\x00\xFF\x00\xFF\x00\x01", 6},
		{"\x00\x01", 2, "\x00\xFF\x01\x00\x01", 5},
		{"\xFF\x00", 2, "\xFF\x00\xFF\x00\x01", 5},
		{"weather", 7, "weather\x00\x01", 9},
	};

	begin_group("escape: literal vectors");
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
	{
		uint8_t		buf[32];
		uint8_t		dec[32];
		size_t		len = wc_escape((const uint8_t *) v[i].raw, v[i].rawlen, buf);
		size_t		consumed = 0,
					outlen = 0;
		int			rc;

		check(len == v[i].esclen && memcmp(buf, v[i].esc, len) == 0,
			  "wc_escape(%s) = %s, expected %s", hex((const uint8_t *) v[i].raw, v[i].rawlen),
			  hex(buf, len), hex((const uint8_t *) v[i].esc, v[i].esclen));
		len = wc_escape_body((const uint8_t *) v[i].raw, v[i].rawlen, buf);
		check(len == v[i].esclen - 2 && memcmp(buf, v[i].esc, len) == 0,
			  "wc_escape_body(%s) = %s", hex((const uint8_t *) v[i].raw, v[i].rawlen),
			  hex(buf, len));
		rc = wc_unescape((const uint8_t *) v[i].esc, v[i].esclen, dec, &consumed, &outlen);
		check(rc == 0 && consumed == v[i].esclen && outlen == v[i].rawlen &&
			  memcmp(dec, v[i].raw, outlen) == 0,
			  "wc_unescape(%s): rc %d consumed %zu gave %s",
			  hex((const uint8_t *) v[i].esc, v[i].esclen), rc, consumed, hex(dec, outlen));
	}
	end_group();
}

static void
test_round_trips(void)
{
	uint8_t		buf[WC_MAX_ROWKEY];
	uint8_t		all[256];
	char		what[64];

	begin_group("escape: round trips of edge cases");
	round_trip((const uint8_t *) "", 0, "empty");
	round_trip((const uint8_t *) "\x00", 1, "single 0x00");
	round_trip((const uint8_t *) "\xFF", 1, "single 0xFF");
	round_trip((const uint8_t *) "\x01", 1, "single 0x01");
	round_trip((const uint8_t *) "\x00" "abc", 4, "0x00 at start");
	round_trip((const uint8_t *) "ab\x00" "cd", 5, "0x00 in the middle");
	round_trip((const uint8_t *) "abcd\x00", 5, "0x00 at end");
	round_trip((const uint8_t *) "\xFF" "abc", 4, "0xFF at start");
	round_trip((const uint8_t *) "ab\xFF" "cd", 5, "0xFF in the middle");
	round_trip((const uint8_t *) "abcd\xFF", 5, "0xFF at end");
	round_trip((const uint8_t *) "\x00\xFF", 2, "0x00 0xFF (looks like an escape)");
	round_trip((const uint8_t *) "\x00\x01", 2, "0x00 0x01 (looks like a terminator)");
	round_trip((const uint8_t *) "a\x00\x01" "b", 4, "terminator look-alike inside");
	round_trip((const uint8_t *) "\xFF\x00\xFF\x00", 4, "alternating 0xFF 0x00");
	for (size_t n = 1; n <= 64; n++)
	{
		memset(buf, 0, n);
		snprintf(what, sizeof(what), "run of %zu 0x00", n);
		round_trip(buf, n, what);
		memset(buf, 0xFF, n);
		snprintf(what, sizeof(what), "run of %zu 0xFF", n);
		round_trip(buf, n, what);
	}
	end_group();

	begin_group("escape: every byte value");
	for (int i = 0; i < 256; i++)
	{
		uint8_t		b = (uint8_t) i;
		uint8_t		three[3] = {'x', (uint8_t) i, 'y'};

		all[i] = b;
		snprintf(what, sizeof(what), "byte 0x%02X alone", i);
		round_trip(&b, 1, what);
		snprintf(what, sizeof(what), "byte 0x%02X between x and y", i);
		round_trip(three, 3, what);
	}
	round_trip(all, 256, "bytes 0x00..0xFF ascending");
	for (int i = 0; i < 256; i++)
		all[i] = (uint8_t) (255 - i);
	round_trip(all, 256, "bytes 0xFF..0x00 descending");
	end_group();

	begin_group("escape: 4096-byte keys (WC_MAX_ROWKEY)");
	memset(buf, 0, sizeof(buf));
	round_trip(buf, sizeof(buf), "4096 x 0x00");
	memset(buf, 0xFF, sizeof(buf));
	round_trip(buf, sizeof(buf), "4096 x 0xFF");
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t) i;
	round_trip(buf, sizeof(buf), "4096 bytes counting");
	rnd_bytes(buf, sizeof(buf));
	round_trip(buf, sizeof(buf), "4096 random bytes");
	end_group();

	begin_group("escape: 5000 random keys");
	for (int i = 0; i < 5000; i++)
	{
		size_t		n = rnd_below(i < 4000 ? 24 : 600);

		rnd_bytes(buf, n);
		snprintf(what, sizeof(what), "random key #%d (%zu bytes)", i, n);
		round_trip(buf, n, what);
	}
	end_group();
}

/* ---------- order ---------- */

/*
 * A random pair for order tests: often b shares a prefix with a, is a
 * prefix of a, or differs from a in one byte.
 */
static void
rnd_pair(uint8_t *a, size_t *alen, uint8_t *b, size_t *blen, size_t maxlen)
{
	size_t		na = rnd_below(maxlen + 1);
	size_t		keep;

	rnd_bytes(a, na);
	*alen = na;
	switch (rnd_below(6))
	{
		case 0:					/* unrelated */
			*blen = rnd_below(maxlen + 1);
			rnd_bytes(b, *blen);
			break;
		case 1:					/* shared prefix, different tail */
		case 2:
			keep = rnd_below(na + 1);
			memcpy(b, a, keep);
			*blen = keep + rnd_below(maxlen - keep + 1);
			rnd_bytes(b + keep, *blen - keep);
			break;
		case 3:					/* b a proper prefix of a, or equal */
			*blen = rnd_below(na + 1);
			memcpy(b, a, *blen);
			break;
		case 4:					/* a plus a suffix, often 0x00 or 0x01 */
			memcpy(b, a, na);
			*blen = na + 1 + rnd_below(maxlen - na + 1);
			rnd_bytes(b + na, *blen - na);
			if (*blen > maxlen)
				*blen = maxlen;
			if (*blen < na)
				*blen = na;
			break;
		default:				/* one byte changed */
			memcpy(b, a, na);
			*blen = na;
			if (na > 0)
				b[rnd_below(na)] = rnd_byte();
			break;
	}
	if (rnd_below(2))
	{
		/* swap, so that neither side is always the longer one */
		uint8_t		t[64];
		size_t		tl = *alen;

		memcpy(t, a, *alen);
		memcpy(a, b, *blen);
		*alen = *blen;
		memcpy(b, t, tl);
		*blen = tl;
	}
}

static void
test_order(void)
{
	enum
	{
		MAXLEN = 12
	};
	uint8_t		a[64],
				b[64],
				x[64],
				y[64];
	uint8_t		ea[256],
				eb[256];
	size_t		alen,
				blen,
				xlen,
				ylen;

	begin_group("order: escaped components compare like raw strings");
	for (int i = 0; i < 200000; i++)
	{
		size_t		la,
					lb;
		int			want,
					got;

		rnd_pair(a, &alen, b, &blen, MAXLEN);
		want = ref_cmp(a, alen, b, blen);
		la = wc_escape(a, alen, ea);
		lb = wc_escape(b, blen, eb);
		got = ref_cmp(ea, la, eb, lb);
		check(got == want, "raw %s vs %s compares %d, escaped %s vs %s compares %d",
			  hex(a, alen), hex(b, blen), want, hex(ea, la), hex(eb, lb), got);
		/* the claim as LevelDB uses it: plain memcmp over the shorter */
		if (want != 0)
		{
			size_t		m = la < lb ? la : lb;

			check(sign(memcmp(ea, eb, m)) == want,
				  "memcmp of the first %zu bytes of %s and %s is not %d", m,
				  hex(ea, la), hex(eb, lb), want);
		}
	}
	end_group();

	begin_group("order: a following component does not disturb the order");
	for (int i = 0; i < 200000; i++)
	{
		size_t		la,
					lb;
		int			want,
					got;

		rnd_pair(a, &alen, b, &blen, MAXLEN);
		if (rnd_below(3) == 0)
		{
			/* same first component: the second decides */
			memcpy(b, a, alen);
			blen = alen;
		}
		rnd_pair(x, &xlen, y, &ylen, MAXLEN);
		want = ref_cmp(a, alen, b, blen);
		if (want == 0)
			want = ref_cmp(x, xlen, y, ylen);
		la = wc_escape(a, alen, ea);
		la += wc_escape(x, xlen, ea + la);
		lb = wc_escape(b, blen, eb);
		lb += wc_escape(y, ylen, eb + lb);
		got = ref_cmp(ea, la, eb, lb);
		check(got == want, "(%s, %s) vs (%s, %s): expected %d, escaped keys compare %d",
			  hex(a, alen), hex(x, xlen), hex(b, blen), hex(y, ylen), want, got);
	}
	end_group();

	begin_group("order: no escaped row key is a prefix of another's");
	for (int i = 0; i < 200000; i++)
	{
		size_t		la,
					lb;

		rnd_pair(a, &alen, b, &blen, MAXLEN);
		la = wc_escape(a, alen, ea);
		lb = wc_escape(b, blen, eb);
		if (ref_cmp(a, alen, b, blen) == 0)
			check(la == lb && memcmp(ea, eb, la) == 0, "equal keys %s escape differently",
				  hex(a, alen));
		else
			check(!is_prefix(ea, la, eb, lb) && !is_prefix(eb, lb, ea, la),
				  "escaped %s and %s: one is a prefix of the other (%s, %s)",
				  hex(a, alen), hex(b, blen), hex(ea, la), hex(eb, lb));
	}
	/* the example from keycodec.c's header: "a" < "a\0" < "ab" */
	{
		uint8_t		e1[16],
					e2[16],
					e3[16];
		size_t		l1 = wc_escape((const uint8_t *) "a", 1, e1);
		size_t		l2 = wc_escape((const uint8_t *) "a\x00", 2, e2);
		size_t		l3 = wc_escape((const uint8_t *) "ab", 2, e3);

		check(ref_cmp(e1, l1, e2, l2) < 0 && ref_cmp(e2, l2, e3, l3) < 0,
			  "escaped \"a\" < \"a\\0\" < \"ab\" does not hold: %s %s %s",
			  hex(e1, l1), hex(e2, l2), hex(e3, l3));
	}
	end_group();
}

/*
 * Full keys table|row|family|qualifier|timestamp sort by the tuple, with
 * the newest timestamp first.
 */
typedef struct Tuple
{
	uint8_t		part[4][8];
	size_t		len[4];
	uint64_t	ts;
	uint8_t		key[4 * WC_ESCAPED_MAX(8) + WC_TS_LEN];
	size_t		keylen;
} Tuple;

static int
tuple_cmp(const Tuple *a, const Tuple *b)
{
	for (int p = 0; p < 4; p++)
	{
		int			c = ref_cmp(a->part[p], a->len[p], b->part[p], b->len[p]);

		if (c != 0)
			return c;
	}
	if (a->ts != b->ts)
		return a->ts > b->ts ? -1 : 1;	/* newer first */
	return 0;
}

static int
key_qsort_cmp(const void *x, const void *y)
{
	const Tuple *a = x;
	const Tuple *b = y;

	return ref_cmp(a->key, a->keylen, b->key, b->keylen);
}

static void
test_full_keys(void)
{
	enum
	{
		N = 4000
	};
	Tuple	   *t = xmalloc(sizeof(Tuple) * N);
	static const uint64_t tss[] = {0, 1, 2, 255, 256, UINT64_C(1614945840000000),
	UINT64_C(1614945840000001), UINT64_MAX - 1, UINT64_MAX};

	begin_group("order: whole keys sort by (table, row, family, qualifier), newest first");
	for (int i = 0; i < N; i++)
	{
		size_t		o = 0;

		for (int p = 0; p < 4; p++)
		{
			/* few distinct values, so that ties reach the later parts */
			t[i].len[p] = rnd_below(4);
			for (size_t j = 0; j < t[i].len[p]; j++)
			{
				static const uint8_t few[] = {0x00, 0x01, 0xFF, 'a'};

				t[i].part[p][j] = few[rnd_below(4)];
			}
			o += wc_escape(t[i].part[p], t[i].len[p], t[i].key + o);
		}
		t[i].ts = rnd_below(2) ? tss[rnd_below(sizeof(tss) / sizeof(tss[0]))] : rnd();
		wc_encode_ts(t[i].ts, t[i].key + o);
		t[i].keylen = o + WC_TS_LEN;
	}
	qsort(t, N, sizeof(Tuple), key_qsort_cmp);
	for (int i = 1; i < N; i++)
	{
		int			c = tuple_cmp(&t[i - 1], &t[i]);

		check(c <= 0, "key %s sorts before %s but its tuple is greater",
			  hex(t[i - 1].key, t[i - 1].keylen), hex(t[i].key, t[i].keylen));
	}
	/* and every key decodes back into its parts with wc_component_end */
	for (int i = 0; i < N; i++)
	{
		size_t		pos = 0;
		int			ok = 1;

		for (int p = 0; p < 4 && ok; p++)
		{
			size_t		c = 0;
			uint8_t		dec[16];
			size_t		consumed = 0,
						outlen = 0;

			if (wc_component_end(t[i].key + pos, t[i].keylen - pos, &c) != 0 ||
				wc_unescape(t[i].key + pos, t[i].keylen - pos, dec, &consumed, &outlen) != 0 ||
				c != consumed || outlen != t[i].len[p] ||
				memcmp(dec, t[i].part[p], outlen) != 0)
				ok = 0;
			pos += c;
		}
		check(ok && t[i].keylen - pos == WC_TS_LEN &&
			  wc_decode_ts(t[i].key + pos) == t[i].ts,
			  "key %s does not parse back into its parts", hex(t[i].key, t[i].keylen));
	}
	end_group();
	free(t);
}

/* ---------- prefixes ---------- */

static void
test_prefix(void)
{
	uint8_t		p[64],
				k[64];
	uint8_t		ep[256],
				ek[256];
	size_t		plen,
				klen,
				lp,
				lk;
	int			yes = 0,
				no = 0;

	begin_group("prefix: wc_escape_body(P) prefixes wc_escape(K) iff P prefixes K");
	for (int i = 0; i < 200000; i++)
	{
		int			want,
					got;

		rnd_pair(k, &klen, p, &plen, 12);
		if (rnd_below(4) == 0 && klen > 0)
		{
			/* P = K minus some tail, the common case of a prefix scan */
			plen = rnd_below(klen + 1);
			memcpy(p, k, plen);
		}
		want = is_prefix(p, plen, k, klen);
		lp = wc_escape_body(p, plen, ep);
		lk = wc_escape(k, klen, ek);
		got = is_prefix(ep, lp, ek, lk);
		check(got == want, "P %s, K %s: P prefix of K is %d, body %s prefix of %s is %d",
			  hex(p, plen), hex(k, klen), want, hex(ep, lp), hex(ek, lk), got);
		if (want)
			yes++;
		else
			no++;
	}
	/* make sure both outcomes were exercised many times */
	check(yes > 10000 && no > 10000, "prefix test was lopsided: %d yes, %d no", yes, no);
	/* the edge: a P ending in 0x00 against K ending right there */
	lp = wc_escape_body((const uint8_t *) "a\x00", 2, ep);
	lk = wc_escape((const uint8_t *) "a", 1, ek);
	check(!is_prefix(ep, lp, ek, lk), "body(\"a\\0\") = %s must not prefix esc(\"a\") = %s",
		  hex(ep, lp), hex(ek, lk));
	lk = wc_escape((const uint8_t *) "a\x00", 2, ek);
	check(is_prefix(ep, lp, ek, lk), "body(\"a\\0\") = %s must prefix esc(\"a\\0\") = %s",
		  hex(ep, lp), hex(ek, lk));
	end_group();
}

/* ---------- wc_component_end and wc_unescape on bad input ---------- */

static void
test_malformed(void)
{
	static const struct
	{
		const char *bytes;
		size_t		len;
		const char *why;
	}			bad[] = {
		{"", 0, "empty input"},
		{"abc", 3, "no 0x00 at all"},
		{"\xFF\xFF", 2, "only 0xFF"},
		{"\x00", 1, "lone 0x00 (truncated)"},
		{"abc\x00", 4, "truncated after 0x00"},
		{"\x00\xFF", 2, "escaped 0x00, then nothing"},
		{"a\x00\xFF" "b", 4, "escaped 0x00, no terminator"},
		{"\x00\xFF\x00", 3, "escape then truncated 0x00"},
		{"\x00\x00", 2, "0x00 0x00"},
		{"\x00\x02", 2, "0x00 0x02"},
		{"ab\x00\x7F\x00\x01", 6, "0x00 0x7F before a terminator"},
		{"\x00\xFE\x00\x01", 4, "0x00 0xFE before a terminator"},
		{"\x00\x00\x01", 3, "0x00 0x00 0x01"},
		{"\x00\x00" "clock", 7, "the clock key"},
	};
	static const struct
	{
		const char *bytes;
		size_t		len;
		size_t		end;
	}			good[] = {
		{"\x00\x01", 2, 2},
		{"\x00\x01\x00\x01", 4, 2},
		{"a\x00\x01\xFF", 4, 3},
		{"\x00\xFF\x00\x01", 4, 4},
		{"\x00\xFF\x00\xFF\x00\x01" "zz", 8, 6},
		{"\xFF\x00\xFF\x01\x00\x01\x00", 7, 6},
		{"\x01\x00\x01\x00\x00", 5, 3},
	};

	begin_group("wc_component_end / wc_unescape: malformed input is rejected");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		size_t		c = 777,
					consumed = 777,
					outlen = 777;
		uint8_t		dec[16];
		int			rc = wc_component_end((const uint8_t *) bad[i].bytes, bad[i].len, &c);

		check(rc == -1, "wc_component_end(%s) [%s] returned %d (consumed %zu), expected -1",
			  hex((const uint8_t *) bad[i].bytes, bad[i].len), bad[i].why, rc, c);
		rc = wc_unescape((const uint8_t *) bad[i].bytes, bad[i].len, dec, &consumed, &outlen);
		check(rc == -1, "wc_unescape(%s) [%s] returned %d, expected -1",
			  hex((const uint8_t *) bad[i].bytes, bad[i].len), bad[i].why, rc);
	}
	end_group();

	begin_group("wc_component_end: finds the end of well-formed components");
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
	{
		size_t		c = 777;
		int			rc = wc_component_end((const uint8_t *) good[i].bytes, good[i].len, &c);

		check(rc == 0 && c == good[i].end, "wc_component_end(%s) returned %d, %zu; expected 0, %zu",
			  hex((const uint8_t *) good[i].bytes, good[i].len), rc, c, good[i].end);
	}
	end_group();

	begin_group("wc_component_end / wc_unescape: every truncation of a component fails");
	for (int i = 0; i < 3000; i++)
	{
		uint8_t		raw[32],
					enc[80],
					dec[80];
		size_t		n = rnd_below(20),
					len;

		rnd_bytes(raw, n);
		len = ref_escape(raw, n, enc);
		for (size_t cut = 0; cut < len; cut++)
		{
			size_t		c = 0,
						consumed = 0,
						outlen = 0;

			check(wc_component_end(enc, cut, &c) == -1,
				  "wc_component_end accepted %s, a truncation of %s", hex(enc, cut), hex(enc, len));
			check(wc_unescape(enc, cut, dec, &consumed, &outlen) == -1,
				  "wc_unescape accepted %s, a truncation of %s", hex(enc, cut), hex(enc, len));
		}
	}
	end_group();

	begin_group("wc_component_end / wc_unescape: 0x00 followed by a bad byte fails");
	for (int i = 0; i < 3000; i++)
	{
		uint8_t		raw[32],
					enc[80],
					dec[80];
		size_t		n = rnd_below(20),
					len,
					zpos,
					c = 0,
					consumed = 0,
					outlen = 0;
		uint8_t		badbyte;
		int			have_zero = 0;

		rnd_bytes(raw, n);
		len = ref_escape(raw, n, enc);
		/* pick a 0x00 that is followed by 0xFF or 0x01, and corrupt the next byte */
		zpos = rnd_below(len);
		for (size_t j = 0; j < len; j++)
		{
			size_t		q = (zpos + j) % len;

			if (enc[q] == 0x00 && q + 1 < len)
			{
				zpos = q;
				have_zero = 1;
				break;
			}
		}
		if (!have_zero)
			continue;
		do
			badbyte = (uint8_t) rnd();
		while (badbyte == 0x01 || badbyte == 0xFF);
		enc[zpos + 1] = badbyte;
		/* a later well-formed terminator must not rescue it */
		enc[len] = 0x00;
		enc[len + 1] = 0x01;
		check(wc_component_end(enc, len + 2, &c) == -1,
			  "wc_component_end accepted %s (0x00 then 0x%02X at %zu)", hex(enc, len + 2),
			  badbyte, zpos);
		check(wc_unescape(enc, len + 2, dec, &consumed, &outlen) == -1,
			  "wc_unescape accepted %s (0x00 then 0x%02X at %zu)", hex(enc, len + 2),
			  badbyte, zpos);
	}
	end_group();
}

/* ---------- timestamps ---------- */

/* Expected bytes: big-endian of ~ts, written out byte by byte. */
static void
ref_encode_ts(uint64_t ts, uint8_t *d)
{
	for (int i = 0; i < 8; i++)
		d[i] = (uint8_t) (0xFF - ((ts >> (56 - 8 * i)) & 0xFF));
}

static void
test_timestamps(void)
{
	static const struct
	{
		uint64_t	ts;
		uint8_t		enc[8];
	}			v[] = {
		{0, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}},
		{1, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE}},
		{0x100, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0xFF}},
		{UINT64_C(0x0102030405060708), {0xFE, 0xFD, 0xFC, 0xFB, 0xFA, 0xF9, 0xF8, 0xF7}},
		{UINT64_C(0x8000000000000000), {0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}},
		/* 2021-03-05 12:04:00 UTC in microseconds: 0x0005BCC8E11FEC00 */
		{UINT64_C(1614945840000000), {0xFF, 0xFA, 0x43, 0x37, 0x1E, 0xE0, 0x13, 0xFF}},
		{UINT64_MAX - 1, {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01}},
		{UINT64_MAX, {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},
	};
	uint8_t		buf[8 + GUARD];

	begin_group("timestamps: literal vectors and round trips");
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
	{
		uint8_t		ref[8];
		uint64_t	back;

		memset(buf, GUARD_BYTE, sizeof(buf));
		wc_encode_ts(v[i].ts, buf);
		check(memcmp(buf, v[i].enc, 8) == 0, "wc_encode_ts(%" PRIu64 ") = %s, expected %s",
			  v[i].ts, hex(buf, 8), hex(v[i].enc, 8));
		check(buf[8] == GUARD_BYTE, "wc_encode_ts wrote past 8 bytes");
		ref_encode_ts(v[i].ts, ref);
		check(memcmp(ref, v[i].enc, 8) == 0, "test's own reference disagrees on %" PRIu64,
			  v[i].ts);
		back = wc_decode_ts(v[i].enc);
		check(back == v[i].ts, "wc_decode_ts(%s) = %" PRIu64 ", expected %" PRIu64,
			  hex(v[i].enc, 8), back, v[i].ts);
	}
	for (int i = 0; i < 100000; i++)
	{
		uint64_t	ts = rnd();
		uint8_t		ref[8];
		uint64_t	back;

		if (i % 3 == 1)
			ts >>= rnd_below(64);	/* small values too */
		wc_encode_ts(ts, buf);
		ref_encode_ts(ts, ref);
		check(memcmp(buf, ref, 8) == 0, "wc_encode_ts(%" PRIu64 ") = %s, expected %s",
			  ts, hex(buf, 8), hex(ref, 8));
		back = wc_decode_ts(ref);
		check(back == ts, "wc_decode_ts(%s) = %" PRIu64 ", expected %" PRIu64,
			  hex(ref, 8), back, ts);
	}
	end_group();

	begin_group("timestamps: newer sorts first");
	for (int i = 0; i < 100000; i++)
	{
		uint64_t	t1 = rnd(),
					t2;
		uint8_t		e1[8],
					e2[8];
		int			want;

		switch (i % 4)
		{
			case 0:
				t2 = rnd();
				break;
			case 1:
				t2 = t1 + 1;	/* adjacent, wraps at UINT64_MAX */
				break;
			case 2:
				t2 = t1 ^ ((uint64_t) 1 << rnd_below(64));
				break;
			default:
				t2 = t1;
				break;
		}
		want = t1 == t2 ? 0 : (t1 > t2 ? -1 : 1);
		wc_encode_ts(t1, e1);
		wc_encode_ts(t2, e2);
		check(sign(memcmp(e1, e2, 8)) == want,
			  "ts %" PRIu64 " -> %s vs ts %" PRIu64 " -> %s: memcmp sign %d, expected %d",
			  t1, hex(e1, 8), t2, hex(e2, 8), sign(memcmp(e1, e2, 8)), want);
	}
	{
		uint8_t		e0[8],
					e1[8],
					emax[8];

		wc_encode_ts(0, e0);
		wc_encode_ts(1, e1);
		wc_encode_ts(UINT64_MAX, emax);
		check(memcmp(emax, e1, 8) < 0 && memcmp(e1, e0, 8) < 0,
			  "UINT64_MAX, 1, 0 do not sort newest first");
	}
	end_group();
}

/* ---------- wc_successor ---------- */

static void
test_successor(void)
{
	static const struct
	{
		const char *in;
		size_t		inlen;
		int			rc;
		const char *out;
		size_t		outlen;
	}			v[] = {
		{"", 0, -1, "", 0},
		{"\xFF", 1, -1, "", 0},
		{"\xFF\xFF\xFF", 3, -1, "", 0},
		{"\x00", 1, 0, "\x01", 1},
		{"a", 1, 0, "b", 1},
		{"ab", 2, 0, "ac", 2},
		{"\xFE", 1, 0, "\xFF", 1},
		{"a\xFF", 2, 0, "b", 1},
		{"a\xFF\xFF", 3, 0, "b", 1},
		{"a\xFE\xFF", 3, 0, "a\xFF", 2},
		{"\x00\xFF", 2, 0, "\x01", 1},
		{"\x00\xFF\xFF", 3, 0, "\x01", 1},
		{"\xFF\x00", 2, 0, "\xFF\x01", 2},
		{"weather\x00\x01", 9, 0, "weather\x00\x02", 9},
	};

	begin_group("wc_successor: literal vectors");
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
	{
		uint8_t		k[16];
		size_t		len = v[i].inlen;
		int			rc;

		memcpy(k, v[i].in, v[i].inlen);
		rc = wc_successor(k, &len);
		check(rc == v[i].rc, "wc_successor(%s) returned %d, expected %d",
			  hex((const uint8_t *) v[i].in, v[i].inlen), rc, v[i].rc);
		if (v[i].rc == 0)
			check(rc == 0 && len == v[i].outlen && memcmp(k, v[i].out, len) == 0,
				  "wc_successor(%s) = %s, expected %s",
				  hex((const uint8_t *) v[i].in, v[i].inlen), hex(k, len),
				  hex((const uint8_t *) v[i].out, v[i].outlen));
	}
	end_group();

	/*
	 * The defining property: with s the successor of k, a string x has the
	 * prefix k exactly when k <= x < s.  Without a successor (-1), k is
	 * empty or all 0xFF.
	 */
	begin_group("wc_successor: x has prefix k iff k <= x < successor(k)");
	for (int i = 0; i < 20000; i++)
	{
		uint8_t		k[16],
					s[16],
					x[32];
		size_t		klen = rnd_below(8),
					slen;
		int			rc,
					allff = 1;

		rnd_bytes(k, klen);
		for (size_t j = 0; j < klen; j++)
			allff &= k[j] == 0xFF;
		memcpy(s, k, klen);
		slen = klen;
		rc = wc_successor(s, &slen);
		check(rc == (allff ? -1 : 0), "wc_successor(%s) returned %d", hex(k, klen), rc);
		if (rc != 0)
			continue;
		check(slen <= klen, "wc_successor(%s) grew the key to %zu bytes", hex(k, klen), slen);
		check(ref_cmp(k, klen, s, slen) < 0, "wc_successor(%s) = %s is not greater",
			  hex(k, klen), hex(s, slen));
		for (int j = 0; j < 20; j++)
		{
			size_t		xlen;
			int			want,
						got;

			/* x: k or a neighbour of it, with a random tail */
			switch (rnd_below(4))
			{
				case 0:
					xlen = rnd_below(10);
					rnd_bytes(x, xlen);
					break;
				case 1:
					memcpy(x, s, slen);
					xlen = slen + rnd_below(4);
					rnd_bytes(x + slen, xlen - slen);
					break;
				default:
					memcpy(x, k, klen);
					xlen = klen + rnd_below(6);
					rnd_bytes(x + klen, xlen - klen);
					if (xlen > 0 && rnd_below(3) == 0)
						x[rnd_below(xlen)] = rnd_byte();
					break;
			}
			want = is_prefix(k, klen, x, xlen);
			got = ref_cmp(k, klen, x, xlen) <= 0 && ref_cmp(x, xlen, s, slen) < 0;
			check(got == want, "k %s, successor %s, x %s: prefix %d but in range %d",
				  hex(k, klen), hex(s, slen), hex(x, xlen), want, got);
		}
	}
	end_group();
}

/* ---------- wc_compare_bytes ---------- */

static void
test_compare(void)
{
	static const struct
	{
		const char *a;
		size_t		alen;
		const char *b;
		size_t		blen;
		int			want;
	}			v[] = {
		{"", 0, "", 0, 0},
		{"", 0, "a", 1, -1},
		{"a", 1, "", 0, 1},
		{"", 0, "\x00", 1, -1},
		{"\x00", 1, "", 0, 1},
		{"a", 1, "a", 1, 0},
		{"a", 1, "ab", 2, -1},
		{"ab", 2, "a", 1, 1},
		{"ab", 2, "b", 1, -1},
		{"\x80", 1, "\x7F", 1, 1},	/* bytes are unsigned */
		{"\xFF", 1, "\x00", 1, 1},
		{"\x00", 1, "\x00\x00", 2, -1},
		{"abc", 3, "abd", 3, -1},
		{"abd", 3, "abc", 3, 1},
		{"a\x00" "b", 3, "a\x00" "b", 3, 0},
	};

	begin_group("wc_compare_bytes: literal vectors");
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
	{
		int			got = wc_compare_bytes((const uint8_t *) v[i].a, v[i].alen,
										   (const uint8_t *) v[i].b, v[i].blen);

		check(sign(got) == v[i].want, "wc_compare_bytes(%s, %s) = %d, expected sign %d",
			  hex((const uint8_t *) v[i].a, v[i].alen), hex((const uint8_t *) v[i].b, v[i].blen),
			  got, v[i].want);
	}
	end_group();

	begin_group("wc_compare_bytes: agrees with bytewise order on random pairs");
	for (int i = 0; i < 100000; i++)
	{
		uint8_t		a[64],
					b[64];
		size_t		alen,
					blen;
		int			want,
					got,
					back;

		rnd_pair(a, &alen, b, &blen, 16);
		want = ref_cmp(a, alen, b, blen);
		got = wc_compare_bytes(a, alen, b, blen);
		back = wc_compare_bytes(b, blen, a, alen);
		check(sign(got) == want, "wc_compare_bytes(%s, %s) = %d, expected sign %d",
			  hex(a, alen), hex(b, blen), got, want);
		check(sign(back) == -want, "wc_compare_bytes(%s, %s) = %d, expected sign %d",
			  hex(b, blen), hex(a, alen), back, -want);
	}
	end_group();
}

int
main(void)
{
	printf("# keycodec unit test (seed %016" PRIX64 ")\n", rng_state);
	test_escape_vectors();
	test_round_trips();
	test_order();
	test_full_keys();
	test_prefix();
	test_malformed();
	test_timestamps();
	test_successor();
	test_compare();
	printf("1..%d\n", group_no);
	printf("keycodec: %ld passed, %ld failed\n", n_passed, n_failed);
	return n_failed == 0 ? 0 : 1;
}
