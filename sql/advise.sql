-- The schema advisor, widecolumn.advise: each finding from a bad schema of
-- its own, which shows that finding and no other, and none for a
-- well-designed table (seed 001's weather balloons).  Each table is small
-- enough for the advisor's sample to read it whole, so the evidence is
-- exact; sizes are of values as written, not as LevelDB stores them.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
\set SHOW_CONTEXT never
CREATE SERVER adv_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');

-- ---------------------------------------------------------------------
-- Well designed: location#balloon#time, the time last, padded ids, a
-- family that keeps one version, a key in collation "C".  Written a minute
-- at a time, as the balloons report, in ten transactions.
SELECT widecolumn.create_family('adv_srv', 'weather', 'measurements', 'maxversions=1');
CREATE FOREIGN TABLE balloon (
    rowkey   text   OPTIONS (rowkey 'true') COLLATE "C",
    pressure bigint OPTIONS (column 'measurements:pressure'),
    temp     float8 OPTIONS (column 'measurements:temperature')
) SERVER adv_srv OPTIONS (table 'weather');
-- an empty table: nothing to say
SELECT * FROM widecolumn.advise('balloon');
\set ECHO none
SELECT format($$INSERT INTO balloon
  SELECT loc || '#' || id || '#' || to_char(timestamp '2021-03-05 12:00' + %s * interval '1 minute',
                                           '"t"YYYY-MM-DD-HH24MI'),
         94500 + %s, 9.5
    FROM unnest(array['asia-southeast1', 'us-west2']) loc, unnest(array['3698', '5012']) id$$, m, m)
  FROM generate_series(1, 10) m \gexec
\set ECHO all
SELECT count(*) FROM balloon;
SELECT * FROM widecolumn.advise('balloon');

\x on
-- ---------------------------------------------------------------------
-- timestamp_key: the time first (seed 001's bad example), in both of the
-- seeds' forms: 't2021-03-05-1204' and microseconds since 1970.
CREATE FOREIGN TABLE ts_first (rowkey text OPTIONS (rowkey 'true') COLLATE "C", v int)
  SERVER adv_srv OPTIONS (table 'ts_first');
INSERT INTO ts_first
  SELECT to_char(timestamp '2021-03-05 12:00' + m * interval '1 minute', '"t"YYYY-MM-DD-HH24MI')
         || '#' || id, m
    FROM generate_series(1, 10) m, unnest(array['3698', '5012']) id;
SELECT * FROM widecolumn.advise('ts_first');
CREATE FOREIGN TABLE us_first (rowkey text OPTIONS (rowkey 'true') COLLATE "C", v int)
  SERVER adv_srv OPTIONS (table 'us_first');
INSERT INTO us_first SELECT (1616264288050807 + m * 60000000) || '#3698', m FROM generate_series(1, 10) m;
SELECT severity, finding, evidence FROM widecolumn.advise('us_first');

-- ---------------------------------------------------------------------
-- sequential_key: ids handed out in order, each new one written later
-- (twelve transactions); padded, so that only the order of writes shows
CREATE FOREIGN TABLE users (rowkey text OPTIONS (rowkey 'true') COLLATE "C", name text)
  SERVER adv_srv OPTIONS (table 'users');
\set ECHO none
SELECT format($$INSERT INTO users SELECT 'user' || lpad(i::text, 6, '0'), 'u' || i
                 FROM generate_series(%s, %s) i$$, b * 4 + 1, b * 4 + 4)
  FROM generate_series(0, 11) b \gexec
\set ECHO all
SELECT * FROM widecolumn.advise('users');
-- the same ids written in one transaction show no order of writes: no finding
CREATE FOREIGN TABLE users_once (rowkey text OPTIONS (rowkey 'true') COLLATE "C", name text)
  SERVER adv_srv OPTIONS (table 'users_once');
INSERT INTO users_once SELECT 'user' || lpad(i::text, 6, '0'), 'u' || i FROM generate_series(1, 48) i;
SELECT count(*) FROM widecolumn.advise('users_once');
-- reversed ids (seed 000's remedy) written in the same order: no finding
CREATE FOREIGN TABLE users_rev (rowkey text OPTIONS (rowkey 'true') COLLATE "C", name text)
  SERVER adv_srv OPTIONS (table 'users_rev');
\set ECHO none
SELECT format($$INSERT INTO users_rev SELECT reverse(lpad(i::text, 6, '0')), 'u' || i
                 FROM generate_series(%s, %s) i$$, b * 4 + 1, b * 4 + 4)
  FROM generate_series(0, 11) b \gexec
\set ECHO all
SELECT count(*) FROM widecolumn.advise('users_rev');

-- ---------------------------------------------------------------------
-- hashed_key: the key is an md5 of the natural one
CREATE FOREIGN TABLE hashed (rowkey text OPTIONS (rowkey 'true') COLLATE "C", v int)
  SERVER adv_srv OPTIONS (table 'hashed');
INSERT INTO hashed SELECT md5('device' || i), i FROM generate_series(1, 20) i;
SELECT * FROM widecolumn.advise('hashed');

-- ---------------------------------------------------------------------
-- domain_not_reversed: seed 000's domains as they are written, then
-- reversed (no finding)
CREATE FOREIGN TABLE sites (rowkey text OPTIONS (rowkey 'true') COLLATE "C", hits int)
  SERVER adv_srv OPTIONS (table 'sites');
INSERT INTO sites SELECT host || '/' || page, 1
  FROM unnest(array['drive.google.com', 'maps.google.com', 'en.wikipedia.org',
                    'www.bbc.co.uk']) host,
       unnest(array['index', 'about', 'news']) page;
SELECT * FROM widecolumn.advise('sites');
CREATE FOREIGN TABLE sites_rev (rowkey text OPTIONS (rowkey 'true') COLLATE "C", hits int)
  SERVER adv_srv OPTIONS (table 'sites_rev');
INSERT INTO sites_rev SELECT host || '/' || page, 1
  FROM unnest(array['com.google.drive', 'com.google.maps', 'org.wikipedia.en',
                    'uk.co.bbc.www']) host,
       unnest(array['index', 'about', 'news']) page;
SELECT count(*) FROM widecolumn.advise('sites_rev');

-- ---------------------------------------------------------------------
-- unpadded_number: item#9 sorts after item#10 (one transaction: no order
-- of writes to see)
CREATE FOREIGN TABLE items (rowkey text OPTIONS (rowkey 'true') COLLATE "C", v int)
  SERVER adv_srv OPTIONS (table 'items');
INSERT INTO items SELECT 'item#' || i, i FROM generate_series(1, 30) i;
SELECT * FROM widecolumn.advise('items');

-- ---------------------------------------------------------------------
-- large_cell: a cell over 10 MB (a warning)
CREATE FOREIGN TABLE docs (rowkey text OPTIONS (rowkey 'true') COLLATE "C", body text)
  SERVER adv_srv OPTIONS (table 'docs');
INSERT INTO docs VALUES ('doc#0001', repeat('x', 11 * 1024 * 1024)), ('doc#0002', 'short');
SELECT * FROM widecolumn.advise('docs');

-- ---------------------------------------------------------------------
-- large_row: a row of 55 cells of 1 MB, near the 100 MB limit (a notice)
CREATE FOREIGN TABLE wide_cells (rowkey text COLLATE "C", family text, qualifier text,
  ts timestamptz, value bytea) SERVER adv_srv OPTIONS (table 'bigrow', layout 'cells');
INSERT INTO wide_cells (rowkey, family, qualifier, value)
  SELECT 'doc#0001', 'pages', 'p' || lpad(i::text, 3, '0'), convert_to(repeat('x', 1024 * 1024), 'UTF8')
    FROM generate_series(1, 55) i;
SELECT * FROM widecolumn.advise('wide_cells');

-- ---------------------------------------------------------------------
-- many_families: 101 families
CREATE FOREIGN TABLE fams (rowkey text OPTIONS (rowkey 'true') COLLATE "C", v int OPTIONS (column 'f001:v'))
  SERVER adv_srv OPTIONS (table 'fams');
SELECT count(widecolumn.create_family('adv_srv', 'fams', 'f' || lpad(i::text, 3, '0')))
  FROM generate_series(1, 101) i;
SELECT * FROM widecolumn.advise('fams');

-- ---------------------------------------------------------------------
-- many_columns: a row of 20,001 columns
CREATE FOREIGN TABLE cols_cells (rowkey text COLLATE "C", family text, qualifier text,
  ts timestamptz, value bytea) SERVER adv_srv OPTIONS (table 'manycols', layout 'cells');
INSERT INTO cols_cells (rowkey, family, qualifier, value)
  SELECT 'device#0001', 'm', 'c' || lpad(i::text, 5, '0'), '\x01'
    FROM generate_series(1, 20001) i;
SELECT * FROM widecolumn.advise('cols_cells');

-- ---------------------------------------------------------------------
-- growing_never_family: a counter updated in place, twelve times, in a
-- family that keeps every version
SELECT widecolumn.create_family('adv_srv', 'counters', 'h', 'never');
CREATE FOREIGN TABLE counters (rowkey text OPTIONS (rowkey 'true') COLLATE "C",
  v int OPTIONS (column 'h:memusage')) SERVER adv_srv OPTIONS (table 'counters');
INSERT INTO counters VALUES ('4c410523', 0);
\set ECHO none
SELECT format('UPDATE counters SET v = %s', i) FROM generate_series(1, 11) i \gexec
\set ECHO all
SELECT * FROM widecolumn.advise('counters');

-- ---------------------------------------------------------------------
-- rowkey_collation: a foreign table over the stored table whose text row
-- key is not in "C" (CREATE says so too); the advisor names it whichever
-- foreign table over the stored table it is asked about, and not the one
-- in "C"
CREATE FOREIGN TABLE coll_c (rowkey text OPTIONS (rowkey 'true') COLLATE "C", v int)
  SERVER adv_srv OPTIONS (table 'coll');
CREATE FOREIGN TABLE coll_icu (rowkey text OPTIONS (rowkey 'true') COLLATE "und-x-icu", v int)
  SERVER adv_srv OPTIONS (table 'coll');
INSERT INTO coll_c VALUES ('us-west2#3698', 1);
SELECT * FROM widecolumn.advise('coll_c');
SELECT finding FROM widecolumn.advise('coll_icu');
-- ---------------------------------------------------------------------
-- timestamp_key, with the heat map's evidence: time-first keys written in
-- ten transactions, the keys growing, so the heat map's ranges split
-- toward the end of the key order, where the writes go.  The figures
-- depend on how the worker split its ranges: checked, not shown.
CREATE FOREIGN TABLE ts_hot (rowkey text OPTIONS (rowkey 'true') COLLATE "C", v int)
  SERVER adv_srv OPTIONS (table 'ts_hot');
\set ECHO none
SELECT format($$INSERT INTO ts_hot
  SELECT to_char(timestamp '2021-03-05 12:00' + m * interval '1 minute', '"t"YYYY-MM-DD-HH24MI')
         || '#' || id, m
    FROM generate_series(%s, %s) m, unnest(array['3698', '5012']) id$$, b * 50 + 1, b * 50 + 50)
  FROM generate_series(0, 9) b \gexec
\set ECHO all
SELECT severity, finding, m[1]::int >= 80 AS most_writes, m[2] AS writes,
       m[3]::int < m[4]::int AS fewer_ranges, m[5] LIKE 't2021-03-05-%' AS from_key
  FROM widecolumn.advise('ts_hot'),
       regexp_match(evidence, 'In the heat map of the last hour, (\d+)% of the (\d+) writes went to the last (\d+) of its (\d+) key ranges with writes, from ''([^'']*)'' on') m;

-- ---------------------------------------------------------------------
-- scans_exceed_reads: queries that filter on columns that are not the key
-- keep a few of the rows the scans fetch (the executor filters them)
CREATE FOREIGN TABLE readings (rowkey text OPTIONS (rowkey 'true') COLLATE "C",
  sensor text, v int) SERVER adv_srv OPTIONS (table 'readings');
INSERT INTO readings SELECT 'r' || lpad(i::text, 5, '0'), 's' || (i % 100), i
  FROM generate_series(1, 600) i;
SELECT widecolumn.stat_reset();
SELECT rowkey, v FROM readings WHERE sensor = 's7' ORDER BY rowkey;
SELECT rowkey FROM readings WHERE v = 42;
EXPLAIN (COSTS OFF) SELECT rowkey FROM readings WHERE v = 42;
-- (the entries walked include what the advisor's own sample read ahead:
-- at least the scans' two walks over 600 rows of 2 cells)
SELECT severity, finding,
       regexp_replace(regexp_replace(evidence, 'since [^(]*\(', 'since <time> ('),
                      '; \d+ LevelDB', '; L LevelDB') AS evidence,
       (regexp_match(evidence, '(\d+) LevelDB entries'))[1]::int >= 2400 AS entries_walked, advice
  FROM widecolumn.advise('readings');
-- ... and after stat_reset, nothing counted
SELECT widecolumn.stat_reset();
SELECT count(*) FROM widecolumn.advise('readings');
-- the balloons read by key: every row fetched is returned, no finding
DO $$
BEGIN
  FOR i IN 1..60 LOOP
    PERFORM * FROM balloon WHERE rowkey LIKE 'us-west2#%';
  END LOOP;
END $$;
SELECT count(*) FROM widecolumn.advise('balloon');
\x off

-- ---------------------------------------------------------------------
-- A table of a few hundred rows whose last row holds a large cell, most of
-- its bytes: its sample has no split point but its end, and its one probe
-- reads the whole table (128 rows would miss the cell).
CREATE FOREIGN TABLE adv_fresh (rowkey text COLLATE "C", v text) SERVER adv_srv
  OPTIONS (table 'adv_fresh');
INSERT INTO adv_fresh SELECT 'item#' || lpad(i::text, 4, '0'), 'v' || i FROM generate_series(1, 399) i;
INSERT INTO adv_fresh VALUES ('item#0400', repeat('x', 6 * 1024 * 1024));
SELECT count(*) AS samples FROM widecolumn.sample_row_keys('adv_fresh');
SELECT severity, finding, evidence FROM widecolumn.advise('adv_fresh');

-- ---------------------------------------------------------------------
-- Bad input: nothing is read
SELECT * FROM widecolumn.advise(NULL);
CREATE TABLE adv_native (k text);
SELECT * FROM widecolumn.advise('adv_native');
SELECT * FROM widecolumn.advise('no_such_table');
SELECT * FROM widecolumn.advise(0);
-- SELECT on the foreign table is needed
CREATE ROLE adv_user;
SET ROLE adv_user;
SELECT * FROM widecolumn.advise('balloon');
RESET ROLE;
GRANT SELECT ON balloon TO adv_user;
SET ROLE adv_user;
SELECT count(*) FROM widecolumn.advise('balloon');
RESET ROLE;

DROP TABLE adv_native;
DROP OWNED BY adv_user;
DROP ROLE adv_user;
DROP SERVER adv_srv CASCADE;
