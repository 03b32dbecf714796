/*-------------------------------------------------------------------------
 *
 * storefilter.c
 *	  Storage filters: the comparisons of a column with a value that the
 *	  storage worker checks on each row before sending it.
 *
 * A scan with a condition on anything but the row key reads every row of
 * its ranges (a full scan, when it has none).  The comparisons the worker
 * can check itself, in plain C on the stored bytes (rowfilter.c), go with
 * the SCAN request, and rows that fail them never cross the queue: a full
 * scan that keeps few rows then costs the backend little.  They are
 *
 *	a column of type smallint, integer, bigint, real or double precision
 *	(or a domain over one) compared by =, <>, <, <=, > or >= (the
 *	integer_ops and float_ops operators, so cross-type ones too), or of
 *	type date, timestamp, timestamptz or boolean compared with a value of
 *	its own type (datetime_ops, bool_ops; a boolean column alone, or under
 *	NOT, is one compared with true or false), or of type text, varchar or
 *	bytea compared by = (text under a deterministic collation: equal
 *	values are equal bytes), or by <, <=, >, >= and <> (text in the C
 *	collation, which orders text as its bytes), with an expression that does not read this
 *	table and is not volatile (a constant, a parameter, now()), or by =
 *	ANY of such an expression of an array (an IN list: the worker gets
 *	the array's values, at most WC_MAX_SCAN_FILTERS of them in all),
 *
 * of a scan that neither locks its rows nor runs in a transaction that has
 * written to the table (its own writes are merged in here, after the
 * worker has read).  PostgreSQL still checks every condition itself, so a
 * filter only saves work: the worker leaves out a row only when the
 * comparison is surely false, and sends a cell it cannot read as its type
 * (the wrong width, a boolean byte other than 0 and 1) for the backend to
 * raise the error.  (A row left out is never decoded, so a bad cell in
 * another of its columns raises nothing, as with any FDW whose remote side
 * filters; nor does text that is not valid in the database's encoding, or a
 * date or timestamp out of its type's range, in the filtered column, which
 * the worker compares as bytes and as integers.)  EXPLAIN shows them as
 * "Storage Filter"; EXPLAIN ANALYZE counts the rows they left out.
 *
 * At plan time a filter is an IntList in fdw_private (WcScanPrivateFilters)
 * and its value an expression in fdw_exprs; the executor evaluates the
 * values when a scan starts (wc_storefilter_values).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_am.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/meta/meta.h"
#include "fdw/model/model.h"
#include "fdw/planner/planner.h"
#include "fdw/read/read.h"
#include "fdw/xact/xact.h"

/* The elements of a filter's IntList in fdw_private. */
enum WcFilterPlanIndex
{
	WcFilterPlanAttnum,			/* the column */
	WcFilterPlanOp,				/* WcFilterOp, the column on the left */
	WcFilterPlanExpr,			/* the value's position in fdw_exprs */
	WcFilterPlanOperator,		/* the operator, the column on the left (for
								 * EXPLAIN) */
	WcFilterPlanValueType		/* the value's type */
};

/* The ops as the btree strategies number them, and <> after them. */
static const WcFilterOp strategy_op[] = {0, WC_FILTER_LT, WC_FILTER_LE, WC_FILTER_EQ,
WC_FILTER_GE, WC_FILTER_GT, WC_FILTER_NE};

/* The same op with its operands swapped: 1 < x is x > 1. */
static WcFilterOp
commuted(WcFilterOp op)
{
	switch (op)
	{
		case WC_FILTER_LT:
			return WC_FILTER_GT;
		case WC_FILTER_LE:
			return WC_FILTER_GE;
		case WC_FILTER_GE:
			return WC_FILTER_LE;
		case WC_FILTER_GT:
			return WC_FILTER_LT;
		default:
			return op;
	}
}

static bool
is_int_type(Oid t)
{
	return t == INT2OID || t == INT4OID || t == INT8OID;
}

static bool
is_float_type(Oid t)
{
	return t == FLOAT4OID || t == FLOAT8OID;
}

static bool
is_datetime_type(Oid t)
{
	return t == DATEOID || t == TIMESTAMPOID || t == TIMESTAMPTZOID;
}

/* Types whose values are equal exactly when their cells' bytes are. */
static bool
is_bytes_type(Oid t)
{
	return t == TEXTOID || t == VARCHAROID || t == BYTEAOID;
}

