/*-------------------------------------------------------------------------
 *
 * families.c
 *	  Column families and their garbage-collection policies: the SQL
 *	  functions widecolumn.create_family, set_gc_policy, drop_family,
 *	  drop_table, families and compact, as Bigtable's admin API and cbt
 *	  have them.
 *
 * A server's families are kept in its own LevelDB database, in the stored
 * table with the empty name (mapping.c, wc_get_meta_table): a row per
 * stored table, whose cell WC_META_FAMILIES_CELL lists the table's
 * families, a line "family<TAB>policy" each, sorted, the policy in its
 * canonical text (common/gcpolicy.c), and for an aggregate family a third
 * field, "sum", "min" or "max" (aggregate.c).  So a copied directory keeps them,
 * and they change as rows do: in the transaction, at its COMMIT, rolled
 * back with it.  A change locks the table's row, as an UPDATE would, so two
 * sessions changing one table's families take turns.
 *
 * Dropping changes the same row: drop_family takes the family off the
 * list and writes a cell WC_META_DROPPED_FAMILY<family>, drop_table a row
 * tombstone.  Their versions are the COMMIT's time, and every version of
 * the family or table older than that is gone at once: the worker's reads
 * hide it (worker/tablemeta.c), and its sweep deletes it later
 * (worker/sweep.c).  So a drop is undone by a ROLLBACK like any write,
 * and a family created again starts empty.
 *
 * A COMMIT that wrote through foreign tables adds the families it wrote
 * to and nobody created, with maxversions=1 (wc_families_written).
 *
 * On a Bigtable server the same rows are written, and the engine makes them
 * Bigtable's admin calls at COMMIT (worker/bigtable/btfamilies.c): the
 * families are Bigtable's own, read back from GetTable.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "foreign/foreign.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "common/aggfold.h"
#include "common/gcpolicy.h"
#include "common/shmem.h"
#include "fdw/fdw.h"
#include "fdw/link/link.h"
#include "fdw/meta/meta.h"
#include "fdw/model/model.h"
#include "fdw/read/read.h"
#include "fdw/xact/xact.h"

/* Bigtable's limits: family names of up to 64 bytes, 1,000 families a table. */
#define WC_MAX_FAMILY_NAME	64
#define WC_MAX_FAMILIES		1000

PG_FUNCTION_INFO_V1(wc_create_family);
PG_FUNCTION_INFO_V1(wc_set_gc_policy);
PG_FUNCTION_INFO_V1(wc_families);
PG_FUNCTION_INFO_V1(wc_drop_family);
PG_FUNCTION_INFO_V1(wc_drop_table);
PG_FUNCTION_INFO_V1(wc_compact);

/* What change_family does to a family. */
typedef enum WcFamilyChange
{
	WC_FAMILY_CREATE,
	WC_FAMILY_SET,
	WC_FAMILY_DROP
} WcFamilyChange;

/* An argument that must not be NULL. */
static void
require_arg(FunctionCallInfo fcinfo, int n, const char *name)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"%s\" must not be null", name)));
}

/*
 * The server, if it is one of ours and the user has USAGE on it (as
 * creating a foreign table on it would need).
 */
static ForeignServer *
server_arg(FunctionCallInfo fcinfo, int n)
{
	ForeignServer *server;
	ForeignDataWrapper *fdw;
	AclResult	acl;

	require_arg(fcinfo, n, "server");
	server = GetForeignServerByName(NameStr(*PG_GETARG_NAME(n)), false);
	fdw = GetForeignDataWrapper(server->fdwid);
	if (!OidIsValid(fdw->fdwhandler) ||
		strcmp(get_func_name(fdw->fdwhandler), "widecolumn_fdw_handler") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("server \"%s\" is not a widecolumn_fdw server", server->servername),
				 errdetail("Its foreign-data wrapper is \"%s\".", fdw->fdwname)));
	acl = pg_foreign_server_aclcheck(server->serverid, GetUserId(), ACL_USAGE);
	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_FOREIGN_SERVER, server->servername);
	return server;
}

