/*-------------------------------------------------------------------------
 *
 * fuzz_values.c
 *	  libFuzzer harness of the value codecs: src/fdw/model/valuecodec.c (cell bytes
 *	  to SQL values and back) and src/fdw/model/rowkey.c with keyformat.c (stored
 *	  row keys to their typed parts and back).
 *
 * The codecs call PostgreSQL's own type input, output, send and receive
 * functions and look types up in the catalogs, so they cannot run in a
 * standalone program.  This harness is a shared library instead, with one
 * SQL function that hands control to libFuzzer (LLVMFuzzerRunDriver, from
 * clang's libclang_rt.fuzzer_no_main) inside a PostgreSQL backend of a
 * scratch cluster in single-user mode: there is no postmaster to treat
 * libFuzzer's exit() at the end of the run as a crash.  Only this library
 * is instrumented for coverage; PostgreSQL's functions are run, not
 * guided.  test/fuzz/run.sh builds and runs it like the other targets.
 *
 * The first byte of an input picks what the rest is:
 *
 *  - a cell value of one of the column types in columns[] below, decoded
 *	  by wc_decode_value.  It must either give a value or fail with SQLSTATE
 *	  22P03 (invalid_binary_representation), the error that names the
 *	  column and the row key.  A value must encode (wc_encode_value) to
 *	  bytes that decode again and encode to themselves; for the types with
 *	  a fixed encoding (docs/format.md) the bytes must be the input itself.
 *
 *  - a stored row key of one of the segmented layouts in layouts[], split
 *	  by wc_key_split.  It must either give the parts or fail with SQLSTATE
 *	  22000 (data_exception); parts must compose (wc_key_compose) to the
 *	  very same key, since the key is what identifies the row.
 *
 *  - a stored row key of a text row-key column (wc_decode_rowkey): a
 *	  value, whose bytes are the key, or SQLSTATE 22021.
 *
 * Each input runs in its own subtransaction and memory context, as a
 * statement would, so an error leaves nothing behind for the next one.
 * A broken property prints the input's type and aborts, which libFuzzer
 * reports as a crash and keeps the input.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "fdw/model/model.h"

PG_MODULE_MAGIC;

extern int	LLVMFuzzerRunDriver(int *argc, char ***argv,
								int (*cb) (const uint8_t *data, size_t size));

typedef struct FuzzColumn
{
	Oid			type;
	int32		typmod;
	bool		exact;			/* encoding is fixed: bytes round-trip */
} FuzzColumn;

static const FuzzColumn columns[] = {
	{BOOLOID, -1, true},
	{INT2OID, -1, true},
	{INT4OID, -1, true},
	{INT8OID, -1, true},
	{FLOAT4OID, -1, true},
	{FLOAT8OID, -1, true},
	{DATEOID, -1, true},
	{TIMESTAMPOID, -1, true},
	{TIMESTAMPTZOID, -1, true},
	{UUIDOID, -1, true},
	{TEXTOID, -1, true},
	{VARCHAROID, -1, true},
	{BYTEAOID, -1, true},
	{NUMERICOID, -1, false},
	{NUMERICOID, ((8 << 16) | 2) + VARHDRSZ, false},	/* numeric(8,2) */
	{JSONOID, -1, true},
	{JSONBOID, -1, false},
	{INTERVALOID, -1, false},
	{INETOID, -1, false},
	{CIDROID, -1, false},
	{MACADDROID, -1, false},
	{TIMEOID, -1, false},
	{TIMETZOID, -1, false},
	{CASHOID, -1, false},
	{POINTOID, -1, false},
	{BOXOID, -1, false},
	{PATHOID, -1, false},
	{POLYGONOID, -1, false},
	{VARBITOID, -1, false},
	{INT4ARRAYOID, -1, false},
	{TEXTARRAYOID, -1, false},
	{FLOAT8ARRAYOID, -1, false},
	{INT4RANGEOID, -1, false},
	{TSVECTOROID, -1, false},
	{TSQUERYOID, -1, false},
	{OIDOID, -1, false},
	{CHAROID, -1, false},
	{NAMEOID, -1, false},
};

