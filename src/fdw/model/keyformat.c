/*-------------------------------------------------------------------------
 *
 * keyformat.c
 *	  Column option rowkey_format: the shape of one row-key part, as the
 *	  keys a user already has write it.
 *
 * For an integer part the format is a width ('4': zero-padded to 4 digits,
 * no sign).  For a date or timestamp part it is a to_char pattern made of
 * the fields YYYY, MM, DD, HH24, MI, SS and one of MS, US, FF1..FF6, with
 * any printable ASCII other than letters, or "quoted text", between them:
 * 'YYYY-MM-DD-HH24MI' writes what to_char(ts AT TIME ZONE 'UTC', pattern)
 * writes.  Such a pattern sorts in time order only if its fields go from the
 * year down, none skipped, each once, each of a fixed width: anything else
 * (DD-MM-YYYY, month names, a 12-hour clock, a time zone) is refused, so
 * that the order of the keys stays the order of the values and a range of
 * values stays one range of keys.  Keys are read back by the same pattern
 * (wc_keyformat_decode), strictly: a key is read only if writing its value
 * gives the key again.
 *
 * The default encodings of dates and timestamps (rowkey.c) are the patterns
 * YYYYMMDD and YYYYMMDDHH24MISSUS.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/datetime.h"

#include "fdw/fdw.h"
#include "fdw/model/model.h"

/* A field of a time pattern, largest unit first; a literal is none. */
typedef enum WcKeyField
{
	WC_KF_LITERAL,
	WC_KF_YEAR,
	WC_KF_MONTH,
	WC_KF_DAY,
	WC_KF_HOUR,
	WC_KF_MINUTE,
	WC_KF_SECOND,
	WC_KF_FRACTION
} WcKeyField;

typedef struct WcKeyFormatItem
{
	WcKeyField	field;
	int			width;			/* digits, or the literal's length */
	const char *literal;
} WcKeyFormatItem;

struct WcKeyFormat
{
	int			width;			/* an integer's digits; 0 for a pattern */
	int			nitems;
	WcKeyFormatItem *items;
	WcKeyField	finest;			/* the smallest unit the pattern holds */
	int			fraction;		/* digits of the fraction of a second */
	const char *text;			/* as the user wrote it */
};

static const WcKeyFormatItem date_items[] = {
	{WC_KF_YEAR, 4, NULL}, {WC_KF_MONTH, 2, NULL}, {WC_KF_DAY, 2, NULL}
};
static const WcKeyFormatItem timestamp_items[] = {
	{WC_KF_YEAR, 4, NULL}, {WC_KF_MONTH, 2, NULL}, {WC_KF_DAY, 2, NULL},
	{WC_KF_HOUR, 2, NULL}, {WC_KF_MINUTE, 2, NULL}, {WC_KF_SECOND, 2, NULL},
	{WC_KF_FRACTION, 6, NULL}
};
static const WcKeyFormat date_format = {0, 3, (WcKeyFormatItem *) date_items, WC_KF_DAY, 0, "YYYYMMDD"};
static const WcKeyFormat timestamp_format = {0, 7, (WcKeyFormatItem *) timestamp_items,
WC_KF_FRACTION, 6, "YYYYMMDDHH24MISSUS"};

/*
 * The fields of a pattern, as to_char names them.  Others (DDD, SSSS,
 * Month, ...) start with a letter that matches none, or repeat a unit.
 */
typedef struct WcKeyFieldName
{
	const char *name;
	WcKeyField	field;
	int			width;
} WcKeyFieldName;

static const WcKeyFieldName field_names[] = {
	{"YYYY", WC_KF_YEAR, 4}, {"MM", WC_KF_MONTH, 2}, {"DD", WC_KF_DAY, 2},
	{"HH24", WC_KF_HOUR, 2}, {"MI", WC_KF_MINUTE, 2}, {"SS", WC_KF_SECOND, 2},
	{"MS", WC_KF_FRACTION, 3}, {"US", WC_KF_FRACTION, 6},
	{"FF1", WC_KF_FRACTION, 1}, {"FF2", WC_KF_FRACTION, 2}, {"FF3", WC_KF_FRACTION, 3},
	{"FF4", WC_KF_FRACTION, 4}, {"FF5", WC_KF_FRACTION, 5}, {"FF6", WC_KF_FRACTION, 6},
	{NULL, WC_KF_LITERAL, 0}
};

/* The format of a date or timestamp part that has no rowkey_format. */
const WcKeyFormat *
wc_keyformat_default(Oid type)
{
	return type == DATEOID ? &date_format : &timestamp_format;
}

/* One errdetail per reason, each a whole sentence in the source. */
#define BAD_PATTERN(s, detail) \
	ereport(ERROR, \
			(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE), \
			 errmsg("invalid value for option \"rowkey_format\": \"%s\"", s), \
			 errdetail(detail), \
			 errhint("An integer part takes a width, such as '4'; a date or timestamp part a pattern such as 'YYYY-MM-DD-HH24MI', its fields from the year down.")))

