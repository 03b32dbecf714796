
# The link between a session and the storage worker, when a wait is cut
# short or the worker stops under an open scan.
#
#  - A statement cancelled (statement_timeout) while it waited for one of
#    the worker's answers leaves that answer to come; the session's next
#    request must take only its own.  Here the first request after the
#    cancel opens a second server's database: with the stale answer (the
#    cancelled size estimate, 0) taken for its own, the session would read
#    and write the first server's database for the rest of its life.  The
#    worker is stopped (SIGSTOP) meanwhile, so that the cancel comes while
#    the answer is owed, whatever the machine's speed.
#  - A worker stopped with SIGTERM while a session has a scan open (a
#    cursor half read) closes LevelDB only after letting go of the scan's
#    iterator and snapshot: LevelDB would otherwise abort, and the
#    postmaster restart the whole cluster.  The session gets the link's
#    error (08006); other sessions keep their connections.
#  - A worker restarted while a cursor of the session is declared but not
#    yet read: the session's next statement fails with 08006; so does the
#    second read of a statement (a stable function) that began before.
#  - The worker frees each scan when it ends, not when its session leaves.

use strict;
use warnings;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $node = wc_node('wc_worker_link');

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc1 FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE SERVER wc2 FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE empty1 (rowkey text COLLATE "C", n bigint) SERVER wc1 OPTIONS (table 'empty');
CREATE FOREIGN TABLE t_on_wc1 (rowkey text COLLATE "C", n bigint) SERVER wc1 OPTIONS (table 't');
CREATE FOREIGN TABLE t_on_wc2 (rowkey text COLLATE "C", n bigint) SERVER wc2 OPTIONS (table 't');
INSERT INTO t_on_wc1 VALUES ('stored in wc1', 1);
INSERT INTO t_on_wc2 VALUES ('stored in wc2', 2);
CREATE FOREIGN TABLE big (rowkey text COLLATE "C", pad text) SERVER wc1;
INSERT INTO big SELECT lpad(i::text, 6, '0'), repeat(md5(i::text), 4) FROM generate_series(1, 40000) i;
});

# A fresh session: its first request opens wc1's database, then a request
# is cancelled while the worker cannot answer it.
my $worker = worker_pid($node);
my ($ret, $out, $err) = $node->psql(
	'postgres', qq{
SELECT count(*) FROM empty1;
\\! kill -STOP $worker
SET statement_timeout = '300ms';
SELECT count(*) FROM empty1;
RESET statement_timeout;
\\! kill -CONT $worker
SELECT rowkey FROM t_on_wc2;
INSERT INTO t_on_wc2 VALUES ('written through wc2', 3);
}, on_error_stop => 0);
like($err, qr/canceling statement due to statement timeout/,
	'sanity: the statement was cancelled while it waited for the worker');
like($out, qr/stored in wc2/, 'the next request takes its own answer: it reads the second server');
unlike($out, qr/stored in wc1/, 'and not the first server\'s table of the same name');
is($node->safe_psql('postgres', q{SELECT string_agg(rowkey, ',' ORDER BY rowkey) FROM t_on_wc1}),
	'stored in wc1', 'nothing was written to the first server');
is($node->safe_psql('postgres', q{SELECT string_agg(rowkey, ',' ORDER BY rowkey) FROM t_on_wc2}),
	'stored in wc2,written through wc2', 'the write went to the second server');

# A cursor half read, then SIGTERM to the worker.
my $log_offset = -s $node->logfile;
my ($bystander_in, $bystander_out) = ("SELECT 'bystander ready';\n", '');
my $bystander = IPC::Run::start([ 'psql', '-X', '-A', '-t', '-d', $node->connstr('postgres') ],
	'<', \$bystander_in, '>', \$bystander_out, '2>', \my $bystander_err);
my $timer = IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default);
pump_until($bystander, $timer, \$bystander_out, qr/bystander ready/);
$worker = worker_pid($node);
($ret, $out, $err) = $node->psql(
	'postgres', qq{
BEGIN;
DECLARE c CURSOR FOR SELECT rowkey, pad FROM big;
FETCH 10 FROM c;
\\! kill -TERM $worker
MOVE ALL IN c;
}, on_error_stop => 0);
like($err, qr/widecolumn_fdw|storage worker/i, 'the session with the open scan gets the link\'s error');
ok(defined wait_for_new_worker($node, $worker), 'a new storage worker starts');
$bystander_in .= "SELECT 'bystander still here';\n";
pump_until($bystander, $timer, \$bystander_out, qr/bystander still here/);
like($bystander_out, qr/bystander still here/, 'another session kept its connection: no crash restart');
$bystander_in .= "\\q\n";
$bystander->finish;
my $log = slurp_file($node->logfile, $log_offset);
unlike($log, qr/terminated by signal|terminating any other active server processes/,
	'the worker exited without a crash');
is($node->safe_psql('postgres', q{SELECT count(*) FROM big}), '40000', 'the data is whole');

