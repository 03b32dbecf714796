/*-------------------------------------------------------------------------
 *
 * droprange.c
 *	  Dropping a range of rows at once: widecolumn.drop_row_range
 *	  (Bigtable's DropRowRange), and what the transaction that drops one
 *	  reads and commits.
 *
 * A drop is one cell of the table's row in the table of families
 * (docs/format.md, "Dropped row ranges"), wc:dropped_rows:<range> (for a
 * DELETE by row-key ranges, rangedelete.c, wc:deleted_rows:<range>), written
 * through the transaction's log as drop_family's marker is: rolled back
 * with the transaction, seen by others from its COMMIT on, when its
 * version, the commit's time, hides every older entry of the range
 * (worker/rowdrops.c).  Its cost does not grow with the rows it drops.
 *
 * The transaction itself sees the rows gone at once: its scans leave the
 * range out of what they ask the worker for (wc_rowdrop_ranges), and the
 * writes it made to rows of the range before the drop no longer count
 * (wc_rowdrop_dropped_at, for txn.c's replay).  The drops are listed with
 * their place in the log, so that a scan that began before one does not
 * see it, and ROLLBACK TO SAVEPOINT forgets it with the log.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/memutils.h"

#include "fdw/fdw.h"
#include "fdw/link/link.h"
#include "fdw/model/model.h"
#include "fdw/xact/xact.h"

PG_FUNCTION_INFO_V1(wc_drop_row_range);

/* A drop of this transaction. */
typedef struct WcTxnRowDrop
{
	Oid			serverid;
	char	   *table;
	uint8	   *start;			/* row keys: [start, end) */
	size_t		start_len;
	uint8	   *end;			/* NULL: no end */
	size_t		end_len;
	uint8	   *kstart;			/* the same as LevelDB keys */
	size_t		kstart_len;
	uint8	   *kend;
	size_t		kend_len;
	uint32		logpos;			/* the log's length when it was made */
} WcTxnRowDrop;

static List *txn_drops = NIL;	/* in TopTransactionContext */

/*
 * The cell of a drop, wc:dropped_rows:escape(start)escape(end), or of a
 * range DELETE's tombstone, wc:deleted_rows:...
 */
static uint8 *
drop_famqual(const char *prefix, const uint8 *start, size_t slen, const uint8 *end,
			 size_t elen, size_t *len)
{
	size_t		qcap = strlen(prefix) + WC_ESCAPED_MAX(slen) + WC_ESCAPED_MAX(elen);
	uint8	   *q = palloc(qcap);
	size_t		qlen = strlen(prefix);
	uint8	   *fq = palloc(WC_ESCAPED_MAX(2) + WC_ESCAPED_MAX(qcap));

	memcpy(q, prefix, qlen);
	qlen += wc_escape(start, slen, q + qlen);
	qlen += wc_escape(end, end ? elen : 0, q + qlen);
	*len = wc_escape((const uint8 *) WC_META_FAMILY, strlen(WC_META_FAMILY), fq);
	*len += wc_escape(q, qlen, fq + *len);
	pfree(q);
	return fq;
}

/*
 * wc_rowdrop
 *		Drop the rows of t's stored table whose keys are in [start, end)
 *		(end NULL: to the table's end), in every family, in this
 *		transaction: for drop_row_range, every version of them; with
 *		tombstone (a DELETE), as a row tombstone on each row would, so that
 *		reads as of an earlier time still find the versions the policies
 *		keep.
 */
void
wc_rowdrop(WcTable *t, const uint8 *start, size_t slen, const uint8 *end, size_t elen,
		   bool tombstone)
{
	WcTable    *meta = wc_get_meta_table(t->serverid);
	WcTxnCell	cell;
	WcTxnRowDrop *d;
	MemoryContext old;

	/* a range DELETE is planned row by row there (rangedelete.c) */
	Assert(!(tombstone && t->engine == WC_ENGINE_BIGTABLE));
	PreventCommandIfReadOnly("widecolumn.drop_row_range()");
	wc_as_of_forbid(false);
	/* its one range: what may take long is waiting for the row locks */
	wc_progress_begin(WC_PROGRESS_DROP_ROW_RANGE, t->table, WC_UNIT_RANGES, true, 1);
	wc_txn_lock_all_rows(t);

	old = MemoryContextSwitchTo(TopTransactionContext);
	d = palloc0(sizeof(WcTxnRowDrop));
	d->serverid = t->serverid;
	d->table = pstrdup(t->table);
	d->start = memcpy(palloc(slen + 1), start, slen);
	d->start_len = slen;
	d->kstart = wc_row_key(t, start, slen, &d->kstart_len);
	if (end != NULL)
	{
		d->end = memcpy(palloc(elen + 1), end, elen);
		d->end_len = elen;
		d->kend = wc_row_key(t, end, elen, &d->kend_len);
	}
	else
	{
		/* the table's end: its name's terminator 00 01 made 00 02 */
		d->kend = memcpy(palloc(t->table_key_len), t->table_key, t->table_key_len);
		d->kend_len = t->table_key_len;
		d->kend[d->kend_len - 1]++;
	}
	d->logpos = wc_txn_horizon();
	txn_drops = lappend(txn_drops, d);
	MemoryContextSwitchTo(old);

	memset(&cell, 0, sizeof(cell));
	cell.famqual = drop_famqual(tombstone ? WC_META_DELETED_ROWS : WC_META_DROPPED_ROWS,
								start, slen, end, elen, &cell.famqual_len);
	cell.value = (const uint8 *) "";
	cell.value_len = 0;
	wc_txn_put_row(meta, GetCurrentCommandId(true), (const uint8 *) t->table,
				   strlen(t->table), false, 1, &cell);
	wc_progress_done(WC_UNIT_RANGES, 1);
	wc_progress_end();
}

