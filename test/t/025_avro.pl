
# Avro files of Bigtable's schema against an independent implementation,
# Apache Avro's Python library (Debian's python3-avro, test/t/avro_tool.py):
# what widecolumn.export_avro writes, Python reads back as the table's
# versions (schema, rows, keys, families, qualifiers, timestamps, values);
# what Python writes with the Dataflow template's schema,
# widecolumn.import_avro reads in full; and a file Python writes with a bad
# row is refused with an error naming that row, and one whose deflate data
# is damaged, or whose snappy block's checksum does not match, with an error
# naming the block, with nothing written.  Every codec is read and written
# by Python too (its snappy codec is python3-snappy's).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $PY = '/usr/bin/python3';
my $TOOL = "$FindBin::RealBin/avro_tool.py";
plan skip_all => 'python3-avro or python3-snappy is not installed'
  unless system("$PY -c 'import avro.datafile, snappy' 2>/dev/null") == 0;

my $node = wc_node('wc_avro');
my $dir = PostgreSQL::Test::Utils::tempdir;

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
SELECT widecolumn.create_family('wc', 'src', 'a', 'never');
SELECT widecolumn.create_family('wc', 'src', 'b', 'maxversions=2');
SELECT widecolumn.create_family('wc', 'src', 'c.x-y_z', 'maxage=3650d or maxversions=3');
CREATE FOREIGN TABLE src (rowkey bytea, family text COLLATE "C", qualifier bytea,
	ts timestamptz, value bytea) SERVER wc OPTIONS (table 'src', layout 'cells');
CREATE FOREIGN TABLE src_rows (rowkey bytea, v text OPTIONS (column 'a:v'))
	SERVER wc OPTIONS (table 'src');
INSERT INTO src
	SELECT convert_to('k' || lpad(r::text, 4, '0'), 'UTF8'), fam, q,
	       timestamptz '2021-03-05 12:00+00' + v * interval '1.000001 minute',
	       convert_to(format('%s/%s/%s', r, fam, v), 'UTF8') || '\x00ff'::bytea
	FROM generate_series(1, 500) r, unnest(ARRAY['a', 'b', 'c.x-y_z']) fam,
	     unnest(ARRAY['\x00'::bytea, '\x'::bytea, 'q'::bytea, '\xff01'::bytea]) q,
	     generate_series(1, 3) v;
INSERT INTO src VALUES ('\x00ff', 'a', 'q', '1970-01-01 00:00:00+00', '\x'),
	('k0007', 'a', 'big', '2022-01-01 00:00+00', convert_to(repeat('x', 300000), 'UTF8'));
-- a row tombstone, and a version at the commit's time after it
DELETE FROM src_rows WHERE rowkey = 'k0003';
INSERT INTO src_rows VALUES ('k0003', 'later');
});

# The versions of a table as avro_tool.py prints them, in the order of the
# export (row key, family, qualifier, newest first).  With $ms, timestamps
# are rounded down to whole milliseconds, as an export writes them for
# Bigtable (the commit-stamped version is in microseconds in the table).
sub versions
{
	my ($table, $where, $ms) = @_;
	$where //= 'true';
	my $unit = $ms ? 1000 : 1;
	return $node->safe_psql('postgres', qq{
SELECT format('%s|%s|%s|%s|%s', encode(rowkey, 'hex'), family, encode(qualifier, 'hex'),
	          (floor(extract(epoch FROM ts) * 1000000 / $unit) * $unit)::bigint, encode(value, 'hex'))
	FROM $table WHERE $where ORDER BY rowkey, family, qualifier, ts DESC});
}

sub python
{
	my @args = @_;
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([ $PY, $TOOL, @args ], '>', \$out, '2>', \$err);
	ok($ok, "avro_tool.py @args") or diag($err);
	chomp($out);
	return $out;
}

my $oracle = versions('src', undef, 1);
my $nrows = $node->safe_psql('postgres', 'SELECT count(DISTINCT rowkey) FROM src');
is($nrows, 501, 'rows of the source');

# Export: Python reads every version back, with the template's schema
foreach my $codec ('null', 'deflate', 'snappy')
{
	my $file = "$dir/src_$codec.avro";
	is( $node->safe_psql('postgres',
			"SELECT widecolumn.export_avro('src', '$file', NULL, '$codec')"),
		$nrows, "export with codec $codec returns the rows");
	my @out = split /\n/, python('dump', $file);
	is( shift @out,
		'schema com.google.cloud.teleport.bigtable.BigtableRow key:bytes,cells:array '
		  . 'family:string,qualifier:bytes,timestamp:long,value:bytes',
		"$codec: the schema as Python reads it");
	is(pop @out, "rows $nrows", "$codec: Python reads every row");
	is(join("\n", @out), $oracle, "$codec: every version, cell by cell, as the table has it");
}

