
# A transaction whose foreign writes are stored but whose PostgreSQL commit
# never happens: an error after the store, its backend killed there, the
# storage worker killed there, the postmaster stopped there (immediate),
# the postmaster stopped there after a checkpoint (the xid's reuse).
# Each time nothing of it is visible, before or after recovery, and the
# worker deletes what it stored (its log says how many entries); committed
# transactions are all there.  A native table written by the same
# transactions is the oracle (docs/architecture.md, "Visibility").
#
# The hidden settings widecolumn_fdw.debug_fail_after_store and
# debug_wait_after_store (an advisory lock another session holds) put the
# transaction exactly between the store and the commit record.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;
use Time::HiRes qw(usleep);

my $node = wc_node('wc_visibility', "restart_after_crash = on\n");

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE SERVER wc2 FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE f (k text OPTIONS (rowkey 'true') COLLATE "C", v int) SERVER wc;
CREATE FOREIGN TABLE f2 (k text OPTIONS (rowkey 'true') COLLATE "C", v int) SERVER wc2;
CREATE TABLE n (k text COLLATE "C" PRIMARY KEY, v int);
});

my $committed = 0;

# A committed transaction of 50 rows in each table, tagged $tag.
sub commit_rows
{
	my ($tag) = @_;
	$node->safe_psql('postgres', qq{
BEGIN;
INSERT INTO n SELECT '$tag' || g, g FROM generate_series(1, 50) g;
INSERT INTO f SELECT '$tag' || g, g FROM generate_series(1, 50) g;
INSERT INTO f2 SELECT '$tag' || g, g FROM generate_series(1, 50) g;
UPDATE f SET v = v + 1000 WHERE k = 'base1';
UPDATE n SET v = v + 1000 WHERE k = 'base1';
UPDATE f2 SET v = v + 1000 WHERE k = 'base1';
COMMIT;
});
	$committed++;
	return;
}

# The writes of a transaction that will not commit (the same shape).
sub doomed_sql
{
	my ($tag) = @_;
	return qq{
INSERT INTO n SELECT '$tag' || g, g FROM generate_series(1, 50) g;
INSERT INTO f SELECT '$tag' || g, g FROM generate_series(1, 50) g;
INSERT INTO f2 SELECT '$tag' || g, g FROM generate_series(1, 50) g;
UPDATE f SET v = -1 WHERE k = 'base1';
UPDATE n SET v = -1 WHERE k = 'base1';
UPDATE f2 SET v = -1 WHERE k = 'base1';
DELETE FROM f WHERE k = 'base2';
DELETE FROM n WHERE k = 'base2';
DELETE FROM f2 WHERE k = 'base2';
};
}

# Both foreign tables hold exactly the native table's rows.
sub same_as_native
{
	my ($label) = @_;
	wc_same_as_native($node, $_, 'n', $label, 2 + 50 * $committed) foreach qw(f f2);
	return;
}

# Wait until the log, from offset on, says the worker deleted an aborted
# transaction's entries in both databases; returns the entries deleted.
sub wait_reclaimed
{
	my ($label, $offset) = @_;
	my $re = qr/removed (\d+) entries written by aborted transaction (\d+) in LevelDB database "([^"]+)"/;
	my %dbs;
	my $removed = 0;
	for (my $i = 0; $i < 600 && keys(%dbs) < 2; $i++)
	{
		my $log = slurp_file($node->logfile, $offset);
		%dbs = ();
		$removed = 0;
		while ($log =~ /$re/g)
		{
			$dbs{$3} = 1;
			$removed += $1;
		}
		usleep(100_000) if keys(%dbs) < 2;
	}
	is(scalar(keys %dbs), 2, "$label: the worker reclaimed the aborted writes in both databases");
	# 50 new rows, an update and a delete in each, and the families' rows
	cmp_ok($removed, '>=', 2 * 52, "$label: every stored entry of them is deleted ($removed)");
	return;
}

# A session whose COMMIT waits after its foreign writes are stored (WcTest).
sub commit_held
{
	my ($tag, $key) = @_;
	return wc_commit_held($node, doomed_sql($tag), $key);
}

$node->safe_psql('postgres', q{
INSERT INTO n VALUES ('base1', 1), ('base2', 2);
INSERT INTO f VALUES ('base1', 1), ('base2', 2);
INSERT INTO f2 VALUES ('base1', 1), ('base2', 2);
});
commit_rows('c0_');
same_as_native('before any fault');

