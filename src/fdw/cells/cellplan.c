/*-------------------------------------------------------------------------
 *
 * cellplan.c
 *	  Planning and EXPLAIN of a scan of a cells-layout foreign table
 *	  (OPTIONS (layout 'cells')): one row per cell version, in Bigtable's
 *	  order (row key, family, qualifier, timestamp descending).
 *
 * Row-key conditions become key ranges as for a mapped table (pushdown.c);
 * conditions on family (=, IN), qualifier (=, IN, <, <=, >, >=, LIKE
 * 'prefix%') and ts (<, <=, =, >=, >) become filters the storage worker
 * seeks by (cellversions.c).  Every condition also stays a qual the
 * executor checks, so a filter only has to include the versions that
 * match, and a query's answer never depends on what was pushed.  The path
 * is ordered by (rowkey, family, qualifier, ts DESC), as far as the
 * columns' collations order bytewise.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "optimizer/appendinfo.h"
#include "nodes/makefuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/timestamp.h"

#include "fdw/cells/cells.h"
#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/link/link.h"
#include "fdw/model/model.h"
#include "fdw/xact/xact.h"

/* Planner state, in RelOptInfo.fdw_private. */
typedef struct WcCellsPlan
{
	WcCellsTable *ct;
	List	   *cond;			/* row-key condition */
	List	   *exprs;			/* the values it and the filters compare with */
	List	   *key_clauses;	/* RestrictInfos the key ranges answer */
	List	   *filters;
	List	   *filter_clauses; /* Exprs the filters answer */
} WcCellsPlan;

/* Bytes a stored version takes, for estimates before ANALYZE. */
#define WC_EST_VERSION_BYTES	48

static const char *const cells_columns[] = {"rowkey", "family", "qualifier", "ts", "value"};

static pg_attribute_noreturn() void
bad_column(WcTable *t, const char *col, const char *type)
{
	ereport(ERROR,
			(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
			 errmsg("column \"%s\" of cells-layout foreign table \"%s\" must be of type %s",
					col, t->relname, type),
			 errdetail("A cells-layout table has the columns rowkey (text or bytea), family (text), qualifier (text or bytea), ts (timestamptz) and value (bytea, or a type the value codec reads).")));
}

/*
 * wc_cells_table
 *		The mapping of a cells-layout table, its columns checked: exactly
 *		rowkey, family, qualifier, ts and value, each once, of their types.
 */
WcCellsTable *
wc_cells_table(Oid relid)
{
	WcCellsTable *ct = palloc0(sizeof(WcCellsTable));
	WcTable    *t = wc_get_table(relid);
	int		   *slots[] = {&ct->rowkey, &ct->family, &ct->qualifier, &ct->ts, &ct->value};

	ct->t = t;
	if (t->nparts > 0)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("cells-layout foreign table \"%s\" cannot have row-key parts", t->relname),
				 errhint("Declare the row key as one column named \"rowkey\".")));
	for (int a = 1; a <= t->natts; a++)
	{
		WcColumn   *col = &t->cols[a - 1];
		int			which = -1;

		if (col->kind == WC_COL_DROPPED)
			continue;
		for (int i = 0; i < lengthof(cells_columns); i++)
			if (strcmp(col->name, cells_columns[i]) == 0)
				which = i;
		if (which < 0 || (a == t->rowkey_attnum) != (which == 0))
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
					 errmsg("cells-layout foreign table \"%s\" cannot have column \"%s\"",
							t->relname, col->name),
					 errdetail("A cells-layout table has the columns rowkey, family, qualifier, ts and value, and the row key is the column rowkey.")));
		*slots[which] = a;
	}
	for (int i = 0; i < lengthof(cells_columns); i++)
		if (*slots[i] == 0)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
					 errmsg("cells-layout foreign table \"%s\" has no column \"%s\"",
							t->relname, cells_columns[i]),
					 errdetail("A cells-layout table has the columns rowkey, family, qualifier, ts and value.")));
	ct->rowkey_type = t->cols[ct->rowkey - 1].type;
	if (t->cols[ct->family - 1].type != TEXTOID)
		bad_column(t, "family", "text");
	ct->qual_type = t->cols[ct->qualifier - 1].type;
	if (ct->qual_type != TEXTOID && ct->qual_type != BYTEAOID)
		bad_column(t, "qualifier", "text or bytea");
	if (t->cols[ct->ts - 1].type != TIMESTAMPTZOID)
		bad_column(t, "ts", "timestamptz");
	return ct;
}

