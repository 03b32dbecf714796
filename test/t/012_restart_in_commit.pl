
# The storage worker restarted in the middle of a COMMIT, after the
# transaction's writes were sent and before the COMMIT itself.
#
# The writes went with the old worker.  The session must not carry on with
# a new link as if nothing had happened: the database handle it got from
# the old worker is that worker's list position, and in the new worker the
# same number may name another database (here another server's, opened
# first by another session), which would take an empty COMMIT and answer
# OK while the rows are lost.  The COMMIT must fail as the link's loss
# (08006), and the transaction (its native rows too) roll back whole.
#
# The hidden setting widecolumn_fdw.debug_pause_before_commit_ms holds the
# COMMIT between its writes and its COMMIT message, so that the restart
# comes there whatever the machine's speed.

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

my $node = wc_node('wc_restart_in_commit');

# Nothing here opens a database in the worker: the session below is the
# first to, so its server's database is the old worker's first.
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE SERVER wc2 FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE ft (rowkey text COLLATE "C", v int) SERVER wc;
CREATE FOREIGN TABLE ft2 (rowkey text COLLATE "C", v int) SERVER wc2;
CREATE FOREIGN TABLE ft_in_wc2 (rowkey text COLLATE "C", v int) SERVER wc2 OPTIONS (table 'ft');
CREATE TABLE nt (k text PRIMARY KEY, v int);
});

my $timer = IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default);
my ($in, $out, $err) = ('', '', '');
my $session = IPC::Run::start(
	[ 'psql', '-X', '-A', '-t', '-v', 'VERBOSITY=verbose', '-d',
		$node->connstr('postgres') . ' application_name=committer' ],
	'<', \$in, '>', \$out, '2>', \$err);
$in .= q{
SET widecolumn_fdw.debug_pause_before_commit_ms = 5000;
BEGIN;
INSERT INTO ft SELECT 'b' || g, g FROM generate_series(1, 1000) g;
INSERT INTO nt SELECT 'b' || g, g FROM generate_series(1, 1000) g;
COMMIT;
SELECT 'done';
};

# Once it is held in its COMMIT: restart the worker, and have another
# session open the other server's database first in the new one.
my $active = '';
for (my $i = 0; $i < 3000 && $active eq ''; $i++)
{
	$session->pump_nb;
	$active = $node->safe_psql('postgres',
		q{SELECT pid FROM pg_stat_activity WHERE application_name = 'committer' AND starts_with(query, 'COMMIT')});
	usleep(10_000) if $active eq '';
}
ok($active ne '', 'sanity: the session is in its COMMIT');
my $worker = worker_pid($node);
kill 'TERM', $worker;
ok(defined wait_for_new_worker($node, $worker), 'a new storage worker starts');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ft2'), '0',
	'another session opens the other server\'s database in the new worker');

pump_until($session, $timer, \$out, qr/done/);
$in .= "\\q\n";
$session->finish;
like($err, qr/08006/, 'the COMMIT fails as the loss of the link (08006)');
is( $node->safe_psql('postgres',
		q{SELECT (SELECT count(*) FROM ft) || ' ' || (SELECT count(*) FROM ft_in_wc2) || ' ' || (SELECT count(*) FROM nt)}),
	'0 0 0', 'and nothing of the transaction is anywhere, foreign or native');

$node->stop;
done_testing();
