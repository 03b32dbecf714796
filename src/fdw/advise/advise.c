/*-------------------------------------------------------------------------
 *
 * advise.c
 *	  The schema advisor, widecolumn.advise(t regclass): a sample of the
 *	  stored table behind t, and the findings the schema-design pages
 *	  (seeds 000 to 002) warn about, each a function of one list.
 *
 * The sample is bounded whatever the table's size: sample_row_keys' split
 * points (worker/sizes.c, from LevelDB's indexes) spread up to
 * WC_ADVISE_PROBES probes over the table, and each probe reads the first
 * rows from its split point, WC_ADVISE_ROWS rows shared among the probes
 * there are (a small table has few split points: its one probe reads them
 * all), every version the policies keep (a cells scan,
 * worker/cellversions.c), at most WC_ADVISE_PROBE_VERSIONS versions.  A row too big for its probe, and
 * the row at each split point that follows a piece of half a row limit or
 * more (the one place a huge row can hide between probes), are sized by
 * LevelDB's estimate instead.  The advisor reads committed data: the
 * transaction's own writes are not in the sample.
 *
 * The row keys' shape is judged in advisekeys.c; sizes, families,
 * policies and collations here.  Thresholds are in the README's "Schema
 * advisor", which explains each finding.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_foreign_table.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "access/genam.h"

#include "common/gcpolicy.h"
#include "fdw/advise/advise.h"
#include "fdw/fdw.h"
#include "fdw/keys/keys.h"
#include "fdw/link/link.h"
#include "fdw/meta/meta.h"
#include "fdw/model/model.h"

PG_FUNCTION_INFO_V1(wc_advise);

/* The sample's bounds. */
#define WC_ADVISE_PROBES			16
#define WC_ADVISE_ROWS				2048	/* 128 a probe when there are 16 */
#define WC_ADVISE_PROBE_VERSIONS	32768

/* Bigtable's limits and advice (seed 000), and how near is near. */
#define WC_ADVISE_MB				((uint64) 1024 * 1024)
#define WC_ADVISE_ROW_LIMIT			(100 * WC_ADVISE_MB)
#define WC_ADVISE_CELL_LIMIT		(10 * WC_ADVISE_MB)
#define WC_ADVISE_NEAR(limit)		((limit) / 2)
#define WC_ADVISE_MAX_FAMILIES		100
#define WC_ADVISE_MAX_COLUMNS		20000	/* above seed 001's week of minutes */
#define WC_ADVISE_NEVER_VERSIONS	10

/* The versions of one probe, as they come. */
typedef struct WcProbe
{
	WcAdvice   *a;
	int			cap;			/* rows allocated */
	WcAdviseRow *row;			/* being read */
	WcAdviseFamily *fam;		/* of the cell being read */
	StringInfoData column;		/* that cell, family:qualifier */
	uint32		cell_versions;
} WcProbe;

/*
 * wc_advise_report
 *		Add a finding; its evidence, empty, is for the caller to write.
 */
WcFinding *
wc_advise_report(WcAdvice *a, const char *severity, const char *finding, const char *advice)
{
	WcFinding  *f = palloc0(sizeof(WcFinding));

	f->severity = severity;
	f->finding = finding;
	f->advice = advice;
	initStringInfo(&f->evidence);
	a->findings = lappend(a->findings, f);
	return f;
}

/* wc_advise_finding: a finding reported earlier, to add evidence to; or NULL. */
WcFinding *
wc_advise_finding(WcAdvice *a, const char *finding)
{
	ListCell   *lc;

	foreach(lc, a->findings)
		if (strcmp(((WcFinding *) lfirst(lc))->finding, finding) == 0)
			return lfirst(lc);
	return NULL;
}

/* A row key in evidence: quoted, and short. */
void
wc_advise_append_key(StringInfo s, const uint8 *key, size_t len)
{
	appendStringInfo(s, "'%s'", wc_printable_key(key, Min(len, 48)));
	if (len > 48)
		appendStringInfoString(s, "...");
}

