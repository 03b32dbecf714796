-- Row keys in the shapes the seeds write them: column option rowkey_format,
-- ORDER BY the leading parts, and the NOTICE for a key that does not sort
-- as bytes.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER fmt_srv FOREIGN DATA WRAPPER widecolumn_fdw;
SET timezone = 'UTC';

-- Seed 001's weather balloons, one row per minute:
-- us-west2#3698#2021-03-05-1204 is location, balloon (4 digits), minute.
CREATE FOREIGN TABLE balloon (
    location text OPTIONS (rowkey_part '1'),
    balloon  int  OPTIONS (rowkey_part '2', rowkey_format '4'),
    ts       timestamp OPTIONS (rowkey_part '3', rowkey_format 'YYYY-MM-DD-HH24MI'),
    pressure bigint OPTIONS (column 'measurements:pressure')
) SERVER fmt_srv OPTIONS (table 'balloons', rowkey_delimiter '#');
CREATE FOREIGN TABLE balloon_raw (k text OPTIONS (rowkey 'true') COLLATE "C",
    pressure bigint OPTIONS (column 'measurements:pressure'))
  SERVER fmt_srv OPTIONS (table 'balloons');

-- the seed's keys, written as the seed writes them, read as typed values
INSERT INTO balloon_raw VALUES
  ('us-west2#3698#2021-03-05-1200', 94558), ('us-west2#3698#2021-03-05-1201', 94122),
  ('us-west2#3698#2021-03-05-1202', 95992), ('us-west2#3698#2021-03-05-1203', 96025),
  ('us-west2#3698#2021-03-05-1204', 96021);
SELECT * FROM balloon;
SELECT * FROM balloon WHERE location = 'us-west2' AND balloon = 3698 AND ts = '2021-03-05 12:04';
DELETE FROM balloon_raw;

-- more balloons and minutes, through the typed columns, and a native oracle
CREATE TABLE balloon_native (location text, balloon int, ts timestamp, pressure bigint,
  PRIMARY KEY (location, balloon, ts));
INSERT INTO balloon_native
  SELECT l, b, timestamp '2021-03-05 11:58' + m * interval '1 minute', b * 10 + m
  FROM unnest(ARRAY['us-west2', 'asia-south2', 'us-east1']) l,
       unnest(ARRAY[7, 3698, 3699, 9999]) b, generate_series(0, 7) m;
INSERT INTO balloon SELECT * FROM balloon_native;
-- every key is what to_char writes
SELECT count(*) AS keys, count(*) FILTER (WHERE r.k = n.location || '#' || lpad(n.balloon::text, 4, '0') ||
                                   '#' || to_char(n.ts, 'YYYY-MM-DD-HH24MI')) AS as_to_char
  FROM balloon_raw r JOIN balloon_native n ON r.pressure = n.pressure AND r.k LIKE n.location || '#%';
SELECT k FROM balloon_raw WHERE k LIKE 'us-west2#0007#%' ORDER BY k LIMIT 3;

-- every pushdown form, in EXPLAIN
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location = 'us-west2' AND balloon = 3698 AND ts = '2021-03-05 12:04';
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location = 'us-west2' AND balloon = 3698;
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location = 'us-west2' AND balloon >= 3698;
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location = 'us-west2' AND balloon = 3698 AND ts >= '2021-03-05 12:00' AND ts < '2021-03-05 12:03';
-- a bound between two minutes: > and >= start after its minute, < and <= end with it
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location = 'us-west2' AND balloon = 3698 AND ts > '2021-03-05 12:00:30' AND ts <= '2021-03-05 12:02:59.5';
-- a balloon wider than four digits, or negative, is no key: none, or all
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location = 'us-west2' AND balloon = 12345;
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location = 'us-west2' AND balloon > 12345;
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location = 'us-west2' AND balloon > -5;
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location = 'us-west2' AND balloon = 3698 AND ts = '2021-03-05 12:04:30';
-- a range on a text part that a delimiter follows stays local
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location >= 'us';

