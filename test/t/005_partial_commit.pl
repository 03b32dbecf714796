
# A crash between the LevelDB batches of one large commit.
#
# A commit larger than a few megabytes is written as several LevelDB write
# batches (src/worker/leveldb/rowcommit.c), after a pending-commit file is written in the
# database's directory, so that LevelDB can flush memtables while a bulk load
# is being written.  If the worker dies between two of them, the next open
# must find the file and remove every entry of that commit,
# so that none of it is visible, and the rows it overwrote or deleted must
# read as they did before.
#
# The hidden setting widecolumn_fdw.debug_crash_after_commit_batches makes
# the worker kill itself with SIGKILL right after writing that many batches
# of a multi-batch commit, so the crash lands between batches every time.
#
# The transaction that is cut short inserts about 40 MB into two tables of
# one server, updates and deletes rows committed before, and is compared
# afterwards with a native table holding what was committed before it.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;
use Time::HiRes qw(usleep);

my $node = wc_node('wc_partial', "restart_after_crash = on\n");

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE a (k text OPTIONS (rowkey 'true') COLLATE "C", n int, pad text)
	SERVER wc OPTIONS (table 'a');
CREATE FOREIGN TABLE b (k text OPTIONS (rowkey 'true') COLLATE "C", n int, pad text)
	SERVER wc OPTIONS (table 'b');
CREATE TABLE a_oracle (k text COLLATE "C" PRIMARY KEY, n int, pad text);
CREATE TABLE b_oracle (k text COLLATE "C" PRIMARY KEY, n int, pad text);
});

# What is committed before the crash, in both kinds of table.
foreach my $t (qw(a b))
{
	foreach my $dest ($t, "${t}_oracle")
	{
		$node->safe_psql('postgres',
			"INSERT INTO $dest SELECT 'k' || lpad(i::text, 6, '0'), i, repeat('x', 10) FROM generate_series(1, 2000, 2) i"
		);
	}
}

my $content = q{
SELECT '%s', count(*), sum(n), md5(string_agg(k || ':' || n || ':' || coalesce(pad, ''), ',' ORDER BY k)) FROM %s
};
sub snapshot
{
	my ($a, $b) = @_;
	return $node->safe_psql('postgres', sprintf($content, 'a', $a)) . "\n"
	  . $node->safe_psql('postgres', sprintf($content, 'b', $b));
}
my $before = snapshot('a_oracle', 'b_oracle');
my @dbdirs = grep { -d } glob($node->data_dir . '/widecolumn_fdw/*');
die 'expected one LevelDB database' unless @dbdirs == 1;
my $dbdir = $dbdirs[0];
my ($dbname) = $dbdir =~ m{([^/]+)$};
is(snapshot('a', 'b'), $before, 'the foreign tables hold what was committed');

# The large transaction: new rows on both sides of the old ones (odd keys
# stay, even keys are new), so its batches interleave with committed rows,
# plus updates and deletes of committed rows.
my $big = q{
BEGIN;
INSERT INTO a SELECT 'k' || lpad(i::text, 6, '0'), -i, repeat('y', 1000) FROM generate_series(0, 30000, 2) i;
INSERT INTO b SELECT 'k' || lpad(i::text, 6, '0'), -i, repeat('z', 1000) FROM generate_series(0, 10000, 2) i;
UPDATE a SET n = n + 1000000 WHERE k < 'k000500';
DELETE FROM b WHERE k > 'k001500' AND n > 0;
COMMIT;
};

$node->safe_psql('postgres',
	'ALTER SYSTEM SET widecolumn_fdw.debug_crash_after_commit_batches = 2; SELECT pg_reload_conf();'
);
my $old = worker_pid($node);
# The reload reaches the worker on its next loop; let it run one.
$node->safe_psql('postgres', 'SELECT count(*) FROM a');

my ($ret, $out, $err) = $node->psql('postgres', $big);
isnt($ret, 0, 'the large COMMIT fails when the worker dies');
like(
	$err,
	qr/08006|terminating connection|server closed the connection|connection to server was lost/,
	'with a lost-connection error');
note("client said: $err");

ok(defined wait_for_new_worker($node, $old), 'the storage worker came back');
$node->poll_query_until('postgres', 'SELECT true')
  or die 'the cluster did not come back';
# The worker's start settles every database the cluster created
# (worker/leveldb/databases.c): the interrupted commit is rolled back
# before any session uses the database.
my $rolled_back = 0;
for (1 .. 100)
{
	$rolled_back = $node->log_contains(
		qr/widecolumn_fdw rolled back an interrupted commit in LevelDB database "widecolumn_fdw\/\Q$dbname\E"/);
	last if $rolled_back;
	usleep(100_000);
}
ok($rolled_back, "the worker's start rolled the interrupted commit back");
my $pending = "$dbdir/widecolumn-pending-commit";
ok(!-e $pending, 'the roll-back removed the pending-commit file');
$node->safe_psql('postgres',
	'ALTER SYSTEM RESET widecolumn_fdw.debug_crash_after_commit_batches; SELECT pg_reload_conf();'
);

is(snapshot('a', 'b'), $before,
	'nothing of the interrupted commit is visible, and what it overwrote is back');

# The same transaction, uninterrupted, commits in full.
$node->safe_psql('postgres',
	$big =~ s/\bINTO a\b/INTO a_oracle/r =~ s/\bINTO b\b/INTO b_oracle/r
	  =~ s/\bUPDATE a\b/UPDATE a_oracle/r =~ s/\bFROM b\b/FROM b_oracle/r);
$node->safe_psql('postgres', $big);
my $after = snapshot('a_oracle', 'b_oracle');
isnt($after, $before, 'the transaction changes the tables');
is(snapshot('a', 'b'), $after, 'run again without the crash, it commits in full');

ok(!-e $pending, 'the full commit removed its pending-commit file');

# ... and survives a restart: the roll-back left no record behind that
# would remove it at the next open.
$node->restart;
is(snapshot('a', 'b'), $after, 'the full commit survives a restart');

$node->stop;
done_testing();
