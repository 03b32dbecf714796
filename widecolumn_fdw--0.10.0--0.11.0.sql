/* widecolumn_fdw--0.10.0--0.11.0.sql */

\echo Use "ALTER EXTENSION widecolumn_fdw UPDATE TO '0.11.0'" to load this file. \quit

-- No SQL object changes.  0.11.0 changes what is stored beside the data:
-- a database's directory keeps the LevelDB settings it was last opened
-- with in a file widecolumn-settings, which the storage worker's start
-- reads to settle each database's commits (docs/format.md); and a
-- foreign commit writes a WAL record of the library's resource manager
-- (id 172) that reserves transaction ids, so WAL written by 0.11.0 needs
-- the 0.11.0 library to recover.  Databases written by 0.10.0 read as they
-- did (test/fixtures/format-0.10.0).
