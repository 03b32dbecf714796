-- Row-key pushdown: what each form of restriction reads (EXPLAIN) and that
-- the result equals the same query on a native table.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER pd_srv FOREIGN DATA WRAPPER widecolumn_fdw;
-- COLLATE "C": ranges and order are bytewise, so they push down.
CREATE FOREIGN TABLE pd (k text OPTIONS (rowkey 'true') COLLATE "C", v int) SERVER pd_srv;
CREATE TABLE pd_native (k text COLLATE "C" PRIMARY KEY, v int);
INSERT INTO pd_native
  SELECT 'phone#' || lpad(d::text, 4, '0') || '#' || lpad(t::text, 2, '0'), d * 100 + t
  FROM generate_series(1, 50) d, generate_series(1, 20) t;
INSERT INTO pd_native VALUES ('a%b', 1), ('a_b', 2), ('a\b', 3), ('ab', 4), ('é#1', 5), ('é#2', 6);
INSERT INTO pd SELECT * FROM pd_native;

-- Compare a query on both tables; prints nothing when they agree.
CREATE FUNCTION pd_check(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE a text; b text;
BEGIN
  EXECUTE format('SELECT string_agg(x::text, '','') FROM (%s) x', q) INTO a;
  EXECUTE format('SELECT string_agg(x::text, '','') FROM (%s) x', replace(q, 'FROM pd ', 'FROM pd_native ')) INTO b;
  IF a IS DISTINCT FROM b THEN
    RETURN NEXT 'MISMATCH: ' || q || ' foreign=' || coalesce(a, '<none>') || ' native=' || coalesce(b, '<none>');
  END IF;
END $$;

-- point read
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k = 'phone#0007#03';
SELECT * FROM pd WHERE k = 'phone#0007#03';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE 'phone#0007#03' = k;
-- IN and = ANY: sorted, de-duplicated multi-get
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k IN ('phone#0002#01', 'ab', 'nope', 'ab');
SELECT * FROM pd WHERE k IN ('phone#0002#01', 'ab', 'nope', 'ab');
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k = ANY (ARRAY['ab', NULL, 'a%b']);
SELECT * FROM pd WHERE k = ANY (ARRAY['ab', NULL, 'a%b']);
-- prefix: LIKE, starts_with, ^@
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k LIKE 'phone#0003#%';
SELECT count(*), min(k), max(k) FROM pd WHERE k LIKE 'phone#0003#%';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE starts_with(k, 'phone#0004');
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k ^@ 'phone#0004';
SELECT count(*) FROM pd WHERE k ^@ 'phone#0004';
-- LIKE escapes: % and _ are wildcards unless escaped
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k LIKE 'a\%%';
SELECT * FROM pd WHERE k LIKE 'a\%%';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k LIKE 'a_b';
SELECT * FROM pd WHERE k LIKE 'a_b';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k LIKE 'a\\b';
SELECT * FROM pd WHERE k LIKE 'a\\b';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k LIKE 'a!_b' ESCAPE '!';
SELECT * FROM pd WHERE k LIKE 'a!_b' ESCAPE '!';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k LIKE '%b';
-- multibyte prefix
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k LIKE 'é%';
SELECT * FROM pd WHERE k LIKE 'é%';
-- a regular expression anchored at the start, and SIMILAR TO (which the
-- parser makes one): the rows of its fixed prefix, found by PostgreSQL's
-- regex engine as for a btree, the expression checked again; a pattern
-- that is its prefix alone is a point read; without an anchor or a fixed
-- prefix, a full scan
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k ~ '^phone#0003#1';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k SIMILAR TO 'phone#0003#1%';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k SIMILAR TO 'phone#000(3|4)#1_';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k ~ '^ab$';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k ~ 'phone#0003';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k ~ '^(phone|a)';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM pd WHERE k ~ '^phone#0003#1[0-4]';
-- ranges, BETWEEN, contradictions
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k >= 'phone#0010' AND k < 'phone#0011';
SELECT count(*) FROM pd WHERE k >= 'phone#0010' AND k < 'phone#0011';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k BETWEEN 'phone#0049#19' AND 'phone#0050#02';
SELECT * FROM pd WHERE k BETWEEN 'phone#0049#19' AND 'phone#0050#02';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k > 'b' AND k < 'a';
SELECT * FROM pd WHERE k > 'b' AND k < 'a';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k = 'ab' AND k = 'a%b';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k < '' ;
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k = NULL;
-- OR: one ordered pass over disjoint ranges (a skip scan)
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k = 'ab' OR k LIKE 'phone#0001#0%' OR k > 'phone#0050#19';
SELECT * FROM pd WHERE k = 'ab' OR k LIKE 'phone#0001#0%' OR k > 'phone#0050#19';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE (k >= 'phone#0002' AND k < 'phone#0003') OR (k >= 'phone#0002#15' AND k <= 'phone#0004');
-- an OR with an arm that is not about the key cannot be pushed
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k = 'ab' OR v = 7;
-- other predicates stay local filters; no key restriction is a full scan
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k LIKE 'phone#0001%' AND v % 2 = 0;
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE v = 7;
SELECT * FROM pd WHERE v = 7;
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE lower(k) = 'ab';
-- expressions computed once per scan: stable functions, concatenation, format
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k = 'phone#' || '0001' || '#01';
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k = format('phone#%s#%s', lpad('5', 4, '0'), '05');
SELECT * FROM pd WHERE k = format('phone#%s#%s', lpad('5', 4, '0'), '05');
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k < to_char(now(), '"phone#0001"');
-- volatile expressions are not pushed
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k = 'ab' || (CASE WHEN random() < 2 THEN '' END);

-- order: ORDER BY k needs no sort; DESC is a reverse scan; LIMIT stops storage
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k LIKE 'phone#0007%' ORDER BY k;
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k LIKE 'phone#0007%' ORDER BY k DESC LIMIT 3;
SELECT * FROM pd WHERE k LIKE 'phone#0007%' ORDER BY k DESC LIMIT 3;
EXPLAIN (COSTS OFF) SELECT * FROM pd ORDER BY k LIMIT 2 OFFSET 1;
SELECT * FROM pd ORDER BY k LIMIT 2 OFFSET 1;
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE k = 'ab' OR k LIKE 'phone#0001#0%' ORDER BY k DESC;
SELECT * FROM pd WHERE k = 'ab' OR k LIKE 'phone#0001#0%' ORDER BY k DESC;
-- a local filter means storage cannot stop at the limit
EXPLAIN (COSTS OFF) SELECT * FROM pd WHERE v > 5000 ORDER BY k LIMIT 2;
SELECT * FROM pd WHERE v > 5000 ORDER BY k LIMIT 2;
-- ordering by something else needs a sort, and the scan is not limited
EXPLAIN (COSTS OFF) SELECT * FROM pd ORDER BY v LIMIT 2;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM pd WHERE k ^@ 'phone#0012' LIMIT 5;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM pd WHERE k IN ('ab', 'a_b', 'zz');

-- prepared statements, with custom and generic plans
PREPARE pk(text) AS SELECT * FROM pd WHERE k = $1;
PREPARE pp(text) AS SELECT count(*) FROM pd WHERE k LIKE $1 || '%';
PREPARE pr(text, text) AS SELECT count(*) FROM pd WHERE k >= $1 AND k < $2;
PREPARE pi(text[]) AS SELECT * FROM pd WHERE k = ANY ($1);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE pk('ab');
EXECUTE pk('ab');
EXPLAIN (COSTS OFF) EXECUTE pp('phone#0009');
-- a parameter pattern that is not a plain prefix is checked by the scan,
-- which then does not let storage stop at a LIMIT
EXECUTE pp('phone#000_#1');
SELECT count(*) FROM pd_native WHERE k LIKE 'phone#000_#1%';
PREPARE pl(text) AS SELECT k FROM pd WHERE k LIKE $1 ORDER BY k LIMIT 3;
EXPLAIN (COSTS OFF) EXECUTE pl('phone#0002#1%');
EXECUTE pl('phone#0002#1%');
EXECUTE pl('phone#000_#2_');
SELECT k FROM pd_native WHERE k LIKE 'phone#000_#2_' ORDER BY k LIMIT 3;
EXECUTE pl('a\%b');
EXECUTE pl(NULL);
EXECUTE pp('phone#0009');
EXPLAIN (COSTS OFF) EXECUTE pr('phone#0001', 'phone#0003');
EXECUTE pr('phone#0001', 'phone#0003');
EXPLAIN (COSTS OFF) EXECUTE pi(ARRAY['a_b', 'ab']);
EXECUTE pi(ARRAY['a_b', 'ab']);
RESET plan_cache_mode;
EXPLAIN (COSTS OFF) EXECUTE pk('ab');

-- nested-loop joins probe by key
CREATE TABLE pd_probe (k text COLLATE "C");
INSERT INTO pd_probe VALUES ('phone#0001#01'), ('ab'), ('missing'), (NULL);
ANALYZE pd_probe;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT p.k, pd.v FROM pd_probe p JOIN pd ON pd.k = p.k;
SELECT p.k, pd.v FROM pd_probe p JOIN pd ON pd.k = p.k ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT p.k, x.v FROM pd_probe p, LATERAL (SELECT v FROM pd WHERE pd.k = p.k || '') x;
SELECT p.k, x.v FROM pd_probe p, LATERAL (SELECT v FROM pd WHERE pd.k = p.k || '') x ORDER BY 1;
RESET enable_hashjoin;
RESET enable_mergejoin;

-- a transaction's own writes are merged into pushed-down scans
BEGIN;
INSERT INTO pd VALUES ('phone#0003#99', 1), ('phone#0003#00', 2);
DELETE FROM pd WHERE k = 'phone#0003#05';
UPDATE pd SET v = -1 WHERE k = 'phone#0003#06';
SELECT * FROM pd WHERE k LIKE 'phone#0003#0%' ORDER BY k DESC LIMIT 4;
SELECT * FROM pd WHERE k IN ('phone#0003#99', 'phone#0003#05', 'phone#0003#06');
SELECT count(*) FROM pd WHERE k ^@ 'phone#0003';
ROLLBACK;

-- the default collation here is not bytewise: ranges and order stay local,
-- equality and prefixes still push down
CREATE FOREIGN TABLE pd_icu (k text OPTIONS (rowkey 'true') COLLATE "und-x-icu", v int)
  SERVER pd_srv OPTIONS (table 'pd');
EXPLAIN (COSTS OFF) SELECT * FROM pd_icu WHERE k = 'ab';
EXPLAIN (COSTS OFF) SELECT * FROM pd_icu WHERE k LIKE 'phone#0001#0%';
EXPLAIN (COSTS OFF) SELECT * FROM pd_icu WHERE k > 'phone#0050#19';
EXPLAIN (COSTS OFF) SELECT * FROM pd_icu ORDER BY k LIMIT 1;
SELECT * FROM pd_icu WHERE k > 'phone#0050#18' ORDER BY k;
-- ... unless the comparison itself says COLLATE "C"
EXPLAIN (COSTS OFF) SELECT * FROM pd_icu WHERE k > 'phone#0050#19' COLLATE "C";

-- a bytea row key: any bytes, 0x00 and 0xFF included, in byte order
CREATE FOREIGN TABLE pdb (k bytea OPTIONS (rowkey 'true'), v int) SERVER pd_srv;
CREATE TABLE pdb_native (k bytea PRIMARY KEY, v int);
INSERT INTO pdb_native VALUES ('\x00', 1), ('\x0000', 2), ('\x0001', 3), ('\x00ff', 4),
  ('\x01', 5), ('\xff', 6), ('\xff00', 7), ('\xffff', 8), ('\xfffe', 9), ('\x7f', 10);
INSERT INTO pdb SELECT * FROM pdb_native;
SELECT k, v FROM pdb;
EXPLAIN (COSTS OFF) SELECT * FROM pdb WHERE k >= '\x00' AND k < '\x01';
SELECT k FROM pdb WHERE k >= '\x00' AND k < '\x01';
EXPLAIN (COSTS OFF) SELECT * FROM pdb WHERE k LIKE '\xff25'::bytea;
SELECT k FROM pdb WHERE k LIKE '\xff25'::bytea;
SELECT k FROM pdb_native WHERE k LIKE '\xff25'::bytea ORDER BY k;
SELECT k FROM pdb WHERE k > '\xff' ORDER BY k DESC;
SELECT k FROM pdb_native WHERE k > '\xff' ORDER BY k DESC;

-- every query above agrees with the native table
SELECT pd_check(q) FROM unnest(ARRAY[
  $q$SELECT * FROM pd WHERE k = 'phone#0007#03'$q$,
  $q$SELECT * FROM pd WHERE k IN ('phone#0002#01', 'ab', 'nope', 'ab') ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k LIKE 'phone#0003#%' ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k LIKE 'a\%%' ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k LIKE 'a_b' ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k LIKE '%b' ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k >= 'phone#0010' AND k < 'phone#0011' ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k = 'ab' OR k LIKE 'phone#0001#0%' OR k > 'phone#0050#19' ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE (k >= 'phone#0002' AND k < 'phone#0003') OR (k >= 'phone#0002#15' AND k <= 'phone#0004') ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k = 'ab' OR v = 7 ORDER BY k$q$,
  $q$SELECT * FROM pd ORDER BY k DESC$q$,
  $q$SELECT * FROM pd WHERE k < 'phone#0001#05' ORDER BY k DESC LIMIT 7$q$,
  $q$SELECT * FROM pd WHERE k ~ '^phone#0003#1' ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k ~ '^phone#0003#1[0-4]' ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k SIMILAR TO 'phone#0003#1%' ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k SIMILAR TO 'phone#000(3|4)#1_' ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k ~ '^ab$' ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k ~ '^a.b' ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k ~ '^é' ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k ~ '^a\\b' ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k ~ 'phone#0003' ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k ~ '^(phone|a)' ORDER BY k$q$,
  $q$SELECT * FROM pd WHERE k ~ '^phone#0003#1' ORDER BY k DESC LIMIT 3$q$
]) q;

-- ANALYZE samples the stored rows, so estimates follow the data
ANALYZE pd;
SELECT c.reltuples = (SELECT count(*) FROM pd_native) AS reltuples_right
FROM pg_class c WHERE c.relname = 'pd';
SELECT attname, null_frac, n_distinct FROM pg_stats WHERE tablename = 'pd' ORDER BY attname;

-- A table ANALYZE found empty is planned as empty, not as before ANALYZE.
CREATE FOREIGN TABLE pd_empty (k text OPTIONS (rowkey 'true'), v int) SERVER pd_srv OPTIONS (table 'pd_empty');
EXPLAIN SELECT * FROM pd_empty;
ANALYZE pd_empty;
EXPLAIN SELECT * FROM pd_empty;
DROP FOREIGN TABLE pd_empty;

-- A row key whose type is a domain over text keeps ORDER BY and LIMIT in storage.
CREATE DOMAIN pd_key AS text COLLATE "C";
CREATE FOREIGN TABLE pd_dom (k pd_key OPTIONS (rowkey 'true'), v int) SERVER pd_srv OPTIONS (table 'pd_dom');
INSERT INTO pd_dom VALUES ('b', 2), ('a', 1), ('c', 3), ('d', 4);
EXPLAIN (COSTS OFF) SELECT * FROM pd_dom ORDER BY k LIMIT 3;
SELECT * FROM pd_dom ORDER BY k LIMIT 3;
EXPLAIN (COSTS OFF) SELECT * FROM pd_dom ORDER BY k DESC LIMIT 2;
SELECT * FROM pd_dom ORDER BY k DESC LIMIT 2;
DELETE FROM pd_dom;
DROP FOREIGN TABLE pd_dom;
DROP DOMAIN pd_key;

DROP TABLE pd_native, pd_probe, pdb_native;
DROP FUNCTION pd_check(text);
DROP SERVER pd_srv CASCADE;
