SELECT (SELECT count(*) FROM pairs_n FULL JOIN pairs_f USING (k) WHERE pairs_n.k IS NULL OR pairs_f.k IS NULL)
     + (SELECT count(*) FROM pairs_f FULL JOIN pairs_f2 USING (k) WHERE pairs_f.k IS NULL OR pairs_f2.k IS NULL) AS torn \gset
\if :torn
INSERT INTO pairs_torn VALUES ('read committed', :torn);
\endif
