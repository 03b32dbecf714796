/*-------------------------------------------------------------------------
 *
 * mapcolumn.c
 *	  Map columns: a whole column family as one jsonb object, qualifier to
 *	  value.
 *
 * A column with the option family 'name' (mapping.c) asks the worker for
 * every live cell of the family (wire.h: a family alone), which arrive
 * packed in one value, {qualifier, value} in qualifier order; this file
 * merges this transaction's own writes into that value, decodes it into
 * jsonb, and turns a written object into the cells that change.  The
 * cells themselves are ordinary cells: their bytes are valuecodec.c's
 * encoding of the column's map_values type, so another foreign table can
 * map any of them as an ordinary column.
 *
 * Writing an object writes only what differs from the row read: a new or
 * changed key sets its cell, a key that is gone deletes it, an unchanged
 * key writes nothing.  INSERT, an upsert, sets the keys it is given and
 * leaves the family's other cells alone, as Bigtable's SetCell does.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/shortest_dec.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "fdw/fdw.h"
#include "fdw/model/model.h"

/* One cell of a map: its qualifier (unescaped) and its bytes. */
typedef struct WcMapEntry
{
	const uint8 *qual;
	size_t		qual_len;
	const uint8 *value;			/* NULL: deleted */
	size_t		value_len;
} WcMapEntry;

/* Is this wire column a family alone (one key component)? */
static bool
family_alone(const uint8 *col, size_t len)
{
	size_t		end;

	return wc_component_end(col, len, &end) == 0 && end == len;
}

/* Is the escaped family+qualifier fq in the family col (escaped)? */
static bool
in_family(const uint8 *col, size_t col_len, const uint8 *fq, size_t fq_len)
{
	return fq_len > col_len && memcmp(fq, col, col_len) == 0;
}

/*
 * wc_map_covers
 *		Is the cell famqual in a family that one of cols asks for alone?
 *		A scan then need not ask for it again.
 */
bool
wc_map_covers(uint8 **cols, size_t *lens, int ncols, const uint8 *famqual, size_t famqual_len)
{
	for (int i = 0; i < ncols; i++)
		if (in_family(cols[i], lens[i], famqual, famqual_len) && family_alone(cols[i], lens[i]))
			return true;
	return false;
}

/*
 * wc_map_fold_families
 *		Ask for the families of cols[from..ncols) alone instead of for each
 *		cell; returns the new count.  A transaction that wrote many keys of
 *		a map has as many cells to ask for, more than a scan may name: their
 *		families are few, and wc_map_apply_txn merges the writes into them.
 */
int
wc_map_fold_families(uint8 **cols, size_t *lens, int from, int ncols)
{
	int			n = from;

	for (int i = from; i < ncols; i++)
	{
		size_t		flen;
		bool		dup = false;

		if (wc_component_end(cols[i], lens[i], &flen) != 0)
			elog(ERROR, "malformed column in the transaction's writes");
		for (int j = from; j < n && !dup; j++)
			dup = lens[j] == flen && memcmp(cols[j], cols[i], flen) == 0;
		if (dup)
			continue;
		cols[n] = cols[i];		/* its family is its first component */
		lens[n++] = flen;
	}
	return n;
}

static int
entry_cmp(const void *a, const void *b)
{
	const WcMapEntry *x = a;
	const WcMapEntry *y = b;

	return wc_compare_bytes(x->qual, x->qual_len, y->qual, y->qual_len);
}

/* The entries of a packed map value (wire.h), in qualifier order. */
static WcMapEntry *
unpack(const uint8 *data, size_t len, int extra, int *n)
{
	WcReader	r;
	int			cap = 8 + extra;
	WcMapEntry *e = palloc(sizeof(WcMapEntry) * cap);

	*n = 0;
	if (data == NULL)
		return e;
	wc_reader_init(&r, data, len);
	while (wc_reader_left(&r) > 0)
	{
		WcBytes		q,
					v;

		if (!wc_read_map_entry(&r, &q, &v))
			ereport(ERROR,
					(errcode(ERRCODE_PROTOCOL_VIOLATION),
					 errmsg("malformed batch from the widecolumn_fdw storage worker")));
		if (*n + extra == cap)
		{
			cap *= 2;
			e = repalloc(e, sizeof(WcMapEntry) * cap);
		}
		e[*n].qual = q.data;
		e[*n].qual_len = q.len;
		e[*n].value = v.data;
		e[*n].value_len = v.len;
		(*n)++;
	}
	return e;
}

