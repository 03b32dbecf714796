-- Specification: INSERT, INSERT ... SELECT, COPY, UPDATE, DELETE, RETURNING.
--
-- Every statement runs on the foreign table and on a native table (the
-- oracle) written to follow the foreign table's documented semantics:
--   * INSERT is an upsert on the row key that writes the non-NULL columns
--     only (oracle: INSERT ... ON CONFLICT DO UPDATE SET x = COALESCE(new, old));
--   * a row without cells does not exist (oracle: such rows are deleted);
--   * UPDATE to NULL deletes the cell; DELETE deletes the row.
-- Each step is checked twice: inside its transaction (uncommitted writes
-- merged with stored rows) and after COMMIT (stored rows only).
--
-- Stored tables: spec_dml, spec_dml_wide (server spec_dml_srv).

\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET check_function_bodies = off;

SELECT plan(86);

\ir setup.psql

-- The whole table equals the oracle, in row-key order without ORDER BY.
CREATE FUNCTION pg_temp.state_eq(descr text)
RETURNS text LANGUAGE sql AS $$
	SELECT pg_temp.check_eq(
		'SELECT k, a, b, c, d FROM dml_f',
		'SELECT k, a, b, c, d FROM dml_n ORDER BY k COLLATE "C"',
		descr)
$$;

-- The oracle's rule: a row without cells does not exist.
CREATE FUNCTION pg_temp.oracle_prune() RETURNS void LANGUAGE sql AS $$
	DELETE FROM dml_n WHERE a IS NULL AND b IS NULL AND c IS NULL AND d IS NULL
$$;

CREATE SERVER spec_dml_srv FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE dml_f (
	k text OPTIONS (rowkey 'true'),
	a integer,
	b text,
	c numeric,
	d date
) SERVER spec_dml_srv OPTIONS (table 'spec_dml');
CREATE TABLE dml_n (k text PRIMARY KEY, a integer, b text, c numeric, d date);

-- RETURNING output of both, as text, by statement.
CREATE TABLE ret_f (step text, r text);
CREATE TABLE ret_n (step text, r text);

--
-- INSERT with several rows, RETURNING
--
BEGIN;
WITH r AS (
	INSERT INTO dml_f VALUES
		('k01', 1, 'one', 1.5, '2024-01-01'),
		('k02', 2, 'two', NULL, '2024-01-02'),
		('k03', NULL, 'three', 3.25, NULL),
		('k04', 4, NULL, NULL, NULL),
		('K05 upper', 5, 'five', 5, '2024-01-05'),
		(' ', 0, 'blank key', 0, NULL),
		('ä unicode key', 6, 'ü', 6e100, '2024-01-06')
	RETURNING *)
INSERT INTO ret_f SELECT 'insert values', r::text FROM r;
WITH r AS (
	INSERT INTO dml_n VALUES
		('k01', 1, 'one', 1.5, '2024-01-01'),
		('k02', 2, 'two', NULL, '2024-01-02'),
		('k03', NULL, 'three', 3.25, NULL),
		('k04', 4, NULL, NULL, NULL),
		('K05 upper', 5, 'five', 5, '2024-01-05'),
		(' ', 0, 'blank key', 0, NULL),
		('ä unicode key', 6, 'ü', 6e100, '2024-01-06')
	RETURNING *)
INSERT INTO ret_n SELECT 'insert values', r::text FROM r;
SELECT pg_temp.state_eq('multi-row INSERT: own writes visible before COMMIT');
SELECT pg_temp.check_eq('SELECT r FROM ret_f WHERE step = ''insert values'' ORDER BY r COLLATE "C"',
                        'SELECT r FROM ret_n WHERE step = ''insert values'' ORDER BY r COLLATE "C"',
                        'INSERT ... RETURNING * returns the inserted rows');
COMMIT;
SELECT pg_temp.state_eq('multi-row INSERT: committed');

-- RETURNING of expressions over the new row
INSERT INTO dml_f VALUES ('k06', 60, 'six', NULL, NULL) RETURNING upper(k) AS uk, a * 2 AS a2, b IS NULL AS bnull, c IS NULL AS cnull
\gset ret_
INSERT INTO dml_n VALUES ('k06', 60, 'six', NULL, NULL);
SELECT is(concat_ws(' ', :'ret_uk', :'ret_a2', :'ret_bnull', :'ret_cnull'), 'K06 120 f t', 'INSERT ... RETURNING expressions over the new row');

--
-- INSERT ... SELECT
--
BEGIN;
INSERT INTO dml_f SELECT 's' || lpad(i::text, 4, '0'), i, md5(i::text), i / 7.0, date '2000-01-01' + i
	FROM generate_series(1, 300) i;
INSERT INTO dml_n SELECT 's' || lpad(i::text, 4, '0'), i, md5(i::text), i / 7.0, date '2000-01-01' + i
	FROM generate_series(1, 300) i;
