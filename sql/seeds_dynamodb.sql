-- Seed 003 (../shared/seeds/003_*.txt, "Bigtable for DynamoDB users"): its
-- three schema-translation examples, built from SQL and queried as the seed
-- describes, each beside native tables holding the same data, the oracle
-- for every query's result.  The seed is in Korean; the quotes below are
-- translated.  (aggregates.sql tests the counters' merges in depth; here
-- is the video as the seed designs it, with its comments.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
SET TimeZone = 'UTC';
CREATE SERVER seed3_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');

-- The rows one query returns that the other does not, both ways: 0 when the
-- foreign table answers as the native one does.
CREATE FUNCTION differences(foreign_query text, native_query text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM (((%s) EXCEPT ALL (%s)) UNION ALL ((%s) EXCEPT ALL (%s))) d',
                 foreign_query, native_query, native_query, foreign_query) INTO n;
  RETURN n;
END $$;

-- =====================================================================
-- 1. The basic schema migration: a product catalogue.  DynamoDB's
-- partition key is the category, its sort key "type#brand"; "convert
-- DynamoDB's composite primary key into a composite Bigtable row key" and
-- "create one column family (SKU) holding the same set of columns".
SELECT widecolumn.create_family('seed3_srv', 'catalogue', 'SKU');
CREATE FOREIGN TABLE products (
    category    text OPTIONS (rowkey_part '1') COLLATE "C",
    type        text OPTIONS (rowkey_part '2') COLLATE "C",
    brand       text OPTIONS (rowkey_part '3') COLLATE "C",
    description text    OPTIONS (column 'SKU:description'),
    price       integer OPTIONS (column 'SKU:price'),
    thumbnail   text    OPTIONS (column 'SKU:thumbnail')
) SERVER seed3_srv OPTIONS (table 'catalogue', rowkey_delimiter '#');
-- the same stored rows with the whole key, as the seed writes it
CREATE FOREIGN TABLE product_keys (rowkey text COLLATE "C", price integer OPTIONS (column 'SKU:price'))
  SERVER seed3_srv OPTIONS (table 'catalogue');
CREATE TABLE products_native (category text COLLATE "C", type text COLLATE "C",
    brand text COLLATE "C", description text, price integer, thumbnail text,
    PRIMARY KEY (category, type, brand));
INSERT INTO products_native VALUES
  ('hats',  'fedoras',  'brandA', 'Made of premium wool...',               30, 'https://storage.example/hats-fedoras-brandA.png'),
  ('hats',  'fedoras',  'brandB', 'Durable waterproof canvas...',          28, 'https://storage.example/hats-fedoras-brandB.png'),
  ('hats',  'newsboy',  'brandB', 'Adds a vintage charm to every day...',  25, 'https://storage.example/hats-newsboy-brandB.png'),
  ('shoes', 'sneakers', 'brandA', 'Style and comfort at once...',          40, 'https://storage.example/shoes-sneakers-brandA.png'),
  ('shoes', 'sneakers', 'brandB', 'A classic feel in modern materials...', 50, 'https://storage.example/shoes-sneakers-brandB.png');
INSERT INTO products SELECT * FROM products_native;
-- the row keys of the seed's Bigtable table, in its order
SELECT rowkey, price FROM product_keys;
-- "hats" (DynamoDB: a query on the partition key): a prefix of the key
EXPLAIN (COSTS OFF) SELECT * FROM products WHERE category = 'hats';
SELECT brand, type, price FROM products WHERE category = 'hats';
SELECT differences($$SELECT * FROM products WHERE category = 'hats'$$,
                   $$SELECT * FROM products_native WHERE category = 'hats'$$);
-- "hats" of type "fedoras" (DynamoDB: begins_with on the sort key): a
-- longer prefix
EXPLAIN (COSTS OFF) SELECT * FROM products WHERE category = 'hats' AND type = 'fedoras';
SELECT brand, price FROM products WHERE category = 'hats' AND type = 'fedoras';
SELECT differences($$SELECT * FROM products WHERE category = 'hats' AND type = 'fedoras'$$,
                   $$SELECT * FROM products_native WHERE category = 'hats' AND type = 'fedoras'$$);
-- one product (DynamoDB: GetItem by partition and sort key): a point read
EXPLAIN (COSTS OFF) SELECT * FROM products WHERE category = 'shoes' AND type = 'sneakers' AND brand = 'brandB';
SELECT description, price FROM products WHERE category = 'shoes' AND type = 'sneakers' AND brand = 'brandB';
SELECT differences($$SELECT * FROM products WHERE category = 'shoes' AND type = 'sneakers' AND brand = 'brandB'$$,
                   $$SELECT * FROM products_native WHERE category = 'shoes' AND type = 'sneakers' AND brand = 'brandB'$$);
-- several categories are one ordered pass over their prefixes, and the
-- rows come in key order; within a category and type, ORDER BY brand
-- needs no Sort ...
EXPLAIN (COSTS OFF) SELECT * FROM products WHERE category IN ('shoes', 'hats');
SELECT category, type, brand FROM products WHERE category IN ('shoes', 'hats');
EXPLAIN (COSTS OFF)
SELECT * FROM products WHERE category = 'hats' AND type = 'fedoras' ORDER BY brand DESC LIMIT 1;
SELECT brand, price FROM products WHERE category = 'hats' AND type = 'fedoras' ORDER BY brand DESC LIMIT 1;
-- ... but ORDER BY type, brand sorts: a text part before the last one does
-- not order as its key does (a type "fedoras x" would be stored before
-- "fedoras#", though 'fedoras' < 'fedoras x')
EXPLAIN (COSTS OFF) SELECT * FROM products WHERE category = 'hats' ORDER BY type, brand;
-- a condition on a later part alone reads everything and filters
EXPLAIN (COSTS OFF) SELECT * FROM products WHERE brand = 'brandB';
SELECT differences($$SELECT * FROM products WHERE brand = 'brandB'$$,
                   $$SELECT * FROM products_native WHERE brand = 'brandB'$$);
-- a price change is a write of one cell, by the key's parts
UPDATE products SET price = 27 WHERE category = 'hats' AND type = 'newsboy' AND brand = 'brandB';
UPDATE products_native SET price = 27 WHERE category = 'hats' AND type = 'newsboy' AND brand = 'brandB';
SELECT differences($$SELECT * FROM products$$, $$SELECT * FROM products_native$$);

-- =====================================================================
-- 2. The single-table design pattern: a video, its stats and its comments.
-- In DynamoDB each comment is an item of its own, sorted by a
-- "VideoComment#reverse-timestamp" sort key, and the stats are items
-- too.  In Bigtable: one row per video.  "To handle a video that may get
-- millions of comments, set a garbage-collection policy that keeps only a
-- fixed number of the newest comments": the comments are versions of one
-- cell, kept by maxversions=N (3 here).  "Counters can be updated without
-- the overhead of updating the whole row": likes and views are sum
-- counters.  (The seed puts every column in one family; the counters get
-- a family of their own, since the aggregate is a family's.)  The family
-- names sort attributes < comments < stats, so that "a single read can
-- scan from the video's attributes to the top N newest comments".
SELECT widecolumn.create_family('seed3_srv', 'videos', 'attributes');
SELECT widecolumn.create_family('seed3_srv', 'videos', 'comments', 'maxversions=3');
SELECT widecolumn.create_family('seed3_srv', 'videos', 'stats', aggregate => 'sum');
CREATE FOREIGN TABLE videos (
    rowkey  text COLLATE "C",
    format  jsonb  OPTIONS (column 'attributes:format'),
    likes   bigint OPTIONS (column 'stats:likes'),
    views   bigint OPTIONS (column 'stats:views'),
    comment text   OPTIONS (column 'comments:text')
) SERVER seed3_srv OPTIONS (table 'videos');
-- every version of every cell of the videos, with its timestamp
CREATE FOREIGN TABLE video_cells (
    rowkey text COLLATE "C", family text COLLATE "C", qualifier text COLLATE "C",
    ts timestamptz, value text
) SERVER seed3_srv OPTIONS (table 'videos', layout 'cells');
-- the same as bytes: the counters' cells hold 8-byte integers, not text
CREATE FOREIGN TABLE video_bytes (
    rowkey text COLLATE "C", family text COLLATE "C", qualifier text COLLATE "C",
    ts timestamptz, value bytea
) SERVER seed3_srv OPTIONS (table 'videos', layout 'cells');
CREATE TABLE videos_native (rowkey text COLLATE "C" PRIMARY KEY, format jsonb,
    uploaded timestamptz, likes bigint, views bigint);
CREATE TABLE comments_native (rowkey text COLLATE "C" REFERENCES videos_native ON DELETE CASCADE,
    at timestamptz, content text);
-- the newest 3 comments of each video: what maxversions=3 keeps
CREATE VIEW kept_comments_native AS
  SELECT rowkey, content, rank FROM (
    SELECT rowkey, content, row_number() OVER (PARTITION BY rowkey ORDER BY at DESC) AS rank
      FROM comments_native) c
   WHERE rank <= 3;
CREATE VIEW kept_comments AS
  SELECT rowkey, value AS content,
         row_number() OVER (PARTITION BY rowkey ORDER BY ts DESC) AS rank
    FROM video_cells WHERE family = 'comments' AND qualifier = 'text';

INSERT INTO videos_native VALUES
  ('0123', '{"480": "https://storage.example/0123-480", "720": "https://storage.example/0123-720", "1080p": "https://storage.example/0123-1080p"}',
   '2023-09-10 15:21:48+00', 3, 156),
  ('0124', '{"480": "https://storage.example/0124-480", "720": "https://storage.example/0124-720"}',
   '2023-09-10 17:03:21+00', NULL, 45);
INSERT INTO comments_native VALUES
  ('0123', '2023-09-10 19:01:15+00', 'Love it. The special effects are amazing.'),
  ('0123', '2023-09-10 16:30:42+00', 'There seems to be an audio problem at 1:05.'),
  ('0124', '2023-10-12 07:08:51+00', 'The style reminds me of a director, but I cannot say who.');
-- "Bigtable timestamps make an UploadDate column unnecessary": the format
-- is written at the upload time, and each comment at its own time
INSERT INTO video_cells
  SELECT rowkey, 'attributes', 'format', uploaded, format::text FROM videos_native;
INSERT INTO video_cells
  SELECT rowkey, 'comments', 'text', at, content FROM comments_native;
-- each like and each view is a merge into its counter: no read, no lock
INSERT INTO videos (rowkey, likes) SELECT '0123', 1 FROM generate_series(1, 3);
INSERT INTO videos (rowkey, views) SELECT '0123', 1 FROM generate_series(1, 156);
INSERT INTO videos (rowkey, views) SELECT '0124', 1 FROM generate_series(1, 45);
SELECT rowkey, likes, views FROM videos;
-- "the newest timestamp is always a column's default value": the mapped
-- column reads the newest comment
SELECT rowkey, format, likes, views, comment FROM videos ORDER BY rowkey;
SELECT differences(
  $$SELECT rowkey, format, likes, views FROM videos$$,
  $$SELECT rowkey, format, likes, views FROM videos_native$$);
SELECT differences(
  $$SELECT rowkey, comment FROM videos$$,
  $$SELECT rowkey, content FROM kept_comments_native WHERE rank = 1$$);
-- the upload date is the format cell's timestamp
SELECT rowkey, ts AS uploaded FROM video_cells WHERE family = 'attributes' AND qualifier = 'format';
SELECT differences(
  $$SELECT rowkey, ts FROM video_cells WHERE family = 'attributes' AND qualifier = 'format'$$,
  $$SELECT rowkey, uploaded FROM videos_native$$);
-- "Bigtable timestamps give the comments in reverse order by themselves":
-- when the video loads, one read of its row, from its attributes to the
-- first page of its newest comments (a page of one here), newest first,
-- needs no Sort (and no reverse-timestamp sort key)
EXPLAIN (COSTS OFF)
SELECT family, qualifier, ts, value FROM video_cells
 WHERE rowkey = '0123' AND family IN ('attributes', 'comments')
 ORDER BY rowkey, family, qualifier, ts DESC LIMIT 2;
SELECT family, qualifier, ts, value FROM video_cells
 WHERE rowkey = '0123' AND family IN ('attributes', 'comments')
 ORDER BY rowkey, family, qualifier, ts DESC LIMIT 2;
-- "then show the rest of the comments page by page as the viewer
-- scrolls": the next page starts below the last comment shown
SELECT ts, value FROM video_cells
 WHERE rowkey = '0123' AND family = 'comments' AND qualifier = 'text'
   AND ts < '2023-09-10 19:01:15+00'
 ORDER BY rowkey, family, qualifier, ts DESC LIMIT 2;
-- new comments are new versions of the cell, at their commit's time; the
-- policy keeps the newest 3, so 0123's oldest comment is gone
INSERT INTO videos (rowkey, comment) VALUES ('0123', 'Watched it twice.');
INSERT INTO comments_native VALUES ('0123', now(), 'Watched it twice.');
INSERT INTO videos (rowkey, comment) VALUES ('0123', 'Where was this filmed?');
INSERT INTO comments_native VALUES ('0123', now(), 'Where was this filmed?');
SELECT rowkey, content, rank FROM kept_comments ORDER BY rowkey, rank;
SELECT differences($$SELECT * FROM kept_comments$$, $$SELECT * FROM kept_comments_native$$);
SELECT rowkey, comment FROM videos ORDER BY rowkey;
-- the oldest comment is gone from storage, too, once the sweep or
-- compact() has been: a read of the cell passes over 3 stored entries
SELECT widecolumn.compact('seed3_srv', 'videos') >= 0 AS compacted;
CREATE FUNCTION entries_read(key text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM video_bytes WHERE rowkey = %L AND family = %L', key, 'comments') LOOP
    IF l LIKE '%Storage Entries Read:%' THEN
      RETURN substring(l from '\d+$')::bigint;
    END IF;
  END LOOP;
END $$;
SELECT entries_read('0123');
-- reading the past: as of 17:00 that day, 0124 was not uploaded yet, and
-- 0123's only comment then is past the newest 3 now, so absent
SET widecolumn.as_of = '2023-09-10 17:00:00+00';
SELECT rowkey, format IS NOT NULL AS has_format, comment FROM videos;
RESET widecolumn.as_of;
-- every cell of a video is in its row; the counter's cell holds "a 64-bit
-- big-endian signed integer", as Bigtable's increments read it
SELECT family, qualifier, length(value) AS bytes,
       CASE family WHEN 'stats' THEN ('x' || encode(value, 'hex'))::bit(64)::bigint END AS counter
  FROM video_bytes WHERE rowkey = '0124';
-- "if the video is deleted, the video row with all its comments is deleted
-- by a single request, transactionally" (DynamoDB: scan the partition and
-- delete item by item)
BEGIN;
DELETE FROM videos WHERE rowkey = '0124';
SELECT count(*) AS cells_of_0124 FROM video_bytes WHERE rowkey = '0124';
ROLLBACK;
SELECT count(*) AS cells_of_0124 FROM video_bytes WHERE rowkey = '0124';
DELETE FROM videos WHERE rowkey = '0124';
DELETE FROM videos_native WHERE rowkey = '0124';
SELECT count(*) AS cells_of_0124 FROM video_bytes WHERE rowkey = '0124';
SELECT differences($$SELECT rowkey, format, likes, views FROM videos$$,
                   $$SELECT rowkey, format, likes, views FROM videos_native$$);
SELECT differences($$SELECT * FROM kept_comments$$, $$SELECT * FROM kept_comments_native$$);

-- =====================================================================
-- 3. The adjacency-list design pattern: an invoice and its payments.
-- DynamoDB keeps the invoice and each payment as items of one partition,
-- each with its DateCreated.  "The sort key is based on the payment id
-- rather than on time, so ... the ids can become separate columns in
-- Bigtable": a family Payments whose qualifiers are the payment ids, each
-- cell the payment's details at its time, beside the invoice's details.
-- Read through a cells table (with the timestamps) and through a map
-- column (a key per payment), over the same stored table.  The seed's
-- details end in ".."; here they go on with the invoice's total.
SELECT widecolumn.create_family('seed3_srv', 'invoices', 'Invoice');
SELECT widecolumn.create_family('seed3_srv', 'invoices', 'Payments');
CREATE FOREIGN TABLE invoice_cells (
    rowkey text COLLATE "C", family text COLLATE "C", qualifier text COLLATE "C",
    ts timestamptz, value jsonb
) SERVER seed3_srv OPTIONS (table 'invoices', layout 'cells');
CREATE FOREIGN TABLE invoices (
    rowkey   text COLLATE "C",
    details  jsonb OPTIONS (column 'Invoice:details'),
    payments jsonb OPTIONS (family 'Payments', map_values 'jsonb')
) SERVER seed3_srv;
CREATE TABLE invoices_native (invoice text COLLATE "C" PRIMARY KEY, details jsonb,
    created timestamptz);
CREATE TABLE payments_native (
    invoice text COLLATE "C" REFERENCES invoices_native ON DELETE CASCADE,
    payment text COLLATE "C", details jsonb, created timestamptz,
    PRIMARY KEY (invoice, payment));
INSERT INTO invoices_native VALUES
  ('0123', '{"discount": 0.10, "sales_tax_usd": "8", "due_date": "2023-10-03", "total_usd": 300}',
   '2023-09-10 15:21:48+00'),
  ('0124', '{"discount": 0.20, "sales_tax_usd": "11", "due_date": "2023-10-03", "total_usd": 250}',
   '2023-09-09 10:11:28+00');
INSERT INTO payments_native VALUES
  ('0123', '0680', '{"amount_usd": 120, "bill_to": "John", "address": "123 Abc St"}', '2023-09-10 15:21:40+00'),
  ('0123', '0789', '{"amount_usd": 120, "bill_to": "Jane", "address": "13 Xyz St"}',  '2023-09-10 15:21:31+00'),
  ('0124', '0327', '{"amount_usd": 180, "bill_to": "Bob", "address": "321 Cba St"}',  '2023-09-09 10:11:10+00'),
  ('0124', '0275', '{"amount_usd": 70, "bill_to": "Kate", "address": "21 Zyx St"}',   '2023-09-09 10:11:03+00');
-- DateCreated becomes each cell's timestamp
INSERT INTO invoice_cells SELECT invoice, 'Invoice', 'details', created, details FROM invoices_native;
INSERT INTO invoice_cells SELECT invoice, 'Payments', payment, created, details FROM payments_native;
-- the stored table as the seed draws it: a row per invoice, the payment
-- ids sorted within their family (0275 before 0327)
SELECT rowkey, family, qualifier, ts, value->'amount_usd' AS amount_usd FROM invoice_cells;
SELECT differences(
  $$SELECT rowkey, family, qualifier, ts, value FROM invoice_cells$$,
  $$SELECT invoice, 'Invoice', 'details', created, details FROM invoices_native
    UNION ALL SELECT invoice, 'Payments', payment, created, details FROM payments_native$$);
-- an invoice with all its payments: one point read of one row
EXPLAIN (COSTS OFF) SELECT * FROM invoices WHERE rowkey = '0123';
SELECT * FROM invoices WHERE rowkey = '0123';
SELECT differences(
  $$SELECT rowkey, details, payments FROM invoices$$,
  $$SELECT invoice, details, (SELECT jsonb_object_agg(payment, p.details) FROM payments_native p
                               WHERE p.invoice = i.invoice) FROM invoices_native i$$);
-- list an invoice's payments, with their times: the family of one row
EXPLAIN (COSTS OFF) SELECT qualifier, ts FROM invoice_cells WHERE rowkey = '0124' AND family = 'Payments';
SELECT qualifier AS payment, ts AS created FROM invoice_cells WHERE rowkey = '0124' AND family = 'Payments';
SELECT differences(
  $$SELECT qualifier, ts FROM invoice_cells WHERE rowkey = '0124' AND family = 'Payments'$$,
  $$SELECT payment, created FROM payments_native WHERE invoice = '0124'$$);
-- the same through the map: its keys
SELECT rowkey, (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(payments) k) AS payments
  FROM invoices ORDER BY rowkey;
-- what each invoice has been paid, and what it still owes
CREATE VIEW balances AS
  SELECT rowkey AS invoice, (details->>'total_usd')::numeric AS total,
         coalesce((SELECT sum((p.value->>'amount_usd')::numeric) FROM jsonb_each(payments) p), 0) AS paid
    FROM invoices;
CREATE VIEW balances_native AS
  SELECT invoice, (details->>'total_usd')::numeric AS total,
         coalesce((SELECT sum((p.details->>'amount_usd')::numeric) FROM payments_native p
                    WHERE p.invoice = i.invoice), 0) AS paid
    FROM invoices_native i;
SELECT invoice, total, paid, total - paid AS owed FROM balances ORDER BY invoice;
SELECT differences($$SELECT * FROM balances$$, $$SELECT * FROM balances_native$$);
-- a new payment is a new qualifier: through the map, one cell written at
-- the commit's time, the other payments untouched
UPDATE invoices SET payments = payments || '{"0901": {"amount_usd": 50, "bill_to": "John", "address": "123 Abc St"}}'
 WHERE rowkey = '0123';
INSERT INTO payments_native VALUES
  ('0123', '0901', '{"amount_usd": 50, "bill_to": "John", "address": "123 Abc St"}', now());
SELECT qualifier, ts > '2024-01-01' AS written_now FROM invoice_cells
 WHERE rowkey = '0123' AND family = 'Payments';
-- ... and through the cells table, at the payment's own time
INSERT INTO invoice_cells VALUES ('0124', 'Payments', '0411', '2023-09-20 09:00:00+00',
  '{"amount_usd": 20, "bill_to": "Kate", "address": "21 Zyx St"}');
INSERT INTO payments_native VALUES
  ('0124', '0411', '{"amount_usd": 20, "bill_to": "Kate", "address": "21 Zyx St"}', '2023-09-20 09:00:00+00');
SELECT invoice, total, paid, total - paid AS owed FROM balances ORDER BY invoice;
SELECT differences($$SELECT * FROM balances$$, $$SELECT * FROM balances_native$$);
-- a payment voided: its cell deleted, the others kept
UPDATE invoices SET payments = payments - '0680' WHERE rowkey = '0123';
DELETE FROM payments_native WHERE invoice = '0123' AND payment = '0680';
SELECT qualifier FROM invoice_cells WHERE rowkey = '0123' AND family = 'Payments';
-- paying off what 0123 owes: a last payment of the balance, read from the
-- row and written to it in one statement; then no invoice owes anything
UPDATE invoices SET payments = payments || jsonb_build_object('0950', jsonb_build_object(
         'amount_usd', (details->>'total_usd')::numeric
                       - (SELECT sum((p.value->>'amount_usd')::numeric) FROM jsonb_each(payments) p),
         'bill_to', 'Jane', 'address', '13 Xyz St'))
 WHERE rowkey = '0123'
 RETURNING payments->'0950';
INSERT INTO payments_native
  SELECT invoice, '0950', jsonb_build_object('amount_usd', total - paid, 'bill_to', 'Jane',
         'address', '13 Xyz St'), now()
    FROM balances_native WHERE invoice = '0123';
SELECT invoice, total, paid, total - paid AS owed FROM balances ORDER BY invoice;
SELECT differences($$SELECT * FROM balances$$, $$SELECT * FROM balances_native$$);
SELECT invoice FROM balances WHERE paid < total;
-- the invoice as it was at 15:21:45, before its details were written
-- (15:21:48): payment 0789 was there already.  0680 (15:21:40) is not,
-- although it was voided only later: Payments keeps one version of each
-- cell, and the deletion is the newest entry of 0680's cell, so nothing
-- older is kept (history is for families that keep more versions)
SET widecolumn.as_of = '2023-09-10 15:21:45+00';
SELECT rowkey, details, (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(payments) k) AS payments
  FROM invoices WHERE rowkey = '0123';
RESET widecolumn.as_of;
-- "no cascading delete of other databases needed": deleting an invoice
-- deletes its payments, one row, one request
DELETE FROM invoices WHERE rowkey = '0124';
DELETE FROM invoices_native WHERE invoice = '0124';
SELECT count(*) AS cells_of_0124 FROM invoice_cells WHERE rowkey = '0124';
SELECT differences(
  $$SELECT rowkey, family, qualifier, value FROM invoice_cells$$,
  $$SELECT invoice, 'Invoice', 'details', details FROM invoices_native
    UNION ALL SELECT invoice, 'Payments', payment, details FROM payments_native$$);

DROP VIEW balances, balances_native, kept_comments, kept_comments_native;
DROP TABLE products_native, comments_native, videos_native, payments_native, invoices_native;
DROP FOREIGN TABLE products, product_keys, videos, video_cells, video_bytes, invoices, invoice_cells;
DROP FUNCTION differences(text, text), entries_read(text);
DROP SERVER seed3_srv;
RESET TimeZone;
