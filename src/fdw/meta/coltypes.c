/*-------------------------------------------------------------------------
 *
 * coltypes.c
 *	  The SQL type of each column written through a foreign table, recorded
 *	  in the stored table's metadata, so that IMPORT FOREIGN SCHEMA
 *	  (import.c) declares the columns without guessing from bytes.
 *
 * A cell holds bytes; which SQL type wrote them is known only to the
 * foreign table that wrote them.  So each COMMIT records, for every family
 * it wrote through a foreign table, the type of each column it wrote: the
 * cell WC_META_TYPES<family> of the table's row in the table of families
 * (docs/format.md), a line "qualifier<TAB>type" per column, sorted
 * bytewise, the type as format_type writes it (schema-qualified unless it
 * is one of pg_catalog's).  A map column's type (its map_values) is the
 * line with the empty qualifier.  A qualifier written with two types keeps
 * a line with an empty type: its cells do not decode as one type.
 *
 * The row key's layout is recorded too, in the cell WC_META_ROWKEY: the
 * delimiter on its first line (empty for a key of one column), then a line
 * "name<TAB>type<TAB>rowkey_format<TAB>t|f" (rowkey_reverse) per key
 * column in part order.  Foreign tables whose layouts differ in more than
 * the names leave it empty: the keys do not read as one layout.
 *
 * The cells sort after wc:families, which a reader of the row's policies
 * takes as its last cell (worker/tablemeta.c): readers before 0.5.0, and
 * the worker, never meet them.
 *
 * A Bigtable server keeps no record (IMPORT FOREIGN SCHEMA there reads
 * Bigtable's families instead).
 *
 * The write costs nothing once the record has every column: a session
 * keeps what it read last and trusts it while no commit has changed a
 * family list (WcShared.family_changes), as families.c does its lists.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "common/shmem.h"
#include "fdw/fdw.h"
#include "fdw/meta/meta.h"
#include "fdw/model/model.h"
#include "fdw/read/read.h"
#include "fdw/xact/xact.h"

/* A column of a foreign table that wrote in this transaction. */
typedef struct WcNotedColumn
{
	Oid			relid;			/* the foreign table */
	Oid			serverid;
	char	   *table;
	char	   *family;
	char	   *qualifier;		/* "" for a map column */
	char	   *type;
	uint8	   *famqual;		/* escaped; a map column's: the family */
	size_t		famqual_len;
} WcNotedColumn;

/* The row-key layout of a foreign table that wrote in this transaction. */
typedef struct WcNotedKey
{
	Oid			relid;
	Oid			serverid;
	char	   *table;
	char	   *layout;
} WcNotedKey;

/* in TopTransactionContext: the columns, the keys, the tables they are of */
static List *noted = NIL;
static List *noted_keys = NIL;
static List *noted_rels = NIL;

/* The record a session read last, per stored table (in TopMemoryContext). */
typedef struct WcKnownTypes
{
	Oid			serverid;
	char	   *table;
	char	   *record;			/* "family<TAB>qualifier<TAB>type\n" lines */
	char	   *key;			/* the row key's layout, or NULL */
	uint64		changes;
} WcKnownTypes;

static List *known = NIL;

/*
 * type_text
 *		The type as IMPORT will declare it: pg_catalog's types by their SQL
 *		names, others qualified, since the importing session's search_path
 *		may be another.
 */
static char *
type_text(Oid type, int32 typmod)
{
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(type));
	Oid			nsp;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for type %u", type);
	nsp = ((Form_pg_type) GETSTRUCT(tup))->typnamespace;
	ReleaseSysCache(tup);
	if (nsp == PG_CATALOG_NAMESPACE)
		return format_type_with_typemod(type, typmod);
	return format_type_extended(type, typmod,
								FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY);
}

/* Can text be a field of a line? */
static bool
recordable(const char *s)
{
	return strchr(s, '\t') == NULL && strchr(s, '\n') == NULL;
}

