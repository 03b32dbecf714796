-- The key access heat map and the table statistics: what the storage
-- worker counts of each stored table's reads and writes
-- (widecolumn.key_heatmap, widecolumn.stat_tables, widecolumn.stat_reset).
-- A native table with the same rows is the oracle of the rows read and
-- the cells written; the sums of the heat map over its key ranges and
-- buckets must equal them, however the worker split the keys.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
\set SHOW_CONTEXT never
-- The background sweep off: only compact changes what was swept.
ALTER SYSTEM SET widecolumn_fdw.sweep_naptime = 0;
SELECT pg_reload_conf();
CREATE SERVER hm_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
CREATE FOREIGN TABLE hm (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    a int,
    b text
) SERVER hm_srv OPTIONS (table 'hm');
CREATE TABLE hm_oracle (rowkey text COLLATE "C" PRIMARY KEY, a int, b text);

-- Nothing counted yet: no row in stat_tables, an empty heat map.
SELECT count(*) FROM widecolumn.stat_tables WHERE server = 'hm_srv';
SELECT count(*) FROM widecolumn.key_heatmap('hm');

-- 300 rows under three prefixes; every tenth row has no b (one cell).
INSERT INTO hm_oracle
  SELECT p || '-' || lpad(i::text, 3, '0'), i, CASE WHEN i % 10 <> 0 THEN md5(i::text) END
  FROM unnest(ARRAY['a', 'b', 'c']) p, generate_series(0, 99) i;
INSERT INTO hm SELECT * FROM hm_oracle;
SELECT count(a) + count(b) AS cells FROM hm_oracle \gset

-- Writes only: as many cells as the oracle has values, no tombstones,
-- nothing read yet.
SELECT reads, rows_scanned, entries_scanned, cells_written = :cells AS cells_match,
       tombstones_written, versions_gc_removed, last_sweep IS NULL AS never_swept,
       stats_reset IS NULL AS never_reset
  FROM widecolumn.stat_tables WHERE server = 'hm_srv' AND table_name = 'hm';
SELECT round(sum(value)) = :cells AS writes_match
  FROM widecolumn.key_heatmap('hm', 'writes');
SELECT sum(value) > 0 AS bytes_written FROM widecolumn.key_heatmap('hm', 'bytes_written');
-- 300 rows written in one place: the busy range was split.
SELECT count(DISTINCT start_key) > 1 AS split FROM widecolumn.key_heatmap('hm', 'writes');
-- In each bucket the ranges ascend without overlapping, from the empty key
-- to no end.
SELECT bool_and(start_key < end_key COLLATE "C") AS ranges_ascend,
       bool_and(next_start IS NULL OR next_start >= end_key COLLATE "C") AS disjoint
  FROM (SELECT start_key, end_key,
               lead(start_key) OVER (PARTITION BY bucket_start ORDER BY start_key COLLATE "C") AS next_start
        FROM widecolumn.key_heatmap('hm', 'writes')) r
  WHERE end_key IS NOT NULL;

-- Reads: four point reads that find their row, one that finds none, and
-- a prefix of 100 rows.
SELECT a FROM hm WHERE rowkey = 'a-001';
SELECT a FROM hm WHERE rowkey = 'b-050';
SELECT b FROM hm WHERE rowkey = 'c-010';
SELECT a FROM hm WHERE rowkey = 'c-099';
SELECT a FROM hm WHERE rowkey = 'd-000';
SELECT count(*), sum(a) FROM hm WHERE rowkey LIKE 'b-%';
-- (b-050 is read twice: once alone, once in its prefix)
SELECT sum(n) AS rows_read, sum(n + with_b) AS entries
  FROM (SELECT count(*) AS n, count(b) AS with_b FROM hm_oracle
          WHERE rowkey IN ('a-001', 'b-050', 'c-010', 'c-099', 'd-000')
        UNION ALL
        SELECT count(*), count(b) FROM hm_oracle WHERE rowkey LIKE 'b-%') o \gset
SELECT reads = :rows_read AS reads_match, rows_scanned = :rows_read AS scanned_match,
       entries_scanned = :entries AS entries_match
  FROM widecolumn.stat_tables WHERE server = 'hm_srv' AND table_name = 'hm';
SELECT round(sum(value)) = :rows_read AS reads_match FROM widecolumn.key_heatmap('hm', 'reads');
SELECT round(sum(value)) = :entries AS scanned_match FROM widecolumn.key_heatmap('hm', 'scanned');
SELECT sum(value) > 0 AS bytes_read FROM widecolumn.key_heatmap('hm', 'bytes_read');
-- the same, in one bucket of the last hour, or in 1000 buckets
SELECT count(DISTINCT bucket_start) AS buckets, round(sum(value)) = :rows_read AS reads_match
  FROM widecolumn.key_heatmap('hm', 'reads', now() - interval '1 hour', 1);
