/*-------------------------------------------------------------------------
 *
 * rowkey.c
 *	  Row keys made of typed segments, such as "phone#4c410523#20200501".
 *
 * A foreign table may map columns to the segments of the row key (column
 * option rowkey_part, table option rowkey_delimiter) instead of having one
 * row-key column.  Each segment is encoded so that byte order is SQL
 * order within a segment:
 *	- text, varchar: the bytes themselves, which may not contain the
 *	  delimiter;
 *	- smallint, integer, bigint: zero-padded decimal of fixed width (5, 10,
 *	  19 digits); a negative number is "-" followed by the padded digits of
 *	  10^width - 1 + n, so negatives sort first and in order;
 *	- date: YYYYMMDD; timestamp and timestamptz (in UTC): YYYYMMDDHHMMSSffffff;
 *	  with column option rowkey_reverse each digit d is stored as 9 - d, so
 *	  the newest sorts first, as Bigtable's schema guide recommends;
 *	- with column option rowkey_format (keyformat.c): an integer as that
 *	  many zero-padded digits, no sign; a date or timestamp as its pattern.
 * Fixed-width segments keep the whole key's order equal to the order of the
 * segments, so a range on one of them, after equality on the ones before,
 * is one range of keys.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"

#include "fdw/fdw.h"
#include "fdw/model/model.h"

/* Can a column of this type be a segment? */
bool
wc_segment_type_ok(Oid type)
{
	switch (type)
	{
		case TEXTOID:
		case VARCHAROID:
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return true;
	}
	return false;
}

/* Is every value of this segment type encoded with the same width? */
bool
wc_segment_fixed_width(Oid type)
{
	return type != TEXTOID && type != VARCHAROID;
}

static int
int_width(Oid type)
{
	return type == INT2OID ? 5 : type == INT4OID ? 10 : 19;
}

static void
segment_error(WcTable *t, WcColumn *col, WcSegmentWhy why)
{
#define SEGMENT_ERROR(detail) \
	ereport(ERROR, \
			(errcode(ERRCODE_DATA_EXCEPTION), \
			 errmsg("value of row-key part \"%s\" of foreign table \"%s\" cannot be stored", \
					col->name, t->relname), \
			 detail))

	switch (why)
	{
		case WC_SEGMENT_HAS_DELIMITER:
			SEGMENT_ERROR(errdetail("The value contains the delimiter \"%c\".", t->delimiter));
			break;
		case WC_SEGMENT_INFINITE_DATE:
			SEGMENT_ERROR(errdetail("Infinite dates cannot be row-key parts."));
			break;
		case WC_SEGMENT_INFINITE_TIMESTAMP:
			SEGMENT_ERROR(errdetail("Infinite timestamps cannot be row-key parts."));
			break;
		case WC_SEGMENT_TIMESTAMP_RANGE:
			SEGMENT_ERROR(errdetail("The timestamp is out of range."));
			break;
		case WC_SEGMENT_YEAR_RANGE:
			SEGMENT_ERROR(errdetail("Only years 1 to 9999 can be row-key parts."));
			break;
		case WC_SEGMENT_NEGATIVE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("value of row-key part \"%s\" of foreign table \"%s\" cannot be stored",
							col->name, t->relname),
					 errdetail("The value is negative, and format '%s' has no sign.",
							   wc_keyformat_text(col->rowkey_format))));
			break;
		case WC_SEGMENT_TOO_WIDE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("value of row-key part \"%s\" of foreign table \"%s\" cannot be stored",
							col->name, t->relname),
					 errdetail("The value has more digits than format '%s' holds.",
							   wc_keyformat_text(col->rowkey_format))));
			break;
		case WC_SEGMENT_FINER_UNIT:
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("value of row-key part \"%s\" of foreign table \"%s\" cannot be stored",
							col->name, t->relname),
					 errdetail("The value has a smaller unit than format '%s' holds, which the key would lose.",
							   wc_keyformat_text(col->rowkey_format)),
					 errhint("Truncate the value, for example with date_trunc().")));
			break;
	}
#undef SEGMENT_ERROR
}

/*
 * wc_segment_encode
 *		Append the encoding of one segment value to out.
 */
void
wc_segment_encode(WcTable *t, WcColumn *col, Datum value, StringInfo out)
{
	WcSegmentWhy why;

	if (wc_segment_fit(t, col, value, out, &why) != WC_SEGMENT_FITS)
		segment_error(t, col, why);
}

/*
 * wc_segment_fit
 *		Append the encoding of one segment value to out, if it has one.
 *
 * A value that cannot be stored as a part (a reason in *why) can still be
 * compared with those that can: a condition on a part turns it into a bound
 * past one end of them, or into no key at all.  out is then unchanged.
 */
