/*-------------------------------------------------------------------------
 *
 * option.c
 *	  The options of widecolumn_fdw objects: validation, and which layout a
 *	  foreign table has.
 *
 * The validator checks each option where it is given (CREATE or ALTER of a
 * server, foreign table or column), with the parsers mapping.c reads the
 * options with; what only the whole table can show (exactly one row-key
 * column) is checked there, when a foreign table's mapping is read.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>

#include "access/reloptions.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_foreign_data_wrapper.h"
#include "catalog/pg_foreign_server.h"
#include "catalog/pg_foreign_table.h"
#include "catalog/pg_type.h"
#include "catalog/pg_user_mapping.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/varlena.h"

#include "common/shmem.h"
#include "fdw/model/model.h"

typedef struct WcOption
{
	const char *name;
	Oid			context;
	WcEngineKind engine;		/* a server's: the engine it belongs to, or
								 * WC_ENGINE_ANY */
} WcOption;

#define WC_ENGINE_ANY ((WcEngineKind) -1)

static const WcOption valid_options[] = {
	{"engine", ForeignServerRelationId, WC_ENGINE_ANY},
	{"path", ForeignServerRelationId, WC_ENGINE_LEVELDB},
	{"sync", ForeignServerRelationId, WC_ENGINE_LEVELDB},
	{"block_cache_size", ForeignServerRelationId, WC_ENGINE_LEVELDB},
	{"write_buffer_size", ForeignServerRelationId, WC_ENGINE_LEVELDB},
	{"bloom_bits", ForeignServerRelationId, WC_ENGINE_LEVELDB},
	{"compression", ForeignServerRelationId, WC_ENGINE_LEVELDB},
	{"project", ForeignServerRelationId, WC_ENGINE_BIGTABLE},
	{"instance", ForeignServerRelationId, WC_ENGINE_BIGTABLE},
	{"endpoint", ForeignServerRelationId, WC_ENGINE_BIGTABLE},
	{"credentials", ForeignServerRelationId, WC_ENGINE_BIGTABLE},
	{"app_profile", ForeignServerRelationId, WC_ENGINE_BIGTABLE},
	{"timeout", ForeignServerRelationId, WC_ENGINE_BIGTABLE},
	{"table", ForeignTableRelationId},
	{"family", ForeignTableRelationId},
	{"layout", ForeignTableRelationId},
	{"rowkey_delimiter", ForeignTableRelationId},
	{"rowkey", AttributeRelationId},
	{"rowkey_part", AttributeRelationId},
	{"rowkey_reverse", AttributeRelationId},
	{"rowkey_format", AttributeRelationId},
	{"column", AttributeRelationId},
	{"family", AttributeRelationId},	/* a map column */
	{"map_values", AttributeRelationId},
	{NULL, InvalidOid}
};

/* The engines' names, as the server option engine gives them. */
static const char *const engine_names[] = {"leveldb", "bigtable"};
static const char *const engine_titles[] = {"LevelDB", "Bigtable"};

/*
 * The nearest option name an object of context takes (a server's: of the
 * engine it has), or NULL.
 */
static const char *
closest_option(const char *name, Oid context, WcEngineKind engine)
{
	const char *best = NULL;
	int			best_dist = 4;	/* further than this is no suggestion */

	for (const WcOption *o = valid_options; o->name; o++)
	{
		int			d;

		if (o->context != context)
			continue;
		if (context == ForeignServerRelationId && o->engine != WC_ENGINE_ANY &&
			o->engine != engine)
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

/*
 * unknown_option
 *		The error for an option that catalog's objects do not take: where it
 *		belongs if it is one of ours, else the nearest name, if any.
 */
static void
unknown_option(const char *name, Oid catalog, WcEngineKind engine)
{
	const char *hint = closest_option(name, catalog, engine);

	for (const WcOption *o = valid_options; o->name; o++)
	{
		if (strcmp(o->name, name) != 0)
			continue;
		if (o->context == ForeignServerRelationId)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("invalid option \"%s\"", name),
					 errhint("Option \"%s\" is valid only for foreign servers.", name)));
		if (o->context == ForeignTableRelationId)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("invalid option \"%s\"", name),
					 errhint("Option \"%s\" is valid only for foreign tables.", name)));
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("invalid option \"%s\"", name),
				 errhint("Option \"%s\" is valid only for foreign table columns.", name)));
	}

	if (catalog == ForeignDataWrapperRelationId)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("invalid option \"%s\"", name),
				 errdetail("widecolumn_fdw takes no options for the foreign-data wrapper.")));
	if (catalog == UserMappingRelationId)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("invalid option \"%s\"", name),
				 errdetail("widecolumn_fdw takes no options for user mappings.")));
	if (hint != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("invalid option \"%s\"", name),
				 errhint("Perhaps you meant the option \"%s\".", hint)));
	switch (catalog)
	{
		case ForeignServerRelationId:
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("invalid option \"%s\"", name),
					 errhint("See the widecolumn_fdw documentation for the options of foreign servers.")));
			break;
		case ForeignTableRelationId:
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("invalid option \"%s\"", name),
					 errhint("See the widecolumn_fdw documentation for the options of foreign tables.")));
			break;
		case AttributeRelationId:
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("invalid option \"%s\"", name),
					 errhint("See the widecolumn_fdw documentation for the options of foreign table columns.")));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("invalid option \"%s\"", name),
					 errhint("See the widecolumn_fdw documentation for the options of this object.")));
	}
}

