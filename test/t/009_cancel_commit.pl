
# A query cancel, or a terminate, during COMMIT.
#
# Once the storage worker may have committed a transaction's writes, a
# cancel cannot take them back; honoured, it would report a rollback while
# the foreign rows stand and the transaction's native rows are rolled back.
# So a COMMIT that writes to widecolumn_fdw tables is not cancelled: a
# cancel sent while such a COMMIT runs is ignored, and the COMMIT succeeds
# with the foreign and the native rows together.  A cancel before the
# COMMIT still cancels the statement, and the transaction rolls back whole.
#
# The cancel is sent once pg_stat_activity shows the session running COMMIT;
# the COMMIT of 500,000 rows takes long enough for it to arrive meanwhile.
# Nothing depends on how long anything takes: if the COMMIT were over first,
# the checks would pass as well (they cannot fail wrongly, only miss).

use strict;
use warnings;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;
use Time::HiRes qw(usleep);

my $node = wc_node('wc_cancel_commit');

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE f (k text OPTIONS (rowkey 'true') COLLATE "C", v bigint) SERVER wc;
CREATE TABLE n (tag text);
});

# Run a transaction in psql (application_name $app), cancel it once it is
# running the statement that begins with $start, and return psql's
# standard output and error.
sub cancel_during
{
	my ($app, $start, $script, $signal) = @_;
	$signal //= 'pg_cancel_backend';
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-d',
			$node->connstr('postgres') . " application_name=$app" ],
		'<', \$script, '>', \$out, '2>', \$err);
	my $pid = '';
	for (my $i = 0; $i < 18_000 && $pid eq ''; $i++)
	{
		$pid = $node->safe_psql('postgres',
			"SELECT pid FROM pg_stat_activity WHERE application_name = '$app' "
			  . "AND state = 'active' AND starts_with(query, '$start')");
		usleep(10_000) if $pid eq '';
		$h->pump_nb;
	}
	ok($pid ne '', "$app: the session was seen running $start");
	$node->safe_psql('postgres', "SELECT $signal($pid)") if $pid ne '';
	$h->finish;
	return ($out, $err);
}

my ($out, $err) = cancel_during('commit', 'COMMIT', q{
BEGIN;
INSERT INTO n VALUES ('commit');
INSERT INTO f SELECT 'c' || lpad(i::text, 7, '0'), i FROM generate_series(1, 500000) i;
COMMIT;
});
unlike($err, qr/canceling statement/, 'a cancel during COMMIT does not cancel it');
like($out, qr/^COMMIT$/m, 'the COMMIT succeeds');
is( $node->safe_psql('postgres',
		q{SELECT (SELECT count(*) FROM f WHERE k LIKE 'c%') || ' ' || (SELECT count(*) FROM n WHERE tag = 'commit')}),
	'500000 1', 'the foreign rows and the native row are both committed');

($out, $err) = cancel_during('insert', 'INSERT INTO f', q{
BEGIN;
INSERT INTO n VALUES ('insert');
INSERT INTO f SELECT 'i' || lpad(i::text, 7, '0'), i FROM generate_series(1, 2000000) i;
COMMIT;
});
like($err, qr/canceling statement due to user request/, 'a cancel before COMMIT cancels the statement');
is( $node->safe_psql('postgres',
		q{SELECT (SELECT count(*) FROM f WHERE k LIKE 'i%') || ' ' || (SELECT count(*) FROM n WHERE tag = 'insert')}),
	'0 0', 'and nothing of that transaction is committed');

# A terminate during COMMIT is put off too, until the transaction has
# ended: the backend then exits, but the transaction is not split, its
# foreign rows committed and its native row rolled back.  The terminate is
# sent once the worker writes the commit: the pending-commit file of a
# large commit is then in the database's directory.
my $dir = $node->basedir . '/terminate_db';
$node->safe_psql(
	'postgres', qq{
CREATE SERVER wct FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$dir');
CREATE FOREIGN TABLE ft (k text OPTIONS (rowkey 'true') COLLATE "C", v bigint) SERVER wct;
});
# Run $script in psql (application_name $app) until the worker is seen
# writing its commit; returns the harness and psql's output and error.
sub start_until_writing
{
	my ($app, $script) = @_;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-d',
			$node->connstr('postgres') . " application_name=$app" ],
		'<', \$script, '>', \$out, '2>', \$err);
	my $seen = 0;
	for (my $i = 0; $i < 18_000 && !$seen; $i++)
	{
		$seen = -e "$dir/widecolumn-pending-commit";
		usleep(5_000) unless $seen;
		$h->pump_nb;
	}
	ok($seen, "$app: the worker was seen writing the commit");
	return ($h, \$out, \$err);
}

{
	my ($h, $out, $err) = start_until_writing('terminate', q{
BEGIN;
INSERT INTO n VALUES ('terminate');
INSERT INTO ft SELECT 't' || lpad(i::text, 7, '0'), i FROM generate_series(1, 500000) i;
COMMIT;
SELECT 'still here';
});
	$node->safe_psql('postgres',
		"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'terminate'");
	$h->finish;
	like($$err, qr/terminating connection due to administrator command/,
		'a terminate during COMMIT ends the session');
	unlike($$out, qr/still here/, 'before its next statement');
	is( $node->safe_psql('postgres',
			q{SELECT (SELECT count(*) FROM ft) || ' ' || (SELECT count(*) FROM n WHERE tag = 'terminate')}),
		'500000 1',
		'but only after the COMMIT: the foreign rows and the native row are both committed');
}

# The worker stopped (SIGTERM, as a fast shutdown does) while it writes a
# large commit: it finishes the write and answers before it exits, and the
# session reads that answer before it takes the worker for gone.  So the
# transaction commits whole, or, had the worker not begun, rolls back whole;
# never the foreign rows without the native one.
{
	my ($h) = start_until_writing('worker_stop', q{
BEGIN;
INSERT INTO n VALUES ('worker stop');
INSERT INTO ft SELECT 'w' || lpad(i::text, 7, '0'), i FROM generate_series(1, 300000) i;
COMMIT;
});
	my $worker = worker_pid($node);
	kill 'TERM', $worker if defined $worker;
	$h->finish;
	wait_for_new_worker($node, $worker);
	my $res = $node->safe_psql('postgres',
		q{SELECT (SELECT count(*) FROM ft WHERE k LIKE 'w%') || ' ' || (SELECT count(*) FROM n WHERE tag = 'worker stop')});
	like($res, qr/^(300000 1|0 0)$/,
		"the worker stopped during a COMMIT: the transaction is not split ($res)");
}

$node->stop;
done_testing();
