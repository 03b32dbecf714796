/*-------------------------------------------------------------------------
 *
 * failure.c
 *	  Errors of the read path, which runs on the reader threads as well as
 *	  the main thread: raised as data where ereport may not be called.
 *
 * A reader thread may not call ereport (its state belongs to the main
 * thread), so the read path reports a bad entry, a LevelDB error or a
 * failed allocation with wc_fail.  Code that runs a job under a trap
 * (wc_trapped) gets the error back as a WcFailure, and the main thread
 * answers it to the session that asked (runtime/clients.c, wc_client_finish_batch); with no trap
 * set, wc_fail is an ereport at once, as on the main thread's other paths
 * (the sweep, the commit).
 *
 * The jump leaves the job's work half done: its callers drop what it was
 * working on (the scan), which holds everything it allocated.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>

#include "storage/lwlock.h"

#include "common/aggfold.h"
#include "common/bytebuf.h"
#include "common/keycodec.h"
#include "worker/runtime/failure.h"

typedef struct WcTrap
{
	jmp_buf		jump;
	WcFailure  *failure;
} WcTrap;

/* The trap of the job this thread runs; NULL: ereport. */
static __thread WcTrap *trap;

/*
 * wc_fail
 *		Raise an error of the read path: into the running job's WcFailure,
 *		or as an ERROR.
 */
void
wc_fail(int sqlstate, const char *message, const char *hint, const char *detail_fmt,...)
{
	char		detail[sizeof(((WcFailure *) 0)->detail)];
	va_list		args;

	va_start(args, detail_fmt);
	vsnprintf(detail, sizeof(detail), detail_fmt, args);
	va_end(args);

	if (trap != NULL)
	{
		WcFailure  *f = trap->failure;

		f->sqlstate = sqlstate;
		snprintf(f->message, sizeof(f->message), "%s", message);
		memcpy(f->detail, detail, sizeof(detail));
		snprintf(f->hint, sizeof(f->hint), "%s", hint ? hint : "");
		longjmp(trap->jump, 1);
	}
	ereport(ERROR,
			(errcode(sqlstate),
			 errmsg_internal("%s", message),
			 errdetail_internal("%s", detail),
			 hint ? errhint("%s", hint) : 0));
}

/* bytebuf.c's allocation failure */
void
wc_bytebuf_failed(size_t bytes)
{
	wc_fail(ERRCODE_OUT_OF_MEMORY, "out of memory", NULL,
			"Failed on request of size %zu in the storage worker.", bytes);
}

/*
 * wc_trapped
 *		Run fn(arg) with wc_fail's errors caught into *f; false if one was.
 */
bool
wc_trapped(void (*fn) (void *), void *arg, WcFailure *f)
{
	WcTrap		here;
	WcTrap	   *volatile outer = trap;

	here.failure = f;
	if (setjmp(here.jump) != 0)
	{
		trap = outer;
		return false;
	}
	trap = &here;
	fn(arg);
	trap = outer;
	return true;
}

/*
 * wc_corrupt_key, wc_check_value_tag, wc_corrupt_merge
 *		The errors of an entry that is not what widecolumn_fdw writes, for
 *		every reader of rows (this file and versions.c).
 */
void
wc_corrupt_key(const uint8 *k, size_t n)
{
	wc_fail(ERRCODE_DATA_CORRUPTED, "malformed key in LevelDB database", NULL,
			"The key is %zu bytes long and does not have the widecolumn_fdw layout.", n);
}

void
wc_check_value_tag(const uint8 *v, size_t vlen)
{
	if (vlen == 0 || (v[0] != WC_VALUE_PRESENT && v[0] != WC_VALUE_TOMBSTONE &&
					  !wc_agg_is_merge(v[0])))
		wc_fail(ERRCODE_DATA_CORRUPTED, "malformed value in LevelDB database", NULL,
				"A stored value does not begin with a valid tag byte.");
}

void
wc_corrupt_merge(void)
{
	wc_fail(ERRCODE_DATA_CORRUPTED, "malformed value in LevelDB database", NULL,
			"A merge entry of an aggregate family does not hold an 8-byte integer.");
}

/*
 * wc_caught_error
 *		In a PG_CATCH of the worker's main thread that logs the error and
 *		goes on: the error copied into cxt (the context before the TRY), the
 *		error state flushed, and the lightweight locks the error left let
 *		go.  The caller frees it (FreeErrorData).
 */
ErrorData *
wc_caught_error(MemoryContext cxt)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(cxt);
	edata = CopyErrorData();
	FlushErrorState();
	LWLockReleaseAll();
	return edata;
}
