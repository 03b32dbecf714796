/*-------------------------------------------------------------------------
 *
 * valuecodec.c
 *	  SQL values as the bytes of a cell, and row keys as key prefixes.
 *
 * A cell holds bytes, as in Bigtable, so each SQL type has one documented
 * encoding (docs/format.md): integers and floats big-endian (Bigtable's own
 * counters are 64-bit big-endian), dates and timestamps as integers since
 * the Unix epoch, text as its bytes, numeric and jsonb in their text form
 * so that any client can read them.  Other types use their text form too.
 * Decoding checks every length and encoding, and a value that does not fit
 * its column's type is an error that names the column and the row key.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/syscache.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "fdw/fdw.h"
#include "fdw/model/model.h"

/* Days and microseconds between the Unix epoch and PostgreSQL's. */
#define UNIX_TO_PG_DAYS		(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE)
#define UNIX_TO_PG_USECS	((int64) UNIX_TO_PG_DAYS * USECS_PER_DAY)

static void
put_be(StringInfo buf, uint64 v, int n)
{
	char		b[8];

	for (int i = n - 1; i >= 0; i--)
	{
		b[i] = (char) (v & 0xFF);
		v >>= 8;
	}
	appendBinaryStringInfo(buf, b, n);
}

/*
 * wc_printable_key
 *		A row key as it may appear in a message: printable ASCII as is,
 *		other bytes as \xNN, long keys cut short.
 */
char *
wc_printable_key(const uint8 *data, size_t len)
{
	StringInfoData s;
	size_t		shown = Min(len, 64);

	initStringInfo(&s);
	for (size_t i = 0; i < shown; i++)
	{
		if (data[i] >= 0x20 && data[i] < 0x7F && data[i] != '\\')
			appendStringInfoChar(&s, (char) data[i]);
		else
			appendStringInfo(&s, "\\x%02X", data[i]);
	}
	if (shown < len)
		appendStringInfo(&s, "... (%zu bytes)", len);
	return s.data;
}

/*
 * Cells count microseconds from the Unix epoch in 64 bits, which ends about
 * 30 years before PostgreSQL's own timestamp range does.
 */
static void
timestamp_out_of_range(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("timestamp out of range for a widecolumn_fdw cell"),
			 errdetail("Cells store timestamps as 64-bit microseconds since 1970-01-01; the latest storable is 294247-01-10 04:00:54.775806 UTC."),
			 errhint("Store such values as text.")));
}

/*
 * The send and receive functions are written for the wire: the text inside
 * a value (an array's elements, an enum's label, a composite's fields) goes
 * to and from the client's encoding.  Stored bytes must not depend on the
 * session, so while they run the client's encoding is the server's.  Both
 * are cheap: no conversion is looked up for the server's own encoding, and
 * the client's was prepared when it was set.
 */
static int
server_encoding_begin(void)
{
	int			client = pg_get_client_encoding();

	if (client != GetDatabaseEncoding())
		SetClientEncoding(GetDatabaseEncoding());
	return client;
}

static void
server_encoding_end(int client)
{
	if (client != pg_get_client_encoding() && SetClientEncoding(client) < 0)
		elog(ERROR, "could not restore client encoding \"%s\"",
			 pg_encoding_to_char(client));
}

/*
 * Other types are stored in PostgreSQL's binary send format when they have
 * one: unlike the text form it does not depend on session settings such
 * as DateStyle, IntervalStyle or extra_float_digits.  Nor on the client's
 * encoding: see server_encoding_begin.
 */
static bool
has_binary_io(Oid type)
{
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(type));
	bool		result;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for type %u", type);
	result = OidIsValid(((Form_pg_type) GETSTRUCT(tup))->typsend) &&
		OidIsValid(((Form_pg_type) GETSTRUCT(tup))->typreceive);
	ReleaseSysCache(tup);
	return result;
}

/*
 * wc_encode_datetime
 *		A date, timestamp or timestamptz as its cell holds it: a signed
 *		integer (of the cell's 4 or 8 bytes) that orders as the values do,
 *		which storage filters compare.  False for a timestamp too late to be
 *		stored (wc_encode_value raises an error for it).
 */
