-- Every form of DML, checked against a native table doing the same.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER dml_srv FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE dml_wc (
    rowkey text OPTIONS (rowkey 'true'),
    pressure bigint OPTIONS (column 'measurements:pressure'),
    temp float8 OPTIONS (column 'measurements:temperature'),
    note text OPTIONS (column 'meta:note')
) SERVER dml_srv OPTIONS (table 'weather');
CREATE TABLE dml_native (rowkey text COLLATE "C" PRIMARY KEY, pressure bigint, temp float8, note text);

-- The oracle: both tables must hold the same rows.
CREATE FUNCTION dml_diff() RETURNS TABLE (side text, rowkey text, pressure bigint, temp float8, note text)
LANGUAGE sql AS $$
  (SELECT 'only foreign', * FROM dml_wc EXCEPT ALL SELECT 'only foreign', * FROM dml_native)
  UNION ALL
  (SELECT 'only native', * FROM dml_native EXCEPT ALL SELECT 'only native', * FROM dml_wc)
$$;

-- multi-row INSERT and RETURNING
INSERT INTO dml_wc VALUES
  ('us-west2#3698#2021-03-05-1200', 94558, 9.6, NULL),
  ('us-west2#3698#2021-03-05-1201', 94122, 9.7, 'gusty'),
  ('us-east1#1234#2021-03-05-1200', 95000, NULL, NULL)
RETURNING *;
INSERT INTO dml_native SELECT * FROM dml_wc;
SELECT * FROM dml_diff();

-- INSERT ... SELECT, and rows come back in row-key order
INSERT INTO dml_wc SELECT 'asia#' || lpad(g::text, 3, '0'), g * 10, g / 4.0, 'gen' FROM generate_series(1, 20) g;
INSERT INTO dml_native SELECT 'asia#' || lpad(g::text, 3, '0'), g * 10, g / 4.0, 'gen' FROM generate_series(1, 20) g;
SELECT * FROM dml_diff();
SELECT rowkey FROM dml_wc LIMIT 4;

-- COPY FROM
COPY dml_wc FROM STDIN (FORMAT csv);
europe#1#a,1,1.5,copied
europe#1#b,2,,
"europe#1#c,with comma",3,3.5,"quoted ""note"""
\.
COPY dml_native FROM STDIN (FORMAT csv);
europe#1#a,1,1.5,copied
europe#1#b,2,,
"europe#1#c,with comma",3,3.5,"quoted ""note"""
\.
SELECT * FROM dml_diff();
SELECT * FROM dml_wc WHERE rowkey LIKE 'europe%';

-- COPY TO reads through the scan
COPY (SELECT * FROM dml_wc WHERE rowkey LIKE 'us%') TO STDOUT (FORMAT csv);

-- UPDATE with expressions and RETURNING
UPDATE dml_wc SET pressure = pressure + 1, note = coalesce(note, '') || '!' WHERE rowkey LIKE 'us-%' RETURNING rowkey, pressure, note;
UPDATE dml_native SET pressure = pressure + 1, note = coalesce(note, '') || '!' WHERE rowkey LIKE 'us-%';
SELECT * FROM dml_diff();

-- UPDATE to NULL deletes the cell
UPDATE dml_wc SET temp = NULL WHERE rowkey = 'asia#001';
UPDATE dml_native SET temp = NULL WHERE rowkey = 'asia#001';
SELECT * FROM dml_wc WHERE rowkey = 'asia#001';
-- a row whose every cell is deleted no longer exists
UPDATE dml_wc SET pressure = NULL, note = NULL WHERE rowkey = 'asia#001';
SELECT count(*) FROM dml_wc WHERE rowkey = 'asia#001';
DELETE FROM dml_native WHERE rowkey = 'asia#001';
SELECT * FROM dml_diff();

-- UPDATE that changes nothing, and UPDATE of no rows
UPDATE dml_wc SET pressure = pressure WHERE rowkey = 'asia#002';
UPDATE dml_wc SET pressure = 0 WHERE rowkey = 'nonexistent';
SELECT * FROM dml_diff();

-- The row key cannot change.
UPDATE dml_wc SET rowkey = 'moved' WHERE rowkey = 'asia#002';
UPDATE dml_wc SET rowkey = rowkey WHERE rowkey = 'asia#002';

-- DELETE with a predicate, and RETURNING
DELETE FROM dml_wc WHERE pressure > 150 AND rowkey LIKE 'asia#%' RETURNING *;
DELETE FROM dml_native WHERE pressure > 150 AND rowkey LIKE 'asia#%';
SELECT * FROM dml_diff();

