-- Command ids: within a transaction, a foreign table's own writes are seen
-- by later commands and never by the command that made them, as a native
-- table's are (PostgreSQL's curcid).  Each statement runs on the foreign
-- table and on its native twin; the two results must be the same.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER cid_srv FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE cid_f (k text OPTIONS (rowkey 'true') COLLATE "C", v int) SERVER cid_srv;
CREATE TABLE cid_n (k text COLLATE "C" PRIMARY KEY, v int);
INSERT INTO cid_f VALUES ('a', 1), ('b', 2), ('c', 9), ('d', 10);
INSERT INTO cid_n VALUES ('a', 1), ('b', 2), ('c', 9), ('d', 10);
CREATE FUNCTION cid_count(t regclass) RETURNS bigint STABLE LANGUAGE plpgsql AS
  $$ DECLARE n bigint; BEGIN EXECUTE format('SELECT count(*) FROM %s', t) INTO n; RETURN n; END $$;
CREATE FUNCTION cid_sum(t regclass) RETURNS bigint STABLE LANGUAGE plpgsql AS
  $$ DECLARE n bigint; BEGIN EXECUTE format('SELECT sum(v) FROM %s', t) INTO n; RETURN n; END $$;
CREATE FUNCTION cid_vcount(t regclass) RETURNS bigint VOLATILE LANGUAGE plpgsql AS
  $$ DECLARE n bigint; BEGIN EXECUTE format('SELECT count(*) FROM %s', t) INTO n; RETURN n; END $$;

BEGIN;
-- a stable function sees its caller's snapshot: none of the rows the
-- INSERT writes (4, 4, 4 on both)
INSERT INTO cid_f SELECT 'x' || g, cid_count('cid_f') FROM generate_series(1, 3) g RETURNING v;
INSERT INTO cid_n SELECT 'x' || g, cid_count('cid_n') FROM generate_series(1, 3) g RETURNING v;
-- nor the rows an UPDATE changes (the sum before it)
UPDATE cid_f SET v = cid_sum('cid_f') WHERE k IN ('b', 'c', 'd') RETURNING k, v;
UPDATE cid_n SET v = cid_sum('cid_n') WHERE k IN ('b', 'c', 'd') RETURNING k, v;
-- nor the rows a DELETE deletes
DELETE FROM cid_f WHERE k LIKE 'x%' RETURNING k, cid_count('cid_f');
DELETE FROM cid_n WHERE k LIKE 'x%' RETURNING k, cid_count('cid_n');
-- a volatile function's statements see the rows written so far
INSERT INTO cid_f SELECT 'y' || g, cid_vcount('cid_f') FROM generate_series(1, 3) g RETURNING v;
INSERT INTO cid_n SELECT 'y' || g, cid_vcount('cid_n') FROM generate_series(1, 3) g RETURNING v;
-- a data-modifying CTE's rows are not seen by its statement's other parts
WITH w AS (INSERT INTO cid_f VALUES ('z', 0) RETURNING k) SELECT (SELECT count(*) FROM cid_f) AS rows, (SELECT count(*) FROM w) AS written;
WITH w AS (INSERT INTO cid_n VALUES ('z', 0) RETURNING k) SELECT (SELECT count(*) FROM cid_n) AS rows, (SELECT count(*) FROM w) AS written;
-- a cursor keeps its command's view at every FETCH
DECLARE cf CURSOR FOR SELECT k, v FROM cid_f ORDER BY k;
DECLARE cn CURSOR FOR SELECT k, v FROM cid_n ORDER BY k;
INSERT INTO cid_f VALUES ('after_cursor', 1);
INSERT INTO cid_n VALUES ('after_cursor', 1);
UPDATE cid_f SET v = -1 WHERE k = 'a';
UPDATE cid_n SET v = -1 WHERE k = 'a';
FETCH ALL FROM cf;
FETCH ALL FROM cn;
-- and the next statement sees everything
(SELECT k, v FROM cid_f EXCEPT ALL SELECT k, v FROM cid_n)
UNION ALL (SELECT k, v FROM cid_n EXCEPT ALL SELECT k, v FROM cid_f);
SELECT count(*) FROM cid_f;
COMMIT;
(SELECT k, v FROM cid_f EXCEPT ALL SELECT k, v FROM cid_n)
UNION ALL (SELECT k, v FROM cid_n EXCEPT ALL SELECT k, v FROM cid_f);