WcSegmentFit
wc_segment_fit(WcTable *t, WcColumn *col, Datum value, StringInfo out,
			   WcSegmentWhy *why)
{
	static char buf[64];

	switch (col->type)
	{
		case TEXTOID:
		case VARCHAROID:
			{
				text	   *v = DatumGetTextPP(value);
				const char *p = VARDATA_ANY(v);
				int			len = VARSIZE_ANY_EXHDR(v);

				if (memchr(p, t->delimiter, len) != NULL)
				{
					*why = WC_SEGMENT_HAS_DELIMITER;
					return WC_SEGMENT_UNORDERED;
				}
				appendBinaryStringInfo(out, p, len);
				return WC_SEGMENT_FITS;
			}
		case INT2OID:
		case INT4OID:
		case INT8OID:
			{
				int64		n = col->type == INT2OID ? DatumGetInt16(value) :
					col->type == INT4OID ? DatumGetInt32(value) : DatumGetInt64(value);
				int			fw = wc_keyformat_width(col->rowkey_format);
				int			w = fw ? fw : int_width(col->type);
				uint64		limit = 1;

				for (int i = 0; i < w; i++)
					limit *= 10;
				/* a width of its own: digits only, no more than it holds */
				if (fw && (n < 0 || (uint64) n >= limit))
				{
					*why = n < 0 ? WC_SEGMENT_NEGATIVE : WC_SEGMENT_TOO_WIDE;
					return n < 0 ? WC_SEGMENT_BELOW : WC_SEGMENT_ABOVE;
				}
				if (n >= 0)
					snprintf(buf, sizeof(buf), "%0*llu", w, (unsigned long long) n);
				else
				{
					uint64		absn = (uint64) (-(n + 1)) + 1;

					snprintf(buf, sizeof(buf), "-%0*llu", w, (unsigned long long) (limit - absn));
				}
				appendStringInfoString(out, buf);
				return WC_SEGMENT_FITS;
			}
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			{
				struct pg_tm tm;
				fsec_t		fsec = 0;

				memset(&tm, 0, sizeof(tm));
				if (col->type == DATEOID)
				{
					DateADT		d = DatumGetDateADT(value);

					if (DATE_NOT_FINITE(d))
					{
						*why = WC_SEGMENT_INFINITE_DATE;
						return DATE_IS_NOBEGIN(d) ? WC_SEGMENT_BELOW : WC_SEGMENT_ABOVE;
					}
					j2date(d + POSTGRES_EPOCH_JDATE, &tm.tm_year, &tm.tm_mon, &tm.tm_mday);
				}
				else
				{
					Timestamp	ts = DatumGetTimestamp(value);

					if (TIMESTAMP_NOT_FINITE(ts))
					{
						*why = WC_SEGMENT_INFINITE_TIMESTAMP;
						return TIMESTAMP_IS_NOBEGIN(ts) ? WC_SEGMENT_BELOW : WC_SEGMENT_ABOVE;
					}
					if (timestamp2tm(ts, NULL, &tm, &fsec, NULL, NULL) != 0)
					{
						*why = WC_SEGMENT_TIMESTAMP_RANGE;
						return ts < 0 ? WC_SEGMENT_BELOW : WC_SEGMENT_ABOVE;
					}
				}
				if (tm.tm_year < 1 || tm.tm_year > 9999)
				{
					*why = WC_SEGMENT_YEAR_RANGE;
					return tm.tm_year < 1 ? WC_SEGMENT_BELOW : WC_SEGMENT_ABOVE;
				}
				if (!wc_keyformat_encode(col->rowkey_format ? col->rowkey_format :
										 wc_keyformat_default(col->type),
										 &tm, fsec, col->rowkey_reverse, out))
				{
					*why = WC_SEGMENT_FINER_UNIT;
					return WC_SEGMENT_BETWEEN;
				}
				return WC_SEGMENT_FITS;
			}
	}
	elog(ERROR, "unsupported row-key part type %u", col->type);
	return WC_SEGMENT_UNORDERED;	/* keep the compiler quiet */
}

