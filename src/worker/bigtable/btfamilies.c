/*-------------------------------------------------------------------------
 *
 * btfamilies.c
 *	  A COMMIT's changes to the table of families, made on a Bigtable
 *	  server with Bigtable's table admin API.
 *
 * The backend changes families as it does on LevelDB (fdw/meta/families.c):
 * by writing, in the transaction, a stored table's row of the table of
 * families, whose cell wc:families is the table's whole new list ("family
 * <TAB> policy [<TAB> aggregate]" lines), with a cell wc:dropped:<family>
 * for each family dropped, or a row tombstone for a dropped table.  On
 * LevelDB that row is the families.  Bigtable keeps its own, so at COMMIT
 * the row becomes calls, before the COMMIT's rows are sent (a row may write
 * to a family the same COMMIT creates):
 *
 *   - a row tombstone: DeleteTable;
 *   - a drop_row_range's record (wc:dropped_rows:<range>, always a prefix's
 *     range): DropRowRange of the prefix.  The transaction's writes to the
 *     range before the drop are not sent (droprange.c), those after it are,
 *     after it;
 *   - a list, for a table Bigtable lacks: CreateTable with the list's
 *     families;
 *   - else, against what GetTable says now: each marked family that
 *     Bigtable has is dropped, then each family of the list that Bigtable
 *     lacks is created, and each whose policy reads otherwise than the
 *     list's is updated.
 *
 * A family Bigtable has and the list lacks is left alone unless marked:
 * the list was read a moment before, and a family someone made since with
 * cbt is not ours to drop.  For the same reason a family that already
 * exists when we create it (ALREADY_EXISTS: made in between) is taken as
 * made.  A policy of Bigtable's with no form of ours reads as "never"
 * (btscan.c), so a list that still says "never" for it leaves it be.
 *
 * bt_families_take runs on the main thread and copies what the calls need
 * into the commit's memory; bt_families_apply runs on the commit's thread
 * and allocates with malloc only.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/keycodec.h"
#include "worker/bigtable/bigtable.h"

/* A family of a list, or of what GetTable says. */
typedef struct BtFamilyLine
{
	WcBtFamily	family;			/* name and policy as the calls take them */
	char		text[WC_GC_MAX_TEXT];	/* its policy's canonical text */
} BtFamilyLine;

struct BtFamilyChange
{
	char	   *table;			/* projects/P/instances/I/tables/T */
	char	   *table_id;		/* T */
	bool		drop_table;
	bool		has_list;
	BtFamilyLine *list;
	int			nlist;
	char	  **dropped;		/* families marked dropped */
	int			ndropped;
	WcBytes    *prefixes;		/* drop_row_range's prefixes ("": every row) */
	int			nprefixes;
	struct BtFamilyChange *next;
};

/* Is the escaped qualifier q (qlen bytes, unescaped) prefix + something? */
static bool
qualifier_is(const uint8 *q, size_t qlen, const char *what)
{
	size_t		n = strlen(what);

	return qlen >= n && memcmp(q, what, n) == 0;
}

/* A list's lines into change->list (the commit's memory). */
static void
take_list(BtFamilyChange *change, const char *list, size_t len)
{
	const char *p = list;
	const char *end = list + len;
	int			cap = 8;
	WcFamilyLine line;

	change->list = palloc(sizeof(BtFamilyLine) * cap);
	while (wc_family_line_next(&p, end, &line))
	{
		BtFamilyLine *l;
		size_t		where;

		if (line.family == NULL)
			wc_malformed("WRITE");
		if (change->nlist == cap)
		{
			cap *= 2;
			change->list = repalloc(change->list, sizeof(BtFamilyLine) * cap);
		}
		l = &change->list[change->nlist++];
		memset(l, 0, sizeof(*l));
		l->family.name = pnstrdup(line.family, line.family_len);
		if (wc_gc_parse(pnstrdup(line.policy, line.policy_len), &l->family.policy,
						&where) != WC_GC_OK)
			wc_malformed("WRITE");
		l->family.policy_known = true;
		wc_gc_format(&l->family.policy, l->text, sizeof(l->text));
		l->family.aggregate = WC_BT_AGG_NONE;
		if (line.aggregate != NULL)
		{
			const char *a = line.aggregate;

			if (line.aggregate_len == 3 && memcmp(a, "sum", 3) == 0)
				l->family.aggregate = WC_BT_AGG_SUM;
			else if (line.aggregate_len == 3 && memcmp(a, "min", 3) == 0)
				l->family.aggregate = WC_BT_AGG_MIN;
			else if (line.aggregate_len == 3 && memcmp(a, "max", 3) == 0)
				l->family.aggregate = WC_BT_AGG_MAX;
			else
				wc_malformed("WRITE");
		}
	}
}

