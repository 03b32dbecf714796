/*-------------------------------------------------------------------------
 *
 * celllog.c
 *	  The transaction's log of the cell versions it writes and removes
 *	  through cells-layout tables (cellwrite.c) and import_avro (avro.c),
 *	  until COMMIT.
 *
 * The operations are kept here, in the order they were made, and sent at
 * COMMIT with the rest of the transaction's writes to the same database
 * (commit.c calls wc_cells_flush), so a cells table's writes and a mapped
 * table's commit together.  A version at an explicit time or the removal
 * of one makes the worker write the commit as one LevelDB batch
 * (docs/format.md).
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

#include "access/xact.h"
#include "utils/memutils.h"

#include "fdw/fdw.h"
#include "fdw/link/link.h"
#include "fdw/model/model.h"
#include "fdw/xact/xact.h"

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
void
wc_cells_log_version(const WcCellsRow *row, const uint8 *famqual, size_t famqual_len,
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

/*
 * wc_cells_put_at
 *		Log the version of a cell of the row wc_cells_begin_row named at ts,
 *		as an INSERT into a cells-layout table would: import_avro's write.
 */
void
wc_cells_put_at(const WcCellsRow *row, const uint8 *famqual, size_t famqual_len,
				uint64 ts, const uint8 *value, size_t value_len)
{
	wc_cells_log_version(row, famqual, famqual_len, true, ts, false, value, value_len);
}
