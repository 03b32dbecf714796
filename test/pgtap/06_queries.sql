-- Specification: queries over foreign tables answer as over native tables.
--
-- Aggregates, grouping, window functions, set operations, subqueries and
-- joins (with native tables, with other foreign tables, with themselves)
-- over the foreign tables must return what the same query returns over
-- native copies, whatever join method the planner picks, with committed
-- data and with the transaction's own uncommitted writes.
--
-- Each query is written once, with %1$s for the orders table and %2$s for
-- the customers table; it runs with (orders_f, customers_f) and with the
-- oracle (orders_n, customers_n).  Some use customers_n (native) on both
-- sides: joins between a foreign and a native table.
--
-- Stored tables: spec_q_orders, spec_q_customers (server spec_q_srv).

\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET check_function_bodies = off;

SELECT plan(89);

\ir setup.psql

CREATE SERVER spec_q_srv FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE orders_f (
	order_id text OPTIONS (rowkey 'true'),
	customer text OPTIONS (column 'o:customer'),
	amount numeric OPTIONS (column 'o:amount'),
	qty integer OPTIONS (column 'o:qty'),
	placed date OPTIONS (column 'o:placed'),
	note text OPTIONS (column 'x:note')
) SERVER spec_q_srv OPTIONS (table 'spec_q_orders');
CREATE FOREIGN TABLE customers_f (
	customer text OPTIONS (rowkey 'true'),
	region text,
	since date
) SERVER spec_q_srv OPTIONS (table 'spec_q_customers');
CREATE TABLE orders_n (order_id text PRIMARY KEY, customer text, amount numeric, qty integer, placed date, note text);
CREATE TABLE customers_n (customer text PRIMARY KEY, region text, since date);

INSERT INTO customers_n
	SELECT 'c' || lpad(i::text, 3, '0'), (ARRAY['north', 'south', 'east', 'west', NULL])[1 + i % 5], date '2010-01-01' + i * 17
	FROM generate_series(1, 120) i;
INSERT INTO orders_n
	SELECT 'o' || lpad(i::text, 5, '0'),
	       CASE WHEN i % 97 = 0 THEN 'c999' ELSE 'c' || lpad((1 + (i * 7919) % 110)::text, 3, '0') END,
	       CASE WHEN i % 50 = 0 THEN NULL ELSE round(((i * 7907) % 100000) / 100.0, 2) END,
	       1 + (i * 31) % 9,
	       date '2024-01-01' + (i * 13) % 366,
	       CASE WHEN i % 11 = 0 THEN 'note ' || i END
	FROM generate_series(1, 2000) i;
INSERT INTO orders_f SELECT * FROM orders_n;
INSERT INTO customers_f SELECT * FROM customers_n;

