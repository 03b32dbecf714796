/*-------------------------------------------------------------------------
 *
 * backup.c
 *	  widecolumn.backup and widecolumn.restore: every stored table of a
 *	  server, with its families, policies, aggregates and every version its
 *	  policies keep, to and from a directory, in one call.
 *
 * A backup is a new directory holding an Avro file of Bigtable's schema
 * per stored table (avro.c, avrofile.c), and backup.json, written last,
 * which names the tables, their files, their version counts and their
 * families (docs/format.md, "Backups").  Every file is read from one
 * snapshot: the worker's snapshot of the backup's statement (or, in
 * REPEATABLE READ and SERIALIZABLE, of its transaction) is held from the
 * first read to the last, so the families and every table are as that
 * snapshot sees them, whatever commits while the files are written.  Unlike
 * export_avro's files, a backup's keep each version's timestamp in
 * microseconds: a restore gives back exactly what was read.
 *
 * A restore checks everything it can before it writes: the manifest, and
 * that none of its tables holds anything in the server, tombstones and
 * drops included, since versions restored at their old timestamps would
 * be hidden by a drop newer than them (worker/tablemeta.c) or mixed with
 * what the table holds.  For the same reason it refuses a transaction that
 * changed the server's family lists or dropped rows before: its COMMIT
 * would stamp those after the versions.  The tables' rows of the family
 * list are locked before they are checked, as create_family locks them.  It then creates the families as create_family
 * does and logs the versions as import_avro does, in its transaction: all
 * of it becomes visible at COMMIT, or none.
 *
 * Both follow COPY's rules for server files (pg_write_server_files to back
 * up, pg_read_server_files to restore, an absolute path), and need to own
 * the server, as the functions that drop its data do: a backup reads
 * every table of it, which no table privilege covers.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "common/jsonapi.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "fdw/avro/avro.h"
#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/link/link.h"
#include "fdw/meta/meta.h"
#include "fdw/model/model.h"
#include "fdw/xact/xact.h"

PG_FUNCTION_INFO_V1(wc_backup);
PG_FUNCTION_INFO_V1(wc_restore);

/* What backup.json says of itself, and of a version's timestamp. */
#define BACKUP_MANIFEST		"backup.json"
#define BACKUP_FORMAT		"widecolumn_fdw backup"
#define BACKUP_VERSION		1
#define BACKUP_CODEC		"snappy"

/* A stored table of a backup, as its manifest names it. */
typedef struct BackupTable
{
	char	   *table;
	char	   *file;			/* in the backup's directory */
	uint64		versions;
	List	   *families;		/* WcFamilyInfo */
} BackupTable;

/* The directory argument: COPY's checks for a server file. */
static char *
dir_arg(FunctionCallInfo fcinfo, bool write)
{
	char	   *dir;

	if (!has_privs_of_role(GetUserId(), write ? ROLE_PG_WRITE_SERVER_FILES :
						   ROLE_PG_READ_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 write ?
				 errmsg("must be superuser or have privileges of the pg_write_server_files role to back up to a directory") :
				 errmsg("must be superuser or have privileges of the pg_read_server_files role to restore from a directory")));
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"dir\" must not be null")));
	dir = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (!is_absolute_path(dir))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("relative path not allowed for a backup directory")));
	canonicalize_path(dir);
	return dir;
}

