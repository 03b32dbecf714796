/*
 * raw_leveldb.c
 *	  The physical limit: the benchmark's entries in LevelDB, no PostgreSQL.
 *
 * Builds a LevelDB database of its own (a fresh temporary directory) with
 * exactly the entries widecolumn_fdw stores for the benchmark's weather
 * balloon rows -- key escape(table) escape(row key) escape(family)
 * escape(qualifier) ~ts (src/common/keycodec.c), value 0x01 + 8 big-endian bytes --
 * and the options the storage worker opens databases with (src/worker/leveldb/storage.c:
 * 16 KiB blocks, Snappy, 10-bit Bloom filter, 256 MiB block cache, 16 MiB
 * write buffer).  Then it measures, single-threaded:
 *
 *	load      rows written in write batches of -b rows (default 1000; 0: all
 *	          rows in one batch), the last synced; or, with -B bytes, in
 *	          batches of about that many bytes of keys and values, the last
 *	          synced, as the storage worker writes a large commit (4 MiB; it
 *	          then syncs LevelDB's older log files too, one or two more)
 *	iterate   a full forward iteration of the table (fill_cache off, as the
 *	          worker's large scans), entries/s; the median of the passes
 *	point     random existing rows: a new iterator, Seek to the row, read its
 *	          cells (what a row-key read must do), rows/s; also a Get of the
 *	          row's first cell, gets/s
 *	prefix    "location#balloon#" prefix scans of one balloon's rows (0.1% of
 *	          the rows at every scale), a new iterator each, fill_cache off,
 *	          scans/s
 *
 * once on the database as the load left it (figures named raw_*: with one
 * write batch, the whole load is in the memtable; with smaller batches
 * LevelDB may still be compacting in the background) and once more after a
 * full manual compaction (raw_compacted_*; -C skips this).
 *
 * Rows are written in the order of the benchmark's data file, which is
 * nearly row-key order (one sorted run per location).  -R writes them in a
 * scattered order instead (a fixed permutation).  In the memtable the order
 * of insertion is the order in memory, so this shows what that order costs
 * the reads that follow a load that stays in the memtable.
 *
 * Output: one "name value" line per figure, for test/bench/run.sh.
 * Counts are fixed (no time limits): the machine may be slow or busy.
 *
 *	raw_leveldb [-r rows] [-b batch_rows] [-B batch_bytes] [-R] [-C] [-d dir] [-p point_reads]
 *	            [-s prefix_scans] [-i passes]
 *	raw_leveldb compact DIR    full compaction of an existing, closed database
 *	raw_leveldb map [-p point_reads]
 *	          point reads of rows of 100 cells of one family (run.sh's "map100"
 *	          workload reads them as a map column): 1,000 such rows, compacted,
 *	          then a new iterator, Seek to a random row and read its cells,
 *	          rows/s
 *	raw_leveldb versions DIR N K R
 *	                           the cells-layout workload: N versions of one
 *	                           cell (one a minute), then R reads of its newest
 *	                           K versions (Seek to the cell, iterate K
 *	                           entries, read each value), reads/s
 *
 * rows must be a multiple of 1000 (10 locations x 100 balloons x rows/1000
 * timestamps, one a minute from 2021-03-05 00:00), as in run.sh.
 *
 * Build: cc -O2 -Isrc -o raw_leveldb test/bench/raw_leveldb.c src/common/keycodec.c -lleveldb
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <leveldb/c.h>

#include "common/keycodec.h"
#include "balloon.h"

/* Qualifiers of family "measurements", in key (bytewise) order. */
static const char *const qualifiers[4] = {"altitude", "humidity", "pressure", "temperature"};

static const char table[] = "weather";
static const char family[] = "measurements";

static long nrows;
static long batch_rows = 1000;
static long batch_bytes = 0;
static int	scattered = 0;
static uint8_t tskey[WC_TS_LEN];
static uint8_t fam[64];
static size_t famlen;
static uint8_t quals[4][64];
static size_t quallen[4];
static uint8_t table_start[64],
			table_end[64];
static size_t table_len,
			table_end_len;
static leveldb_readoptions_t *ro_cache,
		   *ro_nocache;

static void
check(char *err, const char *what)
{
	if (err != NULL)
	{
		fprintf(stderr, "raw_leveldb: %s: %s\n", what, err);
		exit(1);
	}
}

