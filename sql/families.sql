-- Column families and their garbage-collection policies: create_family,
-- set_gc_policy, families, with cbt's policy grammar; kept in the server's
-- LevelDB database, changed in the transaction.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
SELECT nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
 WHERE extname = 'widecolumn_fdw';
CREATE SERVER fam_srv FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE SERVER fam_other FOREIGN DATA WRAPPER widecolumn_fdw;

SELECT * FROM widecolumn.families('fam_srv');
SELECT widecolumn.create_family('fam_srv', 'weather', 'measurements', 'maxage=7d');
SELECT widecolumn.create_family('fam_srv', 'weather', 'meta');
SELECT widecolumn.create_family('fam_srv', 'users', 'follows', 'NEVER');
SELECT widecolumn.create_family('fam_srv', 'weather', 'a_first', ' MaxVersions = 2  OR maxage=24h ');
SELECT widecolumn.create_family('fam_srv', 'weather', 'z-last.x', 'maxversions=2 and maxage=1500ms');
-- in (table, family) byte order, policies in their canonical text
SELECT * FROM widecolumn.families('fam_srv');
-- families are per server
SELECT * FROM widecolumn.families('fam_other');
SELECT widecolumn.set_gc_policy('fam_srv', 'weather', 'meta', 'maxversions=5');
SELECT * FROM widecolumn.families('fam_srv') WHERE table_name = 'weather' AND family = 'meta';

-- errors, each changing nothing
SELECT widecolumn.create_family('fam_srv', 'weather', 'meta');
SELECT widecolumn.set_gc_policy('fam_srv', 'weather', 'nosuch', 'never');
SELECT widecolumn.set_gc_policy('fam_srv', 'nosuch', 'meta', 'never');
SELECT widecolumn.create_family('fam_srv', 'weather', 'x', '');
SELECT widecolumn.create_family('fam_srv', 'weather', 'x', 'forever');
SELECT widecolumn.create_family('fam_srv', 'weather', 'x', 'maxversions=0');
SELECT widecolumn.create_family('fam_srv', 'weather', 'x', 'maxage=7w');
SELECT widecolumn.create_family('fam_srv', 'weather', 'x', 'maxage=7d maxversions=1');
SELECT widecolumn.create_family('fam_srv', 'weather', 'x', 'maxage=7d or maxage=1d');
SELECT widecolumn.create_family('fam_srv', 'weather', 'x', 'never or maxversions=1');
SELECT widecolumn.create_family('fam_srv', 'weather', 'x', repeat(' ', 300) || 'never');
SELECT widecolumn.create_family('fam_srv', 'weather', 'bad name', 'never');
SELECT widecolumn.create_family('fam_srv', 'weather', '', 'never');
SELECT widecolumn.create_family('fam_srv', 'weather', repeat('f', 65), 'never');
SELECT widecolumn.create_family('fam_srv', '', 'x', 'never');
SELECT widecolumn.create_family('fam_srv', repeat('t', 16385), 'x', 'never');
SELECT widecolumn.create_family(NULL, 'weather', 'x', 'never');
SELECT widecolumn.create_family('fam_srv', NULL, 'x', 'never');
SELECT widecolumn.create_family('fam_srv', 'weather', NULL, 'never');
SELECT widecolumn.create_family('fam_srv', 'weather', 'x', NULL);
SELECT widecolumn.create_family('nosuch', 'weather', 'x');
CREATE FOREIGN DATA WRAPPER fam_dummy;
CREATE SERVER fam_dummy_srv FOREIGN DATA WRAPPER fam_dummy;
SELECT widecolumn.create_family('fam_dummy_srv', 'weather', 'x');
SELECT * FROM widecolumn.families('fam_dummy_srv');
BEGIN READ ONLY;
SELECT widecolumn.create_family('fam_srv', 'weather', 'x');
ROLLBACK;
SELECT count(*) AS families_after_errors FROM widecolumn.families('fam_srv');

-- in the transaction: seen by it, gone with a rollback
BEGIN;
SELECT widecolumn.create_family('fam_srv', 'weather', 'tx1');
SELECT widecolumn.set_gc_policy('fam_srv', 'weather', 'meta', 'never');
SELECT family, gc_policy FROM widecolumn.families('fam_srv') WHERE table_name = 'weather';
SAVEPOINT s;
SELECT widecolumn.create_family('fam_srv', 'weather', 'tx2');
ROLLBACK TO SAVEPOINT s;
SELECT family FROM widecolumn.families('fam_srv') WHERE family LIKE 'tx%';
ROLLBACK;
SELECT family, gc_policy FROM widecolumn.families('fam_srv') WHERE table_name = 'weather';
BEGIN;
SELECT widecolumn.create_family('fam_srv', 'weather', 'tx3', 'maxage=1h');
COMMIT;
SELECT family, gc_policy FROM widecolumn.families('fam_srv') WHERE family = 'tx3';

-- A foreign table over the same server is unaffected by the list, and the
-- list by its rows.
CREATE FOREIGN TABLE fam_weather (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    pressure bigint OPTIONS (column 'measurements:pressure')
) SERVER fam_srv OPTIONS (table 'weather');
INSERT INTO fam_weather VALUES ('r1', 1), ('r2', 2);
SELECT * FROM fam_weather ORDER BY rowkey;
SELECT count(*) FROM widecolumn.families('fam_srv');

