/*-------------------------------------------------------------------------
 *
 * explain.c
 *	  EXPLAIN of a widecolumn_fdw scan: the stored table, the rows it reads,
 *	  and with ANALYZE what it read from storage.
 *
 * With constant values the key ranges are computed as the executor would
 * (ranges.c) and shown as keys, a prefix or ranges; with values known only
 * at run time, the key condition is shown as an expression.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "commands/explain.h"
#include "utils/timestamp.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "common/gcpolicy.h"
#include "fdw/exec/exec.h"
#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/meta/meta.h"
#include "fdw/model/model.h"
#include "fdw/planner/planner.h"
#include "fdw/xact/xact.h"

/* The condition in words, for values only known at run time. */
static void
describe_cond(StringInfo out, List *node, List *exprs, List *dpcontext)
{
	int			kind = intVal(linitial(node));
	static const char *const ops[] = {
		[WC_KEY_EQ] = "=", [WC_KEY_IN] = "= ANY", [WC_KEY_LT] = "<",
		[WC_KEY_LE] = "<=", [WC_KEY_GT] = ">", [WC_KEY_GE] = ">=",
		[WC_KEY_PREFIX] = "prefix", [WC_KEY_LIKE] = "LIKE"
	};
	ListCell   *lc;

	if (kind == WC_KEY_PARTS)
	{
		int			neq = intVal(lsecond(node));
		static const char *const cmp[] = {"", "<", "<=", "=", ">=", ">", "prefix"};

		appendStringInfoString(out, "parts");
		for (int i = 0; i < neq; i++)
			appendStringInfo(out, "%s %d %s %s", i == 0 ? "" : ",", i + 1,
							 intVal(list_nth(node, 6 + neq + i)) ? "= ANY" : "=",
							 deparse_expression(list_nth(exprs, intVal(list_nth(node, 2 + i))),
												dpcontext, false, false));
		for (int b = 0; b < 2; b++)
		{
			int			strategy = intVal(list_nth(node, 2 + neq + 2 * b));

			if (strategy != 0)
				appendStringInfo(out, "%s %d %s %s", neq > 0 || b > 0 ? "," : "", neq + 1,
								 cmp[strategy],
								 deparse_expression(list_nth(exprs, intVal(list_nth(node, 3 + neq + 2 * b))),
													dpcontext, false, false));
		}
		return;
	}

	if (kind == WC_KEY_AND || kind == WC_KEY_OR)
	{
		bool		first = true;

		appendStringInfoChar(out, '(');
		for_each_from(lc, node, 1)
		{
			if (!first)
				appendStringInfoString(out, kind == WC_KEY_AND ? " AND " : " OR ");
			describe_cond(out, lfirst(lc), exprs, dpcontext);
			first = false;
		}
		appendStringInfoChar(out, ')');
		return;
	}
	appendStringInfo(out, "%s %s", ops[kind],
					 deparse_expression(list_nth(exprs, intVal(lsecond(node))),
										dpcontext, false, false));
}

/*
 * The ReadRows request a scan of a Bigtable server's table becomes, as
 * postgres_fdw shows its remote SQL: the table, the row set (the key
 * ranges shown above), rows_limit, the direction and the filter.  The
 * filter is each column's newest cell; under as_of, the newest as of then,
 * or every version when a family of the table counts its versions
 * (worker/bigtable/btscan.c).
 */
/*
 * Does a family of t's count versions?  A read as of a time then asks
 * Bigtable for every version, and counts them itself (btscan.c).
 */
static bool
as_of_counts_versions(WcTable *t)
{
	char	  **names;
	char	  **policies;
	char	  **aggregates;
	int			n = wc_family_policies(t, &names, &policies, &aggregates);

	for (int i = 0; i < n; i++)
	{
		WcGcPolicy	p;
		size_t		where;

		if (wc_gc_parse(policies[i], &p, &where) == WC_GC_OK && p.max_versions != 0)
			return true;
	}
	return false;
}

static void
explain_bigtable_request(WcTable *t, int limit, bool reverse, bool filtered, ExplainState *es)
{
	StringInfoData buf;
	uint64		as_of = wc_as_of();
	bool		at_start = false;

	/* REPEATABLE READ's time (wc_bigtable_read_time), which counts nothing newer */
	if (as_of == 0 && IsolationUsesXactSnapshot() && !IsolationIsSerializable())
	{
		as_of = wc_xact_snapshot_time();
		at_start = true;
	}
	initStringInfo(&buf);
	appendStringInfo(&buf, "ReadRows projects/%s/instances/%s/tables/%s",
					 t->bigtable->project, t->bigtable->instance, t->table);
	if (limit > 0)
		appendStringInfo(&buf, ", rows_limit %d", limit);
	if (reverse)
		appendStringInfoString(&buf, ", reversed");
	/* the storage filters that have a value range: worker/bigtable/btfilters.c */
	appendStringInfoString(&buf, filtered ? ", filter condition(Storage Filter) then " : ", filter ");
	if (as_of != 0 && !at_start && as_of_counts_versions(t))
		appendStringInfoString(&buf, "pass_all_filter (every version: a family's policy counts versions, and as_of may pass over newer ones)");
	else if (as_of != 0)
		appendStringInfo(&buf, "chain(timestamp_range_filter(0, " INT64_FORMAT "), cells_per_column_limit_filter(1))",
						 (int64) ((as_of / 1000 + 1) * 1000));
	else
		appendStringInfoString(&buf, "cells_per_column_limit_filter(1)");
	if (t->bigtable->app_profile != NULL)
		appendStringInfo(&buf, ", app_profile_id %s", t->bigtable->app_profile);
	ExplainPropertyText("Bigtable Request", buf.data, es);
}

