
# Durability and restarts: of the whole server (clean and immediate) and of
# the storage worker alone.
#
#  - committed rows survive a clean restart and an immediate-mode stop;
#  - rows of transactions that never committed (rolled back, session
#    terminated, session cut off by a restart or a crash) never appear;
#  - a storage worker stopped with SIGTERM is started again by the
#    postmaster, with the data intact, and new writes work;
#  - a session that used the old worker works again at once: its next
#    statement either succeeds or fails with SQLSTATE 08006, and the one
#    after succeeds;
#  - a transaction open across a worker restart either commits all of its
#    writes or none, and says which; a REPEATABLE READ transaction never
#    silently moves to a newer snapshot.
#
# Every wait polls with a timeout; nothing depends on how long anything
# takes.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;
use Time::HiRes qw(usleep);

my $WORKER = 'widecolumn_fdw storage worker';

my $node = wc_node('wc_restart');

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE kv (
	k text OPTIONS (rowkey 'true'),
	v bigint OPTIONS (column 'f:v'),
	note text OPTIONS (column 'f:note')
) SERVER wc OPTIONS (table 'restart_kv');
});

# What the table must hold: row key => "v|note" as psql -A prints it.
my %expect;

sub check_table
{
	my ($name) = @_;
	my $want = join("\n", map { "$_|$expect{$_}" } sort keys %expect);
	my $got = $node->safe_psql('postgres',
		'SELECT k, v, note FROM kv ORDER BY k COLLATE "C"');
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	is($got, $want, $name);
}



