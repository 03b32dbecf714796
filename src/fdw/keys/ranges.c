/*-------------------------------------------------------------------------
 *
 * ranges.c
 *	  From a key condition and its values to the LevelDB key ranges to read.
 *
 * The executor evaluates the expressions of the condition (pushdown.c),
 * then this file turns the condition tree into a sorted list of disjoint
 * row-key intervals: an atom gives points, a half-line or a prefix range;
 * OR is union, AND is intersection.  Contradictory bounds give no interval,
 * and the scan then reads nothing at all.  Each interval becomes a range of
 * LevelDB keys by the encoding of keycodec.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "access/nbtree.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/model/model.h"

typedef struct WcBound
{
	const uint8 *key;
	size_t		len;
	bool		incl;
	bool		inf;			/* -inf for a lower bound, +inf for an upper */
} WcBound;

typedef struct WcInterval
{
	WcBound		lo;
	WcBound		hi;
} WcInterval;

typedef struct WcIntervals
{
	int			n;
	WcInterval *iv;
} WcIntervals;

/* Lower bounds: -inf first; at the same key an inclusive one starts first. */
static int
cmp_lo(const WcBound *a, const WcBound *b)
{
	int			c;

	if (a->inf || b->inf)
		return (b->inf ? 1 : 0) - (a->inf ? 1 : 0);
	c = wc_compare_bytes(a->key, a->len, b->key, b->len);
	if (c != 0)
		return c;
	return (a->incl ? 0 : 1) - (b->incl ? 0 : 1);
}

/* Upper bounds: +inf last; at the same key an exclusive one ends first. */
static int
cmp_hi(const WcBound *a, const WcBound *b)
{
	int			c;

	if (a->inf || b->inf)
		return (a->inf ? 1 : 0) - (b->inf ? 1 : 0);
	c = wc_compare_bytes(a->key, a->len, b->key, b->len);
	if (c != 0)
		return c;
	return (a->incl ? 1 : 0) - (b->incl ? 1 : 0);
}

static bool
interval_empty(const WcInterval *iv)
{
	int			c;

	if (iv->lo.inf || iv->hi.inf)
		return false;
	c = wc_compare_bytes(iv->lo.key, iv->lo.len, iv->hi.key, iv->hi.len);
	return c > 0 || (c == 0 && !(iv->lo.incl && iv->hi.incl));
}

/* Does an interval ending at hi touch or overlap one starting at lo? */
static bool
touches(const WcBound *hi, const WcBound *lo)
{
	int			c;

	if (hi->inf || lo->inf)
		return true;
	c = wc_compare_bytes(lo->key, lo->len, hi->key, hi->len);
	return c < 0 || (c == 0 && (lo->incl || hi->incl));
}

static int
wc_interval_cmp(const void *a, const void *b)
{
	return cmp_lo(&((const WcInterval *) a)->lo, &((const WcInterval *) b)->lo);
}

/* Sort, drop empty intervals and merge the ones that meet. */
static WcIntervals
normalize(WcIntervals in)
{
	WcIntervals out;

	out.n = 0;
	out.iv = palloc(sizeof(WcInterval) * Max(1, in.n));
	qsort(in.iv, in.n, sizeof(WcInterval), wc_interval_cmp);
	for (int i = 0; i < in.n; i++)
	{
		if (interval_empty(&in.iv[i]))
			continue;
		if (out.n > 0 && touches(&out.iv[out.n - 1].hi, &in.iv[i].lo))
		{
			if (cmp_hi(&in.iv[i].hi, &out.iv[out.n - 1].hi) > 0)
				out.iv[out.n - 1].hi = in.iv[i].hi;
			continue;
		}
		out.iv[out.n++] = in.iv[i];
	}
	return out;
}

