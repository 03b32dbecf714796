/*-------------------------------------------------------------------------
 *
 * onconflict.c
 *	  What to do instead of INSERT ... ON CONFLICT (target) on a foreign
 *	  table of ours, said when the statement is analyzed.
 *
 * PostgreSQL infers an ON CONFLICT target from a unique index, which a
 * foreign table cannot have, so `ON CONFLICT (rowkey) DO UPDATE` fails in
 * the planner with "there is no unique or exclusion constraint matching
 * the ON CONFLICT specification" and no word of why.  On a Bigtable-model
 * table the statement is not needed: an INSERT already overwrites the
 * cells it names (Bigtable's upsert), and ON CONFLICT DO NOTHING without a
 * target skips keys that exist (modify.c).  The post-parse-analysis hook
 * refuses the forms that cannot work, with that advice.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "nodes/parsenodes.h"
#include "parser/analyze.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"

#include "fdw/exec/exec.h"
#include "fdw/keys/keys.h"

static post_parse_analyze_hook_type prev_post_parse_analyze = NULL;

static void
check_query(Query *query)
{
	OnConflictExpr *oc = query->onConflict;
	RangeTblEntry *rte;
	ListCell   *lc;

	/* WITH (INSERT ... ON CONFLICT ...) */
	foreach(lc, query->cteList)
	{
		CommonTableExpr *cte = lfirst(lc);

		if (IsA(cte->ctequery, Query))
			check_query((Query *) cte->ctequery);
	}
	if (query->commandType != CMD_INSERT || oc == NULL || query->resultRelation == 0)
		return;
	/* DO NOTHING without a target needs no index: modify.c does it */
	if (oc->action == ONCONFLICT_NOTHING && oc->arbiterElems == NIL && oc->constraint == InvalidOid)
		return;
	rte = rt_fetch(query->resultRelation, query->rtable);
	if (rte->relkind != RELKIND_FOREIGN_TABLE || !wc_is_widecolumn_table(rte->relid))
		return;
	if (oc->action == ONCONFLICT_UPDATE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("INSERT ... ON CONFLICT DO UPDATE is not supported on foreign table \"%s\"",
						get_rel_name(rte->relid)),
				 errdetail("An INSERT into a widecolumn_fdw table already overwrites the cells it names in an existing row, as Bigtable's writes do."),
				 errhint("Leave out the ON CONFLICT clause; to insert only rows whose key does not exist, use ON CONFLICT DO NOTHING without a conflict target.")));
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("ON CONFLICT with a conflict target is not supported on foreign table \"%s\"",
					get_rel_name(rte->relid)),
			 errdetail("A foreign table has no unique index to infer it from; its rows are unique by row key."),
			 errhint("Use ON CONFLICT DO NOTHING without a conflict target: it skips the rows whose key exists.")));
}

static void
wc_post_parse_analyze(ParseState *pstate, Query *query, JumbleState *jstate)
{
	if (prev_post_parse_analyze)
		prev_post_parse_analyze(pstate, query, jstate);
	check_query(query);
}

void
wc_onconflict_init(void)
{
	prev_post_parse_analyze = post_parse_analyze_hook;
	post_parse_analyze_hook = wc_post_parse_analyze;
}