/* Flush a file the backup wrote to disk, and close it. */
static void
finish_file(FILE *fp, const char *path)
{
	if (fflush(fp) != 0 || ferror(fp) || pg_fsync(fileno(fp)) != 0)
	{
		int			save_errno = errno;

		FreeFile(fp);
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", path)));
	}
	if (FreeFile(fp) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", path)));
}

static FILE *
create_file(const char *path)
{
	FILE	   *fp = AllocateFile(path, PG_BINARY_W "x");

	if (fp == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", path)));
	return fp;
}

/*
 * back_up_table
 *		Write every version of stored table table into a new file path;
 *		returns the versions written.
 */
static uint64
back_up_table(Oid serverid, const char *table, const char *path)
{
	WcTable    *t = wc_get_stored_table(serverid, table);
	FILE	   *fp = create_file(path);
	WcAvroWriter *volatile w = NULL;
	uint64		versions = 0;
	uint64		merged;

	PG_TRY();
	{
		w = wc_avro_writer_begin(fp, BACKUP_CODEC, path);
		versions = wc_avro_export_table(t, NULL, w, false, WC_PROGRESS_BACKUP, &merged);
		(void) wc_avro_writer_finish(w);
		w = NULL;
	}
	PG_CATCH();
	{
		if (w != NULL)
			wc_avro_writer_abandon(w);
		FreeFile(fp);
		PG_RE_THROW();
	}
	PG_END_TRY();
	finish_file(fp, path);
	return versions;
}

/* A backed-up table's entry in backup.json. */
static void
manifest_table(StringInfo m, const char *table, const char *file, uint64 versions,
			   List *families, bool first)
{
	ListCell   *lc;

	appendStringInfoString(m, first ? "\n    {" : ",\n    {");
	appendStringInfoString(m, "\"table_name\": ");
	escape_json(m, table);
	appendStringInfoString(m, ", \"file\": ");
	escape_json(m, file);
	appendStringInfo(m, ", \"versions\": " UINT64_FORMAT ",\n     \"families\": [", versions);
	foreach(lc, families)
	{
		WcFamilyInfo *f = lfirst(lc);

		appendStringInfoString(m, foreach_current_index(lc) == 0 ? "\n      {" : ",\n      {");
		appendStringInfoString(m, "\"family\": ");
		escape_json(m, f->family);
		appendStringInfoString(m, ", \"gc_policy\": ");
		escape_json(m, f->policy);
		appendStringInfoString(m, ", \"aggregate\": ");
		if (f->aggregate)
			escape_json(m, f->aggregate);
		else
			appendStringInfoString(m, "null");
		appendStringInfoChar(m, '}');
	}
	appendStringInfoString(m, "]}");
}

/*
 * write_backup
 *		Fill the new directory dir with the server's tables and the
 *		manifest, from the snapshot the caller holds; returns the versions.
 */
static uint64
write_backup(ForeignServer *server, const char *dir)
{
	List	   *families = wc_families_read(server->serverid);
	StringInfoData m;
	uint64		total = 0;
	int			ntables = 0;
	char	   *path;
	FILE	   *fp;

	initStringInfo(&m);
	appendStringInfo(&m, "{\n  \"format\": \"%s\",\n  \"version\": %d,\n  \"server\": ",
					 BACKUP_FORMAT, BACKUP_VERSION);
	escape_json(&m, server->servername);
	appendStringInfo(&m, ",\n  \"taken_at\": \"%s\",\n  \"timestamps\": \"microseconds\",\n  \"tables\": [",
					 timestamptz_to_str(GetCurrentTimestamp()));
	/* families come in (table, family) order: a table's are together */
	for (int i = 0; i < list_length(families);)
	{
		const char *table = ((WcFamilyInfo *) list_nth(families, i))->table;
		List	   *own = NIL;
		char	   *file;
		uint64		versions;

		for (; i < list_length(families); i++)
		{
			WcFamilyInfo *f = list_nth(families, i);

			if (strcmp(f->table, table) != 0)
				break;
			own = lappend(own, f);
		}
		file = psprintf("table-%d.avro", ++ntables);
		versions = back_up_table(server->serverid, table, psprintf("%s/%s", dir, file));
		manifest_table(&m, table, file, versions, own, ntables == 1);
		total += versions;
		CHECK_FOR_INTERRUPTS();
	}
	appendStringInfoString(&m, "\n  ]\n}\n");

	/* the manifest last: a directory without one is no backup */
	path = psprintf("%s/%s", dir, BACKUP_MANIFEST);
	fp = create_file(path);
	if (fwrite(m.data, 1, m.len, fp) != (size_t) m.len)
	{
		FreeFile(fp);
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", path)));
	}
	finish_file(fp, path);
	fsync_fname(dir, true);
	/* and the new directory's entry in its parent */
	{
		char	   *parent = pstrdup(dir);

		get_parent_directory(parent);
		if (parent[0] != '\0')
			fsync_fname(parent, true);
	}
	return total;
}

/*
 * widecolumn.backup(server name, dir text) RETURNS bigint
 *
 * Makes dir, which must not exist, and writes the backup into it; returns
 * the versions written.  A backup that fails removes what it made.
 */
Datum
wc_backup(PG_FUNCTION_ARGS)
{
	ForeignServer *server = wc_owned_server_arg(fcinfo, 0);
	char	   *dir = dir_arg(fcinfo, true);
	WcTable    *meta = wc_get_meta_table(server->serverid);
	uint32		db;
	uint32		snapshot;
	uint64		total = 0;

	if (wc_txn_table(meta, false) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot back up server \"%s\" after this transaction changed its column families",
						server->servername),
				 errdetail("A backup holds committed data only."),
				 errhint("Commit the changes first.")));
	if (MakePGDirectory(dir) != 0)
	{
		bool		exists = errno == EEXIST;

		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", dir),
				 exists ? errhint("A backup goes into a new directory: remove it, or name another.") : 0));
	}
	PG_TRY();
	{
		/* every read of the backup, families and tables, sees this one */
		db = wc_client_open_db(meta);
		snapshot = wc_client_snapshot_acquire(db);
		total = write_backup(server, dir);
		wc_client_snapshot_release(snapshot);
	}
	PG_CATCH();
	{
		(void) rmtree(dir, true);
		PG_RE_THROW();
	}
	PG_END_TRY();
	PG_RETURN_INT64((int64) total);
}

