/*-------------------------------------------------------------------------
 *
 * gcpolicy.c
 *	  Reading and writing garbage-collection policies (gcpolicy.h has the
 *	  grammar).
 *
 * Keywords and units are case-insensitive and white space may stand
 * between any two tokens, as `cbt setgcpolicy` accepts them.  A policy is
 * stored in its canonical text (wc_gc_format), so that two spellings of
 * one policy read back the same.
 *
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/gcpolicy.h"

#define USECS_PER_MS	UINT64_C(1000)

static const struct
{
	const char *name;
	uint64_t	us;
}			units[] = {
	/* longest name first: "ms" before "m" */
	{"ms", USECS_PER_MS},
	{"s", 1000 * USECS_PER_MS},
	{"m", 60 * 1000 * USECS_PER_MS},
	{"h", 60 * 60 * 1000 * USECS_PER_MS},
	{"d", 24 * 60 * 60 * 1000 * USECS_PER_MS},
};

#define NUNITS	(sizeof(units) / sizeof(units[0]))

typedef struct Parser
{
	const char *start;
	const char *p;
} Parser;

static void
skip_space(Parser *ps)
{
	while (isspace((unsigned char) *ps->p))
		ps->p++;
}

/* Take the keyword kw (case-insensitive) if it is next, as a whole word. */
static bool
take_word(Parser *ps, const char *kw)
{
	size_t		n = strlen(kw);

	skip_space(ps);
	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char) ps->p[i]) != kw[i])
			return false;
	if (isalnum((unsigned char) ps->p[n]) || ps->p[n] == '_')
		return false;
	ps->p += n;
	return true;
}

/* Take "=" (after optional white space). */
static bool
take_equals(Parser *ps)
{
	skip_space(ps);
	if (*ps->p != '=')
		return false;
	ps->p++;
	return true;
}

/* A whole number from 1 up that fits limit. */
static bool
take_number(Parser *ps, uint64_t limit, uint64_t *out)
{
	uint64_t	v = 0;

	skip_space(ps);
	if (!isdigit((unsigned char) *ps->p))
		return false;
	while (isdigit((unsigned char) *ps->p))
	{
		unsigned	d = (unsigned) (*ps->p - '0');

		if (v > (limit - d) / 10)
			return false;
		v = v * 10 + d;
		ps->p++;
	}
	*out = v;
	return v >= 1;
}

static WcGcError
fail(Parser *ps, const char *at, size_t *where, WcGcError e)
{
	*where = (size_t) (at - ps->start);
	return e;
}

/*
 * wc_gc_parse
 *		Read a policy.  On an error, *where is the offset (from 0) of the
 *		character where reading stopped.
 */
WcGcError
wc_gc_parse(const char *text, WcGcPolicy *policy, size_t *where)
{
	Parser		ps = {text, text};
	int			rules = 0;

	memset(policy, 0, sizeof(*policy));
	policy->join = WC_GC_SINGLE;
	*where = 0;
	if (strlen(text) > WC_GC_MAX_TEXT)
		return fail(&ps, text + WC_GC_MAX_TEXT, where, WC_GC_TOO_LONG);
	skip_space(&ps);
	if (*ps.p == '\0')
		return fail(&ps, ps.p, where, WC_GC_EMPTY);

	if (take_word(&ps, "never"))
	{
		skip_space(&ps);
		if (*ps.p != '\0')
			return fail(&ps, ps.p, where, WC_GC_NEVER_JOINED);
		return WC_GC_OK;
	}

	for (;;)
	{
		const char *rule;
		const char *number;

		skip_space(&ps);
		rule = ps.p;
		if (take_word(&ps, "maxversions"))
		{
			if (!take_equals(&ps))
				return fail(&ps, ps.p, where, WC_GC_EXPECTED_RULE);
			skip_space(&ps);
			if (policy->max_versions != 0)
				return fail(&ps, rule, where, WC_GC_TOO_MANY_RULES);
			number = ps.p;
			if (!take_number(&ps, UINT64_MAX, &policy->max_versions))
				return fail(&ps, number, where, WC_GC_BAD_NUMBER);
		}
		else if (take_word(&ps, "maxage"))
		{
			uint64_t	n;
			const char *unit;
			size_t		u;

			if (!take_equals(&ps))
				return fail(&ps, ps.p, where, WC_GC_EXPECTED_RULE);
			skip_space(&ps);
			if (policy->max_age_us != 0)
				return fail(&ps, rule, where, WC_GC_TOO_MANY_RULES);
			number = ps.p;
			if (!take_number(&ps, UINT64_MAX / units[NUNITS - 1].us, &n))
				return fail(&ps, number, where, WC_GC_BAD_NUMBER);
			skip_space(&ps);
			unit = ps.p;
			for (u = 0; u < NUNITS; u++)
				if (take_word(&ps, units[u].name))
					break;
			if (u == NUNITS)
				return fail(&ps, unit, where, WC_GC_BAD_UNIT);
			policy->max_age_us = n * units[u].us;
		}
		else if (take_word(&ps, "never"))
			return fail(&ps, rule, where, WC_GC_NEVER_JOINED);
		else
			return fail(&ps, rule, where, WC_GC_EXPECTED_RULE);
		rules++;

		skip_space(&ps);
		if (*ps.p == '\0')
			return WC_GC_OK;
		{
			const char *join = ps.p;
			WcGcJoin	j;

			if (take_word(&ps, "and"))
				j = WC_GC_AND;
			else if (take_word(&ps, "or"))
				j = WC_GC_OR;
			else
				return fail(&ps, join, where, WC_GC_EXPECTED_JOIN);
			if (rules == 2)
				return fail(&ps, join, where, WC_GC_TOO_MANY_RULES);
			policy->join = j;
		}
	}
}

