# The Bigtable emulator killed while a call is in flight
# (src/worker/bigtable/btscan.c, btcommit.c):
# - mid-scan, between a cursor's batches: the next batch is a clear error
#   (08006), and the session and the storage worker go on;
# - mid-COMMIT, while a large COMMIT's MutateRows calls are being sent: the
#   COMMIT fails with 08006 and says how many rows were applied (fewer
#   than it had), the transaction's native write is rolled back, and the
#   session goes on.
# (Killed before a read and before a COMMIT: 037 and 038.)

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my ($endpoint) = wc_bt_test_start();
my ($emulator) = wc_bt_emulator();

my $node = wc_node('btk', "widecolumn_fdw.worker_threads = 2\n");
$node->safe_psql('postgres', qq{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER bt FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', endpoint '$endpoint', credentials 'insecure');
CREATE FOREIGN TABLE big (rowkey text COLLATE "C", v text OPTIONS (column 'm:v')) SERVER bt;
INSERT INTO big SELECT 'r' || lpad(g::text, 5, '0'), repeat('x', 1000) FROM generate_series(1, 3000) g;
CREATE TABLE native_t (k int);
CREATE SERVER lv FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE lvt (rowkey text COLLATE "C", v text OPTIONS (column 'm:v')) SERVER lv;
INSERT INTO lvt VALUES ('a', 'b');
});
is($node->safe_psql('postgres', 'SELECT count(*) FROM big'), '3000', '3 MB of rows in Bigtable');

# A session driven a statement at a time.
sub session
{
	my %s = (in => '', out => '', err => '');
	$s{h} = IPC::Run::start([ 'psql', '-X', '-A', '-t', '-v', 'VERBOSITY=verbose', '-d', $node->connstr('postgres') ],
		'<', \$s{in}, '>', \$s{out}, '2>', \$s{err});
	return \%s;
}

sub send_until
{
	my ($s, $sql, $marker) = @_;
	$s->{in} .= "$sql\nSELECT '$marker';\n";
	my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
	$s->{h}->pump while $s->{out} !~ /^$marker$/m && time() < $deadline;
	return $s->{out} =~ /^$marker$/m;
}

# Mid-scan: a cursor has its first batch (of about 256 KB, of 12), the
# emulator goes, and the rest of the scan needs more calls.
my $s = session();
ok(send_until($s, "BEGIN;\nDECLARE c CURSOR FOR SELECT rowkey, length(v) FROM big;\nFETCH 5 FROM c;", 'fetched'),
	'a cursor over the table has its first rows');
like($s->{out}, qr/^r00005\|1000$/m, '... the rows of the first batch');
wc_bt_stop_emulator();
ok(send_until($s, "FETCH ALL FROM c;\nROLLBACK;", 'after'), 'the rest of the scan is asked for');
like($s->{err}, qr/ERROR:  08006: Bigtable request failed/, 'the emulator killed mid-scan: 08006');
ok(send_until($s, 'SELECT count(*) FROM lvt;', 'lv'), 'the session goes on');
like($s->{out}, qr/^1$/m, '... and the storage worker serves a LevelDB server');
$s->{in} .= "\\q\n";
$s->{h}->finish;

# Mid-COMMIT: a COMMIT of 100,000 rows (100 MutateRows calls), the emulator
# killed once the first rows are in.
$endpoint = wc_bt_start_emulator($emulator);
$node->safe_psql('postgres', qq{
ALTER SERVER bt OPTIONS (SET endpoint '$endpoint');
SELECT widecolumn.create_family('bt', 'load', 'm');});
$node->safe_psql('postgres', q{
CREATE FOREIGN TABLE load (rowkey text COLLATE "C", v text OPTIONS (column 'm:v')) SERVER bt OPTIONS (table 'load');});
$s = session();
ok(send_until($s, "BEGIN;\nINSERT INTO native_t VALUES (1);\nINSERT INTO load SELECT 'r' || lpad(g::text, 6, '0'), 'v' || g FROM generate_series(1, 100000) g;", 'written'),
	'a transaction wrote a native row and 100,000 foreign ones');
$s->{in} .= "COMMIT;\nSELECT 'committed';\n";
$s->{h}->pump_nb;
# the rows reach Bigtable: the wall sees the first of the second call's
# (the calls go one after another, so the first call's answer has come,
# and its rows count as applied), then the kill
my $seen = 0;
my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
while (!$seen && time() < $deadline)
{
	my ($out) = wc_bt_wall($endpoint, '', 'projects/p/instances/i/tables/load', 'read', 'keys=r001001');
	$seen = $out =~ /^r001001\t/m;
	usleep(2_000) unless $seen;
}
wc_bt_stop_emulator();
my $done = time() + $PostgreSQL::Test::Utils::timeout_default;
$s->{h}->pump while $s->{out} !~ /^committed$/m && time() < $done;
ok($seen, 'the first rows were in Bigtable before the kill');
my ($applied, $of) = $s->{err} =~ /COMMIT to Bigtable applied (\d+) of (\d+) rows/;
like($s->{err}, qr/ERROR:  08006: COMMIT to Bigtable applied \d+ of 100000 rows/, 'the emulator killed mid-COMMIT: 08006, how many rows were applied');
ok(defined $applied && $applied > 0 && $applied < $of, "... some but not all: $applied of " . ($of // '?'));
like($s->{err}, qr/not atomic together/, '... and why they stay');
ok(send_until($s, 'SELECT count(*) FROM native_t;', 'native'), 'the session goes on');
like($s->{out}, qr/^0$/m, "the transaction's native write rolled back");
$s->{in} .= "\\q\n";
$s->{h}->finish;

$node->stop;
done_testing();
