-- Joins that reach the row key: a nested loop whose inner foreign scan reads,
-- per outer row, only the keys that row selects (equality on the key or on
-- its leading parts, a prefix, a range), when that is cheaper than a plain
-- scan; and IN or ranges on the parts after equal ones as ordered key
-- ranges.  Native twin tables are the oracle.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER kj_srv FOREIGN DATA WRAPPER widecolumn_fdw;
SET timezone = 'UTC';

-- a text row key: 200 devices x 100 readings, and keys with LIKE's wildcards
CREATE FOREIGN TABLE kj (k text OPTIONS (rowkey 'true') COLLATE "C", v int) SERVER kj_srv;
CREATE TABLE kj_n (k text COLLATE "C" PRIMARY KEY, v int);
INSERT INTO kj_n SELECT 'dev#' || lpad(d::text, 4, '0') || '#' || lpad(r::text, 2, '0'), d * 100 + r
  FROM generate_series(1, 200) d, generate_series(0, 99) r;
INSERT INTO kj_n VALUES ('a%b', 1), ('a_b', 2), ('a%', 3), ('a\b', 4), ('ab', 5), ('axb', 6);
INSERT INTO kj SELECT * FROM kj_n;
-- an integer leading part (as tenk1's unique1), then another
CREATE FOREIGN TABLE kji (id int OPTIONS (rowkey_part '1'), seq int OPTIONS (rowkey_part '2'), v int)
  SERVER kj_srv OPTIONS (table 'kji', rowkey_delimiter '#');
CREATE TABLE kji_n (id int, seq int, v int, PRIMARY KEY (id, seq));
INSERT INTO kji_n SELECT i, s, i * 10 + s FROM generate_series(1, 2000) i, generate_series(1, 10) s;
INSERT INTO kji SELECT * FROM kji_n;
-- a text leading part, as seed 001's balloons: location#balloon#minute
CREATE FOREIGN TABLE kjt (
    location text OPTIONS (rowkey_part '1') COLLATE "C",
    balloon  int  OPTIONS (rowkey_part '2', rowkey_format '4'),
    ts       timestamp OPTIONS (rowkey_part '3', rowkey_format 'YYYY-MM-DD-HH24MI'),
    pressure bigint
) SERVER kj_srv OPTIONS (table 'kjt', rowkey_delimiter '#');
CREATE TABLE kjt_n (location text COLLATE "C", balloon int, ts timestamp, pressure bigint,
  PRIMARY KEY (location, balloon, ts));
INSERT INTO kjt_n SELECT l, b, timestamp '2021-03-05 11:00' + m * interval '1 minute', b * 1000 + m
  FROM unnest(ARRAY['asia-south2', 'us-east1', 'us-west2', 'x']) l,
       generate_series(3690, 3739) b, generate_series(0, 99) m;
INSERT INTO kjt SELECT * FROM kjt_n;

-- the outer side: 10 rows, NULLs among them
CREATE TABLE kj_o (
    id int, k text COLLATE "C", p text COLLATE "C", lo text COLLATE "C", hi text COLLATE "C",
    loc text COLLATE "C", b int, blo int, bhi int, tlo timestamp, thi timestamp);
INSERT INTO kj_o VALUES
  (1, 'dev#0001#01', 'dev#0001#', 'dev#0003#98', 'dev#0004#02', 'us-west2', 3698, 3700, 3703, '2021-03-05 12:00', '2021-03-05 12:03'),
  (2, 'dev#0200#99', 'dev#00_1#1', 'dev#0199#99', 'dev#02', 'x', 3690, 3690, 3691, '2021-03-05 11:00', '2021-03-05 11:01:30'),
  (3, 'ab', 'a%', 'a', 'b', 'asia-south2', 3739, 3738, 3800, '2021-03-05 12:39', '2021-03-05 13:00'),
  (4, 'missing', 'a\', 'dev#0100#', 'dev#0100#05', 'us-east1', 3700, 0, 3691, '2021-03-05 12:38:30', '2021-03-05 12:39:30'),
  (5, 'a%b', 'a_', 'dev#0150#50', 'dev#0150#50', 'nowhere', 3700, 3700, 3700, '2021-03-05 12:00', '2021-03-05 12:00'),
  (6, NULL, NULL, NULL, 'dev#0001#05', NULL, NULL, NULL, 3695, NULL, '2021-03-05 11:05'),
  (7, 'dev#0042#42', 'dev#0042#4', 'dev#0042#41', NULL, 'us-west2', NULL, 3695, NULL, '2021-03-05 12:00', NULL),
  (8, 'a_b', '', 'z', 'a', 'us-west2', 12345, 3739, 3690, '2021-03-05 12:00', '2021-03-05 11:00'),
  (1999, 'dev#0007#07', 'dev#0007#0', 'dev#0007#07', 'dev#0007#08', 'us-east1', 3711, 3711, 3712, '2021-03-05 11:30', '2021-03-05 11:32'),
  (2000, NULL, 'dev#0009#', NULL, NULL, 'x', 3739, NULL, NULL, NULL, NULL);
ANALYZE kj, kj_n, kji, kji_n, kjt, kjt_n, kj_o;

-- Compare a query with the same query on the native twins (the foreign
-- table is always "f"): prints nothing when they agree and find rows.
CREATE FUNCTION kj_check(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE a text; b text;
BEGIN
  EXECUTE format('SELECT string_agg(x::text, '','' ORDER BY x::text) FROM (%s) x', q) INTO a;
  EXECUTE format('SELECT string_agg(x::text, '','' ORDER BY x::text) FROM (%s) x',
                 regexp_replace(q, '\m(kj|kji|kjt|kjd) f\M', '\1_n f', 'g')) INTO b;
  IF a IS DISTINCT FROM b THEN
    RETURN NEXT 'MISMATCH: ' || q || ' foreign=' || coalesce(a, '<none>') || ' native=' || coalesce(b, '<none>');
  END IF;
  IF a IS NULL THEN
    RETURN NEXT 'EMPTY: ' || q;
  END IF;
END $$;

-- equality on a whole text key (as before), and its result
EXPLAIN (COSTS OFF) SELECT o.id, f.v FROM kj_o o JOIN kj f ON f.k = o.k;
SELECT o.id, f.k, f.v FROM kj_o o JOIN kj f ON f.k = o.k ORDER BY o.id;

-- a prefix from the outer row: its wildcards and escapes keep their
-- meaning ('dev#00_1#1', 'a%', 'a_', 'a\' and '' are no plain prefixes)
EXPLAIN (COSTS OFF) SELECT o.id, f.k FROM kj_o o JOIN kj f ON f.k LIKE o.p || '%';
SELECT o.id, o.p, count(*), min(f.k), max(f.k) FROM kj_o o JOIN kj f ON f.k LIKE o.p || '%'
  GROUP BY o.id, o.p ORDER BY o.id;
-- as a LEFT JOIN: a NULL pattern finds nothing, and the row stays
EXPLAIN (COSTS OFF) SELECT o.id, f.k FROM kj_o o LEFT JOIN kj f ON f.k LIKE o.p || '%' WHERE o.id > 4;
SELECT o.id, count(f.k) FROM kj_o o LEFT JOIN kj f ON f.k LIKE o.p || '%' WHERE o.id > 4
  GROUP BY o.id ORDER BY o.id;

-- a range from the outer row, in a join and in a LATERAL subquery
EXPLAIN (COSTS OFF) SELECT o.id, f.k FROM kj_o o JOIN kj f ON f.k >= o.lo AND f.k < o.hi;
EXPLAIN (COSTS OFF) SELECT o.id, s.k FROM kj_o o, LATERAL (SELECT f.k FROM kj f WHERE f.k > o.lo AND f.k <= o.hi) s;
-- a LATERAL subquery with its own LIMIT is planned apart: a parameter
EXPLAIN (COSTS OFF) SELECT o.id, s.k FROM kj_o o, LATERAL (SELECT f.k FROM kj f WHERE f.k >= o.lo ORDER BY f.k LIMIT 2) s;

-- equality on an integer leading part, with and without the next part
EXPLAIN (COSTS OFF) SELECT o.id, f.seq, f.v FROM kj_o o JOIN kji f ON f.id = o.id;
EXPLAIN (COSTS OFF) SELECT o.id, f.v FROM kj_o o JOIN kji f ON f.id = o.id AND f.seq = o.b - 3690;
EXPLAIN (COSTS OFF) SELECT o.id, f.v FROM kj_o o JOIN kji f ON f.id = o.id AND f.seq > 7;
SELECT o.id, count(*), sum(f.v) FROM kj_o o JOIN kji f ON f.id = o.id GROUP BY o.id ORDER BY o.id;

-- a text leading part, then a range on the next part, and on the one after
EXPLAIN (COSTS OFF) SELECT o.id, f.pressure FROM kj_o o JOIN kjt f ON f.location = o.loc AND f.balloon = o.b;
EXPLAIN (COSTS OFF) SELECT o.id, f.pressure FROM kj_o o JOIN kjt f
  ON f.location = o.loc AND f.balloon >= o.blo AND f.balloon < o.bhi;
EXPLAIN (COSTS OFF) SELECT o.id, f.pressure FROM kj_o o JOIN kjt f
  ON f.location = o.loc AND f.balloon = o.b AND f.ts >= o.tlo AND f.ts < o.thi;
EXPLAIN (COSTS OFF) SELECT o.id, s.pressure FROM kj_o o,
  LATERAL (SELECT f.pressure FROM kjt f WHERE f.location = 'us-west2' AND f.balloon = 3698 AND f.ts >= o.tlo AND f.ts < o.thi) s;

-- each join's rows equal the native join's
SELECT kj_check(q) FROM unnest(ARRAY[
  $q$SELECT o.id, f.k, f.v FROM kj_o o JOIN kj f ON f.k = o.k$q$,
  $q$SELECT o.id, f.k FROM kj_o o JOIN kj f ON f.k LIKE o.p || '%'$q$,
  $q$SELECT o.id, f.k FROM kj_o o LEFT JOIN kj f ON f.k LIKE o.p || '%' WHERE o.id > 4$q$,
  $q$SELECT o.id, f.k FROM kj_o o JOIN kj f ON f.k >= o.lo AND f.k < o.hi$q$,
  $q$SELECT o.id, s.k FROM kj_o o, LATERAL (SELECT f.k FROM kj f WHERE f.k > o.lo AND f.k <= o.hi) s$q$,
  $q$SELECT o.id, s.k FROM kj_o o, LATERAL (SELECT f.k FROM kj f WHERE f.k >= o.lo ORDER BY f.k LIMIT 2) s$q$,
  $q$SELECT o.id, f.seq, f.v FROM kj_o o JOIN kji f ON f.id = o.id$q$,
  $q$SELECT o.id, f.v FROM kj_o o JOIN kji f ON f.id = o.id AND f.seq = o.b - 3690$q$,
  $q$SELECT o.id, f.v FROM kj_o o JOIN kji f ON f.id = o.id AND f.seq > 7$q$,
  $q$SELECT o.id, f.pressure FROM kj_o o JOIN kjt f ON f.location = o.loc AND f.balloon = o.b$q$,
  $q$SELECT o.id, f.pressure FROM kj_o o JOIN kjt f ON f.location = o.loc AND f.balloon >= o.blo AND f.balloon < o.bhi$q$,
  $q$SELECT o.id, f.pressure FROM kj_o o JOIN kjt f ON f.location = o.loc AND f.balloon = o.b AND f.ts >= o.tlo AND f.ts < o.thi$q$,
  $q$SELECT o.id, s.pressure FROM kj_o o, LATERAL (SELECT f.pressure FROM kjt f WHERE f.location = 'us-west2' AND f.balloon = 3698 AND f.ts >= o.tlo AND f.ts < o.thi) s$q$
]) q;

-- a prepared join: after five executions, a generic plan with the same probe
PREPARE kjq(int) AS SELECT
  (SELECT array_agg(f.v ORDER BY f.v) FROM kj_o o JOIN kji f ON f.id = o.id AND f.seq <= o.id % 10 WHERE o.id >= $1) IS NOT DISTINCT FROM
  (SELECT array_agg(f.v ORDER BY f.v) FROM kj_o o JOIN kji_n f ON f.id = o.id AND f.seq <= o.id % 10 WHERE o.id >= $1) AS same,
  (SELECT count(*) FROM kj_o o JOIN kji f ON f.id = o.id AND f.seq <= o.id % 10 WHERE o.id >= $1) AS n;
EXECUTE kjq(1);
EXECUTE kjq(2);
EXECUTE kjq(3);
EXECUTE kjq(5);
EXECUTE kjq(8);
EXECUTE kjq(1999);
EXECUTE kjq(2000);
EXPLAIN (COSTS OFF) EXECUTE kjq(4);
EXECUTE kjq(4);
DEALLOCATE kjq;

-- many outer rows against a small table: one plain scan and a hash join
CREATE TABLE kj_big AS SELECT i AS id, 'dev#' || lpad((i % 250)::text, 4, '0') || '#00' COLLATE "C" AS k
  FROM generate_series(1, 20000) i;
CREATE FOREIGN TABLE kj_small (k text OPTIONS (rowkey 'true') COLLATE "C", v int) SERVER kj_srv OPTIONS (table 'kj_small');
INSERT INTO kj_small SELECT k, v FROM kj_n WHERE k LIKE 'dev#%#00' AND v < 5000;
CREATE TABLE kj_small_n AS SELECT * FROM kj_small;
ANALYZE kj_big, kj_small, kj_small_n;
EXPLAIN (COSTS OFF) SELECT count(*), sum(f.v) FROM kj_big b JOIN kj_small f ON f.k = b.k;
SELECT (SELECT count(*) || ' ' || sum(f.v) FROM kj_big b JOIN kj_small f ON f.k = b.k) =
       (SELECT count(*) || ' ' || sum(f.v) FROM kj_big b JOIN kj_small_n f ON f.k = b.k) AS same;

-- IN and ranges on the parts after equal leading ones: ordered key ranges,
-- one per combination of the leading values
EXPLAIN (COSTS OFF) SELECT * FROM kjt WHERE location = 'us-west2' AND balloon IN (3698, 3725)
  AND ts >= '2021-03-05 12:00' AND ts < '2021-03-05 12:02';
EXPLAIN (COSTS OFF) SELECT * FROM kjt WHERE location IN ('x', 'us-east1') AND balloon = 3700;
EXPLAIN (COSTS OFF) SELECT * FROM kjt WHERE location = 'x' AND balloon >= 3710 AND balloon < 3720;
EXPLAIN (COSTS OFF) SELECT * FROM kjt WHERE location IN ('x', 'us-east1') AND balloon > 3737;
SELECT kj_check(q) FROM unnest(ARRAY[
  $q$SELECT * FROM kjt f WHERE location = 'us-west2' AND balloon IN (3698, 3725) AND ts >= '2021-03-05 12:00' AND ts < '2021-03-05 12:02'$q$,
  $q$SELECT * FROM kjt f WHERE location IN ('x', 'us-east1') AND balloon = 3700$q$,
  $q$SELECT * FROM kjt f WHERE location = 'x' AND balloon >= 3710 AND balloon < 3720$q$,
  $q$SELECT * FROM kjt f WHERE location IN ('x', 'us-east1') AND balloon > 3737$q$,
  $q$SELECT * FROM kjt f WHERE location IN ('x', 'us-east1') AND balloon IN (3690, 3739, 4000) AND ts > '2021-03-05 12:37'$q$
]) q;

-- a range on a text part that a delimiter follows: a wider range of keys,
-- and the clauses checked again (before a delimiter, 'a b#' < 'a#')
CREATE FOREIGN TABLE kjd (a text OPTIONS (rowkey_part '1') COLLATE "C", b int OPTIONS (rowkey_part '2'), v int)
  SERVER kj_srv OPTIONS (table 'kjd', rowkey_delimiter '#');
CREATE TABLE kjd_n (a text COLLATE "C", b int, v int);
INSERT INTO kjd_n SELECT a, b, row_number() OVER ()
  FROM unnest(ARRAY['', ' ', '!', 'a', 'a ', 'a b', 'a!', 'a"', 'a$', 'a$b', 'aa', 'a~', 'b', 'b!', 'ba', 'é']) a,
       generate_series(1, 3) b;
INSERT INTO kjd SELECT * FROM kjd_n;
CREATE TABLE kjd_o (lo text COLLATE "C", hi text COLLATE "C");
INSERT INTO kjd_o SELECT lo, hi
  FROM unnest(ARRAY['', 'a', 'a ', 'a!', 'a"', 'a#', 'a$', 'aa', 'b', 'b!', NULL]) lo,
       unnest(ARRAY['', 'a', 'a ', 'a!', 'a"', 'a#', 'a$', 'aa', 'b', 'b!', 'z', NULL]) hi;
ANALYZE kjd, kjd_n, kjd_o;
EXPLAIN (COSTS OFF) SELECT * FROM kjd WHERE a >= 'a' AND a < 'a$';
EXPLAIN (COSTS OFF) SELECT * FROM kjd WHERE a > 'a!' AND a <= 'b';
EXPLAIN (COSTS OFF) SELECT * FROM kjd WHERE a IN ('a', 'b') AND b >= 2;
SELECT count(*) FROM kjd WHERE a >= 'a' AND a < 'a$';
-- every pair of bounds, probing by key from each
EXPLAIN (COSTS OFF) SELECT o.lo, o.hi, f.v FROM kjd_o o JOIN kjd f ON f.a >= o.lo AND f.a < o.hi;
SELECT kj_check(q) FROM unnest(ARRAY[
  $q$SELECT o.lo, o.hi, f.v FROM kjd_o o JOIN kjd f ON f.a >= o.lo AND f.a < o.hi$q$,
  $q$SELECT o.lo, o.hi, f.v FROM kjd_o o JOIN kjd f ON f.a > o.lo AND f.a <= o.hi$q$,
  $q$SELECT o.lo, f.v FROM kjd_o o JOIN kjd f ON f.a < o.lo$q$,
  $q$SELECT o.hi, f.v FROM kjd_o o JOIN kjd f ON f.a >= o.hi$q$
]) q;

RESET timezone;
DROP FUNCTION kj_check(text);
DROP TABLE kj_n, kji_n, kjt_n, kj_o, kj_big, kj_small_n, kjd_n, kjd_o;
DROP SERVER kj_srv CASCADE;