-- An INSERT of an existing key is an upsert: it writes its non-NULL columns
-- and leaves the other cells as they were.
INSERT INTO dml_wc VALUES ('asia#003', 7, NULL, 'upserted');
SELECT * FROM dml_wc WHERE rowkey = 'asia#003';
UPDATE dml_native SET pressure = 7, note = 'upserted' WHERE rowkey = 'asia#003';
-- DELETE then INSERT in one transaction replaces the row
BEGIN;
DELETE FROM dml_wc WHERE rowkey = 'asia#004';
INSERT INTO dml_wc VALUES ('asia#004', 4, NULL, NULL);
COMMIT;
SELECT * FROM dml_wc WHERE rowkey = 'asia#004';
UPDATE dml_native SET temp = NULL, note = NULL, pressure = 4 WHERE rowkey = 'asia#004';
SELECT * FROM dml_diff();

-- Joins and aggregates with native tables
SELECT count(*), sum(pressure), round(avg(temp)::numeric, 3) FROM dml_wc;
SELECT count(*), sum(pressure), round(avg(temp)::numeric, 3) FROM dml_native;
SELECT w.rowkey, n.pressure = w.pressure AS same
FROM dml_wc w JOIN dml_native n USING (rowkey) WHERE w.rowkey LIKE 'europe%' ORDER BY 1;

-- Prepared statements
PREPARE ins(text, bigint) AS INSERT INTO dml_wc (rowkey, pressure) VALUES ($1, $2);
EXECUTE ins('prep#1', 1);
EXECUTE ins('prep#2', 2);
PREPARE sel(text) AS SELECT rowkey, pressure FROM dml_wc WHERE rowkey = $1;
EXECUTE sel('prep#2');
DEALLOCATE ins;
DEALLOCATE sel;

-- ON CONFLICT: DO NOTHING without a target skips the keys that exist, as
-- the native twin's does; a conflict target has no index to be inferred
-- from, and DO UPDATE is what an INSERT already does: both are refused
-- with that advice, changing nothing.
INSERT INTO dml_native (rowkey, pressure) VALUES ('prep#1', 1), ('prep#2', 2);
INSERT INTO dml_wc VALUES ('asia#001', -1, NULL, 'not kept'), ('oc#1', 1, NULL, 'new') ON CONFLICT DO NOTHING;
INSERT INTO dml_native VALUES ('asia#001', -1, NULL, 'not kept'), ('oc#1', 1, NULL, 'new') ON CONFLICT DO NOTHING;
SELECT * FROM dml_diff();
INSERT INTO dml_wc VALUES ('oc#2', 2) ON CONFLICT (rowkey) DO UPDATE SET pressure = EXCLUDED.pressure;
INSERT INTO dml_wc VALUES ('oc#2', 2) ON CONFLICT (rowkey) DO NOTHING;
WITH w AS (INSERT INTO dml_wc VALUES ('oc#2', 2) ON CONFLICT (rowkey) DO UPDATE SET note = 'x' RETURNING *)
SELECT * FROM w;
SELECT count(*) FROM dml_wc WHERE rowkey = 'oc#2';
-- the advice holds: the plain INSERT upserts
INSERT INTO dml_wc (rowkey, pressure) VALUES ('oc#1', 11);
INSERT INTO dml_native (rowkey, pressure) VALUES ('oc#1', 11) ON CONFLICT (rowkey) DO UPDATE SET pressure = EXCLUDED.pressure;
SELECT * FROM dml_diff();

-- The empty row key: Bigtable refuses it, and so does every write here,
-- naming the table; nothing is written.  A key that holds only a space
-- is not empty.
INSERT INTO dml_wc VALUES ('', 1);
INSERT INTO dml_wc VALUES ('e#1', 1), ('', 2);
COPY dml_wc (rowkey, pressure) FROM STDIN (FORMAT csv);
e#2,2
"",3
\.
INSERT INTO dml_wc SELECT rowkey || '', pressure FROM (VALUES ('e#3', 3), ('', 4)) v(rowkey, pressure);
SELECT count(*) FROM dml_wc WHERE rowkey = '' OR rowkey LIKE 'e#%';
INSERT INTO dml_wc VALUES (' ', 5);
INSERT INTO dml_native VALUES (' ', 5);
SELECT * FROM dml_diff();

DROP FUNCTION dml_diff();
DROP TABLE dml_native;
DROP SERVER dml_srv CASCADE;