SELECT pg_temp.state_eq('INSERT ... SELECT from a function: own writes visible');
COMMIT;
SELECT pg_temp.state_eq('INSERT ... SELECT from a function: committed');

CREATE TABLE src_n (k text, a integer, b text, c numeric, d date);
INSERT INTO src_n VALUES ('t01', 10, 'from native', 1, '1999-12-31'), ('t02', NULL, 'b only', NULL, NULL),
	('t03', 30, NULL, NULL, '2001-01-01');
BEGIN;
INSERT INTO dml_f SELECT * FROM src_n;
INSERT INTO dml_n SELECT * FROM src_n;
SELECT pg_temp.state_eq('INSERT ... SELECT * from a native table, in a transaction: own writes visible');
COMMIT;
SELECT pg_temp.state_eq('INSERT ... SELECT * from a native table, in a transaction: committed');

INSERT INTO dml_f SELECT k || '-ac', a, b, c, d FROM src_n;
INSERT INTO dml_n SELECT k || '-ac', a, b, c, d FROM src_n;
SELECT pg_temp.state_eq('INSERT ... SELECT from a native table in autocommit');

WITH r AS (INSERT INTO dml_f SELECT k || '-r', a + 1, b, c, d FROM src_n RETURNING k, a, b)
INSERT INTO ret_f SELECT 'insert select', r::text FROM r;
WITH r AS (INSERT INTO dml_n SELECT k || '-r', a + 1, b, c, d FROM src_n RETURNING k, a, b)
INSERT INTO ret_n SELECT 'insert select', r::text FROM r;
SELECT pg_temp.check_eq('SELECT r FROM ret_f WHERE step = ''insert select'' ORDER BY r COLLATE "C"',
                        'SELECT r FROM ret_n WHERE step = ''insert select'' ORDER BY r COLLATE "C"',
                        'INSERT ... SELECT ... RETURNING');
SELECT pg_temp.state_eq('INSERT ... SELECT ... RETURNING: committed');

-- A statement does not read its own writes: copying the table into itself
-- doubles it once.
BEGIN;
INSERT INTO dml_f SELECT k || '+', a, b, c, d FROM dml_f WHERE k LIKE 's00%';
INSERT INTO dml_n SELECT k || '+', a, b, c, d FROM dml_n WHERE k LIKE 's00%';
SELECT pg_temp.state_eq('INSERT INTO t SELECT FROM t reads the table as it was before the statement');
COMMIT;
SELECT pg_temp.state_eq('INSERT INTO t SELECT FROM t: committed');

--
-- COPY FROM STDIN
--
BEGIN;
COPY dml_f (k, a, b, c, d) FROM STDIN;
c01	1	copy one	1.0	2020-02-02
c02	\N	tab\there	\N	\N
c03	3	back\\slash	-3	2020-02-03
c04	\N	\N	4	\N
c05	5	ünïcødé ✓	5.5	2020-02-05
\.
COPY dml_n (k, a, b, c, d) FROM STDIN;
c01	1	copy one	1.0	2020-02-02
c02	\N	tab\there	\N	\N
c03	3	back\\slash	-3	2020-02-03
c04	\N	\N	4	\N
c05	5	ünïcødé ✓	5.5	2020-02-05
\.
SELECT pg_temp.state_eq('COPY FROM STDIN (text format): own writes visible');
COMMIT;
SELECT pg_temp.state_eq('COPY FROM STDIN (text format): committed');

COPY dml_f (k, b, a) FROM STDIN (FORMAT csv, HEADER true);
k,b,a
c06,"quoted, with comma",6
c07,"multi
line",
c08,,8
c01,,100
\.
COPY dml_n (k, b, a) FROM STDIN (FORMAT csv, HEADER true);
k,b,a
c06,"quoted, with comma",6
c07,"multi
line",
c08,,8
\.
-- COPY is an upsert too: the last line changed a of c01 and kept its other cells.
UPDATE dml_n SET a = 100 WHERE k = 'c01';
SELECT pg_temp.state_eq('COPY FROM STDIN (csv, column subset, existing key): committed');

--
-- Upsert
--
BEGIN;
INSERT INTO dml_f VALUES ('k01', 11, NULL, NULL, NULL), ('k04', NULL, 'four', NULL, '2024-04-04'), ('k99', 99, NULL, NULL, NULL);
INSERT INTO dml_n VALUES ('k01', 11, NULL, NULL, NULL), ('k04', NULL, 'four', NULL, '2024-04-04'), ('k99', 99, NULL, NULL, NULL)
	ON CONFLICT (k) DO UPDATE SET a = coalesce(EXCLUDED.a, dml_n.a), b = coalesce(EXCLUDED.b, dml_n.b),
	                              c = coalesce(EXCLUDED.c, dml_n.c), d = coalesce(EXCLUDED.d, dml_n.d);