SELECT round(sum(value)) = :rows_read AS reads_match
  FROM widecolumn.key_heatmap('hm', 'reads', now() - interval '1 hour', 1000);

-- A DELETE writes a row tombstone, setting a column to NULL a cell
-- tombstone; compact deletes what they hide, and says how many.
DELETE FROM hm WHERE rowkey = 'a-002';
UPDATE hm SET b = NULL WHERE rowkey = 'a-003';
SELECT cells_written = :cells AS cells_same, tombstones_written
  FROM widecolumn.stat_tables WHERE server = 'hm_srv' AND table_name = 'hm';
SELECT round(sum(value)) = :cells + 2 AS writes_match
  FROM widecolumn.key_heatmap('hm', 'writes');
SELECT widecolumn.compact('hm_srv', 'hm') AS compacted \gset
SELECT :compacted > 0 AS compacted_some, versions_gc_removed = :compacted AS removed_match,
       last_sweep > now() - interval '1 hour' AS swept,
       approx_bytes > 0 AS has_bytes
  FROM widecolumn.stat_tables WHERE server = 'hm_srv' AND table_name = 'hm';

-- (the DELETE and UPDATE read their rows first)
SELECT round(sum(value)) AS heat_reads FROM widecolumn.key_heatmap('hm', 'reads') \gset
SELECT reads = :heat_reads AS reads_match
  FROM widecolumn.stat_tables WHERE server = 'hm_srv' AND table_name = 'hm';

-- stat_reset zeroes the statistics and says when; the heat map stays.
SELECT widecolumn.stat_reset();
SELECT reads, rows_scanned, entries_scanned, cells_written, tombstones_written,
       versions_gc_removed, stats_reset > now() - interval '1 hour' AS reset_now
  FROM widecolumn.stat_tables WHERE server = 'hm_srv' AND table_name = 'hm';
SELECT round(sum(value)) = :heat_reads AS reads_kept FROM widecolumn.key_heatmap('hm', 'reads');

-- A bytea key's ranges start at keys in bytea's text form.
CREATE FOREIGN TABLE hm_bin (rowkey bytea OPTIONS (rowkey 'true'), v int)
  SERVER hm_srv OPTIONS (table 'hm_bin');
INSERT INTO hm_bin SELECT decode(lpad(to_hex(i * 997), 8, '0'), 'hex'), i FROM generate_series(1, 300) i;
SELECT count(*) > 1 AS split,
       bool_and(start_key = '' OR start_key ~ '^\\x[0-9a-f]*$') AS shown_as_bytea
  FROM widecolumn.key_heatmap('hm_bin', 'writes');

-- Errors: nothing is counted or changed by them.
SELECT * FROM widecolumn.key_heatmap('hm', 'deletes');
SELECT * FROM widecolumn.key_heatmap('hm', NULL);
SELECT * FROM widecolumn.key_heatmap('hm', 'reads', now() - interval '1 hour', 0);
SELECT * FROM widecolumn.key_heatmap('hm', 'reads', now() - interval '1 hour', -5);
SELECT * FROM widecolumn.key_heatmap('hm', 'reads', now() + interval '1 hour');
SELECT * FROM widecolumn.key_heatmap('hm_oracle');
CREATE FOREIGN DATA WRAPPER hm_other_fdw;
CREATE SERVER hm_other FOREIGN DATA WRAPPER hm_other_fdw;
CREATE FOREIGN TABLE hm_other_t (k text) SERVER hm_other;
SELECT * FROM widecolumn.key_heatmap('hm_other_t');
CREATE ROLE hm_user;
GRANT USAGE ON FOREIGN SERVER hm_srv TO hm_user;
SET ROLE hm_user;
SELECT * FROM widecolumn.key_heatmap('hm');
SELECT widecolumn.stat_reset();
-- the user sees the servers it may use
SELECT table_name FROM widecolumn.stat_tables WHERE server = 'hm_srv' ORDER BY 1;
RESET ROLE;
REVOKE USAGE ON FOREIGN SERVER hm_srv FROM hm_user;
SET ROLE hm_user;
SELECT count(*) FROM widecolumn.stat_tables WHERE server = 'hm_srv';
RESET ROLE;
GRANT SELECT ON hm TO hm_user;
SET ROLE hm_user;
SELECT round(sum(value)) = :heat_reads AS reads_visible FROM widecolumn.key_heatmap('hm');
RESET ROLE;

REVOKE SELECT ON hm FROM hm_user;
DROP ROLE hm_user;
DROP FOREIGN TABLE hm_other_t;
DROP SERVER hm_other;
DROP FOREIGN DATA WRAPPER hm_other_fdw;
DROP FOREIGN TABLE hm, hm_bin;
DROP TABLE hm_oracle;
DROP SERVER hm_srv;
ALTER SYSTEM RESET widecolumn_fdw.sweep_naptime;
SELECT pg_reload_conf();