/*
 * key_layout
 *		t's row-key layout as the cell WC_META_ROWKEY holds it; NULL if a
 *		name or type cannot be a field.
 */
static char *
key_layout(WcTable *t)
{
	StringInfoData s;
	int			n = t->nparts > 0 ? t->nparts : 1;

	initStringInfo(&s);
	if (t->nparts > 0 && t->delimiter != '\0')
		appendStringInfoChar(&s, t->delimiter);
	appendStringInfoChar(&s, '\n');
	for (int i = 0; i < n; i++)
	{
		WcColumn   *c = &t->cols[(t->nparts > 0 ? t->part_attnum[i] : t->rowkey_attnum) - 1];
		char	   *type = type_text(c->type, c->typmod);

		if (!recordable(c->name) || !recordable(type))
			return NULL;
		appendStringInfo(&s, "%s\t%s\t%s\t%s\n", c->name, type,
						 c->rowkey_format ? wc_keyformat_text(c->rowkey_format) : "",
						 c->rowkey_reverse ? "t" : "f");
	}
	return s.data;
}

/*
 * A layout without its columns' names: what the keys' bytes depend on.
 * (A stored one that is not what key_layout writes is compared whole.)
 */
static char *
key_shape(const char *layout)
{
	StringInfoData s;
	const char *p = layout;

	initStringInfo(&s);
	while (*p)
	{
		const char *nl = strchr(p, '\n');
		const char *tab = strchr(p, '\t');

		if (nl == NULL)
			nl = p + strlen(p) - 1;
		if (p == layout || tab == NULL || tab > nl)
			tab = p;			/* the delimiter's line */
		appendBinaryStringInfo(&s, tab, nl + 1 - tab);
		p = nl + 1;
	}
	return s.data;
}

/*
 * wc_coltypes_note
 *		A statement begins to write through foreign table t: its columns'
 *		types are recorded at COMMIT for those it wrote.
 */
void
wc_coltypes_note(WcTable *t)
{
	MemoryContext old;

	/* once a transaction: a load of many statements pays for it once */
	if (t->table[0] == '\0' || list_member_oid(noted_rels, t->relid))
		return;

	/*
	 * Bigtable has no place for the record, so it would never be read back
	 * and be written again by every COMMIT, each one counted as a change
	 * of family lists that every session then reads again.
	 */
	if (t->engine == WC_ENGINE_BIGTABLE)
		return;
	old = MemoryContextSwitchTo(TopTransactionContext);
	noted_rels = lappend_oid(noted_rels, t->relid);
	{
		char	   *layout = key_layout(t);

		if (layout != NULL)
		{
			WcNotedKey *k = palloc(sizeof(WcNotedKey));

			k->relid = t->relid;
			k->serverid = t->serverid;
			k->table = pstrdup(t->table);
			k->layout = layout;
			noted_keys = lappend(noted_keys, k);
		}
	}
	for (int a = 1; a <= t->natts; a++)
	{
		WcColumn   *col = &t->cols[a - 1];
		bool		map = col->map_type != InvalidOid;
		const char *qualifier = map ? "" : col->qualifier;
		char	   *type;
		WcNotedColumn *n;

		if (col->kind != WC_COL_CELL || (!map && qualifier[0] == '\0') ||
			!recordable(qualifier))
			continue;
		type = map ? format_type_be(col->map_type) : type_text(col->type, col->typmod);
		if (!recordable(type))
			continue;
		n = palloc(sizeof(WcNotedColumn));
		n->relid = t->relid;
		n->serverid = t->serverid;
		n->table = pstrdup(t->table);
		n->family = pstrdup(col->family);
		n->qualifier = pstrdup(qualifier);
		n->type = type;
		n->famqual = palloc(col->famqual_len);
		memcpy(n->famqual, col->famqual, col->famqual_len);
		n->famqual_len = col->famqual_len;
		noted = lappend(noted, n);
	}
	MemoryContextSwitchTo(old);
}

