-- Differential test: thousands of generated queries, each run on the
-- foreign table and on a native table holding the same rows; the results
-- must be the same, row for row (and in the same order where ORDER BY
-- asks for one).  Keys use the awkward bytes: the empty key, 0x00 and 0xFF
-- (bytea), LIKE's special characters and multibyte UTF-8 (text).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER diff_srv FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE dt (k text OPTIONS (rowkey 'true') COLLATE "C", v int, w text) SERVER diff_srv;
CREATE TABLE dt_native (k text COLLATE "C" PRIMARY KEY, v int, w text);
CREATE FOREIGN TABLE db (k bytea OPTIONS (rowkey 'true'), v int, w text) SERVER diff_srv;
CREATE TABLE db_native (k bytea PRIMARY KEY, v int, w text);

SELECT setseed(0.4242);
CREATE FUNCTION diff_rand_text(maxlen int) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg((ARRAY['a','b','#','%','_','\','é','ü','z','A','0','9'])[1 + floor(random() * 12)::int], '')
  FROM generate_series(1, floor(random() * (maxlen + 1))::int)
$$;
CREATE FUNCTION diff_rand_bytes(maxlen int) RETURNS bytea LANGUAGE sql AS $$
  SELECT coalesce(string_agg(set_byte('\x00'::bytea, 0, (ARRAY[0, 1, 37, 95, 97, 127, 254, 255])[1 + floor(random() * 8)::int]), ''::bytea), ''::bytea)
  FROM generate_series(1, floor(random() * (maxlen + 1))::int)
$$;

INSERT INTO dt_native SELECT DISTINCT ON (k) * FROM (
  SELECT coalesce(diff_rand_text(5), '') AS k, (random() * 1000)::int AS v,
         CASE WHEN random() < 0.3 THEN NULL ELSE md5(random()::text) END AS w
  FROM generate_series(1, 700)) s WHERE k <> '' ORDER BY k;  -- Bigtable refuses the empty key
INSERT INTO db_native SELECT DISTINCT ON (k) * FROM (
  SELECT diff_rand_bytes(4) AS k, (random() * 1000)::int AS v,
         CASE WHEN random() < 0.3 THEN NULL ELSE 'x' END AS w
  FROM generate_series(1, 500)) s WHERE k <> ''::bytea ORDER BY k;
SELECT count(*) > 400 AS enough_text_keys FROM dt_native;
SELECT count(*) > 200 AS enough_bytea_keys FROM db_native;
INSERT INTO dt SELECT * FROM dt_native;
INSERT INTO db SELECT * FROM db_native;
SELECT (SELECT count(*) FROM dt) = (SELECT count(*) FROM dt_native) AS same_text_rows,
       (SELECT count(*) FROM db) = (SELECT count(*) FROM db_native) AS same_bytea_rows;

-- A constant near the data: an existing key, a prefix of one, or a key plus a byte.
CREATE FUNCTION diff_const(bytes bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE k text;
BEGIN
  IF bytes THEN
    SELECT encode(x.k, 'hex') INTO k FROM db_native x OFFSET floor(random() * (SELECT count(*) FROM db_native)) LIMIT 1;
    IF random() < 0.3 THEN k := left(k, 2 * floor(random() * (length(k) / 2 + 1))::int);
    ELSIF random() < 0.3 THEN k := k || (ARRAY['00','ff','61'])[1 + floor(random() * 3)::int]; END IF;
    RETURN format('%L::bytea', '\x' || k);
  END IF;
  SELECT x.k INTO k FROM dt_native x OFFSET floor(random() * (SELECT count(*) FROM dt_native)) LIMIT 1;
  IF random() < 0.3 THEN k := left(k, floor(random() * (length(k) + 1))::int);
  ELSIF random() < 0.3 THEN k := k || (ARRAY['a','#','é','~'])[1 + floor(random() * 4)::int]; END IF;
  RETURN quote_literal(k);
END $$;

-- A LIKE pattern made from a key: wildcards, escapes, or nothing special.
CREATE FUNCTION diff_pattern() RETURNS text LANGUAGE plpgsql AS $$
DECLARE k text; p text := ''; c text;
BEGIN
  SELECT x.k INTO k FROM dt_native x OFFSET floor(random() * (SELECT count(*) FROM dt_native)) LIMIT 1;
  k := left(k, floor(random() * (length(k) + 1))::int);
  FOR i IN 1 .. length(k) LOOP
    c := substr(k, i, 1);
    IF c = '\' THEN
      p := p || '\\';
    ELSIF c IN ('%', '_') THEN
      p := p || CASE WHEN random() < 0.7 THEN '\' || c ELSE c END;
    ELSIF random() < 0.1 THEN
      p := p || '_';
    ELSE
      p := p || c;
    END IF;
  END LOOP;
  IF random() < 0.7 THEN p := p || '%'; END IF;
  IF random() < 0.1 THEN p := '%' || p; END IF;
  RETURN quote_literal(p);
END $$;

CREATE FUNCTION diff_atom(bytes bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r float := random();
BEGIN
  IF r < 0.12 THEN RETURN 'k = ' || diff_const(bytes);
  ELSIF r < 0.17 THEN RETURN 'k <> ' || diff_const(bytes);
  ELSIF r < 0.25 THEN RETURN 'k < ' || diff_const(bytes);
  ELSIF r < 0.33 THEN RETURN 'k <= ' || diff_const(bytes);
  ELSIF r < 0.41 THEN RETURN 'k > ' || diff_const(bytes);
  ELSIF r < 0.49 THEN RETURN 'k >= ' || diff_const(bytes);
  ELSIF r < 0.55 THEN RETURN 'k BETWEEN ' || diff_const(bytes) || ' AND ' || diff_const(bytes);
  ELSIF r < 0.63 THEN RETURN 'k IN (' || diff_const(bytes) || ', ' || diff_const(bytes) || ', ' || diff_const(bytes) || ')';
  ELSIF r < 0.67 THEN RETURN 'k = ANY (ARRAY[' || diff_const(bytes) || ', NULL])';
  ELSIF r < 0.69 THEN RETURN CASE WHEN bytes THEN 'k = NULL::bytea' ELSE 'k = NULL::text' END;
  ELSIF r < 0.72 THEN RETURN 'v > ' || floor(random() * 1000)::int;
  ELSIF r < 0.74 THEN RETURN 'w IS NULL';
  ELSIF bytes THEN
    RETURN 'k LIKE ' || diff_const(true);
  ELSIF r < 0.86 THEN RETURN 'k LIKE ' || diff_pattern();
  ELSIF r < 0.93 THEN RETURN 'starts_with(k, ' || diff_const(false) || ')';
  ELSE RETURN 'k ^@ ' || diff_const(false);
  END IF;
END $$;

CREATE FUNCTION diff_pred(bytes bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r float := random();
BEGIN
  IF r < 0.35 THEN RETURN diff_atom(bytes);
  ELSIF r < 0.55 THEN RETURN diff_atom(bytes) || ' AND ' || diff_atom(bytes);
  ELSIF r < 0.80 THEN RETURN diff_atom(bytes) || ' OR ' || diff_atom(bytes) || ' OR ' || diff_atom(bytes);
  ELSIF r < 0.95 THEN RETURN '(' || diff_atom(bytes) || ' OR ' || diff_atom(bytes) || ') AND (' || diff_atom(bytes) || ' OR ' || diff_atom(bytes) || ')';
  ELSE RETURN 'true';
  END IF;
END $$;

-- Run n generated queries against both tables; return the ones that differ.
CREATE FUNCTION diff_run(n int, bytes bool) RETURNS TABLE (queries int, mismatches int, first_bad text)
LANGUAGE plpgsql AS $$
DECLARE q text; tail text; a text; b text; r float; ft text; nt text;
BEGIN
  queries := 0; mismatches := 0;
  ft := CASE WHEN bytes THEN 'db' ELSE 'dt' END;
  nt := ft || '_native';
  FOR i IN 1 .. n LOOP
    r := random();
    IF r < 0.4 THEN tail := ' ORDER BY k';
    ELSIF r < 0.6 THEN tail := ' ORDER BY k DESC';
    ELSIF r < 0.75 THEN tail := ' ORDER BY k LIMIT ' || floor(random() * 20)::int;
    ELSIF r < 0.85 THEN tail := ' ORDER BY k DESC LIMIT ' || floor(random() * 20)::int;
    ELSE tail := '';
    END IF;
    q := 'SELECT k, v, w FROM @T@ WHERE ' || diff_pred(bytes) || tail;
    IF tail = '' THEN
      q := 'SELECT array_agg(x ORDER BY x.k) FROM (' || q || ') x';
    ELSE
      q := 'SELECT array_agg(x) FROM (' || q || ') x';
    END IF;
    EXECUTE replace(q, '@T@', ft) INTO a;
    EXECUTE replace(q, '@T@', nt) INTO b;
    queries := queries + 1;
    IF a IS DISTINCT FROM b THEN
      mismatches := mismatches + 1;
      IF first_bad IS NULL THEN
        first_bad := replace(q, '@T@', ft) || E'\n  foreign: ' || coalesce(left(a, 300), '<none>') || E'\n  native:  ' || coalesce(left(b, 300), '<none>');
      END IF;
    END IF;
  END LOOP;
  RETURN NEXT;
END $$;

SELECT * FROM diff_run(1500, false);
SELECT * FROM diff_run(1000, true);

-- The same inside a transaction that has written to both tables: the scans
-- merge its writes with storage.
BEGIN;
-- INSERT is an upsert that writes only non-NULL columns; the native side
-- says so with ON CONFLICT.
INSERT INTO dt_native SELECT k || 'new', v + 1, w FROM dt_native WHERE v % 7 = 0
  ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, w = coalesce(EXCLUDED.w, dt_native.w);
INSERT INTO dt SELECT k || 'new', v + 1, w FROM dt WHERE v % 7 = 0;
DELETE FROM dt_native WHERE v % 5 = 0;
DELETE FROM dt WHERE v % 5 = 0;
UPDATE dt_native SET w = NULL, v = -v WHERE v % 3 = 0;
UPDATE dt SET w = NULL, v = -v WHERE v % 3 = 0;
INSERT INTO db_native SELECT k || '\x00'::bytea, v, w FROM db_native WHERE v % 4 = 0
  ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, w = coalesce(EXCLUDED.w, db_native.w);
INSERT INTO db SELECT k || '\x00'::bytea, v, w FROM db WHERE v % 4 = 0;
DELETE FROM db_native WHERE v % 6 = 0;
DELETE FROM db WHERE v % 6 = 0;
SELECT * FROM diff_run(700, false);
SELECT * FROM diff_run(500, true);
ROLLBACK;

-- And with generic plans, where every constant is a parameter.
SET plan_cache_mode = force_generic_plan;
PREPARE dq(text, text, text) AS
  SELECT array_agg(x) FROM (SELECT k, v FROM dt WHERE (k >= $1 AND k < $2) OR k = $3 OR k LIKE $3 || '%' ORDER BY k DESC) x;
PREPARE nq(text, text, text) AS
  SELECT array_agg(x) FROM (SELECT k, v FROM dt_native WHERE (k >= $1 AND k < $2) OR k = $3 OR k LIKE $3 || '%' ORDER BY k DESC) x;
CREATE FUNCTION diff_prepared(n int) RETURNS TABLE (queries int, mismatches int) LANGUAGE plpgsql AS $$
DECLARE a text; b text; c1 text; c2 text; c3 text;
BEGIN
  queries := 0; mismatches := 0;
  FOR i IN 1 .. n LOOP
    EXECUTE 'SELECT ' || diff_const(false) || ', ' || diff_const(false) || ', ' || diff_const(false) INTO c1, c2, c3;
    c3 := replace(replace(replace(c3, '\', '\\'), '%', '\%'), '_', '\_');
    EXECUTE format('EXECUTE dq(%L, %L, %L)', c1, c2, c3) INTO a;
    EXECUTE format('EXECUTE nq(%L, %L, %L)', c1, c2, c3) INTO b;
    queries := queries + 1;
    IF a IS DISTINCT FROM b THEN mismatches := mismatches + 1; END IF;
  END LOOP;
  RETURN NEXT;
END $$;
SELECT * FROM diff_prepared(300);
EXPLAIN (COSTS OFF) EXECUTE dq('a', 'b', 'c');
RESET plan_cache_mode;

DROP TABLE dt_native, db_native;
DROP FUNCTION diff_rand_text(int), diff_rand_bytes(int), diff_const(bool), diff_pattern(),
  diff_atom(bool), diff_pred(bool), diff_run(int, bool), diff_prepared(int);
DROP SERVER diff_srv CASCADE;
