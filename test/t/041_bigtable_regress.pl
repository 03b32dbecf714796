# The engines side by side on the regression suites: each of the suites
# below (sql/*.sql, pg_regress's) runs twice in databases of its own, once
# as it is, on a LevelDB server, and once with its servers Bigtable ones on
# the emulator (an instance per server); the two outputs must be the same
# but for the EXPLAIN lines each engine has of its own reads, and but for
# the differences the README documents ("Bigtable servers"), each listed in
# %differs below as the LevelDB output's text and the Bigtable output's in
# its place.  Each listed difference must be found, as many times as it
# says: one that goes away fails the test until it is taken off the list.
#
# The other suites differ more widely, where the README says a Bigtable
# server does, and are not compared here: storefilter (cells of the wrong
# width, which Bigtable's value ranges compare as bytes, and floats, which
# get no condition), asof (a column set to NULL is DeleteFromColumn of
# every version, so as_of before it reads no older version), aggregates
# (Google's emulator replaces min and max cells; compact() does not
# apply), transactions (PREPARE TRANSACTION is refused), rowkey_format (a
# plan shaped by the planner's sizes, which come from SampleRowKeys: a Sort
# where LevelDB's exact count gives an Incremental Sort), and the suites of
# LevelDB's own counts and files (gc, droprange, sizes, seeds_dynamodb,
# seeds_tenants: compact(), approximate sizes, entries read).

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

# The differences the README documents, by suite: [LevelDB's text (a
# string, or a pattern), Bigtable's, how many times].
my %differs = (
	cells => [
		# a deletion deletes the cells there are then and leaves no
		# tombstone to hide a version the same COMMIT writes after it at an
		# older time: so after the COMMIT, and before it, with the
		# transaction's own writes
		[ "value\nafter the delete\n", "value\nafter the delete\nbefore the delete\n", 2 ] ],
	maps => [
		# entries() counts the LevelDB entries a read passes over
		[ qr/^written\n\d+$/m, "written\n0", 7 ],
		# a cell deleted (the map's key removed, the map set to NULL) is
		# DeleteFromColumn of every version: as_of before it reads none
		[ "SELECT follows FROM users WHERE rowkey = 'hist';\nfollows\n{\"a\": \"1\", \"b\": \"1\"}",
		  "SELECT follows FROM users WHERE rowkey = 'hist';\nfollows\n{}", 1 ],
		[ "SELECT follows FROM users WHERE rowkey = 'hist';\nfollows\n{\"b\": \"2\", \"c\": \"2\"}",
		  "SELECT follows FROM users WHERE rowkey = 'hist';\nfollows\n{}", 1 ] ],
);

# The LevelDB output with a suite's documented differences made, or undef
# and what was not found.
sub with_differences
{
	my ($suite, $out) = @_;
	foreach my $d (@{ $differs{$suite} // [] })
	{
		my ($from, $to, $times) = @$d;
		my $pat = ref $from ? $from : qr/\Q$from\E/;
		my $found = () = $out =~ /$pat/g;
		return (undef, "$suite: the difference /$pat/ is there $found times, not $times")
		  if $found != $times;
		$out =~ s/$pat/$to/g;
	}
	return ($out, '');
}

my @suites = $ENV{WC_TEST_SUITES} ? split(" ", $ENV{WC_TEST_SUITES}) : @ARGV ? @ARGV : qw(dml types pushdown versions families maps cells seeds rowkey_parts errors
  commandids differential keyjoins ddl privileges);
wc_with_google('reversed reads', 'the regression suites side by side', sub {
foreach my $suite (@suites)
{
	open my $fh, '<', "$top/sql/$suite.sql" or die "sql/$suite.sql: $!";
	my $sql = do { local $/; <$fh> };
	close $fh;
	$node->safe_psql('postgres', "CREATE DATABASE lv_$suite; CREATE DATABASE bt_$suite");
	# the echo of the servers' statements, as the Bigtable run has them
	my ($lv, $missing) = with_differences($suite, on_bigtable(run_suite("lv_$suite", $sql), "regress-$suite"));
	my $bt = run_suite("bt_$suite", on_bigtable($sql, "regress-$suite"));
	if (!defined $lv)
	{
		fail("$suite: the same output on both engines");
		diag($missing);
		next;
	}
	my $same = $lv eq $bt;
	ok($same, "$suite: the same output on both engines" . (exists $differs{$suite} ? ", but for the documented differences" : ''));
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