/*
 * The server, if the user owns it (or is a superuser): dropping data needs
 * more than USAGE.
 */
ForeignServer *
wc_owned_server_arg(FunctionCallInfo fcinfo, int n)
{
	ForeignServer *server = server_arg(fcinfo, n);

	if (!pg_foreign_server_ownercheck(server->serverid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_FOREIGN_SERVER, server->servername);
	return server;
}

/* A name escaped as a key component. */
static uint8 *
escaped(const char *name, size_t *len)
{
	uint8	   *e = palloc(WC_ESCAPED_MAX(strlen(name)));

	*len = wc_escape((const uint8 *) name, strlen(name), e);
	return e;
}

/* A stored table's name, checked as the option "table" is. */
static void
check_table_name(const char *name)
{
	if (!wc_valid_table_name(name))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid stored table name"),
				 name[0] == '\0' ? errdetail("The name is empty.") :
				 errdetail("The name is %zu bytes long; the limit is %d.",
						   strlen(name), WC_MAX_QUALIFIER)));
}

static char *
table_arg(FunctionCallInfo fcinfo, int n)
{
	char	   *name;

	require_arg(fcinfo, n, "table_name");
	name = text_to_cstring(PG_GETARG_TEXT_PP(n));
	check_table_name(name);
	return name;
}

/* A family's name, as Bigtable allows them. */
static void
check_family_name(const char *name)
{
	if (!wc_valid_family(name, strlen(name)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("invalid column family name \"%s\"", name),
				 errdetail("A family name is not empty and has only letters, digits, \"_\", \"-\" and \".\".")));
	if (strlen(name) > WC_MAX_FAMILY_NAME)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("column family name \"%s\" is too long", name),
				 errdetail("The name is %zu bytes long; the limit is %d.",
						   strlen(name), WC_MAX_FAMILY_NAME)));
}

static char *
family_arg(FunctionCallInfo fcinfo, int n)
{
	char	   *name;

	require_arg(fcinfo, n, "family");
	name = text_to_cstring(PG_GETARG_TEXT_PP(n));
	check_family_name(name);
	return name;
}

/* errdetail for a policy that does not parse (inside an ereport). */
static int
policy_error_detail(WcGcError e, int at)
{
	switch (e)
	{
		case WC_GC_OK:
			break;
		case WC_GC_EMPTY:
			return errdetail("The policy is empty.");
		case WC_GC_EXPECTED_RULE:
			return errdetail("At character %d, \"never\", \"maxversions=\" or \"maxage=\" was expected.", at);
		case WC_GC_BAD_NUMBER:
			return errdetail("At character %d, a whole number of at least 1 was expected.", at);
		case WC_GC_BAD_UNIT:
			return errdetail("At character %d, a unit of age (ms, s, m, h or d) was expected.", at);
		case WC_GC_EXPECTED_JOIN:
			return errdetail("At character %d, \"and\" or \"or\" or the end of the policy was expected.", at);
		case WC_GC_TOO_MANY_RULES:
			return errdetail("At character %d, a second rule of the same kind or a third rule begins; a policy has at most one maxversions and one maxage rule.", at);
		case WC_GC_NEVER_JOINED:
			return errdetail("At character %d: \"never\" cannot be joined with another rule.", at);
		case WC_GC_TOO_LONG:
			return errdetail("The policy is longer than %d bytes.", WC_GC_MAX_TEXT);
	}
	return 0;
}

/* A policy, in its canonical text. */
static char *
canonical_policy(const char *spec)
{
	WcGcPolicy	policy;
	size_t		where;
	WcGcError	e;
	char	   *canonical = palloc(WC_GC_MAX_TEXT);

	e = wc_gc_parse(spec, &policy, &where);
	if (e != WC_GC_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid garbage-collection policy \"%s\"", spec),
				 policy_error_detail(e, (int) where + 1),
				 errhint("Write \"never\", \"maxversions=N\", \"maxage=N\" with a unit ms, s, m, h or d, or one of each joined by \"and\" or \"or\", as cbt setgcpolicy does.")));
	wc_gc_format(&policy, canonical, WC_GC_MAX_TEXT);
	return canonical;
}

