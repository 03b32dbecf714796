/* widecolumn_fdw--0.7.0--0.8.0.sql */

\echo Use "ALTER EXTENSION widecolumn_fdw UPDATE TO '0.8.0'" to load this file. \quit

-- families() gains an aggregate column.  A function's result type cannot
-- change in place: drop it (export_schema, a SQL function, calls it only
-- when it runs) and create it again, revoked from PUBLIC as before.
DROP FUNCTION widecolumn.families(name);
CREATE FUNCTION widecolumn.families(server name)
RETURNS TABLE (table_name text, family text, gc_policy text, aggregate text)
AS 'MODULE_PATHNAME', 'wc_families'
LANGUAGE C STABLE;
REVOKE ALL ON FUNCTION widecolumn.families(name) FROM PUBLIC;

-- export_schema creates aggregate families with their type (cbt's
-- "families=f:policy:intsum") and says that HBase has none.
CREATE OR REPLACE FUNCTION widecolumn.export_schema(server name)
RETURNS text
LANGUAGE sql STABLE
AS $$
WITH f AS (
  SELECT table_name, family, gc_policy, aggregate,
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
            FROM (SELECT table_name AS t, 0 AS n, '' AS fam,
                         'cbt createtable ' || min(tq)
                         || coalesce(' "families=' || string_agg(family || ':' || gc_policy || ':int' || aggregate,
                                                                  ',' ORDER BY family) || '"', '') AS line
                    FROM f GROUP BY table_name
                  UNION ALL
                  SELECT table_name, 1, family, 'cbt createfamily ' || tq || ' ' || family
                    FROM f WHERE aggregate IS NULL
                  UNION ALL
                  SELECT table_name, 2, family,
                         'cbt setgcpolicy ' || tq || ' ' || family || ' ' || gc_policy
                    FROM f WHERE aggregate IS NULL) s),
         '# HBase shell',
         (SELECT string_agg(format('create %L, %s', table_name, families), E'\n' ORDER BY table_name)
            FROM hbase),
         (SELECT string_agg(format('# HBase has no aggregate families: %s of %s (%s) is created as a plain family%s',
                                   family, table_name, aggregate,
                                   CASE aggregate WHEN 'sum' THEN '; add to its counters with HBase''s Increment'
                                        ELSE ', and nothing in HBase keeps its ' || aggregate || 'imum' END),
                           E'\n' ORDER BY table_name, family)
            FROM f WHERE aggregate IS NOT NULL)) || E'\n'
$$;


-- The large-object forms of export_avro and import_avro get names of their
-- own: called with two arguments by position, export_avro(t, path) and
-- the large-object export_avro(t, prefix) could not be told apart (42725).
DROP FUNCTION widecolumn.export_avro(regclass, text, text);
DROP FUNCTION widecolumn.import_avro(regclass, oid);
CREATE FUNCTION widecolumn.export_avro_lo(t regclass, prefix text DEFAULT NULL,
                                          codec text DEFAULT 'deflate')
RETURNS oid
AS 'MODULE_PATHNAME', 'wc_export_avro_lo'
LANGUAGE C VOLATILE;
CREATE FUNCTION widecolumn.import_avro_lo(t regclass, lo oid)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wc_import_avro_lo'
LANGUAGE C VOLATILE;