CREATE TABLE queries (i serial, descr text, q text);
INSERT INTO queries (descr, q) VALUES
	('count(*) and count of a column',
	 $$SELECT count(*), count(amount), count(note), count(DISTINCT customer) FROM %1$s$$),
	('sum, avg, min, max, stddev',
	 $$SELECT sum(amount), round(avg(amount), 6), min(amount), max(amount), round(stddev(amount), 6), sum(qty), min(placed), max(placed), min(order_id), max(order_id) FROM %1$s$$),
	('GROUP BY with HAVING',
	 $$SELECT customer, count(*), sum(amount), max(placed) FROM %1$s GROUP BY customer HAVING count(*) > 15 ORDER BY customer$$),
	('GROUP BY ROLLUP',
	 $$SELECT date_trunc('month', placed)::date AS m, qty, count(*), sum(amount) FROM %1$s GROUP BY ROLLUP (1, 2) ORDER BY 1 NULLS LAST, 2 NULLS LAST$$),
	('ordered-set aggregates and string_agg',
	 $$SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY amount), mode() WITHIN GROUP (ORDER BY qty), md5(string_agg(order_id, ',' ORDER BY amount DESC NULLS LAST, order_id)) FROM %1$s$$),
	('FILTER and bool aggregates',
	 $$SELECT count(*) FILTER (WHERE note IS NOT NULL), bool_and(qty > 0), bool_or(amount > 999), every(order_id LIKE 'o%%') FROM %1$s$$),
	('DISTINCT and DISTINCT ON',
	 $$SELECT DISTINCT ON (customer) customer, order_id, amount FROM %1$s ORDER BY customer, amount DESC NULLS LAST, order_id$$),
	('window functions',
	 $$SELECT order_id, row_number() OVER w, lag(order_id) OVER w, sum(amount) OVER w FROM %1$s WINDOW w AS (PARTITION BY customer ORDER BY order_id) ORDER BY order_id$$),
	('ORDER BY a cell with LIMIT',
	 $$SELECT order_id, amount FROM %1$s ORDER BY amount DESC NULLS LAST, order_id LIMIT 7$$),
	('ORDER BY the row key with OFFSET and LIMIT',
	 $$SELECT order_id, customer FROM %1$s ORDER BY order_id DESC OFFSET 1500 LIMIT 4$$),
	('join with customers on a cell',
	 $$SELECT o.order_id, c.region, o.amount FROM %1$s o JOIN %2$s c ON c.customer = o.customer WHERE o.qty = 3 ORDER BY o.order_id$$),
	('join with a native table, grouped',
	 $$SELECT c.region, count(*), sum(o.amount) FROM %1$s o JOIN customers_n c USING (customer) GROUP BY c.region ORDER BY c.region NULLS FIRST$$),
	('left join keeps orders without customer',
	 $$SELECT o.order_id, o.customer, c.region FROM %1$s o LEFT JOIN %2$s c USING (customer) WHERE c.customer IS NULL ORDER BY o.order_id$$),
	('right join keeps customers without orders',
	 $$SELECT c.customer, count(o.order_id) FROM %1$s o RIGHT JOIN %2$s c USING (customer) GROUP BY c.customer HAVING count(o.order_id) < 12 ORDER BY c.customer$$),
	('full join',
	 $$SELECT coalesce(o.customer, c.customer), count(*) FROM (SELECT DISTINCT customer FROM %1$s) o FULL JOIN %2$s c USING (customer) WHERE o.customer IS NULL OR c.customer IS NULL GROUP BY 1 ORDER BY 1$$),
	('semi join (EXISTS) on the row key of customers',
	 $$SELECT c.customer FROM %2$s c WHERE EXISTS (SELECT 1 FROM %1$s o WHERE o.customer = c.customer AND o.amount > 990) ORDER BY 1$$),
	('anti join (NOT EXISTS)',
	 $$SELECT o.order_id FROM %1$s o WHERE NOT EXISTS (SELECT 1 FROM %2$s c WHERE c.customer = o.customer) ORDER BY 1$$),
	('IN (subquery) on the row key',
	 $$SELECT order_id, qty FROM %1$s WHERE order_id IN (SELECT 'o' || lpad((i * 37)::text, 5, '0') FROM generate_series(1, 60) i) ORDER BY 1$$),
	('correlated scalar subquery by row key',
	 $$SELECT c.customer, (SELECT max(o.order_id) FROM %1$s o WHERE o.customer = c.customer) FROM %2$s c ORDER BY 1$$),
	('self-join on the row key',
	 $$SELECT a.order_id, b.order_id FROM %1$s a JOIN %1$s b ON b.order_id = 'o' || lpad((substr(a.order_id, 2)::integer + 1)::text, 5, '0') WHERE a.qty = b.qty ORDER BY 1$$),
	('self-join on a cell',
	 $$SELECT a.customer, count(*) FROM %1$s a JOIN %1$s b ON a.customer = b.customer AND a.order_id < b.order_id AND a.placed = b.placed GROUP BY 1 ORDER BY 1$$),
	('LATERAL top 2 orders per customer',
	 $$SELECT c.customer, t.order_id FROM %2$s c CROSS JOIN LATERAL (SELECT order_id FROM %1$s o WHERE o.customer = c.customer ORDER BY amount DESC NULLS LAST, order_id LIMIT 2) t ORDER BY 1, 2$$),
	('UNION, INTERSECT, EXCEPT with a native table',
	 $$(SELECT customer FROM %1$s WHERE qty = 1 UNION SELECT customer FROM customers_n WHERE region = 'east') EXCEPT (SELECT customer FROM %1$s WHERE qty = 9 INTERSECT SELECT customer FROM customers_n) ORDER BY 1$$),
	('CTE used twice',
	 $$WITH big AS MATERIALIZED (SELECT * FROM %1$s WHERE amount > 900) SELECT (SELECT count(*) FROM big), (SELECT max(order_id) FROM big b JOIN %2$s c USING (customer))$$),
	('recursive CTE walking row keys',
	 $$WITH RECURSIVE walk(id, n) AS (SELECT min(order_id), 1 FROM %1$s UNION ALL SELECT (SELECT min(order_id) FROM %1$s WHERE order_id > w.id), n + 1 FROM walk w WHERE n < 25) SELECT * FROM walk ORDER BY n$$),
	('three-way join',
	 $$SELECT c.region, o1.order_id, o2.order_id FROM %1$s o1 JOIN %2$s c ON c.customer = o1.customer JOIN %1$s o2 ON o2.order_id = o1.order_id || '' AND o2.qty = o1.qty WHERE o1.placed = date '2024-03-01' ORDER BY 2$$),
	('projection of the row key only',
	 $$SELECT order_id FROM %1$s WHERE order_id LIKE 'o01%%' ORDER BY 1$$),
	('expressions over cells in WHERE',
	 $$SELECT order_id FROM %1$s WHERE amount * qty > 8000 AND placed BETWEEN '2024-02-01' AND '2024-06-30' AND note IS NULL ORDER BY 1$$);

