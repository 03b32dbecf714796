/* widecolumn_fdw--0.4.0--0.5.0.sql */

\echo Use "ALTER EXTENSION widecolumn_fdw UPDATE TO '0.5.0'" to load this file. \quit

-- The schema-design loop (heat map, monitoring views, advisor, progress)
-- and Avro export and import.  A database written by 0.4.0 reads the same
-- (docs/format.md says what 0.5.0 adds to it).

-- The key access heat map as an SVG picture (src/fdw/heatsvg.c), drawn
-- from widecolumn.key_heatmap, whose privilege checks it inherits.
CREATE FUNCTION widecolumn.key_heatmap_svg(t regclass, metric text DEFAULT 'reads',
                                           since timestamptz DEFAULT now() - interval '1 hour')
RETURNS text
AS 'MODULE_PATHNAME', 'wc_key_heatmap_svg'
LANGUAGE C STABLE;
