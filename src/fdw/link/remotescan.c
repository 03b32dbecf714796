/*-------------------------------------------------------------------------
 *
 * remotescan.c
 *	  A scan's batches on the link to the storage worker: asked for ahead,
 *	  kept per scan, handed out in order.
 *
 * A scan asks for its next batch as soon as it receives one (before the
 * executor reads it), so the worker fills batch n+1 while this backend
 * decodes batch n; when two scans are open at once, an answer that belongs
 * to the other scan is kept for it (client.c hands each answer to the scan
 * that expects it: wc_scans_answer).
 *
 * Scans are named by id, not pointer, and their state lives here, in
 * memory of our own, so that executor memory freed at abort never leaves a
 * dangling pointer behind.  They go with the link when it is dropped.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "utils/memutils.h"

#include "fdw/fdw.h"
#include "fdw/link/link.h"

/*
 * How many batches a scan asks for ahead of the one being read: with two,
 * the worker has the next request in hand when it finishes a batch and
 * does not wait for this backend to wake up.
 */
#define WC_SCAN_AHEAD		2

/* A scan's state on our side. */
typedef struct WcRemoteScan
{
	uint32		id;
	SubTransactionId subid;
	bool		finished;		/* the last batch has been handed out */
	int			asked;			/* answers on their way */
	int			nready;			/* answers received, not handed out */
	int			head;			/* the first of them in ready[] */
	StringInfoData current;		/* the batch being read */
	StringInfoData ready[WC_SCAN_AHEAD];
	uint64		entries;
	uint64		skipped;		/* rows its filters left out */
	uint64		requests;		/* calls to a remote store it took */
} WcRemoteScan;

static List *scans = NIL;		/* WcRemoteScan, in scan_cxt */
static MemoryContext scan_cxt = NULL;

static WcRemoteScan *
find_scan(uint32 id)
{
	ListCell   *lc;

	foreach(lc, scans)
	{
		WcRemoteScan *s = lfirst(lc);

		if (s->id == id)
			return s;
	}
	return NULL;
}

/*
 * wc_client_scan_begin
 *		Start a scan of ranges (WcKeyRange, ascending and disjoint).
 *
 * cols are the escaped family+qualifier of the cells wanted; a batch names
 * a cell by its position in this array.  The scan belongs to subtransaction
 * subid, and goes when that one is rolled back: the one whose statement,
 * or cursor, it serves, which may be older than the current one.
 */
uint32
wc_client_scan_begin(WcTable *t, uint32 db, uint32 snapshot, uint64 as_of, bool as_of_start,
					 List *ranges,
					 bool reverse, bool bulk, bool versions, uint64 limit,
					 uint8 **cols, size_t *col_lens, int ncols,
					 const WcScanFilter *filters, int nfilters,
					 SubTransactionId subid)
{
	WcScanRequest req;
	uint32		id;

	memset(&req, 0, sizeof(req));
	req.snapshot = snapshot;
	req.flags = (reverse ? WC_SCAN_REVERSE : 0) | (bulk ? WC_SCAN_BULK : 0) |
		(versions ? WC_SCAN_VERSIONS : 0) | (nfilters > 0 ? WC_SCAN_FILTER : 0);
	/* REPEATABLE READ's time on a Bigtable server (wc_bigtable_read_time) */
	if (as_of_start)
		req.flags |= WC_SCAN_AS_OF_START;
	req.nfilters = nfilters;
	req.filters = (WcScanFilter *) filters;
	req.limit = limit;
	req.as_of = as_of;
	req.ncols = ncols;
	req.cols = palloc(sizeof(WcBytes) * (ncols + 1));
	for (int i = 0; i < ncols; i++)
	{
		req.cols[i].data = cols[i];
		req.cols[i].len = col_lens[i];
	}
	id = wc_client_scan_request(db, &req, ranges, subid);
	pfree(req.cols);
	return id;
}

/*
 * wc_client_scan_request
 *		Start the scan req asks for, of ranges; req's db, scan and ranges
 *		are filled in here.
 */
