/*-------------------------------------------------------------------------
 *
 * aggregate.c
 *	  Aggregate families (Bigtable's intsum, intmin, intmax) through
 *	  foreign tables: which columns map one.
 *
 * A family created with widecolumn.create_family(..., aggregate => 'sum')
 * says so in its line of the family list (families.c).  A column that maps
 * it holds a 64-bit integer, stored as 8 bytes whatever the column's
 * integer type (valuecodec.c), and an INSERT of it writes a merge
 * (common/aggfold.h):
 * an entry that the reads fold into the cell's value, so that it needs no
 * read and no row lock, and concurrent INSERTs never wait on each other
 * (a transaction's own merges are folded in as its reads merge its
 * writes, readrows.c's wc_aggregate_apply_txn).
 * UPDATE and DELETE write plain values and tombstones as for any cell.
 *
 * The family lists are read when a table's scan or write begins (not when
 * it is planned: EXPLAIN reads no data); a session keeps the
 * last one it read of each stored table while no commit has changed a
 * family list (WcShared.family_changes), as families.c does for its own
 * check.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "common/aggfold.h"
#include "common/gcpolicy.h"
#include "common/keycodec.h"
#include "common/shmem.h"
#include "fdw/fdw.h"
#include "fdw/meta/meta.h"
#include "fdw/model/model.h"
#include "fdw/read/read.h"
#include "fdw/xact/xact.h"

/* The family list of a stored table, as this session read it last. */
typedef struct WcKnownAggregates
{
	Oid			serverid;
	char	   *table;
	char	   *list;
	size_t		len;
	uint64		changes;		/* WcShared.family_changes when it was read */
} WcKnownAggregates;

static List *known = NIL;

/*
 * family_list
 *		The family list of stored table table, as the latest commit and this
 *		transaction have it.  A list this session read before, while no
 *		commit has changed a list since, is used again, unless this
 *		transaction changed a family list itself.
 */
static const char *
family_list(Oid serverid, const char *table, size_t *len)
{
	uint64		changes = pg_atomic_read_u64(&wc_shared->family_changes);
	WcTable    *meta = wc_get_meta_table(serverid);
	bool		own = wc_txn_table(meta, false) != NULL;
	WcKnownAggregates *k = NULL;
	ListCell   *lc;
	const uint8 **vals;
	size_t	   *lens;
	MemoryContext old;

	foreach(lc, known)
	{
		WcKnownAggregates *e = lfirst(lc);

		if (e->serverid == serverid && strcmp(e->table, table) == 0)
			k = e;
	}
	if (k != NULL && k->changes == changes && !own)
	{
		*len = k->len;
		return k->list;
	}

	*len = 0;
	if (wc_read_row_now(meta, (const uint8 *) table, strlen(table), &vals, &lens) &&
		vals[0] != NULL)
		*len = lens[0];
	if (own)
		return *len > 0 ? (const char *) vals[0] : "";

	old = MemoryContextSwitchTo(TopMemoryContext);
	if (k == NULL)
	{
		k = palloc0(sizeof(WcKnownAggregates));
		k->serverid = serverid;
		k->table = pstrdup(table);
		known = lappend(known, k);
	}
	else if (k->list != NULL)
		pfree(k->list);
	k->list = palloc(*len + 1);
	if (*len > 0)
		memcpy(k->list, vals[0], *len);
	k->list[*len] = '\0';
	k->len = *len;
	k->changes = changes;
	MemoryContextSwitchTo(old);
	return k->list;
}

/*
 * wc_aggregate_map
 *		Mark the columns of t that map an aggregate family: each must be an
 *		integer column of its own (not a map column).
 */
void
wc_aggregate_map(WcTable *t)
{
	const char *list;
	size_t		len;

	if (wc_cells_layout(t->relid))
		return;
	list = family_list(t->serverid, t->table, &len);
	if (len == 0)
		return;
	for (int a = 1; a <= t->natts; a++)
	{
		WcColumn   *col = &t->cols[a - 1];
		char	   *agg;

		if (col->kind != WC_COL_CELL)
			continue;
		agg = wc_family_list_aggregate(t->table, list, len, col->family);
		if (agg == NULL)
			continue;
		if (col->map_type != InvalidOid ||
			(col->type != INT2OID && col->type != INT4OID && col->type != INT8OID))
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
					 errmsg("column \"%s\" of foreign table \"%s\" cannot map aggregate column family \"%s\"",
							col->name, t->relname, col->family),
					 errdetail("Family \"%s\" of stored table \"%s\" is a \"%s\" family, whose cells hold 64-bit integers; the column has type %s.",
							   col->family, t->table, agg, format_type_be(col->type)),
					 errhint("Map the family's cells with columns of type bigint, integer or smallint, one per qualifier.")));
		col->aggregate = wc_agg_tag(agg);
	}
}

/*
 * wc_aggregate_families
 *		The aggregate families of stored table table of server serverid, as
 *		WcAggregateFamily (escaped names, as a cell's family+qualifier
 *		begins); NIL if it has none.
 */
List *
wc_aggregate_families(Oid serverid, const char *table)
{
	size_t		len;
	const char *list = family_list(serverid, table, &len);
	const char *p = list;
	WcFamilyLine line;
	List	   *out = NIL;

	while (wc_family_line_next(&p, list + len, &line))
	{
		WcAggregateFamily *f;
		char	   *name;

		if (line.family == NULL || line.aggregate == NULL)
			continue;
		name = pnstrdup(line.aggregate, line.aggregate_len);
		f = palloc(sizeof(WcAggregateFamily));
		f->tag = wc_agg_tag(name);
		f->escaped = palloc(WC_ESCAPED_MAX(line.family_len));
		f->escaped_len = wc_escape((const uint8 *) line.family, line.family_len, f->escaped);
		if (f->tag != 0)
			out = lappend(out, f);
	}
	return out;
}

/*
 * wc_aggregate_of
 *		The aggregate family of a cell (its escaped family+qualifier) among
 *		aggs (wc_aggregate_families'): its merges' tag, or 0.
 */
uint8
wc_aggregate_of(List *aggs, const uint8 *famqual, size_t len)
{
	ListCell   *lc;

	foreach(lc, aggs)
	{
		WcAggregateFamily *f = lfirst(lc);

		if (len > f->escaped_len && memcmp(famqual, f->escaped, f->escaped_len) == 0)
			return f->tag;
	}
	return 0;
}
