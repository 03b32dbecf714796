/*-------------------------------------------------------------------------
 *
 * option.c
 *	  The options of widecolumn_fdw objects: validation and meaning.
 *
 * The validator checks each option where it is given (CREATE or ALTER of a
 * server, foreign table or column); wc_get_table() then reads a foreign
 * table's options into a WcTable, checking what only the whole table can
 * show (exactly one row-key column).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>

#include "access/reloptions.h"
#include "access/table.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_foreign_data_wrapper.h"
#include "catalog/pg_foreign_server.h"
#include "catalog/pg_foreign_table.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_type.h"
#include "catalog/pg_user_mapping.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/varlena.h"

#include "common/shmem.h"
#include "fdw/fdw.h"

typedef struct WcOption
{
	const char *name;
	Oid			context;
} WcOption;

static const WcOption valid_options[] = {
	{"path", ForeignServerRelationId},
	{"sync", ForeignServerRelationId},
	{"block_cache_size", ForeignServerRelationId},
	{"write_buffer_size", ForeignServerRelationId},
	{"bloom_bits", ForeignServerRelationId},
	{"compression", ForeignServerRelationId},
	{"table", ForeignTableRelationId},
	{"family", ForeignTableRelationId},
	{"rowkey_delimiter", ForeignTableRelationId},
	{"rowkey", AttributeRelationId},
	{"rowkey_part", AttributeRelationId},
	{"rowkey_reverse", AttributeRelationId},
	{"column", AttributeRelationId},
	{NULL, InvalidOid}
};

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

static const char *
closest_option(const char *name, Oid context)
{
	const char *best = NULL;
	int			best_dist = 4;	/* further than this is no suggestion */

	for (const WcOption *o = valid_options; o->name; o++)
	{
		int			d;

		if (o->context != context)
			continue;
		d = varstr_levenshtein_less_equal(name, strlen(name), o->name, strlen(o->name),
										  1, 1, 1, best_dist, true);
		if (d < best_dist)
		{
			best_dist = d;
			best = o->name;
		}
	}
	return best;
}

static const char *
context_name(Oid context)
{
	switch (context)
	{
		case ForeignServerRelationId:
			return "foreign servers";
		case ForeignTableRelationId:
			return "foreign tables";
		case AttributeRelationId:
			return "foreign table columns";
		case ForeignDataWrapperRelationId:
			return "foreign-data wrappers";
		case UserMappingRelationId:
			return "user mappings";
		default:
			return "this object";
	}
}

/*
 * Family names follow Bigtable's rule, so that a schema can move between
 * the two: letters, digits, '_', '-' and '.'.
 */
static bool
valid_family(const char *f, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char) f[i]) && f[i] != '_' && f[i] != '-' && f[i] != '.')
			return false;
	return true;
}

static void
check_column_spec(const char *spec)
{
	const char *colon = strchr(spec, ':');

	if (colon == NULL || colon == spec || colon[1] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("invalid value for option \"column\": \"%s\"", spec),
				 errdetail("The value must have the form family:qualifier, with both parts non-empty."),
				 errhint("For example: OPTIONS (column 'measurements:pressure').")));
	if (!valid_family(spec, colon - spec))
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("invalid column family name \"%.*s\"", (int) (colon - spec), spec),
				 errdetail("A family name may contain only letters, digits, \"_\", \"-\" and \".\".")));
	if (strlen(colon + 1) > WC_MAX_QUALIFIER)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("column qualifier is too long"),
				 errdetail("The qualifier is %zu bytes; the limit is %d.",
						   strlen(colon + 1), WC_MAX_QUALIFIER)));
}

/*
 * A whole number from min to max, in decimal digits: parse_int would also
 * take "0x10" and round "10.4", which no one means for these options.
 */
static int
parse_size_option(DefElem *def, int min, int max)
{
	char	   *v = defGetString(def);
	size_t		len = strlen(v);
	int			n = -1;

	if (len > 0 && len <= 9 && strspn(v, "0123456789") == len)
		n = atoi(v);
	if (n < min || n > max)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("invalid value for option \"%s\": \"%s\"", def->defname, v),
				 errdetail("The value must be an integer from %d to %d.", min, max)));
	return n;
}

/*
 * One printable ASCII character that no segment encoding produces on its
 * own: not a digit, and not "-", which starts negative numbers.
 */
static char
parse_delimiter(DefElem *def)
{
	char	   *v = defGetString(def);

	if (strlen(v) != 1 || v[0] < 0x21 || v[0] > 0x7E || isdigit((unsigned char) v[0]) ||
		v[0] == '-')
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("invalid value for option \"rowkey_delimiter\": \"%s\"", v),
				 errdetail("The delimiter must be one printable ASCII character other than a digit or \"-\"."),
				 errhint("Bigtable row keys commonly use \"#\".")));
	return v[0];
}

static bool
parse_compression(DefElem *def)
{
	char	   *v = defGetString(def);

	if (strcmp(v, "snappy") == 0)
		return true;
	if (strcmp(v, "none") == 0)
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
			 errmsg("invalid value for option \"compression\": \"%s\"", v),
			 errdetail("Valid values are \"snappy\" and \"none\".")));
	return false;
}

