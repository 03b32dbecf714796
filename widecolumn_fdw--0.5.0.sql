/* widecolumn_fdw--0.5.0.sql */

\echo Use "CREATE EXTENSION widecolumn_fdw" to load this file. \quit

-- The extension's schema is widecolumn (the control file says so).

CREATE FUNCTION widecolumn.widecolumn_fdw_handler()
RETURNS fdw_handler
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;

CREATE FUNCTION widecolumn.widecolumn_fdw_validator(text[], oid)
RETURNS void
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;

CREATE FOREIGN DATA WRAPPER widecolumn_fdw
  HANDLER widecolumn.widecolumn_fdw_handler
  VALIDATOR widecolumn.widecolumn_fdw_validator;

COMMENT ON FOREIGN DATA WRAPPER widecolumn_fdw
  IS 'Bigtable-model wide-column tables kept in LevelDB';

-- Column families and their garbage-collection policies, as Bigtable's
-- admin API and cbt have them.  Each checks USAGE on the server itself.
-- A family created with an aggregate ('sum', 'min', 'max') holds 64-bit
-- integers that an INSERT merges into, as Bigtable's intsum, intmin, intmax.
CREATE FUNCTION widecolumn.create_family(server name, table_name text, family text,
                                         gc_policy text DEFAULT 'maxversions=1',
                                         aggregate text DEFAULT NULL)
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
REVOKE ALL ON FUNCTION widecolumn.create_family(name, text, text, text, text) FROM PUBLIC;
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

-- Dropping a range of rows at once (Bigtable's DropRowRange): every row of
-- the foreign table's stored table whose key starts with the prefix, in
-- every family.  Part of the transaction; needs DELETE on the table.
CREATE FUNCTION widecolumn.drop_row_range(t regclass, prefix text)
RETURNS void
AS 'MODULE_PATHNAME', 'wc_drop_row_range'
LANGUAGE C VOLATILE;

CREATE FUNCTION widecolumn.drop_row_range(t regclass, prefix bytea)
RETURNS void
AS 'MODULE_PATHNAME', 'wc_drop_row_range'
LANGUAGE C VOLATILE;

-- The schema advisor: what the schema-design pages would say of the stored
-- table behind a foreign table, from a bounded sample of its rows, its
-- sizes, its families and policies, and the foreign tables over it.
-- Everyone may call it; it needs SELECT on the foreign table, as the keys
-- and sizes it shows are of the rows a SELECT reads.
CREATE FUNCTION widecolumn.advise(t regclass)
RETURNS TABLE (severity text, finding text, evidence text, advice text)
AS 'MODULE_PATHNAME', 'wc_advise'
LANGUAGE C VOLATILE;