static Node *
strip(Node *n)
{
	while (n && IsA(n, RelabelType))
		n = (Node *) ((RelabelType *) n)->arg;
	return n;
}

/* The attnum of a filtered column that node is, or 0. */
static int
filter_column(Node *node, Index relid, WcCellsTable *ct)
{
	Var		   *v = (Var *) strip(node);

	if (v == NULL || !IsA(v, Var) || v->varno != relid || v->varlevelsup != 0)
		return 0;
	if (v->varattno == ct->family || v->varattno == ct->qualifier || v->varattno == ct->ts)
		return v->varattno;
	return 0;
}

static bool
is_value(PlannerInfo *root, Node *node, Index relid)
{
	return !bms_is_member(relid, pull_varnos(root, node)) &&
		!contain_volatile_functions(node) && !contain_subplans(node);
}

/* The type a filtered column's values compare as. */
static Oid
filter_type(WcCellsTable *ct, int attnum)
{
	return attnum == ct->ts ? TIMESTAMPTZOID : attnum == ct->family ? TEXTOID : ct->qual_type;
}

static List *
make_filter(int kind, int attnum, Node *value, List **exprs)
{
	*exprs = lappend(*exprs, value);
	return list_make3_int(kind, attnum, list_length(*exprs) - 1);
}

/*
 * classify_filter
 *		The filter clause is, or NIL.  Equality needs a deterministic
 *		collation, order and LIKE a bytewise one.
 */
static List *
classify_filter(PlannerInfo *root, RelOptInfo *rel, WcCellsTable *ct, Expr *clause,
				List **exprs)
{
	Oid			opno;
	Oid			collid;
	Node	   *value;
	int			attnum;
	int			kind;
	Oid			type;
	Oid			lt,
				rt;

	if (IsA(clause, OpExpr) && list_length(((OpExpr *) clause)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) clause;

		opno = op->opno;
		collid = op->inputcollid;
		if ((attnum = filter_column(linitial(op->args), rel->relid, ct)) != 0)
			value = lsecond(op->args);
		else if ((attnum = filter_column(lsecond(op->args), rel->relid, ct)) != 0)
		{
			value = linitial(op->args);
			opno = get_commutator(opno);
			if (!OidIsValid(opno))
				return NIL;
		}
		else
			return NIL;
	}
	else if (IsA(clause, ScalarArrayOpExpr) && ((ScalarArrayOpExpr *) clause)->useOr)
	{
		ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) clause;

		opno = sa->opno;
		collid = sa->inputcollid;
		attnum = filter_column(linitial(sa->args), rel->relid, ct);
		value = lsecond(sa->args);
		if (attnum == 0 || attnum == ct->ts)
			return NIL;
	}
	else
		return NIL;
	if (!is_value(root, value, rel->relid))
		return NIL;
	type = filter_type(ct, attnum);

	if (opno == OID_TEXT_LIKE_OP || opno == OID_BYTEA_LIKE_OP)
	{
		if (attnum != ct->qualifier || IsA(clause, ScalarArrayOpExpr) ||
			!wc_collation_is_bytewise(type, collid))
			return NIL;
		kind = WC_KEY_LIKE;
	}
	else
	{
		Oid			opfamily = get_opclass_family(GetDefaultOpClass(type, BTREE_AM_OID));
		int			strategy;

		op_input_types(opno, &lt, &rt);
		if (lt != type || rt != type)
			return NIL;
		strategy = get_op_opfamily_strategy(opno, opfamily);
		switch (strategy)
		{
			case BTLessStrategyNumber:
				kind = WC_KEY_LT;
				break;
			case BTLessEqualStrategyNumber:
				kind = WC_KEY_LE;
				break;
			case BTEqualStrategyNumber:
				kind = IsA(clause, ScalarArrayOpExpr) ? WC_KEY_IN : WC_KEY_EQ;
				break;
			case BTGreaterEqualStrategyNumber:
				kind = WC_KEY_GE;
				break;
			case BTGreaterStrategyNumber:
				kind = WC_KEY_GT;
				break;
			default:
				return NIL;
		}
		if (IsA(clause, ScalarArrayOpExpr) && kind != WC_KEY_IN)
			return NIL;
		/* the family is compared with the names as they are stored */
		if (attnum == ct->family && kind != WC_KEY_EQ && kind != WC_KEY_IN)
			return NIL;
		if (type == TEXTOID &&
			!(kind == WC_KEY_EQ || kind == WC_KEY_IN ?
			  OidIsValid(collid) && get_collation_isdeterministic(collid) :
			  wc_collation_is_bytewise(type, collid)))
			return NIL;
	}
	return make_filter(kind, attnum, value, exprs);
}

