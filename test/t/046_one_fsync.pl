# A small commit is durable by WAL alone (worker/leveldb/redolog.c): its
# LevelDB batch goes into a WAL record before the session's commit record,
# LevelDB is written without sync and synced lazily, and what an
# operating-system crash took from LevelDB's log is redone from WAL when
# the database is next opened, from WAL a replication slot keeps.
#
# The operating system's loss is played by a test setting: the worker logs
# each batch and writes nothing of it, nor syncs, as if the crash were to
# take the writes from the page cache.  Then the cluster crashes.  After
# it, every committed transaction is there, against a native twin: new
# rows, updates and deletes of rows stored before, with checkpoints and WAL
# switches between the loss and the crash (the slot keeps the WAL).  And a
# crash that takes nothing redoes what is there already, with the same
# result; WAL removed by pg_resetwal is said in the log, and the database
# opens as its log has it; widecolumn_fdw.wal_commits off drops the slot,
# so that wal_level can be lowered; and wal_level minimal, where WAL cannot
# be kept, syncs each commit in LevelDB.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;
use File::Copy ();

my $node = wc_node('wc_one_fsync');
my $dir = PostgreSQL::Test::Utils::tempdir . '/db';

$node->safe_psql('postgres', qq{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER s FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$dir');
CREATE FOREIGN TABLE f (k text OPTIONS (rowkey 'true') COLLATE "C", v bigint) SERVER s;
CREATE TABLE n (k text COLLATE "C" PRIMARY KEY, v bigint);
CREATE SERVER sn FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$dir', sync 'false');
CREATE FOREIGN TABLE fn (k text OPTIONS (rowkey 'true') COLLATE "C", v bigint) SERVER sn OPTIONS (table 'f');
});
my $rows = 0;

# $count transactions, each a row in both tables.
sub pairs
{
	my ($tag, $count) = @_;
	my $sql = '';
	for my $i (1 .. $count)
	{
		$sql .= "BEGIN; INSERT INTO f VALUES ('$tag$i', $i); INSERT INTO n VALUES ('$tag$i', $i); COMMIT;\n";
	}
	$node->safe_psql('postgres', $sql);
	$rows += $count;
	return;
}

# How many commits the worker's log says it redid in the database, past $offset.
sub redone
{
	my ($offset) = @_;
	my $log = slurp_file($node->logfile, $offset);
	my $n = 0;
	$n += $1 while $log =~ /widecolumn_fdw redid (\d+) commits from WAL in LevelDB database "\Q$dir\E"/g;
	return $n;
}

pairs('a', 20);
is($node->safe_psql('postgres',
		q{SELECT slot_type || ' ' || active FROM pg_replication_slots WHERE slot_name = 'widecolumn_fdw'}),
	'physical true', 'the worker holds the physical slot widecolumn_fdw');
wc_same_as_native($node, 'f', 'n', 'before the loss', $rows);

# The loss: logged, never written.
$node->append_conf('postgresql.conf', "widecolumn_fdw.debug_lose_logged_writes = on\n");
$node->restart;
pairs('b', 10);
$node->safe_psql('postgres', q{
BEGIN; UPDATE f SET v = v + 100 WHERE k = 'a3'; UPDATE n SET v = v + 100 WHERE k = 'a3'; COMMIT;
BEGIN; DELETE FROM f WHERE k = 'a4'; DELETE FROM n WHERE k = 'a4'; COMMIT;
BEGIN; INSERT INTO f VALUES ('b11', 11); INSERT INTO n VALUES ('b11', 11); COMMIT;
});
$rows += 0;		# b11 in, a4 out
isnt($node->safe_psql('postgres', q{
SELECT count(*) FROM ((SELECT k, v FROM f EXCEPT ALL SELECT k, v FROM n)
  UNION ALL (SELECT k, v FROM n EXCEPT ALL SELECT k, v FROM f)) x}),
	'0', 'the lost commits are missing from LevelDB before the crash (the test setting works)');