CREATE FUNCTION pg_temp.run_queries(label text) RETURNS SETOF text LANGUAGE sql AS $$
	SELECT pg_temp.check_eq(format(q, 'orders_f', 'customers_f'), format(q, 'orders_n', 'customers_n'), label || ': ' || descr)
	FROM queries ORDER BY i
$$;

-- (a few representative queries under each forced join method)
CREATE FUNCTION pg_temp.run_join_queries(label text) RETURNS SETOF text LANGUAGE sql AS $$
	SELECT pg_temp.check_eq(format(q, 'orders_f', 'customers_f'), format(q, 'orders_n', 'customers_n'), label || ': ' || descr)
	FROM queries WHERE descr IN ('join with customers on a cell', 'left join keeps orders without customer',
		'semi join (EXISTS) on the row key of customers', 'anti join (NOT EXISTS)', 'self-join on the row key',
		'IN (subquery) on the row key', 'three-way join')
	ORDER BY i
$$;

SELECT pg_temp.run_queries('committed');

SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT pg_temp.run_join_queries('nested loops');
RESET enable_hashjoin;
RESET enable_mergejoin;
SET enable_nestloop = off;
SET enable_mergejoin = off;
SELECT pg_temp.run_join_queries('hash joins');
RESET enable_mergejoin;
SET enable_hashjoin = off;
SELECT pg_temp.run_join_queries('merge joins');
RESET enable_hashjoin;
RESET enable_nestloop;