#define NCOLUMNS lengthof(columns)

/*
 * Segmented row keys: the delimiter and the part types of each layout,
 * which are stored reversed (as option.c allows: dates and timestamps only)
 * and which have a rowkey_format (keyformat.c; NULL: the default).
 */
typedef struct FuzzLayout
{
	char		delimiter;
	int			nparts;
	Oid			types[4];
	bool		reverse[4];
	const char *format[4];
} FuzzLayout;

static const FuzzLayout layouts[] = {
	{'#', 3, {TEXTOID, INT4OID, TIMESTAMPOID}, {false, false, true}},
	{'#', 2, {INT2OID, INT8OID}, {false, false}},
	{'|', 3, {DATEOID, TIMESTAMPTZOID, VARCHAROID}, {true, false, false}},
	{'#', 4, {TEXTOID, TEXTOID, DATEOID, INT8OID}, {false, false, true, false}},
	{'/', 1, {INT8OID}, {false}},
	{'#', 1, {TIMESTAMPTZOID}, {true}},
	{'#', 3, {TEXTOID, INT4OID, TIMESTAMPOID}, {false, false, false}, {NULL, "4", "YYYY-MM-DD-HH24MI"}},
	{'#', 3, {TIMESTAMPTZOID, DATEOID, INT8OID}, {true, false, false},
	{"YYYY-MM-DD\"T\"HH24:MI:SS.MS", "YYYYMM", "13"}},
};

#define NLAYOUTS lengthof(layouts)

static WcTable *value_table;	/* one column of each type */
static WcTable *key_tables[NLAYOUTS];
static MemoryContext input_cxt;

/*
 * Set once the input has decoded: from then on (encoding the value, decoding
 * that again, composing a key) no error is expected at all.
 */
static bool decoded;

static WcTable *
make_table(int natts)
{
	WcTable    *t = palloc0(sizeof(WcTable));

	t->relname = "fuzz";
	t->table = "fuzz";
	t->natts = natts;
	t->cols = palloc0(sizeof(WcColumn) * natts);
	return t;
}

static void
make_tables(void)
{
	value_table = make_table(NCOLUMNS);
	for (int i = 0; i < (int) NCOLUMNS; i++)
	{
		WcColumn   *c = &value_table->cols[i];

		c->kind = WC_COL_CELL;
		c->name = psprintf("c%d", i + 1);
		c->type = columns[i].type;
		c->typmod = columns[i].typmod;
		c->family = "cf";
		c->qualifier = c->name;
	}
	for (int l = 0; l < (int) NLAYOUTS; l++)
	{
		const FuzzLayout *lay = &layouts[l];
		WcTable    *t = make_table(lay->nparts);

		t->nparts = lay->nparts;
		t->delimiter = lay->delimiter;
		t->part_attnum = palloc(sizeof(int) * lay->nparts);
		for (int i = 0; i < lay->nparts; i++)
		{
			WcColumn   *c = &t->cols[i];

			c->kind = WC_COL_PART;
			c->name = psprintf("p%d", i + 1);
			c->type = lay->types[i];
			c->typmod = -1;
			c->rowkey_part = i + 1;
			c->rowkey_reverse = lay->reverse[i];
			if (lay->format[i] != NULL)
				c->rowkey_format = wc_keyformat_parse(lay->format[i]);
			t->part_attnum[i] = i + 1;
		}
		key_tables[l] = t;
	}
}

static pg_attribute_noreturn() void
broken(const char *what, Oid type, const char *detail)
{
	fprintf(stderr, "fuzz_values: %s (type %s): %s\n", what,
			format_type_be(type), detail);
	abort();
}

static bool
same_bytes(StringInfo s, const uint8_t *data, size_t size)
{
	return (size_t) s->len == size && memcmp(s->data, data, size) == 0;
}

