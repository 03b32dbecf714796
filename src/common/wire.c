/*-------------------------------------------------------------------------
 *
 * wire.c
 *	  Structural checks of the worker's requests, before it acts on them.
 *
 * Plain C with no PostgreSQL dependency, so the fuzzers in test/fuzz call
 * exactly the code the worker runs.  A request that passes has every
 * length within the message, every count consistent with what follows,
 * and every key part well formed (keycodec.h), so that nothing the worker
 * writes can break the key layout.
 *
 *-------------------------------------------------------------------------
 */
#include "common/keycodec.h"
#include "common/wire.h"

/* str holds exactly n escaped components. */
static int
components(const uint8_t *s, size_t len, int n)
{
	size_t		pos = 0;

	for (int i = 0; i < n; i++)
	{
		size_t		c;

		if (wc_component_end(s + pos, len - pos, &c) != 0)
			return -1;
		pos += c;
	}
	return pos == len ? 0 : -1;
}

/*
 * wc_check_write
 *		Check the rows of a WRITE request (after its type and database), and
 *		find the lowest and highest of their row prefixes (table and row
 *		key) if span is not NULL: the pending-commit record of a large
 *		commit must cover them all.
 */
int
wc_check_write(const uint8_t *data, size_t len, WcRowSpan *span)
{
	WcReader	r;

	if (span != NULL)
		span->lowest = span->highest = NULL;
	wc_reader_init(&r, data, len);
	while (!r.bad && wc_reader_left(&r) > 0)
	{
		size_t		plen;
		const uint8_t *prefix = wc_get_str(&r, &plen);
		uint8_t		deleted = wc_get_u8(&r);
		uint32_t	ncells = wc_get_u32(&r);

		if (r.bad || deleted > 1 || components(prefix, plen, 2) != 0 ||
			plen > WC_ESCAPED_MAX(WC_MAX_ROWKEY) + WC_ESCAPED_MAX(WC_MAX_QUALIFIER))
			return -1;
		if (ncells > wc_reader_left(&r) / 9)
			return -1;
		if (span != NULL)
		{
			if (span->lowest == NULL ||
				wc_compare_bytes(prefix, plen, span->lowest, span->lowest_len) < 0)
			{
				span->lowest = prefix;
				span->lowest_len = plen;
			}
			if (span->highest == NULL ||
				wc_compare_bytes(prefix, plen, span->highest, span->highest_len) > 0)
			{
				span->highest = prefix;
				span->highest_len = plen;
			}
		}
		for (uint32_t i = 0; i < ncells; i++)
		{
			size_t		fqlen,
						vlen;
			const uint8_t *fq = wc_get_str(&r, &fqlen);
			uint8_t		tag = wc_get_u8(&r);

			(void) wc_get_str(&r, &vlen);
			if (r.bad || components(fq, fqlen, 2) != 0)
				return -1;
			/* an empty family is the row tombstone's */
			if (fqlen >= 2 && fq[0] == 0x00 && fq[1] == 0x01)
				return -1;
			if (tag != WC_VALUE_PRESENT && tag != WC_VALUE_TOMBSTONE)
				return -1;
			if (tag == WC_VALUE_TOMBSTONE && vlen != 0)
				return -1;
			if (vlen > WC_MAX_VALUE)
				return -1;
		}
	}
	return r.bad ? -1 : 0;
}

/*
 * wc_check_scan
 *		Check the part of a SCAN request after its fixed fields: the columns
 *		(escaped family and qualifier) and the ranges.
 */
int
wc_check_scan(const uint8_t *data, size_t len)
{
	WcReader	r;
	uint16_t	ncols;
	uint32_t	nranges;

	wc_reader_init(&r, data, len);
	ncols = wc_get_u16(&r);
	if (r.bad || ncols > WC_MAX_SCAN_COLUMNS)
		return -1;
	for (int i = 0; i < ncols; i++)
	{
		size_t		l;
		const uint8_t *fq = wc_get_str(&r, &l);

		if (r.bad || components(fq, l, 2) != 0)
			return -1;
	}
	nranges = wc_get_u32(&r);
	if (r.bad || nranges > wc_reader_left(&r) / 8)
		return -1;
	for (uint32_t i = 0; i < nranges; i++)
	{
		size_t		slen,
					elen;

		(void) wc_get_str(&r, &slen);
		(void) wc_get_str(&r, &elen);
		if (r.bad)
			return -1;
	}
	return wc_reader_left(&r) == 0 ? 0 : -1;
}
