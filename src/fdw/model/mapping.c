/*-------------------------------------------------------------------------
 *
 * mapping.c
 *	  A foreign table's mapping, read from the catalogs into a WcTable.
 *
 * The server's options say where the data is and how LevelDB keeps it;
 * the table's options name the stored table; each column's options say
 * whether it is the row key, a part of it, a cell (family:qualifier) or a
 * whole family as a map (mapcolumn.c).
 * The validator (option.c) has checked each option alone; what only the
 * whole table can show (exactly one row key, parts without gaps) is
 * checked here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "fdw/fdw.h"
#include "fdw/model/model.h"

/*
 * Defaults of the server's LevelDB settings.  The block cache holds
 * uncompressed blocks: the benchmark's 1,000,000 rows take about 200 MB of
 * them, and with a smaller cache random prefix scans spend their time
 * decompressing blocks again.  It grows only as blocks are read.
 */
#define WC_DEFAULT_CACHE_MB			256
#define WC_DEFAULT_WRITE_BUFFER_MB	16
#define WC_DEFAULT_BLOOM_BITS		10
#define WC_DEFAULT_FAMILY			"cf"

static uint8 *
escape_str(const char *s, size_t len, size_t *outlen)
{
	uint8	   *buf = palloc(WC_ESCAPED_MAX(len));

	*outlen = wc_escape((const uint8 *) s, len, buf);
	return buf;
}

/* Bigtable's public endpoint, where neither option nor environment names one. */
#define WC_BIGTABLE_ENDPOINT		"bigtable.googleapis.com:443"
#define WC_BIGTABLE_TIMEOUT_MS		30000

/*
 * read_bigtable_options
 *		A Bigtable server's instance and how to reach it.  With no option
 *		endpoint, BIGTABLE_EMULATOR_HOST in the server's environment (as
 *		Google's clients read it) names an emulator, reached with no
 *		credentials by default; else Bigtable's own endpoint with Google's
 *		application-default credentials.
 */
static void
read_bigtable_options(WcTable *t, ForeignServer *server)
{
	WcBigtableServer *bt = palloc0(sizeof(WcBigtableServer));
	const char *emulator = getenv("BIGTABLE_EMULATOR_HOST");
	bool		have_credentials = false;
	ListCell   *lc;

	bt->timeout_ms = WC_BIGTABLE_TIMEOUT_MS;
	foreach(lc, server->options)
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, "project") == 0)
			bt->project = defGetString(def);
		else if (strcmp(def->defname, "instance") == 0)
			bt->instance = defGetString(def);
		else if (strcmp(def->defname, "endpoint") == 0)
			bt->endpoint = defGetString(def);
		else if (strcmp(def->defname, "credentials") == 0)
		{
			bt->insecure = wc_parse_credentials_insecure(def);
			have_credentials = true;
		}
		else if (strcmp(def->defname, "app_profile") == 0)
			bt->app_profile = defGetString(def);
		else if (strcmp(def->defname, "timeout") == 0)
			bt->timeout_ms = wc_parse_timeout(def);
	}
	if (bt->endpoint == NULL && emulator != NULL && emulator[0] != '\0')
	{
		bt->endpoint = pstrdup(emulator);
		if (!have_credentials)
			bt->insecure = true;
	}
	else if (bt->endpoint == NULL)
		bt->endpoint = WC_BIGTABLE_ENDPOINT;
	t->bigtable = bt;
	/*
	 * The worker keeps one channel per path, with the settings of the
	 * OPEN that made it: two servers of one instance that differ in how
	 * they reach it, or a server whose options were altered, get their own.
	 */
	t->path = psprintf("%s/projects/%s/instances/%s?credentials=%s&app_profile=%s&timeout=%dms",
					   bt->endpoint, bt->project, bt->instance,
					   bt->insecure ? "insecure" : "google_default",
					   bt->app_profile ? bt->app_profile : "", bt->timeout_ms);
}

/*
 * read_server_options
 *		Where the server's database is, and its engine's settings.
 */
