/*-------------------------------------------------------------------------
 *
 * partorder.c
 *	  The SQL order a scan of a table whose row key is made of parts
 *	  returns its rows in: pathkeys, so that ORDER BY the leading parts
 *	  needs no Sort and a LIMIT can stop the scan (plan.c).
 *
 * Keys are read in byte order.  A part of fixed width (an integer, a date,
 * a timestamp: rowkey.c) sorts as its values do, so the keys sort by it and
 * then by the parts after it; a reversed one (rowkey_reverse) sorts
 * descending.  A text part sorts as its values in collation "C" only when
 * it is the last part: before a delimiter, "a b#..." sorts before "a#..."
 * (a space is less than "#") although "a" < "a b".  A part that an
 * equality fixes (its equivalence class holds a constant) orders nothing
 * and does not stop the parts after it from ordering the rows, whatever
 * its type.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "optimizer/paths.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/typcache.h"

#include "fdw/fdw.h"
#include "fdw/model/model.h"
#include "fdw/planner/planner.h"

/*
 * wc_parts_pathkeys
 *		The order of a scan of t's keys, forward or backward.
 */
List *
wc_parts_pathkeys(PlannerInfo *root, RelOptInfo *baserel, WcTable *t, bool backward)
{
	List	   *pathkeys = NIL;
	Oid			relid = planner_rt_fetch(baserel->relid, root)->relid;

	/* as in plan.c: a child's order would need its parent's classes */
	if (IS_OTHER_REL(baserel))
		return NIL;
	for (int p = 0; p < t->nparts; p++)
	{
		WcColumn   *col = &t->cols[t->part_attnum[p] - 1];
		Oid			type;
		int32		typmod;
		Oid			collation;
		TypeCacheEntry *tc;
		bool		desc = col->rowkey_reverse != backward;
		bool		orders;
		List	   *pk;
		Var		   *var;

		/* the column as the query names it: a domain, not its base type */
		get_atttypetypmodcoll(relid, t->part_attnum[p], &type, &typmod, &collation);
		tc = lookup_type_cache(col->type, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
		if (!OidIsValid(tc->lt_opr) || !OidIsValid(tc->gt_opr))
			break;
		var = makeVar(baserel->relid, t->part_attnum[p], type, typmod, collation, 0);
		pk = build_expression_pathkey(root, (Expr *) var, NULL,
									  desc ? tc->gt_opr : tc->lt_opr, baserel->relids, true);
		if (pk == NIL)
			break;
		if (EC_MUST_BE_REDUNDANT(((PathKey *) linitial(pk))->pk_eclass))
			continue;
		orders = wc_segment_fixed_width(col->type) ||
			(p == t->nparts - 1 && OidIsValid(collation) && lc_collate_is_c(collation));
		if (!orders)
			break;
		if (!list_member_ptr(pathkeys, linitial(pk)))
			pathkeys = lappend(pathkeys, linitial(pk));
	}
	return pathkeys;
}
