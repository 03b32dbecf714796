-- Options: where each is allowed, what values it takes, and its errors.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;

-- A server needs no options: its database lives in the data directory.
CREATE SERVER opt_srv FOREIGN DATA WRAPPER widecolumn_fdw;

-- Server options
CREATE SERVER opt_bad1 FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (snyc 'on');
CREATE SERVER opt_bad2 FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'maybe');
CREATE SERVER opt_bad3 FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path 'relative/dir');
CREATE SERVER opt_bad4 FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (block_cache_size '-1');
CREATE SERVER opt_bad5 FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (bloom_bits 'ten');
CREATE SERVER opt_bad6 FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (compression 'zstd');
CREATE SERVER opt_bad7 FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (write_buffer_size '0');
-- whole numbers in decimal digits only
CREATE SERVER opt_bad_frac FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (bloom_bits '10.4');
CREATE SERVER opt_bad_hex FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (block_cache_size '0x10');
CREATE SERVER opt_bad_big FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (write_buffer_size '2048');
-- a path with a control character, or too long for LevelDB's file names after it
CREATE SERVER opt_bad_nl FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path E'/tmp/a\n/tmp/b');
SELECT '/' || repeat('p', 960) AS long_path \gset
CREATE SERVER opt_bad_long FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path :'long_path');
CREATE SERVER opt_bad8 FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (table 'x');
CREATE SERVER opt_ok FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (sync 'off', block_cache_size '8', write_buffer_size '4', bloom_bits '0', compression 'none');
ALTER SERVER opt_ok OPTIONS (SET sync 'on');
ALTER SERVER opt_ok OPTIONS (ADD sync 'off');
ALTER SERVER opt_ok OPTIONS (DROP bloom_bits);
SELECT srvname, srvoptions FROM pg_foreign_server WHERE srvname = 'opt_ok';

-- The foreign-data wrapper and user mappings take no options.
ALTER FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (ADD path '/tmp');
CREATE USER MAPPING FOR CURRENT_USER SERVER opt_srv OPTIONS (user 'x');

-- Table options
CREATE FOREIGN TABLE opt_t1 (k text OPTIONS (rowkey 'true')) SERVER opt_srv OPTIONS (tabel 'x');
CREATE FOREIGN TABLE opt_t2 (k text OPTIONS (rowkey 'true')) SERVER opt_srv OPTIONS (table '');
SELECT repeat('T', 16385) AS long_table \gset
CREATE FOREIGN TABLE opt_t2b (k text OPTIONS (rowkey 'true')) SERVER opt_srv OPTIONS (table :'long_table');
CREATE FOREIGN TABLE opt_t3 (k text OPTIONS (rowkey 'true')) SERVER opt_srv OPTIONS (family 'bad family');
CREATE FOREIGN TABLE opt_t4 (k text OPTIONS (rowkey 'true')) SERVER opt_srv OPTIONS (table 'a', table 'b');
CREATE FOREIGN TABLE opt_t5 (k text OPTIONS (rowkey 'true')) SERVER opt_srv OPTIONS (path '/tmp');

-- Column options
CREATE FOREIGN TABLE opt_c1 (k text OPTIONS (rowkey 'yes please')) SERVER opt_srv;
CREATE FOREIGN TABLE opt_c2 (k text OPTIONS (rowkey 'true'), v int OPTIONS (column 'nocolon')) SERVER opt_srv;
CREATE FOREIGN TABLE opt_c3 (k text OPTIONS (rowkey 'true'), v int OPTIONS (column ':q')) SERVER opt_srv;
CREATE FOREIGN TABLE opt_c4 (k text OPTIONS (rowkey 'true'), v int OPTIONS (column 'f:')) SERVER opt_srv;
CREATE FOREIGN TABLE opt_c5 (k text OPTIONS (rowkey 'true'), v int OPTIONS (column 'f f:q')) SERVER opt_srv;
CREATE FOREIGN TABLE opt_c6 (k text OPTIONS (rowkey 'true'), v int OPTIONS (colum 'f:q')) SERVER opt_srv;
CREATE FOREIGN TABLE opt_c7 (k text OPTIONS (rowkey 'true'), v int OPTIONS (column 'f:q', column 'f:r')) SERVER opt_srv;
-- a qualifier may contain colons and any characters; only the first colon splits
CREATE FOREIGN TABLE opt_c8 (k text OPTIONS (rowkey 'true'), v int OPTIONS (column 'f:q:r é')) SERVER opt_srv;
ALTER FOREIGN TABLE opt_c8 ALTER COLUMN v OPTIONS (SET column 'nope');
ALTER FOREIGN TABLE opt_c8 ALTER COLUMN v OPTIONS (SET column 'f.1-x_y:z');
SELECT attname, attfdwoptions FROM pg_attribute WHERE attrelid = 'opt_c8'::regclass AND attnum > 0 ORDER BY attnum;

