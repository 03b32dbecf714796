
# Counters in an aggregate (sum) family, as issue 17 asks: 8 sessions
# running 5,000 transactions each, every one adding 1 to the same 10
# counters with INSERT.  Every counter must end at its exact total, and no
# INSERT may wait on a lock: while another session holds the row lock of
# one counter for the whole run, the merges go on (a lock_timeout would
# fail any that waited, and log_lock_waits would log it), where the same
# increments as UPDATE c = c + 1 wait for that lock.
#
# Then kill -9 of the storage worker in the middle of a compact() that
# folds the counters' merges (widecolumn_fdw.debug_crash_after_sweep_batches):
# after the restart every counter still reads its total, and a compact()
# run again folds them all, so a counter reads as one entry.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $node = wc_node('wc_aggregate_counters',
	"restart_after_crash = on\nwidecolumn_fdw.sweep_naptime = 0\n"
	  . "log_lock_waits = on\ndeadlock_timeout = '10ms'\n");

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
SELECT widecolumn.create_family('wc', 'counters', 'n', aggregate => 'sum');
CREATE FOREIGN TABLE counters (k text OPTIONS (rowkey 'true') COLLATE "C",
	c bigint OPTIONS (column 'n:c')) SERVER wc;
INSERT INTO counters SELECT 'c' || i, 0 FROM generate_series(0, 9) i;
});

my $totals = q{SELECT string_agg(k || '=' || c, ' ' ORDER BY k) FROM counters};
sub expect
{
	my ($n) = @_;
	return join(' ', map { "c$_=$n" } 0 .. 9);
}

# Another session holds the row lock of counter c3 (an UPDATE that changes
# nothing still locks its row) for the whole run.
my $holder = $node->background_psql('postgres', on_error_stop => 1);
$holder->query_safe(q{BEGIN; UPDATE counters SET c = c WHERE k = 'c3';});

my $log_offset = -s $node->logfile;
sessions_at_once($node, 8, 5000, 'merges of 10 counters by 8 sessions',
	'add', q{
SET lock_timeout = '30s';
INSERT INTO counters SELECT 'c' || i, 1 FROM generate_series(0, 9) i;
});
is($node->safe_psql('postgres', $totals), expect(40000),
	'every counter ends at its exact total');
my $log = slurp_file($node->logfile, $log_offset);
unlike($log, qr/still waiting for/, 'no merge waited on a lock');

# The same increment as an UPDATE waits for the lock the holder has.
{
	my ($ret, $out, $err) = $node->psql('postgres',
		q{SET lock_timeout = '200ms'; UPDATE counters SET c = c + 1 WHERE k = 'c3';});
	like($err, qr/lock timeout/, 'an UPDATE of the locked counter waits for its lock');
}
$holder->query_safe('COMMIT;');
$holder->quit;

# The increments as UPDATEs take turns on the row locks, and count exactly too.
sessions_at_once($node, 8, 200, 'UPDATE c = c + 1 of 10 counters by 8 sessions',
	'inc', q{
UPDATE counters SET c = c + 1;
});
is($node->safe_psql('postgres', $totals), expect(41600),
	'UPDATE c = c + 1 counts exactly');
sessions_at_once($node, 8, 100, 'merges on top of the UPDATEs', 'add2', q{
INSERT INTO counters SELECT 'c' || i, 1 FROM generate_series(0, 9) i;
});
is($node->safe_psql('postgres', $totals), expect(42400),
	'merges add to the value the UPDATEs set');

# How many stored entries a read of counter c5 passes over.
my $entries = q{
CREATE FUNCTION pg_temp.entries() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
           SELECT * FROM counters WHERE k = 'c5' LOOP
    IF l ~ 'Storage Entries Read' THEN
      RETURN substring(l from '\d+$')::bigint;
    END IF;
  END LOOP;
END
$$;
SELECT pg_temp.entries();
};
cmp_ok($node->safe_psql('postgres', $entries), '>=', 800,
	'before folding, a read passes over every merge since the last UPDATE');

# kill -9 in the middle of the fold: a batch a row, the worker killed
# after the third.
{
	my $old = worker_pid($node);
	$node->safe_psql('postgres',
		'ALTER SYSTEM SET widecolumn_fdw.debug_crash_after_sweep_batches = 3; SELECT pg_reload_conf();');
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT widecolumn.compact('wc')");
	isnt($ret, 0, 'compact fails when the worker dies in the middle of the fold');
	ok(defined wait_for_new_worker($node, $old), 'the worker died and came back');
	$node->poll_query_until('postgres', 'SELECT true')
	  or die 'the cluster did not come back';
	$node->safe_psql('postgres',
		'ALTER SYSTEM RESET widecolumn_fdw.debug_crash_after_sweep_batches; SELECT pg_reload_conf();');
}
is($node->safe_psql('postgres', $totals), expect(42400),
	'after the crash every counter reads its total');

cmp_ok($node->safe_psql('postgres', "SELECT widecolumn.compact('wc')"), '>', 0,
	'compact run again folds the rest');
is($node->safe_psql('postgres', $totals), expect(42400),
	'after folding every counter reads its total');
is($node->safe_psql('postgres', $entries), '1',
	'after folding, a counter is one entry');
$node->safe_psql('postgres',
	q{INSERT INTO counters SELECT 'c' || i, 1 FROM generate_series(0, 9) i});
is($node->safe_psql('postgres', $totals), expect(42401),
	'a merge after the fold adds to the folded value');

done_testing();
