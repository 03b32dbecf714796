-- Specification: row keys, their order, and reads by row key.
--
--   * rows come back in bytewise row-key order, also without ORDER BY
--     (oracle: ORDER BY the key as bytea, or text COLLATE "C");
--   * every condition on the row key (=, IN, ranges, LIKE, starts_with,
--     OR/AND of them, with constants, parameters or outer columns) returns
--     what the same condition returns on a native table, in any collation;
--   * LIMIT, OFFSET and descending order return the oracle's rows, also
--     while the transaction has uncommitted writes.
--
-- Stored tables: spec_keys_* (server spec_keys_srv).

\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET check_function_bodies = off;

SELECT plan(147);

\ir setup.psql

CREATE SERVER spec_keys_srv FOREIGN DATA WRAPPER widecolumn_fdw;

--
-- bytea row keys with 0x00 and 0xFF bytes
--
CREATE FOREIGN TABLE bk_f (k bytea OPTIONS (rowkey 'true'), v integer) SERVER spec_keys_srv OPTIONS (table 'spec_keys_bytea');
CREATE TABLE bk_n (k bytea PRIMARY KEY, v integer);
INSERT INTO bk_n (k) VALUES ('\x00'), ('\x0000'), ('\x000001'), ('\x0001'), ('\x00ff'), ('\x01'), ('\x61'),
	('\x6100'), ('\x610000'), ('\x6101'), ('\x61ff'), ('\x61ffff'), ('\x62'), ('\x7f'), ('\x80'), ('\xfe'),
	('\xfeff'), ('\xff'), ('\xff00'), ('\xff0000'), ('\xffff'), ('\xffffff'), ('\xffffff00');
UPDATE bk_n SET v = r FROM (SELECT k, row_number() OVER (ORDER BY k DESC) AS r FROM bk_n) o WHERE o.k = bk_n.k;
-- inserted in an order unrelated to the key order
INSERT INTO bk_f SELECT k, v FROM bk_n ORDER BY md5(k::text);

SELECT pg_temp.check_eq('SELECT k, v FROM bk_f', 'SELECT k, v FROM bk_n ORDER BY k',
	'bytea keys come back in bytewise order without ORDER BY');
SELECT pg_temp.check_eq('SELECT k, v FROM bk_f ORDER BY k DESC', 'SELECT k, v FROM bk_n ORDER BY k DESC',
	'bytea keys in descending order');
SELECT pg_temp.check_eq('SELECT n.k, (SELECT f.v FROM bk_f f WHERE f.k = n.k) FROM bk_n n ORDER BY n.k',
	'SELECT k, v FROM bk_n ORDER BY k',
	'every bytea key is found by equality with an outer value');
SELECT pg_temp.check_eq($$SELECT k FROM bk_f WHERE k = '\x00'$$, $$VALUES ('\x00'::bytea)$$, 'k = ''\x00'' finds exactly that key');
SELECT throws_ok($$INSERT INTO bk_f VALUES ('\x', 1)$$, '22023', NULL, 'the empty key is refused, as Bigtable refuses it');

CREATE TABLE bounds_b (b bytea);
INSERT INTO bounds_b VALUES ('\x'), ('\x00'), ('\x0000'), ('\x0001'), ('\x00ff'), ('\x60'), ('\x61'), ('\x6100'), ('\x61ff'),
	('\x61ffff'), ('\x62'), ('\xfe'), ('\xff'), ('\xff00'), ('\xffff'), ('\xffffffff');
SELECT pg_temp.check_eq(format('SELECT b, array(SELECT k FROM bk_f WHERE k %s b ORDER BY k) FROM bounds_b ORDER BY b', op),
                        format('SELECT b, array(SELECT k FROM bk_n WHERE k %s b ORDER BY k) FROM bounds_b ORDER BY b', op),
                        format('bytea keys: k %s bound, for bounds around 0x00 and 0xFF', op))
