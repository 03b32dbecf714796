-- test/fuzz/values.sql: the value codecs (src/fdw/model/valuecodec.c) on random and
-- mutated cell bytes.
--
--   psql -X -v ON_ERROR_STOP=1 [-v n_random=300] [-v n_mutants=4] [-v seed=0.42] -f test/fuzz/values.sql
--
-- The value codecs run inside the backend (palloc, ereport, the types'
-- input and receive functions), so they are not fuzzed by libFuzzer; this
-- script fuzzes them through SQL instead, and test/fuzz/sanitize.sh asan runs it
-- against the AddressSanitizer/UBSan build.  Needs a database where the
-- extension is (or can be) created and the library is preloaded; it makes
-- a server "vfuzz" and types "vfuzz_*" and drops them at the end.
--
-- 1. For each of ~40 column types, a few valid values are written through a
--    foreign table of that type (the encoder), and read back as bytea: the
--    seeds.
-- 2. Inputs: the seeds, mutants of them (random byte, bit flip, truncation,
--    extension, 00/FF bytes, splices with another seed, 32-bit lengths such
--    as 0x7FFFFFFF written over a field), and purely random bytes, all
--    written as one cell through a bytea foreign table.
-- 3. Every input is read through every typed foreign table mapping the same
--    cell.  Properties:
--      - a value that does not decode fails with SQLSTATE 22P03 and nothing
--        else (README, "Errors"), and never crashes the backend;
--      - a value that decodes can be printed (its type's output function
--        accepts it);
--      - for the types with a fixed encoding (docs/format.md: bool,
--        integers, floats, date, timestamp[tz], uuid, text, bytea) a value
--        that decodes is written back as exactly the same bytes;
--      - for the types kept in binary send format, a valid value followed
--        by one more byte does not decode (PostgreSQL's own readers of that
--        format, COPY BINARY and Bind, refuse trailing bytes).
-- Ends with a table of outcomes per type; any violation is listed and
-- raises an error (so psql with ON_ERROR_STOP exits non-zero).
-- Fixed seed: a run always reproduces.

\if :{?n_random}
\else
\set n_random 300
\endif
\if :{?n_mutants}
\else
\set n_mutants 4
\endif
\if :{?seed}
\else
\set seed 0.42
\endif

SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
DROP SERVER IF EXISTS vfuzz CASCADE;
DROP TYPE IF EXISTS vfuzz_enum, vfuzz_comp CASCADE;
DROP TABLE IF EXISTS vfuzz_types, vfuzz_inputs, vfuzz_results;
RESET client_min_messages;

CREATE SERVER vfuzz FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE TYPE vfuzz_enum AS ENUM ('a', 'b', 'c');
CREATE TYPE vfuzz_comp AS (i int, t text, a int[]);

