-- Full scan with a filter on a non-key column that no row passes.
SELECT count(*) FROM balloon WHERE temp > 1000;