static void
wcCellsGetForeignRelSize(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	WcCellsPlan *cp = palloc0(sizeof(WcCellsPlan));
	List	   *local;
	ListCell   *lc;

	cp->ct = wc_cells_table(foreigntableid);
	baserel->fdw_private = cp;
	cp->cond = wc_classify_clauses(root, baserel, cp->ct->t, baserel->baserestrictinfo,
								   &cp->exprs, &local, &cp->key_clauses);
	foreach(lc, baserel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst(lc);
		List	   *f = classify_filter(root, baserel, cp->ct, ri->clause, &cp->exprs);

		if (f != NIL)
		{
			cp->filters = lappend(cp->filters, f);
			cp->filter_clauses = lappend(cp->filter_clauses, ri->clause);
		}
	}
	if (baserel->tuples < 0)
	{
		uint64		bytes = wc_client_estimate(wc_client_open_db(cp->ct->t),
											   list_make1(wc_table_range(cp->ct->t)));

		baserel->tuples = Max(1000, bytes / WC_EST_VERSION_BYTES);
	}
	baserel->rows = clamp_row_est(baserel->tuples *
								  clauselist_selectivity(root, baserel->baserestrictinfo,
														 baserel->relid, JOIN_INNER, NULL));
}

/* The pathkey of column attnum in the direction of btree strategy, or NIL. */
static List *
column_pathkey(PlannerInfo *root, RelOptInfo *baserel, int attnum, Oid base_type,
			   int strategy)
{
	Oid			type;
	int32		typmod;
	Oid			collation;
	Oid			cmp_type = base_type == VARCHAROID ? TEXTOID : base_type;
	Oid			opfamily = get_opclass_family(GetDefaultOpClass(cmp_type, BTREE_AM_OID));
	Oid			op;
	Var		   *var;

	get_atttypetypmodcoll(planner_rt_fetch(baserel->relid, root)->relid, attnum,
						  &type, &typmod, &collation);
	if (cmp_type != TIMESTAMPTZOID && !wc_collation_is_bytewise(cmp_type, collation))
		return NIL;
	op = get_opfamily_member(opfamily, cmp_type, cmp_type, strategy);
	if (!OidIsValid(op))
		return NIL;
	var = makeVar(baserel->relid, attnum, type, typmod, collation, 0);
	return build_expression_pathkey(root, (Expr *) var, NULL, op, baserel->relids, true);
}

/*
 * cells_pathkeys
 *		(rowkey, family, qualifier, ts DESC): as many of them as order
 *		bytewise.  A column that an equality pins adds no pathkey.
 */
static List *
cells_pathkeys(PlannerInfo *root, RelOptInfo *baserel, WcCellsTable *ct)
{
	List	   *pk = NIL;
	int			attnums[] = {ct->rowkey, ct->family, ct->qualifier, ct->ts};
	Oid			types[] = {ct->rowkey_type, TEXTOID, ct->qual_type, TIMESTAMPTZOID};

	if (IS_OTHER_REL(baserel))
		return NIL;
	for (int i = 0; i < lengthof(attnums); i++)
	{
		Oid			type;
		int32		typmod;
		Oid			collation;
		Oid			cmp_type = types[i] == VARCHAROID ? TEXTOID : types[i];
		List	   *one;

		get_atttypetypmodcoll(planner_rt_fetch(baserel->relid, root)->relid, attnums[i],
							  &type, &typmod, &collation);
		if (cmp_type != TIMESTAMPTZOID && !wc_collation_is_bytewise(cmp_type, collation))
			break;
		one = column_pathkey(root, baserel, attnums[i], types[i],
							 i == 3 ? BTGreaterStrategyNumber : BTLessStrategyNumber);
		/* a column an equality pins orders nothing, as in the query's keys */
		if (one != NIL && !((PathKey *) linitial(one))->pk_eclass->ec_has_const &&
			!list_member_ptr(pk, linitial(one)))
			pk = list_concat(pk, one);
	}
	return pk;
}

static void
wcCellsGetForeignPaths(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	WcCellsPlan *cp = baserel->fdw_private;
	QualCost	qc;
	Cost		startup,
				total;

	cost_qual_eval(&qc, baserel->baserestrictinfo, root);
	startup = 0.1 + qc.startup;
	total = startup + baserel->rows * (cpu_tuple_cost + 0.005 + qc.per_tuple) +
		(cp->cond == NIL && cp->filters == NIL ? baserel->tuples * 0.002 : 0);
	add_path(baserel, (Path *)
			 create_foreignscan_path(root, baserel, NULL, baserel->rows, startup, total,
									 cells_pathkeys(root, baserel, cp->ct),
									 baserel->lateral_relids, NULL, NIL));
}

