/*-------------------------------------------------------------------------
 *
 * heatsvg.c
 *	  widecolumn.key_heatmap_svg: the key access heat map as an SVG picture,
 *	  drawn from what widecolumn.key_heatmap returns.
 *
 * The picture follows Key Visualizer's: time across, key ranges down in
 * key order, one rectangle per range and time bucket, coloured on a
 * perceptual scale (viridis: lightness rises evenly with the value, and it
 * reads the same to colour-blind eyes and in grey).  The worker splits
 * busy ranges and merges quiet ones, so each column has ranges of its own:
 * the picture's rows are the intervals between every boundary of any
 * column, and a range is coloured by its value per row it covers (its
 * density on the key axis).  Values span orders of magnitude (a hotspot
 * against an idle table), so the colour follows log(1 + density), as the
 * legend says.  On the right, the key groups that took the most of the
 * metric (ranges summed by their key's first segment, as Key Visualizer
 * groups a key hierarchy) are labelled with that prefix and their share.
 *
 * The rows come through SPI from the SQL function, so the picture shows
 * exactly the figures a query shows, under the same privilege checks.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "fdw/model/model.h"

PG_FUNCTION_INFO_V1(wc_key_heatmap_svg);

/* The picture's geometry, in CSS pixels. */
#define SVG_KEYS_W		210		/* key labels, left of the plot */
#define SVG_PLOT_X		(SVG_KEYS_W + 10)
#define SVG_PLOT_Y		50
#define SVG_PLOT_W		720
#define SVG_PLOT_H		480
#define SVG_HOT_W		250		/* hot-range labels, right of the plot */
#define SVG_WIDTH		(SVG_PLOT_X + SVG_PLOT_W + 10 + SVG_HOT_W)
#define SVG_HEIGHT		(SVG_PLOT_Y + SVG_PLOT_H + 110)
#define SVG_KEY_LABELS	16		/* key-axis labels, at most */
#define SVG_TIME_LABELS	8
#define SVG_BUCKETS		60		/* key_heatmap's buckets, as read_heatmap asks */
#define SVG_MIN_COLUMN	USECS_PER_MINUTE	/* the worker's columns (WC_HEAT_BUCKET_US) */
#define SVG_HOT_LABELS	5
#define SVG_LABEL_CHARS	28		/* a key label's length, at most */

/* One row of key_heatmap. */
typedef struct HeatCell
{
	TimestampTz start;
	char	   *time_label;		/* HH24:MI in the session's time zone */
	char	   *start_key;
	char	   *end_key;		/* "" when the range runs to the table's end */
	double		value;
	double		density;		/* value per picture row the range covers */
} HeatCell;

/* A key group's total over the time shown, to find the hottest. */
typedef struct HotRange
{
	char	   *label;
	int			top;			/* picture rows it covers */
	int			bottom;
	double		total;
} HotRange;

/* viridis, sampled at ten evenly spaced points (matplotlib's table) */
static const uint8 viridis[10][3] = {
	{68, 1, 84}, {72, 40, 120}, {62, 74, 137}, {49, 104, 142}, {38, 130, 142},
	{31, 158, 137}, {53, 183, 121}, {109, 205, 89}, {180, 222, 44}, {253, 231, 37}
};

