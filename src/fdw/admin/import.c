/*-------------------------------------------------------------------------
 *
 * import.c
 *	  IMPORT FOREIGN SCHEMA: a foreign table for each stored table of a
 *	  server, declared from its families, the SQL types its columns were
 *	  written with (coltypes.c) and a sample of its rows.
 *
 * The remote schema names the layout: "cells" imports cells-layout tables
 * (a row per version), any other name tables that map columns: the row
 * key, a jsonb map column for each family, and a typed column for each
 * qualifier written through foreign tables with one SQL type that the
 * sampled rows have.  The map columns hold every cell, so nothing of the
 * table is out of reach; qualifiers with no recorded type, or several,
 * are read there.
 *
 * Nothing is guessed from bytes: what the sample decides is only whether a
 * recorded column still has cells, whether the row keys and qualifiers are
 * text (else bytea), and whether the keys have as many parts as the
 * recorded row-key layout (else the key is one column).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "foreign/foreign.h"
#include "mb/pg_wchar.h"
#include "parser/parse_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "fdw/admin/admin.h"
#include "fdw/fdw.h"
#include "fdw/link/link.h"
#include "fdw/meta/meta.h"
#include "fdw/model/model.h"
#include "fdw/read/read.h"

/* Rows sampled from each stored table. */
#define WC_IMPORT_SAMPLE_ROWS	1000

/* A line of a family's record of types: a candidate for a typed column. */
typedef struct WcImportColumn
{
	char	   *qualifier;
	char	   *type;			/* "": written with several types */
	bool		seen;			/* a sampled row has the cell */
	char	   *name;			/* the column's name, once it has one */
} WcImportColumn;

typedef struct WcImportFamily
{
	char	   *name;
	char	   *map_name;
	WcImportColumn *cols;
	int			ncols;
	bool		aggregate;		/* its cells are counters: no map column */
	char	   *map_type;		/* the map column's recorded type, or NULL */
	bool		unrecorded;		/* a sampled cell with no line of record */
} WcImportFamily;

/* A column of the recorded row-key layout (coltypes.c). */
typedef struct WcImportKeyColumn
{
	char	   *name;
	char	   *type;
	char	   *format;			/* rowkey_format, or "" */
	bool		reverse;
} WcImportKeyColumn;

typedef struct WcImportTable
{
	char	   *name;
	char		delimiter;		/* the recorded layout's, or '\0' */
	WcImportKeyColumn *key;		/* its columns in part order */
	int			nkey;			/* 0: no layout recorded, or several */
	bool		keys_match;		/* every sampled key has nkey parts */
	WcImportFamily *families;
	int			nfamilies;
	bool		complete;		/* the sample is the whole table */
	bool		keys_text;		/* every sampled row key is text */
	bool		quals_text;		/* every sampled qualifier is text */
} WcImportTable;

/* Are these bytes text, as a name or a text column holds it? */
static bool
is_text(const uint8 *data, size_t len)
{
	return memchr(data, 0, len) == NULL &&
		pg_verifymbstr((const char *) data, (int) len, true);
}

/* The families of a family list ("family<TAB>policy...\n" lines). */
static void
add_families(WcImportTable *t, const char *list)
{
	const char *p = list;
	int			cap = 4;

	t->families = palloc0(sizeof(WcImportFamily) * cap);
	while (*p)
	{
		const char *nl = strchr(p, '\n');
		const char *tab = strchr(p, '\t');

		if (nl == NULL)
			nl = p + strlen(p);
		if (tab != NULL && tab < nl)
		{
			if (t->nfamilies == cap)
			{
				cap *= 2;
				t->families = repalloc(t->families, sizeof(WcImportFamily) * cap);
			}
			memset(&t->families[t->nfamilies], 0, sizeof(WcImportFamily));
			t->families[t->nfamilies].name = pnstrdup(p, tab - p);
			/* "family<TAB>policy<TAB>aggregate" */
			t->families[t->nfamilies++].aggregate = memchr(tab + 1, '\t', nl - tab - 1) != NULL;
		}
		p = *nl ? nl + 1 : nl;
	}
}

/*
 * add_record
 *		The lines of record ("family<TAB>qualifier<TAB>type\n", in order),
 *		each to its family.
 */
