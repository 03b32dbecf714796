/*-------------------------------------------------------------------------
 *
 * rangedelete.c
 *	  DELETE by row-key ranges alone, done as drop_row_range does it: one
 *	  drop per range (droprange.c), not a tombstone per row.
 *
 * A DELETE whose rows are exactly a set of row-key ranges (a prefix, a
 * range, or no WHERE at all; with keys as well), with no other condition,
 * no RETURNING and no row trigger (PostgreSQL checks that before it asks),
 * is planned as a direct modification: the foreign scan that would hand
 * the ModifyTable its rows instead counts them, for the command's row
 * count, and then drops its ranges in the transaction.  Counting reads a
 * row's first entry (the scan asks for no cell), where a DELETE row by
 * row also locks and rereads each row and writes a tombstone for it.
 *
 * What such a DELETE removes is every row of the ranges as of its COMMIT,
 * including rows other sessions INSERT into them and commit before then
 * (README, "Dropping row ranges"); unlike drop_row_range, it removes them
 * as a row tombstone on each would, so that a read as of an earlier time
 * still finds the versions the policies keep.  Like
 * drop_row_range it locks every row of the table (rowlock.c), so an UPDATE,
 * DELETE or SELECT ... FOR UPDATE of another session waits for it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/explain.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "nodes/execnodes.h"
#include "nodes/plannodes.h"
#include "optimizer/pathnode.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "fdw/exec/exec.h"
#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/model/model.h"
#include "fdw/planner/planner.h"
#include "fdw/read/read.h"
#include "fdw/xact/xact.h"

/* After the scan's elements in fdw_private: does it set the row count? */
#define WcDirectPrivateSetProcessed	WcScanPrivateCount

/* The ForeignScan that feeds the result relation rtindex, if it is one. */
static ForeignScan *
result_scan(ModifyTable *plan, Index rtindex, int subplan_index)
{
	Plan	   *subplan = outerPlan(plan);

	/* a partition's is an Append's child; a join below means no */
	if (IsA(subplan, Result) && outerPlan(subplan) != NULL &&
		IsA(outerPlan(subplan), Append))
		subplan = outerPlan(subplan);
	if (IsA(subplan, Append) &&
		subplan_index < list_length(((Append *) subplan)->appendplans))
		subplan = list_nth(((Append *) subplan)->appendplans, subplan_index);
	if (IsA(subplan, ForeignScan) &&
		((ForeignScan *) subplan)->scan.scanrelid == rtindex)
		return (ForeignScan *) subplan;
	return NULL;
}

/*
 * Is every LIKE of the key condition a plain prefix, given as a constant?
 * One with wildcards inside would have the scan check rows itself.
 */
static bool
likes_are_prefixes(List *cond, List *exprs, bool bytes)
{
	ListCell   *lc;

	if (cond == NIL)
		return true;
	for_each_from(lc, cond, 1)
	{
		List	   *atom = lfirst(lc);
		Const	   *c;
		struct varlena *pat;
		StringInfoData prefix;
		bool		pure,
					no_wildcard;

		if (intVal(linitial(atom)) != WC_KEY_LIKE || list_length(atom) < 4)
			continue;
		c = list_nth(exprs, intVal(lsecond(atom)));
		if (!IsA(c, Const))
			return false;
		if (c->constisnull)
			continue;
		pat = PG_DETOAST_DATUM_PACKED(c->constvalue);
		initStringInfo(&prefix);
		wc_like_prefix(VARDATA_ANY(pat), VARSIZE_ANY_EXHDR(pat), bytes,
					   &prefix, &pure, &no_wildcard);
		if (!pure)
			return false;
	}
	return true;
}

/*
 * Does the key condition select a range of keys, not only single keys?  A
 * DELETE of a few rows by their keys stays one row at a time: it locks
 * only those rows, where a drop locks every row of the table.
 */
static bool
has_range(List *node)
{
	ListCell   *lc;

	if (node == NIL)
		return true;			/* the whole table */
	switch (intVal(linitial(node)))
	{
		case WC_KEY_AND:
		case WC_KEY_OR:
			for_each_from(lc, node, 1)
				if (has_range(lfirst(lc)))
					return true;
			return false;
		case WC_KEY_EQ:
		case WC_KEY_IN:
			return false;
		default:
			return true;
	}
}

/*
 * wc_plan_range_delete
 *		PlanDirectModify for a mapped-layout table: true if the DELETE is by
 *		row-key ranges alone.
 */