static void
read_server_options(WcTable *t, ForeignServer *server)
{
	ListCell   *lc;

	t->serverid = server->serverid;
	t->engine = WC_ENGINE_LEVELDB;
	t->bigtable = NULL;
	foreach(lc, server->options)
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, "engine") == 0)
			t->engine = wc_parse_engine(def);
	}
	if (t->engine == WC_ENGINE_BIGTABLE)
	{
		read_bigtable_options(t, server);
		return;
	}

	t->sync = true;
	t->cache_mb = WC_DEFAULT_CACHE_MB;
	t->write_buffer_mb = WC_DEFAULT_WRITE_BUFFER_MB;
	t->bloom_bits = WC_DEFAULT_BLOOM_BITS;
	t->compression = true;
	/*
	 * The database's OID too: CREATE DATABASE ... TEMPLATE copies a server
	 * with its OID, and the copy must not share the original's data.
	 */
	t->path = psprintf("widecolumn_fdw/%u-%u", MyDatabaseId, server->serverid);

	foreach(lc, server->options)
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, "path") == 0)
			t->path = defGetString(def);
		else if (strcmp(def->defname, "sync") == 0)
			t->sync = defGetBoolean(def);
		else if (strcmp(def->defname, "block_cache_size") == 0)
			t->cache_mb = wc_parse_size_option(def, 0, 65536);
		else if (strcmp(def->defname, "write_buffer_size") == 0)
			t->write_buffer_mb = wc_parse_size_option(def, 1, 1024);
		else if (strcmp(def->defname, "bloom_bits") == 0)
			t->bloom_bits = wc_parse_size_option(def, 0, 64);
		else if (strcmp(def->defname, "compression") == 0)
			t->compression = wc_parse_compression(def);
	}
}

/*
 * read_table_options
 *		The stored table's name and the row-key delimiter; returns the
 *		family of the cells whose columns name none.
 */
static const char *
read_table_options(WcTable *t, ForeignTable *ft)
{
	const char *family = WC_DEFAULT_FAMILY;
	ListCell   *lc;

	t->table = t->relname;
	foreach(lc, ft->options)
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, "table") == 0)
			t->table = defGetString(def);
		else if (strcmp(def->defname, "family") == 0)
			family = defGetString(def);
		else if (strcmp(def->defname, "rowkey_delimiter") == 0)
			t->delimiter = wc_parse_delimiter(def);
	}
	t->table_key = escape_str(t->table, strlen(t->table), &t->table_key_len);
	return family;
}

/*
 * map_part
 *		Column col is row-key part number part.
 */
static void
map_part(WcTable *t, WcColumn *col, int attnum, int part, bool rowkey,
		 const char *spec)
{
	if (rowkey)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("column \"%s\" of foreign table \"%s\" cannot be both a row-key part and the row key",
						col->name, t->relname)));
	if (spec != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("column \"%s\" of foreign table \"%s\" cannot be both a row-key part and a cell",
						col->name, t->relname)));
	if (!wc_segment_type_ok(col->type))
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
				 errmsg("row-key part \"%s\" of foreign table \"%s\" has type %s",
						col->name, t->relname, format_type_be(col->type)),
				 errdetail("A row-key part must be of type text, varchar, smallint, integer, bigint, date, timestamp or timestamptz.")));
	if (col->rowkey_reverse && !wc_segment_fixed_width(col->type))
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("option \"rowkey_reverse\" of column \"%s\" needs a date or timestamp column",
						col->name)));
	if (col->rowkey_reverse && col->type != DATEOID &&
		col->type != TIMESTAMPOID && col->type != TIMESTAMPTZOID)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("option \"rowkey_reverse\" of column \"%s\" needs a date or timestamp column",
						col->name)));
	wc_keyformat_check(t, col);
	if (part > t->nparts)
	{
		t->part_attnum = t->part_attnum ?
			repalloc(t->part_attnum, sizeof(int) * part) : palloc(sizeof(int) * part);
		for (int p = t->nparts; p < part; p++)
			t->part_attnum[p] = 0;
		t->nparts = part;
	}
	if (t->part_attnum[part - 1] != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("foreign table \"%s\" has two columns for row-key part %d",
						t->relname, part)));
	t->part_attnum[part - 1] = attnum;
	col->kind = WC_COL_PART;
	col->rowkey_part = part;
}

