
# kill -9 of the storage worker around widecolumn.drop_row_range: in the
# middle of the COMMIT that drops a range, just after a COMMIT that writes
# into a dropped range, and in the middle of the compact() that reclaims
# one.  After each restart nothing committed may be lost and nothing dropped
# may come back (a native table is the oracle).
#
# A drop is one cell of the table of families written with the commit
# (worker/leveldb/rowdrops.c), whose rows go first: with
# widecolumn_fdw.debug_crash_after_commit_batches = 1 a commit of more than
# 4 MiB dies after its first batch, which holds the drop, and the restart
# must undo the drop with the rest of the commit.  A write into a dropped
# range carries a refill mark, without which scans would skip the range and
# hide the row: it must be as durable as the row.  The sweep deletes a
# dropped range's entries before the drop's cell; with
# widecolumn_fdw.debug_crash_after_sweep_batches it dies in between.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $node = wc_node('wc_droprange_crash',
	"restart_after_crash = on\nwidecolumn_fdw.sweep_naptime = 0\n");

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE t (k text OPTIONS (rowkey 'true') COLLATE "C", v int, pad text)
	SERVER wc OPTIONS (table 't');
CREATE TABLE t_oracle (k text COLLATE "C" PRIMARY KEY, v int, pad text);
});

# Every change twice: to the foreign table and to its oracle.
sub both
{
	my ($sql) = @_;
	$node->safe_psql('postgres', $sql);
	$node->safe_psql('postgres', $sql =~ s/\bt\b/t_oracle/gr);
	return;
}

my $content = q{
SELECT count(*), md5(string_agg(k || ':' || coalesce(v::text, '-') || ':' || md5(coalesce(pad, '-')), ',' ORDER BY k)) FROM %s
};
sub rows_of { return $node->safe_psql('postgres', sprintf($content, $_[0])); }
sub count_like
{
	my ($prefix) = @_;
	return $node->safe_psql('postgres', "SELECT count(*) FROM t WHERE k LIKE '$prefix%'");
}
sub check_t
{
	my ($label) = @_;
	is(rows_of('t'), rows_of('t_oracle'), "$label: the table holds what was committed");
	return;
}

# Wait for the worker that replaced $old, and for the cluster.
sub restarted
{
	my ($old, $label) = @_;
	ok(defined wait_for_new_worker($node, $old), "$label: the worker died and came back");
	$node->poll_query_until('postgres', 'SELECT true')
	  or die 'the cluster did not come back';
	return;
}

sub set_hook
{
	my ($name, $value) = @_;
	$node->safe_psql('postgres',
		defined $value
		? "ALTER SYSTEM SET widecolumn_fdw.$name = $value; SELECT pg_reload_conf();"
		: "ALTER SYSTEM RESET widecolumn_fdw.$name; SELECT pg_reload_conf();");
	# The reload reaches the worker on its next loop; let it run one.
	$node->safe_psql('postgres', 'SELECT count(*) FROM t WHERE k = $$x$$');
	return;
}

# Three tenants of 2,000 rows.
both(q{INSERT INTO t SELECT p || '#' || lpad(i::text, 5, '0'), i, repeat('x', 100)
	FROM unnest(ARRAY['a', 'b', 'c']) p, generate_series(1, 2000) i});
check_t('loaded');

# 1. A COMMIT that drops tenant b and inserts 10,000 rows of 1 kB: several
# batches, the drop in the first.  Killed after it: neither is there.
my $big = q{
BEGIN;
SELECT widecolumn.drop_row_range('t', 'b#');
INSERT INTO t SELECT 'n#' || lpad(i::text, 5, '0'), i, repeat('y', 1000) FROM generate_series(1, 10000) i;
COMMIT;
};
set_hook('debug_crash_after_commit_batches', 1);
my $old = worker_pid($node);
my $log_at = -s $node->logfile;
my ($ret, $out, $err) = $node->psql('postgres', $big);
isnt($ret, 0, 'drop in a large commit: the COMMIT fails when the worker dies');
restarted($old, 'drop in a large commit');
set_hook('debug_crash_after_commit_batches', undef);
is(count_like('b#'), '2000', 'drop in a large commit: the dropped rows are back');
is(count_like('n#'), '0', 'drop in a large commit: the inserted rows are not there');
ok($node->log_contains('rolled back an interrupted commit', $log_at),
	'drop in a large commit: it was cut between its batches, and rolled back');
check_t('drop in a large commit');