static ForeignScan *
wcCellsGetForeignPlan(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid,
					  ForeignPath *best_path, List *tlist, List *scan_clauses,
					  Plan *outer_plan)
{
	WcCellsPlan *cp = baserel->fdw_private;
	List	   *recheck = extract_actual_clauses(cp->key_clauses, false);
	int			nkey = list_length(recheck);

	/*
	 * Every condition is also checked on each row (the quals); the pushed
	 * ones go in fdw_recheck_quals too, where setrefs keeps them right for
	 * EXPLAIN to show.
	 */
	recheck = list_concat(recheck, list_copy(cp->filter_clauses));
	return make_foreignscan(tlist, extract_actual_clauses(scan_clauses, false), baserel->relid,
							cp->exprs,
							list_make4(makeString(WC_CELLS_MARKER), cp->cond, cp->filters,
									   makeInteger(nkey)),
							NIL, recheck, outer_plan);
}

void
wc_cells_plan_register(FdwRoutine *routine)
{
	routine->GetForeignRelSize = wcCellsGetForeignRelSize;
	routine->GetForeignPaths = wcCellsGetForeignPaths;
	routine->GetForeignPlan = wcCellsGetForeignPlan;
	routine->ExplainForeignScan = wc_cells_explain_scan;
}

/* Show quals[from, to) joined by AND as property label. */
static void
explain_quals(const char *label, List *quals, int from, int to, ForeignScan *plan,
			  ExplainState *es)
{
	List	   *dpcontext;
	List	   *some = NIL;
	Node	   *e;

	for (int i = from; i < to; i++)
		some = lappend(some, list_nth(quals, i));
	if (some == NIL)
		return;
	dpcontext = set_deparse_context_plan(es->deparse_cxt, (Plan *) plan, NIL);
	e = list_length(some) == 1 ? linitial(some) : (Node *) make_ands_explicit(some);
	ExplainPropertyText(label, deparse_expression(e, dpcontext, false, false), es);
}

/*
 * wc_cells_explain_scan
 *		The stored table, and what the worker is asked to filter by: the
 *		row-key condition and the family, qualifier and timestamp filters.
 */
void
wc_cells_explain_scan(ForeignScanState *node, ExplainState *es)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	WcTable    *t = wc_get_table(RelationGetRelid(node->ss.ss_currentRelation));
	int			nkey = intVal(list_nth(plan->fdw_private, WcCellsPrivateNKeyQuals));
	List	   *quals = plan->fdw_recheck_quals;
	uint64		versions;
	uint64		entries;
	uint64		requests;

	ExplainPropertyText("Stored Table", t->table, es);
	ExplainPropertyText("Layout", "cells", es);
	explain_quals("Row Key Pushed", quals, 0, nkey, plan, es);
	explain_quals("Cell Filter Pushed", quals, nkey, list_length(quals), plan, es);
	if (wc_as_of() != 0)
	{
		TimestampTz ts = (TimestampTz) wc_as_of() - WC_UNIX_EPOCH_OFFSET_US;

		ExplainPropertyText("As Of", timestamptz_to_str(ts), es);
	}
	/*
	 * On Bigtable every version of the rows' cells: the policies apply on
	 * read and count them (worker/bigtable/btscan.c), and the filters above
	 * are applied by the worker.
	 */
	if (t->engine == WC_ENGINE_BIGTABLE)
		ExplainPropertyText("Bigtable Request",
							psprintf("ReadRows projects/%s/instances/%s/tables/%s, filter pass_all_filter (every version: the policies count them)%s",
									 t->bigtable->project, t->bigtable->instance, t->table,
									 t->bigtable->app_profile != NULL ?
									 psprintf(", app_profile_id %s", t->bigtable->app_profile) : ""),
							es);
	if (es->analyze && wc_cells_scan_read(node, &versions, &entries, &requests))
	{
		ExplainPropertyUInteger("Storage Versions Read", NULL, versions, es);
		if (t->engine == WC_ENGINE_BIGTABLE)
		{
			ExplainPropertyUInteger("Bigtable Requests", NULL, requests, es);
			ExplainPropertyUInteger("Cells Received", NULL, entries, es);
		}
		else
			ExplainPropertyUInteger("Storage Entries Read", NULL, entries, es);
	}
}
