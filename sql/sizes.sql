-- Sizes as LevelDB estimates them from its files' indexes:
-- widecolumn.sample_row_keys (Bigtable's SampleRowKeys),
-- widecolumn.approximate_size, and the planner's row estimates before
-- ANALYZE.  Bytes depend on compression and on LevelDB's files, so what is
-- checked is properties (order, bounds, sums, ratios), never a size.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
\set SHOW_CONTEXT never
CREATE SERVER sz_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
CREATE FOREIGN TABLE sz (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    n int,
    pad text
) SERVER sz_srv OPTIONS (table 'sz');

-- An empty table: only its end, the empty key, at 0 bytes.
SELECT * FROM widecolumn.sample_row_keys('sz');
SELECT widecolumn.approximate_size('sz');

-- 100,000 rows under ten prefixes k0- to k9- of 10,000 rows each.  LevelDB
-- counts only what is in its files, not its memtable: compact writes the
-- memtable out.
INSERT INTO sz SELECT 'k' || (i % 10) || '-' || lpad(i::text, 6, '0'), i, md5(i::text)
  FROM generate_series(0, 99999) i;
SELECT widecolumn.compact('sz_srv', 'sz') AS deleted;
SELECT widecolumn.approximate_size('sz') AS total \gset
SELECT :total > 1000000 AS table_has_megabytes;

CREATE TEMP TABLE s AS
  SELECT * FROM widecolumn.sample_row_keys('sz') WITH ORDINALITY AS s(row_key, offset_bytes, i);
-- the last sample is the table's end: the empty key, the table's bytes
SELECT row_key = '' AS last_is_empty, offset_bytes = :total AS last_is_total
  FROM s WHERE i = (SELECT max(i) FROM s);
-- a split point every 1/100 of the table or so: up to 99 and the end
SELECT count(*) BETWEEN 50 AND 100 AS count_in_bounds FROM s;
-- keys and offsets ascend; split points are inside the table
SELECT bool_and(b.row_key > a.row_key COLLATE "C") AS keys_ascend,
       bool_and(b.offset_bytes > a.offset_bytes) AS offsets_ascend
  FROM s a JOIN s b ON b.i = a.i + 1 WHERE b.row_key <> '';
SELECT bool_and(offset_bytes > 0 AND offset_bytes < :total) AS offsets_inside
  FROM s WHERE row_key <> '';
-- every split point is a row key of the table
SELECT count(*) AS not_row_keys FROM s
 WHERE row_key <> '' AND NOT EXISTS (SELECT 1 FROM sz WHERE sz.rowkey = s.row_key COLLATE "C");
-- no piece up to the last split point is much more than 1/100 of the table
-- (the last piece also holds the index and filter blocks LevelDB writes at
-- the end of its last file)
SELECT max(b.offset_bytes - coalesce(a.offset_bytes, 0)) < :total / 25 AS pieces_even
  FROM s b LEFT JOIN s a ON a.i = b.i - 1 WHERE b.row_key <> '';
-- an offset is the size of the rows before the key
SELECT bool_and(abs(widecolumn.approximate_size('sz', NULL, row_key) - offset_bytes) <= :total / 100)
       AS offsets_are_sizes
  FROM s WHERE row_key <> '';

-- approximate_size of ranges: the ten prefixes share the table's bytes
CREATE TEMP TABLE p AS
  SELECT d, widecolumn.approximate_size('sz', 'k' || d, CASE WHEN d < 9 THEN 'k' || (d + 1) END)
         AS bytes
    FROM generate_series(0, 9) d;
SELECT bool_and(bytes BETWEEN :total / 20 AND :total / 5) AS each_about_a_tenth,
       abs(sum(bytes) + widecolumn.approximate_size('sz', NULL, 'k0')
           - :total) <= :total / 100 AS prefixes_add_up
  FROM p;
-- [start, end): start included, end not; an empty or reversed range is 0
SELECT widecolumn.approximate_size('sz', 'k3', 'k3') AS same_key,
       widecolumn.approximate_size('sz', 'k4', 'k3') AS reversed,
       widecolumn.approximate_size('sz', 'z') AS after_last,
       widecolumn.approximate_size('sz', NULL, 'a') AS before_first,
       widecolumn.approximate_size('sz', NULL, NULL) = :total AS nulls_are_whole;
-- a key of 4096 bytes is a key
SELECT widecolumn.approximate_size('sz', repeat('k', 4096)) AS longest_key;

-- The planner before ANALYZE: the rows of a prefix or a range from its
-- bytes (the truth is 10,000 rows, the table's 100,000).
CREATE FUNCTION plan_rows(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  RETURN (j -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END $$;
SELECT reltuples FROM pg_class WHERE oid = 'sz'::regclass;
SELECT plan_rows($$SELECT * FROM sz WHERE rowkey LIKE 'k3%'$$) / 10000 BETWEEN 0.5 AND 2
       AS prefix_within_2x;
SELECT plan_rows($$SELECT * FROM sz WHERE rowkey >= 'k3' AND rowkey < 'k4'$$) / 10000
       BETWEEN 0.5 AND 2 AS range_within_2x;
SELECT plan_rows($$SELECT * FROM sz WHERE rowkey >= 'k7' AND rowkey < 'k9'$$) / 20000
       BETWEEN 0.5 AND 2 AS two_prefixes_within_2x;
SELECT plan_rows('SELECT * FROM sz') / 100000 BETWEEN 0.5 AND 2 AS table_within_2x;
-- a small range is counted: its rows are exact
SELECT plan_rows($$SELECT * FROM sz WHERE rowkey >= 'k3-000003' AND rowkey < 'k3-000100'$$)
       AS small_range_rows,
       (SELECT count(*) FROM sz WHERE rowkey >= 'k3-000003' AND rowkey < 'k3-000100') AS truth;
-- a range of a thousand rows is past the walk's 512 entries (sizes.c): from
-- its bytes too
SELECT plan_rows($$SELECT * FROM sz WHERE rowkey >= 'k3-010000' AND rowkey < 'k3-020000'$$) / 1000
       BETWEEN 0.5 AND 2 AS thousand_rows_within_2x,
       (SELECT count(*) FROM sz WHERE rowkey >= 'k3-010000' AND rowkey < 'k3-020000') AS truth;
-- a prefix with no rows
SELECT plan_rows($$SELECT * FROM sz WHERE rowkey LIKE 'x%'$$) AS no_rows;

-- The same stored table through a bytea row key, row-key parts and the
-- cells layout: the same split points, a bytea table's in bytea's text
-- form.
CREATE FOREIGN TABLE sz_bytes (rowkey bytea OPTIONS (rowkey 'true'), n int)
  SERVER sz_srv OPTIONS (table 'sz');
CREATE FOREIGN TABLE sz_parts (key text OPTIONS (rowkey_part '1'), n int)
  SERVER sz_srv OPTIONS (table 'sz', rowkey_delimiter '#');
CREATE FOREIGN TABLE sz_cells (rowkey text COLLATE "C", family text, qualifier text,
  ts timestamptz, value bytea) SERVER sz_srv OPTIONS (table 'sz', layout 'cells');
SELECT (SELECT array_agg(CASE WHEN row_key = '' THEN '' ELSE convert_from(row_key::bytea, 'UTF8') END
                         ORDER BY i)
          FROM widecolumn.sample_row_keys('sz_bytes') WITH ORDINALITY AS b(row_key, o, i))
       = (SELECT array_agg(row_key ORDER BY i) FROM s) AS bytea_same,
       (SELECT array_agg(row_key) FROM widecolumn.sample_row_keys('sz_parts'))
       = (SELECT array_agg(row_key ORDER BY i) FROM s) AS parts_same,
       (SELECT array_agg(row_key) FROM widecolumn.sample_row_keys('sz_cells'))
       = (SELECT array_agg(row_key ORDER BY i) FROM s) AS cells_same;
SELECT row_key FROM widecolumn.sample_row_keys('sz_bytes') LIMIT 1;
SELECT widecolumn.approximate_size('sz_bytes', '\x6b33', '\x6b34')
       = widecolumn.approximate_size('sz', 'k3', 'k4') AS bytea_range_same;

-- Bad input: each an error with an SQLSTATE.
SELECT * FROM widecolumn.sample_row_keys(NULL);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT widecolumn.approximate_size(NULL, 'a', 'b');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- not a foreign table; a foreign table of another wrapper
CREATE TABLE sz_native (rowkey text PRIMARY KEY);
SELECT * FROM widecolumn.sample_row_keys('sz_native');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT widecolumn.approximate_size('sz_native');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
CREATE FOREIGN DATA WRAPPER sz_other_fdw;
CREATE SERVER sz_other FOREIGN DATA WRAPPER sz_other_fdw;
CREATE FOREIGN TABLE sz_elsewhere (rowkey text) SERVER sz_other;
SELECT * FROM widecolumn.sample_row_keys('sz_elsewhere');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT widecolumn.approximate_size('sz_elsewhere');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- a key over the 4096-byte limit, as start or end
SELECT widecolumn.approximate_size('sz', repeat('k', 4097));
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT widecolumn.approximate_size('sz', NULL, repeat('k', 4097));
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- a key that is not bytea for a bytea table
SELECT widecolumn.approximate_size('sz_bytes', '\xzz');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- a table whose server was dropped (and the table with it)
CREATE SERVER sz_gone FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE sz_gone_t (rowkey text) SERVER sz_gone;
SELECT 'sz_gone_t'::regclass::oid AS gone \gset
DROP SERVER sz_gone CASCADE;
\set VERBOSITY sqlstate
SELECT * FROM widecolumn.sample_row_keys(:gone);
SELECT widecolumn.approximate_size(:gone);
\set VERBOSITY default
-- privileges: SELECT on the table, nothing else
CREATE ROLE sz_user;
SET ROLE sz_user;
SELECT * FROM widecolumn.sample_row_keys('sz');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT widecolumn.approximate_size('sz');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
RESET ROLE;
GRANT SELECT ON sz TO sz_user;
SET ROLE sz_user;
SELECT count(*) > 1 AS samples FROM widecolumn.sample_row_keys('sz');
SELECT widecolumn.approximate_size('sz') > 0 AS sized;
RESET ROLE;
REVOKE SELECT ON sz FROM sz_user;
SET ROLE sz_user;
SELECT widecolumn.approximate_size('sz');
\echo SQLSTATE :LAST_ERROR_SQLSTATE
RESET ROLE;
DROP ROLE sz_user;

DROP TABLE sz_native;
DROP SERVER sz_other CASCADE;
DROP FOREIGN DATA WRAPPER sz_other_fdw;
-- Fresh data, still in LevelDB's memtable (which LevelDB's estimate does
-- not count): its entries are walked, so the table never reports 0 bytes,
-- and its samples split it by the bytes walked.
CREATE FOREIGN TABLE sz_fresh (rowkey text OPTIONS (rowkey 'true') COLLATE "C", pad text)
  SERVER sz_srv OPTIONS (table 'sz_fresh');
INSERT INTO sz_fresh SELECT 'f' || lpad(i::text, 5, '0'), repeat('x', 100) FROM generate_series(1, 5000) i;
SELECT widecolumn.approximate_size('sz_fresh') AS fresh_total \gset
-- 5,000 rows of 100-byte values and their keys: at least 500 kB
SELECT :fresh_total > 500000 AS fresh_has_bytes;
SELECT widecolumn.approximate_size('sz_fresh', 'f00001', 'f02501') * 2
       BETWEEN :fresh_total * 0.9 AND :fresh_total * 1.1 AS half_is_half;
CREATE TEMP TABLE fs AS
  SELECT * FROM widecolumn.sample_row_keys('sz_fresh') WITH ORDINALITY AS s(row_key, offset_bytes, i);
SELECT count(*) BETWEEN 50 AND 101 AS fresh_split, max(offset_bytes) = :fresh_total AS ends_at_total,
       count(*) FILTER (WHERE row_key <> '' AND NOT EXISTS
         (SELECT 1 FROM sz_fresh f WHERE f.rowkey = fs.row_key COLLATE "C")) AS not_row_keys
  FROM fs;
SELECT approx_bytes > 500000 AS stat_has_bytes FROM widecolumn.stat_tables
 WHERE server = 'sz_srv' AND table_name = 'sz_fresh';
DROP TABLE fs;
-- the worker keeps a walk until the database is next written: the same
-- size again, and a larger one after more rows
SELECT widecolumn.approximate_size('sz_fresh') = :fresh_total AS same_again;
INSERT INTO sz_fresh SELECT 'g' || lpad(i::text, 5, '0'), repeat('x', 100) FROM generate_series(1, 1000) i;
SELECT widecolumn.approximate_size('sz_fresh') > :fresh_total + 100000 AS grows_with_writes;

DROP SERVER sz_srv CASCADE;