# A prefix: only its rows
{
	my $file = "$dir/prefix.avro";
	$node->safe_psql('postgres',
		"SELECT widecolumn.export_avro('src', path => '$file', prefix => 'k001')");
	my @out = split /\n/, python('dump', $file);
	shift @out;
	is(pop @out, 'rows 10', 'prefix: its rows only');
	is(join("\n", @out), versions('src', q{rowkey LIKE 'k001%'}, 1), 'prefix: their versions');
}

# Import of what Python wrote with the template's schema: every version
$node->safe_psql(
	'postgres', q{
CREATE FOREIGN TABLE py (rowkey bytea, family text COLLATE "C", qualifier bytea,
	ts timestamptz, value bytea) SERVER wc OPTIONS (table 'py', layout 'cells');
SELECT widecolumn.create_family('wc', 'py', f, 'never') FROM unnest(ARRAY['alpha', 'zeta']) f;
});
foreach my $codec ('null', 'deflate', 'snappy')
{
	my $file = "$dir/py_$codec.avro";
	my $written = python('write', $file, $codec);
	$node->safe_psql('postgres', 'DELETE FROM py');
	is($node->safe_psql('postgres', "SELECT widecolumn.import_avro('py', '$file')"),
		301, "Python's $codec file: its rows imported");
	is( join("\n", sort split /\n/, versions('py')),
		join("\n", sort split /\n/, $written),
		"Python's $codec file: every version, cell by cell");
}

# Progress: with the NOTICE interval at 0 (a hidden setting, for tests) the
# session running an export or an import is told how far it is, from what
# its slot of widecolumn.progress holds.
{
	my $set = 'SET widecolumn_fdw.debug_progress_notice_interval = 0;';
	my ($ret, $out, $err) = $node->psql('postgres',
		"$set SELECT widecolumn.export_avro('src', path => '$dir/progress.avro', codec => 'null')");
	is($ret, 0, 'progress: the export ran');
	like($err,
		qr/NOTICE:  widecolumn\.export_avro\(\) has been running for 0 seconds\nDETAIL:  It has written \d+ cell versions to the file\./,
		'progress: the export says how many versions it has written');
	my $size = -s "$dir/py_null.avro";
	($ret, $out, $err) = $node->psql('postgres',
		"$set BEGIN; SELECT widecolumn.import_avro('py', '$dir/py_null.avro'); ROLLBACK;");
	is($ret, 0, 'progress: the import ran');
	like($err,
		qr/NOTICE:  widecolumn\.import_avro\(\) has been running for 0 seconds\nDETAIL:  It has read $size of $size bytes of the file\./,
		'progress: the import says how much of the file it has read');
}

# Bad rows from Python: refused, the third row named, nothing written
$node->safe_psql(
	'postgres', q{
CREATE FOREIGN TABLE bad (rowkey bytea, family text, qualifier bytea, ts timestamptz,
	value bytea) SERVER wc OPTIONS (table 'bad', layout 'cells');
});
my %bad = (
	longkey => qr/row key is too long.*row 3 \(block 1 at byte \d+\)/s,
	longqualifier => qr/qualifier is too long.*row 3 \(block 1 at byte \d+\)/s,
	family => qr/invalid column family name "cf:x".*row 3 \(block 1/s,
	timestamp => qr/timestamp out of range.*row 3 \(block 1/s,
	schema => qr/does not hold Bigtable rows/,
	deflate => qr/is corrupt.*Block 1, at byte \d+, cannot be decompressed: its deflate stream is damaged/s,
	snappy => qr/is corrupt.*Block 1, at byte \d+, cannot be decompressed: its snappy checksum does not match what it holds/s);
foreach my $kind (sort keys %bad)
{
	my $file = "$dir/bad_$kind.avro";
	python('bad', $file, $kind);
	my ($ret, $out, $err) =
	  $node->psql('postgres', "SELECT widecolumn.import_avro('bad', '$file')");
	isnt($ret, 0, "bad $kind: refused");
	like($err, $bad{$kind}, "bad $kind: the error says what and where");
}
is( $node->safe_psql('postgres',
		q{SELECT count(*) FROM bad UNION ALL
		  SELECT count(*) FROM widecolumn.families('wc') WHERE table_name = 'bad'}),
	"0\n0", 'bad files: nothing written, no family made');

$node->stop;
done_testing();
