/*-------------------------------------------------------------------------
 *
 * modify.c
 *	  INSERT, UPDATE, DELETE and COPY FROM on widecolumn_fdw tables.
 *
 * Writes go to this transaction's log (txn.c) and reach LevelDB at COMMIT.
 * As in Bigtable, a write is a mutation of a row by its key:
 *	- INSERT sets the cells of its non-NULL columns, creating the row or
 *	  changing it if the key exists (an upsert); NULL columns write nothing.
 *	  A column of an aggregate family is merged into its cell instead
 *	  (aggregate.c).
 *	- UPDATE sets the cells whose value changes, and deletes the cell of a
 *	  column set to NULL.  The row key cannot change.
 *	- DELETE deletes the whole row: every cell, mapped or not.
 * A map column (mapcolumn.c) writes the cells of its keys the same way: INSERT
 * sets those it is given, UPDATE those that change, and deletes the cells of
 * the keys that are gone.
 * UPDATE and DELETE find their row by the row key, carried from the scan
 * as a row-identity column; UPDATE also carries the old row, so it can
 * tell which cells change.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "nodes/makefuncs.h"
#include "optimizer/appendinfo.h"
#include "optimizer/inherit.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "common/aggfold.h"
#include "fdw/exec/exec.h"
#include "fdw/fdw.h"
#include "fdw/meta/meta.h"
#include "fdw/model/model.h"
#include "fdw/read/read.h"
#include "fdw/xact/xact.h"

#define WC_ROWKEY_JUNK	"wc_rowkey"
#define WC_PART_JUNK	"wc_rowkey_part"

/* Executor state of one result relation. */
typedef struct WcModifyState
{
	WcTable    *table;
	AttrNumber	rowkey_junk;	/* in the subplan's output */
	AttrNumber *part_junk;		/* ... or the row-key parts */
	StringInfoData keybuf;		/* a row key composed from parts */
	StringInfoData newkeybuf;
	AttrNumber	wholerow_junk;
	Bitmapset  *updated;		/* UPDATE: attnums it may change */
	bool		do_nothing;		/* INSERT ... ON CONFLICT DO NOTHING */
	bool		batchable;		/* INSERT: no volatile function in the statement */
	uint32		horizon;		/* the transaction's log when it began */
	WcTxnCell  *cells;
	int			cells_cap;
	MemoryContext map_cxt;		/* a row's map cells */
	StringInfoData *bufs;
	MemoryContext row_cxt;
	const uint8 *rowkey;		/* of the row being written, for messages */
	size_t		rowkey_len;
} WcModifyState;

static void
wcAddForeignUpdateTargets(PlannerInfo *root, Index rtindex,
						  RangeTblEntry *target_rte, Relation target_relation)
{
	WcTable    *t = wc_get_table(RelationGetRelid(target_relation));
	TupleDesc	desc = RelationGetDescr(target_relation);
	Var		   *var;

	/*
	 * The row's identity: the row key, or the columns it is made of, as the
	 * query's own references to them (type, typmod and collation), which
	 * the planner must be able to match, say to sort a merge join.
	 */
	if (t->nparts > 0)
	{
		for (int i = 0; i < t->nparts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, t->part_attnum[i] - 1);

			var = makeVar(rtindex, t->part_attnum[i], att->atttypid, att->atttypmod,
						  att->attcollation, 0);
			add_row_identity_var(root, var, rtindex, psprintf(WC_PART_JUNK "%d", i + 1));
		}
	}
	else
	{
		Form_pg_attribute att = TupleDescAttr(desc, t->rowkey_attnum - 1);

		var = makeVar(rtindex, t->rowkey_attnum, att->atttypid, att->atttypmod,
					  att->attcollation, 0);
		add_row_identity_var(root, var, rtindex, WC_ROWKEY_JUNK);
	}

	/*
	 * UPDATE compares with the old row; DELETE RETURNING returns it.  The
	 * Var is the one PostgreSQL adds itself for a foreign table's UPDATE,
	 * typed RECORD, so that the two agree when the table is a partition or
	 * a child of the table updated.
	 */
	if (root->parse->commandType == CMD_UPDATE || root->parse->returningList != NIL)
	{
		var = makeVar(rtindex, InvalidAttrNumber, RECORDOID, -1, InvalidOid, 0);
		add_row_identity_var(root, var, rtindex, "wholerow");
	}
}