static pg_attribute_noreturn() void
not_a_backup(const char *dir, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
			 errmsg("\"%s\" is not a backup of widecolumn_fdw %d", dir, BACKUP_VERSION),
			 errdetail_internal("%s", detail)));
}

/* The value of key in the JSON object of o, of type type (jbvNull allowed when nullable). */
static JsonbValue *
json_field(const char *dir, JsonbValue *o, const char *key, enum jbvType type, bool nullable)
{
	JsonbValue *v = NULL;

	if (o->type == jbvBinary && JsonContainerIsObject(o->val.binary.data))
		v = getKeyJsonValueFromContainer(o->val.binary.data, key, strlen(key), NULL);
	if (v == NULL)
		not_a_backup(dir, psprintf("An object of %s has no \"%s\".", BACKUP_MANIFEST, key));
	if (v->type == jbvNull && nullable)
		return NULL;
	if (v->type != type ||
		(type == jbvBinary && !JsonContainerIsArray(v->val.binary.data)))
		not_a_backup(dir, psprintf("The \"%s\" of an object of %s is not a %s.", key, BACKUP_MANIFEST,
								   type == jbvString ? "string" : type == jbvNumeric ? "number" : "list"));
	return v;
}

static char *
json_string(const char *dir, JsonbValue *o, const char *key, bool nullable)
{
	JsonbValue *v = json_field(dir, o, key, jbvString, nullable);

	return v ? pnstrdup(v->val.string.val, v->val.string.len) : NULL;
}

/* A whole number of at most 18 digits, not below 0 (a count, a version). */
static int64
json_int(const char *dir, JsonbValue *o, const char *key)
{
	JsonbValue *v = json_field(dir, o, key, jbvNumeric, false);
	char	   *digits = DatumGetCString(DirectFunctionCall1(numeric_out,
															 NumericGetDatum(v->val.numeric)));

	if (strlen(digits) == 0 || strlen(digits) > 18 || strspn(digits, "0123456789") != strlen(digits))
		not_a_backup(dir, psprintf("The \"%s\" of an object of %s is %s, not a count.",
								   key, BACKUP_MANIFEST, digits));
	return strtoll(digits, NULL, 10);
}

/* The n-th element of the JSON list l. */
static JsonbValue *
json_nth(JsonbValue *l, int n)
{
	return getIthJsonbValueFromContainer(l->val.binary.data, n);
}

static int
json_length(JsonbValue *l)
{
	return JsonContainerSize(l->val.binary.data);
}

/* A file name of a backup's manifest: in the directory, not under or above. */
static bool
plain_file_name(const char *name)
{
	return name[0] != '\0' && strchr(name, '/') == NULL &&
		strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/* The file's whole content, as a C string; *len its bytes. */
static char *
read_whole_file(const char *path, int *len)
{
	FILE	   *fp = AllocateFile(path, PG_BINARY_R);
	StringInfoData s;
	char		buf[8192];
	size_t		n;

	if (fp == NULL)
	{
		bool		missing = errno == ENOENT;

		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\" for reading: %m", path),
				 missing ?
				 errhint("A backup directory is one widecolumn.backup wrote, with its %s.", BACKUP_MANIFEST) : 0));
	}
	initStringInfo(&s);
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		appendBinaryStringInfo(&s, buf, n);
	if (ferror(fp))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read file \"%s\": %m", path)));
	FreeFile(fp);
	*len = s.len;
	return s.data;
}