static WcAdviseFamily *
family_named(WcAdvice *a, const uint8 *name, size_t len)
{
	for (int i = 0; i < a->nfamilies; i++)
		if (strlen(a->families[i].name) == len && memcmp(a->families[i].name, name, len) == 0)
			return &a->families[i];
	return NULL;
}

/* The cell being read ends: count its versions to its family. */
static void
probe_end_cell(WcProbe *p)
{
	WcAdviseFamily *f = p->fam;

	if (f != NULL && p->cell_versions > f->max_versions)
	{
		f->max_versions = p->cell_versions;
		f->max_key = p->row->key;
		f->max_keylen = p->row->keylen;
		f->max_column = pstrdup(p->column.data);
	}
	p->cell_versions = 0;
}

/* Take one version of the probe's scan into the sample. */
static void
probe_version(WcProbe *p, const WcBatchRow *row, WcBytes *cells, uint64 ts)
{
	WcAdvice   *a = p->a;
	WcAdviseRow *r = p->row;
	bool		new_cell;

	if (r == NULL || r->keylen != row->key.len || memcmp(r->key, row->key.data, row->key.len) != 0)
	{
		probe_end_cell(p);
		if (a->nrows == p->cap)
		{
			p->cap *= 2;
			a->rows = repalloc(a->rows, sizeof(WcAdviseRow) * p->cap);
		}
		r = p->row = &a->rows[a->nrows++];
		memset(r, 0, sizeof(WcAdviseRow));
		r->key = (uint8 *) pnstrdup((const char *) row->key.data, row->key.len);
		r->keylen = row->key.len;
		r->printable = true;
		for (size_t i = 0; i < row->key.len; i++)
			if (row->key.data[i] < 0x20 || row->key.data[i] == 0x7F)
				r->printable = false;
		resetStringInfo(&p->column);
		p->fam = NULL;
	}
	new_cell = p->column.len != cells[0].len + 1 + cells[1].len ||
		memcmp(p->column.data, cells[0].data, cells[0].len) != 0 ||
		memcmp(p->column.data + cells[0].len + 1, cells[1].data, cells[1].len) != 0;
	if (new_cell)
	{
		probe_end_cell(p);
		resetStringInfo(&p->column);
		appendBinaryStringInfo(&p->column, (const char *) cells[0].data, cells[0].len);
		appendStringInfoChar(&p->column, ':');
		appendBinaryStringInfo(&p->column, (const char *) cells[1].data, cells[1].len);
		p->fam = family_named(a, cells[0].data, cells[0].len);
		if (p->fam)
			p->fam->cells++;
		r->columns++;
	}
	p->cell_versions++;
	if (p->fam)
		p->fam->versions++;
	r->versions++;
	r->bytes += row->key.len + cells[0].len + cells[1].len + cells[2].len;
	r->newest = Max(r->newest, ts);
	if (cells[2].len > a->largest_cell)
	{
		a->largest_cell = cells[2].len;
		a->largest_cell_key = r->key;
		a->largest_cell_keylen = r->keylen;
		a->largest_cell_column = pstrdup(p->column.data);
	}
}

/*
 * probe
 *		Read the first rows (at most max_rows) of range into the sample.  A
 *		row the probe's bounds cut short is sized by LevelDB's estimate.
 */