FROM unnest(ARRAY['<', '<=', '>', '>=', '=']) op;
SELECT pg_temp.check_eq(format('SELECT array(SELECT k FROM bk_f WHERE k %s %L::bytea) ', op, b),
                        format('SELECT array(SELECT k FROM bk_n WHERE k %s %L::bytea ORDER BY k)', op, b),
                        format('bytea keys: k %s constant %s', op, b))
FROM (VALUES ('<', '\xff'), ('>', '\xff'), ('>=', '\x61'), ('<=', '\x61'), ('>', '\x'), ('<', '\x00')) v(op, b);
SELECT pg_temp.check_eq(
	$$SELECT b, array(SELECT k FROM bk_f WHERE k LIKE b || '%'::bytea ORDER BY k) FROM bounds_b ORDER BY b$$,
	$$SELECT b, array(SELECT k FROM bk_n WHERE k LIKE b || '%'::bytea ORDER BY k) FROM bounds_b ORDER BY b$$,
	'bytea keys: prefixes with 0x00 and 0xFF bytes');
SELECT pg_temp.check_eq(
	$$SELECT k FROM bk_f WHERE k BETWEEN '\x00ff' AND '\x6101' OR k IN ('\xff', '\xffff', '\x99') OR k > '\xffffff'$$,
	$$SELECT k FROM bk_n WHERE k BETWEEN '\x00ff' AND '\x6101' OR k IN ('\xff', '\xffff', '\x99') OR k > '\xffffff' ORDER BY k$$,
	'bytea keys: OR of a range, a list and an open range');

-- Uncommitted writes merge into the order, into every kind of read.
BEGIN;
INSERT INTO bk_f VALUES ('\x0000ff', 100), ('\x61fe', 101), ('\xffff00', 102), ('\x01ff', 103);
INSERT INTO bk_n VALUES ('\x0000ff', 100), ('\x61fe', 101), ('\xffff00', 102), ('\x01ff', 103) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v;
DELETE FROM bk_f WHERE k IN ('\x00', '\x61', '\xffffff00');
DELETE FROM bk_n WHERE k IN ('\x00', '\x61', '\xffffff00');
UPDATE bk_f SET v = -v WHERE k >= '\xfe';
UPDATE bk_n SET v = -v WHERE k >= '\xfe';
SELECT pg_temp.check_eq('SELECT k, v FROM bk_f', 'SELECT k, v FROM bk_n ORDER BY k',
	'uncommitted bytea keys merge into the order');
SELECT pg_temp.check_eq('SELECT k, v FROM bk_f ORDER BY k DESC', 'SELECT k, v FROM bk_n ORDER BY k DESC',
	'uncommitted bytea keys merge into the descending order');
SELECT pg_temp.check_eq(format('SELECT b, array(SELECT k FROM bk_f WHERE k %s b ORDER BY k) FROM bounds_b ORDER BY b', op),
                        format('SELECT b, array(SELECT k FROM bk_n WHERE k %s b ORDER BY k) FROM bounds_b ORDER BY b', op),
                        format('bytea keys with uncommitted writes: k %s bound', op))
FROM unnest(ARRAY['<', '>=', '=']) op;
SELECT pg_temp.check_eq(
	$$SELECT b, array(SELECT k FROM bk_f WHERE k LIKE b || '%'::bytea ORDER BY k) FROM bounds_b ORDER BY b$$,
	$$SELECT b, array(SELECT k FROM bk_n WHERE k LIKE b || '%'::bytea ORDER BY k) FROM bounds_b ORDER BY b$$,
	'bytea keys with uncommitted writes: prefixes');
COMMIT;
SELECT pg_temp.check_eq('SELECT k, v FROM bk_f', 'SELECT k, v FROM bk_n ORDER BY k',
	'committed bytea keys in bytewise order');

