/* widecolumn_fdw--0.4.0--0.5.0.sql */

\echo Use "ALTER EXTENSION widecolumn_fdw UPDATE TO '0.5.0'" to load this file. \quit

-- The schema-design loop (heat map, monitoring views, advisor, progress)
-- and Avro export and import.  A database written by 0.4.0 reads the same
-- (docs/format.md says what 0.5.0 adds to it).

-- The schema advisor: what the schema-design pages would say of the stored
-- table behind a foreign table, from a bounded sample of its rows, its
-- sizes, its families and policies, and the foreign tables over it.
-- Everyone may call it; it needs SELECT on the foreign table, as the keys
-- and sizes it shows are of the rows a SELECT reads.
CREATE FUNCTION widecolumn.advise(t regclass)
RETURNS TABLE (severity text, finding text, evidence text, advice text)
AS 'MODULE_PATHNAME', 'wc_advise'
LANGUAGE C VOLATILE;
