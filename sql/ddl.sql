-- DDL: how foreign tables map onto stored tables, and what is checked when.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER ddl_srv FOREIGN DATA WRAPPER widecolumn_fdw;

-- The mapping is checked when a table is first used.
CREATE FOREIGN TABLE ddl_nokey (a text, b int) SERVER ddl_srv;
SELECT * FROM ddl_nokey;
CREATE FOREIGN TABLE ddl_twokeys (a text OPTIONS (rowkey 'true'), b text OPTIONS (rowkey 'true')) SERVER ddl_srv;
SELECT * FROM ddl_twokeys;
CREATE FOREIGN TABLE ddl_intkey (a int OPTIONS (rowkey 'true'), b text) SERVER ddl_srv;
SELECT * FROM ddl_intkey;
CREATE FOREIGN TABLE ddl_keycol (a text OPTIONS (rowkey 'true', column 'f:q')) SERVER ddl_srv;
SELECT * FROM ddl_keycol;

-- A column named rowkey is the row key when no column is marked.
CREATE FOREIGN TABLE ddl_named (rowkey text, v int) SERVER ddl_srv;
INSERT INTO ddl_named VALUES ('k1', 1);
SELECT * FROM ddl_named;
-- ... unless it says it is not: then it is a cell like any other.
CREATE FOREIGN TABLE ddl_named_not (rowkey text OPTIONS (rowkey 'false'), v int) SERVER ddl_srv;
SELECT * FROM ddl_named_not;
CREATE FOREIGN TABLE ddl_named_cell (k text OPTIONS (rowkey 'true'), rowkey text OPTIONS (rowkey 'false'), v int)
    SERVER ddl_srv OPTIONS (table 'ddl_named_cell');
INSERT INTO ddl_named_cell VALUES ('k1', 'a cell', 1);
CREATE FOREIGN TABLE ddl_named_cell_raw (k text OPTIONS (rowkey 'true'), c text OPTIONS (column 'cf:rowkey'))
    SERVER ddl_srv OPTIONS (table 'ddl_named_cell');
SELECT * FROM ddl_named_cell_raw;
DELETE FROM ddl_named_cell;

-- Defaults: stored table = foreign table name, family 'cf', qualifier = column name.
-- A second foreign table sees the same cells through explicit options.
CREATE FOREIGN TABLE ddl_explicit (
    k text OPTIONS (rowkey 'true'),
    value int OPTIONS (column 'cf:v')
) SERVER ddl_srv OPTIONS (table 'ddl_named');
SELECT * FROM ddl_explicit;

-- The table option family changes the default family.
CREATE FOREIGN TABLE ddl_fam (
    k text OPTIONS (rowkey 'true'),
    v int
) SERVER ddl_srv OPTIONS (table 'ddl_named', family 'other');
SELECT * FROM ddl_fam;
INSERT INTO ddl_fam VALUES ('k1', 2);
-- ddl_named does not map other:v, but the row still has it
SELECT * FROM ddl_named;
SELECT * FROM ddl_fam;

-- Columns that map no cell of a row read as NULL; rows are sparse.
CREATE FOREIGN TABLE ddl_wide (
    k text OPTIONS (rowkey 'true'),
    v int OPTIONS (column 'cf:v'),
    w int OPTIONS (column 'other:v'),
    missing text OPTIONS (column 'cf:nothing')
) SERVER ddl_srv OPTIONS (table 'ddl_named');
SELECT * FROM ddl_wide;

-- A bytea row key.
CREATE FOREIGN TABLE ddl_bytes (k bytea OPTIONS (rowkey 'true'), v text) SERVER ddl_srv;
INSERT INTO ddl_bytes VALUES ('\x00ff'::bytea, 'a'), ('\x00'::bytea, 'b'), ('\xff'::bytea, 'c');
-- the empty key is refused, as Bigtable refuses it
INSERT INTO ddl_bytes VALUES (''::bytea, 'empty');
SELECT * FROM ddl_bytes;

-- Dropped and added columns.
ALTER FOREIGN TABLE ddl_wide DROP COLUMN missing;
ALTER FOREIGN TABLE ddl_wide ADD COLUMN extra text OPTIONS (column 'cf:extra');
UPDATE ddl_wide SET extra = 'x' WHERE k = 'k1';
SELECT * FROM ddl_wide;

-- Dropping a foreign table leaves the stored data in place.
DROP FOREIGN TABLE ddl_wide;
SELECT * FROM ddl_named;

DROP SERVER ddl_srv CASCADE;
