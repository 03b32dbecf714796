/*-------------------------------------------------------------------------
 *
 * fuzz_wire.c
 *	  libFuzzer harness of the messages between backends and the storage
 *	  worker: the readers and writers of src/common/wire.c and wirerows.c, the very
 *	  functions the worker and the backends run.
 *
 *		clang -g -O1 -fsanitize=fuzzer,address,undefined -DFRONTEND \
 *			-Isrc -I$(pg_config --includedir-server) \
 *			test/fuzz/fuzz_wire.c src/common/wire.c src/common/wirerows.c src/common/keycodec.c \
 *			$(pg_config --pkglibdir)/libpgcommon.a $(pg_config --pkglibdir)/libpgport.a
 *
 * (wire.c needs only palloc and StringInfo, which PostgreSQL's frontend
 * library has too.)  An input is one whole message, type byte first, and
 * goes to the reader of its type, as the worker's dispatch (serve.c) or a
 * backend's client (client.c) hands it over.  Whatever the input:
 *
 *  - a reader never reads past the message (libFuzzer hands over a buffer
 *	  of exactly the input's size, so AddressSanitizer sees any overrun);
 *  - a request a reader accepts is written again by its writer to exactly
 *	  the same bytes (booleans aside, which are written as 0 or 1), so the
 *	  two sides agree on every layout;
 *  - in an accepted SCAN every column is exactly two escaped components or
 *	  one non-empty one (a family alone: a map column), and in an accepted
 *	  WRITE every row prefix and every family+qualifier is exactly two
 *	  (checked here with wc_unescape, independently of the reader), no
 *	  cell looks like the row tombstone, tags and lengths are valid, every
 *	  key the commit would build has the layout the scans parse, and every
 *	  row lies within the span the reader found;
 *  - the rows of an accepted WRITE up to any row boundary are a valid
 *	  request on their own (the backend sends them in chunks).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "common/keycodec.h"
#include "common/wire.h"
#include "common/wireheat.h"

#define CHECK(cond) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "fuzz_wire: %s:%d: check failed: %s\n", \
					__FILE__, __LINE__, #cond); \
			abort(); \
		} \
	} while (0)

/* b is exactly n components (the reader's own test, redone independently) */
static int
n_components(WcBytes b, int n)
{
	size_t		pos = 0;

	for (int i = 0; i < n; i++)
	{
		size_t		c = 0,
					c2 = 0,
					olen = 0;
		uint8_t    *out = malloc(b.len - pos + 1);
		int			r1,
					r2;

		CHECK(out != NULL);
		r1 = wc_component_end(b.data + pos, b.len - pos, &c);
		r2 = wc_unescape(b.data + pos, b.len - pos, out, &c2, &olen);
		free(out);
		CHECK(r1 == r2);
		if (r1 != 0)
			return 0;
		CHECK(c == c2 && c <= b.len - pos);
		pos += c;
	}
	return pos == b.len;
}

/* The keys the commit builds (prefix | fq | timestamp) parse as scans parse them. */
static void
check_stored_key(WcBytes prefix, const uint8_t *fq, size_t fqlen)
{
	size_t		n = prefix.len + fqlen + WC_TS_LEN;
	uint8_t    *k = malloc(n);
	size_t		pos = 0;

	CHECK(k != NULL);
	memcpy(k, prefix.data, prefix.len);
	memcpy(k + prefix.len, fq, fqlen);
	wc_encode_ts(1614945840000000ULL, k + prefix.len + fqlen);
	for (int part = 0; part < 4; part++)
	{
		size_t		c;

		CHECK(wc_component_end(k + pos, n - pos, &c) == 0);
		pos += c;
		if (part == 1)
			CHECK(pos == prefix.len);
	}
	CHECK(n - pos == WC_TS_LEN);
	free(k);
}

static int
within(WcBytes b, const uint8_t *data, size_t size)
{
	return b.len == 0 || (b.data >= data && b.data + b.len <= data + size);
}

/* buf holds exactly size bytes equal to data */
static void
check_same(StringInfo buf, const uint8_t *data, size_t size)
{
	CHECK((size_t) buf->len == size);
	CHECK(memcmp(buf->data, data, size) == 0);
}