/*
 * wc_keyformat_parse
 *		The format an option value says, or an error saying why it is none.
 */
WcKeyFormat *
wc_keyformat_parse(const char *s)
{
	WcKeyFormat *f = palloc0(sizeof(WcKeyFormat));
	size_t		len = strlen(s);
	const char *p = s;
	WcKeyField	last = WC_KF_LITERAL;

	f->text = pstrdup(s);
	if (len > 0 && strspn(s, "0123456789") == len)
	{
		int			w = len <= 2 ? atoi(s) : 0;

		if (w < 1 || w > 19)
			BAD_PATTERN(s, "A width must be from 1 to 19 digits.");
		f->width = w;
		return f;
	}
	if (len == 0)
		BAD_PATTERN(s, "The format is empty.");

	f->items = palloc(sizeof(WcKeyFormatItem) * (len + 1));
	while (*p)
	{
		WcKeyFormatItem *it = &f->items[f->nitems];
		const WcKeyFieldName *fn;

		it->literal = NULL;
		it->field = WC_KF_LITERAL;
		for (fn = field_names; fn->name; fn++)
			if (strncmp(p, fn->name, strlen(fn->name)) == 0)
				break;
		if (fn->name != NULL)
		{
			it->field = fn->field;
			it->width = fn->width;
			p += strlen(fn->name);
		}
		else if (strncmp(p, "HH", 2) == 0)
			BAD_PATTERN(s, "Hours must be HH24: a 12-hour clock does not sort in time order.");
		else if (*p == '"')
		{
			const char *end = strchr(p + 1, '"');

			if (end == NULL)
				BAD_PATTERN(s, "A quoted text is not closed.");
			it->field = WC_KF_LITERAL;
			it->width = end - p - 1;
			it->literal = pnstrdup(p + 1, it->width);
			p = end + 1;
			if (it->width == 0)
				continue;
		}
		else if (isalpha((unsigned char) *p))
			BAD_PATTERN(s, "The only fields a pattern may have are YYYY, MM, DD, HH24, MI, SS, and one of MS, US and FF1 to FF6, in upper case; other letters must be quoted.");
		else
		{
			it->field = WC_KF_LITERAL;
			it->width = 1;
			it->literal = pnstrdup(p, 1);
			p++;
		}

		if (it->field == WC_KF_LITERAL)
		{
			for (int i = 0; i < it->width; i++)
				if ((unsigned char) it->literal[i] < 0x20 || (unsigned char) it->literal[i] > 0x7E ||
					it->literal[i] == '\\')
					BAD_PATTERN(s, "A pattern may contain only printable ASCII characters other than \"\\\".");
		}
		else
		{
			/* each next field is the next smaller unit: keys sort in time order */
			if (it->field != last + 1)
				BAD_PATTERN(s, "The fields must go from the year down to the smallest unit, each once and none skipped, so that the keys sort in time order.");
			last = it->field;
			if (it->field == WC_KF_FRACTION)
				f->fraction = it->width;
		}
		f->nitems++;
	}
	if (last == WC_KF_LITERAL)
		BAD_PATTERN(s, "The pattern has no field; it must begin with the year, YYYY.");
	f->finest = last;
	return f;
}

/*
 * wc_keyformat_check
 *		Can column col, a part of t's row key, have its format?
 */
void
wc_keyformat_check(WcTable *t, WcColumn *col)
{
	const WcKeyFormat *f = col->rowkey_format;
	bool		is_int = col->type == INT2OID || col->type == INT4OID || col->type == INT8OID;
	bool		is_time = col->type == DATEOID || col->type == TIMESTAMPOID ||
		col->type == TIMESTAMPTZOID;

	if (f == NULL)
		return;
	if (!is_int && !is_time)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("option \"rowkey_format\" of column \"%s\" needs an integer, date or timestamp column",
						col->name),
				 errdetail("Column \"%s\" has type %s.", col->name, format_type_be(col->type))));
	if (is_int && f->width == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("invalid value for option \"rowkey_format\" of integer column \"%s\": \"%s\"",
						col->name, f->text),
				 errdetail("The format of an integer part is its width in digits, such as '4'.")));
	if (is_time && f->width != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("invalid value for option \"rowkey_format\" of column \"%s\": \"%s\"",
						col->name, f->text),
				 errdetail("The format of a date or timestamp part is a pattern such as 'YYYY-MM-DD-HH24MI'.")));
	if (col->type == DATEOID && f->finest > WC_KF_DAY)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("invalid value for option \"rowkey_format\" of date column \"%s\": \"%s\"",
						col->name, f->text),
				 errdetail("A date has no time of day: its pattern ends at DD at the latest.")));
	if (t->delimiter != '\0')
		for (int i = 0; i < f->nitems; i++)
			if (f->items[i].field == WC_KF_LITERAL &&
				memchr(f->items[i].literal, t->delimiter, f->items[i].width) != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("option \"rowkey_format\" of column \"%s\" contains the row-key delimiter \"%c\"",
								col->name, t->delimiter),
						 errdetail("A part may not contain the delimiter that separates the parts.")));
}