/*
 * wrong_engine_option
 *		The error for an option of the other engine's servers: which engine
 *		it belongs to, and the nearest name this server's engine takes, or
 *		all of them.
 */
static void
wrong_engine_option(const char *name, WcEngineKind mine, WcEngineKind theirs)
{
	const char *hint = closest_option(name, ForeignServerRelationId, mine);
	StringInfoData names;

	if (hint != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("invalid option \"%s\" for a %s server", name, engine_titles[mine]),
				 errdetail("Option \"%s\" is valid only for servers with engine \"%s\".",
						   name, engine_names[theirs]),
				 errhint("Perhaps you meant the option \"%s\".", hint)));
	initStringInfo(&names);
	for (const WcOption *o = valid_options; o->name; o++)
		if (o->context == ForeignServerRelationId &&
			(o->engine == WC_ENGINE_ANY || o->engine == mine))
			appendStringInfo(&names, "%s\"%s\"", names.len > 0 ? ", " : "", o->name);
	ereport(ERROR,
			(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
			 errmsg("invalid option \"%s\" for a %s server", name, engine_titles[mine]),
			 errdetail("Option \"%s\" is valid only for servers with engine \"%s\".",
					   name, engine_names[theirs]),
			 errhint("The options of a %s server are %s.", engine_titles[mine], names.data)));
}

/*
 * Family names follow Bigtable's rule, so that a schema can move between
 * the two: letters, digits, '_', '-' and '.'.
 */
bool
wc_valid_family(const char *f, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char) f[i]) && f[i] != '_' && f[i] != '-' && f[i] != '.')
			return false;
	return true;
}

/*
 * A stored table's name: not empty, and at most WC_MAX_QUALIFIER bytes, as
 * it goes into every key beside a row key of up to 4096 bytes.
 */
bool
wc_valid_table_name(const char *name)
{
	return name[0] != '\0' && strlen(name) <= WC_MAX_QUALIFIER;
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
	if (!wc_valid_family(spec, colon - spec))
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
int
wc_parse_size_option(DefElem *def, int min, int max)
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
char
wc_parse_delimiter(DefElem *def)
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

bool
wc_parse_compression(DefElem *def)
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

/* The server option engine: "leveldb" or "bigtable". */
WcEngineKind
wc_parse_engine(DefElem *def)
{
	char	   *v = defGetString(def);

	for (int e = 0; e < lengthof(engine_names); e++)
		if (strcmp(v, engine_names[e]) == 0)
			return (WcEngineKind) e;
	ereport(ERROR,
			(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
			 errmsg("invalid value for option \"engine\": \"%s\"", v),
			 errdetail("Valid values are \"leveldb\" (the default: a LevelDB database kept by the cluster) and \"bigtable\" (a Google Cloud Bigtable instance).")));
	return WC_ENGINE_LEVELDB;
}

/*
 * The server option timeout: a duration as a setting takes it ("30s",
 * "500ms"; a bare number is milliseconds), from 1 ms to INT_MAX ms.
 */
int
wc_parse_timeout(DefElem *def)
{
	char	   *v = defGetString(def);
	const char *hint = NULL;
	int			ms;

	if (!parse_int(v, &ms, GUC_UNIT_MS, &hint) || ms < 1)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("invalid value for option \"timeout\": \"%s\"", v),
				 errdetail("The value must be a positive duration, at most %d ms.", INT_MAX),
				 hint ? errhint("%s", _(hint)) :
				 errhint("For example: '30s' or '500ms'.")));
	return ms;
}

/*
 * The server option credentials: Google's application-default credentials
 * over TLS, or none over plain TCP (an emulator).
 */
bool
wc_parse_credentials_insecure(DefElem *def)
{
	char	   *v = defGetString(def);

	if (strcmp(v, "insecure") == 0)
		return true;
	if (strcmp(v, "google_default") == 0)
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
			 errmsg("invalid value for option \"credentials\": \"%s\"", v),
			 errdetail("Valid values are \"google_default\" (Google's application-default credentials, over TLS) and \"insecure\" (no credentials and no TLS, for an emulator).")));
	return false;
}