static void
add_record(WcImportTable *t, const char *record)
{
	const char *p = record;

	while (*p)
	{
		const char *nl = strchr(p, '\n');
		const char *tab1 = strchr(p, '\t');
		const char *tab2 = strchr(tab1 + 1, '\t');
		char	   *qualifier = pnstrdup(tab1 + 1, tab2 - tab1 - 1);
		char	   *type = pnstrdup(tab2 + 1, nl - tab2 - 1);

		for (int i = 0; i < t->nfamilies; i++)
		{
			WcImportFamily *f = &t->families[i];

			if (strlen(f->name) != (size_t) (tab1 - p) || memcmp(f->name, p, tab1 - p) != 0)
				continue;
			if (qualifier[0] == '\0')
				f->map_type = type;
			else
			{
				f->cols = f->cols ? repalloc(f->cols, sizeof(WcImportColumn) * (f->ncols + 1)) :
					palloc(sizeof(WcImportColumn));
				f->cols[f->ncols].qualifier = qualifier;
				f->cols[f->ncols].type = type;
				f->cols[f->ncols].seen = false;
				f->cols[f->ncols].name = NULL;
				f->ncols++;
			}
		}
		p = nl + 1;
	}
}

/*
 * add_key
 *		The recorded row-key layout: the delimiter's line, then a line
 *		"name<TAB>type<TAB>format<TAB>t|f" per key column.  One that does
 *		not parse is as good as none.
 */
static void
add_key(WcImportTable *t, const char *layout)
{
	const char *p;
	int			n = 0;

	t->nkey = 0;
	if (layout == NULL || layout[0] == '\0' || strchr(layout, '\n') == NULL)
		return;
	p = strchr(layout, '\n') + 1;
	t->delimiter = p - layout == 2 ? layout[0] : '\0';
	for (const char *q = p; *q; q++)
		n += *q == '\n';
	t->key = palloc0(sizeof(WcImportKeyColumn) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		const char *nl = strchr(p, '\n');
		char	   *line = pnstrdup(p, nl - p);
		char	   *f[4];
		int			nf = 0;

		for (char *x = line; nf < 4; nf++)
		{
			f[nf] = x;
			x = strchr(x, '\t');
			if (x == NULL)
			{
				nf++;
				break;
			}
			*x++ = '\0';
		}
		if (nf != 4)
			return;
		t->key[i].name = f[0];
		t->key[i].type = f[1];
		t->key[i].format = f[2];
		t->key[i].reverse = strcmp(f[3], "t") == 0;
		p = nl + 1;
	}
	if ((n > 1) != (t->delimiter != '\0'))
		return;
	t->nkey = n;
}

