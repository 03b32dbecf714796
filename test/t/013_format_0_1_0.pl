
# A LevelDB database written by 0.1.0 (test/fixtures/format-0.1.0, see its
# README) opens and reads the same under this version: every row, newest
# versions, deleted cells and rows, row keys made of parts, compared with
# native tables that ran the same statements; and it takes new writes and
# column families.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $fixture = "$FindBin::RealBin/../fixtures/format-0.1.0";
my $node = wc_node('wc_format_0_1_0');
my $dir = $node->basedir . '/db';

wc_fixture_copy($fixture, $dir);

sub slurp_sql { my ($f) = @_; return slurp_file("$fixture/$f"); }

$node->safe_psql('postgres', q{CREATE DATABASE foreign_side; CREATE DATABASE native_side;});
$node->safe_psql('foreign_side',
	"CREATE EXTENSION widecolumn_fdw;\n"
	  . "CREATE SERVER fx FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$dir');\n"
	  . slurp_sql('foreign.sql'));
$node->safe_psql('native_side', slurp_sql('native.sql'));
# each statement of data.sql a transaction of its own, as when it was written
wc_run_statements($node, 'native_side', slurp_sql('data.sql'));

my %query = (
	weather => 'SELECT * FROM weather ORDER BY rowkey',
	devices => 'SELECT * FROM devices ORDER BY device_type, device_id, day',
	weather_desc => 'SELECT rowkey, note FROM weather ORDER BY rowkey DESC',
	weather_prefix => q{SELECT rowkey, pressure FROM weather WHERE rowkey LIKE 'us-west2#%' ORDER BY rowkey},
	devices_prefix => q{SELECT day, bytes_used FROM devices WHERE device_type = 'phone' AND device_id = '4c410523' ORDER BY day},
	weather_point => q{SELECT * FROM weather WHERE rowkey = 'eu-west1#0001#2021-03-05-1200'},
	deleted_point => q{SELECT count(*) FROM weather WHERE rowkey = 'us-east1#1234#2021-03-05-1200'});
for my $name (sort keys %query)
{
	my $native = $node->safe_psql('native_side', $query{$name});
	isnt($native, '', "$name: the native oracle has rows") unless $name eq 'deleted_point';
	is($node->safe_psql('foreign_side', $query{$name}), $native,
		"$name: the 0.1.0 database reads as the native tables");
}

# it takes new writes, which create the families they write to, and
# policies, as a new one does
$node->safe_psql('foreign_side', q{
INSERT INTO weather VALUES ('us-west2#3698#2021-03-05-1203', 93900, 9.9, 'new');
UPDATE weather SET note = 'again' WHERE rowkey = 'us-west2#3698#2021-03-05-1201';
SELECT widecolumn.set_gc_policy('fx', 'weather', 'measurements', 'maxversions=3');
});
$node->safe_psql('native_side', q{
INSERT INTO weather VALUES ('us-west2#3698#2021-03-05-1203', 93900, 9.9, 'new');
UPDATE weather SET note = 'again' WHERE rowkey = 'us-west2#3698#2021-03-05-1201';
});
$node->restart;
is($node->safe_psql('foreign_side', $query{weather}),
	$node->safe_psql('native_side', $query{weather}),
	'after new writes and a restart it still reads as the native table');
is($node->safe_psql('foreign_side', q{SELECT table_name || ' ' || family || ' ' || gc_policy FROM widecolumn.families('fx')}),
	"weather measurements maxversions=3\nweather meta maxversions=1",
	'the families its new writes created are kept, with the policy set on one');

done_testing();
