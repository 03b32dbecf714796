
# A database copied with CREATE DATABASE ... TEMPLATE copies its foreign
# servers with their OIDs, but not their stored data (it is not part of the
# database).  The copy's servers must get directories of their own: writes
# through the copy must not reach the original's data, nor the other way
# round (docs/format.md, "Where the data lives").

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $node = wc_node('wc_database_copy');

$node->safe_psql(
	'postgres', q{
CREATE DATABASE orig;
});
$node->safe_psql(
	'orig', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE t (k text OPTIONS (rowkey 'true'), v int) SERVER wc;
INSERT INTO t VALUES ('orig', 1);
});
$node->safe_psql('postgres', 'CREATE DATABASE copy TEMPLATE orig');

is($node->safe_psql('copy', 'SELECT count(*) FROM t'), '0',
	'the copy\'s server starts empty: the stored data is not part of the database');
$node->safe_psql('copy', q{INSERT INTO t VALUES ('from copy', 2); DELETE FROM t WHERE k = 'orig'});
is($node->safe_psql('orig', q{SELECT string_agg(k, ',' ORDER BY k) FROM t}), 'orig',
	'writes through the copy do not reach the original\'s data');
$node->safe_psql('orig', q{INSERT INTO t VALUES ('orig 2', 3)});
is($node->safe_psql('copy', q{SELECT string_agg(k, ',' ORDER BY k) FROM t}), 'from copy',
	'nor the other way round');

$node->stop;
done_testing();