/*
 * The rows of an accepted WRITE, walked with the reader the commit uses.
 * Returns the offset of the end of the first row (0 if none).
 */
static size_t
walk_rows(const WcWriteRequest *req)
{
	WcReader	rows;
	WcRowWrite	row;
	size_t		first_row_end = 0;

	wc_reader_init(&rows, req->rows.data, req->rows.len);
	while (wc_read_row(&rows, &row))
	{
		CHECK(n_components(row.prefix, 2));
		CHECK(wc_compare_bytes(row.prefix.data, row.prefix.len,
							   req->lowest.data, req->lowest.len) >= 0);
		CHECK(wc_compare_bytes(row.prefix.data, row.prefix.len,
							   req->highest.data, req->highest.len) <= 0);
		if (row.deleted)
			check_stored_key(row.prefix, wc_row_tombstone_fq, sizeof(wc_row_tombstone_fq));
		for (uint32_t i = 0; i < row.ncells; i++)
		{
			WcCellWrite cell;

			CHECK(wc_read_row_cell(&rows, &cell));
			CHECK(n_components(cell.famqual, 2));
			/* a cell never looks like the row tombstone: its family is not empty */
			CHECK(!(cell.famqual.len >= 2 && cell.famqual.data[0] == 0x00 &&
					cell.famqual.data[1] == 0x01));
			CHECK(cell.present || cell.value.len == 0);
			/* a version at a timestamp, or the removal of one, carries it */
			CHECK(!cell.exact || (cell.present ? cell.value.data - 8 >= req->rows.data :
								  cell.value.len == 0));
			CHECK(!cell.exact || req->exact);
			/* a merge (aggregate family) carries an 8-byte operand */
			CHECK(cell.merge == 0 || (cell.present && !cell.exact && cell.value.len == 8));
			CHECK(cell.value.len <= WC_MAX_VALUE);
			CHECK(within(cell.value, req->rows.data, req->rows.len));
			check_stored_key(row.prefix, cell.famqual.data, cell.famqual.len);
		}
		if (first_row_end == 0)
			first_row_end = (size_t) (rows.p - req->rows.data);
	}
	CHECK(!rows.bad);
	CHECK(wc_reader_left(&rows) == 0);
	return first_row_end;
}

static void
write_request(const uint8_t *data, size_t size)
{
	WcReader	r;
	WcWriteRequest req;
	StringInfoData buf;
	size_t		first;

	wc_reader_init(&r, data, size);
	if (!wc_read_write(&r, &req))
		return;
	CHECK((req.lowest.data == NULL) == (req.highest.data == NULL));
	CHECK((req.lowest.data == NULL) == (req.rows.len == 0));
	if (req.lowest.data != NULL)
	{
		CHECK(within(req.lowest, data, size) && within(req.highest, data, size));
		CHECK(wc_compare_bytes(req.lowest.data, req.lowest.len,
							   req.highest.data, req.highest.len) <= 0);
	}
	first = walk_rows(&req);

	/* the writer gives the same bytes */
	{
		StringInfoData rows;

		initStringInfo(&rows);
		appendBinaryStringInfo(&rows, (const char *) req.rows.data, req.rows.len);
		initStringInfo(&buf);
		wc_write_write(&buf, req.db, &rows);
		check_same(&buf, data, size);
		pfree(rows.data);
		pfree(buf.data);
	}

	/* whole rows at the front are a valid request on their own */
	if (first > 0)
	{
		size_t		n = (size_t) (req.rows.data - data) + first;
		uint8_t    *copy = malloc(n);
		WcReader	r2;
		WcWriteRequest req2;

		CHECK(copy != NULL);
		memcpy(copy, data, n);
		wc_reader_init(&r2, copy, n);
		CHECK(wc_read_write(&r2, &req2));
		free(copy);
	}
}