/*
 * read_manifest
 *		The tables of the backup in dir (BackupTable), as its backup.json
 *		says, checked as far as it can be without reading the files.
 */
static List *
read_manifest(const char *dir)
{
	int			len;
	char	   *text = read_whole_file(psprintf("%s/%s", dir, BACKUP_MANIFEST), &len);
	JsonLexContext *lex;
	JsonParseErrorType parsed;
	Jsonb	   *jb;
	JsonbValue	root;
	JsonbValue *tables;
	List	   *result = NIL;
	ListCell   *lc;

	if (len == 0 || memchr(text, '\0', len) != NULL || !pg_verifymbstr(text, len, true))
		not_a_backup(dir, psprintf("Its %s is empty or not text.", BACKUP_MANIFEST));
	/* parsed once without raising, so that bad JSON is said to be no backup */
	lex = makeJsonLexContextCstringLen(text, len, GetDatabaseEncoding(), true);
	parsed = pg_parse_json(lex, &nullSemAction);
	if (parsed != JSON_SUCCESS)
		not_a_backup(dir, psprintf("Its %s is not JSON: %s", BACKUP_MANIFEST, json_errdetail(parsed, lex)));
	jb = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
	if (!JB_ROOT_IS_OBJECT(jb))
		not_a_backup(dir, psprintf("Its %s is not a JSON object.", BACKUP_MANIFEST));
	root.type = jbvBinary;
	root.val.binary.data = &jb->root;
	root.val.binary.len = VARSIZE(jb) - VARHDRSZ;
	if (strcmp(json_string(dir, &root, "format", false), BACKUP_FORMAT) != 0 ||
		json_int(dir, &root, "version") != BACKUP_VERSION)
		not_a_backup(dir, psprintf("Its %s says another format or version; this one reads \"%s\" version %d.",
								   BACKUP_MANIFEST, BACKUP_FORMAT, BACKUP_VERSION));
	tables = json_field(dir, &root, "tables", jbvBinary, false);
	for (int i = 0; i < json_length(tables); i++)
	{
		JsonbValue *o = json_nth(tables, i);
		BackupTable *bt = palloc0(sizeof(BackupTable));
		JsonbValue *families;
		int64		versions;

		bt->table = json_string(dir, o, "table_name", false);
		if (!wc_valid_table_name(bt->table))
			not_a_backup(dir, psprintf("A stored table's name in %s is empty or longer than %d bytes.",
									   BACKUP_MANIFEST, WC_MAX_QUALIFIER));
		bt->file = json_string(dir, o, "file", false);
		versions = json_int(dir, o, "versions");
		if (!plain_file_name(bt->file) || versions < 0)
			not_a_backup(dir, psprintf("The entry of stored table \"%s\" names the file \"%s\" and " INT64_FORMAT " versions.",
									   bt->table, bt->file, versions));
		bt->versions = (uint64) versions;
		families = json_field(dir, o, "families", jbvBinary, false);
		for (int j = 0; j < json_length(families); j++)
		{
			JsonbValue *fo = json_nth(families, j);
			WcFamilyInfo *f = palloc(sizeof(WcFamilyInfo));

			f->table = bt->table;
			f->family = json_string(dir, fo, "family", false);
			f->policy = json_string(dir, fo, "gc_policy", false);
			f->aggregate = json_string(dir, fo, "aggregate", true);
			bt->families = lappend(bt->families, f);
		}
		/* a backup lists the tables of the family lists: each has one */
		if (bt->families == NIL)
			not_a_backup(dir, psprintf("Stored table \"%s\" has no column family in %s.",
									   bt->table, BACKUP_MANIFEST));
		foreach(lc, result)
		{
			BackupTable *other = lfirst(lc);

			if (strcmp(other->table, bt->table) == 0 || strcmp(other->file, bt->file) == 0)
				not_a_backup(dir, psprintf("Stored table \"%s\" or file \"%s\" is named twice.",
										   bt->table, bt->file));
		}
		result = lappend(result, bt);
	}
	return result;
}

/*
 * check_empty
 *		Refuse to restore into stored table table of the server unless it
 *		holds nothing at all: no version, no tombstone, no family, no drop.
 */
