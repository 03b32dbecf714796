-- The twin workload (test/long/run.sh): a foreign table and a native table
-- that every transaction writes alike, so that the native one is the oracle.
--   a:0000 .. a:1999  shared rows: transfers move 1 between two of them, so
--                     their sum is 0 in every consistent snapshot;
--   c:N               session N's counter (pgbench client_id N), only N writes it;
--   sN:000 .. sN:299  session N's own rows, only N writes them.
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
CREATE SERVER wc_twin FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE twin_f (k text OPTIONS (rowkey 'true') COLLATE "C", v int, w text) SERVER wc_twin;
CREATE TABLE twin_n (k text COLLATE "C" PRIMARY KEY, v int NOT NULL, w text NOT NULL);

INSERT INTO twin_n SELECT 'a:' || lpad(g::text, 4, '0'), 0, repeat('w', 60) FROM generate_series(0, 1999) g;
INSERT INTO twin_n SELECT 'c:' || g, 0, 'counter' FROM generate_series(0, 7) g;
INSERT INTO twin_n SELECT 's' || s || ':' || lpad(g::text, 3, '0'), g, 'own' FROM generate_series(0, 7) s, generate_series(0, 299, 3) g;
INSERT INTO twin_f SELECT * FROM twin_n;

-- Session s's row n (immutable, so that a key built from it is a constant
-- the planner pushes down).
CREATE FUNCTION twin_key(s int, n int) RETURNS text IMMUTABLE LANGUAGE sql
	AS $$ SELECT 's' || s::text || ':' || lpad(n::text, 3, '0') $$;
CREATE FUNCTION twin_own(s int) RETURNS text IMMUTABLE LANGUAGE sql
	AS $$ SELECT 's' || s::text || ':' $$;

-- An invariant: a false one ends the pgbench client with this error.
CREATE FUNCTION twin_assert(ok boolean, what text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	IF ok IS NOT TRUE THEN
		RAISE EXCEPTION 'twin invariant broken: %', what;
	END IF;
	RETURN true;
END $$;

-- Fetch up to n rows from the open cursor cur into the session's table seen.
CREATE FUNCTION twin_fetch(cur refcursor, n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	r record;
	got int := 0;
BEGIN
	WHILE got < n LOOP
		FETCH cur INTO r;
		EXIT WHEN NOT FOUND;
		INSERT INTO seen VALUES (r.k, r.v, r.w);
		got := got + 1;
	END LOOP;
	RETURN got;
END $$;

CREATE FUNCTION twin_shared(n int) RETURNS text IMMUTABLE LANGUAGE sql
	AS $$ SELECT 'a:' || lpad(n::text, 4, '0') $$;
