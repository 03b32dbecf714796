/*-------------------------------------------------------------------------
 *
 * gcpolicy_test.c
 *	  Unit test of src/common/gcpolicy.c: the garbage-collection policy
 *	  grammar of `cbt setgcpolicy`, its canonical text and its errors.
 *
 * Plain C, no PostgreSQL:
 *		cc -Wall -Wextra -Isrc test/gcpolicy_test.c src/common/gcpolicy.c
 *
 * Each case is a text and what must come of it: its canonical text and
 * rules, or the error and the offset where reading stopped.  The canonical
 * text must read back as the same policy.  Output: one TAP line per case,
 * then "gcpolicy: N passed, M failed".
 *
 *-------------------------------------------------------------------------
 */
#include "common/gcpolicy.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define DAY_US	(UINT64_C(86400) * 1000000)

static const struct
{
	const char *text;
	WcGcError	error;
	size_t		where;			/* for an error */
	const char *canonical;		/* for a policy */
	uint64_t	versions;
	uint64_t	age_us;
	WcGcJoin	join;
}			cases[] = {
	{"never", WC_GC_OK, 0, "never", 0, 0, WC_GC_SINGLE},
	{"  NEVER ", WC_GC_OK, 0, "never", 0, 0, WC_GC_SINGLE},
	{"maxversions=1", WC_GC_OK, 0, "maxversions=1", 1, 0, WC_GC_SINGLE},
	{"MaxVersions = 3", WC_GC_OK, 0, "maxversions=3", 3, 0, WC_GC_SINGLE},
	{"maxage=7d", WC_GC_OK, 0, "maxage=7d", 0, 7 * DAY_US, WC_GC_SINGLE},
	{"maxage=1500ms", WC_GC_OK, 0, "maxage=1500ms", 0, 1500000, WC_GC_SINGLE},
	{"maxage=120m", WC_GC_OK, 0, "maxage=2h", 0, UINT64_C(7200000000), WC_GC_SINGLE},
	{"maxage=90s", WC_GC_OK, 0, "maxage=90s", 0, 90000000, WC_GC_SINGLE},
	{"maxage=24h", WC_GC_OK, 0, "maxage=1d", 0, DAY_US, WC_GC_SINGLE},
	{"maxage=7d or maxversions=3", WC_GC_OK, 0, "maxage=7d or maxversions=3", 3, 7 * DAY_US, WC_GC_OR},
	{"maxversions=2 AND maxage=1d", WC_GC_OK, 0, "maxage=1d and maxversions=2", 2, DAY_US, WC_GC_AND},
	{"", WC_GC_EMPTY, 0},
	{"   ", WC_GC_EMPTY, 3},
	{"forever", WC_GC_EXPECTED_RULE, 0},
	{"maxversions", WC_GC_EXPECTED_RULE, 11},
	{"maxversions=0", WC_GC_BAD_NUMBER, 12},
	{"maxversions=-1", WC_GC_BAD_NUMBER, 12},
	{"maxversions=x", WC_GC_BAD_NUMBER, 12},
	{"maxversions=99999999999999999999", WC_GC_BAD_NUMBER, 12},
	{"maxage=7", WC_GC_BAD_UNIT, 8},
	{"maxage=7w", WC_GC_BAD_UNIT, 8},
	{"maxage=7 days", WC_GC_BAD_UNIT, 9},
	{"maxage=0d", WC_GC_BAD_NUMBER, 7},
	{"maxage=7d maxversions=1", WC_GC_EXPECTED_JOIN, 10},
	{"maxage=7d xor maxversions=1", WC_GC_EXPECTED_JOIN, 10},
	{"maxage=7d or", WC_GC_EXPECTED_RULE, 12},
	{"maxage=7d or maxage=1d", WC_GC_TOO_MANY_RULES, 13},
	{"maxage=7d or maxversions=1 or maxversions=2", WC_GC_TOO_MANY_RULES, 27},
	{"never or maxversions=1", WC_GC_NEVER_JOINED, 6},
	{"maxversions=1 and never", WC_GC_NEVER_JOINED, 18},
};