static char *
policy_arg(FunctionCallInfo fcinfo, int n)
{
	require_arg(fcinfo, n, "gc_policy");
	return canonical_policy(text_to_cstring(PG_GETARG_TEXT_PP(n)));
}

/* An aggregate's name as a family list keeps it: "sum", "min" or "max". */
static char *
canonical_aggregate(const char *spec, const char *family)
{
	if (wc_agg_tag(spec) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid aggregate \"%s\" for column family \"%s\"",
						spec, family),
				 errhint("An aggregate family is \"sum\", \"min\" or \"max\", as Bigtable's intsum, intmin and intmax.")));
	/* stored in lower case, as a policy is in its canonical text */
	return pstrdup(wc_agg_name(wc_agg_tag(spec)));
}

/* A line of a family list: "family<TAB>policy[<TAB>aggregate]". */
/*
 * next_line
 *		The line at *p of a family list that ends at end; false at the end.
 *		A line without a tab is an error: the list is not what we wrote.
 */
static bool
next_line(const char **p, const char *end, const char *table, WcFamilyLine *line)
{
	if (!wc_family_line_next(p, end, line))
		return false;
	if (line->family == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("malformed list of column families of stored table \"%s\"", table),
				 errdetail("A line of the list has no tab between the family and its policy.")));
	return true;
}

/*
 * list_with
 *		The family list p..end of table with family's line set to policy,
 *		in its place in byte order, or taken out (policy NULL).  Says
 *		whether the family was there, and how many families the list had.
 */
static char *
list_with(const char *table, const char *p, const char *end,
		  const char *family, const char *policy, bool *found, int *count)
{
	WcFamilyLine line;
	StringInfoData out;
	bool		placed = policy == NULL;	/* a drop places no line */

	*found = false;
	*count = 0;
	initStringInfo(&out);
	while (next_line(&p, end, table, &line))
	{
		int			cmp = wc_compare_bytes((const uint8 *) line.family, line.family_len,
										   (const uint8 *) family, strlen(family));

		if (!placed && cmp >= 0)
		{
			appendStringInfo(&out, "%s\t%s\n", family, policy);
			placed = true;
		}
		if (cmp != 0)
			appendBinaryStringInfo(&out, line.start, line.len);
		*found |= cmp == 0;
		(*count)++;
	}
	if (!placed)
		appendStringInfo(&out, "%s\t%s\n", family, policy);
	return out.data;
}

/*
 * lock_list
 *		Lock table's row of the family list in mode, then read the list as
 *		it is now (with this transaction's changes): *p..*end.
 */
static WcTable *
lock_list(Oid serverid, const char *table, LOCKMODE mode,
		  const char **p, const char **end)
{
	WcTable    *meta = wc_get_meta_table(serverid);
	const uint8 **vals;
	size_t	   *lens;

	(void) wc_txn_lock_row(meta, (const uint8 *) table, strlen(table), mode, LockWaitBlock);
	*p = *end = "";
	if (wc_read_row_now(meta, (const uint8 *) table, strlen(table), &vals, &lens) &&
		vals[0] != NULL)
	{
		*p = (const char *) vals[0];
		*end = *p + lens[0];
	}
	return meta;
}

/*
 * put_list
 *		Write table's family list in this transaction, and with a drop of
 *		family its marker (a cell whose version is the drop's time).
 */