/* The transaction has ended (its memory went with it). */
void
wc_coltypes_reset(void)
{
	noted = NIL;
	noted_keys = NIL;
	noted_rels = NIL;
}

/* The escaped "wc" and qualifier q of a cell of the table's row. */
static uint8 *
meta_cell(const char *q, size_t *len)
{
	uint8	   *fq = palloc(WC_ESCAPED_MAX(2) + WC_ESCAPED_MAX(strlen(q)));

	*len = wc_escape((const uint8 *) WC_META_FAMILY, 2, fq);
	*len += wc_escape((const uint8 *) q, strlen(q), fq + *len);
	return fq;
}

/* The escaped "wc" "types:<family>" of family's record. */
uint8 *
wc_coltypes_cell(const char *family, size_t *len)
{
	return meta_cell(psprintf("%s%s", WC_META_TYPES, family), len);
}

/*
 * wc_coltypes_meta_table
 *		The table of families with every cell of family "wc" of a row as
 *		one map value (packed, wire.h): the family list, the drop markers
 *		and the records of types.
 */
WcTable *
wc_coltypes_meta_table(Oid serverid)
{
	WcTable    *meta = wc_get_meta_table(serverid);
	WcColumn   *col = &meta->cols[1];

	col->name = "wc";
	col->type = JSONBOID;
	col->family = WC_META_FAMILY;
	col->qualifier = NULL;
	col->map_type = BYTEAOID;
	col->famqual = palloc(WC_ESCAPED_MAX(2));
	col->famqual_len = wc_escape((const uint8 *) WC_META_FAMILY, 2, col->famqual);
	return meta;
}

/*
 * wc_coltypes_parse
 *		The records of types in a packed "wc" map value of a table's row, as
 *		"family<TAB>qualifier<TAB>type\n" lines in (family, qualifier) order;
 *		the family list (*families, NULL if there is none) and the row
 *		key's layout (*key, NULL if it has none, "" if foreign tables
 *		disagree).
 */
char *
wc_coltypes_parse(const uint8 *data, size_t len, char **families, char **key)
{
	WcReader	r;
	WcBytes		q,
				v;
	StringInfoData out;
	size_t		plen = strlen(WC_META_TYPES);

	initStringInfo(&out);
	if (families)
		*families = NULL;
	*key = NULL;
	if (data == NULL)
		return out.data;
	wc_reader_init(&r, data, len);
	while (wc_reader_left(&r) > 0)
	{
		if (!wc_read_map_entry(&r, &q, &v))
			ereport(ERROR,
					(errcode(ERRCODE_PROTOCOL_VIOLATION),
					 errmsg("malformed batch from the widecolumn_fdw storage worker")));
		if (families && q.len == strlen("families") && memcmp(q.data, "families", q.len) == 0)
			*families = pnstrdup((const char *) v.data, v.len);
		else if (q.len == strlen(WC_META_ROWKEY) && memcmp(q.data, WC_META_ROWKEY, q.len) == 0)
			*key = pnstrdup((const char *) v.data, v.len);
		else if (q.len > plen && memcmp(q.data, WC_META_TYPES, plen) == 0)
		{
			const char *p = (const char *) v.data;
			const char *end = p + v.len;

			/* the entries come in qualifier order, so families in order */
			while (p < end)
			{
				const char *nl = memchr(p, '\n', end - p);

				if (nl == NULL)
					nl = end;
				if (memchr(p, '\t', nl - p) != NULL)
				{
					appendBinaryStringInfo(&out, (const char *) q.data + plen, q.len - plen);
					appendStringInfoChar(&out, '\t');
					appendBinaryStringInfo(&out, p, nl - p);
					appendStringInfoChar(&out, '\n');
				}
				p = nl + 1;
			}
		}
	}
	return out.data;
}