bool
wc_encode_datetime(Datum value, Oid type, int64 *stored)
{
	if (type == DATEOID)
	{
		DateADT		d = DatumGetDateADT(value);

		*stored = DATE_NOT_FINITE(d) ? d : (int64) d + UNIX_TO_PG_DAYS;
		return true;
	}
	Assert(type == TIMESTAMPOID || type == TIMESTAMPTZOID);
	*stored = DatumGetInt64(value);
	if (TIMESTAMP_NOT_FINITE(*stored))
		return true;
	if (*stored > PG_INT64_MAX - 1 - UNIX_TO_PG_USECS)
		return false;
	*stored += UNIX_TO_PG_USECS;
	return true;
}

/*
 * wc_encode_value
 *		Append the cell bytes of a non-NULL value of type to buf.
 */
void
wc_encode_value(StringInfo buf, Datum value, Oid type)
{
	switch (type)
	{
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case BYTEAOID:
		case JSONOID:
			{
				struct varlena *v = PG_DETOAST_DATUM_PACKED(value);

				appendBinaryStringInfo(buf, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
				break;
			}
		case BOOLOID:
			appendStringInfoChar(buf, DatumGetBool(value) ? 1 : 0);
			break;
		case INT2OID:
			put_be(buf, (uint16) DatumGetInt16(value), 2);
			break;
		case INT4OID:
			put_be(buf, (uint32) DatumGetInt32(value), 4);
			break;
		case INT8OID:
			put_be(buf, (uint64) DatumGetInt64(value), 8);
			break;
		case FLOAT4OID:
			{
				float4		f = DatumGetFloat4(value);
				uint32		bits;

				memcpy(&bits, &f, 4);
				put_be(buf, bits, 4);
				break;
			}
		case FLOAT8OID:
			{
				float8		f = DatumGetFloat8(value);
				uint64		bits;

				memcpy(&bits, &f, 8);
				put_be(buf, bits, 8);
				break;
			}
		case DATEOID:
			{
				DateADT		d = DatumGetDateADT(value);

				/* PostgreSQL's whole date range fits */
				if (!DATE_NOT_FINITE(d))
					d += UNIX_TO_PG_DAYS;
				put_be(buf, (uint32) d, 4);
				break;
			}
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			{
				int64		ts = DatumGetInt64(value);

				if (!TIMESTAMP_NOT_FINITE(ts))
				{
					if (ts > PG_INT64_MAX - 1 - UNIX_TO_PG_USECS)
						timestamp_out_of_range();
					ts += UNIX_TO_PG_USECS;
				}
				put_be(buf, (uint64) ts, 8);
				break;
			}
		case UUIDOID:
			appendBinaryStringInfo(buf, (char *) DatumGetUUIDP(value)->data, UUID_LEN);
			break;
		case JSONBOID:
			{
				Jsonb	   *jb = DatumGetJsonbP(value);
				char	   *s = JsonbToCString(NULL, &jb->root, VARSIZE(jb));

				appendStringInfoString(buf, s);
				pfree(s);
				break;
			}
		case NUMERICOID:
			{
				char	   *s = OidOutputFunctionCall(F_NUMERIC_OUT, value);

				appendStringInfoString(buf, s);
				pfree(s);
				break;
			}
		default:
			{
				Oid			out;
				bool		varlena;

				if (has_binary_io(type))
				{
					bytea	   *b;
					int			client = server_encoding_begin();

					getTypeBinaryOutputInfo(type, &out, &varlena);
					PG_TRY();
					{
						b = OidSendFunctionCall(out, value);
						appendBinaryStringInfo(buf, VARDATA(b), VARSIZE(b) - VARHDRSZ);
					}
					PG_FINALLY();
					{
						server_encoding_end(client);
					}
					PG_END_TRY();
				}
				else
				{
					char	   *s;

					getTypeOutputInfo(type, &out, &varlena);
					s = OidOutputFunctionCall(out, value);
					appendStringInfoString(buf, s);
				}
				break;
			}
	}
}

/* The length of every stored value of a fixed-length type, or 0. */
static int
type_length(Oid type)
{
	switch (type)
	{
		case BOOLOID:
			return 1;
		case INT2OID:
			return 2;
		case INT4OID:
		case FLOAT4OID:
		case DATEOID:
			return 4;
		case INT8OID:
		case FLOAT8OID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return 8;
		case UUIDOID:
			return UUID_LEN;
	}
	return 0;
}

/* Why a stored value cannot be decoded (bad_value). */
typedef enum WcBadValue
{
	WC_BAD_LENGTH,				/* not the type's fixed length */
	WC_BAD_ZERO_BYTE,
	WC_BAD_ENCODING,
	WC_BAD_BOOLEAN,
	WC_BAD_DATE,
	WC_BAD_TIMESTAMP,
	WC_BAD_INPUT				/* the type's input or receive function failed */
} WcBadValue;

/*
 * bad_value
 *		The error for a stored value of column attnum that cannot be decoded:
 *		len is its length (WC_BAD_LENGTH), message the error of the type's
 *		input function (WC_BAD_INPUT).
 */
static void
bad_value(WcTable *t, int attnum, const uint8 *rowkey, size_t rowkey_len,
		  WcBadValue why, size_t len, const char *message)
{
	WcColumn   *col = &t->cols[attnum - 1];
	const char *key = wc_printable_key(rowkey, rowkey_len);

#define BAD_VALUE_ERROR(detail) \
	ereport(ERROR, \
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION), \
			 errmsg("stored value of column \"%s\" cannot be decoded as type %s", \
					col->name, format_type_be(col->type)), \
			 detail, \
			 errhint("The cell was probably written with another type; map it with a column of that type, or as bytea.")))

	switch (why)
	{
		case WC_BAD_LENGTH:
			BAD_VALUE_ERROR(errdetail("Cell %s:%s of row key \"%s\" is %zu bytes long; values of type %s are %d bytes.",
									  col->family, col->qualifier, key, len,
									  format_type_be(col->type), type_length(col->type)));
			break;
		case WC_BAD_ZERO_BYTE:
			BAD_VALUE_ERROR(errdetail("Cell %s:%s of row key \"%s\" contains a zero byte.",
									  col->family, col->qualifier, key));
			break;
		case WC_BAD_ENCODING:
			BAD_VALUE_ERROR(errdetail("Cell %s:%s of row key \"%s\" is not valid in the server encoding.",
									  col->family, col->qualifier, key));
			break;
		case WC_BAD_BOOLEAN:
			BAD_VALUE_ERROR(errdetail("Cell %s:%s of row key \"%s\" is neither the byte 0 nor the byte 1, as a boolean must be.",
									  col->family, col->qualifier, key));
			break;
		case WC_BAD_DATE:
			BAD_VALUE_ERROR(errdetail("The date in cell %s:%s of row key \"%s\" is out of range.",
									  col->family, col->qualifier, key));
			break;
		case WC_BAD_TIMESTAMP:
			BAD_VALUE_ERROR(errdetail("The timestamp in cell %s:%s of row key \"%s\" is out of range.",
									  col->family, col->qualifier, key));
			break;
		case WC_BAD_INPUT:
			BAD_VALUE_ERROR(errdetail("Decoding cell %s:%s of row key \"%s\" failed: %s",
									  col->family, col->qualifier, key, message));
			break;
	}