static void
put_list(WcTable *meta, const char *table, const char *list, const char *dropped)
{
	WcTxnCell	cells[3];

	cells[0].famqual = meta->cols[1].famqual;
	cells[0].famqual_len = meta->cols[1].famqual_len;
	cells[0].value = (const uint8 *) list;
	cells[0].value_len = strlen(list);
	cells[0].merge = 0;
	if (dropped)
	{
		char	   *marker = psprintf("%s%s", WC_META_DROPPED_FAMILY, dropped);
		uint8	   *fq = palloc(WC_ESCAPED_MAX(2) + WC_ESCAPED_MAX(strlen(marker)));
		size_t		mlen;

		mlen = wc_escape((const uint8 *) "wc", 2, fq);
		mlen += wc_escape((const uint8 *) marker, strlen(marker), fq + mlen);
		cells[1].famqual = fq;
		cells[1].famqual_len = mlen;
		cells[1].value = (const uint8 *) "";
		cells[1].value_len = 0;
		cells[1].merge = 0;
		/* the types written to it go with it (coltypes.c) */
		cells[2].famqual = wc_coltypes_cell(dropped, &cells[2].famqual_len);
		cells[2].value = NULL;
		cells[2].value_len = 0;
		cells[2].merge = 0;
	}
	wc_txn_put_row(meta, GetCurrentCommandId(true), (const uint8 *) table, strlen(table),
				   false, dropped ? 3 : 1, cells);
}

static pg_attribute_noreturn() void
too_many_families(const char *table)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("stored table \"%s\" has too many column families", table),
			 errdetail("A table has at most %d families, as in Bigtable.", WC_MAX_FAMILIES)));
}

/*
 * change_family
 *		Set family's policy in table's family list, or take it off the list
 *		(WC_FAMILY_DROP: policy is NULL); the family must be new only for
 *		WC_FAMILY_CREATE.  A drop returns the versions it deletes.
 */
/*
 * On a Bigtable server a drop's count is not had: Bigtable does not say
 * how many versions a drop deletes, and counting them would read the whole
 * table (or family) from Bigtable first.  The drop returns NULL there.
 */
static bool
drops_are_counted(WcTable *meta)
{
	return meta->engine != WC_ENGINE_BIGTABLE;
}

static uint64
change_family(ForeignServer *server, const char *table, const char *family,
			  const char *policy, const char *aggregate, WcFamilyChange change)
{
	bool		create = change == WC_FAMILY_CREATE;
	uint64		deleted = 0;
	const char *p;
	const char *end;
	WcTable    *meta;
	char	   *list;
	bool		found;
	int			count;

	PreventCommandIfReadOnly(change == WC_FAMILY_CREATE ? "widecolumn.create_family()" :
							 change == WC_FAMILY_SET ? "widecolumn.set_gc_policy()" :
							 "widecolumn.drop_family()");
	wc_as_of_forbid(false);
	meta = lock_list(server->serverid, table, ExclusiveLock, &p, &end);

	/* a new policy keeps the family's aggregate: its stored merges need it */
	if (change == WC_FAMILY_SET)
		aggregate = wc_family_list_aggregate(table, p, end - p, family);
	if (aggregate != NULL)
		policy = psprintf("%s\t%s", policy, aggregate);
	list = list_with(table, p, end, family, policy, &found, &count);

	if (create && found)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("column family \"%s\" of stored table \"%s\" already exists",
						family, table),
				 errhint("Use widecolumn.set_gc_policy() to change its policy.")));
	if (!create && !found)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("column family \"%s\" of stored table \"%s\" does not exist",
						family, table),
				 change == WC_FAMILY_SET ?
				 errhint("Create it with widecolumn.create_family().") : 0));
	if (create && count >= WC_MAX_FAMILIES)
		too_many_families(table);

	if (change == WC_FAMILY_DROP && drops_are_counted(meta))
	{
		size_t		tlen,
					flen;
		uint8	   *etable = escaped(table, &tlen);
		uint8	   *efamily = escaped(family, &flen);

		deleted = wc_client_count(wc_client_open_db(meta), etable, tlen, efamily, flen);
	}
	put_list(meta, table, list, change == WC_FAMILY_DROP ? family : NULL);
	return deleted;
}