/* A qualifier of family met in the sample. */
static void
sampled_qualifier(WcImportTable *t, WcImportFamily *f, const uint8 *q, size_t len)
{
	int			lo = 0,
				hi = f->ncols - 1;

	if (!is_text(q, len))
		t->quals_text = false;
	/* the lines are in bytewise order of qualifier */
	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		const char *mq = f->cols[mid].qualifier;
		int			cmp = wc_compare_bytes((const uint8 *) mq, strlen(mq), q, len);

		if (cmp == 0)
		{
			f->cols[mid].seen = true;
			return;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	f->unrecorded = true;
}

/*
 * sample
 *		Read the first rows of t, every family as a map, noting which
 *		recorded columns have cells and whether keys and qualifiers are text.
 */
static void
sample(Oid serverid, uint32 db, uint32 snapshot, WcImportTable *it)
{
	WcTable    *t = wc_get_meta_table(serverid);
	struct WcScanState *scan;
	const uint8 *key;
	size_t		keylen;
	const uint8 **vals;
	size_t	   *lens;

	/* the server's options, and a table of the row key and a map per family */
	t->relname = it->name;
	t->table = it->name;
	t->table_key = palloc(WC_ESCAPED_MAX(strlen(it->name)));
	t->table_key_len = wc_escape((const uint8 *) it->name, strlen(it->name), t->table_key);
	t->natts = 1 + it->nfamilies;
	t->cols = palloc0(sizeof(WcColumn) * t->natts);
	t->cols[0].kind = WC_COL_ROWKEY;
	t->cols[0].name = "rowkey";
	t->cols[0].type = BYTEAOID;
	t->cols[0].typmod = -1;
	for (int i = 0; i < it->nfamilies; i++)
	{
		WcColumn   *col = &t->cols[1 + i];
		const char *family = it->families[i].name;

		col->kind = WC_COL_CELL;
		col->name = (char *) family;
		col->type = JSONBOID;
		col->typmod = -1;
		col->family = (char *) family;
		col->map_type = BYTEAOID;
		col->famqual = palloc(WC_ESCAPED_MAX(strlen(family)));
		col->famqual_len = wc_escape((const uint8 *) family, strlen(family), col->famqual);
	}

	it->keys_text = it->quals_text = it->keys_match = true;
	it->complete = false;
	scan = wc_read_rows_begin(t, db, snapshot);
	for (int rows = 0; rows < WC_IMPORT_SAMPLE_ROWS; rows++)
	{
		if (!wc_read_rows_next(scan, &key, &keylen, &vals, &lens))
		{
			it->complete = true;
			break;
		}
		if (!is_text(key, keylen))
			it->keys_text = false;
		if (it->delimiter != '\0')
		{
			int			parts = 1;

			for (size_t i = 0; i < keylen; i++)
				parts += key[i] == (uint8) it->delimiter;
			if (parts != it->nkey)
				it->keys_match = false;
		}
		for (int i = 0; i < it->nfamilies; i++)
		{
			WcReader	r;
			WcBytes		q,
						v;

			if (vals[i] == NULL)
				continue;
			wc_reader_init(&r, vals[i], lens[i]);
			while (wc_reader_left(&r) > 0)
			{
				if (!wc_read_map_entry(&r, &q, &v))
					ereport(ERROR,
							(errcode(ERRCODE_PROTOCOL_VIOLATION),
							 errmsg("malformed batch from the widecolumn_fdw storage worker")));
				sampled_qualifier(it, &it->families[i], q.data, q.len);
			}
		}
	}
	wc_read_rows_end(scan);
}

/*
 * A name not yet in *used, and that fits a column's name; NULL if taken,
 * or if the table has as many columns as a table can have.
 */
static char *
take_name(List **used, const char *name)
{
	ListCell   *lc;

	if (strlen(name) >= NAMEDATALEN || !is_text((const uint8 *) name, strlen(name)) ||
		list_length(*used) >= MaxHeapAttributeNumber)
		return NULL;
	foreach(lc, *used)
		if (strcmp(lfirst(lc), name) == 0)
			return NULL;
	*used = lappend(*used, (char *) name);
	return (char *) name;
}

/*
 * map_values
 *		The map column's value type: the one type every cell of the family
 *		was recorded with, if a map column can have it; else bytea, which
 *		every cell decodes as.  A recorded column with no cell left in the
 *		whole table does not count.
 */
static const char *
map_values(WcImportTable *t, WcImportFamily *f)
{
	static const char *const map_types[] = {"text", "bigint", "double precision", "jsonb", "bytea"};
	const char *type = f->map_type;

	/* a cell no column recorded: a map column of map_type wrote it, or nothing did */
	if (f->unrecorded && f->map_type == NULL)
		return "bytea";
	for (int i = 0; i < f->ncols; i++)
	{
		/* a column no row has any more has no cells to decode */
		if (!f->cols[i].seen && t->complete)
			continue;
		if (type != NULL && strcmp(type, f->cols[i].type) != 0)
			return "bytea";
		type = f->cols[i].type;
	}
	for (int i = 0; type != NULL && i < lengthof(map_types); i++)
		if (strcmp(type, map_types[i]) == 0)
			return type;
	return "bytea";
}

/* Is type a type of this database? */
static bool
type_exists(const char *type)
{
	Oid			typid;
	int32		typmod;

	parseTypeString(type, &typid, &typmod, true);
	return OidIsValid(typid);
}

/* The collation of a row key or a part of type: text sorts bytewise. */
static const char *
key_collation(const char *type)
{
	Oid			typid;
	int32		typmod;

	parseTypeString(type, &typid, &typmod, false);
	return type_is_collatable(typid) ? " COLLATE \"C\"" : "";
}

/*
 * declare_key
 *		The row key's columns and the table's options for it: the parts of
 *		the recorded layout when every sampled key has as many, else one
 *		column of the recorded type (text only if every sampled key is).
 */
static void
declare_key(WcImportTable *t, List **used, StringInfo cols, StringInfo opts)
{
	bool		parts = t->nkey > 1 && t->keys_match;
	List	   *names = list_copy(*used);

	for (int i = 0; parts && i < t->nkey; i++)
		parts = type_exists(t->key[i].type) && take_name(&names, t->key[i].name) != NULL;
	if (parts)
	{
		for (int i = 0; i < t->nkey; i++)
		{
			WcImportKeyColumn *k = &t->key[i];

			appendStringInfo(cols, "%s  %s %s OPTIONS (rowkey_part '%d'", i > 0 ? ",\n" : "",
							 quote_identifier(k->name), k->type, i + 1);
			if (k->format[0] != '\0')
				appendStringInfo(cols, ", rowkey_format %s", quote_literal_cstr(k->format));
			if (k->reverse)
				appendStringInfoString(cols, ", rowkey_reverse 'true'");
			appendStringInfo(cols, ")%s", key_collation(k->type));
		}
		appendStringInfo(opts, ", rowkey_delimiter %s",
						 quote_literal_cstr(psprintf("%c", t->delimiter)));
		*used = names;
		return;
	}
	{
		const char *name = "rowkey";
		const char *type = t->keys_text ? "text" : "bytea";

		if (t->nkey == 1 && type_exists(t->key[0].type) &&
			(t->keys_text || strcmp(t->key[0].type, "bytea") == 0))
			type = t->key[0].type;
		if (t->nkey == 1 && take_name(used, t->key[0].name) != NULL)
			name = t->key[0].name;
		appendStringInfo(cols, "  %s %s OPTIONS (rowkey 'true')%s", quote_identifier(name), type,
						 key_collation(type));
	}
}

/* The CREATE FOREIGN TABLE of a stored table that maps columns. */
static char *
columns_table(ForeignServer *server, WcImportTable *t)
{
	StringInfoData s;
	StringInfoData opts;
	List	   *used = list_make1("rowkey");	/* no other column may be it */

	initStringInfo(&s);
	initStringInfo(&opts);
	appendStringInfo(&s, "CREATE FOREIGN TABLE %s (\n", quote_identifier(t->name));
	declare_key(t, &used, &s, &opts);

	/*
	 * The map columns' names first: every family has one, but an aggregate
	 * family, whose merges a map column cannot write.
	 */
	for (int i = 0; i < t->nfamilies; i++)
	{
		WcImportFamily *f = &t->families[i];

		if (f->aggregate)
			continue;
		f->map_name = take_name(&used, f->name);
		for (int n = 0; f->map_name == NULL; n++)
			f->map_name = take_name(&used, n == 0 ? psprintf("%s_map", f->name) :
									psprintf("map_%d_%d", i + 1, n));
	}
	for (int i = 0; i < t->nfamilies; i++)
	{
		WcImportFamily *f = &t->families[i];

		for (int c = 0; c < f->ncols; c++)
		{
			WcImportColumn *col = &f->cols[c];

			/* no cell in the whole table: its cells are gone */
			if (col->type[0] == '\0' || (!col->seen && t->complete) ||
				!type_exists(col->type))
				continue;
			col->name = take_name(&used, col->qualifier);
			if (col->name == NULL)
				col->name = take_name(&used, psprintf("%s_%s", f->name, col->qualifier));
		}
	}

	for (int i = 0; i < t->nfamilies; i++)
	{
		WcImportFamily *f = &t->families[i];

		for (int c = 0; c < f->ncols; c++)
			if (f->cols[c].name != NULL)
				appendStringInfo(&s, ",\n  %s %s OPTIONS (column %s)",
								 quote_identifier(f->cols[c].name), f->cols[c].type,
								 quote_literal_cstr(psprintf("%s:%s", f->name, f->cols[c].qualifier)));
	}
	for (int i = 0; i < t->nfamilies; i++)
		if (t->families[i].map_name != NULL)
			appendStringInfo(&s, ",\n  %s jsonb OPTIONS (family %s, map_values %s)",
							 quote_identifier(t->families[i].map_name),
							 quote_literal_cstr(t->families[i].name),
							 quote_literal_cstr(map_values(t, &t->families[i])));
	appendStringInfo(&s, "\n) SERVER %s OPTIONS (table %s%s)",
					 quote_identifier(server->servername), quote_literal_cstr(t->name), opts.data);
	return s.data;
}

/* The CREATE FOREIGN TABLE of a stored table's cells. */
static char *
cells_table(ForeignServer *server, WcImportTable *t)
{
	return psprintf("CREATE FOREIGN TABLE %s (\n"
					"  rowkey %s,\n"
					"  family text COLLATE \"C\",\n"
					"  qualifier %s,\n"
					"  ts timestamptz,\n"
					"  value bytea\n"
					") SERVER %s OPTIONS (table %s, layout 'cells')",
					quote_identifier(t->name),
					t->keys_text ? "text COLLATE \"C\"" : "bytea",
					t->quals_text ? "text COLLATE \"C\"" : "bytea",
					quote_identifier(server->servername), quote_literal_cstr(t->name));
}

/* Does the statement's LIMIT TO or EXCEPT let name through? */
static bool
wanted(ImportForeignSchemaStmt *stmt, const char *name)
{
	ListCell   *lc;
	bool		listed = false;

	foreach(lc, stmt->table_list)
		listed |= strcmp(((RangeVar *) lfirst(lc))->relname, name) == 0;
	switch (stmt->list_type)
	{
		case FDW_IMPORT_SCHEMA_ALL:
			return true;
		case FDW_IMPORT_SCHEMA_LIMIT_TO:
			return listed;
		case FDW_IMPORT_SCHEMA_EXCEPT:
			return !listed;
	}
	return true;
}

/*
 * wcImportForeignSchema
 *		The CREATE FOREIGN TABLE commands of the server's stored tables:
 *		those with families listed, in byte order of their names.
 *
 * A stored table's name is the foreign table's, so one whose name is not
 * text or is too long for a name is left out.  PostgreSQL applies LIMIT
 * TO and EXCEPT to the commands again; applying them here spares the
 * sampling of tables it would drop.
 */
List *
wcImportForeignSchema(ImportForeignSchemaStmt *stmt, Oid serverOid)
{
	ForeignServer *server = GetForeignServer(serverOid);
	bool		cells = strcmp(stmt->remote_schema, "cells") == 0;
	WcTable    *meta = wc_coltypes_meta_table(serverOid);
	List	   *tables = NIL;
	List	   *commands = NIL;
	ListCell   *lc;
	const uint8 *key;
	size_t		keylen;
	const uint8 **vals;
	size_t	   *lens;
	uint32		db;
	uint32		snapshot;
	struct WcScanState *scan;

	db = wc_client_open_db(meta);
	snapshot = wc_client_snapshot_acquire(db);
	scan = wc_read_rows_begin(meta, db, snapshot);
	while (wc_read_rows_next(scan, &key, &keylen, &vals, &lens))
	{
		WcImportTable *t;
		char	   *families;
		char	   *layout;
		char	   *record = wc_coltypes_parse(vals[0], lens[0], &families, &layout);
		char	   *name = pnstrdup((const char *) key, keylen);

		if (families == NULL || keylen >= NAMEDATALEN || !is_text(key, keylen) ||
			!wanted(stmt, name))
			continue;
		t = palloc0(sizeof(WcImportTable));
		t->name = name;
		add_families(t, families);
		if (t->nfamilies == 0)
			continue;			/* every family dropped: no data */
		add_record(t, record);
		add_key(t, layout);
		tables = lappend(tables, t);
	}
	wc_read_rows_end(scan);

	foreach(lc, tables)
	{
		WcImportTable *t = lfirst(lc);

		sample(serverOid, db, snapshot, t);
		commands = lappend(commands, cells ? cells_table(server, t) : columns_table(server, t));
	}
	wc_client_snapshot_release(snapshot);
	return commands;
}
