
# kill -9 of the storage worker while it removes data: in the middle of a
# background sweep, of a widecolumn.compact(), and around a drop_table (before
# its COMMIT, and in the middle of the sweep that deletes its data).  After
# the restart nothing committed may be lost (a native table is the oracle,
# and the versions a policy keeps still read as of their time) and nothing
# dropped may come back.
#
# The hidden setting widecolumn_fdw.debug_crash_after_sweep_batches makes a
# walk of src/worker/leveldb/sweep.c write a batch a row and kill the worker with
# SIGKILL after that many batches, so the crash lands in the middle of it.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

# The sweep is off until the first crash is set up, so that the garbage made
# below is still there when it starts.
my $node = wc_node('wc_sweep_crash',
	"restart_after_crash = on\nwidecolumn_fdw.sweep_naptime = 0\n");

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
SELECT widecolumn.create_family('wc', 't', 'a');
SELECT widecolumn.create_family('wc', 't', 'h', 'never');
SELECT widecolumn.create_family('wc', 'd', 'a');
CREATE FOREIGN TABLE t (k text OPTIONS (rowkey 'true') COLLATE "C",
	x int OPTIONS (column 'a:x'), z int OPTIONS (column 'h:z'))
	SERVER wc OPTIONS (table 't');
CREATE FOREIGN TABLE d (k text OPTIONS (rowkey 'true') COLLATE "C",
	x int OPTIONS (column 'a:x'))
	SERVER wc OPTIONS (table 'd');
CREATE TABLE t_oracle (k text COLLATE "C" PRIMARY KEY, x int, z int);
CREATE TABLE marks (name text PRIMARY KEY, at timestamptz);
});

# Every change twice: to the foreign table and to its oracle.
sub both
{
	my ($sql) = @_;
	$node->safe_psql('postgres', $sql);
	$node->safe_psql('postgres', $sql =~ s/\bt\b/t_oracle/gr);
	return;
}

both("INSERT INTO t SELECT 'k' || lpad(i::text, 5, '0'), i, i FROM generate_series(1, 3000) i");
$node->safe_psql('postgres',
	"INSERT INTO d SELECT 'k' || i, i FROM generate_series(1, 2000) i");
$node->safe_psql('postgres',
	"SELECT pg_sleep(0.01); INSERT INTO marks VALUES ('loaded', clock_timestamp()); SELECT pg_sleep(0.01);");
# garbage: old versions of x (maxversions=1), cell and row tombstones; z
# (never) keeps its history
both('UPDATE t SET x = x + 1') for 1 .. 3;
both('UPDATE t SET z = -z');
both("UPDATE t SET x = NULL WHERE k < 'k00100'");
both("UPDATE t SET z = NULL WHERE k > 'k00100' AND k < 'k00200'");
both("DELETE FROM t WHERE k > 'k02900'");

