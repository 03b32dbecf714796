# A large commit of a cells-layout table is one LevelDB batch.
#
# A commit of more than 4 MiB is normally written in several batches and,
# after a crash between them, rolled back by removing the entries stamped
# with its timestamp (005_partial_commit.pl).  A cells-layout table's
# versions at explicit timestamps, and its removals of versions, cannot be
# rolled back that way, so a commit that has any is written as one batch
# whatever its size, unless the rows that hold them held nothing before it:
# then it is chunked, and rolled back by removing every entry of those rows
# (docs/format.md, "Large commits").
#
# With widecolumn_fdw.debug_crash_after_commit_batches = 1 the worker kills
# itself after the first batch of a multi-batch commit: a large mapped-table
# commit dies (the hook is armed), and a large cells-table commit, with
# explicit timestamps and removals, is written whole and survives a restart;
# one of versions into empty rows dies and is rolled back whole.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $node = wc_node('wc_cells_commit', "restart_after_crash = on\n");

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
SELECT widecolumn.create_family('wc', 'h', 'f', 'never');
CREATE FOREIGN TABLE h (rowkey text COLLATE "C", family text COLLATE "C",
	qualifier text COLLATE "C", ts timestamptz, value text)
	SERVER wc OPTIONS (layout 'cells');
CREATE FOREIGN TABLE m (k text OPTIONS (rowkey 'true') COLLATE "C", pad text)
	SERVER wc OPTIONS (table 'm');
-- versions committed before: the large commit removes the even ones
INSERT INTO h SELECT 'r' || (i % 10), 'f', 'q', timestamptz '2021-01-01 00:00+00' + i * interval '1 second',
	'old ' || i FROM generate_series(1, 1000) i;
});

$node->safe_psql('postgres',
	'ALTER SYSTEM SET widecolumn_fdw.debug_crash_after_commit_batches = 1; SELECT pg_reload_conf();'
);
my $old = worker_pid($node);
# The reload reaches the worker on its next loop; let it run one.
$node->safe_psql('postgres', 'SELECT count(*) FROM m');

# The hook is armed: a large mapped commit is cut after its first batch.
my ($ret, $out, $err) = $node->psql('postgres',
	q{INSERT INTO m SELECT 'k' || i, repeat('y', 1000) FROM generate_series(1, 10000) i});
isnt($ret, 0, 'a large mapped-table commit dies after its first batch');
ok(defined wait_for_new_worker($node, $old), 'the storage worker came back');
$node->poll_query_until('postgres', 'SELECT true')
  or die 'the cluster did not come back';
is($node->safe_psql('postgres', 'SELECT count(*) FROM m'), '0', 'and it was rolled back');
$old = worker_pid($node);

# About 10 MB of versions at explicit timestamps, and removals, in one commit.
$node->safe_psql(
	'postgres', q{
BEGIN;
DELETE FROM h WHERE value LIKE 'old %' AND substring(value FROM 5)::int % 2 = 0;
INSERT INTO h SELECT 'r' || (i % 10), 'f', 'q', timestamptz '2022-01-01 00:00+00' + i * interval '1 second',
	'new ' || i || repeat('z', 1000) FROM generate_series(1, 10000) i;
COMMIT;
});
is(worker_pid($node), $old, 'the worker did not die: the commit was one batch');

my $expect = "500|10000";
my $count = q{SELECT count(*) FILTER (WHERE value LIKE 'old %'), count(*) FILTER (WHERE value LIKE 'new %') FROM h};
is($node->safe_psql('postgres', $count), $expect, 'every version and every removal is there');

$node->safe_psql('postgres',
	'ALTER SYSTEM RESET widecolumn_fdw.debug_crash_after_commit_batches; SELECT pg_reload_conf();'
);
$node->restart;
is($node->safe_psql('postgres', $count), $expect, 'and survives a restart');
my @pending = glob($node->data_dir . '/widecolumn_fdw/*/widecolumn-pending-commit');
is(scalar(@pending), 0, 'no pending-commit file is left');

# Versions at explicit timestamps into rows that hold nothing yet (what
# import_avro writes into a new table) are chunked like any large commit,
# and a crash between the chunks removes every entry of those rows.
$node->safe_psql('postgres',
	'ALTER SYSTEM SET widecolumn_fdw.debug_crash_after_commit_batches = 1; SELECT pg_reload_conf();'
);
$node->safe_psql('postgres', 'SELECT count(*) FROM m');
$old = worker_pid($node);
my $into_new_rows = q{INSERT INTO h SELECT 's' || lpad(i::text, 5, '0'), 'f', 'q',
	timestamptz '2023-01-01 00:00+00' + i * interval '1 second', 'newer ' || i || repeat('z', 1000)
	FROM generate_series(1, 10000) i};
($ret, $out, $err) = $node->psql('postgres', $into_new_rows);
isnt($ret, 0, 'a large commit of versions into empty rows is chunked: it dies after its first batch');
ok(defined wait_for_new_worker($node, $old), 'the storage worker came back');
$node->poll_query_until('postgres', 'SELECT true')
  or die 'the cluster did not come back';
is($node->safe_psql('postgres', q{SELECT count(*) FROM h WHERE rowkey >= 's'}),
	'0', 'and every entry of those rows was rolled back');
is($node->safe_psql('postgres', $count), $expect, 'the versions stored before are all there');
ok($node->log_contains(qr/rolled back an interrupted commit.*\n.*DETAIL:  [1-9]\d* entries were removed/),
	'the worker logged the roll-back');
@pending = glob($node->data_dir . '/widecolumn_fdw/*/widecolumn-pending-commit');
is(scalar(@pending), 0, 'the roll-back removed the pending-commit file');

# Exact versions in rows around a stored one: one batch, not killed.
$old = worker_pid($node);
$node->safe_psql('postgres', q{INSERT INTO h SELECT 'p' || lpad(i::text, 5, '0'), 'f', 'q',
	timestamptz '2023-01-01 00:00+00' + i * interval '1 second', 'around ' || i || repeat('z', 1000)
	FROM generate_series(1, 10000) i UNION ALL SELECT 'z', 'f', 'q', now(), 'last'});
is(worker_pid($node), $old, 'exact versions in rows around stored ones: one batch, the worker lives');

$node->safe_psql('postgres',
	'ALTER SYSTEM RESET widecolumn_fdw.debug_crash_after_commit_batches; SELECT pg_reload_conf();'
);
$node->safe_psql('postgres', 'SELECT count(*) FROM m');
$node->safe_psql('postgres', $into_new_rows);
$node->restart;
is($node->safe_psql('postgres',
		q{SELECT count(*), count(DISTINCT rowkey),
			sum(length(value)) = (SELECT sum(length('newer ' || i || repeat('z', 1000))) FROM generate_series(1, 10000) i)
		FROM h WHERE rowkey >= 's' AND rowkey < 't'}),
	'10000|10000|t', 'uninterrupted, the commit into empty rows is whole after a restart');

$node->stop;
done_testing();
