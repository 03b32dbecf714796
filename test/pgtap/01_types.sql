-- Specification: every supported value type round-trips through a cell.
--
-- The oracle is a native table holding the same rows: each foreign column
-- must read back exactly what the native column holds.  Values are
-- compared in their text form (ROW(x)::text) as well as by value, so that
-- -0, numeric scale, char padding and json spacing cannot hide behind an
-- equality operator.
--
-- No outer transaction: writes reach storage at COMMIT, and these checks
-- read committed data (one check reads uncommitted rows).  Stored tables:
-- spec_types, spec_types_long, spec_types_ext<n>, spec_types_guc_<setting>,
-- spec_types_tx (never committed), spec_types_enc (server spec_types_srv).

\set ON_ERROR_STOP 1
SET client_min_messages = warning;

SELECT plan(72);

-- A failing read must be a failed test, not the end of the file.
\ir setup.psql

CREATE SERVER spec_types_srv FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE TYPE spec_mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN spec_posint AS integer CHECK (VALUE > 0);

-- The oracle.
CREATE TABLE types_n (
	k text PRIMARY KEY,
	t text, vc varchar(12), bc char(5), by bytea, b boolean,
	i2 smallint, i4 integer, i8 bigint, f4 real, f8 double precision,
	n numeric, n2 numeric(12,4), d date, ts timestamp, tz timestamptz,
	u uuid, j json, jb jsonb,
	-- no dedicated encoding: stored in their text form
	iv interval, ip inet, ia integer[], ta text[], mo spec_mood, dm spec_posint, tm time
);

CREATE FOREIGN TABLE types_f (
	k text OPTIONS (rowkey 'true'),
	t text, vc varchar(12), bc char(5), by bytea, b boolean,
	i2 smallint, i4 integer, i8 bigint, f4 real, f8 double precision,
	n numeric, n2 numeric(12,4), d date, ts timestamp, tz timestamptz,
	u uuid, j json, jb jsonb,
	iv interval, ip inet, ia integer[], ta text[], mo spec_mood, dm spec_posint, tm time
) SERVER spec_types_srv OPTIONS (table 'spec_types');