/*
 * map_cell
 *		Column col is a cell: the one spec names (family:qualifier), or by
 *		default the column's name in the table's family.
 */
static void
map_cell(WcColumn *col, const char *spec, const char *family)
{
	size_t		flen;
	size_t		qlen;

	col->kind = WC_COL_CELL;
	if (spec != NULL)
	{
		char	   *colon = strchr(spec, ':');

		col->family = pnstrdup(spec, colon - spec);
		col->qualifier = pstrdup(colon + 1);
	}
	else
	{
		col->family = pstrdup(family);
		col->qualifier = col->name;
	}
	flen = strlen(col->family);
	qlen = strlen(col->qualifier);
	col->famqual = palloc(WC_ESCAPED_MAX(flen) + WC_ESCAPED_MAX(qlen));
	col->famqual_len = wc_escape((const uint8 *) col->family, flen, col->famqual);
	col->famqual_len += wc_escape((const uint8 *) col->qualifier, qlen,
								  col->famqual + col->famqual_len);
}

/*
 * map_family
 *		Column col is a map of a whole family: its one key component on the
 *		wire asks for every cell of the family.
 */
static void
map_family(WcTable *t, WcColumn *col, const char *family, Oid map_type)
{
	size_t		flen = strlen(family);

	if (col->type != JSONBOID)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
				 errmsg("map column \"%s\" of foreign table \"%s\" has type %s",
						col->name, t->relname, format_type_be(col->type)),
				 errdetail("A column with option \"family\" holds the whole family as a jsonb object, so it must be of type jsonb.")));
	col->kind = WC_COL_CELL;
	col->family = pstrdup(family);
	col->qualifier = NULL;
	col->map_type = map_type;
	col->famqual = palloc(WC_ESCAPED_MAX(flen));
	col->famqual_len = wc_escape((const uint8 *) family, flen, col->famqual);
}

/*
 * map_column
 *		What column att of t is, from its options.  Returns true if it is a
 *		cell named "rowkey" that did not say it is not the row key.
 */
static bool
map_column(WcTable *t, Form_pg_attribute att, const char *family)
{
	WcColumn   *col = &t->cols[att->attnum - 1];
	bool		rowkey = false;
	bool		rowkey_said = false;
	char	   *spec = NULL;
	char	   *map_family_name = NULL;
	Oid			map_type = TEXTOID;
	int			part = 0;
	ListCell   *lc;

	if (att->attisdropped)
	{
		col->kind = WC_COL_DROPPED;
		return false;
	}
	col->name = pstrdup(NameStr(att->attname));
	/* a domain is stored as its base type */
	col->typmod = att->atttypmod;
	col->type = getBaseTypeAndTypmod(att->atttypid, &col->typmod);
	col->collation = att->attcollation;
	foreach(lc, GetForeignColumnOptions(t->relid, att->attnum))
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, "rowkey") == 0)
		{
			rowkey = defGetBoolean(def);
			rowkey_said = true;
		}
		else if (strcmp(def->defname, "column") == 0)
			spec = defGetString(def);
		else if (strcmp(def->defname, "rowkey_part") == 0)
			part = wc_parse_size_option(def, 1, WC_MAX_ROWKEY_PARTS);
		else if (strcmp(def->defname, "rowkey_reverse") == 0)
			col->rowkey_reverse = defGetBoolean(def);
		else if (strcmp(def->defname, "rowkey_format") == 0)
			col->rowkey_format = wc_keyformat_parse(defGetString(def));
		else if (strcmp(def->defname, "family") == 0)
			map_family_name = defGetString(def);
		else if (strcmp(def->defname, "map_values") == 0)
			map_type = wc_parse_map_values(def);
	}
	/* the validator refuses "family" beside the key's and cell's options */
	if (map_family_name != NULL)
	{
		map_family(t, col, map_family_name, map_type);
		return false;
	}
	if (part > 0)
	{
		map_part(t, col, att->attnum, part, rowkey, spec);
		return false;
	}
	if (col->rowkey_reverse)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("option \"rowkey_reverse\" of column \"%s\" needs option \"rowkey_part\"",
						col->name)));
	if (col->rowkey_format)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("option \"rowkey_format\" of column \"%s\" needs option \"rowkey_part\"",
						col->name)));
	if (rowkey)
	{
		if (t->rowkey_attnum != 0)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
					 errmsg("foreign table \"%s\" has more than one row-key column", t->relname),
					 errdetail("Columns \"%s\" and \"%s\" both have OPTIONS (rowkey 'true').",
							   t->cols[t->rowkey_attnum - 1].name, col->name),
					 errhint("A row key made of several parts is one text column; mark only one column.")));
		if (spec != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
					 errmsg("row-key column \"%s\" of foreign table \"%s\" cannot also have option \"column\"",
							col->name, t->relname)));
		col->kind = WC_COL_ROWKEY;
		t->rowkey_attnum = att->attnum;
		return false;
	}
	map_cell(col, spec, family);
	/* a column named rowkey is the row key, unless it says it is not */
	return strcmp(col->name, "rowkey") == 0 && spec == NULL && !rowkey_said;
}