bool
wc_plan_range_delete(PlannerInfo *root, ModifyTable *plan, Index resultRelation,
					 int subplan_index)
{
	ForeignScan *fscan;
	WcTable    *t;

	if (plan->operation != CMD_DELETE || plan->returningLists != NIL)
		return false;
	fscan = result_scan(plan, resultRelation, subplan_index);
	if (fscan == NULL || fscan->scan.plan.qual != NIL)
		return false;
	t = wc_get_table(planner_rt_fetch(resultRelation, root)->relid);
	/* a Bigtable server's rows are deleted one by one (no range records yet) */
	if (t->engine == WC_ENGINE_BIGTABLE)
		return false;
	if (!has_range(list_nth(fscan->fdw_private, WcScanPrivateCond)) ||
		!likes_are_prefixes(list_nth(fscan->fdw_private, WcScanPrivateCond), fscan->fdw_exprs,
							t->nparts == 0 &&
							t->cols[t->rowkey_attnum - 1].type == BYTEAOID))
		return false;
	fscan->operation = CMD_DELETE;
	fscan->resultRelation = resultRelation;
	fscan->fdw_private = lappend(list_copy(fscan->fdw_private),
								 makeBoolean(plan->canSetTag));
	return true;
}

static void
wcBeginDirectModify(ForeignScanState *node, int eflags)
{
	WcScanState *ss;

	/* the scan's state, as it would read the rows (cellroute.c routes it) */
	node->fdwroutine->BeginForeignScan(node, eflags);
	ss = node->fdw_state;
	if (ss == NULL)
		return;					/* EXPLAIN */
	wc_ssi_write(node->ss.ss_currentRelation);
	/* every row locked at once, before the rows are counted (rowlock.c) */
	wc_txn_lock_all_rows(ss->table);
	ss->lock_rows = false;
}

/*
 * A bound of a scan's key range (table | escaped key, its terminator
 * 00 01 made 00 02 for "after the key"; or the table's own start or end)
 * as a row key: "after k" is k followed by a zero byte, the next key.
 * Returns NULL for the table's end.
 */
static uint8 *
bound_row_key(WcTable *t, const uint8 *b, size_t blen, size_t *len)
{
	size_t		tk = t->table_key_len;
	uint8	   *esc;
	uint8	   *raw;
	size_t		consumed;
	bool		after;

	if (blen == tk)
	{
		*len = 0;
		return memcmp(b, t->table_key, tk) == 0 ? palloc(1) : NULL;
	}
	esc = memcpy(palloc(blen - tk), b + tk, blen - tk);
	after = esc[blen - tk - 1] == 0x02;
	esc[blen - tk - 1] = 0x01;
	raw = palloc(blen - tk + 1);
	if (wc_unescape(esc, blen - tk, raw, &consumed, len) != 0 || consumed != blen - tk)
		elog(ERROR, "a key range of foreign table \"%s\" has a malformed bound", t->relname);
	if (after)
		raw[(*len)++] = 0x00;
	return raw;
}

static TupleTableSlot *
wcIterateDirectModify(ForeignScanState *node)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	WcScanState *ss = node->fdw_state;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	EState	   *estate = node->ss.ps.state;
	uint64		rows = 0;
	ListCell   *lc;

	if (ss->ranges_dropped)
		return ExecClearTuple(slot);

	/* the rows the DELETE removes, as the statement sees them */
	for (;;)
	{
		TupleTableSlot *row = node->fdwroutine->IterateForeignScan(node);

		if (TupIsNull(row))
			break;
		rows++;
	}
	foreach(lc, ss->ranges)
	{
		WcKeyRange *r = lfirst(lc);
		size_t		slen,
					elen;
		uint8	   *start = bound_row_key(ss->table, r->start, r->start_len, &slen);
		uint8	   *end = bound_row_key(ss->table, r->end, r->end_len, &elen);

		wc_rowdrop(ss->table, start, slen, end, elen, true);
	}
	ss->ranges_dropped = true;

	if (boolVal(list_nth(plan->fdw_private, WcDirectPrivateSetProcessed)))
		estate->es_processed += rows;
	if (node->ss.ps.instrument)
		node->ss.ps.instrument->tuplecount += rows;
	return ExecClearTuple(slot);
}

static void
wcEndDirectModify(ForeignScanState *node)
{
	node->fdwroutine->EndForeignScan(node);
}

static void
wcExplainDirectModify(ForeignScanState *node, ExplainState *es)
{
	node->fdwroutine->ExplainForeignScan(node, es);
	ExplainPropertyText("Delete", "the row ranges, as drop_row_range", es);
}

void
wc_range_delete_register(FdwRoutine *routine)
{
	routine->BeginDirectModify = wcBeginDirectModify;
	routine->IterateDirectModify = wcIterateDirectModify;
	routine->EndDirectModify = wcEndDirectModify;
	routine->ExplainDirectModify = wcExplainDirectModify;
}