/*
 * The family lists this session read last, and the count of family-list
 * changes (WcShared.family_changes) when it did: while the count is the
 * same, a list it read has every family it had then.
 */
typedef struct WcKnownList
{
	Oid			serverid;
	char	   *table;
	char	   *list;
	uint64		changes;
} WcKnownList;

static List *known_lists = NIL;

/* Has list every one of the n families? */
static bool
list_has_all(const char *table, const char *list, const char **families, int n)
{
	for (int i = 0; i < n; i++)
	{
		const char *p = list;
		const char *end = list + strlen(list);
		WcFamilyLine line;
		bool		has = false;

		while (!has && next_line(&p, end, table, &line))
			has = line.family_len == strlen(families[i]) &&
				memcmp(line.family, families[i], line.family_len) == 0;
		if (!has)
			return false;
	}
	return true;
}

/* Read table's family list into known, as of the change count changes. */
static void
known_list_read(WcKnownList *known, WcTable *meta, uint64 changes)
{
	const uint8 **vals;
	size_t	   *lens;
	size_t		len = 0;

	if (wc_read_row_now(meta, (const uint8 *) known->table, strlen(known->table),
						&vals, &lens) && vals[0] != NULL)
		len = lens[0];
	pfree(known->list);
	known->list = MemoryContextAlloc(TopMemoryContext, len + 1);
	if (len > 0)
		memcpy(known->list, vals[0], len);
	known->list[len] = '\0';
	known->changes = changes;
}

/*
 * wc_families_written
 *		Before COMMIT sends the writes: add to table's family list, with the
 *		policy maxversions=1, each of the n families that the transaction
 *		wrote through foreign tables and the list lacks.
 *
 * A family that nobody created thus behaves as a PostgreSQL user expects
 * of a column: it keeps no history.  The list's row is share-locked, so
 * that no family this commit writes to is dropped or changed until it has
 * ended; a list this session read before, and that no commit has changed
 * since, is trusted without reading it again.
 */
void
wc_families_written(Oid serverid, const char *table, const char **families, int n)
{
	WcKnownList *known = NULL;
	ListCell   *lc;
	WcTable    *meta;
	char	   *list;
	bool		changed = false;
	uint64		changes;

	foreach(lc, known_lists)
	{
		WcKnownList *k = lfirst(lc);

		if (k->serverid == serverid && strcmp(k->table, table) == 0)
			known = k;
	}
	if (known == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		known = palloc0(sizeof(WcKnownList));
		known->serverid = serverid;
		known->table = pstrdup(table);
		known->list = pstrdup("");
		known->changes = PG_UINT64_MAX;
		known_lists = lappend(known_lists, known);
		MemoryContextSwitchTo(old);
	}

	/*
	 * The count is read before the list, so that a change that commits
	 * in between is seen the next time.  A list not read since the last
	 * change is read first without a lock: if it has every family, the
	 * share lock will do, and sessions that begin writing at once
	 * (counters merging into an aggregate family, aggregate.c) do not
	 * queue for the exclusive lock.
	 */
	changes = pg_atomic_read_u64(&wc_shared->family_changes);
	meta = wc_get_meta_table(serverid);
	if (known->changes != changes)
		known_list_read(known, meta, changes);
	if (list_has_all(table, known->list, families, n))
	{
		(void) wc_txn_lock_row(meta, (const uint8 *) table, strlen(table), ShareLock,
							   LockWaitBlock);
		if (pg_atomic_read_u64(&wc_shared->family_changes) == changes)
			return;

		/*
		 * Some change committed between the read and the lock (any
		 * table's list, or a record of column types, coltypes.c).  None
		 * can now, so the list read again is the one this commit writes
		 * under.  Asking for the exclusive lock while holding the share
		 * lock would deadlock with another session doing the same, as
		 * sessions committing their first writes at once did when one of
		 * them recorded its columns' types (test/t/002 under TSan).
		 */
		known_list_read(known, meta, pg_atomic_read_u64(&wc_shared->family_changes));
		if (list_has_all(table, known->list, families, n))
			return;

		/*
		 * A family of the commit was dropped in between (rare).  Nothing
		 * was read under the share lock that the exclusive one will not
		 * read again, so it is given back first: two sessions upgrading
		 * would each wait for the other's share lock.
		 */
		wc_txn_unlock_row(meta, (const uint8 *) table, strlen(table), ShareLock);
	}

	/* Lock it for a change at once: two sessions upgrading would deadlock. */
	(void) wc_txn_lock_row(meta, (const uint8 *) table, strlen(table), ExclusiveLock,
						   LockWaitBlock);
	known_list_read(known, meta, changes);

	list = known->list;
	for (int i = 0; i < n; i++)
	{
		bool		found;
		int			count;
		char	   *with = list_with(table, list, list + strlen(list), families[i],
									 "maxversions=1", &found, &count);

		if (found)
			continue;
		if (count >= WC_MAX_FAMILIES)
			too_many_families(table);
		list = with;
		changed = true;
	}
	if (changed)
		put_list(meta, table, list, NULL);
}

