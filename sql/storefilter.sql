-- Storage filters: comparisons of number columns with values, checked by
-- the storage worker before it sends a row (storefilter.c, rowfilter.c).
-- A native table holding the same rows is the oracle; EXPLAIN shows which
-- comparisons went to storage, EXPLAIN ANALYZE how many rows they left out.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER sf_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
CREATE FOREIGN TABLE sf (
    k   text OPTIONS (rowkey 'true') COLLATE "C",
    i2  smallint,
    i4  integer,
    i8  bigint,
    f4  real,
    f8  double precision,
    "Odd Name" double precision OPTIONS (column 'cf:odd'),
    t   text
) SERVER sf_srv;
CREATE TABLE sf_native (k text COLLATE "C" PRIMARY KEY, i2 smallint, i4 integer,
    i8 bigint, f4 real, f8 double precision, "Odd Name" double precision, t text);
-- every kind of value a comparison can meet: NULLs, both zeros, NaN, the
-- infinities, the types' limits
INSERT INTO sf_native
  SELECT 'r' || lpad(g::text, 3, '0'),
         CASE WHEN g % 11 = 0 THEN NULL ELSE (g * 37 % 200 - 100)::smallint END,
         CASE WHEN g % 13 = 0 THEN NULL ELSE g * 7919 % 1000 - 500 END,
         CASE WHEN g % 17 = 0 THEN NULL ELSE (g::bigint * 1000003) % 5000 - 2500 END,
         CASE WHEN g % 7 = 0 THEN NULL ELSE (g % 50)::real / 4 - 6 END,
         CASE WHEN g % 9 = 0 THEN NULL ELSE (g * 13 % 100)::float8 / 10 - 5 END,
         g::float8,
         'text ' || g
  FROM generate_series(1, 200) g;
