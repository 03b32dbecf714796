/*-------------------------------------------------------------------------
 *
 * bytebuf.h
 *	  A growable byte buffer in plain C, for code that runs on the storage
 *	  worker's reader threads, where palloc and StringInfo may not be used
 *	  (PostgreSQL's memory contexts belong to one thread).
 *
 * It grows with realloc; when that fails it calls wc_bytebuf_failed, which
 * the program provides (the worker: worker/runtime/failure.c, which raises the error
 * on the thread's job or, on the main thread, as an ERROR).
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
extern void wc_bytebuf_failed(size_t bytes) __attribute__((noreturn));

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
