/*-------------------------------------------------------------------------
 *
 * keycodec.c
 *	  Order-preserving encoding of the parts of a cell key.
 *
 * A key is table | row key | family | qualifier | timestamp.  The first four
 * parts have variable length, so each is escaped (0x00 becomes 0x00 0xFF) and
 * ends with the terminator 0x00 0x01.  That keeps bytewise order of the
 * parts equal to bytewise order of the keys, and no part can run into the
 * next: "a" sorts before "a\0" before "ab", and every cell of a row is
 * contiguous.  The timestamp is stored inverted and big-endian so that the
 * newest version of a cell comes first.
 *
 *-------------------------------------------------------------------------
 */
#include "common/keycodec.h"

#include <string.h>

const uint8_t wc_meta_table[2] = {0x00, 0x01};

/*
 * wc_escape_body
 *		Escape src without the terminator; returns bytes written.
 *
 * Used alone for row-key prefixes: every key whose row key starts with src
 * starts with these bytes.
 */
size_t
wc_escape_body(const uint8_t *src, size_t n, uint8_t *dst)
{
	size_t		out = 0;

	for (size_t i = 0; i < n; i++)
	{
		dst[out++] = src[i];
		if (src[i] == 0x00)
			dst[out++] = 0xFF;
	}
	return out;
}

/*
 * wc_escape
 *		Escape src and append the terminator; returns bytes written.
 */
size_t
wc_escape(const uint8_t *src, size_t n, uint8_t *dst)
{
	size_t		out = wc_escape_body(src, n, dst);

	dst[out++] = 0x00;
	dst[out++] = 0x01;
	return out;
}

/*
 * wc_component_end
 *		Find the end of the escaped component at src.
 *
 * Sets *consumed to its length including the terminator.  Returns 0, or -1
 * when the bytes are not a well-formed component.
 */
int
wc_component_end(const uint8_t *src, size_t n, size_t *consumed)
{
	const uint8_t *p = src;
	const uint8_t *end = src + n;

	while (p < end)
	{
		const uint8_t *z = memchr(p, 0x00, end - p);

		if (z == NULL || z + 1 >= end)
			return -1;
		if (z[1] == 0x01)
		{
			*consumed = (z + 2) - src;
			return 0;
		}
		if (z[1] != 0xFF)
			return -1;
		p = z + 2;
	}
	return -1;
}

/*
 * wc_unescape
 *		Decode the component at src into dst (which needs n bytes at most).
 */
int
wc_unescape(const uint8_t *src, size_t n, uint8_t *dst,
			size_t *consumed, size_t *outlen)
{
	size_t		out = 0;
	size_t		i = 0;

	while (i < n)
	{
		const uint8_t *z = memchr(src + i, 0x00, n - i);
		size_t		run;

		if (z == NULL)
			return -1;
		run = (size_t) (z - (src + i));
		memcpy(dst + out, src + i, run);
		out += run;
		i += run;
		if (i + 1 >= n)
			return -1;
		if (src[i + 1] == 0x01)
		{
			*consumed = i + 2;
			*outlen = out;
			return 0;
		}
		if (src[i + 1] != 0xFF)
			return -1;
		dst[out++] = 0x00;
		i += 2;
	}
	return -1;
}

/* Timestamps are microseconds since the Unix epoch, stored newest first. */
void
wc_encode_ts(uint64_t ts, uint8_t *dst)
{
	uint64_t	inv = ~ts;

	for (int i = WC_TS_LEN - 1; i >= 0; i--)
	{
		dst[i] = (uint8_t) (inv & 0xFF);
		inv >>= 8;
	}
}

uint64_t
wc_decode_ts(const uint8_t *src)
{
	uint64_t	inv = 0;

	for (int i = 0; i < WC_TS_LEN; i++)
		inv = (inv << 8) | src[i];
	return ~inv;
}

/*
 * wc_successor
 *		Turn key into the smallest key greater than every key it prefixes.
 *
 * Drops trailing 0xFF bytes and increments the last byte.  Returns -1 when
 * no such key exists (empty, or all 0xFF): the range is open-ended.
 */
int
wc_successor(uint8_t *key, size_t *len)
{
	while (*len > 0)
	{
		if (key[*len - 1] != 0xFF)
		{
			key[*len - 1]++;
			return 0;
		}
		(*len)--;
	}
	return -1;
}

/* Bytewise comparison, a shorter key first when one prefixes the other. */
int
wc_compare_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	size_t		common = alen < blen ? alen : blen;
	int			c = common > 0 ? memcmp(a, b, common) : 0;

	if (c != 0)
		return c;
	return (alen > blen) - (alen < blen);
}
