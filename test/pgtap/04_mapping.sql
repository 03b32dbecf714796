-- Specification: how foreign tables map stored tables, rows and cells.
--
--   * one row-key column: OPTIONS (rowkey 'true'), or the column named rowkey;
--   * other columns are cells family:qualifier: OPTIONS (column 'f:q'), or
--     the table's family (option family, default 'cf') and the column name;
--   * option table names the stored table, by default the foreign table's
--     name; several foreign tables may map one stored table, each seeing
--     the cells it maps and every row (a row exists while it has any cell);
--   * stored tables live in their server: same name, other server, other data.
--
-- The oracle is a native table per stored table with one column per cell.
--
-- Stored tables: spec_map_* (servers spec_map_srv, spec_map_srv2).

\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET check_function_bodies = off;

SELECT plan(70);

\ir setup.psql

CREATE SERVER spec_map_srv FOREIGN DATA WRAPPER widecolumn_fdw;

--
-- Two foreign tables over one stored table (the example of the spec).
--
CREATE FOREIGN TABLE balloon (
	rowkey text OPTIONS (rowkey 'true'),
	pressure bigint OPTIONS (column 'measurements:pressure'),
	temp float8 OPTIONS (column 'measurements:temperature')
) SERVER spec_map_srv OPTIONS (table 'spec_map_weather');
CREATE FOREIGN TABLE balloon_site (
	id text OPTIONS (rowkey 'true'),
	temperature float8 OPTIONS (column 'measurements:temperature'),
	site text OPTIONS (column 'meta:site')
) SERVER spec_map_srv OPTIONS (table 'spec_map_weather');
-- the stored table, cell by cell
CREATE TABLE weather_n (rowkey text PRIMARY KEY, pressure bigint, temp float8, site text);

CREATE FUNCTION pg_temp.weather_eq(descr text) RETURNS SETOF text LANGUAGE sql AS $$
	SELECT pg_temp.check_eq('SELECT rowkey, pressure, temp FROM balloon',
	                        'SELECT rowkey, pressure, temp FROM weather_n ORDER BY rowkey COLLATE "C"',
	                        descr || ': the table with the measurements')
	UNION ALL
	SELECT pg_temp.check_eq('SELECT id, temperature, site FROM balloon_site',
	                        'SELECT rowkey, temp, site FROM weather_n ORDER BY rowkey COLLATE "C"',
	                        descr || ': the table with the site')
$$;

INSERT INTO balloon VALUES ('b1', 1013, 21.5), ('b2', 990, NULL), ('b3', NULL, -3.25);
INSERT INTO balloon_site VALUES ('b4', 15.0, 'Oslo'), ('b2', NULL, 'Bergen');
INSERT INTO weather_n VALUES ('b1', 1013, 21.5, NULL), ('b2', 990, NULL, 'Bergen'), ('b3', NULL, -3.25, NULL), ('b4', NULL, 15.0, 'Oslo');
SELECT pg_temp.weather_eq('rows written through either table');

BEGIN;
UPDATE balloon_site SET temperature = temperature + 100, site = 'Tromsø' WHERE id IN ('b1', 'b4');
UPDATE balloon SET pressure = 1000 WHERE rowkey = 'b4';
INSERT INTO balloon_site VALUES ('b3', NULL, 'Bodø');
UPDATE weather_n SET temp = temp + 100, site = 'Tromsø' WHERE rowkey IN ('b1', 'b4');
UPDATE weather_n SET pressure = 1000 WHERE rowkey = 'b4';
UPDATE weather_n SET site = 'Bodø' WHERE rowkey = 'b3';
SELECT pg_temp.weather_eq('uncommitted writes through one table are seen through the other');
COMMIT;
SELECT pg_temp.weather_eq('committed writes through one table are seen through the other');

BEGIN;
DELETE FROM balloon_site WHERE id = 'b1';
DELETE FROM weather_n WHERE rowkey = 'b1';
UPDATE balloon SET pressure = NULL, temp = NULL WHERE rowkey = 'b3';
UPDATE weather_n SET pressure = NULL, temp = NULL WHERE rowkey = 'b3';
SELECT pg_temp.weather_eq('DELETE through one table removes the row from both (before COMMIT)');
COMMIT;
SELECT pg_temp.weather_eq('DELETE through one table removes the row from both');

