/* widecolumn_fdw--0.9.0--0.10.0.sql */

\echo Use "ALTER EXTENSION widecolumn_fdw UPDATE TO '0.10.0'" to load this file. \quit

-- No SQL object changes.  0.10.0 changes the stored format: a version
-- written at its own timestamp carries the commit that wrote it (a stamp),
-- a removal is kept as a stamped marker, and a version a commit replaces is
-- kept as its pre-image until every snapshot sees the commit, so that
-- PostgreSQL's snapshots decide when such versions change (docs/format.md,
-- "Stamped versions").  Databases written before read as they did.