static void
scan_request(const uint8_t *data, size_t size)
{
	WcReader	r;
	WcScanRequest req;
	StringInfoData buf;

	wc_reader_init(&r, data, size);
	if (wc_read_scan(&r, &req))
	{
		CHECK(req.ncols <= WC_MAX_SCAN_COLUMNS);
		for (int i = 0; i < req.ncols; i++)
		{
			CHECK(within(req.cols[i], data, size));
			CHECK(n_components(req.cols[i], 2) ||
				  (n_components(req.cols[i], 1) && req.cols[i].len > 2));
		}
		for (int i = 0; i < req.nranges; i++)
			CHECK(within(req.ranges[i].start, data, size) &&
				  within(req.ranges[i].end, data, size));
		/* a cells scan's families are whole components, its filters inside */
		CHECK((req.flags & WC_SCAN_CELLS) || (req.nfams == 0 && req.nquals == 0));
		CHECK(!((req.flags & WC_SCAN_CELLS) && (req.flags & WC_SCAN_REVERSE)));
		for (int i = 0; i < req.nfams; i++)
		{
			CHECK(within(req.fams[i], data, size));
			CHECK(n_components(req.fams[i], 1));
		}
		for (int i = 0; i < req.nquals; i++)
			CHECK(within(req.quals[i].start, data, size) &&
				  within(req.quals[i].end, data, size));
		/* the overlay's entries are whole keys the worker can stamp */
		{
			WcReader	ov;
			WcOverlayEntry e;

			CHECK(req.noverlay == 0 || within(req.overlay, data, size));
			wc_reader_init(&ov, req.noverlay > 0 ? req.overlay.data : data, req.overlay.len);
			for (uint32_t i = 0; i < req.noverlay; i++)
			{
				CHECK(wc_next_overlay_entry(&ov, &e));
				CHECK(n_components(e.key, 4));
				CHECK(e.kind <= WC_OVERLAY_REMOVE);
				CHECK(e.kind == WC_OVERLAY_PUT || e.value.len == 0);
			}
			CHECK(wc_reader_left(&ov) == 0);
		}
		/* a filter names a cell the scan asks for, as a kind it knows */
		CHECK(!((req.flags & WC_SCAN_CELLS) && (req.flags & WC_SCAN_FILTER)));
		CHECK(req.nfilters == 0 || !(req.flags & WC_SCAN_CELLS));
		for (int i = 0; i < req.nfilters; i++)
			CHECK(req.filters[i].col < req.ncols &&
				  n_components(req.cols[req.filters[i].col], 2) &&
				  req.filters[i].kind >= WC_FILTER_INT2 &&
				  req.filters[i].kind <= WC_FILTER_ORDERED_BYTES &&
				  req.filters[i].op >= WC_FILTER_LT && req.filters[i].op <= WC_FILTER_IN &&
				  (req.filters[i].kind != WC_FILTER_BYTES || req.filters[i].op == WC_FILTER_EQ ||
				   req.filters[i].op == WC_FILTER_IN) &&
				  (req.filters[i].kind != WC_FILTER_ORDERED_BYTES ||
				   (req.filters[i].op != WC_FILTER_IN &&
					(req.filters[i].value == 0 || req.filters[i].bytes != NULL))));
		initStringInfo(&buf);
		wc_write_scan(&buf, &req);
		check_same(&buf, data, size);
		pfree(buf.data);
	}
	if (req.cols)
		pfree(req.cols);
	if (req.ranges)
		pfree(req.ranges);
	if (req.fams)
		pfree(req.fams);
	if (req.quals)
		pfree(req.quals);
	if (req.filters)
		pfree(req.filters);
}

static void
estimate_request(const uint8_t *data, size_t size)
{
	WcReader	r;
	WcEstimateRequest req;
	StringInfoData buf;

	wc_reader_init(&r, data, size);
	if (wc_read_estimate(&r, &req))
	{
		initStringInfo(&buf);
		wc_write_estimate(&buf, &req);
		check_same(&buf, data, size);
		pfree(buf.data);
	}
	if (req.ranges)
		pfree(req.ranges);
}