/* The types a filter can compare a column of. */
static bool
is_filter_type(Oid t)
{
	return is_int_type(t) || is_float_type(t) || is_datetime_type(t) ||
		t == BOOLOID || is_bytes_type(t);
}

static Oid
btree_family(char *name)
{
	return get_opfamily_oid(BTREE_AM_OID,
							list_make2(makeString("pg_catalog"), makeString(name)),
							false);
}

/*
 * filter_op
 *		If opno is a comparison of integer_ops or float_ops, of datetime_ops
 *		or bool_ops between two values of one type, of bytea_ops, or of
 *		text_ops (equality under a deterministic collation, inputcollid, and
 *		order under the C collation, where text compares as its bytes), its
 *		op (WcFilterOp); else 0.  Only those families: an operator can be a
 *		member of a user's family too, with another meaning.  (A date
 *		compared with a timestamp is converted first, which storage would
 *		not do.)
 */
static WcFilterOp
filter_op(Oid opno, Oid inputcollid)
{
	static Oid	float_ops = InvalidOid;
	static Oid	datetime_ops;
	static Oid	bool_ops;
	static Oid	text_ops;
	static Oid	bytea_ops;
	ListCell   *lc;

	if (!OidIsValid(float_ops))
	{
		datetime_ops = btree_family("datetime_ops");
		bool_ops = btree_family("bool_ops");
		text_ops = btree_family("text_ops");
		bytea_ops = btree_family("bytea_ops");
		float_ops = btree_family("float_ops");
	}
	foreach(lc, get_op_btree_interpretation(opno))
	{
		OpBtreeInterpretation *bi = lfirst(lc);
		bool		same = bi->oplefttype == bi->oprighttype;

		if (bi->strategy < ROWCOMPARE_LT || bi->strategy > ROWCOMPARE_NE)
			continue;
		if ((bi->opfamily_id == INTEGER_BTREE_FAM_OID &&
			 is_int_type(bi->oplefttype) && is_int_type(bi->oprighttype)) ||
			(bi->opfamily_id == float_ops &&
			 is_float_type(bi->oplefttype) && is_float_type(bi->oprighttype)) ||
			(bi->opfamily_id == datetime_ops &&
			 is_datetime_type(bi->oplefttype) && same) ||
			(bi->opfamily_id == bool_ops && bi->oplefttype == BOOLOID && same))
			return strategy_op[bi->strategy];
		if (bi->strategy == ROWCOMPARE_EQ && same &&
			((bi->opfamily_id == text_ops && bi->oplefttype == TEXTOID &&
			  OidIsValid(inputcollid) && get_collation_isdeterministic(inputcollid)) ||
			 (bi->opfamily_id == bytea_ops && bi->oplefttype == BYTEAOID)))
			return WC_FILTER_EQ;
		/* order: bytea's is its bytes', text's only in the C collation */
		if (same &&
			((bi->opfamily_id == text_ops && bi->oplefttype == TEXTOID) ||
			 (bi->opfamily_id == bytea_ops && bi->oplefttype == BYTEAOID)) &&
			wc_collation_is_bytewise(bi->oplefttype, inputcollid))
			return strategy_op[bi->strategy];
	}
	return 0;
}

static Node *
strip_relabel(Node *node)
{
	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	return node;
}

/* A bool column alone, or under NOT, as a clause: that column, or NULL. */
static Var *
bool_column(Node *clause, Index relid, bool *value)
{
	*value = true;
	if (is_notclause(clause))
	{
		*value = false;
		clause = (Node *) get_notclausearg((Expr *) clause);
	}
	clause = strip_relabel(clause);
	if (clause != NULL && IsA(clause, Var) && ((Var *) clause)->varno == relid &&
		getBaseType(exprType(clause)) == BOOLOID)
		return (Var *) clause;
	return NULL;
}

/* An IN list's constant array with more values than a request takes. */
static bool
too_many_values(Node *value)
{
	ArrayType  *arr;

	if (!IsA(value, Const) || ((Const *) value)->constisnull)
		return false;
	arr = DatumGetArrayTypeP(((Const *) value)->constvalue);
	return !ARR_HASNULL(arr) &&
		ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr)) > WC_MAX_SCAN_FILTERS;
}

/*
 * An IN list of the column among the filters: a second would join it in one
 * set (rowfilter.c), so it stays local.
 */
