-- Transactions: writes reach storage at COMMIT, all or nothing; a
-- transaction reads its own writes; savepoints undo exactly their part.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
CREATE SERVER tx_srv FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE tx (k text OPTIONS (rowkey 'true'), v int) SERVER tx_srv;

INSERT INTO tx VALUES ('a', 1), ('b', 2);

-- ROLLBACK discards everything
BEGIN;
INSERT INTO tx VALUES ('c', 3);
UPDATE tx SET v = 20 WHERE k = 'b';
DELETE FROM tx WHERE k = 'a';
SELECT * FROM tx;
ROLLBACK;
SELECT * FROM tx;

-- COMMIT applies everything
BEGIN;
INSERT INTO tx VALUES ('c', 3);
UPDATE tx SET v = 20 WHERE k = 'b';
DELETE FROM tx WHERE k = 'a';
COMMIT;
SELECT * FROM tx;

-- Savepoints
BEGIN;
INSERT INTO tx VALUES ('d', 4);
SAVEPOINT s1;
INSERT INTO tx VALUES ('e', 5);
UPDATE tx SET v = 30 WHERE k = 'c';
SAVEPOINT s2;
DELETE FROM tx WHERE k = 'b';
SELECT * FROM tx;
ROLLBACK TO SAVEPOINT s2;
SELECT * FROM tx;
ROLLBACK TO SAVEPOINT s1;
SELECT * FROM tx;
RELEASE SAVEPOINT s1;
UPDATE tx SET v = 40 WHERE k = 'd';
COMMIT;
SELECT * FROM tx;

-- A failed statement inside a savepoint is undone with it; the rest commits.
BEGIN;
INSERT INTO tx VALUES ('f', 6);
SAVEPOINT s;
INSERT INTO tx VALUES ('g', 7), (NULL, 8);
ROLLBACK TO SAVEPOINT s;
INSERT INTO tx VALUES ('h', 8);
COMMIT;
SELECT * FROM tx;

-- A failed statement aborts its transaction: nothing of it is written.
BEGIN;
INSERT INTO tx VALUES ('i', 9);
INSERT INTO tx VALUES (repeat('x', 5000), 10);
COMMIT;
SELECT * FROM tx;
-- in autocommit, a multi-row INSERT with one bad row writes none
INSERT INTO tx VALUES ('j', 10), (NULL, 11);
SELECT * FROM tx WHERE k = 'j';

-- A statement does not see its own writes: INSERT ... SELECT from the
-- same table reads the rows as they were before it.
INSERT INTO tx SELECT k || k, v * 100 FROM tx;
SELECT * FROM tx;
-- Within a transaction, the next statement sees the writes of the last.
BEGIN;
INSERT INTO tx SELECT k || '!', v FROM tx WHERE k < 'c';
INSERT INTO tx SELECT k || '?', v FROM tx WHERE k < 'c';
SELECT * FROM tx WHERE k < 'c';
ROLLBACK;

-- Writes to several stored tables commit together.
CREATE FOREIGN TABLE tx2 (k text OPTIONS (rowkey 'true'), v int) SERVER tx_srv;
BEGIN;
INSERT INTO tx VALUES ('multi', 1);
INSERT INTO tx2 VALUES ('multi', 2);
ROLLBACK;
SELECT (SELECT count(*) FROM tx WHERE k = 'multi') AS tx, (SELECT count(*) FROM tx2) AS tx2;
BEGIN;
INSERT INTO tx VALUES ('multi', 1);
INSERT INTO tx2 VALUES ('multi', 2);
COMMIT;
SELECT (SELECT v FROM tx WHERE k = 'multi') AS tx, (SELECT v FROM tx2) AS tx2;

-- A cursor reads what there was when it was declared.
BEGIN;
DECLARE cur CURSOR FOR SELECT * FROM tx2;
INSERT INTO tx2 VALUES ('later', 3);
FETCH ALL FROM cur;
SELECT * FROM tx2;
COMMIT;

-- REPEATABLE READ reads one snapshot for the whole transaction; with no
-- other session here it shows its own writes and the committed rows.
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM tx2;
INSERT INTO tx2 VALUES ('rr', 4);
SELECT * FROM tx2;
COMMIT;

-- Two-phase commit: PREPARE stores the writes, invisible until COMMIT
-- PREPARED, as a native table's rows are; ROLLBACK PREPARED takes them back.
CREATE TABLE tx2_native (k text, v int);
BEGIN;
INSERT INTO tx2 VALUES ('2pc', 5);
INSERT INTO tx2_native VALUES ('2pc', 5);
PREPARE TRANSACTION 'wc';
SELECT (SELECT count(*) FROM tx2 WHERE k = '2pc') AS foreign_rows,
       (SELECT count(*) FROM tx2_native WHERE k = '2pc') AS native_rows;
COMMIT PREPARED 'wc';
SELECT (SELECT count(*) FROM tx2 WHERE k = '2pc') AS foreign_rows,
       (SELECT count(*) FROM tx2_native WHERE k = '2pc') AS native_rows;
