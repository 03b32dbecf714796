-- Bad input: each misuse gets a clear error with an SQLSTATE and writes nothing.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER err_srv FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE err (k text OPTIONS (rowkey 'true'), v text, n int) SERVER err_srv;
CREATE FOREIGN TABLE err_bytes (k bytea OPTIONS (rowkey 'true'), v bytea) SERVER err_srv OPTIONS (table 'err');
\set SHOW_CONTEXT never
INSERT INTO err VALUES ('ok', 'fine', 1);

-- NULL row key
INSERT INTO err VALUES (NULL, 'x', 1);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- row key over 4 KB (4096 bytes is allowed)
INSERT INTO err VALUES (repeat('k', 4097), 'x', 1);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
INSERT INTO err VALUES (repeat('k', 4096), 'x', 1);
SELECT length(k) FROM err WHERE length(k) > 100;
DELETE FROM err WHERE length(k) > 100;
-- cell value over 100 MB
INSERT INTO err VALUES ('big', repeat('v', 100 * 1024 * 1024 + 1), 1);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- a row over 256 MB, in what one commit writes to it: the commit fails
-- and writes nothing, not even the other rows ('before' is sent to the
-- worker before 'wide' is found too large)
CREATE FOREIGN TABLE err_row (k text OPTIONS (rowkey 'true'), a text, b text, c text)
  SERVER err_srv OPTIONS (table 'err_row');
BEGIN;
SELECT widecolumn.create_family('err_srv', 'err_row', 'cf', 'never');
INSERT INTO err_row VALUES ('before', repeat('x', 100000));
INSERT INTO err_row VALUES ('small', 'x');
INSERT INTO err_row VALUES ('wide', repeat('a', 86 * 1024 * 1024), repeat('b', 86 * 1024 * 1024));
UPDATE err_row SET c = repeat('c', 86 * 1024 * 1024) WHERE k = 'wide';
COMMIT;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT k, length(a) FROM err_row;
-- the family the failed transaction created is not there; the next
-- commit that writes to it creates it, and nothing of the failed one
SELECT * FROM widecolumn.families('err_srv') WHERE table_name = 'err_row';
INSERT INTO err_row VALUES ('small', 'x');
SELECT * FROM widecolumn.families('err_srv') WHERE table_name = 'err_row';
SELECT k, length(a) FROM err_row;
-- qualifier over 16 KB
CREATE FOREIGN TABLE err_q (k text OPTIONS (rowkey 'true'), v text) SERVER err_srv;
SELECT format('ALTER FOREIGN TABLE err_q ALTER COLUMN v OPTIONS (ADD column %L)', 'f:' || repeat('q', 16385)) AS q \gset
\set ECHO none
:q;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
\set ECHO all
-- changing the row key
UPDATE err SET k = 'other' WHERE k = 'ok';
\echo SQLSTATE :LAST_ERROR_SQLSTATE
-- stored keys that are not valid text, read through a text row key
INSERT INTO err_bytes VALUES ('\x6f6b00'::bytea, '\x01'::bytea);
SELECT k FROM err;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT k FROM err_bytes;
DELETE FROM err_bytes WHERE k = '\x6f6b00'::bytea;
-- stored values that are not valid text
INSERT INTO err_bytes VALUES ('\x6f6b'::bytea, '\xff'::bytea);
SELECT v FROM err;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT v FROM err_bytes;
-- stored values with the wrong length for the type
INSERT INTO err VALUES ('ok', 'fine', NULL);
UPDATE err_bytes SET v = '\x010203'::bytea WHERE k = '\x6f6b'::bytea;
CREATE FOREIGN TABLE err_n (k text OPTIONS (rowkey 'true'), v int) SERVER err_srv OPTIONS (table 'err');
SELECT * FROM err_n;
\echo SQLSTATE :LAST_ERROR_SQLSTATE

-- a json cell that is not JSON, and a binary value with bytes after its end
CREATE FOREIGN TABLE err_j (k text OPTIONS (rowkey 'true'), j json, a int[]) SERVER err_srv OPTIONS (table 'err_j');
CREATE FOREIGN TABLE err_jb (k text OPTIONS (rowkey 'true'), j bytea, a bytea) SERVER err_srv OPTIONS (table 'err_j');
INSERT INTO err_jb VALUES ('x', 'not json', array_send('{1,2}'::int[]) || '\xdeadbeef'::bytea);
SELECT j FROM err_j;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT a FROM err_j;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
DELETE FROM err_jb;

-- after all of that, the table holds exactly what succeeded
SELECT k, v, n FROM err;
DROP SERVER err_srv CASCADE;