static bool
has_list(List *filters, AttrNumber attnum)
{
	ListCell   *lc;

	foreach(lc, filters)
		if (list_nth_int(lfirst(lc), WcFilterPlanAttnum) == attnum &&
			list_nth_int(lfirst(lc), WcFilterPlanOp) == WC_FILTER_IN)
			return true;
	return false;
}

/*
 * wc_storefilter_plan
 *		The filters among the conditions local (RestrictInfos) that a scan
 *		of t can hand to the worker, their values appended to *exprs.
 */
List *
wc_storefilter_plan(PlannerInfo *root, RelOptInfo *baserel, WcTable *t, List *local,
					List **exprs)
{
	List	   *filters = NIL;
	bool		mapped = false;
	ListCell   *lc;

	foreach(lc, local)
	{
		RestrictInfo *ri = lfirst(lc);
		Node	   *clause = (Node *) ri->clause;
		List	   *args = NIL;		/* of the operator: column and value */
		Oid			clause_opno = InvalidOid;	/* its operator, as written */
		Oid			collid = InvalidOid;
		bool		in_list = false;
		Node	   *left = NULL,
				   *right = NULL,
				   *value;
		Var		   *var;
		Oid			opno;
		Oid			vtype;
		WcFilterOp	fop = WC_FILTER_EQ;
		bool		bool_value;

		if (list_length(filters) >= WC_MAX_SCAN_FILTERS)
			break;
		var = bool_column(clause, baserel->relid, &bool_value);
		if (var != NULL)
		{
			/* "WHERE flag" and "WHERE NOT flag": flag = true, flag = false */
			value = (Node *) makeBoolConst(bool_value, false);
			opno = BooleanEqualOperator;
		}
		else if (IsA(clause, ScalarArrayOpExpr))
		{
			ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) clause;

			/* column = ANY (array): an IN list */
			if (!sa->useOr || list_length(sa->args) != 2)
				continue;
			args = sa->args;
			clause_opno = sa->opno;
			collid = sa->inputcollid;
			left = strip_relabel(linitial(args));
			if (!IsA(left, Var) || ((Var *) left)->varno != baserel->relid)
				continue;
			var = (Var *) left;
			value = lsecond(args);
			opno = sa->opno;
			in_list = true;
		}
		else
		{
			if (!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2)
				continue;
			args = ((OpExpr *) clause)->args;
			clause_opno = ((OpExpr *) clause)->opno;
			collid = ((OpExpr *) clause)->inputcollid;
			/* a column of a domain is read through a RelabelType to its base */
			left = strip_relabel(linitial(args));
			right = strip_relabel(lsecond(args));
			if (IsA(left, Var) && ((Var *) left)->varno == baserel->relid)
			{
				var = (Var *) left;
				value = right;
				opno = clause_opno;
			}
			else if (IsA(right, Var) && ((Var *) right)->varno == baserel->relid)
			{
				var = (Var *) right;
				value = left;
				opno = get_commutator(clause_opno);
			}
			else
				continue;
		}
		/* a column of one of the types itself: its cells are theirs */
		if (var->varno != baserel->relid || var->varlevelsup != 0 || var->varattno <= 0 ||
			t->cols[var->varattno - 1].kind != WC_COL_CELL ||
			t->cols[var->varattno - 1].map_type != InvalidOid ||
			!is_filter_type(t->cols[var->varattno - 1].type))
			continue;
		/* a column of an aggregate family narrower than its cells: none */
		if (!mapped)
			wc_aggregate_map(t);
		mapped = true;
		if ((t->cols[var->varattno - 1].aggregate != 0 &&
			 t->cols[var->varattno - 1].type != INT8OID) ||
			bms_is_member(baserel->relid, pull_varnos(root, value)) ||
			contain_volatile_functions(value) || contain_subplans(value) ||
			!OidIsValid(opno))
			continue;
		if (args != NIL)
		{
			Oid			coltype = t->cols[var->varattno - 1].type;
			Oid			vartype = exprType((Node *) var == left ? linitial(args) :
										   lsecond(args));

			fop = filter_op(clause_opno, collid);
			if (fop == 0 || (in_list && fop != WC_FILTER_EQ))
				continue;
			/*
			 * The operator reads the column as its own type (not a cast's),
			 * and so the value too where its two types are one (datetime_ops).
			 */
			if (vartype != coltype && !(coltype == VARCHAROID && vartype == TEXTOID))
				continue;
			if ((Node *) var == right)
				fop = commuted(fop);
			if (in_list)
				fop = WC_FILTER_IN;
			value = value == left ? linitial(args) : lsecond(args);
		}
		vtype = in_list ? get_element_type(exprType(value)) : exprType(value);
		if (!OidIsValid(vtype) ||
			(in_list && (too_many_values(value) || has_list(filters, var->varattno))))
			continue;
		*exprs = lappend(*exprs, value);
		filters = lappend(filters, list_make5_int(var->varattno, fop,
												  list_length(*exprs) - 1, opno,
												  vtype));
	}
	return filters;
}

