
# Foreign writes across the transaction-id wraparound.  A foreign commit's
# WAL record reserves the xids up to the end of its commit-log page
# (src/fdw/commit/xidwal.c), and crash recovery moves the next xid past the
# reservation.  On the last page before the wraparound the reservation
# must stop one short of it: recovery would otherwise set the next xid to
# the new epoch's first, whose commit-log page does not exist, and the
# cluster would not start.  And a commit's record in LevelDB may outlive
# 2^31 transactions (worker/leveldb/xacts.c), so that its 32-bit xid no
# longer compares.  Checked here, with the next xid moved on by pg_resetwal
# (docs/architecture.md, "Visibility"): a row written at the start stays
# visible three billion transactions later (its database kept from the
# worker's starts meanwhile), and a writer aborted by a crash on a server
# left unused stays invisible, settled by the worker's start, as is a
# prepared one rolled back after a restart, and a directory registered
# under two names is not opened twice; a crash and restart after a
# reservation on the last page; then a snapshot held, writes, crashes and
# reads across the wraparound, against a native twin.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;
use Time::HiRes qw(usleep);

my $node = wc_node('wc_xid_wraparound', "autovacuum = off\nmax_prepared_transactions = 2\n");
my $dir = PostgreSQL::Test::Utils::tempdir . '/db';

$node->safe_psql('postgres', qq{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER s FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$dir');
CREATE FOREIGN TABLE f (k text OPTIONS (rowkey 'true') COLLATE "C", v bigint) SERVER s;
CREATE TABLE n (k text COLLATE "C" PRIMARY KEY, v bigint);
BEGIN; INSERT INTO f VALUES ('before', 1); INSERT INTO n VALUES ('before', 1); COMMIT;
CREATE SERVER s2 FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$dir-2');
CREATE FOREIGN TABLE f2 (k text OPTIONS (rowkey 'true') COLLATE "C", v bigint) SERVER s2;
INSERT INTO f2 VALUES ('committed', 1);
CREATE SERVER s3 FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$dir-3');
CREATE FOREIGN TABLE f3 (k text OPTIONS (rowkey 'true') COLLATE "C", v bigint) SERVER s3;
INSERT INTO f3 VALUES ('committed', 1);
});

# Poll the server log past $offset for $re, for up to ten seconds.
sub logged_soon
{
	my ($offset, $re) = @_;
	for (1 .. 100)
	{
		return 1 if slurp_file($node->logfile, $offset) =~ $re;
		usleep(100_000);
	}
	return 0;
}

# The first server's database is kept from the worker's start until the
# next xid is 3 billion, as a database the start cannot open (an unmounted
# volume) is: the settled record of 'before' stays in LevelDB, and only its
# full xid tells that it is older than the commit log (xacts.c).
chmod 0000, $dir or die "chmod $dir: $!";

# A writer of the second server crashed after its store, before its
# commit record: aborted.  The second server is not used again until the
# commit log no longer knows the writer; the worker settles its record at
# its start all the same (worker/leveldb/databases.c).
# A prepared transaction older than the writer holds the horizon: with no
# read open yet, the start removes an aborted writer's entries all the same.
$node->safe_psql('postgres', q{CREATE TABLE hold (x int); BEGIN; INSERT INTO hold VALUES (1); PREPARE TRANSACTION 'hold';});
my ($holder, $writer) = wc_commit_held($node, "INSERT INTO f2 VALUES ('aborted', 2);", 4401);
my $log_offset = -s $node->logfile;
$node->stop('immediate');
eval { $writer->quit; $holder->quit; };
$node->start;
ok(logged_soon($log_offset,
		qr/removed 1 entries written by aborted transaction \d+ in LevelDB database "\Q$dir-2\E"/),
	"the worker's start settles the aborted writer of a database no session opened, a prepared transaction holding the horizon");
$node->safe_psql('postgres', "ROLLBACK PREPARED 'hold'");

# A prepared writer cannot be settled at the start: its database stays
# open, so that its end is settled as it comes.
$node->safe_psql('postgres', q{BEGIN; INSERT INTO f3 VALUES ('prepared', 3); PREPARE TRANSACTION 'p3';});
$node->restart;
$log_offset = -s $node->logfile;
$node->safe_psql('postgres', "ROLLBACK PREPARED 'p3'");
ok(logged_soon($log_offset,
		qr/removed 1 entries written by aborted transaction \d+ in LevelDB database "\Q$dir-3\E"/),
	'a prepared writer rolled back after the start is settled, no session having opened its database');
is($node->safe_psql('postgres', q{SELECT string_agg(k, ' ' ORDER BY k) FROM f3}), 'committed',
	"the rolled-back prepared writer's row is not there");

