-- Removing data: widecolumn.drop_family, drop_table and compact.  A drop
-- is part of the transaction and hides the data at once; compact deletes
-- what no read can return any more (what the policies delete, what was
-- dropped, tombstones that hide nothing) and says how many entries.  A
-- native table with the same rows is the oracle.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
-- The background sweep off, so that compact finds all there is to delete.
-- (The worker sweeps a new database only a naptime after it first sees it.)
ALTER SYSTEM SET widecolumn_fdw.sweep_naptime = 0;
SELECT pg_reload_conf();
CREATE SERVER gc_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
SELECT widecolumn.create_family('gc_srv', 'items', 'a');
SELECT widecolumn.create_family('gc_srv', 'items', 'h', 'never');
CREATE FOREIGN TABLE items (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    x bigint OPTIONS (column 'a:x'),
    y text OPTIONS (column 'a:y'),
    z bigint OPTIONS (column 'h:z')
) SERVER gc_srv OPTIONS (table 'items');
CREATE TABLE items_oracle (rowkey text COLLATE "C" PRIMARY KEY, x bigint, y text, z bigint);
CREATE FUNCTION items_differ() RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM ((TABLE items EXCEPT ALL TABLE items_oracle)
                        UNION ALL (TABLE items_oracle EXCEPT ALL TABLE items)) d
$$;
CREATE TEMP TABLE marks (name text PRIMARY KEY, at timestamptz);
CREATE FUNCTION mark(name text) RETURNS void LANGUAGE sql AS $$
  SELECT pg_sleep(0.002);
  INSERT INTO marks VALUES (name, clock_timestamp());
  SELECT pg_sleep(0.002);
$$;
CREATE FUNCTION as_of(name text) RETURNS text LANGUAGE sql AS $$
  SELECT set_config('widecolumn.as_of', (SELECT at::text FROM marks m WHERE m.name = as_of.name), false)
$$;

-- 10 rows of 3 cells: 30 versions
INSERT INTO items SELECT 'r' || lpad(i::text, 2, '0'), i, 'y' || i, i FROM generate_series(1, 10) i;
INSERT INTO items_oracle SELECT * FROM items;
SELECT mark('loaded');
-- 10 new versions of x (family a, maxversions=1: the old ones are garbage)
-- and of z (family h, never: the old ones are kept)
UPDATE items SET x = x + 100, z = z + 100;
UPDATE items_oracle SET x = x + 100, z = z + 100;
-- 2 cell tombstones over y (the versions under them are garbage, and then
-- so are the tombstones), and a row tombstone over r03 (it hides versions
-- that are kept: as of 'loaded', r03 is there)
UPDATE items SET y = NULL WHERE rowkey IN ('r01', 'r02');
UPDATE items_oracle SET y = NULL WHERE rowkey IN ('r01', 'r02');
DELETE FROM items WHERE rowkey = 'r03';
DELETE FROM items_oracle WHERE rowkey = 'r03';
-- a cell tombstone over z (never: it hides versions that are kept)
UPDATE items SET z = NULL WHERE rowkey = 'r04';
UPDATE items_oracle SET z = NULL WHERE rowkey = 'r04';
SELECT items_differ();
SELECT as_of('loaded') IS NOT NULL AS set;
CREATE TEMP TABLE items_then AS SELECT * FROM items;
RESET widecolumn.as_of;
TABLE items_then ORDER BY rowkey;

-- compact: 10 old versions of x, 2 of y and their 2 tombstones; the row
-- tombstone and z's cell tombstone stay (they hide kept versions).  Nothing anyone reads changes,
-- now or as of 'loaded'.
SELECT widecolumn.compact('gc_srv', 'items') AS removed;
SELECT widecolumn.compact('gc_srv', 'items') AS removed_again;
SELECT items_differ();
SELECT as_of('loaded') IS NOT NULL AS set;
SELECT count(*) AS differ_as_of_loaded FROM (
  (TABLE items EXCEPT ALL TABLE items_then) UNION ALL (TABLE items_then EXCEPT ALL TABLE items)) d;
RESET widecolumn.as_of;

-- drop_family: a rollback undoes it
BEGIN;
SELECT widecolumn.drop_family('gc_srv', 'items', 'h') AS deleted;
SELECT family FROM widecolumn.families('gc_srv') WHERE table_name = 'items';
ROLLBACK;
SELECT family FROM widecolumn.families('gc_srv') WHERE table_name = 'items';
SELECT items_differ();
-- committed: the 20 versions of z it keeps, r03's behind the row tombstone
-- too, are gone at once, now and as of 'loaded', before compact
SELECT widecolumn.drop_family('gc_srv', 'items', 'h') AS deleted;
UPDATE items_oracle SET z = NULL;
SELECT family FROM widecolumn.families('gc_srv') WHERE table_name = 'items';
SELECT items_differ();
SELECT as_of('loaded') IS NOT NULL AS set;
SELECT count(*) FILTER (WHERE z IS NOT NULL) AS z_as_of_loaded FROM items;
RESET widecolumn.as_of;
-- compact deletes them and r04's tombstone over z: 21; r03's row tombstone
-- still hides x and y
SELECT widecolumn.compact('gc_srv') AS removed;
SELECT items_differ();
-- created again, the family starts empty
SELECT widecolumn.create_family('gc_srv', 'items', 'h', 'never');
SELECT count(z) FROM items;
UPDATE items SET z = 7 WHERE rowkey = 'r01';
UPDATE items_oracle SET z = 7 WHERE rowkey = 'r01';
SELECT items_differ();
SELECT widecolumn.compact('gc_srv', 'items') AS removed;
SELECT items_differ();

