-- Map columns: a jsonb column with the column option family 'name' holds
-- the whole family of each row, qualifier to newest value.  Writing it
-- writes only the cells that change.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER maps_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
-- every version kept, so that the versions a write adds can be counted
SELECT widecolumn.create_family('maps_srv', 'users', 'follows', 'never');
SELECT widecolumn.create_family('maps_srv', 'users', 'cf', 'never');

-- Option errors
CREATE FOREIGN TABLE maps_bad (rowkey text, m jsonb OPTIONS (family 'f', column 'f:q'))
  SERVER maps_srv;
CREATE FOREIGN TABLE maps_bad (rowkey text, m jsonb OPTIONS (map_values 'bigint'))
  SERVER maps_srv;
CREATE FOREIGN TABLE maps_bad (rowkey text, m jsonb OPTIONS (family 'f', map_values 'int'))
  SERVER maps_srv;
CREATE FOREIGN TABLE maps_bad (rowkey text, m jsonb OPTIONS (family 'no:colon'))
  SERVER maps_srv;
CREATE FOREIGN TABLE maps_bad (rowkey text, m jsonb OPTIONS (family 'f', rowkey 'true'))
  SERVER maps_srv;
CREATE FOREIGN TABLE maps_bad (rowkey text, m jsonb OPTIONS (family 'f', rowkey_part '1'))
  SERVER maps_srv;
-- the type is known only to the table: checked when it is first used
CREATE FOREIGN TABLE maps_bad (rowkey text, m text OPTIONS (family 'f')) SERVER maps_srv;
SELECT * FROM maps_bad;
DROP FOREIGN TABLE maps_bad;
CREATE FOREIGN TABLE maps_bad (rowkey text, m jsonb OPTIONS (family 'f')) SERVER maps_srv;
ALTER FOREIGN TABLE maps_bad ALTER COLUMN m OPTIONS (ADD column 'f:q');
ALTER FOREIGN TABLE maps_bad ALTER COLUMN m OPTIONS (DROP family);
DROP FOREIGN TABLE maps_bad;

-- users: a name, and a map of whom they follow (qualifier: the one followed,
-- value: since when, as text)
CREATE FOREIGN TABLE users (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    name text,
    follows jsonb OPTIONS (family 'follows')
) SERVER maps_srv;
-- the same stored table, the family's cells as ordinary columns
CREATE FOREIGN TABLE users_cells (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    bob text OPTIONS (column 'follows:bob'),
    carol text OPTIONS (column 'follows:carol'),
    dave text OPTIONS (column 'follows:dave')
) SERVER maps_srv OPTIONS (table 'users');
-- the oracle
CREATE TABLE users_native (rowkey text COLLATE "C" PRIMARY KEY, name text, follows jsonb);
CREATE FUNCTION users_diff() RETURNS TABLE (side text, rowkey text, name text, follows jsonb)
LANGUAGE sql AS $$
  (SELECT 'only foreign', * FROM users EXCEPT ALL SELECT 'only foreign', * FROM users_native)
  UNION ALL
  (SELECT 'only native', * FROM users_native EXCEPT ALL SELECT 'only native', * FROM users)
