# A row with an empty row key, which Bigtable refuses and versions before
# 0.8.0 could store (test/t/put_cell.c writes one into a stopped server's
# LevelDB database, as they did): it can still be read and deleted, an
# export of its table says why it cannot write a file Bigtable would take
# and leaves no file, and once the row is deleted the export goes through.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $tool = PostgreSQL::Test::Utils::tempdir . '/put_cell';
my $src = "$FindBin::RealBin/../..";
system("cc -Wall -I$src/src -o $tool $FindBin::RealBin/put_cell.c $src/src/common/keycodec.c -lleveldb") == 0
  or BAIL_OUT('could not build test/t/put_cell.c');

my $node = wc_node('wc_empty_rowkey');
my $db = $node->basedir . '/db';
my $dir = PostgreSQL::Test::Utils::tempdir;
$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$db');
CREATE FOREIGN TABLE t (rowkey text OPTIONS (rowkey 'true') COLLATE "C", v text OPTIONS (column 'cf:v'))
  SERVER wc OPTIONS (table 't');
INSERT INTO t VALUES ('a', 'first'), ('b', 'second');
});
$node->stop;
system($tool, $db, 't', '', 'cf', 'v', '1700000000000000', 'old') == 0
  or BAIL_OUT('put_cell failed');
$node->start;

is($node->safe_psql('postgres', q{SELECT string_agg(format('%L=%s', rowkey, v), ',' ORDER BY rowkey) FROM t}),
	q{''=old,'a'=first,'b'=second}, 'the old row with an empty key reads');
my ($rc, $out, $err) = $node->psql('postgres', "SELECT widecolumn.export_avro('t', '$dir/t.avro')");
isnt($rc, 0, 'its export fails');
like($err, qr/ERROR:  stored table "t" holds a row with an empty row key\nDETAIL:  Bigtable refuses empty row keys, so its import would reject the file\./,
	'saying why');
ok(!-e "$dir/t.avro", 'and leaves no file');
(undef, undef, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\nSELECT widecolumn.export_avro('t', '$dir/t.avro')");
is(sqlstate($err), '22023', 'with SQLSTATE 22023');
is($node->safe_psql('postgres', q{DELETE FROM t WHERE rowkey = '' RETURNING v}), 'old', 'the row can be deleted');
is($node->safe_psql('postgres', "SELECT widecolumn.export_avro('t', '$dir/t.avro')"), '2',
	'then the export writes the other rows');
$node->stop;
done_testing();
