/* widecolumn_fdw--0.3.0--0.4.0.sql */

\echo Use "ALTER EXTENSION widecolumn_fdw UPDATE TO '0.4.0'" to load this file. \quit

-- Dropping row ranges.  A database written by 0.3.0 reads the same; 0.4.0
-- adds the cells wc:dropped_rows:<range> and wc:dropped_rows_refilled:<range>
-- to the table of families (docs/format.md), which 0.3.0 would not know.

CREATE FUNCTION widecolumn.drop_row_range(t regclass, prefix text)
RETURNS void
AS 'MODULE_PATHNAME', 'wc_drop_row_range'
LANGUAGE C VOLATILE;

CREATE FUNCTION widecolumn.drop_row_range(t regclass, prefix bytea)
RETURNS void
AS 'MODULE_PATHNAME', 'wc_drop_row_range'
LANGUAGE C VOLATILE;