my $content = q{
SELECT count(*), md5(string_agg(k || ':' || coalesce(x::text, '-') || ':' || coalesce(z::text, '-'), ',' ORDER BY k)) FROM %s
};
sub t_now { return $node->safe_psql('postgres', sprintf($content, $_[0] // 't')); }
sub t_loaded
{
	my $at = $node->safe_psql('postgres', 'SELECT at FROM marks');
	return $node->safe_psql('postgres',
		"SET widecolumn.as_of = '$at';" . sprintf($content, 't'));
}
my $d_rows = q{SELECT count(*) FROM d};
my $loaded = t_loaded();
like($loaded, qr/^3000\|/, 'as of the load, the rows deleted since are there');
is(t_now(), t_now('t_oracle'), 'the foreign table holds what was committed');
is($node->safe_psql('postgres', $d_rows), '2000', 'd holds its rows');

# Crash after a given number of sweep batches, and wait for the restart.
sub crash_after
{
	my ($batches, $label, $sql, $naptime, $then) = @_;
	my $old = worker_pid($node);
	$node->safe_psql('postgres',
		"ALTER SYSTEM SET widecolumn_fdw.debug_crash_after_sweep_batches = $batches;"
		  . (defined $naptime ? "ALTER SYSTEM SET widecolumn_fdw.sweep_naptime = $naptime;" : '')
		  . 'SELECT pg_reload_conf();');
	$then->() if defined $then;
	if (defined $sql)
	{
		my ($ret, $out, $err) = $node->psql('postgres', $sql);
		isnt($ret, 0, "$label: the statement fails when the worker dies");
	}
	ok(defined wait_for_new_worker($node, $old), "$label: the worker died and came back");
	$node->poll_query_until('postgres', 'SELECT true')
	  or die 'the cluster did not come back';
	# before any query opens the database again, so before it is swept
	$node->safe_psql('postgres',
		'ALTER SYSTEM RESET widecolumn_fdw.debug_crash_after_sweep_batches; SELECT pg_reload_conf();'
	);
	return;
}

sub check_t
{
	my ($label) = @_;
	is(t_now(), t_now('t_oracle'), "$label: nothing committed is lost");
	is(t_loaded(), $loaded, "$label: the versions kept read as of their time");
	return;
}

# 1. In the middle of the background sweep, turned on now: its first pass
# over the database comes a naptime (1 s) after the worker first sees it.
crash_after(50, 'background sweep', undef, 1);
check_t('background sweep');
is($node->safe_psql('postgres', $d_rows), '2000', 'background sweep: d is whole');

# 2. Around a drop_table: killed before its COMMIT, it is not applied.
{
	my $s = $node->background_psql('postgres', on_error_stop => 0);
	$s->query_safe(q{BEGIN; SELECT widecolumn.drop_table('wc', 'd');});
	my $old = worker_pid($node);
	kill 'KILL', $old;
	ok(defined wait_for_new_worker($node, $old), 'drop_table: the worker came back');
	$node->poll_query_until('postgres', 'SELECT true')
	  or die 'the cluster did not come back';
	$s->quit;
}
is($node->safe_psql('postgres', $d_rows), '2000', 'drop_table killed before COMMIT: d is whole');
is($node->safe_psql('postgres',
	"SELECT family FROM widecolumn.families('wc') WHERE table_name = 'd'"), 'a',
	'drop_table killed before COMMIT: its families are there');

# 3. Committed, then killed in the middle of the sweep that deletes its
# data.  (compact first removes what the first crash left, so that the next
# pass has only the dropped table to delete.)
$node->safe_psql('postgres', "SELECT widecolumn.compact('wc')");
crash_after(
	100, 'sweep of a dropped table',
	undef, undef,
	sub {
		is($node->safe_psql('postgres', "SELECT widecolumn.drop_table('wc', 'd')"),
			'2000', 'drop_table deletes 2000 versions');
	});
is($node->safe_psql('postgres', $d_rows), '0', 'sweep of a dropped table: nothing comes back');
is($node->safe_psql('postgres',
	"SELECT count(*) FROM widecolumn.families('wc') WHERE table_name = 'd'"), '0',
	'sweep of a dropped table: its families stay dropped');
check_t('sweep of a dropped table');

# 4. In the middle of compact(), with the background sweep off.
$node->safe_psql('postgres',
	'ALTER SYSTEM SET widecolumn_fdw.sweep_naptime = 0; SELECT pg_reload_conf();');
both('UPDATE t SET x = x + 1') for 1 .. 2;
both("DELETE FROM t WHERE k < 'k00050'");
crash_after(40, 'compact', "SELECT widecolumn.compact('wc')");
check_t('compact');
my $removed = $node->safe_psql('postgres', "SELECT widecolumn.compact('wc')");
cmp_ok($removed, '>', 0, "compact run again removes the rest ($removed)");
check_t('compact run again');
is($node->safe_psql('postgres', "SELECT widecolumn.compact('wc')"), '0',
	'then nothing is left to remove');
is($node->safe_psql('postgres', $d_rows), '0', 'the dropped table stays empty');
# its markers are gone with its data: it no longer exists
my ($ret, $out, $err) =
  $node->psql('postgres', "SELECT widecolumn.drop_table('wc', 'd')");
like($err, qr/stored table "d" does not exist/, 'the dropped table no longer exists');
$node->safe_psql('postgres', "INSERT INTO d VALUES ('new', 1)");
is($node->safe_psql('postgres', 'SELECT k FROM d'), 'new',
	'a row written after the drop is the only one');

done_testing();
