# The progress of long work (widecolumn.progress), watched from a second
# session while it runs, and the NOTICE the session running it gets:
#  - compact: its walk's bytes grow towards the total, then LevelDB
#    compacts;
#  - drop_table: its walk (the count of what it drops);
#  - drop_row_range: while it waits for the table's row locks;
#  - the COMMIT of a large transaction: the rows sent, then written;
#  - COPY into a foreign table: PostgreSQL's own pg_stat_progress_copy.
# The storage worker's hidden debug pauses make the walks and the large
# commit last, and widecolumn_fdw.debug_progress_notice_interval = 1 makes
# the NOTICE come after a second instead of ten.

use strict;
use warnings;

use POSIX qw(mkfifo);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $node = wc_node('wc_progress',
	    "widecolumn_fdw.debug_large_commit_pause = 800\n"
	  . "widecolumn_fdw.debug_reclaim_pause = 500\n"
	  . "widecolumn_fdw.sweep_naptime = 0\n");

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
CREATE FOREIGN TABLE f (k text OPTIONS (rowkey 'true') COLLATE "C", v text) SERVER wc
  OPTIONS (table 'f');
INSERT INTO f SELECT 'k' || lpad(i::text, 7, '0'), md5(i::text) || md5((-i)::text)
  FROM generate_series(1, 100000) i;
});

# LevelDB estimates sizes from its files: have the memtable written out, at
# full speed.
$node->safe_psql('postgres', q{ALTER SYSTEM SET widecolumn_fdw.debug_reclaim_pause = 0});
$node->reload;
$node->safe_psql('postgres', q{SELECT widecolumn.compact('wc', 'f')});
$node->safe_psql('postgres', q{ALTER SYSTEM RESET widecolumn_fdw.debug_reclaim_pause});
$node->reload;

my $a = $node->background_psql('postgres');
my $apid = $a->query_safe(q{SELECT pg_backend_pid()});
$a->query_safe(q{SET widecolumn_fdw.debug_progress_notice_interval = 1});

# widecolumn.progress's row of session a, as "operation|table|done|total|unit",
# or ''.
sub progress_of_a
{
	return $node->safe_psql('postgres',
		"SELECT operation, table_name, done, total, unit FROM widecolumn.progress WHERE pid = $apid"
	);
}

# Poll until progress_of_a matches $re; the row, or '' on timeout.
sub wait_progress
{
	my ($re) = @_;
	my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
	while (time() < $deadline)
	{
		my $row = progress_of_a();
		return $row if $row =~ $re;
		usleep(20_000);
	}
	return '';
}

# Wait for session a's statement to end (it echoes $done then); what it
# printed on stderr, the NOTICEs, taken out of what query_safe checks.
sub finish_a
{
	my ($done) = @_;
	$a->query_until($done, '');
	my $err = $a->{stderr};
	$a->{stderr} = '';
	return $err;
}

# compact
$a->query_until(qr/compacting/, "\\echo compacting\nSELECT widecolumn.compact('wc', 'f');\n\\echo compacted\n");
my $first = wait_progress(qr/^compact\|f\|[1-9]\d*\|\d+\|bytes walked$/);
ok($first ne '', "compact shows its walk in widecolumn.progress ($first)");
my (undef, undef, $done1, $total) = split /\|/, $first;
ok($total > 1_000_000 && $done1 <= $total, 'its total is the table\'s bytes, and done is at most the total');
my $moved = wait_progress(qr/^compact\|f\|(?!$done1\|)\d+\|$total\|bytes walked$|bytes compacted$/);
ok($moved ne '', "and it moves on ($moved)");
my $notices = finish_a(qr/compacted/);
like($notices, qr/NOTICE:  widecolumn\.compact\(\) has been running for \d+ seconds?/,
	'the session running it gets a NOTICE');
like($notices, qr/DETAIL:  It has walked about \d+ of \d+ bytes of stored table "f"\./,
	'which says how far it is');
is(progress_of_a(), '', 'once it is over, its row is gone');