--
-- Default family and qualifier, and the family option.
--
CREATE FOREIGN TABLE plain_f (rowkey text, x integer, y text)
	SERVER spec_map_srv OPTIONS (table 'spec_map_plain');
CREATE FOREIGN TABLE explicit_f (
	k text OPTIONS (rowkey 'true'),
	xx integer OPTIONS (column 'cf:x'),
	yy text OPTIONS (column 'cf:y')
) SERVER spec_map_srv OPTIONS (table 'spec_map_plain');
CREATE FOREIGN TABLE other_fam_f (rowkey text, x integer)
	SERVER spec_map_srv OPTIONS (table 'spec_map_plain', family 'other');
CREATE FOREIGN TABLE other_explicit_f (rowkey text, v integer OPTIONS (column 'other:x'), w text OPTIONS (column 'cf:y'))
	SERVER spec_map_srv OPTIONS (table 'spec_map_plain');
CREATE TABLE plain_n (rowkey text PRIMARY KEY, cf_x integer, cf_y text, other_x integer);
INSERT INTO plain_f VALUES ('p1', 1, 'one'), ('p2', 2, NULL);
INSERT INTO explicit_f VALUES ('p3', 3, 'three'), ('p1', NULL, 'uno');
INSERT INTO other_fam_f VALUES ('p2', 20), ('p4', 40);
INSERT INTO plain_n VALUES ('p1', 1, 'uno', NULL), ('p2', 2, NULL, 20), ('p3', 3, 'three', NULL), ('p4', NULL, NULL, 40);
SELECT pg_temp.check_eq('SELECT rowkey, x, y FROM plain_f', 'SELECT rowkey, cf_x, cf_y FROM plain_n ORDER BY rowkey',
	'a column without options is the cell cf:<column name>');
SELECT pg_temp.check_eq('SELECT k, xx, yy FROM explicit_f', 'SELECT rowkey, cf_x, cf_y FROM plain_n ORDER BY rowkey',
	'OPTIONS (column ''cf:x'') is the same cell as a column named x');
SELECT pg_temp.check_eq('SELECT rowkey, x FROM other_fam_f', 'SELECT rowkey, other_x FROM plain_n ORDER BY rowkey',
	'the table option family changes the family of unmapped columns');
SELECT pg_temp.check_eq('SELECT rowkey, v, w FROM other_explicit_f', 'SELECT rowkey, other_x, cf_y FROM plain_n ORDER BY rowkey',
	'column options override the family, one column at a time');

--
-- Qualifiers and families that are prefixes of each other, and unusual
-- qualifiers, are distinct cells.
--
CREATE FOREIGN TABLE quals_f (
	k text OPTIONS (rowkey 'true'),
	a1 integer OPTIONS (column 'f:a'),
	a2 integer OPTIONS (column 'f:ab'),
	a3 integer OPTIONS (column 'f:a b'),
	a4 integer OPTIONS (column 'ff:a'),
	a5 integer OPTIONS (column 'f:a:b'),
	a6 integer OPTIONS (column 'f.1-x_y:ü ✓'),
	"Mixed Case" integer,
	a8 integer OPTIONS (column 'f:A')
) SERVER spec_map_srv OPTIONS (table 'spec_map_quals', family 'f');
CREATE FOREIGN TABLE quals_g (
	k text OPTIONS (rowkey 'true'),
	mixed integer OPTIONS (column 'f:Mixed Case'),
	colon integer OPTIONS (column 'f:a:b'),
	deep integer OPTIONS (column 'f.1-x_y:ü ✓'),
	upper integer OPTIONS (column 'f:A')
) SERVER spec_map_srv OPTIONS (table 'spec_map_quals');
CREATE TABLE quals_n (k text PRIMARY KEY, a1 integer, a2 integer, a3 integer, a4 integer, a5 integer, a6 integer, "Mixed Case" integer, a8 integer);
INSERT INTO quals_f VALUES ('q1', 1, 2, 3, 4, 5, 6, 7, 8), ('q2', NULL, 22, NULL, 44, NULL, 66, NULL, 88), ('q3', 111, NULL, 333, NULL, 555, NULL, 777, NULL);
INSERT INTO quals_n VALUES ('q1', 1, 2, 3, 4, 5, 6, 7, 8), ('q2', NULL, 22, NULL, 44, NULL, 66, NULL, 88), ('q3', 111, NULL, 333, NULL, 555, NULL, 777, NULL);
SELECT pg_temp.check_eq('SELECT * FROM quals_f', 'SELECT * FROM quals_n ORDER BY k',
	'qualifiers that prefix each other, families that prefix each other, colons, unicode and case are distinct cells');
