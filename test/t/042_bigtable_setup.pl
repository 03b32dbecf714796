# A Bigtable server's setup, as a new user meets it (issue 36):
# - with no endpoint option, BIGTABLE_EMULATOR_HOST in the PostgreSQL
#   server's environment names the emulator, reached without credentials
#   (fdw/model/mapping.c);
# - credentials 'google_default' where Google's application-default
#   credentials cannot be found (GOOGLE_APPLICATION_CREDENTIALS naming no
#   file) is 28000 within the server's timeout, not a hang, toward the
#   emulator the environment names and toward an explicit endpoint (a
#   credential Google's endpoint refuses needs an account: not tested),
#   and a server of the same instance with other credentials has its own
#   channel, which an ALTER SERVER changes at the next statement;
# - gRPC's threads in the storage worker block every signal PostgreSQL
#   handles, and the postmaster, which loaded the library, has no thread
#   of gRPC's (it starts in the worker, after fork);
# - an endpoint where nothing listens is 08006 within the timeout, for a
#   read and a write, and the session goes on;
# - compact() says it does not apply, and widecolumn.stat_leveldb lists
#   LevelDB databases only.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

plan skip_all => 'needs /proc/<pid>/task (Linux)' unless -d '/proc/self/task';
my ($endpoint) = wc_bt_test_start();
my $I = 'projects/p/instances/i';
is((wc_bt_wall($endpoint, '', $I, 'createtable', 'setup', 'm=maxversions=1'))[1], 0, 'the Bigtable table is made');

# The server's environment names the emulator, as Google's clients read it.
my $node;
{
	local $ENV{BIGTABLE_EMULATOR_HOST} = $endpoint;
	local $ENV{GOOGLE_APPLICATION_CREDENTIALS} = '/nonexistent/credentials.json';
	$node = wc_node('btsetup');
}
$node->safe_psql('postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER bt FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i');
CREATE FOREIGN TABLE setup (rowkey text COLLATE "C", v text OPTIONS (column 'm:v')) SERVER bt;
INSERT INTO setup VALUES ('a', 'one'), ('b', 'two');
});
is($node->safe_psql('postgres', 'SELECT string_agg(rowkey || v, \',\' ORDER BY rowkey) FROM setup'), 'aone,btwo',
	'no endpoint option: BIGTABLE_EMULATOR_HOST names the emulator, reached without credentials');
my ($wall_out) = wc_bt_wall($endpoint, '', "$I/tables/setup", 'read');
like($wall_out, qr/^a\tm\tv\t\d+\tone$/m, '... and the rows are in that emulator');