static bool
all_digits(const char *p, int len)
{
	for (int i = 0; i < len; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	return true;
}

/* Decode one segment; false if the bytes are not of the segment's form. */
static bool
segment_decode(WcColumn *col, const char *p, int len, Datum *value)
{

	switch (col->type)
	{
		case TEXTOID:
		case VARCHAROID:
			if (memchr(p, 0, len) != NULL || !pg_verifymbstr(p, len, true))
				return false;
			*value = PointerGetDatum(cstring_to_text_with_len(p, len));
			return true;
		case INT2OID:
		case INT4OID:
		case INT8OID:
			{
				int			fw = wc_keyformat_width(col->rowkey_format);
				int			w = fw ? fw : int_width(col->type);
				bool		neg = !fw && len == w + 1 && p[0] == '-';
				uint64		u = 0;
				uint64		limit = 1;
				int64		n;

				if (len != (neg ? w + 1 : w) || !all_digits(p + neg, w))
					return false;
				for (int i = 0; i < w; i++)
				{
					u = u * 10 + (p[neg + i] - '0');
					limit *= 10;
				}
				if (neg)
				{
					uint64		absn = limit - u;

					if (absn == 0 || absn > (uint64) PG_INT64_MAX + 1)
						return false;
					n = absn == (uint64) PG_INT64_MAX + 1 ? PG_INT64_MIN : -(int64) absn;
				}
				else
					n = (int64) u;
				if ((col->type == INT2OID && (n < PG_INT16_MIN || n > PG_INT16_MAX)) ||
					(col->type == INT4OID && (n < PG_INT32_MIN || n > PG_INT32_MAX)) ||
					(!neg && u > (uint64) PG_INT64_MAX))
					return false;
				*value = col->type == INT2OID ? Int16GetDatum((int16) n) :
					col->type == INT4OID ? Int32GetDatum((int32) n) : Int64GetDatum(n);
				return true;
			}
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			{
				struct pg_tm tm;
				int			fsec = 0;

				if (!wc_keyformat_decode(col->rowkey_format ? col->rowkey_format :
										 wc_keyformat_default(col->type),
										 p, len, col->rowkey_reverse, &tm, &fsec))
					return false;
				/* year 0000 would be 1 BC, which no part is written as */
				if (tm.tm_year < 1 || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
					tm.tm_mday > day_tab[isleap(tm.tm_year)][tm.tm_mon - 1] ||
					tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 59)
					return false;
				if (col->type == DATEOID)
					*value = DateADTGetDatum(date2j(tm.tm_year, tm.tm_mon, tm.tm_mday) - POSTGRES_EPOCH_JDATE);
				else
				{
					Timestamp	ts;

					if (tm2timestamp(&tm, fsec, NULL, &ts) != 0)
						return false;
					*value = TimestampGetDatum(ts);
				}
				return true;
			}
	}
	return false;
}

/*
 * wc_key_compose
 *		The row key of a row whose part columns hold values (natts long).
 */
void
wc_key_compose(WcTable *t, Datum *values, bool *nulls, StringInfo out)
{
	for (int i = 0; i < t->nparts; i++)
	{
		int			a = t->part_attnum[i];

		if (nulls[a - 1])
			ereport(ERROR,
					(errcode(ERRCODE_NOT_NULL_VIOLATION),
					 errmsg("row-key part \"%s\" of foreign table \"%s\" cannot be null",
							t->cols[a - 1].name, t->relname)));
		if (i > 0)
			appendStringInfoChar(out, t->delimiter);
		wc_segment_encode(t, &t->cols[a - 1], values[a - 1], out);
	}
	if (out->len > WC_MAX_ROWKEY)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row key is too long"),
				 errdetail("The row key is %d bytes; the limit is %d.", out->len, WC_MAX_ROWKEY)));
}

/*
 * wc_rowkey_check_write
 *		Refuse to write the empty row key, as Bigtable does ("Row keys must
 *		be non-empty"): a row stored under it could never go to Bigtable.
 *		Reading and deleting such a row (an older table may hold one) stay
 *		allowed.
 */
void
wc_rowkey_check_write(const WcTable *t, size_t len)
{
	if (len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("row key of foreign table \"%s\" cannot be empty", t->relname),
				 errdetail("Bigtable refuses empty row keys, and so does widecolumn_fdw.")));
}

/*
 * wc_key_split
 *		Decode a stored row key into the part columns of values and nulls.
 */
void
wc_key_split(WcTable *t, const uint8 *key, size_t len, Datum *values, bool *nulls)
{
	const char *p = (const char *) key;
	const char *end = p + len;

	for (int i = 0; i < t->nparts; i++)
	{
		const char *d = i < t->nparts - 1 ? memchr(p, t->delimiter, end - p) : NULL;
		const char *segend = d ? d : end;
		int			a = t->part_attnum[i];

		if (i < t->nparts - 1 && d == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("stored row key \"%s\" does not match the row-key parts of foreign table \"%s\"",
							wc_printable_key(key, len), t->relname),
					 errdetail("It has fewer segments than the table declares."),
					 errhint("Segments are separated by \"%c\"; map such rows with another foreign table.",
							 t->delimiter)));
		if (i == t->nparts - 1 && t->delimiter != '\0' &&
			memchr(p, t->delimiter, end - p) != NULL &&
			!wc_segment_fixed_width(t->cols[a - 1].type))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("stored row key \"%s\" does not match the row-key parts of foreign table \"%s\"",
							wc_printable_key(key, len), t->relname),
					 errdetail("It has more segments than the table declares."),
					 errhint("Segments are separated by \"%c\"; map such rows with another foreign table.",
							 t->delimiter)));
		if (!segment_decode(&t->cols[a - 1], p, segend - p, &values[a - 1]))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("stored row key \"%s\" does not match the row-key parts of foreign table \"%s\"",
							wc_printable_key(key, len), t->relname),
					 errdetail("Segment %d does not have the form of type %s.", i + 1,
							   format_type_be(t->cols[a - 1].type)),
					 errhint("Segments are separated by \"%c\"; map such rows with another foreign table.",
							 t->delimiter)));
		nulls[a - 1] = false;
		p = segend + 1;
	}
}