static void
wcExplainForeignScan(ForeignScanState *node, ExplainState *es)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	Relation	rel = node->ss.ss_currentRelation;
	WcTable    *t = wc_get_table(RelationGetRelid(rel));
	List	   *cond = list_nth(plan->fdw_private, WcScanPrivateCond);
	int			limit = intVal(list_nth(plan->fdw_private, WcScanPrivateLimit));
	bool		all_const = true;
	List	   *key_exprs;
	StringInfoData buf;
	ListCell   *lc;
	uint64		rows;
	uint64		entries;
	uint64		skipped;
	uint64		requests;
	bool		bigtable = t->engine == WC_ENGINE_BIGTABLE;

	ExplainPropertyText("Stored Table", t->table, es);

	/* the key condition's values come first, the storage filters' after */
	initStringInfo(&buf);
	key_exprs = list_copy_head(plan->fdw_exprs, list_length(plan->fdw_exprs) -
							   list_length(list_nth(plan->fdw_private, WcScanPrivateFilters)));
	foreach(lc, key_exprs)
		if (!IsA(lfirst(lc), Const))
			all_const = false;
	if (all_const)
	{
		Datum	   *values;
		bool	   *nulls;
		const char *label;

		wc_scan_key_values(key_exprs, NULL, &values, &nulls);
		(void) wc_eval_key_ranges(cond, values, nulls, t, &label, &buf);
		ExplainPropertyText(label, buf.data, es);
	}
	else
	{
		List	   *dpcontext = set_deparse_context_plan(es->deparse_cxt,
														 (Plan *) plan, NIL);
		List	   *only = list_length(cond) == 2 ? lsecond(cond) : NULL;

		/* one comparison reads best without parentheses */
		if (only != NULL && intVal(linitial(only)) > WC_KEY_OR)
		{
			describe_cond(&buf, only, plan->fdw_exprs, dpcontext);
			ExplainPropertyText(intVal(linitial(only)) == WC_KEY_EQ ? "Row Key" : "Row Key Condition",
								buf.data, es);
		}
		else
		{
			describe_cond(&buf, cond, plan->fdw_exprs, dpcontext);
			ExplainPropertyText("Row Key Condition", buf.data, es);
		}
	}
	{
		char	   *filter = wc_storefilter_explain(plan, rel, t,
													set_deparse_context_plan(es->deparse_cxt,
																			 (Plan *) plan, NIL));

		if (filter != NULL)
			ExplainPropertyText("Storage Filter", filter, es);
	}
	if (intVal(list_nth(plan->fdw_private, WcScanPrivateReverse)))
		ExplainPropertyText("Scan Direction", "Reverse", es);
	if (limit > 0)
		ExplainPropertyInteger("Storage Limit", NULL, limit, es);
	if (wc_as_of() != 0)
	{
		TimestampTz ts = (TimestampTz) wc_as_of() - WC_UNIX_TO_PG_US;

		ExplainPropertyText("As Of", timestamptz_to_str(ts), es);
	}

	if (bigtable)
		explain_bigtable_request(t, limit,
								 intVal(list_nth(plan->fdw_private, WcScanPrivateReverse)) != 0,
								 list_nth(plan->fdw_private, WcScanPrivateFilters) != NIL, es);

	wc_parscan_explain(node, es);
	if (es->analyze && bigtable &&
		wc_scan_storage_read(node, &rows, &entries, &skipped, &requests))
	{
		/* what Bigtable sent: rows the policies left nothing of among them */
		ExplainPropertyUInteger("Bigtable Requests", NULL, requests, es);
		ExplainPropertyUInteger("Rows Received", NULL, rows, es);
		ExplainPropertyUInteger("Cells Received", NULL, entries, es);
	}
	else if (es->analyze && wc_scan_storage_read(node, &rows, &entries, &skipped, &requests))
	{
		ExplainPropertyUInteger("Storage Rows Read", NULL, rows, es);
		ExplainPropertyUInteger("Storage Entries Read", NULL, entries, es);
		if (list_nth(plan->fdw_private, WcScanPrivateFilters) != NIL)
			ExplainPropertyUInteger("Rows Removed by Storage Filter", NULL, skipped, es);
	}
}

void
wc_explain_register(FdwRoutine *routine)
{
	routine->ExplainForeignScan = wcExplainForeignScan;
}