# ---------------------------------------------------------------------
# An error after the store: the transaction aborts.
{
	my $label = 'an error after the store';
	my $offset = -s $node->logfile;
	my ($ret, $out, $err) = $node->psql('postgres',
		"BEGIN; SET LOCAL widecolumn_fdw.debug_fail_after_store = on;" . doomed_sql('e_') . "COMMIT;");
	like($err, qr/failing after the foreign writes are stored/, "$label: sanity: the COMMIT fails there");
	same_as_native("$label, at once");
	wait_reclaimed($label, $offset);
	same_as_native("$label, reclaimed");
	commit_rows('c1_');
	same_as_native("$label, then a commit");
}

# ---------------------------------------------------------------------
# A reader that started before the doomed transaction and one after, while
# it waits between the store and the commit record; then it is killed.
foreach my $case (
	[ 'the backend killed (SIGKILL) there', 'backend' ],
	[ 'the storage worker killed (SIGKILL) there', 'worker' ],
	[ 'the postmaster stopped (immediate) there', 'postmaster' ])
{
	my ($label, $what) = @$case;
	my $tag = "k_${what}_";
	my $offset = -s $node->logfile;
	my ($holder, $writer, $pid) = commit_held($tag, 4711);

	same_as_native("$label: while it waits");
	if ($what eq 'backend')
	{
		kill 'KILL', $pid;
	}
	elsif ($what eq 'worker')
	{
		kill 'KILL', worker_pid($node);
	}
	else
	{
		$node->stop('immediate');
	}
	# The holder keeps its lock until the crash has taken the writer too:
	# released earlier, the writer could still commit.
	$node->wait_for_log(qr/all server processes terminated; reinitializing/, $offset)
	  unless $what eq 'postmaster';
	# their connections are gone with the crash
	eval { $holder->quit; };
	eval { $writer->quit; };
	if ($what eq 'postmaster')
	{
		$node->start;
	}
	else
	{
		$node->poll_query_until('postgres', 'SELECT true')
		  or die "the server did not come back";
	}
	# the databases are opened again at their first read
	same_as_native("$label: after recovery");
	wait_reclaimed($label, $offset);
	same_as_native("$label: reclaimed");
	commit_rows("c_$what");
	same_as_native("$label: then a commit");
}

# ---------------------------------------------------------------------
# A transaction that wrote only a foreign table, stopped after its store
# by a crash, with no WAL of it flushed: only the store names its xid.  WAL
# must still reserve it (fdw/commit/xidwal.c), whether the reservation it
# falls in was made before the last checkpoint (so is not replayed) or
# after.  After recovery the xids handed out must not include it (each
# commits, so a reused one would make its rows visible): transactions run
# until the next xid is past it.
#
# Nothing else may write WAL before the crash: a pruned page's image would
# fill the WAL page and have the WAL writer flush the transaction's record.
$node->safe_psql('postgres', 'ALTER SYSTEM SET autovacuum = off');
$node->reload;
foreach my $case (
	[ 'a foreign-only transaction stopped after a checkpoint', 1 ],
	[ 'a foreign-only transaction stopped within a reservation', 0 ])
{
	my ($label, $checkpoint_last) = @$case;
	$node->safe_psql('postgres', 'CHECKPOINT') unless $checkpoint_last;
	commit_rows("r${checkpoint_last}_");
	$node->safe_psql('postgres', 'VACUUM');
	$node->safe_psql('postgres', 'CHECKPOINT') if $checkpoint_last;
	my ($holder, $writer, $pid) =
	  wc_commit_held($node, "INSERT INTO f VALUES ('orphan', 1), ('orphan2', 2);", 4712);
	my $xid = $node->safe_psql('postgres',
		"SELECT backend_xid FROM pg_stat_activity WHERE pid = $pid");
	like($xid, qr/^\d+$/, "$label: sanity: the writer has an xid ($xid)");
	$node->stop('immediate');
	eval { $holder->quit; };
	eval { $writer->quit; };
	$node->start;
	my $next = $node->safe_psql('postgres', 'SELECT pg_current_xact_id()');
	note("$label: the first xid after recovery is $next");
	for (my $i = 0; $i < 1000 && $next <= $xid; $i++)
	{
		$next = $node->safe_psql('postgres', 'SELECT pg_current_xact_id()');
	}
	cmp_ok($next, '>', $xid, "$label: sanity: xids were handed out past it");
	is($node->safe_psql('postgres', "SELECT count(*) FROM f WHERE k LIKE 'orphan%'"), '0',
		"$label: none of its rows is visible");
	same_as_native("$label: after recovery");
}

$node->restart;
same_as_native('after a clean restart');

done_testing();
