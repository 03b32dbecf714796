-- Single-row INSERT transaction: a new row (balloon ids 9000-9099 are never
-- loaded, so no read workload's rows change; the 12-digit random suffix
-- makes a duplicate key, an error in balloon_native, practically impossible).
\set l random(0, 9)
\set b random(0, 99)
\set r random(0, 999999999999)
\set p random(90000, 99999)
INSERT INTO balloon VALUES (bench_new_key(:l, :b, :r), :p, 12.5, 40.5, 20000);
