/*-------------------------------------------------------------------------
 *
 * advisekeys.c
 *	  The schema advisor's findings on the shape of the row keys
 *	  (seed 000, "Row keys to avoid"): a timestamp or a sequential number
 *	  first, a hash first, domain names not reversed, numbers not padded.
 *
 * Each judges the printable row keys of the sample (advise.c) by their
 * segments, split at the table's delimiter: its row-key parts' own, or
 * else the one of '#', '/', ':', '|', ';' that most keys hold (if more
 * than half do).  A finding needs at least WC_KEYS_MIN keys that show it;
 * the shares and patterns are documented in the README's "Schema
 * advisor".  These are heuristics: they look for what the seeds' examples
 * look like, and say what they saw, so that a reader can judge.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fdw/advise/advise.h"

/* Keys that must show a shape before it is a finding. */
#define WC_KEYS_MIN			8
/* ... and the share of the sampled keys, in percent, for the leading segment */
#define WC_KEYS_SHARE		80
/* ... for a domain name in a segment */
#define WC_KEYS_DOMAIN_SHARE 50
/* Segments looked at for domains and numbers. */
#define WC_KEYS_SEGMENTS	8
/* A hash: at least this many hex digits. */
#define WC_KEYS_HASH_DIGITS	16

/* Top-level domains that are words; any two letters is a country's. */
static const char *const generic_tlds[] = {
	"com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "name",
	"pro", "aero", "coop", "museum", "mobi", "asia", "tel", "travel", "jobs",
	"app", "dev", "xyz", "online", "site", "tech", "store", "cloud", "blog",
	NULL
};

/* Segment pos (0-based) of row r: false if the key has fewer. */
static bool
segment(const WcAdvice *a, const WcAdviseRow *r, int pos, const char **s, int *len)
{
	const char *p = (const char *) r->key;
	const char *end = p + r->keylen;

	for (;;)
	{
		const char *d = a->delimiter ? memchr(p, a->delimiter, end - p) : NULL;

		if (pos-- == 0)
		{
			*s = p;
			*len = (d ? d : end) - p;
			return true;
		}
		if (d == NULL)
			return false;
		p = d + 1;
	}
}

static bool
all_digits(const char *s, int len)
{
	if (len == 0)
		return false;
	for (int i = 0; i < len; i++)
		if (!isdigit((unsigned char) s[i]))
			return false;
	return true;
}

static int
two_digits(const char *s)
{
	return (s[0] - '0') * 10 + (s[1] - '0');
}

/*
 * A time: a date YYYY-MM-DD (separators '-', '/', '.', '_' or none, after
 * one optional letter, as seed 001's 't2021-03-05-1204'), years 1970 to
 * 2199; or an integer of 10, 13, 16 or 19 digits, seconds to nanoseconds
 * since 1970, between the years 2000 and 2100.
 */
static bool
looks_like_time(const char *s, int len)
{
	int			i = 0;

	if (all_digits(s, len) && (len == 10 || len == 13 || len == 16 || len == 19))
	{
		long		secs = atol(pnstrdup(s, 10));

		return secs >= 946684800L && secs <= 4102444800L;
	}
	if (len > 0 && isalpha((unsigned char) s[0]))
		i = 1;
	if (len - i < 8 || !all_digits(s + i, 4) || atoi(pnstrdup(s + i, 4)) < 1970 ||
		atoi(pnstrdup(s + i, 4)) > 2199)
		return false;
	i += 4;
	if (strchr("-/._", s[i]) != NULL)
		i++;
	if (len - i < 4 || !all_digits(s + i, 2) || two_digits(s + i) < 1 || two_digits(s + i) > 12)
		return false;
	i += 2;
	if (strchr("-/._", s[i]) != NULL)
		i++;
	return len - i >= 2 && all_digits(s + i, 2) && two_digits(s + i) >= 1 && two_digits(s + i) <= 31;
}

/*
 * A number at the end of a segment, after a prefix of no digits ("user42",
 * "42"): the prefix's length, or -1.
 */
static int
number_prefix(const char *s, int len)
{
	int			i = 0;

	while (i < len && !isdigit((unsigned char) s[i]))
		i++;
	return i < len && all_digits(s + i, len - i) ? i : -1;
}

