/*
 * balloon.h: the balloon rows of test/bench/run.sh as the bare clients
 * make them (raw_leveldb.c, raw_bigtable.c): row k's key, as run.sh's
 * bench_key(k), and its measurements, as run.sh's balloon_rows, with
 * ntimes timestamps per balloon; and the clients' clock and random numbers.
 * Included once by each client.
 */
#ifndef WC_BENCH_BALLOON_H
#define WC_BENCH_BALLOON_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define NLOC		10
#define NBALLOON	100

/* Same order as bench_key() in run.sh. */
static const char *const locations[NLOC] = {
	"us-west2", "us-east1", "us-central1", "europe-west1", "europe-north1",
	"asia-south1", "asia-east1", "australia-southeast1", "southamerica-east1",
	"northamerica-northeast1"
};

static long ntimes;				/* timestamps per balloon */

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t
next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The row key of row k, as bench_key(k) in run.sh; returns its length. */
static int
row_key(long k, char *out)
{
	long		l = k / (NBALLOON * ntimes);
	long		b = (k / ntimes) % NBALLOON;
	long		t = k % ntimes;

	return sprintf(out, "%s#%ld#2021-03-%02ld-%02ld%02ld", locations[l], 3600 + b,
				   5 + t / 1440, (t % 1440) / 60, t % 60);
}

/* The measurements of row k, as run.sh generates them. */
static void
row_values(long k, int64_t *pressure, double *temp, double *humidity, double *altitude)
{
	long		b = (k / ntimes) % NBALLOON;
	long		t = k % ntimes;

	*pressure = 94000 + (b * 37 + t) % 900;
	*temp = ((b * 7 + t) % 700) / 10.0 - 50;
	*humidity = ((b + t * 3) % 1000) / 10.0;
	*altitude = 1000 + (b * 13 + t * 7) % 30000;
}

static void
put_be64(uint8_t *dst, uint64_t v)
{
	for (int i = 7; i >= 0; i--)
	{
		dst[i] = v & 0xFF;
		v >>= 8;
	}
}

#endif							/* WC_BENCH_BALLOON_H */