/*
 * check_rowkey
 *		The table has a row key: one column, or parts numbered without gaps
 *		with a delimiter.  named_rowkey is the column named "rowkey", or 0.
 */
static void
check_rowkey(WcTable *t, int named_rowkey)
{
	Oid			kt;

	if (t->nparts > 0)
	{
		if (t->rowkey_attnum != 0)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
					 errmsg("foreign table \"%s\" has both a row-key column and row-key parts",
							t->relname),
					 errhint("Map the row key either as one column or as its parts.")));
		for (int p = 0; p < t->nparts; p++)
			if (t->part_attnum[p] == 0)
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("foreign table \"%s\" has no column for row-key part %d",
								t->relname, p + 1),
						 errdetail("Row-key parts must be numbered 1, 2, 3, ... without gaps.")));
		/* one part has nothing to delimit: no delimiter is stored */
		if (t->delimiter == '\0' && t->nparts > 1)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
					 errmsg("foreign table \"%s\" has row-key parts but no option \"rowkey_delimiter\"",
							t->relname),
					 errdetail("The stored row key is its %d parts joined by the delimiter.", t->nparts),
					 errhint("Add OPTIONS (rowkey_delimiter '#') to the table.")));
		return;
	}
	if (t->delimiter != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("foreign table \"%s\" has option \"rowkey_delimiter\" but no row-key parts",
						t->relname),
				 errhint("Mark the columns that are segments of the row key with OPTIONS (rowkey_part 'n').")));

	/* Without a marked column, a column named "rowkey" is the row key. */
	if (t->rowkey_attnum == 0 && named_rowkey != 0)
	{
		t->rowkey_attnum = named_rowkey;
		t->cols[named_rowkey - 1].kind = WC_COL_ROWKEY;
	}
	if (t->rowkey_attnum == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("foreign table \"%s\" has no row-key column", t->relname),
				 errhint("Mark the row-key column with OPTIONS (rowkey 'true'), or name it \"rowkey\".")));
	kt = t->cols[t->rowkey_attnum - 1].type;
	if (kt != TEXTOID && kt != VARCHAROID && kt != BYTEAOID)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
				 errmsg("row-key column \"%s\" of foreign table \"%s\" has type %s",
						t->cols[t->rowkey_attnum - 1].name, t->relname, format_type_be(kt)),
				 errdetail("A row key must be of type text, varchar or bytea.")));
}

/*
 * wc_get_table
 *		Read a foreign table's mapping from the catalogs.
 */
WcTable *
wc_get_table(Oid relid)
{
	ForeignTable *ft = GetForeignTable(relid);
	WcTable    *t = palloc0(sizeof(WcTable));
	const char *family;
	Relation	rel;
	TupleDesc	tupdesc;
	int			named_rowkey = 0;

	t->relid = relid;
	t->relname = get_rel_name(relid);
	read_server_options(t, GetForeignServer(ft->serverid));
	family = read_table_options(t, ft);

	rel = table_open(relid, NoLock);
	tupdesc = RelationGetDescr(rel);
	t->natts = tupdesc->natts;
	t->cols = palloc0(sizeof(WcColumn) * Max(1, t->natts));
	for (int i = 0; i < t->natts; i++)
		if (map_column(t, TupleDescAttr(tupdesc, i), family))
			named_rowkey = i + 1;
	table_close(rel, NoLock);

	check_rowkey(t, named_rowkey);
	return t;
}