#undef BAD_VALUE_ERROR
}

static text *
checked_text(const uint8 *data, size_t len, WcBadValue *why)
{
	if (memchr(data, 0, len) != NULL)
	{
		*why = WC_BAD_ZERO_BYTE;
		return NULL;
	}
	if (!pg_verifymbstr((const char *) data, (int) len, true))
	{
		*why = WC_BAD_ENCODING;
		return NULL;
	}
	return cstring_to_text_with_len((const char *) data, (int) len);
}

static Datum
text_input(const char *data, size_t len, Oid type, int32 typmod)
{
	Oid			in;
	Oid			ioparam;
	char	   *s = pnstrdup(data, len);

	getTypeInputInfo(type, &in, &ioparam);
	return OidInputFunctionCall(in, s, ioparam, typmod);
}

/*
 * wc_encode_aggregate
 *		The cell bytes of a value of a column of an aggregate family
 *		(aggregate.c): 8 bytes whatever its integer type, so that the
 *		merges of columns of every integer type fold together.
 */
void
wc_encode_aggregate(StringInfo buf, Datum value, Oid type)
{
	int64		v = type == INT2OID ? DatumGetInt16(value) :
		type == INT4OID ? DatumGetInt32(value) : DatumGetInt64(value);

	put_be(buf, (uint64) v, 8);
}

