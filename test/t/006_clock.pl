# The commit clock across restarts when the system clock steps back.
#
# Reads return a cell's newest version by timestamp, so a commit must be
# stamped later than every commit before it, even after a restart with the
# system clock set back.  The worker stores a bound ahead of the timestamps
# it gives out (src/worker/leveldb/rowcommit.c, docs/format.md) and starts from it when it
# opens the database.  The hidden setting widecolumn_fdw.debug_clock_step_back
# sets the worker's clock back by that many seconds.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $node = wc_node('wc_clock');

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE kv (k text OPTIONS (rowkey 'true'), v text) SERVER wc;
INSERT INTO kv VALUES ('a', 'before the step'), ('b', 'kept');
});

# An hour back, then a day back: each time the worker starts again and the
# next commits must still win over everything before them.
my $n = 0;
foreach my $back (3600, 86400)
{
	$node->safe_psql('postgres',
		"ALTER SYSTEM SET widecolumn_fdw.debug_clock_step_back = $back");
	$node->restart;
	# (the setting must survive the server start, or this tests nothing)
	is( $node->safe_psql('postgres',
			'SHOW widecolumn_fdw.debug_clock_step_back'),
		{ 3600 => '1h', 86400 => '1d' }->{$back},
		"clock $back s back: the setting is in effect");
	foreach my $i (1 .. 3)
	{
		$n++;
		$node->safe_psql('postgres', "UPDATE kv SET v = 'write $n' WHERE k = 'a'");
		is($node->safe_psql('postgres', "SELECT v FROM kv WHERE k = 'a'"),
			"write $n", "clock $back s back: commit $i after the restart wins");
	}
	$n++;
	$node->safe_psql('postgres', "DELETE FROM kv WHERE k = 'b'");
	$node->safe_psql('postgres', "INSERT INTO kv VALUES ('b', 'again $n')");
	is($node->safe_psql('postgres', "SELECT v FROM kv WHERE k = 'b'"),
		"again $n", "clock $back s back: a row deleted and written again is there");
}

# And back to the right time: the clock has not run away.
$node->safe_psql('postgres',
	'ALTER SYSTEM RESET widecolumn_fdw.debug_clock_step_back');
$node->restart;
$node->safe_psql('postgres', "UPDATE kv SET v = 'last' WHERE k = 'a'");
is($node->safe_psql('postgres', 'SELECT k, v FROM kv ORDER BY k'),
	"a|last\nb|again $n", 'with the clock right again, the newest writes win');

$node->stop;
done_testing();