static void
probe(WcAdvice *a, WcProbe *p, WcKeyRange *range, int max_rows)
{
	WcScanRequest req;
	uint32		scan;
	WcBatchReader batch;
	int			first = a->nrows;
	uint64		versions = 0;
	bool		cut = false;

	memset(&req, 0, sizeof(req));
	req.flags = WC_SCAN_CELLS | WC_SCAN_BULK;
	req.limit = WC_ADVISE_PROBE_VERSIONS + 1;
	req.ts_max = PG_INT64_MAX;
	scan = wc_client_scan_request(a->db, &req, list_make1(range), GetCurrentSubTransactionId());
	p->row = NULL;
	p->fam = NULL;
	resetStringInfo(&p->column);
	while (!cut && wc_client_scan_next_batch(scan, &batch))
	{
		for (uint32 n = 0; n < batch.rows_left; n++)
		{
			WcBatchRow	row;
			WcBytes		cells[4];
			uint64		ts;

			if (!wc_read_batch_row(&batch.r, &row) || row.ncells < 3 || row.ncells > 4)
				wc_client_unexpected_answer();
			for (int i = 0; i < row.ncells; i++)
			{
				uint16		idx;

				if (!wc_read_batch_cell(&batch.r, &idx, &cells[i]) || idx != i)
					wc_client_unexpected_answer();
			}
			if (!wc_read_batch_version(&batch.r, &ts))
				wc_client_unexpected_answer();
			if (versions++ == WC_ADVISE_PROBE_VERSIONS ||
				(a->nrows - first == max_rows &&
				 (row.key.len != p->row->keylen ||
				  memcmp(row.key.data, p->row->key, row.key.len) != 0)))
			{
				cut = true;
				break;
			}
			probe_version(p, &row, cells, ts);
		}
		if (batch.done)
			break;
	}
	probe_end_cell(p);
	wc_client_scan_end(scan);
	if (cut && versions > WC_ADVISE_PROBE_VERSIONS && p->row != NULL)
	{
		/* the last row may go on past the versions read */
		WcAdviseRow *r = p->row;
		uint64		est = wc_client_estimate(a->db, list_make1(wc_row_range(a->t, r->key, r->keylen)));

		if (est > r->bytes)
		{
			r->bytes = est;
			r->estimated = true;
		}
	}
}

/* The row at a split point, sized by LevelDB's estimate (a huge row's). */
static void
size_split_row(WcAdvice *a, WcProbe *p, const WcBytes *key)
{
	uint64		est = wc_client_estimate(a->db, list_make1(wc_row_range(a->t, key->data, key->len)));
	WcAdviseRow *r;

	for (int i = 0; i < a->nrows; i++)
		if (a->rows[i].keylen == key->len && memcmp(a->rows[i].key, key->data, key->len) == 0)
		{
			if (est > a->rows[i].bytes)
			{
				a->rows[i].bytes = est;
				a->rows[i].estimated = true;
			}
			return;
		}
	/* not probed: a row for its size only, its shape not judged */
	if (a->nrows == p->cap)
	{
		p->cap *= 2;
		a->rows = repalloc(a->rows, sizeof(WcAdviseRow) * p->cap);
	}
	r = &a->rows[a->nrows++];
	memset(r, 0, sizeof(WcAdviseRow));
	r->key = key->data;
	r->keylen = key->len;
	r->bytes = est;
	r->estimated = true;
}

static int
row_cmp(const void *x, const void *y)
{
	const WcAdviseRow *a = x;
	const WcAdviseRow *b = y;

	return wc_compare_bytes(a->key, a->keylen, b->key, b->keylen);
}

