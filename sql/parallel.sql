-- Parallel scans: a full or wide range scan under PostgreSQL's parallel
-- query.  The leader hands the key ranges out in chunks (split at the
-- table's split points) to the participants, which all read the leader's
-- snapshot.  The oracle is a native twin table, and the serial scan.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
\set SHOW_CONTEXT never
CREATE SERVER par_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
CREATE FOREIGN TABLE par (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    n int,
    g int,
    pad text
) SERVER par_srv OPTIONS (table 'par');
CREATE TABLE par_native (rowkey text COLLATE "C" PRIMARY KEY, n int, g int, pad text);

-- 60,000 rows; compact writes LevelDB's memtable out to files, whose
-- index gives the split points the scan's chunks are cut at.
INSERT INTO par SELECT 'k' || lpad(i::text, 6, '0'), i, i % 7, md5(i::text)
  FROM generate_series(1, 60000) i;
INSERT INTO par_native SELECT * FROM par;
SELECT widecolumn.compact('par_srv', 'par') AS deleted;
SELECT count(*) > 10 AS has_split_points FROM widecolumn.sample_row_keys('par');
SELECT clock_timestamp() AS before_more \gset
INSERT INTO par SELECT 'm' || lpad(i::text, 6, '0'), i, i % 7, md5(i::text)
  FROM generate_series(1, 5000) i;
INSERT INTO par_native SELECT * FROM par WHERE rowkey >= 'm';

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;

-- Aggregates over Gather: a parallel plan, the native table's results.
EXPLAIN (COSTS OFF) SELECT count(*), sum(n) FROM par;
SELECT count(*), sum(n), sum(length(pad)) FROM par;
SELECT count(*), sum(n), sum(length(pad)) FROM par_native;
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(n) FROM par GROUP BY g ORDER BY g;
SELECT g, count(*), sum(n) FROM par GROUP BY g
EXCEPT ALL SELECT g, count(*), sum(n) FROM par_native GROUP BY g;

-- The full row set, both ways, every row once (EXCEPT ALL).
EXPLAIN (COSTS OFF) SELECT * FROM par;
SELECT count(*) AS missing FROM (SELECT * FROM par_native EXCEPT ALL SELECT * FROM par) d;
SELECT count(*) AS extra FROM (SELECT * FROM par EXCEPT ALL SELECT * FROM par_native) d;

-- A wide range: only its chunks; a filter kept local.
EXPLAIN (COSTS OFF) SELECT count(*), sum(n) FROM par WHERE rowkey >= 'k020000' AND rowkey < 'k045000';
SELECT count(*), sum(n) FROM par WHERE rowkey >= 'k020000' AND rowkey < 'k045000';
SELECT count(*), sum(n) FROM par_native WHERE rowkey >= 'k020000' AND rowkey < 'k045000';
SELECT count(*), sum(n) FROM par WHERE (rowkey < 'k001000' OR rowkey >= 'k059500') AND g = 3;
SELECT count(*), sum(n) FROM par_native WHERE (rowkey < 'k001000' OR rowkey >= 'k059500') AND g = 3;

-- A point read, a LIMIT and an ordered scan stay serial.
EXPLAIN (COSTS OFF) SELECT * FROM par WHERE rowkey = 'k000042';
EXPLAIN (COSTS OFF) SELECT * FROM par LIMIT 3;
EXPLAIN (COSTS OFF) SELECT * FROM par ORDER BY rowkey DESC LIMIT 3;

-- No worker to be had: the leader takes every chunk itself.
SET max_parallel_workers = 0;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*), sum(n) FROM par;
SELECT count(*), sum(n), sum(length(pad)) FROM par;
RESET max_parallel_workers;

-- EXPLAIN ANALYZE counts what every participant read from storage, the
-- workers' rows too: with the leader out of the scan, they read them all.
CREATE FUNCTION storage_read(q text) RETURNS TABLE (
    workers_launched bool, rows_read jsonb, entries_read jsonb, removed jsonb)
LANGUAGE plpgsql AS $$
DECLARE p jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || q INTO p;
  RETURN QUERY SELECT
    (jsonb_path_query_first(p, 'strict $.**."Workers Launched"'))::int > 0,
    jsonb_path_query_first(p, 'strict $.**."Storage Rows Read"'),
    jsonb_path_query_first(p, 'strict $.**."Storage Entries Read"'),
    jsonb_path_query_first(p, 'strict $.**."Rows Removed by Storage Filter"');
