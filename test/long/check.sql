-- every increment is there: none lost
SELECT CASE WHEN count(*) = 0 THEN 'ok counters'
       ELSE 'FAILED counters: ' || string_agg(c.k || '=' || c.n || ' logged ' || coalesce(l.n, 0), ', ') END
FROM counters c
LEFT JOIN (SELECT k, count(*) n FROM mix_log WHERE op = 'inc' GROUP BY k) l USING (k)
WHERE c.n <> coalesce(l.n, 0);
-- the rows that exist are those last put and not deleted after
WITH last AS (SELECT DISTINCT ON (k) k, op FROM mix_log WHERE op IN ('put', 'del') ORDER BY k, at DESC),
     expected AS (SELECT k FROM last WHERE op = 'put'),
     actual AS (SELECT k FROM mix)
SELECT CASE WHEN count(*) = 0 THEN 'ok rows'
       ELSE 'FAILED rows: ' || count(*) || ' differ, e.g. ' || min(k) END
FROM ((SELECT k FROM expected EXCEPT SELECT k FROM actual)
      UNION ALL (SELECT k FROM actual EXCEPT SELECT k FROM expected)) d;
SELECT 'increments: ' || count(*) FROM mix_log WHERE op = 'inc';
SELECT 'rows: ' || count(*) FROM mix;
