/*-------------------------------------------------------------------------
 *
 * cellwrite.c
 *	  INSERT, UPDATE and DELETE of a cells-layout foreign table.
 *
 * Each statement names cell versions: INSERT writes the version at its ts
 * (Bigtable's SetCell with a timestamp; NULL: the commit's time, as a
 * mapped table's write), UPDATE of value rewrites the version it read,
 * DELETE removes exactly the versions it read.  They go to the
 * transaction's log of cell versions (celllog.c), which COMMIT sends.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "optimizer/appendinfo.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "fdw/cells/cells.h"
#include "fdw/exec/exec.h"
#include "fdw/model/model.h"
#include "fdw/xact/xact.h"

/* Executor state of a cells-layout result relation. */
typedef struct WcCellsModify
{
	WcCellsTable *ct;
	AttrNumber	junk[4];		/* rowkey, family, qualifier, ts of the version read */
	AttrNumber	wholerow;		/* DELETE RETURNING: the row read, or 0 */
	MemoryContext row_cxt;
} WcCellsModify;

static const char *const junk_names[] = {"wc_cell_rowkey", "wc_cell_family",
"wc_cell_qualifier", "wc_cell_ts"};

/* Log one operation on the version (rowkey, famqual, ts) of a cells table. */
static void
log_op(WcCellsTable *ct, const uint8 *rowkey, size_t rowkey_len,
	   const uint8 *famqual, size_t famqual_len, bool at_ts, uint64 ts,
	   bool remove, const uint8 *value, size_t value_len)
{
	WcCellsRow	row;

	if (!remove)
		wc_rowkey_check_write(ct->t, rowkey_len);
	wc_cells_begin_row(&row, ct->t, rowkey, rowkey_len);
	wc_cells_log_version(&row, famqual, famqual_len, at_ts, ts, remove, value, value_len);
}

static void
wcCellsAddForeignUpdateTargets(PlannerInfo *root, Index rtindex,
							   RangeTblEntry *target_rte, Relation target_relation)
{
	WcCellsTable *ct = wc_cells_table(RelationGetRelid(target_relation));
	TupleDesc	desc = RelationGetDescr(target_relation);
	int			attnums[] = {ct->rowkey, ct->family, ct->qualifier, ct->ts};

	/* a version is named by its row key, family, qualifier and timestamp */
	for (int i = 0; i < 4; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, attnums[i] - 1);

		add_row_identity_var(root, makeVar(rtindex, attnums[i], att->atttypid,
										   att->atttypmod, att->attcollation, 0),
							 rtindex, junk_names[i]);
	}
	/* DELETE RETURNING returns the version as it was (UPDATE has it anyway) */
	if (root->parse->commandType == CMD_DELETE && root->parse->returningList != NIL)
		add_row_identity_var(root, makeVar(rtindex, InvalidAttrNumber, RECORDOID, -1, InvalidOid, 0),
							 rtindex, "wholerow");
}

static List *
wcCellsPlanForeignModify(PlannerInfo *root, ModifyTable *plan, Index resultRelation,
						 int subplan_index)
{
	if (plan->onConflictAction != ONCONFLICT_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("INSERT with ON CONFLICT is not supported on a cells-layout foreign table"),
				 errdetail("An INSERT of a version that exists rewrites it.")));
	return list_make1(makeString(WC_CELLS_MARKER));
}

static WcCellsModify *
modify_state(ResultRelInfo *rinfo, EState *estate)
{
	WcCellsModify *ms = palloc0(sizeof(WcCellsModify));

	ms->ct = wc_cells_table(RelationGetRelid(rinfo->ri_RelationDesc));
	ms->row_cxt = AllocSetContextCreate(estate->es_query_cxt, "widecolumn_fdw cells write",
										ALLOCSET_SMALL_SIZES);
	wc_as_of_forbid(false);
	rinfo->ri_FdwState = ms;
	return ms;
}

static void
wcCellsBeginForeignModify(ModifyTableState *mtstate, ResultRelInfo *rinfo,
						  List *fdw_private, int subplan_index, int eflags)
{
	WcCellsModify *ms;

	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	ms = modify_state(rinfo, mtstate->ps.state);
	if (mtstate->operation == CMD_UPDATE || mtstate->operation == CMD_DELETE)
	{
		Plan	   *subplan = outerPlanState(mtstate)->plan;

		for (int i = 0; i < 4; i++)
		{
			ms->junk[i] = ExecFindJunkAttributeInTlist(subplan->targetlist, junk_names[i]);
			if (!AttributeNumberIsValid(ms->junk[i]))
				elog(ERROR, "could not find junk column %s", junk_names[i]);
		}
		ms->wholerow = ExecFindJunkAttributeInTlist(subplan->targetlist, "wholerow");
	}
}

static void
wcCellsBeginForeignInsert(ModifyTableState *mtstate, ResultRelInfo *rinfo)
{
	(void) modify_state(rinfo, mtstate->ps.state);
}

