/*-------------------------------------------------------------------------
 *
 * state.c
 *	  What every part of the storage worker shares: its memory contexts,
 *	  the attached backends by slot, the clock commits are stamped by, and
 *	  the error of a request that does not parse.
 *
 * They are defined here, at the bottom, so that the files that serve
 * requests, read and commit can use them without reaching up into the
 * main loop (main.c) or the dispatch (serve.c), which set them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "datatype/timestamp.h"
#include "utils/timestamp.h"

#include "worker/worker.h"

WcClient  **wc_clients;
MemoryContext wc_worker_cxt;
MemoryContext wc_request_cxt;

/* Test hook: a system clock this many seconds behind. */
int			wc_debug_clock_step_back = 0;

/* Microseconds since the Unix epoch: the clock commits are stamped by. */
uint64
wc_unix_micros(void)
{
	TimestampTz now = GetCurrentTimestamp() - (int64) wc_debug_clock_step_back * USECS_PER_SEC;

	return (uint64) (now + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY);
}

/* A request that wire.c's reader refused. */
void
wc_malformed(const char *type)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROTOCOL_VIOLATION),
			 errmsg("malformed request from a backend"),
			 errdetail("A %s request is truncated or has a field out of range.", type)));
}