-- The same for a cells-layout table: its versions, against a native twin
-- with its columns.
SELECT widecolumn.create_family('cid_srv', 'cid_cells', 'f', 'never');
CREATE FOREIGN TABLE cid_c (rowkey text COLLATE "C", family text COLLATE "C",
    qualifier text COLLATE "C", ts timestamptz, value bytea)
  SERVER cid_srv OPTIONS (table 'cid_cells', layout 'cells');
CREATE TABLE cid_cn (rowkey text COLLATE "C", family text COLLATE "C",
    qualifier text COLLATE "C", ts timestamptz, value bytea);
INSERT INTO cid_c VALUES ('a', 'f', 'q', '2021-01-01 00:00+00', '\x00');
INSERT INTO cid_cn VALUES ('a', 'f', 'q', '2021-01-01 00:00+00', '\x00');
BEGIN;
-- a stable function does not see the versions its INSERT writes (1, 1, 1)
INSERT INTO cid_c SELECT 'x' || g, 'f', 'q', timestamptz '2021-01-01 00:00+00' + g * interval '1 s',
    int8send(cid_count('cid_c')) FROM generate_series(1, 3) g RETURNING rowkey, value;
INSERT INTO cid_cn SELECT 'x' || g, 'f', 'q', timestamptz '2021-01-01 00:00+00' + g * interval '1 s',
    int8send(cid_count('cid_cn')) FROM generate_series(1, 3) g RETURNING rowkey, value;
-- nor those its DELETE removes
DELETE FROM cid_c WHERE rowkey LIKE 'x%' RETURNING rowkey, cid_count('cid_c');
DELETE FROM cid_cn WHERE rowkey LIKE 'x%' RETURNING rowkey, cid_count('cid_cn');
-- a volatile function's statements see the versions written so far
INSERT INTO cid_c SELECT 'y' || g, 'f', 'q', timestamptz '2021-01-01 00:00+00' + g * interval '1 s',
    int8send(cid_vcount('cid_c')) FROM generate_series(1, 3) g RETURNING rowkey, value;
INSERT INTO cid_cn SELECT 'y' || g, 'f', 'q', timestamptz '2021-01-01 00:00+00' + g * interval '1 s',
    int8send(cid_vcount('cid_cn')) FROM generate_series(1, 3) g RETURNING rowkey, value;
-- a cursor keeps its command's view
DECLARE cc CURSOR FOR SELECT rowkey, value FROM cid_c ORDER BY rowkey, ts;
DECLARE ccn CURSOR FOR SELECT rowkey, value FROM cid_cn ORDER BY rowkey, ts;
INSERT INTO cid_c VALUES ('after_cursor', 'f', 'q', '2021-02-01 00:00+00', '\x01');
INSERT INTO cid_cn VALUES ('after_cursor', 'f', 'q', '2021-02-01 00:00+00', '\x01');
FETCH ALL FROM cc;
FETCH ALL FROM ccn;
(SELECT rowkey, ts, value FROM cid_c EXCEPT ALL SELECT rowkey, ts, value FROM cid_cn)
UNION ALL (SELECT rowkey, ts, value FROM cid_cn EXCEPT ALL SELECT rowkey, ts, value FROM cid_c);
COMMIT;
(SELECT rowkey, ts, value FROM cid_c EXCEPT ALL SELECT rowkey, ts, value FROM cid_cn)
UNION ALL (SELECT rowkey, ts, value FROM cid_cn EXCEPT ALL SELECT rowkey, ts, value FROM cid_c);
DROP TABLE cid_cn;
DROP SERVER cid_srv CASCADE;
DROP TABLE cid_n;
DROP FUNCTION cid_count(regclass), cid_sum(regclass), cid_vcount(regclass);
