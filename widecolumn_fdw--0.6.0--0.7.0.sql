/* widecolumn_fdw--0.6.0--0.7.0.sql */

\echo Use "ALTER EXTENSION widecolumn_fdw UPDATE TO '0.7.0'" to load this file. \quit

-- No SQL object changes.  0.7.0 changes what a database holds: each commit
-- also stores an entry `00 00 xact` + its timestamp naming the PostgreSQL
-- transaction that wrote it, until every snapshot agrees on that
-- transaction (docs/format.md, "Commits and their writers").  A database
-- written by 0.6.0 has none: all of its commits are settled, and read the
-- same.  (0.6.0 would read a 0.7.0 database's uncommitted or aborted
-- commits as committed: do not go back.)
