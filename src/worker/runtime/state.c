/*-------------------------------------------------------------------------
 *
 * state.c
 *	  What every part of the storage worker shares: its memory contexts,
 *	  the attached backends by slot, the databases by id, the clocks, and
 *	  the error of a request that does not parse.
 *
 * They are defined here, at the bottom, so that the files that serve
 * requests, read and commit can use them without reaching up into the
 * main loop (main.c) or the dispatch (serve.c), which set them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <time.h>

#include "datatype/timestamp.h"
#include "utils/timestamp.h"

#include "worker/worker.h"

WcClient  **wc_clients;
MemoryContext wc_worker_cxt;
MemoryContext wc_request_cxt;

/*
 * The databases, whatever their engine; a database's id is its place
 * here, which only grows (a database closed after a failed write keeps its
 * id and is opened again at its next use).
 */
static List *databases = NIL;

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

/* Take on a database the engine opened: its id. */
uint32
wc_db_add(WcDatabase *db)
{
	MemoryContext old = MemoryContextSwitchTo(wc_worker_cxt);

	db->id = list_length(databases);
	databases = lappend(databases, db);
	MemoryContextSwitchTo(old);
	return db->id;
}

/*
 * wc_db_lookup
 *		The database a request names by id, made usable by its engine (a
 *		LevelDB database a failed write closed is opened again).
 */
WcDatabase *
wc_db_lookup(uint32 id)
{
	WcDatabase *db;

	if (id >= (uint32) list_length(databases))
		ereport(ERROR,
				(errcode(ERRCODE_PROTOCOL_VIOLATION),
				 errmsg("request from a backend names unknown database %u", id)));
	db = list_nth(databases, id);
	db->engine->ready(db);
	return db;
}

/* The database of id, usable or not, or NULL past the last (for walks). */
WcDatabase *
wc_db_nth(uint32 id)
{
	return id < (uint32) list_length(databases) ? list_nth(databases, id) : NULL;
}

/*
 * wc_loop_due
 *		Has every_us passed since *looked (then it is now)?  For the work the
 *		loop does now and then (heatstore.c, xacts.c): the loop comes by at
 *		every pass, thousands of times a second while it polls, so it reads
 *		the coarse clock, a read of memory, where gettimeofday took 8% of the
 *		worker's time under point reads (docs/heatmap.md's profile).
 */
bool
wc_loop_due(uint64 *looked, uint64 every_us)
{
	struct timespec ts;
	uint64		at;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	at = (uint64) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	if (at - *looked < every_us)
		return false;
	*looked = at;
	return true;
}
