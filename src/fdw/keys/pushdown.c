/*-------------------------------------------------------------------------
 *
 * pushdown.c
 *	  Which WHERE clauses the row-key index can answer.
 *
 * A clause is pushed down when it restricts the row-key column by
 *	=, IN / = ANY, <, <=, >, >= (so BETWEEN), LIKE 'prefix%', starts_with()
 *	or ^@, ~ '^prefix...' (and SIMILAR TO 'prefix%'), or an OR or AND of
 *	such clauses,
 * against an expression that does not read this table and is not volatile
 * (constants, parameters, outer columns of a nested loop, now(), ...).
 * Ranges and order need a bytewise collation ("C", "POSIX", or bytea),
 * because LevelDB orders bytes; equality and prefixes need only a
 * deterministic one.
 *
 * The planner turns pushed clauses into a condition tree kept in the plan
 * as nested Lists (a "key condition"), with the compared expressions in
 * fdw_exprs; the executor evaluates them into key ranges (ranges.c).  A
 * clause is "exact" when the ranges return exactly its rows, so it need
 * not be checked again; LIKE with wildcards other than a final %, and a
 * regular expression, are pushed as their prefix and checked again
 * locally.  On a key of parts, LIKE 'prefix%' on the part after the equal
 * ones is a prefix of keys too.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_am.h"
#include "catalog/pg_opfamily.h"
#include "commands/defrem.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"

#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/model/model.h"

/* Does this collation compare the row key as bytes? */
bool
wc_collation_is_bytewise(Oid type, Oid collation)
{
	if (type == BYTEAOID)
		return true;
	return OidIsValid(collation) && lc_collate_is_c(collation);
}

static bool
is_rowkey_var(Node *node, Index relid, WcTable *t)
{
	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	return node && IsA(node, Var) &&
		((Var *) node)->varno == relid &&
		((Var *) node)->varattno == t->rowkey_attnum &&
		((Var *) node)->varlevelsup == 0;
}

/* Can node be computed before the scan: no Vars of ours, not volatile? */
static bool
is_key_value(PlannerInfo *root, Node *node, Index relid)
{
	return !bms_is_member(relid, pull_varnos(root, node)) &&
		!contain_volatile_functions(node);
}

static List *
make_atom(WcKeyAtomKind kind, Node *expr, List **exprs)
{
	*exprs = lappend(*exprs, expr);
	return list_make2(makeInteger(kind), makeInteger(list_length(*exprs) - 1));
}

static bool
key_type_ok(Oid type, WcTable *t)
{
	Oid			kt = t->cols[t->rowkey_attnum - 1].type;

	if (kt == BYTEAOID)
		return type == BYTEAOID;
	return type == TEXTOID || type == VARCHAROID;
}

/*
 * wc_like_prefix
 *		The fixed prefix of a LIKE pattern, and whether the pattern is
 *		exactly that prefix followed by nothing but '%'.
 */
void
wc_like_prefix(const char *pat, int len, bool bytes, StringInfo prefix, bool *pure,
			   bool *no_wildcard)
{
	int			i = 0;

	*no_wildcard = false;
	while (i < len)
	{
		int			l;

		if (pat[i] == '%' || pat[i] == '_')
			break;
		if (pat[i] == '\\')
		{
			i++;
			if (i >= len)
			{
				/* an invalid pattern: let LIKE itself judge it, locally */
				*pure = false;
				return;
			}
		}
		l = bytes ? 1 : pg_mblen(pat + i);
		appendBinaryStringInfo(prefix, pat + i, Min(l, len - i));
		i += l;
	}
	if (i >= len)
	{
		*no_wildcard = true;
		*pure = true;
		return;
	}
	*pure = true;
	for (; i < len; i++)
		if (pat[i] != '%')
			*pure = false;
}

/* A text Const of these bytes, for a prefix or key read off a pattern. */
static Const *
text_const(const char *data, int len)
{
	return makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
					 PointerGetDatum(cstring_to_text_with_len(data, len)), false, false);
}

