-- One pgbench transaction of the twin workload (test/long/run.sh, setup in
-- twin_setup.sql).  Every write goes to the foreign table twin_f and the
-- native twin_n alike, the native one first (its row lock orders two
-- sessions' writes to a shared row the same way for both tables).  What
-- holds whatever the timing is checked as it runs (twin_assert ends the
-- client with "twin invariant broken"); twin_check.sql compares the tables
-- at the end.  Run with -D mine=0 (this session's counter).
\set r random(1, 100)
\set n random(0, 299)
\set m random(0, 290)
\set other random(0, 7)
\set a random(0, 1998)
\set b :a + random(1, 1999 - :a)
\set rb random(0, 3)
\if :r <= 12
-- point reads: this session's own row reads as its native twin (nobody
-- else writes it); another session's row just to be read
SELECT twin_assert(
	(SELECT row(v, w) FROM twin_f WHERE k = twin_key(:client_id, :n)) IS NOT DISTINCT FROM
	(SELECT row(v, w) FROM twin_n WHERE k = twin_key(:client_id, :n)),
	'point read of ' || twin_key(:client_id, :n));
SELECT v FROM twin_f WHERE k = twin_key(:other, :n);
\elif :r <= 20
-- a prefix scan and a range scan of this session's rows read as the twin
SELECT twin_assert(
	(SELECT array_agg(row(k, v, w) ORDER BY k) FROM twin_f WHERE k LIKE twin_own(:client_id) || '%') IS NOT DISTINCT FROM
	(SELECT array_agg(row(k, v, w) ORDER BY k) FROM twin_n WHERE k LIKE twin_own(:client_id) || '%'),
	'prefix scan of ' || twin_own(:client_id));
SELECT twin_assert(
	(SELECT array_agg(row(k, v, w) ORDER BY k) FROM twin_f WHERE k >= twin_key(:client_id, :m) AND k < twin_key(:client_id, :m + 9)) IS NOT DISTINCT FROM
	(SELECT array_agg(row(k, v, w) ORDER BY k) FROM twin_n WHERE k >= twin_key(:client_id, :m) AND k < twin_key(:client_id, :m + 9)),
	'range scan of ' || twin_key(:client_id, :m));
-- with a condition the storage worker checks (a Storage Filter)
SELECT twin_assert(
	(SELECT array_agg(row(k, v, w) ORDER BY k) FROM twin_f WHERE k LIKE twin_own(:client_id) || '%' AND v > :r) IS NOT DISTINCT FROM
	(SELECT array_agg(row(k, v, w) ORDER BY k) FROM twin_n WHERE k LIKE twin_own(:client_id) || '%' AND v > :r),
	'filtered prefix scan of ' || twin_own(:client_id));
SELECT count(*) FROM twin_f WHERE k LIKE twin_own(:other) || '%';
\elif :r <= 32
-- single-row writes of own rows, read back in the transaction; committed
-- or rolled back
BEGIN;
INSERT INTO twin_n VALUES (twin_key(:client_id, :n), :r, 'put') ON CONFLICT (k) DO UPDATE SET v = excluded.v, w = excluded.w;
INSERT INTO twin_f VALUES (twin_key(:client_id, :n), :r, 'put');
UPDATE twin_n SET v = v + 1, w = left(w || 'u', 80) WHERE k = twin_key(:client_id, :m);
UPDATE twin_f SET v = v + 1, w = left(w || 'u', 80) WHERE k = twin_key(:client_id, :m);
DELETE FROM twin_n WHERE k = twin_key(:client_id, :m + 1);
DELETE FROM twin_f WHERE k = twin_key(:client_id, :m + 1);
SELECT twin_assert(
	(SELECT array_agg(row(k, v, w) ORDER BY k) FROM twin_f WHERE k LIKE twin_own(:client_id) || '%') IS NOT DISTINCT FROM
	(SELECT array_agg(row(k, v, w) ORDER BY k) FROM twin_n WHERE k LIKE twin_own(:client_id) || '%'),
	'own rows after single-row writes in the transaction');
\if :rb = 0
ROLLBACK;
\else
COMMIT;
\endif
\elif :r <= 42
-- multi-row writes: a block inserted (or overwritten), a range deleted, a
-- range updated; in REPEATABLE READ half the time
\if :rb <= 1
BEGIN ISOLATION LEVEL REPEATABLE READ;
\else
BEGIN;
\endif
INSERT INTO twin_n SELECT twin_key(:client_id, g), g * 7 + :r, 'multi' FROM generate_series(:n, least(:n + 9, 299)) g
	ON CONFLICT (k) DO UPDATE SET v = excluded.v, w = excluded.w;
INSERT INTO twin_f SELECT twin_key(:client_id, g), g * 7 + :r, 'multi' FROM generate_series(:n, least(:n + 9, 299)) g;
DELETE FROM twin_n WHERE k >= twin_key(:client_id, :m) AND k < twin_key(:client_id, :m + 6);
DELETE FROM twin_f WHERE k >= twin_key(:client_id, :m) AND k < twin_key(:client_id, :m + 6);
UPDATE twin_n SET v = v * 2 + 1 WHERE k >= twin_key(:client_id, :m + 3) AND k < twin_key(:client_id, :m + 9);
UPDATE twin_f SET v = v * 2 + 1 WHERE k >= twin_key(:client_id, :m + 3) AND k < twin_key(:client_id, :m + 9);
\if :rb = 3
ROLLBACK;
\else
COMMIT;
\endif
\elif :r <= 56
-- a transfer between two shared rows: every session writes them, so the
-- sum stays 0 only if no write is lost or applied twice (40001 and 40P01
-- are retried by pgbench)
\if :rb <= 1
BEGIN ISOLATION LEVEL REPEATABLE READ;
\else
BEGIN;
\endif
UPDATE twin_n SET v = v - 1 WHERE k = twin_shared(:a);
UPDATE twin_n SET v = v + 1 WHERE k = twin_shared(:b);
UPDATE twin_f SET v = v - 1 WHERE k = twin_shared(:a);
UPDATE twin_f SET v = v + 1 WHERE k = twin_shared(:b);
COMMIT;
\elif :r <= 64
-- this session's counter: only it writes it, so it reads as the count of
-- its committed increments, right after the commit
BEGIN;
UPDATE twin_n SET v = v + 1 WHERE k = 'c:' || :client_id::text;
UPDATE twin_f SET v = v + 1 WHERE k = 'c:' || :client_id::text;
\if :rb = 0
ROLLBACK;
\else
COMMIT;
\set mine :mine + 1
\endif
SELECT twin_assert(v = :mine, 'counter c:' || :client_id || ' reads ' || v || ', expected ' || :mine)
	FROM twin_f WHERE k = 'c:' || :client_id::text;
\elif :r <= 82
-- REPEATABLE READ: a cursor over the whole table, fetched slowly while
-- other sessions commit, returns exactly what the transaction's snapshot
-- holds: the same rows as a scan before it (or, half the time, the cursor
-- is the transaction's first read and a scan after it must agree)
BEGIN ISOLATION LEVEL REPEATABLE READ;
CREATE TEMP TABLE IF NOT EXISTS seen (k text, v int, w text) ON COMMIT DELETE ROWS;
\if :rb <= 1
SELECT count(*) AS n0, sum(hashtext(k || '/' || v || '/' || w)::bigint) AS h0,
	sum(v) FILTER (WHERE k LIKE 'a:%') AS shared0 FROM twin_f \gset
\endif
DECLARE c NO SCROLL CURSOR FOR SELECT k, v, w FROM twin_f;
SELECT twin_fetch('c', 400);
\sleep 10 ms
SELECT twin_fetch('c', 400);
\sleep 10 ms
SELECT twin_fetch('c', 400);
\sleep 10 ms
SELECT twin_fetch('c', 400);
\sleep 10 ms
SELECT twin_fetch('c', 400);
\sleep 10 ms
SELECT twin_fetch('c', 400);
\sleep 10 ms
SELECT twin_fetch('c', 1000000);
\if :rb > 1
SELECT count(*) AS n0, sum(hashtext(k || '/' || v || '/' || w)::bigint) AS h0,
	sum(v) FILTER (WHERE k LIKE 'a:%') AS shared0 FROM twin_f \gset
\endif
SELECT twin_assert(count(*) = :n0 AND sum(hashtext(k || '/' || v || '/' || w)::bigint) = :h0,
	'REPEATABLE READ cursor saw ' || count(*) || ' rows (hash ' || sum(hashtext(k || '/' || v || '/' || w)::bigint)
	|| '), the transaction''s scan ' || :n0 || ' (hash ' || :h0 || ')')
	FROM seen;
SELECT twin_assert(:shared0 = 0, 'shared rows sum to ' || :shared0 || ' in a REPEATABLE READ snapshot');
COMMIT;
\else
-- READ COMMITTED: a cursor over the shared rows (a prefix scan), fetched
-- slowly while transfers commit, reads one snapshot: the sum is 0
BEGIN;
CREATE TEMP TABLE IF NOT EXISTS seen (k text, v int, w text) ON COMMIT DELETE ROWS;
DECLARE c NO SCROLL CURSOR FOR SELECT k, v, w FROM twin_f WHERE k LIKE 'a:%';
SELECT twin_fetch('c', 300);
\sleep 10 ms
SELECT twin_fetch('c', 300);
\sleep 10 ms
SELECT twin_fetch('c', 300);
\sleep 10 ms
SELECT twin_fetch('c', 1000000);
SELECT twin_assert(count(*) = 2000 AND sum(v) = 0,
	'READ COMMITTED cursor over the shared rows: ' || count(*) || ' rows, sum ' || sum(v))
	FROM seen;
COMMIT;
\endif