/*
 * take_prefix
 *		A drop_row_range's record, escape(start) escape(end) (droprange.c),
 *		as the prefix Bigtable's DropRowRange takes: start, whose keys end
 *		where end is (its successor, or nothing after every key).
 */
static void
take_prefix(BtFamilyChange *change, const WcBtDb *db, const uint8 *range, size_t len)
{
	uint8	   *start = palloc(len + 1);
	uint8	   *end = palloc(len + 1);
	uint8	   *succ = palloc(len + 1);
	size_t		used,
				used2,
				slen,
				elen,
				succ_len;
	bool		to_end;

	if (wc_unescape(range, len, start, &used, &slen) != 0 ||
		wc_unescape(range + used, len - used, end, &used2, &elen) != 0 ||
		used + used2 != len)
		wc_malformed("WRITE");
	memcpy(succ, start, slen);
	succ_len = slen;
	to_end = wc_successor(succ, &succ_len) != 0;
	if (to_end ? elen != 0 : (elen != succ_len || memcmp(end, succ, elen) != 0))
		bt_not_yet(db, "dropping a row range that is not a prefix's");
	change->prefixes[change->nprefixes].data = start;
	change->prefixes[change->nprefixes].len = slen;
	change->nprefixes++;
}

/*
 * bt_families_take
 *		The change that the WRITE row of table (its name, tlen bytes) in the
 *		table of families asks for, put on *changes; its cells are read
 *		from rows.  Nothing is added for a row that changes no family (its
 *		column types' records, which Bigtable does not keep).
 */
void
bt_families_take(BtFamilyChange **changes, const WcBtDb *db, WcReader *rows,
				 const WcRowWrite *row, const uint8 *table, size_t tlen)
{
	BtFamilyChange *change = palloc0(sizeof(BtFamilyChange));
	BtFamilyChange **tail;

	change->table_id = pnstrdup((const char *) table, tlen);
	change->table = psprintf("%s/tables/%s", db->instance_name, change->table_id);
	change->drop_table = row->deleted;
	change->dropped = palloc(sizeof(char *) * (row->ncells + 1));
	change->prefixes = palloc(sizeof(WcBytes) * (row->ncells + 1));
	for (uint32 i = 0; i < row->ncells; i++)
	{
		WcCellWrite cell;
		size_t		flen,
					qlen;
		const uint8 *q = bt_next_cell(rows, &cell, &flen, &qlen);

		q += flen;
		/* a range DELETE's record: rangedelete.c plans none for Bigtable */
		if (qualifier_is(q, qlen, "deleted_rows:"))
			bt_not_yet(db, "deleting a row range at once");
		if (qualifier_is(q, qlen, "dropped_rows:") && cell.present)
			take_prefix(change, db, q + 13, qlen - 13);
		if (qlen == 8 && memcmp(q, "families", 8) == 0 && cell.present)
		{
			change->has_list = true;
			take_list(change, (const char *) cell.value.data, cell.value.len);
		}
		else if (qualifier_is(q, qlen, "dropped:") && cell.present)
			change->dropped[change->ndropped++] = pnstrdup((const char *) q + 8, qlen - 8);
		/* else the column types' records: Bigtable does not keep them */
	}
	if (!change->drop_table && !change->has_list && change->nprefixes == 0)
		return;
	for (tail = changes; *tail != NULL; tail = &(*tail)->next)
		;
	*tail = change;
}

/* The callback of GetTable: Bigtable's families, as lines (malloc'd). */
typedef struct BtHave
{
	BtFamilyLine *lines;
	int			n;
	int			cap;
	bool		full;			/* out of memory */
} BtHave;

static bool
have_family(void *arg, const WcBtFamily *f)
{
	BtHave	   *have = arg;
	BtFamilyLine *l;

	if (have->n == have->cap)
	{
		int			cap = have->cap == 0 ? 16 : have->cap * 2;
		BtFamilyLine *lines = realloc(have->lines, sizeof(BtFamilyLine) * cap);

		if (lines == NULL)
		{
			have->full = true;
			return false;
		}
		have->lines = lines;
		have->cap = cap;
	}
	l = &have->lines[have->n];
	l->family = *f;
	l->family.name = strdup(f->name);
	if (l->family.name == NULL)
	{
		have->full = true;
		return false;
	}
	if (f->policy_known)
		wc_gc_format(&f->policy, l->text, sizeof(l->text));
	else
		snprintf(l->text, sizeof(l->text), "never");
	have->n++;
	return true;
}

