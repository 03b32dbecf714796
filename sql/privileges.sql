-- Privileges: PostgreSQL's table and column privileges apply to foreign
-- tables as to any table, and nothing of a refused statement is written.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER priv_srv FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE priv (k text OPTIONS (rowkey 'true'), v int, secret text) SERVER priv_srv;
INSERT INTO priv VALUES ('a', 1, 's1'), ('b', 2, 's2');
CREATE ROLE priv_reader;
CREATE ROLE priv_writer;
CREATE ROLE priv_nobody;
GRANT SELECT (k, v) ON priv TO priv_reader;
GRANT INSERT ON priv TO priv_writer;
\set SHOW_CONTEXT never

SET ROLE priv_nobody;
SELECT * FROM priv;
INSERT INTO priv VALUES ('c', 3, NULL);
UPDATE priv SET v = 0;
DELETE FROM priv;
RESET ROLE;

SET ROLE priv_reader;
SELECT k, v FROM priv;
SELECT secret FROM priv;
SELECT * FROM priv WHERE k = 'a';
UPDATE priv SET v = 0 WHERE k = 'a';
DELETE FROM priv WHERE k = 'a';
RESET ROLE;

SET ROLE priv_writer;
INSERT INTO priv VALUES ('c', 3, 's3');
INSERT INTO priv VALUES ('d', 4, 's4') RETURNING *;
SELECT * FROM priv;
RESET ROLE;

-- a user without USAGE on the wrapper cannot create a server
SET ROLE priv_nobody;
CREATE SERVER priv_other FOREIGN DATA WRAPPER widecolumn_fdw;
RESET ROLE;

-- only the writes that were allowed happened
SELECT * FROM priv;

DROP SERVER priv_srv CASCADE;
DROP ROLE priv_reader, priv_writer, priv_nobody;
