/*-------------------------------------------------------------------------
 *
 * btmeta.c
 *	  The table of families of a Bigtable server: a row per Bigtable
 *	  table, its families and their policies as the backend's family
 *	  lists read them (fdw/meta/families.c), from ListTables and GetTable.
 *
 * A LevelDB server keeps these lists in a table of its own (the empty
 * name); on Bigtable the tables and families are Bigtable's, and a SCAN of
 * that table (btscan.c) is answered from its admin API instead.  Its other
 * records there (column types, the row key's layout) are not kept.
 *
 * bt_meta_read runs on a reader thread: plain C, errors through wc_fail.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/gcpolicy.h"
#include "common/keycodec.h"
#include "worker/bigtable/bigtable.h"
#include "worker/runtime/failure.h"

/* Names gathered by ListTables' and GetTable's callbacks (malloc'd). */
typedef struct BtNames
{
	char	  **names;			/* ListTables: the tables' names */
	char	  **lines;			/* GetTable: "family\tpolicy[\taggregate]" */
	int			n;
	int			cap;
	size_t		skip;			/* ListTables: the instance's prefix */
} BtNames;

static bool
add_name(BtNames *b, char *name, char *line)
{
	if (b->n == b->cap)
	{
		b->cap = b->cap == 0 ? 16 : b->cap * 2;
		b->names = realloc(b->names, sizeof(char *) * b->cap);
		b->lines = realloc(b->lines, sizeof(char *) * b->cap);
		if (b->names == NULL || b->lines == NULL)
			wc_bytebuf_failed(sizeof(char *) * b->cap);
	}
	b->names[b->n] = name;
	b->lines[b->n] = line;
	b->n++;
	return true;
}

static bool
table_name(void *arg, const char *name)
{
	BtNames    *b = arg;

	return add_name(b, strdup(strlen(name) > b->skip ? name + b->skip : name), NULL);
}