/*
 * check_endpoint
 *		host:port, as BIGTABLE_EMULATOR_HOST has it: a host name, an IPv4
 *		address or a bracketed IPv6 address, and a port from 1 to 65535.
 */
static void
check_endpoint(DefElem *def)
{
	char	   *v = defGetString(def);
	const char *colon = strrchr(v, ':');
	bool		ok = colon != NULL && colon > v && colon[1] != '\0';

	if (ok)
	{
		size_t		plen = strlen(colon + 1);

		ok = plen <= 5 && strspn(colon + 1, "0123456789") == plen &&
			atoi(colon + 1) >= 1 && atoi(colon + 1) <= 65535;
	}
	if (ok && v[0] == '[')
		ok = colon[-1] == ']' && colon - v > 2;
	else if (ok)
		for (const char *c = v; c < colon && ok; c++)
			ok = isalnum((unsigned char) *c) || *c == '.' || *c == '-' || *c == '_';
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("invalid value for option \"endpoint\": \"%s\"", v),
				 errdetail("The value must be host:port, with a port from 1 to 65535."),
				 errhint("For example: 'bigtable.googleapis.com:443', or '127.0.0.1:8086' for an emulator.")));
}

/*
 * check_resource_id
 *		A project, instance or app profile id, which go into Bigtable's
 *		resource names (projects/P/instances/I) and request metadata: not
 *		empty, and letters, digits, "-", "_", "." and ":" (a domain-scoped
 *		project, "example.com:proj"), at most 64 bytes.  Bigtable's own
 *		rules are narrower; it answers for those itself.
 */
static void
check_resource_id(DefElem *def)
{
	char	   *v = defGetString(def);
	size_t		len = strlen(v);
	bool		ok = len > 0 && len <= 64;

	for (const char *c = v; *c && ok; c++)
		ok = isalnum((unsigned char) *c) || *c == '-' || *c == '_' || *c == '.' || *c == ':';
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("invalid value for option \"%s\": \"%s\"", def->defname, v),
				 errdetail("The value must be 1 to 64 letters, digits, \"-\", \"_\", \".\" or \":\".")));
}

/*
 * The type a map column's values decode as (mapcolumn.c): the SQL types
 * that JSON holds without loss, and bytea as hex.
 */
Oid
wc_parse_map_values(DefElem *def)
{
	char	   *v = defGetString(def);

	if (strcmp(v, "text") == 0)
		return TEXTOID;
	if (strcmp(v, "bigint") == 0)
		return INT8OID;
	if (strcmp(v, "double precision") == 0)
		return FLOAT8OID;
	if (strcmp(v, "jsonb") == 0)
		return JSONBOID;
	if (strcmp(v, "bytea") == 0)
		return BYTEAOID;
	ereport(ERROR,
			(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
			 errmsg("invalid value for option \"map_values\": \"%s\"", v),
			 errdetail("Valid values are \"text\", \"bigint\", \"double precision\", \"jsonb\" and \"bytea\".")));
	return InvalidOid;
}

/*
 * check_map_column
 *		A column with option "family" is a map of that whole family: it
 *		names no cell, and is not part of the row key.
 */
static void
check_map_column(List *seen)
{
	bool		family = false;
	bool		map_values = false;
	const char *other = NULL;
	ListCell   *lc;

	foreach(lc, seen)
	{
		const char *name = lfirst(lc);

		if (strcmp(name, "family") == 0)
			family = true;
		else if (strcmp(name, "map_values") == 0)
			map_values = true;
		else if (strcmp(name, "column") == 0 || strcmp(name, "rowkey") == 0 ||
				 strcmp(name, "rowkey_part") == 0 || strcmp(name, "rowkey_reverse") == 0 ||
				 strcmp(name, "rowkey_format") == 0)
			other = name;
	}
	if (map_values && !family)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("option \"map_values\" needs option \"family\""),
				 errdetail("Only a map column, which holds a whole column family, has option \"map_values\"."),
				 errhint("Add OPTIONS (family 'name') to the column, or drop \"map_values\".")));
	if (family && other != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("a column cannot have both option \"family\" and option \"%s\"", other),
				 errdetail("A column with option \"family\" holds every cell of that family as a jsonb object, one key per qualifier."),
				 errhint("To map one cell, use OPTIONS (column 'family:qualifier') instead.")));
}

/*
 * check_bigtable_server
 *		A Bigtable server names its instance: options project and instance.
 */
