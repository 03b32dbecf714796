-- Point read: one random existing row by its row key.
\set k random(0, :rows - 1)
SELECT * FROM balloon WHERE rowkey = bench_key(:k);
