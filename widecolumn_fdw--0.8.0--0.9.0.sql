/* widecolumn_fdw--0.8.0--0.9.0.sql */

\echo Use "ALTER EXTENSION widecolumn_fdw UPDATE TO '0.9.0'" to load this file. \quit

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
