-- Reading as of a time (widecolumn.as_of) and garbage-collection policies
-- applied on read: for each cell, the newest version at or before the time
-- among the versions its family's policy keeps.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER asof_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
CREATE FOREIGN TABLE asof_t (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    v int OPTIONS (column 'cf:v'),
    w int OPTIONS (column 'two:w'),
    x int OPTIONS (column 'young:x')
) SERVER asof_srv OPTIONS (table 'asof');
-- Keep every version from the start: a family that is written before it is
-- created keeps one (the test of that is at the end).
SELECT widecolumn.create_family('asof_srv', 'asof', f, 'never') FROM unnest('{cf,two,young}'::text[]) f;
-- when each write had committed (the worker stamps commits with the clock)
CREATE TEMP TABLE marks (name text PRIMARY KEY, at timestamptz);
CREATE FUNCTION mark(name text) RETURNS void LANGUAGE sql AS $$
  SELECT pg_sleep(0.002);
  INSERT INTO marks VALUES (name, clock_timestamp());
  SELECT pg_sleep(0.002);
$$;
-- EXPLAIN ANALYZE's lines (the time itself is in one)
CREATE FUNCTION explain_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    RETURN NEXT l;
  END LOOP;
END
$$;
CREATE FUNCTION as_of(name text) RETURNS text LANGUAGE sql AS $$
  SELECT set_config('widecolumn.as_of', (SELECT at::text FROM marks m WHERE m.name = as_of.name), false)
$$;
SELECT mark('before');
INSERT INTO asof_t VALUES ('r', 1, 1, 1);
SELECT mark('v1');
UPDATE asof_t SET v = 2, w = 2 WHERE rowkey = 'r';
SELECT mark('v2');
UPDATE asof_t SET v = NULL WHERE rowkey = 'r';
SELECT mark('v_deleted');
UPDATE asof_t SET v = 4 WHERE rowkey = 'r';
INSERT INTO asof_t VALUES ('gone', 9, 9, 9);
SELECT mark('gone_written');
DELETE FROM asof_t WHERE rowkey = 'gone';
SELECT mark('now');

-- the rows as of each time
SELECT as_of('before') IS NOT NULL AS set;
SELECT * FROM asof_t ORDER BY rowkey;
SELECT as_of('v1') IS NOT NULL AS set;
SELECT * FROM asof_t ORDER BY rowkey;
SELECT as_of('v2') IS NOT NULL AS set;
SELECT * FROM asof_t ORDER BY rowkey;
SELECT * FROM asof_t WHERE rowkey = 'r';
SELECT as_of('v_deleted') IS NOT NULL AS set;
SELECT * FROM asof_t ORDER BY rowkey DESC;
SELECT as_of('gone_written') IS NOT NULL AS set;
SELECT * FROM asof_t ORDER BY rowkey;
SELECT count(*) FROM asof_t WHERE rowkey >= 'a';
RESET widecolumn.as_of;
SELECT * FROM asof_t ORDER BY rowkey;

-- a cursor reads the time it was declared with; a generic plan the time
-- of its execution
SELECT as_of('v1') IS NOT NULL AS set;
BEGIN;
DECLARE c CURSOR FOR SELECT * FROM asof_t ORDER BY rowkey;
RESET widecolumn.as_of;
FETCH ALL FROM c;
COMMIT;
PREPARE q(text) AS SELECT v, w FROM asof_t WHERE rowkey = $1;
SET plan_cache_mode = force_generic_plan;
EXECUTE q('r');
SELECT as_of('v2') IS NOT NULL AS set;
EXECUTE q('r');
RESET plan_cache_mode;
DEALLOCATE q;

-- EXPLAIN says so
SET widecolumn.as_of = '2000-01-01 00:00:00+00';
EXPLAIN (COSTS OFF) SELECT * FROM asof_t WHERE rowkey = 'r';
SELECT * FROM asof_t;

