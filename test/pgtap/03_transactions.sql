-- Specification: writes are transactional.
--
-- A native table written in the same transactions is the oracle: it
-- commits, rolls back and rolls back to savepoints together with the
-- foreign table, exactly as the foreign table must.  After each transaction ends, the stored (committed) rows
-- must equal the oracle.  A failed statement changes nothing.
--
-- Stored tables: spec_tx, spec_tx_other, spec_tx_big (server spec_tx_srv),
-- spec_tx_2 (server spec_tx_srv2).

\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET check_function_bodies = off;

SELECT plan(83);

\ir setup.psql

CREATE FUNCTION pg_temp.state_eq(descr text)
RETURNS text LANGUAGE sql AS $$
	SELECT pg_temp.check_eq('SELECT k, a, b FROM tx_f', 'SELECT k, a, b FROM tx_n ORDER BY k COLLATE "C"', descr)
$$;

CREATE SERVER spec_tx_srv FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE tx_f (k text OPTIONS (rowkey 'true'), a integer, b text)
	SERVER spec_tx_srv OPTIONS (table 'spec_tx');
CREATE TABLE tx_n (k text PRIMARY KEY, a integer, b text);

INSERT INTO tx_f VALUES ('r1', 1, 'one'), ('r2', 2, 'two'), ('r3', 3, 'three'), ('r4', 4, NULL), ('r5', 5, 'five');
INSERT INTO tx_n VALUES ('r1', 1, 'one'), ('r2', 2, 'two'), ('r3', 3, 'three'), ('r4', 4, NULL), ('r5', 5, 'five');
SELECT pg_temp.state_eq('committed starting state');

--
-- ROLLBACK
--
BEGIN;
INSERT INTO tx_f VALUES ('r0', 0, 'zero'), ('r6', 6, 'six'), ('r2', 22, NULL);
UPDATE tx_f SET b = 'ONE', a = NULL WHERE k = 'r1';
DELETE FROM tx_f WHERE k IN ('r3', 'r6');
INSERT INTO tx_n VALUES ('r0', 0, 'zero'), ('r6', 6, 'six');
UPDATE tx_n SET a = 22 WHERE k = 'r2';
UPDATE tx_n SET b = 'ONE', a = NULL WHERE k = 'r1';
DELETE FROM tx_n WHERE k IN ('r3', 'r6');
SELECT pg_temp.state_eq('a transaction sees its own INSERT, UPDATE and DELETE, merged with the stored rows');
SELECT pg_temp.check_eq('SELECT k, a, b FROM tx_f WHERE k = ''r2''', 'SELECT k, a, b FROM tx_n WHERE k = ''r2''',
	'a transaction sees its own upsert of a stored row');
SELECT pg_temp.check_eq('SELECT count(*), sum(a), string_agg(b, '','' ORDER BY k) FROM tx_f',
                        'SELECT count(*), sum(a), string_agg(b, '','' ORDER BY k) FROM tx_n',
                        'aggregates see the transaction''s own writes');
ROLLBACK;
SELECT pg_temp.state_eq('ROLLBACK discards INSERT, UPDATE and DELETE');

--
-- Savepoints
--
BEGIN;
INSERT INTO tx_f VALUES ('s1', 1, 'before savepoint');
INSERT INTO tx_n VALUES ('s1', 1, 'before savepoint');
SAVEPOINT sp1;
INSERT INTO tx_f VALUES ('s2', 2, 'after sp1');
UPDATE tx_f SET b = 'changed after sp1' WHERE k IN ('r1', 's1');
DELETE FROM tx_f WHERE k = 'r5';
INSERT INTO tx_n VALUES ('s2', 2, 'after sp1');
UPDATE tx_n SET b = 'changed after sp1' WHERE k IN ('r1', 's1');
DELETE FROM tx_n WHERE k = 'r5';
SELECT pg_temp.state_eq('writes after a savepoint are visible');
ROLLBACK TO SAVEPOINT sp1;
SELECT pg_temp.state_eq('ROLLBACK TO SAVEPOINT undoes only the writes after the savepoint');
-- the savepoint still exists after ROLLBACK TO, and can be rolled back to again
INSERT INTO tx_f VALUES ('s3', 3, 'after rollback to sp1');
INSERT INTO tx_n VALUES ('s3', 3, 'after rollback to sp1');
SAVEPOINT sp2;
UPDATE tx_f SET a = a * 100 WHERE k LIKE 'r%';
UPDATE tx_n SET a = a * 100 WHERE k LIKE 'r%';
RELEASE SAVEPOINT sp2;
SAVEPOINT sp3;
DELETE FROM tx_f;
SELECT is_empty('SELECT k FROM tx_f', 'DELETE of every row inside a savepoint: the table reads empty');
ROLLBACK TO SAVEPOINT sp3;
SELECT pg_temp.state_eq('released savepoints keep their writes; rolled back ones do not');
ROLLBACK TO SAVEPOINT sp1;
SELECT pg_temp.state_eq('ROLLBACK TO an earlier savepoint undoes the later, released ones');
INSERT INTO tx_f VALUES ('s4', 4, 'kept');
INSERT INTO tx_n VALUES ('s4', 4, 'kept');
COMMIT;
SELECT pg_temp.state_eq('COMMIT after savepoints stores exactly what was not rolled back');