SELECT pg_temp.check_eq('SELECT k, mixed, colon, deep, upper FROM quals_g', 'SELECT k, "Mixed Case", a5, a6, a8 FROM quals_n ORDER BY k',
	'the same cells mapped by name from another table');
UPDATE quals_g SET mixed = -mixed, upper = NULL WHERE k IN ('q1', 'q3');
UPDATE quals_n SET "Mixed Case" = -"Mixed Case", a8 = NULL WHERE k IN ('q1', 'q3');
SELECT pg_temp.check_eq('SELECT * FROM quals_f', 'SELECT * FROM quals_n ORDER BY k',
	'updates of some cells leave the neighbouring cells alone');

--
-- The row-key column: marked, or named rowkey.
--
CREATE FOREIGN TABLE named_f (rowkey varchar(20), v text) SERVER spec_map_srv OPTIONS (table 'spec_map_rk');
CREATE FOREIGN TABLE marked_f (id text OPTIONS (rowkey 'true'), v text, rowkey text)
	SERVER spec_map_srv OPTIONS (table 'spec_map_rk');
CREATE FOREIGN TABLE marked_last_f (v text, rowkey text OPTIONS (column 'cf:rowkey'), id text OPTIONS (rowkey 'true'))
	SERVER spec_map_srv OPTIONS (table 'spec_map_rk');
CREATE TABLE rk_n (k text PRIMARY KEY, v text, rowkey_cell text);
INSERT INTO named_f VALUES ('n1', 'via named');
INSERT INTO marked_f VALUES ('n2', 'via marked', 'a cell named rowkey');
INSERT INTO rk_n VALUES ('n1', 'via named', NULL), ('n2', 'via marked', 'a cell named rowkey');
SELECT pg_temp.check_eq('SELECT rowkey::text, v FROM named_f', 'SELECT k, v FROM rk_n ORDER BY k',
	'a varchar column named rowkey is the row key');
SELECT pg_temp.check_eq('SELECT id, v, rowkey FROM marked_f', 'SELECT k, v, rowkey_cell FROM rk_n ORDER BY k',
	'with a marked row key, a column named rowkey is an ordinary cell');
SELECT pg_temp.check_eq('SELECT id, v, rowkey FROM marked_last_f', 'SELECT k, v, rowkey_cell FROM rk_n ORDER BY k',
	'the row-key column may be anywhere in the table');
SELECT throws_ok($$INSERT INTO named_f VALUES (repeat('x', 21), 'too long for varchar(20)')$$, '22001', NULL,
	'the row-key column keeps its type''s constraints');