/*
 * wc_map_apply_txn
 *		Merge this transaction's writes of row into the values of the
 *		families that cols asks for alone: vals[i] is the family's packed
 *		cells as stored (NULL: none), and becomes them as this transaction
 *		sees them.  (A row the transaction deleted has had them cleared.)
 */
void
wc_map_apply_txn(uint8 **cols, size_t *lens, int ncols, const WcTxnRow *row,
				 const uint8 **vals, size_t *vlens)
{
	for (int i = 0; i < ncols; i++)
	{
		WcMapEntry *e;
		int			n;
		int			nstored;
		int			nmine = 0;
		StringInfoData out;

		if (!family_alone(cols[i], lens[i]))
			continue;
		for (int c = 0; c < row->ncells; c++)
			if (in_family(cols[i], lens[i], row->cells[c].famqual, row->cells[c].famqual_len))
				nmine++;
		if (nmine == 0)
			continue;

		e = unpack(vals[i], vlens[i], nmine, &n);
		nstored = n;
		for (int c = 0; c < row->ncells; c++)
		{
			const WcTxnCell *cell = &row->cells[c];
			WcMapEntry	key;
			WcMapEntry *found;
			uint8	   *q;
			size_t		consumed;

			if (!in_family(cols[i], lens[i], cell->famqual, cell->famqual_len))
				continue;
			q = palloc(cell->famqual_len);
			if (wc_unescape(cell->famqual + lens[i], cell->famqual_len - lens[i], q,
							&consumed, &key.qual_len) != 0)
				elog(ERROR, "malformed qualifier in the transaction's writes");
			key.qual = q;
			/* the stored entries are sorted; the ones added after them not */
			found = bsearch(&key, e, nstored, sizeof(WcMapEntry), entry_cmp);
			for (int j = nstored; found == NULL && j < n; j++)
				if (entry_cmp(&key, &e[j]) == 0)
					found = &e[j];
			if (found == NULL)
			{
				found = &e[n++];
				*found = key;
			}
			found->value = cell->value;
			found->value_len = cell->value_len;
		}
		qsort(e, n, sizeof(WcMapEntry), entry_cmp);

		initStringInfo(&out);
		for (int j = 0; j < n; j++)
			if (e[j].value != NULL)
				wc_write_map_entry(&out, e[j].qual, e[j].qual_len, e[j].value, e[j].value_len);
		vals[i] = out.len > 0 ? (const uint8 *) out.data : NULL;
		vlens[i] = out.len;
	}
}

/*
 * decode_entry
 *		The JSON value of one cell of map column attnum, from its bytes as
 *		valuecodec.c decodes the column's map_values type; its errors name
 *		the cell, qualifier and row key.
 */
