/* widecolumn_fdw--0.4.0--0.5.0.sql */

\echo Use "ALTER EXTENSION widecolumn_fdw UPDATE TO '0.5.0'" to load this file. \quit

-- The schema-design loop (heat map, monitoring views, advisor, progress)
-- and Avro export and import.  A database written by 0.4.0 reads the same
-- (docs/format.md says what 0.5.0 adds to it).