# Freeze every database: the catalogs' rows stay visible as the next xid
# jumps ahead, and the commit log is truncated to the new oldest xid, as
# vacuum keeps it within 2^31 of the next xid in a cluster that really
# runs through its transactions.
$node->safe_psql('postgres', 'ALTER DATABASE template0 ALLOW_CONNECTIONS true');
sub freeze_all
{
	$node->safe_psql($_, 'VACUUM FREEZE') for qw(template0 template1 postgres);
	return;
}
freeze_all();

# The next xid set ahead by pg_resetwal, well short of the wraparound's
# stop limit from the last frozen xid each time; pg_resetwal leaves
# the commit log's segment for the new xid to be made (its documentation
# says so): 32 pages of zeros.
sub jump_to
{
	my ($xid) = @_;
	$node->stop;
	command_ok([ 'pg_resetwal', '-x', $xid, '-f', $node->data_dir ],
		"pg_resetwal sets the next xid to $xid");
	my $seg = sprintf('%s/pg_xact/%04X', $node->data_dir, int($xid / (32 * 32768)));
	open(my $fh, '>', $seg) or die "$seg: $!";
	binmode $fh;
	print $fh "\0" x (32 * 8192);
	close $fh;
	$node->start;
	freeze_all();
	# the new oldest xid into a checkpoint record, for crash recovery
	$node->safe_psql('postgres', 'CHECKPOINT');
	return;
}

sub foreign_rows
{
	return $node->safe_psql('postgres', 'SELECT string_agg(k || \'=\' || v, \' \' ORDER BY k) FROM f');
}

# The commit that wrote 'before' settled before the first crash, but its
# record stays in LevelDB until the next commit to that database, which
# never comes.
jump_to(1500000000);

# Now the record of 'before' is more than 2^31 transactions old: as a
# 32-bit xid it reads as one in the future.
jump_to(3000000000);
chmod 0700, $dir or die "chmod $dir: $!";
is(foreign_rows(), 'before=1', 'the row is there, 3 billion transactions later');
is($node->safe_psql('postgres', q{SELECT string_agg(k, ' ' ORDER BY k) FROM f2}), 'committed',
	"the aborted writer's row stays invisible once the commit log no longer knows it");

# To 100 short of 2^32 - 1: the last page of the commit log and of the
# commit-timestamp and subtransaction logs.
my $start_xid = 4294967195;
jump_to($start_xid);
is(foreign_rows(), 'before=1', 'the row is there, just before the wraparound');

# A foreign-only transaction: the first commit after a start flushes its
# reservation, which would reach the last xid before the wraparound.
my $xid = $node->safe_psql('postgres', q{
BEGIN;
INSERT INTO f VALUES ('last_page', 2);
SELECT txid_current();
COMMIT;
});
$node->safe_psql('postgres', q{INSERT INTO n VALUES ('last_page', 2)});
cmp_ok($xid, '>=', $start_xid, "the writer's xid ($xid) is on the last page");
cmp_ok($xid, '<', 4294967295, "the writer's xid ($xid) is short of the last xid");

# Crash: recovery replays the reservation.
$node->stop('immediate');
ok($node->start(fail_ok => 1), 'the cluster starts after a crash that replays the reservation');

# A snapshot taken before the wraparound (by a read of the native table
# only), held across it: the foreign table is first read after the
# wraparound, so the xids of the commits it meets decide what it sees.
my $counts = q{SELECT (SELECT count(*) FROM f) || '/' || (SELECT count(*) FROM n)};
my $reader = $node->background_psql('postgres');
$reader->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
is($reader->query_safe('SELECT count(*) FROM n'), '2', 'a snapshot before the wraparound');

my $after = $node->safe_psql('postgres', 'SELECT txid_current()');
is($after, 4294967295, 'the next xid after recovery is the one past the reservation');

# Pairs written after the wraparound, each one transaction.
my $sql = '';
for my $i (1 .. 20)
{
	$sql .= "BEGIN; INSERT INTO f VALUES ('wrap$i', $i); INSERT INTO n VALUES ('wrap$i', $i); COMMIT;\n";
}
$node->safe_psql('postgres', $sql);
my $epoch = $node->safe_psql('postgres', 'SELECT txid_current() >> 32');
is($epoch, '1', 'the transaction ids have wrapped into the next epoch');
is($reader->query_safe($counts), '2/2',
	'the snapshot from before the wraparound sees none of the commits after it, as for the native table');
$reader->query_safe('COMMIT');
$reader->quit;
$node->safe_psql('postgres', q{
BEGIN; UPDATE f SET v = v + 100 WHERE k = 'before'; UPDATE n SET v = v + 100 WHERE k = 'before'; COMMIT;
BEGIN; DELETE FROM f WHERE k = 'wrap3'; DELETE FROM n WHERE k = 'wrap3'; COMMIT;
});

wc_same_as_native($node, 'f', 'n', 'across the wraparound', '21');