static void
colour(double t, char *out)
{
	double		pos;
	int			i;
	double		f;
	int			rgb[3];

	t = Max(0.0, Min(1.0, t));
	pos = t * 9.0;
	i = Min((int) pos, 8);
	f = pos - i;
	for (int c = 0; c < 3; c++)
		rgb[c] = (int) rint(viridis[i][c] + f * (viridis[i + 1][c] - viridis[i][c]));
	snprintf(out, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

/*
 * Text for an SVG element: XML's five entities, and no control character
 * (XML 1.0 allows none but tab and newlines; a key may hold any).  A
 * backslash becomes a character reference, so that COPY's text format,
 * which doubles backslashes, writes the picture as it is.
 */
static void
append_xml(StringInfo buf, const char *s, int max_chars)
{
	int			chars = 0;

	for (const char *p = s; *p; p += pg_mblen(p))
	{
		if (max_chars > 0 && chars++ >= max_chars)
		{
			appendStringInfoString(buf, "\xE2\x80\xA6");	/* … */
			return;
		}
		switch (*p)
		{
			case '&':
				appendStringInfoString(buf, "&amp;");
				break;
			case '<':
				appendStringInfoString(buf, "&lt;");
				break;
			case '>':
				appendStringInfoString(buf, "&gt;");
				break;
			case '"':
				appendStringInfoString(buf, "&quot;");
				break;
			case '\'':
				appendStringInfoString(buf, "&apos;");
				break;
			case '\\':
				appendStringInfoString(buf, "&#92;");
				break;
			default:
				if ((unsigned char) *p < 0x20 || *p == 0x7f)
					appendStringInfoChar(buf, '?');
				else
					appendBinaryStringInfo(buf, p, pg_mblen(p));
		}
	}
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static int
cmp_hot(const void *a, const void *b)
{
	double		x = ((const HotRange *) a)->total;
	double		y = ((const HotRange *) b)->total;

	return (x < y) - (x > y);
}

/*
 * The picture row a range's key bounds: keys[] holds every start key and
 * every bounded end key, sorted; "" starts the table and, as an end, ends
 * it, below the last row.
 */
static int
key_row(char **keys, int nkeys, const char *key, bool is_end)
{
	char	  **hit;

	if (is_end && key[0] == '\0')
		return nkeys;
	hit = bsearch(&key, keys, nkeys, sizeof(char *), cmp_str);
	Assert(hit != NULL);
	return hit - keys;
}

/*
 * The group a range's counts are labelled under: its start key's first
 * segment, up to and including the table's row-key delimiter, or for a
 * table that declares none, the first character that is not a letter or a
 * digit (Key Visualizer finds a key hierarchy the same way, by common
 * delimiters).  The worker splits busy key ranges finer, which evens out
 * the counts per range; summed by group, a hotspot stands out again.
 */
static char *
range_label(const char *start, char delimiter)
{
	const char *p;

	if (start[0] == '\0')
		return pstrdup("(start of table)");
	for (p = start; *p; p++)
	{
		if (delimiter != '\0' ? *p == delimiter :
			!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
			  (*p >= 'A' && *p <= 'Z') || (unsigned char) *p >= 0x80))
			return pnstrdup(start, p - start + 1);
	}
	return pstrdup(start);
}

static void
draw_legend(StringInfo svg, double vmax, const char *metric)
{
	int			x = SVG_PLOT_X;
	int			y = SVG_PLOT_Y + SVG_PLOT_H + 55;
	char		c[8];

	appendStringInfo(svg,
					 "<defs><linearGradient id=\"scale\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">");
	for (int i = 0; i <= 10; i++)
	{
		colour(i / 10.0, c);
		appendStringInfo(svg, "<stop offset=\"%d%%\" stop-color=\"%s\"/>", i * 10, c);
	}
	appendStringInfo(svg, "</linearGradient></defs>\n"
					 "<rect x=\"%d\" y=\"%d\" width=\"300\" height=\"14\" fill=\"url(#scale)\" stroke=\"#444\"/>\n",
					 x, y);
	/* ticks at 0, and at the values log(1+v) puts at a third, two thirds and the end */
	for (int i = 0; i <= 3; i++)
	{
		double		v = expm1(log1p(vmax) * i / 3.0);

		appendStringInfo(svg,
						 "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>"
						 "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%.*f</text>\n",
						 x + 100 * i, y + 14, x + 100 * i, y + 18,
						 x + 100 * i, y + 31, v < 10 ? 1 : 0, v);
	}
	appendStringInfo(svg,
					 "<text x=\"%d\" y=\"%d\">%s per time bucket and key row (log scale)</text>\n",
					 x + 315, y + 12, metric);
}

/* The rows of key_heatmap, copied into the caller's memory. */
static HeatCell *
read_heatmap(FunctionCallInfo fcinfo, int *ncells)
{
	MemoryContext caller = CurrentMemoryContext;
	Oid			argtypes[3] = {REGCLASSOID, TEXTOID, TIMESTAMPTZOID};
	Datum		args[3];
	char		nulls[3];
	HeatCell   *cells;

	/* NULLs too: key_heatmap's errors are this function's */
	for (int i = 0; i < 3; i++)
	{
		nulls[i] = PG_ARGISNULL(i) ? 'n' : ' ';
		args[i] = PG_ARGISNULL(i) ? (Datum) 0 : PG_GETARG_DATUM(i);
	}
	SPI_connect();
	if (SPI_execute_with_args("SELECT bucket_start, to_char(bucket_start, 'HH24:MI'),"
							  " coalesce(start_key, ''), coalesce(end_key, ''), value"
							  " FROM widecolumn.key_heatmap($1, $2, $3)"
							  " ORDER BY 1, coalesce(start_key, '') COLLATE \"C\"",
							  3, argtypes, args, nulls, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read widecolumn.key_heatmap");

	MemoryContextSwitchTo(caller);
	*ncells = (int) SPI_processed;
	cells = palloc0(sizeof(HeatCell) * Max(*ncells, 1));
	for (int i = 0; i < *ncells; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;

		cells[i].start = DatumGetTimestampTz(SPI_getbinval(tup, desc, 1, &isnull));
		cells[i].time_label = SPI_getvalue(tup, desc, 2);
		cells[i].start_key = SPI_getvalue(tup, desc, 3);
		cells[i].end_key = SPI_getvalue(tup, desc, 4);
		cells[i].value = DatumGetFloat8(SPI_getbinval(tup, desc, 5, &isnull));
		if (isnull || !(cells[i].value > 0))
			cells[i].value = 0;
	}
	SPI_finish();
	return cells;
}

static void
draw_axes(StringInfo svg, char **keys, int nrows, HeatCell *cells, int ncells,
		  TimestampTz t0, TimestampTz dt, int ncols)
{
	double		row_h = (double) SVG_PLOT_H / nrows;
	double		col_w = (double) SVG_PLOT_W / ncols;
	int			step = Max(1, (nrows + SVG_KEY_LABELS - 1) / SVG_KEY_LABELS);

	/* keys down the left: the key each labelled row starts with */
	appendStringInfoString(svg, "<g text-anchor=\"end\">\n");
	for (int r = 0; r < nrows; r += step)
	{
		appendStringInfo(svg, "<text x=\"%d\" y=\"%.1f\">", SVG_KEYS_W,
						 SVG_PLOT_Y + (r + 0.5) * row_h + 4);
		append_xml(svg, keys[r][0] ? keys[r] : "(start of table)", SVG_LABEL_CHARS);
		appendStringInfoString(svg, "</text>\n");
	}
	appendStringInfoString(svg, "</g>\n");

	/* times along the bottom, at most SVG_TIME_LABELS of them, evenly */
	appendStringInfoString(svg, "<g text-anchor=\"middle\">\n");
	for (int col = 0; col < ncols; col += Max(1, (ncols + SVG_TIME_LABELS - 1) / SVG_TIME_LABELS))
	{
		text	   *label = DatumGetTextPP(DirectFunctionCall2(timestamptz_to_char,
															   TimestampTzGetDatum(t0 + col * dt),
															   PointerGetDatum(cstring_to_text("HH24:MI"))));

		appendStringInfo(svg,
						 "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\"/>"
						 "<text x=\"%.1f\" y=\"%d\">",
						 SVG_PLOT_X + col * col_w, SVG_PLOT_Y + SVG_PLOT_H,
						 SVG_PLOT_X + col * col_w, SVG_PLOT_Y + SVG_PLOT_H + 5,
						 SVG_PLOT_X + col * col_w, SVG_PLOT_Y + SVG_PLOT_H + 18);
		append_xml(svg, text_to_cstring(label), 0);
		appendStringInfoString(svg, "</text>\n");
	}
	appendStringInfo(svg, "</g>\n<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time</text>\n"
					 "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">row key</text>\n",
					 SVG_PLOT_X + SVG_PLOT_W / 2, SVG_PLOT_Y + SVG_PLOT_H + 36,
					 SVG_KEYS_W, SVG_PLOT_Y - 8);
}

/*
 * The picture on one line: COPY's text format writes a newline as \n, which
 * XML does not allow before the root element, and \copy ... TO 'heat.svg'
 * must give a file a browser opens.  Between elements a space is as good.
 */
static text *
one_line(StringInfo svg)
{
	for (char *p = svg->data; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return cstring_to_text(svg->data);
}

/* The start of the minute t falls in (before 2000 too). */
static TimestampTz
minute_floor(TimestampTz t)
{
	TimestampTz r = t % SVG_MIN_COLUMN;

	return t - (r < 0 ? r + SVG_MIN_COLUMN : r);
}

/*
 * Where a bucket of key_heatmap is drawn: at its start, or with a column
 * per minute at the minute it holds.  key_heatmap's buckets are then a
 * minute long or less, so a bucket holds at most one minute's start, the
 * first at or after its own (the first bucket: the minute since falls in).
 */
static TimestampTz
column_start(TimestampTz bucket, TimestampTz since, TimestampTz t0, bool by_minute)
{
	TimestampTz into;

	if (!by_minute || bucket <= since)
		return by_minute ? t0 : bucket;
	into = minute_floor(bucket);
	return into == bucket ? bucket : into + SVG_MIN_COLUMN;
}

Datum
wc_key_heatmap_svg(PG_FUNCTION_ARGS)
{
	Oid			relid;
	char	   *metric;
	HeatCell   *cells;
	int			ncells;
	char	  **keys;
	int			nkeys = 0;
	int			nrows;
	bool		open_end = false;
	TimestampTz t0,
				t1,
				dt = 0;
	int			ncols;
	double		vmax = 0;
	double		row_h;
	double		col_w;
	HotRange   *hot;
	int			nhot = 0;
	char		delimiter;
	StringInfoData svg;
	TimestampTz svg_now;
	TimestampTz since = 0;
	bool		by_minute = false;

	/*
	 * Taken before key_heatmap takes its own: the buckets it makes are then
	 * at least as wide as the columns here, so none lands a column early.
	 */
	svg_now = GetCurrentTimestamp();
	cells = read_heatmap(fcinfo, &ncells);
	relid = PG_GETARG_OID(0);
	metric = text_to_cstring(PG_GETARG_TEXT_PP(1));
	delimiter = wc_get_table(relid)->delimiter;

	initStringInfo(&svg);
	appendStringInfo(&svg,
					 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
					 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
					 " font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"11\">\n"
					 "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
					 "<text x=\"%d\" y=\"24\" font-size=\"15\" font-weight=\"bold\">",
					 SVG_WIDTH, SVG_HEIGHT, SVG_WIDTH, SVG_HEIGHT, SVG_PLOT_X);
	append_xml(&svg, get_rel_name(relid), 0);
	appendStringInfoString(&svg, ": ");
	append_xml(&svg, metric, 0);
	appendStringInfoString(&svg, " by row-key range and time</text>\n");

	if (ncells == 0)
	{
		appendStringInfo(&svg,
						 "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f0f0f0\" stroke=\"#444\"/>\n"
						 "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no activity recorded in this time</text>\n</svg>\n",
						 SVG_PLOT_X, SVG_PLOT_Y, SVG_PLOT_W, SVG_PLOT_H,
						 SVG_PLOT_X + SVG_PLOT_W / 2, SVG_PLOT_Y + SVG_PLOT_H / 2);
		PG_RETURN_TEXT_P(one_line(&svg));
	}

	/* the picture's rows: every key that bounds a range, in key order */
	keys = palloc(sizeof(char *) * 2 * ncells);
	for (int i = 0; i < ncells; i++)
	{
		keys[nkeys++] = cells[i].start_key;
		if (cells[i].end_key[0] != '\0')
			keys[nkeys++] = cells[i].end_key;
		else
			open_end = true;
	}
	qsort(keys, nkeys, sizeof(char *), cmp_str);
	{
		int			n = 1;

		for (int i = 1; i < nkeys; i++)
			if (strcmp(keys[i], keys[n - 1]) != 0)
				keys[n++] = keys[i];
		nkeys = n;
	}
	nrows = Max(1, open_end ? nkeys : nkeys - 1);

	/*
	 * Its columns: key_heatmap's buckets, from since to now, quiet ones too,
	 * so that the time axis is the clock's.
	 */
	t0 = t1 = cells[0].start;
	for (int i = 0; i < ncells; i++)
	{
		t0 = Min(t0, cells[i].start);
		t1 = Max(t1, cells[i].start);
	}
	for (int i = 0; i < ncells; i++)
	{
		TimestampTz gap = cells[i].start - t0;

		if (gap > 0 && (dt == 0 || gap < dt))
			dt = gap;
		for (int j = i + 1; j < ncells && j < i + 2; j++)
		{
			gap = cells[j].start - cells[i].start;
			if (gap < 0)
				gap = -gap;
			if (gap > 0 && gap < dt)
				dt = gap;
		}
	}
	if (dt == 0)
		dt = USECS_PER_MINUTE;
	ncols = (int) Min((t1 - t0) / dt + 1, SVG_PLOT_W);
	if (!PG_ARGISNULL(2))
	{
		since = PG_GETARG_TIMESTAMPTZ(2);
		t0 = since;
		dt = Max((svg_now - since) / SVG_BUCKETS, 1);
		ncols = SVG_BUCKETS;

		/*
		 * The worker counts by the minute (docs/heatmap.md): a column
		 * narrower than that would draw a minute as a thin stripe among
		 * empty ones.  So a span under an hour has a column per minute,
		 * from the one since falls in, as key_heatmap's first bucket is.
		 */
		if (dt < SVG_MIN_COLUMN)
		{
			dt = SVG_MIN_COLUMN;
			by_minute = true;
			t0 = minute_floor(since);
			ncols = (int) ((svg_now - t0 + dt - 1) / dt);
		}
	}
	row_h = (double) SVG_PLOT_H / nrows;

	/*
	 * A range is coloured by its value per picture row it covers: a range
	 * of the whole quiet table beside thirty narrow ranges that took the
	 * same count each is dark, as the key space it stands for was.
	 */
	for (int i = 0; i < ncells; i++)
	{
		int			top = key_row(keys, nkeys, cells[i].start_key, false);
		int			bottom = Min(key_row(keys, nkeys, cells[i].end_key, true), nrows);

		cells[i].density = bottom > top ? cells[i].value / (bottom - top) : 0;
		vmax = Max(vmax, cells[i].density);
	}
	col_w = (double) SVG_PLOT_W / ncols;

	/* the map itself, on the scale's zero colour: no activity */
	{
		char		c[8];

		colour(0, c);
		appendStringInfo(&svg, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n<g>\n",
						 SVG_PLOT_X, SVG_PLOT_Y, SVG_PLOT_W, SVG_PLOT_H, c);
	}
	hot = palloc0(sizeof(HotRange) * ncells);
	for (int i = 0; i < ncells; i++)
	{
		HeatCell   *hc = &cells[i];
		int			top = key_row(keys, nkeys, hc->start_key, false);
		int			bottom = Min(key_row(keys, nkeys, hc->end_key, true), nrows);
		int			col = (int) Min((column_start(hc->start, since, t0, by_minute) - t0) / dt, ncols - 1);
		char		c[8];
		char	   *label;
		int			h;

		if (hc->value <= 0 || bottom <= top)
			continue;
		colour(vmax > 0 ? log1p(hc->density) / log1p(vmax) : 0, c);
		appendStringInfo(&svg, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
						 "<title>",
						 SVG_PLOT_X + col * col_w, SVG_PLOT_Y + top * row_h,
						 col_w, (bottom - top) * row_h, c);
		append_xml(&svg, hc->time_label, 0);
		appendStringInfoString(&svg, " [");
		append_xml(&svg, hc->start_key, 0);
		appendStringInfoString(&svg, ", ");
		append_xml(&svg, hc->end_key[0] ? hc->end_key : "end", 0);
		appendStringInfo(&svg, "): %g</title></rect>\n", hc->value);

		/* the range's count goes to its key group's total */
		label = range_label(hc->start_key, delimiter);
		for (h = 0; h < nhot; h++)
			if (strcmp(hot[h].label, label) == 0)
				break;
		if (h == nhot)
		{
			hot[nhot].label = label;
			hot[nhot].top = top;
			hot[nhot].bottom = bottom;
			nhot++;
		}
		hot[h].top = Min(hot[h].top, top);
		hot[h].bottom = Max(hot[h].bottom, bottom);
		hot[h].total += hc->value;
	}
	appendStringInfo(&svg, "</g>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>\n",
					 SVG_PLOT_X, SVG_PLOT_Y, SVG_PLOT_W, SVG_PLOT_H);

	/* the hottest key groups, labelled on the right with a bracket */
	qsort(hot, nhot, sizeof(HotRange), cmp_hot);
	{
		double		total = 0;

		for (int h = 0; h < nhot; h++)
			total += hot[h].total;
		for (int h = 0; h < Min(nhot, SVG_HOT_LABELS) && hot[h].total > 0; h++)
		{
			double		y0 = SVG_PLOT_Y + hot[h].top * row_h;
			double		y1 = SVG_PLOT_Y + hot[h].bottom * row_h;
			int			x = SVG_PLOT_X + SVG_PLOT_W + 6;

			appendStringInfo(&svg,
							 "<path d=\"M%d %.1f h4 V%.1f h-4\" fill=\"none\" stroke=\"#c0392b\"/>"
							 "<text x=\"%d\" y=\"%.1f\" fill=\"#c0392b\">",
							 x, y0 + 1, y1 - 1, x + 8, (y0 + y1) / 2 + 4);
			append_xml(&svg, hot[h].label, SVG_LABEL_CHARS);
			appendStringInfo(&svg, " (%.0f%%)</text>\n", total > 0 ? 100.0 * hot[h].total / total : 0);
		}
	}

	draw_axes(&svg, keys, nrows, cells, ncells, t0, dt, ncols);
	draw_legend(&svg, vmax, metric);
	appendStringInfoString(&svg, "</svg>\n");
	PG_RETURN_TEXT_P(one_line(&svg));
}
