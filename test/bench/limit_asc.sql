-- The first 10 rows of one balloon, in row-key order.
\set l random(0, 9)
\set b random(0, 99)
SELECT * FROM balloon WHERE rowkey LIKE bench_prefix(:l, :b) || '%' ORDER BY rowkey LIMIT 10;
