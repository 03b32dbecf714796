/* widecolumn_fdw--0.1.0.sql */

\echo Use "CREATE EXTENSION widecolumn_fdw" to load this file. \quit

CREATE FUNCTION widecolumn_fdw_handler()
RETURNS fdw_handler
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;

CREATE FUNCTION widecolumn_fdw_validator(text[], oid)
RETURNS void
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;

CREATE FOREIGN DATA WRAPPER widecolumn_fdw
  HANDLER widecolumn_fdw_handler
  VALIDATOR widecolumn_fdw_validator;

COMMENT ON FOREIGN DATA WRAPPER widecolumn_fdw
  IS 'Bigtable-model wide-column tables kept in LevelDB';
