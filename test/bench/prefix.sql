-- Prefix scan: every row of one balloon, LIKE 'location#balloon#%'
-- (rows/1000 rows: 0.1% of the table).
\set l random(0, 9)
\set b random(0, 99)
SELECT * FROM balloon WHERE rowkey LIKE bench_prefix(:l, :b) || '%';