/* escape(table) escape(row key): every key of the row starts with it. */
static size_t
row_prefix(long k, uint8_t *out)
{
	char		rk[128];
	int			n = row_key(k, rk);
	size_t		len = wc_escape((const uint8_t *) table, strlen(table), out);

	return len + wc_escape((const uint8_t *) rk, n, out + len);
}

static leveldb_options_t *
db_options(void)
{
	leveldb_options_t *o = leveldb_options_create();

	leveldb_options_set_paranoid_checks(o, 0);
	leveldb_options_set_write_buffer_size(o, 16 * 1024 * 1024);
	leveldb_options_set_max_open_files(o, 500);
	leveldb_options_set_block_size(o, 16 * 1024);
	leveldb_options_set_compression(o, leveldb_snappy_compression);
	leveldb_options_set_cache(o, leveldb_cache_create_lru(256 * 1024 * 1024));
	leveldb_options_set_filter_policy(o, leveldb_filterpolicy_create_bloom(10));
	return o;
}

static int
compact(const char *dir)
{
	leveldb_options_t *o = db_options();
	char	   *err = NULL;
	leveldb_t  *db = leveldb_open(o, dir, &err);

	check(err, "open");
	leveldb_compact_range(db, NULL, 0, NULL, 0);
	leveldb_close(db);
	return 0;
}

/*
 * versions
 *		One cell of n versions (table cells_bench, row
 *		us-west2#3698#week1, measurements:pressure, one a minute from
 *		2021-03-05 00:00), then reads of its newest k versions: what a
 *		cells-layout range read of k versions costs LevelDB itself.
 */
