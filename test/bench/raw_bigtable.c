/*
 * raw_bigtable: the bare client that the Bigtable engine's figures in make
 * bench are held against (test/bench/bigtable.sh), as raw_leveldb.c is for
 * LevelDB: the same calls the engine makes, through the same wall
 * (src/worker/bigtable/btclient.h), with no PostgreSQL and no storage
 * worker between.
 *
 *   raw_bigtable ENDPOINT TABLE load ROWS NT BATCH
 *	   MutateRows of rows 0 .. ROWS-1, BATCH rows a call, each row the
 *	   four cells of family "measurements" that run.sh's balloon rows
 *	   have (bigint and float8 big-endian, as the foreign table writes
 *	   them); prints "bt_raw_load_rows_per_s N".
 *   raw_bigtable ENDPOINT TABLE point ROWS NT SECONDS
 *	   ReadRows of one random row's key at a time, its columns' newest
 *	   cells (cells_per_column_limit 1, as a scan asks), for SECONDS;
 *	   prints "bt_raw_point_per_s N" and "bt_raw_point_ms N" (the mean).
 *   raw_bigtable ENDPOINT TABLE range ROWS NT SECONDS SPAN
 *	   ReadRows of SPAN rows from a random row on, the same filter, for
 *	   SECONDS; prints "bt_raw_range_rows_per_s N".
 *
 * TABLE is the full name, projects/P/instances/I/tables/T.  Row k's key is
 * run.sh's bench_key(k) with NT timestamps per balloon.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "worker/bigtable/btclient.h"
#include "balloon.h"

static void
fail(const char *what, const WcBtStatus *st)
{
	fprintf(stderr, "raw_bigtable: %s: gRPC code %d: %s\n", what, st->code, st->message);
	exit(1);
}

static uint64_t
double_bits(double d)
{
	uint64_t	u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static int
load(WcBtClient *c, const char *table, long rows, long batch)
{
	static const char *const quals[4] = {"pressure", "temperature", "humidity", "altitude"};
	WcBtEntry  *entries = calloc(batch, sizeof(WcBtEntry));
	WcBtMutation *muts = calloc(batch * 4, sizeof(WcBtMutation));
	char	   *keys = calloc(batch, 64);
	uint8_t    *vals = calloc(batch * 4, 8);
	int		   *codes = calloc(batch, sizeof(int));
	int64_t		ts = (int64_t) time(NULL) * 1000000;
	double		t0 = now();
	WcBtStatus	st;

	for (long k0 = 0; k0 < rows; k0 += batch)
	{
		long		n = rows - k0 < batch ? rows - k0 : batch;

		for (long i = 0; i < n; i++)
		{
			long		k = k0 + i;
			int64_t		pressure;
			double		temp,
						humidity,
						altitude;
			uint64_t	v[4];

			row_values(k, &pressure, &temp, &humidity, &altitude);
			v[0] = (uint64_t) pressure;
			v[1] = double_bits(temp);
			v[2] = double_bits(humidity);
			v[3] = double_bits(altitude);
			entries[i].row_key = (const uint8_t *) keys + i * 64;
			entries[i].row_key_len = row_key(k, keys + i * 64);
			entries[i].mutations = muts + i * 4;
			entries[i].nmutations = 4;
			for (int q = 0; q < 4; q++)
			{
				WcBtMutation *m = &muts[i * 4 + q];

				put_be64(vals + (i * 4 + q) * 8, v[q]);
				memset(m, 0, sizeof(*m));
				m->kind = WC_BT_SET_CELL;
				m->family = "measurements";
				m->family_len = strlen("measurements");
				m->qualifier = (const uint8_t *) quals[q];
				m->qualifier_len = strlen(quals[q]);
				m->ts = ts;
				m->value = vals + (i * 4 + q) * 8;
				m->value_len = 8;
			}
		}
		if (!wc_bt_mutate_rows(c, table, NULL, entries, (int) n, 60000, codes, &st))
			fail("MutateRows", &st);
	}
	printf("bt_raw_load_rows_per_s %.0f\n", rows / (now() - t0));
	return 0;
}

/* Counts a read's rows and cells, as the engine's callback looks at each. */
typedef struct Counted
{
	uint64_t	rows;
	uint64_t	cells;
} Counted;

static bool
count_row(void *arg, const WcBtRows *rows)
{
	Counted    *n = arg;

	n->rows++;
	n->cells += rows->ncells;
	return true;
}

static int
reads(WcBtClient *c, const char *table, long rows, double seconds, long span)
{
	WcBtFilter	newest = {0};
	double		t0 = now();
	double		spent;
	uint64_t	calls = 0;
	Counted		n = {0};
	WcBtStatus	st;

	newest.kind = WC_BT_FILTER_CELLS_PER_COLUMN;
	newest.n = 1;
	do
	{
		char		start[64],
					end[64];
		long		k = (long) (next_random() % (uint64_t) (span > 0 ? rows - span : rows));
		WcBtRead	req = {0};
		WcBtRange	r = {0};
		const uint8_t *key = (const uint8_t *) start;
		size_t		key_len = row_key(k, start);
		uint64_t	got = 0;

		req.table = table;
		req.filter = &newest;
		req.timeout_ms = 60000;
		if (span > 0)
		{
			r.start = (const uint8_t *) start;
			r.start_len = key_len;
			r.end = (const uint8_t *) end;
			r.end_len = row_key(k + span, end);
			req.nranges = 1;
			req.ranges = &r;
		}
		else
		{
			req.nkeys = 1;
			req.keys = &key;
			req.key_lens = &key_len;
		}
		if (!wc_bt_read_rows(c, &req, count_row, &n, &got, &st))
			fail("ReadRows", &st);
		calls++;
	} while ((spent = now() - t0) < seconds);
	if (n.rows != calls * (span > 0 ? span : 1))
	{
		fprintf(stderr, "raw_bigtable: %llu calls read %llu rows: the table is not loaded\n",
				(unsigned long long) calls, (unsigned long long) n.rows);
		return 1;
	}
	if (span > 0)
		printf("bt_raw_range_rows_per_s %.0f\n", n.rows / spent);
	else
	{
		printf("bt_raw_point_per_s %.1f\n", calls / spent);
		printf("bt_raw_point_ms %.3f\n", spent * 1000 / calls);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	WcBtClient *c;
	WcBtStatus	st;
	long		rows;

	if (argc < 6)
	{
		fprintf(stderr, "usage: raw_bigtable ENDPOINT TABLE load|point|range ROWS NT [BATCH|SECONDS [SPAN]]\n");
		return 2;
	}
	rows = atol(argv[4]);
	ntimes = atol(argv[5]);
	if (rows <= 0 || ntimes <= 0 || rows > NLOC * NBALLOON * ntimes)
	{
		fprintf(stderr, "raw_bigtable: ROWS must be from 1 to 1000 * NT\n");
		return 2;
	}
	c = wc_bt_connect(argv[1], true, &st);
	if (c == NULL)
		fail("connect", &st);
	if (strcmp(argv[3], "load") == 0 && argc == 7)
		return load(c, argv[2], rows, atol(argv[6]));
	if (strcmp(argv[3], "point") == 0 && argc == 7)
		return reads(c, argv[2], rows, atof(argv[6]), 0);
	if (strcmp(argv[3], "range") == 0 && argc == 8)
		return reads(c, argv[2], rows, atof(argv[6]), atol(argv[7]));
	fprintf(stderr, "raw_bigtable: unknown command %s\n", argv[3]);
	return 2;
}
