-- make demo: a short tour in psql.
\set ECHO queries
CREATE EXTENSION widecolumn_fdw;

-- One LevelDB database per server; without options it lives in the data directory.
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;

-- The weather-balloon table from Bigtable's schema-design guide: the row
-- key is location#balloon#timestamp, the measurements are cells.
CREATE FOREIGN TABLE balloon (
    rowkey   text   OPTIONS (rowkey 'true') COLLATE "C",
    pressure bigint OPTIONS (column 'measurements:pressure'),
    temp     float8 OPTIONS (column 'measurements:temperature'),
    humidity float8 OPTIONS (column 'measurements:humidity')
) SERVER wc OPTIONS (table 'weather');

INSERT INTO balloon
SELECT format('%s#%s#2021-03-05-%s', loc, b, lpad(m::text, 4, '0')),
       94000 + (b * 37 + m) % 900, 5 + (m % 60) / 10.0, 60 + (b + m) % 30
FROM unnest(ARRAY['us-west2', 'us-east1', 'asia-south1']) loc,
     generate_series(3698, 3700) b, generate_series(1200, 1259) m;

SELECT count(*) FROM balloon;

-- A point read, a prefix scan and a range scan read only those rows.
SELECT * FROM balloon WHERE rowkey = 'us-west2#3698#2021-03-05-1204';
SELECT rowkey, pressure FROM balloon WHERE rowkey LIKE 'us-east1#3699#%' ORDER BY rowkey DESC LIMIT 3;
EXPLAIN (COSTS OFF) SELECT rowkey, pressure FROM balloon WHERE rowkey LIKE 'us-east1#3699#%' ORDER BY rowkey DESC LIMIT 3;
EXPLAIN (COSTS OFF) SELECT * FROM balloon
 WHERE rowkey BETWEEN 'us-west2#3698#2021-03-05-1210' AND 'us-west2#3698#2021-03-05-1219' AND temp > 6;

-- Writes are transactional.
BEGIN;
UPDATE balloon SET humidity = NULL WHERE rowkey LIKE 'asia-south1#3700#%';
DELETE FROM balloon WHERE rowkey LIKE 'us-east1#%';
SELECT count(*), count(humidity) FROM balloon;
ROLLBACK;
SELECT count(*), count(humidity) FROM balloon;

-- Column families and their garbage-collection policies, as cbt has them.
-- The first write created the family it wrote to, keeping one version;
-- now it keeps three, for a week.
SELECT * FROM widecolumn.families('wc');
SELECT widecolumn.set_gc_policy('wc', 'weather', 'measurements', 'maxage=7d or maxversions=3');
SELECT * FROM widecolumn.families('wc');

-- Every version of every cell: a cells-layout table over the same stored table.
UPDATE balloon SET pressure = pressure + 1 WHERE rowkey = 'us-west2#3698#2021-03-05-1204';
UPDATE balloon SET pressure = pressure + 1 WHERE rowkey = 'us-west2#3698#2021-03-05-1204';
CREATE FOREIGN TABLE balloon_cells (
    rowkey text COLLATE "C", family text COLLATE "C", qualifier text COLLATE "C",
    ts timestamptz, value bigint
) SERVER wc OPTIONS (table 'weather', layout 'cells');
SELECT qualifier, value FROM balloon_cells
 WHERE rowkey = 'us-west2#3698#2021-03-05-1204' AND qualifier = 'pressure';

-- A location leaves: its rows go at once, one entry however many they are
-- (Bigtable's DropRowRange), and scans no longer read them.
SELECT widecolumn.drop_row_range('balloon', 'asia-south1#');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM balloon;

-- A family as a map: qualifiers as data, one cell written per change.
CREATE FOREIGN TABLE friends (
    rowkey  text  OPTIONS (rowkey 'true') COLLATE "C",
    follows jsonb OPTIONS (family 'follows')
) SERVER wc;
INSERT INTO friends VALUES ('alice', '{"bob": "2021-03-05"}');
UPDATE friends SET follows = follows || '{"carol": "2021-03-06"}' WHERE rowkey = 'alice';
SELECT rowkey, follows, follows ? 'bob' AS follows_bob FROM friends;
