/*-------------------------------------------------------------------------
 *
 * cellwrite.c
 *	  INSERT, UPDATE and DELETE of a cells-layout foreign table, and the
 *	  transaction's log of them until COMMIT.
 *
 * Each statement names cell versions: INSERT writes the version at its ts
 * (Bigtable's SetCell with a timestamp; NULL: the commit's time, as a
 * mapped table's write), UPDATE of value rewrites the version it read,
 * DELETE removes exactly the versions it read.  They are kept here, in
 * the order they were made, and sent at COMMIT with the rest of the
 * transaction's writes to the same database (commit.c calls
 * wc_cells_flush), so a cells table's writes and a mapped table's commit
 * together.  A version at an explicit time or the removal of one makes
 * the worker write the commit as one LevelDB batch (docs/format.md).
 *
 * A scan sees the operations of the commands before its snapshot's, as a
 * heap scan sees the tuples whose cmin is below its curcid: each records
 * the command that made it, and the log is in command order
 * (wc_cells_op_count_at).
 *
 * ROLLBACK TO SAVEPOINT drops the operations made since the savepoint: each
 * records the subtransaction that made it, and subtransaction ids only grow,
 * so those of a rolled-back subtransaction and its children are the ones at
 * or above its id.
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

#include "fdw/cells.h"
#include "fdw/txn.h"

/*
 * One version written or removed.  An import logs millions: this is kept
 * small, and its bytes are carved from blocks (op_bytes) rather than
 * allocated one by one.
 */
typedef struct WcCellOp
{
	WcTxnTable *tt;
	uint8	   *prefix;			/* escaped table and row key */
	uint8	   *famqual;		/* escaped family and qualifier, then the value */
	uint64		ts;
	SubTransactionId subid;
	CommandId	cid;			/* the command that made it */
	uint32		prefix_len;
	uint32		famqual_len;
	uint32		value_len;
	bool		at_ts;			/* false: at the commit's time */
	bool		remove;
} WcCellOp;

#define OP_VALUE(op)	((op)->famqual + (op)->famqual_len)

/* Bytes larger than this get an allocation of their own. */
#define OP_BYTES_LARGE	(8 * 1024)
#define OP_BYTES_BLOCK	(256 * 1024)

static MemoryContext ops_cxt = NULL;
static WcCellOp *ops = NULL;
static int	nops = 0;
static int	ops_cap = 0;
static uint8 *op_block = NULL;	/* the free end of the block bytes come from */
static size_t op_block_left = 0;
static List *written = NIL;		/* the WcTxnTables of ops, each once */

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

/* Is anything of this transaction's in the log? */
bool
wc_cells_pending(void)
{
	return nops > 0;
}

/* Has this transaction written to t's stored table through a cells table? */
bool
wc_cells_written(WcTable *t)
{
	ListCell   *lc;

	foreach(lc, written)
	{
		WcTxnTable *tt = lfirst(lc);

		if (tt->serverid == t->serverid && strcmp(tt->table, t->table) == 0)
			return true;
	}
	return false;
}

/*
 * wc_cells_flush
 *		Append the operations on tt's stored table to a WRITE request's
 *		rows, each as a row of one cell; send them when they fill a chunk.
 */
void
wc_cells_flush(WcTxnTable *tt, uint32 db, StringInfo payload)
{
	for (int i = 0; i < nops;)
	{
		WcCellOp   *first = &ops[i];
		int			n = 1;

		if (first->tt != tt)
		{
			i++;
			continue;
		}

		/*
		 * The operations that follow on the same row go as one row of
		 * several cells: the worker's work is per row as well as per cell
		 * (an import logs a row's versions one after another).
		 */
		while (i + n < nops && ops[i + n].tt == tt &&
			   (ops[i + n].prefix == first->prefix ||
				(ops[i + n].prefix_len == first->prefix_len &&
				 memcmp(ops[i + n].prefix, first->prefix, first->prefix_len) == 0)))
			n++;
		wc_write_row(payload, first->prefix, first->prefix_len, false, (uint32) n);
		for (int end = i + n; i < end; i++)
		{
			WcCellOp   *op = &ops[i];

			if (op->remove && !op->at_ts)
				wc_write_row_cell_remove_now(payload, op->famqual, op->famqual_len);
			else if (op->at_ts)
				wc_write_row_cell_at(payload, op->famqual, op->famqual_len,
									 op->remove ? NULL : OP_VALUE(op), op->value_len, op->ts);
			else
				wc_write_row_cell(payload, op->famqual, op->famqual_len, OP_VALUE(op), op->value_len);
		}
		if (payload->len >= WC_WRITE_CHUNK_BYTES)
		{
			wc_client_write(db, payload);
			resetStringInfo(payload);
		}
	}
}

