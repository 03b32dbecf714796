-- Avro export and import in Bigtable's own format: a round trip keeps every
-- version the policies keep, with its timestamp, compared cell by cell
-- through cells-layout tables; bad input is an error that says where in
-- the file, and writes nothing.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER avro_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
SELECT current_setting('data_directory') || '/avro_regress_' AS dir \gset
SELECT set_config('avro.datadir', current_setting('data_directory'), false) IS NOT NULL AS set;
-- (named: by position, export_avro's file and large-object variants
-- cannot be told apart with two or three arguments)

-- An error as one deterministic line: SQLSTATE, message, detail and the
-- first line of the context, with the data directory's path taken out.
CREATE FUNCTION try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE st text; msg text; det text; ctx text;
BEGIN
  EXECUTE q;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
    det = PG_EXCEPTION_DETAIL, ctx = PG_EXCEPTION_CONTEXT;
  RETURN regexp_replace(replace(st || ': ' || msg || coalesce(' / ' || nullif(det, ''), '') ||
                 coalesce(' / ' || nullif(split_part(ctx, E'\n', 1), ''), ''),
                 current_setting('avro.datadir'), '$PGDATA'), 'large object [0-9]+|[0-9]+::oid', 'LO', 'g');
END $$;

-- ---------------------------------------------------------------------
-- The source: several families and policies, versions at known times,
-- tombstones, an aggregate family
SELECT widecolumn.create_family('avro_srv', 'src', 'a', 'never');
SELECT widecolumn.create_family('avro_srv', 'src', 'b', 'maxversions=2');
SELECT widecolumn.create_family('avro_srv', 'src', 'c', 'maxage=3650d or maxversions=3');
SELECT widecolumn.create_family('avro_srv', 'src', 'n', 'maxversions=1', aggregate => 'sum');
CREATE FOREIGN TABLE src_cells (rowkey text COLLATE "C", family text COLLATE "C",
  qualifier text COLLATE "C", ts timestamptz, value bytea)
  SERVER avro_srv OPTIONS (table 'src', layout 'cells');
CREATE FOREIGN TABLE src (rowkey text, x text OPTIONS (column 'a:x'), n bigint OPTIONS (column 'n:c'))
  SERVER avro_srv OPTIONS (table 'src');
INSERT INTO src_cells
  SELECT 'r' || r, fam, q, timestamptz '2021-03-05 12:00+00' + v * interval '1 minute',
         convert_to(format('%s/%s/%s/%s', r, fam, q, v), 'UTF8')
  FROM generate_series(1, 20) r, unnest(ARRAY['a', 'b', 'c']) fam,
       unnest(ARRAY['q1', 'q 2', '']) q, generate_series(1, 4) v;
-- a value of every byte, a long one
INSERT INTO src_cells VALUES ('r5', 'a', 'bin', '2021-03-05 13:00+00',
  (SELECT string_agg(set_byte('\x00'::bytea, 0, b), ''::bytea) FROM generate_series(0, 255) b)),
  ('r6', 'a', 'long', '2021-03-05 13:00+00', convert_to(repeat('v', 200000), 'UTF8'));
