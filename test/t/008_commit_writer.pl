
# Commits written by the commit writer, many sessions at once.
#
# The storage worker hands each commit's batch to a thread of its own and
# answers the COMMIT only when the thread has written it; batches waiting
# together go into one LevelDB write (src/worker/leveldb/commitwriter.c).  So:
#  - every committed row is there, and nothing else: four sessions insert
#    at once, into the foreign table and a native one in the same
#    transactions, and the two tables must agree;
#  - a COMMIT is answered only once later readers see it: four sessions
#    increment one row at once, each UPDATE reading the value the last
#    COMMIT left (the row lock is released when the COMMIT returns), so no
#    increment may be lost;
#  - a large commit (written in chunks, after the writer's queue) between
#    small ones leaves every row too.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $node = wc_node('wc_commit_writer');

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE t (k text OPTIONS (rowkey 'true') COLLATE "C", v bigint) SERVER wc;
CREATE TABLE n (k text COLLATE "C" PRIMARY KEY, v bigint);
CREATE SEQUENCE s;
INSERT INTO t VALUES ('counter', 0);
});


# Four sessions, 200 transactions each: an insert into both tables.
sessions_at_once($node, 4, 200, 'four sessions insert at once', '008_insert', q{
SELECT nextval('s') AS id \gset
BEGIN;
INSERT INTO t VALUES ('row' || lpad(:id::text, 6, '0'), :id);
INSERT INTO n VALUES ('row' || lpad(:id::text, 6, '0'), :id);
COMMIT;
});

is( $node->safe_psql(
		'postgres', q{
SELECT count(*) FROM (
	(SELECT * FROM t WHERE k LIKE 'row%' EXCEPT ALL SELECT * FROM n)
	UNION ALL (SELECT * FROM n EXCEPT ALL SELECT * FROM t WHERE k LIKE 'row%')) d}),
	'0', 'the foreign table holds every committed row and nothing else');
is($node->safe_psql('postgres', q{SELECT count(*) FROM t WHERE k LIKE 'row%'}),
	'800', 'all 800 rows are there');

# Four sessions, 200 increments each, of one row.
sessions_at_once($node, 4, 200, 'four sessions increment one row at once',
	'008_increment', "UPDATE t SET v = v + 1 WHERE k = 'counter';\n");

is($node->safe_psql('postgres', q{SELECT v FROM t WHERE k = 'counter'}),
	'800', 'no increment is lost');

# A commit of more than 4 MiB is written in chunks by the worker itself,
# after everything queued before it; small commits go on around it.
my $bg = $node->background_psql('postgres');
$bg->query_until(qr/loading/, q{
\echo loading
INSERT INTO t SELECT 'big' || lpad(i::text, 7, '0'), i FROM generate_series(1, 200000) i;
});
sessions_at_once($node, 2, 100, 'small commits while a large one is written',
	'008_increment2', "UPDATE t SET v = v + 1 WHERE k = 'counter';\n");
$bg->quit;

is( $node->safe_psql(
		'postgres', q{SELECT count(*), sum(v) FROM t WHERE k LIKE 'big%'}),
	'200000|20000100000', 'the large commit holds all its rows');
is($node->safe_psql('postgres', q{SELECT v FROM t WHERE k = 'counter'}),
	'1000', 'and the small commits around it are all there');

# A job queue: each transaction claims the first pending job with FOR UPDATE
# SKIP LOCKED and marks it done, with finished jobs in front of the pending
# ones.  Only the rows the filter passes are locked, so the sessions neither
# deadlock nor pass over jobs nobody holds: every job is claimed once.
$node->safe_psql(
	'postgres', q{
CREATE FOREIGN TABLE jobs (k text OPTIONS (rowkey 'true') COLLATE "C", payload integer, done integer) SERVER wc;
INSERT INTO jobs SELECT 'j' || lpad(i::text, 5, '0'), i, CASE WHEN i <= 300 THEN 0 END FROM generate_series(1, 500) i;
CREATE TABLE claims (k text);
});
sessions_at_once($node, 4, 40, 'four sessions claim jobs at once', '008_queue', q{
WITH c AS (SELECT k FROM jobs WHERE done IS NULL ORDER BY k LIMIT 1 FOR UPDATE SKIP LOCKED),
     u AS (UPDATE jobs SET done = 1 FROM c WHERE jobs.k = c.k RETURNING jobs.k)
INSERT INTO claims SELECT k FROM u;
});
is($node->safe_psql('postgres', q{SELECT count(*), count(DISTINCT k) FROM claims}),
	'160|160', 'each of the 160 transactions claimed a job of its own');

# After a restart, everything is still there.
$node->restart;
is( $node->safe_psql(
		'postgres', q{
SELECT (SELECT count(*) FROM t WHERE k LIKE 'row%'),
       (SELECT count(*) FROM t WHERE k LIKE 'big%'),
       (SELECT v FROM t WHERE k = 'counter')}),
	'800|200000|1000', 'every commit survives a restart');

$node->stop;
done_testing();
