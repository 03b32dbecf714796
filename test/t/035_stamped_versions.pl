
# Versions written at their own timestamps (a cells-layout INSERT with ts,
# an UPDATE of a version, a DELETE of one) become visible, and the versions
# they replace or remove disappear, exactly when the transaction's native
# rows do: not at the foreign store a moment before the commit record, not
# at all if that record never comes, and never to a snapshot taken before
# the commit (docs/architecture.md, "Versions at their own timestamps").  A
# native table holding the same versions is the oracle; a mapped table over
# the same stored table (the newest version of each cell) reads them through
# the row scan, the cells layout through the version scan.
#
# widecolumn_fdw.debug_fail_after_store and debug_wait_after_store put the
# transaction between the store and the commit record.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;
use Time::HiRes qw(usleep);

my $node = wc_node('wc_stamped', "restart_after_crash = on\n");

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
SELECT widecolumn.create_family('wc', 'data', 'f', 'never');
CREATE FOREIGN TABLE c (rowkey text COLLATE "C", family text COLLATE "C",
  qualifier text COLLATE "C", ts timestamptz, value text)
  SERVER wc OPTIONS (table 'data', layout 'cells');
CREATE FOREIGN TABLE m (rowkey text OPTIONS (rowkey 'true') COLLATE "C",
  q text OPTIONS (column 'f:q'))
  SERVER wc OPTIONS (table 'data');
CREATE TABLE n (rowkey text COLLATE "C", family text COLLATE "C",
  qualifier text COLLATE "C", ts timestamptz, value text);
-- the newest version of each row, as the mapped table reads it
CREATE VIEW newest AS
  SELECT DISTINCT ON (rowkey) rowkey, value FROM n ORDER BY rowkey, ts DESC;
});

# The same statements on the cells-layout table and on its native twin.
sub both
{
	my ($sql) = @_;
	(my $native = $sql) =~ s/\bc\b/n/g;
	return $sql . $native;
}

$node->safe_psql('postgres', both(q{
INSERT INTO c VALUES
  ('r1', 'f', 'q', '2020-01-01 00:00+00', 'old1'),
  ('r1', 'f', 'q', '2020-01-02 00:00+00', 'old2'),
  ('r2', 'f', 'q', '2020-01-01 00:00+00', 'keep');
}));

# The writes of a transaction under test: a new version at its own time, a
# version rewritten (r1's newest), a version removed (r2's only one).
sub change_sql
{
	my ($tag) = @_;
	return both(qq{
INSERT INTO c VALUES ('r3_$tag', 'f', 'q', '2021-01-01 00:00+00', 'new_$tag');
UPDATE c SET value = 'changed_$tag' WHERE rowkey = 'r1' AND ts = '2020-01-02 00:00+00';
DELETE FROM c WHERE rowkey = 'r2' AND ts = '2020-01-01 00:00+00';
});
}

# What a session reads of both foreign tables matches the native twin: the
# cells layout version by version, the mapped table the newest of each row.
my $compare = q{
SELECT (SELECT count(*) FROM (
          (SELECT rowkey, family, qualifier, ts, value FROM c
           EXCEPT ALL SELECT rowkey, family, qualifier, ts, value FROM n)
          UNION ALL
          (SELECT rowkey, family, qualifier, ts, value FROM n
           EXCEPT ALL SELECT rowkey, family, qualifier, ts, value FROM c)) x)
     + (SELECT count(*) FROM (
          (SELECT rowkey, q FROM m EXCEPT ALL SELECT rowkey, value FROM newest)
          UNION ALL
          (SELECT rowkey, value FROM newest EXCEPT ALL SELECT rowkey, q FROM m)) y)};

sub same_as_native
{
	my ($label) = @_;
	is($node->safe_psql('postgres', $compare), '0',
		"$label: the cells layout and the mapped table read what the native twin holds");
	return;
}

# What the foreign tables show of the three versions a change touches, for
# the messages: r1's newest, r2, r3.
sub shown
{
	return $node->safe_psql('postgres', q{
SELECT (SELECT q FROM m WHERE rowkey = 'r1') || ' '
    || (SELECT count(*) FROM c WHERE rowkey = 'r2') || ' '
    || (SELECT count(*) FROM c WHERE rowkey LIKE 'r3%')});
}

# Wait until the log, from offset on, says the worker reclaimed an aborted
# transaction's entries; returns how many.
sub wait_reclaimed
{
	my ($label, $offset) = @_;
	my $re = qr/removed (\d+) entries written by aborted transaction/;
	for (my $i = 0; $i < 600; $i++)
	{
		my $log = slurp_file($node->logfile, $offset);
		if ($log =~ $re)
		{
			# the new version, the rewritten and the removed one, the
			# families' row the INSERT recorded types in; one fewer when
			# the worker redid an earlier commit from WAL over the aborted
			# one, whose own record the crash took from WAL: that commit's
			# version is back already, as the rollback would have put it
			# (docs/architecture.md, "Durability with one fsync")
			cmp_ok($1, '>=', 2, "$label: the worker reclaimed the aborted writes ($1 entries)");
			return;
		}
		usleep(100_000);
	}
	fail("$label: the worker reclaimed the aborted writes");
	return;
}

# A session whose COMMIT waits after its foreign writes are stored (WcTest).
sub commit_held
{
	my ($tag, $key) = @_;
	return wc_commit_held($node, change_sql($tag), $key);
}

same_as_native('before any change');
is(shown(), 'old2 1 0', 'sanity: the versions before any change');

