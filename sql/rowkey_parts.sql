-- Row keys made of typed parts: "device_type#device_id#day".
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER parts_srv FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE device_day (
    device_type text OPTIONS (rowkey_part '1'),
    device_id   text OPTIONS (rowkey_part '2'),
    day         date OPTIONS (rowkey_part '3'),
    bytes_used  bigint OPTIONS (column 'stats:bytes')
) SERVER parts_srv OPTIONS (table 'devices', rowkey_delimiter '#');
-- the same stored rows, seen with the whole key
CREATE FOREIGN TABLE devices_raw (k text OPTIONS (rowkey 'true') COLLATE "C", b bigint OPTIONS (column 'stats:bytes'))
  SERVER parts_srv OPTIONS (table 'devices');
CREATE TABLE device_day_native (device_type text, device_id text, day date, bytes_used bigint,
  PRIMARY KEY (device_type, device_id, day));

INSERT INTO device_day_native
  SELECT t, 'd' || i, date '2020-04-28' + d, i * 100 + d
  FROM unnest(ARRAY['phone', 'tablet', 'pc']) t, generate_series(1, 4) i, generate_series(0, 6) d;
INSERT INTO device_day SELECT * FROM device_day_native;

-- INSERT composes the key; rows come back in key order
SELECT * FROM devices_raw WHERE k LIKE 'phone#d1#%' ORDER BY k LIMIT 3;
SELECT * FROM device_day LIMIT 3;

-- equality on leading parts is a prefix scan; a range on the next part
-- (a fixed-width one) is a range scan; a later part alone is a full scan
EXPLAIN (COSTS OFF) SELECT * FROM device_day WHERE device_type = 'phone';
EXPLAIN (COSTS OFF) SELECT * FROM device_day WHERE device_type = 'phone' AND device_id = 'd2';
EXPLAIN (COSTS OFF) SELECT * FROM device_day WHERE device_type = 'phone' AND device_id = 'd2' AND day = '2020-05-01';
EXPLAIN (COSTS OFF) SELECT * FROM device_day WHERE device_type = 'phone' AND device_id = 'd2' AND day BETWEEN '2020-04-30' AND '2020-05-02';
EXPLAIN (COSTS OFF) SELECT * FROM device_day WHERE device_type = 'phone' AND device_id = 'd2' AND day > '2020-05-02';
EXPLAIN (COSTS OFF) SELECT * FROM device_day WHERE device_id = 'd2';
EXPLAIN (COSTS OFF) SELECT * FROM device_day WHERE day = '2020-05-01';
EXPLAIN (COSTS OFF) SELECT * FROM device_day WHERE device_type = 'phone' AND day = '2020-05-01';
-- a range on a text part stays local (text parts have no fixed width)
EXPLAIN (COSTS OFF) SELECT * FROM device_day WHERE device_type = 'phone' AND device_id > 'd2';
-- LIKE 'prefix%' on the text part after the equal ones: the keys going on
-- with the prefix, exactly (a part cannot hold the delimiter); other
-- wildcards read the prefix's keys and check the pattern again
EXPLAIN (COSTS OFF) SELECT * FROM device_day WHERE device_type LIKE 'ph%';
EXPLAIN (COSTS OFF) SELECT * FROM device_day WHERE device_type = 'phone' AND device_id LIKE 'd1%';
EXPLAIN (COSTS OFF) SELECT * FROM device_day WHERE device_type LIKE 'p%' AND device_id = 'd2';
EXPLAIN (COSTS OFF) SELECT * FROM device_day WHERE device_type LIKE 'p_one%';
EXPLAIN (COSTS OFF) SELECT * FROM device_day WHERE device_type LIKE '%one';
EXPLAIN (COSTS OFF) SELECT * FROM device_day WHERE device_type LIKE 'ph#%';