-- a row tombstone (at the commit's time) hides every older version of r3;
-- a version of it written afterwards stays
DELETE FROM src WHERE rowkey = 'r3';
INSERT INTO src (rowkey, x) VALUES ('r3', 'after the delete');
-- removing exactly one version
DELETE FROM src_cells WHERE rowkey = 'r4' AND family = 'a' AND qualifier = 'q1'
  AND ts = '2021-03-05 12:02+00';
-- merges into a counter: exported as the folded value
INSERT INTO src (rowkey, n) VALUES ('r7', 5);
INSERT INTO src (rowkey, n) VALUES ('r7', 37);
SELECT count(*) AS versions, count(DISTINCT rowkey) AS rows FROM src_cells;

-- ---------------------------------------------------------------------
-- Export to a file and import into a table whose families have the same
-- policies: the same versions, cell by cell, each at its timestamp in
-- milliseconds (Bigtable's granularity: the commits above are stamped in
-- microseconds)
CREATE TEMP VIEW src_ms AS
  SELECT rowkey, family, qualifier, date_trunc('milliseconds', ts) AS ts, value FROM src_cells;
SELECT widecolumn.export_avro('src_cells', path => :'dir' || 'all.avro');
SELECT widecolumn.create_family('avro_srv', 'dst', 'a', 'never');
SELECT widecolumn.create_family('avro_srv', 'dst', 'b', 'maxversions=2');
SELECT widecolumn.create_family('avro_srv', 'dst', 'c', 'maxage=3650d or maxversions=3');
CREATE FOREIGN TABLE dst_cells (rowkey text COLLATE "C", family text COLLATE "C",
  qualifier text COLLATE "C", ts timestamptz, value bytea)
  SERVER avro_srv OPTIONS (table 'dst', layout 'cells');
SELECT widecolumn.import_avro('dst_cells', :'dir' || 'all.avro');
SELECT count(*) FROM dst_cells;
(SELECT * FROM src_ms EXCEPT ALL SELECT * FROM dst_cells)
UNION ALL (SELECT * FROM dst_cells EXCEPT ALL SELECT * FROM src_ms);
-- a family the file has and the table had not is made with maxversions=1
SELECT * FROM widecolumn.families('avro_srv') WHERE table_name = 'dst';
-- the same order of versions as the source
SELECT rowkey, family, qualifier,
       CASE WHEN ts < '2022-01-01' THEN ts::text ELSE 'at its commit' END AS ts, length(value)
  FROM dst_cells
  WHERE rowkey IN ('r3', 'r4', 'r5', 'r6', 'r7') AND qualifier IN ('q1', 'bin', 'long', 'x', 'c');

-- into a table with no families: each made with maxversions=1, so only
-- the newest version of each cell stays
CREATE FOREIGN TABLE fresh_cells (rowkey text COLLATE "C", family text COLLATE "C",
  qualifier text COLLATE "C", ts timestamptz, value bytea)
  SERVER avro_srv OPTIONS (table 'fresh', layout 'cells');
SELECT widecolumn.import_avro('fresh_cells', :'dir' || 'all.avro');
SELECT * FROM widecolumn.families('avro_srv') WHERE table_name = 'fresh';
CREATE TEMP VIEW newest AS SELECT DISTINCT ON (rowkey, family, qualifier) * FROM src_ms
  ORDER BY rowkey, family, qualifier, ts DESC;
SELECT count(*) FROM fresh_cells;
(SELECT * FROM newest EXCEPT ALL SELECT * FROM fresh_cells)
UNION ALL (SELECT * FROM fresh_cells EXCEPT ALL SELECT * FROM newest);

-- ---------------------------------------------------------------------
-- A prefix, the codecs, as_of
SELECT widecolumn.export_avro('src_cells', :'dir' || 'r1.avro', 'r1', 'null');
SELECT widecolumn.export_avro('src_cells', :'dir' || 'snappy.avro', NULL, 'snappy');
-- through a mapped table: every family all the same
SELECT widecolumn.export_avro('src', path => :'dir' || 'none.avro', prefix => 'zz');
SELECT (pg_stat_file(:'dir' || 'all.avro')).size < (pg_stat_file(:'dir' || 'snappy.avro')).size AS deflate_smaller;
CREATE FOREIGN TABLE r1_cells (rowkey text COLLATE "C", family text COLLATE "C",
  qualifier text COLLATE "C", ts timestamptz, value bytea)
  SERVER avro_srv OPTIONS (table 'r1', layout 'cells');
BEGIN;
SELECT widecolumn.import_avro('r1_cells', :'dir' || 'r1.avro');
SELECT widecolumn.import_avro('r1_cells', :'dir' || 'none.avro');
SELECT widecolumn.import_avro('r1_cells', :'dir' || 'snappy.avro');
-- read in the transaction that imported
SELECT count(*) FROM r1_cells;
ROLLBACK;
SELECT count(*) FROM r1_cells;
-- the rows of the prefix only
SELECT widecolumn.import_avro('r1_cells', :'dir' || 'r1.avro');
SELECT DISTINCT rowkey FROM r1_cells ORDER BY 1;
-- as_of: the versions of that time
BEGIN;
SET LOCAL widecolumn.as_of = '2021-03-05 12:02:30+00';
SELECT widecolumn.export_avro('src_cells', path => :'dir' || 'asof.avro');
SELECT count(*) FROM src_cells;
COMMIT;
CREATE FOREIGN TABLE asof_cells (rowkey text COLLATE "C", family text COLLATE "C",
  qualifier text COLLATE "C", ts timestamptz, value bytea)
  SERVER avro_srv OPTIONS (table 'asof', layout 'cells');
SELECT widecolumn.create_family('avro_srv', 'asof', fam, 'never') FROM unnest(ARRAY['a', 'b', 'c', 'n']) fam;
SELECT widecolumn.import_avro('asof_cells', :'dir' || 'asof.avro');
SELECT count(*), max(ts) FROM asof_cells;

-- ---------------------------------------------------------------------
-- Milliseconds: of two versions of a cell in one millisecond the export
-- keeps the newer, as Bigtable keeps the last write, and says how many it
-- merged; a version alone in its millisecond is rounded down to it
SELECT widecolumn.create_family('avro_srv', 'ms', 'a', 'never');
CREATE FOREIGN TABLE ms_cells (rowkey text COLLATE "C", family text COLLATE "C",
  qualifier text COLLATE "C", ts timestamptz, value bytea)
  SERVER avro_srv OPTIONS (table 'ms', layout 'cells');
INSERT INTO ms_cells VALUES
  ('m1', 'a', 'q', '2021-03-05 12:00:00.000100+00', 'older'),
  ('m1', 'a', 'q', '2021-03-05 12:00:00.000900+00', 'newer'),
  ('m1', 'a', 'q', '2021-03-05 12:00:00.001+00', 'next millisecond'),
  ('m1', 'a', 'r', '2021-03-05 12:00:00.000500+00', 'another qualifier'),
  ('m2', 'a', 'q', '2021-03-05 12:00:00.000100+00', 'another row');
SELECT widecolumn.export_avro('ms_cells', :'dir' || 'ms.avro');
SELECT widecolumn.create_family('avro_srv', 'ms_back', 'a', 'never');
CREATE FOREIGN TABLE ms_back (rowkey text COLLATE "C", family text COLLATE "C",
  qualifier text COLLATE "C", ts timestamptz, value bytea)
  SERVER avro_srv OPTIONS (table 'ms_back', layout 'cells');
SELECT widecolumn.import_avro('ms_back', :'dir' || 'ms.avro');
SET TIME ZONE 'UTC';
SELECT rowkey, qualifier, ts, convert_from(value, 'UTF8') AS value FROM ms_back;
RESET TIME ZONE;
DROP FOREIGN TABLE ms_cells, ms_back;
SELECT widecolumn.drop_table('avro_srv', 'ms') + widecolumn.drop_table('avro_srv', 'ms_back') AS dropped;

-- ---------------------------------------------------------------------
-- Large objects, for a user who may not touch server files
CREATE ROLE avro_user;
CREATE FOREIGN TABLE lo_cells (rowkey text COLLATE "C", family text COLLATE "C",
  qualifier text COLLATE "C", ts timestamptz, value bytea)
  SERVER avro_srv OPTIONS (table 'lo', layout 'cells');
SELECT widecolumn.create_family('avro_srv', 'lo', fam, 'never') FROM unnest(ARRAY['a', 'b', 'c', 'n']) fam;
GRANT SELECT ON src_cells TO avro_user;
GRANT INSERT ON lo_cells TO avro_user;
SET ROLE avro_user;
SELECT try(format('SELECT widecolumn.export_avro(%L, path => %L)', 'src_cells', :'dir' || 'x.avro'));
SELECT try(format('SELECT widecolumn.import_avro(%L, %L::text)', 'lo_cells', :'dir' || 'all.avro'));
-- the table privilege as well
SELECT try($$SELECT widecolumn.export_avro_lo('lo_cells')$$);
SELECT try($$SELECT widecolumn.import_avro_lo('src_cells', 1::oid)$$);
SELECT widecolumn.export_avro_lo('src_cells', prefix => 'r2', codec => 'snappy') AS lo \gset
SELECT widecolumn.import_avro_lo('lo_cells', :lo);
RESET ROLE;
SELECT count(*) FROM lo_cells;
(SELECT * FROM src_ms WHERE rowkey LIKE 'r2%' EXCEPT ALL SELECT * FROM lo_cells)
UNION ALL (SELECT * FROM lo_cells EXCEPT ALL SELECT * FROM src_ms WHERE rowkey LIKE 'r2%');
SELECT lo_unlink(:lo);

-- ---------------------------------------------------------------------
-- Files: never overwritten, none left by a failed export, COPY's rules
SELECT (pg_stat_file(:'dir' || 'all.avro')).size AS size_before \gset
SELECT try(format('SELECT widecolumn.export_avro(%L, %L, NULL, %L)', 'src_cells', :'dir' || 'all.avro', 'null'));
SELECT (pg_stat_file(:'dir' || 'all.avro')).size = :size_before AS untouched;
BEGIN;
INSERT INTO src_cells VALUES ('r1', 'a', 'new', NULL, '\x01');
SELECT try(format('SELECT widecolumn.export_avro(%L, path => %L)', 'src_cells', :'dir' || 'failed.avro'));
ROLLBACK;
SELECT pg_stat_file(:'dir' || 'failed.avro', true) IS NULL AS no_file;
SELECT try($$SELECT widecolumn.export_avro('src_cells', path => 'relative.avro')$$);
SELECT try(format('SELECT widecolumn.export_avro(%L, %L, NULL, %L)', 'src_cells', :'dir' || 'x.avro', 'lzma'));
SELECT try(format('SELECT widecolumn.export_avro(%L, %L, NULL, NULL)', 'src_cells', :'dir' || 'x.avro'));
SELECT try(format('SELECT widecolumn.import_avro(%L, %L::text)', 'r1_cells', :'dir' || 'missing.avro'));
SELECT try(format('SELECT widecolumn.export_avro(%L, path => %L)', 'pg_class', :'dir' || 'x.avro'));
SELECT pg_stat_file(:'dir' || 'x.avro', true) IS NULL AS no_file;
-- two or three arguments by position: name the path
SELECT try(format('SELECT widecolumn.export_avro(%L, %L)', 'src_cells', :'dir' || 'x.avro'));

-- ---------------------------------------------------------------------
-- Bad input: an error that says where, and nothing written
CREATE FOREIGN TABLE bad_cells (rowkey text COLLATE "C", family text COLLATE "C",
  qualifier text COLLATE "C", ts timestamptz, value bytea)
  SERVER avro_srv OPTIONS (table 'bad', layout 'cells');
SELECT widecolumn.export_avro_lo('src_cells', codec => 'null') AS lo_null,
       widecolumn.export_avro_lo('src_cells', codec => 'snappy') AS lo_snappy \gset
CREATE TABLE good AS SELECT lo_get(:lo_null) AS b;
CREATE TABLE good_snappy AS SELECT lo_get(:lo_snappy) AS b;
SELECT lo_unlink(:lo_null), lo_unlink(:lo_snappy);
CREATE FUNCTION try_import(b bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE lo oid := lo_from_bytea(0, b); r text;
BEGIN
  r := try(format('SELECT widecolumn.import_avro_lo(%L, %s::oid)', 'bad_cells', lo));
  PERFORM lo_unlink(lo);
  RETURN r;
END $$;
-- not Avro, empty
SELECT try_import(convert_to('rowkey,family,qualifier', 'UTF8'));
SELECT try_import(''::bytea);
-- truncated: in the header, inside a block
SELECT try_import(substring(b FROM 1 FOR 100)) FROM good;
SELECT try_import(substring(b FROM 1 FOR length(b) - 1)) FROM good;
SELECT try_import(substring(b FROM 1 FOR length(b) / 2)) FROM good;
-- another schema: a field renamed
SELECT try_import(decode(replace(encode(b, 'hex'), encode('"family"', 'hex'), encode('"famil1"', 'hex')), 'hex')) FROM good;
-- a family name Bigtable refuses, in the second row (r10: its key, the
-- count of its cells, the first family's length, then its name)
SELECT try_import(overlay(b PLACING '\x21'::bytea FROM position(convert_to('r10', 'UTF8') IN b) + 5 FOR 1)) FROM good;
-- a corrupt block: damaged snappy data, a snappy checksum (the 4 bytes
-- before the closing sync marker) that does not match, a damaged sync marker
SELECT try_import(overlay(b PLACING '\x00000000'::bytea FROM length(b) / 2 FOR 4)) FROM good_snappy;
SELECT try_import(set_byte(b, length(b) - 17, get_byte(b, length(b) - 17) # 1)) FROM good_snappy;
SELECT try_import(overlay(b PLACING '\x00'::bytea FROM length(b) - 3 FOR 1)) FROM good;
SELECT count(*) FROM bad_cells;
SELECT count(*) FROM widecolumn.families('avro_srv') WHERE table_name = 'bad';
-- a file without rows
SELECT widecolumn.export_avro_lo('src_cells', prefix => 'zz') AS empty_lo \gset
SELECT widecolumn.import_avro_lo('bad_cells', :empty_lo);
SELECT lo_unlink(:empty_lo);

-- ---------------------------------------------------------------------
-- The server's tables as cbt commands and HBase shell statements
SELECT widecolumn.export_schema('avro_srv');

DROP FUNCTION try_import(bytea);
DROP FUNCTION try(text);
DROP TABLE good, good_snappy;
DROP OWNED BY avro_user;
DROP ROLE avro_user;
DROP SERVER avro_srv CASCADE;
