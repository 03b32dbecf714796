/*-------------------------------------------------------------------------
 *
 * asof.c
 *	  widecolumn.as_of: the setting that makes reads return the data as of
 *	  a time, and the checks that keep writes and row locks away from it.
 *
 * Reads take the time with the snapshot they read (snapshot.c sends it in
 * each SCAN request, wire.h); the worker applies it (worker/cellscan.c).
 * A transaction that has written cannot read as of another time: its own
 * writes are of now (txn.c knows whether it has written).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"

#include "utils/datetime.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

#include "fdw/link/link.h"
#include "fdw/xact/xact.h"

/*
 * widecolumn.as_of: reads return the data as of this time (microseconds
 * since the Unix epoch; 0: now).  The text is what the user set.
 */
static char *as_of_text = NULL;
static uint64 as_of_us = 0;

/*
 * widecolumn.as_of's check hook: a timestamptz, or empty.  It is read
 * without raising an error (a hook may not), with the parser
 * timestamptz_in uses.
 */
static bool
check_as_of(char **newval, void **extra, GucSource source)
{
	char		workbuf[MAXDATELEN + MAXDATEFIELDS];
	char	   *field[MAXDATEFIELDS];
	int			ftype[MAXDATEFIELDS];
	int			nf;
	int			dtype;
	int			tz;
	struct pg_tm tt;
	fsec_t		fsec;
	TimestampTz ts;
	uint64	   *us;

	if (*newval == NULL || **newval == '\0')
	{
		*extra = NULL;
		return true;
	}
	if (ParseDateTime(*newval, workbuf, sizeof(workbuf), field, ftype,
					  MAXDATEFIELDS, &nf) != 0 ||
		DecodeDateTime(field, ftype, nf, &dtype, &tt, &fsec, &tz) != 0 ||
		dtype != DTK_DATE || tm2timestamp(&tt, fsec, &tz, &ts) != 0 ||
		!IS_VALID_TIMESTAMP(ts))
	{
		GUC_check_errdetail("The value must be a timestamp with time zone (such as \"2021-03-05 12:04:00+00\"), or empty for now.");
		return false;
	}
	us = malloc(sizeof(uint64));	/* GUC frees it with free() */
	if (us == NULL)
		return false;
	ts += WC_UNIX_TO_PG_US;
	/* before the epoch: before every commit, so nothing is found */
	*us = ts > 0 ? (uint64) ts : 1;
	*extra = us;
	return true;
}

static void
assign_as_of(const char *newval, void *extra)
{
	as_of_us = extra ? *(uint64 *) extra : 0;
}

/*
 * wc_as_of
 *		The time reads return the data as of (widecolumn.as_of), in
 *		microseconds since the Unix epoch; 0 for now.
 */
uint64
wc_as_of(void)
{
	return as_of_us;
}

/*
 * wc_as_of_for_read
 *		widecolumn.as_of for a read that starts now (0: now).  A transaction
 *		that has written reads its own writes, which are of now: it cannot
 *		read as of another time.
 */
uint64
wc_as_of_for_read(void)
{
	if (as_of_us != 0 && wc_txn_has_writes())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("cannot read widecolumn_fdw tables as of widecolumn.as_of in a transaction that has written to them"),
				 errdetail("The transaction's own writes are of now, not of \"%s\".", as_of_text),
				 errhint("Set widecolumn.as_of before the transaction writes, or in another transaction.")));
	return as_of_us;
}

/*
 * wc_bigtable_read_time
 *		The time a read of a Bigtable server returns the data as of, given
 *		as_of (wc_as_of_for_read's): Bigtable has no snapshot across rows,
 *		so REPEATABLE READ reads each row's cells as of the time the
 *		transaction's snapshot was taken (wc_xact_snapshot_time; to
 *		Bigtable's millisecond; a row deleted since is still gone), and
 *		SERIALIZABLE, which nothing of Bigtable's could make
 *		true, is refused (README, "Bigtable servers").  *at_start says the
 *		time is the transaction's start (the scan's WC_SCAN_AS_OF_START),
 *		not widecolumn.as_of.
 */
uint64
wc_bigtable_read_time(uint64 as_of, bool *at_start)
{
	if (IsolationIsSerializable())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("SERIALIZABLE transactions cannot read tables on a Bigtable server"),
				 errdetail("Bigtable has no transactions across rows, so no serializable order can be kept."),
				 errhint("Use REPEATABLE READ, which reads a Bigtable table as of the transaction's start, or READ COMMITTED.")));
	*at_start = as_of == 0 && IsolationUsesXactSnapshot();
	if (*at_start)
		return wc_xact_snapshot_time();
	return as_of;
}

/*
 * wc_as_of_forbid
 *		A write (or, with lock, a read that locks rows) while
 *		widecolumn.as_of is set: an error, as a write in a read-only
 *		transaction is.
 */
void
wc_as_of_forbid(bool lock)
{
	if (as_of_us == 0)
		return;
	if (lock)
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot lock rows of a widecolumn_fdw table while widecolumn.as_of is set"),
				 errdetail("widecolumn.as_of is \"%s\": reads return the data of that time, which cannot change.",
						   as_of_text),
				 errhint("RESET widecolumn.as_of to lock or write.")));
	ereport(ERROR,
			(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
			 errmsg("cannot write to widecolumn_fdw tables while widecolumn.as_of is set"),
			 errdetail("widecolumn.as_of is \"%s\": reads return the data of that time, which cannot change.",
					   as_of_text),
			 errhint("RESET widecolumn.as_of to write.")));
}

/* Define widecolumn.as_of. */
void
wc_as_of_init(void)
{
	DefineCustomStringVariable("widecolumn.as_of",
							   "Makes reads of widecolumn_fdw tables return the data as of this time.",
							   "A timestamp with time zone; empty for now. Writes are refused while it is set.",
							   &as_of_text,
							   "",
							   PGC_USERSET,
							   0,
							   check_as_of, assign_as_of, NULL);
}