/* Take the sample: families and policies, split points, probes. */
static void
take_sample(WcAdvice *a)
{
	WcKeyRange *whole = wc_table_range(a->t);
	WcBytes    *keys;
	uint64	   *offsets;
	char	  **names;
	char	  **policies;
	char	  **aggregates;
	WcProbe		p;
	int			nprobes;
	int			out;

	a->nfamilies = wc_family_policies(a->t, &names, &policies, &aggregates);
	a->families = palloc0(sizeof(WcAdviseFamily) * (a->nfamilies + 1));
	for (int i = 0; i < a->nfamilies; i++)
	{
		a->families[i].name = names[i];
		a->families[i].policy = policies[i];
		a->families[i].aggregate = aggregates[i] != NULL;
	}

	wc_client_sample(a->db, a->t->table_key, a->t->table_key_len, &a->table_bytes,
					 &a->nsplits, &keys, &offsets);
	memset(&p, 0, sizeof(p));
	p.a = a;
	p.cap = 256;
	a->rows = palloc(sizeof(WcAdviseRow) * p.cap);
	initStringInfo(&p.column);

	/* probe k starts at the table's start (k = 0) or at a split point */
	nprobes = Min(WC_ADVISE_PROBES, a->nsplits + 1);
	for (int k = 0; k < nprobes; k++)
	{
		int			s = k * (a->nsplits + 1) / nprobes - 1;
		int			next = (k + 1) * (a->nsplits + 1) / nprobes - 1;
		WcKeyRange *r = palloc(sizeof(WcKeyRange));

		*r = *whole;
		if (s >= 0)
			r->start = wc_row_key(a->t, keys[s].data, keys[s].len, &r->start_len);
		if (k + 1 < nprobes)
			r->end = wc_row_key(a->t, keys[next].data, keys[next].len, &r->end_len);
		probe(a, &p, r, WC_ADVISE_ROWS / nprobes);
	}
	for (int s = 0; s < a->nsplits; s++)
	{
		uint64		piece = (s + 1 < a->nsplits ? offsets[s + 1] : a->table_bytes) - offsets[s];

		if (piece >= WC_ADVISE_NEAR(WC_ADVISE_ROW_LIMIT))
			size_split_row(a, &p, &keys[s]);
	}

	/* in key order, each row once (a split row may repeat a probed one) */
	qsort(a->rows, a->nrows, sizeof(WcAdviseRow), row_cmp);
	out = 0;
	for (int i = 0; i < a->nrows; i++)
		if (out == 0 || row_cmp(&a->rows[out - 1], &a->rows[i]) != 0)
			a->rows[out++] = a->rows[i];
	a->nrows = out;
}

/* A size in evidence: in MB with one decimal. */
static void
append_mb(StringInfo s, uint64 bytes)
{
	appendStringInfo(s, "%.1f MB", (double) bytes / WC_ADVISE_MB);
}

/* Rows over 100 MB, or near it. */
static void
check_large_row(WcAdvice *a)
{
	const WcAdviseRow *big = NULL;
	int			near = 0;
	WcFinding  *f;

	for (int i = 0; i < a->nrows; i++)
	{
		if (a->rows[i].bytes >= WC_ADVISE_NEAR(WC_ADVISE_ROW_LIMIT))
			near++;
		if (big == NULL || a->rows[i].bytes > big->bytes)
			big = &a->rows[i];
	}
	if (near == 0)
		return;
	f = wc_advise_report(a, big->bytes > WC_ADVISE_ROW_LIMIT ? WC_ADVISE_WARNING : WC_ADVISE_NOTICE,
						 "large_row",
						 "Keep a row under 100 MB (Bigtable's hard limit is 256 MB): larger rows make reads slow. "
						 "Split what grows without bound over several rows, e.g. a row per time bucket in the row key.");
	appendStringInfo(&f->evidence, "%d sampled row%s of 50 MB or more; the largest, ",
					 near, near == 1 ? "" : "s");
	wc_advise_append_key(&f->evidence, big->key, big->keylen);
	appendStringInfoString(&f->evidence, ", holds ");
	append_mb(&f->evidence, big->bytes);
	if (big->estimated)
		appendStringInfoString(&f->evidence, " (LevelDB's estimate, compressed)");
	else
		appendStringInfo(&f->evidence, " in " UINT64_FORMAT " versions", big->versions);
	appendStringInfoString(&f->evidence, "; the limit is 100 MB.");
}

/* Cells over 10 MB, or near it. */
static void
check_large_cell(WcAdvice *a)
{
	WcFinding  *f;

	if (a->largest_cell < WC_ADVISE_NEAR(WC_ADVISE_CELL_LIMIT))
		return;
	f = wc_advise_report(a, a->largest_cell > WC_ADVISE_CELL_LIMIT ? WC_ADVISE_WARNING : WC_ADVISE_NOTICE,
						 "large_cell",
						 "Do not store more than 10 MB in one cell: keep large objects elsewhere and store their "
						 "names, or split the value over several columns or rows.");
	appendStringInfo(&f->evidence, "cell %s of row ", a->largest_cell_column);
	wc_advise_append_key(&f->evidence, a->largest_cell_key, a->largest_cell_keylen);
	appendStringInfoString(&f->evidence, " holds ");
	append_mb(&f->evidence, a->largest_cell);
	appendStringInfoString(&f->evidence, "; the limit is 10 MB.");
}

