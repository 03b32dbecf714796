-- The schemas of Bigtable's schema-design pages (../shared/seeds/, seed
-- 001: time series), built from SQL and queried, each beside a native
-- table holding the same data: the oracle for what the queries return.
-- Three of the page's four patterns are here; the fourth, time buckets
-- with new cells (a week of versions, maxage=7d), is in cells.sql, and
-- the friends of the schema guide (qualifiers as data) in maps.sql.
-- The weather balloons report pressure, temperature, humidity and
-- altitude once a minute; location ids are Google Cloud regions.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER seeds_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');

-- The readings of the examples: balloons 3698 and 5827 in us-west2 and
-- 4711 in us-east1, ten minutes from 2021-03-05 12:00 UTC.
CREATE TABLE readings AS
SELECT loc, balloon, at,
       94500 + balloon % 100 + m * 7 AS pressure,
       (20 - m * 0.5)::double precision AS temperature,
       (60 + m)::double precision AS humidity,
       5000 + balloon % 10 * 100 + m * 30 AS altitude
  FROM (VALUES ('us-west2', 3698), ('us-west2', 5827), ('us-east1', 4711)) b(loc, balloon),
       generate_series(0, 9) m,
       LATERAL (SELECT timestamptz '2021-03-05 12:00:00+00' + m * interval '1 minute' AS at) t;

-- Single-timestamp rows, unserialized: a row per event, the time at the end
-- of the row key ("never use a timestamp as a row key prefix"), a column per
-- measurement in the family measurements.
CREATE FOREIGN TABLE balloon_events (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    pressure bigint OPTIONS (column 'measurements:pressure'),
    temperature double precision OPTIONS (column 'measurements:temperature'),
    humidity double precision OPTIONS (column 'measurements:humidity'),
    altitude bigint OPTIONS (column 'measurements:altitude')
) SERVER seeds_srv OPTIONS (table 'balloon_events');
CREATE TABLE balloon_events_native (rowkey text COLLATE "C" PRIMARY KEY, pressure bigint,
    temperature double precision, humidity double precision, altitude bigint);
INSERT INTO balloon_events
SELECT loc || '#' || balloon || '#' || to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD-HH24MI'),
       pressure, temperature, humidity, altitude
  FROM readings;
INSERT INTO balloon_events_native SELECT * FROM balloon_events;
-- the family was created by the first write, keeping one version
SELECT * FROM widecolumn.families('seeds_srv') WHERE table_name = 'balloon_events';
-- one balloon's minutes 12:03 to 12:05: a row-key range, pushed down
EXPLAIN (COSTS OFF)
SELECT * FROM balloon_events
 WHERE rowkey >= 'us-west2#3698#2021-03-05-1203' AND rowkey <= 'us-west2#3698#2021-03-05-1205';
SELECT * FROM balloon_events
 WHERE rowkey >= 'us-west2#3698#2021-03-05-1203' AND rowkey <= 'us-west2#3698#2021-03-05-1205'
EXCEPT
SELECT * FROM balloon_events_native
 WHERE rowkey >= 'us-west2#3698#2021-03-05-1203' AND rowkey <= 'us-west2#3698#2021-03-05-1205';
SELECT rowkey, pressure FROM balloon_events
 WHERE rowkey >= 'us-west2#3698#2021-03-05-1203' AND rowkey <= 'us-west2#3698#2021-03-05-1205'
 ORDER BY rowkey;
-- every balloon of a location, averaged: a prefix
SELECT split_part(rowkey, '#', 2) AS balloon, avg(pressure) AS pressure, max(altitude) AS altitude
  FROM balloon_events WHERE rowkey LIKE 'us-west2#%' GROUP BY 1
EXCEPT
SELECT split_part(rowkey, '#', 2), avg(pressure), max(altitude)
  FROM balloon_events_native WHERE rowkey LIKE 'us-west2#%' GROUP BY 1;
SELECT count(*) FROM balloon_events WHERE rowkey LIKE 'us-west2#%';
-- a correction rewrites one cell; the older version is not kept, so as of
-- a time before the correction the cell is not there at all
CREATE TEMP TABLE seeds_mark AS SELECT clock_timestamp() AS at FROM pg_sleep(0.002);
SELECT pg_sleep(0.002);
UPDATE balloon_events SET pressure = 1 WHERE rowkey = 'us-east1#4711#2021-03-05-1200';
SELECT set_config('widecolumn.as_of', (SELECT at FROM seeds_mark)::text, false) IS NOT NULL AS set;
SELECT * FROM balloon_events WHERE rowkey = 'us-east1#4711#2021-03-05-1200';
RESET widecolumn.as_of;
UPDATE balloon_events_native SET pressure = 1 WHERE rowkey = 'us-east1#4711#2021-03-05-1200';
SELECT count(*) AS differences FROM (
  (SELECT * FROM balloon_events EXCEPT SELECT * FROM balloon_events_native)
  UNION ALL
  (SELECT * FROM balloon_events_native EXCEPT SELECT * FROM balloon_events)) d;