-- The same with uncommitted writes to both tables.
BEGIN;
UPDATE orders_f SET amount = amount + 1, qty = 3 WHERE order_id LIKE 'o00%' AND qty > 5;
UPDATE orders_n SET amount = amount + 1, qty = 3 WHERE order_id LIKE 'o00%' AND qty > 5;
DELETE FROM orders_f WHERE customer IN ('c005', 'c999') OR order_id > 'o01900';
DELETE FROM orders_n WHERE customer IN ('c005', 'c999') OR order_id > 'o01900';
INSERT INTO orders_f VALUES ('o00000', 'c777', 5, 3, '2024-03-01', 'new'), ('o02500', 'c001', 1000, 3, '2024-03-01', NULL);
INSERT INTO orders_n VALUES ('o00000', 'c777', 5, 3, '2024-03-01', 'new'), ('o02500', 'c001', 1000, 3, '2024-03-01', NULL);
INSERT INTO customers_f VALUES ('c777', 'north', '2020-02-02');
INSERT INTO customers_n VALUES ('c777', 'north', '2020-02-02');
UPDATE customers_f SET region = 'moved' WHERE customer < 'c010';
UPDATE customers_n SET region = 'moved' WHERE customer < 'c010';
DELETE FROM customers_f WHERE customer = 'c010';
DELETE FROM customers_n WHERE customer = 'c010';
SELECT pg_temp.run_queries('uncommitted');
SET LOCAL enable_hashjoin = off;
SET LOCAL enable_mergejoin = off;
SELECT pg_temp.run_join_queries('uncommitted, nested loops');
COMMIT;

-- EXPLAIN shows a range bound that is not text in the server encoding (past
-- a prefix ending in U+00FF, its last byte raised: C3 C0) as bytes, so that
-- its output converts to any client encoding.
CREATE FUNCTION pg_temp.explain_text(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	all_lines text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		all_lines := all_lines || line || E'\n';
	END LOOP;
	RETURN all_lines;
END $$;
SELECT CASE WHEN current_setting('server_encoding') = 'UTF8' THEN
	matches(pg_temp.explain_text($$SELECT order_id FROM orders_f WHERE order_id ^@ E'\u00ff' OR order_id = 'a'$$),
		$$\\xc3c0$$, 'EXPLAIN shows a bound that is not valid text as bytes')
	ELSE skip('the server encoding is not UTF8', 1) END;
SELECT CASE WHEN current_setting('server_encoding') = 'UTF8' THEN
	lives_ok($$SELECT convert_to(pg_temp.explain_text('SELECT order_id FROM orders_f WHERE order_id ^@ E''\u00ff'' OR order_id = ''a'''), 'LATIN1')$$,
		'and such an EXPLAIN converts to LATIN1')
	ELSE skip('the server encoding is not UTF8', 1) END;

-- FETCH FIRST ... WITH TIES: rows tying with the last one are returned
-- too, so the count is not a limit the scan may stop at (here every row
-- ties on the constant sort key).
SELECT pg_temp.check_eq(
	$$SELECT count(*) FROM (SELECT order_id FROM orders_f ORDER BY current_date FETCH FIRST 3 ROWS WITH TIES) s$$,
	$$SELECT count(*) FROM (SELECT order_id FROM orders_n ORDER BY current_date FETCH FIRST 3 ROWS WITH TIES) s$$,
	'FETCH FIRST 3 ROWS WITH TIES on a constant sort key returns every tie');
SELECT pg_temp.check_eq(
	$$SELECT count(*) FROM (SELECT order_id FROM orders_f WHERE customer = 'c001' ORDER BY customer FETCH FIRST 1 ROW WITH TIES) s$$,
	$$SELECT count(*) FROM (SELECT order_id FROM orders_n WHERE customer = 'c001' ORDER BY customer FETCH FIRST 1 ROW WITH TIES) s$$,
	'FETCH FIRST 1 ROW WITH TIES on a column pinned by the WHERE returns every tie');

-- Clean up.
DELETE FROM orders_f;
DELETE FROM customers_f;
SELECT is_empty('SELECT order_id FROM orders_f UNION ALL SELECT customer FROM customers_f', 'the stored tables are empty again');
DROP SERVER spec_q_srv CASCADE;
DROP TABLE orders_n, customers_n, queries;

SELECT * FROM finish();
