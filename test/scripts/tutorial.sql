-- The README's tutorial: Bigtable's schema-design loop (seed 002: design,
-- load, run the workload, review the heat map, refine, review again) on the
-- weather balloons, in psql.  make demo runs it after demo.sql; it writes
-- its heat maps into /tmp/widecolumn_fdw-demo, which demo.sh makes.

-- 1. Design.  A first try puts the time first in the row key: the readings
--    of one minute sort together.
CREATE FOREIGN TABLE readings_v1 (
    at       timestamp OPTIONS (rowkey_part '1', rowkey_format 'YYYY-MM-DD-HH24MI'),
    location text      OPTIONS (rowkey_part '2'),
    balloon  int       OPTIONS (rowkey_part '3', rowkey_format '4'),
    pressure bigint    OPTIONS (column 'measurements:pressure'),
    temp     float8    OPTIONS (column 'measurements:temperature')
) SERVER wc OPTIONS (table 'readings_v1', rowkey_delimiter '#');

-- 2. Load six hours of history: 40 balloons in 4 locations, a reading a minute.
INSERT INTO readings_v1
SELECT timestamp '2021-03-05 00:00' + m * interval '1 minute', loc, b,
       94000 + (b * 37 + m) % 900, 5 + (m % 60) / 10.0
  FROM unnest(ARRAY['asia-south1', 'europe-west2', 'us-east1', 'us-west2']) loc,
       generate_series(3690, 3699) b, generate_series(0, 359) m;

-- 3. Query.  The most frequent query reads one balloon's last hour; the
--    key can only bound the time, so it reads every balloon's readings of
--    that hour and filters them: 40 times the rows it returns.
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT at, pressure FROM readings_v1
 WHERE location = 'us-west2' AND balloon = 3698 AND at >= '2021-03-05 05:00';

-- 4. Review.  The advisor reads a sample of the stored table and says what
--    the schema-design pages warn about.
SELECT severity, finding, evidence FROM widecolumn.advise('readings_v1');

-- 5. Refine: location and balloon first, then the time, as seed 001
--    advises; the same readings, copied over.
CREATE FOREIGN TABLE readings_v2 (
    location text      OPTIONS (rowkey_part '1'),
    balloon  int       OPTIONS (rowkey_part '2', rowkey_format '4'),
    at       timestamp OPTIONS (rowkey_part '3', rowkey_format 'YYYY-MM-DD-HH24MI'),
    pressure bigint    OPTIONS (column 'measurements:pressure'),
    temp     float8    OPTIONS (column 'measurements:temperature')
) SERVER wc OPTIONS (table 'readings_v2', rowkey_delimiter '#');
INSERT INTO readings_v2 SELECT location, balloon, at, pressure, temp FROM readings_v1;

-- The same query reads that balloon's hour alone: a range of one prefix.
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT at, pressure FROM readings_v2
 WHERE location = 'us-west2' AND balloon = 3698 AND at >= '2021-03-05 05:00';
SELECT severity, finding, evidence FROM widecolumn.advise('readings_v2');

-- 6. Run the workload: the balloons go on reporting, a reading a minute
--    each, into both tables.  The heat map counts by the minute, so wait
--    for a new one: in it, only the live feed is counted.
SELECT pg_sleep(61 - extract(second FROM clock_timestamp())) AS waited_for_the_next_minute;
DO $$
BEGIN
    FOR m IN 360..419 LOOP
        INSERT INTO readings_v1
        SELECT timestamp '2021-03-05 00:00' + m * interval '1 minute', loc, b, 94000 + b % 900, 6
          FROM unnest(ARRAY['asia-south1', 'europe-west2', 'us-east1', 'us-west2']) loc,
               generate_series(3690, 3699) b;
        INSERT INTO readings_v2
        SELECT loc, b, timestamp '2021-03-05 00:00' + m * interval '1 minute', 94000 + b % 900, 6
          FROM unnest(ARRAY['asia-south1', 'europe-west2', 'us-east1', 'us-west2']) loc,
               generate_series(3690, 3699) b;
        COMMIT;
    END LOOP;
END $$;

-- 7. Look at the heat map of this minute's writes: in readings_v1 they
--    all fall in the last key range (a hotspot: one tablet would take
--    every write), in readings_v2 they spread over the whole table.
SELECT start_key, end_key, value AS writes
  FROM widecolumn.key_heatmap('readings_v1', 'writes', date_trunc('minute', now()), 1)
 WHERE value > 0 ORDER BY start_key COLLATE "C";
SELECT 'readings_v2' AS t, count(*) AS ranges_written, min(value) AS least, max(value) AS most
  FROM widecolumn.key_heatmap('readings_v2', 'writes', date_trunc('minute', now()), 1)
 WHERE value > 0;

-- 8. Review again: the advisor adds what the heat map saw to its finding,
--    and the statistics show each table's reads and writes.
SELECT finding, evidence FROM widecolumn.advise('readings_v1');
SELECT finding FROM widecolumn.advise('readings_v2');
SELECT table_name, reads, rows_scanned, cells_written FROM widecolumn.stat_tables
 WHERE table_name LIKE 'readings%' ORDER BY table_name;

-- The heat maps as pictures, for a browser: time across, key ranges down.
\copy (SELECT widecolumn.key_heatmap_svg('readings_v1', 'writes', now() - interval '2 minutes')) TO '/tmp/widecolumn_fdw-demo/readings_v1.svg'
\copy (SELECT widecolumn.key_heatmap_svg('readings_v2', 'writes', now() - interval '2 minutes')) TO '/tmp/widecolumn_fdw-demo/readings_v2.svg'
\echo Heat maps written: /tmp/widecolumn_fdw-demo/readings_v1.svg (timestamp-first keys: the hotspot)
\echo and /tmp/widecolumn_fdw-demo/readings_v2.svg (the refined key); open them in a browser.