INSERT INTO sf_native VALUES
  ('s-nan', 1, 1, 1, 'NaN', 'NaN', 0, 'nan'),
  ('s-zero', 0, 0, 0, '-0', '-0', 0, 'minus zero'),
  ('s-inf', 2, 2, 2, 'Infinity', 'Infinity', 0, 'inf'),
  ('s-ninf', 3, 3, 3, '-Infinity', '-Infinity', 0, '-inf'),
  ('s-max', 32767, 2147483647, 9223372036854775807, 3.4e38, 1.7e308, 0, 'max'),
  ('s-min', -32768, -2147483648, -9223372036854775808, -3.4e38, -1.7e308, 0, 'min'),
  ('s-null', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO sf SELECT * FROM sf_native;

-- A query on both tables (the foreign table t, and t_native in its place):
-- the foreign table's row count, and MISMATCH if the rows differ.
CREATE FUNCTION sf_check(q text, t text DEFAULT 'sf') RETURNS text LANGUAGE plpgsql AS $$
DECLARE a text; b text; n bigint;
BEGIN
  EXECUTE format('SELECT string_agg(x::text, '','' ORDER BY x::text), count(*) FROM (%s) x', q) INTO a, n;
  EXECUTE format('SELECT string_agg(x::text, '','' ORDER BY x::text) FROM (%s) x',
                 replace(q, 'FROM ' || t || ' ', 'FROM ' || t || '_native ')) INTO b;
  IF a IS DISTINCT FROM b THEN
    RETURN 'MISMATCH: ' || q || ' foreign=' || coalesce(a, '<none>') || ' native=' || coalesce(b, '<none>');
  END IF;
  RETURN n || ' rows';
END $$;

-- what goes to storage, and what does not
EXPLAIN (COSTS OFF) SELECT k FROM sf WHERE f8 > 1000;
EXPLAIN (COSTS OFF) SELECT k FROM sf WHERE 1000 < f8;
EXPLAIN (COSTS OFF) SELECT k FROM sf WHERE i2 = 5 AND i8 <> 0 AND f4 <= 1.5 AND "Odd Name" >= 3;
EXPLAIN (COSTS OFF) SELECT k FROM sf WHERE k LIKE 'r1%' AND i4 < 0;
-- not numbers, not a column alone, not a comparison, an OR, a volatile value: checked here only
EXPLAIN (COSTS OFF) SELECT k FROM sf WHERE t > 'text 5';
EXPLAIN (COSTS OFF) SELECT k FROM sf WHERE abs(i4) > 5;
EXPLAIN (COSTS OFF) SELECT k FROM sf WHERE i4 > i8;
EXPLAIN (COSTS OFF) SELECT k FROM sf WHERE i4 > 5 OR i8 > 5;
EXPLAIN (COSTS OFF) SELECT k FROM sf WHERE f8 > random();
EXPLAIN (COSTS OFF) SELECT k FROM sf WHERE i4 IS NULL;
-- a scan that locks its rows reads them again under the lock: no filter
EXPLAIN (COSTS OFF) SELECT k FROM sf WHERE i4 > 5 FOR UPDATE;
EXPLAIN (COSTS OFF) UPDATE sf SET t = t WHERE i4 > 5;

-- every operator on every type, both ways round, cross-type too
SELECT q, sf_check(q) FROM (VALUES
  ('SELECT k FROM sf WHERE i2 < 0'), ('SELECT k FROM sf WHERE i2 <= -1'),
  ('SELECT k FROM sf WHERE i2 = 11'), ('SELECT k FROM sf WHERE i2 >= 90'),
  ('SELECT k FROM sf WHERE i2 > 90'), ('SELECT k FROM sf WHERE i2 <> 0'),
  ('SELECT k FROM sf WHERE i2 > 100000'), ('SELECT k FROM sf WHERE i2 > -100000::bigint'),
  ('SELECT k FROM sf WHERE 0 > i2'), ('SELECT k FROM sf WHERE i2 = 32767::smallint'),
  ('SELECT k FROM sf WHERE i4 < -400'), ('SELECT k FROM sf WHERE i4 <= 0'),
  ('SELECT k FROM sf WHERE i4 = 2147483647'), ('SELECT k FROM sf WHERE i4 >= 250'),
  ('SELECT k FROM sf WHERE i4 > -2147483648'), ('SELECT k FROM sf WHERE i4 <> 1'),
  ('SELECT k FROM sf WHERE i4 > 3::smallint'), ('SELECT k FROM sf WHERE i4 < 5000000000'),
  ('SELECT k FROM sf WHERE -400 <= i4'),
  ('SELECT k FROM sf WHERE i8 < 0'), ('SELECT k FROM sf WHERE i8 <= -9223372036854775808'),
  ('SELECT k FROM sf WHERE i8 = 2'), ('SELECT k FROM sf WHERE i8 >= 2000'),
  ('SELECT k FROM sf WHERE i8 > 9223372036854775806'), ('SELECT k FROM sf WHERE i8 <> 0'),
  ('SELECT k FROM sf WHERE i8 > 7::smallint'), ('SELECT k FROM sf WHERE i8 = 1::integer'),
  ('SELECT k FROM sf WHERE f4 < 0'), ('SELECT k FROM sf WHERE f4 <= -0.0'),
  ('SELECT k FROM sf WHERE f4 = 0'), ('SELECT k FROM sf WHERE f4 >= 5.25'),
  ('SELECT k FROM sf WHERE f4 > ''Infinity''::real'), ('SELECT k FROM sf WHERE f4 <> 0.5::real'),
  ('SELECT k FROM sf WHERE f4 = ''NaN''::real'), ('SELECT k FROM sf WHERE f4 < ''NaN''::float8'),
  ('SELECT k FROM sf WHERE f4 >= ''Infinity'''), ('SELECT k FROM sf WHERE f4 > 1.1'),
  ('SELECT k FROM sf WHERE f4 > 3e38'), ('SELECT k FROM sf WHERE ''-Infinity''::real < f4'),
  ('SELECT k FROM sf WHERE f8 < -4.5'), ('SELECT k FROM sf WHERE f8 <= 0'),
  ('SELECT k FROM sf WHERE f8 = -0.0'), ('SELECT k FROM sf WHERE f8 >= 4.5'),
  ('SELECT k FROM sf WHERE f8 > 1000'), ('SELECT k FROM sf WHERE f8 <> 0.3'),
  ('SELECT k FROM sf WHERE f8 = ''NaN'''), ('SELECT k FROM sf WHERE f8 > ''Infinity'''),
  ('SELECT k FROM sf WHERE f8 >= ''Infinity'''), ('SELECT k FROM sf WHERE f8 < ''-Infinity'''),
  ('SELECT k FROM sf WHERE f8 <> ''NaN'''), ('SELECT k FROM sf WHERE f8 > 1.5::real'),
  ('SELECT k FROM sf WHERE 0.25 >= f8'), ('SELECT k FROM sf WHERE "Odd Name" > 150'),
  -- several at once, with the row key, in reverse, with a limit
  ('SELECT k FROM sf WHERE i2 > 0 AND i4 > 0 AND i8 > 0 AND f4 > 0 AND f8 > 0'),
  ('SELECT k FROM sf WHERE i4 > 0 AND i4 < 300'),
  ('SELECT k FROM sf WHERE k LIKE ''r1%'' AND f8 < 0'),
  ('SELECT k FROM sf WHERE k BETWEEN ''r050'' AND ''r150'' AND i2 >= 0 ORDER BY k DESC'),
  ('SELECT k FROM sf WHERE i8 > 0 ORDER BY k DESC LIMIT 7'),
  ('SELECT k FROM sf WHERE i8 > 0 ORDER BY k LIMIT 7'),
  ('SELECT count(*) FROM sf WHERE f8 > 1000'),
  ('SELECT k, i4 FROM sf WHERE i4 > 5 OR i8 > 5'),
  ('SELECT k FROM sf WHERE i4 = NULL::integer'),
  -- a value from the outer row: a new filter at each rescan
  ('SELECT n.k, (SELECT count(*) FROM sf s WHERE s.i4 > n.i4) FROM sf_native n WHERE n.k < ''r030''')
) v(q);

-- a join probing by key with a comparison to the outer row: both go down
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT o.k, s.i4 FROM sf_native o JOIN sf s ON s.k = o.k AND s.i4 > o.i2 * 5
  WHERE o.k < 'r006';
SELECT o.k, s.i4 FROM sf_native o JOIN sf s ON s.k = o.k AND s.i4 > o.i2 * 5 WHERE o.k < 'r006' ORDER BY 1;
SELECT o.k, s.i4 FROM sf_native o JOIN sf_native s ON s.k = o.k AND s.i4 > o.i2 * 5 WHERE o.k < 'r006' ORDER BY 1;
RESET enable_hashjoin;
RESET enable_mergejoin;

-- EXPLAIN ANALYZE: the rows storage read and those its filter left out
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM sf WHERE f8 > 1000;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT k FROM sf WHERE i2 = 11;

-- the heat map counts the rows a filter left out as scanned, not as reads
-- (rows returned): a table of its own, read once
CREATE FOREIGN TABLE sf_heat (k text OPTIONS (rowkey 'true') COLLATE "C", v integer)
  SERVER sf_srv OPTIONS (table 'heat');
INSERT INTO sf_heat SELECT 'h' || lpad(g::text, 3, '0'), g FROM generate_series(1, 100) g;
SELECT count(*) FROM sf_heat WHERE v > 90;
SELECT reads, rows_scanned FROM widecolumn.stat_tables
  WHERE server = 'sf_srv' AND table_name = 'heat';

-- a generic plan's filter takes the parameter's value at each execution
PREPARE sfq(float8) AS SELECT count(*) FROM sf WHERE f8 > $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE sfq(0);
EXECUTE sfq(0);
SELECT count(*) FROM sf_native WHERE f8 > 0;
EXECUTE sfq(4);
SELECT count(*) FROM sf_native WHERE f8 > 4;
EXECUTE sfq('NaN');
EXECUTE sfq(NULL);
RESET plan_cache_mode;
DEALLOCATE sfq;

-- a transaction reads its own writes: a row it changed so that it passes,
-- a row it added, and not a row it deleted or changed so that it fails
BEGIN;
UPDATE sf SET f8 = 1e9 WHERE k = 'r001';
INSERT INTO sf (k, f8) VALUES ('r999', 2e9);
DELETE FROM sf WHERE k = 's-inf';
UPDATE sf SET f8 = 0 WHERE k = 's-max';
EXPLAIN (COSTS OFF) SELECT k, f8 FROM sf WHERE f8 > 1e6;
SELECT k, f8 FROM sf WHERE f8 > 1e6;
ROLLBACK;
SELECT k, f8 FROM sf WHERE f8 > 1e6;
-- a savepoint's writes, rolled back
BEGIN;
SAVEPOINT a;
UPDATE sf SET i4 = 99999 WHERE k = 'r002';
SELECT k FROM sf WHERE i4 > 99998;
ROLLBACK TO a;
SELECT k FROM sf WHERE i4 > 99998;
COMMIT;

-- a cell of the filter's column that is not its type's width: the error,
-- not a silent skip
CREATE FOREIGN TABLE sf_wide (k text OPTIONS (rowkey 'true') COLLATE "C",
    i4 bigint) SERVER sf_srv OPTIONS (table 'sf');
INSERT INTO sf_wide VALUES ('r-wide', 7);
SELECT k FROM sf WHERE i4 > 1000000;
SELECT k FROM sf WHERE i4 = 7;
-- ... but a row the filters leave out is not decoded: a bad cell in another
-- of its columns goes unnoticed (r-wide has no f8 cell)
SELECT k, i4 FROM sf WHERE f8 > 1e300;
DELETE FROM sf_wide WHERE k = 'r-wide';
SELECT k FROM sf WHERE i4 > 1000000;
-- one cell mapped by two columns of different types: each its own filter
CREATE FOREIGN TABLE sf_alias (k text OPTIONS (rowkey 'true') COLLATE "C",
    a bigint OPTIONS (column 'cf:i8'), b bigint OPTIONS (column 'cf:i8'),
    c bytea OPTIONS (column 'cf:i8')) SERVER sf_srv OPTIONS (table 'sf');
EXPLAIN (COSTS OFF) SELECT k, a, b, c FROM sf_alias WHERE a > -2260 AND b < -2240;
SELECT k, a, b, c FROM sf_alias WHERE a > -2260 AND b < -2240 ORDER BY k;
SELECT k, i8 FROM sf_native WHERE i8 > -2260 AND i8 < -2240 ORDER BY k;

-- a column of a domain over integer: stored, and compared, as its base type
CREATE DOMAIN sf_int AS integer;
CREATE FOREIGN TABLE sf_dom (k text OPTIONS (rowkey 'true') COLLATE "C",
    i4 sf_int) SERVER sf_srv OPTIONS (table 'sf');
EXPLAIN (COSTS OFF) SELECT k FROM sf_dom WHERE i4 > 400;
SELECT count(*) FROM sf_dom WHERE i4 > 400;
SELECT count(*) FROM sf_native WHERE i4 > 400;

-- a column of an aggregate family: the fold of its merges is what compares
SELECT widecolumn.create_family('sf_srv', 'counts', 'c', aggregate => 'sum');
CREATE FOREIGN TABLE sf_counts (k text OPTIONS (rowkey 'true') COLLATE "C",
    n bigint OPTIONS (column 'c:n'), m integer OPTIONS (column 'c:m'))
    SERVER sf_srv OPTIONS (table 'counts');
INSERT INTO sf_counts VALUES ('a', 5, 5), ('b', 1, 1), ('a', 5, 5), ('b', 1, 1), ('c', 20, 20);
-- (a narrower column's fold may be out of its range: PostgreSQL checks it)
EXPLAIN (COSTS OFF) SELECT k FROM sf_counts WHERE n > 9 AND m > 9;
SELECT k, n FROM sf_counts WHERE n > 9 ORDER BY k;
SELECT k, m FROM sf_counts WHERE m > 9 ORDER BY k;
SELECT k, n FROM sf_counts WHERE n = 2 ORDER BY k;

-- dates and timestamps: stored as integers of their order, compared with a
-- value of the column's own type (a date against a timestamp is converted
-- first, which storage does not do: checked here)
CREATE FOREIGN TABLE sft (k text OPTIONS (rowkey 'true') COLLATE "C",
    d date, ts timestamp, tz timestamptz) SERVER sf_srv OPTIONS (table 'sft');
CREATE TABLE sft_native (k text COLLATE "C" PRIMARY KEY, d date, ts timestamp,
    tz timestamptz);
INSERT INTO sft_native
  SELECT 't' || lpad(g::text, 3, '0'),
         CASE WHEN g % 11 = 0 THEN NULL ELSE date '2000-01-01' + (g * 97 % 20000 - 10000) END,
         CASE WHEN g % 13 = 0 THEN NULL
              ELSE timestamp '1970-01-01' + (g * 7919 % 200000 - 100000) * interval '1 hour' END,
         CASE WHEN g % 7 = 0 THEN NULL
              ELSE timestamptz '2021-03-05 12:04:00+00' + (g * 31 % 400 - 200) * interval '1 minute' END
  FROM generate_series(1, 200) g;
INSERT INTO sft_native VALUES
  ('u-inf', 'infinity', 'infinity', 'infinity'),
  ('u-ninf', '-infinity', '-infinity', '-infinity'),
  ('u-min', '4713-11-24 BC', '4713-11-24 00:00:00 BC', '4713-11-24 00:00:00+00 BC'),
  ('u-max', '5874897-12-31', '294246-12-31 23:59:59.999999', '294246-12-31 23:59:59.999999+00'),
  ('u-null', NULL, NULL, NULL);
INSERT INTO sft SELECT * FROM sft_native;
EXPLAIN (COSTS OFF) SELECT k FROM sft WHERE d >= '2001-01-01' AND ts < '1975-06-01'
  AND tz > '2021-03-05 12:00:00+00';
EXPLAIN (COSTS OFF) SELECT k FROM sft WHERE tz > now() - interval '1 day';
EXPLAIN (COSTS OFF) SELECT k FROM sft WHERE d < timestamp '2001-01-01 12:00';
EXPLAIN (COSTS OFF) SELECT k FROM sft WHERE ts > tz;
SELECT q, sf_check(q, 'sft') FROM (VALUES
  ('SELECT k FROM sft WHERE d < ''2000-01-01'''), ('SELECT k FROM sft WHERE d <= ''1990-05-17'''),
  ('SELECT k FROM sft WHERE d = ''2000-01-01''::date + 97 - 10000'), ('SELECT k FROM sft WHERE d >= ''2010-01-01'''),
  ('SELECT k FROM sft WHERE d > ''infinity'''), ('SELECT k FROM sft WHERE d >= ''infinity'''),
  ('SELECT k FROM sft WHERE d < ''-infinity'''), ('SELECT k FROM sft WHERE d <= ''-infinity'''),
  ('SELECT k FROM sft WHERE d <> ''infinity'''), ('SELECT k FROM sft WHERE d > ''4713-11-24 BC'''),
  ('SELECT k FROM sft WHERE ''2000-01-01'' > d'), ('SELECT k FROM sft WHERE d < ''5874897-12-31'''),
  ('SELECT k FROM sft WHERE ts < ''1970-01-01'''), ('SELECT k FROM sft WHERE ts <= ''1969-12-31 23:00'''),
  ('SELECT k FROM sft WHERE ts = ''1970-01-01''::timestamp + (7919 - 100000) * interval ''1 hour'''),
  ('SELECT k FROM sft WHERE ts >= ''1975-01-01'''), ('SELECT k FROM sft WHERE ts <> ''1970-01-01'''),
  ('SELECT k FROM sft WHERE ts > ''infinity'''), ('SELECT k FROM sft WHERE ts >= ''infinity'''),
  ('SELECT k FROM sft WHERE ts < ''-infinity'''), ('SELECT k FROM sft WHERE ts <= ''-infinity'''),
  ('SELECT k FROM sft WHERE ts > ''4713-11-24 00:00:00 BC'''),
  ('SELECT k FROM sft WHERE ts >= ''294246-12-31 23:59:59.999999'''),
  ('SELECT k FROM sft WHERE ts < ''294270-01-01'''), ('SELECT k FROM sft WHERE ts > ''294270-01-01'''),
  ('SELECT k FROM sft WHERE ''1971-01-01'' <= ts'),
  ('SELECT k FROM sft WHERE tz < ''2021-03-05 12:04:00+00'''), ('SELECT k FROM sft WHERE tz <= ''2021-03-05 04:04:00-08'''),
  ('SELECT k FROM sft WHERE tz = ''2021-03-05 09:15:00+00'''), ('SELECT k FROM sft WHERE tz > ''2021-03-05 14:00:00+02'''),
  ('SELECT k FROM sft WHERE tz <> ''2021-03-05 09:15:00+00'''), ('SELECT k FROM sft WHERE tz > ''infinity'''),
  ('SELECT k FROM sft WHERE tz <= ''-infinity'''), ('SELECT k FROM sft WHERE tz < ''294270-01-01 00:00:00+00'''),
  ('SELECT k FROM sft WHERE tz > now()'), ('SELECT k FROM sft WHERE tz < now()'),
  ('SELECT k FROM sft WHERE d >= ''1990-01-01'' AND ts < ''1975-06-01'' AND tz > ''2021-03-05 12:00:00+00'''),
  ('SELECT k FROM sft WHERE d < timestamp ''2001-01-01 12:00'''), ('SELECT k FROM sft WHERE ts > tz')
) v(q);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM sft WHERE tz >= '2021-03-05 15:00:00+00';
SELECT count(*) FROM sft_native WHERE tz >= '2021-03-05 15:00:00+00';
-- a generic plan: the parameter's value at each execution, a late one too
PREPARE sftq(timestamp) AS SELECT count(*) FROM sft WHERE ts > $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE sftq('1970-01-01');
EXECUTE sftq('1970-01-01');
SELECT count(*) FROM sft_native WHERE ts > '1970-01-01';
EXECUTE sftq('294270-01-01');
EXECUTE sftq('-infinity');
SELECT count(*) FROM sft_native WHERE ts > '-infinity';
RESET plan_cache_mode;
DEALLOCATE sftq;

-- booleans (any comparison; a column alone or under NOT too), and text,
-- varchar and bytea compared by = (their cells' bytes, by a hash in the
-- worker; the backend compares the values)
CREATE FOREIGN TABLE sfb (k text OPTIONS (rowkey 'true') COLLATE "C",
    b boolean, t text, v varchar(20), by bytea, n int) SERVER sf_srv OPTIONS (table 'sfb');
CREATE TABLE sfb_native (k text COLLATE "C" PRIMARY KEY, b boolean, t text,
    v varchar(20), by bytea, n int);
INSERT INTO sfb_native
  SELECT 'b' || lpad(g::text, 3, '0'),
         CASE WHEN g % 5 = 0 THEN NULL ELSE g % 3 = 0 END,
         CASE WHEN g % 7 = 0 THEN NULL WHEN g % 11 = 0 THEN '' ELSE 'status ' || (g % 4) END,
         CASE WHEN g % 6 = 0 THEN NULL ELSE 'dev-' || (g % 9) END,
         CASE WHEN g % 8 = 0 THEN NULL ELSE decode(lpad(to_hex(g % 5), 2, '0'), 'hex') END,
         g
  FROM generate_series(1, 120) g;
INSERT INTO sfb_native VALUES
  ('c-unicode', true, 'Ünïcødé ✓', 'ä', '\x00ff00', 1),
  ('c-case', false, 'STATUS 1', 'DEV-1', '\x', 2),
  ('c-space', NULL, 'status 1 ', 'dev-1 ', '\x0000', 3);
INSERT INTO sfb SELECT * FROM sfb_native;
EXPLAIN (COSTS OFF) SELECT k FROM sfb WHERE b AND t = 'status 1' AND v = 'dev-2'
  AND by = '\x03' AND NOT (n > 100);
EXPLAIN (COSTS OFF) SELECT k FROM sfb WHERE NOT b AND 'status 2' = t AND b <> true;
-- text in the C collation and bytea by order too: compared byte by byte,
-- then by length, in the worker
EXPLAIN (COSTS OFF) SELECT k FROM sfb WHERE t >= 'status 1' COLLATE "C" AND t < 'status 3' COLLATE "C"
  AND by < '\x02' AND v <> 'dev-1' COLLATE "C";
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT k FROM sfb WHERE t >= 'status 1' COLLATE "C" AND t < 'status 2' COLLATE "C";
SELECT count(*) FROM sfb_native WHERE t >= 'status 1' COLLATE "C" AND t < 'status 2' COLLATE "C";
-- not to storage: text by anything but = in another collation, a
-- nondeterministic collation, two columns, IS TRUE
CREATE COLLATION sfb_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
EXPLAIN (COSTS OFF) SELECT k FROM sfb WHERE t <> 'status 1' AND t > 'status' COLLATE "en-x-icu";
EXPLAIN (COSTS OFF) SELECT k FROM sfb WHERE t = 'STATUS 1' COLLATE sfb_ci;
EXPLAIN (COSTS OFF) SELECT k FROM sfb WHERE t = v OR b IS TRUE;
SELECT q, sf_check(q, 'sfb') FROM (VALUES
  ('SELECT k FROM sfb WHERE b'), ('SELECT k FROM sfb WHERE NOT b'),
  ('SELECT k FROM sfb WHERE b = true'), ('SELECT k FROM sfb WHERE b = false'),
  ('SELECT k FROM sfb WHERE b <> false'), ('SELECT k FROM sfb WHERE b < true'),
  ('SELECT k FROM sfb WHERE b >= false'), ('SELECT k FROM sfb WHERE true > b'),
  ('SELECT k FROM sfb WHERE b IS TRUE'), ('SELECT k FROM sfb WHERE b IS NOT FALSE'),
  ('SELECT k FROM sfb WHERE t = ''status 1'''), ('SELECT k FROM sfb WHERE ''status 2'' = t'),
  ('SELECT k FROM sfb WHERE t = '''''), ('SELECT k FROM sfb WHERE t = ''Ünïcødé ✓'''),
  ('SELECT k FROM sfb WHERE t = ''status 1 '''), ('SELECT k FROM sfb WHERE t = ''nothing'''),
  ('SELECT k FROM sfb WHERE t = ''STATUS 1'' COLLATE sfb_ci'),
  ('SELECT k FROM sfb WHERE t = ''status 3'' COLLATE "C"'),
  ('SELECT k FROM sfb WHERE v = ''dev-1'''), ('SELECT k FROM sfb WHERE v = ''dev-1 '''),
  ('SELECT k FROM sfb WHERE v = ''ä'''), ('SELECT k FROM sfb WHERE v = ''dev-1''::varchar'),
  ('SELECT k FROM sfb WHERE by = ''\x03'''), ('SELECT k FROM sfb WHERE by = ''\x'''),
  ('SELECT k FROM sfb WHERE by = ''\x00ff00'''), ('SELECT k FROM sfb WHERE by = ''\x0000'''),
  ('SELECT k FROM sfb WHERE t <> ''status 1'''), ('SELECT k FROM sfb WHERE by < ''\x02'''),
  ('SELECT k FROM sfb WHERE b AND t = ''status 3'' AND v = ''dev-0'''),
  ('SELECT k FROM sfb WHERE NOT b AND by = ''\x01'' AND n > 10'),
  ('SELECT k FROM sfb WHERE t = v'), ('SELECT k FROM sfb WHERE t = NULL'),
  ('SELECT k FROM sfb WHERE t >= ''status 1'' COLLATE "C" AND t < ''status 3'' COLLATE "C"'),
  ('SELECT k FROM sfb WHERE t > ''status 1'' COLLATE "C"'), ('SELECT k FROM sfb WHERE t <= '''' COLLATE "C"'),
  ('SELECT k FROM sfb WHERE t < ''status'' COLLATE "C"'), ('SELECT k FROM sfb WHERE ''status 2'' COLLATE "C" > t'),
  ('SELECT k FROM sfb WHERE t <> ''status 1'' COLLATE "C"'), ('SELECT k FROM sfb WHERE t >= ''Ü'' COLLATE "C"'),
  ('SELECT k FROM sfb WHERE v < ''dev-5'' COLLATE "C"'), ('SELECT k FROM sfb WHERE v >= ''dev-1 '' COLLATE "C"'),
  ('SELECT k FROM sfb WHERE by > ''\x00'''), ('SELECT k FROM sfb WHERE by <= ''\x00ff'''),
  ('SELECT k FROM sfb WHERE by >= ''\x'''), ('SELECT k FROM sfb WHERE by <> ''\x03''')
) v(q);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT k FROM sfb WHERE t = 'status 2' AND NOT b;
SELECT count(*) FROM sfb_native WHERE t = 'status 2' AND NOT b;
-- a generic plan's parameter: each execution's value, NULL too
PREPARE sfbq(text) AS SELECT count(*) FROM sfb WHERE t = $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE sfbq('status 0');
EXECUTE sfbq('status 0');
SELECT count(*) FROM sfb_native WHERE t = 'status 0';
EXECUTE sfbq('status 3');
SELECT count(*) FROM sfb_native WHERE t = 'status 3';
EXECUTE sfbq(NULL);
RESET plan_cache_mode;
DEALLOCATE sfbq;
-- boolean = and <> with a parameter (a constant's are folded into b and
-- NOT b), NULL too; text, varchar and bytea parameters
PREPARE sfbb(boolean) AS SELECT count(*) FROM sfb WHERE b = $1;
PREPARE sfbn(boolean) AS SELECT count(*) FROM sfb WHERE b <> $1;
PREPARE sfbl(boolean) AS SELECT count(*) FROM sfb WHERE b < $1;
PREPARE sfbv(varchar) AS SELECT count(*) FROM sfb WHERE v = $1;
PREPARE sfby(bytea) AS SELECT count(*) FROM sfb WHERE by = $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE sfbb(true);
EXPLAIN (COSTS OFF) EXECUTE sfbn(true);
EXPLAIN (COSTS OFF) EXECUTE sfbl(true);
EXPLAIN (COSTS OFF) EXECUTE sfbv('dev-1');
EXPLAIN (COSTS OFF) EXECUTE sfby('\x03');
EXECUTE sfbb(true);
EXECUTE sfbb(false);
SELECT count(*) FILTER (WHERE b) AS native_true, count(*) FILTER (WHERE NOT b) AS native_false
  FROM sfb_native;
EXECUTE sfbb(NULL);
EXECUTE sfbn(true);
EXECUTE sfbn(false);
EXECUTE sfbl(true);
EXECUTE sfbl(false);
EXECUTE sfbv('dev-1');
SELECT count(*) FROM sfb_native WHERE v = 'dev-1';
EXECUTE sfby('\x03');
SELECT count(*) FROM sfb_native WHERE by = '\x03';
RESET plan_cache_mode;
DEALLOCATE sfbb;
DEALLOCATE sfbn;
DEALLOCATE sfbl;
DEALLOCATE sfbv;
DEALLOCATE sfby;
-- a column declared with a nondeterministic collation stays local, unless
-- the comparison names a deterministic one; domains over text, boolean and
-- date are compared as their base types
CREATE DOMAIN sfb_text AS text;
CREATE DOMAIN sfb_bool AS boolean;
CREATE DOMAIN sfb_date AS date;
CREATE FOREIGN TABLE sfb_more (k text OPTIONS (rowkey 'true') COLLATE "C",
    tci text OPTIONS (column 'cf:t') COLLATE sfb_ci,
    td sfb_text OPTIONS (column 'cf:t'), bd sfb_bool OPTIONS (column 'cf:b'))
    SERVER sf_srv OPTIONS (table 'sfb');
EXPLAIN (COSTS OFF) SELECT k FROM sfb_more WHERE tci = 'STATUS 1';
EXPLAIN (COSTS OFF) SELECT k FROM sfb_more WHERE tci = 'status 1' COLLATE "C";
EXPLAIN (COSTS OFF) SELECT k FROM sfb_more WHERE td = 'status 1' AND bd;
SELECT count(*) FROM sfb_more WHERE tci = 'STATUS 1';
SELECT count(*) FROM sfb_native WHERE t = 'STATUS 1' COLLATE sfb_ci;
SELECT count(*) FROM sfb_more WHERE tci = 'status 1' COLLATE "C";
SELECT count(*) FROM sfb_more WHERE td = 'status 1' AND bd;
SELECT count(*) FROM sfb_native WHERE t = 'status 1' AND b;
CREATE FOREIGN TABLE sft_dom (k text OPTIONS (rowkey 'true') COLLATE "C",
    d sfb_date OPTIONS (column 'cf:d')) SERVER sf_srv OPTIONS (table 'sft');
EXPLAIN (COSTS OFF) SELECT k FROM sft_dom WHERE d >= '2010-01-01';
SELECT count(*) FROM sft_dom WHERE d >= '2010-01-01';
SELECT count(*) FROM sft_native WHERE d >= '2010-01-01';
-- other types meeting text, and a timestamp meeting a timestamptz: local
EXPLAIN (COSTS OFF) SELECT k FROM sfb WHERE t = 'status 1'::name;
EXPLAIN (COSTS OFF) SELECT k FROM sfb WHERE t = 'ab '::char(3);
EXPLAIN (COSTS OFF) SELECT k FROM sft WHERE ts < now() AND tz < timestamp '2021-03-05 12:00';
SELECT count(*) FROM sfb WHERE t = 'status 1'::name;
SELECT count(*) FROM sfb_native WHERE t = 'status 1'::name;
-- a text cell that is not valid text is compared by its bytes: a row
-- whose t differs from the value is left out undecoded (no error), one
-- that is read raises it
CREATE FOREIGN TABLE sfb_rawt (k text OPTIONS (rowkey 'true') COLLATE "C",
    t bytea) SERVER sf_srv OPTIONS (table 'sfb');
INSERT INTO sfb_rawt VALUES ('b-badtext', '\xff00');
SELECT count(*) FROM sfb WHERE t = 'status 1';
SELECT count(*) FROM sfb WHERE t <> 'status 1';
DELETE FROM sfb_rawt WHERE k = 'b-badtext';
-- a cell of a boolean column that is not 0 or 1 (an integer's, through
-- another table): the error, not a silent skip
CREATE FOREIGN TABLE sfb_int (k text OPTIONS (rowkey 'true') COLLATE "C",
    b integer) SERVER sf_srv OPTIONS (table 'sfb');
INSERT INTO sfb_int VALUES ('b-bad', 7);
SELECT k FROM sfb WHERE b;
DELETE FROM sfb_int WHERE k = 'b-bad';
-- ... and one byte that is neither 0 nor 1
CREATE FOREIGN TABLE sfb_raw (k text OPTIONS (rowkey 'true') COLLATE "C",
    b bytea) SERVER sf_srv OPTIONS (table 'sfb');
INSERT INTO sfb_raw VALUES ('b-bad', '\x07');
SELECT k FROM sfb WHERE NOT b;
DELETE FROM sfb_raw WHERE k = 'b-bad';
SELECT count(*) FROM sfb WHERE NOT b;

-- IN lists (= ANY of an array): the worker gets the array's values, a row
-- passes if its cell equals one of them; NULL elements match nothing
EXPLAIN (COSTS OFF) SELECT k FROM sf WHERE i4 IN (419, 338, -1);
EXPLAIN (COSTS OFF) SELECT k FROM sfb WHERE t IN ('status 1', 'status 2') AND b;
EXPLAIN (COSTS OFF) SELECT k FROM sft WHERE d IN ('2001-01-01', '1999-12-31') AND tz IN ('infinity');
-- not to storage: NOT IN, another comparison than =, values read from the
-- table, a nondeterministic collation
EXPLAIN (COSTS OFF) SELECT k FROM sf WHERE i4 NOT IN (1, 2) AND i8 > ANY ('{1,2}');
EXPLAIN (COSTS OFF) SELECT k FROM sf WHERE i4 = ANY (ARRAY[i2, 5]);
EXPLAIN (COSTS OFF) SELECT k FROM sfb WHERE t COLLATE sfb_ci IN ('STATUS 1', 'x');
SELECT q, sf_check(q, t) FROM (VALUES
  ('SELECT k FROM sf WHERE i2 IN (-63, -26, 11, 100)', 'sf'),
  ('SELECT k FROM sf WHERE i4 IN (419, 338, -1, 2147483647, -2147483648)', 'sf'),
  ('SELECT k FROM sf WHERE i8 IN (1, -2500, 9223372036854775807)', 'sf'),
  ('SELECT k FROM sf WHERE i4 = ANY (''{419,338,1}''::bigint[])', 'sf'),
  ('SELECT k FROM sf WHERE i8 = ANY (''{1,3}''::smallint[])', 'sf'),
  ('SELECT k FROM sf WHERE f4 IN (1.5, ''NaN'', -6)', 'sf'),
  ('SELECT k FROM sf WHERE f8 IN (''NaN'', 0, ''Infinity'', -4.9)', 'sf'),
  ('SELECT k FROM sf WHERE f8 = ANY (''{-Infinity,1.5,-4.9}''::float4[])', 'sf'),
  ('SELECT k FROM sf WHERE i4 IN (419, NULL)', 'sf'),
  ('SELECT k FROM sf WHERE i4 = ANY (''{NULL,NULL}''::int[])', 'sf'),
  ('SELECT k FROM sf WHERE i4 = ANY (''{}''::int[])', 'sf'),
  ('SELECT k FROM sf WHERE i4 = ANY (NULL::int[])', 'sf'),
  ('SELECT k FROM sf WHERE i4 IN (419, 338, -1) AND i4 IN (338, 7)', 'sf'),
  ('SELECT k FROM sf WHERE i4 IN (419, 338, -1) AND i4 > 0 AND i2 IN (-63, 82)', 'sf'),
  ('SELECT k FROM sf WHERE i4 NOT IN (419, 338)', 'sf'),
  ('SELECT k FROM sf WHERE i4 = ANY (ARRAY(SELECT generate_series(-500, -400)))', 'sf'),
  ('SELECT k FROM sft WHERE d IN (''2001-01-01'', ''1999-12-31'', ''infinity'')', 'sft'),
  ('SELECT k FROM sft WHERE ts = ANY (ARRAY[timestamp ''1970-01-01'', ''-infinity''])', 'sft'),
  ('SELECT k FROM sft WHERE tz IN (''2021-03-05 09:15:00+00'', ''2021-03-05 10:46:00+01'')', 'sft'),
  ('SELECT k FROM sft WHERE d = ANY (ARRAY(SELECT d FROM sft_native WHERE k < ''t020''))', 'sft'),
  ('SELECT k FROM sft WHERE ts = ANY (ARRAY(SELECT ts FROM sft_native WHERE k >= ''t190''))', 'sft'),
  ('SELECT k FROM sft WHERE tz = ANY (ARRAY(SELECT tz FROM sft_native WHERE k BETWEEN ''t100'' AND ''t130''))', 'sft'),
  ('SELECT k FROM sft WHERE ts IN (''294270-01-01'', ''1970-01-01'', ''294246-12-31 23:59:59.999999'')', 'sft'),
  ('SELECT k FROM sfb WHERE b IN (true)', 'sfb'),
  ('SELECT k FROM sfb WHERE b IN (false, NULL)', 'sfb'),
  ('SELECT k FROM sfb WHERE t IN (''status 1'', '''', ''Ünïcødé ✓'', ''nothing'')', 'sfb'),
  ('SELECT k FROM sfb WHERE t COLLATE sfb_ci IN (''STATUS 1'', ''status 2'')', 'sfb'),
  ('SELECT k FROM sfb WHERE v IN (''dev-1'', ''ä'', ''dev-1 '')', 'sfb'),
  ('SELECT k FROM sfb WHERE by IN (''\x03'', ''\x'', ''\x00ff00'')', 'sfb'),
  ('SELECT k FROM sfb WHERE t IN (''status 1'', ''status 3'') AND v IN (''dev-1'', ''dev-3'') AND b', 'sfb')
) v(q, t);
-- the rows the set left out; more values than a request takes (64): the
-- whole list stays here
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM sf WHERE i4 IN (419, 338, -1);
SELECT count(*) FROM sf_native WHERE i4 IN (419, 338, -1);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM sf WHERE i4 = ANY (ARRAY(SELECT generate_series(-500, -400)));
SELECT count(*) FROM sf_native WHERE i4 = ANY (ARRAY(SELECT generate_series(-500, -400)));
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM sf WHERE i4 = ANY (ARRAY(SELECT generate_series(-500, -437)));
SELECT count(*) FROM sf_native WHERE i4 = ANY (ARRAY(SELECT generate_series(-500, -437)));
-- more constant values than a request takes (65): the list stays here,
-- the other comparison goes
EXPLAIN (COSTS OFF) SELECT k FROM sf WHERE i2 > 0 AND i4 = ANY ('{-500,-499,-498,-497,-496,-495,-494,-493,-492,-491,-490,-489,-488,-487,-486,-485,-484,-483,-482,-481,-480,-479,-478,-477,-476,-475,-474,-473,-472,-471,-470,-469,-468,-467,-466,-465,-464,-463,-462,-461,-460,-459,-458,-457,-456,-455,-454,-453,-452,-451,-450,-449,-448,-447,-446,-445,-444,-443,-442,-441,-440,-439,-438,-437,-436}'::int[]);
SELECT sf_check('SELECT k FROM sf WHERE i2 > 0 AND i4 = ANY (''{-500,-499,-498,-497,-496,-495,-494,-493,-492,-491,-490,-489,-488,-487,-486,-485,-484,-483,-482,-481,-480,-479,-478,-477,-476,-475,-474,-473,-472,-471,-470,-469,-468,-467,-466,-465,-464,-463,-462,-461,-460,-459,-458,-457,-456,-455,-454,-453,-452,-451,-450,-449,-448,-447,-446,-445,-444,-443,-442,-441,-440,-439,-438,-437,-436}''::int[])');
-- two lists on one column: the first goes (the rows it left out), the
-- second stays here
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT k FROM sf WHERE i4 IN (419, 338, -1) AND i4 IN (338, 7, 22, 23, 24);
-- an outer row's values, at each rescan
EXPLAIN (COSTS OFF) SELECT n.k, (SELECT count(*) FROM sf s WHERE s.i4 = ANY (ARRAY[n.i4, n.i2])) FROM sf_native n;
SELECT sf_check('SELECT n.k, (SELECT count(*) FROM sf s WHERE s.i4 = ANY (ARRAY[n.i4, n.i2 + 400])) FROM sf_native n');
-- a subquery run again for each row it is checked on (correlated with the
-- outer row of a join) stays here: storage would see one run of it
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT n.k FROM sf_native n JOIN sf s ON s.k = n.k
  AND s.i4 = ANY (ARRAY(SELECT n.i4 + g FROM generate_series(0, 1) g)) AND s.i2 IN (1, 2)
  WHERE n.k < 'r006';
SELECT sf_check('SELECT n.k FROM sf_native n JOIN sf s ON s.k = n.k
  AND s.i4 = ANY (ARRAY(SELECT n.i4 + g FROM generate_series(0, 1) g)) AND s.i2 IN (1, 2)
  WHERE n.k < ''r100''');
RESET enable_hashjoin;
RESET enable_mergejoin;
-- a domain column, a domain's array, columns of one cell
SELECT count(*) FROM sf_dom WHERE i4 IN (419, 338, -1);
SELECT count(*) FROM sf_dom WHERE i4 = ANY ('{419,338}'::sf_int[]);
SELECT count(*) FROM sf_native WHERE i4 IN (419, 338, -1);
SELECT k, a, b, c FROM sf_alias WHERE a IN (-2500, 1, 3) AND c IN ('\x0000000000000001', '\x00');
SELECT k, i8 FROM sf_native WHERE i8 IN (-2500, 1, 3) AND i8 = 1;
EXPLAIN (COSTS OFF) SELECT k FROM sf_dom WHERE i4 = ANY ('{419,338}'::sf_int[]);
-- a cell of the wrong width: the error, from a list too
INSERT INTO sf_wide VALUES ('r-wide', 7);
SELECT k FROM sf WHERE i4 IN (7, 8);
DELETE FROM sf_wide WHERE k = 'r-wide';
-- a generic plan's array parameter: each execution's values, NULLs too
PREPARE sfin(int[]) AS SELECT count(*) FROM sf WHERE i4 = ANY ($1);
PREPARE sftin(text[]) AS SELECT count(*) FROM sfb WHERE t = ANY ($1);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE sfin('{1}');
EXECUTE sfin('{419,338,-1}');
EXECUTE sfin('{338,NULL}');
EXECUTE sfin('{NULL}');
EXECUTE sfin('{}');
EXECUTE sfin(NULL);
EXECUTE sftin('{status 1,status 2}');
SELECT count(*) FROM sfb_native WHERE t IN ('status 1', 'status 2');
RESET plan_cache_mode;
DEALLOCATE sfin;
DEALLOCATE sftin;

DROP SERVER sf_srv CASCADE;
DROP TABLE sf_native;
DROP TABLE sft_native;
DROP TABLE sfb_native;
DROP COLLATION sfb_ci;
DROP DOMAIN sfb_text;
DROP DOMAIN sfb_bool;
DROP DOMAIN sfb_date;
DROP FUNCTION sf_check(text, text);
DROP DOMAIN sf_int;