/*
 * key_condition
 *		The key condition for clause, or NULL if it cannot be pushed.
 */
static List *
key_condition(PlannerInfo *root, Node *clause, Index relid, WcTable *t,
			  List **exprs, bool *exact)
{
	Oid			kt = t->cols[t->rowkey_attnum - 1].type;

	if (clause == NULL)
		return NULL;

	if (is_orclause(clause) || is_andclause(clause))
	{
		List	   *node = list_make1(makeInteger(is_orclause(clause) ? WC_KEY_OR : WC_KEY_AND));
		ListCell   *lc;
		int			nexprs = list_length(*exprs);

		foreach(lc, ((BoolExpr *) clause)->args)
		{
			List	   *child = key_condition(root, lfirst(lc), relid, t, exprs, exact);

			if (child == NULL)
			{
				/* AND: the other arms still restrict; OR: nothing does */
				if (is_andclause(clause))
				{
					*exact = false;
					continue;
				}
				*exprs = list_truncate(*exprs, nexprs);
				return NULL;
			}
			node = lappend(node, child);
		}
		if (list_length(node) == 1)
			return NULL;
		return node;
	}

	if (IsA(clause, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) clause;
		Node	   *left,
				   *right;
		Node	   *value;
		bool		var_left;
		Oid			opfamily = kt == BYTEAOID ? BYTEA_BTREE_FAM_OID : TEXT_BTREE_FAM_OID;
		int			strategy;
		Oid			lefttype,
					righttype;

		if (list_length(op->args) != 2)
			return NULL;
		left = linitial(op->args);
		right = lsecond(op->args);
		if (is_rowkey_var(left, relid, t) && is_key_value(root, right, relid))
		{
			var_left = true;
			value = right;
		}
		else if (is_rowkey_var(right, relid, t) && is_key_value(root, left, relid))
		{
			var_left = false;
			value = left;
		}
		else
			return NULL;

		if (OidIsValid(op->inputcollid) && !get_collation_isdeterministic(op->inputcollid))
			return NULL;

		set_opfuncid(op);
		if (op->opfuncid == F_STARTS_WITH && var_left && kt != BYTEAOID)
			return make_atom(WC_KEY_PREFIX, value, exprs);

		if ((op->opno == OID_TEXT_LIKE_OP || op->opno == OID_BYTEA_LIKE_OP) && var_left)
		{
			if (IsA(value, Const) && !((Const *) value)->constisnull)
			{
				struct varlena *pat = PG_DETOAST_DATUM_PACKED(((Const *) value)->constvalue);
				StringInfoData prefix;
				bool		pure,
							no_wildcard;
				Const	   *c;

				initStringInfo(&prefix);
				wc_like_prefix(VARDATA_ANY(pat), VARSIZE_ANY_EXHDR(pat), kt == BYTEAOID,
							&prefix, &pure, &no_wildcard);
				if (prefix.len == 0 && !no_wildcard)
					return NULL;	/* '%...': no prefix to read by */
				if (!pure)
					*exact = false;
				c = makeConst(kt == BYTEAOID ? BYTEAOID : TEXTOID, -1,
							  kt == BYTEAOID ? InvalidOid : DEFAULT_COLLATION_OID, -1,
							  PointerGetDatum(cstring_to_text_with_len(prefix.data, prefix.len)),
							  false, false);
				return make_atom(no_wildcard ? WC_KEY_EQ : WC_KEY_PREFIX, (Node *) c, exprs);
			}
			*exact = false;
			return make_atom(WC_KEY_LIKE, value, exprs);
		}

		/*
		 * A regular expression anchored at the start (rowkey ~ '^abc', and
		 * SIMILAR TO 'abc%', which the parser makes one) has a fixed prefix
		 * that PostgreSQL's regex engine finds, as it does for a btree
		 * index: the keys with it are read, and the expression checked
		 * again.  The prefix is the whole match when the pattern says so.
		 */
		if (op->opno == OID_TEXT_REGEXEQ_OP && var_left && kt != BYTEAOID)
		{
			char	   *prefix;
			bool		whole;

			if (!IsA(value, Const) || ((Const *) value)->constisnull ||
				!OidIsValid(op->inputcollid))
				return NULL;
			prefix = regexp_fixed_prefix(DatumGetTextPP(((Const *) value)->constvalue), false,
										 op->inputcollid, &whole);
			if (prefix == NULL || (prefix[0] == '\0' && !whole))
				return NULL;
			if (!whole)
				*exact = false;
			return make_atom(whole ? WC_KEY_EQ : WC_KEY_PREFIX,
							 (Node *) text_const(prefix, strlen(prefix)), exprs);
		}

		op_input_types(op->opno, &lefttype, &righttype);
		if (!key_type_ok(lefttype, t) || !key_type_ok(righttype, t))
			return NULL;
		strategy = get_op_opfamily_strategy(op->opno, opfamily);
		if (strategy == 0)
			return NULL;
		if (strategy == BTEqualStrategyNumber)
			return make_atom(WC_KEY_EQ, value, exprs);
		if (!wc_collation_is_bytewise(kt, op->inputcollid))
			return NULL;
		if (!var_left)
			strategy = BTCommuteStrategyNumber(strategy);
		switch (strategy)
		{
			case BTLessStrategyNumber:
				return make_atom(WC_KEY_LT, value, exprs);
			case BTLessEqualStrategyNumber:
				return make_atom(WC_KEY_LE, value, exprs);
			case BTGreaterEqualStrategyNumber:
				return make_atom(WC_KEY_GE, value, exprs);
			case BTGreaterStrategyNumber:
				return make_atom(WC_KEY_GT, value, exprs);
		}
		return NULL;
	}

	if (IsA(clause, FuncExpr))
	{
		FuncExpr   *f = (FuncExpr *) clause;

		if (f->funcid == F_STARTS_WITH && list_length(f->args) == 2 &&
			kt != BYTEAOID &&
			is_rowkey_var(linitial(f->args), relid, t) &&
			is_key_value(root, lsecond(f->args), relid) &&
			(!OidIsValid(f->inputcollid) || get_collation_isdeterministic(f->inputcollid)))
			return make_atom(WC_KEY_PREFIX, lsecond(f->args), exprs);
		return NULL;
	}

	if (IsA(clause, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) clause;
		Oid			opfamily = kt == BYTEAOID ? BYTEA_BTREE_FAM_OID : TEXT_BTREE_FAM_OID;
		Oid			lefttype,
					righttype;

		if (!sa->useOr || list_length(sa->args) != 2 ||
			!is_rowkey_var(linitial(sa->args), relid, t) ||
			!is_key_value(root, lsecond(sa->args), relid))
			return NULL;
		op_input_types(sa->opno, &lefttype, &righttype);
		if (!key_type_ok(lefttype, t) || !key_type_ok(righttype, t))
			return NULL;
		if (get_op_opfamily_strategy(sa->opno, opfamily) != BTEqualStrategyNumber)
			return NULL;
		if (OidIsValid(sa->inputcollid) && !get_collation_isdeterministic(sa->inputcollid))
			return NULL;
		return make_atom(WC_KEY_IN, lsecond(sa->args), exprs);
	}

	return NULL;
}

