-- A cell keeps every version written to it (its table has no families,
-- so no policy deletes any), and a read returns the newest.  A scan passes over a few
-- older versions one by one and skips the rest of a cell's versions with a
-- seek: reads of many-version cells must still give what a native table
-- holds, and read no more entries than the first few versions.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER versions_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
CREATE FOREIGN TABLE versions_wc (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    a int OPTIONS (column 'cf:a'),
    b text OPTIONS (column 'cf:b'),
    c int OPTIONS (column 'z:c')
) SERVER versions_srv OPTIONS (table 'versions');
CREATE TABLE versions_native (rowkey text COLLATE "C" PRIMARY KEY, a int, b text, c int);
CREATE FUNCTION versions_diff() RETURNS TABLE (side text, rowkey text, a int, b text, c int)
LANGUAGE sql AS $$
  (SELECT 'only foreign', * FROM versions_wc EXCEPT ALL SELECT 'only foreign', * FROM versions_native)
  UNION ALL
  (SELECT 'only native', * FROM versions_native EXCEPT ALL SELECT 'only native', * FROM versions_wc)
$$;

INSERT INTO versions_wc VALUES ('r1', 1, 'one', 10), ('r2', 2, 'two', 20), ('r3', 3, 'three', 30), ('r4', 4, 'four', 40);
INSERT INTO versions_native SELECT * FROM versions_wc;

-- Each statement is a transaction of its own: a version each.  (The
-- statements \gexec runs are not echoed.)
\set ECHO none
-- r2: 30 versions of a, and b deleted and set again (cell tombstones)
SELECT format('UPDATE %I SET a = %s WHERE rowkey = ''r2''', t, i)
  FROM generate_series(1, 30) i, (VALUES ('versions_wc'), ('versions_native')) v(t) \gexec
SELECT format('UPDATE %I SET b = %L WHERE rowkey = ''r2''', t, CASE WHEN i % 2 = 0 THEN NULL ELSE 'b' || i END)
  FROM generate_series(1, 20) i, (VALUES ('versions_wc'), ('versions_native')) v(t) \gexec
-- r3: deleted and inserted again, again and again (row tombstones)
SELECT format('DELETE FROM %I WHERE rowkey = ''r3''; INSERT INTO %I VALUES (''r3'', %s, NULL, %s)', t, t, i, i * 10)
  FROM generate_series(1, 12) i, (VALUES ('versions_wc'), ('versions_native')) v(t) \gexec
-- r4: the last cell of a row and of the table, with many versions
SELECT format('UPDATE %I SET c = %s WHERE rowkey = ''r4''', t, i)
  FROM generate_series(1, 25) i, (VALUES ('versions_wc'), ('versions_native')) v(t) \gexec
\set ECHO all

SELECT * FROM versions_wc ORDER BY rowkey;
SELECT * FROM versions_diff();
-- point reads, ranges and reverse scans over the same rows
SELECT * FROM versions_wc WHERE rowkey = 'r2';
SELECT * FROM versions_wc WHERE rowkey = 'r3';
SELECT rowkey, c FROM versions_wc WHERE rowkey >= 'r2' AND rowkey < 'r4' ORDER BY rowkey;
SELECT rowkey, a, c FROM versions_wc ORDER BY rowkey DESC;
SELECT count(*) FROM versions_wc WHERE rowkey >= 'r3';

-- r2 holds 31 versions of a, 21 of b and 1 of c: the scan reads the newest
-- of each cell and 8 older ones before it seeks, 9 + 9 + 1 entries.
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM versions_wc WHERE rowkey = 'r2';
-- r1 was written once: 3 entries.
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM versions_wc WHERE rowkey = 'r1';

DROP FOREIGN TABLE versions_wc;
DROP TABLE versions_native;
DROP FUNCTION versions_diff();
DROP SERVER versions_srv;
