-- The prefix scan's rows counted, not returned: 0.1% of the table.
\set l random(0, 9)
\set b random(0, 99)
SELECT count(*) FROM balloon WHERE rowkey LIKE bench_prefix(:l, :b) || '%';