-- Nested savepoints, the same row written at every level.  (The oracle
-- is written at the end: its own savepoints would undo it as well.)
BEGIN;
UPDATE tx_f SET a = 10 WHERE k = 'r1';
SAVEPOINT l1;
UPDATE tx_f SET a = 20 WHERE k = 'r1';
SAVEPOINT l2;
UPDATE tx_f SET a = 30 WHERE k = 'r1';
SAVEPOINT l3;
DELETE FROM tx_f WHERE k = 'r1';
SELECT is_empty('SELECT k FROM tx_f WHERE k = ''r1''', 'row deleted at the innermost level');
ROLLBACK TO l3;
SELECT pg_temp.check_eq('SELECT a FROM tx_f WHERE k = ''r1''', 'VALUES (30)', 'ROLLBACK TO l3: the row is back with its l2 value');
ROLLBACK TO l2;
SELECT pg_temp.check_eq('SELECT a FROM tx_f WHERE k = ''r1''', 'VALUES (20)', 'ROLLBACK TO l2: the l1 value');
RELEASE l1;
COMMIT;
UPDATE tx_n SET a = 20 WHERE k = 'r1';
SELECT pg_temp.state_eq('nested savepoints: committed');

--
-- A failed statement changes nothing.
--
BEGIN;
INSERT INTO tx_f VALUES ('f0', 0, 'before the failure');
INSERT INTO tx_n VALUES ('f0', 0, 'before the failure');
SELECT throws_ok(
	$$INSERT INTO tx_f VALUES ('f1', 1, 'first of three'), ('f2', 2, 'second of three'), (repeat('k', 4097), 3, 'key too long')$$,
	'54000', 'row key is too long',
	'INSERT of a row key longer than 4096 bytes fails');
SELECT throws_ok(
	$$INSERT INTO tx_f VALUES ('f3', 3, 'first of two'), (NULL, 4, 'null key')$$,
	'23502', 'row key of foreign table "tx_f" cannot be null',
	'INSERT of a NULL row key fails');
SELECT throws_ok(
	$$UPDATE tx_f SET a = 100 / (a - 3) WHERE a IS NOT NULL$$,
	'22012', 'division by zero',
	'UPDATE failing half way fails');
SELECT throws_ok(
	$$DELETE FROM tx_f WHERE 1 / (a - 4) IS NOT NULL$$,
	'22012', 'division by zero',
	'DELETE failing half way fails');
SELECT throws_ok(
	$$UPDATE tx_f SET k = 'moved' WHERE k = 'r2'$$,
	'0A000', 'cannot change the row key of a row in foreign table "tx_f"',
	'UPDATE of the row key fails');
SELECT pg_temp.state_eq('the failed statements left no writes in the transaction');
COMMIT;
SELECT pg_temp.state_eq('the failed statements stored nothing; the others are committed');

-- The same in autocommit (each throws_ok is its own transaction).
SELECT throws_ok(
	$$INSERT INTO tx_f SELECT 'auto' || i, i, 'x' FROM generate_series(1, 100) i
	  UNION ALL SELECT repeat('k', 5000), 0, 'too long'$$,
	'54000', 'row key is too long',
	'INSERT ... SELECT with a too long key after 100 good rows fails');
SELECT throws_ok(
	$$COPY tx_f FROM PROGRAM 'printf "c1\t1\tcopy\nc2\t2\tcopy\n\\\\N\t3\tnull key\n"'$$,
	'23502', NULL,
	'COPY with a NULL row key on its third line fails');
SELECT pg_temp.state_eq('failed autocommit statements stored nothing');

-- Row keys up to 4096 bytes are fine, in bytes, not characters.
INSERT INTO tx_f VALUES (repeat('k', 4096), 4096, 'longest key');
INSERT INTO tx_n VALUES (repeat('k', 4096), 4096, 'longest key');
SELECT throws_ok(
	$$INSERT INTO tx_f VALUES (repeat('✓', 1366), 1, 'three bytes each: 4098 bytes')$$,
	'54000', 'row key is too long',
	'the limit counts bytes: 1366 three-byte characters are too long');
INSERT INTO tx_f VALUES (repeat('✓', 1365) || 'a', 4096, 'three bytes each: 4096 bytes');
INSERT INTO tx_n VALUES (repeat('✓', 1365) || 'a', 4096, 'three bytes each: 4096 bytes');
SELECT pg_temp.state_eq('row keys of exactly 4096 bytes are stored');
DELETE FROM tx_f WHERE a = 4096;
DELETE FROM tx_n WHERE a = 4096;

-- A failure inside a PL/pgSQL exception block undoes that block's earlier
-- writes too, and only them.
DO $$
BEGIN
	INSERT INTO tx_f VALUES ('blk0', 0, 'before the block');
	INSERT INTO tx_n VALUES ('blk0', 0, 'before the block');
	BEGIN
		INSERT INTO tx_f VALUES ('blk1', 1, 'in the block');
		UPDATE tx_f SET b = 'changed in the block' WHERE k = 'r2';
		DELETE FROM tx_f WHERE k = 'r4';
		INSERT INTO tx_f VALUES (NULL, 2, 'fails');
	EXCEPTION WHEN not_null_violation THEN
		NULL;
	END;
	INSERT INTO tx_f VALUES ('blk2', 2, 'after the block');
	INSERT INTO tx_n VALUES ('blk2', 2, 'after the block');
END $$;
SELECT pg_temp.state_eq('an exception block undoes its own writes only');