/* A hash, or a random id: WC_KEYS_HASH_DIGITS hex digits or more, or a UUID. */
static bool
looks_like_hash(const char *s, int len)
{
	bool		letter = false;

	if (len == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-')
	{
		for (int i = 0; i < len; i++)
			if (!isxdigit((unsigned char) s[i]) && s[i] != '-')
				return false;
		return true;
	}
	if (len < WC_KEYS_HASH_DIGITS)
		return false;
	for (int i = 0; i < len; i++)
	{
		if (!isxdigit((unsigned char) s[i]))
			return false;
		letter |= isalpha((unsigned char) s[i]);
	}
	return letter;
}

static bool
is_generic_tld(const char *s, int len)
{
	for (int i = 0; generic_tlds[i]; i++)
		if ((int) strlen(generic_tlds[i]) == len && pg_strncasecmp(generic_tlds[i], s, len) == 0)
			return true;
	return false;
}

/*
 * A domain name in the usual order, the top-level domain last
 * ("maps.google.com"): two labels or more, the last a top-level domain,
 * the first not a generic one ("com.google.maps" is reversed).
 */
static bool
unreversed_domain(const char *s, int len)
{
	const char *first_end = memchr(s, '.', len);
	const char *last = NULL;
	int			lastlen;

	if (first_end == NULL || first_end == s)
		return false;
	for (int i = 0; i < len; i++)
	{
		if (s[i] == '.')
		{
			if (i + 1 == len || s[i + 1] == '.')
				return false;
			last = s + i + 1;
		}
		else if (!isalnum((unsigned char) s[i]) && s[i] != '-')
			return false;
	}
	lastlen = s + len - last;
	for (int i = 0; i < lastlen; i++)
		if (!isalpha((unsigned char) last[i]))
			return false;
	return (lastlen == 2 || is_generic_tld(last, lastlen)) &&
		!is_generic_tld(s, first_end - s);
}

/*
 * wc_advise_key_shape
 *		The delimiter the row keys' segments are split at.
 */
void
wc_advise_key_shape(WcAdvice *a)
{
	const char *candidates = "#/:|;";
	int			best = 0;

	if (a->t->nparts > 0)
	{
		a->delimiter = a->t->delimiter;
		return;
	}
	for (const char *c = candidates; *c; c++)
	{
		int			n = 0;
		int			printable = 0;

		for (int i = 0; i < a->nrows; i++)
			if (a->rows[i].printable)
			{
				printable++;
				n += memchr(a->rows[i].key, *c, a->rows[i].keylen) != NULL;
			}
		if (n > best && n * 2 > printable)
		{
			best = n;
			a->delimiter = *c;
		}
	}
}

/* Printable keys of the sample: the ones whose shape is judged. */
static int
printable_keys(const WcAdvice *a)
{
	int			n = 0;

	for (int i = 0; i < a->nrows; i++)
		n += a->rows[i].printable;
	return n;
}

/* Do n of the sample's keys make the share (percent) of its printable ones? */
static bool
enough(const WcAdvice *a, int n, int share)
{
	return n >= WC_KEYS_MIN && n * 100 >= printable_keys(a) * share;
}

/* "N of M sampled row keys": evidence's start. */
static void
append_count(const WcAdvice *a, StringInfo s, int n)
{
	appendStringInfo(s, "%d of %d sampled row keys", n, printable_keys(a));
}

typedef bool (*WcSegmentTest) (const char *s, int len);

/*
 * How many printable sampled keys have a segment pos that passes test, and
 * the first and last of them in key order.
 */
static int
count_keys(const WcAdvice *a, int pos, WcSegmentTest test,
		   const WcAdviseRow **first, const WcAdviseRow **last)
{
	int			n = 0;

	*first = *last = NULL;
	for (int i = 0; i < a->nrows; i++)
	{
		const char *s;
		int			len;

		if (a->rows[i].printable && segment(a, &a->rows[i], pos, &s, &len) && test(s, len))
		{
			n++;
			*first = *first ? *first : &a->rows[i];
			*last = &a->rows[i];
		}
	}
	return n;
}

/* Row keys that begin with a time. */
void
wc_advise_timestamp_key(WcAdvice *a)
{
	const WcAdviseRow *first;
	const WcAdviseRow *last;
	int			n = count_keys(a, 0, looks_like_time, &first, &last);
	WcFinding  *f;

	if (!enough(a, n, WC_KEYS_SHARE))
		return;
	f = wc_advise_report(a, WC_ADVISE_WARNING, "timestamp_key",
						 "Never begin a row key with a timestamp: rows sort by key, so consecutive writes all "
						 "go to the end of the key range, one hotspot. Put a value of high cardinality first, "
						 "such as the device or user id, and the time after it (e.g. 'us-west2#3698#2021-03-05-1204'); "
						 "to read the newest first, use a reversed timestamp after that id.");
	append_count(a, &f->evidence, n);
	appendStringInfoString(&f->evidence, " begin with a time, from ");
	wc_advise_append_key(&f->evidence, first->key, first->keylen);
	appendStringInfoString(&f->evidence, " to ");
	wc_advise_append_key(&f->evidence, last->key, last->keylen);
	appendStringInfoString(&f->evidence, ".");
}

typedef struct WcNumbered
{
	const WcAdviseRow *row;
	const char *digits;			/* without leading zeros */
	int			ndigits;
} WcNumbered;

/* Numeric order of digit strings without leading zeros. */
static int
numbered_cmp(const void *x, const void *y)
{
	const WcNumbered *a = x;
	const WcNumbered *b = y;

	if (a->ndigits != b->ndigits)
		return a->ndigits < b->ndigits ? -1 : 1;
	return memcmp(a->digits, b->digits, a->ndigits);
}

/*
 * Row keys that begin with a number that grows with the time of writing:
 * a sequential id.  The keys alone cannot tell one from any other number;
 * the sample's write times can: in the order of the numbers, the rows'
 * newest versions must be newer at nine changes out of ten or more, and
 * at WC_KEYS_MIN changes at least.  A table written in one transaction
 * shows no order of writes, and no finding.
 */
void
wc_advise_sequential_key(WcAdvice *a)
{
	WcNumbered *nums = palloc(sizeof(WcNumbered) * (a->nrows + 1));
	int			n = 0;
	int			distinct = 0;
	int			later = 0;
	int			earlier = 0;
	const char *prefix = NULL;
	int			prefixlen = 0;
	WcFinding  *f;

	for (int i = 0; i < a->nrows; i++)
	{
		const char *s;
		int			len;
		int			pl;

		if (!a->rows[i].printable || a->rows[i].versions == 0 ||
			!segment(a, &a->rows[i], 0, &s, &len) || looks_like_time(s, len) ||
			(pl = number_prefix(s, len)) < 0)
			continue;
		if (prefix == NULL)
		{
			prefix = s;
			prefixlen = pl;
		}
		if (pl != prefixlen || memcmp(s, prefix, pl) != 0)
			continue;
		nums[n].row = &a->rows[i];
		nums[n].digits = s + pl;
		nums[n].ndigits = len - pl;
		while (nums[n].ndigits > 1 && nums[n].digits[0] == '0')
		{
			nums[n].digits++;
			nums[n].ndigits--;
		}
		n++;
	}
	if (!enough(a, n, WC_KEYS_SHARE))
		return;
	qsort(nums, n, sizeof(WcNumbered), numbered_cmp);
	for (int i = 1; i < n; i++)
	{
		if (numbered_cmp(&nums[i - 1], &nums[i]) != 0)
			distinct++;
		if (nums[i].row->newest > nums[i - 1].row->newest)
			later++;
		else if (nums[i].row->newest < nums[i - 1].row->newest)
			earlier++;
	}
	if (distinct * 2 < n || later + earlier < WC_KEYS_MIN || later * 10 < (later + earlier) * 9)
		return;
	f = wc_advise_report(a, WC_ADVISE_WARNING, "sequential_key",
						 "Do not use sequential numeric ids as row keys: new ids, usually the most active, "
						 "sort together at the end of the key range, where all writes go, one hotspot. Put "
						 "another value first, or reverse the digits of the id so that consecutive ids spread "
						 "over the whole key range.");
	append_count(a, &f->evidence, n);
	appendStringInfoString(&f->evidence, " begin with a number, from ");
	wc_advise_append_key(&f->evidence, nums[0].row->key, nums[0].row->keylen);
	appendStringInfoString(&f->evidence, " to ");
	wc_advise_append_key(&f->evidence, nums[n - 1].row->key, nums[n - 1].row->keylen);
	appendStringInfo(&f->evidence, "; in the order of the numbers, the next row was written later %d times out of %d.",
					 later, later + earlier);
}

/* Row keys that begin with a hash. */
void
wc_advise_hashed_key(WcAdvice *a)
{
	const WcAdviseRow *example;
	const WcAdviseRow *last;
	int			n = count_keys(a, 0, looks_like_hash, &example, &last);
	WcFinding  *f;

	if (!enough(a, n, WC_KEYS_SHARE))
		return;
	f = wc_advise_report(a, WC_ADVISE_WARNING, "hashed_key",
						 "Do not hash row keys: a hash gives up the natural sort order, so rows read together "
						 "are scattered and no range or prefix read can fetch them, and keys in the heat map "
						 "say nothing. Use human-readable values, the most general first "
						 "(e.g. 'phone#4c410523#20200501').");
	append_count(a, &f->evidence, n);
	appendStringInfoString(&f->evidence, " begin with a hash or random id, e.g. ");
	wc_advise_append_key(&f->evidence, example->key, example->keylen);
	appendStringInfoString(&f->evidence, ".");
}

/* Row keys with a domain name not reversed. */
void
wc_advise_domain_key(WcAdvice *a)
{
	for (int pos = 0; pos < WC_KEYS_SEGMENTS; pos++)
	{
		const WcAdviseRow *example;
		const WcAdviseRow *last;
		int			n = count_keys(a, pos, unreversed_domain, &example, &last);
		WcFinding  *f;

		if (!enough(a, n, WC_KEYS_DOMAIN_SHARE))
			continue;
		f = wc_advise_report(a, WC_ADVISE_NOTICE, "domain_not_reversed",
							 "Reverse domain names in row keys (com.google.maps, not maps.google.com): the rows "
							 "of one site then sort together, so a range read fetches them, and neighbouring "
							 "rows share more, so they compress better.");
		append_count(a, &f->evidence, n);
		appendStringInfo(&f->evidence, " hold a domain name, top-level domain last, in segment %d, e.g. ",
						 pos + 1);
		wc_advise_append_key(&f->evidence, example->key, example->keylen);
		appendStringInfoString(&f->evidence, ".");
		return;
	}
}

typedef struct WcPadded
{
	const WcAdviseRow *row;
	const char *prefix;
	int			prefixlen;
	const char *digits;
	int			ndigits;
} WcPadded;

/* Order of prefix, then width, then digits. */
static int
padded_cmp(const void *x, const void *y)
{
	const WcPadded *a = x;
	const WcPadded *b = y;
	int			c = wc_compare_bytes((const uint8 *) a->prefix, a->prefixlen,
									 (const uint8 *) b->prefix, b->prefixlen);

	if (c != 0)
		return c;
	if (a->ndigits != b->ndigits)
		return a->ndigits < b->ndigits ? -1 : 1;
	return memcmp(a->digits, b->digits, a->ndigits);
}

/*
 * Numbers not padded: in one segment, after one prefix, numbers of
 * different widths, none of them wider than one digit with a leading zero
 * (padded numbers, or reversed ones, have those), and among them a
 * narrower one that sorts after a wider one ('9' after '10').
 */
void
wc_advise_unpadded_number(WcAdvice *a)
{
	WcPadded   *v = palloc(sizeof(WcPadded) * (a->nrows + 1));

	for (int pos = 0; pos < WC_KEYS_SEGMENTS; pos++)
	{
		int			n = 0;

		for (int i = 0; i < a->nrows; i++)
		{
			const char *s;
			int			len;
			int			pl;

			if (!a->rows[i].printable || !segment(a, &a->rows[i], pos, &s, &len) ||
				(pl = number_prefix(s, len)) < 0)
				continue;
			v[n].row = &a->rows[i];
			v[n].prefix = s;
			v[n].prefixlen = pl;
			v[n].digits = s + pl;
			v[n].ndigits = len - pl;
			n++;
		}
		qsort(v, n, sizeof(WcPadded), padded_cmp);
		for (int g = 0, e; g < n; g = e)
		{
			bool		zeros = false;
			const WcPadded *narrow_max = NULL;
			WcFinding  *f;

			/* the group of one prefix: v[g, e), narrowest first */
			for (e = g; e < n && v[e].prefixlen == v[g].prefixlen &&
				 memcmp(v[e].prefix, v[g].prefix, v[g].prefixlen) == 0; e++)
				zeros |= v[e].ndigits > 1 && v[e].digits[0] == '0';
			if (e - g < WC_KEYS_MIN || zeros || v[g].ndigits == v[e - 1].ndigits)
				continue;
			/* the greatest of the narrowest numbers sorts after the least wider one? */
			for (int i = g; i < e && v[i].ndigits == v[g].ndigits; i++)
				narrow_max = &v[i];
			if (memcmp(narrow_max->digits, narrow_max[1].digits, narrow_max->ndigits) <= 0)
				continue;
			f = wc_advise_report(a, WC_ADVISE_NOTICE, "unpadded_number",
								 "Pad integers in row keys with leading zeros: keys sort as bytes, so '3' sorts "
								 "after '20'; padded to one width, '03' sorts before '20', numbers sort as "
								 "numbers and a range of numbers is a range of rows.");
			appendStringInfo(&f->evidence, "%d sampled row keys hold numbers of %d to %d digits in segment %d; ",
							 e - g, v[g].ndigits, v[e - 1].ndigits, pos + 1);
			wc_advise_append_key(&f->evidence, narrow_max->row->key, narrow_max->row->keylen);
			appendStringInfoString(&f->evidence, " sorts after ");
			wc_advise_append_key(&f->evidence, narrow_max[1].row->key, narrow_max[1].row->keylen);
			appendStringInfoString(&f->evidence, ".");
			return;
		}
	}
}
