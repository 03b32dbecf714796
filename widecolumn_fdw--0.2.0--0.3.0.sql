/* widecolumn_fdw--0.2.0--0.3.0.sql */

\echo Use "ALTER EXTENSION widecolumn_fdw UPDATE TO '0.3.0'" to load this file. \quit

-- drop_family, drop_table and compact came with 0.2.0's last changes; an
-- installation of an earlier build of 0.2.0 gets them here (each is made,
-- or made again, as 0.2.0's script makes it).  The stored format is the
-- same.
CREATE OR REPLACE FUNCTION widecolumn.drop_family(server name, table_name text, family text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wc_drop_family'
LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION widecolumn.drop_table(server name, table_name text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wc_drop_table'
LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION widecolumn.compact(server name, table_name text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wc_compact'
LANGUAGE C VOLATILE;

REVOKE ALL ON FUNCTION widecolumn.drop_family(name, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION widecolumn.drop_table(name, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION widecolumn.compact(name, text) FROM PUBLIC;

-- Sizes, as LevelDB estimates them from its files' indexes, without reading
-- the data: Bigtable's SampleRowKeys, and the bytes of a range of rows.
-- Everyone may call them; each needs SELECT on the foreign table.
CREATE FUNCTION widecolumn.sample_row_keys(t regclass)
RETURNS TABLE (row_key text, offset_bytes bigint)
AS 'MODULE_PATHNAME', 'wc_sample_row_keys'
LANGUAGE C VOLATILE;

CREATE FUNCTION widecolumn.approximate_size(t regclass, start_key text DEFAULT NULL,
                                            end_key text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wc_approximate_size'
LANGUAGE C VOLATILE;

-- Aggregate families (sum, min, max): create_family gets a parameter,
-- which needs the function made again.  A family list written by 0.2.0
-- reads the same; an aggregate family's line has a third field.  The
-- grants of EXECUTE an administrator made on the old function are made
-- again on the new one.
DO $$
BEGIN
  PERFORM set_config('wc_upgrade.create_family_grants', coalesce(string_agg(
      format('GRANT EXECUTE ON FUNCTION widecolumn.create_family(name, text, text, text, text) TO %s%s',
             CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END,
             CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), '; '), ''), true)
    FROM pg_proc p CROSS JOIN LATERAL aclexplode(p.proacl) a
    LEFT JOIN pg_roles r ON r.oid = a.grantee
   WHERE p.oid = 'widecolumn.create_family(name, text, text, text)'::regprocedure
     AND a.grantee <> p.proowner AND a.privilege_type = 'EXECUTE';
END
$$;
DROP FUNCTION widecolumn.create_family(name, text, text, text);

CREATE FUNCTION widecolumn.create_family(server name, table_name text, family text,
                                         gc_policy text DEFAULT 'maxversions=1',
                                         aggregate text DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'wc_create_family'
LANGUAGE C VOLATILE;

REVOKE ALL ON FUNCTION widecolumn.create_family(name, text, text, text, text) FROM PUBLIC;

DO $$
BEGIN
  IF current_setting('wc_upgrade.create_family_grants') <> '' THEN
    EXECUTE current_setting('wc_upgrade.create_family_grants');
  END IF;
END
$$;
