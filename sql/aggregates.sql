-- Aggregate families (Bigtable's intsum, intmin, intmax): an INSERT into a
-- column of such a family merges its value into the cell; UPDATE sets it,
-- DELETE removes it; the sweep and compact() fold the merges into one
-- entry.  A native table updated the same way is the oracle.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
-- The background sweep off, so that the merges stay until compact folds
-- them.  (The worker sweeps a new database only a naptime after it first
-- sees it.)
ALTER SYSTEM SET widecolumn_fdw.sweep_naptime = 0;
SELECT pg_reload_conf();
CREATE SERVER agg_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');

-- seed 003's video: likes and views are sum counters; the lowest and
-- highest rating of a video are min and max cells
SELECT widecolumn.create_family('agg_srv', 'video', 'stats', 'maxversions=1', aggregate => 'sum');
SELECT widecolumn.create_family('agg_srv', 'video', 'low', aggregate => 'min');
SELECT widecolumn.create_family('agg_srv', 'video', 'high', 'maxversions=3', 'max');
SELECT widecolumn.create_family('agg_srv', 'video', 'info');
-- families() lists the policies; the aggregate is kept beside them
SELECT * FROM widecolumn.families('agg_srv');

CREATE FOREIGN TABLE video (
    rowkey  text,
    title   text     OPTIONS (column 'info:title'),
    likes   bigint   OPTIONS (column 'stats:likes'),
    views   integer  OPTIONS (column 'stats:views'),
    lowest  smallint OPTIONS (column 'low:rating'),
    highest bigint   OPTIONS (column 'high:rating')
) SERVER agg_srv;
CREATE TABLE video_native (
    rowkey text PRIMARY KEY, title text, likes bigint, views integer,
    lowest smallint, highest bigint);

-- what an INSERT into the foreign table does, on the native table
CREATE FUNCTION native_merge(k text, t text, l bigint, v integer, lo smallint, hi bigint)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO video_native AS n VALUES (k, t, l, v, lo, hi)
  ON CONFLICT (rowkey) DO UPDATE SET
    title = coalesce(excluded.title, n.title),
    likes = CASE WHEN excluded.likes IS NULL THEN n.likes ELSE coalesce(n.likes, 0) + excluded.likes END,
    views = CASE WHEN excluded.views IS NULL THEN n.views ELSE coalesce(n.views, 0) + excluded.views END,
    lowest = CASE WHEN excluded.lowest IS NULL THEN n.lowest ELSE least(n.lowest, excluded.lowest) END,
    highest = CASE WHEN excluded.highest IS NULL THEN n.highest ELSE greatest(n.highest, excluded.highest) END
$$;
CREATE FUNCTION differs() RETURNS TABLE (side text, rowkey text, title text, likes bigint,
    views integer, lowest smallint, highest bigint) LANGUAGE sql AS $$
  (SELECT 'foreign only', * FROM video EXCEPT SELECT 'foreign only', * FROM video_native)
  UNION ALL
  (SELECT 'native only', * FROM video_native EXCEPT SELECT 'native only', * FROM video)
$$;
-- how many stored entries a read of a row passes over
CREATE FUNCTION entries(key text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM video WHERE rowkey = %L', key) LOOP
    IF l ~ 'Storage Entries Read' THEN
      RETURN substring(l from '\d+$')::bigint;
    END IF;
  END LOOP;
  RETURN 0;
END
$$;

-- the first INSERT creates the cells; later ones merge into them
INSERT INTO video VALUES ('v1', 'Cats', 1, 10, 4, 4), ('v2', 'Dogs', NULL, 5, NULL, 2);
SELECT native_merge('v1', 'Cats', 1, 10, 4::smallint, 4);
SELECT native_merge('v2', 'Dogs', NULL, 5, NULL, 2);
INSERT INTO video (rowkey, likes, views, lowest, highest) VALUES ('v1', 1, 100, 2, 3);
SELECT native_merge('v1', NULL, 1, 100, 2::smallint, 3);
INSERT INTO video (rowkey, likes, views, lowest, highest) VALUES ('v1', -3, 1, 5, 9);
SELECT native_merge('v1', NULL, -3, 1, 5::smallint, 9);
-- a plain column is overwritten as ever
INSERT INTO video (rowkey, title, likes) VALUES ('v2', 'Dogs!', 7);
SELECT native_merge('v2', 'Dogs!', 7, NULL, NULL, NULL);
SELECT * FROM video ORDER BY rowkey;
SELECT * FROM differs();
-- one statement inserting a row twice merges both
INSERT INTO video (rowkey, likes) VALUES ('v3', 2), ('v3', 3);
SELECT native_merge('v3', NULL, 2, NULL, NULL, NULL);
SELECT native_merge('v3', NULL, 3, NULL, NULL, NULL);
SELECT * FROM differs();

-- the transaction reads its own merges, on top of what is stored
BEGIN;
INSERT INTO video (rowkey, likes, lowest, highest) VALUES ('v1', 10, 1, 1);
SELECT native_merge('v1', NULL, 10, NULL, 1::smallint, 1);
SELECT rowkey, likes, views, lowest, highest FROM video WHERE rowkey = 'v1';
INSERT INTO video (rowkey, likes) VALUES ('v1', 10), ('v4', 1);
SELECT native_merge('v1', NULL, 10, NULL, NULL, NULL);
SELECT native_merge('v4', NULL, 1, NULL, NULL, NULL);
SELECT rowkey, likes FROM video ORDER BY rowkey;
SELECT * FROM differs();
COMMIT;
SELECT * FROM differs();
-- ... and forgets them with a rollback, of a savepoint too
BEGIN;
INSERT INTO video (rowkey, likes) VALUES ('v1', 1000);
SAVEPOINT s;
INSERT INTO video (rowkey, likes) VALUES ('v1', 1000000);
SELECT likes FROM video WHERE rowkey = 'v1';
ROLLBACK TO s;
SELECT likes FROM video WHERE rowkey = 'v1';
ROLLBACK;
SELECT * FROM differs();

-- UPDATE sets the value, and later merges add to it
UPDATE video SET likes = 100, lowest = 50 WHERE rowkey = 'v1';
UPDATE video_native SET likes = 100, lowest = 50 WHERE rowkey = 'v1';
INSERT INTO video (rowkey, likes, lowest) VALUES ('v1', 1, 60);
SELECT native_merge('v1', NULL, 1, NULL, 60::smallint, NULL);
SELECT * FROM differs();
-- in one transaction: a set, then merges on it
BEGIN;
UPDATE video SET likes = likes * 2 WHERE rowkey = 'v2';
UPDATE video_native SET likes = likes * 2 WHERE rowkey = 'v2';
INSERT INTO video (rowkey, likes) VALUES ('v2', 1);
SELECT native_merge('v2', NULL, 1, NULL, NULL, NULL);
SELECT rowkey, likes FROM video WHERE rowkey = 'v2';
COMMIT;
SELECT * FROM differs();
-- a column set to NULL: the next merge starts afresh
UPDATE video SET views = NULL WHERE rowkey = 'v1';
UPDATE video_native SET views = NULL WHERE rowkey = 'v1';
INSERT INTO video (rowkey, views) VALUES ('v1', 7);
SELECT native_merge('v1', NULL, NULL, 7, NULL, NULL);
SELECT * FROM differs();
-- DELETE removes the row; merges after it start from nothing, in the same
-- transaction as well
DELETE FROM video WHERE rowkey = 'v3';
DELETE FROM video_native WHERE rowkey = 'v3';
INSERT INTO video (rowkey, likes) VALUES ('v3', 4);
SELECT native_merge('v3', NULL, 4, NULL, NULL, NULL);
BEGIN;
DELETE FROM video WHERE rowkey = 'v4';
DELETE FROM video_native WHERE rowkey = 'v4';
INSERT INTO video (rowkey, likes) VALUES ('v4', 5);
SELECT native_merge('v4', NULL, 5, NULL, NULL, NULL);
INSERT INTO video (rowkey, likes) VALUES ('v4', 6);
SELECT native_merge('v4', NULL, 6, NULL, NULL, NULL);
COMMIT;
SELECT * FROM video ORDER BY rowkey;
SELECT * FROM differs();

-- A cell merged many times, by as many transactions: every merge is an
-- entry until compact() folds them into one, which reads the same.  (The
-- merges of one transaction are one entry already.)
DO $$ BEGIN FOR i IN 1..200 LOOP INSERT INTO video (rowkey, views) VALUES ('v5', 1); COMMIT; END LOOP; END $$;
DO $$ BEGIN FOR i IN 1..50 LOOP INSERT INTO video (rowkey, views, highest) VALUES ('v5', i, i); COMMIT; END LOOP; END $$;
SELECT native_merge('v5', NULL, NULL, 200 + 1275, NULL, 50);
SELECT * FROM differs();
SELECT entries('v5') AS entries_before;
SELECT widecolumn.compact('agg_srv', 'video') > 0 AS folded;
SELECT entries('v5') AS entries_after;
SELECT * FROM differs();
-- merges after the fold add to the folded value
INSERT INTO video (rowkey, views) VALUES ('v5', 25);
SELECT native_merge('v5', NULL, NULL, 25, NULL, NULL);
SELECT * FROM differs();

-- a new policy keeps the aggregate (written in any case, as a policy is)
SELECT widecolumn.create_family('agg_srv', 'video', 'stats2', aggregate => 'SUM');
SELECT widecolumn.drop_family('agg_srv', 'video', 'stats2');
SELECT widecolumn.set_gc_policy('agg_srv', 'video', 'stats', 'maxversions=2');
SELECT * FROM widecolumn.families('agg_srv') WHERE family = 'stats';
INSERT INTO video (rowkey, likes) VALUES ('v5', 3), ('v5', 4);
SELECT native_merge('v5', NULL, 7, NULL, NULL, NULL);
SELECT * FROM differs();

-- a sum wraps around as a 64-bit integer, as Bigtable's intsum does; a
-- value out of an integer column's range is an error when read
INSERT INTO video (rowkey, likes) VALUES ('big', 9223372036854775807), ('big', 2);
SELECT likes FROM video WHERE rowkey = 'big';
INSERT INTO video (rowkey, views) VALUES ('big', 2147483647), ('big', 1);
SELECT views FROM video WHERE rowkey = 'big';
DELETE FROM video WHERE rowkey = 'big';

-- Read through a cells-layout table: a run of merges is one version, their
-- fold, as an 8-byte integer
CREATE FOREIGN TABLE video_cells (rowkey text, family text, qualifier text, ts timestamptz,
  value bytea) SERVER agg_srv OPTIONS (layout 'cells', table 'video');
SELECT rowkey, family, qualifier, value FROM video_cells
 WHERE rowkey = 'v1' AND family IN ('stats', 'low') ORDER BY 1, 2, 3, ts DESC;
-- merges not folded yet: the newest run is one version (the fold onto the
-- UPDATE's 100), then the UPDATE's value; the older run is past
-- maxversions=2
DO $$ BEGIN FOR i IN 1..3 LOOP INSERT INTO video (rowkey, likes) VALUES ('v6', i); COMMIT; END LOOP; END $$;
UPDATE video SET likes = 100 WHERE rowkey = 'v6';
DO $$ BEGIN FOR i IN 1..2 LOOP INSERT INTO video (rowkey, likes) VALUES ('v6', 1); COMMIT; END LOOP; END $$;
SELECT native_merge('v6', NULL, 102, NULL, NULL, NULL);
SELECT rowkey, family, qualifier, value FROM video_cells WHERE rowkey = 'v6' ORDER BY ts DESC;
SELECT * FROM differs();
-- its own uncommitted merges it cannot read: an error
BEGIN;
INSERT INTO video (rowkey, likes) VALUES ('v1', 1);
SELECT count(*) FROM video_cells;
ROLLBACK;

-- Bad input: each an error that changes nothing
SELECT widecolumn.create_family('agg_srv', 'video', 'avg', aggregate => 'avg');
SELECT widecolumn.create_family('agg_srv', 'video', 'sum2', aggregate => 'sum ');
SELECT widecolumn.create_family('agg_srv', 'video', 'sum3', aggregate => '');
SELECT widecolumn.create_family('agg_srv', 'video', 'stats', aggregate => 'sum');
SELECT count(*) AS families FROM widecolumn.families('agg_srv') WHERE table_name = 'video';
-- a column of an aggregate family must be an integer one, and not a map
CREATE FOREIGN TABLE video_text (rowkey text, likes text OPTIONS (column 'stats:likes'))
  SERVER agg_srv OPTIONS (table 'video');
SELECT * FROM video_text;
INSERT INTO video_text VALUES ('v1', '1');
CREATE FOREIGN TABLE video_num (rowkey text, likes numeric OPTIONS (column 'stats:likes'))
  SERVER agg_srv OPTIONS (table 'video');
SELECT * FROM video_num;
CREATE FOREIGN TABLE video_map (rowkey text, stats jsonb OPTIONS (family 'stats'))
  SERVER agg_srv OPTIONS (table 'video');
SELECT * FROM video_map;
-- a family made an aggregate one after the table was used: checked again
CREATE FOREIGN TABLE later (rowkey text, n text OPTIONS (column 'c:n')) SERVER agg_srv;
INSERT INTO later VALUES ('a', 'x');
SELECT widecolumn.drop_family('agg_srv', 'later', 'c');
SELECT widecolumn.create_family('agg_srv', 'later', 'c', aggregate => 'sum');
SELECT * FROM later;
-- in the transaction that creates it, too
BEGIN;
SELECT widecolumn.create_family('agg_srv', 'later', 'd', aggregate => 'max');
CREATE FOREIGN TABLE later_d (rowkey text, n int OPTIONS (column 'd:n')) SERVER agg_srv
  OPTIONS (table 'later');
INSERT INTO later_d VALUES ('a', 5), ('a', 3);
SELECT * FROM later_d;
ROLLBACK;
SELECT * FROM differs();

DROP FUNCTION differs(), native_merge(text, text, bigint, integer, smallint, bigint), entries(text);
DROP TABLE video_native;
DROP FOREIGN TABLE video, video_cells, video_text, video_num, video_map, later;
DROP SERVER agg_srv;
ALTER SYSTEM RESET widecolumn_fdw.sweep_naptime;
SELECT pg_reload_conf();