/* More than about 100 families. */
static void
check_many_families(WcAdvice *a)
{
	WcFinding  *f;

	if (a->nfamilies <= WC_ADVISE_MAX_FAMILIES)
		return;
	f = wc_advise_report(a, WC_ADVISE_WARNING, "many_families",
						 "Create at most about 100 column families in a table: more can degrade performance. "
						 "Put related columns in the same family, and columns with different retention needs "
						 "in different families.");
	appendStringInfo(&f->evidence, "stored table \"%s\" has %d column families; the advice is 100 at most.",
					 a->t->table, a->nfamilies);
}

/* Very many columns in a row. */
static void
check_many_columns(WcAdvice *a)
{
	const WcAdviseRow *wide = NULL;
	int			over = 0;
	WcFinding  *f;

	for (int i = 0; i < a->nrows; i++)
		if (a->rows[i].columns > WC_ADVISE_MAX_COLUMNS)
		{
			over++;
			if (wide == NULL || a->rows[i].columns > wide->columns)
				wide = &a->rows[i];
		}
	if (over == 0)
		return;
	f = wc_advise_report(a, WC_ADVISE_NOTICE, "many_columns",
						 "A table can have millions of columns, but a row should not: each cell takes time to "
						 "process and adds its overhead to storage and transfer. Store values read together in "
						 "one column, serialized (protobuf, JSON), or spread them over more rows.");
	appendStringInfo(&f->evidence, "%d sampled row%s %s more than %d columns; ",
					 over, over == 1 ? "" : "s", over == 1 ? "has" : "have", WC_ADVISE_MAX_COLUMNS);
	wc_advise_append_key(&f->evidence, wide->key, wide->keylen);
	appendStringInfo(&f->evidence, " has %u%s.", wide->columns,
					 wide->versions >= WC_ADVISE_PROBE_VERSIONS ? " or more" : "");
}

/* A family that keeps every version, and whose cells pile them up. */
static void
check_growing_never(WcAdvice *a)
{
	for (int i = 0; i < a->nfamilies; i++)
	{
		WcAdviseFamily *fam = &a->families[i];
		WcFinding  *f;

		if (strcmp(fam->policy, "never") != 0 || fam->aggregate ||
			fam->max_versions < WC_ADVISE_NEVER_VERSIONS)
			continue;
		f = wc_advise_finding(a, "growing_never_family");
		if (f == NULL)
			f = wc_advise_report(a, WC_ADVISE_NOTICE, "growing_never_family",
								 "Garbage collection is set per family: give the family a policy that keeps what "
								 "is read (widecolumn.set_gc_policy with maxversions or maxage), or keep in a "
								 "\"never\" family only columns whose whole history is needed; otherwise every "
								 "update adds a version, rows grow toward the size limit and the old versions "
								 "are stored at a cost.");
		else
			appendStringInfoString(&f->evidence, " ");
		appendStringInfo(&f->evidence, "family \"%s\" (policy never): cell %s of row ",
						 fam->name, fam->max_column);
		wc_advise_append_key(&f->evidence, fam->max_key, fam->max_keylen);
		appendStringInfo(&f->evidence, " keeps %u versions; the sample holds " UINT64_FORMAT
						 " versions in %u cell%s of the family.",
						 fam->max_versions, fam->versions, fam->cells, fam->cells == 1 ? "" : "s");
	}
}