static WcIntervals
intersect(WcIntervals a, WcIntervals b)
{
	WcIntervals out;
	int			i = 0,
				j = 0;

	out.n = 0;
	out.iv = palloc(sizeof(WcInterval) * Max(1, a.n + b.n));
	while (i < a.n && j < b.n)
	{
		WcInterval	iv;

		iv.lo = cmp_lo(&a.iv[i].lo, &b.iv[j].lo) >= 0 ? a.iv[i].lo : b.iv[j].lo;
		iv.hi = cmp_hi(&a.iv[i].hi, &b.iv[j].hi) <= 0 ? a.iv[i].hi : b.iv[j].hi;
		if (!interval_empty(&iv))
			out.iv[out.n++] = iv;
		if (cmp_hi(&a.iv[i].hi, &b.iv[j].hi) <= 0)
			i++;
		else
			j++;
	}
	return out;
}

static WcIntervals
one(WcBound lo, WcBound hi)
{
	WcIntervals r;

	r.n = 1;
	r.iv = palloc(sizeof(WcInterval));
	r.iv[0].lo = lo;
	r.iv[0].hi = hi;
	return normalize(r);
}

static WcIntervals
none(void)
{
	WcIntervals r = {0, NULL};

	return r;
}

static WcBound
bound(const uint8 *key, size_t len, bool incl)
{
	WcBound		b = {key, len, incl, false};

	return b;
}

static WcBound
infinite(void)
{
	WcBound		b = {NULL, 0, false, true};

	return b;
}

/* Just past every key that starts with p: its successor, or +inf. */
static WcBound
after_prefix(const uint8 *p, size_t len)
{
	uint8	   *succ = memcpy(palloc(len + 1), p, len);
	size_t		slen = len;

	if (wc_successor(succ, &slen) != 0)
		return infinite();
	return bound(succ, slen, false);
}

/* All keys starting with p: [p, successor of p). */
static WcIntervals
prefix_interval(const uint8 *p, size_t len)
{
	if (len == 0)
		return one(infinite(), infinite());		/* every key */
	return one(bound(p, len, true), after_prefix(p, len));
}

static void
datum_bytes(Datum d, const uint8 **p, size_t *len)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(d);

	*p = (const uint8 *) VARDATA_ANY(v);
	*len = VARSIZE_ANY_EXHDR(v);
}

/* One bound on the part after the equal ones, as the keys see it. */
typedef struct WcPartBound
{
	int			strategy;		/* BT*StrategyNumber, 0: none */
	StringInfo	key;			/* prefix and the part's encoding */
	WcSegmentFit fit;
} WcPartBound;

/*
 * part_bound
 *		The bound "part neq <strategy> value" after the key prefix of the
 *		equal parts.
 *
 * A value no part can hold (an infinite date, say) lies before or after
 * every key with that prefix: fit says which, in value order, and the key
 * is the prefix alone.  A value between two that can be held (a time with
 * seconds, of a format that stops at minutes) becomes a bound on the one
 * before it: > and >= become >, < and <= become <=.
 */