# Checkpoints and WAL switches, with time for the worker to move the slot
# (five times a second): the slot keeps the WAL the redo needs.
for (1 .. 3)
{
	$node->safe_psql('postgres', 'SELECT pg_sleep(0.5); SELECT pg_switch_wal(); CHECKPOINT;');
}
$node->stop('immediate');
$node->adjust_conf('postgresql.conf', 'widecolumn_fdw.debug_lose_logged_writes', 'off');
my $offset = -s $node->logfile;
$node->start;
# the start's pass opens the database and redoes it before the worker serves
wc_same_as_native($node, 'f', 'n', 'after the crash that lost them', $rows);
is(redone($offset), 13, 'the worker redid the 13 lost commits from WAL');

# A copy of a directory with commits to redo is not the database its WAL id
# names: the original is redone, the copy is not, and says so.
$node->append_conf('postgresql.conf', "widecolumn_fdw.debug_lose_logged_writes = on\n");
$node->restart;
$node->safe_psql('postgres', q{BEGIN; INSERT INTO f VALUES ('h1', 1); INSERT INTO n VALUES ('h1', 1); COMMIT;});
$rows += 1;
$node->stop('immediate');
mkdir "$dir-copy" or die "mkdir: $!";
opendir(my $dh, $dir) or die "opendir: $!";
for my $file (grep { -f "$dir/$_" && $_ ne 'LOCK' } readdir $dh)
{
	File::Copy::copy("$dir/$file", "$dir-copy/$file") or die "copy $file: $!";
}
closedir $dh;
$node->adjust_conf('postgresql.conf', 'widecolumn_fdw.debug_lose_logged_writes', 'off');
$offset = -s $node->logfile;
$node->start;
wc_same_as_native($node, 'f', 'n', 'the original of a copy, after the crash', $rows);
$node->safe_psql('postgres', qq{
CREATE SERVER scopy FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$dir-copy');
CREATE FOREIGN TABLE fcopy (k text OPTIONS (rowkey 'true') COLLATE "C", v bigint) SERVER scopy OPTIONS (table 'f');
});
is($node->safe_psql('postgres', q{SELECT count(*) FROM fcopy WHERE k = 'h1'}), '0',
	'the copy is not redone with the original\'s batches');
is($node->safe_psql('postgres', 'SELECT count(*) FROM fcopy'), $rows - 1,
	'the copy reads as its log has it');
like(slurp_file($node->logfile, $offset),
	qr/WARNING:  LevelDB database "\Q$dir-copy\E" is a copy of another directory made with commits to redo from WAL/,
	'and the worker says the copy was made with commits to redo');
$node->safe_psql('postgres', q{INSERT INTO fcopy VALUES ('copied', 1)});
is($node->safe_psql('postgres', q{SELECT count(*) FROM f WHERE k = 'copied'}), '0',
	'the copy takes commits of its own, not the original\'s');

# A crash that takes nothing: what the redo meets is there already (the
# test setting keeps the worker from syncing them, so that all are redone),
# commits through a server with sync off on the same directory included:
# were they not logged, the redo would put an earlier commit back over one.
$node->append_conf('postgresql.conf', "widecolumn_fdw.debug_defer_logged_syncs = on\n");
$node->restart;
pairs('c', 10);
$node->safe_psql('postgres', q{
BEGIN; UPDATE f SET v = v * 2 WHERE k LIKE 'c%'; UPDATE n SET v = v * 2 WHERE k LIKE 'c%'; COMMIT;
BEGIN; DELETE FROM f WHERE k = 'c5'; DELETE FROM n WHERE k = 'c5'; COMMIT;
BEGIN; UPDATE f SET v = 1000 WHERE k = 'c1'; UPDATE n SET v = 1000 WHERE k = 'c1'; COMMIT;
BEGIN; UPDATE fn SET v = 2000 WHERE k = 'c1'; UPDATE n SET v = 2000 WHERE k = 'c1'; COMMIT;
});
$rows -= 1;		# c5 deleted
$node->stop('immediate');
$node->adjust_conf('postgresql.conf', 'widecolumn_fdw.debug_defer_logged_syncs', 'off');
$offset = -s $node->logfile;
$node->start;
wc_same_as_native($node, 'f', 'n', 'after a crash that lost nothing', $rows);
is(redone($offset), 14, 'the worker redid the 14 commits since its last sync, found there already');
is($node->safe_psql('postgres', q{SELECT v FROM f WHERE k = 'c1'}), '2000',
	'a commit through a server with sync off, on the same directory, reads as it was committed after the redo');

