
# A commit of more than 4 MiB is written in chunks while the storage worker
# goes on serving the other sessions (src/worker/leveldb/largecommit.c):
#  - reads during it are answered while it runs, and see the state before
#    it, never part of it;
#  - a snapshot taken during it keeps that state after it has ended;
#  - a small commit that writes waits for it, is answered after it, and
#    stands;
#  - once it is answered every row is there.
# widecolumn_fdw.debug_large_commit_pause makes the worker wait between two
# chunks (without stopping to serve), so that the commit surely lasts.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $node = wc_node('wc_large_commit', "widecolumn_fdw.debug_large_commit_pause = 400\n");

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE f (k text OPTIONS (rowkey 'true') COLLATE "C", v text) SERVER wc;
INSERT INTO f SELECT 'old' || lpad(i::text, 7, '0'), 'o' FROM generate_series(1, 1000) i;
});

# Whether the large COMMIT is still waiting for its answer.
sub committing
{
	return $node->safe_psql('postgres',
		q{SELECT count(*) FROM pg_stat_activity WHERE query = 'COMMIT;' AND state = 'active'})
	  eq '1';
}

my $big = $node->background_psql('postgres');
$big->query_safe(q{BEGIN});
$big->query_safe(
	q{INSERT INTO f SELECT 'new' || lpad(i::text, 7, '0'), repeat('x', 100) FROM generate_series(1, 150000) i}
);
$big->query_until(qr/committing/, "\\echo committing\nCOMMIT;\n");
for (my $i = 0; $i < 500 && !committing(); $i++)
{
	usleep(10_000);
}
ok(committing(), 'the large commit is being written');

# Reads while it is written.
my $rr = $node->background_psql('postgres');
$rr->query_safe(q{BEGIN ISOLATION LEVEL REPEATABLE READ});
is($rr->query_safe(q{SELECT count(*) FROM f}), '1000',
	'a snapshot taken during the commit sees none of it');
is($node->safe_psql('postgres', q{SELECT count(*) FROM f}), '1000',
	'a scan during the commit sees none of it');
is($node->safe_psql('postgres', q{SELECT count(*) FROM f WHERE k = 'new0000001'}), '0',
	'a point read of a row it writes finds nothing');
is($node->safe_psql('postgres', q{SELECT v FROM f WHERE k = 'old0000001'}), 'o',
	'a point read of an older row finds it');
ok(committing(), 'the reads were answered while the commit was still being written');

# A small commit waits for it.
my $small = $node->background_psql('postgres');
$small->query_until(qr/inserting/, "\\echo inserting\nINSERT INTO f VALUES ('small', 's');\n\\echo inserted\n");
usleep(200_000);
is( $node->safe_psql('postgres',
		q{SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'INSERT INTO f VALUES%' AND state = 'active'}
	),
	'1',
	'a small commit that writes waits for the large one');
ok(committing(), 'the large commit was still being written then');

# Both end.
$big->query_until(qr/done/, "\\echo done\n");
$small->query_until(qr/inserted/, "");
is($node->safe_psql('postgres', q{SELECT count(*) FROM f WHERE k LIKE 'new%'}),
	'150000', 'once answered, every row of the large commit is there');
is($node->safe_psql('postgres', q{SELECT v FROM f WHERE k = 'small'}),
	's', 'and the small commit stands');
is($rr->query_safe(q{SELECT count(*) FROM f}), '1000',
	'the snapshot taken during the commit still sees none of it');
$rr->query_safe(q{COMMIT});
is($node->safe_psql('postgres', q{SELECT count(*) FROM f}), '151001',
	'a new snapshot sees everything');

$big->quit;
$small->quit;
$rr->quit;
$node->stop;
done_testing();