static WcPartBound
part_bound(WcTable *t, StringInfo prefix, int neq, int strategy, Datum value)
{
	WcPartBound b;
	WcColumn   *col = &t->cols[t->part_attnum[neq] - 1];
	WcSegmentWhy why;

	b.strategy = strategy;
	b.key = makeStringInfo();
	if (strategy == 0)
		return b;
	appendBinaryStringInfo(b.key, prefix->data, prefix->len);
	if (!wc_segment_fixed_width(col->type))
	{
		/* the last part (pushdown.c): its bytes bound the keys' end */
		text	   *v = DatumGetTextPP(value);

		appendBinaryStringInfo(b.key, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
		b.fit = WC_SEGMENT_FITS;
		return b;
	}
	b.fit = wc_segment_fit(t, col, value, b.key, &why);
	if (b.fit == WC_SEGMENT_UNORDERED)
		wc_segment_encode(t, col, value, b.key);	/* no order: its error */
	if (b.fit == WC_SEGMENT_BETWEEN)
	{
		b.fit = WC_SEGMENT_FITS;
		b.strategy = strategy == BTGreaterStrategyNumber ||
			strategy == BTGreaterEqualStrategyNumber ?
			BTGreaterStrategyNumber : BTLessEqualStrategyNumber;
	}
	return b;
}

/*
 * delimited_upper
 *		Past every key whose text part, followed by the delimiter d, is at
 *		most v: key holds the prefix (plen bytes), then v.
 *
 * A part s < v sorts before v at their first difference, so its keys are
 * below v's; but when s is a prefix of v, its keys go on with d, which
 * sorts after v's next byte if that byte is below d.  So v is cut before
 * its first byte at or below d, d appended, and the keys that start with
 * that are included: a few more than the part's range, checked again.
 */
static WcBound
delimited_upper(StringInfo key, int plen, char d)
{
	for (int i = plen; i < key->len; i++)
		if ((uint8) key->data[i] <= (uint8) d)
		{
			key->len = i;
			appendStringInfoChar(key, d);
			break;
		}
	return after_prefix((uint8 *) key->data, key->len);
}

/*
 * parts_range
 *		The keys that start with prefix (the equal parts and a delimiter)
 *		and whose part neq is within the bounds (strategy 0: none).
 */
static WcIntervals
parts_range(WcTable *t, StringInfo prefix, int neq, int lo_strategy, Datum lo_value,
			int hi_strategy, Datum hi_value)
{
	WcPartBound lb,
				hb;
	WcBound		lo,
				hi;
	bool		text_part = !wc_segment_fixed_width(t->cols[t->part_attnum[neq] - 1].type);
	bool		delimited = text_part && neq < t->nparts - 1;

	/*
	 * A text part starting with v: the keys starting with the prefix and
	 * v, since a part cannot hold the delimiter (nor can v, then: no key).
	 */
	if (lo_strategy == WC_PART_PREFIX_STRATEGY)
	{
		text	   *v = DatumGetTextPP(lo_value);
		const char *p = VARDATA_ANY(v);
		int			n = VARSIZE_ANY_EXHDR(v);

		if (t->delimiter != '\0' && memchr(p, t->delimiter, n) != NULL)
			return none();
		appendBinaryStringInfo(prefix, p, n);
		return one(bound((uint8 *) prefix->data, prefix->len, true),
				   after_prefix((uint8 *) prefix->data, prefix->len));
	}

	lb = part_bound(t, prefix, neq, lo_strategy, lo_value);
	hb = part_bound(t, prefix, neq, hi_strategy, hi_value);
	/* A reversed part stores later values first: the bounds swap. */
	if ((lb.strategy != 0 || hb.strategy != 0) &&
		t->cols[t->part_attnum[neq] - 1].rowkey_reverse)
	{
		WcPartBound s = lb;

		lb = hb;
		hb = s;
		if (lb.strategy)
		{
			lb.strategy = BTCommuteStrategyNumber(lb.strategy);
			if (lb.fit != WC_SEGMENT_FITS)
				lb.fit = lb.fit == WC_SEGMENT_BELOW ? WC_SEGMENT_ABOVE : WC_SEGMENT_BELOW;
		}
		if (hb.strategy)
		{
			hb.strategy = BTCommuteStrategyNumber(hb.strategy);
			if (hb.fit != WC_SEGMENT_FITS)
				hb.fit = hb.fit == WC_SEGMENT_BELOW ? WC_SEGMENT_ABOVE : WC_SEGMENT_BELOW;
		}
	}

	lo = prefix->len > 0 ? bound((uint8 *) prefix->data, prefix->len, true) : infinite();
	hi = prefix->len > 0 ? after_prefix((uint8 *) prefix->data, prefix->len) : infinite();
	if (lb.strategy != 0)
	{
		/* above every key of the prefix: none; below: no bound of its own */
		if (lb.fit == WC_SEGMENT_ABOVE)
			return none();
		if (lb.fit == WC_SEGMENT_FITS && text_part)
			lo = bound((uint8 *) lb.key->data, lb.key->len,
					   lb.strategy == BTGreaterEqualStrategyNumber || delimited);
		else if (lb.fit == WC_SEGMENT_FITS)
		{
			/* > v: past every key whose part is v (fixed width: they share a prefix) */
			lo = lb.strategy == BTGreaterEqualStrategyNumber ?
				bound((uint8 *) lb.key->data, lb.key->len, true) :
				after_prefix((uint8 *) lb.key->data, lb.key->len);
			if (lo.inf)
				return none();
			lo.incl = true;
		}
	}
	if (hb.strategy != 0)
	{
		if (hb.fit == WC_SEGMENT_BELOW)
			return none();
		if (hb.fit == WC_SEGMENT_FITS && delimited)
			hi = delimited_upper(hb.key, prefix->len, t->delimiter);
		else if (hb.fit == WC_SEGMENT_FITS && text_part)
			hi = bound((uint8 *) hb.key->data, hb.key->len,
					   hb.strategy == BTLessEqualStrategyNumber);
		else if (hb.fit == WC_SEGMENT_FITS)
			hi = hb.strategy == BTLessStrategyNumber ?
				bound((uint8 *) hb.key->data, hb.key->len, false) :
				after_prefix((uint8 *) hb.key->data, hb.key->len);
	}
	return one(lo, hi);
}

/*
 * part_values
 *		The values equal part i may have: the value of its expression, or
 *		the elements of its array for "= ANY" (NULLs are equal to none).
 */
static int
part_values(Datum value, bool in, Datum **vals)
{
	ArrayType  *arr;
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	bool	   *elnulls;
	int			n,
				m = 0;

	if (!in)
	{
		*vals = palloc(sizeof(Datum));
		(*vals)[0] = value;
		return 1;
	}
	arr = DatumGetArrayTypeP(value);
	get_typlenbyvalalign(ARR_ELEMTYPE(arr), &elmlen, &elmbyval, &elmalign);
	deconstruct_array(arr, ARR_ELEMTYPE(arr), elmlen, elmbyval, elmalign,
					  vals, &elnulls, &n);
	for (int j = 0; j < n; j++)
		if (!elnulls[j])
			(*vals)[m++] = (*vals)[j];
	return m;
}

/*
 * eval_parts
 *		The keys a WC_KEY_PARTS condition selects (pushdown.c's classify_parts).
 *
 * Each leading part equal to one value, or to one of an array's, makes the
 * prefixes longer, or more: the keys are the union of one range per prefix,
 * which the scan reads in one ordered pass.
 */
static WcIntervals
eval_parts(List *node, Datum *values, bool *nulls, WcTable *t)
{
	int			neq = intVal(lsecond(node));
	int			lo_strategy = intVal(list_nth(node, 2 + neq));
	int			lo_expr = intVal(list_nth(node, 3 + neq));
	int			hi_strategy = intVal(list_nth(node, 4 + neq));
	int			hi_expr = intVal(list_nth(node, 5 + neq));
	List	   *prefixes = list_make1(makeStringInfo());
	WcIntervals all;
	ListCell   *lc;

	for (int i = 0; i < neq; i++)
	{
		int			e = intVal(list_nth(node, 2 + i));
		bool		in = intVal(list_nth(node, 6 + neq + i)) != 0;
		WcColumn   *col = &t->cols[t->part_attnum[i] - 1];
		List	   *longer = NIL;
		Datum	   *vals;
		int			n;

		if (nulls[e])
			return none();
		n = part_values(values[e], in, &vals);
		foreach(lc, prefixes)
		{
			StringInfo	p = lfirst(lc);

			for (int j = 0; j < n; j++)
			{
				StringInfo	k = makeStringInfo();
				WcSegmentWhy why;

				appendBinaryStringInfo(k, p->data, p->len);
				if (i > 0)
					appendStringInfoChar(k, t->delimiter);
				/* equal to a value no part can hold: no key */
				if (wc_segment_fit(t, col, vals[j], k, &why) == WC_SEGMENT_FITS)
					longer = lappend(longer, k);
			}
		}
		prefixes = longer;
		if (prefixes == NIL)
			return none();
	}
	if ((lo_strategy && nulls[lo_expr]) || (hi_strategy && nulls[hi_expr]))
		return none();

	all.n = 0;
	all.iv = palloc(sizeof(WcInterval) * list_length(prefixes));
	foreach(lc, prefixes)
	{
		StringInfo	p = lfirst(lc);
		WcIntervals r;

		if (neq == t->nparts)
			r = one(bound((uint8 *) p->data, p->len, true),
					bound((uint8 *) p->data, p->len, true));
		else
		{
			if (neq > 0)
				appendStringInfoChar(p, t->delimiter);
			r = parts_range(t, p, neq, lo_strategy, lo_strategy ? values[lo_expr] : 0,
							hi_strategy, hi_strategy ? values[hi_expr] : 0);
		}
		if (r.n == 1)
			all.iv[all.n++] = r.iv[0];
	}
	return normalize(all);
}

static WcIntervals
eval_node(List *node, Datum *values, bool *nulls, WcTable *t, bool bytes)
{
	WcKeyAtomKind kind = intVal(linitial(node));
	const uint8 *p;
	size_t		len;
	int			e;
	WcIntervals r;
	ListCell   *lc;

	if (kind == WC_KEY_AND)
	{
		r = one(infinite(), infinite());
		for_each_from(lc, node, 1)
			r = intersect(r, eval_node(lfirst(lc), values, nulls, t, bytes));
		return r;
	}
	if (kind == WC_KEY_OR)
	{
		WcIntervals all = {0, NULL};

		for_each_from(lc, node, 1)
		{
			WcIntervals c = eval_node(lfirst(lc), values, nulls, t, bytes);

			all.iv = all.iv ? repalloc(all.iv, sizeof(WcInterval) * (all.n + c.n + 1))
				: palloc(sizeof(WcInterval) * (c.n + 1));
			memcpy(all.iv + all.n, c.iv, sizeof(WcInterval) * c.n);
			all.n += c.n;
		}
		return normalize(all);
	}

	if (kind == WC_KEY_PARTS)
		return eval_parts(node, values, nulls, t);

	e = intVal(lsecond(node));
	if (nulls[e])
		return none();			/* a comparison with NULL is never true */

	if (kind == WC_KEY_IN)
	{
		ArrayType  *arr = DatumGetArrayTypeP(values[e]);
		int16		elmlen;
		bool		elmbyval;
		char		elmalign;
		Datum	   *elems;
		bool	   *elnulls;
		int			n;

		get_typlenbyvalalign(ARR_ELEMTYPE(arr), &elmlen, &elmbyval, &elmalign);
		deconstruct_array(arr, ARR_ELEMTYPE(arr), elmlen, elmbyval, elmalign,
						  &elems, &elnulls, &n);
		r.n = 0;
		r.iv = palloc(sizeof(WcInterval) * Max(1, n));
		for (int i = 0; i < n; i++)
		{
			if (elnulls[i])
				continue;
			datum_bytes(elems[i], &p, &len);
			r.iv[r.n].lo = bound(p, len, true);
			r.iv[r.n].hi = bound(p, len, true);
			r.n++;
		}
		return normalize(r);
	}

	datum_bytes(values[e], &p, &len);
	switch (kind)
	{
		case WC_KEY_EQ:
			return one(bound(p, len, true), bound(p, len, true));
		case WC_KEY_LT:
			return one(infinite(), bound(p, len, false));
		case WC_KEY_LE:
			return one(infinite(), bound(p, len, true));
		case WC_KEY_GT:
			return one(bound(p, len, false), infinite());
		case WC_KEY_GE:
			return one(bound(p, len, true), infinite());
		case WC_KEY_PREFIX:
			return prefix_interval(p, len);
		case WC_KEY_LIKE:
			{
				StringInfoData prefix;
				bool		pure,
							no_wildcard;

				initStringInfo(&prefix);
				wc_like_prefix((const char *) p, len, bytes, &prefix, &pure, &no_wildcard);
				if (no_wildcard)
					return one(bound((uint8 *) prefix.data, prefix.len, true),
							   bound((uint8 *) prefix.data, prefix.len, true));
				return prefix_interval((uint8 *) prefix.data, prefix.len);
			}
		default:
			elog(ERROR, "unknown key condition %d", kind);
	}
	return none();
}

static void
describe_key(StringInfo out, const WcBound *b, bool bytes)
{
	/*
	 * A bound past a prefix (its last byte raised) need not be text in the
	 * server encoding, and EXPLAIN's output must be: such a bound is shown
	 * as bytes.
	 */
	if (!bytes && (memchr(b->key, 0, b->len) != NULL ||
				   !pg_verifymbstr((const char *) b->key, (int) b->len, true)))
		bytes = true;
	if (bytes)
	{
		appendStringInfoString(out, "'\\x");
		for (size_t i = 0; i < b->len; i++)
			appendStringInfo(out, "%02x", b->key[i]);
		appendStringInfoChar(out, '\'');
	}
	else
		appendStringInfoString(out, quote_literal_cstr(pnstrdup((const char *) b->key, b->len)));
}

static bool
is_point(const WcInterval *iv)
{
	return !iv->lo.inf && !iv->hi.inf && iv->lo.incl && iv->hi.incl &&
		wc_compare_bytes(iv->lo.key, iv->lo.len, iv->hi.key, iv->hi.len) == 0;
}

/* Is iv exactly the keys that start with its lower bound? */
static bool
is_prefix(const WcInterval *iv)
{
	WcIntervals p;

	if (iv->lo.inf || !iv->lo.incl || iv->lo.len == 0)
		return false;
	p = prefix_interval(iv->lo.key, iv->lo.len);
	return cmp_hi(&p.iv[0].hi, &iv->hi) == 0;
}

/*
 * describe_intervals
 *		Say in EXPLAIN's words which rows an interval list reads: returns
 *		the label, and appends the value to out.
 */
static const char *
describe_intervals(StringInfo out, int n, WcInterval *iv, bool bytes)
{
	bool		points = n > 0;

	for (int i = 0; i < n; i++)
		if (!is_point(&iv[i]))
			points = false;

	if (n == 0)
	{
		appendStringInfoString(out, "none");
		return "Row Ranges";
	}
	if (n == 1 && iv[0].lo.inf && iv[0].hi.inf)
	{
		appendStringInfoString(out, "Full Scan");
		return "Row Ranges";
	}
	if (points)
	{
		if (n == 1)
			appendStringInfoString(out, "= ");
		for (int i = 0; i < n; i++)
		{
			if (i > 0)
				appendStringInfoString(out, ", ");
			describe_key(out, &iv[i].lo, bytes);
		}
		return n == 1 ? "Row Key" : "Row Keys";
	}
	if (n == 1 && is_prefix(&iv[0]))
	{
		describe_key(out, &iv[0].lo, bytes);
		return "Row Prefix";
	}
	for (int i = 0; i < n; i++)
	{
		if (i > 0)
			appendStringInfoString(out, ", ");
		if (iv[i].lo.inf)
			appendStringInfoString(out, "(-inf");
		else
		{
			appendStringInfoChar(out, iv[i].lo.incl ? '[' : '(');
			describe_key(out, &iv[i].lo, bytes);
		}
		appendStringInfoString(out, ", ");
		if (iv[i].hi.inf)
			appendStringInfoString(out, "+inf)");
		else
		{
			describe_key(out, &iv[i].hi, bytes);
			appendStringInfoChar(out, iv[i].hi.incl ? ']' : ')');
		}
	}
	return "Row Ranges";
}

/* The LevelDB key of a bound: table | escaped key, terminator bumped if after. */
static uint8 *
bound_key(WcTable *t, const WcBound *b, bool after, size_t *len)
{
	uint8	   *k = wc_row_key(t, b->key, b->len, len);

	if (after)
		k[*len - 1]++;			/* 0x00 0x01 -> 0x00 0x02: past every cell */
	return k;
}

/* The keys of the whole table. */
WcKeyRange *
wc_table_range(WcTable *t)
{
	return linitial(wc_eval_key_ranges(NIL, NULL, NULL, t, NULL, NULL));
}

/* The keys of one row. */
WcKeyRange *
wc_row_range(WcTable *t, const uint8 *key, size_t len)
{
	WcKeyRange *kr = palloc0(sizeof(WcKeyRange));
	WcBound		b = bound(key, len, true);

	kr->start = bound_key(t, &b, false, &kr->start_len);
	kr->end = bound_key(t, &b, true, &kr->end_len);
	return kr;
}

/*
 * wc_scan_key_values
 *		The values the key condition compares with: exprs evaluated in
 *		econtext, or, with econtext NULL, exprs that are all Consts
 *		(EXPLAIN of a plan whose values are known).
 */
void
wc_scan_key_values(List *exprs, ExprContext *econtext, Datum **values, bool **nulls)
{
	int			n = list_length(exprs);
	int			i = 0;
	ListCell   *lc;

	*values = palloc(sizeof(Datum) * Max(1, n));
	*nulls = palloc(sizeof(bool) * Max(1, n));
	foreach(lc, exprs)
	{
		if (econtext == NULL)
		{
			Const	   *c = lfirst_node(Const, lc);

			(*values)[i] = c->constvalue;
			(*nulls)[i] = c->constisnull;
		}
		else
			(*values)[i] = ExecEvalExpr(lfirst(lc), econtext, &(*nulls)[i]);
		i++;
	}
}

/*
 * wc_eval_key_ranges
 *		The LevelDB key ranges (WcKeyRange, ascending) a condition selects.
 *
 * cond NIL means the whole table.  With label given, EXPLAIN's description
 * of the rows read is returned: its label in *label, its value appended to
 * value.
 */
List *
wc_eval_key_ranges(List *cond, Datum *values, bool *nulls, WcTable *t,
				   const char **label, StringInfo value)
{
	bool		bytes = t->nparts == 0 && t->cols[t->rowkey_attnum - 1].type == BYTEAOID;
	WcIntervals r = cond ? eval_node(cond, values, nulls, t, bytes) : one(infinite(), infinite());
	List	   *ranges = NIL;

	for (int i = 0; i < r.n; i++)
	{
		WcKeyRange *kr = palloc0(sizeof(WcKeyRange));
		WcInterval *iv = &r.iv[i];

		if (iv->lo.inf)
		{
			kr->start = t->table_key;
			kr->start_len = t->table_key_len;
		}
		else
			kr->start = bound_key(t, &iv->lo, !iv->lo.incl, &kr->start_len);
		if (iv->hi.inf)
		{
			WcBound		e = after_prefix(t->table_key, t->table_key_len);

			kr->end = (uint8 *) e.key;
			kr->end_len = e.len;
		}
		else
			kr->end = bound_key(t, &iv->hi, iv->hi.incl, &kr->end_len);
		ranges = lappend(ranges, kr);
	}

	if (label != NULL)
		*label = describe_intervals(value, r.n, r.iv, bytes);
	return ranges;
}