static void
check_empty(ForeignServer *server, const char *table)
{
	WcTable    *t = wc_get_stored_table(server->serverid, table);
	WcTable    *meta = wc_get_meta_table(server->serverid);
	WcRowsAnswer a;

	/* every entry of the table, and of its row of the table of families */
	wc_client_rows(wc_client_open_db(meta),
				   list_make2(wc_table_range(t), wc_row_range(meta, (const uint8 *) table, strlen(table))),
				   1, &a);
	if (a.rows > 0 || !a.complete || wc_txn_table(t, false) != NULL || wc_cells_written(t))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("stored table \"%s\" of server \"%s\" is not empty", table, server->servername),
				 errdetail("A restore writes every version at its old timestamp, which data, a family or a drop already in the table would mix with or hide."),
				 errhint("Restore into a new server (CREATE SERVER), or empty the table with widecolumn.drop_table and then widecolumn.compact, which deletes the drop too.")));
}

/* Load one table's file into the server: its versions. */
static uint64
restore_table(ForeignServer *server, const char *dir, BackupTable *bt)
{
	WcTable    *t = wc_get_stored_table(server->serverid, bt->table);
	char	   *path = psprintf("%s/%s", dir, bt->file);
	FILE	   *fp = AllocateFile(path, PG_BINARY_R);
	uint64		versions = 0;

	if (fp == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\" for reading: %m", path)));
	PG_TRY();
	{
		(void) wc_avro_import_file(t, fp, path, wc_avro_file_size(fp), WC_PROGRESS_RESTORE, &versions);
	}
	PG_FINALLY();
	{
		FreeFile(fp);
	}
	PG_END_TRY();
	if (versions != bt->versions)
		ereport(ERROR,
				(errcode(ERRCODE_BAD_COPY_FILE_FORMAT),
				 errmsg("backup file \"%s\" holds " UINT64_FORMAT " versions of stored table \"%s\"; the backup wrote " UINT64_FORMAT,
						path, versions, bt->table, bt->versions),
				 errdetail("The file was changed or cut short after the backup.")));
	return versions;
}

/* Backup tables in their names' byte order, for list_sort. */
static int
table_cmp(const ListCell *a, const ListCell *b)
{
	const char *x = ((BackupTable *) lfirst(a))->table;
	const char *y = ((BackupTable *) lfirst(b))->table;

	return wc_compare_bytes((const uint8 *) x, strlen(x), (const uint8 *) y, strlen(y));
}

/*
 * widecolumn.restore(server name, dir text) RETURNS bigint
 *
 * Loads the backup in dir into the server, in this transaction; returns
 * the versions loaded.
 */
Datum
wc_restore(PG_FUNCTION_ARGS)
{
	ForeignServer *server = wc_owned_server_arg(fcinfo, 0);
	char	   *dir = dir_arg(fcinfo, false);
	WcTable    *meta = wc_get_meta_table(server->serverid);
	List	   *tables;
	uint64		total = 0;
	ListCell   *lc;

	PreventCommandIfReadOnly("widecolumn.restore()");
	wc_as_of_forbid(false);
	if (wc_txn_table(meta, false) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot restore into server \"%s\" after this transaction changed its column families or dropped rows",
						server->servername),
				 errdetail("Such a change is stamped with the COMMIT's time, and would hide or mix with the versions restored at their old timestamps."),
				 errhint("Commit the changes first, or restore in a transaction of its own.")));
	tables = read_manifest(dir);

	/*
	 * The tables' rows of the family list, locked as create_family locks
	 * them, in one order (the manifest's is the names' byte order) before
	 * they are checked: no commit that changes a table's families comes
	 * between the check and the restore.
	 */
	tables = list_copy(tables);
	list_sort(tables, table_cmp);
	foreach(lc, tables)
	{
		const char *table = ((BackupTable *) lfirst(lc))->table;

		(void) wc_txn_lock_row(meta, (const uint8 *) table, strlen(table), ExclusiveLock,
							   LockWaitBlock);
	}
	foreach(lc, tables)
		check_empty(server, ((BackupTable *) lfirst(lc))->table);
	foreach(lc, tables)
	{
		BackupTable *bt = lfirst(lc);
		ListCell   *fc;

		foreach(fc, bt->families)
		{
			WcFamilyInfo *f = lfirst(fc);

			wc_family_restore(server, bt->table, f->family, f->policy, f->aggregate);
		}
	}
	foreach(lc, tables)
		total += restore_table(server, dir, lfirst(lc));
	PG_RETURN_INT64((int64) total);
}