--
-- text row keys in the "C" collation
--
CREATE FOREIGN TABLE tk_f (k text OPTIONS (rowkey 'true') COLLATE "C", v integer) SERVER spec_keys_srv OPTIONS (table 'spec_keys_text');
CREATE TABLE tk_n (k text COLLATE "C" PRIMARY KEY, v integer);
INSERT INTO tk_n (k) VALUES (' '), ('0'), ('9'), ('A'), ('AB'), ('B'), ('Z'), ('a'), ('a b'), ('a%'), ('a%b'),
	('a_'), ('a_b'), (E'a\\'), (E'a\\b'), ('aa'), ('ab'), ('abc'), ('abd'), ('ac'), (E'a\x01'), (E'a\x7f'), ('b'),
	('ba'), ('z'), ('zz'), ('~'), ('ä'), ('äb'), ('ü'), ('✓'), ('✓✓'), ('🎉'), ('''quoted'''), ('"dq"');
UPDATE tk_n SET v = r FROM (SELECT k, row_number() OVER (ORDER BY md5(k)) AS r FROM tk_n) o WHERE o.k = tk_n.k;
INSERT INTO tk_f SELECT k, v FROM tk_n ORDER BY v;

SELECT pg_temp.check_eq('SELECT k, v FROM tk_f', 'SELECT k, v FROM tk_n ORDER BY k',
	'text keys come back in bytewise (UTF-8) order without ORDER BY');
SELECT pg_temp.check_eq('SELECT k, v FROM tk_f ORDER BY k DESC', 'SELECT k, v FROM tk_n ORDER BY k DESC',
	'text keys in descending order');
SELECT pg_temp.check_eq('SELECT k, v FROM tk_f ORDER BY convert_to(k, ''UTF8'')', 'SELECT k, v FROM tk_n ORDER BY k',
	'sanity: the oracle''s order is the order of the UTF-8 bytes');
SELECT pg_temp.check_eq('SELECT n.k, (SELECT f.v FROM tk_f f WHERE f.k = n.k) FROM tk_n n ORDER BY n.k',
	'SELECT k, v FROM tk_n ORDER BY k', 'every text key is found by equality with an outer value');

CREATE TABLE bounds_t (b text COLLATE "C");
INSERT INTO bounds_t VALUES (''), (' '), ('A'), ('a'), ('a '), ('a%'), ('a_'), ('ab'), ('abc'), ('abcd'), ('b'), ('ä'),
	('✓'), ('🎉'), (E'\x7f'), (E'\u00ff'), ('zzzz');
SELECT pg_temp.check_eq(format('SELECT b, array(SELECT k FROM tk_f WHERE k %s b ORDER BY k) FROM bounds_t ORDER BY b', op),
                        format('SELECT b, array(SELECT k FROM tk_n WHERE k %s b ORDER BY k) FROM bounds_t ORDER BY b', op),
                        format('text keys: k %s bound', op))
FROM unnest(ARRAY['<', '<=', '>', '>=', '=']) op;
SELECT pg_temp.check_eq(format('SELECT k FROM tk_f WHERE %s', cond),
                        format('SELECT k FROM tk_n WHERE %s ORDER BY k', cond),
                        format('text keys: WHERE %s', cond))
FROM (VALUES
	($$k LIKE 'a%'$$), ($$k LIKE 'ab%'$$), ($$k LIKE 'a\%%'$$), ($$k LIKE 'a\_%'$$), ($$k LIKE 'a_'$$),
	($$k LIKE 'a_%'$$), ($$k LIKE 'a%b'$$), ($$k LIKE '%b'$$), ($$k LIKE 'a'$$), ($$k LIKE ''$$), ($$k LIKE 'a\\%'$$),
	($$k LIKE 'ä%'$$), ($$k LIKE '✓%'$$), ($$k LIKE 'a#%%' ESCAPE '#'$$), ($$k LIKE 'a\%' ESCAPE ''$$),
	($$k NOT LIKE 'a%'$$), ($$k ILIKE 'a%'$$), ($$k LIKE 'A%'$$), ($$k ~ '^a.$'$$), ($$k SIMILAR TO 'a_'$$),
	($$starts_with(k, 'a')$$), ($$k ^@ 'ab'$$), ($$starts_with(k, '')$$),
	($$k IN ('a', 'b', 'nope', 'ä', '')$$), ($$k = ANY (ARRAY['z', NULL, 'zz'])$$), ($$k NOT IN ('a', 'b')$$),
	($$k <> 'a'$$), ($$k = NULL$$), ($$k IS NULL$$), ($$k IS NOT NULL$$),
	($$k BETWEEN 'a' AND 'b'$$), ($$k BETWEEN 'b' AND 'a'$$), ($$k BETWEEN SYMMETRIC 'b' AND 'a'$$),
	($$k > 'a' AND k < 'ab'$$), ($$k >= 'b' AND k < 'a'$$), ($$k > 'a' AND k > 'ab' AND k <= 'b'$$),
	($$k < 'A' OR k > 'z'$$), ($$k = 'a' OR k LIKE 'b%' OR k > '✓'$$), ($$(k = 'a' AND v > 0) OR k = 'b'$$),
	($$k = 'a' AND k = 'b'$$), ($$NOT (k >= 'a')$$), ($$k = 'ab'::varchar$$), ($$convert_to(k, 'UTF8') = '\x6162'$$),
	($$lower(k) = 'ab'$$), ($$k || 'x' = 'abx'$$), ($$k > 'a' COLLATE "en-x-icu"$$), ($$k < 'B' COLLATE "en-x-icu"$$),
	($$k = (SELECT max(k) FROM tk_n)$$), ($$k > (SELECT 'z'::text)$$), ($$k = current_setting('application_name')$$)
) c(cond);

