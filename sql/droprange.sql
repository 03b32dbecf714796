-- widecolumn.drop_row_range (Bigtable's DropRowRange): every row whose key
-- starts with a prefix, in every family, mapped or not, at the cost of one
-- entry however many rows it drops.  A native table holding the same rows,
-- from which a DELETE removes the same ones, is the oracle.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
\set SHOW_CONTEXT never
CREATE SERVER dr_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
CREATE FOREIGN TABLE dr (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    v int,
    note text OPTIONS (column 'other:note')
) SERVER dr_srv OPTIONS (table 'dr');
-- the same stored table, its family "other" alone
CREATE FOREIGN TABLE dr_other (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    note text OPTIONS (column 'other:note')
) SERVER dr_srv OPTIONS (table 'dr');
CREATE TABLE dr_native (rowkey text COLLATE "C" PRIMARY KEY, v int, note text);

-- Three tenants of 1,000 rows and one of 10; tenant b's rows have a note
-- only in the family the first table does not map alone.
INSERT INTO dr SELECT t || '#' || lpad(i::text, 4, '0'), i, CASE WHEN t = 'b' THEN 'n' || i END
  FROM unnest(ARRAY['a', 'b', 'c']) t, generate_series(1, 1000) i;
INSERT INTO dr SELECT 'bb#' || i, i FROM generate_series(1, 10) i;
INSERT INTO dr_native SELECT * FROM dr;
-- what the foreign table holds equals the native one's, both ways
CREATE VIEW dr_diff AS
  SELECT count(*) AS differ FROM (
    (SELECT * FROM dr EXCEPT ALL SELECT * FROM dr_native)
    UNION ALL
    (SELECT * FROM dr_native EXCEPT ALL SELECT * FROM dr)) x;
SELECT * FROM dr_diff;

-- Rolled back with its transaction; seen by the transaction at once.
BEGIN;
SELECT widecolumn.drop_row_range('dr', 'b#');
SELECT count(*) FROM dr WHERE rowkey LIKE 'b#%';
SELECT count(*) FROM dr_other WHERE note IS NOT NULL;
SELECT left(rowkey, 2) AS tenant, count(*) FROM dr GROUP BY 1 ORDER BY 1;
ROLLBACK;
SELECT * FROM dr_diff;

-- Committed: tenant b is gone, in both families; bb# (not b#) stays.
SELECT clock_timestamp() AS before_drop \gset
SELECT widecolumn.drop_row_range('dr', 'b#');
DELETE FROM dr_native WHERE rowkey LIKE 'b#%';
SELECT * FROM dr_diff;
SELECT count(*) FROM dr_other WHERE note IS NOT NULL;
SELECT * FROM dr WHERE rowkey = 'b#0007';
SELECT count(*) FROM dr WHERE rowkey >= 'a#0990' AND rowkey < 'c#0011';
SELECT count(*) FROM dr_native WHERE rowkey >= 'a#0990' AND rowkey < 'c#0011';
-- gone as of any time, as a dropped table or family is
BEGIN;
SET LOCAL widecolumn.as_of = :'before_drop';
SELECT left(rowkey, 2) AS tenant, count(*) FROM dr GROUP BY 1 ORDER BY 1;
COMMIT;
-- a scan across the dropped range reads no entry of it: 10 of a and 10 of
-- c, 10 bb rows, one entry each
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT rowkey, v FROM dr WHERE rowkey >= 'a#0991' AND rowkey < 'c#0011';
-- ... and in reverse
SELECT rowkey FROM dr WHERE rowkey >= 'a#0999' AND rowkey < 'c#0002' ORDER BY rowkey DESC;
-- a count of the whole prefix reads nothing
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM dr WHERE rowkey LIKE 'b#%';

-- Rows written into the range after the drop are there, and only they;
-- the older versions of their cells are not.
INSERT INTO dr VALUES ('b#0005', -5);
INSERT INTO dr_native VALUES ('b#0005', -5);
SELECT * FROM dr_diff;
SELECT * FROM dr WHERE rowkey LIKE 'b#%';
SELECT * FROM dr_other WHERE rowkey LIKE 'b#%';
-- once a row is written into it, a scan reads the range and hides the
-- dropped entries row by row, until compact deletes them
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM dr WHERE rowkey LIKE 'b#%';
SELECT widecolumn.compact('dr_srv', 'dr') > 0 AS compacted;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM dr WHERE rowkey LIKE 'b#%';
SELECT * FROM dr_diff;

-- In one transaction: a row written before the drop is gone with it, one
-- written after stays; a drop rolled back to a savepoint is forgotten.
BEGIN;
INSERT INTO dr VALUES ('c#0001x', 1), ('c#0002x', 2);
UPDATE dr SET v = -1 WHERE rowkey = 'c#0003';
SAVEPOINT s;
SELECT widecolumn.drop_row_range('dr', 'c#000');
SELECT rowkey, v FROM dr WHERE rowkey LIKE 'c#000%';
ROLLBACK TO SAVEPOINT s;
SELECT rowkey, v FROM dr WHERE rowkey LIKE 'c#000%' ORDER BY rowkey;
SELECT widecolumn.drop_row_range('dr', 'c#000');
INSERT INTO dr VALUES ('c#0002', 22);
UPDATE dr SET v = -2 WHERE rowkey = 'c#0004';
DELETE FROM dr WHERE rowkey = 'c#0005';
SELECT rowkey, v FROM dr WHERE rowkey LIKE 'c#000%';
COMMIT;
DELETE FROM dr_native WHERE rowkey LIKE 'c#000%';
INSERT INTO dr_native VALUES ('c#0002', 22);
SELECT * FROM dr_diff;

-- A statement does not see a drop it makes itself, as it does not see its
-- other writes: the count is of the rows before it.
SELECT count(*), widecolumn.drop_row_range('dr', 'c#001') FROM dr WHERE rowkey LIKE 'c#001%';
SELECT count(*) FROM dr WHERE rowkey LIKE 'c#001%';
DELETE FROM dr_native WHERE rowkey LIKE 'c#001%';

-- DELETE by row-key ranges alone (a prefix, a range, no WHERE) takes the
-- same path: the ranges are dropped, and the count (psql's ROW_COUNT) is of
-- the rows the statement saw.  Keys alone (=, IN) are deleted row by row,
-- locking only their rows.
EXPLAIN (COSTS OFF) DELETE FROM dr WHERE rowkey LIKE 'c#02%';
DELETE FROM dr WHERE rowkey LIKE 'c#02%';
\echo deleted :ROW_COUNT
DELETE FROM dr_native WHERE rowkey LIKE 'c#02%';
EXPLAIN (COSTS OFF) DELETE FROM dr WHERE rowkey >= 'c#030' AND rowkey < 'c#0305';
DELETE FROM dr WHERE rowkey >= 'c#030' AND rowkey < 'c#0305';
\echo deleted :ROW_COUNT
DELETE FROM dr_native WHERE rowkey >= 'c#030' AND rowkey < 'c#0305';
DELETE FROM dr WHERE rowkey = 'c#0400' OR rowkey IN ('c#0402', 'c#0404', 'c#04049');
\echo deleted :ROW_COUNT
DELETE FROM dr_native WHERE rowkey = 'c#0400' OR rowkey IN ('c#0402', 'c#0404', 'c#04049');
SELECT * FROM dr_diff;
-- a range dropped reads nothing: its rows are not even passed over
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM dr WHERE rowkey >= 'c#0195' AND rowkey < 'c#0305';
-- unlike drop_row_range, the DELETE is a row tombstone on each row: a read
-- as of a time before it still finds the versions the policies keep
BEGIN;
SET LOCAL widecolumn.as_of = :'before_drop';
SELECT count(*) FROM dr WHERE rowkey LIKE 'c#02%';
SELECT count(*) FROM dr WHERE rowkey LIKE 'b#%';
COMMIT;
-- in a transaction, seen by it, undone by ROLLBACK
BEGIN;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) DELETE FROM dr WHERE rowkey LIKE 'c#05%';
SELECT count(*) FROM dr WHERE rowkey LIKE 'c#05%';
ROLLBACK;
SELECT count(*) FROM dr WHERE rowkey LIKE 'c#05%';
-- with parameters, in a generic plan too
PREPARE del_range(text, text) AS DELETE FROM dr WHERE rowkey >= $1 AND rowkey < $2;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE del_range('c#0600', 'c#0602');
EXECUTE del_range('c#0600', 'c#0602');
\echo deleted :ROW_COUNT
EXECUTE del_range('nosuch', 'nosuch~');
\echo deleted :ROW_COUNT
RESET plan_cache_mode;
DELETE FROM dr_native WHERE rowkey IN ('c#0600', 'c#0601');
EXPLAIN (COSTS OFF) DELETE FROM dr WHERE rowkey = 'c#0400' OR rowkey IN ('c#0402', 'c#0404');
SELECT * FROM dr_diff;
-- so is anything more than ranges: RETURNING, another condition, a LIKE
-- with wildcards inside, a row trigger
EXPLAIN (COSTS OFF) DELETE FROM dr WHERE rowkey LIKE 'c#07%' RETURNING rowkey;
EXPLAIN (COSTS OFF) DELETE FROM dr WHERE rowkey LIKE 'c#07%' AND v > 705;
EXPLAIN (COSTS OFF) DELETE FROM dr WHERE rowkey LIKE 'c#07_1';
DELETE FROM dr WHERE rowkey LIKE 'c#07%' AND v > 705 RETURNING rowkey;
DELETE FROM dr_native WHERE rowkey LIKE 'c#07%' AND v > 705;
CREATE FUNCTION dr_trig() RETURNS trigger LANGUAGE plpgsql AS
  $$BEGIN RAISE NOTICE 'deleting %', OLD.rowkey; RETURN OLD; END$$;
CREATE TRIGGER dr_trig BEFORE DELETE ON dr FOR EACH ROW EXECUTE FUNCTION dr_trig();
EXPLAIN (COSTS OFF) DELETE FROM dr WHERE rowkey LIKE 'c#0700%';
DELETE FROM dr WHERE rowkey LIKE 'c#0700%';
DROP TRIGGER dr_trig ON dr;
DROP FUNCTION dr_trig();
DELETE FROM dr_native WHERE rowkey LIKE 'c#0700%';
SELECT * FROM dr_diff;
-- key parts: equality on the leading parts is a prefix
CREATE FOREIGN TABLE dr_parts (
    tenant text OPTIONS (rowkey_part '1') COLLATE "C",
    n int OPTIONS (rowkey_part '2'),
    v int
) SERVER dr_srv OPTIONS (table 'dr_parts', rowkey_delimiter '#');
INSERT INTO dr_parts SELECT t, i, i FROM unnest(ARRAY['x', 'y']) t, generate_series(1, 50) i;
EXPLAIN (COSTS OFF) DELETE FROM dr_parts WHERE tenant = 'x';
DELETE FROM dr_parts WHERE tenant = 'x';
\echo deleted :ROW_COUNT
DELETE FROM dr_parts WHERE tenant = 'y' AND n > 10 AND n <= 40;
\echo deleted :ROW_COUNT
SELECT tenant, count(*), min(n), max(n) FROM dr_parts GROUP BY tenant;
-- no WHERE: every row
DELETE FROM dr_parts;
\echo deleted :ROW_COUNT
SELECT count(*) FROM dr_parts;

-- bytea prefixes, and a prefix of 0xff bytes, whose range has no end
CREATE FOREIGN TABLE drb (
    rowkey bytea OPTIONS (rowkey 'true'),
    v int
) SERVER dr_srv OPTIONS (table 'drb');
INSERT INTO drb VALUES ('\x00', 1), ('\x0000', 1), ('\x0001', 1), ('\x01', 1),
  ('\xfe', 1), ('\xff', 1), ('\xff00', 1), ('\xffff', 1);
SELECT rowkey FROM drb ORDER BY rowkey;
SELECT widecolumn.drop_row_range('drb', '\x00'::bytea);
SELECT rowkey FROM drb ORDER BY rowkey;
SELECT widecolumn.drop_row_range('drb', '\xff'::bytea);
SELECT rowkey FROM drb ORDER BY rowkey;
-- the empty prefix drops every row
SELECT widecolumn.drop_row_range('drb', '');
SELECT count(*) FROM drb;
INSERT INTO drb VALUES ('\x05', 5);
SELECT * FROM drb;

-- A cells-layout table over the same stored table agrees; in the
-- transaction that dropped a range it cannot be read (yet).
CREATE FOREIGN TABLE dr_cells (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    family text, qualifier bytea, ts timestamptz, value bytea
) SERVER dr_srv OPTIONS (table 'dr', layout 'cells');
SELECT count(DISTINCT rowkey) FROM dr_cells WHERE rowkey >= 'a#0990' AND rowkey < 'c#0020';
BEGIN;
SELECT widecolumn.drop_row_range('dr', 'a#099');
SELECT count(*) FROM dr_cells WHERE rowkey LIKE 'a#099%';
ROLLBACK;

-- Bad input: an error, and nothing dropped.
SELECT widecolumn.drop_row_range(NULL, 'a#');
SELECT widecolumn.drop_row_range('dr', NULL::text);
SELECT widecolumn.drop_row_range('dr_native', 'a#');
SELECT widecolumn.drop_row_range(0, 'a#');
CREATE FOREIGN DATA WRAPPER dr_dummy;
CREATE SERVER dr_dummy_srv FOREIGN DATA WRAPPER dr_dummy;
CREATE FOREIGN TABLE dr_dummy_t (rowkey text) SERVER dr_dummy_srv;
SELECT widecolumn.drop_row_range('dr_dummy_t', 'a#');
SELECT widecolumn.drop_row_range('dr', repeat('k', 4097));
BEGIN READ ONLY;
SELECT widecolumn.drop_row_range('dr', 'a#');
ROLLBACK;
BEGIN;
SET LOCAL widecolumn.as_of = '2000-01-01 00:00:00+00';
SELECT widecolumn.drop_row_range('dr', 'a#');
ROLLBACK;
-- DELETE on the table is needed, as for the DELETE it stands for
CREATE ROLE dr_reader;
GRANT USAGE ON SCHEMA widecolumn TO dr_reader;
GRANT SELECT ON dr TO dr_reader;
SET ROLE dr_reader;
SELECT widecolumn.drop_row_range('dr', 'a#');
SELECT count(*) FROM dr WHERE rowkey LIKE 'a#%';
RESET ROLE;
GRANT DELETE ON dr TO dr_reader;
SET ROLE dr_reader;
SELECT widecolumn.drop_row_range('dr', 'a#000');
RESET ROLE;
DELETE FROM dr_native WHERE rowkey LIKE 'a#000%';
SELECT * FROM dr_diff;
REVOKE ALL ON dr FROM dr_reader;
REVOKE ALL ON SCHEMA widecolumn FROM dr_reader;
DROP ROLE dr_reader;

-- The sweep reclaims a dropped range, and the drop's marks with it: a
-- range dropped and compacted reads as if it never held rows.
SELECT widecolumn.drop_row_range('dr', 'a#');
SELECT widecolumn.compact('dr_srv', 'dr') >= 990 AS reclaimed;
SELECT widecolumn.compact('dr_srv', 'dr') AS nothing_left;
DELETE FROM dr_native WHERE rowkey LIKE 'a#%';
SELECT * FROM dr_diff;
INSERT INTO dr VALUES ('a#0001', 1);
INSERT INTO dr_native VALUES ('a#0001', 1);
SELECT * FROM dr_diff;

DROP SERVER dr_srv CASCADE;
DROP SERVER dr_dummy_srv CASCADE;
DROP FOREIGN DATA WRAPPER dr_dummy;
DROP TABLE dr_native;