/* SAMPLE: one well-formed component; ROWS: ranges, as ESTIMATE. */
static void
sizes_request(uint8_t type, const uint8_t *data, size_t size)
{
	WcReader	r;
	StringInfoData buf;

	wc_reader_init(&r, data, size);
	if (type == WC_REQ_SAMPLE)
	{
		WcSampleRequest req;

		if (wc_read_sample(&r, &req))
		{
			size_t		c;

			CHECK(within(req.table, data, size) &&
				  wc_component_end(req.table.data, req.table.len, &c) == 0 &&
				  c == req.table.len);
			initStringInfo(&buf);
			wc_write_sample(&buf, &req);
			check_same(&buf, data, size);
			pfree(buf.data);
		}
	}
	else
	{
		WcRowsRequest req;

		if (wc_read_rows(&r, &req))
		{
			initStringInfo(&buf);
			wc_write_rows(&buf, &req);
			check_same(&buf, data, size);
			pfree(buf.data);
		}
		if (req.ranges)
			pfree(req.ranges);
	}
}

/* COUNT and COMPACT: each key part one well-formed component. */
static void
reclaim_request(uint8_t type, const uint8_t *data, size_t size)
{
	WcReader	r;
	WcReclaimRequest req;
	StringInfoData buf;
	size_t		c;
	bool		ok;

	wc_reader_init(&r, data, size);
	ok = type == WC_REQ_COUNT ? wc_read_count(&r, &req) : wc_read_compact(&r, &req);
	if (!ok)
		return;
	CHECK(req.table.len == 0 ||
		  (wc_component_end(req.table.data, req.table.len, &c) == 0 && c == req.table.len));
	CHECK(req.family.len == 0 ||
		  (wc_component_end(req.family.data, req.family.len, &c) == 0 && c == req.family.len));
	initStringInfo(&buf);
	if (type == WC_REQ_COUNT)
		wc_write_count(&buf, &req);
	else
		wc_write_compact(&buf, &req);
	check_same(&buf, data, size);
	pfree(buf.data);
}

static void
open_request(const uint8_t *data, size_t size)
{
	WcReader	r;
	WcOpenRequest req;
	WcOpenRequest again;
	StringInfoData buf;

	wc_reader_init(&r, data, size);
	if (!wc_read_open(&r, &req))
		return;
	CHECK(req.target.len > 0 && memchr(req.target.data, 0, req.target.len) == NULL);
	CHECK(req.noptions >= 0 && req.noptions <= WC_MAX_ENGINE_OPTIONS);
	initStringInfo(&buf);
	wc_write_open(&buf, &req);
	CHECK((size_t) buf.len == size);
	wc_reader_init(&r, buf.data, buf.len);
	CHECK(wc_read_open(&r, &again));
	CHECK(again.engine.len == req.engine.len &&
		  memcmp(again.engine.data, req.engine.data, req.engine.len) == 0);
	CHECK(again.target.len == req.target.len &&
		  memcmp(again.target.data, req.target.data, req.target.len) == 0);
	CHECK(again.noptions == req.noptions);
	for (int i = 0; i < req.noptions; i++)
		CHECK(again.options[i].name.len == req.options[i].name.len &&
			  memcmp(again.options[i].name.data, req.options[i].name.data,
					 req.options[i].name.len) == 0 &&
			  again.options[i].value.len == req.options[i].value.len &&
			  memcmp(again.options[i].value.data, req.options[i].value.data,
					 req.options[i].value.len) == 0);
	pfree(buf.data);
}

