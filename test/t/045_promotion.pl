# The storage worker's start settles the commits of every database the
# cluster created (worker/leveldb/databases.c), but not while recovery
# runs: a standby's commit log is behind its primary's.  A worker started
# on a hot standby must run that pass once the standby is promoted, so that
# a writer the primary lost in a crash, between its store and its commit
# record, is rolled back in a database no session opened (a use in
# recovery of a database with commits to redo from WAL is an error).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;
use Time::HiRes qw(usleep);

my $primary = PostgreSQL::Test::Cluster->new('wc_primary');
$primary->init(allows_streaming => 1);
# (its commits never synced in LevelDB: the crash leaves them to redo)
$primary->append_conf('postgresql.conf',
	"shared_preload_libraries = 'widecolumn_fdw'\nwidecolumn_fdw.debug_defer_logged_syncs = on\n");
$primary->start;
my $dir = PostgreSQL::Test::Utils::tempdir . '/db';
$primary->safe_psql('postgres', qq{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER s FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$dir');
CREATE FOREIGN TABLE f (k text OPTIONS (rowkey 'true') COLLATE "C", v bigint) SERVER s;
CREATE TABLE n (k text COLLATE "C" PRIMARY KEY, v bigint);
BEGIN; INSERT INTO f VALUES ('committed', 1); INSERT INTO n VALUES ('committed', 1); COMMIT;
});

$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('wc_standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;
$primary->wait_for_catchup($standby);

# A writer held after its store, then the primary lost: its rows are in
# LevelDB, its commit record nowhere.
my ($holder, $writer, $pid) = wc_commit_held($primary,
	q{INSERT INTO f VALUES ('lost', 2); INSERT INTO n VALUES ('lost', 2);}, 45);
my $xid = $primary->safe_psql('postgres', "SELECT backend_xid FROM pg_stat_activity WHERE pid = $pid");
$primary->stop('immediate');
$holder->{run}->kill_kill;
$writer->{run}->kill_kill;

# Before the promotion, the database has commits to redo from WAL that
# the standby may not have yet: its use is an error, and opens nothing.
my ($ret, $out, $err) = $standby->psql('postgres', 'SELECT count(*) FROM f');
like($err, qr/LevelDB database "\Q$dir\E" has commits to redo from WAL/,
	'in recovery, a database with commits to redo is not opened');
$standby->adjust_conf('postgresql.conf', 'widecolumn_fdw.debug_defer_logged_syncs', 'off');
$standby->reload;

my $offset = -s $standby->logfile;
$standby->promote;
my $found = 0;
for (1 .. 300)
{
	if (slurp_file($standby->logfile, $offset) =~
		/widecolumn_fdw removed 1 entries written by aborted transaction $xid in LevelDB database "\Q$dir\E"/)
	{
		$found = 1;
		last;
	}
	usleep(100_000);
}
ok($found, "once promoted, the standby's worker rolls back the writer $xid the primary lost, in a database no session opened");
is($standby->safe_psql('postgres', q{
SELECT count(*) FROM ((TABLE f EXCEPT ALL TABLE n) UNION ALL (TABLE n EXCEPT ALL TABLE f)) d}),
	'0', 'the promoted standby reads the foreign table as its native twin');
is($standby->safe_psql('postgres', 'SELECT string_agg(k, \' \' ORDER BY k) FROM f'), 'committed',
	'only the committed row is there');

$standby->stop;
done_testing();
