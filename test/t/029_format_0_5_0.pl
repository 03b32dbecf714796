# LevelDB databases written by 0.5.0, 0.9.0 and 0.10.0
# (test/fixtures/format-*, see their READMEs: the same history) open and
# read the same under this version: every table as the native tables that
# ran that history, and the families, versions and imported column types as
# 0.5.0 (and, the same, 0.9.0 and 0.10.0) read them; and they take new
# writes, merges and family changes, and read the same after a restart
# (0.10.0's without the settings file it never wrote).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

# the history's scripts and what 0.5.0 read
my $fixture = "$FindBin::RealBin/../fixtures/format-0.5.0";

sub fixture_file { my ($f) = @_; return slurp_file("$fixture/$f"); }

foreach my $written_by ('0.5.0', '0.9.0', '0.10.0')
{
	(my $tag = $written_by) =~ tr/./_/;
	my $node = wc_node("wc_format_$tag");
	my $dir = $node->basedir . '/db';

	wc_fixture_copy("$FindBin::RealBin/../fixtures/format-$written_by", $dir);
	# The records naming each commit's writer (0.9.0 and later) name xids of
	# the cluster that wrote the fixture, all committed there, the highest
	# below 762 (the READMEs).  Commit as many here, so that they read as
	# they did there, not as transactions still to come.
	$node->safe_psql('postgres', q{
	DO $$ BEGIN
	  WHILE txid_current() < 762 LOOP COMMIT; END LOOP;
	END $$;});

	$node->safe_psql('postgres', q{CREATE DATABASE foreign_side; CREATE DATABASE native_side;});
	$node->safe_psql('foreign_side',
		"CREATE EXTENSION widecolumn_fdw;\n"
		  . "CREATE SERVER fx FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$dir');\n"
		  . fixture_file('foreign.sql'));
	$node->safe_psql('native_side', fixture_file('native.sql'));
	# each statement a transaction of its own, as when it was written
	wc_run_statements($node, 'native_side', fixture_file('native_data.sql'));

	my %query = (
		weather => 'SELECT * FROM weather ORDER BY rowkey',
		weather_prefix => q{SELECT rowkey, pressure, tags FROM weather WHERE rowkey LIKE 'us-west2#%' ORDER BY rowkey},
		weather_point => q{SELECT * FROM weather WHERE rowkey = 'us-west2#3698#2021-03-05-1202'},
		dropped_range => q{SELECT count(*) FROM weather WHERE rowkey LIKE 'asia-south1#%'},
		deleted_row => q{SELECT count(*) FROM weather WHERE rowkey = 'us-east1#1234#2021-03-05-1200'},
		map_keys => q{SELECT rowkey, k FROM weather, jsonb_object_keys(tags) k ORDER BY 1, 2},
		readings => 'SELECT * FROM readings ORDER BY rowkey, family, qualifier, ts DESC',
		readings_range => q{SELECT ts, value FROM readings WHERE rowkey = 'asia-south2#3698#week1' AND qualifier = 'pressure' AND ts >= '2021-03-05 12:01+00' ORDER BY ts DESC},
		video => 'SELECT * FROM video ORDER BY rowkey',
		devices => 'SELECT * FROM devices ORDER BY device_type, device_id, day',
		devices_prefix => q{SELECT day, bytes_used FROM devices WHERE device_type = 'phone' AND device_id = '4c410523' ORDER BY day});
	for my $name (sort keys %query)
	{
		my $native = $node->safe_psql('native_side', $query{$name});
		isnt($native, '', "$name: the native oracle has rows");
		is($node->safe_psql('foreign_side', $query{$name}), $native,
			"$name: the $written_by database reads as the native tables");
	}

	# what 0.5.0 read from its own (and 0.9.0 from its)
	chomp(my $families = fixture_file('families.txt'));
	is($node->safe_psql('foreign_side',
			q{SELECT table_name, family, gc_policy FROM widecolumn.families('fx') ORDER BY 1, 2}),
		$families, "$written_by: the family lists read as 0.5.0 read them");
	chomp(my $versions = fixture_file('versions.txt'));
	$node->safe_psql('foreign_side', q{
	CREATE FOREIGN TABLE weather_cells (rowkey text COLLATE "C", family text COLLATE "C",
	    qualifier text COLLATE "C", ts timestamptz, value bytea)
	  SERVER fx OPTIONS (table 'weather', layout 'cells');
	});
	is($node->safe_psql('foreign_side',
			'SELECT rowkey, family, qualifier, value FROM weather_cells ORDER BY rowkey, family, qualifier, ts DESC'),
		$versions, "$written_by: every version, the kept ones only, reads as 0.5.0 read them");
	chomp(my $imported = fixture_file('imported.txt'));
	$node->safe_psql('foreign_side',
		'CREATE SCHEMA imported; IMPORT FOREIGN SCHEMA anything FROM SERVER fx INTO imported');
	is($node->safe_psql('foreign_side',
			q{SELECT table_name, column_name, data_type FROM information_schema.columns
			  WHERE table_schema = 'imported' ORDER BY table_name, ordinal_position}),
		$imported, "$written_by: IMPORT FOREIGN SCHEMA declares the column types recorded");
	is($node->safe_psql('foreign_side', 'SELECT * FROM imported.video ORDER BY rowkey'),
		$node->safe_psql('foreign_side', 'SELECT rowkey, title, likes, views, jsonb_build_object(\'title\', title) FROM video ORDER BY rowkey'),
		"$written_by: the imported table reads the same cells");

	# it takes new writes: a version past the kept three, a merge into a
	# counter 0.5.0 merged into, a map key, a family changed and one created
	$node->safe_psql('foreign_side', q{
	UPDATE weather SET pressure = 94564 WHERE rowkey = 'us-west2#3698#2021-03-05-1200';
	INSERT INTO video (rowkey, views) VALUES ('v1', 100);
	UPDATE weather SET tags = tags || '{"site": "ridge"}' WHERE rowkey = 'us-west2#3698#2021-03-05-1202';
	SELECT widecolumn.set_gc_policy('fx', 'weather', 'measurements', 'maxversions=2');
	INSERT INTO devices VALUES ('watch', 'ff01', '2020-05-03', 64);
	});
	$node->safe_psql('native_side', q{
	UPDATE weather SET pressure = 94564 WHERE rowkey = 'us-west2#3698#2021-03-05-1200';
	UPDATE video SET views = views + 100 WHERE rowkey = 'v1';
	UPDATE weather SET tags = tags || '{"site": "ridge"}' WHERE rowkey = 'us-west2#3698#2021-03-05-1202';
	INSERT INTO devices VALUES ('watch', 'ff01', '2020-05-03', 64);
	});
	$node->stop;
	# A database 0.10.0 wrote and registered has no settings file when this
	# version's worker first starts: its start's pass opens it without one.
	ok(-f "$dir/widecolumn-settings", "$written_by: this version keeps the database's settings beside it");
	unlink "$dir/widecolumn-settings" if $written_by eq '0.10.0';
	$node->start;
	for my $name (qw(weather video devices map_keys))
	{
		is($node->safe_psql('foreign_side', $query{$name}),
			$node->safe_psql('native_side', $query{$name}),
			"$written_by, $name: after new writes and a restart it still reads as the native table");
	}
	is($node->safe_psql('foreign_side', q{SELECT value FROM weather_cells
		WHERE rowkey = 'us-west2#3698#2021-03-05-1200' AND qualifier = 'pressure' ORDER BY ts DESC}),
		"\\x0000000000017164\n\\x0000000000017163",
		"$written_by: maxversions=2, set under this version, keeps the newest two of the pressures $written_by and this version wrote");
	$node->stop;
}

done_testing();
