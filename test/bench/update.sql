-- Single-row UPDATE transaction: a new pressure for a random existing row.
\set k random(0, :rows - 1)
\set p random(90000, 99999)
UPDATE balloon SET pressure = :p WHERE rowkey = bench_key(:k);