-- Only superusers and pg_write_server_files members may choose a path.
CREATE ROLE opt_user;
GRANT USAGE ON FOREIGN DATA WRAPPER widecolumn_fdw TO opt_user;
SET ROLE opt_user;
CREATE SERVER opt_user_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '/tmp/elsewhere');
CREATE SERVER opt_user_srv FOREIGN DATA WRAPPER widecolumn_fdw;
ALTER SERVER opt_user_srv OPTIONS (ADD path '/tmp/elsewhere');
RESET ROLE;
GRANT pg_write_server_files TO opt_user;
SET ROLE opt_user;
ALTER SERVER opt_user_srv OPTIONS (ADD path '/tmp/elsewhere');
RESET ROLE;

DROP SERVER opt_user_srv;
REVOKE pg_write_server_files FROM opt_user;
REVOKE USAGE ON FOREIGN DATA WRAPPER widecolumn_fdw FROM opt_user;
DROP ROLE opt_user;

-- A server's engine: LevelDB by default, or Bigtable, whose servers name
-- their instance and take none of LevelDB's options (nor it theirs).
CREATE SERVER opt_eng_bad FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (engine 'rocksdb');
CREATE SERVER opt_eng_ldb FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (engine 'leveldb', sync 'off');
CREATE SERVER opt_bt_noinst FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'my-project');
CREATE SERVER opt_bt_noproj FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', instance 'my-instance');
-- LevelDB's options on a Bigtable server: where they belong, and the
-- nearest of Bigtable's or the whole list
CREATE SERVER opt_bt_path FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', path '/tmp/x');
CREATE SERVER opt_bt_sync FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', sync 'off');
-- ... and Bigtable's on a LevelDB server
CREATE SERVER opt_ldb_proj FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (project 'p');
CREATE SERVER opt_ldb_timeout FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (timeout '1s');
CREATE SERVER opt_ldb_inst FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (engine 'leveldb', instance 'i');
-- a misspelling gets the nearest option of the server's engine
CREATE SERVER opt_bt_typo FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instanse 'i');
-- values
CREATE SERVER opt_bt_v1 FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', endpoint 'localhost');
CREATE SERVER opt_bt_v2 FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', endpoint 'localhost:99999');
CREATE SERVER opt_bt_v3 FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', endpoint ':8086');
CREATE SERVER opt_bt_v4 FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', endpoint 'a b:1');
CREATE SERVER opt_bt_v5 FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', credentials 'anonymous');
CREATE SERVER opt_bt_v6 FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', timeout '30 parsecs');
CREATE SERVER opt_bt_v7 FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', timeout '0');
CREATE SERVER opt_bt_v8 FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', timeout '-5s');
CREATE SERVER opt_bt_v9 FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p/../q', instance 'i');
CREATE SERVER opt_bt_v10 FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance '');
CREATE SERVER opt_bt_v11 FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', app_profile 'a profile');
CREATE SERVER opt_bt_ok FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'example.com:my-project', instance 'my-instance',
           endpoint '[::1]:8086', credentials 'insecure', app_profile 'batch_1', timeout '500ms');
ALTER SERVER opt_bt_ok OPTIONS (SET timeout '2min', SET endpoint 'bigtable.googleapis.com:443',
                                SET credentials 'google_default');
-- dropping the instance, or switching the engine with Bigtable's options
-- still there, is refused: the options are checked as they end up
ALTER SERVER opt_bt_ok OPTIONS (DROP instance);
ALTER SERVER opt_bt_ok OPTIONS (SET engine 'leveldb');
ALTER SERVER opt_eng_ldb OPTIONS (SET engine 'bigtable');
SELECT srvname, srvoptions FROM pg_foreign_server WHERE srvname IN ('opt_bt_ok', 'opt_eng_ldb')
 ORDER BY srvname;
DROP SERVER opt_bt_ok;
DROP SERVER opt_eng_ldb;
DROP SERVER opt_ok;
DROP SERVER opt_srv CASCADE;