-- no writing, no locking while it is set; errors change nothing
INSERT INTO asof_t VALUES ('new', 1, 1, 1);
UPDATE asof_t SET v = 5 WHERE rowkey = 'r';
DELETE FROM asof_t WHERE rowkey = 'r';
SELECT * FROM asof_t WHERE rowkey = 'r' FOR UPDATE;
SELECT widecolumn.create_family('asof_srv', 'asof', 'cf');
SET widecolumn.as_of = 'not a time';
SET widecolumn.as_of = '';
SELECT * FROM asof_t ORDER BY rowkey;
-- nor reading as of a time in a transaction that has written
BEGIN;
INSERT INTO asof_t VALUES ('in_tx', 1, 1, 1);
SET LOCAL widecolumn.as_of = '2000-01-01 00:00:00+00';
SELECT * FROM asof_t;
ROLLBACK;
SELECT count(*) FROM asof_t WHERE rowkey = 'in_tx';

-- Policies apply on read.  'two' keeps 2 versions; 'young' versions a second
-- old or younger.
SELECT widecolumn.set_gc_policy('asof_srv', 'asof', 'two', 'maxversions=2');
SELECT widecolumn.set_gc_policy('asof_srv', 'asof', 'young', 'maxage=1s');
-- w has versions 2 (newest) and 1: both kept; v1's time reads 1
SELECT as_of('v1') IS NOT NULL AS set;
SELECT rowkey, w FROM asof_t WHERE rowkey = 'r';
RESET widecolumn.as_of;
UPDATE asof_t SET w = 3 WHERE rowkey = 'r';
-- now 3, 2, 1: the oldest is beyond the two kept, so as of v1 it is gone
SELECT as_of('v1') IS NOT NULL AS set;
SELECT rowkey, w FROM asof_t WHERE rowkey = 'r';
SELECT as_of('v2') IS NOT NULL AS set;
SELECT rowkey, w FROM asof_t WHERE rowkey = 'r';
RESET widecolumn.as_of;
-- x was written over a second ago (pg_sleep makes sure): gone, until
-- written again
SELECT pg_sleep(1.1);
SELECT rowkey, x FROM asof_t ORDER BY rowkey;
UPDATE asof_t SET x = 10 WHERE rowkey = 'r';
SELECT rowkey, x FROM asof_t ORDER BY rowkey;
-- a policy that no longer deletes them brings back versions not yet reclaimed
SELECT widecolumn.set_gc_policy('asof_srv', 'asof', 'two', 'never');
SELECT as_of('v1') IS NOT NULL AS set;
SELECT rowkey, w FROM asof_t WHERE rowkey = 'r';
RESET widecolumn.as_of;

-- many versions: as of the tenth of thirty, the reader seeks rather than
-- steps past the twenty newer ones
CREATE FOREIGN TABLE asof_many (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    n int OPTIONS (column 'cf:n'),
    z int OPTIONS (column 'zz:z')
) SERVER asof_srv OPTIONS (table 'many');
SELECT widecolumn.create_family('asof_srv', 'many', 'cf', 'never');
INSERT INTO asof_many VALUES ('m', 0, 0);
\set ECHO none
SELECT format('UPDATE asof_many SET n = %s WHERE rowkey = ''m''', i)
  FROM generate_series(1, 10) i \gexec
\set ECHO all
SELECT mark('n10');
\set ECHO none
SELECT format('UPDATE asof_many SET n = %s WHERE rowkey = ''m''', i)
  FROM generate_series(11, 30) i \gexec
\set ECHO all
SELECT as_of('n10') IS NOT NULL AS set;
SELECT * FROM asof_many;
-- 8 newer versions stepped over, a seek to the time, the version read, 8
-- older ones, a seek past the rest, and z: 18 entries, not 32
SELECT line FROM explain_lines('SELECT * FROM asof_many WHERE rowkey = ''m''') AS line
 WHERE line ~ 'Storage';
RESET widecolumn.as_of;
SELECT * FROM asof_many;

DROP FOREIGN TABLE asof_t;
DROP FOREIGN TABLE asof_many;
DROP SERVER asof_srv;
DROP FUNCTION mark(text);
DROP FUNCTION as_of(text);
DROP FUNCTION explain_lines(text);