--
-- Cursors read the rows as of their DECLARE.
--
BEGIN;
DECLARE cf CURSOR FOR SELECT k, a, b FROM tx_f;
DECLARE cn CURSOR FOR SELECT k, a, b FROM tx_n ORDER BY k COLLATE "C";
INSERT INTO tx_f VALUES ('cur', 1, 'after declare');
UPDATE tx_f SET a = -a WHERE k IN ('r1', 'r2');
INSERT INTO tx_n VALUES ('cur', 1, 'after declare');
UPDATE tx_n SET a = -a WHERE k IN ('r1', 'r2');
SELECT results_eq('cf'::refcursor, 'cn'::refcursor, 'a cursor does not see writes made after it was declared');
CLOSE cf; CLOSE cn;
DECLARE cf2 CURSOR FOR SELECT k, a, b FROM tx_f;
DECLARE cn2 CURSOR FOR SELECT k, a, b FROM tx_n ORDER BY k COLLATE "C";
SELECT results_eq('cf2'::refcursor, 'cn2'::refcursor, 'a cursor declared after the writes sees them');
COMMIT;
SELECT pg_temp.state_eq('after the cursors: committed');

--
-- One transaction over several stored tables and servers: all or nothing.
--
CREATE FOREIGN TABLE other_f (k text OPTIONS (rowkey 'true'), v text)
	SERVER spec_tx_srv OPTIONS (table 'spec_tx_other');
CREATE SERVER spec_tx_srv2 FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE second_f (k text OPTIONS (rowkey 'true'), v text)
	SERVER spec_tx_srv2 OPTIONS (table 'spec_tx_2');
CREATE TABLE other_n (k text PRIMARY KEY, v text);
CREATE TABLE second_n (k text PRIMARY KEY, v text);
BEGIN;
INSERT INTO tx_f VALUES ('multi', 1, 'multi');
INSERT INTO other_f VALUES ('o1', 'other');
INSERT INTO second_f VALUES ('s1', 'second server');
ROLLBACK;
SELECT pg_temp.state_eq('ROLLBACK over several tables: first table unchanged');
SELECT is_empty('SELECT k FROM other_f UNION ALL SELECT k FROM second_f', 'ROLLBACK over several tables and servers: the others unchanged');
BEGIN;
INSERT INTO tx_f VALUES ('multi', 1, 'multi');
INSERT INTO other_f VALUES ('o1', 'other'), ('o2', 'other');
INSERT INTO second_f VALUES ('s1', 'second server');
DELETE FROM other_f WHERE k = 'o2';
INSERT INTO tx_n VALUES ('multi', 1, 'multi');
INSERT INTO other_n VALUES ('o1', 'other');
INSERT INTO second_n VALUES ('s1', 'second server');
COMMIT;
SELECT pg_temp.state_eq('COMMIT over several tables: first table');
SELECT pg_temp.check_eq('SELECT k, v FROM other_f', 'SELECT k, v FROM other_n ORDER BY k', 'COMMIT over several tables: second stored table');
SELECT pg_temp.check_eq('SELECT k, v FROM second_f', 'SELECT k, v FROM second_n ORDER BY k', 'COMMIT over several servers: second server');

--
-- A big transaction: many rows, several write batches.
--
CREATE FOREIGN TABLE big_f (k text OPTIONS (rowkey 'true'), i integer, pad text)
	SERVER spec_tx_srv OPTIONS (table 'spec_tx_big');
CREATE TABLE big_n (k text PRIMARY KEY, i integer, pad text);
BEGIN;
INSERT INTO big_f SELECT 'b' || lpad(i::text, 6, '0'), i, repeat(md5(i::text), 4) FROM generate_series(1, 20000) i;
INSERT INTO big_n SELECT 'b' || lpad(i::text, 6, '0'), i, repeat(md5(i::text), 4) FROM generate_series(1, 20000) i;
UPDATE big_f SET pad = NULL, i = -i WHERE i % 2 = 0;
UPDATE big_n SET pad = NULL, i = -i WHERE i % 2 = 0;
DELETE FROM big_f WHERE i % 3 = 0;
DELETE FROM big_n WHERE i % 3 = 0;
SELECT pg_temp.check_eq('SELECT count(*), sum(i), md5(string_agg(k || coalesce(pad, ''-''), '','')) FROM big_f',
                        'SELECT count(*), sum(i), md5(string_agg(k || coalesce(pad, ''-''), '','' ORDER BY k)) FROM big_n',
                        '20000 rows inserted, updated and deleted in one transaction (before COMMIT)');
COMMIT;
SELECT pg_temp.check_eq('SELECT count(*), sum(i), md5(string_agg(k || coalesce(pad, ''-''), '','')) FROM big_f',
                        'SELECT count(*), sum(i), md5(string_agg(k || coalesce(pad, ''-''), '','' ORDER BY k)) FROM big_n',
                        '20000 rows inserted, updated and deleted in one transaction: committed');
SELECT pg_temp.check_eq('SELECT k, i, pad FROM big_f', 'SELECT k, i, pad FROM big_n ORDER BY k',
                        'the big table equals the oracle row by row');
BEGIN;
UPDATE big_f SET i = i + 1;
DELETE FROM big_f WHERE k > 'b010000';
ROLLBACK;
SELECT pg_temp.check_eq('SELECT k, i, pad FROM big_f', 'SELECT k, i, pad FROM big_n ORDER BY k',
                        'a rolled back UPDATE and DELETE of thousands of rows stored nothing');

--
-- Other sessions (through dblink) see committed writes only.
--
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT dblink_connect('other', format('dbname=%s port=%s host=%s', current_database(),
	current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1))) AS connected
