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

-- functions that write through the table need the same privileges: the
-- caller's (SECURITY INVOKER, the default) or the owner's (SECURITY DEFINER)
CREATE FUNCTION priv_bump(key text) RETURNS int LANGUAGE sql
    AS $$ UPDATE priv SET v = v + 1 WHERE k = key RETURNING v $$;
CREATE FUNCTION priv_remove(key text) RETURNS void LANGUAGE plpgsql
    AS $$ BEGIN DELETE FROM priv WHERE k = key; END $$;
CREATE FUNCTION priv_remove_as_owner(key text) RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER AS $$ BEGIN DELETE FROM priv WHERE k = key; END $$;
REVOKE EXECUTE ON FUNCTION priv_remove_as_owner(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION priv_remove_as_owner(text) TO priv_writer;
SET ROLE priv_reader;
SELECT priv_bump('a');
SELECT priv_remove('a');
SELECT priv_remove_as_owner('a');
COPY priv (k, v) FROM stdin;
z	26
\.
RESET ROLE;
SET ROLE priv_writer;
SELECT priv_bump('b');
SELECT priv_remove('b');
SELECT priv_remove_as_owner('b');
COPY priv (k, v) FROM stdin;
e	5
\.
RESET ROLE;

-- the extension's own SQL functions, called directly with NULLs and
-- nonsense: errors or nothing, and nothing changes
SELECT widecolumn.widecolumn_fdw_handler();
SELECT widecolumn.widecolumn_fdw_validator(NULL, NULL);
SELECT widecolumn.widecolumn_fdw_validator('{}', 0);
SELECT widecolumn.widecolumn_fdw_validator('{nonsense}', 0);
SELECT widecolumn.widecolumn_fdw_validator('{path}', 'pg_foreign_server'::regclass);
SELECT widecolumn.widecolumn_fdw_validator(ARRAY[NULL], 'pg_foreign_server'::regclass);
SELECT widecolumn.widecolumn_fdw_validator('{table=x}', 'pg_class'::regclass);
SELECT widecolumn.widecolumn_fdw_validator('{table=}', 'pg_foreign_table'::regclass);
SET ROLE priv_nobody;
SELECT widecolumn.widecolumn_fdw_validator('{path=/etc}', 'pg_foreign_server'::regclass);
RESET ROLE;

-- only the writes that were allowed happened
SELECT * FROM priv;

DROP SERVER priv_srv CASCADE;
DROP FUNCTION priv_bump(text), priv_remove(text), priv_remove_as_owner(text);
DROP ROLE priv_reader, priv_writer, priv_nobody;