/*
 * wc_cells_famquals
 *		The escaped families this transaction writes to tt's stored table
 *		through cells tables, each once, as the first component of a
 *		family+qualifier (commit.c has them listed): *n of them, in
 *		palloc'd arrays.
 */
void
wc_cells_famquals(WcTxnTable *tt, const uint8 ***famquals, size_t **lens, int *n)
{
	int			cap = 8;
	int			last = -1;

	*famquals = palloc(sizeof(uint8 *) * cap);
	*lens = palloc(sizeof(size_t) * cap);
	*n = 0;
	for (int i = 0; i < nops; i++)
	{
		const uint8 *fq = ops[i].famqual;
		size_t		flen;
		int			j;

		if (ops[i].tt != tt || ops[i].remove)
			continue;
		if (wc_component_end(fq, ops[i].famqual_len, &flen) != 0)
			flen = ops[i].famqual_len;
		/* a few families, each met many times: the one met last first */
		if (last >= 0 && (*lens)[last] == flen && memcmp((*famquals)[last], fq, flen) == 0)
			continue;
		for (j = 0; j < *n; j++)
			if ((*lens)[j] == flen && memcmp((*famquals)[j], fq, flen) == 0)
				break;
		if (j == *n)
		{
			if (*n == cap)
			{
				cap *= 2;
				*famquals = repalloc(*famquals, sizeof(uint8 *) * cap);
				*lens = repalloc(*lens, sizeof(size_t) * cap);
			}
			(*famquals)[*n] = fq;
			(*lens)[*n] = flen;
			(*n)++;
		}
		last = j;
	}
}

/*
 * wc_cells_op_count_at
 *		How many operations of the log a scan under a snapshot of command
 *		curcid sees: those of earlier commands, which come first (command
 *		ids only grow, and a rolled-back subtransaction's are cut off the
 *		end).
 */
int
wc_cells_op_count_at(CommandId curcid)
{
	int			lo = 0,
				hi = nops;

	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (ops[mid].cid < curcid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * wc_cells_overlay
 *		Append the first upto operations on tt's stored table to a cells
 *		scan's overlay, in the order the commit applies them.
 */
void
wc_cells_overlay(WcTxnTable *tt, int upto, StringInfo buf, uint32 *n)
{
	StringInfoData key;

	initStringInfo(&key);
	for (int i = 0; i < upto && i < nops; i++)
	{
		WcCellOp   *op = &ops[i];

		if (op->tt != tt)
			continue;
		resetStringInfo(&key);
		appendBinaryStringInfo(&key, (const char *) op->prefix, op->prefix_len);
		appendBinaryStringInfo(&key, (const char *) op->famqual, op->famqual_len);
		wc_write_overlay_entry(buf, (uint8 *) key.data, key.len,
							   op->remove ? WC_OVERLAY_REMOVE : WC_OVERLAY_PUT,
							   !op->at_ts, op->ts, OP_VALUE(op), op->remove ? 0 : op->value_len);
		(*n)++;
	}
	pfree(key.data);
}

static void
cells_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			/* the memory goes with TopTransactionContext */
			ops_cxt = NULL;
			ops = NULL;
			nops = ops_cap = 0;
			op_block = NULL;
			op_block_left = 0;
			written = NIL;
			break;
		default:
			break;
	}
}

