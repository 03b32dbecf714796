-- every reader's torn count, and the end state (the tables agree)
SELECT 'pairs: torn reads found: ' || coalesce(sum(found), 0) FROM pairs_torn;
SELECT CASE WHEN (SELECT count(*) FROM pairs_torn) = 0
             AND (SELECT count(*) FROM pairs_n) = (SELECT count(*) FROM pairs_f)
             AND (SELECT count(*) FROM pairs_f) = (SELECT count(*) FROM pairs_f2)
             AND (SELECT count(*) FROM pairs_n) > 0
        THEN 'ok pairs' ELSE 'FAILED pairs' END;
SELECT 'pairs: ' || (SELECT count(*) FROM pairs_n) || ' transactions committed';
