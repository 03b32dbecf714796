
# Commits that list their families while the family lists change.
#
# At COMMIT a transaction share-locks its tables' family lists (families.c,
# wc_families_written), so that no family it writes to is dropped before it
# has ended, and trusts the list it read unless a change to any list (or a
# record of column types, coltypes.c) committed meanwhile.  Until 0.6.0 a
# change committed between its read and its lock made it ask for the
# exclusive lock while it held the share lock, and two sessions doing that
# at once deadlocked (40P01): 715 of 258,000 INSERTs in eight seconds of
# six clients beside one creating families, and in test/t/002 under TSan,
# where sessions committing their first writes record their columns' types.
#
# Six pgbench clients insert rows into one table while a seventh changes
# the policy of a family of another table of the same server, over and
# over: no transaction may fail.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $node = wc_node('wc_family_race');
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'false');
CREATE FOREIGN TABLE t (rowkey text OPTIONS (rowkey 'true') COLLATE "C",
	v int OPTIONS (column 'f:v')) SERVER wc;
INSERT INTO t VALUES ('first', 0);
SELECT widecolumn.create_family('wc', 'other', 'g', 'never');
});

my $dir = PostgreSQL::Test::Utils::tempdir;
my $ins = "$dir/insert.sql";
my $fam = "$dir/family.sql";
PostgreSQL::Test::Utils::append_to_file($ins,
	"\\set k random(1, 9000000000000000000)\nINSERT INTO t VALUES ('k' || :k, :k % 1000000);\n");
# a change of a family list in every transaction
PostgreSQL::Test::Utils::append_to_file($fam,
	"\\set k random(1, 1000)\nSELECT widecolumn.set_gc_policy('wc', 'other', 'g', 'maxversions=' || :k);\n"
);

my @connect = ('-h', $node->host, '-p', $node->port, 'postgres');
my ($fam_out, $fam_err) = ('', '');
my $families = IPC::Run::start([ 'pgbench', '-n', '-f', $fam, '-T', '5', @connect ],
	'>', \$fam_out, '2>', \$fam_err);
my ($ins_out, $ins_err) = ('', '');
IPC::Run::run([ 'pgbench', '-n', '-f', $ins, '-T', '4', '-c', '6', '-j', '2', @connect ],
	'>', \$ins_out, '2>', \$ins_err);
$families->finish;

my ($made) = $fam_out =~ /actually processed: (\d+)/;
ok(defined $made && $made > 100,
	'while the INSERTs ran, a family list changed (' . ($made // 'never') . ' times)');
my ($done) = $ins_out =~ /actually processed: (\d+)/;
ok(defined $done && $done > 0, 'the INSERTs ran (' . ($done // 'none') . ')');
like($ins_out, qr/number of failed transactions: 0 \(/, 'no INSERT failed')
  or diag($ins_err =~ /(ERROR:[^\n]*)/ ? $1 : $ins_err);
ok(!$node->log_contains(qr/deadlock detected/), 'no deadlock in the server log');
is($node->safe_psql('postgres', 'SELECT count(*) - 1 FROM t'), $done,
	'every committed INSERT left its row');

$node->stop;
done_testing();