static void
check_bigtable_server(List *seen)
{
	bool		project = false;
	bool		instance = false;
	ListCell   *lc;

	foreach(lc, seen)
	{
		project |= strcmp(lfirst(lc), "project") == 0;
		instance |= strcmp(lfirst(lc), "instance") == 0;
	}
	if (!project || !instance)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_DYNAMIC_PARAMETER_VALUE_NEEDED),
				 errmsg("a Bigtable server needs option \"%s\"", project ? "instance" : "project"),
				 errdetail("Options \"project\" and \"instance\" name the Bigtable instance the server's tables are in."),
				 errhint("For example: OPTIONS (engine 'bigtable', project 'my-project', instance 'my-instance').")));
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
	WcEngineKind engine = WC_ENGINE_LEVELDB;

	/* A server's options are those of its engine. */
	if (catalog == ForeignServerRelationId)
		foreach(lc, options)
		{
			DefElem    *def = lfirst(lc);

			if (strcmp(def->defname, "engine") == 0)
				engine = wc_parse_engine(def);
		}

	foreach(lc, options)
	{
		DefElem    *def = lfirst(lc);
		const WcOption *o;
		ListCell   *lc2;

		for (o = valid_options; o->name; o++)
			if (o->context == catalog && strcmp(o->name, def->defname) == 0)
				break;
		if (o->name == NULL)
			unknown_option(def->defname, catalog, engine);
		if (o->engine != WC_ENGINE_ANY && o->engine != engine)
			wrong_engine_option(def->defname, engine, o->engine);

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
			(void) wc_parse_size_option(def, 1, WC_MAX_ROWKEY_PARTS);
		else if (strcmp(def->defname, "rowkey_delimiter") == 0)
			(void) wc_parse_delimiter(def);
		else if (strcmp(def->defname, "rowkey_format") == 0)
			(void) wc_keyformat_parse(defGetString(def));
		else if (strcmp(def->defname, "block_cache_size") == 0)
			(void) wc_parse_size_option(def, 0, 65536);
		else if (strcmp(def->defname, "write_buffer_size") == 0)
			(void) wc_parse_size_option(def, 1, 1024);
		else if (strcmp(def->defname, "bloom_bits") == 0)
			(void) wc_parse_size_option(def, 0, 64);
		else if (strcmp(def->defname, "compression") == 0)
			(void) wc_parse_compression(def);
		else if (strcmp(def->defname, "project") == 0 ||
				 strcmp(def->defname, "instance") == 0 ||
				 strcmp(def->defname, "app_profile") == 0)
			check_resource_id(def);
		else if (strcmp(def->defname, "endpoint") == 0)
			check_endpoint(def);
		else if (strcmp(def->defname, "credentials") == 0)
			(void) wc_parse_credentials_insecure(def);
		else if (strcmp(def->defname, "timeout") == 0)
			(void) wc_parse_timeout(def);
		else if (strcmp(def->defname, "table") == 0)
		{
			char	   *name = defGetString(def);

			if (!wc_valid_table_name(name))
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("invalid value for option \"table\""),
						 name[0] == '\0' ? errdetail("The name is empty.") :
						 errdetail("The name is %zu bytes long; the limit is %d.",
								   strlen(name), WC_MAX_QUALIFIER)));
		}
		else if (strcmp(def->defname, "family") == 0)
		{
			char	   *f = defGetString(def);

			if (!wc_valid_family(f, strlen(f)))
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("invalid column family name \"%s\"", f),
						 errdetail("A family name may contain only letters, digits, \"_\", \"-\" and \".\", and may not be empty.")));
		}
		else if (strcmp(def->defname, "column") == 0)
			check_column_spec(defGetString(def));
		else if (strcmp(def->defname, "map_values") == 0)
			(void) wc_parse_map_values(def);
		else if (strcmp(def->defname, "layout") == 0)
		{
			char	   *l = defGetString(def);

			if (strcmp(l, "cells") != 0 && strcmp(l, "columns") != 0)
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
						 errmsg("invalid value for option \"layout\": \"%s\"", l),
						 errhint("Valid values are \"columns\" (a row per row key, the default) and \"cells\" (a row per cell version).")));
		}
	}
	if (catalog == AttributeRelationId)
		check_map_column(seen);
	if (catalog == ForeignServerRelationId && engine == WC_ENGINE_BIGTABLE)
		check_bigtable_server(seen);
	PG_RETURN_VOID();
}

/* Does the foreign table have OPTIONS (layout 'cells')? */
bool
wc_cells_layout(Oid relid)
{
	ListCell   *lc;

	foreach(lc, GetForeignTable(relid)->options)
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, "layout") == 0)
			return strcmp(defGetString(def), "cells") == 0;
	}
	return false;
}
