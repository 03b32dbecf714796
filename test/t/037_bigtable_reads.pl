# The Bigtable engine's reads (src/worker/bigtable/engine.c, btscan.c):
# SQL over a foreign table on a Bigtable server (engine 'bigtable') against
# Google's emulator, each query's answer held against a native twin with
# the same rows:
# - rows written by the wall (test/bigtable/btwall: versions, a row with
#   only a cell no column maps, rows large enough for many batches) and by
#   Google's cbt;
# - full scans both ways, points, IN lists, ranges, prefixes, the edges of
#   the key space around a key (k010, k010a, k0100), ORDER BY DESC with
#   LIMIT, LIMIT, count(*), a join with a native table, as_of;
# - EXPLAIN's request, and EXPLAIN ANALYZE's requests, rows and cells
#   received;
# - what the engine does not do yet says so (0A000) and the session goes
#   on; a missing table is 42P01; an endpoint that does not answer is an
#   error within the server's timeout.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use IO::Socket::INET;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my ($endpoint, $CBT) = wc_bt_test_start();
my $have_cbt = $CBT ne '';
my $I = 'projects/p/instances/i';
my $T = "$I/tables/weather";

sub wall { return wc_bt_wall($endpoint, @_); }


# The rows: k000..k299 (and the key-space edges k010a, k0100), cells m:temp
# and m:city; some rows without temp; one with only m:other; a few cells with
# an older version at 1 s and the newest at 2 s (µs); 600 rows of 1 KB cities
# in big:, for scans of many batches.
my (@put, @native);
sub lit { my ($s) = @_; $s =~ s/'/''/g; return "'$s'"; }
foreach my $i (0 .. 299, 'edge1', 'edge2')
{
	my $k = $i eq 'edge1' ? 'k010a' : $i eq 'edge2' ? 'k0100' : sprintf('k%03d', $i);
	my $temp = $i =~ /^\d+$/ && $i % 7 == 0 ? undef : length($k) * 3 + ($i =~ /^\d+$/ ? $i % 13 : 1);
	my $city = "city-$k";
	if ($i =~ /^\d+$/ && $i % 50 == 0)
	{
		push @put, "set\t$k\tm\tcity\t1000000\told-$city";
	}
	push @put, "set\t$k\tm\tcity\t2000000\t$city";
	push @put, "set\t$k\tm\ttemp\t2000000\t$temp" if defined $temp;
	push @native, "(" . join(', ', lit($k), defined $temp ? lit($temp) : 'NULL', lit($city),
		lit($i =~ /^\d+$/ && $i % 50 == 0 ? "old-$city" : $city)) . ")";
}
push @put, "set\tlonely\tm\tother\t2000000\tx";
push @native, "('lonely', NULL, NULL, NULL)";
my ($out, $code) = wall('', $I, 'createtable', 'weather', 'm=maxversions=2');
is($code, 0, 'the table is made') or diag $out;
($out, $code) = wall(join("\n", @put) . "\n", $T, 'put');
like($out, qr/^applied (\d+) of \1$/m, 'the wall wrote every row') or diag $out;

my $bigcity = 'x' x 1000;
my @big = map { sprintf("set\tb%04d\tm\tcity\t2000000\t%s%04d", $_, $bigcity, $_) } 0 .. 599;
($out, $code) = wall(join("\n", @big) . "\n", $T, 'put');
like($out, qr/^applied 600 of 600$/m, 'the large rows too') or diag $out;
push @native, map { sprintf("('b%04d', NULL, '%s%04d', '%s%04d')", $_, $bigcity, $_, $bigcity, $_) } 0 .. 599;

my $node = wc_node('bt', "widecolumn_fdw.worker_threads = 2\n");
$node->safe_psql('postgres', qq{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER bt FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', endpoint '$endpoint', credentials 'insecure', timeout '20s');
CREATE FOREIGN TABLE w (rowkey text COLLATE "C", temp text OPTIONS (column 'm:temp'),
  city text OPTIONS (column 'm:city')) SERVER bt OPTIONS (table 'weather');
CREATE TABLE n (rowkey text COLLATE "C" PRIMARY KEY, temp text, city text, city_at_1s text);
INSERT INTO n VALUES @{[ join(",\n", @native) ]};
CREATE TABLE probe (k text COLLATE "C");
INSERT INTO probe VALUES ('k005'), ('k123'), ('nope'), ('b0042'), ('lonely');
});

# Each query on the foreign table and on its native twin: the same rows.
sub same
{
	my ($name, $sql) = @_;
	(my $nsql = $sql) =~ s/\bw\b/n/g;
	my $f = $node->safe_psql('postgres', $sql);
	my $n = $node->safe_psql('postgres', $nsql);
	is($f, $n, $name) or diag "foreign:\n" . substr($f, 0, 400) . "\nnative:\n" . substr($n, 0, 400);
	return $f;
}

my $all = same('a full scan', 'SELECT rowkey, temp, city FROM w ORDER BY rowkey');
is(scalar(() = $all =~ /\n/g) + 1, 903, 'every row, the one with no mapped cell too');
is($node->safe_psql('postgres', 'SELECT rowkey, temp FROM w'),
	$node->safe_psql('postgres', 'SELECT rowkey, temp FROM n ORDER BY rowkey'),
	"a full scan gives the store's order, the row keys' bytes");
same('count(*)', 'SELECT count(*) FROM w');
same('a point', "SELECT rowkey, temp, city FROM w WHERE rowkey = 'k005'");
same('a missing point', "SELECT rowkey, temp, city FROM w WHERE rowkey = 'k005x'");
same('an IN list', "SELECT rowkey, temp FROM w WHERE rowkey IN ('k001', 'k050', 'k299', 'zzz', 'lonely') ORDER BY 1");
same('a range', "SELECT rowkey, temp FROM w WHERE rowkey >= 'k010' AND rowkey < 'k020' ORDER BY 1");
same('a closed range', "SELECT rowkey FROM w WHERE rowkey BETWEEN 'k010' AND 'k0100' ORDER BY 1");
same('an open range', "SELECT rowkey FROM w WHERE rowkey > 'k010' AND rowkey <= 'k011' ORDER BY 1");
same('a prefix', "SELECT rowkey, city FROM w WHERE rowkey LIKE 'k010%' ORDER BY 1");
same('a prefix by regex', "SELECT rowkey FROM w WHERE rowkey ~ '^k29' ORDER BY 1");
same('an OR of ranges', "SELECT rowkey FROM w WHERE rowkey < 'b0003' OR rowkey > 'k297' ORDER BY 1");
wc_with_google('reversed reads', 'DESC', sub {
	same('DESC with LIMIT', 'SELECT rowkey, temp FROM w ORDER BY rowkey DESC LIMIT 7');
	same('a reverse scan of many batches', 'SELECT rowkey, length(city) FROM w ORDER BY rowkey DESC');
	same('DESC within a range', "SELECT rowkey FROM w WHERE rowkey >= 'k100' AND rowkey < 'k200' ORDER BY rowkey DESC LIMIT 30");
}, 3);
same('LIMIT', 'SELECT rowkey FROM w ORDER BY rowkey LIMIT 5');
same('a local qual', "SELECT rowkey, temp FROM w WHERE temp = '12' ORDER BY 1");
same('NULLs of a row without the cell', "SELECT rowkey FROM w WHERE temp IS NULL ORDER BY 1");
same('a join with a native table',
	'SELECT p.k, w.temp FROM probe p JOIN w ON w.rowkey = p.k ORDER BY 1');
same('an aggregate', "SELECT count(temp), min(city), max(rowkey) FROM w WHERE rowkey LIKE 'k%'");

# Storage filters as Bigtable conditions (btfilters.c): integers of each
# width either side of zero, booleans, text in the C collation and bytea,
# by each operator and IN, and those Bigtable cannot compare (floats; an
# empty bound) left to PostgreSQL: the same rows as the native twin, and
# Bigtable sends only the rows that pass.
$node->safe_psql('postgres', q{
SELECT widecolumn.create_family('bt', 'typed', 't');
CREATE FOREIGN TABLE ty (rowkey text COLLATE "C", i2 smallint OPTIONS (column 't:i2'),
  i4 integer OPTIONS (column 't:i4'), i8 bigint OPTIONS (column 't:i8'), b boolean OPTIONS (column 't:b'),
  s text OPTIONS (column 't:s') COLLATE "C", y bytea OPTIONS (column 't:y'),
  f float8 OPTIONS (column 't:f'), d date OPTIONS (column 't:d')) SERVER bt OPTIONS (table 'typed');
CREATE TABLE nty (rowkey text COLLATE "C" PRIMARY KEY, i2 smallint, i4 integer, i8 bigint, b boolean,
  s text COLLATE "C", y bytea, f float8, d date);
INSERT INTO nty SELECT 'r' || lpad((g + 50)::text, 3, '0'), CASE WHEN g % 11 <> 0 THEN g * 600 END, g * 40000000, g::bigint * 180000000000000000,
  CASE WHEN g % 5 <> 0 THEN g % 2 = 0 END, CASE WHEN g % 9 <> 0 THEN 'v' || lpad(abs(g)::text, 2, '0') END,
  decode(lpad(to_hex(g + 50), 2, '0'), 'hex'), g / 7.0, date '2024-01-01' + g
  FROM generate_series(-50, 50) g;
INSERT INTO ty SELECT * FROM nty;
});
sub same_ty
{
	my ($where) = @_;
	is($node->safe_psql('postgres', "SELECT * FROM ty WHERE $where ORDER BY rowkey"),
		$node->safe_psql('postgres', "SELECT * FROM nty WHERE $where ORDER BY rowkey"), "storage filter $where");
}
same_ty($_) foreach ('i4 < 0', 'i4 >= -80000000', 'i4 = 280000000', 'i4 <> 280000000', 'i4 IN (40000000, -40000000, 1, 2000000000)',
	'i2 > -600 AND i8 <= 3600000000000000000', 'i2 < -40000', 'i2 > -40000', 'i8 > 9223372036854775806', 'i8 < -9000000000000000000',
	'b', 'NOT b', 'b = false', "s = 'v07'", "s < 'v10'", "s > 'v45'", "s <> 'v00'", "s IN ('v01', 'v02', 'zz')", "s <= ''", "s >= ''",
	"y = '\\x07'", "y > '\\x60'", 'f > 0.5', "d >= '2024-01-10'", "d < '2023-12-01'");
my $fplan = explain_analyze("SELECT * FROM ty WHERE i4 = 280000000 AND s > 'v'");
like($fplan, qr/Bigtable Request: ReadRows \S+typed, filter condition\(Storage Filter\) then cells_per_column_limit_filter\(1\)/,
	'EXPLAIN: the request has the storage filters\' condition');
like($fplan, qr/Rows Received: 1\n/, '... and Bigtable sent the one row that passes') or diag $fplan;

# SampleRowKeys: sample_row_keys() gives Bigtable's split points, keys
# and offsets ascending, the empty key last with the table's bytes, which
# approximate_size() of the whole table is too (on the older emulator,
# which sends no last sample, the last offset); a range's bytes are at
# most the table's.
my $samples = $node->safe_psql('postgres', 'SELECT row_key, offset_bytes FROM widecolumn.sample_row_keys(\'w\')');
my @s = map { [ split /\|/, $_, -1 ] } split /\n/, $samples;
my ($ascending, $prev_key, $prev_off) = (1, undef, -1);
foreach my $i (0 .. $#s - 1)
{
	$ascending = 0 if defined $prev_key && ($s[$i][0] le $prev_key || $s[$i][1] < $prev_off);
	($prev_key, $prev_off) = @{ $s[$i] };
}
ok(@s > 2 && $ascending, 'sample_row_keys: split points, keys and offsets ascending (' . scalar(@s) . ')');
ok($s[-1][0] eq '' && $s[-1][1] >= $prev_off && $s[-1][1] > 0, '... the empty key last, with the table\'s bytes');
my ($whole, $part) = split /\|/, $node->safe_psql('postgres',
	"SELECT widecolumn.approximate_size('w'), widecolumn.approximate_size('w', 'k', NULL)");
is($whole, $s[-1][1], "approximate_size: the table's bytes");
ok($part <= $whole, "... a range's bytes, at most the table's ($part of $whole)");

# Parallel query splits a Bigtable table at those points: two workers and
# the leader each read pieces, and the answer is the twin's.
my $par = q{
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2; SET parallel_leader_participation = off;
};
is($node->safe_psql('postgres', "$par SELECT count(*), count(temp), min(rowkey), max(rowkey), sum(length(city)) FROM w;"),
	$node->safe_psql('postgres', 'SELECT count(*), count(temp), min(rowkey), max(rowkey), sum(length(city)) FROM n'),
	'a parallel scan: the same answer');
my $pplan = $node->safe_psql('postgres', "$par EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, VERBOSE) SELECT count(*) FROM w;");
like($pplan, qr/Workers Launched: 2/, '... two workers launched') or diag $pplan;
my ($fscan) = $pplan =~ /(Parallel Foreign Scan.*)/s;
my @wrows = ($fscan // '') =~ /Worker \d+:  actual rows=(\d+)/g;
ok(@wrows == 2 && $wrows[0] > 0 && $wrows[1] > 0, '... each reading rows of its own (' . join(', ', @wrows) . ')')
	or diag $pplan;

# as_of: the version at 1.5 s after the epoch, the old one where it was written
my $at1 = $node->safe_psql('postgres', q{
SET widecolumn.as_of = '1970-01-01 00:00:01.5+00';
SELECT rowkey, city FROM w WHERE rowkey LIKE 'k%' ORDER BY 1;
});
my $n1 = $node->safe_psql('postgres',
	"SELECT rowkey, city_at_1s FROM n WHERE rowkey LIKE 'k%' AND city_at_1s LIKE 'old-%' ORDER BY 1");
is($at1, $n1, 'as_of reads the version of its time');

# A map column: the family's cells that are left, as a jsonb object.
sub twin
{
	my ($name, $fsql, $nsql) = @_;
	my $f = $node->safe_psql('postgres', "$fsql ORDER BY 1");
	is($f, $node->safe_psql('postgres', "$nsql ORDER BY 1"), $name);
	return $f;
}
$node->safe_psql('postgres', q{
CREATE FOREIGN TABLE wm (rowkey text COLLATE "C", m jsonb OPTIONS (family 'm'),
  city text OPTIONS (column 'm:city')) SERVER bt OPTIONS (table 'weather');
});
like(twin('a map column, key by key', "SELECT rowkey, m->>'temp', m->>'city' FROM wm WHERE rowkey <> 'lonely'",
	"SELECT rowkey, temp, city FROM n WHERE rowkey <> 'lonely'"), qr/^k001\|\d+\|city-k001$/m, '... its values');
is($node->safe_psql('postgres', "SELECT m, city FROM wm WHERE rowkey = 'lonely'"), '{"other": "x"}|',
	'... a cell no other column maps is in the map');
twin('... beside a column of its family', "SELECT rowkey, m ? 'city', city FROM wm WHERE rowkey LIKE 'k0%'",
	"SELECT rowkey, city IS NOT NULL, city FROM n WHERE rowkey LIKE 'k0%'");
like(twin('... under as_of', "SET widecolumn.as_of = '1970-01-01 00:00:01.5+00'; SELECT rowkey, m->>'city' FROM wm",
	"SELECT rowkey, city_at_1s FROM n WHERE city_at_1s IS DISTINCT FROM city"), qr/^k050\|old-city-k050$/m, '... the old versions');

# What cbt writes, SQL reads.
SKIP:
{
	skip "Google's cbt is not installed", 1 unless $have_cbt;
	my $home = PostgreSQL::Test::Utils::tempdir;
	local $ENV{HOME} = $home;
	local $ENV{BIGTABLE_EMULATOR_HOST} = $endpoint;
	system($CBT, '-project', 'p', '-instance', 'i', 'set', 'weather', 'k150', 'm:temp=99', 'm:city=from cbt') == 0
	  or die "cbt set failed";
	is($node->safe_psql('postgres', "SELECT temp, city FROM w WHERE rowkey = 'k150'"),
		'99|from cbt', "cbt's cells, read by SQL");
}

# Isolation on a server with no snapshot across rows: READ COMMITTED reads
# what each statement finds, as the native twin does; REPEATABLE READ reads
# the cells as of the transaction's start (the twin: its snapshot);
# SERIALIZABLE is refused.  The change comes from outside in mid-transaction:
# the wall's write with Bigtable's own timestamp, the twin's by psql.
sub isolation_run
{
	my ($table, $level, $change) = @_;
	return $node->safe_psql('postgres', qq{
BEGIN ISOLATION LEVEL $level;
SELECT temp FROM $table WHERE rowkey = 'k151';
SELECT count(*) FROM $table WHERE rowkey LIKE 'k15%';
\\! $change
SELECT temp FROM $table WHERE rowkey = 'k151';
SELECT count(*) FROM $table WHERE rowkey LIKE 'k15%';
COMMIT;
SELECT temp FROM $table WHERE rowkey = 'k151';
});
}
my $connstr = $node->connstr('postgres');
my $psql = "psql -X -q -d \"$connstr\"";
foreach my $case ([ 'READ COMMITTED', 'rc' ], [ 'REPEATABLE READ', 'rr' ])
{
	my ($level, $tag) = @$case;
	my $put = "printf 'set\\tk151\\tm\\ttemp\\t-1\\t$tag\\nset\\tk15$tag\\tm\\ttemp\\t-1\\tnew\\n' | $WC_BTWALL $endpoint $T put >/dev/null";
	my $upd = "$psql -c \"UPDATE n SET temp = '$tag' WHERE rowkey = 'k151'; INSERT INTO n VALUES ('k15$tag', 'new')\"";
	is(isolation_run('w', $level, $put), isolation_run('n', $level, $upd),
		"$level: a change from outside seen as by the native twin");
}
my ($src, $so, $se) = $node->psql('postgres', q{
\set VERBOSITY verbose
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM w WHERE rowkey = 'k001';
});
like($se, qr/0A000: SERIALIZABLE transactions cannot read tables on a Bigtable server/,
	'SERIALIZABLE: refused');

# EXPLAIN shows the ReadRows request, and EXPLAIN ANALYZE what Bigtable
# sent: an IN list of 100 keys is one request, LIMIT 10 receives at most 10
# rows, a parameterized join one request per outer row, a scan of many
# batches one request a batch.
sub explain_analyze
{
	my ($sql) = @_;
	return $node->safe_psql('postgres', "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $sql");
}
my $in100 = join(', ', map { sprintf("'k%03d'", $_ * 3) } 0 .. 99);
my $plan = explain_analyze("SELECT * FROM w WHERE rowkey IN ($in100)");
like($plan, qr/Bigtable Request: ReadRows projects\/p\/instances\/i\/tables\/weather, filter cells_per_column_limit_filter\(1\)/,
	'EXPLAIN: the request');
like($plan, qr/Bigtable Requests: 1\n.*Rows Received: 100\n/s, 'an IN list of 100 keys: one request, 100 rows');
wc_with_google('reversed reads', 'EXPLAIN of DESC', sub {
	$plan = explain_analyze('SELECT * FROM w ORDER BY rowkey DESC LIMIT 10');
	like($plan, qr/Bigtable Request: ReadRows [^\n]*, rows_limit 10, reversed,/, 'LIMIT and DESC in the request');
}, 1);
$plan = explain_analyze('SELECT * FROM w ORDER BY rowkey LIMIT 10');
like($plan, qr/Bigtable Request: ReadRows [^\n]*, rows_limit 10,/, 'LIMIT in the request');
like($plan, qr/Rows Received: (\d+)\n/, '... rows received');
my ($received) = $plan =~ /Rows Received: (\d+)/;
ok(defined $received && $received <= 10, "LIMIT 10 receives at most 10 rows ($received)");
$plan = $node->safe_psql('postgres', q{SET enable_hashjoin = off; SET enable_mergejoin = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT p.k, w.temp FROM probe p JOIN w ON w.rowkey = p.k});
like($plan, qr/Bigtable Requests: 5\n/, 'a parameterized join: one request per outer row (5)') or diag $plan;
$plan = explain_analyze("SELECT * FROM w WHERE rowkey LIKE 'b%'");
my ($requests) = $plan =~ /Bigtable Requests: (\d+)/;
ok(defined $requests && $requests >= 3, "600 KB of rows: a request per 256 KB batch ($requests)") or diag $plan;
like($plan, qr/Cells Received: 600$/m, '... and one cell a row received');
$plan = $node->safe_psql('postgres', "SET widecolumn.as_of = '1970-01-01 00:00:01.5+00'; EXPLAIN (COSTS OFF) SELECT * FROM w WHERE rowkey = 'k000'");
like($plan, qr/filter pass_all_filter \(every version: a family's policy counts versions/,
	'as_of in the request: every version, since family m counts them (maxversions=2)');
$plan = $node->safe_psql('postgres', "CREATE FOREIGN TABLE nofam (rowkey text COLLATE \"C\", v text OPTIONS (column 'f:v')) SERVER bt OPTIONS (table 'nofam'); SET widecolumn.as_of = '1970-01-01 00:00:01.5+00'; EXPLAIN (COSTS OFF) SELECT * FROM nofam");
like($plan, qr/filter chain\(timestamp_range_filter\(0, 1501000\), cells_per_column_limit_filter\(1\)\)$/m,
	'... and the newest cell as of then, where no family counts versions');
$plan = $node->safe_psql('postgres', "BEGIN ISOLATION LEVEL REPEATABLE READ; EXPLAIN (COSTS OFF) SELECT * FROM w WHERE rowkey = 'k000'; COMMIT;");
like($plan, qr/filter chain\(timestamp_range_filter\(0, \d+000\), cells_per_column_limit_filter\(1\)\)$/m,
	"REPEATABLE READ: the newest cell as of the transaction's start, though family m counts versions (none after it counts)");

# The cells layout: a row per version the policy keeps (maxversions=2).
$node->safe_psql('postgres', q{
CREATE FOREIGN TABLE wc (rowkey text COLLATE "C", family text COLLATE "C", qualifier text COLLATE "C",
  ts timestamptz, value bytea) SERVER bt OPTIONS (table 'weather', layout 'cells');
});
my $temp050 = $node->safe_psql('postgres', "SELECT temp FROM n WHERE rowkey = 'k050'");
is($node->safe_psql('postgres', q{SELECT family, qualifier, extract(epoch FROM ts), convert_from(value, 'UTF8')
  FROM wc WHERE rowkey = 'k050' ORDER BY 2, 3 DESC}),
	"m|city|2.000000|city-k050\nm|city|1.000000|old-city-k050\nm|temp|2.000000|$temp050",
	'the cells layout: every version of the row, as the wall wrote them');

# A transaction's own writes, read back through the cells layout before its
# COMMIT (btoverlay.c), against a native twin of the cells changed the same
# way: rows Bigtable lacks, before, between and after its rows, in a full
# scan of several requests, 300 KB of them between two of Bigtable's rows
# and after the last (a batch fills there); a version replaced, one
# removed, one the COMMIT stamps; a row deleted through a mapped table.
my $own = $node->safe_psql('postgres', q{
CREATE TABLE wcn AS SELECT * FROM wc;
BEGIN;
DELETE FROM w WHERE rowkey = 'k150';
DELETE FROM wcn WHERE rowkey = 'k150';
INSERT INTO wc SELECT 'b' || lpad(g::text, 4, '0') || 'x', 'm', 'city', '1970-01-01 00:00:03+00', convert_to('own ' || g, 'UTF8')
  FROM generate_series(0, 700, 50) g;
INSERT INTO wcn SELECT 'b' || lpad(g::text, 4, '0') || 'x', 'm', 'city', '1970-01-01 00:00:03+00', convert_to('own ' || g, 'UTF8')
  FROM generate_series(0, 700, 50) g;
INSERT INTO wc VALUES ('a', 'm', 'city', NULL, 'first'), ('zz', 'm', 'temp', NULL, '1');
INSERT INTO wcn VALUES ('a', 'm', 'city', NULL, 'first'), ('zz', 'm', 'temp', NULL, '1');
CREATE TEMP TABLE many AS SELECT k || lpad(g::text, 3, '0') AS rowkey, 'm'::text AS family, 'city'::text AS qualifier,
    '1970-01-01 00:00:03+00'::timestamptz AS ts, convert_to(repeat('o', 1000) || g, 'UTF8') AS value
  FROM unnest(ARRAY['b0100y', 'zzz']) k, generate_series(1, 300) g;
INSERT INTO wc SELECT * FROM many;
INSERT INTO wcn SELECT * FROM many;
UPDATE wc SET value = 'replaced' WHERE rowkey = 'k200' AND qualifier = 'city';
UPDATE wcn SET value = 'replaced' WHERE rowkey = 'k200' AND qualifier = 'city';
DELETE FROM wc WHERE rowkey = 'k100' AND qualifier = 'temp';
DELETE FROM wcn WHERE rowkey = 'k100' AND qualifier = 'temp';
SELECT count(*) FROM ((TABLE wc EXCEPT ALL TABLE wcn) UNION ALL (TABLE wcn EXCEPT ALL TABLE wc)) d;
SELECT (SELECT count(*) FROM wcn), count(*), count(*) FILTER (WHERE ts IS NULL) FROM wc;
SELECT string_agg(rowkey, ',' ORDER BY rowkey) FROM wc WHERE rowkey LIKE 'b%x' OR rowkey IN ('a', 'zz', 'k150');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM wc;
ROLLBACK;
SELECT count(*) FROM ((TABLE wc EXCEPT ALL TABLE wcn) UNION ALL (TABLE wcn EXCEPT ALL TABLE wc)) d;
});
my @own = split /\n/, $own;
is($own[0], '0', "a transaction's own cells-layout writes, read back before COMMIT: the native twin's versions");
my ($ntwin) = split /\|/, $own[1];
is($own[1], "$ntwin|$ntwin|2", "... as many as the twin's, 2 of them stamped at COMMIT");
is($own[2], 'a,' . join(',', map { sprintf('b%04dx', $_ * 50) } 0 .. 14) . ',zz', '... in key order, among and after the stored rows');
like($own, qr/Bigtable Requests: [2-9]\n/, '... a scan of several requests');
is($own[-1], '0', 'ROLLBACK: none of them sent, the twin rolled back too');

# REPEATABLE READ reads the cells layout as of the transaction's start as
# well, its own writes whatever their times; SERIALIZABLE is refused there
# too (and in export_avro).
my $rr = $node->background_psql('postgres', on_error_stop => 0);
my $k060 = $rr->query_safe("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM wc WHERE rowkey = 'k060';");
$node->safe_psql('postgres', "UPDATE w SET city = 'moved' WHERE rowkey = 'k060'");
is($rr->query_safe("SELECT count(*) FROM wc WHERE rowkey = 'k060' AND value = 'moved';"), '0',
	"REPEATABLE READ, the cells layout: another session's version since is not read");
is($rr->query_safe("INSERT INTO wc VALUES ('k060', 'm', 'note', now() + interval '1 day', 'own'); SELECT count(*) FROM wc WHERE rowkey = 'k060';"),
	$k060 + 1, '... its own, later than its start, is');
$rr->query_safe('ROLLBACK;');
$rr->quit;
my ($src, $so, $se2) = $node->psql('postgres', q{BEGIN ISOLATION LEVEL SERIALIZABLE; SELECT count(*) FROM wc;});
like($se2, qr/SERIALIZABLE transactions cannot read tables on a Bigtable server/, 'SERIALIZABLE, the cells layout: refused');
my ($rc, $o, $e);

($rc, $o, $e) = $node->psql('postgres', "\\set VERBOSITY verbose\nSELECT * FROM widecolumn.key_heatmap('w');");
like($e, qr/0A000: key_heatmap\(\) does not apply to a table on a Bigtable server.*HINT:  Use Key Visualizer/s,
	'key_heatmap: points to Key Visualizer');

$node->safe_psql('postgres', q{
CREATE FOREIGN TABLE nosuch (rowkey text COLLATE "C", v text) SERVER bt OPTIONS (table 'nosuch');
});
is($node->safe_psql('postgres', "SELECT count(*) FROM nosuch; SELECT widecolumn.approximate_size('nosuch'); SELECT count(*) FROM widecolumn.sample_row_keys('nosuch'); ANALYZE nosuch; UPDATE nosuch SET v = 'x'"),
	"0\n0\n1", 'a table Bigtable lacks reads as empty, as one never written on LevelDB: no rows, no bytes, a sample of its end alone');

# An endpoint that accepts connections and never answers: an error within
# the timeout, not a hang.
my $silent = IO::Socket::INET->new(Listen => 5, LocalAddr => '127.0.0.1', LocalPort => 0, Proto => 'tcp')
  or die "listen: $!";
my $sport = $silent->sockport;
$node->safe_psql('postgres', qq{
CREATE SERVER silent FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', endpoint '127.0.0.1:$sport', credentials 'insecure', timeout '2s');
CREATE FOREIGN TABLE s (rowkey text COLLATE "C", v text) SERVER silent OPTIONS (table 'weather');
});
($rc, $o, $e) = $node->psql('postgres', "\\set VERBOSITY verbose\nSELECT * FROM s;");
like($e, qr/57014: Bigtable request timed out/, 'an endpoint that never answers: its deadline (57014)');
is($node->safe_psql('postgres', "SELECT temp FROM w WHERE rowkey = 'k001'"),
	$node->safe_psql('postgres', "SELECT temp FROM n WHERE rowkey = 'k001'"),
	'and the other server is still read');

# A statement_timeout or a cancel while a call waits on such an endpoint
# cancels the call: the session's next statement is answered at once, not
# held until the call ends (its deadline is 5 minutes here, and gRPC gives
# up connecting after 20 seconds; the next statement's own
# statement_timeout of 10 seconds fails it if it is held).  A point read
# and a full scan wait in a scan's batch (a scan's call: the table is
# analyzed while its server is the emulator, so that planning asks for no
# sizes), sample_row_keys in a call answered later (SampleRowKeys).  Each
# case has a listener of its own: gRPC shares a connection to one address
# between channels, and fails calls at once once it has given up on it.
$node->safe_psql('postgres', qq{
CREATE SERVER mute FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', endpoint '$endpoint', credentials 'insecure', timeout '5min');
CREATE FOREIGN TABLE m (rowkey text COLLATE "C", v text) SERVER mute OPTIONS (table 'weather');
ANALYZE m;
});
my @mutes;
sub mute_again
{
	my $sock = IO::Socket::INET->new(Listen => 5, LocalAddr => '127.0.0.1', LocalPort => 0, Proto => 'tcp')
	  or die "listen: $!";
	push @mutes, $sock;
	$node->safe_psql('postgres', "ALTER SERVER mute OPTIONS (SET endpoint '127.0.0.1:" . $sock->sockport . "')");
}
my $k001 = $node->safe_psql('postgres', "SELECT temp FROM n WHERE rowkey = 'k001'");
foreach my $case (
	[ 'a point read',    "SELECT * FROM m WHERE rowkey = 'k001'" ],
	[ 'a full scan',     "SELECT * FROM m" ],
	[ 'sample_row_keys', "SELECT * FROM widecolumn.sample_row_keys('m')" ])
{
	my ($what, $sql) = @$case;
	mute_again();
	($rc, $o, $e) = $node->psql('postgres', qq{\\set VERBOSITY verbose
SET statement_timeout = '300ms';
$sql;
SET statement_timeout = '10s';
SELECT temp FROM w WHERE rowkey = 'k001';
}, on_error_stop => 0);
	like($e, qr/\A[^\n]*57014: canceling statement due to statement timeout(?:\nLOCATION:[^\n]*)?\z/,
		"$what on an endpoint that never answers: statement_timeout, and no other error");
	is($o, $k001, "$what: the call cancelled, the session's next read is answered");
}
{
	mute_again();
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	my $pid = $bg->query_safe('SELECT pg_backend_pid()');
	$bg->query_until(qr/^$/, "SELECT * FROM m;\n");
	$node->poll_query_until('postgres',
		"SELECT wait_event = 'Extension' FROM pg_stat_activity WHERE pid = $pid AND query = 'SELECT * FROM m;'")
	  or die "the scan did not wait for the worker";
	$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
	my $next = $bg->query("SET statement_timeout = '10s'; SELECT temp FROM w WHERE rowkey = 'k001'");
	like($bg->{stderr}, qr/\A[^\n]*canceling statement due to user request\n?\z/, 'a cancel (pg_cancel_backend) of a scan waiting on the endpoint');
	is($next, $k001, '... cancels its call: the next read is answered');
	$bg->quit;
}

# The calls of many sessions are in flight at once: another session's read
# is answered while more sessions than there are reader threads (the CPUs,
# 16 at most) each wait on a call, and so with no reader thread at all
# (each wait ends at gRPC's 20 seconds of connecting; the read's
# statement_timeout is 10 seconds).
foreach my $threads ('', 0)
{
	my $label = $threads eq '' ? 'with the reader threads' : 'with worker_threads = 0';
	if ($threads ne '')
	{
		$node->append_conf('postgresql.conf', "widecolumn_fdw.worker_threads = $threads");
		$node->restart;
	}
	my $nthreads = $node->safe_psql('postgres', 'SHOW widecolumn_fdw.worker_threads');
	my $waiting = $nthreads + 1;
	mute_again();
	my @bg;
	for (1 .. $waiting)
	{
		my $b = $node->background_psql('postgres', on_error_stop => 0);
		my $pid = $b->query_safe('SELECT pg_backend_pid()');
		$b->query_until(qr/^$/, "SELECT * FROM m;\n");
		push @bg, [ $b, $pid ];
	}
	my $pids = join(',', map { $_->[1] } @bg);
	my $stuck = "SELECT count(*) FROM pg_stat_activity WHERE pid IN ($pids) AND wait_event = 'Extension' AND query = 'SELECT * FROM m;'";
	$node->poll_query_until('postgres', "SELECT ($stuck) = $waiting")
	  or die "the sessions did not all wait on the endpoint";
	($rc, $o, $e) = $node->psql('postgres', "SET statement_timeout = '10s'; SELECT temp FROM w WHERE rowkey = 'k001'");
	is($o, $k001, "$label ($nthreads): a read is answered while $waiting sessions wait on calls");
	is($node->safe_psql('postgres', $stuck), $waiting, "$label: ... and they still wait");
	$node->safe_psql('postgres', "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE pid IN ($pids)");
	$_->[0]->quit foreach @bg;
}

# A fast shutdown while sessions wait on calls (a scan's, a
# SampleRowKeys'), and after a session that waited on a scan's was
# terminated (its abort gives the scan up, as a cancel does): the storage
# worker has cancelled them all and exits, rather than waiting for them
# (gRPC gives up connecting after 20 seconds; pg_ctl is given 10 here).
{
	mute_again();
	my @bg;
	foreach my $sql ('SELECT * FROM m;', "SELECT * FROM widecolumn.sample_row_keys('m');",
		'SELECT v FROM m;')
	{
		my $b = $node->background_psql('postgres', on_error_stop => 0);
		my $pid = $b->query_safe('SELECT pg_backend_pid()');
		$b->query_until(qr/^$/, "$sql\n");
		push @bg, [ $b, $pid ];
	}
	my $pids = join(',', map { $_->[1] } @bg);
	$node->poll_query_until('postgres',
		"SELECT count(*) = 3 FROM pg_stat_activity WHERE pid IN ($pids) AND wait_event = 'Extension'")
	  or die "the sessions did not all wait on the endpoint";
	my $gone = $bg[2][1];
	$node->safe_psql('postgres', "SELECT pg_terminate_backend($gone)");
	$node->poll_query_until('postgres', "SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $gone")
	  or die "the terminated session did not go";
	local $ENV{PGCTLTIMEOUT} = 10;
	my $stopped = eval { $node->stop('fast', fail_ok => 1) };
	ok($stopped, 'a fast shutdown while a scan and a sample wait on calls, and after a waiting session was terminated: the worker has cancelled them and exits');
	eval { $_->[0]->quit } foreach @bg;
	$node->stop('immediate', fail_ok => 1) unless $stopped;
	$node->start;
}

# The emulator killed: the next read is a clear error, and the session
# (and the storage worker, serving a LevelDB server) goes on.
wc_bt_stop_emulator();
($rc, $o, $e) = $node->psql('postgres', q{
\set VERBOSITY verbose
\set ON_ERROR_STOP 0
SELECT * FROM w WHERE rowkey = 'k001';
CREATE SERVER ldb FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE l (rowkey text COLLATE "C", v text) SERVER ldb;
INSERT INTO l VALUES ('a', 'still here');
SELECT v FROM l;
});
like($e, qr/08006: Bigtable request failed/, 'the emulator gone: 08006');
like($o, qr/still here/, 'and the session and the worker go on');

$node->stop;
done_testing();