-- drop_table: the versions a read could return (x 10, y 8, z 1), all gone
-- at COMMIT with the table's families
BEGIN;
SELECT widecolumn.drop_table('gc_srv', 'items') AS deleted;
SELECT count(*) FROM widecolumn.families('gc_srv') WHERE table_name = 'items';
ROLLBACK;
SELECT count(*) AS rows_after_rollback FROM items;
SELECT widecolumn.drop_table('gc_srv', 'items') AS deleted;
TRUNCATE items_oracle;
SELECT count(*) FROM widecolumn.families('gc_srv') WHERE table_name = 'items';
SELECT items_differ();
SELECT as_of('loaded') IS NOT NULL AS set;
SELECT count(*) AS rows_as_of_loaded FROM items;
RESET widecolumn.as_of;
-- it no longer exists
SELECT widecolumn.drop_table('gc_srv', 'items');
-- compact deletes its 19 versions and r03's row tombstone
SELECT widecolumn.compact('gc_srv', 'items') AS removed;
SELECT widecolumn.compact('gc_srv') AS removed_again;
-- rows written after the drop are there, and only they; the write creates
-- the families it writes to again (maxversions=1)
INSERT INTO items VALUES ('n1', 1, 'new', NULL);
INSERT INTO items_oracle VALUES ('n1', 1, 'new', NULL);
SELECT items_differ();
SELECT * FROM items;
-- a table with data and no families (as 0.1.0 wrote) can be dropped
CREATE FOREIGN TABLE plain (rowkey text OPTIONS (rowkey 'true'), v int) SERVER gc_srv;
INSERT INTO plain SELECT 'k' || i, i FROM generate_series(1, 5) i;
SELECT widecolumn.drop_table('gc_srv', 'plain') AS deleted;
SELECT count(*) FROM plain;
SELECT widecolumn.compact('gc_srv', 'plain') AS removed;

-- a family dropped in the transaction that writes it again: what the
-- transaction wrote after the drop stays (only older versions go)
SELECT widecolumn.create_family('gc_srv', 'items', 'h', 'never');
BEGIN;
SELECT widecolumn.drop_family('gc_srv', 'items', 'h') AS deleted;
SELECT widecolumn.create_family('gc_srv', 'items', 'h', 'never');
UPDATE items SET z = 8 WHERE rowkey = 'n1';
COMMIT;
SELECT * FROM items;

-- errors, each changing nothing
SELECT widecolumn.drop_family('gc_srv', 'items', 'nosuch');
SELECT widecolumn.drop_family('gc_srv', 'nosuch', 'a');
SELECT widecolumn.drop_table('gc_srv', 'nosuch');
SELECT widecolumn.drop_table('gc_srv', '');
SELECT widecolumn.drop_family('gc_srv', 'items', 'bad name');
SELECT widecolumn.drop_family(NULL, 'items', 'a');
SELECT widecolumn.drop_table('gc_srv', NULL);
SELECT widecolumn.compact(NULL);
SELECT widecolumn.compact('nosuch');
BEGIN READ ONLY;
SELECT widecolumn.drop_table('gc_srv', 'items');
ROLLBACK;
SET widecolumn.as_of = '2000-01-01 00:00:00+00';
SELECT widecolumn.drop_family('gc_srv', 'items', 'a');
RESET widecolumn.as_of;
SELECT family FROM widecolumn.families('gc_srv') ORDER BY 1;
SELECT * FROM items;

-- privileges: revoked from PUBLIC; drop_* need the server's ownership,
-- compact USAGE
CREATE ROLE gc_user;
SET ROLE gc_user;
SELECT widecolumn.compact('gc_srv');
SELECT widecolumn.drop_table('gc_srv', 'items');
RESET ROLE;
GRANT EXECUTE ON FUNCTION widecolumn.compact(name, text),
  widecolumn.drop_table(name, text), widecolumn.drop_family(name, text, text) TO gc_user;
SET ROLE gc_user;
SELECT widecolumn.compact('gc_srv');
RESET ROLE;
GRANT USAGE ON FOREIGN SERVER gc_srv TO gc_user;
SET ROLE gc_user;
SELECT widecolumn.compact('gc_srv') AS removed;
SELECT widecolumn.drop_table('gc_srv', 'items');
SELECT widecolumn.drop_family('gc_srv', 'items', 'a');
RESET ROLE;
ALTER SERVER gc_srv OWNER TO gc_user;
SET ROLE gc_user;
SELECT widecolumn.drop_family('gc_srv', 'items', 'h') AS deleted;
RESET ROLE;
SELECT * FROM items;
ALTER SERVER gc_srv OWNER TO CURRENT_USER;

DROP FUNCTION items_differ(), mark(text), as_of(text);
DROP TABLE items_oracle;
DROP FOREIGN TABLE items, plain;
DROP SERVER gc_srv;
REVOKE ALL ON FUNCTION widecolumn.compact(name, text),
  widecolumn.drop_table(name, text), widecolumn.drop_family(name, text, text) FROM gc_user;
DROP ROLE gc_user;
ALTER SYSTEM RESET widecolumn_fdw.sweep_naptime;
SELECT pg_reload_conf();