/* The fixed-layout requests: read, written again, the same. */
static void
small_request(uint8_t type, const uint8_t *data, size_t size)
{
	WcReader	r;
	StringInfoData buf;
	uint32		a = 0,
				b = 0;
	bool		flag = false;
	bool		ok;

	wc_reader_init(&r, data, size);
	initStringInfo(&buf);
	switch (type)
	{
		case WC_REQ_SNAPSHOT:
			{
				WcXidSnapshot xs;

				if ((ok = wc_read_snapshot(&r, &a, &b, &xs)))
					wc_write_snapshot(&buf, a, b, &xs);
			}
			break;
		case WC_REQ_RELEASE:
			if ((ok = wc_read_release(&r, &a)))
				wc_write_release(&buf, a);
			break;
		case WC_REQ_SHARE:
			if ((ok = wc_read_share(&r, &a)))
				wc_write_share(&buf, a);
			break;
		case WC_REQ_ATTACH:
			{
				uint64		token;

				if ((ok = wc_read_attach(&r, &a, &token, &b)))
					wc_write_attach(&buf, a, token, b);
			}
			break;
		case WC_REQ_NEXT:
			if ((ok = wc_read_next(&r, &a)))
				wc_write_next(&buf, a);
			break;
		case WC_REQ_CLOSE:
			if ((ok = wc_read_close(&r, &a)))
				wc_write_close(&buf, a);
			break;
		case WC_REQ_ABORT:
			if ((ok = wc_read_abort(&r, &a)))
				wc_write_abort(&buf, a);
			break;
		case WC_REQ_STAT_WORKER:
			if ((ok = wc_read_stat_worker(&r)))
				wc_write_stat_worker(&buf);
			break;
		case WC_REQ_STAT_DATABASES:
			if ((ok = wc_read_stat_databases(&r)))
				wc_write_stat_databases(&buf);
			break;
		case WC_REQ_COMMIT:
			{
				uint64		writer;

				if ((ok = wc_read_commit(&r, &a, &flag, &writer)))
				{
					wc_write_commit(&buf, a, flag, writer);
					/* sync is any non-zero byte, written as 1 */
					CHECK(buf.len == 14 && (data[5] != 0) == (buf.data[5] != 0));
					buf.data[5] = (char) data[5];
				}
			}
			break;
		default:
			ok = false;
	}
	if (ok)
		check_same(&buf, data, size);
	pfree(buf.data);
}

/* Answers, as a backend reads them: never past the end. */
static void
answers(const uint8_t *data, size_t size)
{
	WcReader	r;
	WcErrorAnswer err;
	WcBatchHeader h;
	uint32		db;
	uint64		bytes;

	wc_reader_init(&r, data, size);
	if (wc_is_error(data, size))
	{
		if (wc_read_error(&r, &err))
			CHECK(within(err.message, data, size) && within(err.detail, data, size) &&
				  within(err.hint, data, size));
		return;
	}
	(void) wc_read_ok(&r);
	wc_reader_init(&r, data, size);
	(void) wc_read_open_answer(&r, &db);
	wc_reader_init(&r, data, size);
	(void) wc_read_estimate_answer(&r, &bytes);
	wc_reader_init(&r, data, size);
	(void) wc_read_count_answer(&r, &bytes);
	wc_reader_init(&r, data, size);
	(void) wc_read_share_answer(&r, &bytes);
	wc_reader_init(&r, data, size);
	{
		int			n;
		WcBytes    *keys;
		uint64	   *offsets;
		WcRowsAnswer ra;

		if (wc_read_sample_answer(&r, &bytes, &n, &keys, &offsets))
			for (int i = 0; i < n; i++)
				CHECK(within(keys[i], data, size));
		if (keys)
			pfree(keys);
		if (offsets)
			pfree(offsets);
		wc_reader_init(&r, data, size);
		(void) wc_read_rows_answer(&r, &ra);
	}
	/* the worker's figures: what reads back whole writes the same bytes */
	{
		WcWorkerStats ws;
		StringInfoData buf;
		uint32		n;

		wc_reader_init(&r, data, size);
		if (wc_read_stat_worker_answer(&r, &ws))
		{
			initStringInfo(&buf);
			wc_write_stat_worker_answer(&buf, &ws);
			/* a type is any byte, written back as it was */
			check_same(&buf, data, size);
			pfree(buf.data);
		}
		/* LevelDB's: never past the end (open is any non-zero byte) */
		wc_reader_init(&r, data, size);
		if (wc_read_stat_databases_answer(&r, &n))
		{
			for (uint32 i = 0; i < n; i++)
			{
				WcDbStats	ds;

				if (!wc_read_stat_database(&r, &ds, i == n - 1))
					break;
				CHECK(within(ds.path, data, size) && within(ds.stats, data, size));
			}
		}
	}
	wc_reader_init(&r, data, size);
	if (wc_read_batch(&r, &h))
	{
		for (uint32 i = 0; i < h.nrows; i++)
		{
			WcBatchRow row;

			if (!wc_read_batch_row(&r, &row))
				break;
			CHECK(within(row.key, data, size));
			for (int c = 0; c < row.ncells; c++)
			{
				uint16		col;
				WcBytes		v;

				if (!wc_read_batch_cell(&r, &col, &v))
					break;
				CHECK(within(v, data, size));
				/* read as a map column's cells, as fdw/model/mapcolumn.c does */
				{
					WcReader	m;
					WcBytes		q,
								mv;

					wc_reader_init(&m, v.data, v.len);
					while (wc_reader_left(&m) > 0 && wc_read_map_entry(&m, &q, &mv))
						CHECK(within(q, data, size) && within(mv, data, size));
				}
			}
			(void) wc_read_batch_version(&r, &bytes);
		}
	}
}