--
-- The stored table: option table, else the foreign table's name.
--
CREATE SCHEMA spec_map_s1;
CREATE SCHEMA spec_map_s2;
CREATE FOREIGN TABLE spec_map_s1.spec_map_same (rowkey text, v integer) SERVER spec_map_srv;
CREATE FOREIGN TABLE spec_map_s2.spec_map_same (rowkey text, v integer) SERVER spec_map_srv;
CREATE FOREIGN TABLE same_by_option (rowkey text, v integer) SERVER spec_map_srv OPTIONS (table 'spec_map_same');
CREATE FOREIGN TABLE not_same (rowkey text, v integer) SERVER spec_map_srv OPTIONS (table 'spec_map_same2');
CREATE FOREIGN TABLE not_same_prefix (rowkey text, v integer) SERVER spec_map_srv OPTIONS (table 'spec_map_sam');
CREATE FOREIGN TABLE not_same_case (rowkey text, v integer) SERVER spec_map_srv OPTIONS (table 'SPEC_MAP_SAME');
CREATE TABLE same_n (rowkey text PRIMARY KEY, v integer);
INSERT INTO spec_map_s1.spec_map_same VALUES ('s1', 1);
INSERT INTO spec_map_s2.spec_map_same VALUES ('s2', 2);
INSERT INTO same_by_option VALUES ('s3', 3);
INSERT INTO not_same VALUES ('x1', -1);
INSERT INTO not_same_prefix VALUES ('x2', -2);
INSERT INTO not_same_case VALUES ('x3', -3);
INSERT INTO same_n VALUES ('s1', 1), ('s2', 2), ('s3', 3);
SELECT pg_temp.check_eq('SELECT * FROM spec_map_s1.spec_map_same', 'SELECT * FROM same_n ORDER BY rowkey',
	'without option table, the stored table is the foreign table''s name (schema 1)');
SELECT pg_temp.check_eq('SELECT * FROM spec_map_s2.spec_map_same', 'SELECT * FROM same_n ORDER BY rowkey',
	'without option table, the stored table is the foreign table''s name (schema 2)');
SELECT pg_temp.check_eq('SELECT * FROM same_by_option', 'SELECT * FROM same_n ORDER BY rowkey',
	'option table names the same stored table');
SELECT pg_temp.check_eq('SELECT * FROM not_same UNION ALL SELECT * FROM not_same_prefix UNION ALL SELECT * FROM not_same_case',
	$$VALUES ('x1', -1), ('x2', -2), ('x3', -3)$$,
	'stored tables whose names extend, prefix or differ in case from another are separate');

-- The same stored table name on another server is other data.
CREATE SERVER spec_map_srv2 FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE same_other_server (rowkey text, v integer) SERVER spec_map_srv2 OPTIONS (table 'spec_map_same');
SELECT is_empty('SELECT * FROM same_other_server', 'a stored table of the same name on another server is empty');
INSERT INTO same_other_server VALUES ('o1', 100);
SELECT pg_temp.check_eq('SELECT * FROM same_by_option', 'SELECT * FROM same_n ORDER BY rowkey',
	'writes on another server do not reach this server''s stored table');
SELECT pg_temp.check_eq('SELECT * FROM same_other_server', $$VALUES ('o1', 100)$$,
	'the other server keeps its own rows');

--
-- ALTER FOREIGN TABLE changes the mapping, never the stored data.
--
CREATE FOREIGN TABLE alter_f (rowkey text, a integer, b text) SERVER spec_map_srv OPTIONS (table 'spec_map_alter');
CREATE FOREIGN TABLE alter_all (rowkey text, a integer, b text, c integer OPTIONS (column 'cf:c'), a2 integer)
	SERVER spec_map_srv OPTIONS (table 'spec_map_alter');
INSERT INTO alter_all VALUES ('a1', 1, 'one', 10, 100), ('a2', 2, NULL, NULL, 200), ('a3', NULL, 'three', 30, NULL);
CREATE TABLE alter_n (rowkey text PRIMARY KEY, a integer, b text, c integer, a2 integer);
INSERT INTO alter_n VALUES ('a1', 1, 'one', 10, 100), ('a2', 2, NULL, NULL, 200), ('a3', NULL, 'three', 30, NULL);

ALTER FOREIGN TABLE alter_f DROP COLUMN b;
SELECT pg_temp.check_eq('SELECT * FROM alter_f', 'SELECT rowkey, a FROM alter_n ORDER BY rowkey',
	'after DROP COLUMN the table reads the remaining columns');
SELECT pg_temp.check_eq('SELECT * FROM alter_all', 'SELECT * FROM alter_n ORDER BY rowkey',
	'DROP COLUMN deletes no cells');
INSERT INTO alter_f VALUES ('a4', 4);
UPDATE alter_f SET a = a + 1 WHERE rowkey = 'a1';
INSERT INTO alter_n (rowkey, a) VALUES ('a4', 4);
UPDATE alter_n SET a = a + 1 WHERE rowkey = 'a1';
SELECT pg_temp.check_eq('SELECT * FROM alter_all', 'SELECT * FROM alter_n ORDER BY rowkey',
	'INSERT and UPDATE through a table with a dropped column');