static void
decode_entry(WcTable *t, int attnum, const WcMapEntry *e, const char *qual,
			 const uint8 *rowkey, size_t rowkey_len, JsonbValue *jv)
{
	WcColumn	cell = t->cols[attnum - 1];
	WcTable		one = *t;
	Datum		d;

	cell.type = cell.map_type;
	cell.typmod = -1;
	cell.qualifier = (char *) qual;
	one.cols = &cell;
	one.natts = 1;
	d = wc_decode_value(e->value, e->value_len, &one, 1, rowkey, rowkey_len);

	switch (cell.map_type)
	{
		case TEXTOID:
			{
				text	   *s = DatumGetTextPP(d);

				jv->type = jbvString;
				jv->val.string.val = VARDATA_ANY(s);
				jv->val.string.len = VARSIZE_ANY_EXHDR(s);
				break;
			}
		case INT8OID:
			jv->type = jbvNumeric;
			jv->val.numeric = int64_to_numeric(DatumGetInt64(d));
			break;
		case FLOAT8OID:
			{
				float8		f = DatumGetFloat8(d);

				if (isnan(f) || isinf(f))
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
							 errmsg("stored value of map column \"%s\" cannot be a JSON number",
									cell.name),
							 errdetail("Cell %s:%s of row key \"%s\" holds %g, which is not a JSON number.",
									   cell.family, qual, wc_printable_key(rowkey, rowkey_len), f)));
				/* the shortest text that reads back as the same double */
				jv->type = jbvNumeric;
				jv->val.numeric =
					DatumGetNumeric(DirectFunctionCall3(numeric_in,
														CStringGetDatum(double_to_shortest_decimal(f)),
														ObjectIdGetDatum(InvalidOid),
														Int32GetDatum(-1)));
				break;
			}
		case JSONBOID:
			{
				Jsonb	   *jb = DatumGetJsonbP(d);

				jv->type = jbvBinary;
				jv->val.binary.data = &jb->root;
				jv->val.binary.len = VARSIZE(jb) - VARHDRSZ;
				break;
			}
		case BYTEAOID:
			{
				bytea	   *b = DatumGetByteaPP(d);
				size_t		blen = VARSIZE_ANY_EXHDR(b);
				const uint8 *src = (const uint8 *) VARDATA_ANY(b);
				char	   *hex = palloc(2 * blen + 3);
				static const char digits[] = "0123456789abcdef";

				hex[0] = '\\';
				hex[1] = 'x';
				for (size_t i = 0; i < blen; i++)
				{
					hex[2 + 2 * i] = digits[src[i] >> 4];
					hex[3 + 2 * i] = digits[src[i] & 0x0F];
				}
				jv->type = jbvString;
				jv->val.string.val = hex;
				jv->val.string.len = 2 * blen + 2;
				break;
			}
		default:
			elog(ERROR, "unexpected map value type %u", cell.map_type);
	}
}

/*
 * wc_map_decode
 *		The jsonb object of map column attnum from its packed cells.
 */
Datum
wc_map_decode(const uint8 *data, size_t len, WcTable *t, int attnum,
			  const uint8 *rowkey, size_t rowkey_len)
{
	WcColumn   *col = &t->cols[attnum - 1];
	JsonbParseState *state = NULL;
	JsonbValue *res;
	WcMapEntry *e;
	int			n;

	e = unpack(data, len, 0, &n);
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < n; i++)
	{
		JsonbValue	k;
		JsonbValue	v;
		const char *q = (const char *) e[i].qual;
		char	   *qual = wc_printable_key(e[i].qual, e[i].qual_len);

		if (memchr(q, 0, e[i].qual_len) != NULL ||
			!pg_verifymbstr(q, (int) e[i].qual_len, true))
			ereport(ERROR,
					(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
					 errmsg("qualifier of a cell of map column \"%s\" is not valid text", col->name),
					 errdetail("Cell %s:%s of row key \"%s\" has a qualifier that contains a zero byte or is not valid in the server encoding.",
							   col->family, qual, wc_printable_key(rowkey, rowkey_len))));
		k.type = jbvString;
		k.val.string.val = (char *) q;
		k.val.string.len = (int) e[i].qual_len;
		decode_entry(t, attnum, &e[i], qual, rowkey, rowkey_len, &v);
		pushJsonbValue(&state, WJB_KEY, &k);
		pushJsonbValue(&state, WJB_VALUE, &v);
	}
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	return JsonbPGetDatum(JsonbValueToJsonb(res));
}

/* The value of a map column whose family has no cell in the row: {}. */
Datum
wc_map_empty(void)
{
	JsonbParseState *state = NULL;

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	return JsonbPGetDatum(JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL)));
}

/* A key of a written object with its cell's bytes; value NULL for JSON null. */
typedef struct WcMapWrite
{
	char	   *key;
	int			key_len;
	StringInfoData value;
	bool		null;
} WcMapWrite;

/* What a written value is not (bad_map_value). */
typedef enum WcMapBad
{
	WC_MAP_NOT_STRING,
	WC_MAP_NOT_NUMBER,
	WC_MAP_NOT_INTEGER,
	WC_MAP_NOT_HEX
} WcMapBad;