static bool
family_line(void *arg, const WcBtFamily *f)
{
	static const char *const aggregates[] = {NULL, "sum", "min", "max", NULL};
	char		policy[128];
	char		line[512];

	/* a rule of Bigtable's with no form of ours: the strictest we can say */
	if (f->policy_known)
		wc_gc_format(&f->policy, policy, sizeof(policy));
	else
		snprintf(policy, sizeof(policy), "never");
	if (aggregates[f->aggregate] != NULL)
		snprintf(line, sizeof(line), "%s\t%s\t%s", f->name, policy, aggregates[f->aggregate]);
	else
		snprintf(line, sizeof(line), "%s\t%s", f->name, policy);
	return add_name(arg, NULL, strdup(line));
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static void
names_free(BtNames *b)
{
	for (int i = 0; i < b->n; i++)
	{
		free(b->names[i]);
		free(b->lines[i]);
	}
	free(b->names);
	free(b->lines);
	memset(b, 0, sizeof(*b));
}

/*
 * bt_meta_columns
 *		Which of a SCAN's columns are the families cell (wc:families) and
 *		the map of its family alone (IMPORT FOREIGN SCHEMA's reading,
 *		coltypes.c): their places, or -1.  Main thread.
 */
void
bt_meta_columns(const WcScanRequest *req, int *families_idx, int *wc_idx)
{
	uint8		fq[64];
	size_t		flen = wc_escape((const uint8 *) "wc", 2, fq);
	size_t		fqlen = flen + wc_escape((const uint8 *) "families", 8, fq + flen);

	*families_idx = *wc_idx = -1;
	for (int i = 0; i < req->ncols; i++)
	{
		if (req->cols[i].len == fqlen && memcmp(req->cols[i].data, fq, fqlen) == 0)
			*families_idx = i;
		if (req->cols[i].len == flen && memcmp(req->cols[i].data, fq, flen) == 0)
			*wc_idx = i;
	}
}

/*
 * bt_meta_read
 *		The table of families as Bigtable has it, into batch: a row per
 *		table in ranges (ListTables), its families cell (column
 *		families_idx, or a map of it in column wc_idx) its families' lines,
 *		sorted (GetTable), as families.c keeps them on LevelDB; limit rows
 *		at most (0: every one).  One batch.  How many rows it wrote.  table
 *		names the scan in errors.
 */
uint64
bt_meta_read(WcBtDb *db, const char *table, const WcBtRange *ranges, int nranges, bool reverse,
			 bool versions, uint64 limit, int families_idx, int wc_idx, WcBatchWriter *batch)
{
	uint64		emitted = 0;
	BtNames		tables = {0};
	WcBtStatus	st;
	WcByteBuf	cell = {0};
	WcByteBuf	map = {0};

	bool		points = true;

	/* rows of named tables (a table's own families): no list needed */
	for (int i = 0; i < nranges && points; i++)
		points = !ranges[i].start_open && ranges[i].end_closed &&
			ranges[i].start_len == ranges[i].end_len && ranges[i].start_len > 0 &&
			memcmp(ranges[i].start, ranges[i].end, ranges[i].start_len) == 0;
	if (points)
		for (int i = 0; i < nranges; i++)
			add_name(&tables, strndup((const char *) ranges[i].start, ranges[i].start_len), NULL);
	tables.skip = strlen(db->instance_name) + strlen("/tables/");
	if (!points &&
		!wc_bt_list_tables(db->client, db->instance_name, table_name, &tables,
						   db->timeout_ms, &st))
	{
		names_free(&tables);
		bt_call_failed(db, "ReadRows", table, &st);
	}
	qsort(tables.names, tables.n, sizeof(char *), name_cmp);
	for (int j = 0; j < tables.n; j++)
	{
		int			i = reverse ? tables.n - 1 - j : j;
		const char *name = tables.names[i];
		size_t		len = strlen(name);
		BtNames		fams = {0};
		char		full[1024];

		if (!bt_ranges_hold(ranges, nranges, (const uint8 *) name, len))
			continue;
		snprintf(full, sizeof(full), "%s/tables/%s", db->instance_name, name);
		if (!wc_bt_get_table(db->client, full, family_line, &fams, db->timeout_ms, &st))
		{
			names_free(&fams);
			if (st.code == WC_BT_NOT_FOUND)
				continue;		/* dropped since the list */
			names_free(&tables);
			wc_bytebuf_free(&cell);
			bt_call_failed(db, "ReadRows", table, &st);
		}
		/*
		 * In family order: the lines sort as their names do, since the tab
		 * after a name is below every byte a family name may hold.
		 */
		qsort(fams.lines, fams.n, sizeof(char *), name_cmp);
		cell.len = 0;
		for (int f = 0; f < fams.n; f++)
		{
			/* each line ends in a newline, as families.c writes them */
			wc_bytebuf_append(&cell, fams.lines[f], strlen(fams.lines[f]));
			wc_bytebuf_append(&cell, "\n", 1);
		}
		names_free(&fams);
		memcpy(wc_write_batch_row(batch, len), name, len);
		wc_write_batch_row_key(batch, len);
		if (families_idx >= 0)
			wc_write_batch_cell(batch, (uint16) families_idx, cell.data ? cell.data : (const uint8 *) "", cell.len);
		if (wc_idx >= 0)
		{
			/* a map of the one cell Bigtable's tables have: wc:families */
			map.len = 0;
			wc_write_batch_map_entry(&map, (const uint8 *) "families", 8,
									 cell.data ? cell.data : (const uint8 *) "", cell.len);
			wc_write_batch_cell(batch, (uint16) wc_idx, map.data, map.len);
		}
		wc_write_batch_row_end(batch, families_idx < 0 && wc_idx < 0, versions, 0);
		emitted++;
		if (limit != 0 && emitted >= limit)
			break;
	}
	wc_bytebuf_free(&cell);
	wc_bytebuf_free(&map);
	names_free(&tables);
	return emitted;
}