-- Single-timestamp rows, serialized: the same rows, the whole event in one
-- cell (a jsonb value, where Bigtable's page uses a protocol buffer); a
-- query deserializes it.
CREATE FOREIGN TABLE balloon_blobs (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    data jsonb OPTIONS (column 'measurements:data')
) SERVER seeds_srv OPTIONS (table 'balloon_blobs');
CREATE TABLE balloon_blobs_native (rowkey text COLLATE "C" PRIMARY KEY, data jsonb);
INSERT INTO balloon_blobs
SELECT loc || '#' || balloon || '#' || to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD-HH24MI'),
       jsonb_build_object('pressure', pressure, 'temperature', temperature,
                          'humidity', humidity, 'altitude', altitude)
  FROM readings;
INSERT INTO balloon_blobs_native SELECT * FROM balloon_blobs;
SELECT count(*) AS differences FROM (
  (SELECT * FROM balloon_blobs EXCEPT SELECT * FROM balloon_blobs_native)
  UNION ALL
  (SELECT * FROM balloon_blobs_native EXCEPT SELECT * FROM balloon_blobs)) d;
SELECT rowkey, (data->>'pressure')::bigint AS pressure, (data->>'temperature')::float8 AS temperature
  FROM balloon_blobs WHERE rowkey LIKE 'us-east1#4711#2021-03-05-120%' AND (data->>'altitude')::int > 5150
 ORDER BY rowkey;
SELECT rowkey, (data->>'pressure')::bigint AS pressure, (data->>'temperature')::float8 AS temperature
  FROM balloon_blobs_native WHERE rowkey LIKE 'us-east1#4711#2021-03-05-120%' AND (data->>'altitude')::int > 5150
 ORDER BY rowkey;
-- the serialized event agrees with the unserialized one
SELECT count(*) AS disagreeing
  FROM balloon_blobs b JOIN balloon_events_native e USING (rowkey)
 WHERE (b.data->>'altitude')::bigint <> e.altitude
    OR ((b.data->>'pressure')::bigint <> e.pressure AND e.rowkey <> 'us-east1#4711#2021-03-05-1200');

-- Time buckets, new columns for new events: a row per balloon, metric and
-- week; each minute's reading is a new column whose qualifier is the data
-- (the pressure in Pa) and whose timestamp is the minute; the value is
-- empty.  Written and read through a cells table (which has the
-- timestamps) and read through a map column, over the same stored table.
SELECT widecolumn.create_family('seeds_srv', 'balloon_weeks', 'data', 'never');
CREATE FOREIGN TABLE balloon_week_cells (
    rowkey text COLLATE "C", family text COLLATE "C", qualifier text COLLATE "C",
    ts timestamptz, value text
) SERVER seeds_srv OPTIONS (table 'balloon_weeks', layout 'cells');
CREATE FOREIGN TABLE balloon_weeks (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    data jsonb OPTIONS (family 'data')
) SERVER seeds_srv OPTIONS (table 'balloon_weeks');
CREATE TABLE balloon_weeks_native (rowkey text COLLATE "C", pressure text, at timestamptz,
    PRIMARY KEY (rowkey, pressure));
INSERT INTO balloon_week_cells
SELECT loc || '#' || balloon || '#pressure#week9', 'data', pressure::text, at, ''
  FROM readings;
INSERT INTO balloon_weeks_native
SELECT loc || '#' || balloon || '#pressure#week9', pressure::text, at FROM readings;
-- the week's readings of one balloon, with their minutes
SELECT count(*) AS differences FROM (
  (SELECT rowkey, qualifier, ts FROM balloon_week_cells
   EXCEPT SELECT * FROM balloon_weeks_native)
  UNION ALL
  (SELECT * FROM balloon_weeks_native
   EXCEPT SELECT rowkey, qualifier, ts FROM balloon_week_cells)) d;
SELECT qualifier AS pressure, ts AT TIME ZONE 'UTC' AS minute FROM balloon_week_cells
 WHERE rowkey = 'us-west2#3698#pressure#week9' AND ts >= '2021-03-05 12:07:00+00'
 ORDER BY rowkey, family, qualifier, ts DESC;
-- the same row as a map: the readings are its keys
SELECT rowkey, (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(data) k) AS pressures
  FROM balloon_weeks WHERE rowkey = 'us-east1#4711#pressure#week9';
SELECT rowkey, array_agg(pressure ORDER BY pressure) AS pressures
  FROM balloon_weeks_native WHERE rowkey = 'us-east1#4711#pressure#week9' GROUP BY rowkey;
-- a reading added through the map is a new column of the row, at the
-- commit's time
UPDATE balloon_weeks SET data = data || '{"94999": ""}' WHERE rowkey = 'us-east1#4711#pressure#week9';
SELECT qualifier, ts > '2021-03-06' AS now FROM balloon_week_cells
 WHERE rowkey = 'us-east1#4711#pressure#week9' AND qualifier >= '9458';

DROP FOREIGN TABLE balloon_events, balloon_blobs, balloon_week_cells, balloon_weeks;
DROP TABLE balloon_events_native, balloon_blobs_native, balloon_weeks_native, readings;
DROP SERVER seeds_srv;