PG_FUNCTION_INFO_V1(widecolumn_fdw_validator);

/*
 * widecolumn_fdw_validator
 *		Check the options given to a widecolumn_fdw object.
 */
Datum
widecolumn_fdw_validator(PG_FUNCTION_ARGS)
{
	List	   *options = untransformRelOptions(PG_GETARG_DATUM(0));
	Oid			catalog = PG_GETARG_OID(1);
	ListCell   *lc;
	List	   *seen = NIL;

	foreach(lc, options)
	{
		DefElem    *def = lfirst(lc);
		const WcOption *o;
		ListCell   *lc2;

		for (o = valid_options; o->name; o++)
			if (o->context == catalog && strcmp(o->name, def->defname) == 0)
				break;
		if (o->name == NULL)
		{
			const char *hint = closest_option(def->defname, catalog);
			const WcOption *elsewhere;

			for (elsewhere = valid_options; elsewhere->name; elsewhere++)
				if (strcmp(elsewhere->name, def->defname) == 0)
					ereport(ERROR,
							(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
							 errmsg("invalid option \"%s\"", def->defname),
							 errhint("Option \"%s\" is valid for %s, not for %s.", def->defname,
									 context_name(elsewhere->context), context_name(catalog))));

			if (catalog == ForeignDataWrapperRelationId || catalog == UserMappingRelationId)
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
						 errmsg("invalid option \"%s\"", def->defname),
						 errdetail("widecolumn_fdw takes no options for %s.",
								   catalog == UserMappingRelationId ? "user mappings" : "the foreign-data wrapper")));
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("invalid option \"%s\"", def->defname),
					 hint ? errhint("Perhaps you meant the option \"%s\".", hint)
					 : errhint("See the widecolumn_fdw documentation for the options of %s.",
							   context_name(catalog))));
		}

		foreach(lc2, seen)
			if (strcmp(lfirst(lc2), def->defname) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_SYNTAX_ERROR),
						 errmsg("conflicting or redundant options"),
						 errdetail("Option \"%s\" is given more than once.", def->defname)));
		seen = lappend(seen, def->defname);

		if (strcmp(def->defname, "path") == 0)
		{
			char	   *path = defGetString(def);

			/* The worker writes there as the server's OS user. */
			if (!has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
				ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("permission denied to set option \"path\""),
						 errdetail("Only superusers and members of pg_write_server_files may choose where a server's data is stored."),
						 errhint("Omit \"path\" to keep the data inside the cluster's data directory.")));
			if (!is_absolute_path(path))
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("invalid value for option \"path\": \"%s\"", path),
						 errdetail("The path must be absolute.")));

			/*
			 * The worker lists the directories it made one per line, and
			 * LevelDB's file names go after the path: room for them.
			 */
			for (const char *c = path; *c; c++)
				if ((unsigned char) *c < 0x20 || *c == 0x7F)
					ereport(ERROR,
							(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
							 errmsg("invalid value for option \"path\""),
							 errdetail("The path contains a control character (a newline, say).")));
			if (strlen(path) > WC_MAX_PATH)
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("invalid value for option \"path\""),
						 errdetail("The path is %zu bytes long; the limit is %d.",
								   strlen(path), WC_MAX_PATH)));
		}
		else if (strcmp(def->defname, "sync") == 0 ||
				 strcmp(def->defname, "rowkey") == 0 ||
				 strcmp(def->defname, "rowkey_reverse") == 0)
			(void) defGetBoolean(def);
		else if (strcmp(def->defname, "rowkey_part") == 0)
			(void) parse_size_option(def, 1, WC_MAX_ROWKEY_PARTS);
		else if (strcmp(def->defname, "rowkey_delimiter") == 0)
			(void) parse_delimiter(def);
		else if (strcmp(def->defname, "block_cache_size") == 0)
			(void) parse_size_option(def, 0, 65536);
		else if (strcmp(def->defname, "write_buffer_size") == 0)
			(void) parse_size_option(def, 1, 1024);
		else if (strcmp(def->defname, "bloom_bits") == 0)
			(void) parse_size_option(def, 0, 64);
		else if (strcmp(def->defname, "compression") == 0)
			(void) parse_compression(def);
		else if (strcmp(def->defname, "table") == 0)
		{
			if (defGetString(def)[0] == '\0')
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("invalid value for option \"table\": the name is empty")));
			/* it goes into every key, beside a row key of up to 4096 bytes */
			if (strlen(defGetString(def)) > WC_MAX_QUALIFIER)
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("invalid value for option \"table\": the name is too long"),
						 errdetail("The name is %zu bytes; the limit is %d.",
								   strlen(defGetString(def)), WC_MAX_QUALIFIER)));
		}
		else if (strcmp(def->defname, "family") == 0)
		{
			char	   *f = defGetString(def);

			if (!valid_family(f, strlen(f)))
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("invalid column family name \"%s\"", f),
						 errdetail("A family name may contain only letters, digits, \"_\", \"-\" and \".\", and may not be empty.")));
		}
		else if (strcmp(def->defname, "column") == 0)
			check_column_spec(defGetString(def));
	}
	PG_RETURN_VOID();
}

