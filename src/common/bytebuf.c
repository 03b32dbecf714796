/*-------------------------------------------------------------------------
 *
 * bytebuf.c
 *	  The growable byte buffer of bytebuf.h.
 *
 *-------------------------------------------------------------------------
 */
#include "common/bytebuf.h"

#include <stdlib.h>

/* Grow b to hold more bytes after len, doubling as StringInfo does. */
void
wc_bytebuf_grow(WcByteBuf *b, size_t more)
{
	size_t		need = b->len + more + 1;
	size_t		cap = b->cap > 0 ? b->cap : 1024;
	uint8_t    *p;

	if (need < b->len)
		wc_bytebuf_failed(SIZE_MAX);
	while (cap < need)
		cap = cap * 2 > cap ? cap * 2 : need;
	p = realloc(b->data, cap);
	if (p == NULL)
		wc_bytebuf_failed(cap);
	b->data = p;
	b->cap = cap;
}

void
wc_bytebuf_free(WcByteBuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