ALTER FOREIGN TABLE alter_f ADD COLUMN c integer;
SELECT pg_temp.check_eq('SELECT * FROM alter_f', 'SELECT rowkey, a, c FROM alter_n ORDER BY rowkey',
	'ADD COLUMN maps the cells already stored');
ALTER FOREIGN TABLE alter_f ALTER COLUMN c OPTIONS (ADD column 'cf:a2');
SELECT pg_temp.check_eq('SELECT * FROM alter_f', 'SELECT rowkey, a, a2 FROM alter_n ORDER BY rowkey',
	'ALTER COLUMN OPTIONS (ADD column) remaps the column');
ALTER FOREIGN TABLE alter_f ALTER COLUMN c OPTIONS (DROP column);
ALTER FOREIGN TABLE alter_f RENAME COLUMN c TO b;
ALTER FOREIGN TABLE alter_f ALTER COLUMN b TYPE text;
SELECT pg_temp.check_eq('SELECT * FROM alter_f', 'SELECT rowkey, a, b FROM alter_n ORDER BY rowkey',
	'RENAME COLUMN changes the qualifier: the column reads the cell of its new name');
ALTER FOREIGN TABLE alter_f OPTIONS (SET table 'spec_map_same');
SELECT pg_temp.check_eq('SELECT rowkey, a FROM alter_f', 'SELECT rowkey, NULL::integer FROM same_n ORDER BY rowkey',
	'OPTIONS (SET table) switches to another stored table');
ALTER FOREIGN TABLE alter_f OPTIONS (DROP table);
ALTER FOREIGN TABLE alter_f RENAME TO spec_map_alter;
SELECT pg_temp.check_eq('SELECT * FROM spec_map_alter', 'SELECT rowkey, a, b FROM alter_n ORDER BY rowkey',
	'after DROP of option table the stored table is the (new) foreign table name');
ALTER FOREIGN TABLE spec_map_alter RENAME TO alter_f;
ALTER FOREIGN TABLE alter_f OPTIONS (ADD table 'spec_map_alter');

-- Dropping a foreign table leaves its stored data.
DROP FOREIGN TABLE alter_all;
CREATE FOREIGN TABLE alter_all2 (rowkey text, a integer, b text, c integer, a2 integer)
	SERVER spec_map_srv OPTIONS (table 'spec_map_alter');
SELECT pg_temp.check_eq('SELECT * FROM alter_all2', 'SELECT * FROM alter_n ORDER BY rowkey',
	'DROP FOREIGN TABLE does not delete the stored rows');

--
-- A bytea row key and a text row key over the same stored table.
--
CREATE FOREIGN TABLE keys_text (k text OPTIONS (rowkey 'true'), v integer) SERVER spec_map_srv OPTIONS (table 'spec_map_keys');
CREATE FOREIGN TABLE keys_bytea (k bytea OPTIONS (rowkey 'true'), v integer) SERVER spec_map_srv OPTIONS (table 'spec_map_keys');
INSERT INTO keys_text VALUES ('abc', 1), ('ü', 2);
SELECT pg_temp.check_eq('SELECT k, v FROM keys_bytea', $$VALUES ('\x616263'::bytea, 1), ('\xc3bc'::bytea, 2)$$,
	'a text row key is stored as its UTF-8 bytes');
INSERT INTO keys_bytea VALUES ('\x78797a', 3);
SELECT pg_temp.check_eq('SELECT k, v FROM keys_text', $$VALUES ('abc', 1), ('xyz', 3), ('ü', 2)$$,
	'a bytea row key that is valid UTF-8 reads as text');
INSERT INTO keys_bytea VALUES ('\x610062', 4);
SELECT throws_ok('SELECT k, v FROM keys_text', '22021', NULL,
	'a stored row key with a zero byte cannot be read as text');
