/*-------------------------------------------------------------------------
 *
 * keys.h
 *	  The row key as an index: which WHERE clauses it answers (pushdown.c),
 *	  the LevelDB key ranges a condition of them selects once its values are
 *	  known (ranges.c), and the checks of a declaration that warn when a row
 *	  key cannot serve so, or refuse a format that does not fit it
 *	  (declcheck.c).
 *
 * The planner keeps a pushed condition in the plan as nested Lists of
 * WcKeyAtomKind nodes (a "key condition"); the executor and EXPLAIN turn
 * it into key ranges here, and whatever reads a whole table or one row
 * takes its range here too (wc_table_range, wc_row_range).  It uses the
 * model alone.  Inside it, ranges.c takes a LIKE pattern's prefix as
 * pushdown.c does, and declcheck.c asks pushdown.c which collations order
 * as bytes: one way.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_KEYS_KEYS_H
#define WC_FDW_KEYS_KEYS_H

#include "nodes/pathnodes.h"

#include "fdw/fdw.h"

/* The nodes of a key condition (pushdown.c, ranges.c). */
typedef enum WcKeyAtomKind
{
	WC_KEY_AND = 1,				/* children follow */
	WC_KEY_OR,
	WC_KEY_EQ,					/* then the index of the compared expression */
	WC_KEY_IN,					/* ... an array */
	WC_KEY_LT,
	WC_KEY_LE,
	WC_KEY_GT,
	WC_KEY_GE,
	WC_KEY_PREFIX,				/* ... the prefix */
	WC_KEY_LIKE,				/* ... a LIKE pattern, its prefix taken at run time;
								 * at the top, also the LIKE function and
								 * collation, for the scan to check the rows */
	WC_KEY_PARTS				/* row-key parts: see classify_parts() */
} WcKeyAtomKind;

/*
 * In a WC_KEY_PARTS condition, the lower bound's strategy when the part
 * after the equal ones starts with a text (LIKE 'abc%'): past btree's five.
 */
#define WC_PART_PREFIX_STRATEGY 6

/* in pushdown.c */
extern bool wc_collation_is_bytewise(Oid type, Oid collation);
extern void wc_like_prefix(const char *pat, int len, bool bytes, StringInfo prefix,
						   bool *pure, bool *no_wildcard);
extern List *wc_classify_clauses(PlannerInfo *root, RelOptInfo *rel, WcTable *t,
								 List *clauses, List **exprs, List **local,
								 List **pushed);

/* in ranges.c */
extern void wc_scan_key_values(List *exprs, ExprContext *econtext,
							   Datum **values, bool **nulls);
extern List *wc_eval_key_ranges(List *cond, Datum *values, bool *nulls, WcTable *t,
								const char **label, StringInfo value);
extern WcKeyRange *wc_table_range(WcTable *t);
extern WcKeyRange *wc_row_range(WcTable *t, const uint8 *key, size_t len);

/* in declcheck.c */
extern void wc_declcheck_init(void);
extern bool wc_is_widecolumn_table(Oid relid);

#endif							/* WC_FDW_KEYS_KEYS_H */
