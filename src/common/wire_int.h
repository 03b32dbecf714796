/*-------------------------------------------------------------------------
 *
 * wire_int.h
 *	  The helpers wire.c and wirerows.c share: the one format has two files,
 *	  and nothing else includes this.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_WIRE_INT_H
#define WC_WIRE_INT_H

#include "common/keycodec.h"
#include "common/wire.h"

/* A reader is done: true if it read exactly the whole message. */
static inline bool
finish(WcReader *r)
{
	if (!r->bad && wc_reader_left(r) != 0)
		r->bad = true;
	return !r->bad;
}

/* Fail the read: always false. */
static inline bool
fail(WcReader *r)
{
	r->bad = true;
	return false;
}

/* b holds exactly n escaped key components. */
static inline bool
components(WcBytes b, int n)
{
	size_t		pos = 0;

	for (int i = 0; i < n; i++)
	{
		size_t		c;

		if (wc_component_end(b.data + pos, b.len - pos, &c) != 0)
			return false;
		pos += c;
	}
	return pos == b.len;
}

static inline void
begin(StringInfo buf, WcMsgType type)
{
	appendStringInfoChar(buf, (char) type);
}

static inline bool
expect_type(WcReader *r, WcMsgType type)
{
	return wc_get_u8(r) == type && !r->bad;
}

#endif							/* WC_WIRE_INT_H */