/* The error for a written value that the column's map_values cannot hold. */
static void
bad_map_value(WcColumn *col, const WcMapWrite *w, WcMapBad why)
{
	int			klen = Min(w->key_len, 64);

#define BAD_MAP_VALUE(msg, detail) \
	ereport(ERROR, \
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE), \
			 errmsg(msg, klen, w->key, col->name), \
			 errdetail(detail)))

	switch (why)
	{
		case WC_MAP_NOT_STRING:
			BAD_MAP_VALUE("value of key \"%.*s\" in map column \"%s\" is not a JSON string",
						  "The column's values are text (option \"map_values\").");
			break;
		case WC_MAP_NOT_NUMBER:
			BAD_MAP_VALUE("value of key \"%.*s\" in map column \"%s\" is not a JSON number",
						  "The column's values are numbers (option \"map_values\").");
			break;
		case WC_MAP_NOT_INTEGER:
			BAD_MAP_VALUE("value of key \"%.*s\" in map column \"%s\" is not an integer",
						  "The column's values are bigint (option \"map_values\").");
			break;
		case WC_MAP_NOT_HEX:
			BAD_MAP_VALUE("value of key \"%.*s\" in map column \"%s\" is not a bytea in hex",
						  "The column's values are bytea (option \"map_values\"), written as JSON strings in hex that start with \\x.");
			break;
	}
#undef BAD_MAP_VALUE
}

/*
 * encode_entry
 *		The cell bytes of one value of a written object, as valuecodec.c
 *		encodes the column's map_values type.
 */
static void
encode_entry(WcColumn *col, JsonbValue *v, WcMapWrite *w)
{
	Datum		d;

	initStringInfo(&w->value);
	w->null = v->type == jbvNull;
	if (w->null)
		return;
	switch (col->map_type)
	{
		case TEXTOID:
			if (v->type != jbvString)
				bad_map_value(col, w, WC_MAP_NOT_STRING);
			appendBinaryStringInfo(&w->value, v->val.string.val, v->val.string.len);
			return;
		case INT8OID:
			{
				int64		i;

				if (v->type != jbvNumeric)
					bad_map_value(col, w, WC_MAP_NOT_NUMBER);
				i = DatumGetInt64(DirectFunctionCall1(numeric_int8,
													  NumericGetDatum(v->val.numeric)));
				/* numeric_int8 rounds: 1.5 is no bigint */
				if (!DatumGetBool(DirectFunctionCall2(numeric_eq,
													  NumericGetDatum(v->val.numeric),
													  NumericGetDatum(int64_to_numeric(i)))))
					bad_map_value(col, w, WC_MAP_NOT_INTEGER);
				d = Int64GetDatum(i);
				break;
			}
		case FLOAT8OID:
			if (v->type != jbvNumeric)
				bad_map_value(col, w, WC_MAP_NOT_NUMBER);
			d = DirectFunctionCall1(numeric_float8, NumericGetDatum(v->val.numeric));
			break;
		case JSONBOID:
			d = JsonbPGetDatum(JsonbValueToJsonb(v));
			break;
		case BYTEAOID:
			if (v->type != jbvString || v->val.string.len < 2 ||
				v->val.string.val[0] != '\\' || v->val.string.val[1] != 'x')
				bad_map_value(col, w, WC_MAP_NOT_HEX);
			d = DirectFunctionCall1(byteain,
									CStringGetDatum(pnstrdup(v->val.string.val,
															 v->val.string.len)));
			break;
		default:
			elog(ERROR, "unexpected map value type %u", col->map_type);
	}
	wc_encode_value(&w->value, d, col->map_type);
}

/*
 * object_entries
 *		The keys of a written map, in jsonb's order (by length, then bytes),
 *		each with its cell's bytes.
 */
static WcMapWrite *
object_entries(WcColumn *col, Datum value, int *n)
{
	Jsonb	   *jb = DatumGetJsonbP(value);
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	WcMapWrite *w;

	if (!JB_ROOT_IS_OBJECT(jb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("value of map column \"%s\" is not a JSON object", col->name),
				 errdetail("A map column holds a column family: an object whose keys are the qualifiers.")));
	w = palloc(sizeof(WcMapWrite) * (JB_ROOT_COUNT(jb) + 1));
	*n = 0;
	it = JsonbIteratorInit(&jb->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
		{
			w[*n].key = v.val.string.val;
			w[*n].key_len = v.val.string.len;
		}
		else if (tok == WJB_VALUE)
			encode_entry(col, &v, &w[(*n)++]);
	}
	return w;
}