# drop_table, rolled back: its walk counts what it drops.
$a->query_safe(q{BEGIN});
$a->query_until(qr/dropping/, "\\echo dropping\nSELECT widecolumn.drop_table('wc', 'f');\n\\echo dropped\n");
my $drop = wait_progress(qr/^drop_table\|f\|\d+\|\d+\|bytes walked$/);
ok($drop ne '', "drop_table shows its walk ($drop)");
finish_a(qr/dropped/);
$a->query_safe(q{ROLLBACK});
is(progress_of_a(), '', 'and its row goes when it is over');

# drop_row_range, while another transaction's drop holds the table's rows.
my $b = $node->background_psql('postgres');
$b->query_safe(q{BEGIN});
$b->query_safe(q{SELECT widecolumn.drop_row_range('f', 'zzz')});
$a->query_safe(q{BEGIN});
$a->query_until(qr/ranging/, "\\echo ranging\nSELECT widecolumn.drop_row_range('f', 'yyy');\n\\echo ranged\n");
is(wait_progress(qr/^drop_row_range\|f\|0\|1\|row ranges$/), 'drop_row_range|f|0|1|row ranges',
	'drop_row_range shows while it waits for the row locks');
$b->query_safe(q{ROLLBACK});
finish_a(qr/ranged/);
$a->query_safe(q{ROLLBACK});
is(progress_of_a(), '', 'and its row goes when it is over');

# The COMMIT of a large transaction.
$a->query_safe(q{BEGIN});
$a->query_safe(
	q{INSERT INTO f SELECT 'n' || lpad(i::text, 7, '0'), md5(i::text) || md5((-i)::text) FROM generate_series(1, 100000) i}
);
$a->query_until(qr/committing/, "\\echo committing\nCOMMIT;\n\\echo committed\n");
my $w1 = wait_progress(qr/^commit\|\|\d+\|\d+\|bytes written$/);
ok($w1 ne '', "the large COMMIT shows the bytes the worker writes ($w1)");
my (undef, undef, $wdone, $wtotal) = split /\|/, $w1;
ok($wtotal > 4 * 1024 * 1024 && $wdone <= $wtotal,
	'of the transaction\'s writes, more than a large commit\'s 4 MiB');
my $w2 = wait_progress(qr/^commit\|\|(?!$wdone\|)\d+\|$wtotal\|bytes written$/);
ok($w2 ne '', "and they grow ($w2)");
$notices = finish_a(qr/committed/);
like($notices, qr/NOTICE:  COMMIT has been running for \d+ seconds?/,
	'the session committing gets a NOTICE');
like($notices, qr/DETAIL:  The storage worker has written \d+ of \d+ bytes of the transaction's writes\./,
	'which says how far it is');
is(progress_of_a(), '', 'once it is over, its row is gone');
is($node->safe_psql('postgres', q{SELECT count(*) FROM f WHERE k LIKE 'n%'}), '100000',
	'and every row is there');

# COPY into a foreign table, from a named pipe that gives 100,000 rows and
# then waits: PostgreSQL reports the rows read so far.
my $fifo = $node->basedir . '/copy.fifo';
mkfifo($fifo, 0600) or die "mkfifo: $!";
$a->query_until(qr/copying/, "\\echo copying\nCOPY f FROM '$fifo';\n\\echo copied\n");
open(my $fh, '>', $fifo) or die "open $fifo: $!";
for my $i (1 .. 100000)
{
	printf $fh "c%07d\tv\n", $i;
}
$fh->flush;
my $copy = '';
for (my $i = 0; $i < 1000 && $copy !~ /^f\|COPY FROM\|[1-9]/; $i++)
{
	$copy = $node->safe_psql('postgres',
		"SELECT relid::regclass, command, tuples_processed FROM pg_stat_progress_copy WHERE pid = $apid"
	);
	usleep(20_000);
}
like($copy, qr/^f\|COPY FROM\|[1-9]\d*$/,
	"COPY into the foreign table shows in pg_stat_progress_copy ($copy)");
close($fh);
finish_a(qr/copied/);
is($node->safe_psql('postgres', q{SELECT count(*) FROM f WHERE k LIKE 'c%'}), '100000',
	'and the rows it copied are there');

$a->quit;
$b->quit;
$node->stop;
done_testing();
