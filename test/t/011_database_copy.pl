
# Where a server's data lives.
#
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

# One directory named three ways (as is, with a trailing slash, through a
# symlink) by three servers is one database: each server sees the rows
# written through the others, and a restart loses none.  (Opened once per
# spelling, the worker took LevelDB's lock twice and the second open
# removed the first's live log: committed rows were gone after a restart.)
my $dir = $node->basedir . '/shared';
mkdir $dir or die "mkdir $dir: $!";
symlink($dir, $node->basedir . '/shared_link') or die "symlink: $!";
$node->safe_psql(
	'orig', qq{
CREATE SERVER s_plain FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$dir');
CREATE SERVER s_slash FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$dir/');
CREATE SERVER s_link FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '@{[ $node->basedir ]}/shared_link');
CREATE FOREIGN TABLE sh_plain (k text OPTIONS (rowkey 'true'), v int) SERVER s_plain OPTIONS (table 'sh');
CREATE FOREIGN TABLE sh_slash (k text OPTIONS (rowkey 'true'), v int) SERVER s_slash OPTIONS (table 'sh');
CREATE FOREIGN TABLE sh_link (k text OPTIONS (rowkey 'true'), v int) SERVER s_link OPTIONS (table 'sh');
INSERT INTO sh_plain SELECT 'p' || g, g FROM generate_series(1, 100) g;
INSERT INTO sh_slash SELECT 's' || g, g FROM generate_series(1, 100) g;
INSERT INTO sh_link SELECT 'l' || g, g FROM generate_series(1, 100) g;
INSERT INTO sh_plain SELECT 'q' || g, g FROM generate_series(1, 100) g;
});
is( $node->safe_psql('orig',
		q{SELECT (SELECT count(*) FROM sh_plain) || ' ' || (SELECT count(*) FROM sh_slash) || ' ' || (SELECT count(*) FROM sh_link)}),
	'400 400 400', 'three spellings of one directory are one database');
$node->restart;
is( $node->safe_psql('orig',
		q{SELECT (SELECT count(*) FROM sh_plain) || ' ' || (SELECT count(*) FROM sh_slash) || ' ' || (SELECT count(*) FROM sh_link)}),
	'400 400 400', 'and a restart loses none of its rows');

$node->stop;
done_testing();