/*
 * HEAT: one well-formed component; STATS: a flag.  Their answers: every
 * key within the message.
 */
static void
heat_request(uint8_t type, const uint8_t *data, size_t size)
{
	WcReader	r;
	StringInfoData buf;

	wc_reader_init(&r, data, size);
	initStringInfo(&buf);
	if (type == WC_REQ_HEAT)
	{
		WcHeatRequest req;

		if (wc_read_heat(&r, &req))
		{
			size_t		c;

			CHECK(within(req.table, data, size) &&
				  wc_component_end(req.table.data, req.table.len, &c) == 0 &&
				  c == req.table.len);
			wc_write_heat(&buf, &req);
			check_same(&buf, data, size);
		}
	}
	else
	{
		WcStatsRequest req;

		if (wc_read_stats(&r, &req))
		{
			wc_write_stats(&buf, &req);
			check_same(&buf, data, size);
		}
	}
	pfree(buf.data);
}

static void
heat_answers(const uint8_t *data, size_t size)
{
	WcReader	r;
	int			n;
	WcHeatAnswerColumn *cols;
	WcStatsAnswerTable *tables;

	wc_reader_init(&r, data, size);
	if (wc_read_heat_answer(&r, &n, &cols))
		for (int i = 0; i < n; i++)
			for (int j = 0; j < cols[i].nranges; j++)
				CHECK(within(cols[i].keys[j], data, size));
	for (int i = 0; i < n; i++)
	{
		pfree(cols[i].keys);
		pfree(cols[i].counters);
	}
	if (cols)
		pfree(cols);
	wc_reader_init(&r, data, size);
	if (wc_read_stats_answer(&r, &n, &tables))
		for (int i = 0; i < n; i++)
			CHECK(within(tables[i].table, data, size));
	if (tables)
		pfree(tables);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t		type = size > 0 ? data[0] : 0;

	switch (type)
	{
		case WC_REQ_WRITE:
			write_request(data, size);
			break;
		case WC_REQ_SCAN:
			scan_request(data, size);
			break;
		case WC_REQ_ESTIMATE:
			estimate_request(data, size);
			break;
		case WC_REQ_OPEN:
			open_request(data, size);
			break;
		case WC_REQ_COUNT:
		case WC_REQ_COMPACT:
			reclaim_request(type, data, size);
			break;
		case WC_REQ_SAMPLE:
		case WC_REQ_ROWS:
			sizes_request(type, data, size);
			break;
		case WC_REQ_HEAT:
		case WC_REQ_STATS:
			heat_request(type, data, size);
			break;
		case WC_RESP_OK:
			answers(data, size);
			heat_answers(data, size);
			break;
		case WC_RESP_ERROR:
		case WC_RESP_BATCH:
			answers(data, size);
			break;
		default:
			small_request(type, data, size);
			/* and the other readers, which must refuse it */
			{
				WcReader	r;
				WcWriteRequest w;
				WcScanRequest s;

				wc_reader_init(&r, data, size);
				CHECK(!wc_read_write(&r, &w));
				wc_reader_init(&r, data, size);
				CHECK(!wc_read_scan(&r, &s));
				if (s.cols)
					pfree(s.cols);
				if (s.fams)
					pfree(s.fams);
				if (s.filters)
					pfree(s.filters);
			}
			break;
	}
	return 0;
}
