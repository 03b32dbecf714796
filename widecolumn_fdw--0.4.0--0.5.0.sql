/* widecolumn_fdw--0.4.0--0.5.0.sql */

\echo Use "ALTER EXTENSION widecolumn_fdw UPDATE TO '0.5.0'" to load this file. \quit

-- The schema-design loop (heat map, monitoring views, advisor, progress)
-- and Avro export and import.  A database written by 0.4.0 reads the same
-- (docs/format.md says what 0.5.0 adds to it).

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