static List *
wcPlanForeignModify(PlannerInfo *root, ModifyTable *plan, Index resultRelation,
					int subplan_index)
{
	List	   *updated = NIL;

	if (plan->operation == CMD_UPDATE)
	{
		RelOptInfo *rel = find_base_rel(root, resultRelation);
		Bitmapset  *cols = get_rel_all_updated_cols(root, rel);
		int			i = -1;

		while ((i = bms_next_member(cols, i)) >= 0)
		{
			AttrNumber	attno = i + FirstLowInvalidHeapAttributeNumber;

			if (attno > 0)
				updated = lappend_int(updated, attno);
		}
	}
	/*
	 * Rows inserted in batches reach this table only when the batch is
	 * full: a volatile function of the statement (a column DEFAULT too)
	 * that reads or writes the table must see each row inserted before it,
	 * as it does a native table's.  So such statements are not batched.
	 */
	return list_make3(updated, makeInteger(plan->onConflictAction == ONCONFLICT_NOTHING),
					  makeInteger(!contain_volatile_functions((Node *) root->parse)));
}

static WcModifyState *
modify_state(Relation rel, EState *estate)
{
	WcModifyState *ms = palloc0(sizeof(WcModifyState));

	wc_as_of_forbid(false);
	ms->table = wc_get_table(RelationGetRelid(rel));
	wc_aggregate_map(ms->table);
	wc_coltypes_note(ms->table);
	ms->cells_cap = Max(1, ms->table->natts);
	ms->cells = palloc(sizeof(WcTxnCell) * ms->cells_cap);
	ms->bufs = palloc(sizeof(StringInfoData) * Max(1, ms->table->natts));
	for (int i = 0; i < ms->table->natts; i++)
		initStringInfo(&ms->bufs[i]);
	initStringInfo(&ms->keybuf);
	initStringInfo(&ms->newkeybuf);
	ms->row_cxt = AllocSetContextCreate(estate->es_query_cxt, "widecolumn_fdw modify",
										ALLOCSET_SMALL_SIZES);
	ms->map_cxt = AllocSetContextCreate(estate->es_query_cxt, "widecolumn_fdw map",
										ALLOCSET_DEFAULT_SIZES);
	ms->horizon = wc_txn_horizon();
	return ms;
}

static void
wcBeginForeignModify(ModifyTableState *mtstate, ResultRelInfo *rinfo,
					 List *fdw_private, int subplan_index, int eflags)
{
	WcModifyState *ms;
	CmdType		op = mtstate->operation;

	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	ms = modify_state(rinfo->ri_RelationDesc, mtstate->ps.state);
	rinfo->ri_FdwState = ms;

	if (op == CMD_UPDATE || op == CMD_DELETE)
	{
		Plan	   *sub = outerPlanState(mtstate)->plan;

		if (ms->table->nparts > 0)
		{
			ms->part_junk = palloc(sizeof(AttrNumber) * ms->table->nparts);
			for (int i = 0; i < ms->table->nparts; i++)
			{
				ms->part_junk[i] = ExecFindJunkAttributeInTlist(sub->targetlist,
																psprintf(WC_PART_JUNK "%d", i + 1));
				if (!AttributeNumberIsValid(ms->part_junk[i]))
					elog(ERROR, "could not find junk row-key part column");
			}
		}
		else
		{
			ms->rowkey_junk = ExecFindJunkAttributeInTlist(sub->targetlist, WC_ROWKEY_JUNK);
			if (!AttributeNumberIsValid(ms->rowkey_junk))
				elog(ERROR, "could not find junk row-key column");
		}
		ms->wholerow_junk = ExecFindJunkAttributeInTlist(sub->targetlist, "wholerow");
	}
	if (op == CMD_INSERT)
	{
		ms->do_nothing = intVal(lsecond(fdw_private)) != 0;
		ms->batchable = intVal(lthird(fdw_private)) != 0;
	}
	if (op == CMD_UPDATE)
	{
		ListCell   *lc;

		foreach(lc, (List *) linitial(fdw_private))
			ms->updated = bms_add_member(ms->updated, lfirst_int(lc));
	}
}

