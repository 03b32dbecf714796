-- Range scan: 1000 consecutive rows of one location, rowkey BETWEEN two keys.
\set l random(0, 9)
\set o random(0, 100 * :ntimes - 1000)
\set k :l * 100 * :ntimes + :o
SELECT * FROM balloon WHERE rowkey BETWEEN bench_key(:k) AND bench_key(:k + 999);