/*
 * filter_value
 *		A filter's value for the datum d of type vtype, as the worker
 *		compares it with the cells; false if there is none (a timestamp too
 *		late to be stored: left to PostgreSQL).
 */
static bool
filter_value(Datum d, Oid vtype, WcScanFilter *f)
{
	uint64	   *value = &f->value;

	if (vtype == BOOLOID)
		*value = DatumGetBool(d) ? 1 : 0;
	else if (is_bytes_type(vtype))
	{
		StringInfoData buf;

		/* the bytes the column's cells hold for this value */
		initStringInfo(&buf);
		wc_encode_value(&buf, d, vtype);
		if (f->kind == WC_FILTER_ORDERED_BYTES)
		{
			/* kept until the request is sent */
			f->bytes = (const uint8 *) buf.data;
			*value = (uint64) buf.len;
			return true;
		}
		*value = wc_filter_hash((const uint8 *) buf.data, buf.len);
		pfree(buf.data);
	}
	else if (is_datetime_type(vtype))
	{
		int64		stored;

		if (!wc_encode_datetime(d, vtype, &stored))
			return false;
		*value = (uint64) stored;
	}
	else if (is_int_type(vtype))
		*value = (uint64) (vtype == INT2OID ? DatumGetInt16(d) :
						   vtype == INT4OID ? DatumGetInt32(d) :
						   DatumGetInt64(d));
	else if (is_float_type(vtype))
	{
		double		f = vtype == FLOAT4OID ? (double) DatumGetFloat4(d) :
			DatumGetFloat8(d);

		memcpy(value, &f, sizeof(f));
	}
	else
		return false;
	return true;
}

/*
 * add_filter
 *		Add the filter fl of the plan to ss->filters, with its value of
 *		this (re)scan (values and nulls, of the plan's fdw_exprs), if it can
 *		go to storage.
 */
static void
add_filter(WcScanState *ss, List *fl, Datum *values, bool *nulls)
{
	int			attnum = list_nth_int(fl, WcFilterPlanAttnum);
	int			e = list_nth_int(fl, WcFilterPlanExpr);
	WcFilterOp	op = list_nth_int(fl, WcFilterPlanOp);
	WcColumn   *col = &ss->table->cols[attnum - 1];
	Oid			vtype = list_nth_int(fl, WcFilterPlanValueType);
	int			room = WC_MAX_SCAN_FILTERS - ss->nfilters;
	WcScanFilter f;
	Datum	   *elems = &values[e];
	bool	   *elnulls = &nulls[e];
	int			n = 1;
	int			added = 0;
	int			pos = -1;

	if (nulls[e] || room == 0)
		return;
	for (int i = 0; i < ss->nmapped && pos < 0; i++)
		if (ss->req_attnum[i] == attnum)
			pos = i;
	for (int i = 0; i < ss->naliases && pos < 0; i++)
		if (ss->alias_attnum[i] == attnum)
			pos = ss->alias_pos[i];
	if (pos < 0 || (col->aggregate != 0 && col->type != INT8OID))
		return;
	f.col = (uint16) pos;
	f.op = (uint8) op;
	/* dates and timestamps are stored as integers of their order */
	f.kind = col->type == INT2OID ? WC_FILTER_INT2 :
		col->type == INT4OID || col->type == DATEOID ? WC_FILTER_INT4 :
		col->type == INT8OID || col->type == TIMESTAMPOID ||
		col->type == TIMESTAMPTZOID ? WC_FILTER_INT8 :
		col->type == FLOAT4OID ? WC_FILTER_FLOAT4 :
		col->type == BOOLOID ? WC_FILTER_BOOL :
		!is_bytes_type(col->type) ? WC_FILTER_FLOAT8 :
		op == WC_FILTER_EQ || op == WC_FILTER_IN ? WC_FILTER_BYTES : WC_FILTER_ORDERED_BYTES;
	f.bytes = NULL;
	if (op == WC_FILTER_IN)
	{
		ArrayType  *arr = DatumGetArrayTypeP(values[e]);
		int16		typlen;
		bool		typbyval;
		char		typalign;

		/*
		 * The worker would take a second set of the same cell's, next to
		 * the first, as one with both's values: keep the first alone.
		 */
		for (int i = 0; i < ss->nfilters; i++)
			if (ss->filters[i].op == WC_FILTER_IN && ss->filters[i].col == f.col)
				return;
		if (ARR_ELEMTYPE(arr) != vtype ||
			(!ARR_HASNULL(arr) && ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr)) > room))
			return;
		get_typlenbyvalalign(vtype, &typlen, &typbyval, &typalign);
		deconstruct_array(arr, vtype, typlen, typbyval, typalign, &elems, &elnulls, &n);
	}
	for (int i = 0; i < n; i++)
	{
		if (elnulls[i])
			continue;
		/* a value storage cannot compare: the whole filter stays here */
		if (added == room || !filter_value(elems[i], vtype, &f))
			return;
		ss->filters[ss->nfilters + added++] = f;
	}
	ss->nfilters += added;
}