/*
 * A stored table with no foreign table over it, of natts columns: the
 * first its row key, named key, of type, in the C collation if text.
 */
static WcTable *
table_without_relation(Oid serverid, const char *table, const char *key, Oid type, int natts)
{
	WcTable    *t = palloc0(sizeof(WcTable));
	WcColumn   *k;

	read_server_options(t, GetForeignServer(serverid));
	t->table = pstrdup(table);
	t->relname = t->table;
	t->table_key = escape_str(t->table, strlen(t->table), &t->table_key_len);
	t->natts = natts;
	t->cols = palloc0(sizeof(WcColumn) * natts);
	t->rowkey_attnum = 1;
	k = &t->cols[0];
	k->kind = WC_COL_ROWKEY;
	k->name = (char *) key;
	k->type = type;
	k->typmod = -1;
	k->collation = type == TEXTOID ? C_COLLATION_OID : InvalidOid;
	return t;
}

/*
 * wc_get_meta_table
 *		The mapping of a server's stored table of column families: a row
 *		per stored table (its name is the row key), whose one cell holds
 *		the table's families and their policies (families.c).
 *
 * Its name is empty, which no foreign table's can be (the validator
 * refuses it), so its keys sort before every table's and it is written,
 * locked and read like any table: in the transaction, at its COMMIT.
 */
WcTable *
wc_get_meta_table(Oid serverid)
{
	WcTable    *t = table_without_relation(serverid, "", "table_name", TEXTOID, 2);
	WcColumn   *cell;

	t->relname = "widecolumn.families";
	cell = &t->cols[1];
	cell->name = "families";
	cell->type = TEXTOID;
	cell->typmod = -1;
	cell->collation = C_COLLATION_OID;
	map_cell(cell, WC_META_FAMILIES_CELL, NULL);
	return t;
}

/*
 * wc_get_stored_table
 *		A stored table by its name, with no foreign table over it: for the
 *		functions that move every version of it whatever maps it (backup.c).
 *		Its one column is the row key, as bytes; its scans and writes are
 *		those of the cells layout.
 */
WcTable *
wc_get_stored_table(Oid serverid, const char *table)
{
	return table_without_relation(serverid, table, "rowkey", BYTEAOID, 1);
}

/*
 * wc_table_arg
 *		The foreign table of a SQL function's argument 0 (regclass), if it is
 *		a widecolumn_fdw table and the user has the privilege mode on it: the
 *		one the statement the function stands for needs (SELECT to describe
 *		its rows, DELETE to drop them).  It stays locked, as that statement
 *		would lock it.
 */
WcTable *
wc_table_arg(FunctionCallInfo fcinfo, AclMode mode)
{
	Oid			relid;
	ForeignTable *ft;
	ForeignDataWrapper *fdw;
	AclResult	acl;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"t\" must not be null")));
	relid = PG_GETARG_OID(0);
	LockRelationOid(relid, mode == ACL_SELECT ? AccessShareLock : RowExclusiveLock);
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (get_rel_relkind(relid) != RELKIND_FOREIGN_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a foreign table", get_rel_name(relid)),
				 errhint("Name a foreign table of a widecolumn_fdw server.")));
	ft = GetForeignTable(relid);
	fdw = GetForeignDataWrapper(GetForeignServer(ft->serverid)->fdwid);
	if (!OidIsValid(fdw->fdwhandler) ||
		strcmp(get_func_name(fdw->fdwhandler), "widecolumn_fdw_handler") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("foreign table \"%s\" is not a widecolumn_fdw table", get_rel_name(relid)),
				 errdetail("Its foreign-data wrapper is \"%s\".", fdw->fdwname)));
	acl = pg_class_aclcheck(relid, GetUserId(), mode);
	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_FOREIGN_TABLE, get_rel_name(relid));
	return wc_get_table(relid);
}
