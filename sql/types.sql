-- Type round trips: every type with its own encoding, plus one that uses
-- its text form, compared with a native table holding the same values.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER types_srv FOREIGN DATA WRAPPER widecolumn_fdw;

CREATE TABLE types_native (
    k text COLLATE "C" PRIMARY KEY,
    t text, vc varchar(10), bp char(3), by bytea, b boolean,
    i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, n numeric,
    d date, ts timestamp, tz timestamptz, u uuid, j json, jb jsonb,
    ia int[], iv interval
);
CREATE FOREIGN TABLE types_wc (
    k text OPTIONS (rowkey 'true'),
    t text, vc varchar(10), bp char(3), by bytea, b boolean,
    i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, n numeric,
    d date, ts timestamp, tz timestamptz, u uuid, j json, jb jsonb,
    ia int[], iv interval
) SERVER types_srv;

INSERT INTO types_native VALUES
 ('a', 'hello', 'varchar', 'ab', '\x00ff00'::bytea, true,
  32767, 2147483647, 9223372036854775807, 1.5, 3.141592653589793, 12345678901234567890.123456789,
  '2024-02-29', '2024-02-29 12:34:56.789012', '2024-02-29 12:34:56.789012+00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
  '{"a": [1, 2]}', '{"b": {"c": null}, "a": 1}', '{1,NULL,3}', '1 day 2 hours'),
 ('b', '', '', '', ''::bytea, false,
  -32768, -2147483648, -9223372036854775808, '-0', '-Infinity', 'NaN',
  '-infinity', 'infinity', '-infinity', '00000000-0000-0000-0000-000000000000',
  '[]', '[]', '{}', '-1 year'),
 ('c', 'ünïcødé ☃ 𝄞', NULL, NULL, NULL, NULL,
  0, 0, 0, 'NaN', 'Infinity', '-0.000000000000000000001',
  '4713-01-01 BC', '294247-01-10 04:00:54.775806', '1970-01-01 00:00:00+00', NULL,
  'null', '"str"', NULL, NULL),
 ('d', repeat('x', 100000), NULL, NULL, decode(repeat('00ff', 5000), 'hex'), NULL,
  NULL, NULL, NULL, 1e-38, 1e308, 1e-100,
  '5874897-12-31', '4713-01-01 00:00:00 BC', '0001-01-01 00:00:00+00', NULL,
  NULL, '{"deep": {"deeper": {"deepest": [1, 2.5, "three", true, null]}}}', '{{1,2},{3,4}}', '00:00:00.000001');

INSERT INTO types_wc SELECT * FROM types_native;

-- Every column of every row equals the native one (IS NOT DISTINCT FROM).
SELECT n.k,
       (n.t IS NOT DISTINCT FROM w.t) AS t, (n.vc IS NOT DISTINCT FROM w.vc) AS vc,
       (n.bp IS NOT DISTINCT FROM w.bp) AS bp, (n.by IS NOT DISTINCT FROM w.by) AS by,
       (n.b IS NOT DISTINCT FROM w.b) AS b, (n.i2 IS NOT DISTINCT FROM w.i2) AS i2,
       (n.i4 IS NOT DISTINCT FROM w.i4) AS i4, (n.i8 IS NOT DISTINCT FROM w.i8) AS i8,
       (n.f4::text IS NOT DISTINCT FROM w.f4::text) AS f4,
       (n.f8::text IS NOT DISTINCT FROM w.f8::text) AS f8,
       (n.n::text IS NOT DISTINCT FROM w.n::text) AS n,
       (n.d IS NOT DISTINCT FROM w.d) AS d, (n.ts IS NOT DISTINCT FROM w.ts) AS ts,
       (n.tz IS NOT DISTINCT FROM w.tz) AS tz, (n.u IS NOT DISTINCT FROM w.u) AS u,
       (n.j::text IS NOT DISTINCT FROM w.j::text) AS j, (n.jb IS NOT DISTINCT FROM w.jb) AS jb,
       (n.ia IS NOT DISTINCT FROM w.ia) AS ia, (n.iv IS NOT DISTINCT FROM w.iv) AS iv
FROM types_native n FULL JOIN types_wc w USING (k)
ORDER BY n.k;

-- And the values themselves, where they are short enough to read.
SELECT k, t, vc, bp, by, b, i2, i4, i8, f4, f8, n, d, ts, tz, u, j, jb, ia, iv
FROM types_wc WHERE k < 'd';
SELECT k, length(t), length(by), f4, f8, n, d, ts, tz, jb, ia, iv FROM types_wc WHERE k = 'd';

-- The same cells read through other types: bytes are bytes.
CREATE FOREIGN TABLE types_raw (
    k text OPTIONS (rowkey 'true'),
    i4 bytea, i8 bytea, f8 bytea, d bytea, tz bytea, b bytea, n bytea, jb bytea, u bytea
) SERVER types_srv OPTIONS (table 'types_wc');
SELECT k, i4, i8, f8, d, tz, b, n, jb, u FROM types_raw WHERE k = 'a';

-- A stored value that does not decode as the column's type is an error
-- naming the column and the row.
CREATE FOREIGN TABLE types_wrong (
    k text OPTIONS (rowkey 'true'),
    t int4, by text, n int8, b boolean OPTIONS (column 'cf:i4'), jb numeric, u date, ia int
) SERVER types_srv OPTIONS (table 'types_wc');
SELECT k, t FROM types_wrong WHERE k = 'a';
SELECT k, by FROM types_wrong WHERE k = 'a';
SELECT k, jb FROM types_wrong WHERE k = 'a';
SELECT k, u FROM types_wrong WHERE k = 'a';
SELECT k, b FROM types_wrong WHERE k = 'a';
SELECT k, ia FROM types_wrong WHERE k = 'a';
-- text that is valid in the target type is fine
SELECT k, by FROM types_wrong WHERE k = 'b';
-- values past the range a cell can hold are refused when written
INSERT INTO types_wc (k, ts) VALUES ('late', '294247-01-10 04:00:54.775807');
INSERT INTO types_wc (k, tz) VALUES ('late', '294276-12-31 23:59:59.999999+00');
SELECT count(*) FROM types_wc WHERE k = 'late';

DROP TABLE types_native;
DROP SERVER types_srv CASCADE;