INSERT INTO keys_bytea VALUES ('\xff', 5);
DELETE FROM keys_bytea WHERE k = '\x610062';
SELECT throws_ok('SELECT k, v FROM keys_text', '22021', NULL,
	'a stored row key that is not UTF-8 cannot be read as text');
DELETE FROM keys_bytea WHERE k = '\xff';
SELECT pg_temp.check_eq('SELECT k, v FROM keys_text', $$VALUES ('abc', 1), ('xyz', 3), ('ü', 2)$$,
	'after deleting them through bytea, the text table reads again');

--
-- Definitions the wrapper refuses, with the SQLSTATE and message it uses.
--
CREATE FOREIGN TABLE bad_nokey (a text, b integer) SERVER spec_map_srv;
SELECT throws_ok('SELECT * FROM bad_nokey', 'HV024', 'foreign table "bad_nokey" has no row-key column',
	'a table without a row-key column cannot be read');
SELECT throws_ok($$INSERT INTO bad_nokey VALUES ('x', 1)$$, 'HV024', 'foreign table "bad_nokey" has no row-key column',
	'a table without a row-key column cannot be written');
CREATE FOREIGN TABLE bad_twokeys (a text OPTIONS (rowkey 'true'), b text OPTIONS (rowkey 'true')) SERVER spec_map_srv;
SELECT throws_ok('SELECT * FROM bad_twokeys', 'HV024', 'foreign table "bad_twokeys" has more than one row-key column',
	'two row-key columns are refused');
CREATE FOREIGN TABLE bad_inttype (a integer OPTIONS (rowkey 'true'), b text) SERVER spec_map_srv;
SELECT throws_ok('SELECT * FROM bad_inttype', 'HV004', 'row-key column "a" of foreign table "bad_inttype" has type integer',
	'an integer row key is refused');
CREATE FOREIGN TABLE bad_keycell (a text OPTIONS (rowkey 'true', column 'cf:a'), b text) SERVER spec_map_srv;
SELECT throws_ok('SELECT * FROM bad_keycell', 'HV024', 'row-key column "a" of foreign table "bad_keycell" cannot also have option "column"',
	'a row-key column cannot also be a cell');
SELECT throws_ok($$CREATE FOREIGN TABLE bad_spec (k text OPTIONS (rowkey 'true'), v integer OPTIONS (column 'nocolon')) SERVER spec_map_srv$$,
	'HV024', 'invalid value for option "column": "nocolon"', 'a column option without a colon is refused');
SELECT throws_ok($$CREATE FOREIGN TABLE bad_spec (k text OPTIONS (rowkey 'true'), v integer OPTIONS (column 'f f:q')) SERVER spec_map_srv$$,
	'HV024', 'invalid column family name "f f"', 'a family name with a space is refused');
SELECT throws_ok($$CREATE FOREIGN TABLE bad_spec (k text OPTIONS (rowkey 'true'), v integer) SERVER spec_map_srv OPTIONS (tabel 'x')$$,
	'HV00D', 'invalid option "tabel"', 'a misspelt table option is refused');
SELECT throws_ok(format($$CREATE FOREIGN TABLE bad_spec (k text OPTIONS (rowkey 'true'), v integer OPTIONS (column 'f:%s')) SERVER spec_map_srv$$, repeat('q', 16385)),
	'54000', 'column qualifier is too long', 'a qualifier longer than 16 kB is refused');
SELECT lives_ok(format($$CREATE FOREIGN TABLE long_qual (k text OPTIONS (rowkey 'true'), v integer OPTIONS (column 'f:%s')) SERVER spec_map_srv OPTIONS (table 'spec_map_longq')$$, repeat('q', 16384)),
	'a qualifier of 16 kB is accepted');
INSERT INTO long_qual VALUES ('lq', 16384);
SELECT pg_temp.check_eq('SELECT * FROM long_qual', $$VALUES ('lq', 16384)$$, 'a cell with a 16 kB qualifier round-trips');

-- A server's path changed in a transaction that already wrote through it:
-- its next read or write of the table is an error, and nothing of the
-- transaction is stored in either directory.
CREATE SERVER spec_map_moving FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE moving_f (k text OPTIONS (rowkey 'true'), v integer) SERVER spec_map_moving;
BEGIN;
INSERT INTO moving_f VALUES ('p1', 1);
SELECT format('ALTER SERVER spec_map_moving OPTIONS (ADD path %L)',
	current_setting('data_directory') || '/widecolumn_fdw/spec_map_moved') AS move \gset
