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

-- Avro export and import in Bigtable's own format (the schema of Google's
-- "Cloud Bigtable to Avro" and "Avro to Cloud Bigtable" Dataflow
-- templates): every version of a stored table with its timestamps, for
-- backup and for moving to Bigtable or HBase.  export_avro and import_avro
-- check what COPY checks, in C (a server file needs superuser or
-- pg_write_server_files / pg_read_server_files, and SELECT / INSERT on
-- the table), so everyone may call them, as everyone may run COPY; the
-- large-object variants need only the table privilege (and the large
-- object's).  Called with two or three arguments by position, the file
-- and large-object variants of export_avro cannot be told apart: name
-- the path (path => '...').  export_schema shows what families() shows,
-- so it is revoked from PUBLIC as families() is.
CREATE FUNCTION widecolumn.export_avro(t regclass, path text, prefix text DEFAULT NULL,
                                       codec text DEFAULT 'deflate')
RETURNS bigint
AS 'MODULE_PATHNAME', 'wc_export_avro'
LANGUAGE C VOLATILE;

CREATE FUNCTION widecolumn.export_avro(t regclass, prefix text DEFAULT NULL,
                                       codec text DEFAULT 'deflate')
RETURNS oid
AS 'MODULE_PATHNAME', 'wc_export_avro_lo'
LANGUAGE C VOLATILE;

CREATE FUNCTION widecolumn.import_avro(t regclass, path text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wc_import_avro'
LANGUAGE C VOLATILE;

CREATE FUNCTION widecolumn.import_avro(t regclass, lo oid)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wc_import_avro_lo'
LANGUAGE C VOLATILE;

-- A gc_policy in cbt's words is the same text; HBase keeps a family's
-- versions by VERSIONS (count) and TTL (seconds, rounded up), both
-- deleting ("or"); "maxage and maxversions" keeps the newest versions
-- whatever their age, HBase's MIN_VERSIONS.
CREATE FUNCTION widecolumn.export_schema(server name)
RETURNS text
LANGUAGE sql STABLE
AS $$
WITH f AS (
  SELECT table_name, family, gc_policy,
         CASE WHEN table_name ~ '^[A-Za-z0-9_.-]+$' THEN table_name
              ELSE '''' || replace(table_name, '''', '''\''''') || '''' END AS tq,
         (regexp_match(gc_policy, 'maxversions=([0-9]+)'))[1] AS versions,
         (SELECT ceil(m[1]::numeric * CASE m[2] WHEN 'ms' THEN 0.001 WHEN 's' THEN 1
                      WHEN 'm' THEN 60 WHEN 'h' THEN 3600 ELSE 86400 END)
            FROM regexp_match(gc_policy, 'maxage=([0-9]+)(ms|s|m|h|d)') m) AS ttl,
         gc_policy ~ ' and ' AS both_needed
    FROM widecolumn.families(server)
), hbase AS (
  SELECT table_name,
         string_agg(format('{NAME => %L, VERSIONS => %s%s%s}', family,
                           CASE WHEN versions IS NOT NULL AND NOT both_needed THEN versions
                                ELSE '2147483647' END,
                           CASE WHEN ttl IS NOT NULL THEN ', TTL => ' || ttl ELSE '' END,
                           CASE WHEN both_needed THEN ', MIN_VERSIONS => ' || versions ELSE '' END),
                    ', ' ORDER BY family) AS families
    FROM f GROUP BY table_name
)
SELECT concat_ws(E'\n',
         '# cbt (Bigtable): create the tables, their families and GC policies',
         (SELECT string_agg(line, E'\n' ORDER BY t, n, fam)
            FROM (SELECT DISTINCT table_name AS t, 0 AS n, '' AS fam,
                         'cbt createtable ' || tq AS line FROM f
                  UNION ALL
                  SELECT table_name, 1, family, 'cbt createfamily ' || tq || ' ' || family FROM f
                  UNION ALL
                  SELECT table_name, 2, family,
                         'cbt setgcpolicy ' || tq || ' ' || family || ' ' || gc_policy FROM f) s),
         '# HBase shell',
         (SELECT string_agg(format('create %L, %s', table_name, families), E'\n' ORDER BY table_name)
            FROM hbase)) || E'\n'
$$;

REVOKE ALL ON FUNCTION widecolumn.export_schema(name) FROM PUBLIC;