# A rolled-back transaction leaves nothing, before and after a crash.
$node->safe_psql('postgres', q{
BEGIN; INSERT INTO f VALUES ('aborted', 0); INSERT INTO n VALUES ('aborted', 0); ROLLBACK;
});
$node->stop('immediate');
ok($node->start(fail_ok => 1), 'the cluster starts after a crash in the new epoch');
wc_same_as_native($node, 'f', 'n', 'after the second crash', '21');
$node->restart;
wc_same_as_native($node, 'f', 'n', 'after a clean restart', '21');

# One directory in the registry under two names (a symlink): the start
# keeps it open under the first, for a prepared writer, and must not open
# it again under the second, which would take LevelDB's lock twice and
# recover over the open database's live log.
$node->safe_psql('postgres', qq{
CREATE SERVER s4 FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$dir-4');
CREATE FOREIGN TABLE f4 (k text OPTIONS (rowkey 'true') COLLATE "C", v bigint) SERVER s4;
INSERT INTO f4 VALUES ('first', 1);
});
symlink("$dir-4", "$dir-4-link") or die "symlink: $!";
$node->restart;
$node->safe_psql('postgres', qq{
CREATE SERVER s5 FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$dir-4-link');
CREATE FOREIGN TABLE f5 (k text OPTIONS (rowkey 'true') COLLATE "C", v bigint) SERVER s5 OPTIONS (table 'f4');
INSERT INTO f5 VALUES ('second', 2);
});
my $registry = slurp_file($node->data_dir . '/widecolumn_fdw/databases');
like($registry, qr/^\Q$dir-4-link\E(?:\n|\z)/m, 'the registry names the directory under its second name too');
$node->safe_psql('postgres', q{BEGIN; INSERT INTO f4 VALUES ('prepared', 3); PREPARE TRANSACTION 'p4';});
$node->restart;
$node->safe_psql('postgres', "COMMIT PREPARED 'p4'");
$node->safe_psql('postgres', q{INSERT INTO f5 VALUES ('after', 4)});
$node->restart;
is($node->safe_psql('postgres', q{SELECT string_agg(k, ' ' ORDER BY k) FROM f4}),
	'after first prepared second', 'every commit to the directory of two names survives the restarts');

# The start's pass opens s3's database, unused since, with the settings
# file beside it; one not as the worker writes it (a write buffer past a
# server's 1024 MB, a sign) is not taken: the open allocates LevelDB's new
# log to the write buffer of the settings it used, here the 16 MB of a
# database without the file, not 2000 MB.
sub largest_log
{
	my ($d) = @_;
	opendir(my $dh, $d) or die "opendir $d: $!";
	my ($max) = sort { $b <=> $a } map { -s "$d/$_" } grep { /\.log$/ } readdir $dh;
	closedir $dh;
	return $max;
}
foreach my $bad ("cache_mb 8\nwrite_buffer_mb 2000\nbloom_bits 10\ncompression 0\n",
	"cache_mb 8\nwrite_buffer_mb +40\nbloom_bits 10\ncompression 0\n")
{
	$node->stop;
	PostgreSQL::Test::Utils::append_to_file("$dir-3/widecolumn-settings.new", $bad);
	rename("$dir-3/widecolumn-settings.new", "$dir-3/widecolumn-settings") or die "rename: $!";
	$node->start;
	# the pass is done once the worker serves: its start runs it first
	$node->safe_psql('postgres', 'SELECT count(*) FROM f');
	(my $shown = $bad) =~ s/\n/; /g;
	is(largest_log("$dir-3"), 16 * 1024 * 1024,
		"a settings file that says \"$shown\" is not taken: the start's pass opens the database as one without it");
}

# A worker up for 2^31 transactions: PostgreSQL's TransactionIdIsInProgress
# takes an xid before the process's RecentXmin as ended without looking,
# and the worker takes no snapshot that would move its own.  The test
# setting starts it where that uptime would leave it; a prepared writer
# must still read as running, its rows kept at the start and visible after
# COMMIT PREPARED.
$node->append_conf('postgresql.conf', "widecolumn_fdw.debug_age_recent_xmin = on\n");
$node->safe_psql('postgres', q{BEGIN; INSERT INTO f VALUES ('aged', 5); INSERT INTO n VALUES ('aged', 5); PREPARE TRANSACTION 'aged';});
$node->restart;
$node->safe_psql('postgres', q{SELECT count(*) FROM f WHERE k = 'other'});
$node->safe_psql('postgres', "COMMIT PREPARED 'aged'");
wc_same_as_native($node, 'f', 'n', 'a prepared writer, the worker up for 2^31 xids', '22');
is($node->safe_psql('postgres', q{SELECT v FROM f WHERE k = 'aged'}), '5',
	'the prepared writer\'s row is there after COMMIT PREPARED');

$node->stop;
done_testing();
