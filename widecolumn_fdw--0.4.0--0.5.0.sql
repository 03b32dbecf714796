/* widecolumn_fdw--0.4.0--0.5.0.sql */

\echo Use "ALTER EXTENSION widecolumn_fdw UPDATE TO '0.5.0'" to load this file. \quit

-- The schema-design loop (heat map, monitoring views, advisor, progress)
-- and Avro export and import.  A database written by 0.4.0 reads the same
-- (docs/format.md says what 0.5.0 adds to it).

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
