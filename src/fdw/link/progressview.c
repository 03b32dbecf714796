/*-------------------------------------------------------------------------
 *
 * progressview.c
 *	  The progress of a session's long work: the slot it names its
 *	  operation in (common/progress.h), the NOTICEs an interactive session
 *	  gets while it waits, and the view widecolumn.progress.
 *
 * compact, drop_table and drop_row_range name their operation for as long
 * as they run; a COMMIT names its own once its writes are large enough to
 * be sent in several WRITE messages (commit.c).  The storage worker counts
 * what it does for the session in the same slot, so another session sees
 * how far it is.
 *
 * While it waits for the worker (client.c, wait_for_worker, which wakes at
 * least every second) a session that has run one of them for longer than
 * widecolumn_fdw.debug_progress_notice_interval (10 s) says how far it is
 * in a NOTICE, at most once in that interval.  Only an interactive session
 * does: a client's backend, whose messages go to the client, and whose
 * client_min_messages lets a NOTICE through.  A background worker's or a
 * walsender's work, or a session that has asked for fewer messages, is
 * left alone, and nothing of it goes to the server log.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

#include "common/progress.h"
#include "common/shmem.h"
#include "fdw/link/link.h"

PG_FUNCTION_INFO_V1(wc_progress_view);

/* widecolumn_fdw.debug_progress_notice_interval: seconds (hidden, for tests) */
static int	notice_interval = 10;

static bool running = false;	/* this session has named an operation */
static TimestampTz last_notice;

static const char *const op_names[] = {
	[WC_PROGRESS_NONE] = NULL,
	[WC_PROGRESS_COMPACT] = "compact",
	[WC_PROGRESS_DROP_TABLE] = "drop_table",
	[WC_PROGRESS_DROP_ROW_RANGE] = "drop_row_range",
	[WC_PROGRESS_COMMIT] = "commit",
	[WC_PROGRESS_EXPORT_AVRO] = "export_avro",
	[WC_PROGRESS_IMPORT_AVRO] = "import_avro",
	[WC_PROGRESS_BACKUP] = "backup",
	[WC_PROGRESS_RESTORE] = "restore",
};

static const char *const unit_names[] = {
	[WC_UNIT_BYTES_WALKED] = "bytes walked",
	[WC_UNIT_BYTES_COMPACTED] = "bytes compacted",
	[WC_UNIT_BYTES_SENT] = "bytes sent",
	[WC_UNIT_BYTES_WRITTEN] = "bytes written",
	[WC_UNIT_RANGES] = "row ranges",
	[WC_UNIT_VERSIONS_EXPORTED] = "versions exported",
	[WC_UNIT_FILE_BYTES] = "bytes read",
};

static int
my_slot(void)
{
	return MyBackendId - 1;
}

/*
 * wc_progress_begin
 *		Name the operation this session runs (table: a stored table, or
 *		NULL), counted in unit until the worker counts it.
 */
void
wc_progress_begin(WcProgressOp op, const char *table, WcProgressUnit unit, bool has_total,
				  uint64 total)
{
	WcProgress *p;

	if (wc_shared == NULL || my_slot() < 0 || my_slot() >= wc_shared->nslots)
		return;
	p = &wc_progress[my_slot()];
	SpinLockAcquire(&p->mutex);
	p->pid = MyProcPid;
	p->op = op;
	p->unit = unit;
	p->done = 0;
	p->has_total = has_total;
	p->total = total;
	p->started = GetCurrentTimestamp();
	strlcpy(p->table, table ? table : "", sizeof(p->table));
	SpinLockRelease(&p->mutex);
	running = true;
	last_notice = p->started;
}

/* Count what this session has done itself (a COMMIT's rows sent). */
void
wc_progress_done(WcProgressUnit unit, uint64 done)
{
	if (running)
		wc_progress_count(my_slot(), unit, done, false, 0);
}

/* The operation is over (or failed: at the transaction's end too). */
void
wc_progress_end(void)
{
	WcProgress *p;

	if (!running)
		return;
	p = &wc_progress[my_slot()];
	SpinLockAcquire(&p->mutex);
	p->pid = 0;
	p->op = WC_PROGRESS_NONE;
	SpinLockRelease(&p->mutex);
	running = false;
}

static bool
interactive(void)
{
	return MyBackendType == B_BACKEND && whereToSendOutput == DestRemote &&
		client_min_messages <= NOTICE;
}

