-- Correctness check: run.sh runs this on balloon and (renamed) on
-- balloon_native right after the load and compares the two outputs line by
-- line.  Every line is "label|result"; results are md5s of the rows in
-- row-key order, so any wrong, missing or extra row shows.  psql variables:
-- rows (the row count) and ntimes (timestamps per balloon).
-- (float8 sums depend on the order of the additions, and the native scan
-- may be parallel: sum them as numeric, exactly)
SELECT 'count and sums', count(*), sum(pressure), sum(temp::numeric), sum(humidity::numeric), sum(altitude::numeric) FROM balloon;
SELECT 'point', t::text FROM balloon t WHERE rowkey = bench_key(:rows / 3);
SELECT 'point, first row', t::text FROM balloon t WHERE rowkey = bench_key(0);
SELECT 'point, last row', t::text FROM balloon t WHERE rowkey = bench_key(:rows - 1);
SELECT 'point, missing', count(*) FROM balloon WHERE rowkey = bench_key(5) || 'x';
SELECT 'multi-get', count(*), md5(string_agg(t::text, '|' ORDER BY rowkey)) FROM balloon t
 WHERE rowkey IN (SELECT bench_key(k * 7919 % :rows) FROM generate_series(1, 100) k);
SELECT 'multi-get, IN list', count(*), md5(string_agg(t::text, '|' ORDER BY rowkey)) FROM balloon t
 WHERE rowkey IN (bench_key(1), bench_key(:rows / 2), bench_key(:rows - 2), 'nope', bench_key(1));
SELECT 'prefix', count(*), md5(string_agg(t::text, '|' ORDER BY rowkey)) FROM balloon t
 WHERE rowkey LIKE 'us-west2#3698#%';
SELECT 'prefix, location', count(*), md5(string_agg(t::text, '|' ORDER BY rowkey)) FROM balloon t
 WHERE rowkey LIKE 'asia-east1#%';
SELECT 'prefix count', count(*) FROM balloon WHERE rowkey LIKE 'europe-north1#3650#%';
SELECT 'range', count(*), md5(string_agg(t::text, '|' ORDER BY rowkey)) FROM balloon t
 WHERE rowkey BETWEEN bench_key(:rows / 2 + 17) AND bench_key(:rows / 2 + 1016);
SELECT 'range, open end', count(*) FROM balloon WHERE rowkey > 'southamerica-east1#3699#';
SELECT 'limit 10', md5(string_agg(t::text, '|')) FROM
 (SELECT * FROM balloon WHERE rowkey LIKE 'us-east1#3601#%' ORDER BY rowkey LIMIT 10) t;
SELECT 'limit 10 desc', md5(string_agg(t::text, '|')) FROM
 (SELECT * FROM balloon WHERE rowkey LIKE 'us-east1#3601#%' ORDER BY rowkey DESC LIMIT 10) t;
SELECT 'full scan, temp > 1000', count(*) FROM balloon WHERE temp > 1000;
SELECT 'full scan, temp > 19.5', count(*), sum(pressure), sum(humidity::numeric) FROM balloon WHERE temp > 19.5;

-- The same shapes as the pgbench scripts, as prepared statements with
-- generic plans (pgbench -M prepared switches to them after 5 runs).
SET plan_cache_mode = force_generic_plan;
PREPARE point(bigint) AS SELECT 'generic point', t::text FROM balloon t WHERE rowkey = bench_key($1);
EXECUTE point(:rows / 7);
PREPARE prefix(int, int) AS SELECT 'generic prefix', count(*), md5(string_agg(t::text, '|' ORDER BY rowkey)) FROM balloon t
 WHERE rowkey LIKE bench_prefix($1, $2) || '%';
EXECUTE prefix(3, 42);
PREPARE range(bigint) AS SELECT 'generic range', count(*), md5(string_agg(t::text, '|' ORDER BY rowkey)) FROM balloon t
 WHERE rowkey BETWEEN bench_key($1) AND bench_key($1 + 999);
EXECUTE range(:rows / 5 + 3);
PREPARE lim(int, int) AS SELECT 'generic limit 10 desc', md5(string_agg(t::text, '|')) FROM
 (SELECT * FROM balloon WHERE rowkey LIKE bench_prefix($1, $2) || '%' ORDER BY rowkey DESC LIMIT 10) t;
EXECUTE lim(9, 99);
PREPARE mget(bigint, bigint, bigint) AS SELECT 'generic multi-get', count(*), md5(string_agg(t::text, '|' ORDER BY rowkey)) FROM balloon t
 WHERE rowkey IN (bench_key($1), bench_key($2), bench_key($3));
EXECUTE mget(0, :rows / 2, :rows - 1);
RESET plan_cache_mode;
