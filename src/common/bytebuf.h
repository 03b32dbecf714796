/*-------------------------------------------------------------------------
 *
 * bytebuf.h
 *	  A growable byte buffer in plain C, for code that runs on the storage
 *	  worker's reader threads, where palloc and StringInfo may not be used
 *	  (PostgreSQL's memory contexts belong to one thread).
 *
 * It grows with realloc; when that fails it calls wc_bytebuf_on_failure,
 * which the program sets before any buffer grows (the worker: its
 * runtime/failure.c's wc_bytebuf_failed, which raises the error on the
 * thread's job or, on the main thread, as an ERROR); unset, it aborts.  A
 * pointer, not a name the program defines, so that this folder calls
 * nothing of the folders that use it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_BYTEBUF_H
#define WC_BYTEBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct WcByteBuf
{
	uint8_t    *data;			/* NULL until the first byte */
	size_t		len;
	size_t		cap;
} WcByteBuf;

extern void wc_bytebuf_grow(WcByteBuf *b, size_t more);
extern void wc_bytebuf_free(WcByteBuf *b);
extern void (*wc_bytebuf_on_failure) (size_t bytes);

/* Room for more bytes after len (and a zero byte after those). */
static inline void
wc_bytebuf_reserve(WcByteBuf *b, size_t more)
{
	if (b->cap - b->len <= more)
		wc_bytebuf_grow(b, more);
}

static inline void
wc_bytebuf_append(WcByteBuf *b, const void *p, size_t n)
{
	wc_bytebuf_reserve(b, n);
	if (n > 0)					/* p may be NULL then */
		memcpy(b->data + b->len, p, n);
	b->len += n;
}

static inline void
wc_bytebuf_set(WcByteBuf *b, const void *p, size_t n)
{
	b->len = 0;
	wc_bytebuf_append(b, p, n);
}

#endif							/* WC_BYTEBUF_H */