/*
 * wc_family_list_aggregate
 *		The aggregate of family in table's family list list[0, len), or
 *		NULL if it has none or is not there.
 */
char *
wc_family_list_aggregate(const char *table, const char *list, size_t len,
						 const char *family)
{
	const char *p = list;
	WcFamilyLine line;

	while (next_line(&p, list + len, table, &line))
		if (line.family_len == strlen(family) &&
			memcmp(line.family, family, line.family_len) == 0)
			return line.aggregate ? pnstrdup(line.aggregate, line.aggregate_len) : NULL;
	return NULL;
}

/*
 * wc_families_forget
 *		The transaction was rolled back: the lists read at its COMMIT, with
 *		its own changes in them, are not what is stored.
 */
void
wc_families_forget(void)
{
	ListCell   *lc;

	foreach(lc, known_lists)
		((WcKnownList *) lfirst(lc))->changes = PG_UINT64_MAX;
}

/* A commit that changed a family list has been applied. */
void
wc_families_changed(void)
{
	pg_atomic_fetch_add_u64(&wc_shared->family_changes, 1);
}

/*
 * widecolumn.create_family(server name, table_name text, family text,
 *                          gc_policy text DEFAULT 'maxversions=1',
 *                          aggregate text DEFAULT NULL)
 */
Datum
wc_create_family(PG_FUNCTION_ARGS)
{
	ForeignServer *server = server_arg(fcinfo, 0);
	char	   *table = table_arg(fcinfo, 1);
	char	   *family = family_arg(fcinfo, 2);
	char	   *policy = policy_arg(fcinfo, 3);
	char	   *aggregate = PG_ARGISNULL(4) ? NULL :
		canonical_aggregate(text_to_cstring(PG_GETARG_TEXT_PP(4)), family);

	(void) change_family(server, table, family, policy, aggregate, WC_FAMILY_CREATE);
	PG_RETURN_VOID();
}

/* widecolumn.set_gc_policy(server name, table_name text, family text, gc_policy text) */
Datum
wc_set_gc_policy(PG_FUNCTION_ARGS)
{
	ForeignServer *server = server_arg(fcinfo, 0);
	char	   *table = table_arg(fcinfo, 1);
	char	   *family = family_arg(fcinfo, 2);
	char	   *policy = policy_arg(fcinfo, 3);

	(void) change_family(server, table, family, policy, NULL, WC_FAMILY_SET);
	PG_RETURN_VOID();
}

/*
 * widecolumn.families(server name)
 *		RETURNS TABLE (table_name text, family text, gc_policy text,
 *					   aggregate text)
 *
 * Every family of every stored table of the server, in (table, family)
 * order, as the statement's snapshot and this transaction's changes have
 * them; aggregate is "sum", "min" or "max" for an aggregate family, NULL
 * for any other.
 */