-- results equal the native table's
CREATE FUNCTION fmt_check(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE a text; b text;
BEGIN
  EXECUTE format('SELECT string_agg(x::text, '','' ORDER BY x::text) FROM (%s) x', q) INTO a;
  EXECUTE format('SELECT string_agg(x::text, '','' ORDER BY x::text) FROM (%s) x',
                 regexp_replace(q, 'FROM (balloon|ev)\M', 'FROM \1_native')) INTO b;
  IF a IS DISTINCT FROM b THEN
    RETURN NEXT 'MISMATCH: ' || q || ' foreign=' || coalesce(a, '<none>') || ' native=' || coalesce(b, '<none>');
  END IF;
  IF a IS NULL THEN
    RETURN NEXT 'EMPTY: ' || q;
  END IF;
END $$;
SELECT fmt_check(q) FROM unnest(ARRAY[
  $q$SELECT * FROM balloon WHERE location = 'us-west2' AND balloon = 3698 AND ts = '2021-03-05 12:04'$q$,
  $q$SELECT * FROM balloon WHERE location = 'us-west2' AND balloon = 3698$q$,
  $q$SELECT * FROM balloon WHERE location = 'us-west2' AND balloon >= 3698$q$,
  $q$SELECT * FROM balloon WHERE location = 'us-west2' AND balloon < 3699$q$,
  $q$SELECT * FROM balloon WHERE location = 'us-west2' AND balloon > 7 AND balloon <= 9999$q$,
  $q$SELECT * FROM balloon WHERE location = 'us-west2' AND balloon = 3698 AND ts >= '2021-03-05 12:00' AND ts < '2021-03-05 12:03'$q$,
  $q$SELECT * FROM balloon WHERE location = 'us-west2' AND balloon = 3698 AND ts > '2021-03-05 12:00:30' AND ts <= '2021-03-05 12:02:59.5'$q$,
  $q$SELECT * FROM balloon WHERE location = 'us-west2' AND balloon = 3698 AND ts >= '2021-03-05 12:00:30' AND ts < '2021-03-05 12:02:00.000001'$q$,
  $q$SELECT * FROM balloon WHERE location = 'us-west2' AND balloon > -5$q$,
  $q$SELECT * FROM balloon WHERE location = 'asia-south2' AND balloon < 10000$q$,
  $q$SELECT * FROM balloon WHERE location = 'us-east1' AND balloon = 9999 AND ts > '2021-03-05 12:03'$q$,
  $q$SELECT * FROM balloon WHERE location >= 'us'$q$,
  $q$SELECT * FROM balloon WHERE location < 'us-east1'$q$,
  $q$SELECT * FROM balloon WHERE location > 'us-east1' AND location <= 'us-west2'$q$,
  $q$SELECT * FROM balloon WHERE ts = '2021-03-05 12:01'$q$,
  $q$SELECT * FROM balloon$q$
]) q;
-- and these find nothing, on both sides
SELECT count(*) FROM balloon WHERE location = 'us-west2' AND balloon = 12345;
SELECT count(*) FROM balloon WHERE location = 'us-west2' AND balloon = 3698 AND ts = '2021-03-05 12:04:30';

-- IN / = ANY on leading parts: one ordered pass over several prefixes
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location IN ('us-west2', 'asia-south2') AND balloon = 3698;
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location = 'us-west2' AND balloon IN (9999, 7, 12345, NULL, 7);
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location = ANY (ARRAY['us-east1', 'us-west2']) AND balloon IN (7, 3699) AND ts >= '2021-03-05 12:04';
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location = 'us-west2' AND balloon IN (9999, 7) ORDER BY balloon, ts LIMIT 4;
SELECT * FROM balloon WHERE location = 'us-west2' AND balloon IN (9999, 7) ORDER BY balloon, ts LIMIT 4;
SELECT fmt_check(q) FROM unnest(ARRAY[
  $q$SELECT * FROM balloon WHERE location IN ('us-west2', 'asia-south2') AND balloon = 3698$q$,
  $q$SELECT * FROM balloon WHERE location = 'us-west2' AND balloon IN (9999, 7, 12345, NULL, 7)$q$,
  $q$SELECT * FROM balloon WHERE location = ANY (ARRAY['us-east1', 'us-west2']) AND balloon IN (7, 3699) AND ts >= '2021-03-05 12:04'$q$,
  $q$SELECT * FROM balloon WHERE location IN ('us-west2', 'nowhere') AND balloon IN (7, 3698) AND ts = '2021-03-05 12:01'$q$,
  $q$SELECT * FROM balloon WHERE location IN ('us-west2', 'asia-south2') AND balloon > 3698$q$
]) q;
SELECT count(*) FROM balloon WHERE location = ANY ('{}'::text[]);
PREPARE bl(int[]) AS SELECT count(*) FROM balloon WHERE location = 'us-east1' AND balloon = ANY ($1);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE bl('{7,9999}');
EXECUTE bl('{7,9999}');
EXECUTE bl(NULL);
RESET plan_cache_mode;

-- what a format cannot hold is refused on INSERT, and nothing is written
INSERT INTO balloon VALUES ('us-west2', 12345, '2021-03-05 12:00', 1);
\echo :LAST_ERROR_SQLSTATE
INSERT INTO balloon VALUES ('us-west2', -1, '2021-03-05 12:00', 1);
\echo :LAST_ERROR_SQLSTATE
INSERT INTO balloon VALUES ('us-west2', 1, '2021-03-05 12:00:01', 1);
\echo :LAST_ERROR_SQLSTATE
INSERT INTO balloon VALUES ('eu', 1, '2021-03-05 12:00', 1), ('eu', 10000, '2021-03-05 12:00', 1);
SELECT count(*) FROM balloon_raw WHERE k LIKE 'eu#%';
-- a stored key of another shape is an error naming it
INSERT INTO balloon_raw VALUES ('eu#0001#2021-03-05 1200', 1);
SELECT * FROM balloon WHERE location = 'eu';
\echo :LAST_ERROR_SQLSTATE
DELETE FROM balloon_raw WHERE k LIKE 'eu#%';

-- ORDER BY the leading parts needs no Sort, and a LIMIT stops the scan
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location = 'us-west2' ORDER BY balloon, ts LIMIT 3;
SELECT * FROM balloon WHERE location = 'us-west2' ORDER BY balloon, ts LIMIT 3;
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location = 'us-west2' AND balloon = 3698 ORDER BY ts DESC LIMIT 2;
SELECT * FROM balloon WHERE location = 'us-west2' AND balloon = 3698 ORDER BY ts DESC LIMIT 2;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM balloon WHERE location = 'us-west2' ORDER BY balloon DESC, ts DESC LIMIT 3;
SELECT * FROM balloon WHERE location = 'us-west2' ORDER BY balloon DESC, ts DESC LIMIT 3;
-- the same order as the native table's, for every location
SELECT (SELECT array_agg(pressure) FROM (SELECT pressure FROM balloon WHERE location = l ORDER BY balloon, ts) s) =
       (SELECT array_agg(pressure) FROM (SELECT pressure FROM balloon_native WHERE location = l ORDER BY balloon, ts) s) AS same_order
  FROM unnest(ARRAY['us-west2', 'asia-south2', 'us-east1']) l;
-- a text part before a delimiter does not sort as its values ("a b#" < "a#"): Sort
EXPLAIN (COSTS OFF) SELECT * FROM balloon ORDER BY location, balloon LIMIT 3;
-- nor does an order the key does not have
EXPLAIN (COSTS OFF) SELECT * FROM balloon WHERE location = 'us-west2' ORDER BY balloon, ts DESC LIMIT 3;

-- Newest first (rowkey_reverse), with a pattern: digits reversed, the
-- literals kept; ranges swap, and the forward scan is descending time.
CREATE FOREIGN TABLE ev (
    host text OPTIONS (rowkey_part '1'),
    at   timestamptz OPTIONS (rowkey_part '2', rowkey_reverse 'true', rowkey_format 'YYYY-MM-DD"T"HH24:MI:SS.MS'),
    v    int
) SERVER fmt_srv OPTIONS (table 'ev', rowkey_delimiter '#');
CREATE FOREIGN TABLE ev_raw (k text OPTIONS (rowkey 'true') COLLATE "C", v int) SERVER fmt_srv OPTIONS (table 'ev');
CREATE TABLE ev_native (host text, at timestamptz, v int);
INSERT INTO ev_native SELECT 'h' || h, timestamptz '2024-01-01 00:00:00+00' + s * interval '1.5 s', h * 100 + s
  FROM generate_series(1, 2) h, generate_series(0, 5) s;
INSERT INTO ev SELECT * FROM ev_native;
SELECT * FROM ev_raw LIMIT 3;
SELECT * FROM ev LIMIT 3;
EXPLAIN (COSTS OFF) SELECT * FROM ev WHERE host = 'h1' AND at >= '2024-01-01 00:00:03' AND at < '2024-01-01 00:00:06.5';
EXPLAIN (COSTS OFF) SELECT * FROM ev WHERE host = 'h1' ORDER BY at DESC LIMIT 2;
EXPLAIN (COSTS OFF) SELECT * FROM ev WHERE host = 'h1' ORDER BY at LIMIT 2;
SELECT fmt_check(q) FROM unnest(ARRAY[
  $q$SELECT * FROM ev WHERE host = 'h1' AND at >= '2024-01-01 00:00:03' AND at < '2024-01-01 00:00:06.5'$q$,
  $q$SELECT * FROM ev WHERE host = 'h2' AND at > '2024-01-01 00:00:01.5001'$q$,
  $q$SELECT * FROM ev WHERE host = 'h2' AND at <= '2024-01-01 00:00:04.4999'$q$,
  $q$SELECT * FROM ev WHERE host = 'h1' AND at = '2024-01-01 00:00:04.5'$q$,
  $q$SELECT * FROM (SELECT * FROM ev WHERE host = 'h1' ORDER BY at DESC LIMIT 2) s$q$,
  $q$SELECT * FROM (SELECT * FROM ev WHERE host = 'h2' ORDER BY at LIMIT 2) s$q$
]) q;
SELECT * FROM ev WHERE host = 'h1' ORDER BY at LIMIT 2;

-- Seed 000/004's device keys: phone#4c410523#20200501 (a date as YYYYMMDD),
-- 4c410523#memusage#1423523569918 (milliseconds, 13 digits)
CREATE FOREIGN TABLE device_day (
    device_type text OPTIONS (rowkey_part '1'),
    device_id   text OPTIONS (rowkey_part '2'),
    day         date OPTIONS (rowkey_part '3', rowkey_format 'YYYYMMDD'),
    bytes_used  bigint OPTIONS (column 'stats:bytes')
) SERVER fmt_srv OPTIONS (table 'devices', rowkey_delimiter '#');
CREATE FOREIGN TABLE device_raw (k text OPTIONS (rowkey 'true') COLLATE "C", b bigint OPTIONS (column 'stats:bytes'))
  SERVER fmt_srv OPTIONS (table 'devices');
INSERT INTO device_raw VALUES ('phone#4c410523#20200501', 1), ('phone#4c410523#20200502', 2),
  ('tablet#a0b81f74#20200501', 3), ('tablet#a0b81f74#20200502', 4);
SELECT * FROM device_day;
EXPLAIN (COSTS OFF) SELECT * FROM device_day WHERE device_type = 'phone' AND device_id = '4c410523' AND day > '2020-05-01';
SELECT * FROM device_day WHERE device_type = 'phone' AND device_id = '4c410523' AND day > '2020-05-01';
CREATE FOREIGN TABLE memusage (
    device_id text OPTIONS (rowkey_part '1'),
    metric    text OPTIONS (rowkey_part '2'),
    ms        bigint OPTIONS (rowkey_part '3', rowkey_format '13'),
    v         bigint
) SERVER fmt_srv OPTIONS (table 'metrics', rowkey_delimiter '#');
CREATE FOREIGN TABLE memusage_raw (k text OPTIONS (rowkey 'true') COLLATE "C", v bigint) SERVER fmt_srv OPTIONS (table 'metrics');
INSERT INTO memusage_raw VALUES ('4c410523#memusage#1423523569918', 40), ('4c410523#memusage#1423523579918', 41);
INSERT INTO memusage VALUES ('4c410523', 'memusage', 1423523589918, 42);
SELECT * FROM memusage_raw;
EXPLAIN (COSTS OFF) SELECT * FROM memusage WHERE device_id = '4c410523' AND metric = 'memusage' AND ms >= 1423523570000;
SELECT * FROM memusage WHERE device_id = '4c410523' AND metric = 'memusage' AND ms >= 1423523570000;

-- bad formats are refused when the table is created or altered
CREATE FOREIGN TABLE bad (d date OPTIONS (rowkey_part '1', rowkey_format 'DD-MM-YYYY')) SERVER fmt_srv OPTIONS (rowkey_delimiter '#');
\echo :LAST_ERROR_SQLSTATE
CREATE FOREIGN TABLE bad (d date OPTIONS (rowkey_part '1', rowkey_format 'YYYY-DD')) SERVER fmt_srv OPTIONS (rowkey_delimiter '#');
CREATE FOREIGN TABLE bad (d timestamp OPTIONS (rowkey_part '1', rowkey_format 'YYYYMMDDHH12MI')) SERVER fmt_srv OPTIONS (rowkey_delimiter '#');
CREATE FOREIGN TABLE bad (d date OPTIONS (rowkey_part '1', rowkey_format 'YYYY-Mon-DD')) SERVER fmt_srv OPTIONS (rowkey_delimiter '#');
CREATE FOREIGN TABLE bad (d timestamptz OPTIONS (rowkey_part '1', rowkey_format 'YYYYMMDDHH24MITZ')) SERVER fmt_srv OPTIONS (rowkey_delimiter '#');
CREATE FOREIGN TABLE bad (d date OPTIONS (rowkey_part '1', rowkey_format '-')) SERVER fmt_srv OPTIONS (rowkey_delimiter '#');
CREATE FOREIGN TABLE bad (n int OPTIONS (rowkey_part '1', rowkey_format '0')) SERVER fmt_srv OPTIONS (rowkey_delimiter '#');
CREATE FOREIGN TABLE bad (n int OPTIONS (rowkey_part '1', rowkey_format '20')) SERVER fmt_srv OPTIONS (rowkey_delimiter '#');
-- ... and so is a format of the wrong kind for its column
CREATE FOREIGN TABLE bad (n int OPTIONS (rowkey_part '1', rowkey_format 'YYYY')) SERVER fmt_srv OPTIONS (rowkey_delimiter '#');
\echo :LAST_ERROR_SQLSTATE
CREATE FOREIGN TABLE bad (d date OPTIONS (rowkey_part '1', rowkey_format '4')) SERVER fmt_srv OPTIONS (rowkey_delimiter '#');
CREATE FOREIGN TABLE bad (d date OPTIONS (rowkey_part '1', rowkey_format 'YYYYMMDDHH24')) SERVER fmt_srv OPTIONS (rowkey_delimiter '#');
CREATE FOREIGN TABLE bad (t text OPTIONS (rowkey_part '1', rowkey_format '4') COLLATE "C") SERVER fmt_srv OPTIONS (rowkey_delimiter '#');
CREATE FOREIGN TABLE bad (d date OPTIONS (rowkey_part '1', rowkey_format 'YYYY#MM')) SERVER fmt_srv OPTIONS (rowkey_delimiter '#');
SELECT count(*) FROM pg_class WHERE relname = 'bad';
ALTER FOREIGN TABLE balloon ALTER COLUMN ts OPTIONS (SET rowkey_format 'MI-HH24');
ALTER FOREIGN TABLE balloon ALTER COLUMN balloon TYPE date;
\echo :LAST_ERROR_SQLSTATE
ALTER FOREIGN TABLE ev OPTIONS (SET rowkey_delimiter ':');
\echo :LAST_ERROR_SQLSTATE
SELECT attname, attfdwoptions FROM pg_attribute WHERE attrelid = 'balloon'::regclass AND attnum > 0 ORDER BY attnum;
-- a format needs a part
CREATE FOREIGN TABLE bad (k text COLLATE "C", n int OPTIONS (rowkey_format '4')) SERVER fmt_srv;
SELECT * FROM bad;
DROP FOREIGN TABLE bad;

-- A text row key, or a last text part, that does not sort as bytes: a
-- NOTICE with the fix, at CREATE and at the ALTER that names the column.
CREATE FOREIGN TABLE nc (k text OPTIONS (rowkey 'true'), v int) SERVER fmt_srv;
ALTER FOREIGN TABLE nc ALTER COLUMN k TYPE text COLLATE "C";
ALTER FOREIGN TABLE nc ALTER COLUMN v OPTIONS (ADD column 'cf:v');
ALTER FOREIGN TABLE nc ALTER COLUMN k TYPE varchar(20) COLLATE "POSIX";
CREATE FOREIGN TABLE nc2 (rowkey text, v int) SERVER fmt_srv;
CREATE FOREIGN TABLE nc3 (a text OPTIONS (rowkey_part '1'), b text OPTIONS (rowkey_part '2')) SERVER fmt_srv OPTIONS (rowkey_delimiter '#');
CREATE FOREIGN TABLE nc4 (a text OPTIONS (rowkey_part '1'), b int OPTIONS (rowkey_part '2')) SERVER fmt_srv OPTIONS (rowkey_delimiter '#');
CREATE FOREIGN TABLE nc5 (k bytea OPTIONS (rowkey 'true'), v text) SERVER fmt_srv;
-- and the last text part in collation "C": ranges and ORDER BY push down
CREATE FOREIGN TABLE nc6 (a int OPTIONS (rowkey_part '1'), b text OPTIONS (rowkey_part '2') COLLATE "C", v int) SERVER fmt_srv OPTIONS (rowkey_delimiter '#');
CREATE TABLE nc6_native (a int, b text COLLATE "C", v int);
INSERT INTO nc6_native VALUES (1, 'a b', 1), (1, 'a', 2), (1, 'x', 3), (1, 'xa', 4), (1, 'x!', 5),
  (1, 'y', 6), (2, 'x', 7), (0, 'z', 8);
INSERT INTO nc6 SELECT * FROM nc6_native;
EXPLAIN (COSTS OFF) SELECT * FROM nc6 WHERE a = 1 AND b > 'x' ORDER BY b LIMIT 1;
SELECT * FROM nc6 WHERE a = 1 AND b > 'x' ORDER BY b LIMIT 1;
SELECT (SELECT array_agg(v) FROM (SELECT v FROM nc6 WHERE a = 1 AND b >= lo AND b < hi ORDER BY b) s),
       (SELECT array_agg(v) FROM (SELECT v FROM nc6_native WHERE a = 1 AND b >= lo AND b < hi ORDER BY b) s),
       (SELECT array_agg(v) FROM (SELECT v FROM nc6 WHERE a = 1 AND b > lo AND b <= hi ORDER BY b DESC) s),
       (SELECT array_agg(v) FROM (SELECT v FROM nc6_native WHERE a = 1 AND b > lo AND b <= hi ORDER BY b DESC) s)
  FROM (VALUES ('a' COLLATE "C", 'x' COLLATE "C"), ('a b', 'xa'), ('x', 'z'), ('', 'x!')) r(lo, hi);
PREPARE nc6r(text, text) AS SELECT v FROM nc6 WHERE a = 1 AND b >= $1 AND b < $2 ORDER BY b;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE nc6r('a', 'x');
EXECUTE nc6r('a', 'x');
RESET plan_cache_mode;
DROP TABLE nc6_native;
EXPLAIN (COSTS OFF) SELECT * FROM nc3 WHERE a = 'x' AND b > 'x' ORDER BY b LIMIT 1;
-- another wrapper's tables are left alone
CREATE FOREIGN DATA WRAPPER fmt_other;
CREATE SERVER fmt_other_srv FOREIGN DATA WRAPPER fmt_other;
CREATE FOREIGN TABLE other (k text OPTIONS (rowkey 'true')) SERVER fmt_other_srv;

RESET timezone;
DROP FUNCTION fmt_check(text);
DROP TABLE balloon_native, ev_native;
DROP SERVER fmt_other_srv CASCADE;
DROP FOREIGN DATA WRAPPER fmt_other;
DROP SERVER fmt_srv CASCADE;