/* The line "family<TAB>qualifier<TAB>" begins a line of record: its type, or NULL. */
static char *
recorded_type(const char *record, const char *family, const char *qualifier)
{
	char	   *prefix = psprintf("%s\t%s\t", family, qualifier);
	size_t		plen = strlen(prefix);
	const char *p = record;

	while (*p)
	{
		const char *nl = strchr(p, '\n');

		if (strncmp(p, prefix, plen) == 0)
			return pnstrdup(p + plen, nl - p - plen);
		p = nl + 1;
	}
	return NULL;
}

/* The record of table now, with this transaction's changes. */
static char *
read_record(Oid serverid, const char *table, char **key)
{
	WcTable    *meta = wc_coltypes_meta_table(serverid);
	const uint8 **vals;
	size_t	   *lens;

	if (wc_read_row_now(meta, (const uint8 *) table, strlen(table), &vals, &lens))
		return wc_coltypes_parse(vals[0], lens[0], NULL, key);
	*key = NULL;
	return pstrdup("");
}

/*
 * Does the recorded layout say what layout does?  A layout of other
 * names says the same; a conflict ("") stays one.
 */
static bool
key_has(const char *recorded, const char *layout)
{
	if (layout == NULL)
		return true;
	if (recorded == NULL)
		return false;
	return recorded[0] == '\0' || strcmp(key_shape(recorded), key_shape(layout)) == 0;
}

/* Write the row key's layout, in the transaction. */
static void
put_key(WcTable *meta, const char *table, const char *layout)
{
	WcTxnCell	cell;

	cell.famqual = meta_cell(WC_META_ROWKEY, &cell.famqual_len);
	cell.value = (const uint8 *) layout;
	cell.value_len = strlen(layout);
	cell.merge = 0;
	wc_txn_put_row(meta, GetCurrentCommandId(true), (const uint8 *) table, strlen(table),
				   false, 1, &cell);
}

/*
 * put_family
 *		Write family's record: its lines of record (family's own) with each
 *		of the written columns' type set, in the transaction.
 */
static void
put_family(WcTable *meta, const char *table, const char *family, const char *record,
		   List *written)
{
	List	   *lines = NIL;
	ListCell   *lc;
	const char *p = record;
	size_t		flen = strlen(family);
	StringInfoData value;
	WcTxnCell	cell;

	/* family's lines, as "qualifier<TAB>type" */
	while (*p)
	{
		const char *nl = strchr(p, '\n');

		if (strncmp(p, family, flen) == 0 && p[flen] == '\t')
			lines = lappend(lines, pnstrdup(p + flen + 1, nl - p - flen - 1));
		p = nl + 1;
	}
	foreach(lc, written)
	{
		WcNotedColumn *n = lfirst(lc);
		char	   *prefix = psprintf("%s\t", n->qualifier);
		ListCell   *lc2;
		bool		found = false;

		if (strcmp(n->family, family) != 0)
			continue;
		foreach(lc2, lines)
		{
			char	   *line = lfirst(lc2);

			if (strncmp(line, prefix, strlen(prefix)) != 0)
				continue;
			found = true;
			/* another type: the cells no longer decode as one */
			if (strcmp(line + strlen(prefix), n->type) != 0)
				lfirst(lc2) = prefix;
		}
		if (!found)
			lines = lappend(lines, psprintf("%s%s", prefix, n->type));
	}
	list_sort(lines, (list_sort_comparator) pg_qsort_strcmp);

	initStringInfo(&value);
	foreach(lc, lines)
		appendStringInfo(&value, "%s\n", (char *) lfirst(lc));
	cell.famqual = wc_coltypes_cell(family, &cell.famqual_len);
	cell.value = (const uint8 *) value.data;
	cell.value_len = value.len;
	cell.merge = 0;
	wc_txn_put_row(meta, GetCurrentCommandId(true), (const uint8 *) table, strlen(table),
				   false, 1, &cell);
}

/* Does record have every column of written with its type (or a conflict)? */
static bool
record_has(const char *record, List *written)
{
	ListCell   *lc;

	foreach(lc, written)
	{
		WcNotedColumn *n = lfirst(lc);
		char	   *type = recorded_type(record, n->family, n->qualifier);

		if (type == NULL || (type[0] != '\0' && strcmp(type, n->type) != 0))
			return false;
	}
	return true;
}