/* jsonb's order of object keys */
static int
key_cmp(const WcMapWrite *a, const WcMapWrite *b)
{
	if (a->key_len != b->key_len)
		return a->key_len < b->key_len ? -1 : 1;
	return memcmp(a->key, b->key, a->key_len);
}

/* Append to *cells the write of one cell (value NULL: its deletion). */
static int
add_cell(WcColumn *col, const WcMapWrite *w, const StringInfo value,
		 WcTxnCell **cells, int n, int *cap)
{
	size_t		flen = strlen(col->family);
	uint8	   *fq;
	size_t		fqlen;

	if (w->key_len > WC_MAX_QUALIFIER)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("key of map column \"%s\" is too long for a qualifier", col->name),
				 errdetail("The key is %d bytes; the limit is %d.", w->key_len, WC_MAX_QUALIFIER)));
	if (value != NULL && value->len > WC_MAX_VALUE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("value of key \"%.*s\" in map column \"%s\" is too large for a cell",
						Min(w->key_len, 64), w->key, col->name),
				 errdetail("The value is %d bytes; the limit is %d.", value->len, WC_MAX_VALUE)));
	fq = palloc(WC_ESCAPED_MAX(flen) + WC_ESCAPED_MAX(w->key_len));
	fqlen = wc_escape((const uint8 *) col->family, flen, fq);
	fqlen += wc_escape((const uint8 *) w->key, w->key_len, fq + fqlen);
	if (n == *cap)
	{
		*cap *= 2;
		*cells = repalloc(*cells, sizeof(WcTxnCell) * *cap);
	}
	(*cells)[n].famqual = fq;
	(*cells)[n].famqual_len = fqlen;
	(*cells)[n].value = value ? (const uint8 *) value->data : NULL;
	(*cells)[n].value_len = value ? value->len : 0;
	(*cells)[n].merge = 0;
	return n + 1;
}

/*
 * wc_map_cells
 *		Append to *cells (room for *cap, grown as needed) the cells that
 *		writing newval to map column attnum changes, and return their new
 *		count.  Without an old value (INSERT), every key of newval is
 *		written and the family's other cells are left alone.  With one
 *		(UPDATE), only the keys whose bytes differ are written, and the old
 *		keys that newval lacks are deleted; a NULL newval deletes them all.
 *		A JSON null is refused: the way to delete a cell is to remove its
 *		key.
 */
int
wc_map_cells(WcTable *t, int attnum, Datum newval, bool newnull,
			 bool have_old, Datum oldval, bool oldnull,
			 WcTxnCell **cells, int n, int *cap)
{
	WcColumn   *col = &t->cols[attnum - 1];
	WcMapWrite *nw = NULL;
	WcMapWrite *ow = NULL;
	int			nn = 0;
	int			on = 0;
	int			i = 0;
	int			j = 0;

	if (!newnull)
		nw = object_entries(col, newval, &nn);
	for (int k = 0; k < nn; k++)
		if (nw[k].null)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("value of key \"%.*s\" in map column \"%s\" is null",
							Min(nw[k].key_len, 64), nw[k].key, col->name),
					 errdetail("A key of a map column is a cell, and a cell holds a value."),
					 errhint("To delete the cell, remove the key, as with the operator -.")));
	if (have_old && !oldnull)
		ow = object_entries(col, oldval, &on);

	/* both in jsonb's key order: walk them together */
	while (i < nn || j < on)
	{
		int			cmp = i == nn ? 1 : j == on ? -1 : key_cmp(&nw[i], &ow[j]);

		if (cmp < 0)
		{
			n = add_cell(col, &nw[i], &nw[i].value, cells, n, cap);
			i++;
		}
		else if (cmp > 0)
		{
			n = add_cell(col, &ow[j], NULL, cells, n, cap);
			j++;
		}
		else
		{
			if (nw[i].value.len != ow[j].value.len ||
				memcmp(nw[i].value.data, ow[j].value.data, nw[i].value.len) != 0)
				n = add_cell(col, &nw[i], &nw[i].value, cells, n, cap);
			i++;
			j++;
		}
	}
	return n;
}
