/*-------------------------------------------------------------------------
 *
 * joinpaths.c
 *	  Parameterized paths: a scan that reads, once per outer row of a
 *	  nested loop, only the keys that row's values select.
 *
 * Any join clause the row-key index can answer (pushdown.c) with the outer
 * values as parameters makes one: equality on the whole key or on the
 * leading key parts, IN on them, a prefix (rowkey LIKE n.p || '%'), a
 * range on the key or on the part after the equal ones (rowkey >= n.lo AND
 * rowkey < n.hi).  A LATERAL subquery that is pulled up gives the same
 * join clauses.  The executor computes the key ranges again from the new
 * values at each rescan (scan.c); a NULL value selects no key.
 *
 * Each path is costed as what one probe reads, so that the planner takes
 * it when few outer rows probe a large table, and a plain scan with a hash
 * or merge join when the outer side is large or a probe reads much.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"

#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/planner/planner.h"

/* Is this member of an equivalence class a key column of rel? */
static bool
ec_matches_key(PlannerInfo *root, RelOptInfo *rel, EquivalenceClass *ec,
			   EquivalenceMember *em, void *arg)
{
	WcTable    *t = arg;
	Expr	   *e = em->em_expr;
	AttrNumber	a;

	while (e && IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	if (e == NULL || !IsA(e, Var) || ((Var *) e)->varno != rel->relid)
		return false;
	a = ((Var *) e)->varattno;
	if (t->nparts == 0)
		return a == t->rowkey_attnum;
	for (int p = 0; p < t->nparts; p++)
		if (t->part_attnum[p] == a)
			return true;
	return false;
}

/*
 * probe_rows
 *		How many rows one probe with this condition reads: a whole key, or
 *		every part equal to one value, names one row.
 */
static double
probe_rows(PlannerInfo *root, RelOptInfo *baserel, WcTable *t, List *cond, List *pushed)
{
	ListCell   *lc;

	for_each_from(lc, cond, 1)
	{
		List	   *atom = lfirst(lc);
		int			kind = intVal(linitial(atom));

		if (kind == WC_KEY_EQ)
			return 1;
		if (kind == WC_KEY_PARTS && intVal(lsecond(atom)) == t->nparts)
		{
			bool		any_in = false;

			/* after the counts and bounds, whether each part is "= ANY" */
			for (int i = 0; i < t->nparts; i++)
				if (intVal(list_nth(atom, 6 + t->nparts + i)))
					any_in = true;
			if (!any_in)
				return 1;
		}
	}
	return clamp_row_est(baserel->tuples *
						 clauselist_selectivity(root, pushed, baserel->relid, JOIN_INNER, NULL));
}

/*
 * add_probe_path
 *		The path that reads what the join clauses movable to baserel, with
 *		outer's values as parameters, and the restrictions select; none if
 *		no join clause narrows the scan.
 */
static void
add_probe_path(PlannerInfo *root, RelOptInfo *baserel, WcTable *t, Relids outer)
{
	ParamPathInfo *ppi = get_baserel_parampathinfo(root, baserel, outer);
	List	   *exprs;
	List	   *local;
	List	   *pushed;
	List	   *cond;
	bool		narrows = false;
	double		rows_read;
	Cost		startup,
				total;
	ListCell   *lc;

	cond = wc_classify_clauses(root, baserel, t,
							   list_concat_copy(baserel->baserestrictinfo, ppi->ppi_clauses),
							   &exprs, &local, &pushed);
	foreach(lc, ppi->ppi_clauses)
		if (list_member_ptr(pushed, lfirst(lc)))
			narrows = true;
	if (!narrows)
		return;

	rows_read = probe_rows(root, baserel, t, cond, pushed);
	wc_scan_cost(root, rows_read, local, &startup, &total);
	add_path(baserel, (Path *)
			 create_foreignscan_path(root, baserel, NULL, Min(ppi->ppi_rows, rows_read),
									 startup, total, NIL, outer, NULL,
									 list_make2(makeInteger(0), makeInteger(0))));
}

/*
 * wc_add_param_paths
 *		A path per set of outer relations whose values a join clause on the
 *		key compares with, and one for all of them together (a key range
 *		whose bounds come from two relations).
 */
void
wc_add_param_paths(PlannerInfo *root, RelOptInfo *baserel, WcTable *t)
{
	List	   *clauses = list_copy(baserel->joininfo);
	List	   *done = NIL;
	Relids		all = NULL;
	ListCell   *lc;

	if (baserel->has_eclass_joins)
		clauses = list_concat(clauses,
							  generate_implied_equalities_for_column(root, baserel,
																	 ec_matches_key, t,
																	 baserel->lateral_referencers));
	foreach(lc, clauses)
	{
		RestrictInfo *ri = lfirst(lc);
		Relids		outer;
		List	   *exprs;
		List	   *local;
		List	   *pushed;
		ListCell   *lc2;
		bool		seen = false;

		/* a clause on a later part pushes only after the leading ones */
		(void) wc_classify_clauses(root, baserel, t,
								   lappend(list_copy(baserel->baserestrictinfo), ri),
								   &exprs, &local, &pushed);
		if (!list_member_ptr(pushed, ri))
			continue;
		outer = bms_union(bms_difference(ri->clause_relids, baserel->relids),
						  baserel->lateral_relids);
		if (bms_is_empty(outer))
			continue;
		all = bms_union(all, outer);
		foreach(lc2, done)
			if (bms_equal(lfirst(lc2), outer))
				seen = true;
		if (!seen)
			done = lappend(done, outer);
	}
	if (list_length(done) > 1)
		done = lappend(done, all);
	foreach(lc, done)
		add_probe_path(root, baserel, t, lfirst(lc));
}