Datum
wc_families(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ForeignServer *server = server_arg(fcinfo, 0);
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	/* 0.7.0's definition, until ALTER EXTENSION UPDATE, has no aggregate */
	Assert(rsinfo->setDesc->natts == 3 || rsinfo->setDesc->natts == 4);
	foreach(lc, wc_families_read(server->serverid))
	{
		WcFamilyInfo *f = lfirst(lc);
		Datum		values[4];
		bool		nulls[4] = {false, false, false, f->aggregate == NULL};

		values[0] = CStringGetTextDatum(f->table);
		values[1] = CStringGetTextDatum(f->family);
		values[2] = CStringGetTextDatum(f->policy);
		if (f->aggregate != NULL)
			values[3] = CStringGetTextDatum(f->aggregate);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * wc_families_read
 *		Every family of every stored table of the server (WcFamilyInfo), in
 *		(table, family) order, as the statement's snapshot and this
 *		transaction's changes have them.
 */
List *
wc_families_read(Oid serverid)
{
	WcTable    *meta = wc_get_meta_table(serverid);
	const uint8 *key;
	size_t		keylen;
	const uint8 **vals;
	size_t	   *lens;
	uint32		db;
	uint32		snapshot;
	struct WcScanState *scan;
	List	   *families = NIL;

	db = wc_client_open_db(meta);
	snapshot = wc_client_snapshot_acquire(db);
	scan = wc_read_rows_begin(meta, db, snapshot);
	while (wc_read_rows_next(scan, &key, &keylen, &vals, &lens))
	{
		const char *p = (const char *) vals[0];
		const char *end = p + (vals[0] ? lens[0] : 0);
		char	   *table = pnstrdup((const char *) key, keylen);
		WcFamilyLine line;

		while (next_line(&p, end, table, &line))
		{
			WcFamilyInfo *f = palloc(sizeof(WcFamilyInfo));

			f->table = table;
			f->family = pnstrdup(line.family, line.family_len);
			f->policy = pnstrdup(line.policy, line.policy_len);
			f->aggregate = line.aggregate ? pnstrdup(line.aggregate, line.aggregate_len) : NULL;
			families = lappend(families, f);
		}
	}
	wc_read_rows_end(scan);
	wc_client_snapshot_release(snapshot);
	return families;
}

/*
 * wc_family_restore
 *		Create a family of a backup (backup.c): its names, policy and
 *		aggregate checked as create_family checks its arguments.
 */
void
wc_family_restore(ForeignServer *server, const char *table, const char *family,
				  const char *policy, const char *aggregate)
{
	check_table_name(table);
	check_family_name(family);
	(void) change_family(server, table, family, canonical_policy(policy),
						 aggregate ? canonical_aggregate(aggregate, family) : NULL,
						 WC_FAMILY_CREATE);
}

/*
 * widecolumn.drop_family(server name, table_name text, family text)
 *		RETURNS bigint
 *
 * The family's versions that a read could return (now, or as of an older
 * time) are gone when the transaction commits; returns how many.
 */
Datum
wc_drop_family(PG_FUNCTION_ARGS)
{
	ForeignServer *server = wc_owned_server_arg(fcinfo, 0);
	char	   *table = table_arg(fcinfo, 1);
	char	   *family = family_arg(fcinfo, 2);

	uint64		deleted = change_family(server, table, family, NULL, NULL, WC_FAMILY_DROP);

	if (!drops_are_counted(wc_get_meta_table(server->serverid)))
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) deleted);
}

/*
 * widecolumn.drop_table(server name, table_name text) RETURNS bigint
 *
 * The table's families and data are gone when the transaction commits; a
 * row tombstone on its row of the family list says since when.  Returns
 * the versions deleted, as drop_family does.
 */
