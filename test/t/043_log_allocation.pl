
# LevelDB's current log is allocated ahead of its writes, so that a commit's
# fdatasync does not also write a new file size; the space reads as zeros
# (src/worker/leveldb/logfiles.c).  Checked here: the log is allocated; a
# database whose logs end in that space opens with every row, after a clean
# stop and after a crash; a write cut short by the crash, a record
# followed by zeros, is dropped as LevelDB drops one at the end of a file,
# rather than making the database fail to open; and a last record damaged
# (all its bytes there, its checksum wrong) is still refused.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;
use Time::HiRes qw(usleep);

my $node = wc_node('wc_log_allocation');
my $dir = PostgreSQL::Test::Utils::tempdir . '/db';
my $MB = 1024 * 1024;

$node->safe_psql('postgres', qq{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER s FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$dir', write_buffer_size '2');
CREATE FOREIGN TABLE f (k text OPTIONS (rowkey 'true') COLLATE "C", v int) SERVER s;
CREATE TABLE n (k text COLLATE "C" PRIMARY KEY, v int);
});

my $rows = 0;

# $count single-row commits into both tables.
sub commit_rows
{
	my ($tag, $count) = @_;
	my $sql = '';
	for my $i (1 .. $count)
	{
		$sql .= "BEGIN; INSERT INTO f VALUES ('$tag$i', $i); INSERT INTO n VALUES ('$tag$i', $i); COMMIT;\n";
	}
	$node->safe_psql('postgres', $sql);
	$rows += $count;
	return;
}


# The newest log, once the worker has allocated it (within a second).
sub allocated_log
{
	my ($label) = @_;
	my $log;
	for (1 .. 100)
	{
		my @logs = sort glob("$dir/*.log");
		$log = $logs[-1];
		last if defined $log && -s $log == 2 * $MB;
		usleep(100_000);
	}
	is(-s $log, 2 * $MB, "$label: the current log is allocated to a memtable's size");
	cmp_ok(wc_log_written($log), '<', 2 * $MB, "$label: sanity: less of it is written");
	return $log;
}


commit_rows('a', 50);
allocated_log('at open');
wc_same_as_native($node, 'f', 'n', 'before any stop', $rows);

$node->restart;
wc_same_as_native($node, 'f', 'n', 'after a clean restart', $rows);

commit_rows('b', 50);
allocated_log('after a restart');
$node->stop('immediate');
$node->start;
wc_same_as_native($node, 'f', 'n', 'after a crash', $rows);

# A crash cut a write short: its record is there in part, zeros after.
commit_rows('c', 20);
my $log = allocated_log('before a cut write');
$node->stop('immediate');
{
	my $end = wc_log_written($log);
	my $left = 32768 - $end % 32768;
	$left = 32768 if $left < 7;
	my $len = $left - 7 < 1000 ? $left - 7 : 1000;
	open(my $fh, '+<:raw', $log) or die "could not open $log: $!";
	seek($fh, $end, 0);
	# a header (its checksum that of the whole record, which is not there)
	# and the first 100 bytes of the payload
	print $fh pack('V v C', 0x12345678, $len, 1) . ('x' x ($len < 100 ? $len : 100));
	close($fh) or die "could not write $log: $!";
}
$node->start;
wc_same_as_native($node, 'f', 'n', 'after a crash that cut a write short', $rows);
commit_rows('d', 5);
wc_same_as_native($node, 'f', 'n', 'then commits', $rows);

# A last record with all its bytes but a wrong checksum was damaged, not
# cut short (a cut leaves the last byte zero): the database is refused, as
# LevelDB refuses it at a file's end, not cut back.
$log = allocated_log('before a damaged last record');
$node->stop('immediate');
{
	my $end = wc_log_written($log);
	my $left = 32768 - $end % 32768;
	$end += $left if $left < 107;
	open(my $fh, '+<:raw', $log) or die "could not open $log: $!";
	seek($fh, $end, 0);
	print $fh pack('V v C', 0x12345678, 100, 1) . ('x' x 100);
	close($fh) or die "could not write $log: $!";
}
$node->start;
my ($ret, $out, $err) = $node->psql('postgres', 'SELECT count(*) FROM f');
isnt($ret, 0, 'a damaged last record: the read fails');
like($err, qr/could not open LevelDB database.*\n.*Corruption: checksum mismatch/,
	'a damaged last record: LevelDB refuses the database');

done_testing();
