
# The storage worker's home, $PGDATA/widecolumn_fdw, not writable when the
# worker starts.  The worker makes LevelDB start its background thread in a
# scratch database there (storage.c, storage_start_background_thread); if
# it cannot, it logs a WARNING and goes on, rather than exit and be started
# again every second by the postmaster while every session is told it is
# not running:
#
#  - the worker stays up (the same pid, one WARNING in the log);
#  - a statement on a foreign table fails with the cause (SQLSTATE 42501,
#    the directory and "Permission denied"), and the session goes on;
#  - once the directory is writable again, the same worker serves the
#    tables, their rows intact, with no restart.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;
use Time::HiRes qw(usleep);

plan skip_all => 'running as root: permissions are not enforced' if $> == 0;

my $node = wc_node('wc_unwritable_home');
my $home = $node->data_dir . '/widecolumn_fdw';

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE t (k text OPTIONS (rowkey 'true') COLLATE "C", v int) SERVER wc;
INSERT INTO t SELECT 'k' || i, i FROM generate_series(1, 100) i;
});

# The worker starts again (SIGTERM, as in 001_restart) with its home
# read-only.
my $old = worker_pid($node);
my $log_at = -s $node->logfile;
chmod(0555, $home) or die "chmod $home: $!";
kill 'TERM', $old;
my $worker = wait_for_new_worker($node, $old);
ok(defined $worker, 'a new storage worker starts');

# It stays up: the same worker answers for a while (the postmaster would
# start a failed one again after a second).
my $deadline = time() + 3;
my $same = 1;
while (time() < $deadline)
{
	my $p = worker_pid($node);
	$same = 0 unless defined $p && $p == $worker;
	usleep(100_000);
}
ok($same, 'the storage worker stays up with its home not writable');

my ($ret, $out, $err) = $node->psql(
	'postgres', 'SELECT count(*) FROM t',
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
isnt($ret, 0, 'a read fails');
is(sqlstate($err), '42501', 'with SQLSTATE 42501') or diag($err);
like($err, qr/could not create directory "\Q$home\E\/\.warmup\.\d+": Permission denied/,
	'the error names the directory and the cause');

($ret, $out, $err) = $node->psql('postgres', "INSERT INTO t VALUES ('new', 0)");
isnt($ret, 0, 'a write fails too');
like($err, qr/Permission denied/, 'for the same cause') or diag($err);

my $log = slurp_file($node->logfile, $log_at);
my @warnings = $log =~ /WARNING:  could not create directory "\Q$home\E\/\.warmup\.\d+": Permission denied/g;
is(scalar @warnings, 1, 'one WARNING in the log as the worker starts');
like($log, qr/DETAIL:  No widecolumn_fdw table can be read or written until it can be created\./,
	'saying what it means');

# Writable again: the same worker serves the table, its rows intact.
chmod(0700, $home) or die "chmod $home: $!";
is($node->safe_psql('postgres', "INSERT INTO t VALUES ('new', 0); SELECT count(*), sum(v) FROM t"),
	'101|5050', 'once writable, the table is read and written');
is(worker_pid($node), $worker, 'by the same storage worker, with no restart');

$node->stop;
done_testing();
