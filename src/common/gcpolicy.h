/*-------------------------------------------------------------------------
 *
 * gcpolicy.h
 *	  Garbage-collection policies of column families, in the grammar of
 *	  Bigtable's `cbt setgcpolicy` (gcpolicy.c).
 *
 *	  policy := "never" | rule [ ("and" | "or") rule ]
 *	  rule   := "maxversions=" N | "maxage=" N unit
 *	  unit   := "ms" | "s" | "m" | "h" | "d"
 *
 * A version is deleted when the policy says so: under "and" only when both
 * rules say so, under "or" when either does; "never" deletes nothing.  Plain
 * C with no PostgreSQL dependency, so that the backend (which checks what a
 * user writes), the storage worker (which applies it) and the unit test
 * share one definition.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_GCPOLICY_H
#define WC_GCPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum WcGcJoin
{
	WC_GC_SINGLE,				/* one rule, or never */
	WC_GC_AND,
	WC_GC_OR
} WcGcJoin;

typedef struct WcGcPolicy
{
	uint64_t	max_versions;	/* 0: no such rule */
	uint64_t	max_age_us;		/* 0: no such rule */
	WcGcJoin	join;
} WcGcPolicy;

/* Why a policy does not parse. */
typedef enum WcGcError
{
	WC_GC_OK = 0,
	WC_GC_EMPTY,				/* nothing but white space */
	WC_GC_EXPECTED_RULE,		/* not "never", "maxversions=" or "maxage=" */
	WC_GC_BAD_NUMBER,			/* not a whole number from 1 up */
	WC_GC_BAD_UNIT,				/* maxage without ms, s, m, h or d */
	WC_GC_EXPECTED_JOIN,		/* after a rule, not "and" or "or" */
	WC_GC_TOO_MANY_RULES,		/* a third rule, or one rule twice */
	WC_GC_NEVER_JOINED,			/* "never" with another rule */
	WC_GC_TOO_LONG				/* longer than WC_GC_MAX_TEXT */
} WcGcError;

/* The longest policy text accepted, and the canonical text's buffer size. */
#define WC_GC_MAX_TEXT		256

/*
 * A line of a table's family list (fdw/meta/families.c writes them):
 * "family<TAB>policy[<TAB>aggregate]\n".  family is NULL for a line with no
 * tab, which is not one we wrote.
 */
typedef struct WcFamilyLine
{
	const char *start;			/* the line, with its newline */
	size_t		len;
	const char *family;
	size_t		family_len;
	const char *policy;
	size_t		policy_len;
	const char *aggregate;		/* NULL: not an aggregate family */
	size_t		aggregate_len;
} WcFamilyLine;

extern bool wc_family_line_next(const char **p, const char *end, WcFamilyLine *line);
extern WcGcError wc_gc_parse(const char *text, WcGcPolicy *policy, size_t *where);
extern void wc_gc_format(const WcGcPolicy *policy, char *buf, size_t size);
extern bool wc_gc_deletes(const WcGcPolicy *policy, uint64_t index, uint64_t age_us);

#endif							/* WC_GCPOLICY_H */