/*
 * decode_aggregate
 *		The value of a column of an aggregate family from its cell's 8
 *		bytes (a plain value or the fold of merges).
 */
static Datum
decode_aggregate(const uint8 *data, size_t len, WcTable *t, int attnum,
				 const uint8 *rowkey, size_t rowkey_len)
{
	WcColumn   *col = &t->cols[attnum - 1];
	int64		v;

	if (len != 8)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("cell of column \"%s\" of foreign table \"%s\" does not hold a 64-bit integer",
						col->name, t->relname),
				 errdetail("The cell of row key \"%s\" holds %zu bytes; a cell of aggregate family \"%s\" holds 8.",
						   wc_printable_key(rowkey, rowkey_len), len, col->family)));
	v = (int64) wc_get_be(data, 8);
	if ((col->type == INT2OID && (v < PG_INT16_MIN || v > PG_INT16_MAX)) ||
		(col->type == INT4OID && (v < PG_INT32_MIN || v > PG_INT32_MAX)))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("value of column \"%s\" of foreign table \"%s\" is out of range for type %s",
						col->name, t->relname, format_type_be(col->type)),
				 errdetail("The cell of row key \"%s\" holds " INT64_FORMAT ".",
						   wc_printable_key(rowkey, rowkey_len), v),
				 errhint("Declare the column bigint.")));
	return col->type == INT2OID ? Int16GetDatum((int16) v) :
		col->type == INT4OID ? Int32GetDatum((int32) v) : Int64GetDatum(v);
}

/*
 * wc_decode_value
 *		The value of column attnum from its cell bytes.
 */
Datum
wc_decode_value(const uint8 *data, size_t len, WcTable *t, int attnum,
				const uint8 *rowkey, size_t rowkey_len)
{
	WcColumn   *col = &t->cols[attnum - 1];
	int			want = type_length(col->type);
	WcBadValue	why = WC_BAD_INPUT;

	if (col->aggregate != 0)
		return decode_aggregate(data, len, t, attnum, rowkey, rowkey_len);
	if (want != 0 && len != (size_t) want)
		bad_value(t, attnum, rowkey, rowkey_len, WC_BAD_LENGTH, len, NULL);

	switch (col->type)
	{
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			{
				text	   *v = checked_text(data, len, &why);

				if (v == NULL)
					bad_value(t, attnum, rowkey, rowkey_len, why, len, NULL);
				return PointerGetDatum(v);
			}
		case BYTEAOID:
			{
				bytea	   *v = palloc(VARHDRSZ + len);

				SET_VARSIZE(v, VARHDRSZ + len);
				memcpy(VARDATA(v), data, len);
				return PointerGetDatum(v);
			}
		case BOOLOID:
			if (data[0] > 1)
				bad_value(t, attnum, rowkey, rowkey_len, WC_BAD_BOOLEAN, len, NULL);
			return BoolGetDatum(data[0] == 1);
		case INT2OID:
			return Int16GetDatum((int16) wc_get_be(data, 2));
		case INT4OID:
			return Int32GetDatum((int32) wc_get_be(data, 4));
		case INT8OID:
			return Int64GetDatum((int64) wc_get_be(data, 8));
		case FLOAT4OID:
			{
				uint32		bits = (uint32) wc_get_be(data, 4);
				float4		f;

				memcpy(&f, &bits, 4);
				return Float4GetDatum(f);
			}
		case FLOAT8OID:
			{
				uint64		bits = wc_get_be(data, 8);
				float8		f;

				memcpy(&f, &bits, 8);
				return Float8GetDatum(f);
			}
		case DATEOID:
			{
				int32		d = (int32) wc_get_be(data, 4);

				if (!DATE_NOT_FINITE(d))
				{
					if (d < INT32_MIN + UNIX_TO_PG_DAYS ||
						!IS_VALID_DATE(d - UNIX_TO_PG_DAYS))
						bad_value(t, attnum, rowkey, rowkey_len, WC_BAD_DATE, len, NULL);
					d -= UNIX_TO_PG_DAYS;
				}
				return DateADTGetDatum(d);
			}
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			{
				int64		ts = (int64) wc_get_be(data, 8);

				if (!TIMESTAMP_NOT_FINITE(ts))
				{
					if (ts < PG_INT64_MIN + UNIX_TO_PG_USECS ||
						!IS_VALID_TIMESTAMP(ts - UNIX_TO_PG_USECS))
						bad_value(t, attnum, rowkey, rowkey_len, WC_BAD_TIMESTAMP, len, NULL);
					ts -= UNIX_TO_PG_USECS;
				}
				return Int64GetDatum(ts);
			}
		case UUIDOID:
			{
				pg_uuid_t  *u = palloc(sizeof(pg_uuid_t));

				memcpy(u->data, data, UUID_LEN);
				return UUIDPGetDatum(u);
			}
		default:
			{
				/* numeric, json and jsonb in text form, others as has_binary_io says */
				volatile Datum result = (Datum) 0;
				bool		binary = col->type != NUMERICOID && col->type != JSONOID &&
					col->type != JSONBOID && has_binary_io(col->type);
				text	   *v = binary ? NULL : checked_text(data, len, &why);
				MemoryContext cxt = CurrentMemoryContext;
				int			client = binary ? server_encoding_begin() : -1;

				if (!binary && v == NULL)
					bad_value(t, attnum, rowkey, rowkey_len, why, len, NULL);
				PG_TRY();
				{
					if (binary)
					{
						StringInfoData si;
						Oid			recv;
						Oid			ioparam;

						initStringInfo(&si);
						appendBinaryStringInfo(&si, (const char *) data, len);
						getTypeBinaryInputInfo(col->type, &recv, &ioparam);
						result = OidReceiveFunctionCall(recv, &si, ioparam, col->typmod);
						if (si.cursor != si.len)
							ereport(ERROR,
									(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
									 errmsg("the value has %d bytes after its end", si.len - si.cursor)));
					}
					else
						result = text_input(VARDATA(v), len, col->type, col->typmod);
				}
				PG_CATCH();
				{
					ErrorData  *edata;

					if (binary)
						server_encoding_end(client);
					MemoryContextSwitchTo(cxt);
					edata = CopyErrorData();
					FlushErrorState();
					bad_value(t, attnum, rowkey, rowkey_len, WC_BAD_INPUT, len, edata->message);
				}
				PG_END_TRY();
				if (binary)
					server_encoding_end(client);
				return result;
			}
	}
}