static uint8 *
escape_str(const char *s, size_t len, size_t *outlen)
{
	uint8	   *buf = palloc(WC_ESCAPED_MAX(len));

	*outlen = wc_escape((const uint8 *) s, len, buf);
	return buf;
}

/*
 * wc_get_table
 *		Read a foreign table's mapping from the catalogs.
 */
WcTable *
wc_get_table(Oid relid)
{
	ForeignTable *ft = GetForeignTable(relid);
	ForeignServer *server = GetForeignServer(ft->serverid);
	WcTable    *t = palloc0(sizeof(WcTable));
	Relation	rel;
	TupleDesc	tupdesc;
	const char *family = WC_DEFAULT_FAMILY;
	int			named_rowkey = 0;
	ListCell   *lc;

	t->relid = relid;
	t->relname = get_rel_name(relid);
	t->serverid = server->serverid;
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
			t->cache_mb = parse_size_option(def, 0, 65536);
		else if (strcmp(def->defname, "write_buffer_size") == 0)
			t->write_buffer_mb = parse_size_option(def, 1, 1024);
		else if (strcmp(def->defname, "bloom_bits") == 0)
			t->bloom_bits = parse_size_option(def, 0, 64);
		else if (strcmp(def->defname, "compression") == 0)
			t->compression = parse_compression(def);
	}

	t->table = t->relname;
	foreach(lc, ft->options)
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, "table") == 0)
			t->table = defGetString(def);
		else if (strcmp(def->defname, "family") == 0)
			family = defGetString(def);
		else if (strcmp(def->defname, "rowkey_delimiter") == 0)
			t->delimiter = parse_delimiter(def);
	}
	t->table_key = escape_str(t->table, strlen(t->table), &t->table_key_len);

	rel = table_open(relid, NoLock);
	tupdesc = RelationGetDescr(rel);
	t->natts = tupdesc->natts;
	t->cols = palloc0(sizeof(WcColumn) * Max(1, t->natts));
	for (int i = 0; i < t->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);
		WcColumn   *col = &t->cols[i];
		bool		rowkey = false;
		bool		rowkey_said = false;
		char	   *spec = NULL;
		int			part = 0;

		if (att->attisdropped)
		{
			col->kind = WC_COL_DROPPED;
			continue;
		}
		col->name = pstrdup(NameStr(att->attname));
		/* a domain is stored as its base type */
		col->typmod = att->atttypmod;
		col->type = getBaseTypeAndTypmod(att->atttypid, &col->typmod);
		col->collation = att->attcollation;
		foreach(lc, GetForeignColumnOptions(relid, att->attnum))
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
				part = parse_size_option(def, 1, WC_MAX_ROWKEY_PARTS);
			else if (strcmp(def->defname, "rowkey_reverse") == 0)
				col->rowkey_reverse = defGetBoolean(def);
		}
		if (part > 0)
		{
			if (rowkey || spec != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("column \"%s\" of foreign table \"%s\" cannot be both a row-key part and %s",
								col->name, t->relname, rowkey ? "the row key" : "a cell")));
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
			t->part_attnum[part - 1] = i + 1;
			col->kind = WC_COL_PART;
			col->rowkey_part = part;
			continue;
		}
		if (col->rowkey_reverse)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
					 errmsg("option \"rowkey_reverse\" of column \"%s\" needs option \"rowkey_part\"",
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
			t->rowkey_attnum = i + 1;
			continue;
		}
		/* a column named rowkey is the row key, unless it says it is not */
		if (strcmp(col->name, "rowkey") == 0 && spec == NULL && !rowkey_said)
			named_rowkey = i + 1;

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
		{
			size_t		flen = strlen(col->family);
			size_t		qlen = strlen(col->qualifier);

			col->famqual = palloc(WC_ESCAPED_MAX(flen) + WC_ESCAPED_MAX(qlen));
			col->famqual_len = wc_escape((const uint8 *) col->family, flen, col->famqual);
			col->famqual_len += wc_escape((const uint8 *) col->qualifier, qlen,
										  col->famqual + col->famqual_len);
		}
	}
	table_close(rel, NoLock);

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
		if (t->delimiter == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
					 errmsg("foreign table \"%s\" has row-key parts but no option \"rowkey_delimiter\"",
							t->relname),
					 errhint("Add OPTIONS (rowkey_delimiter '#') to the table.")));
		return t;
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
	{
		Oid			kt = t->cols[t->rowkey_attnum - 1].type;

		if (kt != TEXTOID && kt != VARCHAROID && kt != BYTEAOID)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
					 errmsg("row-key column \"%s\" of foreign table \"%s\" has type %s",
							t->cols[t->rowkey_attnum - 1].name, t->relname, format_type_be(kt)),
					 errdetail("A row key must be of type text, varchar or bytea.")));
	}
	return t;
}
