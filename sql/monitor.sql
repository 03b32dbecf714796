-- Monitoring: the storage worker's figures (widecolumn.stat_worker,
-- stat_worker_info, stat_leveldb), the worker in pg_stat_activity, and the
-- shape of widecolumn.progress (its rows while work runs are
-- test/t/022_progress.pl's).  The worker serves the whole cluster and
-- counts from its start, so what is checked is what this file's own work
-- must have added, and bounds, never a figure.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS widecolumn_fdw;
RESET client_min_messages;
\set SHOW_CONTEXT never
CREATE SERVER mon_srv FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'on');
CREATE FOREIGN TABLE mon (
    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
    v int
) SERVER mon_srv OPTIONS (table 'mon');

-- The views' columns.
\d widecolumn.stat_worker
\d widecolumn.stat_worker_info
\d widecolumn.stat_leveldb
\d widecolumn.progress

-- The storage worker is in pg_stat_activity under its own backend type,
-- with the pid stat_worker_info gives.
SELECT backend_type, datname IS NULL AS no_database
  FROM pg_stat_activity WHERE backend_type LIKE 'widecolumn%';
SELECT i.pid = a.pid AS same_pid
  FROM widecolumn.stat_worker_info i
  JOIN pg_stat_activity a ON a.backend_type = 'widecolumn_fdw storage worker';

-- The figures before this file's work.
CREATE TEMP TABLE req_before AS SELECT * FROM widecolumn.stat_worker;
CREATE TEMP TABLE info_before AS SELECT * FROM widecolumn.stat_worker_info;

-- Work of every kind: synced commits, a point read, a scan, a compact.
INSERT INTO mon SELECT 'k' || lpad(i::text, 5, '0'), i FROM generate_series(1, 1000) i;
INSERT INTO mon VALUES ('single', 0);
SELECT v FROM mon WHERE rowkey = 'k00005';
SELECT count(*) FROM mon;
SELECT widecolumn.compact('mon_srv', 'mon');

-- Each request type it sent was counted, and the latencies are ordered.
SELECT a.request,
       a.calls > coalesce(b.calls, 0) AS counted,
       a.mean_ms <= a.max_ms AND a.p99_ms <= a.max_ms AND a.mean_ms >= 0 AS ordered,
       a.deferred <= a.calls + 1 AS deferred_bounded
  FROM widecolumn.stat_worker a LEFT JOIN req_before b USING (request)
 WHERE a.request IN ('open', 'snapshot', 'scan', 'write', 'commit', 'compact')
 ORDER BY a.request;
-- A compact is always answered after its walk, so it was deferred.
SELECT a.deferred > coalesce(b.deferred, 0) AS compact_deferred
  FROM widecolumn.stat_worker a LEFT JOIN req_before b USING (request)
 WHERE a.request = 'compact';
-- No request type is shown twice, and every one has a name.
SELECT count(*) = count(DISTINCT request) AS distinct_types,
       bool_and(request !~ '^[0-9]+$') AS all_named
  FROM widecolumn.stat_worker;

-- Two synced commits that wrote: counted, and fsyncs counted.  Their
-- batches are durable by WAL and written to LevelDB without sync; the first
-- commit of a database with nothing to redo syncs its redo entry first.
SELECT a.commits - b.commits >= 2 AS commits_counted,
       a.fsyncs - b.fsyncs >= 1 AS fsyncs_counted,
       a.large_commits >= b.large_commits AS large_not_fewer,
       a.busy_fraction BETWEEN 0 AND 1 AS busy_is_a_fraction,
       a.started = b.started AS same_worker,
       a.started <= now() AS started_before
  FROM widecolumn.stat_worker_info a, info_before b;

-- Each request this file sent had its wait in the queue measured (the
-- first of several sent at once, at least one per statement), and the
-- waits are ordered.
SELECT a.queue_waits - b.queue_waits >= 10 AS queue_waits_counted,
       a.queue_wait_mean_ms <= a.queue_wait_max_ms AS mean_below_max,
       a.queue_wait_p99_ms <= a.queue_wait_max_ms * 1.125 + 0.001 AS p99_below_max,
       a.queue_wait_mean_ms >= 0 AS not_negative
  FROM widecolumn.stat_worker_info a, info_before b;

-- LevelDB's figures of the server's database: compact wrote its memtable
-- to a file and compacted the table's range.
SELECT server, open, array_length(files_per_level, 1) AS levels,
       array_length(mb_per_level, 1) AS size_levels,
       (SELECT sum(f) FROM unnest(files_per_level) f) >= 1 AS has_files,
       compactions >= 1 AS compacted,
       stats LIKE '%Compactions%Level%Files%' AS has_leveldb_stats
  FROM widecolumn.stat_leveldb WHERE server = 'mon_srv';

-- Nothing long runs in this session: no progress row of its own.
SELECT count(*) FROM widecolumn.progress WHERE pid = pg_backend_pid();

-- stat_leveldb names server directories: only for pg_read_all_stats.
CREATE ROLE mon_user;
CREATE ROLE mon_stats IN ROLE pg_read_all_stats;
SET ROLE mon_user;
SELECT count(*) >= 1 AS sees_requests FROM widecolumn.stat_worker;
SELECT count(*) AS info_rows FROM widecolumn.stat_worker_info;
SELECT count(*) >= 0 AS sees_progress FROM widecolumn.progress;
SELECT path FROM widecolumn.stat_leveldb;
SELECT path FROM widecolumn.stat_leveldb();
SET ROLE mon_stats;
SELECT count(*) >= 1 AS sees_databases FROM widecolumn.stat_leveldb WHERE server IS NULL OR server IS NOT NULL;
RESET ROLE;
DROP ROLE mon_user;
DROP ROLE mon_stats;