/*
 * wc_rowkey_bytes
 *		The bytes of a row-key value (text or bytea).
 */
void
wc_rowkey_bytes(Datum value, Oid type, const uint8 **data, size_t *len)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(value);

	*data = (const uint8 *) VARDATA_ANY(v);
	*len = VARSIZE_ANY_EXHDR(v);
	if (*len > WC_MAX_ROWKEY)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row key is too long"),
				 errdetail("The row key is %zu bytes; the limit is %d.", *len, WC_MAX_ROWKEY),
				 errhint("Bigtable-style row keys should be short; move long values into cells.")));
}

/*
 * wc_decode_rowkey
 *		A stored row key as a value of the row-key column's type.
 */
Datum
wc_decode_rowkey(const uint8 *data, size_t len, Oid type)
{
	if (type == BYTEAOID)
	{
		bytea	   *v = palloc(VARHDRSZ + len);

		SET_VARSIZE(v, VARHDRSZ + len);
		memcpy(VARDATA(v), data, len);
		return PointerGetDatum(v);
	}
	if (memchr(data, 0, len) != NULL ||
		!pg_verifymbstr((const char *) data, (int) len, true))
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("stored row key \"%s\" is not valid text", wc_printable_key(data, len)),
				 errdetail("The key contains a zero byte or is not valid in the server encoding."),
				 errhint("Declare the row-key column as bytea to read such keys.")));
	return PointerGetDatum(cstring_to_text_with_len((const char *) data, (int) len));
}

/*
 * wc_row_key
 *		The key prefix of a row: escaped table name, escaped row key.
 */
uint8 *
wc_row_key(WcTable *t, const uint8 *rowkey, size_t len, size_t *outlen)
{
	uint8	   *k = palloc(t->table_key_len + WC_ESCAPED_MAX(len));

	memcpy(k, t->table_key, t->table_key_len);
	*outlen = t->table_key_len + wc_escape(rowkey, len, k + t->table_key_len);
	return k;
}
