-- One pgbench transaction of the mixed workload (test/long/run.sh).
-- Every write to the foreign tables is logged in a native table in the
-- same transaction, so the invariants can be checked afterwards.
\set r random(1, 100)
\set id random(1, 2000)
\set c random(1, 10)
\if :r <= 30
SELECT v FROM mix WHERE k = 'row' || :id;
\elif :r <= 45
SELECT count(*) FROM mix WHERE k LIKE 'row1%';
\elif :r <= 60
BEGIN;
-- puts and deletes of one row take turns, so that the log's order is the
-- order of their commits, which decides which one wins (INSERT takes no row
-- lock: a put could otherwise be logged before a DELETE that commits first)
SELECT pg_advisory_xact_lock(hashtext('row' || :id));
INSERT INTO mix VALUES ('row' || :id, :id);
INSERT INTO mix_log VALUES ('put', 'row' || :id);
COMMIT;
\elif :r <= 70
BEGIN;
UPDATE mix SET v = v + 1 WHERE k = 'row' || :id;
COMMIT;
\elif :r <= 80
BEGIN;
SELECT pg_advisory_xact_lock(hashtext('row' || :id));
WITH d AS (DELETE FROM mix WHERE k = 'row' || :id RETURNING k)
INSERT INTO mix_log SELECT 'del', k FROM d;
COMMIT;
\else
BEGIN;
UPDATE counters SET n = n + 1 WHERE k = 'c' || :c;
INSERT INTO mix_log VALUES ('inc', 'c' || :c);
COMMIT;
\endif
