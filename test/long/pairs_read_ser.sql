BEGIN ISOLATION LEVEL serializable READ ONLY;
SELECT count(*) AS n FROM pairs_n \gset
SELECT pg_sleep(0.002);
SELECT count(*) AS f FROM pairs_f \gset
SELECT count(*) AS f2 FROM pairs_f2 \gset
COMMIT;
\set torn abs(:n - :f) + abs(:f - :f2)
\if :torn
INSERT INTO pairs_torn VALUES ('serializable', :torn);
\endif