static pg_attribute_noreturn() void
null_column(WcCellsTable *ct, const char *col)
{
	ereport(ERROR,
			(errcode(ERRCODE_NOT_NULL_VIOLATION),
			 errmsg("null value in column \"%s\" of cells-layout foreign table \"%s\"",
					col, ct->t->relname),
			 errdetail("Only ts may be NULL: the version is then written at the commit's time.")));
}

/* The escaped family and qualifier of a version. */
static uint8 *
famqual_of(WcCellsTable *ct, Datum family, Datum qualifier, size_t *len)
{
	struct varlena *f = PG_DETOAST_DATUM_PACKED(family);
	struct varlena *q = PG_DETOAST_DATUM_PACKED(qualifier);
	size_t		flen = VARSIZE_ANY_EXHDR(f);
	size_t		qlen = VARSIZE_ANY_EXHDR(q);
	uint8	   *out;

	if (!wc_valid_family(VARDATA_ANY(f), flen))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid column family name \"%s\"", text_to_cstring((text *) f)),
				 errdetail("A family name may contain only letters, digits, \"_\", \"-\" and \".\", and may not be empty.")));
	if (qlen > WC_MAX_QUALIFIER)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("qualifier is too long"),
				 errdetail("The qualifier is %zu bytes; the limit is %d.", qlen, WC_MAX_QUALIFIER)));
	out = palloc(WC_ESCAPED_MAX(flen) + WC_ESCAPED_MAX(qlen));
	*len = wc_escape((const uint8 *) VARDATA_ANY(f), flen, out);
	*len += wc_escape((const uint8 *) VARDATA_ANY(q), qlen, out + *len);
	return out;
}

/* A timestamptz as the µs since the Unix epoch a key stores. */
static uint64
key_ts(WcCellsTable *ct, TimestampTz ts)
{
	if (TIMESTAMP_NOT_FINITE(ts) || ts < -WC_UNIX_EPOCH_OFFSET_US ||
		ts > PG_INT64_MAX - WC_UNIX_EPOCH_OFFSET_US)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp out of range for a cell version of foreign table \"%s\"",
						ct->t->relname),
				 errdetail("A version's timestamp is a finite time from 1970-01-01 00:00:00 UTC on.")));
	return (uint64) (ts + WC_UNIX_EPOCH_OFFSET_US);
}

static TupleTableSlot *
wcCellsExecForeignInsert(EState *estate, ResultRelInfo *rinfo,
						 TupleTableSlot *slot, TupleTableSlot *planSlot)
{
	WcCellsModify *ms = rinfo->ri_FdwState;
	WcCellsTable *ct = ms->ct;
	MemoryContext old = MemoryContextSwitchTo(ms->row_cxt);
	const uint8 *rowkey;
	size_t		rowkey_len;
	uint8	   *fq;
	size_t		fqlen;
	StringInfoData value;
	bool		at_ts;

	slot_getallattrs(slot);
	if (slot->tts_isnull[ct->rowkey - 1])
		null_column(ct, "rowkey");
	if (slot->tts_isnull[ct->family - 1])
		null_column(ct, "family");
	if (slot->tts_isnull[ct->qualifier - 1])
		null_column(ct, "qualifier");
	if (slot->tts_isnull[ct->value - 1])
		null_column(ct, "value");
	wc_rowkey_bytes(slot->tts_values[ct->rowkey - 1], ct->rowkey_type, &rowkey, &rowkey_len);
	fq = famqual_of(ct, slot->tts_values[ct->family - 1], slot->tts_values[ct->qualifier - 1],
					&fqlen);
	initStringInfo(&value);
	wc_encode_value(&value, slot->tts_values[ct->value - 1], ct->t->cols[ct->value - 1].type);
	at_ts = !slot->tts_isnull[ct->ts - 1];
	log_op(ct, rowkey, rowkey_len, fq, fqlen, at_ts,
		   at_ts ? key_ts(ct, DatumGetTimestampTz(slot->tts_values[ct->ts - 1])) : 0,
		   false, (uint8 *) value.data, value.len);
	MemoryContextSwitchTo(old);
	MemoryContextReset(ms->row_cxt);
	return slot;
}

/* Do two non-NULL values of the column att hold the same bytes? */
static bool
same_value(Form_pg_attribute att, Datum a, Datum b)
{
	struct varlena *x;
	struct varlena *y;

	if (att->attlen != -1)
		return datumIsEqual(a, b, att->attbyval, att->attlen);
	/* one may have a short header, the other not */
	x = PG_DETOAST_DATUM_PACKED(a);
	y = PG_DETOAST_DATUM_PACKED(b);
	return VARSIZE_ANY_EXHDR(x) == VARSIZE_ANY_EXHDR(y) &&
		memcmp(VARDATA_ANY(x), VARDATA_ANY(y), VARSIZE_ANY_EXHDR(x)) == 0;
}