$$;
-- the LevelDB entries a point read of a user's row passes over: with the
-- policy "never", every version of its cells (fewer than eight each, which
-- the reader steps over rather than seeking)
CREATE FUNCTION entries(key text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM users WHERE rowkey = %L', key) LOOP
    IF l ~ 'Storage Entries Read' THEN
      RETURN substring(l from '\d+$')::bigint;
    END IF;
  END LOOP;
  RETURN 0;
END
$$;

INSERT INTO users VALUES
  ('alice', 'Alice', '{"bob": "2024-01-01", "carol": "2024-02-01"}'),
  ('bob', 'Bob', '{"alice": "2024-01-05"}'),
  ('carol', 'Carol', '{}'),
  ('dave', 'Dave', '{"alice": "2024-03-01", "bob": "2024-03-01", "carol": "2024-03-02", "ünï": "2024-03-03"}');
INSERT INTO users_native SELECT * FROM users;
SELECT * FROM users ORDER BY rowkey;
SELECT * FROM users_diff();
-- the keys are ordinary cells
SELECT * FROM users_cells ORDER BY rowkey;
-- a row whose family has no cell reads {}, never NULL
SELECT rowkey, follows IS NULL AS is_null, follows = '{}' AS empty FROM users WHERE rowkey = 'carol';

-- Writes.  A new key: one cell written.
SELECT entries('alice') AS before \gset
UPDATE users SET follows = follows || '{"dave": "2024-04-01"}' WHERE rowkey = 'alice';
UPDATE users_native SET follows = follows || '{"dave": "2024-04-01"}' WHERE rowkey = 'alice';
SELECT entries('alice') - :before AS written;
-- an unchanged key: nothing written
SELECT entries('alice') AS before \gset
UPDATE users SET follows = follows || '{"bob": "2024-01-01"}' WHERE rowkey = 'alice';
SELECT entries('alice') - :before AS written;
-- a changed key: one version of one cell
SELECT entries('alice') AS before \gset
UPDATE users SET follows = follows || '{"bob": "2024-05-05"}' WHERE rowkey = 'alice';
UPDATE users_native SET follows = follows || '{"bob": "2024-05-05"}' WHERE rowkey = 'alice';
SELECT entries('alice') - :before AS written;
-- a key removed: one cell deleted (a tombstone)
SELECT entries('alice') AS before \gset
UPDATE users SET follows = follows - 'carol' WHERE rowkey = 'alice';
UPDATE users_native SET follows = follows - 'carol' WHERE rowkey = 'alice';
SELECT entries('alice') - :before AS written;
SELECT * FROM users_cells WHERE rowkey = 'alice';
-- another column changed: the map writes nothing, the name its one cell
SELECT entries('alice') AS before \gset
UPDATE users SET name = 'Alice A.' WHERE rowkey = 'alice';
UPDATE users_native SET name = 'Alice A.' WHERE rowkey = 'alice';
SELECT entries('alice') - :before AS written;
-- one key added, one changed, one removed: three cells
SELECT entries('dave') AS before \gset
UPDATE users SET follows = follows - 'alice' || '{"bob": "2025-01-01", "erin": "2025-01-02"}' WHERE rowkey = 'dave';
UPDATE users_native SET follows = follows - 'alice' || '{"bob": "2025-01-01", "erin": "2025-01-02"}' WHERE rowkey = 'dave';
SELECT entries('dave') - :before AS written;
SELECT * FROM users_diff();
-- many rows at once
UPDATE users SET follows = follows || jsonb_build_object('zed', rowkey) WHERE rowkey > 'b';
UPDATE users_native SET follows = follows || jsonb_build_object('zed', rowkey) WHERE rowkey > 'b';
SELECT * FROM users_diff();
-- INSERT of an existing key (an upsert) sets the keys it names and leaves
-- the family's other cells alone, as Bigtable's SetCell does
INSERT INTO users VALUES ('bob', 'Bob', '{"carol": "2024-06-01"}');
SELECT follows FROM users WHERE rowkey = 'bob';
UPDATE users_native SET follows = follows || '{"carol": "2024-06-01"}' WHERE rowkey = 'bob';
-- a NULL map: INSERT writes no cell of the family, UPDATE deletes them all
INSERT INTO users VALUES ('bob', 'Bob', NULL);
SELECT follows FROM users WHERE rowkey = 'bob';
SELECT entries('bob') AS before \gset
UPDATE users SET follows = NULL WHERE rowkey = 'bob';
SELECT entries('bob') - :before AS written;
SELECT follows FROM users WHERE rowkey = 'bob';
UPDATE users_native SET follows = '{}' WHERE rowkey = 'bob';
SELECT * FROM users_diff();
-- a row that is only a map: it exists while the map has a key
INSERT INTO users (rowkey, follows) VALUES ('only_map', '{"x": "1"}');
SELECT rowkey, follows FROM users WHERE rowkey = 'only_map';
UPDATE users SET follows = follows - 'x' WHERE rowkey = 'only_map';
SELECT count(*) FROM users WHERE rowkey = 'only_map';
-- DELETE deletes the whole row, map and all
INSERT INTO users VALUES ('gone', 'Gone', '{"a": "1", "b": "2"}');
DELETE FROM users WHERE rowkey = 'gone' RETURNING *;
SELECT count(*) FROM users_cells WHERE rowkey = 'gone';
-- RETURNING shows the new map
UPDATE users SET follows = follows || '{"frank": "now"}' WHERE rowkey = 'carol' RETURNING follows;
UPDATE users_native SET follows = follows || '{"frank": "now"}' WHERE rowkey = 'carol';

-- Bad values change nothing: not an object, a null value, not a string
UPDATE users SET follows = '["bob"]' WHERE rowkey = 'alice';
UPDATE users SET follows = follows || '{"bob": null}' WHERE rowkey = 'alice';
UPDATE users SET follows = follows || '{"bob": 5}' WHERE rowkey = 'alice';
INSERT INTO users VALUES ('new', 'New', '{"x": {"y": 1}}');
SELECT * FROM users_diff();

-- read backwards too (the worker reads a row's entries in reverse)
SELECT rowkey, follows FROM users WHERE rowkey < 'c' ORDER BY rowkey DESC LIMIT 2;

-- `?` and the other jsonb operators are local filters
EXPLAIN (COSTS OFF) SELECT rowkey FROM users WHERE follows ? 'bob';
SELECT rowkey FROM users WHERE follows ? 'bob' ORDER BY rowkey;
SELECT rowkey FROM users_native WHERE follows ? 'bob' ORDER BY rowkey;
SELECT rowkey, follows->>'zed' AS zed FROM users WHERE follows @> '{"zed": "dave"}';

-- Transactions: a transaction reads its own writes in the map, whichever
-- table wrote them; ROLLBACK and ROLLBACK TO SAVEPOINT undo them
BEGIN;
UPDATE users SET follows = follows || '{"greg": "tx"}' WHERE rowkey = 'alice';
SELECT follows FROM users WHERE rowkey = 'alice';
UPDATE users_cells SET carol = 'via cells', bob = NULL WHERE rowkey = 'alice';
SELECT follows FROM users WHERE rowkey = 'alice';
SAVEPOINT s;
UPDATE users SET follows = follows - 'greg' - 'dave' WHERE rowkey = 'alice';
SELECT follows FROM users WHERE rowkey = 'alice';
ROLLBACK TO SAVEPOINT s;
SELECT follows FROM users WHERE rowkey = 'alice';
-- a row deleted and written again in the transaction has only the new keys
DELETE FROM users WHERE rowkey = 'bob';
INSERT INTO users VALUES ('bob', 'Bob', '{"new": "1"}');
SELECT follows FROM users WHERE rowkey = 'bob';
SELECT rowkey, follows FROM users WHERE follows ? 'greg';
ROLLBACK;
SELECT * FROM users_diff();
BEGIN;
UPDATE users SET follows = follows || '{"greg": "tx"}' WHERE rowkey = 'alice';
UPDATE users_native SET follows = follows || '{"greg": "tx"}' WHERE rowkey = 'alice';
COMMIT;
SELECT * FROM users_diff();

-- a transaction that wrote more keys than a scan may name cells (1600)
-- still reads its writes, with the map column or without it
BEGIN;
INSERT INTO users SELECT 'many' || i, NULL, jsonb_build_object('k' || i, 'v') FROM generate_series(1, 2000) i;
UPDATE users SET follows = follows - 'k7' WHERE rowkey = 'many7';
SELECT count(*) FROM users WHERE rowkey LIKE 'many%';
SELECT count(*) FROM users_cells WHERE rowkey LIKE 'many%';
SELECT rowkey, follows FROM users WHERE rowkey IN ('many1', 'many2000');
ROLLBACK;
SELECT count(*) FROM users WHERE rowkey LIKE 'many%';

-- As of a time: the map as it was
CREATE TEMP TABLE marks (name text PRIMARY KEY, at timestamptz);
CREATE FUNCTION mark(name text) RETURNS void LANGUAGE sql AS $$
  SELECT pg_sleep(0.002);
  INSERT INTO marks VALUES (name, clock_timestamp());
  SELECT pg_sleep(0.002);
$$;
CREATE FUNCTION as_of(name text) RETURNS text LANGUAGE sql AS $$
  SELECT set_config('widecolumn.as_of', (SELECT at::text FROM marks m WHERE m.name = as_of.name), false)
$$;
INSERT INTO users VALUES ('hist', 'Hist', '{"a": "1", "b": "1"}');
SELECT mark('t1');
UPDATE users SET follows = follows - 'a' || '{"b": "2", "c": "2"}' WHERE rowkey = 'hist';
SELECT mark('t2');
UPDATE users SET follows = NULL WHERE rowkey = 'hist';
SELECT as_of('t1') IS NOT NULL AS set;
SELECT follows FROM users WHERE rowkey = 'hist';
SELECT as_of('t2') IS NOT NULL AS set;
SELECT follows FROM users WHERE rowkey = 'hist';
RESET widecolumn.as_of;
SELECT follows FROM users WHERE rowkey = 'hist';

-- map_values: how each cell's bytes are read and written, with the value
-- codec's encodings, as an ordinary column of that type sees them
SELECT widecolumn.create_family('maps_srv', 'typed', f)
  FROM unnest(ARRAY['t', 'i', 'd', 'j', 'b']) f;
CREATE FOREIGN TABLE typed (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    t jsonb OPTIONS (family 't', map_values 'text'),
    i jsonb OPTIONS (family 'i', map_values 'bigint'),
    d jsonb OPTIONS (family 'd', map_values 'double precision'),
    j jsonb OPTIONS (family 'j', map_values 'jsonb'),
    b jsonb OPTIONS (family 'b', map_values 'bytea')
) SERVER maps_srv;
CREATE FOREIGN TABLE typed_cells (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    t text OPTIONS (column 't:k'),
    i bigint OPTIONS (column 'i:k'),
    d float8 OPTIONS (column 'd:k'),
    j jsonb OPTIONS (column 'j:k'),
    b bytea OPTIONS (column 'b:k'),
    i_raw bytea OPTIONS (column 'i:k'),
    i_bad text OPTIONS (column 'i:bad'),
    d_bad float8 OPTIONS (column 'd:bad'),
    t_bad bytea OPTIONS (column 't:bad'),
    j_bad text OPTIONS (column 'j:bad')
) SERVER maps_srv OPTIONS (table 'typed');
INSERT INTO typed VALUES ('r1',
  '{"k": "text value", "e": ""}',
  '{"k": -9223372036854775808, "max": 9223372036854775807, "one": 1, "onepointzero": 1.0}',
  '{"k": 0.1, "big": 1e300, "neg": -2.5, "tiny": 5e-324}',
  '{"k": {"nested": [1, "two", null]}, "n": 5, "s": "str", "a": []}',
  '{"k": "\\xdeadbeef", "empty": "\\x"}');
-- (1e300 and 5e-324 are numbers of 300 digits in jsonb: compared below)
SELECT jsonb_pretty(to_jsonb(x) - 'rowkey' #- '{d,big}' #- '{d,tiny}') AS r1 FROM typed x;
SELECT rowkey, t, i, d, j, b, i_raw FROM typed_cells;
-- doubles read back exactly
SELECT (d->>'k')::float8 = 0.1 AS k, (d->>'big')::float8 = 1e300 AS big,
       (d->>'tiny')::float8 = 5e-324 AS tiny FROM typed;
-- written through the ordinary columns, read through the map
UPDATE typed_cells SET i = 42, d = 1.5, t = 'from cells', j = '[true]', b = '\x00ff' WHERE rowkey = 'r1';
SELECT t->'k' AS t, i->'k' AS i, d->'k' AS d, j->'k' AS j, b->'k' AS b FROM typed;
-- values that are not the type: errors, nothing written
UPDATE typed SET i = i || '{"x": 1.5}';
UPDATE typed SET i = i || '{"x": "1"}';
UPDATE typed SET i = i || '{"x": 1e30}';
UPDATE typed SET d = d || '{"x": "1"}';
UPDATE typed SET b = b || '{"x": "deadbeef"}';
UPDATE typed SET b = b || '{"x": "\\xzz"}';
UPDATE typed SET t = t || '{"x": true}';
UPDATE typed SET j = j || '{"x": null}';
SELECT i ? 'x' OR d ? 'x' OR b ? 'x' OR t ? 'x' OR j ? 'x' AS written FROM typed;
-- cells that do not decode: errors naming the row key and the qualifier
UPDATE typed_cells SET i_bad = 'abc' WHERE rowkey = 'r1';
SELECT i FROM typed;
UPDATE typed_cells SET i_bad = NULL, d_bad = 'NaN' WHERE rowkey = 'r1';
SELECT d FROM typed;
UPDATE typed_cells SET d_bad = NULL, t_bad = '\xff00' WHERE rowkey = 'r1';
SELECT t FROM typed;
UPDATE typed_cells SET t_bad = NULL, j_bad = 'not json' WHERE rowkey = 'r1';
SELECT j FROM typed;
UPDATE typed_cells SET j_bad = NULL WHERE rowkey = 'r1';
SELECT rowkey, t, i FROM typed;

-- The seeds' "friends as qualifiers" (schema design, "column qualifiers as
-- data"): a row per person, a qualifier per friend in the family Friend,
-- the value the circle they share
CREATE FOREIGN TABLE friends (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    friend jsonb OPTIONS (family 'Friend')
) SERVER maps_srv OPTIONS (table 'friends');
-- add friends: INSERT sets the cells it names, so it adds to a row
INSERT INTO friends VALUES ('jose', '{"fred": "book-club"}');
INSERT INTO friends VALUES ('jose', '{"gabriel": "work"}');
INSERT INTO friends VALUES ('jose', '{"hiroshi": "tennis"}');
INSERT INTO friends VALUES ('sofia', '{"hiroshi": "work", "seo-yoon": "school", "jakob": "chess-club"}');
-- list a person's friends, and their circles
SELECT k AS friend, friend->>k AS circle FROM friends, jsonb_object_keys(friend) k
 WHERE rowkey = 'jose' ORDER BY k;
-- does jose have hiroshi as a friend?  does sofia have fred?
SELECT rowkey, friend ? 'hiroshi' AS hiroshi, friend ? 'fred' AS fred FROM friends ORDER BY rowkey;
-- who is friends with hiroshi, and in which circle
SELECT rowkey, friend->>'hiroshi' AS circle FROM friends WHERE friend ? 'hiroshi' ORDER BY rowkey;
-- remove a friend: one cell deleted
UPDATE friends SET friend = friend - 'gabriel' WHERE rowkey = 'jose';
SELECT friend FROM friends WHERE rowkey = 'jose';
-- how many friends each has
SELECT rowkey, (SELECT count(*) FROM jsonb_object_keys(friend)) AS n FROM friends ORDER BY rowkey;

-- The seeds' weather balloons, time buckets with new columns: a row per
-- balloon, metric and week; each minute's measurement is a qualifier, the
-- cell empty, the minute its timestamp
CREATE FOREIGN TABLE balloon (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    data jsonb OPTIONS (family 'data')
) SERVER maps_srv OPTIONS (table 'balloon');
SELECT widecolumn.create_family('maps_srv', 'balloon', 'data', 'never');
INSERT INTO balloon VALUES ('us-west2#3698#pressure#week1', '{"94558": ""}');
SELECT mark('minute1');
INSERT INTO balloon VALUES ('us-west2#3698#pressure#week1', '{"94122": ""}');
SELECT mark('minute2');
INSERT INTO balloon VALUES ('us-west2#3698#pressure#week1', '{"95992": ""}');
INSERT INTO balloon VALUES ('us-west2#3698#temperature#week1', '{"9.5": "", "9.6": ""}');
-- the week's pressures, as numbers
SELECT k::int AS pascal FROM balloon, jsonb_object_keys(data) k
 WHERE rowkey = 'us-west2#3698#pressure#week1' ORDER BY 1;
SELECT rowkey, (SELECT max(k::numeric) FROM jsonb_object_keys(data) k) AS highest
  FROM balloon WHERE rowkey LIKE 'us-west2#3698#%' ORDER BY rowkey;
-- the bucket as it was after its second minute
SELECT as_of('minute2') IS NOT NULL AS set;
SELECT data FROM balloon WHERE rowkey = 'us-west2#3698#pressure#week1';
RESET widecolumn.as_of;

DROP FOREIGN TABLE users, users_cells, typed, typed_cells, friends, balloon;
DROP TABLE users_native;
DROP FUNCTION users_diff(), entries(text), mark(text), as_of(text);
DROP SERVER maps_srv;