/* A text row key, in a foreign table over the stored table, not in "C". */
static void
check_collation(WcAdvice *a)
{
	Relation	rel = table_open(ForeignTableRelationId, AccessShareLock);
	SysScanDesc sd = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	HeapTuple	tup;
	WcFinding  *f = NULL;

	while (HeapTupleIsValid(tup = systable_getnext(sd)))
	{
		Form_pg_foreign_table ft = (Form_pg_foreign_table) GETSTRUCT(tup);
		WcTable    *o;
		WcColumn   *col;

		if (ft->ftserver != a->t->serverid)
			continue;
		o = ft->ftrelid == a->t->relid ? a->t : wc_get_table(ft->ftrelid);
		if (strcmp(o->table, a->t->table) != 0)
			continue;
		if (o->nparts > 0)
			col = &o->cols[o->part_attnum[o->nparts - 1] - 1];
		else if (o->rowkey_attnum > 0)
			col = &o->cols[o->rowkey_attnum - 1];
		else
			continue;
		if (!(col->type == TEXTOID || col->type == VARCHAROID || col->type == BPCHAROID) ||
			wc_collation_is_bytewise(col->type, col->collation))
			continue;
		if (f == NULL)
			f = wc_advise_report(a, WC_ADVISE_WARNING, "rowkey_collation",
								 "Declare a text row key COLLATE \"C\": rows are stored in byte order, and under "
								 "another collation a range of keys or ORDER BY the key cannot be read as a range "
								 "of rows, so it becomes a scan of the whole table with a filter and a sort.");
		else
			appendStringInfoString(&f->evidence, " ");
		appendStringInfo(&f->evidence, "foreign table %s: %s \"%s\" has collation \"%s\" (ALTER FOREIGN TABLE %s ALTER COLUMN %s TYPE %s COLLATE \"C\").",
						 quote_identifier(get_rel_name(ft->ftrelid)),
						 o->nparts > 0 ? "row-key part" : "row key",
						 col->name, get_collation_name(col->collation),
						 quote_qualified_identifier(get_namespace_name(get_rel_namespace(ft->ftrelid)),
													get_rel_name(ft->ftrelid)),
						 quote_identifier(col->name), format_type_with_typemod(col->type, col->typmod));
	}
	systable_endscan(sd);
	table_close(rel, AccessShareLock);
}

/*
 * The findings, in the order they are reported: the row key's, then sizes,
 * then families, then the foreign tables' declarations, then what the
 * table's use shows (the heat map adds to a key finding reported before).
 */
typedef void (*WcAdviseCheck) (WcAdvice *a);

static const WcAdviseCheck checks[] = {
	wc_advise_timestamp_key,
	wc_advise_sequential_key,
	wc_advise_hashed_key,
	wc_advise_domain_key,
	wc_advise_unpadded_number,
	check_large_row,
	check_large_cell,
	check_many_families,
	check_many_columns,
	check_growing_never,
	check_collation,
	wc_advise_heat_hotspot,
	wc_advise_scans_exceed_reads,
};

/*
 * wc_advise
 *		widecolumn.advise(t regclass) RETURNS TABLE (severity text, finding
 *		text, evidence text, advice text): what the schema-design pages
 *		would say of the stored table behind t.
 */
Datum
wc_advise(PG_FUNCTION_ARGS)
{
	WcAdvice	a;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ListCell   *lc;

	memset(&a, 0, sizeof(a));
	a.t = wc_table_arg(fcinfo, ACL_SELECT);
	a.db = wc_client_open_db(a.t);
	InitMaterializedSRF(fcinfo, 0);
	take_sample(&a);
	wc_advise_key_shape(&a);
	for (int i = 0; i < lengthof(checks); i++)
		checks[i] (&a);

	foreach(lc, a.findings)
	{
		WcFinding  *f = lfirst(lc);
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		values[0] = CStringGetTextDatum(f->severity);
		values[1] = CStringGetTextDatum(f->finding);
		values[2] = CStringGetTextDatum(f->evidence.data);
		values[3] = CStringGetTextDatum(f->advice);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