INSERT INTO types_n VALUES
	('r01 typical', 'hello', 'varchar', 'abc', '\xdeadbeef', true,
	 42, 4242, 424242424242, 1.5, 3.25,
	 123.456, 12.5, '2024-02-29', '2024-02-29 12:34:56.789012', '2024-02-29 12:34:56.789012+05:30',
	 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": 1}', '{"a": 1}',
	 '1 year 2 mons 3 days 04:05:06.789', '192.168.0.1/24', '{1,2,3}', '{a,b,"c d"}', 'happy', 7, '12:34:56.789'),
	('r02 minimums', '', '', '', '\x', false,
	 -32768, -2147483648, -9223372036854775808, '-Infinity', '-Infinity',
	 '-123456789012345678901234567890.123456789012345678901234567890', -99999999.9999,
	 '-infinity', '-infinity', '-infinity',
	 '00000000-0000-0000-0000-000000000000', '[]', '{}',
	 '-178000000 years', '0.0.0.0/0', '{}', '{}', 'sad', 1, '00:00:00'),
	('r03 maximums', 'héllo wörld ✓ 日本語 🎉', 'ünïcødé ✓🎉', 'ü✓🎉', '\x00ff00', true,
	 32767, 2147483647, 9223372036854775807, 'Infinity', 'Infinity',
	 'Infinity', 99999999.9999, 'infinity', 'infinity', 'infinity',
	 'ffffffff-ffff-ffff-ffff-ffffffffffff',
	 '{"a" : [1, 2, {"b": null}],   "a": "dup key kept", "nul": "\u0000"}',
	 '{"a": [1, 2.50, {"b": null, "c": [true, false, {"d": {"e": {"f": ["deep", 1e3]}}}]}], "z": "\u00e9x"}',
	 '178000000 years', '::ffff:1.2.3.4/128', '{2147483647,-2147483648,NULL}', '{"",NULL,"\"q\"","a,b"}', 'ok', 2147483647, '24:00:00'),
	('r04 special floats', E'tab\there\nnewline \\ backslash '' quote " dq', NULL, 'ab', '\x00', NULL,
	 0, 0, 0, 'NaN', 'NaN',
	 'NaN', 0, '1970-01-01', '1970-01-01 00:00:00', '1970-01-01 00:00:00+00',
	 NULL, 'null', 'null', '0', '::1', NULL, NULL, NULL, NULL, NULL),
	('r05 negative zero', ' leading and trailing spaces  ', '  ', ' ', '\x0000', false,
	 -1, -1, -1, '-0', '-0',
	 '-0.000000000000000000000000000001', -0.0001, '1969-12-31', '1969-12-31 23:59:59.999999', '1969-12-31 23:59:59.999999+00',
	 NULL, '"string"', '"string"', '-1 days +02:03:04', NULL, NULL, NULL, NULL, NULL, NULL),
	('r06 float limits', repeat('x', 10000), repeat('y', 12), 'abcde', decode(repeat('00ff', 1000), 'hex'), true,
	 1, 1, 1, '1.4e-45', '4.9e-324',
	 1e-1000, 1, '2000-01-01', '2000-01-01 00:00:00', '2000-01-01 00:00:00+00',
	 NULL, '1.50', '1.50', '-1 day -02:03:04', NULL, NULL, NULL, NULL, NULL, NULL),
	('r07 float maxima', 'x', NULL, NULL, NULL, NULL,
	 NULL, NULL, NULL, '3.4028235e38', '1.7976931348623157e308',
	 repeat('9', 1000)::numeric + ('0.' || repeat('0', 999) || '1')::numeric, NULL,
	 '4714-11-24 BC', '4714-11-24 00:00:00 BC', '4714-11-24 00:00:00+00 BC',
	 NULL, '{"nested": {"deeper": [[[]]]}}', '[[[[[[[[[[1]]]]]]]]]]', NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	('r08 precise floats', 'x', NULL, NULL, NULL, NULL,
	 NULL, NULL, NULL, '0.1', '0.30000000000000004',
	 '0.10', NULL, '5874897-12-31', '294000-01-01 00:00:00', '294000-01-01 00:00:00+00',
	 NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	('r09 one cell', NULL, NULL, NULL, NULL, false,
	 NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	 NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

INSERT INTO types_f SELECT * FROM types_n;

-- Per column, in text form.
SELECT pg_temp.check_eq('SELECT k, ROW(t)::text FROM types_f ORDER BY k',  'SELECT k, ROW(t)::text FROM types_n ORDER BY k',  'text round trip (empty, unicode, control characters, 10 kB)');
SELECT pg_temp.check_eq('SELECT k, ROW(vc)::text FROM types_f ORDER BY k', 'SELECT k, ROW(vc)::text FROM types_n ORDER BY k', 'varchar(12) round trip');
SELECT pg_temp.check_eq('SELECT k, ROW(bc)::text, octet_length(bc) FROM types_f ORDER BY k', 'SELECT k, ROW(bc)::text, octet_length(bc) FROM types_n ORDER BY k', 'char(5) round trip keeps the padding');
SELECT pg_temp.check_eq('SELECT k, ROW(by)::text FROM types_f ORDER BY k', 'SELECT k, ROW(by)::text FROM types_n ORDER BY k', 'bytea round trip (empty, zero bytes, 0xFF)');
SELECT pg_temp.check_eq('SELECT k, ROW(b)::text FROM types_f ORDER BY k',  'SELECT k, ROW(b)::text FROM types_n ORDER BY k',  'boolean round trip');
SELECT pg_temp.check_eq('SELECT k, ROW(i2)::text FROM types_f ORDER BY k', 'SELECT k, ROW(i2)::text FROM types_n ORDER BY k', 'smallint round trip (min, max, -1, 0)');
SELECT pg_temp.check_eq('SELECT k, ROW(i4)::text FROM types_f ORDER BY k', 'SELECT k, ROW(i4)::text FROM types_n ORDER BY k', 'integer round trip (min, max, -1, 0)');
SELECT pg_temp.check_eq('SELECT k, ROW(i8)::text FROM types_f ORDER BY k', 'SELECT k, ROW(i8)::text FROM types_n ORDER BY k', 'bigint round trip (min, max, -1, 0)');
SELECT pg_temp.check_eq('SELECT k, ROW(f4)::text FROM types_f ORDER BY k', 'SELECT k, ROW(f4)::text FROM types_n ORDER BY k', 'real round trip (NaN, infinities, -0, subnormal, max)');
SELECT pg_temp.check_eq('SELECT k, ROW(f8)::text FROM types_f ORDER BY k', 'SELECT k, ROW(f8)::text FROM types_n ORDER BY k', 'double precision round trip (NaN, infinities, -0, subnormal, max)');
SELECT pg_temp.check_eq('SELECT k, ROW(n)::text FROM types_f ORDER BY k',  'SELECT k, ROW(n)::text FROM types_n ORDER BY k',  'numeric round trip (NaN, infinities, 2000 digits, scale kept)');
SELECT pg_temp.check_eq('SELECT k, ROW(n2)::text FROM types_f ORDER BY k', 'SELECT k, ROW(n2)::text FROM types_n ORDER BY k', 'numeric(12,4) round trip');
SELECT pg_temp.check_eq('SELECT k, ROW(d)::text FROM types_f ORDER BY k',  'SELECT k, ROW(d)::text FROM types_n ORDER BY k',  'date round trip (infinities, 4714 BC, 5874897 AD, around the epochs)');
SELECT pg_temp.check_eq('SELECT k, ROW(ts)::text FROM types_f ORDER BY k', 'SELECT k, ROW(ts)::text FROM types_n ORDER BY k', 'timestamp round trip (infinities, 4714 BC, 294000 AD, around the epochs)');
SELECT pg_temp.check_eq('SELECT k, ROW(tz)::text FROM types_f ORDER BY k', 'SELECT k, ROW(tz)::text FROM types_n ORDER BY k', 'timestamptz round trip');
SELECT pg_temp.check_eq('SELECT k, ROW(u)::text FROM types_f ORDER BY k',  'SELECT k, ROW(u)::text FROM types_n ORDER BY k',  'uuid round trip');
SELECT pg_temp.check_eq('SELECT k, ROW(j)::text FROM types_f ORDER BY k',  'SELECT k, ROW(j)::text FROM types_n ORDER BY k',  'json round trip keeps spacing, duplicate keys and \u0000');
SELECT pg_temp.check_eq('SELECT k, ROW(jb)::text FROM types_f ORDER BY k', 'SELECT k, ROW(jb)::text FROM types_n ORDER BY k', 'jsonb round trip (nested, escapes, numbers)');
SELECT pg_temp.check_eq('SELECT k, ROW(iv)::text FROM types_f ORDER BY k', 'SELECT k, ROW(iv)::text FROM types_n ORDER BY k', 'interval round trip (text form)');
SELECT pg_temp.check_eq('SELECT k, ROW(ip)::text FROM types_f ORDER BY k', 'SELECT k, ROW(ip)::text FROM types_n ORDER BY k', 'inet round trip (text form)');
SELECT pg_temp.check_eq('SELECT k, ROW(ia)::text FROM types_f ORDER BY k', 'SELECT k, ROW(ia)::text FROM types_n ORDER BY k', 'integer[] round trip (text form, NULL elements, empty array)');
SELECT pg_temp.check_eq('SELECT k, ROW(ta)::text FROM types_f ORDER BY k', 'SELECT k, ROW(ta)::text FROM types_n ORDER BY k', 'text[] round trip (text form, quoting)');
SELECT pg_temp.check_eq('SELECT k, ROW(mo)::text FROM types_f ORDER BY k', 'SELECT k, ROW(mo)::text FROM types_n ORDER BY k', 'enum round trip (text form)');
SELECT pg_temp.check_eq('SELECT k, ROW(dm)::text FROM types_f ORDER BY k', 'SELECT k, ROW(dm)::text FROM types_n ORDER BY k', 'domain over integer round trip (text form)');
SELECT pg_temp.check_eq('SELECT k, ROW(tm)::text FROM types_f ORDER BY k', 'SELECT k, ROW(tm)::text FROM types_n ORDER BY k', 'time round trip (text form, 24:00)');

-- Whole rows, by value (json has no equality operator: compared as text).
SELECT pg_temp.check_eq(
	'SELECT k, t, vc, bc, by, b, i2, i4, i8, f4, f8, n, n2, d, ts, tz, u, j::text, jb, iv, ip, ia, ta, mo, dm, tm FROM types_f ORDER BY k',
	'SELECT k, t, vc, bc, by, b, i2, i4, i8, f4, f8, n, n2, d, ts, tz, u, j::text, jb, iv, ip, ia, ta, mo, dm, tm FROM types_n ORDER BY k',
	'whole rows equal the oracle by value');
SELECT pg_temp.check_eq(
	'SELECT ROW(k, t, vc, bc, by, b, i2, i4, i8, f4, f8, n, n2, d, ts, tz, u, j, jb, iv, ip, ia, ta, mo, dm, tm)::text FROM types_f',
	'SELECT ROW(k, t, vc, bc, by, b, i2, i4, i8, f4, f8, n, n2, d, ts, tz, u, j, jb, iv, ip, ia, ta, mo, dm, tm)::text FROM types_n ORDER BY k COLLATE "C"',
	'whole rows equal the oracle in text form, in row-key order without ORDER BY');

-- The decoded values behave as values of their type.
SELECT pg_temp.check_eq('SELECT k FROM types_f WHERE f8 = ''NaN'' ORDER BY k',       'SELECT k FROM types_n WHERE f8 = ''NaN'' ORDER BY k',       'NaN compares equal to NaN');
SELECT pg_temp.check_eq('SELECT k FROM types_f WHERE f8 < 0 ORDER BY k',             'SELECT k FROM types_n WHERE f8 < 0 ORDER BY k',             'negative doubles are negative');
SELECT pg_temp.check_eq('SELECT k FROM types_f WHERE f4::text = ''-0'' ORDER BY k',  'SELECT k FROM types_n WHERE f4::text = ''-0'' ORDER BY k',  'real -0 keeps its sign');
SELECT pg_temp.check_eq('SELECT k FROM types_f WHERE d < ''1970-01-01'' ORDER BY k', 'SELECT k FROM types_n WHERE d < ''1970-01-01'' ORDER BY k', 'dates before the Unix epoch compare as such');
SELECT pg_temp.check_eq('SELECT k FROM types_f WHERE ts > ''2000-01-01'' ORDER BY k', 'SELECT k FROM types_n WHERE ts > ''2000-01-01'' ORDER BY k', 'timestamps after 2000 compare as such');
SELECT pg_temp.check_eq('SELECT k, u FROM types_f WHERE u IS NOT NULL ORDER BY u',   'SELECT k, u FROM types_n WHERE u IS NOT NULL ORDER BY u',   'uuids sort as uuids');
SELECT pg_temp.check_eq('SELECT k, n FROM types_f WHERE n IS NOT NULL ORDER BY n, k', 'SELECT k, n FROM types_n WHERE n IS NOT NULL ORDER BY n, k', 'numerics sort as numerics');
SELECT pg_temp.check_eq('SELECT k, jb #> ''{a,2,c,2,d,e,f}'', jb ? ''z'', jsonb_typeof(jb) FROM types_f WHERE jb IS NOT NULL ORDER BY k',
                        'SELECT k, jb #> ''{a,2,c,2,d,e,f}'', jb ? ''z'', jsonb_typeof(jb) FROM types_n WHERE jb IS NOT NULL ORDER BY k',
                        'jsonb operators on decoded values');
SELECT pg_temp.check_eq('SELECT k, (j -> ''a'')::text, json_typeof(j) FROM types_f WHERE j IS NOT NULL AND k <> ''r03 maximums'' ORDER BY k',
                        'SELECT k, (j -> ''a'')::text, json_typeof(j) FROM types_n WHERE j IS NOT NULL AND k <> ''r03 maximums'' ORDER BY k',
                        'json operators on decoded values');
SELECT pg_temp.check_eq('SELECT k, length(t), octet_length(t), length(by), get_byte(by, 0) FROM types_f WHERE length(by) > 0 ORDER BY k',
                        'SELECT k, length(t), octet_length(t), length(by), get_byte(by, 0) FROM types_n WHERE length(by) > 0 ORDER BY k',
                        'lengths of text and bytea values');

-- NULL columns: a NULL is no cell, and a row with no cells does not exist.
SELECT pg_temp.check_eq('SELECT k, num_nulls(t, vc, bc, by, b, i2, i4, i8, f4, f8, n, n2, d, ts, tz, u, j, jb, iv, ip, ia, ta, mo, dm, tm) FROM types_f ORDER BY k',
                        'SELECT k, num_nulls(t, vc, bc, by, b, i2, i4, i8, f4, f8, n, n2, d, ts, tz, u, j, jb, iv, ip, ia, ta, mo, dm, tm) FROM types_n ORDER BY k',
                        'NULL columns read back as NULL');
INSERT INTO types_f (k) VALUES ('r00 no cells');
INSERT INTO types_f (k, t, i4) VALUES ('r10 all null', NULL, NULL);
SELECT is_empty('SELECT k FROM types_f WHERE k IN (''r00 no cells'', ''r10 all null'')', 'a row inserted without non-NULL columns does not exist');
SELECT pg_temp.check_eq('SELECT count(*) FROM types_f', 'SELECT count(*) FROM types_n', 'count(*) does not see rows without cells');

-- Long values: 1 MB of text, of bytea with every byte value, of jsonb.
CREATE TABLE long_n (k text PRIMARY KEY, t text, by bytea, jb jsonb);
CREATE FOREIGN TABLE long_f (k text OPTIONS (rowkey 'true'), t text, by bytea, jb jsonb)
	SERVER spec_types_srv OPTIONS (table 'spec_types_long');
INSERT INTO long_n
	SELECT 'a 1 MB', string_agg(md5(i::text), ''), decode(string_agg(md5(i::text), ''), 'hex'), NULL
	FROM generate_series(1, 32768) i;
INSERT INTO long_n
	SELECT 'b 4 MB', string_agg(md5(i::text) || 'äöü✓', ''), decode(string_agg(md5(i::text), ''), 'hex'),
	       jsonb_object_agg(md5(i::text), jsonb_build_array(i, md5(i::text), i / 7.0))
	FROM generate_series(1, 65536 * 2) i;
INSERT INTO long_n VALUES ('c every byte', NULL, (SELECT decode(string_agg(lpad(to_hex(i), 2, '0'), ''), 'hex') FROM generate_series(0, 255) i), NULL);
INSERT INTO long_f SELECT * FROM long_n;
SELECT pg_temp.check_eq('SELECT k, octet_length(t), md5(t), octet_length(by), md5(by), md5(jb::text) FROM long_f ORDER BY k',
                        'SELECT k, octet_length(t), md5(t), octet_length(by), md5(by), md5(jb::text) FROM long_n ORDER BY k',
                        'long text, bytea and jsonb values round trip (md5)');
SELECT pg_temp.check_eq('SELECT f.k FROM long_f f JOIN long_n n USING (k) WHERE f.t IS NOT DISTINCT FROM n.t AND f.by = n.by AND f.jb IS NOT DISTINCT FROM n.jb ORDER BY k',
                        'SELECT k FROM long_n ORDER BY k',
                        'long values equal the oracle value by value');
SELECT pg_temp.check_eq('SELECT k, by FROM long_f WHERE k = ''c every byte''', 'SELECT k, by FROM long_n WHERE k = ''c every byte''', 'bytea with all 256 byte values');

-- The extremes of the date/time types.  Cells count microseconds since
-- 1970 in 64 bits, so the latest storable timestamp is 294247-01-10
-- 04:00:54.775806 UTC; a later one is refused when written (22008), never
-- stored wrong.  Each value has a stored table of its own, so that a
-- wrong cell cannot hide the others.
CREATE TABLE ext_n (i int PRIMARY KEY, what text, storable boolean, d date, ts timestamp, tz timestamptz);
INSERT INTO ext_n VALUES
	(1, 'date max',  true, '5874897-12-31', NULL, NULL),
	(2, 'date min',  true, '4714-11-24 BC', NULL, NULL),
	(3, 'timestamp max', false, NULL, '294276-12-31 23:59:59.999999', NULL),
	(4, 'timestamp min', true, NULL, '4714-11-24 00:00:00 BC', NULL),
	(5, 'timestamp 2^63-1 us after 1970', false, NULL, '294247-01-10 04:00:54.775807', NULL),
	(6, 'timestamp 2^63 us after 1970', false, NULL, '294247-01-10 04:00:54.775808', NULL),
	(7, 'timestamp 2^63-2 us after 1970', true, NULL, '294247-01-10 04:00:54.775806', NULL),
	(8, 'timestamptz max', false, NULL, NULL, '294276-12-31 23:59:59.999999+00'),
	(9, 'timestamptz min', true, NULL, NULL, '4714-11-24 00:00:00+00 BC'),
	(10, 'timestamptz 2^63-2 us after 1970', true, NULL, NULL, '294247-01-10 04:00:54.775806+00'),
	(11, 'timestamptz 2^63-1 us after 1970', false, NULL, NULL, '294247-01-10 04:00:54.775807+00');
SELECT format('CREATE FOREIGN TABLE ext_f%s (k text OPTIONS (rowkey ''true''), d date, ts timestamp, tz timestamptz)
	SERVER spec_types_srv OPTIONS (table ''spec_types_ext%s'')', i, i)
FROM ext_n ORDER BY i
\gexec
SELECT format('INSERT INTO ext_f%s SELECT what, d, ts, tz FROM ext_n WHERE i = %s', i, i)
FROM ext_n WHERE storable ORDER BY i
\gexec
SELECT CASE WHEN storable THEN
	format('SELECT pg_temp.check_eq(%L, %L, %L)',
		format('SELECT k, d, ts, tz FROM ext_f%s', i),
		format('SELECT what, d, ts, tz FROM ext_n WHERE i = %s', i),
		'extreme value round trip: ' || what)
	ELSE
	format('SELECT throws_ok(%L, %L, %L, %L)',
		format('INSERT INTO ext_f%s SELECT what, d, ts, tz FROM ext_n WHERE i = %s', i, i),
		'22008', 'timestamp out of range for a widecolumn_fdw cell',
		'a value past the storable range is refused: ' || what)
	END
FROM ext_n ORDER BY i
\gexec
SELECT is_empty(string_agg(format('SELECT k FROM ext_f%s', i), ' UNION ALL '),
	'refused values wrote nothing')
FROM ext_n WHERE NOT storable;

-- Cells hold values, not session-dependent text: reading under other
-- settings than the writer's gives the same values.  One stored table per
-- setting, for the same reason as above.
CREATE TABLE guc_n (k text PRIMARY KEY, fa float8[], da date[], iv interval, tz timestamptz, tza timestamptz[]);
INSERT INTO guc_n VALUES
	('extra_float_digits', '{0.30000000000000004, 1e-300}', NULL, NULL, NULL, NULL),
	('DateStyle', NULL, '{2020-04-03, 1999-12-31}', NULL, NULL, '{2024-06-01 12:00:00+00}'),
	('IntervalStyle', NULL, NULL, '-1 day -02:03:04', NULL, NULL),
	('TimeZone', NULL, NULL, NULL, '2024-06-01 12:00:00+00', '{2024-06-01 12:00:00+00}');
SELECT format('CREATE FOREIGN TABLE %I (k text OPTIONS (rowkey ''true''), fa float8[], da date[], iv interval, tz timestamptz, tza timestamptz[])
	SERVER spec_types_srv OPTIONS (table %L)', 'guc_' || lower(k), 'spec_types_guc_' || lower(k))
FROM guc_n
\gexec
SET extra_float_digits = 0;
INSERT INTO guc_extra_float_digits SELECT * FROM guc_n WHERE k = 'extra_float_digits';
RESET extra_float_digits;
SET datestyle = 'SQL, DMY';
INSERT INTO guc_datestyle SELECT * FROM guc_n WHERE k = 'DateStyle';
RESET datestyle;
SET intervalstyle = 'sql_standard';
INSERT INTO guc_intervalstyle SELECT * FROM guc_n WHERE k = 'IntervalStyle';
RESET intervalstyle;
SET timezone = 'Asia/Kathmandu';
INSERT INTO guc_timezone SELECT * FROM guc_n WHERE k = 'TimeZone';
SET timezone = 'America/St_Johns';
SELECT pg_temp.check_eq('SELECT * FROM guc_extra_float_digits', 'SELECT * FROM guc_n WHERE k = ''extra_float_digits''',
	'float8[] written with extra_float_digits = 0 keeps its precision');
SELECT pg_temp.check_eq('SELECT * FROM guc_datestyle', 'SELECT * FROM guc_n WHERE k = ''DateStyle''',
	'date[] and timestamptz[] written with DateStyle SQL, DMY read back as the same values');
SELECT pg_temp.check_eq('SELECT * FROM guc_intervalstyle', 'SELECT * FROM guc_n WHERE k = ''IntervalStyle''',
	'interval written with IntervalStyle sql_standard reads back as the same interval');
SELECT pg_temp.check_eq('SELECT * FROM guc_timezone', 'SELECT * FROM guc_n WHERE k = ''TimeZone''',
	'timestamptz and timestamptz[] written in another time zone are the same instants');
RESET timezone;

-- A value written in one transaction and read before COMMIT decodes the same.
BEGIN;
CREATE FOREIGN TABLE types_tx (
	k text OPTIONS (rowkey 'true'),
	t text, vc varchar(12), bc char(5), by bytea, b boolean,
	i2 smallint, i4 integer, i8 bigint, f4 real, f8 double precision,
	n numeric, n2 numeric(12,4), d date, ts timestamp, tz timestamptz,
	u uuid, j json, jb jsonb,
	iv interval, ip inet, ia integer[], ta text[], mo spec_mood, dm spec_posint, tm time
) SERVER spec_types_srv OPTIONS (table 'spec_types_tx');
INSERT INTO types_tx SELECT * FROM types_n;
SELECT pg_temp.check_eq(
	'SELECT ROW(k, t, vc, bc, by, b, i2, i4, i8, f4, f8, n, n2, d, ts, tz, u, j, jb, iv, ip, ia, ta, mo, dm, tm)::text FROM types_tx',
	'SELECT ROW(k, t, vc, bc, by, b, i2, i4, i8, f4, f8, n, n2, d, ts, tz, u, j, jb, iv, ip, ia, ta, mo, dm, tm)::text FROM types_n ORDER BY k COLLATE "C"',
	'uncommitted rows read back equal to the oracle');
ROLLBACK;

-- The stored bytes are the documented encodings (read through bytea
-- columns mapped to the same cells): big-endian integers and IEEE floats,
-- days and microseconds since the Unix epoch, raw uuid bytes, text forms.
CREATE FOREIGN TABLE enc_w (k text OPTIONS (rowkey 'true'), b boolean, i2 smallint, i4 integer, i8 bigint,
	f4 real, f8 double precision, d date, ts timestamp, tz timestamptz, u uuid, n numeric, jb jsonb, t text)
	SERVER spec_types_srv OPTIONS (table 'spec_types_enc');
CREATE FOREIGN TABLE enc_r (k text OPTIONS (rowkey 'true'), b bytea, i2 bytea, i4 bytea, i8 bytea,
	f4 bytea, f8 bytea, d bytea, ts bytea, tz bytea, u bytea, n bytea, jb bytea, t bytea)
	SERVER spec_types_srv OPTIONS (table 'spec_types_enc');
CREATE TABLE enc_n (k text, b boolean, i2 smallint, i4 integer, i8 bigint,
	f4 real, f8 double precision, d date, ts timestamp, tz timestamptz, u uuid, n numeric, jb jsonb, t text);
INSERT INTO enc_n VALUES
	('a', true, -2, 258, -3, -1.5, 1, '1970-01-02', '1970-01-01 00:00:01', '1969-12-31 23:59:59+00',
	 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 1.50, '{"b": 1, "a": [1, 2]}', 'ü'),
	('b', false, 32767, -2147483648, 9223372036854775807, 'NaN', '-Infinity', '1900-01-01', '2000-01-01', '2000-01-01 00:00:00+00',
	 NULL, 'NaN', '"x"', '');
INSERT INTO enc_w SELECT * FROM enc_n;
SELECT pg_temp.check_eq(
	'SELECT k, b, i2, i4, i8, f4, f8 FROM enc_r ORDER BY k',
	'SELECT k, boolsend(b), int2send(i2), int4send(i4), int8send(i8), float4send(f4), float8send(f8) FROM enc_n ORDER BY k',
	'booleans, integers and floats are stored as their big-endian binary form');
SELECT pg_temp.check_eq(
	'SELECT k, d, ts, tz FROM enc_r ORDER BY k',
	'SELECT k, int4send(d - date ''1970-01-01''), int8send((extract(epoch FROM ts) * 1000000)::bigint),
	        int8send((extract(epoch FROM tz) * 1000000)::bigint) FROM enc_n ORDER BY k',
	'dates and timestamps are stored as days and microseconds since the Unix epoch');
SELECT pg_temp.check_eq(
	'SELECT k, u, n, jb, t FROM enc_r ORDER BY k',
	'SELECT k, uuid_send(u), convert_to(n::text, ''UTF8''), convert_to(jb::text, ''UTF8''), convert_to(t, ''UTF8'') FROM enc_n ORDER BY k',
	'uuid is stored as its 16 bytes, numeric, jsonb and text as their text');

-- A cell that does not decode as its column's type is an error that names it.
CREATE FOREIGN TABLE enc_bad (k text OPTIONS (rowkey 'true'), i8 integer, f4 text)
	SERVER spec_types_srv OPTIONS (table 'spec_types_enc');
SELECT throws_ok('SELECT i8 FROM enc_bad', '22P03',
	'stored value of column "i8" cannot be decoded as type integer',
	'a bigint cell read as integer is an error naming the column');
SELECT throws_ok('SELECT f4 FROM enc_bad WHERE k = ''a''', '22P03',
	'stored value of column "f4" cannot be decoded as type text',
	'a real cell with a zero byte read as text is an error');

-- Counts and declared types.
SELECT is((SELECT count(*)::int FROM types_f), (SELECT count(*)::int FROM types_n), 'row count equals the oracle''s');
SELECT col_type_is('types_f', 'n2', 'numeric(12,4)', 'foreign column types are kept');

--
-- Values stored in the binary send format (arrays, enums, composites) do not
-- depend on the client's encoding: the send and receive functions would
-- convert their text to and from it.  Written and read under LATIN1, and
-- read under the server's encoding, they equal a native table's.
--
CREATE TYPE pg_temp.bin_enc_mood AS ENUM (E'caf\u00e9', 'ok');
CREATE FOREIGN TABLE bin_enc_f (k text OPTIONS (rowkey 'true'), ta text[], m pg_temp.bin_enc_mood)
	SERVER spec_types_srv OPTIONS (table 'spec_types_binenc');
CREATE TABLE bin_enc_n (k text PRIMARY KEY, ta text[], m pg_temp.bin_enc_mood);
INSERT INTO bin_enc_f VALUES ('server', ARRAY[E'\u00e9', E'\u2603'], E'caf\u00e9');
INSERT INTO bin_enc_n VALUES ('server', ARRAY[E'\u00e9', E'\u2603'], E'caf\u00e9');
SET client_encoding = 'LATIN1';
INSERT INTO bin_enc_f VALUES ('latin1', ARRAY[E'\u00e9'], E'caf\u00e9');
INSERT INTO bin_enc_n VALUES ('latin1', ARRAY[E'\u00e9'], E'caf\u00e9');
SELECT CASE WHEN current_setting('server_encoding') = 'UTF8' THEN
	pg_temp.check_eq('SELECT k, ta, m FROM bin_enc_f', 'SELECT k, ta, m FROM bin_enc_n ORDER BY k',
		'arrays and enums read under a LATIN1 client equal the native table''s')
	ELSE skip('the server encoding is not UTF8', 1) END;
RESET client_encoding;
SELECT CASE WHEN current_setting('server_encoding') = 'UTF8' THEN
	pg_temp.check_eq('SELECT k, ta, m FROM bin_enc_f', 'SELECT k, ta, m FROM bin_enc_n ORDER BY k',
		'arrays and enums written under a LATIN1 client read back under the server''s encoding')
	ELSE skip('the server encoding is not UTF8', 1) END;
DELETE FROM bin_enc_f;
DROP FOREIGN TABLE bin_enc_f;
DROP TABLE bin_enc_n;

--
-- ALTER FOREIGN TABLE ... ALTER COLUMN ... TYPE does not rewrite cells, and
-- a cell has no type of its own: a cell written as integer, read as bigint
-- or double precision, is an error that names it (22P03), not a guess (a
-- 4-byte cell could as well be a real or a date).
--
CREATE FOREIGN TABLE widen_f (k text OPTIONS (rowkey 'true'), b integer, r real)
	SERVER spec_types_srv OPTIONS (table 'spec_types_widen');
INSERT INTO widen_f VALUES ('x', 1, 1.5);
ALTER FOREIGN TABLE widen_f ALTER COLUMN b TYPE double precision, ALTER COLUMN r TYPE bigint;
SELECT throws_ok('SELECT b FROM widen_f', '22P03', NULL,
	'an integer cell read as double precision after ALTER COLUMN TYPE is an error, not a guess');
SELECT throws_ok('SELECT r FROM widen_f', '22P03', NULL,
	'a real cell read as bigint likewise');
ALTER FOREIGN TABLE widen_f ALTER COLUMN b TYPE integer, ALTER COLUMN r TYPE real;
DELETE FROM widen_f;
DROP FOREIGN TABLE widen_f;

-- Clean up: empty the stored tables, then drop everything.
DELETE FROM types_f;
DELETE FROM long_f;
SELECT format('DELETE FROM ext_f%s', i) FROM ext_n ORDER BY i
\gexec
DELETE FROM guc_extra_float_digits;
DELETE FROM guc_datestyle;
DELETE FROM guc_intervalstyle;
DELETE FROM guc_timezone;
DELETE FROM enc_r;
SELECT is_empty('SELECT k FROM types_f UNION ALL SELECT k FROM long_f UNION ALL SELECT k FROM guc_timezone UNION ALL SELECT k FROM enc_w',
	'DELETE without WHERE empties the stored tables');

DROP SERVER spec_types_srv CASCADE;
DROP TABLE types_n, long_n, ext_n, guc_n, enc_n;
DROP DOMAIN spec_posint;
DROP TYPE spec_mood;

SELECT * FROM finish();