uint32
wc_client_scan_request(uint32 db, WcScanRequest *req, List *ranges, SubTransactionId subid)
{
	StringInfoData msg;
	WcRemoteScan *s;
	MemoryContext old;
	uint32		wid;

	wid = wc_client_db_id(db);	/* the link made, and the handle checked */
	if (scan_cxt == NULL)
		scan_cxt = AllocSetContextCreate(TopMemoryContext, "widecolumn_fdw scans",
										 ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(scan_cxt);
	s = palloc0(sizeof(WcRemoteScan));
	s->id = wc_client_new_id();
	s->subid = subid;
	initStringInfo(&s->current);
	for (int i = 0; i < WC_SCAN_AHEAD; i++)
		initStringInfo(&s->ready[i]);
	scans = lappend(scans, s);
	MemoryContextSwitchTo(old);

	req->db = wid;
	req->scan = s->id;
	req->nranges = list_length(ranges);
	req->ranges = wc_client_wire_ranges(ranges);
	initStringInfo(&msg);
	wc_write_scan(&msg, req);
	pfree(req->ranges);
	s->asked = 1;
	wc_client_send_for_scan(&msg, s->id);
	return s->id;
}

/*
 * wc_client_scan_next_batch
 *		Hand out the scan's next batch; false when there is none.
 *
 * The batch stays valid until the next call for the same scan.
 */
bool
wc_client_scan_next_batch(uint32 id, WcBatchReader *out)
{
	WcRemoteScan *s = find_scan(id);
	StringInfoData tmp;
	WcReader	r;
	WcBatchHeader header;

	if (s == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("widecolumn_fdw scan is no longer open"),
				 errdetail("The link to the storage worker was lost or the transaction ended.")));
	if (s->finished)
		return false;

	while (s->nready == 0)
	{
		wc_client_wait_for_answer();
		if (find_scan(id) != s)
			return false;		/* cannot happen: a lost link raises */
	}

	/* The answer taken becomes current; its buffer is reused next. */
	tmp = s->current;
	s->current = s->ready[s->head];
	s->ready[s->head] = tmp;
	s->head = (s->head + 1) % WC_SCAN_AHEAD;
	s->nready--;

	if (wc_is_error(s->current.data, s->current.len))
	{
		s->finished = true;
		wc_client_raise_error(&s->current);
	}
	wc_reader_init(&r, s->current.data, s->current.len);
	if (!wc_read_batch(&r, &header))
		wc_client_unexpected_answer();
	out->done = header.done;
	out->rows_left = header.nrows;
	s->entries += header.entries;
	s->skipped += header.skipped;
	s->requests += header.requests;
	out->r = r;

	if (out->done)
		s->finished = true;
	else
	{
		/*
		 * Ask for the next batches now, so the worker works while we read.
		 * One of them may come after the last: the worker answers it with
		 * an empty last batch, which nobody reads.
		 */
		while (s->asked + s->nready < WC_SCAN_AHEAD)
		{
			StringInfoData msg;

			initStringInfo(&msg);
			wc_write_next(&msg, s->id);
			s->asked++;
			wc_client_send_for_scan(&msg, s->id);
		}
	}
	return true;
}

uint64
wc_client_scan_entries(uint32 id)
{
	WcRemoteScan *s = find_scan(id);

	return s ? s->entries : 0;
}

uint64
wc_client_scan_skipped(uint32 id)
{
	WcRemoteScan *s = find_scan(id);

	return s ? s->skipped : 0;
}

uint64
wc_client_scan_requests(uint32 id)
{
	WcRemoteScan *s = find_scan(id);

	return s ? s->requests : 0;
}

/*
 * Forget a scan here, and close it at the worker if it is not over.  Its
 * batches still on their way are cancelled first: the CLOSE waits behind
 * them, and a call to Bigtable for one (a LIMIT met, a cancel, an error
 * elsewhere) would otherwise run to its end or its deadline.
 */
static void
scan_forget(WcRemoteScan *s)
{
	if (!s->finished && s->asked > 0)
		wc_client_cancel_scan(s->id);
	if (!s->finished && wc_client_can_send())
	{
		StringInfoData msg;

		initStringInfo(&msg);
		wc_write_close(&msg, s->id);
		wc_client_send(&msg);
	}
	/* An answer still on its way finds no scan and is dropped. */
	scans = list_delete_ptr(scans, s);
	pfree(s->current.data);
	for (int i = 0; i < WC_SCAN_AHEAD; i++)
		pfree(s->ready[i].data);
	pfree(s);
}

static void
scan_forget_cb(void *arg)
{
	scan_forget(arg);
}

void
wc_client_scan_end(uint32 id)
{
	WcRemoteScan *s = find_scan(id);

	if (s == NULL)
		return;
	if (IsTransactionState())
		scan_forget(s);
	else
		wc_client_quietly(scan_forget_cb, s);	/* a portal dropped in an abort */
}

/*
 * wc_scans_subxact_abort
 *		Close the scans a rolled-back subtransaction opened (the link can
 *		send: client.c checked).
 */
void
wc_scans_subxact_abort(SubTransactionId subid)
{
	ListCell   *lc;

	foreach(lc, scans)
	{
		WcRemoteScan *s = lfirst(lc);

		if (s->subid >= subid)
		{
			scan_forget(s);
			/* the list changed under us: start over */
			wc_scans_subxact_abort(subid);
			return;
		}
	}
}

/*
 * wc_scans_answer
 *		An answer arrived for scan id (client.c): keep it until it is read.
 *		A scan that was closed meanwhile drops it.
 */
void
wc_scans_answer(uint32 id, const void *data, size_t len)
{
	WcRemoteScan *s = find_scan(id);
	StringInfo	slot;

	if (s == NULL)
		return;
	slot = &s->ready[(s->head + s->nready) % WC_SCAN_AHEAD];
	Assert(s->asked > 0 && s->nready < WC_SCAN_AHEAD);
	resetStringInfo(slot);
	appendBinaryStringInfo(slot, data, len);
	s->nready++;
	s->asked--;
}

/* Is a scan open (a new worker could not continue it)? */
bool
wc_scans_open(void)
{
	return scans != NIL;
}

/*
 * At the transaction's end: forget every scan left open, closing it at the
 * worker when the link can send.
 */
void
wc_scans_forget_all(void)
{
	while (scans != NIL)
		scan_forget(linitial(scans));
}

/* The link is dropped: forget every scan; the worker frees its own. */
void
wc_scans_drop(void)
{
	scans = NIL;
	if (scan_cxt != NULL)
		MemoryContextReset(scan_cxt);
}
