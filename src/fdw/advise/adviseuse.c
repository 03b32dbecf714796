/*-------------------------------------------------------------------------
 *
 * adviseuse.c
 *	  The schema advisor's findings from how the table is used rather than
 *	  how it is stored: the heat map's evidence of a write hotspot, and
 *	  scans that fetch far more rows than their queries keep.
 *
 * The worker counts what it reads, but not what the backend keeps: a
 * condition on a column that is not the key is evaluated by the executor
 * after the worker returned every row.  So a scan counts the rows it
 * fetched and the rows its node returned after its quals, and adds both
 * at its end to a table in shared memory (scan.c, common/scanuse.h),
 * which the finding here reads.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "common/scanuse.h"
#include "fdw/advise/advise.h"

/* The share of the writes whose ranges are the hotspot. */
#define WC_ADVISE_HOT_SHARE			0.8

/* scans_exceed_reads: fetched at least this many rows ... */
#define WC_ADVISE_SCAN_MIN_FETCHED	1000
/* ... and at least this many for each row kept */
#define WC_ADVISE_SCAN_RATIO		10

/*
 * wc_advise_heat_hotspot
 *		Add to timestamp_key or sequential_key what the heat map of the last
 *		hour shows of the writes: the share that went to the highest-keyed
 *		ranges, the fewest at the end of the key order that hold 80% of
 *		them.  The ranges split where the traffic is, so they are counted,
 *		not taken as equal widths; said only once the heat map has split
 *		the writes over two ranges or more, and when those ranges are not
 *		all of them.
 */
void
wc_advise_heat_hotspot(WcAdvice *a)
{
	WcFinding  *f = wc_advise_finding(a, "timestamp_key");
	Oid			argtypes[1] = {REGCLASSOID};
	Datum		args[1];
	uint64		n;
	double		total = 0;
	double		tail = 0;
	uint64		k = 0;

	if (f == NULL)
		f = wc_advise_finding(a, "sequential_key");
	/* a Bigtable server's heat is Key Visualizer's: the worker counts none */
	if (f == NULL || a->t->engine == WC_ENGINE_BIGTABLE)
		return;
	args[0] = ObjectIdGetDatum(a->t->relid);
	SPI_connect();
	if (SPI_execute_with_args("SELECT start_key, value FROM widecolumn.key_heatmap($1, 'writes', "
							  "now() - interval '1 hour', 1)",
							  1, argtypes, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the heat map");
	n = SPI_processed;
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;

		total += DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2,
											  &isnull));
	}
	/* rows come in key order: the tail is the highest keys */
	while (n >= 2 && k < n && tail < WC_ADVISE_HOT_SHARE * total)
	{
		bool		isnull;

		k++;
		tail += DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[n - k], SPI_tuptable->tupdesc, 2,
											 &isnull));
	}
	/* every range of them is no hotspot: nothing to say */
	if (n >= 2 && total > 0 && k < n)
	{
		char	   *start = SPI_getvalue(SPI_tuptable->vals[n - k], SPI_tuptable->tupdesc, 1);

		appendStringInfo(&f->evidence,
						 " In the heat map of the last hour, %.0f%% of the %.0f writes went to the last "
						 UINT64_FORMAT " of its " UINT64_FORMAT " key ranges with writes, from ",
						 100 * tail / total, total, k, n);
		wc_advise_append_key(&f->evidence, (const uint8 *) start, strlen(start));
		appendStringInfoString(&f->evidence, " on (ranges split where the traffic is).");
	}
	SPI_finish();
}

/* The LevelDB entries stat_tables says the worker walked in the table; -1: unknown. */
static int64
entries_scanned(WcAdvice *a)
{
	Oid			argtypes[2] = {TEXTOID, TEXTOID};
	Datum		args[2];
	int64		entries = -1;
	bool		isnull;

	args[0] = CStringGetTextDatum(GetForeignServer(a->t->serverid)->servername);
	args[1] = CStringGetTextDatum(a->t->table);
	SPI_connect();
	if (SPI_execute_with_args("SELECT sum(entries_scanned)::bigint FROM widecolumn.stat_tables "
							  "WHERE server::text = $1 AND table_name = $2",
							  2, argtypes, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read widecolumn.stat_tables");
	if (SPI_processed == 1)
	{
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
			entries = DatumGetInt64(d);
	}
	SPI_finish();
	return entries;
}

/*
 * wc_advise_scans_exceed_reads
 *		Scans that fetch far more rows than their conditions keep: the key
 *		does not match the queries (seed 002).
 */
void
wc_advise_scans_exceed_reads(WcAdvice *a)
{
	WcScanUseCounts c;
	WcFinding  *f;
	int64		entries;

	if (!wc_scanuse_read(MyDatabaseId, a->t->serverid, a->t->table, &c) ||
		c.fetched < WC_ADVISE_SCAN_MIN_FETCHED || c.fetched < WC_ADVISE_SCAN_RATIO * c.kept)
		return;
	f = wc_advise_report(a, WC_ADVISE_WARNING, "scans_exceed_reads",
						 "If you find that you have to use filters to get the data you need, consider "
						 "normalizing the data in a way that allows simpler (and faster) reads: reading a "
						 "single row or ranges of rows by row key. Put what the frequent queries filter on "
						 "at the start of the row key; EXPLAIN shows which conditions were not pushed down.");
	appendStringInfo(&f->evidence, UINT64_FORMAT " scan%s of this table since %s (%s) fetched "
					 UINT64_FORMAT " rows from storage and returned " UINT64_FORMAT
					 " after their conditions",
					 c.scans, c.scans == 1 ? "" : "s", timestamptz_to_str(c.since),
					 c.reset ? "the last stat_reset" : "its first scan counted",
					 c.fetched, c.kept);
	if (c.kept > 0)
		appendStringInfo(&f->evidence, " (%.1f per row returned)", (double) c.fetched / c.kept);
	else
		appendStringInfoString(&f->evidence, " (none returned)");
	entries = entries_scanned(a);
	if (entries >= 0)
		appendStringInfo(&f->evidence, "; " INT64_FORMAT " LevelDB entries were walked (stat_tables).",
						 entries);
	else
		appendStringInfoChar(&f->evidence, '.');
}
