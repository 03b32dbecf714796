/*-------------------------------------------------------------------------
 *
 * declcheck.c
 *	  Checks of a foreign table's declaration that need its columns, made
 *	  as CREATE FOREIGN TABLE and ALTER FOREIGN TABLE end: the validator
 *	  (option.c) sees one option at a time and no column.
 *
 * - A text or varchar row key, or last row-key part, whose collation does
 *   not sort as bytes gets a NOTICE: LevelDB keeps the keys in byte order,
 *   so ranges and ORDER BY on it are not pushed down (pushdown.c,
 *   partorder.c), and the fix is one ALTER.
 * - A rowkey_format that does not fit its column's type, or contains the
 *   table's delimiter, is refused (keyformat.c).
 * Everything else about the mapping is checked when the table is first
 * used (mapping.c), since a table may be declared over several
 * statements.  ALTER checks only the columns it names (all of them when it
 * changes the table's options), so the NOTICE is not repeated for every
 * ALTER.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"

#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/model/model.h"

static ProcessUtility_hook_type prev_process_utility = NULL;

/* Is this foreign-data wrapper ours? */
static bool
is_widecolumn_fdw(Oid fdwid)
{
	ForeignDataWrapper *fdw = GetForeignDataWrapper(fdwid);

	return OidIsValid(fdw->fdwhandler) &&
		strcmp(get_func_name(fdw->fdwhandler), "widecolumn_fdw_handler") == 0;
}

/* Is this relation a foreign table of ours? */
bool
wc_is_widecolumn_table(Oid relid)
{
	return get_rel_relkind(relid) == RELKIND_FOREIGN_TABLE &&
		is_widecolumn_fdw(GetForeignServer(GetForeignTable(relid)->serverid)->fdwid);
}

static void
notice_collation(Relation rel, Form_pg_attribute att, bool part)
{
	const char *relname = RelationGetRelationName(rel);
	const char *colname = NameStr(att->attname);
	const char *coll = OidIsValid(att->attcollation) ?
		get_collation_name(att->attcollation) : "none";
	const char *alter = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												   relname);

	if (part)
		ereport(NOTICE,
				(errmsg("ranges and ordering on row-key part \"%s\" of foreign table \"%s\" will not be pushed down",
						colname, relname),
				 errdetail("Collation \"%s\" does not sort as bytes, and the stored row keys are in byte order.",
						   coll),
				 errhint("Declare the column with COLLATE \"C\": ALTER FOREIGN TABLE %s ALTER COLUMN %s TYPE %s COLLATE \"C\".",
						 alter, quote_identifier(colname),
						 format_type_with_typemod(att->atttypid, att->atttypmod))));
	else
		ereport(NOTICE,
				(errmsg("ranges and ordering on row-key column \"%s\" of foreign table \"%s\" will not be pushed down",
						colname, relname),
				 errdetail("Collation \"%s\" does not sort as bytes, and the stored row keys are in byte order.",
						   coll),
				 errhint("Declare the column with COLLATE \"C\": ALTER FOREIGN TABLE %s ALTER COLUMN %s TYPE %s COLLATE \"C\".",
						 alter, quote_identifier(colname),
						 format_type_with_typemod(att->atttypid, att->atttypmod))));
}

static bool
sorts_as_bytes(Form_pg_attribute att)
{
	Oid			type = getBaseType(att->atttypid);

	if (type != TEXTOID && type != VARCHAROID)
		return true;
	return wc_collation_is_bytewise(type, att->attcollation);
}

/*
 * check_table
 *		The checks above, for the columns named in touched (all: every one).
 */
