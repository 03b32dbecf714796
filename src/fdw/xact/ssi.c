/*-------------------------------------------------------------------------
 *
 * ssi.c
 *	  SERIALIZABLE through foreign tables: their reads and writes take part
 *	  in PostgreSQL's serializable snapshot isolation (predicate.c), so a
 *	  write skew through them fails with 40001 as through native tables.
 *
 * The grain is the foreign table: a scan takes a predicate lock on the
 * relation, a write checks for conflicts with such locks when it is made
 * and again at PRE_COMMIT (a reader may have come after the write, which
 * the store only receives at commit).  Coarser than a heap's tuple and page
 * locks, so more false positives (40001 where a finer grain would let both
 * commit), never a missed one: docs/architecture.md, "Visibility".
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "storage/predicate.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "fdw/xact/xact.h"

/* The foreign tables this transaction wrote, by OID, in TopTransactionContext. */
static List *written = NIL;

/* A scan of rel under snapshot begins. */
void
wc_ssi_read(Relation rel, Snapshot snapshot)
{
	if (IsolationIsSerializable() && snapshot != NULL)
		PredicateLockRelation(rel, snapshot);
}

/* The transaction writes to rel. */
void
wc_ssi_write(Relation rel)
{
	MemoryContext old;

	if (!IsolationIsSerializable())
		return;
	CheckForSerializableConflictIn(rel, NULL, InvalidBlockNumber);
	if (list_member_oid(written, RelationGetRelid(rel)))
		return;
	old = MemoryContextSwitchTo(TopTransactionContext);
	written = lappend_oid(written, RelationGetRelid(rel));
	MemoryContextSwitchTo(old);
}

/*
 * wc_ssi_pre_commit
 *		At PRE_COMMIT, before PostgreSQL's own check: the conflicts with
 *		readers that came after this transaction's writes.
 */
void
wc_ssi_pre_commit(void)
{
	ListCell   *lc;

	foreach(lc, written)
	{
		Relation	rel = relation_open(lfirst_oid(lc), NoLock);

		CheckForSerializableConflictIn(rel, NULL, InvalidBlockNumber);
		relation_close(rel, NoLock);
	}
}

/* The transaction has ended (its memory went with it). */
void
wc_ssi_reset(void)
{
	written = NIL;
}