/* The errdetail of p's NOTICE: how far it is. */
static int
errdetail_progress(const WcProgress *p)
{
	char		done[32];
	char		total[32];

	snprintf(done, sizeof(done), UINT64_FORMAT, p->done);
	snprintf(total, sizeof(total), UINT64_FORMAT, p->total);
	switch (p->unit)
	{
		case WC_UNIT_BYTES_WALKED:
			if (p->table[0] != '\0')
				return errdetail("It has walked about %s of %s bytes of stored table \"%s\".",
								 done, total, p->table);
			return errdetail("It has walked about %s of %s bytes of the server's stored tables.",
							 done, total);
		case WC_UNIT_BYTES_COMPACTED:
			return errdetail("LevelDB is compacting the %s bytes it has walked.", total);
		case WC_UNIT_BYTES_SENT:
			return errdetail("It has sent %s bytes of the transaction's writes to the storage worker.",
							 done);
		case WC_UNIT_BYTES_WRITTEN:
			return errdetail("The storage worker has written %s of %s bytes of the transaction's writes.",
							 done, total);
		case WC_UNIT_RANGES:
			return errdetail("It has dropped %s of %s row ranges.", done, total);
		case WC_UNIT_VERSIONS_EXPORTED:
			if (p->op == WC_PROGRESS_BACKUP)
				return errdetail("It has written %s cell versions of stored table \"%s\" to its file.",
								 done, p->table);
			return errdetail("It has written %s cell versions to the file.", done);
		case WC_UNIT_FILE_BYTES:
			if (p->op == WC_PROGRESS_RESTORE)
				return errdetail("It has read %s of %s bytes of the file of stored table \"%s\".",
								 done, total, p->table);
			return errdetail("It has read %s of %s bytes of the file.", done, total);
	}
	return 0;
}

/* The NOTICE of p, running for secs. */
static void
notice(const WcProgress *p, int secs)
{
	const char *name = p->op == WC_PROGRESS_COMMIT ? "COMMIT" :
		psprintf("widecolumn.%s()", op_names[p->op]);

	ereport(NOTICE,
			(errmsg_plural("%s has been running for %d second",
						   "%s has been running for %d seconds", secs, name, secs),
			 errdetail_progress(p)));
}

/*
 * wc_progress_tick
 *		While this session waits: the NOTICE, if one is due.
 */
void
wc_progress_tick(void)
{
	TimestampTz now;
	WcProgress	p;

	if (!running || !interactive())
		return;
	now = GetCurrentTimestamp();
	if (!TimestampDifferenceExceeds(last_notice, now, notice_interval * 1000))
		return;
	wc_progress_read(my_slot(), &p);
	if (!TimestampDifferenceExceeds(p.started, now, notice_interval * 1000))
		return;
	last_notice = now;
	notice(&p, (int) ((now - p.started) / USECS_PER_SEC));
}

/* An error ends the operation with the transaction. */
static void
xact_cb(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
		event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PREPARE)
		wc_progress_end();
}

void
wc_progress_init(void)
{
	DefineCustomIntVariable("widecolumn_fdw.debug_progress_notice_interval",
							"Sets how long long work runs before a NOTICE says how far it is, and how often one is repeated (for tests).",
							NULL,
							&notice_interval,
							10, 0, 3600,
							PGC_USERSET,
							GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE | GUC_UNIT_S,
							NULL, NULL, NULL);
	RegisterXactCallback(xact_cb, NULL);
}

/*
 * widecolumn.progress() RETURNS TABLE (pid int, operation text, table_name
 *		text, done bigint, total bigint, unit text)
 */
Datum
wc_progress_view(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	if (wc_shared == NULL)
		return (Datum) 0;
	for (int i = 0; i < wc_shared->nslots; i++)
	{
		WcProgress	p;
		Datum		values[6];
		bool		nulls[6] = {0};

		wc_progress_read(i, &p);
		if (p.pid == 0 || p.op == WC_PROGRESS_NONE)
			continue;
		values[0] = Int32GetDatum(p.pid);
		values[1] = CStringGetTextDatum(op_names[p.op]);
		nulls[2] = p.table[0] == '\0';
		values[2] = CStringGetTextDatum(p.table);
		values[3] = Int64GetDatum((int64) p.done);
		nulls[4] = !p.has_total;
		values[4] = Int64GetDatum((int64) p.total);
		values[5] = CStringGetTextDatum(unit_names[p.unit]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