# A psql session that outlives single statements.  Errors do not end it,
# and they carry their SQLSTATE.
sub session
{
	my $s = $node->background_psql(
		'postgres',
		on_error_stop => 0,
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	$s->set_query_timer_restart;
	return $s;
}

# Run one statement in a session: (output, error text or '').
sub run_in
{
	my ($s, $sql) = @_;
	$s->{stderr} = '';
	my ($out, $failed) = $s->query($sql);
	my $err = $s->{stderr};
	$s->{stderr} = '';
	return ($out, $failed ? $err : '');
}


sub backend_gone
{
	my ($pid) = @_;
	return $node->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $pid");
}

# ---------------------------------------------------------------------
# Committed rows, in single statements and in a transaction of several.

$node->safe_psql(
	'postgres', q{
INSERT INTO kv VALUES ('a1', 1, 'one'), ('a2', 2, 'two'), ('a3', 3, 'three');
INSERT INTO kv SELECT 'bulk' || lpad(i::text, 4, '0'), i, NULL
	FROM generate_series(1, 500) i;
BEGIN;
INSERT INTO kv VALUES ('b1', 10, 'ten');
UPDATE kv SET note = 'changed' WHERE k = 'a1';
DELETE FROM kv WHERE k = 'a3';
COMMIT;
});
$expect{a1} = '1|changed';
$expect{a2} = '2|two';
$expect{b1} = '10|ten';
$expect{ sprintf('bulk%04d', $_) } = "$_|" for 1 .. 500;
check_table('committed rows are visible');

# ---------------------------------------------------------------------
# Transactions that never commit, then a clean restart.

$node->safe_psql('postgres',
	"BEGIN; INSERT INTO kv VALUES ('ghost_rolled_back', 1, 'x'); "
	  . "UPDATE kv SET v = -1 WHERE k = 'a2'; ROLLBACK;");

my $victim = session();
my ($vpid) = run_in($victim, 'SELECT pg_backend_pid()');
my (undef, $err) = run_in($victim,
	"BEGIN; INSERT INTO kv VALUES ('ghost_terminated', 1, 'x'); "
	  . "DELETE FROM kv WHERE k = 'b1';");
is($err, '', 'uncommitted writes in a session that will be terminated');
$node->safe_psql('postgres', "SELECT pg_terminate_backend($vpid)");
ok(backend_gone($vpid), 'terminated session is gone');
$victim->quit;

my $open = session();
(undef, $err) = run_in($open,
	"BEGIN; INSERT INTO kv VALUES ('ghost_clean_restart', 1, 'x'); "
	  . "UPDATE kv SET note = 'lost' WHERE k = 'a2';");
is($err, '', 'uncommitted writes in a session open across a restart');

check_table('uncommitted and rolled-back writes are invisible');

$node->restart;
$open->quit;

check_table('committed rows survive a clean restart; uncommitted ones do not');

# ---------------------------------------------------------------------
# Immediate-mode stop: no clean shutdown of the worker or of LevelDB.

$node->safe_psql(
	'postgres', q{
INSERT INTO kv VALUES ('c1', 100, 'before crash');
BEGIN;
UPDATE kv SET v = 20 WHERE k = 'a2';
INSERT INTO kv VALUES ('c2', 200, NULL);
COMMIT;
});
$expect{c1} = '100|before crash';
$expect{a2} = '20|two';
$expect{c2} = '200|';

$open = session();
(undef, $err) = run_in($open,
	"BEGIN; INSERT INTO kv VALUES ('ghost_immediate', 1, 'x'); "
	  . "DELETE FROM kv WHERE k = 'c1';");
is($err, '', 'uncommitted writes in a session open across a crash');

$node->stop('immediate');
$node->start;
$open->quit;

check_table('committed rows survive an immediate stop; uncommitted ones do not');

# ---------------------------------------------------------------------
# The storage worker stopped with SIGTERM: the postmaster starts another.

my $old_worker = worker_pid($node);
ok(defined $old_worker, 'storage worker is running');

# Sessions that used the worker before it went away:
#  $idle has read, and is idle outside a transaction;
#  $writer has uncommitted writes, buffered in its backend;
#  $rr is in a REPEATABLE READ transaction and has read.
my $idle = session();
my ($count_before) = run_in($idle, 'SELECT count(*) FROM kv');
is($count_before, scalar(keys %expect), 'session reads before the restart');

my $writer = session();
(undef, $err) = run_in($writer,
	"BEGIN; INSERT INTO kv VALUES ('pending', 7, 'across worker restart');");
is($err, '', 'uncommitted write before the worker restart');

my $rr = session();
my ($rr_count) = run_in($rr,
	'BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM kv;');
is($rr_count, scalar(keys %expect),
	'REPEATABLE READ transaction reads before the restart');

# Committed after $rr's snapshot: $rr must never see it.
$node->safe_psql('postgres',
	"INSERT INTO kv VALUES ('late', 8, 'after the snapshot')");
$expect{late} = '8|after the snapshot';

my $new_worker;
SKIP:
{
	skip 'no storage worker pid to signal', 1 unless defined $old_worker;
	kill 'TERM', $old_worker;
	$new_worker = wait_for_new_worker($node, $old_worker);
	ok(defined $new_worker,
		'postmaster starts a new storage worker after SIGTERM');
}

SKIP:
{
	if (!defined $new_worker)
	{
		# Nothing below can work without a worker; get one back so the
		# rest of the file still runs.
		$_->quit for ($idle, $writer, $rr);
		$node->restart;
		skip 'the storage worker did not come back', 9;
	}

	check_table('data intact after the worker restart');

	$node->safe_psql('postgres',
		"INSERT INTO kv VALUES ('d1', 300, 'after worker restart'); "
		  . "UPDATE kv SET note = 'updated after worker restart' WHERE k = 'c2';");
	$expect{d1} = '300|after worker restart';
	$expect{c2} = '200|updated after worker restart';
	check_table('new writes work after the worker restart');

	# The idle session: at most one statement may fail, with 08006.
	my ($out, $e) = run_in($idle, 'SELECT count(*) FROM kv');
	if ($e ne '')
	{
		is(sqlstate($e), '08006',
			'first statement of an old session fails only with 08006')
		  or diag($e);
		($out, $e) = run_in($idle, 'SELECT count(*) FROM kv');
	}
	else
	{
		pass('old session reconnects transparently');
	}
	is($e, '', 'old session works again');
	is($out, scalar(keys %expect), 'old session sees the current data');

	# The writer: COMMIT applies all of its writes or reports 08006 and
	# applies none.
	($out, $e) = run_in($writer, 'COMMIT');
	if ($e eq '')
	{
		$expect{pending} = '7|across worker restart';
		pass('transaction open across the worker restart commits');
	}
	else
	{
		is(sqlstate($e), '08006',
			'transaction open across the worker restart fails with 08006')
		  or diag($e);
	}
	check_table('its writes are applied exactly as COMMIT reported');

	# REPEATABLE READ: the old snapshot is gone with the old worker, so the
	# transaction must fail rather than read a newer one.
	($out, $e) = run_in($rr, 'SELECT count(*) FROM kv');
	if ($e eq '')
	{
		is($out, $rr_count,
			'REPEATABLE READ across a worker restart does not see a newer snapshot'
		);
	}
	else
	{
		is(sqlstate($e), '08006',
			'REPEATABLE READ across a worker restart fails with 08006')
		  or diag($e);
	}
	run_in($rr, 'ROLLBACK');
	($out, $e) = run_in($rr, 'SELECT count(*) FROM kv');
	is("$e$out", scalar(keys %expect),
		'the next transaction of that session works');

	$_->quit for ($idle, $writer, $rr);
}

# ---------------------------------------------------------------------
# Everything, once more, after a last clean restart.

$node->restart;
ok(defined wait_for_new_worker($node, undef), 'storage worker runs after restart');
check_table('all committed data after the final restart');

$node->stop;
done_testing();