/* Is node (under any RelabelType) column attnum of this relation, the part's? */
static bool
is_part_var(Node *node, Index relid, int attnum)
{
	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	return node && IsA(node, Var) && ((Var *) node)->varno == relid &&
		((Var *) node)->varattno == attnum && ((Var *) node)->varlevelsup == 0;
}

/* The value a clause "part = value" (or <, <=, >, >=) compares with. */
static Node *
part_comparison(PlannerInfo *root, RestrictInfo *ri, Index relid, WcColumn *col,
				int attnum, int *strategy)
{
	OpExpr	   *op;
	Node	   *left,
			   *right,
			   *value;
	bool		var_left;
	Oid			opclass = GetDefaultOpClass(col->type, BTREE_AM_OID);
	Oid			lefttype,
				righttype;

	if (ri->pseudoconstant || !IsA(ri->clause, OpExpr) || !OidIsValid(opclass))
		return NULL;
	op = (OpExpr *) ri->clause;
	if (list_length(op->args) != 2)
		return NULL;
	left = linitial(op->args);
	right = lsecond(op->args);
	while (left && IsA(left, RelabelType))
		left = (Node *) ((RelabelType *) left)->arg;
	while (right && IsA(right, RelabelType))
		right = (Node *) ((RelabelType *) right)->arg;
	if (is_part_var(left, relid, attnum) && is_key_value(root, right, relid))
	{
		var_left = true;
		value = right;
	}
	else if (is_part_var(right, relid, attnum) && is_key_value(root, left, relid))
	{
		var_left = false;
		value = left;
	}
	else
		return NULL;
	/* the operator class's own type: text's for a varchar part */
	op_input_types(op->opno, &lefttype, &righttype);
	if (getBaseType(lefttype) != get_opclass_input_type(opclass) ||
		getBaseType(righttype) != get_opclass_input_type(opclass))
		return NULL;
	if (OidIsValid(op->inputcollid) && !get_collation_isdeterministic(op->inputcollid))
		return NULL;
	*strategy = get_op_opfamily_strategy(op->opno, get_opclass_family(opclass));
	if (*strategy == 0)
		return NULL;
	if (!var_left)
		*strategy = BTCommuteStrategyNumber(*strategy);
	/* a range on a text part is a range of keys only in byte order */
	if (*strategy != BTEqualStrategyNumber && !wc_segment_fixed_width(col->type) &&
		!wc_collation_is_bytewise(col->type, op->inputcollid))
		return NULL;
	return value;
}