/* The row key of the row to update or delete, from the subplan's junk. */
static void
junk_rowkey(WcModifyState *ms, TupleTableSlot *planSlot, const uint8 **key, size_t *len)
{
	WcTable    *t = ms->table;
	bool		isnull;

	if (t->nparts > 0)
	{
		Datum	   *values = palloc(sizeof(Datum) * t->natts);
		bool	   *nulls = palloc(sizeof(bool) * t->natts);

		for (int i = 0; i < t->nparts; i++)
			values[t->part_attnum[i] - 1] =
				ExecGetJunkAttribute(planSlot, ms->part_junk[i], &nulls[t->part_attnum[i] - 1]);
		resetStringInfo(&ms->keybuf);
		wc_key_compose(t, values, nulls, &ms->keybuf);
		*key = (const uint8 *) ms->keybuf.data;
		*len = ms->keybuf.len;
		return;
	}
	{
		Datum		d = ExecGetJunkAttribute(planSlot, ms->rowkey_junk, &isnull);

		if (isnull)
			elog(ERROR, "row key of the row to change is null");
		wc_rowkey_bytes(d, t->cols[t->rowkey_attnum - 1].type, key, len);
	}
}

/* The row key of slot, checked. */
static void
slot_rowkey(WcModifyState *ms, TupleTableSlot *slot, const uint8 **key, size_t *len)
{
	WcTable    *t = ms->table;
	bool		isnull;
	Datum		d;

	if (t->nparts > 0)
	{
		slot_getallattrs(slot);
		resetStringInfo(&ms->newkeybuf);
		wc_key_compose(t, slot->tts_values, slot->tts_isnull, &ms->newkeybuf);
		*key = ms->rowkey = (const uint8 *) ms->newkeybuf.data;
		*len = ms->rowkey_len = ms->newkeybuf.len;
		return;
	}
	d = slot_getattr(slot, t->rowkey_attnum, &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NOT_NULL_VIOLATION),
				 errmsg("row key of foreign table \"%s\" cannot be null", t->relname),
				 errdetail("Column \"%s\" is the row key.", t->cols[t->rowkey_attnum - 1].name)));
	wc_rowkey_bytes(d, t->cols[t->rowkey_attnum - 1].type, key, len);
	ms->rowkey = *key;
	ms->rowkey_len = *len;
}

/* Encode a cell value into the column's buffer, checking its size. */
static WcTxnCell *
encode_cell(WcModifyState *ms, int attnum, Datum value, bool isnull, int n)
{
	WcColumn   *col = &ms->table->cols[attnum - 1];
	WcTxnCell  *cell;
	StringInfo	buf = &ms->bufs[attnum - 1];

	/* map columns may have taken more than a cell each */
	if (n == ms->cells_cap)
	{
		ms->cells_cap *= 2;
		ms->cells = repalloc(ms->cells, sizeof(WcTxnCell) * ms->cells_cap);
	}
	cell = &ms->cells[n];

	cell->famqual = col->famqual;
	cell->famqual_len = col->famqual_len;
	cell->merge = 0;
	if (isnull)
	{
		cell->value = NULL;
		cell->value_len = 0;
		return cell;
	}
	resetStringInfo(buf);
	if (col->aggregate != 0)
		wc_encode_aggregate(buf, value, col->type);
	else
		wc_encode_value(buf, value, col->type);
	if (buf->len > WC_MAX_VALUE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("value of column \"%s\" is too large for a cell", col->name),
				 errdetail("The value for row key \"%s\" is %d bytes; the limit is %d.",
						   wc_printable_key(ms->rowkey, ms->rowkey_len), buf->len, WC_MAX_VALUE)));
	cell->value = (const uint8 *) buf->data;
	cell->value_len = buf->len;
	return cell;
}