-- A LIKE pattern ending in the escape character matches nothing that ends
-- there (and is an error where more text follows: not tested).
CREATE FOREIGN TABLE esc_f (k text OPTIONS (rowkey 'true') COLLATE "C", v integer) SERVER spec_keys_srv OPTIONS (table 'spec_keys_esc');
CREATE TABLE esc_n (k text COLLATE "C" PRIMARY KEY, v integer);
INSERT INTO esc_f VALUES ('ab', 1), ('b', 2);
INSERT INTO esc_n VALUES ('ab', 1), ('b', 2);
SELECT pg_temp.check_eq($$SELECT k FROM esc_f WHERE k LIKE 'ab\'$$, $$SELECT k FROM esc_n WHERE k LIKE 'ab\'$$,
	'LIKE ''ab\'' does not match the key ab');

-- Parameters, in custom and generic plans (PL/pgSQL caches its plans).
CREATE FUNCTION pg_temp.tk_eq(x text) RETURNS text[] LANGUAGE plpgsql AS $$
BEGIN RETURN array(SELECT k FROM tk_f WHERE k = x ORDER BY k); END $$;
CREATE FUNCTION pg_temp.tk_range(lo text, hi text) RETURNS text[] LANGUAGE plpgsql AS $$
BEGIN RETURN array(SELECT k FROM tk_f WHERE k >= lo AND k < hi); END $$;
CREATE FUNCTION pg_temp.tk_any(xs text[]) RETURNS text[] LANGUAGE plpgsql AS $$
BEGIN RETURN array(SELECT k FROM tk_f WHERE k = ANY (xs)); END $$;
CREATE FUNCTION pg_temp.tk_like(pat text) RETURNS text[] LANGUAGE plpgsql AS $$
BEGIN RETURN array(SELECT k FROM tk_f WHERE k LIKE pat); END $$;
CREATE FUNCTION pg_temp.tk_prefix(p text) RETURNS text[] LANGUAGE plpgsql AS $$
BEGIN RETURN array(SELECT k FROM tk_f WHERE starts_with(k, p)); END $$;
CREATE TABLE args (i serial, x text COLLATE "C", y text COLLATE "C");
INSERT INTO args (x, y) VALUES ('a', 'b'), ('ab', 'abd'), ('', 'a'), ('nope', 'nopf'), ('ä', '✓'), ('✓', '🎉'), (NULL, 'b'),
	('a', NULL), ('b', 'a'), ('a%', 'a_'), ('a\%%', ''), ('a_%', ''), ('%', ''), ('a\\%', ''), ('ä%', ''), ('A', 'a');
SET plan_cache_mode = force_custom_plan;
SELECT pg_temp.check_eq(
	'SELECT i, pg_temp.tk_eq(x), pg_temp.tk_range(x, y), pg_temp.tk_any(ARRAY[x, y]), pg_temp.tk_like(x), pg_temp.tk_prefix(x) FROM args ORDER BY i',
	'SELECT i, array(SELECT k FROM tk_n WHERE k = x ORDER BY k), array(SELECT k FROM tk_n WHERE k >= x AND k < y ORDER BY k),
	        array(SELECT k FROM tk_n WHERE k = ANY (ARRAY[x, y]) ORDER BY k), array(SELECT k FROM tk_n WHERE k LIKE x ORDER BY k),
	        array(SELECT k FROM tk_n WHERE starts_with(k, x) ORDER BY k) FROM args ORDER BY i',
	'parameters in custom plans: =, range, = ANY, LIKE, starts_with');
SET plan_cache_mode = force_generic_plan;
SELECT pg_temp.check_eq(
	'SELECT i, pg_temp.tk_eq(x), pg_temp.tk_range(x, y), pg_temp.tk_any(ARRAY[x, y]), pg_temp.tk_like(x), pg_temp.tk_prefix(x) FROM args ORDER BY i',
	'SELECT i, array(SELECT k FROM tk_n WHERE k = x ORDER BY k), array(SELECT k FROM tk_n WHERE k >= x AND k < y ORDER BY k),
	        array(SELECT k FROM tk_n WHERE k = ANY (ARRAY[x, y]) ORDER BY k), array(SELECT k FROM tk_n WHERE k LIKE x ORDER BY k),
	        array(SELECT k FROM tk_n WHERE starts_with(k, x) ORDER BY k) FROM args ORDER BY i',
	'parameters in generic plans: =, range, = ANY, LIKE, starts_with');
RESET plan_cache_mode;

-- Joins that look rows up by key, from a native table and from itself.
SELECT pg_temp.check_eq(
	'SELECT b.b, f.k, f.v FROM bounds_t b JOIN tk_f f ON f.k = b.b ORDER BY 1',
	'SELECT b.b, n.k, n.v FROM bounds_t b JOIN tk_n n ON n.k = b.b ORDER BY 1',
	'join on the row key with a native table');
SELECT pg_temp.check_eq(
	'SELECT b.b, f.k FROM bounds_t b LEFT JOIN LATERAL (SELECT k FROM tk_f WHERE k > b.b ORDER BY k LIMIT 2) f ON true ORDER BY 1, 2',
	'SELECT b.b, n.k FROM bounds_t b LEFT JOIN LATERAL (SELECT k FROM tk_n WHERE k > b.b ORDER BY k LIMIT 2) n ON true ORDER BY 1, 2',
	'LATERAL: the next two keys after each outer value');
SELECT pg_temp.check_eq(
	'SELECT b.b, f.k FROM bounds_t b LEFT JOIN LATERAL (SELECT k FROM tk_f WHERE k < b.b ORDER BY k DESC LIMIT 2) f ON true ORDER BY 1, 2',
	'SELECT b.b, n.k FROM bounds_t b LEFT JOIN LATERAL (SELECT k FROM tk_n WHERE k < b.b ORDER BY k DESC LIMIT 2) n ON true ORDER BY 1, 2',
	'LATERAL: the previous two keys before each outer value (descending)');
SELECT pg_temp.check_eq(
	'SELECT f1.k, f2.k FROM tk_f f1 JOIN tk_f f2 ON f2.k = f1.k || ''b'' ORDER BY 1',
	'SELECT n1.k, n2.k FROM tk_n n1 JOIN tk_n n2 ON n2.k = n1.k || ''b'' ORDER BY 1',
	'self-join on the row key');

--
-- text row keys in other collations: the key order is bytes, the query's
-- order and comparisons are the collation's.
--
CREATE FOREIGN TABLE icu_f (k text OPTIONS (rowkey 'true') COLLATE "en-x-icu", v integer) SERVER spec_keys_srv OPTIONS (table 'spec_keys_text');
CREATE TABLE icu_n (k text COLLATE "en-x-icu" PRIMARY KEY, v integer);
INSERT INTO icu_n SELECT k, v FROM tk_n;
SELECT pg_temp.check_eq('SELECT k, v FROM icu_f ORDER BY k, v', 'SELECT k, v FROM icu_n ORDER BY k, v',
	'ORDER BY an ICU-collated row key sorts in the collation''s order');
SELECT pg_temp.check_eq('SELECT k, v FROM icu_f ORDER BY k DESC, v LIMIT 5', 'SELECT k, v FROM icu_n ORDER BY k DESC, v LIMIT 5',
	'ORDER BY ... DESC LIMIT on an ICU-collated row key');
SELECT pg_temp.check_eq(format('SELECT k FROM icu_f WHERE %s ORDER BY k COLLATE "C"', cond),
                        format('SELECT k FROM icu_n WHERE %s ORDER BY k COLLATE "C"', cond),
                        format('ICU-collated keys: WHERE %s', cond))
FROM (VALUES ($$k > 'B'$$), ($$k < 'b'$$), ($$k BETWEEN 'a' AND 'B'$$), ($$k = 'ab'$$), ($$k IN ('A', 'ä')$$),
	($$k LIKE 'a%'$$), ($$k > 'B' COLLATE "C"$$)) c(cond);
SELECT pg_temp.check_eq('SELECT k COLLATE "C", v FROM icu_f ORDER BY k COLLATE "C" LIMIT 7', 'SELECT k, v FROM tk_n ORDER BY k LIMIT 7',
	'ORDER BY k COLLATE "C" LIMIT on an ICU-collated row key');

CREATE COLLATION spec_keys_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE FOREIGN TABLE ci_f (k text OPTIONS (rowkey 'true') COLLATE spec_keys_ci, v integer) SERVER spec_keys_srv OPTIONS (table 'spec_keys_text');
CREATE TABLE ci_n (k text COLLATE spec_keys_ci, v integer);
INSERT INTO ci_n SELECT k, v FROM tk_n;
SELECT pg_temp.check_eq(format('SELECT k FROM ci_f WHERE %s ORDER BY k COLLATE "C"', cond),
                        format('SELECT k FROM ci_n WHERE %s ORDER BY k COLLATE "C"', cond),
                        format('case-insensitive keys: WHERE %s', cond))
FROM (VALUES ($$k = 'AB'$$), ($$k IN ('A', 'Z')$$), ($$k > 'b'$$), ($$starts_with(k COLLATE "C", 'a')$$)) c(cond);

-- The database's default collation (C.UTF-8 or another).
CREATE FOREIGN TABLE def_f (k text OPTIONS (rowkey 'true'), v integer) SERVER spec_keys_srv OPTIONS (table 'spec_keys_text');
CREATE TABLE def_n (k text PRIMARY KEY, v integer);
INSERT INTO def_n SELECT k, v FROM tk_n;
SELECT pg_temp.check_eq('SELECT k, v FROM def_f ORDER BY k', 'SELECT k, v FROM def_n ORDER BY k',
	'default collation: ORDER BY k');
SELECT pg_temp.check_eq('SELECT k FROM def_f WHERE k >= ''a'' AND k < ''b'' ORDER BY k DESC', 'SELECT k FROM def_n WHERE k >= ''a'' AND k < ''b'' ORDER BY k DESC',
	'default collation: a range in descending order');
SELECT pg_temp.check_eq('SELECT k, v FROM def_f', 'SELECT k, v FROM def_n ORDER BY k COLLATE "C"',
	'default collation: without ORDER BY rows come in byte order');

--
-- Many rows: several storage batches, LIMIT, OFFSET and descending order,
-- with and without uncommitted writes.
--
CREATE FOREIGN TABLE many_f (k text OPTIONS (rowkey 'true') COLLATE "C", i integer, pad text) SERVER spec_keys_srv OPTIONS (table 'spec_keys_many');
CREATE TABLE many_n (k text COLLATE "C" PRIMARY KEY, i integer, pad text);
INSERT INTO many_n SELECT 'r' || lpad(i::text, 5, '0'), i, repeat(md5(i::text), 10) FROM generate_series(1, 5000) i;
INSERT INTO many_f SELECT * FROM many_n ORDER BY md5(k);
SELECT pg_temp.check_eq('SELECT k, i, pad FROM many_f', 'SELECT k, i, pad FROM many_n ORDER BY k',
	'5000 rows of 320 bytes come back in order');
SELECT pg_temp.check_eq(format('SELECT k, i FROM many_f %s', q), format('SELECT k, i FROM many_n %s', q), q)
FROM (VALUES ('ORDER BY k LIMIT 3'), ('ORDER BY k DESC LIMIT 3'), ('ORDER BY k LIMIT 5 OFFSET 2497'),
	('ORDER BY k DESC LIMIT 5 OFFSET 4998'), ('WHERE i % 7 = 0 ORDER BY k LIMIT 4'), ('WHERE k > ''r02500'' ORDER BY k LIMIT 2'),
	('WHERE k < ''r02500'' ORDER BY k DESC LIMIT 2'), ('WHERE k LIKE ''r0249%'' ORDER BY k DESC LIMIT 3 OFFSET 1'),
	('WHERE k IN (''r00001'', ''r04999'', ''r00500'') ORDER BY k DESC LIMIT 2')) q(q);
SELECT pg_temp.check_eq('SELECT count(*), sum(i) FROM (SELECT i FROM many_f LIMIT 10) s', 'SELECT 10::bigint, sum(i) FROM generate_series(1, 10) i',
	'LIMIT without ORDER BY takes the first keys');

BEGIN;
DELETE FROM many_f WHERE i <= 3 OR i > 4997 OR i % 10 = 0;
DELETE FROM many_n WHERE i <= 3 OR i > 4997 OR i % 10 = 0;
INSERT INTO many_f VALUES ('r00000', 0, 'new first'), ('r02500a', 2500, 'new middle'), ('r99999', 99999, 'new last');
INSERT INTO many_n VALUES ('r00000', 0, 'new first'), ('r02500a', 2500, 'new middle'), ('r99999', 99999, 'new last');
UPDATE many_f SET pad = NULL WHERE i % 3 = 0;
UPDATE many_n SET pad = NULL WHERE i % 3 = 0;
SELECT pg_temp.check_eq('SELECT k, i, pad FROM many_f', 'SELECT k, i, pad FROM many_n ORDER BY k',
	'5000 rows with uncommitted writes merged in');
SELECT pg_temp.check_eq(format('SELECT k, i FROM many_f %s', q), format('SELECT k, i FROM many_n %s', coalesce(o, q)), 'with uncommitted writes: ' || q)
FROM (VALUES ('ORDER BY k LIMIT 3'), ('ORDER BY k DESC LIMIT 3'), ('ORDER BY k LIMIT 5 OFFSET 2497'),
	('LIMIT 4'), ('WHERE k > ''r02499'' ORDER BY k LIMIT 3'), ('WHERE k <= ''r02501'' ORDER BY k DESC LIMIT 3')) q(q)
	LEFT JOIN (VALUES ('LIMIT 4', 'ORDER BY k LIMIT 4')) o(q0, o) ON o.q0 = q.q;
COMMIT;
SELECT pg_temp.check_eq(format('SELECT k, i FROM many_f %s', q), format('SELECT k, i FROM many_n %s', coalesce(o, q)), 'after deletes were committed: ' || q)
FROM (VALUES ('ORDER BY k LIMIT 3'), ('ORDER BY k DESC LIMIT 3'), ('LIMIT 4'), ('WHERE k > ''r00009'' ORDER BY k LIMIT 3')) q(q)
	LEFT JOIN (VALUES ('LIMIT 4', 'ORDER BY k LIMIT 4')) o(q0, o) ON o.q0 = q.q;

-- Rows emptied cell by cell are gone for LIMIT too.
UPDATE many_f SET i = NULL, pad = NULL WHERE k IN ('r00000', 'r00004', 'r00005');
DELETE FROM many_n WHERE k IN ('r00000', 'r00004', 'r00005');
SELECT pg_temp.check_eq('SELECT k, i FROM many_f ORDER BY k LIMIT 3', 'SELECT k, i FROM many_n ORDER BY k LIMIT 3',
	'LIMIT skips rows whose cells were all deleted');
SELECT pg_temp.check_eq('SELECT k FROM many_f LIMIT 3', 'SELECT k FROM many_n ORDER BY k LIMIT 3',
	'LIMIT on the row key alone skips rows whose cells were all deleted');

--
-- Conditions comparing a part with a value no part can hold (an infinite
-- date or timestamp, a year out of 1 .. 9999, text with the delimiter)
-- select what they select on a native table, instead of failing as an
-- INSERT of that value does: such a value lies before or after every
-- stored one, or equals none.  The timestamp part is stored reversed.
--
CREATE FOREIGN TABLE unfit_f (dtype text OPTIONS (rowkey_part '1'), day date OPTIONS (rowkey_part '2'),
	at timestamptz OPTIONS (rowkey_part '3', rowkey_reverse 'true'), b integer)
	SERVER spec_keys_srv OPTIONS (table 'spec_keys_unfit', rowkey_delimiter '#');
CREATE TABLE unfit_n (dtype text, day date, at timestamptz, b integer);
INSERT INTO unfit_f VALUES ('phone', '2020-05-01', '2020-05-01 10:00+00', 1), ('phone', '2020-05-02', '2020-05-02 11:00+00', 2),
	('tablet', '0001-01-01', '9999-12-31 10:00+00', 3);
INSERT INTO unfit_n SELECT * FROM unfit_f;
SELECT pg_temp.check_eq(format('SELECT b FROM unfit_f WHERE %s ORDER BY b', q), format('SELECT b FROM unfit_n WHERE %s ORDER BY b', q),
	'a part compared with a value no part can hold: ' || q)
FROM unnest(ARRAY[
	$$dtype = 'phone' AND day < 'infinity'$$,
	$$dtype = 'phone' AND day >= '0001-01-01 BC'$$,
	$$dtype = 'phone' AND day > 'infinity'$$,
	$$dtype = 'phone' AND day <= '-infinity'$$,
	$$dtype = 'a#b'$$,
	$$dtype = 'phone' AND day = 'infinity'$$,
	$$dtype = 'phone' AND day = '2020-05-01' AND at < 'infinity'$$,
	$$dtype = 'phone' AND day = '2020-05-01' AND at > '-infinity'$$,
	$$dtype = 'phone' AND day = '2020-05-01' AND at > 'infinity'$$,
	$$dtype = 'tablet' AND day = '0001-01-01' AND at >= '10000-01-01'$$,
	$$dtype = 'tablet' AND day = '0001-01-01' AND at <= '10000-01-01'$$,
	$$dtype = 'tablet' AND day BETWEEN '0001-01-01 BC' AND '0001-01-01'$$]) q;
PREPARE unfit_p(text, date) AS SELECT b FROM unfit_f WHERE dtype = $1 AND day < $2 ORDER BY b;
SET plan_cache_mode = force_generic_plan;
SELECT pg_temp.check_eq('EXECUTE unfit_p(''phone'', ''infinity'')', 'VALUES (1), (2)',
	'the same under a generic plan');
RESET plan_cache_mode;
DEALLOCATE unfit_p;
SELECT throws_ok($$INSERT INTO unfit_f VALUES ('phone', 'infinity', now(), 4)$$, '22000', NULL,
	'an INSERT of such a value is still refused');
DELETE FROM unfit_f;
DROP TABLE unfit_n;

-- Clean up.
DELETE FROM bk_f;
DELETE FROM tk_f;
DELETE FROM esc_f;
DELETE FROM many_f;
SELECT is_empty('SELECT k::text FROM bk_f UNION ALL SELECT k FROM tk_f UNION ALL SELECT k FROM esc_f UNION ALL SELECT k FROM many_f',
	'the stored tables are empty again');
DROP SERVER spec_keys_srv CASCADE;
DROP TABLE bk_n, bounds_b, tk_n, bounds_t, esc_n, args, icu_n, ci_n, def_n, many_n;
DROP COLLATION spec_keys_ci;

SELECT * FROM finish();
