\set k random(1, 2000000000)
BEGIN;
INSERT INTO pairs_n VALUES (:client_id || '-' || :k, 1);
INSERT INTO pairs_f VALUES (:client_id || '-' || :k, 1);
INSERT INTO pairs_f2 VALUES (:client_id || '-' || :k, 1);
COMMIT;
