/*-------------------------------------------------------------------------
 *
 * bytebuf.c
 *	  The growable byte buffer of bytebuf.h.
 *
 *-------------------------------------------------------------------------
 */
#include "common/bytebuf.h"

#include <stdlib.h>

void		(*wc_bytebuf_on_failure) (size_t bytes) = NULL;

/* An allocation of bytes failed: the program's handler, which never returns. */
static void
failed(size_t bytes)
{
	if (wc_bytebuf_on_failure != NULL)
		wc_bytebuf_on_failure(bytes);
	abort();
}

/* Grow b to hold more bytes after len, doubling as StringInfo does. */
void
wc_bytebuf_grow(WcByteBuf *b, size_t more)
{
	size_t		need = b->len + more + 1;
	size_t		cap = b->cap > 0 ? b->cap : 1024;
	uint8_t    *p;

	if (need < b->len)
		failed(SIZE_MAX);
	while (cap < need)
		cap = cap * 2 > cap ? cap * 2 : need;
	p = realloc(b->data, cap);
	if (p == NULL)
		failed(cap);
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