BEGIN;
INSERT INTO tx2 VALUES ('2pc-rolled-back', 6);
UPDATE tx2 SET v = 50 WHERE k = '2pc';
PREPARE TRANSACTION 'wc2';
ROLLBACK PREPARED 'wc2';
SELECT * FROM tx2 WHERE k LIKE '2pc%';
DELETE FROM tx2 WHERE k = '2pc';
DROP TABLE tx2_native;

-- Rows written out of key order (ascending runs that restart), written
-- again, deleted, updated, written in subtransactions that roll back, with
-- reads in between.  The transaction keeps the rows in key order however
-- they arrive (txn.c: a sorted part, and a tail merged in before reads and
-- the commit).  A native table given the same statements is the oracle.
CREATE FOREIGN TABLE tx_order (k text OPTIONS (rowkey 'true') COLLATE "C", v int, w int) SERVER tx_srv;
CREATE TABLE tx_order_native (k text COLLATE "C" PRIMARY KEY, v int, w int);
CREATE FUNCTION tx_order_apply(tbl regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    rk text;
    seen bigint := 0;
    n bigint;
BEGIN
    FOR i IN 0..1999 LOOP
        rk := lpad(((i % 500) * 7 % 1000)::text, 4, '0');
        IF i % 11 = 5 THEN
            EXECUTE format('UPDATE %s SET w = coalesce(w, 0) + 1 WHERE k = $1', tbl) USING rk;
        ELSIF i % 13 = 6 THEN
            EXECUTE format('DELETE FROM %s WHERE k = $1', tbl) USING rk;
        ELSIF i % 17 = 7 THEN
            BEGIN
                EXECUTE format('UPDATE %s SET v = -1 WHERE k = $1', tbl) USING rk;
                EXECUTE format('INSERT INTO %s (k, v) VALUES ($1, -1)', tbl) USING rk || 'x';
                RAISE EXCEPTION 'roll back';
            EXCEPTION WHEN raise_exception THEN
                NULL;
            END;
        ELSIF tbl = 'tx_order'::regclass THEN
            -- a Put: cells given are set, the others kept
            INSERT INTO tx_order (k, v) VALUES (rk, i);
        ELSE
            INSERT INTO tx_order_native (k, v) VALUES (rk, i)
                ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v;
        END IF;
        IF i % 97 = 0 THEN
            EXECUTE format('SELECT count(*) FROM %s WHERE k >= $1', tbl) USING rk INTO n;
            seen := seen + n;
        END IF;
    END LOOP;
    RETURN seen;
END
$$;
BEGIN;
SELECT tx_order_apply('tx_order') = tx_order_apply('tx_order_native') AS same_reads;
SELECT count(*) AS rows,
       (SELECT count(*) FROM (TABLE tx_order EXCEPT TABLE tx_order_native) d) AS only_foreign,
       (SELECT count(*) FROM (TABLE tx_order_native EXCEPT TABLE tx_order) d) AS only_native
FROM tx_order;
COMMIT;
SELECT count(*) AS rows,
       (SELECT count(*) FROM (TABLE tx_order EXCEPT TABLE tx_order_native) d) AS only_foreign,
       (SELECT count(*) FROM (TABLE tx_order_native EXCEPT TABLE tx_order) d) AS only_native
FROM tx_order;
DROP FUNCTION tx_order_apply(regclass);
DROP TABLE tx_order_native;

-- A scan asks the worker for its next batches before it needs them
-- (client.c).  Two cursors read alternately, one forwards and one
-- backwards, with point reads in between and the second closed before its
-- end: every row must still come once and in order.  Batches are a few
-- KiB, so these scans take many.  A native table is the oracle.
CREATE FOREIGN TABLE tx_many (k text OPTIONS (rowkey 'true') COLLATE "C", v text) SERVER tx_srv;
CREATE TABLE tx_many_native (k text COLLATE "C" PRIMARY KEY, v text);
INSERT INTO tx_many SELECT lpad(i::text, 5, '0'), repeat('x', i % 50) FROM generate_series(1, 5000) i;
INSERT INTO tx_many_native SELECT lpad(i::text, 5, '0'), repeat('x', i % 50) FROM generate_series(1, 5000) i;
CREATE FUNCTION tx_interleaved(tbl regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    a refcursor;
    b refcursor;
    r record;
    acc text := '';
    n bigint;
BEGIN
    OPEN a FOR EXECUTE format('SELECT k, v FROM %s WHERE k >= ''01000'' ORDER BY k', tbl);
    OPEN b FOR EXECUTE format('SELECT k, v FROM %s ORDER BY k DESC', tbl);
    LOOP
        FETCH a INTO r;
        EXIT WHEN NOT FOUND;
        acc := md5(acc || r.k || r.v);
        FETCH b INTO r;
        acc := md5(acc || r.k || r.v);
        IF r.k LIKE '%7' THEN
            EXECUTE format('SELECT count(*) FROM %s WHERE k = $1', tbl) USING r.k INTO n;
            acc := md5(acc || n);
        END IF;
    END LOOP;
    CLOSE b;
    CLOSE a;
    RETURN acc;
END
$$;
SELECT tx_interleaved('tx_many') = tx_interleaved('tx_many_native') AS same_rows;
DROP FUNCTION tx_interleaved(regclass);
DROP TABLE tx_many_native;

DROP SERVER tx_srv CASCADE;