-- results equal the native table's
CREATE FUNCTION parts_check(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE a text; b text;
BEGIN
  EXECUTE format('SELECT string_agg(x::text, '','' ORDER BY x::text) FROM (%s) x', q) INTO a;
  EXECUTE format('SELECT string_agg(x::text, '','' ORDER BY x::text) FROM (%s) x', replace(q, 'FROM device_day ', 'FROM device_day_native ')) INTO b;
  IF a IS DISTINCT FROM b THEN
    RETURN NEXT 'MISMATCH: ' || q || ' foreign=' || coalesce(a, '<none>') || ' native=' || coalesce(b, '<none>');
  END IF;
END $$;
SELECT parts_check(q) FROM unnest(ARRAY[
  $q$SELECT * FROM device_day WHERE device_type = 'phone'$q$,
  $q$SELECT * FROM device_day WHERE device_type = 'phone' AND device_id = 'd2'$q$,
  $q$SELECT * FROM device_day WHERE device_type = 'phone' AND device_id = 'd2' AND day = '2020-05-01'$q$,
  $q$SELECT * FROM device_day WHERE device_type = 'phone' AND device_id = 'd2' AND day BETWEEN '2020-04-30' AND '2020-05-02'$q$,
  $q$SELECT * FROM device_day WHERE device_type = 'phone' AND device_id = 'd2' AND day > '2020-05-02'$q$,
  $q$SELECT * FROM device_day WHERE device_type = 'pc' AND device_id = 'd4' AND day < '2020-04-30'$q$,
  $q$SELECT * FROM device_day WHERE device_id = 'd2'$q$,
  $q$SELECT * FROM device_day WHERE day = '2020-05-01'$q$,
  $q$SELECT * FROM device_day WHERE device_type = 'phone' AND device_id > 'd2'$q$,
  $q$SELECT * FROM device_day WHERE device_type LIKE 'ph%'$q$,
  $q$SELECT * FROM device_day WHERE device_type LIKE 'p%'$q$,
  $q$SELECT * FROM device_day WHERE device_type LIKE 'phone%'$q$,
  $q$SELECT * FROM device_day WHERE device_type LIKE 'phone'$q$,
  $q$SELECT * FROM device_day WHERE device_type = 'phone' AND device_id LIKE 'd1%'$q$,
  $q$SELECT * FROM device_day WHERE device_type LIKE 'p%' AND device_id = 'd2'$q$,
  $q$SELECT * FROM device_day WHERE device_type LIKE 'p_one%'$q$,
  $q$SELECT * FROM device_day WHERE device_type LIKE '%one'$q$,
  $q$SELECT * FROM device_day WHERE device_type LIKE 'ph#%'$q$,
  $q$SELECT * FROM device_day WHERE device_type LIKE 'p%' AND device_type > 'pc'$q$,
  $q$SELECT * FROM device_day WHERE device_type = 'tv'$q$,
  $q$SELECT * FROM device_day$q$
]) q;

-- UPDATE and DELETE find rows by their parts; parts cannot change
UPDATE device_day SET bytes_used = -1 WHERE device_type = 'pc' AND device_id = 'd1' AND day = '2020-04-28' RETURNING *;
DELETE FROM device_day WHERE device_type = 'pc' AND device_id = 'd3' RETURNING day;
UPDATE device_day SET day = day + 1 WHERE device_type = 'pc' AND device_id = 'd1' AND day = '2020-04-28';
SELECT count(*) FROM device_day WHERE device_type = 'pc';

-- bad parts: a NULL part, a delimiter inside a text part, a key of another shape
INSERT INTO device_day VALUES (NULL, 'x', '2020-01-01', 1);
INSERT INTO device_day VALUES ('bad#type', 'x', '2020-01-01', 1);
INSERT INTO devices_raw VALUES ('phone#d9', 1);
SELECT * FROM device_day WHERE device_type = 'phone' AND device_id = 'd9';
INSERT INTO devices_raw VALUES ('phone#d9#2020-05-01', 1);
SELECT * FROM device_day WHERE device_type = 'phone' AND device_id = 'd9';
DELETE FROM devices_raw WHERE k LIKE 'phone#d9%';
-- year 0000 has eight digits but is no date a part is written as (1 BC is)
INSERT INTO devices_raw VALUES ('phone#d9#00001231', 1);
SELECT * FROM device_day WHERE device_type = 'phone' AND device_id = 'd9';
DELETE FROM devices_raw WHERE k LIKE 'phone#d9%';

-- integers are fixed-width, negatives first; timestamps may be reversed
-- (newest first), and then ranges on them are reversed too
CREATE FOREIGN TABLE ev (
    host text OPTIONS (rowkey_part '1'),
    ts   timestamptz OPTIONS (rowkey_part '2', rowkey_reverse 'true'),
    seq  int OPTIONS (rowkey_part '3'),
    v    int
) SERVER parts_srv OPTIONS (rowkey_delimiter '#');
CREATE FOREIGN TABLE ev_raw (k text OPTIONS (rowkey 'true'), v int) SERVER parts_srv OPTIONS (table 'ev');
SET timezone = 'UTC';
INSERT INTO ev VALUES ('h1', '2024-01-01 00:00:00', -5, 1), ('h1', '2024-01-02 00:00:00', 7, 2),
  ('h1', '2024-01-03 12:00:00.000001', 0, 3), ('h1', '2024-01-03 12:00:00.000001', -2147483648, 4),
  ('h1', '2024-01-03 12:00:00.000001', 2147483647, 5), ('h2', '1970-01-01', 1, 6);
SELECT * FROM ev_raw;
SELECT * FROM ev;
EXPLAIN (COSTS OFF) SELECT * FROM ev WHERE host = 'h1' AND ts >= '2024-01-02';
SELECT * FROM ev WHERE host = 'h1' AND ts >= '2024-01-02';
SELECT * FROM ev WHERE host = 'h1' AND ts < '2024-01-02';
SELECT * FROM ev WHERE host = 'h1' AND ts = '2024-01-03 12:00:00.000001' AND seq >= -1;
RESET timezone;

-- prepared statements with generic plans push the parts down too
PREPARE dd(text, text, date) AS SELECT day, bytes_used FROM device_day WHERE device_type = $1 AND device_id = $2 AND day > $3;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE dd('phone', 'd1', '2020-05-02');
EXECUTE dd('phone', 'd1', '2020-05-02');
RESET plan_cache_mode;

-- A key of one integer part needs no delimiter: there is nothing to
-- delimit.  Its ranges and order are the integers', as the native twin's.
CREATE FOREIGN TABLE one_part (id int OPTIONS (rowkey_part '1'), v text) SERVER parts_srv OPTIONS (table 'one_part');
CREATE TABLE one_part_native (id int PRIMARY KEY, v text);
INSERT INTO one_part SELECT g, 'v' || g FROM generate_series(-50, 200, 7) g;
INSERT INTO one_part_native SELECT g, 'v' || g FROM generate_series(-50, 200, 7) g;
CREATE FOREIGN TABLE one_part_raw (rowkey text COLLATE "C", v text) SERVER parts_srv OPTIONS (table 'one_part');
SELECT rowkey, v FROM one_part_raw WHERE rowkey LIKE '-%' OR rowkey < '0000000010' ORDER BY rowkey LIMIT 4;
EXPLAIN (COSTS OFF) SELECT * FROM one_part WHERE id >= -10 AND id < 40 ORDER BY id;
SELECT (SELECT array_agg(id ORDER BY id) FROM one_part WHERE id >= -10 AND id < 40)
     = (SELECT array_agg(id ORDER BY id) FROM one_part_native WHERE id >= -10 AND id < 40) AS same_range,
       (SELECT array_agg(v ORDER BY id DESC) FROM one_part) = (SELECT array_agg(v ORDER BY id DESC) FROM one_part_native) AS same_all,
       (SELECT v FROM one_part WHERE id = 13) AS point;

-- declaration errors, when the table is first used
CREATE FOREIGN TABLE bad1 (a text OPTIONS (rowkey_part '1'), b int OPTIONS (rowkey_part '2'), v int) SERVER parts_srv;
SELECT * FROM bad1;
CREATE FOREIGN TABLE bad2 (a text OPTIONS (rowkey_part '1'), b text OPTIONS (rowkey_part '3')) SERVER parts_srv OPTIONS (rowkey_delimiter '#');
SELECT * FROM bad2;
CREATE FOREIGN TABLE bad3 (a float8 OPTIONS (rowkey_part '1')) SERVER parts_srv OPTIONS (rowkey_delimiter '#');
SELECT * FROM bad3;
CREATE FOREIGN TABLE bad4 (a text OPTIONS (rowkey_part '1', rowkey_reverse 'true')) SERVER parts_srv OPTIONS (rowkey_delimiter '#');
SELECT * FROM bad4;
CREATE FOREIGN TABLE bad5 (k text OPTIONS (rowkey 'true'), a text OPTIONS (rowkey_part '1')) SERVER parts_srv OPTIONS (rowkey_delimiter '#');
SELECT * FROM bad5;
CREATE FOREIGN TABLE bad6 (k text OPTIONS (rowkey 'true')) SERVER parts_srv OPTIONS (rowkey_delimiter '#');
SELECT * FROM bad6;
CREATE FOREIGN TABLE bad7 (a text OPTIONS (rowkey_part '1')) SERVER parts_srv OPTIONS (rowkey_delimiter '5');
CREATE FOREIGN TABLE bad8 (a text OPTIONS (rowkey_part '1')) SERVER parts_srv OPTIONS (rowkey_delimiter '##');
CREATE FOREIGN TABLE bad9 (a text OPTIONS (rowkey_part '0')) SERVER parts_srv OPTIONS (rowkey_delimiter '#');

-- A varchar part is compared with text's operators: still pushed down.
CREATE FOREIGN TABLE vparts (device_type varchar(20) OPTIONS (rowkey_part '1'), device_id text OPTIONS (rowkey_part '2'), n int)
  SERVER parts_srv OPTIONS (table 'vparts', rowkey_delimiter '#');
INSERT INTO vparts VALUES ('phone', 'a1', 1), ('phone', 'a2', 2), ('tablet', 'a1', 3);
EXPLAIN (COSTS OFF) SELECT * FROM vparts WHERE device_type = 'phone' AND device_id = 'a1';
SELECT * FROM vparts WHERE device_type = 'phone' AND device_id = 'a1';
EXPLAIN (COSTS OFF) SELECT * FROM vparts WHERE device_type = 'phone';
SELECT * FROM vparts WHERE device_type = 'phone';
DELETE FROM vparts;

DROP TABLE device_day_native;
DROP FUNCTION parts_check(text);
DROP SERVER parts_srv CASCADE;