/*
 * wc_storefilter_values
 *		The filters of ss's scan with the values of this (re)scan (values and
 *		nulls, of the plan's fdw_exprs), into ss->filters; the columns are
 *		positions in the scan's request.  A filter whose value is NULL is
 *		left to PostgreSQL, which keeps no row; so is one on a column of an
 *		aggregate family narrower than its 8 bytes, whose value may be out
 *		of the column's range, an error PostgreSQL raises.  An IN list
 *		becomes a set of WC_FILTER_IN filters, one per value that is not
 *		NULL (no row equals NULL); an empty one, or one for which there is
 *		no room left in the request, is left to PostgreSQL.  The single
 *		comparisons go first, so that a long list does not crowd them out.
 */
void
wc_storefilter_values(WcScanState *ss, Datum *values, bool *nulls)
{
	ListCell   *lc;

	ss->nfilters = 0;
	if (ss->filter_plan == NIL)
		return;
	ss->filters = palloc(sizeof(WcScanFilter) * WC_MAX_SCAN_FILTERS);
	for (int lists = 0; lists < 2; lists++)
		foreach(lc, ss->filter_plan)
		{
			List	   *fl = lfirst(lc);

			if ((list_nth_int(fl, WcFilterPlanOp) == WC_FILTER_IN) == lists)
				add_filter(ss, fl, values, nulls);
		}
}

/*
 * wc_storefilter_explain
 *		The plan's filters as EXPLAIN shows them: "temp > '1000'::double
 *		precision", joined by AND, and why they stay here if this
 *		transaction's writes keep them from storage; NULL if it has none.
 */
char *
wc_storefilter_explain(ForeignScan *plan, Relation rel, WcTable *t, List *dpcontext)
{
	List	   *filters = list_length(plan->fdw_private) > WcScanPrivateFilters ?
		list_nth(plan->fdw_private, WcScanPrivateFilters) : NIL;
	StringInfoData buf;
	ListCell   *lc;

	if (filters == NIL)
		return NULL;
	initStringInfo(&buf);
	foreach(lc, filters)
	{
		List	   *fl = lfirst(lc);
		Node	   *value = list_nth(plan->fdw_exprs, list_nth_int(fl, WcFilterPlanExpr));

		bool		in_list = list_nth_int(fl, WcFilterPlanOp) == WC_FILTER_IN;

		appendStringInfo(&buf, "%s%s %s %s%s%s", buf.len > 0 ? " AND " : "",
						 quote_identifier(get_attname(RelationGetRelid(rel),
													  list_nth_int(fl, WcFilterPlanAttnum),
													  false)),
						 get_opname(list_nth_int(fl, WcFilterPlanOperator)),
						 in_list ? "ANY (" : "",
						 deparse_expression(value, dpcontext, false, false),
						 in_list ? ")" : "");
	}
	if (wc_txn_table(t, false) != NULL)
		appendStringInfoString(&buf, " (checked here: this transaction has written to the table)");
	return buf.data;
}