-- the types and their seed values (as text literals)
-- enc: how docs/format.md stores the type: 'fixed' (its own encoding),
-- 'text' (its text form), 'binary' (PostgreSQL's binary send format)
CREATE TABLE vfuzz_types (n int PRIMARY KEY, typ text, enc text, seeds text[]);
INSERT INTO vfuzz_types VALUES
 (1,  'boolean',          'fixed',  '{true,false}'),
 (2,  'smallint',         'fixed',  '{0,-1,32767,-32768}'),
 (3,  'integer',          'fixed',  '{0,1,-2147483648,2147483647}'),
 (4,  'bigint',           'fixed',  '{0,94558,-9223372036854775808,9223372036854775807}'),
 (5,  'real',             'fixed',  '{0,-0,1.5,NaN,Infinity,-Infinity,1e-45}'),
 (6,  'double precision', 'fixed',  '{0,-0,9.6,NaN,Infinity,-Infinity,5e-324}'),
 (7,  'date',             'fixed',  '{2021-03-05,1970-01-01,infinity,-infinity,"4713-01-01 BC","5874897-12-31"}'),
 (8,  'timestamp',        'fixed',  '{"2021-03-05 12:04:00",infinity,-infinity,"4713-01-01 00:00 BC","294246-12-31 23:59:59.999999"}'),
 (9,  'timestamptz',      'fixed',  '{"2021-03-05 12:04:00+00",infinity,"1970-01-01 00:00:00.000001+00"}'),
 (10, 'uuid',             'fixed',  '{00000000-0000-0000-0000-000000000000,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}'),
 (11, 'text',             'fixed',  '{"",héllo,"a b"}'),
 (12, 'varchar(10)',      'text',   '{"",abc,0123456789}'),
 (13, 'char(3)',          'text',   '{a,abc}'),
 (14, 'bytea',            'fixed',  '{"\\x","\\x00ff"}'),
 (15, 'json',             'text',   '{"{\"a\": [1, 2]}",null,"\"x\""}'),
 (16, 'jsonb',            'text',   '{"{\"a\": [1, 2.5, null]}",[],"\"x\""}'),
 (17, 'numeric',          'text',   '{0,1.5,-0.001,NaN,1e100,Infinity}'),
 (18, 'numeric(5,2)',     'text',   '{1.25,-999.99}'),
 (19, 'integer[]',        'binary', '{"{1,2,NULL}","{{1,2},{3,4}}","{}","[2:3]={7,8}"}'),
 (20, 'text[]',           'binary', '{"{a,\"b c\",NULL}","{}"}'),
 (21, 'interval',         'binary', '{"1 day 02:00:00","-1 mons",00:00:00.000001}'),
 (22, 'inet',             'binary', '{10.0.0.1/8,::1,192.168.0.1}'),
 (23, 'cidr',             'binary', '{10.0.0.0/8,2001:db8::/32}'),
 (24, 'macaddr',          'binary', '{08:00:2b:01:02:03}'),
 (25, 'point',            'binary', '{"(1,2)","(NaN,0)"}'),
 (26, 'int4range',        'binary', '{"[1,5)",empty,"(,3]"}'),
 (27, 'numrange',         'binary', '{"[1.5,2.5]"}'),
 (28, 'tstzrange',        'binary', '{"[2021-03-05 00:00+00,infinity)"}'),
 (29, 'tsvector',         'binary', '{"a:1 b:2,3A",""}'),
 (30, 'tsquery',          'binary', '{"a & !b | c:*"}'),
 (31, 'bit varying',      'binary', '{101,""}'),
 (32, 'bit(4)',           'binary', '{1010}'),
 (33, 'money',            'binary', '{12.34}'),
 (34, 'time',             'binary', '{12:04:00,24:00:00}'),
 (35, 'timetz',           'binary', '{12:04:00+02}'),
 (36, 'vfuzz_enum',       'binary', '{a,c}'),
 (37, 'vfuzz_comp',       'binary', '{"(1,x,\"{1,2}\")","(,,)"}'),
 (38, 'oid',              'binary', '{0,4294967295}'),
 (39, '"char"',           'binary', '{a,""}'),
 (40, 'jsonpath',         'binary', '{"$.a[*] ? (@ > 1)"}'),
 (41, 'pg_snapshot',      'binary', '{"10:20:10,14,15"}'),
 (42, 'int2vector',       'binary', '{"1 2 3"}'),
 (43, 'circle',           'binary', '{"<(1,2),3>"}'),
 (44, 'polygon',          'binary', '{"((0,0),(1,1),(1,0))"}');

-- one foreign table per type, and vfuzz_raw: all of them map cell cf:v of
-- the stored table "vf"
CREATE FOREIGN TABLE vfuzz_raw (rowkey text COLLATE "C", v bytea OPTIONS (column 'cf:v'))
	SERVER vfuzz OPTIONS (table 'vf');
DO $$
DECLARE
	t record;
BEGIN
	FOR t IN SELECT * FROM vfuzz_types ORDER BY n LOOP
		EXECUTE format('CREATE FOREIGN TABLE vfuzz_t%s (rowkey text COLLATE "C", v %s OPTIONS (column %L)) SERVER vfuzz OPTIONS (table %L)',
					   t.n, t.typ, 'cf:v', 'vf');
	END LOOP;
END $$;

-- 1. seeds, through the encoder
DO $$
DECLARE
	t record;
	j int;
BEGIN
	FOR t IN SELECT * FROM vfuzz_types ORDER BY n LOOP
		FOR j IN 1 .. cardinality(t.seeds) LOOP
			EXECUTE format('INSERT INTO vfuzz_t%s VALUES (%L, %L::%s)',
						   t.n, format('s%s_%s', t.n, j), t.seeds[j], t.typ);
		END LOOP;
	END LOOP;
END $$;

-- 2. inputs
SELECT setseed(:seed);

CREATE FUNCTION pg_temp.rbytes(n int) RETURNS bytea LANGUAGE sql VOLATILE AS $$
	SELECT coalesce(string_agg(set_byte('\x00'::bytea, 0, floor(random() * 256)::int), ''::bytea), ''::bytea)
	FROM generate_series(1, n)
$$;

CREATE FUNCTION pg_temp.mutate(b bytea, other bytea) RETURNS bytea LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	n int := length(b);
	p int;
	op int := floor(random() * 8)::int;
BEGIN
	IF n = 0 THEN
		RETURN pg_temp.rbytes(1 + floor(random() * 8)::int);
	END IF;
	p := floor(random() * n)::int;
	CASE op
		WHEN 0 THEN RETURN set_byte(b, p, floor(random() * 256)::int);
		WHEN 1 THEN RETURN set_byte(b, p, get_byte(b, p) # (1 << floor(random() * 8)::int));
		WHEN 2 THEN RETURN substring(b FROM 1 FOR p);
		WHEN 3 THEN RETURN b || pg_temp.rbytes(1 + floor(random() * 6)::int);
		WHEN 4 THEN RETURN set_byte(b, p, CASE WHEN random() < 0.5 THEN 0 ELSE 255 END);
		WHEN 5 THEN RETURN substring(b FROM 1 FOR p) ||
			substring(other FROM 1 + floor(random() * (length(other) + 1))::int);
		WHEN 6 THEN RETURN overlay(b PLACING (ARRAY['\x7fffffff', '\xffffffff', '\x80000000',
			'\x00000000', '\x00000001', '\x0000ffff']::bytea[])[1 + floor(random() * 6)::int]
			FROM p + 1 FOR 4);
		ELSE RETURN b || b;
	END CASE;
END $$;

CREATE TABLE vfuzz_inputs (k text PRIMARY KEY, origin text, b bytea, seed_of int);
INSERT INTO vfuzz_inputs
SELECT rowkey, 'seed', v, substring(rowkey FROM '^s(\d+)_')::int FROM vfuzz_raw WHERE rowkey LIKE 's%';
INSERT INTO vfuzz_inputs
SELECT format('m%s_%s', s.k, i), 'mutant of ' || s.k,
	   CASE WHEN i % 3 = 0
			THEN pg_temp.mutate(pg_temp.mutate(s.b, o.b), o.b)
			ELSE pg_temp.mutate(s.b, o.b) END
FROM (SELECT k, b, row_number() OVER (ORDER BY k) AS r FROM vfuzz_inputs) s
JOIN (SELECT b, row_number() OVER (ORDER BY k DESC) AS r FROM vfuzz_inputs) o USING (r),
	 generate_series(1, :n_mutants) i;
-- a value in binary send format followed by one more byte is not a value
INSERT INTO vfuzz_inputs
SELECT 'e' || k, 'seed + 1 byte', b || '\x00'::bytea, seed_of
FROM vfuzz_inputs JOIN vfuzz_types ON n = seed_of WHERE origin = 'seed' AND enc = 'binary';
INSERT INTO vfuzz_inputs
SELECT format('r%s', i), 'random',
	   pg_temp.rbytes(CASE WHEN random() < 0.9 THEN floor(random() * 25)::int
						   ELSE floor(random() * 200)::int END)
FROM generate_series(1, :n_random) i;
INSERT INTO vfuzz_raw SELECT k, b FROM vfuzz_inputs WHERE origin <> 'seed';

-- 3. every input through every type
CREATE TABLE vfuzz_results (n int, k text, outcome text, detail text);
DO $$
DECLARE
	t record;
	i record;
	state text;
	msg text;
	back bytea;
	shown text;
BEGIN
	FOR t IN SELECT * FROM vfuzz_types ORDER BY n LOOP
		FOR i IN SELECT * FROM vfuzz_inputs ORDER BY k LOOP
			BEGIN
				-- the value must be fetched (v::text), and a value that
				-- decodes must also be printable
				EXECUTE format('SELECT v::text FROM vfuzz_t%s WHERE rowkey = %L', t.n, i.k) INTO shown;
				IF NOT FOUND THEN
					RAISE EXCEPTION 'row % not found', i.k USING ERRCODE = 'WC000';
				END IF;
				IF t.enc = 'binary' AND i.seed_of = t.n AND i.origin = 'seed + 1 byte' THEN
					INSERT INTO vfuzz_results VALUES (t.n, i.k, 'trailing byte accepted',
						format('%s decoded as %s', i.b, shown));
					CONTINUE;
				END IF;
				IF t.enc = 'fixed' THEN
					-- written back, the same bytes
					EXECUTE format('INSERT INTO vfuzz_t%s SELECT %L, v FROM vfuzz_t%s WHERE rowkey = %L',
								   t.n, 'back', t.n, i.k);
					SELECT v INTO back FROM vfuzz_raw WHERE rowkey = 'back';
					IF back IS DISTINCT FROM i.b THEN
						INSERT INTO vfuzz_results VALUES (t.n, i.k, 'round trip',
							format('%s read back as %s', i.b, back));
						CONTINUE;
					END IF;
				END IF;
				INSERT INTO vfuzz_results VALUES (t.n, i.k, 'decoded', NULL);
			EXCEPTION WHEN OTHERS THEN
				GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
				INSERT INTO vfuzz_results VALUES (t.n, i.k,
					CASE WHEN state = '22P03' THEN '22P03' ELSE 'SQLSTATE ' || state END,
					CASE WHEN state = '22P03' THEN NULL ELSE msg END);
			END;
		END LOOP;
	END LOOP;
END $$;

\pset footer off
SELECT t.n, t.typ AS type,
	   count(*) FILTER (WHERE outcome = 'decoded') AS decoded,
	   count(*) FILTER (WHERE outcome = '22P03') AS "22P03",
	   count(*) FILTER (WHERE outcome NOT IN ('decoded', '22P03')) AS violations
FROM vfuzz_types t JOIN vfuzz_results r USING (n)
GROUP BY t.n, t.typ ORDER BY t.n;

-- the violations, at most three of each kind per type
SELECT type, outcome, input, origin, bytes, detail
FROM (SELECT t.n, t.typ AS type, r.outcome, r.k AS input, i.origin, i.b AS bytes, r.detail,
			 row_number() OVER (PARTITION BY t.n, r.outcome ORDER BY length(i.b), r.k) AS nth
	  FROM vfuzz_results r JOIN vfuzz_types t USING (n) JOIN vfuzz_inputs i USING (k)
	  WHERE r.outcome NOT IN ('decoded', '22P03')) v
WHERE nth <= 3
ORDER BY n, outcome, nth;

DO $$
DECLARE
	bad bigint;
	total bigint;
BEGIN
	SELECT count(*) FILTER (WHERE outcome NOT IN ('decoded', '22P03')), count(*)
		INTO bad, total FROM vfuzz_results;
	IF bad > 0 THEN
		RAISE EXCEPTION 'values: % of % decodes broke a property (listed above)', bad, total;
	END IF;
	RAISE NOTICE 'values: % decodes, every property holds', total;
END $$;

SET client_min_messages = warning;
DROP SERVER vfuzz CASCADE;
DROP TYPE vfuzz_enum, vfuzz_comp;
DROP TABLE vfuzz_types, vfuzz_inputs, vfuzz_results;
