/*-------------------------------------------------------------------------
 *
 * failure.h
 *	  Errors of the read path, raised on any thread (failure.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FAILURE_H
#define WC_FAILURE_H

#include <stdbool.h>
#include <stddef.h>

/* An error, as data: what ereport would have said. */
typedef struct WcFailure
{
	int			sqlstate;		/* PostgreSQL's encoding (MAKE_SQLSTATE) */
	char		message[256];
	char		detail[1280];
	char		hint[256];		/* "" if none */
} WcFailure;

extern void wc_fail(int sqlstate, const char *message, const char *hint,
					const char *detail_fmt,...)
			__attribute__((noreturn, format(printf, 4, 5)));
extern bool wc_trapped(void (*fn) (void *), void *arg, WcFailure *f);
extern ErrorData *wc_caught_error(MemoryContext cxt);
/* common/bytebuf.h's allocation failure: the worker sets it at its start */
extern void wc_bytebuf_failed(size_t bytes) __attribute__((noreturn));

/* an entry that is not what widecolumn_fdw writes, for every reader of rows */
extern void wc_corrupt_key(const uint8 *k, size_t n) __attribute__((noreturn));
extern void wc_check_value_tag(const uint8 *v, size_t vlen);
extern void wc_corrupt_merge(void) __attribute__((noreturn));

#endif							/* WC_FAILURE_H */
