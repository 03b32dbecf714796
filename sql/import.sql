-- IMPORT FOREIGN SCHEMA: a foreign table for each stored table of a server,
-- with the row key, a jsonb map column for each family, and a typed column
-- for each qualifier written through foreign tables with one SQL type (the
-- type each COMMIT records in the family's metadata).  The imported tables
-- read back what the tables that wrote the data read.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER imp_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');

-- Two families of typed columns: int, text, timestamptz, numeric, jsonb
CREATE FOREIGN TABLE readings (
    rowkey text COLLATE "C",
    n int,
    label text,
    at timestamptz OPTIONS (column 'm:at'),
    amount numeric(12,2) OPTIONS (column 'm:amount'),
    doc jsonb OPTIONS (column 'm:doc')
) SERVER imp_srv;
INSERT INTO readings VALUES
    ('r1', 1, 'one', '2021-03-05 12:00+00', 10.50, '{"a": [1, 2]}'),
    ('r2', -2, NULL, '2021-03-05 12:01+00', NULL, '"s"'),
    ('r3', NULL, 'three', NULL, 0.01, NULL),
    ('r4', 4, '', '1999-12-31 23:59:59.999999+00', -123456789.99, '{}');
UPDATE readings SET label = 'two' WHERE rowkey = 'r2';

-- A family whose qualifiers are data, written through a map column
CREATE FOREIGN TABLE friends (
    rowkey text COLLATE "C",
    friend jsonb OPTIONS (family 'Friend')
) SERVER imp_srv;
INSERT INTO friends VALUES ('jose', '{"fred": "book-club", "gabriel": "work"}'),
                           ('lee', '{"hiroshi": "tennis"}');

-- Inconsistent qualifiers: v written as integer by one table and as text by
-- another, and a cell written through the cells layout, which records no type
CREATE FOREIGN TABLE mixed_a (rowkey text COLLATE "C", v int, w text)
    SERVER imp_srv OPTIONS (table 'mixed');
CREATE FOREIGN TABLE mixed_b (rowkey text COLLATE "C", v text)
    SERVER imp_srv OPTIONS (table 'mixed');
CREATE FOREIGN TABLE mixed_cells (rowkey text COLLATE "C", family text COLLATE "C",
    qualifier text COLLATE "C", ts timestamptz, value bytea)
    SERVER imp_srv OPTIONS (table 'mixed', layout 'cells');
INSERT INTO mixed_a VALUES ('a', 1, 'x');
INSERT INTO mixed_b VALUES ('b', 'two');
INSERT INTO mixed_cells VALUES ('c', 'cf', 'extra', '2020-01-01 00:00+00', '\x00ff');

-- A column whose cells are all gone, and text columns only
CREATE FOREIGN TABLE names (rowkey text COLLATE "C", first text, last text, old int)
    SERVER imp_srv;
INSERT INTO names VALUES ('n1', 'Ada', 'Lovelace', 1), ('n2', 'Alan', NULL, 2);
UPDATE names SET old = NULL;

-- Row keys that are not text
CREATE FOREIGN TABLE bin (rowkey bytea, v bigint) SERVER imp_srv;
INSERT INTO bin VALUES ('\x00ff', 1), ('\x41', 2);

-- Row keys made of parts: each COMMIT records the layout too
CREATE FOREIGN TABLE balloon (
    region text OPTIONS (rowkey_part '1'),
    id int OPTIONS (rowkey_part '2', rowkey_format '4'),
    at timestamp OPTIONS (rowkey_part '3', rowkey_format 'YYYY-MM-DD-HH24MI'),
    day date OPTIONS (rowkey_part '4', rowkey_reverse 'true'),
    pressure bigint
) SERVER imp_srv OPTIONS (rowkey_delimiter '#');
INSERT INTO balloon VALUES ('us-west2', 3698, '2021-03-05 12:04', '2021-03-05', 94558),
                           ('asia-south2', 12, '2021-03-05 12:05', '2021-03-06', 94122);
-- Two layouts over one stored table: the key is imported as one column
CREATE FOREIGN TABLE twokeys_a (rowkey text COLLATE "C", v int) SERVER imp_srv OPTIONS (table 'twokeys');
CREATE FOREIGN TABLE twokeys_b (a text OPTIONS (rowkey_part '1') COLLATE "C",
    b text OPTIONS (rowkey_part '2') COLLATE "C", v int) SERVER imp_srv OPTIONS (table 'twokeys', rowkey_delimiter '#');
INSERT INTO twokeys_a VALUES ('plain', 1);
INSERT INTO twokeys_b VALUES ('x', 'y', 2);

-- Qualifiers whose names another column has: family_qualifier
CREATE FOREIGN TABLE clash (rowkey text COLLATE "C", cf int OPTIONS (column 'g:cf'),
    r text OPTIONS (column 'cf:rowkey'), x int) SERVER imp_srv;
INSERT INTO clash VALUES ('k', 1, 'r', 2);

-- An aggregate family: the cells are merges
SELECT widecolumn.create_family('imp_srv', 'counters', 'hits', 'never', 'sum');
CREATE FOREIGN TABLE counters (rowkey text COLLATE "C", n bigint OPTIONS (column 'hits:n'))
    SERVER imp_srv;
INSERT INTO counters VALUES ('c1', 5), ('c2', 1);
INSERT INTO counters VALUES ('c1', 2);

-- The definitions imported
CREATE SCHEMA imp;
IMPORT FOREIGN SCHEMA anything FROM SERVER imp_srv INTO imp;
CREATE VIEW defs AS
SELECT n.nspname AS schema, c.relname AS table_name, a.attname AS column_name,
       format_type(a.atttypid, a.atttypmod) AS type, co.collname AS collation,
       array_to_string(a.attfdwoptions, ', ') AS options
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0
  LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 100
 WHERE n.nspname LIKE 'imp%' ORDER BY 1, 2, a.attnum;
CREATE VIEW table_defs AS
SELECT n.nspname AS schema, c.relname AS table_name, s.srvname AS server,
       array_to_string(ft.ftoptions, ', ') AS options
  FROM pg_foreign_table ft JOIN pg_class c ON c.oid = ft.ftrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_foreign_server s ON s.oid = ft.ftserver
 WHERE n.nspname LIKE 'imp%' ORDER BY 1, 2;
SELECT * FROM table_defs;
SELECT * FROM defs;

-- They read back what the tables that wrote them read: nothing either way
SELECT count(*) FROM (
    (SELECT rowkey, n, label, at, amount, doc FROM readings
     EXCEPT ALL SELECT rowkey, n, label, at, amount, doc FROM imp.readings)
    UNION ALL
    (SELECT rowkey, n, label, at, amount, doc FROM imp.readings
     EXCEPT ALL SELECT rowkey, n, label, at, amount, doc FROM readings)) d;
SELECT count(*) FROM imp.readings;
SELECT count(*) FROM (
    (SELECT rowkey, friend FROM friends EXCEPT ALL SELECT rowkey, "Friend" FROM imp.friends)
    UNION ALL
    (SELECT rowkey, "Friend" FROM imp.friends EXCEPT ALL SELECT rowkey, friend FROM friends)) d;
SELECT count(*) FROM (
    (SELECT rowkey, first, last FROM names EXCEPT ALL SELECT rowkey, first, last FROM imp.names)
    UNION ALL
    (SELECT rowkey, first, last FROM imp.names EXCEPT ALL SELECT rowkey, first, last FROM names)) d;
SELECT count(*) FROM (
    (SELECT rowkey, v FROM bin EXCEPT ALL SELECT rowkey, v FROM imp.bin)
    UNION ALL
    (SELECT rowkey, v FROM imp.bin EXCEPT ALL SELECT rowkey, v FROM bin)) d;
SELECT count(*) FROM (
    (SELECT * FROM balloon EXCEPT ALL SELECT region, id, at, day, pressure FROM imp.balloon)
    UNION ALL
    (SELECT region, id, at, day, pressure FROM imp.balloon EXCEPT ALL SELECT * FROM balloon)) d;
EXPLAIN (COSTS OFF) SELECT * FROM imp.balloon WHERE region = 'us-west2' AND id = 3698;
SELECT rowkey, v FROM imp.twokeys ORDER BY rowkey;
SELECT rowkey, g_cf, cf_rowkey, x FROM imp.clash;
SELECT count(*) FROM (
    (SELECT rowkey, n FROM counters EXCEPT ALL SELECT rowkey, n FROM imp.counters)
    UNION ALL
    (SELECT rowkey, n FROM imp.counters EXCEPT ALL SELECT rowkey, n FROM counters)) d;
SELECT * FROM imp.counters ORDER BY rowkey;
-- w had one type; v had two and the cells layout wrote extra: the map has them
SELECT count(*) FROM (
    (SELECT rowkey, w FROM mixed_a EXCEPT ALL SELECT rowkey, w FROM imp.mixed)
    UNION ALL
    (SELECT rowkey, w FROM imp.mixed EXCEPT ALL SELECT rowkey, w FROM mixed_a)) d;
SELECT rowkey, w, cf FROM imp.mixed ORDER BY rowkey;
SELECT rowkey, cf, m FROM imp.readings WHERE rowkey = 'r3';
SELECT * FROM imp.names ORDER BY rowkey;

-- The imported tables write as the originals do
INSERT INTO imp.readings (rowkey, n, label, at, amount, doc)
    VALUES ('r5', 5, 'five', '2021-03-06 00:00+00', 5.55, '[5]');
SELECT * FROM readings WHERE rowkey = 'r5';

-- LIMIT TO and EXCEPT, by the local names
CREATE SCHEMA imp_limit;
IMPORT FOREIGN SCHEMA x LIMIT TO (friends, no_such_table) FROM SERVER imp_srv INTO imp_limit;
CREATE SCHEMA imp_except;
IMPORT FOREIGN SCHEMA x EXCEPT (friends, mixed, no_such_table) FROM SERVER imp_srv INTO imp_except;
SELECT schema, table_name FROM table_defs WHERE schema IN ('imp_limit', 'imp_except');

-- "cells": the cells layout, a row per version
CREATE SCHEMA imp_cells;
IMPORT FOREIGN SCHEMA cells LIMIT TO (mixed, bin) FROM SERVER imp_srv INTO imp_cells;
SELECT * FROM table_defs WHERE schema = 'imp_cells';
SELECT * FROM defs WHERE schema = 'imp_cells';
SELECT count(*) FROM (
    (SELECT * FROM mixed_cells EXCEPT ALL SELECT * FROM imp_cells.mixed)
    UNION ALL
    (SELECT * FROM imp_cells.mixed EXCEPT ALL SELECT * FROM mixed_cells)) d;
SELECT count(*) FROM imp_cells.mixed;

-- A dropped family takes its record with it; created again, it has none
SELECT widecolumn.drop_family('imp_srv', 'names', 'cf');
SELECT widecolumn.create_family('imp_srv', 'names', 'cf');
CREATE SCHEMA imp_again;
IMPORT FOREIGN SCHEMA x LIMIT TO (names) FROM SERVER imp_srv INTO imp_again;
SELECT * FROM defs WHERE schema = 'imp_again';

-- A dropped table is not imported
SELECT widecolumn.drop_table('imp_srv', 'bin') > 0 AS dropped;
CREATE SCHEMA imp_nobin;
IMPORT FOREIGN SCHEMA x LIMIT TO (bin) FROM SERVER imp_srv INTO imp_nobin;
SELECT schema, table_name FROM table_defs WHERE schema = 'imp_nobin';

-- Errors
IMPORT FOREIGN SCHEMA x FROM SERVER no_such_server INTO imp_limit;
IMPORT FOREIGN SCHEMA x FROM SERVER imp_srv INTO no_such_schema;
IMPORT FOREIGN SCHEMA x LIMIT TO (friends) FROM SERVER imp_srv INTO imp_limit;
CREATE ROLE imp_nobody;
SET ROLE imp_nobody;
IMPORT FOREIGN SCHEMA x FROM SERVER imp_srv INTO imp_limit;
RESET ROLE;
DROP ROLE imp_nobody;

DROP VIEW defs, table_defs;
SET client_min_messages = warning;
DROP SCHEMA imp, imp_limit, imp_except, imp_cells, imp_again, imp_nobin CASCADE;
DROP SERVER imp_srv CASCADE;
RESET client_min_messages;
