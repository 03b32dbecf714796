-- After the twin workload: the foreign table holds exactly the native
-- twin's rows and values.
SELECT CASE WHEN count(*) = 0 THEN 'ok twin rows'
       ELSE 'FAILED twin rows: ' || count(*) || ' differ, e.g. ' || min(side || ' ' || k || '=' || v || '/' || w) END
FROM ((SELECT 'only foreign' side, * FROM (SELECT k, v, w FROM twin_f EXCEPT SELECT k, v, w FROM twin_n) f)
      UNION ALL (SELECT 'only native', * FROM (SELECT k, v, w FROM twin_n EXCEPT SELECT k, v, w FROM twin_f) n)) d;
-- every session's counter and the shared rows, read by a point read each
SELECT CASE WHEN count(*) = 8 + 2000 THEN 'ok twin point reads'
       ELSE 'FAILED twin point reads: ' || (8 + 2000 - count(*)) || ' differ' END
FROM twin_n n WHERE (k LIKE 'c:%' OR k LIKE 'a:%')
	AND (SELECT row(v, w) FROM twin_f f WHERE f.k = n.k) IS NOT DISTINCT FROM row(n.v, n.w);
SELECT CASE WHEN sum(v) = 0 THEN 'ok twin shared sum' ELSE 'FAILED twin shared sum: ' || sum(v) END
FROM twin_f WHERE k LIKE 'a:%';
SELECT 'twin rows: ' || count(*) || ', increments: ' || (SELECT sum(v) FROM twin_n WHERE k LIKE 'c:%')
	|| ', moved: ' || (SELECT sum(abs(v)) FROM twin_n WHERE k LIKE 'a:%') FROM twin_f;
