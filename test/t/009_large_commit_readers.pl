
# Other sessions are served while a large commit is being written.
#
# A commit over 4 MiB is written by the commit writer as a chain of LevelDB
# batches (src/storage.c, src/cells.c).  Meanwhile the worker goes on
# serving, and every new read of that database gets a snapshot taken before
# the first batch (src/worker.c), so:
#  - reads are answered while the commit is being written, and see none of
#    it;
#  - a commit that comes after it waits behind it, and is not seen before
#    it either;
#  - once it is answered, both are there, and the table equals a native
#    table written in the same transactions.
#
# The hidden setting widecolumn_fdw.debug_pause_commit_file makes the commit
# writer wait after a large commit's first batch while that file exists, so
# the reads below happen while the commit is certainly unfinished.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $node = wc_node('wc_large_commit');
my $pause = $node->basedir . '/pause-large-commit';

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE t (k text OPTIONS (rowkey 'true') COLLATE "C", v int, pad text) SERVER wc;
CREATE TABLE n (k text COLLATE "C" PRIMARY KEY, v int, pad text);
INSERT INTO t SELECT 'b' || lpad(i::text, 5, '0'), i, 'base' FROM generate_series(1, 1000) i;
INSERT INTO n SELECT 'b' || lpad(i::text, 5, '0'), i, 'base' FROM generate_series(1, 1000) i;
});

my $content = q{SELECT count(*), sum(v), md5(string_agg(k || ':' || v || ':' || pad, ',' ORDER BY k)) FROM %s};
my $before = $node->safe_psql('postgres', sprintf($content, 'n'));
is($node->safe_psql('postgres', sprintf($content, 't')), $before, 'the foreign table holds the base rows');

open(my $fh, '>', $pause) or die "could not create $pause: $!";
close($fh);
$node->safe_psql('postgres',
	"ALTER SYSTEM SET widecolumn_fdw.debug_pause_commit_file = '$pause'; SELECT pg_reload_conf();");
# The reload reaches the worker on its next loop; let it run one.
$node->safe_psql('postgres', 'SELECT count(*) FROM t');

# About 15 MB of rows: four batches or so, so the pause after the first holds.
my $load = q{INSERT INTO %s SELECT 'L' || lpad(i::text, 7, '0'), i, repeat('x', 100) FROM generate_series(1, 100000) i};
my $loader = $node->background_psql('postgres', on_error_stop => 0);
$loader->query_until(qr/loading/,
	"\\echo loading\nBEGIN;\n" . sprintf($load, 't') . ";\nCOMMIT;\n\\echo loaded\n");

# The commit has reached the worker once its pending-commit file exists.
my $pending;
foreach my $i (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
{
	($pending) = glob($node->data_dir . '/widecolumn_fdw/*/widecolumn-pending-commit');
	last if defined $pending;
	usleep(100_000);
}
ok(defined $pending, 'the large commit is being written');

is($node->safe_psql('postgres', sprintf($content, 't')), $before,
	'a read while it is being written is answered, and sees none of it');
is($node->safe_psql('postgres', "SELECT count(*) FROM t WHERE k LIKE 'L%'"), '0',
	'a range scan of its rows finds none');
is( $node->safe_psql('postgres', "SELECT v FROM t WHERE k = 'b00007'"), '7',
	'a point read is answered too');

# A small commit after it waits behind it, unseen.
my $small = $node->background_psql('postgres', on_error_stop => 0);
$small->query_until(qr/inserting/,
	"\\echo inserting\nINSERT INTO t VALUES ('small', -1, 'after');\n\\echo inserted\n");
usleep(200_000);
is($node->safe_psql('postgres', "SELECT count(*) FROM t WHERE k = 'small'"), '0',
	'a commit queued behind it is not seen before it');
ok(-e $pending && -e $pause, 'the large commit was still unfinished during those reads');

# Let it finish.
unlink($pause) or die "could not remove $pause: $!";
$loader->query_until(qr/loaded/, '');
$small->query_until(qr/inserted/, '');
like($loader->{stderr}, qr/^$/, 'the large commit succeeded');
like($small->{stderr}, qr/^$/, 'the small commit succeeded');
$loader->quit;
$small->quit;
ok(!-e $pending, 'the large commit removed its pending-commit file');

$node->safe_psql('postgres', sprintf($load, 'n') . "; INSERT INTO n VALUES ('small', -1, 'after')");
my $after = $node->safe_psql('postgres', sprintf($content, 'n'));
isnt($after, $before, 'the transactions change the table');
is($node->safe_psql('postgres', sprintf($content, 't')), $after,
	'afterwards both commits are there, as in the native table');

# ... and after a restart.
$node->safe_psql('postgres',
	'ALTER SYSTEM RESET widecolumn_fdw.debug_pause_commit_file; SELECT pg_reload_conf();');
$node->restart;
is($node->safe_psql('postgres', sprintf($content, 't')), $after, 'and after a restart');

$node->stop;
done_testing();
