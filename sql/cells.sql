-- The cells layout: a foreign table with OPTIONS (layout 'cells') returns a
-- row per cell version the policies keep, in Bigtable's order (row key,
-- family, qualifier, ts descending); INSERT writes a version at its ts,
-- UPDATE rewrites one, DELETE removes exactly the versions it names.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER cells_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');

-- ---------------------------------------------------------------------
-- Wrong or missing columns: an error when the table is created or first used
CREATE FOREIGN TABLE bad_layout (rowkey text, v int) SERVER cells_srv OPTIONS (layout 'rows');
CREATE FOREIGN TABLE no_value (rowkey text, family text, qualifier text, ts timestamptz)
  SERVER cells_srv OPTIONS (layout 'cells');
SELECT * FROM no_value;
INSERT INTO no_value VALUES ('r', 'f', 'q', NULL);
CREATE FOREIGN TABLE extra_col (rowkey text, family text, qualifier text, ts timestamptz,
  value bytea, note text) SERVER cells_srv OPTIONS (layout 'cells');
SELECT * FROM extra_col;
CREATE FOREIGN TABLE ts_type (rowkey text, family text, qualifier text, ts timestamp,
  value bytea) SERVER cells_srv OPTIONS (layout 'cells');
SELECT * FROM ts_type;
CREATE FOREIGN TABLE fam_type (rowkey text, family int, qualifier text, ts timestamptz,
  value bytea) SERVER cells_srv OPTIONS (layout 'cells');
SELECT * FROM fam_type;
CREATE FOREIGN TABLE qual_type (rowkey text, family text, qualifier int, ts timestamptz,
  value bytea) SERVER cells_srv OPTIONS (layout 'cells');
SELECT * FROM qual_type;
CREATE FOREIGN TABLE key_type (rowkey int, family text, qualifier text, ts timestamptz,
  value bytea) SERVER cells_srv OPTIONS (layout 'cells');
SELECT * FROM key_type;
-- the row key is the column rowkey, not another
CREATE FOREIGN TABLE other_key (rowkey text OPTIONS (rowkey 'false'), family text OPTIONS (rowkey 'true'),
  qualifier text, ts timestamptz, value bytea) SERVER cells_srv OPTIONS (layout 'cells');
SELECT * FROM other_key;
DROP FOREIGN TABLE no_value, extra_col, ts_type, fam_type, qual_type, key_type, other_key;

-- ---------------------------------------------------------------------
-- Reads in Bigtable's order, against a native table holding the same versions
SELECT widecolumn.create_family('cells_srv', 'data', 'a', 'never');
SELECT widecolumn.create_family('cells_srv', 'data', 'b', 'never');
CREATE FOREIGN TABLE cells (
    rowkey text COLLATE "C",
    family text COLLATE "C",
    qualifier text COLLATE "C",
    ts timestamptz,
    value text
) SERVER cells_srv OPTIONS (table 'data', layout 'cells');
CREATE TABLE oracle (rowkey text COLLATE "C", family text COLLATE "C",
  qualifier text COLLATE "C", ts timestamptz, value text);
INSERT INTO oracle
  SELECT 'row' || r, fam, q, timestamptz '2021-03-05 12:00+00' + v * interval '1 minute',
         format('%s/%s/%s/%s', r, fam, q, v)
  FROM generate_series(1, 5) r, unnest(ARRAY['a', 'b']) fam,
       unnest(ARRAY['q1', 'q2', 'q10', 'Q', 'q 3']) q, generate_series(1, 4) v;
