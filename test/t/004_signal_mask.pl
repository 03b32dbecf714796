
# The signal mask of LevelDB's threads in the storage worker.
#
# LevelDB runs its compactions on a thread of its own inside the storage
# worker process.  A thread inherits the signal mask of the thread that
# starts it, and a signal sent to the process goes to any thread that does
# not block it.  If LevelDB's thread did not block PostgreSQL's signals, a
# SIGTERM, SIGHUP, SIGUSR1 or latch wakeup (SIGURG) could run a PostgreSQL
# handler on that thread, or be swallowed there, and the worker would miss
# it.  src/worker/leveldb/storage.c blocks every signal while LevelDB starts that thread.
#
# This test writes enough through a server with a 1 MB write buffer that
# LevelDB must flush memtables (its background thread has run), then reads
# /proc/<worker>/task/*/status and checks that
#  - there is at least one thread besides the worker's main thread;
#  - every such thread blocks the signals PostgreSQL handles;
#  - the main thread does not block SIGTERM or SIGUSR1 (so the check can
#    tell a blocked mask from an unblocked one);
#  - after SIGHUP (pg_reload_conf and a direct kill) the same worker still
#    answers queries.
#
# Linux only: it needs /proc/<pid>/task.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;
use Time::HiRes qw(usleep);

plan skip_all => 'needs /proc/<pid>/task (Linux)' unless -d '/proc/self/task';

my $node = wc_node('wc_sigmask');

# A 1 MB write buffer: a few MB of writes force memtable flushes, which
# LevelDB runs on its background thread.
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw
	OPTIONS (write_buffer_size '1');
CREATE FOREIGN TABLE kv (
	k text OPTIONS (rowkey 'true'),
	pad text OPTIONS (column 'f:pad')
) SERVER wc OPTIONS (table 'sigmask_kv');
});
foreach my $batch (1 .. 4)
{
	$node->safe_psql('postgres',
		"INSERT INTO kv SELECT 'r$batch-' || i, repeat(md5(i::text), 8) "
		  . "FROM generate_series(1, 5000) i");
}
is($node->safe_psql('postgres', 'SELECT count(*) FROM kv'),
	'20000', 'rows written and read back');

my $dbdir = $node->data_dir . '/widecolumn_fdw/'
  . $node->safe_psql('postgres',
	"SELECT d.oid || '-' || s.oid FROM pg_database d, pg_foreign_server s WHERE d.datname = current_database() AND s.srvname = 'wc'");
my @tables = glob("$dbdir/*.ldb");
ok(@tables > 0,
	'LevelDB flushed a memtable to a table file (its thread has run)');

my $pid = worker_pid($node);
ok(defined $pid, 'storage worker is running') or BAIL_OUT('no storage worker');

# The threads other than the main one.  Poll briefly: nothing should need
# it, but a thread start must not make the test flaky.
my @threads;
my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
while (1)
{
	opendir(my $dh, "/proc/$pid/task") or die "no /proc/$pid/task: $!";
	@threads = grep { /^\d+$/ && $_ != $pid } readdir($dh);
	closedir($dh);
	last if @threads || time() >= $deadline;
	usleep(100_000);
}

ok(@threads > 0,
	'the storage worker has a thread besides its main thread (LevelDB\'s)')
  or diag('no second thread in the storage worker: nothing to check, '
	  . 'so LevelDB\'s background thread was never started');

foreach my $tid (@threads)
{
	my $open = wc_unblocked_signals($pid, $tid);
	ok(defined $open, "thread $tid: SigBlk read") or next;
	is("@$open", '', "thread $tid blocks SIG" . join('/', @WC_PG_SIGNALS))
	  or diag("thread $tid does not block: " . join(' ', map { "SIG$_" } @$open));
}

# The main thread must take the signals, or the check above proves nothing.
my $main = wc_unblocked_signals($pid, $pid);
foreach my $sig (qw(TERM USR1))
{
	ok(defined $main && grep({ $_ eq $sig } @$main),
		"main thread does not block SIG$sig")
	  or diag('the main thread does not block: ' . ($main ? join(' ', @$main) : 'unreadable'));
}

# SIGHUP, through the postmaster and directly: the worker reloads and goes
# on serving, still the same process.
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
kill 'HUP', $pid;
is($node->safe_psql('postgres', "SELECT pad IS NOT NULL FROM kv WHERE k = 'r1-1'"),
	't', 'the worker answers after SIGHUP');
is(worker_pid($node), $pid, 'the same storage worker is still running');

$node->stop;
done_testing();