/*
 * part_like
 *		The fixed prefix of a clause "part LIKE 'abc%'" on a text part, as a
 *		text Const, or NULL; *pure when the pattern is the prefix and '%'
 *		(then the keys starting with it are exactly the clause's rows).
 */
static Const *
part_like(RestrictInfo *ri, Index relid, WcColumn *col, int attnum, bool *pure)
{
	OpExpr	   *op;
	Const	   *pat;
	StringInfoData prefix;
	bool		no_wildcard;

	if (ri->pseudoconstant || !IsA(ri->clause, OpExpr) ||
		(col->type != TEXTOID && col->type != VARCHAROID) || col->rowkey_format != NULL)
		return NULL;
	op = (OpExpr *) ri->clause;
	if (op->opno != OID_TEXT_LIKE_OP || list_length(op->args) != 2)
		return NULL;
	if (!is_part_var(linitial(op->args), relid, attnum) ||
		!IsA(lsecond(op->args), Const) || ((Const *) lsecond(op->args))->constisnull)
		return NULL;
	if (OidIsValid(op->inputcollid) && !get_collation_isdeterministic(op->inputcollid))
		return NULL;
	pat = (Const *) lsecond(op->args);
	initStringInfo(&prefix);
	{
		text	   *p = DatumGetTextPP(pat->constvalue);

		wc_like_prefix(VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p), false, &prefix, pure, &no_wildcard);
	}
	if (prefix.len == 0)
		return NULL;
	if (no_wildcard)
		*pure = false;			/* equal to the prefix: checked again */
	return text_const(prefix.data, prefix.len);
}