/* The integer width of a part's format, or 0 for the default encoding. */
int
wc_keyformat_width(const WcKeyFormat *f)
{
	return f ? f->width : 0;
}

/* The format as the user wrote it, for messages. */
const char *
wc_keyformat_text(const WcKeyFormat *f)
{
	return f->text;
}

static int
power10(int n)
{
	int			r = 1;

	while (n-- > 0)
		r *= 10;
	return r;
}

/*
 * wc_keyformat_encode
 *		Append a time (years 1 to 9999) as format f writes it; digits d as
 *		9 - d when reverse.  Returns false, having written the latest time
 *		the format holds that is not later, if the time has a smaller unit
 *		than the format holds (seconds in 'YYYY-MM-DD-HH24MI', say).
 */
bool
wc_keyformat_encode(const WcKeyFormat *f, const struct pg_tm *tm, int fsec, bool reverse,
					StringInfo out)
{
	bool		exact = true;

	/* what the format does not hold must be its smallest value */
	switch (f->finest)
	{
		case WC_KF_YEAR:
			exact &= tm->tm_mon == 1;
			/* FALLTHROUGH */
		case WC_KF_MONTH:
			exact &= tm->tm_mday == 1;
			/* FALLTHROUGH */
		case WC_KF_DAY:
			exact &= tm->tm_hour == 0;
			/* FALLTHROUGH */
		case WC_KF_HOUR:
			exact &= tm->tm_min == 0;
			/* FALLTHROUGH */
		case WC_KF_MINUTE:
			exact &= tm->tm_sec == 0;
			/* FALLTHROUGH */
		case WC_KF_SECOND:
			exact &= fsec == 0;
			break;
		default:
			exact &= fsec % power10(6 - f->fraction) == 0;
			break;
	}

	for (int i = 0; i < f->nitems; i++)
	{
		const WcKeyFormatItem *it = &f->items[i];
		int			v = 0;
		int			start = out->len;

		switch (it->field)
		{
			case WC_KF_LITERAL:
				appendBinaryStringInfo(out, it->literal, it->width);
				continue;
			case WC_KF_YEAR:
				v = tm->tm_year;
				break;
			case WC_KF_MONTH:
				v = tm->tm_mon;
				break;
			case WC_KF_DAY:
				v = tm->tm_mday;
				break;
			case WC_KF_HOUR:
				v = tm->tm_hour;
				break;
			case WC_KF_MINUTE:
				v = tm->tm_min;
				break;
			case WC_KF_SECOND:
				v = tm->tm_sec;
				break;
			case WC_KF_FRACTION:
				v = fsec / power10(6 - it->width);
				break;
		}
		appendStringInfo(out, "%0*d", it->width, v);
		if (reverse)
			for (int j = start; j < out->len; j++)
				out->data[j] = '9' - (out->data[j] - '0');
	}
	return exact;
}

/*
 * wc_keyformat_decode
 *		Read a segment written by format f; false if it is not of its form.
 *		Checks the digits only: the caller checks that the date exists.
 */
bool
wc_keyformat_decode(const WcKeyFormat *f, const char *p, int len, bool reverse,
					struct pg_tm *tm, int *fsec)
{
	const char *end = p + len;

	memset(tm, 0, sizeof(*tm));
	tm->tm_mon = 1;
	tm->tm_mday = 1;
	*fsec = 0;
	for (int i = 0; i < f->nitems; i++)
	{
		const WcKeyFormatItem *it = &f->items[i];
		int			v = 0;

		if (end - p < it->width)
			return false;
		if (it->field == WC_KF_LITERAL)
		{
			if (memcmp(p, it->literal, it->width) != 0)
				return false;
			p += it->width;
			continue;
		}
		for (int j = 0; j < it->width; j++, p++)
		{
			int			d;

			if (*p < '0' || *p > '9')
				return false;
			d = reverse ? '9' - *p : *p - '0';
			v = v * 10 + d;
		}
		switch (it->field)
		{
			case WC_KF_YEAR:
				tm->tm_year = v;
				break;
			case WC_KF_MONTH:
				tm->tm_mon = v;
				break;
			case WC_KF_DAY:
				tm->tm_mday = v;
				break;
			case WC_KF_HOUR:
				tm->tm_hour = v;
				break;
			case WC_KF_MINUTE:
				tm->tm_min = v;
				break;
			case WC_KF_SECOND:
				tm->tm_sec = v;
				break;
			default:
				*fsec = v * power10(6 - it->width);
				break;
		}
	}
	return p == end;
}