SELECT pg_temp.state_eq('INSERT of an existing key changes its non-NULL columns and keeps the other cells (before COMMIT)');
SELECT pg_temp.check_eq('SELECT count(*) FROM dml_f WHERE k = ''k01''', 'SELECT 1::bigint', 'an upsert does not duplicate the row');
COMMIT;
SELECT pg_temp.state_eq('INSERT of an existing key: committed');

-- The same key twice in one statement: the second write wins cell by cell.
INSERT INTO dml_f VALUES ('dup', 1, 'first', NULL, NULL), ('dup', NULL, 'second', 2, NULL);
INSERT INTO dml_n VALUES ('dup', 1, 'second', 2, NULL);
SELECT pg_temp.state_eq('one INSERT writing the same key twice merges the writes in order');

-- INSERT of an all-NULL row over an existing key changes nothing.
INSERT INTO dml_f VALUES ('k02', NULL, NULL, NULL, NULL);
SELECT pg_temp.state_eq('INSERT with only NULL columns leaves an existing row as it was');

-- ON CONFLICT DO NOTHING must not overwrite: either it is refused or the
-- existing row stays as it was.  (On a key of its own, removed afterwards,
-- so that a failure here does not spread to the later checks.)
INSERT INTO dml_f VALUES ('dn', 1, 'kept', NULL, NULL);
INSERT INTO dml_n VALUES ('dn', 1, 'kept', NULL, NULL);
DO $$
BEGIN
	INSERT INTO dml_f VALUES ('dn', -1, 'overwritten', 1, NULL) ON CONFLICT DO NOTHING;
EXCEPTION WHEN feature_not_supported THEN
	NULL;
END $$;
INSERT INTO dml_n VALUES ('dn', -1, 'overwritten', 1, NULL) ON CONFLICT DO NOTHING;
SELECT pg_temp.state_eq('INSERT ... ON CONFLICT DO NOTHING does not overwrite an existing row');
DELETE FROM dml_f WHERE k = 'dn';
DELETE FROM dml_n WHERE k = 'dn';