/*
 * The version a row of the UPDATE's or DELETE's scan named.  Returns false
 * for one that this transaction writes at its commit's time (its ts is
 * NULL until then).
 */
static bool
version_read(WcCellsModify *ms, TupleTableSlot *planSlot, Datum *vals)
{
	for (int i = 0; i < 4; i++)
	{
		bool		isnull;

		vals[i] = ExecGetJunkAttribute(planSlot, ms->junk[i], &isnull);
		if (isnull && i == 3)
			return false;
		if (isnull)
			elog(ERROR, "cell version identity is NULL");
	}
	return true;
}

static TupleTableSlot *
wcCellsExecForeignUpdate(EState *estate, ResultRelInfo *rinfo,
						 TupleTableSlot *slot, TupleTableSlot *planSlot)
{
	WcCellsModify *ms = rinfo->ri_FdwState;
	WcCellsTable *ct = ms->ct;
	MemoryContext old = MemoryContextSwitchTo(ms->row_cxt);
	Datum		vals[4];
	int			attnums[] = {ct->rowkey, ct->family, ct->qualifier, ct->ts};
	const uint8 *rowkey;
	size_t		rowkey_len;
	uint8	   *fq;
	size_t		fqlen;
	StringInfoData value;

	bool		at_ts = version_read(ms, planSlot, vals);

	slot_getallattrs(slot);
	for (int i = 0; i < 4; i++)
	{
		Form_pg_attribute att = TupleDescAttr(slot->tts_tupleDescriptor, attnums[i] - 1);
		bool		same = i == 3 && !at_ts ? slot->tts_isnull[attnums[i] - 1] :
			!slot->tts_isnull[attnums[i] - 1] &&
			same_value(att, vals[i], slot->tts_values[attnums[i] - 1]);

		if (!same)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot change column \"%s\" of cells-layout foreign table \"%s\"",
							NameStr(att->attname), ct->t->relname),
					 errdetail("An UPDATE of a cells-layout table rewrites the value of the version it names."),
					 errhint("DELETE the version and INSERT another.")));
	}
	if (slot->tts_isnull[ct->value - 1])
		null_column(ct, "value");
	wc_rowkey_bytes(vals[0], ct->rowkey_type, &rowkey, &rowkey_len);
	fq = famqual_of(ct, vals[1], vals[2], &fqlen);
	initStringInfo(&value);
	wc_encode_value(&value, slot->tts_values[ct->value - 1], ct->t->cols[ct->value - 1].type);
	/* a version written at the commit's time is written again, the later wins */
	log_op(ct, rowkey, rowkey_len, fq, fqlen, at_ts,
		   at_ts ? key_ts(ct, DatumGetTimestampTz(vals[3])) : 0,
		   false, (uint8 *) value.data, value.len);
	MemoryContextSwitchTo(old);
	MemoryContextReset(ms->row_cxt);
	return slot;
}

static TupleTableSlot *
wcCellsExecForeignDelete(EState *estate, ResultRelInfo *rinfo,
						 TupleTableSlot *slot, TupleTableSlot *planSlot)
{
	WcCellsModify *ms = rinfo->ri_FdwState;
	WcCellsTable *ct = ms->ct;
	MemoryContext old = MemoryContextSwitchTo(ms->row_cxt);
	Datum		vals[4];
	const uint8 *rowkey;
	size_t		rowkey_len;
	uint8	   *fq;
	size_t		fqlen;
	bool		at_ts;

	at_ts = version_read(ms, planSlot, vals);
	wc_rowkey_bytes(vals[0], ct->rowkey_type, &rowkey, &rowkey_len);
	fq = famqual_of(ct, vals[1], vals[2], &fqlen);
	/* without a ts: the version the commit writes, removed at its time */
	log_op(ct, rowkey, rowkey_len, fq, fqlen, at_ts,
		   at_ts ? key_ts(ct, DatumGetTimestampTz(vals[3])) : 0, true, NULL, 0);
	MemoryContextSwitchTo(old);
	MemoryContextReset(ms->row_cxt);

	/* RETURNING shows the version as it was */
	wc_return_old_row(planSlot, ms->wholerow, slot);
	return slot;
}

static void
wcCellsEndForeignModify(EState *estate, ResultRelInfo *rinfo)
{
}

void
wc_cells_modify_register(FdwRoutine *routine)
{
	routine->AddForeignUpdateTargets = wcCellsAddForeignUpdateTargets;
	routine->PlanForeignModify = wcCellsPlanForeignModify;
	routine->BeginForeignModify = wcCellsBeginForeignModify;
	routine->ExecForeignInsert = wcCellsExecForeignInsert;
	routine->ExecForeignUpdate = wcCellsExecForeignUpdate;
	routine->ExecForeignDelete = wcCellsExecForeignDelete;
	routine->EndForeignModify = wcCellsEndForeignModify;
	routine->BeginForeignInsert = wcCellsBeginForeignInsert;
	routine->EndForeignInsert = wcCellsEndForeignModify;
}