int
main(void)
{
	int			passed = 0;
	int			failed = 0;
	int			n = (int) (sizeof(cases) / sizeof(cases[0]));

	for (int i = 0; i < n; i++)
	{
		WcGcPolicy	p,
					again;
		size_t		where,
					where2;
		WcGcError	e = wc_gc_parse(cases[i].text, &p, &where);
		char		text[WC_GC_MAX_TEXT];
		int			ok;

		if (cases[i].error != WC_GC_OK)
			ok = e == cases[i].error && where == cases[i].where;
		else
		{
			wc_gc_format(&p, text, sizeof(text));
			ok = e == WC_GC_OK && strcmp(text, cases[i].canonical) == 0 &&
				p.max_versions == cases[i].versions && p.max_age_us == cases[i].age_us &&
				p.join == cases[i].join &&
				wc_gc_parse(text, &again, &where2) == WC_GC_OK &&
				memcmp(&again, &p, sizeof(p)) == 0;
		}
		printf("%s %d - \"%s\"\n", ok ? "ok" : "not ok", i + 1, cases[i].text);
		if (!ok)
			printf("# got error %d at %zu, canonical \"%s\", versions %" PRIu64 ", age %" PRIu64 ", join %d\n",
				   (int) e, where, e == WC_GC_OK ? text : "", p.max_versions, p.max_age_us, (int) p.join);
		if (ok)
			passed++;
		else
			failed++;
	}

	/* a text longer than the limit is refused, not read */
	{
		char		longtext[WC_GC_MAX_TEXT + 16];
		WcGcPolicy	p;
		size_t		where;
		int			ok;

		memset(longtext, ' ', sizeof(longtext) - 1);
		longtext[sizeof(longtext) - 1] = '\0';
		memcpy(longtext, "never", 5);
		ok = wc_gc_parse(longtext, &p, &where) == WC_GC_TOO_LONG;
		printf("%s %d - a text over %d bytes\n", ok ? "ok" : "not ok", n + 1, WC_GC_MAX_TEXT);
		if (ok)
			passed++;
		else
			failed++;
	}
	/* which versions a policy deletes: by count, by age, both, either */
	{
		static const struct
		{
			const char *policy;
			uint64_t	index;
			uint64_t	age_us;
			bool		deletes;
		}			d[] = {
			{"never", 1000, 1000 * DAY_US, false},
			{"maxversions=2", 0, 1000 * DAY_US, false},
			{"maxversions=2", 1, 0, false},
			{"maxversions=2", 2, 0, true},
			{"maxage=1d", 5, DAY_US, false},
			{"maxage=1d", 0, DAY_US + 1, true},
			{"maxage=1d and maxversions=2", 2, 0, false},
			{"maxage=1d and maxversions=2", 0, 2 * DAY_US, false},
			{"maxage=1d and maxversions=2", 2, 2 * DAY_US, true},
			{"maxage=1d or maxversions=2", 2, 0, true},
			{"maxage=1d or maxversions=2", 0, 2 * DAY_US, true},
			{"maxage=1d or maxversions=2", 1, DAY_US, false},
		};
		int			nd = (int) (sizeof(d) / sizeof(d[0]));

		for (int i = 0; i < nd; i++)
		{
			WcGcPolicy	p;
			size_t		where;
			int			ok = wc_gc_parse(d[i].policy, &p, &where) == WC_GC_OK &&
				wc_gc_deletes(&p, d[i].index, d[i].age_us) == d[i].deletes;

			printf("%s %d - \"%s\" %s version %" PRIu64 " at age %" PRIu64 " us\n",
				   ok ? "ok" : "not ok", n + 2 + i, d[i].policy,
				   d[i].deletes ? "deletes" : "keeps", d[i].index, d[i].age_us);
			if (ok)
				passed++;
			else
				failed++;
		}
		n += nd;
	}
	printf("1..%d\n", n + 1);
	printf("gcpolicy: %d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
