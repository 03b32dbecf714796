/*-------------------------------------------------------------------------
 *
 * rowfilter.c
 *	  A scan's filters: which rows a scan with WC_SCAN_FILTER leaves out.
 *
 * The backend sends the comparisons of a column with a value that it can
 * hand over (storefilter.c) and still checks them itself on the rows it
 * gets, so a filter here may only leave out rows whose comparison is
 * surely false: a missing cell (NULL, for which no comparison is true) or
 * a value that compares wrong.  A cell whose width is not its kind's is
 * kept: the backend raises the error that it is.  Bytes (text, bytea) are
 * compared by their hash for equality, and a row whose bytes differ from
 * the value's is left out undecoded, even if they are not valid text; for
 * order (bytea, and text in the C collation), byte by byte and then by
 * length, as PostgreSQL compares them.  A
 * set of WC_FILTER_IN filters (an IN list) is one filter, met by a cell
 * equal to any of its values.
 *
 * Plain C, for the reader threads (readers.c), past ldb_row_filter_new.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "common/keycodec.h"
#include "worker/leveldb/rowfilter.h"

struct WcRowFilter
{
	int			n;				/* filters, a set of WC_FILTER_IN counting one */
	WcScanFilter *filters;
	int		   *size;			/* per filter: how many it is (a set's
								 * first: its size; else 1) */
	int			nfilters;		/* the request's, sets' members each */
	int			met;			/* the row's filters its cells passed */
	bool		failed;			/* a cell of the row failed one */
};

WcRowFilter *
ldb_row_filter_new(const WcScanRequest *req)
{
	WcRowFilter *f = palloc0(sizeof(WcRowFilter));

	f->nfilters = req->nfilters;
	f->filters = palloc(sizeof(WcScanFilter) * Max(1, req->nfilters));
	f->size = palloc(sizeof(int) * Max(1, req->nfilters));
	memcpy(f->filters, req->filters, sizeof(WcScanFilter) * req->nfilters);
	/* the request's message goes when the scan has begun */
	for (int i = 0; i < req->nfilters; i++)
		if (f->filters[i].kind == WC_FILTER_ORDERED_BYTES && f->filters[i].value > 0)
		{
			uint8	   *b = palloc(f->filters[i].value);

			memcpy(b, req->filters[i].bytes, f->filters[i].value);
			f->filters[i].bytes = b;
		}
	for (int i = 0; i < req->nfilters; i += f->size[i])
	{
		int			j = i + 1;

		if (f->filters[i].op == WC_FILTER_IN)
			while (j < req->nfilters && f->filters[j].op == WC_FILTER_IN &&
				   f->filters[j].col == f->filters[i].col &&
				   f->filters[j].kind == f->filters[i].kind)
				j++;
		f->size[i] = j - i;
		f->n++;
	}
	return f;
}

void
ldb_row_filter_row_begin(WcRowFilter *f)
{
	f->met = 0;
	f->failed = false;
}

/* -1, 0, 1 as PostgreSQL's float8_cmp_internal orders a and b */
static int
float_cmp(double a, double b)
{
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b))
		return -1;
	return a > b ? 1 : a < b ? -1 : 0;
}

/*
 * compare
 *		The cell's value against the filter's, as -1, 0 or 1; false if the
 *		cell does not have the width of its kind.  (Bytes are compared by
 *		their hash, once per set, in ldb_row_filter_cell.)
 */
static bool
compare(const WcScanFilter *flt, const uint8 *data, size_t len, int *cmp)
{
	switch (flt->kind)
	{
		case WC_FILTER_BOOL:
			if (len != 1 || data[0] > 1)
				return false;
			*cmp = data[0] > flt->value ? 1 : data[0] < flt->value ? -1 : 0;
			return true;
		case WC_FILTER_INT2:
		case WC_FILTER_INT4:
		case WC_FILTER_INT8:
			{
				size_t		width = flt->kind == WC_FILTER_INT2 ? 2 :
					flt->kind == WC_FILTER_INT4 ? 4 : 8;
				uint64		raw;
				int64		v;
				int64		c = (int64) flt->value;

				if (len != width)
					return false;
				raw = wc_get_be(data, (int) len);
				/* sign-extend from the cell's width */
				if (width < 8 && (raw & (UINT64CONST(1) << (width * 8 - 1))))
					raw |= ~((UINT64CONST(1) << (width * 8)) - 1);
				v = (int64) raw;
				*cmp = v > c ? 1 : v < c ? -1 : 0;
				return true;
			}
		case WC_FILTER_FLOAT4:
			{
				uint32		bits;
				float		v;
				double		c;

				if (len != 4)
					return false;
				bits = (uint32) wc_get_be(data, 4);
				memcpy(&v, &bits, 4);
				memcpy(&c, &flt->value, 8);
				*cmp = float_cmp((double) v, c);
				return true;
			}
		case WC_FILTER_FLOAT8:
			{
				uint64		bits;
				double		v;
				double		c;

				if (len != 8)
					return false;
				bits = wc_get_be(data, 8);
				memcpy(&v, &bits, 8);
				memcpy(&c, &flt->value, 8);
				*cmp = float_cmp(v, c);
				return true;
			}
		case WC_FILTER_ORDERED_BYTES:
			{
				/* as byteacmp and varstr_cmp in the C collation */
				size_t		n = Min(len, (size_t) flt->value);
				int			c = n > 0 ? memcmp(data, flt->bytes, n) : 0;

				*cmp = c != 0 ? (c > 0 ? 1 : -1) :
					len > flt->value ? 1 : len < flt->value ? -1 : 0;
				return true;
			}
	}
	return false;
}

static bool
holds(uint8 op, int cmp)
{
	switch (op)
	{
		case WC_FILTER_LT:
			return cmp < 0;
		case WC_FILTER_LE:
			return cmp <= 0;
		case WC_FILTER_EQ:
			return cmp == 0;
		case WC_FILTER_GE:
			return cmp >= 0;
		case WC_FILTER_GT:
			return cmp > 0;
		case WC_FILTER_NE:
			return cmp != 0;
		case WC_FILTER_IN:
			return cmp == 0;
	}
	return true;
}

/* A cell of the row, the column col of the request asked for, is data. */
void
ldb_row_filter_cell(WcRowFilter *f, int col, const uint8 *data, size_t len)
{
	for (int i = 0; i < f->nfilters; i += f->size[i])
	{
		bool		fails = true;

		if (f->filters[i].col != col)
			continue;
		f->met++;
		/* a set fails if every member does; a cell of another width none */
		if (f->filters[i].kind == WC_FILTER_BYTES)
		{
			/* the cell's hash once, however many values the set has */
			uint64		h = wc_filter_hash(data, len);

			for (int j = i; j < i + f->size[i] && fails; j++)
				if (holds(f->filters[j].op, h == f->filters[j].value ? 0 : 1))
					fails = false;
		}
		else
			for (int j = i; j < i + f->size[i] && fails; j++)
			{
				int			cmp;

				if (!compare(&f->filters[j], data, len, &cmp) ||
					holds(f->filters[j].op, cmp))
					fails = false;
			}
		if (fails)
			f->failed = true;
	}
}

/* Every filter met a cell of the row, and none failed. */
bool
ldb_row_filter_passes(WcRowFilter *f)
{
	return !f->failed && f->met == f->n;
}