static int
versions(const char *dir, long n, long k, long reads)
{
	leveldb_options_t *o = db_options();
	leveldb_readoptions_t *ro = leveldb_readoptions_create();
	leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
	leveldb_writebatch_t *b = leveldb_writebatch_create();
	char	   *err = NULL;
	leveldb_t  *db;
	uint8_t		cell[256];
	size_t		clen;
	uint64_t	sum = 0;
	double		t0,
				t1;
	static const char row[] = "us-west2#3698#week1";
	static const char cq[] = "pressure";

	leveldb_options_set_create_if_missing(o, 1);
	db = leveldb_open(o, dir, &err);
	check(err, "open");
	clen = wc_escape((const uint8_t *) "cells_bench", 11, cell);
	clen += wc_escape((const uint8_t *) row, strlen(row), cell + clen);
	clen += wc_escape((const uint8_t *) family, strlen(family), cell + clen);
	clen += wc_escape((const uint8_t *) cq, strlen(cq), cell + clen);
	for (long m = 0; m < n; m++)
	{
		uint8_t		key[256];
		uint8_t		val[9];

		memcpy(key, cell, clen);
		/* µs since the Unix epoch of 2021-03-05 00:00 UTC, plus m minutes */
		wc_encode_ts(1614902400000000ULL + (uint64_t) m * 60000000ULL, key + clen);
		val[0] = WC_VALUE_PRESENT;
		put_be64(val + 1, (uint64_t) (94000 + m));
		leveldb_writebatch_put(b, (const char *) key, clen + WC_TS_LEN, (const char *) val, 9);
	}
	leveldb_writeoptions_set_sync(wo, 1);
	leveldb_write(db, wo, b, &err);
	check(err, "write");

	t0 = now();
	for (long r = 0; r < reads; r++)
	{
		leveldb_iterator_t *it = leveldb_create_iterator(db, ro);
		long		got = 0;

		for (leveldb_iter_seek(it, (const char *) cell, clen);
			 leveldb_iter_valid(it) && got < k; leveldb_iter_next(it))
		{
			size_t		klen,
						vlen;
			const char *key = leveldb_iter_key(it, &klen);
			const uint8_t *v;

			if (klen != clen + WC_TS_LEN || memcmp(key, cell, clen) != 0)
				break;
			v = (const uint8_t *) leveldb_iter_value(it, &vlen);
			sum += v[vlen - 1];
			got++;
		}
		leveldb_iter_destroy(it);
		if (got != k)
		{
			fprintf(stderr, "raw_leveldb: read %ld of %ld versions\n", got, k);
			exit(1);
		}
	}
	t1 = now();
	printf("raw_cells_range_versions %ld\n", k);
	printf("raw_cells_range_reads_per_s %.1f\n", reads / (t1 - t0));
	fprintf(stderr, "checksum %llu\n", (unsigned long long) sum);
	leveldb_close(db);
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* Files per level, "L0=3 L1=5 ...", as name. */
static void
levels(leveldb_t *db, const char *name)
{
	printf("%s", name);
	for (int l = 0; l < 7; l++)
	{
		char		prop[64];
		char	   *v;

		snprintf(prop, sizeof(prop), "leveldb.num-files-at-level%d", l);
		v = leveldb_property_value(db, prop);
		if (v != NULL && strcmp(v, "0") != 0)
			printf(" L%d=%s", l, v);
		leveldb_free(v);
	}
	printf("\n");
}

/* Read every entry whose key starts with prefix, as a scan must; their count. */
static uint64_t
read_prefix(leveldb_t *db, leveldb_readoptions_t *ro, const uint8_t *prefix, size_t plen)
{
	leveldb_iterator_t *it = leveldb_create_iterator(db, ro);
	uint64_t	entries = 0;

	for (leveldb_iter_seek(it, (const char *) prefix, plen);
		 leveldb_iter_valid(it); leveldb_iter_next(it))
	{
		size_t		klen,
					vlen;
		const char *k = leveldb_iter_key(it, &klen);

		if (klen < plen || memcmp(k, prefix, plen) != 0)
			break;
		(void) leveldb_iter_value(it, &vlen);
		entries++;
	}
	leveldb_iter_destroy(it);
	return entries;
}

static void
load(leveldb_t *db)
{
	leveldb_writeoptions_t *wo_async = leveldb_writeoptions_create();
	leveldb_writeoptions_t *wo_sync = leveldb_writeoptions_create();
	leveldb_writebatch_t *wb = leveldb_writebatch_create();
	uint64_t	entries = 0,
				bytes = 0,
				in_batch = 0;
	char	   *err = NULL;
	double		t0,
				t1;

	leveldb_writeoptions_set_sync(wo_sync, 1);
	t0 = now();
	for (long i = 0; i < nrows; i++)
	{
		/* 2654435761 is prime and no factor of nrows: a permutation */
		long		k = scattered ? (long) ((i * 2654435761ULL) % (unsigned long long) nrows) : i;
		uint8_t		key[512];
		size_t		plen = row_prefix(k, key);
		int64_t		pressure;
		double		temp,
					humidity,
					altitude;
		uint64_t	bits[4];

		row_values(k, &pressure, &temp, &humidity, &altitude);
		memcpy(&bits[0], &altitude, 8);
		memcpy(&bits[1], &humidity, 8);
		bits[2] = (uint64_t) pressure;	/* bigint */
		memcpy(&bits[3], &temp, 8);
		memcpy(key + plen, fam, famlen);
		for (int q = 0; q < 4; q++)
		{
			size_t		klen = plen + famlen;
			uint8_t		val[9];

			memcpy(key + klen, quals[q], quallen[q]);
			klen += quallen[q];
			memcpy(key + klen, tskey, WC_TS_LEN);
			klen += WC_TS_LEN;
			val[0] = WC_VALUE_PRESENT;
			put_be64(val + 1, bits[q]);
			leveldb_writebatch_put(wb, (char *) key, klen, (char *) val, 9);
			entries++;
			bytes += klen + 9;
			in_batch += klen + 9;
		}
		if (batch_bytes > 0 ? (in_batch >= (uint64_t) batch_bytes || i + 1 == nrows) :
			((batch_rows > 0 && (i + 1) % batch_rows == 0) || i + 1 == nrows))
		{
			leveldb_write(db, i + 1 == nrows ? wo_sync : wo_async, wb, &err);
			check(err, "write");
			leveldb_writebatch_clear(wb);
			in_batch = 0;
		}
	}
	t1 = now();
	leveldb_writebatch_destroy(wb);
	leveldb_writeoptions_destroy(wo_async);
	leveldb_writeoptions_destroy(wo_sync);
	printf("raw_rows %ld\n", nrows);
	printf("raw_entries %llu\n", (unsigned long long) entries);
	printf("raw_entry_bytes %llu\n", (unsigned long long) bytes);
	printf("raw_load_rows_per_s %.0f\n", nrows / (t1 - t0));
}

/* The read figures, each printed as raw_<tag><name>. */
static void
measure(leveldb_t *db, const char *tag, int passes, long npoints, long nscans)
{
	char	   *err = NULL;
	double		t0,
				t1;

	/* full iteration, passes times; the median */
	{
		double	   *rate = calloc(passes, sizeof(double));
		uint64_t	n = 0;

		for (int p = 0; p < passes; p++)
		{
			leveldb_iterator_t *it = leveldb_create_iterator(db, ro_nocache);
			uint64_t	sum = 0;

			n = 0;
			t0 = now();
			for (leveldb_iter_seek(it, (char *) table_start, table_len);
				 leveldb_iter_valid(it); leveldb_iter_next(it))
			{
				size_t		klen,
							vlen;
				const char *k = leveldb_iter_key(it, &klen);
				const char *v = leveldb_iter_value(it, &vlen);

				if (wc_compare_bytes((const uint8_t *) k, klen, table_end, table_end_len) >= 0)
					break;
				sum += (uint8_t) k[klen - 1] + (uint8_t) v[vlen - 1];
				n++;
			}
			t1 = now();
			leveldb_iter_get_error(it, &err);
			check(err, "iterate");
			leveldb_iter_destroy(it);
			rate[p] = n / (t1 - t0);
			if (sum == 42)		/* use what was read */
				fflush(stdout);
		}
		qsort(rate, passes, sizeof(double), cmp_double);
		printf("raw_%siter_entries %llu\n", tag, (unsigned long long) n);
		printf("raw_%siter_entries_per_s %.0f\n", tag, rate[passes / 2]);
		printf("raw_%siter_s %.4f\n", tag, n / rate[passes / 2]);
		free(rate);
	}

	/* point reads: Seek to the row and read its cells, a new iterator each */
	{
		uint64_t	cells = 0;
		long		warm = npoints / 10;

		t0 = now();
		for (long i = -warm; i < npoints; i++)
		{
			uint8_t		prefix[512];
			size_t		plen;

			if (i == 0)
			{
				t0 = now();
				cells = 0;
			}
			plen = row_prefix((long) (next_random() % (uint64_t) nrows), prefix);
			cells += read_prefix(db, ro_cache, prefix, plen);
		}
		t1 = now();
		if (cells != (uint64_t) npoints * 4)
		{
			fprintf(stderr, "raw_leveldb: point reads found %llu cells, expected %ld\n",
					(unsigned long long) cells, npoints * 4);
			exit(1);
		}
		printf("raw_%spoint_rows_per_s %.0f\n", tag, npoints / (t1 - t0));
	}

	/* point reads: Get of the row's first cell (altitude) */
	{
		long		found = 0;

		t0 = now();
		for (long i = 0; i < npoints; i++)
		{
			uint8_t		key[512];
			size_t		klen = row_prefix((long) (next_random() % (uint64_t) nrows), key);
			size_t		vlen;
			char	   *v;

			memcpy(key + klen, fam, famlen);
			klen += famlen;
			memcpy(key + klen, quals[0], quallen[0]);
			klen += quallen[0];
			memcpy(key + klen, tskey, WC_TS_LEN);
			klen += WC_TS_LEN;
			v = leveldb_get(db, ro_cache, (char *) key, klen, &vlen, &err);
			check(err, "get");
			if (v != NULL)
				found++;
			leveldb_free(v);
		}
		t1 = now();
		if (found != npoints)
		{
			fprintf(stderr, "raw_leveldb: Get found %ld of %ld cells\n", found, npoints);
			exit(1);
		}
		printf("raw_%sget_per_s %.0f\n", tag, npoints / (t1 - t0));
	}

	/* prefix scans: one balloon's rows, "location#balloon#" */
	{
		uint64_t	total_rows = 0;

		t0 = now();
		for (long i = 0; i < nscans; i++)
		{
			uint8_t		prefix[512];
			char		p[128];
			size_t		plen = wc_escape((const uint8_t *) table, strlen(table), prefix);
			int			n;
			uint64_t	entries;

			n = sprintf(p, "%s#%ld#", locations[next_random() % NLOC],
						3600 + (long) (next_random() % NBALLOON));
			plen += wc_escape_body((const uint8_t *) p, n, prefix + plen);
			entries = read_prefix(db, ro_nocache, prefix, plen);
			total_rows += entries / 4;
		}
		t1 = now();
		printf("raw_%sprefix_rows_per_scan %.0f\n", tag, (double) total_rows / nscans);
		printf("raw_%sprefix_scans_per_s %.1f\n", tag, nscans / (t1 - t0));
	}
}

/*
 * map_reads
 *		The "map100" workload's rows: table "maps", row keys user0000 to
 *		user0999, family "follows", qualifiers friend000 to friend099, each
 *		value 0x01 "2024-01-01" (text, as a map column writes by default).
 */
static int
map_reads(long npoints)
{
	char		dirbuf[] = "/tmp/raw_leveldb.XXXXXX";
	leveldb_options_t *o = db_options();
	leveldb_writeoptions_t *wo = leveldb_writeoptions_create();
	leveldb_t  *db;
	char	   *err = NULL;
	uint8_t		f[64];
	size_t		flen = wc_escape((const uint8_t *) "follows", 7, f);
	uint64_t	cells = 0;
	double		t0,
				t1;
	struct timespec wall;

	if (mkdtemp(dirbuf) == NULL)
	{
		perror("mkdtemp");
		return 1;
	}
	leveldb_options_set_create_if_missing(o, 1);
	db = leveldb_open(o, dirbuf, &err);
	check(err, "open");
	ro_cache = leveldb_readoptions_create();
	leveldb_readoptions_set_verify_checksums(ro_cache, 1);
	clock_gettime(CLOCK_REALTIME, &wall);
	wc_encode_ts((uint64_t) wall.tv_sec * 1000000 + wall.tv_nsec / 1000, tskey);

	for (long r = 0; r < 1000; r++)
	{
		leveldb_writebatch_t *wb = leveldb_writebatch_create();
		uint8_t		prefix[128];
		char		rk[16];
		size_t		plen = wc_escape((const uint8_t *) "maps", 4, prefix);

		plen += wc_escape((const uint8_t *) rk, sprintf(rk, "user%04ld", r), prefix + plen);
		for (int q = 0; q < 100; q++)
		{
			uint8_t		key[256];
			char		qual[16];
			size_t		klen = plen;

			memcpy(key, prefix, plen);
			memcpy(key + klen, f, flen);
			klen += flen;
			klen += wc_escape((const uint8_t *) qual, sprintf(qual, "friend%03d", q), key + klen);
			memcpy(key + klen, tskey, WC_TS_LEN);
			klen += WC_TS_LEN;
			leveldb_writebatch_put(wb, (char *) key, klen, "\x01" "2024-01-01", 11);
		}
		leveldb_write(db, wo, wb, &err);
		check(err, "write");
		leveldb_writebatch_destroy(wb);
	}
	leveldb_compact_range(db, NULL, 0, NULL, 0);

	t0 = now();
	for (long i = -npoints / 10; i < npoints; i++)
	{
		uint8_t		prefix[128];
		char		rk[16];
		size_t		plen = wc_escape((const uint8_t *) "maps", 4, prefix);

		if (i == 0)
		{
			t0 = now();
			cells = 0;
		}
		plen += wc_escape((const uint8_t *) rk,
						  sprintf(rk, "user%04ld", (long) (next_random() % 1000)), prefix + plen);
		cells += read_prefix(db, ro_cache, prefix, plen);
	}
	t1 = now();
	if (cells != (uint64_t) npoints * 100)
	{
		fprintf(stderr, "raw_leveldb: map reads found %llu cells, expected %ld\n",
				(unsigned long long) cells, npoints * 100);
		return 1;
	}
	printf("raw_map100_rows_per_s %.0f\n", npoints / (t1 - t0));
	leveldb_close(db);
	leveldb_destroy_db(o, dirbuf, &err);
	check(err, "destroy");
	rmdir(dirbuf);
	return 0;
}

int
main(int argc, char **argv)
{
	long		npoints = 200000;
	long		nscans = 2000;
	int			passes = 3;
	int			no_compaction = 0;
	char		dirbuf[] = "/tmp/raw_leveldb.XXXXXX";
	const char *dir = NULL;
	int			opt;
	leveldb_options_t *o;
	leveldb_t  *db;
	char	   *err = NULL;
	double		t0,
				t1;
	struct timespec wall;

	if (argc == 3 && strcmp(argv[1], "compact") == 0)
		return compact(argv[2]);
	if (argc >= 2 && strcmp(argv[1], "map") == 0)
		return map_reads(argc == 4 && strcmp(argv[2], "-p") == 0 ? atol(argv[3]) : 200000);
	if (argc == 6 && strcmp(argv[1], "versions") == 0)
		return versions(argv[2], atol(argv[3]), atol(argv[4]), atol(argv[5]));

	nrows = 1000000;
	while ((opt = getopt(argc, argv, "r:b:B:RCd:p:s:i:")) != -1)
	{
		switch (opt)
		{
			case 'r':
				nrows = atol(optarg);
				break;
			case 'b':
				batch_rows = atol(optarg);
				break;
			case 'B':
				batch_bytes = atol(optarg);
				break;
			case 'R':
				scattered = 1;
				break;
			case 'C':
				no_compaction = 1;
				break;
			case 'd':
				dir = optarg;
				break;
			case 'p':
				npoints = atol(optarg);
				break;
			case 's':
				nscans = atol(optarg);
				break;
			case 'i':
				passes = atoi(optarg);
				break;
			default:
				fprintf(stderr, "usage: raw_leveldb [-r rows] [-b batch_rows] [-B batch_bytes] [-R] [-C] [-d dir] [-p point_reads] [-s prefix_scans] [-i passes]\n"
						"       raw_leveldb compact DIR\n");
				return 2;
		}
	}
	if (nrows < 10000 || nrows % 1000 != 0 || nrows / 1000 > 27 * 1440 ||
		passes < 1 || npoints < 1 || nscans < 1 || batch_rows < 0 || batch_bytes < 0)
	{
		fprintf(stderr, "raw_leveldb: rows must be a multiple of 1000 between 10000 and %d\n",
				27 * 1440 * 1000);
		return 2;
	}
	ntimes = nrows / (NLOC * NBALLOON);
	if (dir == NULL)
	{
		if (mkdtemp(dirbuf) == NULL)
		{
			perror("mkdtemp");
			return 1;
		}
		dir = dirbuf;
	}

	o = db_options();
	leveldb_options_set_create_if_missing(o, 1);
	leveldb_options_set_error_if_exists(o, 1);
	db = leveldb_open(o, dir, &err);
	check(err, "open");
	ro_cache = leveldb_readoptions_create();
	ro_nocache = leveldb_readoptions_create();
	leveldb_readoptions_set_fill_cache(ro_nocache, 0);
	/* as the storage worker reads (src/worker/leveldb/storage.c) */
	leveldb_readoptions_set_verify_checksums(ro_cache, 1);
	leveldb_readoptions_set_verify_checksums(ro_nocache, 1);

	/* One commit timestamp for the whole load, as a single COPY has. */
	clock_gettime(CLOCK_REALTIME, &wall);
	wc_encode_ts((uint64_t) wall.tv_sec * 1000000 + wall.tv_nsec / 1000, tskey);
	famlen = wc_escape((const uint8_t *) family, strlen(family), fam);
	for (int q = 0; q < 4; q++)
		quallen[q] = wc_escape((const uint8_t *) qualifiers[q], strlen(qualifiers[q]), quals[q]);
	table_len = wc_escape((const uint8_t *) table, strlen(table), table_start);
	memcpy(table_end, table_start, table_len);
	table_end_len = table_len;
	wc_successor(table_end, &table_end_len);

	printf("raw_leveldb_version %d.%d\n", leveldb_major_version(), leveldb_minor_version());
	printf("raw_batch_rows %ld\n", batch_rows > 0 ? batch_rows : nrows);
	printf("raw_order %s\n", scattered ? "scattered" : "file");
	load(db);
	levels(db, "raw_levels_loaded");
	measure(db, "", passes, npoints, nscans);

	/* The same after a full compaction. */
	if (no_compaction)
	{
		leveldb_close(db);
		if (dir == dirbuf)
		{
			leveldb_destroy_db(o, dir, &err);
			check(err, "destroy");
			rmdir(dir);
		}
		return 0;
	}
	t0 = now();
	leveldb_compact_range(db, NULL, 0, NULL, 0);
	t1 = now();
	printf("raw_compact_s %.2f\n", t1 - t0);
	levels(db, "raw_levels_compacted");
	measure(db, "compacted_", passes, npoints, nscans);

	leveldb_close(db);
	if (dir == dirbuf)
	{
		leveldb_destroy_db(o, dir, &err);
		check(err, "destroy");
		rmdir(dir);
	}
	return 0;
}