-- at most 1,000 families a table
DO $$
BEGIN
  FOR i IN 1..1000 LOOP
    PERFORM widecolumn.create_family('fam_srv', 'wide', 'f' || i);
  END LOOP;
END
$$;
SELECT count(*) FROM widecolumn.families('fam_srv') WHERE table_name = 'wide';
SELECT widecolumn.create_family('fam_srv', 'wide', 'one_too_many');
-- ... nor through a foreign table: the commit fails and writes nothing
CREATE FOREIGN TABLE fam_wide (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    a int OPTIONS (column 'f1:a'),
    b int OPTIONS (column 'one_too_many:b')
) SERVER fam_srv OPTIONS (table 'wide');
INSERT INTO fam_wide VALUES ('r', 1, 2);
INSERT INTO fam_wide VALUES ('r', 1, NULL);
SELECT * FROM fam_wide;
DROP FOREIGN TABLE fam_wide;

-- A family that a foreign table writes to and nobody created is created
-- at COMMIT with maxversions=1, so that it keeps no history; not if the
-- transaction rolls back.
CREATE FOREIGN TABLE fam_auto (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    v int OPTIONS (column 'counts:v'),
    w int OPTIONS (column 'other:w')
) SERVER fam_srv OPTIONS (table 'auto');
BEGIN;
INSERT INTO fam_auto VALUES ('r', 1, 1);
ROLLBACK;
SELECT * FROM widecolumn.families('fam_srv') WHERE table_name = 'auto';
BEGIN;
INSERT INTO fam_auto VALUES ('r', 1, NULL);
-- not yet: it is created with the commit
SELECT * FROM widecolumn.families('fam_srv') WHERE table_name = 'auto';
COMMIT;
SELECT * FROM widecolumn.families('fam_srv') WHERE table_name = 'auto';
CREATE TEMP TABLE fam_marks (name text, at timestamptz);
CREATE FUNCTION fam_mark(name text) RETURNS void LANGUAGE sql AS $$
  SELECT pg_sleep(0.002);
  INSERT INTO fam_marks VALUES (name, clock_timestamp());
  SELECT pg_sleep(0.002);
$$;
UPDATE fam_auto SET v = 2;
SELECT fam_mark('auto');
UPDATE fam_auto SET v = 3, w = 1;
SELECT * FROM widecolumn.families('fam_srv') WHERE table_name = 'auto';
-- as of the mark, v was 2, but that version is gone (and w was NULL)
SELECT set_config('widecolumn.as_of', (SELECT at FROM fam_marks WHERE name = 'auto')::text, false) IS NOT NULL AS set;
SELECT * FROM fam_auto;
RESET widecolumn.as_of;
SELECT * FROM fam_auto;
-- a family created first keeps its policy: the same writes keep v's history
SELECT widecolumn.create_family('fam_srv', 'auto2', 'counts', 'never');
ALTER FOREIGN TABLE fam_auto OPTIONS (SET table 'auto2');
INSERT INTO fam_auto VALUES ('r', 1, NULL);
UPDATE fam_auto SET v = 2;
SELECT fam_mark('auto2');
UPDATE fam_auto SET v = 3, w = 1;
SELECT * FROM widecolumn.families('fam_srv') WHERE table_name = 'auto2';
SELECT set_config('widecolumn.as_of', (SELECT at FROM fam_marks WHERE name = 'auto2')::text, false) IS NOT NULL AS set;
SELECT * FROM fam_auto;
RESET widecolumn.as_of;
DROP FUNCTION fam_mark(text);
DROP FOREIGN TABLE fam_auto;

-- privileges: revoked from PUBLIC; USAGE on the server needed too
CREATE ROLE fam_user;
SET ROLE fam_user;
SELECT * FROM widecolumn.families('fam_srv');
RESET ROLE;
GRANT EXECUTE ON FUNCTION widecolumn.families(name) TO fam_user;
GRANT EXECUTE ON FUNCTION widecolumn.create_family(name, text, text, text, text) TO fam_user;
SET ROLE fam_user;
SELECT * FROM widecolumn.families('fam_srv');
SELECT widecolumn.create_family('fam_srv', 'weather', 'x');
RESET ROLE;
GRANT USAGE ON FOREIGN SERVER fam_srv TO fam_user;
SET ROLE fam_user;
SELECT count(*) FROM widecolumn.families('fam_srv');
SELECT widecolumn.create_family('fam_srv', 'weather', 'by_user');
SELECT widecolumn.set_gc_policy('fam_srv', 'weather', 'by_user', 'never');
RESET ROLE;

DROP FOREIGN TABLE fam_weather;
DROP SERVER fam_srv;
DROP SERVER fam_other;
DROP SERVER fam_dummy_srv;
DROP FOREIGN DATA WRAPPER fam_dummy;
REVOKE ALL ON FUNCTION widecolumn.families(name) FROM fam_user;
REVOKE ALL ON FUNCTION widecolumn.create_family(name, text, text, text, text) FROM fam_user;
DROP ROLE fam_user;
