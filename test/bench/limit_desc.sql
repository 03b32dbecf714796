-- The last 10 rows of one balloon (its latest readings): a reverse scan.
\set l random(0, 9)
\set b random(0, 99)
SELECT * FROM balloon WHERE rowkey LIKE bench_prefix(:l, :b) || '%' ORDER BY rowkey DESC LIMIT 10;
