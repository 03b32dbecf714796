# The engines side by side on the regression suites: each of the suites
# below (sql/*.sql, pg_regress's) runs twice in databases of its own, once
# as it is, on a LevelDB server, and once with its servers Bigtable ones on
# the emulator (an instance per server); the two outputs must be the same
# but for the EXPLAIN lines each engine has of its own reads.
#
# The other suites differ where the README documents a Bigtable server's
# difference ("Bigtable servers"), and are not compared here: cells (a
# transaction's own writes to the cells layout are not read back yet),
# maps and storefilter (they count LevelDB's entries in stat_tables, and
# storefilter holds cells of the wrong width, which Bigtable's value
# ranges compare as bytes, and floats, which get no condition), asof (a
# column set to NULL is DeleteFromColumn of every version, so as_of
# before it reads no older version), aggregates (Google's emulator
# replaces min and max cells; compact() does not apply), transactions
# (PREPARE TRANSACTION is refused), rowkey_format (a plan shaped by the
# planner's sizes, which come from SampleRowKeys: a Sort where LevelDB's
# exact count gives an Incremental Sort).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use File::Temp ();
use lib $FindBin::RealBin;
use WcTest;

my ($endpoint, $CBT) = wc_bt_test_start();
my $top = "$FindBin::RealBin/../..";

my $node = wc_node('btr', "widecolumn_fdw.worker_threads = 2\nmax_prepared_transactions = 10\n");

# The lines each engine's EXPLAIN ANALYZE has of its own (README: "EXPLAIN
# shows the request").
my $engine_lines = qr/^\s*(?:Storage Rows Read|Storage Entries Read|Rows Removed by Storage Filter|Bigtable Request|Bigtable Requests|Rows Received|Cells Received):/;

# A suite's output as psql -a gives it (as pg_regress runs it), on $db.
sub run_suite
{
	my ($db, $sql) = @_;
	my $in = File::Temp->new;
	print $in $sql;
	close $in;
	my $out = `psql -X -a -q -A -v HIDE_TABLEAM=on -d "@{[ $node->connstr($db) ]}" -f $in 2>&1`;
	$out =~ s/^psql:[^:]*:\d+: //mg;
	# unaligned, and without the row counts, which the lines left out change
	return join("\n", grep { $_ !~ $engine_lines && $_ !~ /^\(\d+ rows?\)$/ } split /\n/, $out) . "\n";
}

# The suite with its servers Bigtable ones, of instance $instance.
sub on_bigtable
{
	my ($sql, $instance) = @_;
	# an instance per server, as each LevelDB server has a database of its own
	$sql =~ s/CREATE SERVER (\w+) FOREIGN DATA WRAPPER widecolumn_fdw(?: OPTIONS \([^)]*\))?;/CREATE SERVER $1 FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (engine 'bigtable', project 'p', instance '$instance-$1', endpoint '$endpoint', credentials 'insecure');/g;
	return $sql;
}

my @suites = @ARGV ? @ARGV : qw(dml types pushdown versions families seeds rowkey_parts errors);
wc_with_google('reversed reads', 'the regression suites side by side', sub {
foreach my $suite (@suites)
{
	open my $fh, '<', "$top/sql/$suite.sql" or die "sql/$suite.sql: $!";
	my $sql = do { local $/; <$fh> };
	close $fh;
	$node->safe_psql('postgres', "CREATE DATABASE lv_$suite; CREATE DATABASE bt_$suite");
	# the echo of the servers' statements, as the Bigtable run has them
	my $lv = on_bigtable(run_suite("lv_$suite", $sql), "regress-$suite");
	my $bt = run_suite("bt_$suite", on_bigtable($sql, "regress-$suite"));
	my $same = $lv eq $bt;
	ok($same, "$suite: the same output on both engines");
	next if $same;
	my ($a, $b) = (File::Temp->new, File::Temp->new);
	print $a $lv;
	print $b $bt;
	close $a;
	close $b;
	diag(scalar `diff -u $a $b | head -200`);
}
}, scalar(@suites));

$node->stop;
done_testing();