/*
 * map_cells
 *		Add the cells that writing map column attnum changes (have_old:
 *		UPDATE, from oldval) to ms->cells after the first n; their new count.
 */
static int
map_cells(WcModifyState *ms, int attnum, Datum newval, bool newnull,
		  bool have_old, Datum oldval, bool oldnull, int n)
{
	MemoryContext old = MemoryContextSwitchTo(ms->map_cxt);

	n = wc_map_cells(ms->table, attnum, newval, newnull, have_old, oldval, oldnull,
					 &ms->cells, n, &ms->cells_cap);
	MemoryContextSwitchTo(old);
	return n;
}

static TupleTableSlot *
wcExecForeignInsert(EState *estate, ResultRelInfo *rinfo,
					TupleTableSlot *slot, TupleTableSlot *planSlot)
{
	WcModifyState *ms = rinfo->ri_FdwState;
	WcTable    *t = ms->table;
	const uint8 *key;
	size_t		keylen;
	int			n = 0;

	slot_getallattrs(slot);
	slot_rowkey(ms, slot, &key, &keylen);

	/*
	 * ON CONFLICT DO NOTHING: skip a key that exists.  Without row locks this
	 * is not atomic against a concurrent insert of the same key.  The lookup
	 * allocates; the statement may insert many rows.
	 */
	if (ms->do_nothing)
	{
		MemoryContext old = MemoryContextSwitchTo(ms->row_cxt);
		bool		exists = wc_row_exists(t, key, keylen);

		MemoryContextSwitchTo(old);
		MemoryContextReset(ms->row_cxt);
		if (exists)
			return NULL;
	}

	MemoryContextReset(ms->map_cxt);
	for (int a = 1; a <= t->natts; a++)
	{
		if (t->cols[a - 1].kind != WC_COL_CELL || slot->tts_isnull[a - 1])
			continue;
		if (t->cols[a - 1].map_type != InvalidOid)
			n = map_cells(ms, a, slot->tts_values[a - 1], false, false, (Datum) 0, true, n);
		else
		{
			/* an aggregate family's cell: merged, with no read or lock */
			encode_cell(ms, a, slot->tts_values[a - 1], false, n)->merge =
				t->cols[a - 1].aggregate;
			n++;
		}
	}
	wc_rowkey_check_write(t, keylen);
	wc_txn_put_row(t, estate->es_output_cid, key, keylen, false, n, ms->cells);
	return slot;
}

static TupleTableSlot **
wcExecForeignBatchInsert(EState *estate, ResultRelInfo *rinfo,
						 TupleTableSlot **slots, TupleTableSlot **planSlots,
						 int *numSlots)
{
	for (int i = 0; i < *numSlots; i++)
		wcExecForeignInsert(estate, rinfo, slots[i], planSlots ? planSlots[i] : NULL);
	return slots;
}

static int
wcGetForeignModifyBatchSize(ResultRelInfo *rinfo)
{
	WcModifyState *ms = rinfo->ri_FdwState;

	/*
	 * RETURNING and row triggers need each row as it is inserted, ON
	 * CONFLICT DO NOTHING must see the rows before it, and so must the
	 * statement's volatile functions (wcPlanForeignModify).  A partition
	 * routed to, or COPY, has no plan of ours to say.
	 */
	if (ms == NULL || !ms->batchable || ms->do_nothing ||
		rinfo->ri_projectReturning != NULL ||
		(rinfo->ri_TrigDesc && rinfo->ri_TrigDesc->trig_insert_after_row))
		return 1;
	return 1000;
}

/*
 * Has this statement already updated or deleted the row?  A join can hand
 * the same row over twice (a hash join, Memoize), and PostgreSQL then
 * changes it once (TM_SelfModified), so the second is passed over here.
 * If a trigger or function of the statement changed it, it is an error
 * (wc_txn_changed_since).  (A row read afresh under its lock is checked
 * before: lock_and_reread.)
 */
static bool
already_changed(EState *estate, WcModifyState *ms, const uint8 *key, size_t keylen,
				bool delete)
{
	return wc_txn_changed_since(ms->table, ms->horizon, key, keylen,
								estate->es_output_cid, delete);
}