\gset
SELECT pg_temp.check_eq(
	$$SELECT * FROM dblink('other', 'SELECT k, a, b FROM tx_f') AS t(k text, a integer, b text)$$,
	'SELECT k, a, b FROM tx_n ORDER BY k COLLATE "C"',
	'another session reads the same committed rows');
BEGIN;
INSERT INTO tx_f VALUES ('unseen', 1, 'not yet committed');
UPDATE tx_f SET b = 'not yet committed' WHERE k = 'r1';
DELETE FROM tx_f WHERE k = 'r2';
SELECT pg_temp.check_eq(
	$$SELECT * FROM dblink('other', 'SELECT k, a, b FROM tx_f') AS t(k text, a integer, b text)$$,
	'SELECT k, a, b FROM tx_n ORDER BY k COLLATE "C"',
	'another session does not see uncommitted INSERT, UPDATE and DELETE');
COMMIT;
INSERT INTO tx_n VALUES ('unseen', 1, 'not yet committed');
UPDATE tx_n SET b = 'not yet committed' WHERE k = 'r1';
DELETE FROM tx_n WHERE k = 'r2';
SELECT pg_temp.check_eq(
	$$SELECT * FROM dblink('other', 'SELECT k, a, b FROM tx_f') AS t(k text, a integer, b text)$$,
	'SELECT k, a, b FROM tx_n ORDER BY k COLLATE "C"',
	'another session sees the writes once committed');
-- the other session's open transaction
SELECT dblink_exec('other', 'BEGIN') AS done
\gset
SELECT dblink_exec('other', $$INSERT INTO tx_f VALUES ('theirs', 7, 'other session')$$) AS done
\gset
SELECT pg_temp.state_eq('the other session''s uncommitted write is not visible here');
SELECT dblink_exec('other', 'COMMIT') AS done
\gset
INSERT INTO tx_n VALUES ('theirs', 7, 'other session');
SELECT pg_temp.state_eq('the other session''s write is visible here once committed');
-- an error in the other session's transaction aborts all of it
SELECT is(dblink_exec('other', $$BEGIN; INSERT INTO tx_f VALUES ('lost1', 1, 'x'); UPDATE tx_f SET a = 0 WHERE k = 'r1';
	INSERT INTO tx_f VALUES (NULL, 2, 'fails'); COMMIT$$, false), 'ERROR',
	'sanity: the other session''s transaction failed');
SELECT dblink_exec('other', 'ROLLBACK') AS done
\gset
SELECT pg_temp.state_eq('a transaction ended by an error stored none of its writes');
-- PREPARE TRANSACTION stores widecolumn writes, invisible until COMMIT
-- PREPARED; ROLLBACK PREPARED takes them back
SELECT dblink_exec('other', 'BEGIN') AS done
\gset
SELECT dblink_exec('other', $$INSERT INTO tx_f VALUES ('prepared', 1, 'x')$$) AS done
\gset
SELECT is(dblink_exec('other', $$PREPARE TRANSACTION 'spec_tx'$$, false), 'PREPARE TRANSACTION',
	'PREPARE TRANSACTION after widecolumn writes works');