/* The array a clause "part = ANY (array)" compares with. */
static Node *
part_in(PlannerInfo *root, RestrictInfo *ri, Index relid, WcColumn *col, int attnum)
{
	ScalarArrayOpExpr *sa;
	Oid			opclass = GetDefaultOpClass(col->type, BTREE_AM_OID);
	Oid			lefttype,
				righttype;

	if (ri->pseudoconstant || !IsA(ri->clause, ScalarArrayOpExpr) || !OidIsValid(opclass))
		return NULL;
	sa = (ScalarArrayOpExpr *) ri->clause;
	if (!sa->useOr || list_length(sa->args) != 2)
		return NULL;
	if (!is_part_var(linitial(sa->args), relid, attnum) ||
		!is_key_value(root, lsecond(sa->args), relid))
		return NULL;
	op_input_types(sa->opno, &lefttype, &righttype);
	if (getBaseType(lefttype) != get_opclass_input_type(opclass) ||
		getBaseType(righttype) != get_opclass_input_type(opclass))
		return NULL;
	if (OidIsValid(sa->inputcollid) && !get_collation_isdeterministic(sa->inputcollid))
		return NULL;
	if (get_op_opfamily_strategy(sa->opno, get_opclass_family(opclass)) != BTEqualStrategyNumber)
		return NULL;
	return lsecond(sa->args);
}

/*
 * classify_parts
 *		wc_classify_clauses for a row key made of parts: equality on the
 *		leading parts is a prefix, and a range on the next part (a text one
 *		compared in a bytewise collation) narrows it to one range of keys,
 *		exactly if the part has a fixed width or is the last.
 *
 * The condition is one WC_KEY_PARTS node: the number of equal parts, their
 * expressions, then the strategy and expression of a lower and an upper
 * bound on the next part (strategy 0: none; a lower bound of strategy
 * WC_PART_PREFIX_STRATEGY: the text part starts with it, from LIKE
 * 'abc%', and there is no upper bound), then for each equal part
 * whether it is "= ANY (array)": one of several values, each a prefix.
 */
static List *
classify_parts(PlannerInfo *root, RelOptInfo *rel, WcTable *t, List *clauses,
			   List **exprs, List **local, List **pushed)
{
	List	   *used = NIL;
	List	   *node = list_make1(makeInteger(WC_KEY_PARTS));
	int			neq = 0;
	int			lo_strategy = 0,
				hi_strategy = 0,
				lo_expr = -1,
				hi_expr = -1;
	List	   *in = NIL;
	ListCell   *lc;

	for (int p = 0; p < t->nparts; p++)
	{
		int			a = t->part_attnum[p];
		Node	   *eq = NULL;
		bool		is_in = false;

		foreach(lc, clauses)
		{
			int			strategy;
			Node	   *v = part_comparison(root, lfirst(lc), rel->relid, &t->cols[a - 1], a, &strategy);

			if (v != NULL && strategy == BTEqualStrategyNumber)
			{
				eq = v;
				used = lappend(used, lfirst(lc));
				break;
			}
		}
		if (eq == NULL)
			foreach(lc, clauses)
			{
				eq = part_in(root, lfirst(lc), rel->relid, &t->cols[a - 1], a);
				if (eq != NULL)
				{
					is_in = true;
					used = lappend(used, lfirst(lc));
					break;
				}
			}
		if (eq == NULL)
			break;
		*exprs = lappend(*exprs, eq);
		in = lappend_int(in, is_in);
		neq++;
	}

	/*
	 * A range on the next part is a range of keys.  A text part that a
	 * delimiter follows is not ("a b#" < "a#" although 'a' < 'a b'): the
	 * keys of its range are within a wider one (ranges.c), read, and the
	 * clauses checked again.
	 */
	if (neq < t->nparts)
	{
		int			a = t->part_attnum[neq];
		bool		recheck = !wc_segment_fixed_width(t->cols[a - 1].type) &&
			neq < t->nparts - 1;

		/* LIKE 'abc%' on a text part: the keys that go on with abc */
		foreach(lc, clauses)
		{
			bool		pure;
			Const	   *v = part_like(lfirst(lc), rel->relid, &t->cols[a - 1], a, &pure);

			if (v == NULL)
				continue;
			lo_strategy = WC_PART_PREFIX_STRATEGY;
			*exprs = lappend(*exprs, v);
			lo_expr = list_length(*exprs) - 1;
			used = lappend(used, lfirst(lc));
			if (!pure)
				*local = lappend(*local, lfirst(lc));
			break;
		}

		foreach(lc, clauses)
		{
			int			strategy;
			Node	   *v = part_comparison(root, lfirst(lc), rel->relid, &t->cols[a - 1], a, &strategy);

			if (v == NULL || lo_strategy == WC_PART_PREFIX_STRATEGY)
				continue;
			if ((strategy == BTGreaterStrategyNumber || strategy == BTGreaterEqualStrategyNumber) &&
				lo_strategy == 0)
			{
				lo_strategy = strategy;
				*exprs = lappend(*exprs, v);
				lo_expr = list_length(*exprs) - 1;
				used = lappend(used, lfirst(lc));
				if (recheck)
					*local = lappend(*local, lfirst(lc));
			}
			else if ((strategy == BTLessStrategyNumber || strategy == BTLessEqualStrategyNumber) &&
					 hi_strategy == 0)
			{
				hi_strategy = strategy;
				*exprs = lappend(*exprs, v);
				hi_expr = list_length(*exprs) - 1;
				used = lappend(used, lfirst(lc));
				if (recheck)
					*local = lappend(*local, lfirst(lc));
			}
		}
	}

	foreach(lc, clauses)
		if (!list_member_ptr(used, lfirst(lc)))
			*local = lappend(*local, lfirst(lc));
	if (pushed)
		*pushed = used;
	if (used == NIL)
		return NIL;

	node = lappend(node, makeInteger(neq));
	for (int i = 0; i < neq; i++)
		node = lappend(node, makeInteger(i));
	node = lappend(node, makeInteger(lo_strategy));
	node = lappend(node, makeInteger(lo_expr));
	node = lappend(node, makeInteger(hi_strategy));
	node = lappend(node, makeInteger(hi_expr));
	foreach(lc, in)
		node = lappend(node, makeInteger(lfirst_int(lc)));
	return list_make2(makeInteger(WC_KEY_AND), node);
}

