-- Seed 000's multi-tenant table (../shared/seeds/, "row key prefixes for
-- multi-tenancy"): one table holds the phone and tablet data of several
-- companies, each company's id the row key's first segment,
-- altostrat#phone#4c410523#20190501.  When a company is no longer a
-- customer, the seed deletes the row range of its prefix: here
-- widecolumn.drop_row_range.  The other tenants must be untouched (a
-- native table holding the same rows is the oracle), their prefix scans
-- must read nothing of the dropped range, and compact must give its space
-- back.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER tenants_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');

-- The key's segments as typed key parts, the day as the seed writes it;
-- the same stored table through its raw row key.
CREATE FOREIGN TABLE usage (
    tenant      text OPTIONS (rowkey_part '1') COLLATE "C",
    device_type text OPTIONS (rowkey_part '2') COLLATE "C",
    device_id   text OPTIONS (rowkey_part '3') COLLATE "C",
    day         date OPTIONS (rowkey_part '4', rowkey_format 'YYYYMMDD'),
    bytes_used  bigint OPTIONS (column 'stats:bytes'),
    plan        text OPTIONS (column 'account:plan')
) SERVER tenants_srv OPTIONS (table 'usage', rowkey_delimiter '#');
CREATE FOREIGN TABLE usage_raw (
    k text OPTIONS (rowkey 'true') COLLATE "C",
    bytes_used bigint OPTIONS (column 'stats:bytes')
) SERVER tenants_srv OPTIONS (table 'usage');
CREATE TABLE usage_native (tenant text COLLATE "C", device_type text COLLATE "C",
    device_id text COLLATE "C", day date, bytes_used bigint, plan text,
    PRIMARY KEY (tenant, device_type, device_id, day));

-- The seed's six keys, as it writes them ...
INSERT INTO usage_raw VALUES
  ('altostrat#phone#4c410523#20190501', 501), ('altostrat#phone#4c410523#20190502', 502),
  ('altostrat#tablet#a0b41f74#20190501', 501), ('examplepetstore#phone#4c410523#20190502', 502),
  ('examplepetstore#tablet#a6b81f79#20190501', 501), ('examplepetstore#tablet#a0b81f79#20190502', 502);
SELECT * FROM usage ORDER BY tenant, device_type, device_id, day;
-- ... and a month of 20 phones and 20 tablets for each of four tenants,
-- one of whose names starts with another's: altostrat and altostratus.
INSERT INTO usage
SELECT tenant, device_type, left(md5(tenant || device_type || d), 8),
       date '2019-05-01' + day, d * 1000 + day, CASE WHEN d % 3 = 0 THEN 'pro' END
  FROM unnest(ARRAY['altostrat', 'altostratus', 'cymbalgroup', 'examplepetstore']) tenant,
       unnest(ARRAY['phone', 'tablet']) device_type,
       generate_series(1, 20) d, generate_series(2, 31) day;
INSERT INTO usage_native SELECT * FROM usage;
CREATE VIEW usage_diff AS
  SELECT count(*) AS differ FROM (
    (SELECT * FROM usage EXCEPT ALL SELECT * FROM usage_native)
    UNION ALL
    (SELECT * FROM usage_native EXCEPT ALL SELECT * FROM usage)) x;
SELECT * FROM usage_diff;
SELECT tenant, count(*) AS rows, sum(bytes_used) AS bytes, count(plan) AS pro
  FROM usage GROUP BY 1 ORDER BY 1;

-- The tenants' sizes, in LevelDB's files (compact writes the memtable out).
SELECT widecolumn.compact('tenants_srv', 'usage') AS deleted;
CREATE TEMP TABLE sizes_before AS
  SELECT tenant, widecolumn.approximate_size('usage', tenant || '#', tenant || '$') AS bytes
    FROM unnest(ARRAY['altostrat', 'altostratus', 'cymbalgroup', 'examplepetstore']) tenant;
SELECT tenant, bytes > 10000 AS has_bytes FROM sizes_before ORDER BY 1;

-- altostrat leaves: one drop, whatever the number of its rows.
SELECT widecolumn.drop_row_range('usage', 'altostrat#');
DELETE FROM usage_native WHERE tenant = 'altostrat';
SELECT * FROM usage_diff;
SELECT tenant, count(*) AS rows, sum(bytes_used) AS bytes, count(plan) AS pro
  FROM usage GROUP BY 1 ORDER BY 1;
SELECT * FROM usage WHERE tenant = 'altostrat';
SELECT * FROM usage_raw WHERE k LIKE 'altostrat#%';
SELECT * FROM usage_raw WHERE k LIKE 'altostrat%' ORDER BY k LIMIT 3;

-- The others' prefix scans read their own entries only, two a row (a row
-- without a plan has one, and 1,200 rows of a tenant have 360 plans) ...
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM usage WHERE tenant = 'altostratus';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM usage WHERE tenant = 'examplepetstore' AND device_type = 'tablet';
-- ... the dropped tenant's reads nothing, and a count of the whole table
-- reads the remaining tenants' 3,603 rows and 4,683 entries alone
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM usage WHERE tenant = 'altostrat';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM usage;

-- The sweep reclaims the range: compact deletes its entries (two a row but
-- for the rows without a plan), and the range's size falls; the others'
-- stay about what they were.
SELECT widecolumn.compact('tenants_srv', 'usage') AS deleted;
SELECT s.tenant,
       widecolumn.approximate_size('usage', s.tenant || '#', s.tenant || '$') < s.bytes / 10
         AS fell_tenfold,
       widecolumn.approximate_size('usage', s.tenant || '#', s.tenant || '$') > s.bytes / 2
         AS kept_half
  FROM sizes_before s ORDER BY 1;
SELECT * FROM usage_diff;
SELECT widecolumn.compact('tenants_srv', 'usage') AS deleted;

-- A new customer of the same name starts empty.
INSERT INTO usage VALUES ('altostrat', 'phone', '4c410523', '2019-06-01', 1, NULL);
INSERT INTO usage_native VALUES ('altostrat', 'phone', '4c410523', '2019-06-01', 1, NULL);
SELECT * FROM usage WHERE tenant = 'altostrat';
SELECT * FROM usage_diff;

DROP SERVER tenants_srv CASCADE;
DROP TABLE usage_native;