SELECT pg_temp.state_eq('a prepared transaction''s writes are not visible');
SELECT dblink_exec('other', $$ROLLBACK PREPARED 'spec_tx'$$) AS done
\gset
SELECT pg_temp.state_eq('ROLLBACK PREPARED leaves none of its writes');
SELECT dblink_exec('other', 'BEGIN') AS done
\gset
SELECT dblink_exec('other', $$INSERT INTO tx_f VALUES ('prepared', 1, 'x')$$) AS done
\gset
SELECT dblink_exec('other', $$PREPARE TRANSACTION 'spec_tx'$$) AS done
\gset
SELECT pg_temp.state_eq('still invisible while prepared');
SELECT dblink_exec('other', $$COMMIT PREPARED 'spec_tx'$$) AS done
\gset
INSERT INTO tx_n VALUES ('prepared', 1, 'x');
SELECT pg_temp.state_eq('COMMIT PREPARED makes them visible');
DELETE FROM tx_f WHERE k = 'prepared';
DELETE FROM tx_n WHERE k = 'prepared';
-- In READ COMMITTED each statement of a function reads a snapshot of its
-- own, as a native table's statements do: a row another session commits
-- between two of them is seen by the second (its transaction wrote only
-- here, so PostgreSQL's own snapshot does not change with it).
CREATE FUNCTION pg_temp.count_twice(tbl text, other_insert text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	a bigint;
	b bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM %s', tbl) INTO a;
	PERFORM dblink_exec('other', other_insert);
	EXECUTE format('SELECT count(*) FROM %s', tbl) INTO b;
	RETURN (b - a)::text;
END $$;
SELECT is(pg_temp.count_twice('tx_f', $$INSERT INTO tx_f VALUES ('between', 8, 'other session')$$),
	pg_temp.count_twice('tx_n', $$INSERT INTO tx_n VALUES ('between', 8, 'other session')$$),
	'in READ COMMITTED a function''s next statement sees a row committed after its previous one');
SELECT pg_temp.state_eq('the row committed between the function''s statements is there');
-- An idle READ COMMITTED transaction that has read the table holds no xmin,
-- which would hold back vacuum; an open cursor holds one, and a statement
-- that failed in a rolled-back savepoint leaves none behind: as with a
-- native table.
CREATE FUNCTION pg_temp.xmin_held(tbl text) RETURNS boolean[] LANGUAGE plpgsql AS $$
DECLARE
	-- a command, then a query or ''
	steps text[][] := ARRAY[
		ARRAY['BEGIN', format('SELECT count(*) FROM %s', tbl)],
		ARRAY[format('DECLARE c CURSOR FOR SELECT * FROM %s', tbl), ''],
		ARRAY['CLOSE c', ''],
		ARRAY['SAVEPOINT s', ''],
		ARRAY[format('DO $do$BEGIN PERFORM 1 / (count(*) - count(*)) FROM %s; END$do$', tbl), ''],
		ARRAY['ROLLBACK TO s', format('SELECT count(*) FROM %s', tbl)]];
	held boolean[] := '{}';
	other_pid integer;
BEGIN
	SELECT p INTO other_pid FROM dblink('other', 'SELECT pg_backend_pid()') AS t(p integer);
	FOR i IN 1 .. array_length(steps, 1) LOOP
		PERFORM dblink_exec('other', steps[i][1], false);
		IF steps[i][2] <> '' THEN
			PERFORM * FROM dblink('other', steps[i][2]) AS t(n bigint);
		END IF;
		IF i NOT IN (4, 5) THEN
			PERFORM pg_stat_clear_snapshot();	-- else it is read once per transaction
			held := held || (SELECT backend_xmin IS NOT NULL FROM pg_stat_activity WHERE pid = other_pid);
		END IF;
	END LOOP;
	PERFORM dblink_exec('other', 'COMMIT');
	RETURN held;
END $$;
SELECT is(pg_temp.xmin_held('tx_f'), pg_temp.xmin_held('tx_n'),
	'READ COMMITTED: idle after a read, with a cursor open, after it is closed, after a failed savepoint: xmin held as with a native table');
SELECT is(pg_temp.xmin_held('tx_n'), '{f,t,f,f}', 'sanity: the native table holds an xmin only while the cursor is open');
SELECT dblink_disconnect('other') AS done
\gset

-- Writes out of key order.  The transaction's log keeps rows in key order
-- by merging runs written out of order; rows written twice (in two runs,
-- or twice in a row) must become one row, whatever the order.
CREATE FOREIGN TABLE ord_f (k text OPTIONS (rowkey 'true'), i integer, s text)
	SERVER spec_tx_srv OPTIONS (table 'spec_tx_order');
CREATE TABLE ord_n (k text PRIMARY KEY, i integer, s text);
BEGIN;
-- five descending runs, then ascending runs that overlap them, then a
-- shuffled batch: each key once per statement
INSERT INTO ord_f SELECT 'o' || lpad(i::text, 5, '0'), i, 'desc' FROM generate_series(5000, 1, -1) i WHERE i % 5 <> 0 ORDER BY i % 4, i DESC;
INSERT INTO ord_n SELECT 'o' || lpad(i::text, 5, '0'), i, 'desc' FROM generate_series(5000, 1, -1) i WHERE i % 5 <> 0;
INSERT INTO ord_f SELECT 'o' || lpad(i::text, 5, '0'), i, 'fives' FROM generate_series(1, 5000) i WHERE i % 5 = 0 ORDER BY md5(i::text);
INSERT INTO ord_n SELECT 'o' || lpad(i::text, 5, '0'), i, 'fives' FROM generate_series(1, 5000) i WHERE i % 5 = 0;
UPDATE ord_f SET s = 'upd', i = -i WHERE i % 7 = 0;
UPDATE ord_n SET s = 'upd', i = -i WHERE i % 7 = 0;
SELECT pg_temp.check_eq('SELECT k, i, s FROM ord_f', 'SELECT k, i, s FROM ord_n ORDER BY k COLLATE "C"',
	'rows written out of key order read back in key order, each once');
-- after that read merged the log: more rows out of order, a row written
-- twice in a row, and a savepoint rolled back over some of them
INSERT INTO ord_f SELECT 'p' || lpad(i::text, 5, '0'), i, 'p' FROM generate_series(300, 1, -1) i;
INSERT INTO ord_n SELECT 'p' || lpad(i::text, 5, '0'), i, 'p' FROM generate_series(300, 1, -1) i;
-- INSERT is an upsert: these write rows already in the log, out of order
INSERT INTO ord_f VALUES ('p00200', 200, 'again');
INSERT INTO ord_n VALUES ('p00200', 200, 'again') ON CONFLICT (k) DO UPDATE SET i = EXCLUDED.i, s = EXCLUDED.s;
INSERT INTO ord_f VALUES ('o00003', 3, 'again');
INSERT INTO ord_n VALUES ('o00003', 3, 'again') ON CONFLICT (k) DO UPDATE SET i = EXCLUDED.i, s = EXCLUDED.s;
INSERT INTO ord_f VALUES ('o00003', 34, 'twice');
INSERT INTO ord_n VALUES ('o00003', 34, 'twice') ON CONFLICT (k) DO UPDATE SET i = EXCLUDED.i, s = EXCLUDED.s;
UPDATE ord_f SET s = s || '+' WHERE k IN ('o00010', 'p00002', 'o04990');
UPDATE ord_n SET s = s || '+' WHERE k IN ('o00010', 'p00002', 'o04990');
UPDATE ord_f SET s = s || '+' WHERE k IN ('o00010', 'p00002', 'o04990');
UPDATE ord_n SET s = s || '+' WHERE k IN ('o00010', 'p00002', 'o04990');
SELECT pg_temp.check_eq('SELECT k, i, s FROM ord_f', 'SELECT k, i, s FROM ord_n ORDER BY k COLLATE "C"',
	'rows written again, in and out of order, read back once with their last values');
-- a row written again in a later run, and nothing else repeated
INSERT INTO ord_f VALUES ('r00002', 2, 'r');
INSERT INTO ord_f VALUES ('r00001', 1, 'r');
INSERT INTO ord_f VALUES ('r00002', 3, 'r again');
INSERT INTO ord_n VALUES ('r00001', 1, 'r'), ('r00002', 3, 'r again');
SELECT pg_temp.check_eq('SELECT k, i, s FROM ord_f WHERE k >= ''r''', 'SELECT k, i, s FROM ord_n WHERE k >= ''r'' ORDER BY k COLLATE "C"',
	'a row written again in a later run of the log is one row');
-- a row written twice in a row in the same run, and nothing else repeated
INSERT INTO ord_f VALUES ('s00002', 2, 's');
INSERT INTO ord_f VALUES ('s00001', 1, 's');
INSERT INTO ord_f VALUES ('s00001', 4, 's again');
INSERT INTO ord_n VALUES ('s00001', 4, 's again'), ('s00002', 2, 's');
SELECT pg_temp.check_eq('SELECT k, i, s FROM ord_f WHERE k >= ''s''', 'SELECT k, i, s FROM ord_n WHERE k >= ''s'' ORDER BY k COLLATE "C"',
	'a row written twice in a row out of key order is one row');
-- one key written 2,000 times while the tail holds rows: 2,000 entries
-- that must become one row with the last write's values
INSERT INTO ord_f VALUES ('a0', 0, 'low');
INSERT INTO ord_n VALUES ('a0', 0, 'low');
INSERT INTO ord_f SELECT 't', g, 'x' || g FROM generate_series(1, 2000) g;
INSERT INTO ord_n VALUES ('t', 2000, 'x2000');
SELECT pg_temp.check_eq('SELECT k, i, s FROM ord_f WHERE k IN (''a0'', ''t'')', 'VALUES (''a0'', 0, ''low''), (''t'', 2000, ''x2000'')',
	'a key written 2,000 times out of order is one row with the last values');
SAVEPOINT sp_order;
DELETE FROM ord_f WHERE i % 3 = 0;
INSERT INTO ord_f SELECT 'n' || lpad(i::text, 5, '0'), i, 'gone' FROM generate_series(50, 1, -1) i;
ROLLBACK TO SAVEPOINT sp_order;
DELETE FROM ord_f WHERE i % 11 = 0;
DELETE FROM ord_n WHERE i % 11 = 0;
COMMIT;
SELECT pg_temp.check_eq('SELECT k, i, s FROM ord_f', 'SELECT k, i, s FROM ord_n ORDER BY k COLLATE "C"',
	'the committed rows written out of order equal the oracle');
SELECT pg_temp.check_eq('SELECT k FROM ord_f WHERE s LIKE ''%++''', 'VALUES (''o00010''), (''o04990''), (''p00002'')',
	'a row updated twice kept both updates');

--
-- A row this transaction has written since a scan began is passed over by
-- the scan's row locks, as PostgreSQL passes over its own rows: an UPDATE
-- joined to two rows of another table updates each row once, and a
-- cursor FOR UPDATE skips the rows written after it was declared.
--
CREATE TEMP TABLE twice (k text);
INSERT INTO twice VALUES ('r1'), ('r1'), ('r2');
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_memoize = off;
SELECT pg_temp.check_eq(
	'WITH u AS (UPDATE tx_f SET a = tx_f.a + 1 FROM twice WHERE tx_f.k = twice.k RETURNING tx_f.k, tx_f.a) SELECT k, a FROM u ORDER BY k',
	'WITH u AS (UPDATE tx_n SET a = tx_n.a + 1 FROM twice WHERE tx_n.k = twice.k RETURNING tx_n.k, tx_n.a) SELECT k, a FROM u ORDER BY k',
	'an UPDATE joined to two rows of another table updates the row once');
SELECT pg_temp.state_eq('the rows updated through a join are those of the oracle');
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT lives_ok('UPDATE tx_f SET a = tx_f.a + 1 FROM twice WHERE tx_f.k = twice.k',
	'in REPEATABLE READ, its own earlier update of the row is not a serialization failure');
ROLLBACK;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_memoize;
-- The same when the join hands the row over twice without reading it again
-- (a hash join), for UPDATE and DELETE; and a merge join sorting on an
-- expression of the row key plans and runs.
SET enable_nestloop = off;
SELECT pg_temp.check_eq(
	'WITH u AS (UPDATE tx_f SET a = tx_f.a + 1 FROM twice WHERE tx_f.k = twice.k RETURNING tx_f.k, tx_f.a) SELECT k, a FROM u ORDER BY k',
	'WITH u AS (UPDATE tx_n SET a = tx_n.a + 1 FROM twice WHERE tx_n.k = twice.k RETURNING tx_n.k, tx_n.a) SELECT k, a FROM u ORDER BY k',
	'an UPDATE hash-joined to two rows of another table updates the row once');
BEGIN;
SELECT pg_temp.check_eq(
	'WITH d AS (DELETE FROM tx_f USING twice WHERE tx_f.k = twice.k RETURNING tx_f.k) SELECT k FROM d ORDER BY k',
	'WITH d AS (DELETE FROM tx_n USING twice WHERE tx_n.k = twice.k RETURNING tx_n.k) SELECT k FROM d ORDER BY k',
	'a DELETE hash-joined to two rows of another table deletes the row once');
ROLLBACK;
SET enable_hashjoin = off;
CREATE FOREIGN TABLE mj_f (k text OPTIONS (rowkey 'true') COLLATE "C", a integer) SERVER spec_tx_srv OPTIONS (table 'spec_tx_mj');
CREATE TABLE mj_n (k text COLLATE "C" PRIMARY KEY, a integer);
INSERT INTO mj_f VALUES ('r', 1), ('s', 2);
INSERT INTO mj_n VALUES ('r', 1), ('s', 2);
INSERT INTO twice VALUES ('rx');
SELECT pg_temp.check_eq(
	'WITH u AS (UPDATE mj_f SET a = mj_f.a + 1 FROM twice WHERE twice.k = mj_f.k || ''x'' RETURNING mj_f.k, mj_f.a) SELECT k, a FROM u',
	'WITH u AS (UPDATE mj_n SET a = mj_n.a + 1 FROM twice WHERE twice.k = mj_n.k || ''x'' RETURNING mj_n.k, mj_n.a) SELECT k, a FROM u',
	'an UPDATE merge-joined on an expression of a COLLATE "C" row key');
DELETE FROM twice WHERE k = 'rx';
DELETE FROM mj_f;
DROP TABLE mj_n;
-- ... and when its first match changes nothing (sets the value it has)
SET enable_mergejoin = off;
SET enable_nestloop = on;
CREATE FOREIGN TABLE same_f (k text OPTIONS (rowkey 'true') COLLATE "C", b text) SERVER spec_tx_srv OPTIONS (table 'spec_tx_same');
CREATE TABLE same_n (k text COLLATE "C" PRIMARY KEY, b text);
CREATE TEMP TABLE same_pairs (k text COLLATE "C", b text);
INSERT INTO same_f VALUES ('r', 'a');
INSERT INTO same_n VALUES ('r', 'a');
INSERT INTO same_pairs VALUES ('r', 'a'), ('r', 'z');
SELECT pg_temp.check_eq(
	'WITH u AS (UPDATE same_f SET b = p.b FROM same_pairs p WHERE p.k = same_f.k RETURNING same_f.k, same_f.b) SELECT k, b FROM u',
	'WITH u AS (UPDATE same_n SET b = p.b FROM same_pairs p WHERE p.k = same_n.k RETURNING same_n.k, same_n.b) SELECT k, b FROM u',
	'an UPDATE whose first joined row changes nothing still updates the row once');
SELECT pg_temp.check_eq('SELECT k, b FROM same_f', 'SELECT k, b FROM same_n', 'and keeps what the first joined row set');
DELETE FROM same_f;
DROP TABLE same_n;
RESET enable_mergejoin;
RESET enable_hashjoin;
RESET enable_nestloop;
SELECT pg_temp.state_eq('the rows updated through joins are those of the oracle');
BEGIN;
DECLARE cf CURSOR FOR SELECT k, a FROM tx_f WHERE k IN ('r1', 'r2', 'r5') ORDER BY k FOR UPDATE;
DECLARE cn CURSOR FOR SELECT k, a FROM tx_n WHERE k IN ('r1', 'r2', 'r5') ORDER BY k FOR UPDATE;
UPDATE tx_f SET a = 100 WHERE k = 'r2';
UPDATE tx_n SET a = 100 WHERE k = 'r2';
SELECT results_eq('cf'::refcursor, 'cn'::refcursor,
	'a cursor FOR UPDATE passes over a row written after it was declared');
COMMIT;
SELECT pg_temp.state_eq('the rows after the cursor equal the oracle');
-- ... also when the transaction wrote rows out of key order meanwhile (its
-- own rows are looked up in a log whose tail is sorted in when read).  The
-- row key is COLLATE "C", so that the scan, not a sort, gives the rows in
-- order as they are fetched.
CREATE FOREIGN TABLE fr_f (k text OPTIONS (rowkey 'true') COLLATE "C", a integer) SERVER spec_tx_srv OPTIONS (table 'spec_tx_fr');
CREATE TABLE fr_n (k text COLLATE "C" PRIMARY KEY, a integer);
INSERT INTO fr_f VALUES ('r1', 1), ('r2', 2), ('r5', 5);
INSERT INTO fr_n VALUES ('r1', 1), ('r2', 2), ('r5', 5);
BEGIN;
DECLARE cf CURSOR FOR SELECT k, a FROM fr_f ORDER BY k FOR UPDATE;
DECLARE cn CURSOR FOR SELECT k, a FROM fr_n ORDER BY k FOR UPDATE;
MOVE 1 IN cf;
MOVE 1 IN cn;
UPDATE fr_f SET a = 200 WHERE k = 'r2';
UPDATE fr_n SET a = 200 WHERE k = 'r2';
UPDATE fr_f SET a = 100 WHERE k = 'r1';
UPDATE fr_n SET a = 100 WHERE k = 'r1';
SELECT results_eq('cf'::refcursor, 'cn'::refcursor,
	'a cursor FOR UPDATE passes over a row written after it was declared, before rows written out of key order');
ROLLBACK;
DELETE FROM fr_f;
DROP TABLE fr_n;
-- A row that a trigger or function of the statement changed (a later
-- command) before the statement reached it: updating or deleting it again
-- would silently undo that change, so it is an error (27000), as for a
-- native table.  The statements fail whole.
CREATE FUNCTION pg_temp.touch_r2() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF (CASE TG_OP WHEN 'DELETE' THEN OLD.k ELSE NEW.k END) = 'r1' THEN
		EXECUTE format('UPDATE %I SET b = ''touched'' WHERE k = ''r2''', TG_TABLE_NAME);
	END IF;
	RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END $$;
CREATE FUNCTION pg_temp.bump_r2(tbl text, k text) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
	IF k = 'r1' THEN
		EXECUTE format('UPDATE %I SET b = ''bumped'' WHERE k = ''r2''', tbl);
	END IF;
	RETURN 0;
END $$;
CREATE FUNCTION pg_temp.sqlstate_of(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE stmt;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END $$;
CREATE FOREIGN TABLE sm_f (k text OPTIONS (rowkey 'true') COLLATE "C", a integer, b text) SERVER spec_tx_srv OPTIONS (table 'spec_tx_sm');
CREATE TABLE sm_n (k text COLLATE "C" PRIMARY KEY, a integer, b text);
INSERT INTO sm_f VALUES ('r1', 1, 'one'), ('r2', 2, 'two');
INSERT INTO sm_n VALUES ('r1', 1, 'one'), ('r2', 2, 'two');
CREATE TRIGGER touch BEFORE UPDATE OR DELETE ON sm_f FOR EACH ROW EXECUTE FUNCTION pg_temp.touch_r2();
CREATE TRIGGER touch BEFORE UPDATE OR DELETE ON sm_n FOR EACH ROW EXECUTE FUNCTION pg_temp.touch_r2();
SELECT is(pg_temp.sqlstate_of($$UPDATE sm_f SET a = a + 10 WHERE k IN ('r1', 'r2')$$),
	pg_temp.sqlstate_of($$UPDATE sm_n SET a = a + 10 WHERE k IN ('r1', 'r2')$$),
	'an UPDATE reaching a row its BEFORE trigger updated fails as on a native table (27000)');
SELECT is(pg_temp.sqlstate_of($$DELETE FROM sm_f WHERE k IN ('r1', 'r2')$$),
	pg_temp.sqlstate_of($$DELETE FROM sm_n WHERE k IN ('r1', 'r2')$$),
	'a DELETE reaching a row its BEFORE trigger updated fails as on a native table');
DROP TRIGGER touch ON sm_f;
DROP TRIGGER touch ON sm_n;
SELECT is(pg_temp.sqlstate_of($$UPDATE sm_f SET a = a + 100 + pg_temp.bump_r2('sm_f', k) WHERE k IN ('r1', 'r2')$$),
	pg_temp.sqlstate_of($$UPDATE sm_n SET a = a + 100 + pg_temp.bump_r2('sm_n', k) WHERE k IN ('r1', 'r2')$$),
	'an UPDATE reaching a row a function in its SET updated fails as on a native table');
SELECT is(pg_temp.sqlstate_of($$UPDATE sm_n SET a = a + 100 + pg_temp.bump_r2('sm_n', k) WHERE k IN ('r1', 'r2')$$),
	'27000', 'sanity: the native table''s error is 27000');
SELECT pg_temp.check_eq('SELECT k, a, b FROM sm_f', 'SELECT k, a, b FROM sm_n', 'the failed statements changed nothing');
DELETE FROM sm_f;
DROP TABLE sm_n;

--
-- A cursor declared before a savepoint keeps reading after the savepoint is
-- rolled back, even if its first rows were fetched inside it.
--
INSERT INTO big_f (k, i, pad) SELECT 'c' || lpad(i::text, 5, '0'), i, repeat('x', 100) FROM generate_series(1, 3000) i;
INSERT INTO big_n SELECT 'c' || lpad(i::text, 5, '0'), i, repeat('x', 100) FROM generate_series(1, 3000) i;
BEGIN;
DECLARE cf2 CURSOR FOR SELECT k, i FROM big_f WHERE k LIKE 'c%';
DECLARE cn2 CURSOR FOR SELECT k, i FROM big_n WHERE k LIKE 'c%' ORDER BY k COLLATE "C";
SAVEPOINT in_cursor;
MOVE 1 IN cf2;
MOVE 1 IN cn2;
ROLLBACK TO SAVEPOINT in_cursor;
SELECT pg_temp.check_eq('SELECT count(*) FROM big_f', 'SELECT count(*) FROM big_n',
	'a read after rolling back the savepoint the cursor was first fetched in');
SELECT results_eq('cf2'::refcursor, 'cn2'::refcursor,
	'the cursor goes on after the savepoint it was first fetched in is rolled back');
COMMIT;
DELETE FROM big_f WHERE k LIKE 'c%';
DELETE FROM big_n WHERE k LIKE 'c%';

-- Clean up.
DELETE FROM tx_f;
DELETE FROM other_f;
DELETE FROM second_f;
DELETE FROM big_f;
DELETE FROM ord_f;
SELECT is_empty('SELECT k FROM tx_f UNION ALL SELECT k FROM other_f UNION ALL SELECT k FROM second_f UNION ALL SELECT k FROM big_f UNION ALL SELECT k FROM ord_f',
	'the stored tables are empty again');
DROP SERVER spec_tx_srv CASCADE;
DROP SERVER spec_tx_srv2 CASCADE;
DROP TABLE tx_n, other_n, second_n, big_n, ord_n;
DROP EXTENSION dblink;

SELECT * FROM finish();