/*
 * wc_prefix_end
 *		The keys that start with a row-key prefix are [p, the key returned):
 *		palloc'd, or NULL when no key comes after them all.  A prefix longer
 *		than a row key is an error.
 */
uint8 *
wc_prefix_end(const uint8 *p, size_t len, size_t *elen)
{
	uint8	   *succ;

	if (len > WC_MAX_ROWKEY)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row-key prefix is too long"),
				 errdetail("The prefix is %zu bytes; a row key is at most %d.",
						   len, WC_MAX_ROWKEY)));
	succ = memcpy(palloc(len + 1), p, len);
	*elen = len;
	return wc_successor(succ, elen) == 0 ? succ : NULL;
}

/*
 * widecolumn.drop_row_range(t regclass, prefix text) RETURNS void,
 * and the same with a bytea prefix
 *
 * Every row of t's stored table whose key starts with prefix, in every
 * family, mapped by t or not.  It needs DELETE on t, as the DELETE it
 * stands for would.
 */
Datum
wc_drop_row_range(PG_FUNCTION_ARGS)
{
	WcTable    *t;
	bytea	   *prefix;
	const uint8 *p;
	size_t		len;
	uint8	   *succ;
	size_t		slen;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"prefix\" must not be null"),
				 errhint("An empty prefix drops every row of the table.")));
	t = wc_table_arg(fcinfo, ACL_DELETE);
	prefix = PG_GETARG_BYTEA_PP(1);
	p = (const uint8 *) VARDATA_ANY(prefix);
	len = VARSIZE_ANY_EXHDR(prefix);
	succ = wc_prefix_end(p, len, &slen);
	wc_rowdrop(t, p, len, succ, slen, false);
	PG_RETURN_VOID();
}

/* Does d hide rows of a stored table, for a scan that sees the log up to horizon? */
static bool
drop_applies(const WcTxnRowDrop *d, Oid serverid, const char *table, uint32 horizon)
{
	return d->logpos < horizon && d->serverid == serverid && strcmp(d->table, table) == 0;
}

/*
 * wc_rowdrop_dropped_at
 *		If a drop of this transaction before horizon covers the row key of
 *		table tt, the log position the last one was made at, plus one; else
 *		0.  The row's operations before it no longer count.
 */
uint32
wc_rowdrop_dropped_at(WcTxnTable *tt, const uint8 *key, size_t len, uint32 horizon)
{
	ListCell   *lc;
	uint32		at = 0;

	foreach(lc, txn_drops)
	{
		WcTxnRowDrop *d = lfirst(lc);

		if (drop_applies(d, tt->serverid, tt->table, horizon) &&
			wc_compare_bytes(key, len, d->start, d->start_len) >= 0 &&
			(d->end == NULL || wc_compare_bytes(key, len, d->end, d->end_len) < 0))
			at = Max(at, d->logpos + 1);
	}
	return at;
}

/* Is a drop listed at all?  Most transactions have none. */
bool
wc_rowdrop_any(void)
{
	return txn_drops != NIL;
}

/*
 * wc_rowdrop_ranges
 *		The key ranges (WcKeyRange, ascending and disjoint) of a scan of t
 *		that sees the log up to horizon, without the ranges this
 *		transaction dropped before: the worker need not read what is gone
 *		for it.  Its own writes since are merged in as always.
 */
List *
wc_rowdrop_ranges(WcTable *t, uint32 horizon, List *ranges)
{
	ListCell   *lc;

	foreach(lc, txn_drops)
	{
		WcTxnRowDrop *d = lfirst(lc);
		List	   *out = NIL;
		ListCell   *lc2;

		if (!drop_applies(d, t->serverid, t->table, horizon))
			continue;
		foreach(lc2, ranges)
		{
			WcKeyRange *r = lfirst(lc2);
			WcKeyRange *piece;

			/* the part before the drop, then the part after it */
			if (wc_compare_bytes(r->start, r->start_len, d->kstart, d->kstart_len) < 0)
			{
				piece = palloc(sizeof(WcKeyRange));
				*piece = *r;
				if (wc_compare_bytes(r->end, r->end_len, d->kstart, d->kstart_len) > 0)
				{
					piece->end = d->kstart;
					piece->end_len = d->kstart_len;
				}
				out = lappend(out, piece);
			}
			if (wc_compare_bytes(r->end, r->end_len, d->kend, d->kend_len) > 0)
			{
				piece = palloc(sizeof(WcKeyRange));
				*piece = *r;
				if (wc_compare_bytes(r->start, r->start_len, d->kend, d->kend_len) < 0)
				{
					piece->start = d->kend;
					piece->start_len = d->kend_len;
				}
				out = lappend(out, piece);
			}
		}
		ranges = out;
	}
	return ranges;
}

/* The log is cut back to len (ROLLBACK TO SAVEPOINT): so are the drops. */
void
wc_rowdrop_truncate(uint32 len)
{
	while (txn_drops != NIL && ((WcTxnRowDrop *) llast(txn_drops))->logpos >= len)
		txn_drops = list_delete_last(txn_drops);
}

/* The transaction has ended. */
void
wc_rowdrop_reset(void)
{
	/* the memory goes with TopTransactionContext */
	txn_drops = NIL;
}