-- Many keys out of order with ON CONFLICT DO NOTHING, in one transaction:
-- each key is looked up among the rows written before it, and the lookup's
-- memory is freed row by row (it once grew with the square of the rows:
-- 1.8 GB for 20,000).  The backend's peak resident memory is the measure;
-- the bound is far above what it takes (a few MB; under make asan, whose
-- allocator keeps up to 256 MB of freed memory in quarantine, about 280 MB)
-- and far below the fault.
CREATE FOREIGN TABLE dn_f (k text OPTIONS (rowkey 'true'), v integer) SERVER spec_dml_srv OPTIONS (table 'spec_dml_dn');
CREATE TABLE dn_n (k text PRIMARY KEY, v integer);
INSERT INTO dn_f SELECT lpad(i::text, 6, '0'), -i FROM generate_series(1, 20000, 7) i;
INSERT INTO dn_n SELECT lpad(i::text, 6, '0'), -i FROM generate_series(1, 20000, 7) i;
CREATE FUNCTION pg_temp.peak_kb() RETURNS bigint LANGUAGE sql AS $$
	SELECT (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'), 'VmHWM:\s*(\d+)'))[1]::bigint
$$;
SELECT pg_temp.peak_kb() AS peak_before \gset
BEGIN;
INSERT INTO dn_f SELECT lpad(i::text, 6, '0'), i FROM generate_series(1, 20000) i ORDER BY md5(i::text) ON CONFLICT DO NOTHING;
INSERT INTO dn_f SELECT lpad(i::text, 6, '0'), i FROM generate_series(1, 20000) i ORDER BY md5(i::text || 'again') ON CONFLICT DO NOTHING;
COMMIT;
INSERT INTO dn_n SELECT lpad(i::text, 6, '0'), i FROM generate_series(1, 20000) i ORDER BY md5(i::text) ON CONFLICT DO NOTHING;
SELECT cmp_ok(pg_temp.peak_kb() - :peak_before, '<', 600 * 1024::bigint,
	'ON CONFLICT DO NOTHING of 40,000 keys out of order grows the backend by less than 600 MB');
SELECT pg_temp.check_eq('SELECT k, v FROM dn_f', 'SELECT k, v FROM dn_n ORDER BY k COLLATE "C"',
	'ON CONFLICT DO NOTHING of many keys out of order keeps the rows that were there and its own first writes');
DELETE FROM dn_f;
DROP TABLE dn_n;


--
-- UPDATE
--
BEGIN;
WITH r AS (UPDATE dml_f SET a = a * 2 + 1, b = upper(b) || '/' || k, c = c + 0.5
           WHERE k LIKE 's%' AND a % 3 = 0 RETURNING *)
INSERT INTO ret_f SELECT 'update expr', r::text FROM r;
WITH r AS (UPDATE dml_n SET a = a * 2 + 1, b = upper(b) || '/' || k, c = c + 0.5
           WHERE k LIKE 's%' AND a % 3 = 0 RETURNING *)
INSERT INTO ret_n SELECT 'update expr', r::text FROM r;
SELECT pg_temp.state_eq('UPDATE with expressions: own writes visible');
SELECT pg_temp.check_eq('SELECT r FROM ret_f WHERE step = ''update expr'' ORDER BY r COLLATE "C"',
                        'SELECT r FROM ret_n WHERE step = ''update expr'' ORDER BY r COLLATE "C"',
                        'UPDATE ... RETURNING * returns the new rows');
COMMIT;
SELECT pg_temp.state_eq('UPDATE with expressions: committed');

-- Every row once: a = a + 1 over the whole table.
UPDATE dml_f SET a = a + 1;
UPDATE dml_n SET a = a + 1;
SELECT pg_temp.state_eq('UPDATE without WHERE changes every row exactly once');

-- UPDATE ... FROM a native table
UPDATE dml_f f SET b = s.b || ' (joined)', d = s.d FROM src_n s WHERE f.k = s.k || '-ac';
UPDATE dml_n f SET b = s.b || ' (joined)', d = s.d FROM src_n s WHERE f.k = s.k || '-ac';
SELECT pg_temp.state_eq('UPDATE ... FROM a native table');

-- UPDATE of a column the WHERE clause depends on, twice in a transaction
BEGIN;
UPDATE dml_f SET a = a + 1000 WHERE k IN ('k01', 'k02', 'c01');
UPDATE dml_f SET a = a + 1000 WHERE a > 1000;
UPDATE dml_n SET a = a + 1000 WHERE k IN ('k01', 'k02', 'c01');
UPDATE dml_n SET a = a + 1000 WHERE a > 1000;
SELECT pg_temp.state_eq('a second UPDATE in a transaction sees the first');
COMMIT;
SELECT pg_temp.state_eq('two UPDATEs of the same rows: committed');

-- UPDATE to NULL deletes the cell.
BEGIN;
UPDATE dml_f SET b = NULL, d = NULL WHERE k IN ('k01', 'K05 upper', 'c05');
UPDATE dml_n SET b = NULL, d = NULL WHERE k IN ('k01', 'K05 upper', 'c05');
SELECT pg_temp.state_eq('UPDATE to NULL: the columns read as NULL (before COMMIT)');
COMMIT;
SELECT pg_temp.state_eq('UPDATE to NULL: committed');
SELECT is_empty('SELECT k FROM dml_f WHERE k IN (''k01'', ''K05 upper'', ''c05'') AND (b IS NOT NULL OR d IS NOT NULL)',
	'cells set to NULL are gone');

-- A row whose every cell is set to NULL no longer exists.
BEGIN;
UPDATE dml_f SET a = NULL, b = NULL, c = NULL, d = NULL WHERE k IN ('k02', 'c02');
UPDATE dml_n SET a = NULL, b = NULL, c = NULL, d = NULL WHERE k IN ('k02', 'c02');
SELECT pg_temp.oracle_prune();
SELECT pg_temp.state_eq('a row whose cells are all set to NULL disappears (before COMMIT)');
SELECT pg_temp.check_eq('SELECT count(*) FROM dml_f', 'SELECT count(*) FROM dml_n',
	'count(*) does not count a row emptied in this transaction');
SELECT pg_temp.check_eq('SELECT k FROM dml_f', 'SELECT k FROM dml_n ORDER BY k COLLATE "C"',
	'selecting only the row key does not show a row emptied in this transaction');
SELECT pg_temp.check_eq('SELECT k, a FROM dml_f WHERE k LIKE ''_0_''', 'SELECT k, a FROM dml_n WHERE k LIKE ''_0_'' ORDER BY k COLLATE "C"',
	'selecting some columns does not show a row emptied in this transaction');
COMMIT;
SELECT pg_temp.state_eq('a row whose cells are all set to NULL: committed');
SELECT pg_temp.check_eq('SELECT count(*) FROM dml_f', 'SELECT count(*) FROM dml_n', 'count(*) after the row was emptied');
SELECT pg_temp.check_eq('SELECT k FROM dml_f', 'SELECT k FROM dml_n ORDER BY k COLLATE "C"', 'row keys after the row was emptied');

-- UPDATE setting the row key to itself is allowed and changes nothing.
SELECT lives_ok('UPDATE dml_f SET k = k, a = a WHERE k = ''k03''', 'UPDATE setting the row key to its own value is allowed');
SELECT pg_temp.state_eq('UPDATE setting the row key to itself changes nothing');

-- Changing the row key is refused, and changes nothing.
SELECT throws_ok('UPDATE dml_f SET k = k || ''x'' WHERE k = ''k03''', '0A000',
	'cannot change the row key of a row in foreign table "dml_f"',
	'UPDATE of the row key is refused');
SELECT throws_ok('UPDATE dml_f SET k = NULL WHERE k = ''k03''', '23502',
	'row key of foreign table "dml_f" cannot be null',
	'UPDATE of the row key to NULL is refused');
SELECT throws_ok('INSERT INTO dml_f (k, a) VALUES (''k09'', 9), ('''', 1)', '22023',
	'row key of foreign table "dml_f" cannot be empty',
	'INSERT of an empty row key is refused, as Bigtable refuses it');
SELECT pg_temp.state_eq('refused UPDATEs of the row key change nothing');

-- UPDATE matching nothing
SELECT is((SELECT count(*) FROM dml_f WHERE k = 'no such key'), 0::bigint, 'sanity: the key does not exist');
UPDATE dml_f SET a = 1 WHERE k = 'no such key';
SELECT pg_temp.state_eq('UPDATE matching no row creates nothing');

--
-- DELETE
--
BEGIN;
WITH r AS (DELETE FROM dml_f WHERE a > 250 AND k LIKE 's%' RETURNING *)
INSERT INTO ret_f SELECT 'delete pred', r::text FROM r;
WITH r AS (DELETE FROM dml_n WHERE a > 250 AND k LIKE 's%' RETURNING *)
INSERT INTO ret_n SELECT 'delete pred', r::text FROM r;
SELECT pg_temp.state_eq('DELETE with a predicate on a cell: own writes visible');
SELECT pg_temp.check_eq('SELECT r FROM ret_f WHERE step = ''delete pred'' ORDER BY r COLLATE "C"',
                        'SELECT r FROM ret_n WHERE step = ''delete pred'' ORDER BY r COLLATE "C"',
                        'DELETE ... RETURNING * returns the deleted rows as they were');
COMMIT;
SELECT pg_temp.state_eq('DELETE with a predicate on a cell: committed');

DELETE FROM dml_f WHERE k >= 's0100' AND k < 's0150';
DELETE FROM dml_n WHERE k >= 's0100' AND k < 's0150';
SELECT pg_temp.state_eq('DELETE of a row-key range');

DELETE FROM dml_f WHERE k IN (SELECT k || '-ac' FROM src_n WHERE a IS NOT NULL);
DELETE FROM dml_n WHERE k IN (SELECT k || '-ac' FROM src_n WHERE a IS NOT NULL);
SELECT pg_temp.state_eq('DELETE ... WHERE k IN (subquery on a native table)');

DELETE FROM dml_f f USING src_n s WHERE f.k = s.k || '-r' AND s.b IS NOT NULL;
DELETE FROM dml_n f USING src_n s WHERE f.k = s.k || '-r' AND s.b IS NOT NULL;
SELECT pg_temp.state_eq('DELETE ... USING a native table');

DELETE FROM dml_f WHERE b IS NULL;
DELETE FROM dml_n WHERE b IS NULL;
SELECT pg_temp.state_eq('DELETE ... WHERE a column IS NULL');

WITH r AS (DELETE FROM dml_f WHERE k LIKE 'c0%' RETURNING upper(k), a IS NULL, length(b))
INSERT INTO ret_f SELECT 'delete expr', r::text FROM r;
WITH r AS (DELETE FROM dml_n WHERE k LIKE 'c0%' RETURNING upper(k), a IS NULL, length(b))
INSERT INTO ret_n SELECT 'delete expr', r::text FROM r;
SELECT pg_temp.check_eq('SELECT r FROM ret_f WHERE step = ''delete expr'' ORDER BY r COLLATE "C"',
                        'SELECT r FROM ret_n WHERE step = ''delete expr'' ORDER BY r COLLATE "C"',
                        'DELETE ... RETURNING expressions over the deleted rows');
SELECT pg_temp.state_eq('DELETE ... RETURNING expressions: committed');

-- Deleting a row then writing its key again in one transaction: the row
-- has only the new cells.
INSERT INTO dml_f VALUES ('re', 1, 'old b', 1, '2001-01-01');
INSERT INTO dml_n VALUES ('re', 1, 'old b', 1, '2001-01-01');
BEGIN;
DELETE FROM dml_f WHERE k = 're';
INSERT INTO dml_f (k, a) VALUES ('re', 2);
DELETE FROM dml_n WHERE k = 're';
INSERT INTO dml_n (k, a) VALUES ('re', 2);
SELECT pg_temp.state_eq('DELETE then INSERT of a key: only the new cells (before COMMIT)');
COMMIT;
SELECT pg_temp.state_eq('DELETE then INSERT of a key: committed');

-- INSERT, UPDATE and DELETE of one new key in one transaction
BEGIN;
INSERT INTO dml_f VALUES ('life', 1, 'born', NULL, NULL);
UPDATE dml_f SET a = 2, c = 2 WHERE k = 'life';
SELECT pg_temp.check_eq('SELECT k, a, b, c FROM dml_f WHERE k = ''life''', $$VALUES ('life', 2, 'born', 2::numeric)$$,
	'a row inserted in this transaction can be updated');
DELETE FROM dml_f WHERE k = 'life';
SELECT is_empty('SELECT k FROM dml_f WHERE k = ''life''', 'a row inserted in this transaction can be deleted');
COMMIT;
SELECT pg_temp.state_eq('a row inserted, updated and deleted in one transaction leaves nothing');

--
-- DELETE deletes every cell of the row, even cells of columns not mapped by
-- the table it is deleted through; UPDATE and INSERT through a table with
-- fewer columns keep them.
--
CREATE FOREIGN TABLE wide_f (k text OPTIONS (rowkey 'true'), a integer, b text, x text, y integer)
	SERVER spec_dml_srv OPTIONS (table 'spec_dml_wide');
CREATE FOREIGN TABLE narrow_f (k text OPTIONS (rowkey 'true'), a integer)
	SERVER spec_dml_srv OPTIONS (table 'spec_dml_wide');
CREATE TABLE wide_n (k text PRIMARY KEY, a integer, b text, x text, y integer);
INSERT INTO wide_f VALUES ('w1', 1, 'b1', 'x1', 1), ('w2', 2, 'b2', 'x2', 2), ('w3', NULL, 'b3', NULL, 3), ('w4', 4, NULL, NULL, NULL);
INSERT INTO wide_n VALUES ('w1', 1, 'b1', 'x1', 1), ('w2', 2, 'b2', 'x2', 2), ('w3', NULL, 'b3', NULL, 3), ('w4', 4, NULL, NULL, NULL);
BEGIN;
UPDATE narrow_f SET a = a * 10 WHERE k IN ('w1', 'w2');
INSERT INTO narrow_f VALUES ('w3', 30), ('w5', 50);
DELETE FROM narrow_f WHERE k = 'w4';
UPDATE wide_n SET a = a * 10 WHERE k IN ('w1', 'w2');
INSERT INTO wide_n VALUES ('w3', 30, 'b3', NULL, 3), ('w5', 50, NULL, NULL, NULL) ON CONFLICT (k) DO UPDATE SET a = EXCLUDED.a;
DELETE FROM wide_n WHERE k = 'w4';
SELECT pg_temp.check_eq('SELECT * FROM wide_f', 'SELECT * FROM wide_n ORDER BY k', 'writes through a narrower table keep the other cells (before COMMIT)');
COMMIT;
SELECT pg_temp.check_eq('SELECT * FROM wide_f', 'SELECT * FROM wide_n ORDER BY k', 'writes through a narrower table keep the other cells: committed');
BEGIN;
DELETE FROM narrow_f WHERE k IN ('w1', 'w3');
DELETE FROM wide_n WHERE k IN ('w1', 'w3');
SELECT pg_temp.check_eq('SELECT * FROM wide_f', 'SELECT * FROM wide_n ORDER BY k', 'DELETE through a narrower table deletes every cell (before COMMIT)');
COMMIT;
SELECT pg_temp.check_eq('SELECT * FROM wide_f', 'SELECT * FROM wide_n ORDER BY k', 'DELETE through a narrower table deletes every cell: committed');
-- a row that has only cells the narrow table does not map still exists there
SELECT pg_temp.check_eq('SELECT k, a FROM narrow_f', 'SELECT k, a FROM wide_n ORDER BY k',
	'a row with only unmapped cells is a row of the narrower table, with NULL columns');
BEGIN;
UPDATE wide_f SET a = NULL WHERE k = 'w2';
UPDATE wide_n SET a = NULL WHERE k = 'w2';
SELECT pg_temp.check_eq('SELECT k, a FROM narrow_f', 'SELECT k, a FROM wide_n ORDER BY k',
	'a row whose mapped cells were deleted in this transaction but has others still exists');
UPDATE wide_f SET b = NULL, x = NULL, y = NULL WHERE k = 'w2';
UPDATE wide_n SET b = NULL, x = NULL, y = NULL WHERE k = 'w2';
DELETE FROM wide_n WHERE k = 'w2';
SELECT pg_temp.check_eq('SELECT k, a FROM narrow_f', 'SELECT k, a FROM wide_n ORDER BY k',
	'a row whose last cells were deleted in this transaction is gone from a narrower table');
SELECT pg_temp.check_eq('SELECT count(*) FROM narrow_f', 'SELECT count(*) FROM wide_n',
	'count(*) through a narrower table after the last cells were deleted');
COMMIT;
SELECT pg_temp.check_eq('SELECT k, a FROM narrow_f', 'SELECT k, a FROM wide_n ORDER BY k',
	'a row whose last cells were deleted is gone from a narrower table: committed');

--
-- Prepared statements, run often enough to get a generic plan.
--
PREPARE ins(text, integer, text) AS INSERT INTO dml_f (k, a, b) VALUES ($1, $2, $3);
PREPARE upd(text, integer) AS UPDATE dml_f SET a = a + $2 WHERE k = $1;
PREPARE del(text) AS DELETE FROM dml_f WHERE k = $1;
EXECUTE ins('p1', 1, 'p'); EXECUTE ins('p2', 2, 'p'); EXECUTE ins('p3', 3, 'p');
EXECUTE ins('p4', 4, 'p'); EXECUTE ins('p5', 5, 'p'); EXECUTE ins('p6', 6, 'p'); EXECUTE ins('p7', 7, 'p');
EXECUTE upd('p1', 10); EXECUTE upd('p2', 10); EXECUTE upd('p3', 10); EXECUTE upd('p4', 10);
EXECUTE upd('p5', 10); EXECUTE upd('p6', 10); EXECUTE upd('p1', 100);
EXECUTE del('p2'); EXECUTE del('p3'); EXECUTE del('p4'); EXECUTE del('p5'); EXECUTE del('p6'); EXECUTE del('nope');
INSERT INTO dml_n (k, a, b) VALUES ('p1', 111, 'p'), ('p7', 7, 'p');
SELECT pg_temp.state_eq('prepared INSERT, UPDATE and DELETE, custom and generic plans');
DEALLOCATE ins; DEALLOCATE upd; DEALLOCATE del;

--
-- Row triggers on the foreign table
--
CREATE TABLE trig_log (op text, k text, a integer);
CREATE FUNCTION pg_temp.trig_before() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.b := coalesce(NEW.b, '') || ' [' || TG_OP || ']';
	RETURN NEW;
END $$;
CREATE FUNCTION pg_temp.trig_after() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		INSERT INTO trig_log VALUES (TG_OP || ' ' || TG_TABLE_NAME, OLD.k, OLD.a);
	ELSE
		INSERT INTO trig_log VALUES (TG_OP || ' ' || TG_TABLE_NAME, NEW.k, NEW.a);
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER tb BEFORE INSERT OR UPDATE ON dml_f FOR EACH ROW EXECUTE FUNCTION pg_temp.trig_before();
CREATE TRIGGER ta AFTER INSERT OR UPDATE OR DELETE ON dml_f FOR EACH ROW EXECUTE FUNCTION pg_temp.trig_after();
CREATE TRIGGER tb BEFORE INSERT OR UPDATE ON dml_n FOR EACH ROW EXECUTE FUNCTION pg_temp.trig_before();
CREATE TRIGGER ta AFTER INSERT OR UPDATE OR DELETE ON dml_n FOR EACH ROW EXECUTE FUNCTION pg_temp.trig_after();
INSERT INTO dml_f VALUES ('tr1', 1, 'x', NULL, NULL), ('tr2', 2, NULL, NULL, NULL);
INSERT INTO dml_n VALUES ('tr1', 1, 'x', NULL, NULL), ('tr2', 2, NULL, NULL, NULL);
UPDATE dml_f SET a = a + 1 WHERE k LIKE 'tr%';
UPDATE dml_n SET a = a + 1 WHERE k LIKE 'tr%';
DELETE FROM dml_f WHERE k = 'tr1';
DELETE FROM dml_n WHERE k = 'tr1';
SELECT pg_temp.state_eq('BEFORE ROW triggers change the rows written');
SELECT pg_temp.check_eq('SELECT regexp_replace(op, ''dml_.'', ''t''), k, a FROM trig_log WHERE op LIKE ''%dml_f'' ORDER BY 1, 2, 3',
                        'SELECT regexp_replace(op, ''dml_.'', ''t''), k, a FROM trig_log WHERE op LIKE ''%dml_n'' ORDER BY 1, 2, 3',
                        'AFTER ROW triggers see the rows written');
DROP TRIGGER tb ON dml_f; DROP TRIGGER ta ON dml_f;
DROP TRIGGER tb ON dml_n; DROP TRIGGER ta ON dml_n;
-- (the trigger rows go, so that a failure above does not spread)
DELETE FROM dml_f WHERE k LIKE 'tr%';
DELETE FROM dml_n WHERE k LIKE 'tr%';

--
-- Counts reported by the statements
--
SELECT is(count(*), 0::bigint, 'sanity: no keys q1..q3') FROM dml_f WHERE k LIKE 'q_';
CREATE FUNCTION pg_temp.rows_of(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	EXECUTE q;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END $$;
SELECT is(pg_temp.rows_of('INSERT INTO dml_f (k, a) VALUES (''q1'', 1), (''q2'', 2), (''q3'', 3)'), 3::bigint, 'INSERT reports the rows inserted');
SELECT is(pg_temp.rows_of('UPDATE dml_f SET a = -a WHERE k LIKE ''q_'''), 3::bigint, 'UPDATE reports the rows updated');
SELECT is(pg_temp.rows_of('DELETE FROM dml_f WHERE k LIKE ''q_'' AND a < -1'), 2::bigint, 'DELETE reports the rows deleted');
INSERT INTO dml_n (k, a) VALUES ('q1', -1);
SELECT pg_temp.state_eq('state after the counted statements');

-- A volatile function of an INSERT (in its SELECT, or a column DEFAULT)
-- sees the rows the statement inserted before, as with a native table: such
-- statements are not batched.
CREATE FOREIGN TABLE vol_f (k text OPTIONS (rowkey 'true') COLLATE "C", a integer) SERVER spec_dml_srv OPTIONS (table 'spec_dml_vol');
CREATE TABLE vol_n (k text COLLATE "C" PRIMARY KEY, a integer);
CREATE FUNCTION pg_temp.count_of(t regclass) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
DECLARE c integer;
BEGIN
	EXECUTE format('SELECT count(*) FROM %s', t) INTO c;
	RETURN c;
END $$;
CREATE FUNCTION pg_temp.drop_previous(t regclass, i integer) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	EXECUTE format('DELETE FROM %s WHERE k = $1', t) USING 'k' || (i - 1);
	RETURN i;
END $$;
INSERT INTO vol_f SELECT 'k' || i, pg_temp.count_of('vol_f') FROM generate_series(1, 5) i;
INSERT INTO vol_n SELECT 'k' || i, pg_temp.count_of('vol_n') FROM generate_series(1, 5) i;
SELECT pg_temp.check_eq('SELECT k, a FROM vol_f', 'SELECT k, a FROM vol_n ORDER BY k',
	'a volatile function in INSERT ... SELECT counts the rows inserted before it');
DELETE FROM vol_f;
DELETE FROM vol_n;
INSERT INTO vol_f SELECT 'k' || i, pg_temp.drop_previous('vol_f', i) FROM generate_series(1, 5) i;
INSERT INTO vol_n SELECT 'k' || i, pg_temp.drop_previous('vol_n', i) FROM generate_series(1, 5) i;
SELECT pg_temp.check_eq('SELECT k, a FROM vol_f', 'SELECT k, a FROM vol_n ORDER BY k',
	'a volatile function in INSERT ... SELECT deletes the row inserted before it');
DELETE FROM vol_f;
DELETE FROM vol_n;
ALTER FOREIGN TABLE vol_f ALTER COLUMN a SET DEFAULT pg_temp.count_of('vol_f');
ALTER TABLE vol_n ALTER COLUMN a SET DEFAULT pg_temp.count_of('vol_n');
INSERT INTO vol_f (k) SELECT 'm' || i FROM generate_series(1, 4) i;
INSERT INTO vol_n (k) SELECT 'm' || i FROM generate_series(1, 4) i;
SELECT pg_temp.check_eq('SELECT k, a FROM vol_f', 'SELECT k, a FROM vol_n ORDER BY k',
	'a volatile column DEFAULT counts the rows the INSERT inserted before it');
DELETE FROM vol_f;
DROP TABLE vol_n;

-- A filter with a subquery on an UPDATE's or DELETE's table runs once per
-- row, as for a native table (a volatile function in it counts the calls).
CREATE TABLE sub_calls (tab text);
CREATE FUNCTION pg_temp.note_call(t text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	INSERT INTO sub_calls VALUES (t);
	RETURN true;
END $$;
CREATE FOREIGN TABLE sub_f (k text OPTIONS (rowkey 'true') COLLATE "C", a integer) SERVER spec_dml_srv OPTIONS (table 'spec_dml_sub');
CREATE TABLE sub_n (k text COLLATE "C" PRIMARY KEY, a integer);
INSERT INTO sub_f SELECT 'r' || i, i FROM generate_series(1, 3) i;
INSERT INTO sub_n SELECT 'r' || i, i FROM generate_series(1, 3) i;
UPDATE sub_f SET a = a + 1 WHERE (SELECT pg_temp.note_call('f') AND sub_f.k IS NOT NULL);
UPDATE sub_n SET a = a + 1 WHERE (SELECT pg_temp.note_call('n') AND sub_n.k IS NOT NULL);
SELECT pg_temp.check_eq($$SELECT count(*) FROM sub_calls WHERE tab = 'f'$$, $$SELECT count(*) FROM sub_calls WHERE tab = 'n'$$,
	'a subquery in an UPDATE''s filter runs once per row, as for a native table');
SELECT pg_temp.check_eq('SELECT k, a FROM sub_f', 'SELECT k, a FROM sub_n ORDER BY k', 'and the rows are updated alike');
DELETE FROM sub_f;
DROP TABLE sub_n, sub_calls;

-- Clean up.
DELETE FROM dml_f;
DELETE FROM wide_f;
SELECT is_empty('SELECT k FROM dml_f UNION ALL SELECT k FROM wide_f', 'the stored tables are empty again');
DROP SERVER spec_dml_srv CASCADE;
DROP TABLE dml_n, src_n, ret_f, ret_n, wide_n, trig_log;

SELECT * FROM finish();
