/* widecolumn_fdw--0.11.0.sql */

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

-- aggregate: 'sum', 'min' or 'max' for an aggregate family, else NULL.
CREATE FUNCTION widecolumn.families(server name)
RETURNS TABLE (table_name text, family text, gc_policy text, aggregate text)
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

-- The key access heat map as an SVG picture (src/fdw/heatsvg.c), drawn
-- from widecolumn.key_heatmap, whose privilege checks it inherits.
CREATE FUNCTION widecolumn.key_heatmap_svg(t regclass, metric text DEFAULT 'reads',
                                           since timestamptz DEFAULT now() - interval '1 hour')
RETURNS text
AS 'MODULE_PATHNAME', 'wc_key_heatmap_svg'
LANGUAGE C STABLE;
-- Monitoring: the storage worker's figures and the progress of long work
-- (issue 19).  As pg_stat_statements has a view of a row per statement and
-- pg_stat_statements_info of one row, stat_worker has a row per request
-- type and stat_worker_info one row for the worker; stat_leveldb a row per
-- LevelDB database the worker has open.  Each view is over the function of
-- its name.  stat_leveldb shows the databases' directories and LevelDB's
-- own report: like pg_stat_file's facts about server files, only for
-- roles trusted with the server's statistics (pg_read_all_stats).
CREATE FUNCTION widecolumn.stat_worker(
    OUT request text, OUT calls bigint, OUT total_ms double precision,
    OUT mean_ms double precision, OUT p99_ms double precision,
    OUT max_ms double precision, OUT deferred bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wc_stat_worker'
LANGUAGE C VOLATILE;

CREATE VIEW widecolumn.stat_worker AS
    SELECT * FROM widecolumn.stat_worker();

CREATE FUNCTION widecolumn.stat_worker_info(
    OUT pid integer, OUT started timestamptz, OUT busy_fraction double precision,
    OUT commits bigint, OUT large_commits bigint, OUT fsyncs bigint,
    OUT answer_waits bigint, OUT queue_waits bigint, OUT queue_wait_mean_ms double precision,
    OUT queue_wait_p99_ms double precision, OUT queue_wait_max_ms double precision)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wc_stat_worker_info'
LANGUAGE C VOLATILE;

CREATE VIEW widecolumn.stat_worker_info AS
    SELECT * FROM widecolumn.stat_worker_info();

CREATE FUNCTION widecolumn.stat_leveldb(
    OUT server name, OUT path text, OUT open boolean,
    OUT files_per_level integer[], OUT mb_per_level bigint[],
    OUT compactions bigint, OUT compaction_seconds bigint,
    OUT compaction_read_mb bigint, OUT compaction_write_mb bigint,
    OUT stats text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wc_stat_leveldb'
LANGUAGE C VOLATILE;

CREATE VIEW widecolumn.stat_leveldb AS
    SELECT * FROM widecolumn.stat_leveldb();

REVOKE ALL ON FUNCTION widecolumn.stat_leveldb() FROM PUBLIC;
REVOKE ALL ON widecolumn.stat_leveldb FROM PUBLIC;
GRANT EXECUTE ON FUNCTION widecolumn.stat_leveldb() TO pg_read_all_stats;
GRANT SELECT ON widecolumn.stat_leveldb TO pg_read_all_stats;
GRANT SELECT ON widecolumn.stat_worker, widecolumn.stat_worker_info TO PUBLIC;

-- The progress of compact, drop_table, drop_row_range and a large COMMIT,
-- a row per session running one, as pg_stat_progress_* (everyone may see
-- them, as everyone may see pg_stat_progress_copy's row).
CREATE FUNCTION widecolumn.progress(
    OUT pid integer, OUT operation text, OUT table_name text,
    OUT done bigint, OUT total bigint, OUT unit text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wc_progress_view'
LANGUAGE C VOLATILE;

CREATE VIEW widecolumn.progress AS
    SELECT * FROM widecolumn.progress();

GRANT SELECT ON widecolumn.progress TO PUBLIC;
-- Key access heat map and table statistics (issue 19): what the storage
-- worker counted of the reads and writes of each stored table, by key range
-- and minute (docs/heatmap.md).  key_heatmap needs SELECT on the foreign
-- table.  stat_tables shows the servers the user has USAGE on (every
-- server to members of pg_read_all_stats).  stat_reset zeroes every
-- server's counters, which other users' monitoring relies on: as
-- pg_stat_reset, only superusers may run it unless granted.
CREATE FUNCTION widecolumn.key_heatmap(t regclass, metric text DEFAULT 'reads',
                                       since timestamptz DEFAULT now() - interval '1 hour',
                                       buckets int DEFAULT 60)
RETURNS TABLE (bucket_start timestamptz, start_key text, end_key text,
               value double precision)
AS 'MODULE_PATHNAME', 'wc_key_heatmap'
LANGUAGE C VOLATILE;

CREATE FUNCTION widecolumn.stat_get_tables(
    OUT server name, OUT table_name text, OUT reads bigint, OUT rows_scanned bigint,
    OUT entries_scanned bigint, OUT cells_written bigint,
    OUT tombstones_written bigint, OUT versions_gc_removed bigint,
    OUT approx_bytes bigint, OUT last_sweep timestamptz, OUT stats_reset timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'wc_stat_get_tables'
LANGUAGE C VOLATILE;

CREATE VIEW widecolumn.stat_tables AS
    SELECT server, table_name, reads, rows_scanned, entries_scanned, cells_written,
           tombstones_written, versions_gc_removed, approx_bytes, last_sweep,
           stats_reset
    FROM widecolumn.stat_get_tables();

GRANT SELECT ON widecolumn.stat_tables TO PUBLIC;

CREATE FUNCTION widecolumn.stat_reset()
RETURNS void
AS 'MODULE_PATHNAME', 'wc_stat_reset'
LANGUAGE C VOLATILE;

REVOKE ALL ON FUNCTION widecolumn.stat_reset() FROM PUBLIC;
-- The schema advisor: what the schema-design pages would say of the stored
-- table behind a foreign table, from a bounded sample of its rows, its
-- sizes, its families and policies, and the foreign tables over it.
-- Everyone may call it; it needs SELECT on the foreign table, as the keys
-- and sizes it shows are of the rows a SELECT reads.
CREATE FUNCTION widecolumn.advise(t regclass)
RETURNS TABLE (severity text, finding text, evidence text, advice text)
AS 'MODULE_PATHNAME', 'wc_advise'
LANGUAGE C VOLATILE;
-- Avro export and import in Bigtable's own format (the schema of Google's
-- "Cloud Bigtable to Avro" and "Avro to Cloud Bigtable" Dataflow
-- templates): every version of a stored table with its timestamps, for
-- backup and for moving to Bigtable or HBase.  export_avro and import_avro
-- check what COPY checks, in C (a server file needs superuser or
-- pg_write_server_files / pg_read_server_files, and SELECT / INSERT on
-- the table), so everyone may call them, as everyone may run COPY; the
-- large-object forms (_lo) need only the table privilege (and the large
-- object's).  export_schema shows what families() shows, so it is revoked
-- from PUBLIC as families() is.
CREATE FUNCTION widecolumn.export_avro(t regclass, path text, prefix text DEFAULT NULL,
                                       codec text DEFAULT 'deflate')
RETURNS bigint
AS 'MODULE_PATHNAME', 'wc_export_avro'
LANGUAGE C VOLATILE;

CREATE FUNCTION widecolumn.export_avro_lo(t regclass, prefix text DEFAULT NULL,
                                          codec text DEFAULT 'deflate')
RETURNS oid
AS 'MODULE_PATHNAME', 'wc_export_avro_lo'
LANGUAGE C VOLATILE;

CREATE FUNCTION widecolumn.import_avro(t regclass, path text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wc_import_avro'
LANGUAGE C VOLATILE;

CREATE FUNCTION widecolumn.import_avro_lo(t regclass, lo oid)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wc_import_avro_lo'
LANGUAGE C VOLATILE;

-- A whole server in one call: backup writes a snapshot of every stored
-- table (families, policies, aggregates, every version, timestamps in
-- microseconds) into a new directory, restore loads one into a server
-- whose tables are empty.  They check COPY's rules for server files and
-- ownership of the server in C, so everyone may call them, as export_avro.
CREATE FUNCTION widecolumn.backup(server name, dir text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wc_backup'
LANGUAGE C VOLATILE;

CREATE FUNCTION widecolumn.restore(server name, dir text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'wc_restore'
LANGUAGE C VOLATILE;

-- A gc_policy in cbt's words is the same text; HBase keeps a family's
-- versions by VERSIONS (count) and TTL (seconds, rounded up), both
-- deleting ("or"); "maxage and maxversions" keeps the newest versions
-- whatever their age, HBase's MIN_VERSIONS.  cbt gives a family its
-- aggregate type only when it creates the table ("families=f:policy:intsum"),
-- so a table with aggregate families is created with them; HBase has no
-- aggregate families, which the output says.
CREATE FUNCTION widecolumn.export_schema(server name)
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

REVOKE ALL ON FUNCTION widecolumn.export_schema(name) FROM PUBLIC;
