-- check-long's pairs workload (test/long/pairs_*.sql): writers commit a
-- row into a native table and the same key into foreign tables of two
-- servers, in one transaction; readers in every isolation level look for
-- a key that is in one table and not in another (a torn transaction) and
-- log each they find.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
DROP SERVER IF EXISTS long_pairs CASCADE;
DROP SERVER IF EXISTS long_pairs2 CASCADE;
DROP TABLE IF EXISTS pairs_n, pairs_torn;
CREATE SERVER long_pairs FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
CREATE SERVER long_pairs2 FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
CREATE FOREIGN TABLE pairs_f (k text OPTIONS (rowkey 'true') COLLATE "C", v int) SERVER long_pairs;
CREATE FOREIGN TABLE pairs_f2 (k text OPTIONS (rowkey 'true') COLLATE "C", v int) SERVER long_pairs2;
CREATE TABLE pairs_n (k text COLLATE "C", v int);
CREATE TABLE pairs_torn (level text, found bigint);