static void
check_table(Oid relid, List *touched, bool all)
{
	Relation	rel = table_open(relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	WcTable		t;
	int			nparts = 0;
	int			last_part = 0;
	int			key = 0;
	int			named_key = 0;
	ListCell   *lc;

	memset(&t, 0, sizeof(t));
	t.relname = RelationGetRelationName(rel);
	foreach(lc, GetForeignTable(relid)->options)
	{
		DefElem    *def = lfirst(lc);

		if (strcmp(def->defname, "rowkey_delimiter") == 0)
			t.delimiter = wc_parse_delimiter(def);
	}

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		int			part = 0;
		bool		rowkey = false;
		bool		rowkey_said = false;
		bool		cell = false;
		WcColumn	col;

		if (att->attisdropped)
			continue;
		memset(&col, 0, sizeof(col));
		col.name = NameStr(att->attname);
		col.type = getBaseType(att->atttypid);
		foreach(lc, GetForeignColumnOptions(relid, att->attnum))
		{
			DefElem    *def = lfirst(lc);

			if (strcmp(def->defname, "rowkey_part") == 0)
				part = wc_parse_size_option(def, 1, WC_MAX_ROWKEY_PARTS);
			else if (strcmp(def->defname, "rowkey") == 0)
			{
				rowkey = defGetBoolean(def);
				rowkey_said = true;
			}
			else if (strcmp(def->defname, "column") == 0 || strcmp(def->defname, "family") == 0)
				cell = true;
			else if (strcmp(def->defname, "rowkey_format") == 0)
				col.rowkey_format = wc_keyformat_parse(defGetString(def));
		}
		if (part > 0)
		{
			nparts++;
			if (part >= last_part)
				last_part = part;
			if (all || list_member(touched, makeString(col.name)))
				wc_keyformat_check(&t, &col);
		}
		else if (rowkey && key == 0)
			key = att->attnum;
		else if (!rowkey_said && !cell && strcmp(col.name, "rowkey") == 0)
			named_key = att->attnum;
	}

	/* as mapping.c decides which column is the row key */
	if (nparts == 0 && key == 0)
		key = named_key;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		bool		is_last_part = false;

		if (att->attisdropped || !(all || list_member(touched, makeString(NameStr(att->attname)))))
			continue;
		if (nparts > 0)
			foreach(lc, GetForeignColumnOptions(relid, att->attnum))
			{
				DefElem    *def = lfirst(lc);

				if (strcmp(def->defname, "rowkey_part") == 0 &&
					wc_parse_size_option(def, 1, WC_MAX_ROWKEY_PARTS) == last_part)
					is_last_part = true;
			}
		if ((att->attnum == key && nparts == 0) || is_last_part)
			if (!sorts_as_bytes(att))
				notice_collation(rel, att, is_last_part);
	}
	table_close(rel, AccessShareLock);
}

/*
 * wc_declcheck_utility
 *		After CREATE or ALTER of one of our foreign tables, check it.
 */
static void
wc_declcheck_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
					 ProcessUtilityContext context, ParamListInfo params,
					 QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;
	RangeVar   *created = NULL;
	Oid			altered = InvalidOid;
	List	   *touched = NIL;
	bool		all = false;
	ListCell   *lc;

	/*
	 * What to check, decided before the statement runs (and may change its
	 * tree): nothing unless the table is, or will be, one of ours.
	 */
	if (context != PROCESS_UTILITY_SUBCOMMAND && IsA(parsetree, CreateForeignTableStmt))
	{
		CreateForeignTableStmt *stmt = (CreateForeignTableStmt *) parsetree;
		ForeignServer *server = GetForeignServerByName(stmt->servername, true);

		if (server != NULL && is_widecolumn_fdw(server->fdwid))
		{
			created = copyObject(stmt->base.relation);
			all = true;
		}
	}
	else if (context != PROCESS_UTILITY_SUBCOMMAND && IsA(parsetree, AlterTableStmt) &&
			 (((AlterTableStmt *) parsetree)->objtype == OBJECT_FOREIGN_TABLE ||
			  ((AlterTableStmt *) parsetree)->objtype == OBJECT_TABLE))
	{
		AlterTableStmt *stmt = (AlterTableStmt *) parsetree;

		foreach(lc, stmt->cmds)
		{
			AlterTableCmd *cmd = lfirst(lc);

			if (cmd->subtype == AT_AddColumn)
				touched = lappend(touched, makeString(pstrdup(((ColumnDef *) cmd->def)->colname)));
			else if (cmd->subtype == AT_AlterColumnType ||
					 cmd->subtype == AT_AlterColumnGenericOptions)
				touched = lappend(touched, makeString(pstrdup(cmd->name)));
			else if (cmd->subtype == AT_GenericOptions)
				all = true;
		}
		if (touched != NIL || all)
		{
			Oid			relid = RangeVarGetRelid(stmt->relation, NoLock, true);

			if (OidIsValid(relid) && wc_is_widecolumn_table(relid))
				altered = relid;
		}
	}

	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context, params,
							 queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params,
								queryEnv, dest, qc);

	if (created != NULL || OidIsValid(altered))
	{
		/* see what the statement's last subcommand wrote */
		CommandCounterIncrement();
		if (created != NULL)
			altered = RangeVarGetRelid(created, NoLock, true);
		if (OidIsValid(altered))
			check_table(altered, touched, all);
	}
}

void
wc_declcheck_init(void)
{
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = wc_declcheck_utility;
}