INSERT INTO cells SELECT * FROM oracle;
SELECT count(*) FROM cells;
-- one cell: its versions newest first
SELECT * FROM cells WHERE rowkey = 'row1' AND family = 'a' AND qualifier = 'q1';
-- every version, in the order of ORDER BY rowkey, family, qualifier, ts DESC
CREATE FUNCTION same(cond text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
  wrong bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM oracle WHERE %s', cond) INTO n;
  EXECUTE format($q$
    WITH s AS (SELECT row_number() OVER () AS n, * FROM (SELECT * FROM cells WHERE %1$s) x),
         o AS (SELECT row_number() OVER (ORDER BY rowkey, family, qualifier, ts DESC) AS n, *
               FROM oracle WHERE %1$s)
    SELECT count(*) FROM s FULL JOIN o USING (n)
    WHERE (s.rowkey, s.family, s.qualifier, s.ts, s.value) IS DISTINCT FROM
          (o.rowkey, o.family, o.qualifier, o.ts, o.value)$q$, cond) INTO wrong;
  RETURN format('%s rows, %s differ', n, wrong);
END
$$;
-- what the plan pushes to the worker
CREATE FUNCTION pushed(cond text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) SELECT * FROM cells WHERE ' || cond LOOP
    IF l LIKE '%Pushed%' THEN
      RETURN NEXT trim(l);
    END IF;
  END LOOP;
END
$$;
-- the versions the worker returned (EXPLAIN ANALYZE)
CREATE FUNCTION read_versions(cond text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM cells WHERE ' || cond LOOP
    IF l LIKE '%Storage Versions Read:%' THEN
      RETURN substring(l FROM ':\s*(\d+)')::bigint;
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;
SELECT same('true');

-- ---------------------------------------------------------------------
-- Pushdown: each condition shown in EXPLAIN, the same answer as the native
-- table (which pushes nothing), and the worker returns only the matching
-- versions (but for a LIKE pattern that is not a plain prefix, and what is
-- not pushed)
CREATE TEMP TABLE conds (n serial, cond text);
INSERT INTO conds (cond) VALUES
  ($$rowkey = 'row2'$$),
  ($$rowkey >= 'row2' AND rowkey < 'row4'$$),
  ($$rowkey LIKE 'row%'$$),
  ($$family = 'b'$$),
  ($$family IN ('b', 'zz', 'no such family!')$$),
  ($$family = 'no such family!'$$),
  ($$qualifier = 'q2'$$),
  ($$qualifier IN ('q2', 'Q', 'q 3', 'none')$$),
  ($$qualifier > 'q1' AND qualifier <= 'q2'$$),
  ($$qualifier >= 'q1' AND qualifier < 'q10'$$),
  ($$qualifier < 'q'$$),
  ($$qualifier LIKE 'q1%'$$),
  ($$qualifier LIKE 'q_'$$),
  ($$ts >= '2021-03-05 12:03+00'$$),
  ($$ts > '2021-03-05 12:01+00' AND ts < '2021-03-05 12:03+00'$$),
  ($$ts = '2021-03-05 12:02+00'$$),
  ($$ts <= '2021-03-05 12:01+00'$$),
  ($$ts > 'infinity'$$),
  ($$rowkey = 'row3' AND family = 'a' AND qualifier = 'q2' AND ts <= '2021-03-05 12:02+00'$$),
  ($$family IN ('a', 'b') AND qualifier IN ('q1', 'q10') AND ts BETWEEN '2021-03-05 12:02+00' AND '2021-03-05 12:03+00'$$),
  ($$rowkey > 'row4' AND qualifier > 'q'$$),
  ($$value LIKE '%/4'$$);
SELECT n, cond, same(cond), read_versions(cond) AS read FROM conds ORDER BY n;
SELECT n, pushed(cond) FROM conds ORDER BY n;

-- ---------------------------------------------------------------------
-- ORDER BY rowkey, family, qualifier, ts DESC needs no Sort
EXPLAIN (COSTS OFF) SELECT * FROM cells ORDER BY rowkey, family, qualifier, ts DESC;
EXPLAIN (COSTS OFF) SELECT * FROM cells WHERE rowkey = 'row1' AND family = 'a'
  ORDER BY qualifier, ts DESC LIMIT 3;
SELECT * FROM cells WHERE rowkey = 'row1' AND family = 'a' ORDER BY qualifier, ts DESC LIMIT 3;
-- the other direction does
EXPLAIN (COSTS OFF) SELECT * FROM cells ORDER BY rowkey, family, qualifier, ts;

-- ---------------------------------------------------------------------
-- INSERT: a version at the given ts; NULL: at the commit's time
INSERT INTO cells VALUES ('w', 'a', 'x', '2020-01-01 00:00+00', 'explicit'),
                         ('w', 'a', 'x', NULL, 'commit time');
SELECT value, ts = '2020-01-01 00:00+00' AS at_given, ts > now() - interval '1 hour' AS recent
  FROM cells WHERE rowkey = 'w';
-- inserting an existing version rewrites it
INSERT INTO cells VALUES ('w', 'a', 'x', '2020-01-01 00:00+00', 'rewritten');
SELECT value FROM cells WHERE rowkey = 'w' AND ts < '2021-01-01';
-- bad versions: nothing written
INSERT INTO cells VALUES ('w', 'a', 'y', NULL, NULL);
INSERT INTO cells VALUES ('w', NULL, 'y', NULL, 'v');
INSERT INTO cells VALUES (NULL, 'a', 'y', NULL, 'v');
-- the empty row key, which Bigtable refuses, at the commit's time or its own
INSERT INTO cells VALUES ('', 'a', 'y', NULL, 'v');
INSERT INTO cells VALUES ('', 'a', 'y', '2020-01-01 00:00+00', 'v');
INSERT INTO cells VALUES ('w', 'a', NULL, NULL, 'v');
INSERT INTO cells VALUES ('w', 'a:b', 'y', NULL, 'v');
INSERT INTO cells VALUES ('w', 'a', 'y', '1969-12-31 23:59:59+00', 'v');
INSERT INTO cells VALUES ('w', 'a', 'y', 'infinity', 'v');
INSERT INTO cells VALUES ('w', 'a', 'y', NULL, 'ok'), ('w', 'a', 'z', '-infinity', 'v');
INSERT INTO cells VALUES ('w', 'a', 'y', NULL, 'v') ON CONFLICT DO NOTHING;
SELECT qualifier, value FROM cells WHERE rowkey = 'w';
-- COPY writes versions as INSERT does
COPY cells FROM stdin;
w	b	copied	2020-06-01 00:00:00+00	copy 1
w	b	copied	2020-06-02 00:00:00+00	copy 2
\.
SELECT qualifier, ts, value FROM cells WHERE rowkey = 'w' AND family = 'b';
DELETE FROM cells WHERE rowkey = 'w' RETURNING family, qualifier, value;
SELECT count(*) FROM cells WHERE rowkey = 'w';

-- ---------------------------------------------------------------------
-- DELETE removes exactly the versions it names; UPDATE rewrites a value
DELETE FROM cells WHERE rowkey = 'row1' AND family = 'a' AND qualifier = 'q1'
  AND ts BETWEEN '2021-03-05 12:02+00' AND '2021-03-05 12:03+00';
DELETE FROM oracle WHERE rowkey = 'row1' AND family = 'a' AND qualifier = 'q1'
  AND ts BETWEEN '2021-03-05 12:02+00' AND '2021-03-05 12:03+00';
SELECT * FROM cells WHERE rowkey = 'row1' AND family = 'a' AND qualifier = 'q1';
DELETE FROM cells WHERE ts = '2021-03-05 12:04+00' AND qualifier = 'Q';
DELETE FROM oracle WHERE ts = '2021-03-05 12:04+00' AND qualifier = 'Q';
UPDATE cells SET value = value || ' updated' WHERE rowkey = 'row2' AND ts >= '2021-03-05 12:03+00';
UPDATE oracle SET value = value || ' updated' WHERE rowkey = 'row2' AND ts >= '2021-03-05 12:03+00';
SELECT same('true');
SELECT * FROM cells WHERE rowkey = 'row2' AND family = 'b' AND qualifier = 'q2';
-- only value can change
UPDATE cells SET ts = now() WHERE rowkey = 'row2' AND family = 'b' AND qualifier = 'q2';
UPDATE cells SET qualifier = 'other' WHERE rowkey = 'row2' AND family = 'b' AND qualifier = 'q2';
UPDATE cells SET value = NULL WHERE rowkey = 'row2' AND family = 'b' AND qualifier = 'q2';
SELECT same('true');

-- ---------------------------------------------------------------------
-- Transactions: ROLLBACK and ROLLBACK TO SAVEPOINT undo the writes
BEGIN;
INSERT INTO cells VALUES ('t', 'a', 'x', '2021-01-01 00:00+00', 'rolled back');
ROLLBACK;
BEGIN;
INSERT INTO cells VALUES ('t', 'a', 'x', '2021-01-01 00:00+00', 'kept');
SAVEPOINT s1;
INSERT INTO cells VALUES ('t', 'a', 'y', '2021-01-01 00:00+00', 'undone');
SAVEPOINT s2;
INSERT INTO cells VALUES ('t', 'a', 'z', '2021-01-01 00:00+00', 'undone too');
RELEASE s2;
ROLLBACK TO s1;
INSERT INTO cells VALUES ('t', 'b', 'x', '2021-01-01 00:00+00', 'kept too');
COMMIT;
SELECT family, qualifier, value FROM cells WHERE rowkey = 't';
-- the transaction's own writes are read as they will be committed, a
-- version the commit stamps with a NULL ts until then: against the native
-- table doing the same
BEGIN;
INSERT INTO cells VALUES ('t', 'a', 'x', '2021-01-02 00:00+00', 'own explicit'),
                         ('t', 'a', 'x', NULL, 'own commit time');
INSERT INTO oracle VALUES ('t', 'a', 'x', '2021-01-02 00:00+00', 'own explicit'),
                          ('t', 'a', 'x', NULL, 'own commit time'),
                          ('t', 'a', 'x', '2021-01-01 00:00+00', 'kept'),
                          ('t', 'b', 'x', '2021-01-01 00:00+00', 'kept too');
SELECT family, qualifier, ts, value FROM cells WHERE rowkey = 't';
DELETE FROM cells WHERE rowkey = 't' AND family = 'b';
DELETE FROM oracle WHERE rowkey = 't' AND family = 'b';
UPDATE cells SET value = value || ' +' WHERE rowkey = 't' AND qualifier = 'x';
UPDATE oracle SET value = value || ' +' WHERE rowkey = 't' AND qualifier = 'x';
SELECT family, qualifier, ts, value FROM cells WHERE rowkey = 't';
SELECT same('true');
-- the version the commit would write is removed
DELETE FROM cells WHERE rowkey = 't' AND ts IS NULL;
DELETE FROM oracle WHERE rowkey = 't' AND ts IS NULL;
SELECT same($$rowkey = 't'$$);
SAVEPOINT s;
INSERT INTO cells VALUES ('t', 'a', 'y', NULL, 'undone');
SELECT qualifier, value FROM cells WHERE rowkey = 't' AND qualifier = 'y';
ROLLBACK TO s;
SELECT qualifier, value FROM cells WHERE rowkey = 't' AND qualifier = 'y';
COMMIT;
SELECT family, qualifier, ts, value FROM cells WHERE rowkey = 't';
SELECT same('true');
DELETE FROM cells WHERE rowkey = 't';
DELETE FROM oracle WHERE rowkey = 't';
-- a version written at the commit's time and rewritten: the later value
BEGIN;
INSERT INTO cells VALUES ('t', 'a', 'z', NULL, 'first');
UPDATE cells SET value = 'second' WHERE rowkey = 't' AND ts IS NULL;
SELECT qualifier, ts IS NULL AS pending, value FROM cells WHERE rowkey = 't';
COMMIT;
SELECT qualifier, ts > now() - interval '1 hour' AS recent, value FROM cells WHERE rowkey = 't';
DELETE FROM cells WHERE rowkey = 't';
CREATE FOREIGN TABLE mapped (
    rowkey text COLLATE "C",
    q1 text OPTIONS (column 'a:q1'),
    q2 text OPTIONS (column 'a:q2'),
    bq1 text OPTIONS (column 'b:q1')
) SERVER cells_srv OPTIONS (table 'data');
-- a mapped table's writes are read too: a cell, a cell tombstone, a row tombstone
BEGIN;
UPDATE mapped SET q1 = 'mapped, own', q2 = NULL WHERE rowkey = 'row2';
DELETE FROM mapped WHERE rowkey = 'row3';
SELECT qualifier, ts IS NULL AS pending, value FROM cells
  WHERE rowkey = 'row2' AND family = 'a' AND qualifier IN ('q1', 'q2');
SELECT count(*) FROM cells WHERE rowkey = 'row3';
ROLLBACK;
SELECT count(*) FROM cells WHERE rowkey IN ('row2', 'row3');
-- but a mapped table does not show the writes of a cells-layout table
BEGIN;
INSERT INTO cells VALUES ('t', 'a', 'q1', NULL, 'x');
SELECT * FROM mapped WHERE rowkey = 't';
ROLLBACK;
-- a cells table and a mapped one written in one transaction commit together
BEGIN;
INSERT INTO mapped VALUES ('t2', 'mapped');
INSERT INTO cells VALUES ('t2', 'b', 'q1', '2021-01-01 00:00+00', 'cells');
COMMIT;
SELECT * FROM mapped WHERE rowkey = 't2';
SELECT family, qualifier, value FROM cells WHERE rowkey = 't2';
DELETE FROM mapped WHERE rowkey IN ('t', 't2');

-- ---------------------------------------------------------------------
-- A mapped table over the same stored table reads each cell's newest version
SELECT count(*) AS disagree FROM mapped m FULL JOIN (
    SELECT rowkey,
           (array_agg(value) FILTER (WHERE family = 'a' AND qualifier = 'q1'))[1] AS q1,
           (array_agg(value) FILTER (WHERE family = 'a' AND qualifier = 'q2'))[1] AS q2,
           (array_agg(value) FILTER (WHERE family = 'b' AND qualifier = 'q1'))[1] AS bq1
    FROM cells GROUP BY rowkey) c USING (rowkey)
  WHERE (m.q1, m.q2, m.bq1) IS DISTINCT FROM (c.q1, c.q2, c.bq1);
SELECT * FROM mapped WHERE rowkey = 'row1';
-- a cell tombstone (a mapped UPDATE to NULL) hides the cell's older versions,
-- a row tombstone (a mapped DELETE) the row's; tombstones are not rows
UPDATE mapped SET q2 = NULL WHERE rowkey = 'row4';
SELECT family, qualifier, count(*) FROM cells WHERE rowkey = 'row4' GROUP BY 1, 2 ORDER BY 1, 2;
-- (in one transaction, so that nothing can reclaim the tombstone in between)
BEGIN;
DELETE FROM mapped WHERE rowkey = 'row5';
-- a version older than the row tombstone stays hidden, a newer one shows
INSERT INTO cells VALUES ('row5', 'a', 'q1', '2021-03-05 12:10+00', 'before the delete'),
                         ('row5', 'a', 'q1', now() + interval '1 day', 'after the delete');
-- ... and so before the COMMIT, read with the transaction's own writes
SELECT value FROM cells WHERE rowkey = 'row5';
COMMIT;
SELECT value FROM cells WHERE rowkey = 'row5';
SELECT q1 FROM mapped WHERE rowkey = 'row5';
DELETE FROM cells WHERE rowkey = 'row5';

-- ---------------------------------------------------------------------
-- Garbage-collection policies, applied to every version returned
CREATE FOREIGN TABLE gc (
    rowkey text COLLATE "C",
    family text COLLATE "C",
    qualifier text COLLATE "C",
    ts timestamptz,
    value text
) SERVER cells_srv OPTIONS (table 'gc', layout 'cells');
SELECT widecolumn.create_family('cells_srv', 'gc', 'v2', 'maxversions=2');
SELECT widecolumn.create_family('cells_srv', 'gc', 'age', 'maxage=1d');
SELECT widecolumn.create_family('cells_srv', 'gc', 'age_or_v2', 'maxage=1d or maxversions=2');
SELECT widecolumn.create_family('cells_srv', 'gc', 'age_and_v2', 'maxage=1d and maxversions=2');
SELECT widecolumn.create_family('cells_srv', 'gc', 'keep', 'never');
-- in each family: versions 1 minute, 2 minutes, 3 minutes, 2 days and 3 days old
CREATE TEMP TABLE ages (label text, age interval);
INSERT INTO ages VALUES ('1m', '1 minute'), ('2m', '2 minutes'), ('3m', '3 minutes'),
                        ('2d', '2 days'), ('3d', '3 days');
CREATE TEMP TABLE t0 AS SELECT now() AS t0;
INSERT INTO gc SELECT 'r', f, 'c', (SELECT t0 FROM t0) - age, label
  FROM unnest(ARRAY['v2', 'age', 'age_or_v2', 'age_and_v2', 'keep']) f, ages;
-- and a cell whose two versions are both older than a day
INSERT INTO gc SELECT 'r', f, 'old', (SELECT t0 FROM t0) - age, label
  FROM unnest(ARRAY['v2', 'age', 'age_or_v2', 'age_and_v2', 'keep']) f, ages WHERE age > '1 day';
-- version by version: which ones each policy keeps
SELECT family, qualifier, string_agg(value, ' ' ORDER BY ts DESC) AS kept
  FROM gc GROUP BY 1, 2 ORDER BY 1, 2;
-- pushed filters do not change what counts as a version's position
SELECT family, string_agg(value, ' ' ORDER BY ts DESC) AS kept
  FROM gc WHERE qualifier = 'c' AND ts < (SELECT t0 FROM t0) - interval '90 seconds'
  GROUP BY 1 ORDER BY 1;
-- a mapped table reads the newest version the policy keeps
CREATE FOREIGN TABLE gc_mapped (
    rowkey text,
    v2 text OPTIONS (column 'v2:old'),
    age text OPTIONS (column 'age:old'),
    age_or_v2 text OPTIONS (column 'age_or_v2:old'),
    age_and_v2 text OPTIONS (column 'age_and_v2:old')
) SERVER cells_srv OPTIONS (table 'gc');
SELECT * FROM gc_mapped;
-- the transaction's own versions count for the policy as they will once committed
BEGIN;
INSERT INTO gc VALUES ('r', 'v2', 'c', NULL, 'own'), ('r', 'age', 'c', (SELECT t0 FROM t0) - interval '5 days', 'own, old');
SELECT family, string_agg(value, ' ' ORDER BY ts DESC NULLS FIRST) AS kept
  FROM gc WHERE family IN ('v2', 'age') AND qualifier = 'c' GROUP BY 1 ORDER BY 1;
ROLLBACK;
-- a stricter policy applies at once
SELECT widecolumn.set_gc_policy('cells_srv', 'gc', 'keep', 'maxversions=1');
SELECT family, qualifier, string_agg(value, ' ' ORDER BY ts DESC) AS kept
  FROM gc WHERE family = 'keep' GROUP BY 1, 2 ORDER BY 1, 2;

-- ---------------------------------------------------------------------
-- widecolumn.as_of: the versions at or before it, among those the policy keeps
SET widecolumn.as_of = '2021-03-05 12:02:30+00';
SELECT * FROM cells WHERE rowkey = 'row3' AND family = 'a' AND qualifier = 'q1';
EXPLAIN (COSTS OFF) SELECT * FROM cells WHERE rowkey = 'row3';
-- in the gc table: the two oldest versions only; those of v2 are gone
SET widecolumn.as_of = '1970-01-01 00:00:00+00';
SELECT count(*) FROM gc;
SELECT set_config('widecolumn.as_of', ((SELECT t0 FROM t0) - interval '1 day')::text, false) IS NOT NULL;
SELECT family, qualifier, string_agg(value, ' ' ORDER BY ts DESC) AS kept
  FROM gc GROUP BY 1, 2 ORDER BY 1, 2;
-- writing while it is set is an error
SET widecolumn.as_of = '2021-03-05 12:02:30+00';
INSERT INTO cells VALUES ('row3', 'a', 'q1', NULL, 'x');
RESET widecolumn.as_of;
-- a generic plan reads as of the setting when it runs
SET plan_cache_mode = force_generic_plan;
PREPARE versions(text, text, text) AS
  SELECT ts, value FROM cells WHERE rowkey = $1 AND family = $2 AND qualifier = $3;
EXPLAIN (COSTS OFF) EXECUTE versions('row3', 'a', 'q1');
EXECUTE versions('row3', 'a', 'q1');
SET widecolumn.as_of = '2021-03-05 12:03:00+00';
EXECUTE versions('row3', 'a', 'q1');
SET widecolumn.as_of = '2021-03-05 12:01:00+00';
EXECUTE versions('row3', 'a', 'q1');
RESET widecolumn.as_of;
RESET plan_cache_mode;
-- a cursor reads as of the setting when it was opened
BEGIN;
SET LOCAL widecolumn.as_of = '2021-03-05 12:02:00+00';
DECLARE cur CURSOR FOR SELECT qualifier, ts, value FROM cells
  WHERE rowkey = 'row3' AND family = 'a' AND qualifier IN ('q1', 'q2');
FETCH 1 FROM cur;
SET LOCAL widecolumn.as_of = '';
FETCH ALL FROM cur;
COMMIT;

-- ---------------------------------------------------------------------
-- Seed 001, time buckets with new cells: a row per balloon and week, the
-- family measurements keeping a week of versions (maxage=7d), a new
-- version of each measurement every minute
SELECT widecolumn.create_family('cells_srv', 'weather', 'measurements', 'maxage=7d');
CREATE FOREIGN TABLE weather_cells (
    rowkey text COLLATE "C",
    family text COLLATE "C",
    qualifier text COLLATE "C",
    ts timestamptz,
    value text
) SERVER cells_srv OPTIONS (table 'weather', layout 'cells');
CREATE FOREIGN TABLE weather (
    rowkey text COLLATE "C",
    pressure text OPTIONS (column 'measurements:pressure'),
    temperature text OPTIONS (column 'measurements:temperature')
) SERVER cells_srv OPTIONS (table 'weather');
-- the readings of minutes 1200 to 1202 (their times relative to now, so that
-- maxage applies), and one of eight days ago that the policy drops
CREATE TEMP TABLE readings (balloon text, minute int, age interval, pressure bigint, temp float8);
INSERT INTO readings VALUES
  ('asia-south2#3698', 1200, '3 minutes', 94558, 9.5),
  ('asia-south2#3698', 1201, '2 minutes', 94122, 9.4),
  ('asia-south2#3698', 1202, '1 minute', 95992, 9.2),
  ('us-west2#3698', 1200, '3 minutes', 93200, 12.1),
  ('us-west2#3698', 1201, '2 minutes', 93300, 12.3),
  ('us-west2#3698', 1139, '8 days', 90000, 1.0);
-- each reading writes a version of each measurement: through the mapped
-- table it would be stamped now; through the cells table, at its minute
INSERT INTO weather_cells
  SELECT balloon || '#week1', 'measurements', m, (SELECT t0 FROM t0) - age,
         CASE m WHEN 'pressure' THEN pressure::text ELSE temp::text END
  FROM readings, unnest(ARRAY['pressure', 'temperature']) m;
-- a week of one balloon's pressure, newest first; the eight-day-old one is gone
SELECT rowkey, qualifier, value FROM weather_cells
  WHERE rowkey LIKE '%#week1' AND qualifier = 'pressure' ORDER BY rowkey, family, qualifier, ts DESC;
-- the change in pressure from minute to minute
SELECT rowkey, value::bigint - lead(value::bigint) OVER (PARTITION BY rowkey ORDER BY ts DESC) AS change
  FROM weather_cells WHERE qualifier = 'pressure' ORDER BY rowkey, ts DESC;
-- the mapped table shows the latest reading
SELECT * FROM weather ORDER BY rowkey;
-- a new reading through the mapped table is one more version
INSERT INTO weather VALUES ('us-west2#3698#week1', '93400', '12.2');
SELECT value FROM weather_cells WHERE rowkey = 'us-west2#3698#week1' AND qualifier = 'pressure';
-- a value that does not decode names its own cell
CREATE FOREIGN TABLE weather_bigint (rowkey text, family text, qualifier text, ts timestamptz,
  value bigint) SERVER cells_srv OPTIONS (table 'weather', layout 'cells');
SELECT * FROM weather_bigint;

-- ---------------------------------------------------------------------
-- bytea row keys and qualifiers: any bytes, zero bytes too, in byte order
CREATE FOREIGN TABLE raw (rowkey bytea, family text, qualifier bytea, ts timestamptz,
  value bytea) SERVER cells_srv OPTIONS (table 'raw', layout 'cells');
INSERT INTO raw VALUES ('\x00', 'f', '\x0001', '2021-01-01 00:00+00', '\x00'),
  ('\x0000', 'f', '\x00', '2021-01-01 00:00+00', '\x01'),
  ('\x00', 'f', '\xff', '2021-01-01 00:00+00', '\x02'),
  ('\x00', 'f', '\x00', '2021-01-01 00:00+00', '\x03'),
  ('\x00', 'f', '', '2021-01-01 00:00+00', '\x04');
SELECT rowkey, qualifier, value FROM raw;
SELECT rowkey, qualifier, value FROM raw WHERE qualifier = '\x00';
SELECT rowkey, qualifier, value FROM raw WHERE qualifier LIKE '\x0025'::bytea;
SELECT rowkey, qualifier, value FROM raw WHERE qualifier > '\x00' AND qualifier < '\xff';

-- ---------------------------------------------------------------------
-- A family that a cells table writes to and nobody created is created at
-- COMMIT with maxversions=1, as for a mapped table: two versions written,
-- one kept.  Create the family first to keep history.
CREATE FOREIGN TABLE fresh (rowkey text COLLATE "C", family text COLLATE "C",
  qualifier text COLLATE "C", ts timestamptz, value text)
  SERVER cells_srv OPTIONS (table 'fresh', layout 'cells');
INSERT INTO fresh VALUES ('r', 'new', 'q', '2021-01-01 00:00+00', 'old'),
  ('r', 'new', 'q', '2021-01-02 00:00+00', 'newer');
SELECT * FROM widecolumn.families('cells_srv') WHERE table_name = 'fresh';
SELECT * FROM fresh;
SELECT widecolumn.set_gc_policy('cells_srv', 'fresh', 'new', 'never');
SELECT * FROM fresh;
