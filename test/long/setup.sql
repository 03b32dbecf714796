CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE mix (k text OPTIONS (rowkey 'true') COLLATE "C", v int) SERVER wc;
CREATE FOREIGN TABLE counters (k text OPTIONS (rowkey 'true'), n int) SERVER wc;
CREATE TABLE mix_log (op text, k text, at bigserial);
INSERT INTO counters SELECT 'c' || g, 0 FROM generate_series(1, 10) g;