:move;
SELECT throws_ok($$INSERT INTO moving_f VALUES ('p2', 2)$$, '55000',
	'the directory of the server of foreign table "moving_f" changed after this transaction wrote to it',
	'a write after the server''s path changed in the transaction is refused');
ROLLBACK;
SELECT is_empty('SELECT * FROM moving_f', 'nothing was stored in the old directory');
BEGIN;
INSERT INTO moving_f VALUES ('p1', 1);
:move;
SELECT throws_ok('SELECT * FROM moving_f', '55000', NULL, 'so is a read');
ROLLBACK;
:move;
SELECT is_empty('SELECT * FROM moving_f', 'nor in the new one');
DROP SERVER spec_map_moving CASCADE;

-- Clean up.
--
-- Two columns of one foreign table mapping the same cell each read it, in
-- their own type: stored, written by this transaction, and locked.
--
CREATE FOREIGN TABLE one_cell_twice (k text OPTIONS (rowkey 'true'), s text OPTIONS (column 'cf:s'),
	raw bytea OPTIONS (column 'cf:s'), n integer) SERVER spec_map_srv OPTIONS (table 'spec_map_twice');
INSERT INTO one_cell_twice (k, s, n) VALUES ('a', 'hello', 1);
SELECT pg_temp.check_eq('SELECT k, s, raw, n FROM one_cell_twice', $$VALUES ('a', 'hello', '\x68656c6c6f'::bytea, 1)$$,
	'two columns mapping one stored cell both read it');
SELECT pg_temp.check_eq('SELECT raw, k, s FROM one_cell_twice WHERE k = ''a''', $$VALUES ('\x68656c6c6f'::bytea, 'a', 'hello')$$,
	'two columns mapping one cell, asked for in the other order');
BEGIN;
INSERT INTO one_cell_twice (k, raw) VALUES ('b', '\x6f776e');
SELECT pg_temp.check_eq('SELECT k, s, raw FROM one_cell_twice', $$VALUES ('a', 'hello', '\x68656c6c6f'::bytea), ('b', 'own', '\x6f776e')$$,
	'two columns mapping one cell both read this transaction''s write of it');
SELECT pg_temp.check_eq('UPDATE one_cell_twice SET n = 5 WHERE raw = ''\x68656c6c6f'' RETURNING k, s, raw, n',
	$$VALUES ('a', 'hello', '\x68656c6c6f'::bytea, 5)$$,
	'an UPDATE reading the cell through both columns sees it in both');
COMMIT;
DELETE FROM one_cell_twice;

--
-- Foreign tables as partitions of a partitioned table: reads pruned to one
-- partition, ON CONFLICT DO NOTHING, UPDATE and DELETE through the parent,
-- compared with a native partitioned table.
--
CREATE TABLE parted_f (k text COLLATE "C", v integer) PARTITION BY LIST (substr(k, 1, 1));
CREATE FOREIGN TABLE parted_fa PARTITION OF parted_f FOR VALUES IN ('a') SERVER spec_map_srv OPTIONS (table 'spec_map_pa');
CREATE FOREIGN TABLE parted_fb PARTITION OF parted_f FOR VALUES IN ('b') SERVER spec_map_srv OPTIONS (table 'spec_map_pb');
ALTER FOREIGN TABLE parted_fa ALTER COLUMN k OPTIONS (ADD rowkey 'true');
ALTER FOREIGN TABLE parted_fb ALTER COLUMN k OPTIONS (ADD rowkey 'true');
CREATE TABLE parted_n (k text COLLATE "C", v integer) PARTITION BY LIST (substr(k, 1, 1));
CREATE TABLE parted_na PARTITION OF parted_n FOR VALUES IN ('a');
CREATE TABLE parted_nb PARTITION OF parted_n FOR VALUES IN ('b');
CREATE UNIQUE INDEX ON parted_na (k);
CREATE UNIQUE INDEX ON parted_nb (k);
INSERT INTO parted_f VALUES ('a1', 1), ('a2', 2), ('b1', 3);
INSERT INTO parted_n VALUES ('a1', 1), ('a2', 2), ('b1', 3);
SELECT pg_temp.check_eq('SELECT k, v FROM parted_f WHERE substr(k, 1, 1) = ''a'' AND k = ''a1''',
	'SELECT k, v FROM parted_n WHERE substr(k, 1, 1) = ''a'' AND k = ''a1''',
	'a read of a partitioned table pruned to one foreign partition');
