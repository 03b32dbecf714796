/* widecolumn_fdw--0.5.0--0.6.0.sql */

\echo Use "ALTER EXTENSION widecolumn_fdw UPDATE TO '0.6.0'" to load this file. \quit

-- No SQL object changes.  0.6.0 changes what a database holds in one
-- place: the pending-commit file of a large commit of versions at their
-- own timestamps (widecolumn.import_avro into a new table) names the rows
-- that hold them, which a crash between its chunks empties again
-- (docs/format.md, "Large commits").  A database of 0.5.0 reads the same,
-- and its pending-commit files are rolled back as before.