/*
 * wc_classify_clauses
 *		Split RestrictInfos into a key condition (an AND of the pushed ones)
 *		and the clauses to check locally.
 *
 * exprs gets the expressions the condition compares with.  A pushed clause
 * that is not exact is also kept locally.  Returns NIL when nothing is
 * pushed: a full scan.
 */
List *
wc_classify_clauses(PlannerInfo *root, RelOptInfo *rel, WcTable *t,
					List *clauses, List **exprs, List **local, List **pushed)
{
	List	   *cond = list_make1(makeInteger(WC_KEY_AND));
	ListCell   *lc;

	*exprs = NIL;
	*local = NIL;
	if (pushed)
		*pushed = NIL;
	if (t->nparts > 0)
		return classify_parts(root, rel, t, clauses, exprs, local, pushed);
	foreach(lc, clauses)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		bool		exact = true;
		List	   *c = NULL;

		if (!ri->pseudoconstant)
			c = key_condition(root, (Node *) ri->clause, rel->relid, t, exprs, &exact);

		/*
		 * A LIKE whose pattern is known only at run time (a parameter) is a
		 * prefix scan when the pattern turns out to be one; otherwise the
		 * scan itself checks the pattern, so the clause need not stay a
		 * local filter, and a LIMIT can still stop the scan.
		 */
		if (c != NULL && !exact && intVal(linitial(c)) == WC_KEY_LIKE)
		{
			OpExpr	   *op = (OpExpr *) ri->clause;

			c = lappend(c, makeInteger(op->opfuncid));
			c = lappend(c, makeInteger(op->inputcollid));
			exact = true;
		}
		if (c != NULL)
		{
			cond = lappend(cond, c);
			if (pushed)
				*pushed = lappend(*pushed, ri);
		}
		if (c == NULL || !exact)
			*local = lappend(*local, ri);
	}
	if (list_length(cond) == 1)
		return NIL;
	return cond;
}