static TupleTableSlot *
wcExecForeignUpdate(EState *estate, ResultRelInfo *rinfo,
					TupleTableSlot *slot, TupleTableSlot *planSlot)
{
	WcModifyState *ms = rinfo->ri_FdwState;
	WcTable    *t = ms->table;
	bool		isnull;
	HeapTupleHeader oldrow = NULL;
	HeapTupleData oldtup;
	TupleDesc	desc = RelationGetDescr(rinfo->ri_RelationDesc);
	const uint8 *key;
	size_t		keylen;
	int			n = 0;
	int			a;
	const uint8 *nk;
	size_t		nklen;

	junk_rowkey(ms, planSlot, &key, &keylen);
	if (already_changed(estate, ms, key, keylen, false))
		return NULL;
	if (ms->wholerow_junk)
	{
		Datum		d = ExecGetJunkAttribute(planSlot, ms->wholerow_junk, &isnull);

		if (!isnull)
		{
			oldrow = DatumGetHeapTupleHeader(d);
			oldtup.t_len = HeapTupleHeaderGetDatumLength(oldrow);
			ItemPointerSetInvalid(&oldtup.t_self);
			oldtup.t_tableOid = InvalidOid;
			oldtup.t_data = oldrow;
		}
	}

	slot_getallattrs(slot);
	slot_rowkey(ms, slot, &nk, &nklen);
	if (nklen != keylen || memcmp(nk, key, keylen) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot change the row key of a row in foreign table \"%s\"",
						t->relname),
				 errhint("Delete the row and insert it with the new key.")));

	/*
	 * With the old row at hand every column is compared, so that a BEFORE
	 * ROW trigger's changes to columns outside SET are written too; only
	 * the cells that change are.
	 */
	MemoryContextReset(ms->map_cxt);
	for (a = 1; a <= t->natts; a++)
	{
		WcColumn   *col = &t->cols[a - 1];
		bool		newnull = slot->tts_isnull[a - 1];
		Datum		newval = slot->tts_values[a - 1];
		bool		oldnull = true;
		Datum		oldval = (Datum) 0;

		if (oldrow == NULL && !bms_is_member(a, ms->updated))
			continue;

		if (col->kind != WC_COL_CELL)
			continue;

		/* Only cells whose value changes are written. */
		if (oldrow != NULL)
		{
			oldval = heap_getattr(&oldtup, a, desc, &oldnull);
			if (oldnull && newnull)
				continue;
			if (!oldnull && !newnull &&
				datumIsEqual(oldval, newval, TupleDescAttr(desc, a - 1)->attbyval,
							 TupleDescAttr(desc, a - 1)->attlen))
				continue;
		}
		if (col->aggregate == WC_VALUE_SUM && t->engine == WC_ENGINE_BIGTABLE &&
			!oldnull && !newnull)
		{
			/*
			 * On Bigtable, the difference merged in (an AddToCell): another
			 * client's AddToCell since this UPDATE's read then stays, as if
			 * it came after it (a CheckAndMutateRow cannot tell, since it
			 * makes no newer cell).
			 */
			WcTxnCell  *cell = encode_cell(ms, a, newval, false, n++);
			int64		oldint = col->type == INT2OID ? DatumGetInt16(oldval) :
				col->type == INT4OID ? DatumGetInt32(oldval) : DatumGetInt64(oldval);

			wc_agg_put((int64) ((uint64) wc_agg_get(cell->value) - (uint64) oldint),
					   (uint8 *) cell->value);
			cell->merge = WC_VALUE_SUM;
			continue;
		}
		if (col->map_type != InvalidOid)
		{
			/* which keys change, and which are gone, needs the old object */
			if (oldrow == NULL)
				elog(ERROR, "old row of map column \"%s\" not available", col->name);
			n = map_cells(ms, a, newval, newnull, true, oldval, oldnull, n);
			continue;
		}
		encode_cell(ms, a, newval, newnull, n++);
	}
	if (n > 0)
	{
		wc_rowkey_check_write(t, keylen);
		wc_txn_put_row(t, estate->es_output_cid, key, keylen, false, n, ms->cells);
	}
	else
		wc_txn_touch_row(t, estate->es_output_cid, key, keylen);	/* for already_changed */
	return slot;
}