/*
 * wc_coltypes_written
 *		Before COMMIT sends the writes, and before families.c share-locks
 *		the table's row: record the types of the columns the transaction
 *		wrote to tt through foreign tables (families: the families it wrote
 *		to, which say whether a map column did).
 */
void
wc_coltypes_written(WcTxnTable *tt, const char **families, int nfamilies)
{
	List	   *written = NIL;
	List	   *changed = NIL;
	ListCell   *lc;
	WcKnownTypes *k = NULL;
	uint64		changes;
	WcTable    *meta;
	char	   *record;
	char	   *key;
	char	   *layout = NULL;

	foreach(lc, noted)
	{
		WcNotedColumn *n = lfirst(lc);
		bool		wrote = false;

		if (n->serverid != tt->serverid || strcmp(n->table, tt->table) != 0)
			continue;
		if (n->qualifier[0] != '\0')
			wrote = wc_txn_wrote_cell(tt, n->famqual, n->famqual_len);
		else
			for (int i = 0; i < nfamilies; i++)
				wrote |= strcmp(families[i], n->family) == 0;
		if (wrote)
			written = lappend(written, n);
	}
	if (written == NIL)
		return;

	/* the layouts of the keys that the tables which wrote cells wrote */
	foreach(lc, noted_keys)
	{
		WcNotedKey *nk = lfirst(lc);
		ListCell   *lc2;
		bool		wrote = false;

		foreach(lc2, written)
			wrote |= ((WcNotedColumn *) lfirst(lc2))->relid == nk->relid;
		if (!wrote)
			continue;
		if (layout == NULL)
			layout = nk->layout;
		else if (!key_has(layout, nk->layout))
			layout = "";
	}

	foreach(lc, known)
	{
		WcKnownTypes *x = lfirst(lc);

		if (x->serverid == tt->serverid && strcmp(x->table, tt->table) == 0)
			k = x;
	}
	if (k == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		k = palloc0(sizeof(WcKnownTypes));
		k->serverid = tt->serverid;
		k->table = pstrdup(tt->table);
		k->record = pstrdup("");
		k->changes = PG_UINT64_MAX;
		known = lappend(known, k);
		MemoryContextSwitchTo(old);
	}

	/* the count before the record, so that a change in between is seen */
	changes = pg_atomic_read_u64(&wc_shared->family_changes);
	if (k->changes == changes && record_has(k->record, written) && key_has(k->key, layout))
		return;
	record = read_record(tt->serverid, tt->table, &key);
	pfree(k->record);
	k->record = MemoryContextStrdup(TopMemoryContext, record);
	if (k->key)
		pfree(k->key);
	k->key = key ? MemoryContextStrdup(TopMemoryContext, key) : NULL;
	k->changes = changes;
	if (record_has(record, written) && key_has(key, layout))
		return;

	/* a change: lock the row as families.c does for one, then read again */
	meta = wc_get_meta_table(tt->serverid);
	(void) wc_txn_lock_row(meta, (const uint8 *) tt->table, strlen(tt->table),
						   ExclusiveLock, LockWaitBlock);
	record = read_record(tt->serverid, tt->table, &key);
	if (!key_has(key, layout))
		put_key(meta, tt->table, key == NULL ? layout : "");
	foreach(lc, written)
	{
		WcNotedColumn *n = lfirst(lc);
		ListCell   *lc2;
		bool		listed = false;

		foreach(lc2, changed)
			listed |= strcmp(lfirst(lc2), n->family) == 0;
		if (!listed && !record_has(record, list_make1(n)))
			changed = lappend(changed, n->family);
	}
	foreach(lc, changed)
		put_family(meta, tt->table, lfirst(lc), record, written);
	/* what this transaction writes is not stored until it commits */
	k->changes = PG_UINT64_MAX;
}
