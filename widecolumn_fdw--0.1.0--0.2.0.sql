/* widecolumn_fdw--0.1.0--0.2.0.sql */

\echo Use "ALTER EXTENSION widecolumn_fdw UPDATE TO '0.2.0'" to load this file. \quit

-- 0.2.0 keeps the extension in the schema widecolumn, no longer
-- relocatable.  An installation of 0.1.0 in another schema moves its
-- handler and validator there (the foreign-data wrapper follows them by
-- OID) and becomes the extension of that schema, so that pg_dump restores
-- it as a new 0.2.0 installation would be.  The stored format is the same:
-- a LevelDB directory written by 0.1.0 reads as before.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_namespace WHERE nspname = 'widecolumn') THEN
    CREATE SCHEMA widecolumn;
  END IF;
  IF '@extschema@' <> 'widecolumn' THEN
    ALTER FUNCTION @extschema@.widecolumn_fdw_handler() SET SCHEMA widecolumn;
    ALTER FUNCTION @extschema@.widecolumn_fdw_validator(text[], oid) SET SCHEMA widecolumn;
    -- what ALTER EXTENSION ... SET SCHEMA does, which a script may not
    UPDATE pg_catalog.pg_extension SET extnamespace = 'widecolumn'::regnamespace
     WHERE extname = 'widecolumn_fdw';
    UPDATE pg_catalog.pg_depend SET refobjid = 'widecolumn'::regnamespace
     WHERE classid = 'pg_catalog.pg_extension'::regclass
       AND objid = (SELECT oid FROM pg_catalog.pg_extension WHERE extname = 'widecolumn_fdw')
       AND refclassid = 'pg_catalog.pg_namespace'::regclass;
  END IF;
END
$$;

CREATE FUNCTION widecolumn.create_family(server name, table_name text, family text,
                                         gc_policy text DEFAULT 'maxversions=1')
RETURNS void
AS 'MODULE_PATHNAME', 'wc_create_family'
LANGUAGE C VOLATILE;

CREATE FUNCTION widecolumn.set_gc_policy(server name, table_name text, family text,
                                         gc_policy text)
RETURNS void
AS 'MODULE_PATHNAME', 'wc_set_gc_policy'
LANGUAGE C VOLATILE;

CREATE FUNCTION widecolumn.families(server name)
RETURNS TABLE (table_name text, family text, gc_policy text)
AS 'MODULE_PATHNAME', 'wc_families'
LANGUAGE C STABLE;

-- Everyone may look in the schema; each function says who may call it.
GRANT USAGE ON SCHEMA widecolumn TO PUBLIC;
REVOKE ALL ON FUNCTION widecolumn.create_family(name, text, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION widecolumn.set_gc_policy(name, text, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION widecolumn.families(name) FROM PUBLIC;

-- Removing data.  drop_family and drop_table delete a family's or a
-- table's data at COMMIT and return the versions deleted; they need
-- ownership of the server (or superuser).  compact deletes at once what
-- the storage worker's background sweep would, and returns the entries
-- it deleted; it needs USAGE on the server.
CREATE FUNCTION widecolumn.drop_family(server name, table_name text, family text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wc_drop_family'
LANGUAGE C VOLATILE;

CREATE FUNCTION widecolumn.drop_table(server name, table_name text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wc_drop_table'
LANGUAGE C VOLATILE;

CREATE FUNCTION widecolumn.compact(server name, table_name text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wc_compact'
LANGUAGE C VOLATILE;

REVOKE ALL ON FUNCTION widecolumn.drop_family(name, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION widecolumn.drop_table(name, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION widecolumn.compact(name, text) FROM PUBLIC;