static TupleTableSlot *
wcExecForeignDelete(EState *estate, ResultRelInfo *rinfo,
					TupleTableSlot *slot, TupleTableSlot *planSlot)
{
	WcModifyState *ms = rinfo->ri_FdwState;
	WcTable    *t = ms->table;
	const uint8 *key;
	size_t		keylen;

	junk_rowkey(ms, planSlot, &key, &keylen);
	if (already_changed(estate, ms, key, keylen, true))
		return NULL;
	wc_txn_put_row(t, estate->es_output_cid, key, keylen, true, 0, NULL);

	/* RETURNING shows the row as it was. */
	wc_return_old_row(planSlot, ms->wholerow_junk, slot);
	return slot;
}

/*
 * wc_return_old_row
 *		Store in slot the row as the scan read it, from the whole-row junk
 *		column wholerow of planSlot (none: InvalidAttrNumber), for the
 *		RETURNING of a DELETE.
 */
void
wc_return_old_row(TupleTableSlot *planSlot, AttrNumber wholerow, TupleTableSlot *slot)
{
	bool		isnull;
	Datum		d;
	HeapTupleHeader th;
	HeapTupleData tup;

	if (!AttributeNumberIsValid(wholerow))
		return;
	d = ExecGetJunkAttribute(planSlot, wholerow, &isnull);
	if (isnull)
		return;
	th = DatumGetHeapTupleHeader(d);
	tup.t_len = HeapTupleHeaderGetDatumLength(th);
	ItemPointerSetInvalid(&tup.t_self);
	tup.t_tableOid = InvalidOid;
	tup.t_data = th;
	ExecForceStoreHeapTuple(heap_copytuple(&tup), slot, true);
}

static void
wcEndForeignModify(EState *estate, ResultRelInfo *rinfo)
{
}

/*
 * wcBeginForeignInsert
 *		Rows routed to a foreign partition, or COPY FROM.  An INSERT through
 *		the partitioned table may say ON CONFLICT DO NOTHING (COPY has no
 *		plan); PostgreSQL refuses DO UPDATE there before we are called.
 */
static void
wcBeginForeignInsert(ModifyTableState *mtstate, ResultRelInfo *rinfo)
{
	ModifyTable *plan = (ModifyTable *) mtstate->ps.plan;
	WcModifyState *ms = modify_state(rinfo->ri_RelationDesc, mtstate->ps.state);

	rinfo->ri_FdwState = ms;
	if (plan != NULL && plan->onConflictAction == ONCONFLICT_NOTHING)
		ms->do_nothing = true;
	else if (plan != NULL && plan->onConflictAction != ONCONFLICT_NONE)
		elog(ERROR, "unexpected ON CONFLICT specification: %d",
			 (int) plan->onConflictAction);
}

static void
wcEndForeignInsert(EState *estate, ResultRelInfo *rinfo)
{
}

static int
wcIsForeignRelUpdatable(Relation rel)
{
	return (1 << CMD_INSERT) | (1 << CMD_UPDATE) | (1 << CMD_DELETE);
}

void
wc_modify_register(FdwRoutine *routine)
{
	routine->AddForeignUpdateTargets = wcAddForeignUpdateTargets;
	routine->PlanForeignModify = wcPlanForeignModify;
	routine->BeginForeignModify = wcBeginForeignModify;
	routine->ExecForeignInsert = wcExecForeignInsert;
	routine->ExecForeignBatchInsert = wcExecForeignBatchInsert;
	routine->GetForeignModifyBatchSize = wcGetForeignModifyBatchSize;
	routine->ExecForeignUpdate = wcExecForeignUpdate;
	routine->ExecForeignDelete = wcExecForeignDelete;
	routine->EndForeignModify = wcEndForeignModify;
	routine->BeginForeignInsert = wcBeginForeignInsert;
	routine->EndForeignInsert = wcEndForeignInsert;
	routine->IsForeignRelUpdatable = wcIsForeignRelUpdatable;
}