SELECT pg_temp.check_eq('SELECT k, v FROM parted_f WHERE substr(k, 1, 1) = ''a'' ORDER BY k',
	'SELECT k, v FROM parted_n WHERE substr(k, 1, 1) = ''a'' ORDER BY k',
	'an ordered read pruned to one foreign partition');
SELECT pg_temp.check_eq('SELECT k, v FROM parted_f ORDER BY k DESC LIMIT 2', 'SELECT k, v FROM parted_n ORDER BY k DESC LIMIT 2',
	'an ordered read across foreign partitions');
INSERT INTO parted_f VALUES ('a1', 100) ON CONFLICT DO NOTHING;
INSERT INTO parted_n VALUES ('a1', 100) ON CONFLICT DO NOTHING;
SELECT pg_temp.check_eq('SELECT k, v FROM parted_f ORDER BY k', 'SELECT k, v FROM parted_n ORDER BY k',
	'INSERT ... ON CONFLICT DO NOTHING through the parent keeps the existing row');
SELECT pg_temp.check_eq('UPDATE parted_f SET v = v + 10 WHERE k IN (''a1'', ''b1'') RETURNING k, v',
	'UPDATE parted_n SET v = v + 10 WHERE k IN (''a1'', ''b1'') RETURNING k, v',
	'UPDATE through the partitioned table');
SELECT pg_temp.check_eq('DELETE FROM parted_f WHERE k = ''a2'' RETURNING k, v',
	'DELETE FROM parted_n WHERE k = ''a2'' RETURNING k, v',
	'DELETE through the partitioned table');
SELECT pg_temp.check_eq('SELECT k, v FROM parted_f ORDER BY k', 'SELECT k, v FROM parted_n ORDER BY k',
	'the partitions hold what the native ones do');
BEGIN;
SELECT k FROM parted_f WHERE k = 'b1' FOR UPDATE;
SELECT ok((SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 3 AND pid = pg_backend_pid()) = 1,
	'SELECT ... FOR UPDATE through the parent locks the foreign partition''s row');
ROLLBACK;
DELETE FROM parted_f;
DROP TABLE parted_f, parted_n;

DELETE FROM balloon;
DELETE FROM plain_f;
DELETE FROM quals_f;
DELETE FROM named_f;
DELETE FROM same_by_option;
DELETE FROM not_same;
DELETE FROM not_same_prefix;
DELETE FROM not_same_case;
DELETE FROM same_other_server;
DELETE FROM alter_all2;
DELETE FROM keys_bytea;
DELETE FROM long_qual;
SELECT is_empty($$
	SELECT rowkey FROM balloon UNION ALL SELECT rowkey FROM plain_f UNION ALL SELECT k FROM quals_f
	UNION ALL SELECT rowkey FROM named_f UNION ALL SELECT rowkey FROM same_by_option UNION ALL SELECT rowkey FROM not_same
	UNION ALL SELECT rowkey FROM not_same_prefix UNION ALL SELECT rowkey FROM not_same_case
	UNION ALL SELECT rowkey FROM same_other_server UNION ALL SELECT rowkey FROM alter_all2
	UNION ALL SELECT encode(k, 'hex') FROM keys_bytea UNION ALL SELECT k FROM long_qual$$,
	'the stored tables are empty again');
DROP SERVER spec_map_srv CASCADE;
DROP SERVER spec_map_srv2 CASCADE;
DROP SCHEMA spec_map_s1, spec_map_s2;
DROP TABLE weather_n, plain_n, quals_n, rk_n, same_n, alter_n;

SELECT * FROM finish();
