-- From 0.1.0 to 0.2.0: a database with 0.1.0 installed (its functions
-- where it put them) updates in place, keeps its foreign tables working,
-- and gains the schema widecolumn and its functions.
CREATE DATABASE wc_upgrade;
\c wc_upgrade
-- 0.1.0 was relocatable and usually in public.  Under 0.2.0's control
-- file, which names its schema, 0.1.0's script puts its functions in
-- widecolumn; they are moved to public, and the extension with them, as
-- 0.1.0 installed in public has it.
SET client_min_messages = warning;
CREATE EXTENSION widecolumn_fdw VERSION '0.1.0';
RESET client_min_messages;
UPDATE pg_extension SET extrelocatable = true WHERE extname = 'widecolumn_fdw';
ALTER EXTENSION widecolumn_fdw SET SCHEMA public;
DROP SCHEMA widecolumn;
SELECT e.extversion, e.extrelocatable, n.nspname
  FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE extname = 'widecolumn_fdw';
SELECT count(*) AS new_functions FROM pg_proc WHERE proname IN ('create_family', 'set_gc_policy', 'families');
CREATE SERVER up_srv FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE up_t (rowkey text OPTIONS (rowkey 'true') COLLATE "C", v int) SERVER up_srv;
INSERT INTO up_t VALUES ('a', 1), ('b', 2);
SET client_min_messages = warning;
ALTER EXTENSION widecolumn_fdw UPDATE TO '0.2.0';
RESET client_min_messages;
SELECT e.extversion, e.extrelocatable, n.nspname
  FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE extname = 'widecolumn_fdw';
SELECT p.proname, n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE p.proname IN ('create_family', 'set_gc_policy', 'families', 'widecolumn_fdw_handler')
 ORDER BY 1;
SELECT * FROM up_t ORDER BY rowkey;
-- the new library listed the family the INSERT above wrote to
SELECT * FROM widecolumn.families('up_srv');
SELECT widecolumn.set_gc_policy('up_srv', 'up_t', 'cf', 'maxversions=3');
SELECT * FROM widecolumn.families('up_srv');
INSERT INTO up_t VALUES ('c', 3);
SELECT * FROM up_t ORDER BY rowkey;
-- the extension's schema (which the update made, so it is a member) and members
SELECT refobjid::regnamespace AS depends_on_schema FROM pg_depend
 WHERE classid = 'pg_extension'::regclass AND refclassid = 'pg_namespace'::regclass
   AND objid = (SELECT oid FROM pg_extension WHERE extname = 'widecolumn_fdw');
SELECT nspname FROM pg_namespace WHERE nspname = 'widecolumn';
SELECT pg_describe_object(classid, objid, 0) AS member
  FROM pg_depend WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'widecolumn_fdw')
 ORDER BY 1;
DROP SERVER up_srv CASCADE;

-- From 0.2.0 through 0.3.0 to 0.4.0, here from an early build of 0.2.0
-- that had no compact(): the update makes it, revoked from PUBLIC, and the
-- extension then has the members and privileges of a new installation
-- (shown next).
\c contrib_regression
CREATE DATABASE wc_upgrade2;
\c wc_upgrade2
SET client_min_messages = warning;
CREATE EXTENSION widecolumn_fdw VERSION '0.2.0';
RESET client_min_messages;
ALTER EXTENSION widecolumn_fdw DROP FUNCTION widecolumn.compact(name, text);
DROP FUNCTION widecolumn.compact(name, text);
-- create_family, made again with a new parameter, keeps its grants
CREATE ROLE wc_up_granted;
GRANT EXECUTE ON FUNCTION widecolumn.create_family(name, text, text, text) TO wc_up_granted;
ALTER EXTENSION widecolumn_fdw UPDATE;
SELECT has_function_privilege('wc_up_granted',
  'widecolumn.create_family(name, text, text, text, text)', 'EXECUTE') AS still_granted;
REVOKE ALL ON FUNCTION widecolumn.create_family(name, text, text, text, text) FROM wc_up_granted;
DROP ROLE wc_up_granted;
CREATE VIEW ext_members AS
SELECT e.extversion, pg_describe_object(d.classid, d.objid, 0) AS member, p.proacl
  FROM pg_extension e JOIN pg_depend d ON d.refobjid = e.oid
  LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
 WHERE e.extname = 'widecolumn_fdw' AND d.refclassid = 'pg_extension'::regclass
   AND d.deptype = 'e';
SELECT * FROM ext_members ORDER BY member;
\c contrib_regression
CREATE DATABASE wc_fresh;
\c wc_fresh
SET client_min_messages = warning;
CREATE EXTENSION widecolumn_fdw;
RESET client_min_messages;
SELECT e.extversion, pg_describe_object(d.classid, d.objid, 0) AS member, p.proacl
  FROM pg_extension e JOIN pg_depend d ON d.refobjid = e.oid
  LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
 WHERE e.extname = 'widecolumn_fdw' AND d.refclassid = 'pg_extension'::regclass
   AND d.deptype = 'e'
 ORDER BY member;
-- 0.7.0's families() has three columns; the new library fills them until
-- the update gives it the aggregate column.  backup and restore come with
-- the update.
\c contrib_regression
CREATE DATABASE wc_upgrade3;
\c wc_upgrade3
SET client_min_messages = warning;
CREATE EXTENSION widecolumn_fdw VERSION '0.7.0';
RESET client_min_messages;
CREATE SERVER up3_srv FOREIGN DATA WRAPPER widecolumn_fdw;
SELECT widecolumn.create_family('up3_srv', 't', 'plain', 'maxversions=2');
SELECT widecolumn.create_family('up3_srv', 't', 'n', aggregate => 'sum');
SELECT * FROM widecolumn.families('up3_srv');
SELECT count(*) AS backup_functions FROM pg_proc WHERE proname IN ('backup', 'restore');
SET client_min_messages = warning;
ALTER EXTENSION widecolumn_fdw UPDATE;
RESET client_min_messages;
SELECT * FROM widecolumn.families('up3_srv');
SELECT count(*) AS backup_functions FROM pg_proc WHERE proname IN ('backup', 'restore');
DROP SERVER up3_srv;
\c contrib_regression
DROP DATABASE wc_upgrade;
DROP DATABASE wc_upgrade2;
DROP DATABASE wc_fresh;
DROP DATABASE wc_upgrade3;