Datum
wc_drop_table(PG_FUNCTION_ARGS)
{
	ForeignServer *server = wc_owned_server_arg(fcinfo, 0);
	char	   *table = table_arg(fcinfo, 1);
	WcTable    *meta = wc_get_meta_table(server->serverid);
	const uint8 *key = (const uint8 *) table;
	size_t		keylen = strlen(table);
	const uint8 **vals;
	size_t	   *lens;
	bool		listed;
	size_t		tlen;
	uint8	   *etable = escaped(table, &tlen);
	uint64		deleted = 0;
	bool		counted = drops_are_counted(meta);

	PreventCommandIfReadOnly("widecolumn.drop_table()");
	wc_as_of_forbid(false);
	(void) wc_txn_lock_row(meta, key, keylen, ExclusiveLock, LockWaitBlock);
	listed = wc_read_row_now(meta, key, keylen, &vals, &lens);
	/* the count walks the table: it is what takes long (an error ends it too) */
	if (counted)
	{
		wc_progress_begin(WC_PROGRESS_DROP_TABLE, table, WC_UNIT_BYTES_WALKED, false, 0);
		deleted = wc_client_count(wc_client_open_db(meta), etable, tlen, NULL, 0);
		wc_progress_end();
	}
	if (!listed && deleted == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("stored table \"%s\" does not exist", table),
				 errdetail("It has no column families and no data.")));
	wc_txn_put_row(meta, GetCurrentCommandId(true), key, keylen, true, 0, NULL);
	if (!counted)
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) deleted);
}

/*
 * widecolumn.compact(server name, table_name text DEFAULT NULL)
 *		RETURNS bigint
 *
 * Deletes at once what the background sweep would (the versions the
 * policies delete, dropped tables and families, tombstones that hide
 * nothing any more) in the table, or in every table of the server, then
 * has LevelDB compact it so that its files shrink.  Returns the entries
 * deleted.  It changes no data a read can see, so it is not part of the
 * transaction.
 */
Datum
wc_compact(PG_FUNCTION_ARGS)
{
	ForeignServer *server = server_arg(fcinfo, 0);
	WcTable    *meta = wc_get_meta_table(server->serverid);
	uint8	   *etable = NULL;
	size_t		tlen = 0;
	char	   *table = NULL;
	uint64		deleted;

	if (!PG_ARGISNULL(1))
	{
		table = table_arg(fcinfo, 1);
		etable = escaped(table, &tlen);
	}
	/* an error ends it with the transaction */
	wc_progress_begin(WC_PROGRESS_COMPACT, table, WC_UNIT_BYTES_WALKED, false, 0);
	deleted = wc_client_compact(wc_client_open_db(meta), etable, tlen);
	wc_progress_end();
	PG_RETURN_INT64((int64) deleted);
}

/*
 * wc_family_policies
 *		The families of t's stored table, in byte order, with their
 *		policies and aggregates (NULL: none), as they are now, for the
 *		schema advisor: it reads them with SELECT on t, which families()
 *		does not ask for.  Returns how many.
 */
int
wc_family_policies(WcTable *t, char ***names, char ***policies, char ***aggregates)
{
	WcTable    *meta = wc_get_meta_table(t->serverid);
	const uint8 **vals;
	size_t	   *lens;
	const char *p = "";
	const char *end = p;
	WcFamilyLine line;
	int			n = 0;

	if (wc_read_row_now(meta, (const uint8 *) t->table, strlen(t->table), &vals, &lens) &&
		vals[0] != NULL)
	{
		p = (const char *) vals[0];
		end = p + lens[0];
	}
	*names = palloc(sizeof(char *) * (WC_MAX_FAMILIES + 1));
	*policies = palloc(sizeof(char *) * (WC_MAX_FAMILIES + 1));
	*aggregates = palloc(sizeof(char *) * (WC_MAX_FAMILIES + 1));
	while (n <= WC_MAX_FAMILIES && next_line(&p, end, t->table, &line))
	{
		(*names)[n] = pnstrdup(line.family, line.family_len);
		(*policies)[n] = pnstrdup(line.policy, line.policy_len);
		(*aggregates)[n] = line.aggregate ? pnstrdup(line.aggregate, line.aggregate_len) : NULL;
		n++;
	}
	return n;
}