# A cursor declared but not yet fetched holds a snapshot (and a database
# id) of the old worker.  When the worker has been restarted meanwhile,
# the session's next statement must fail as the link's loss (08006), not
# quietly use a new link on which the cursor's ids mean nothing (a
# "malformed scan request"), or another database.
# A psql session runs $setup until it prints $mark; then the worker is
# restarted under it.  Returns the session and references to its input,
# output and error.
sub worker_restarted_under
{
	my ($setup, $mark, $label) = @_;
	my ($in, $out, $err) = ($setup, '', '');
	my $h = IPC::Run::start([ 'psql', '-X', '-A', '-t', '-v', 'VERBOSITY=verbose', '-d', $node->connstr('postgres') ],
		'<', \$in, '>', \$out, '2>', \$err);
	pump_until($h, $timer, \$out, $mark);
	my $w = worker_pid($node);
	kill 'TERM', $w;
	ok(defined wait_for_new_worker($node, $w), $label);
	return ($h, \$in, \$out, \$err);
}

my ($session, $in, $sout, $serr) = worker_restarted_under(
	"BEGIN;\nDECLARE c CURSOR FOR SELECT rowkey FROM t_on_wc2;\nSELECT 'declared';\n",
	qr/declared/, 'a new storage worker starts under the unfetched cursor');
$$in .= "SELECT count(*) FROM t_on_wc1;\nFETCH ALL FROM c;\nROLLBACK;\nSELECT 'after';\n";
pump_until($session, $timer, $sout, qr/after/);
like($$serr, qr/08006/, 'the next statement fails as the loss of the link (08006)');
unlike($$serr, qr/malformed|unknown (snapshot|database)|08P01/,
	'not as a malformed request or an unknown snapshot or database');
$$in .= "SELECT rowkey FROM t_on_wc2;\n\\q\n";
$session->finish;
like($$sout, qr/stored in wc2/, 'after ROLLBACK the session reads again');

# A worker restarted while a statement runs, between two calls of a stable
# function that reads a foreign table: both calls must read the statement's
# snapshot, so the second fails (08006) rather than read a new one on a new
# link.  The statement itself commits a row in another session (dblink) and
# stops the worker between the calls; the second call waits for the new
# worker.
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION dblink;
CREATE FUNCTION count_wc1() RETURNS bigint STABLE LANGUAGE sql AS $$ SELECT count(*) FROM t_on_wc1 $$;
CREATE FUNCTION commit_and_restart(worker integer) RETURNS boolean VOLATILE LANGUAGE plpgsql AS $$
BEGIN
	PERFORM dblink_exec(format('dbname=postgres port=%s host=%s', current_setting('port'),
			split_part(current_setting('unix_socket_directories'), ',', 1)),
		$i$INSERT INTO t_on_wc1 VALUES ('committed meanwhile', 9)$i$);
	-- (the program reads what COPY writes, or COPY may find the pipe closed)
	EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', 'kill -TERM ' || worker || '; cat >/dev/null');
	RETURN true;
END $$;
});
$worker = worker_pid($node);
($ret, $out, $err) = $node->psql(
	'postgres',
	"SELECT count_wc1() AS first, commit_and_restart($worker) AS restarted, count_wc1() AS second",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/08006/, 'a worker restarted between two reads of one statement: the second fails (08006)')
  or diag("got: $out");
ok(defined wait_for_new_worker($node, $worker), 'a new storage worker starts');
is($node->safe_psql('postgres', 'SELECT count_wc1()'), '2', 'sanity: the row committed meanwhile is there');

# A transaction that read a foreign table ends after the worker was
# restarted: its end drops the lost link quietly, and the session can still
# be interrupted (the error inside PostgreSQL's commit had left its
# interrupts held for good).
($session, $in, $sout, $serr) = worker_restarted_under(
	"BEGIN;\nSELECT count(*) FROM t_on_wc2;\nSELECT 'read';\n",
	qr/read/, 'a new storage worker starts under the idle transaction');
$$in .= "COMMIT;\nSET statement_timeout = '300ms';\nSELECT pg_sleep(10);\nSELECT 'after';\n\\q\n";
pump_until($session, $timer, $sout, qr/after/);
$session->finish;
like($$serr, qr/canceling statement due to statement timeout/,
	'after that COMMIT the session can still be interrupted (statement_timeout)');

# Every scan the worker serves is freed when it ends, not when its session
# leaves: a session running many point reads must not grow the worker (it
# kept about 3.5 KB a scan, gigabytes for a long-lived connection).  50,000
# scans in one session; the bound is far above what the worker needs for
# them and far below what it kept.
sub worker_rss_kb
{
	my $pid = worker_pid($node);
	open(my $fh, '<', "/proc/$pid/status") or return undef;
	my ($kb) = map { /^VmRSS:\s+(\d+)/ ? $1 : () } <$fh>;
	close($fh);
	return $kb;
}
SKIP:
{
	skip 'no /proc to read the worker\'s memory from', 1 unless -d '/proc/self';
	# make asan: AddressSanitizer's allocator keeps freed memory in
	# quarantine (256 MB by default), so resident memory says nothing here
	skip 'under AddressSanitizer, whose quarantine keeps freed memory', 1
	  if defined $ENV{ASAN_OPTIONS};
	$node->safe_psql('postgres', q{SELECT count(*) FROM t_on_wc1 WHERE rowkey = 'stored in wc1'});
	my $before = worker_rss_kb();
	$node->safe_psql('postgres', q{
DO $$
DECLARE
	n bigint;
BEGIN
	FOR i IN 1 .. 50000 LOOP
		SELECT t.n INTO n FROM t_on_wc1 t WHERE rowkey = 'stored in wc1';
	END LOOP;
END $$;
});
	my $growth = worker_rss_kb() - $before;
	cmp_ok($growth, '<', 60 * 1024, "50,000 scans grow the worker by less than 60 MB (grew $growth kB)");
}

$node->stop;
done_testing();