static void
check_value(int attnum, const uint8_t *data, size_t size)
{
	WcColumn   *col = &value_table->cols[attnum - 1];
	Datum		v = wc_decode_value(data, size, value_table, attnum,
									(const uint8 *) "key", 3);
	StringInfoData once,
				twice;

	decoded = true;
	initStringInfo(&once);
	wc_encode_value(&once, v, col->type);
	if (columns[attnum - 1].exact && !same_bytes(&once, data, size))
		broken("decoded value encodes to other bytes", col->type, "fixed encoding");
	v = wc_decode_value((const uint8 *) once.data, once.len, value_table,
						attnum, (const uint8 *) "key", 3);
	initStringInfo(&twice);
	wc_encode_value(&twice, v, col->type);
	if (!same_bytes(&twice, (const uint8 *) once.data, once.len))
		broken("encoding is not stable", col->type, once.data);
}

static void
check_key(WcTable *t, const uint8_t *data, size_t size)
{
	Datum		values[4];
	bool		nulls[4];
	StringInfoData again;

	wc_key_split(t, data, size, values, nulls);
	decoded = true;
	initStringInfo(&again);
	wc_key_compose(t, values, nulls, &again);
	if (!same_bytes(&again, data, size))
		broken("split row key composes to another key", t->cols[0].type,
			   wc_printable_key((const uint8 *) again.data, again.len));
}

static void
check_rowkey(const uint8_t *data, size_t size)
{
	Datum		v = wc_decode_rowkey(data, size, TEXTOID);
	const uint8 *bytes;
	size_t		len;

	decoded = true;
	wc_rowkey_bytes(v, TEXTOID, &bytes, &len);
	if (len != size || memcmp(bytes, data, size) != 0)
		broken("decoded row key has other bytes", TEXTOID, "row key");
}

static int
one_input(const uint8_t *data, size_t size)
{
	MemoryContext outer = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	int			pick;
	volatile int expected = 0;
	volatile Oid type = InvalidOid;

	if (size == 0)
		return 0;
	pick = data[0] % (NCOLUMNS + NLAYOUTS + 1);
	data++;
	size--;

	decoded = false;
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(input_cxt);
	PG_TRY();
	{
		if (pick < (int) NCOLUMNS)
		{
			type = columns[pick].type;
			expected = ERRCODE_INVALID_BINARY_REPRESENTATION;
			check_value(pick + 1, data, size);
		}
		else if (pick < (int) (NCOLUMNS + NLAYOUTS))
		{
			WcTable    *t = key_tables[pick - NCOLUMNS];

			type = t->cols[0].type;
			expected = ERRCODE_DATA_EXCEPTION;
			check_key(t, data, size);
		}
		else
		{
			type = TEXTOID;
			expected = ERRCODE_CHARACTER_NOT_IN_REPERTOIRE;
			check_rowkey(data, size);
		}
		/* nothing to keep: a committed subtransaction's memory would be */
		RollbackAndReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(input_cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		if (decoded || edata->sqlerrcode != expected)
		{
			char		detail[1024];

			snprintf(detail, sizeof(detail), "unexpected error %s: %s (%s)",
					 unpack_sql_state(edata->sqlerrcode), edata->message,
					 edata->detail ? edata->detail : "no detail");
			broken(decoded ? "a decoded value failed to encode or decode again" :
				   "codec failed with the wrong error", type, detail);
		}
	}
	PG_END_TRY();
	MemoryContextSwitchTo(outer);
	CurrentResourceOwner = owner;
	MemoryContextReset(input_cxt);
	return 0;
}

PG_FUNCTION_INFO_V1(wc_fuzz_values);

/*
 * wc_fuzz_values(args text[])
 *		Run libFuzzer with these command-line arguments; does not return.
 */
Datum
wc_fuzz_values(PG_FUNCTION_ARGS)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(0);
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	int			argc;
	char	  **argv;

	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	argv = palloc0(sizeof(char *) * (n + 2));
	argv[0] = "fuzz_values";
	for (int i = 0; i < n; i++)
		argv[i + 1] = nulls[i] ? "" : TextDatumGetCString(elems[i]);
	argc = n + 1;

	make_tables();
	input_cxt = AllocSetContextCreate(TopMemoryContext, "fuzz input",
									  ALLOCSET_DEFAULT_SIZES);
	PG_RETURN_INT32(LLVMFuzzerRunDriver(&argc, &argv, one_input));
}