# google_default toward the emulator: no credentials to be had.
$node->safe_psql('postgres', q{
CREATE SERVER bt_tls FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', credentials 'google_default', timeout '3s');
CREATE FOREIGN TABLE setup_tls (rowkey text COLLATE "C", v text OPTIONS (column 'm:v')) SERVER bt_tls OPTIONS (table 'setup');
});
my $t0 = Time::HiRes::time();
my ($rc, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\nSELECT count(*) FROM setup_tls");
my $took = Time::HiRes::time() - $t0;
isnt($rc, 0, "credentials 'google_default' toward the emulator: the read fails");
like($err, qr/ERROR:  28000: /, '... with 28000') or diag($err);
ok($took < 60, sprintf('... within the timeout, not a hang (%.1f s)', $took));
# The worker keeps a channel per way of reaching the instance: the server
# of the same instance with other credentials got its own, and an ALTER
# SERVER takes effect at the next statement.
$node->safe_psql('postgres', "ALTER SERVER bt_tls OPTIONS (SET credentials 'insecure')");
is($node->safe_psql('postgres', 'SELECT count(*) FROM setup_tls'), '2',
	"ALTER SERVER ... SET credentials 'insecure': the next statement reads");

# Credentials that cannot be found: 28000, with the hint.
$node->safe_psql('postgres', qq{
CREATE SERVER bt_adc FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', endpoint '127.0.0.1:1', credentials 'google_default', timeout '3s');
CREATE FOREIGN TABLE setup_adc (rowkey text COLLATE "C", v text OPTIONS (column 'm:v')) SERVER bt_adc OPTIONS (table 'setup');
});
($rc, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\nSELECT count(*) FROM setup_adc");
like($err, qr/ERROR:  28000: could not make a channel to Bigtable at "127.0.0.1:1"/,
	'application-default credentials missing: 28000')
  or diag($err);
like($err, qr/GOOGLE_APPLICATION_CREDENTIALS/, '... and the hint says where they are looked for');
is($node->safe_psql('postgres', 'SELECT count(*) FROM setup'), '2', '... and the session goes on');

# An endpoint where nothing listens (a port just closed): 08006 within the
# timeout, nothing written, and the session goes on.
my $closed = do
{
	require IO::Socket::INET;
	my $sock = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 1) or die "no socket: $!";
	my $port = $sock->sockport;
	close $sock;
	$port;
};
$node->safe_psql('postgres', qq{
CREATE SERVER bt_gone FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', endpoint '127.0.0.1:$closed', credentials 'insecure', timeout '3s');
CREATE FOREIGN TABLE setup_gone (rowkey text COLLATE "C", v text OPTIONS (column 'm:v')) SERVER bt_gone OPTIONS (table 'setup');
CREATE TABLE gone_twin (k text);
});
$t0 = Time::HiRes::time();
($rc, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\nSELECT count(*) FROM setup_gone");
$took = Time::HiRes::time() - $t0;
like($err, qr/ERROR:  08006: /, 'nothing listening at the endpoint: a read is 08006') or diag($err);
ok($took < 60, sprintf('... within the timeout (%.1f s)', $took));
($rc, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\nBEGIN; INSERT INTO gone_twin VALUES ('x'); INSERT INTO setup_gone VALUES ('c', 'three'); COMMIT;");
like($err, qr/ERROR:  08006: /, '... and a transaction writing to it fails with 08006') or diag($err);
is($node->safe_psql('postgres', 'SELECT count(*) FROM gone_twin'), '0', "... which rolls back the transaction's native write");
is($node->safe_psql('postgres', 'SELECT count(*) FROM setup'), '2', '... and the session goes on, nothing written');

# gRPC's threads: every signal PostgreSQL handles blocked.
sub threads_of
{
	my ($pid) = @_;
	opendir(my $dh, "/proc/$pid/task") or die "no /proc/$pid/task: $!";
	my @t = grep { /^\d+$/ } readdir($dh);
	closedir($dh);
	return @t;
}

# the signals a thread leaves open, as text ('unreadable' if so)
sub unblocked
{
	my $open = wc_unblocked_signals(@_);
	return defined $open ? join(' ', map { "SIG$_" } @$open) : 'unreadable';
}

my $wpid = worker_pid($node);
my @gthreads = grep { $_ != $wpid && slurp_file("/proc/$wpid/task/$_/comm") =~ /grpc|default-executo|resolver|timer|global/i }
  threads_of($wpid);
ok(@gthreads > 0, 'the storage worker runs gRPC threads (' . scalar(@gthreads) . ')')
  or diag(join(', ', map { slurp_file("/proc/$wpid/task/$_/comm") } threads_of($wpid)));
my @open = grep { unblocked($wpid, $_) ne '' } grep { $_ != $wpid } threads_of($wpid);
is(scalar(@open), 0, "every thread of the worker's but its main one blocks SIG" . join('/', @WC_PG_SIGNALS))
  or diag(join('; ', map { "$_ (" . slurp_file("/proc/$wpid/task/$_/comm") =~ s/\n//r . '): ' . unblocked($wpid, $_) } @open));
isnt(unblocked($wpid, $wpid), '', "... while the worker's main thread does not (the check can tell)");

my ($postmaster) = split /\n/, slurp_file($node->data_dir . '/postmaster.pid');
is(scalar(threads_of($postmaster)), 1, 'the postmaster, which loaded the library, runs one thread: no gRPC there');

# compact() does not apply; stat_leveldb has no row for a Bigtable server.
($rc, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\nSELECT widecolumn.compact('bt')");
like($err, qr/ERROR:  0A000: compact\(\) does not apply to a Bigtable server/, 'compact() on a Bigtable server: 0A000');
$node->safe_psql('postgres', q{
CREATE SERVER ldb FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE ldb_kv (rowkey text COLLATE "C", v text) SERVER ldb;
INSERT INTO ldb_kv VALUES ('a', 'x');
});
is($node->safe_psql('postgres', 'SELECT string_agg(server::text, \',\') FROM widecolumn.stat_leveldb'), 'ldb',
	'stat_leveldb: the LevelDB server, and no row for the Bigtable one');

$node->stop;
done_testing();
