
# The key access heat map and the table statistics survive restarts: they
# are kept in the LevelDB database itself (docs/heatmap.md).
#
#  - a storage worker stopped with SIGTERM stores them as it exits, and the
#    worker the postmaster starts again gives the same heat map and
#    statistics;
#  - so does a clean restart of PostgreSQL;
#  - a worker killed with SIGKILL (a crash restart of every process) loses
#    at most what it counted in the last few seconds: it stores them every
#    5 seconds, so after a wait longer than that nothing is lost;
#  - with widecolumn_fdw.key_stats off the worker counts nothing.
#
# The background sweep is off, so that nothing but the workload changes
# the counters.  Every wait polls or outlasts the stated store interval;
# no check depends on how long anything takes.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $node = wc_node('wc_heatmap',
	"restart_after_crash = on\nwidecolumn_fdw.sweep_naptime = 0\n");

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
CREATE FOREIGN TABLE hm (
	k text OPTIONS (rowkey 'true') COLLATE "C",
	v bigint,
	note text
) SERVER wc OPTIONS (table 'hm');
});

# A workload: rows written under two prefixes, point reads and a prefix.
sub workload
{
	my ($n) = @_;
	$node->safe_psql(
		'postgres', qq{
INSERT INTO hm SELECT p || '-' || lpad(i::text, 5, '0'), i, md5(i::text)
  FROM unnest(ARRAY['u', 'w']) p, generate_series($n, $n + 199) i;
SELECT v FROM hm WHERE k = 'u-' || lpad('$n', 5, '0');
SELECT v FROM hm WHERE k = 'w-' || lpad('$n', 5, '0');
SELECT count(*) FROM hm WHERE k LIKE 'u-%';
});
	return;
}

# What must survive: the heat map's sums per metric, in one bucket, and
# the table's statistics (but its size, which a restart may change as
# LevelDB writes its memtable out).
my $state_sql = q{
SELECT m, round(sum(value))
  FROM unnest(ARRAY['reads', 'writes', 'scanned', 'bytes_read', 'bytes_written']) m,
       widecolumn.key_heatmap('hm', m, now() - interval '1 day', 1)
  GROUP BY m ORDER BY m;
SELECT count(*) FROM widecolumn.key_heatmap('hm', 'writes', now() - interval '1 day', 1);
SELECT reads, rows_scanned, entries_scanned, cells_written, tombstones_written,
       versions_gc_removed, last_sweep, stats_reset
  FROM widecolumn.stat_tables WHERE table_name = 'hm';
};

# The state, once the server answers (the first statement after a worker
# restart may find the old worker gone).
sub state
{
	$node->poll_query_until('postgres',
		q{SELECT count(*) >= 0 FROM widecolumn.stat_tables})
	  or die "the server does not answer";
	return $node->safe_psql('postgres', $state_sql);
}

workload(0);
my $before = state();
like($before, qr/^reads\|202$/m, 'the heat map counted the rows read');
like($before, qr/^writes\|800$/m, 'the heat map counted the cells written');

# SIGTERM: the worker stores the counters as it exits.
my $old = worker_pid($node);
kill 'TERM', $old;
ok(defined wait_for_new_worker($node, $old), 'SIGTERM: a new worker runs');
is(state(), $before, 'SIGTERM: the heat map and statistics are the same');

# A clean restart of PostgreSQL.
workload(1000);
$before = state();
like($before, qr/^writes\|1600$/m, 'the second workload was counted');
$node->restart;
is(state(), $before, 'restart: the heat map and statistics are the same');

# SIGKILL after the store interval: the last store holds everything.
workload(2000);
$before = state();
like($before, qr/^writes\|2400$/m, 'the third workload was counted');
sleep(8);
$old = worker_pid($node);
kill 'KILL', $old;
ok(defined wait_for_new_worker($node, $old), 'SIGKILL: a new worker runs');
is(state(), $before, 'SIGKILL: the heat map and statistics are the same');

# widecolumn_fdw.key_stats = off: the worker counts nothing (once it has
# taken the setting: poll), and what it counted stays; on again, it counts.
$node->safe_psql(
	'postgres', q{
CREATE FUNCTION read_counted() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	before bigint := (SELECT reads FROM widecolumn.stat_tables WHERE table_name = 'hm');
BEGIN
	PERFORM v FROM hm WHERE k = 'u-00000';
	RETURN (SELECT reads FROM widecolumn.stat_tables WHERE table_name = 'hm') > before;
END $$;
ALTER SYSTEM SET widecolumn_fdw.key_stats = off;
SELECT pg_reload_conf();
});
ok($node->poll_query_until('postgres', 'SELECT NOT read_counted()'),
	'key_stats off: a read is not counted');
$before = state();
workload(3000);
is(state(), $before, 'key_stats off: a workload changes nothing');
$node->safe_psql('postgres',
	'ALTER SYSTEM RESET widecolumn_fdw.key_stats; SELECT pg_reload_conf();');
ok($node->poll_query_until('postgres', 'SELECT read_counted()'),
	'key_stats on again: a read is counted');

$node->stop;
done_testing();