# A clean stop leaves nothing to redo.
pairs('d', 5);
$node->restart;
$offset = -s $node->logfile;
$node->restart;
is(redone($offset), 0, 'after a clean stop, nothing is redone');
wc_same_as_native($node, 'f', 'n', 'after clean restarts', $rows);

# The WAL gone (pg_resetwal after a crash, as for native rows): the worker
# cannot redo the lost commits, says so, and opens the database as its
# log has it; it takes commits again.
$node->append_conf('postgresql.conf', "widecolumn_fdw.debug_lose_logged_writes = on\n");
$node->restart;
$node->safe_psql('postgres', q{INSERT INTO f VALUES ('e1', 1), ('e2', 2)});
$node->stop('immediate');
$node->adjust_conf('postgresql.conf', 'widecolumn_fdw.debug_lose_logged_writes', 'off');
command_ok([ 'pg_resetwal', '-f', '-D', $node->data_dir ], 'pg_resetwal after the crash');
$offset = -s $node->logfile;
$node->start;
is($node->safe_psql('postgres', 'SELECT count(*) FROM f'), $rows,
	'with the WAL gone, the database opens as its log has it');
like(slurp_file($node->logfile, $offset),
	qr/WARNING:  could not redo the commits of LevelDB database "\Q$dir\E" logged in WAL since [0-9A-F]+\/[0-9A-F]+: requested WAL segment/,
	'and the worker says which commits it could not redo, and why');
$node->safe_psql('postgres', q{INSERT INTO f VALUES ('e3', 3)});
$node->restart;
is($node->safe_psql('postgres', q{SELECT string_agg(k, ' ') FROM f WHERE k LIKE 'e%'}), 'e3',
	'it takes commits again, and keeps them');

# widecolumn_fdw.wal_commits off: the worker syncs each database, drops the
# slot and syncs each commit in LevelDB, so that wal_level can go down to
# minimal (PostgreSQL does not start with a physical slot and minimal).
$node->append_conf('postgresql.conf', "widecolumn_fdw.wal_commits = off\n");
$node->reload;
ok($node->poll_query_until('postgres', 'SELECT count(*) = 0 FROM pg_replication_slots'),
	'with wal_commits off the worker drops its slot');
$node->safe_psql('postgres', q{INSERT INTO f VALUES ('g1', 1)});
$node->stop('immediate');
$node->append_conf('postgresql.conf', "wal_level = minimal\nmax_wal_senders = 0\n");
$node->start;
is($node->safe_psql('postgres', q{SELECT string_agg(k, ' ' ORDER BY k) FROM f WHERE k IN ('e3', 'g1')}), 'e3 g1',
	'after a crash, with wal_level lowered to minimal, every commit is there');
$node->stop;

# wal_level minimal: no slot, each commit synced in LevelDB as before.
my $minimal = PostgreSQL::Test::Cluster->new('wc_one_fsync_minimal');
$minimal->init;
$minimal->append_conf('postgresql.conf', "shared_preload_libraries = 'widecolumn_fdw'\n");
$minimal->start;
my $mdir = PostgreSQL::Test::Utils::tempdir . '/mdb';
$minimal->safe_psql('postgres', qq{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER s FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$mdir');
CREATE FOREIGN TABLE f (k text OPTIONS (rowkey 'true') COLLATE "C", v bigint) SERVER s;
CREATE TABLE n (k text COLLATE "C" PRIMARY KEY, v bigint);
BEGIN; INSERT INTO f VALUES ('m1', 1); INSERT INTO n VALUES ('m1', 1); COMMIT;
});
like(slurp_file($minimal->logfile), qr/widecolumn_fdw syncs each commit in LevelDB: WAL cannot be kept for it/,
	'with wal_level minimal the worker says it syncs each commit');
is($minimal->safe_psql('postgres', q{SELECT count(*) FROM pg_replication_slots}), '0',
	'and takes no slot');
$minimal->stop('immediate');
$minimal->start;
wc_same_as_native($minimal, 'f', 'n', 'wal_level minimal, after a crash', 1);
$minimal->stop;

done_testing();