END $$;
SET parallel_leader_participation = off;
SELECT * FROM storage_read('SELECT count(*), sum(n) FROM par');
SELECT * FROM storage_read('SELECT count(*), sum(n) FROM par WHERE n > 59000');
SELECT count(*), sum(n) FROM par WHERE n > 59000;
SELECT count(*), sum(n) FROM par_native WHERE n > 59000;
RESET parallel_leader_participation;
SELECT * FROM storage_read('SELECT count(*), sum(n) FROM par WHERE n > 59000');
-- and add up the loops of a rescanned parallel scan (the nested loop below)
SET enable_material = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT * FROM storage_read($q$SELECT x, s.c, s.t FROM generate_series(1, 3) x,
  LATERAL (SELECT count(*) AS c, sum(n) AS t FROM par HAVING count(*) > x) s$q$);
RESET enable_material;
RESET enable_hashjoin;
RESET enable_mergejoin;
-- An error in a participant ends the scan, whose counts are then not
-- wanted; the session, and the next scans' counts, go on.
BEGIN;
SAVEPOINT s;
SELECT count(*) FROM par WHERE 1 / (n - 30000) > 0;
ROLLBACK TO s;
SELECT * FROM storage_read('SELECT count(*) FROM par');
COMMIT;
SELECT count(*) FROM par WHERE 1 / (n - 30000) > 0;
SELECT * FROM storage_read('SELECT count(*) FROM par');

-- The serial scan returns the same.
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT count(*), sum(n) FROM par;
SELECT count(*), sum(n), sum(length(pad)) FROM par;
SET max_parallel_workers_per_gather = 2;

-- widecolumn.as_of: every participant reads the data of then.
-- (EXPLAIN's As Of line, a time, left out)
CREATE FUNCTION plan_of(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF l NOT LIKE '%As Of:%' THEN RETURN NEXT l; END IF;
  END LOOP;
END $$;
SET widecolumn.as_of = :'before_more';
SELECT plan_of('SELECT count(*), sum(n) FROM par');
SELECT count(*), sum(n) FROM par;
SELECT count(*), sum(n) FROM par_native WHERE rowkey < 'm';
RESET widecolumn.as_of;

-- A rescan: the parallel aggregate again for each outer row (the inner
-- side of a nested loop, not materialized), the shared state handed out
-- anew each time.
SET enable_material = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF)
SELECT x, s.c, s.t FROM generate_series(1, 3) x,
  LATERAL (SELECT count(*) AS c, sum(n) AS t FROM par HAVING count(*) > x) s;
SELECT x, s.c, s.t FROM generate_series(1, 3) x,
  LATERAL (SELECT count(*) AS c, sum(n) AS t FROM par HAVING count(*) > x) s;
RESET enable_material;
RESET enable_hashjoin;
RESET enable_mergejoin;

-- A transaction that has written reads its own writes: serially.  The
-- planner offers no parallel path then; a plan made before (a prepared
-- statement's) is read by the leader alone, as EXPLAIN says.
SET plan_cache_mode = force_generic_plan;
PREPARE q AS SELECT count(*), sum(n) FROM par;
EXPLAIN (COSTS OFF) EXECUTE q;
EXECUTE q;
BEGIN;
INSERT INTO par VALUES ('k000000', 1000000, 0, 'new');
UPDATE par SET n = n + 1 WHERE rowkey = 'k000001';
DELETE FROM par WHERE rowkey = 'k000002';
EXPLAIN (COSTS OFF) SELECT count(*), sum(n) FROM par;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE q;
EXECUTE q;
ROLLBACK;
BEGIN;
INSERT INTO par_native VALUES ('k000000', 1000000, 0, 'new');
UPDATE par_native SET n = n + 1 WHERE rowkey = 'k000001';
DELETE FROM par_native WHERE rowkey = 'k000002';
SELECT count(*), sum(n) FROM par_native;
ROLLBACK;
EXECUTE q;
DEALLOCATE q;
RESET plan_cache_mode;

-- Locking rows and a cells-layout table: serial.
EXPLAIN (COSTS OFF) SELECT count(*) FROM (SELECT * FROM par FOR UPDATE) s;
CREATE FOREIGN TABLE par_cells (
    rowkey text, family text, qualifier text, value bytea, ts timestamptz
) SERVER par_srv OPTIONS (table 'par', layout 'cells');
EXPLAIN (COSTS OFF) SELECT count(*) FROM par_cells;

-- A native table joined to the foreign one in parallel: the foreign side
-- is read by its parallel-aware scan only.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM par_native a JOIN par b USING (rowkey) WHERE a.g <> b.g;
SELECT count(*) FROM par_native a JOIN par b USING (rowkey) WHERE a.g <> b.g OR a.n <> b.n;

DROP FOREIGN TABLE par_cells;
DROP FOREIGN TABLE par;
DROP TABLE par_native;
DROP SERVER par_srv;