/* The age in the largest unit that gives a whole number. */
static void
format_age(uint64_t us, char *buf, size_t size)
{
	for (int u = (int) NUNITS - 1; u >= 0; u--)
		if (us % units[u].us == 0)
		{
			snprintf(buf, size, "maxage=%llu%s",
					 (unsigned long long) (us / units[u].us), units[u].name);
			return;
		}
	snprintf(buf, size, "maxage=%llums", (unsigned long long) (us / USECS_PER_MS));
}

/*
 * wc_gc_format
 *		The canonical text of a policy: "never", "maxversions=N",
 *		"maxage=Nu", or "maxage=Nu and|or maxversions=N".
 */
void
wc_gc_format(const WcGcPolicy *policy, char *buf, size_t size)
{
	char		age[64];

	if (policy->max_versions == 0 && policy->max_age_us == 0)
	{
		snprintf(buf, size, "never");
		return;
	}
	if (policy->max_age_us != 0)
		format_age(policy->max_age_us, age, sizeof(age));
	if (policy->max_versions == 0)
		snprintf(buf, size, "%s", age);
	else if (policy->max_age_us == 0)
		snprintf(buf, size, "maxversions=%llu", (unsigned long long) policy->max_versions);
	else
		snprintf(buf, size, "%s %s maxversions=%llu", age,
				 policy->join == WC_GC_AND ? "and" : "or",
				 (unsigned long long) policy->max_versions);
}

/*
 * wc_gc_deletes
 *		Does the policy delete a version that has index newer versions
 *		above it in its cell (0: it is the newest) and is age_us old?
 */
bool
wc_gc_deletes(const WcGcPolicy *policy, uint64_t index, uint64_t age_us)
{
	bool		by_count = policy->max_versions != 0 && index >= policy->max_versions;
	bool		by_age = policy->max_age_us != 0 && age_us > policy->max_age_us;

	if (policy->join == WC_GC_AND)
		return by_count && by_age;
	return by_count || by_age;
}

/*
 * wc_family_line_next
 *		The line at *p of a family list that ends at end, *p moved past it;
 *		false at the end.  The backend (families.c) and both engines read
 *		the lists with it.
 */
bool
wc_family_line_next(const char **p, const char *end, WcFamilyLine *line)
{
	const char *nl;
	const char *lineend;
	const char *tab;

	if (*p >= end)
		return false;
	nl = memchr(*p, '\n', end - *p);
	lineend = nl ? nl : end;
	tab = memchr(*p, '\t', lineend - *p);
	memset(line, 0, sizeof(*line));
	line->start = *p;
	if (tab != NULL)
	{
		line->family = *p;
		line->family_len = tab - *p;
		line->policy = tab + 1;
		line->policy_len = lineend - tab - 1;
		line->aggregate = memchr(line->policy, '\t', line->policy_len);
		if (line->aggregate != NULL)
		{
			line->policy_len = line->aggregate - line->policy;
			line->aggregate++;
			line->aggregate_len = lineend - line->aggregate;
		}
	}
	*p = nl ? nl + 1 : end;
	line->len = *p - line->start;
	return true;
}