static void
have_free(BtHave *have)
{
	for (int i = 0; i < have->n; i++)
		free((char *) have->lines[i].family.name);
	free(have->lines);
}

static BtFamilyLine *
find_line(BtFamilyLine *lines, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (lines[i].family.name != NULL && strcmp(lines[i].family.name, name) == 0)
			return &lines[i];
	return NULL;
}

/* One ModifyColumnFamilies modification; a family made in between is made. */
static bool
modify(WcBtDb *db, const BtFamilyChange *c, WcBtFamilyChange how,
	   const WcBtFamily *f, WcBtStatus *st)
{
	if (wc_bt_modify_family(db->client, c->table, how, f, db->timeout_ms, st))
		return true;
	return how == WC_BT_FAMILY_CREATE && st->code == WC_BT_ALREADY_EXISTS;
}

/* Make change c on Bigtable; false with st set at the first call that fails. */
static bool
apply_one(WcBtDb *db, const BtFamilyChange *c, WcBtStatus *st)
{
	BtHave		have = {0};
	bool		ok = true;

	if (c->drop_table &&
		!wc_bt_delete_table(db->client, c->table, db->timeout_ms, st) &&
		st->code != WC_BT_NOT_FOUND)
		return false;
	for (int i = 0; i < c->nprefixes && !c->drop_table; i++)
		if (!wc_bt_drop_row_range(db->client, c->table, c->prefixes[i].data, c->prefixes[i].len,
								  c->prefixes[i].len == 0, db->timeout_ms, st))
			return false;
	if (!c->has_list)
		return true;
	if (c->drop_table ||
		(!wc_bt_get_table(db->client, c->table, have_family, &have, db->timeout_ms, st) &&
		 st->code == WC_BT_NOT_FOUND && !have.full))
	{
		WcBtFamily *fams;

		have_free(&have);
		if (c->nlist == 0)
			return true;
		fams = malloc(sizeof(WcBtFamily) * c->nlist);
		if (fams == NULL)
			goto out_of_memory;
		for (int i = 0; i < c->nlist; i++)
			fams[i] = c->list[i].family;
		ok = wc_bt_create_table(db->client, db->instance_name, c->table_id, fams, c->nlist,
								db->timeout_ms, st);
		free(fams);
		return ok;
	}
	if (have.full)
		goto out_of_memory;
	if (st->code != WC_BT_OK)
	{
		have_free(&have);
		return false;
	}

	for (int i = 0; i < c->ndropped && ok; i++)
	{
		BtFamilyLine *l = find_line(have.lines, have.n, c->dropped[i]);

		if (l == NULL)
			continue;			/* dropped by someone else already */
		ok = modify(db, c, WC_BT_FAMILY_DROP, &l->family, st);
		free((char *) l->family.name);
		l->family.name = NULL;	/* a list that has it again creates it */
	}
	for (int i = 0; i < c->nlist && ok; i++)
	{
		const BtFamilyLine *want = &c->list[i];
		BtFamilyLine *l = find_line(have.lines, have.n, want->family.name);

		if (l == NULL)
			ok = modify(db, c, WC_BT_FAMILY_CREATE, &want->family, st);
		else if (strcmp(l->text, want->text) != 0)
			ok = modify(db, c, WC_BT_FAMILY_UPDATE, &want->family, st);
	}
	have_free(&have);
	return ok;

out_of_memory:
	have_free(&have);
	st->code = WC_BT_RESOURCE_EXHAUSTED;
	snprintf(st->message, sizeof(st->message), "out of memory");
	return false;
}

/*
 * bt_families_apply
 *		Make the changes on Bigtable, in their order (the commit's thread);
 *		false at the first that fails, with its table and st set.
 */
bool
bt_families_apply(WcBtDb *db, const BtFamilyChange *changes,
				  const char **failed_table, WcBtStatus *st)
{
	for (const BtFamilyChange *c = changes; c != NULL; c = c->next)
	{
		bool		ok = apply_one(db, c, st);

		/* made or not, what scans kept of the table is asked for again */
		bt_policies_forget(db, c->table);
		if (!ok)
		{
			*failed_table = c->table;
			return false;
		}
	}
	return true;
}