# The same commit, whole this time: both are there, and stay so.
$node->safe_psql('postgres', $big);
$node->safe_psql('postgres', q{
DELETE FROM t_oracle WHERE k LIKE 'b#%';
INSERT INTO t_oracle SELECT 'n#' || lpad(i::text, 5, '0'), i, repeat('y', 1000) FROM generate_series(1, 10000) i;
});
is(count_like('b#'), '0', 'the drop committed whole: tenant b is gone');
check_t('the drop committed whole');
$old = worker_pid($node);
kill 'KILL', $old;
restarted($old, 'after a committed drop');
check_t('after a committed drop');

# 2. A large commit into the dropped range, killed between its batches:
# rolled back, and what was dropped stays dropped.
set_hook('debug_crash_after_commit_batches', 1);
$old = worker_pid($node);
($ret, $out, $err) = $node->psql('postgres',
	q{INSERT INTO t SELECT 'b#' || lpad(i::text, 5, '0'), -i, repeat('z', 1000) FROM generate_series(1, 10000) i});
isnt($ret, 0, 'write into a dropped range: the large COMMIT fails when the worker dies');
restarted($old, 'write into a dropped range');
set_hook('debug_crash_after_commit_batches', undef);
is(count_like('b#'), '0', 'write into a dropped range: nothing comes back, nothing is written');
# nor its refill mark, in the table of families: scans still skip the range
like($node->safe_psql('postgres',
	q{EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM t WHERE k LIKE 'b#%'}),
	qr/Storage Entries Read: 0$/m, 'write into a dropped range: the range is still skipped whole');
check_t('write into a dropped range');

# 3. A row written into the dropped range, the worker killed as soon as its
# COMMIT returns: the row is there after the restart (its refill mark was
# made durable with it, or scans would skip the range).
both(q{INSERT INTO t VALUES ('b#00007', 7, 'back')});
$old = worker_pid($node);
kill 'KILL', $old;
restarted($old, 'row in a dropped range');
is($node->safe_psql('postgres', q{SELECT k, v, pad FROM t WHERE k LIKE 'b#%'}),
	'b#00007|7|back', 'row in a dropped range: it is the only one there');
my $across = q{SELECT string_agg(k, ',' ORDER BY k) FROM %s WHERE k >= 'a#01999' AND k < 'c#00002'};
is($node->safe_psql('postgres', sprintf($across, 't')), 'a#01999,a#02000,b#00007,c#00001',
	'row in a dropped range: a scan across the range finds it too');
check_t('row in a dropped range');

# 4. compact() reclaiming a dropped range, killed in the middle.  (compact
# first removes what is left of the first drop, so that the walk has only
# tenant c's 2,000 rows to delete.)
$node->safe_psql('postgres', "SELECT widecolumn.compact('wc')");
$node->safe_psql('postgres', q{SELECT widecolumn.drop_row_range('t', 'c#')});
$node->safe_psql('postgres', q{DELETE FROM t_oracle WHERE k LIKE 'c#%'});
set_hook('debug_crash_after_sweep_batches', 50);
$old = worker_pid($node);
($ret, $out, $err) = $node->psql('postgres', "SELECT widecolumn.compact('wc')");
isnt($ret, 0, 'compact of a dropped range: it fails when the worker dies');
restarted($old, 'compact of a dropped range');
# before any query opens the database again, so before it is swept
set_hook('debug_crash_after_sweep_batches', undef);
is(count_like('c#'), '0', 'compact of a dropped range: nothing dropped comes back');
check_t('compact of a dropped range');

my $removed = $node->safe_psql('postgres', "SELECT widecolumn.compact('wc')");
cmp_ok($removed, '>', 0, "compact run again removes the rest ($removed)");
# tenant c's entries: 2,000 rows of two cells
cmp_ok($removed, '<', 4000, 'and the first had removed some of them');
is(count_like('c#'), '0', 'compact run again: nothing dropped comes back');
check_t('compact run again');
is($node->safe_psql('postgres', "SELECT widecolumn.compact('wc')"), '0',
	'then nothing is left to remove');
# the range holds nothing older than its drop any more, nor the drop
both(q{INSERT INTO t VALUES ('c#00001', 1, 'new')});
is($node->safe_psql('postgres', q{SELECT k, v, pad FROM t WHERE k LIKE 'c#%'}),
	'c#00001|1|new', 'a row written after the compact is the only one');
$node->restart;
check_t('after a restart');

$node->stop;
done_testing();