static void
cells_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	int			kept = 0;
	MemoryContext old;

	if (event != SUBXACT_EVENT_ABORT_SUB || nops == 0)
		return;
	old = MemoryContextSwitchTo(ops_cxt);
	written = NIL;
	for (int i = 0; i < nops; i++)
		if (ops[i].subid < mySubid)
		{
			ops[kept++] = ops[i];
			written = list_append_unique_ptr(written, ops[i].tt);
		}
	nops = kept;
	MemoryContextSwitchTo(old);
}

/* Register the transaction callbacks (from _PG_init). */
void
wc_cells_init(void)
{
	RegisterXactCallback(cells_xact_callback, NULL);
	RegisterSubXactCallback(cells_subxact_callback, NULL);
}

/*
 * wc_cells_begin_row
 *		Name the row the next versions logged go to: t's stored table's row
 *		rowkey.  Its prefix is kept once for all of them.
 */
void
wc_cells_begin_row(WcCellsRow *row, WcTable *t, const uint8 *rowkey, size_t rowkey_len)
{
	uint8	   *prefix;

	row->tt = wc_txn_table(t, true);
	if (ops_cxt == NULL)
		ops_cxt = AllocSetContextCreate(TopTransactionContext,
										"widecolumn_fdw cells writes", ALLOCSET_DEFAULT_SIZES);
	prefix = wc_row_key(t, rowkey, rowkey_len, &row->prefix_len);
	row->prefix = MemoryContextAlloc(ops_cxt, row->prefix_len);
	memcpy(row->prefix, prefix, row->prefix_len);
	pfree(prefix);
	if (!list_member_ptr(written, row->tt))
	{
		MemoryContext old = MemoryContextSwitchTo(ops_cxt);

		written = lappend(written, row->tt);
		MemoryContextSwitchTo(old);
	}
}

/* n bytes of ops_cxt for an operation's family, qualifier and value. */
static uint8 *
op_bytes(size_t n)
{
	uint8	   *p;

	if (n > OP_BYTES_LARGE)
		return MemoryContextAllocHuge(ops_cxt, n);
	if (n > op_block_left)
	{
		op_block = MemoryContextAlloc(ops_cxt, OP_BYTES_BLOCK);
		op_block_left = OP_BYTES_BLOCK;
	}
	p = op_block;
	op_block += n;
	op_block_left -= n;
	return p;
}

/* Log one operation on the version (row, famqual, ts). */
static void
log_version(const WcCellsRow *row, const uint8 *famqual, size_t famqual_len,
			bool at_ts, uint64 ts, bool remove, const uint8 *value, size_t value_len)
{
	WcCellOp   *op;
	uint8	   *p;

	if (nops == ops_cap)
	{
		int			cap = Max(64, ops_cap * 2);

		ops = ops ? repalloc_huge(ops, sizeof(WcCellOp) * cap) :
			MemoryContextAllocHuge(ops_cxt, sizeof(WcCellOp) * cap);
		ops_cap = cap;
	}
	if (value == NULL)
		value_len = 0;
	/* the family+qualifier and the value in one piece */
	p = op_bytes(famqual_len + value_len);
	op = &ops[nops];
	op->tt = row->tt;
	op->subid = GetCurrentSubTransactionId();
	op->cid = GetCurrentCommandId(true);
	op->prefix = row->prefix;
	op->prefix_len = (uint32) row->prefix_len;
	op->famqual = p;
	memcpy(p, famqual, famqual_len);
	op->famqual_len = (uint32) famqual_len;
	op->at_ts = at_ts;
	op->ts = ts;
	op->remove = remove;
	if (value_len > 0)
		memcpy(p + famqual_len, value, value_len);
	op->value_len = (uint32) value_len;
	nops++;
}

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
	log_version(&row, famqual, famqual_len, at_ts, ts, remove, value, value_len);
}

/*
 * wc_cells_put_at
 *		Log the version of a cell of the row wc_cells_begin_row named at ts,
 *		as an INSERT into a cells-layout table would: import_avro's write.
 */
void
wc_cells_put_at(const WcCellsRow *row, const uint8 *famqual, size_t famqual_len,
				uint64 ts, const uint8 *value, size_t value_len)
{
	log_version(row, famqual, famqual_len, true, ts, false, value, value_len);
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