# ---------------------------------------------------------------------
# An error after the store: the transaction aborts, nothing of it shows,
# and the worker puts the versions it replaced back.
{
	my $label = 'an error after the store';
	my $offset = -s $node->logfile;
	my ($ret, $out, $err) = $node->psql('postgres',
		"BEGIN; SET LOCAL widecolumn_fdw.debug_fail_after_store = on;"
		  . change_sql('e') . "COMMIT;");
	like($err, qr/failing after the foreign writes are stored/, "$label: sanity: the COMMIT fails there");
	same_as_native("$label, at once");
	is(shown(), 'old2 1 0', "$label: the rewritten, removed and new versions as they were");
	wait_reclaimed($label, $offset);
	same_as_native("$label, reclaimed");
	is(shown(), 'old2 1 0', "$label, reclaimed: the versions as they were");
}

# ---------------------------------------------------------------------
# A commit held between its store and its commit record: a reader sees the
# versions as they were; so does a REPEATABLE READ reader that took its
# snapshot then, after the commit too; a new reader sees the commit.
{
	my $label = 'a commit held after the store';
	my ($holder, $writer, $pid) = commit_held('h', 4711);

	same_as_native("$label: while it waits");
	is(shown(), 'old2 1 0', "$label: while it waits, the versions as they were");

	my $old = $node->background_psql('postgres');
	$old->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM n;');

	$holder->query_safe('SELECT pg_advisory_unlock(4711)');
	$writer->query_until(qr/committed/, "\\echo committed\n");
	$writer->quit;
	$holder->quit;

	same_as_native("$label: committed");
	is(shown(), 'changed_h 0 1', "$label: committed, the new versions");

	is($old->query_safe($compare), '0',
		"$label: a snapshot from before the commit reads what the native twin held then");
	is($old->query_safe(q{SELECT q FROM m WHERE rowkey = 'r1'}), 'old2',
		"$label: it reads the rewritten version's old value (its pre-image)");
	is($old->query_safe(q{SELECT count(*) FROM c WHERE rowkey = 'r2'}), '1',
		"$label: and the removed version");
	$old->query_safe('COMMIT');
	$old->quit;

	# settled, then the removed version and the pre-images are deleted
	$node->safe_psql('postgres', q{SELECT widecolumn.compact('wc')});
	same_as_native("$label: after compact");
}

# ---------------------------------------------------------------------
# The storage worker killed while a commit waits after its store: the crash
# takes the writer too.  After recovery the commit's versions and the
# pre-images it kept are found again in LevelDB: nothing of it shows, and
# the worker puts back what it replaced.
{
	my $label = 'the storage worker killed after the store';
	$node->safe_psql('postgres', both(q{
INSERT INTO c VALUES ('r2', 'f', 'q', '2020-01-01 00:00+00', 'again');
}));
	same_as_native("$label: before");
	my $before = shown();
	my $offset = -s $node->logfile;
	my ($holder, $writer, $pid) = commit_held('k', 4712);

	same_as_native("$label: while it waits");
	kill 'KILL', worker_pid($node);
	$node->wait_for_log(qr/all server processes terminated; reinitializing/, $offset);
	eval { $holder->quit; };
	eval { $writer->quit; };
	$node->poll_query_until('postgres', 'SELECT true')
	  or die "the server did not come back";
	same_as_native("$label: after recovery");
	is(shown(), $before, "$label: after recovery, the versions as they were");
	wait_reclaimed($label, $offset);
	same_as_native("$label: reclaimed");
	is(shown(), $before, "$label: reclaimed, the versions as they were");
}

# ---------------------------------------------------------------------
# Garbage collection by what every snapshot sees: a maxversions=1 family
# read under a snapshot from before a commit that wrote a newer version at
# its own timestamp returns the version that snapshot saw, compact or not.
{
	my $label = 'maxversions=1 under an old snapshot';
	$node->safe_psql('postgres', q{
SELECT widecolumn.create_family('wc', 'one', 'f', 'maxversions=1');
CREATE FOREIGN TABLE c1 (rowkey text COLLATE "C", family text COLLATE "C",
  qualifier text COLLATE "C", ts timestamptz, value text)
  SERVER wc OPTIONS (table 'one', layout 'cells');
INSERT INTO c1 VALUES ('r', 'f', 'q', '2020-01-01 00:00+00', 'first');
});
	my $old = $node->background_psql('postgres');
	$old->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM n;');
	$node->safe_psql('postgres', q{
INSERT INTO c1 VALUES ('r', 'f', 'q', '2020-06-01 00:00+00', 'second');
});
	is($node->safe_psql('postgres', q{SELECT string_agg(value, ',') FROM c1}), 'second',
		"$label: a new reader sees the newer version alone");
	$node->safe_psql('postgres', q{SELECT widecolumn.compact('wc')});
	is($old->query_safe(q{SELECT string_agg(value, ',') FROM c1}), 'first',
		"$label: the old snapshot reads the version it saw, after compact too");
	$old->query_safe('COMMIT');
	$old->quit;
	$node->safe_psql('postgres', q{SELECT widecolumn.compact('wc')});
	is($node->safe_psql('postgres', q{SELECT string_agg(value, ',') FROM c1}), 'second',
		"$label: once the snapshot is gone, compact keeps the newer one");
}

$node->restart;
same_as_native('after a clean restart');
$node->safe_psql('postgres', q{SELECT widecolumn.compact('wc')});
same_as_native('after another compact');

done_testing();
