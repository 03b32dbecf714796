# Families on a Bigtable server (src/worker/bigtable/btfamilies.c):
# create_family, set_gc_policy, drop_family and drop_table made at COMMIT
# with Bigtable's admin API, against Google's emulator.
# - The engines side by side: each step is done to a LevelDB server too,
#   and families() lists the same tables, families, policies and
#   aggregates on both; Bigtable holds them as the wall's GetTable and cbt
#   ls read them.
# - ROLLBACK sends nothing; a family dropped and made again in one
#   transaction starts empty; a drop's data is gone; the errors are the
#   LevelDB server's; the first write to a table or family that Bigtable
#   lacks makes it, with maxversions=1, as on LevelDB.
# - A family made with cbt in between is not dropped by our changes; a
#   change that fails says so, and nothing after it is sent.
# - Map columns written and read as on LevelDB; the cells layout read as on
#   LevelDB, and a table moved up from it keeps every version.
# - Policies apply on read as on LevelDB (btscan.c, btpolicies.c): counts
#   of versions under as_of, ages, rows left with no cell (and LIMIT past
#   them), a policy changed applying to the next read.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;
use Time::HiRes qw(usleep);

my ($endpoint, $CBT) = wc_bt_test_start();
my $have_cbt = $CBT ne '';
my $I = 'projects/p/instances/i';

sub wall { return wc_bt_wall($endpoint, @_); }

my $node = wc_node('btf', "widecolumn_fdw.worker_threads = 2\n");
$node->safe_psql('postgres', qq{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER lv FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE SERVER bt FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', endpoint '$endpoint', credentials 'insecure');
});

sub families
{
	my ($server) = @_;
	return $node->safe_psql('postgres',
		"SELECT table_name, family, gc_policy, coalesce(aggregate, '-') FROM widecolumn.families('$server') ORDER BY 1, 2");
}

# Bigtable's families as the wall reads them (GetTable of every table).
sub wall_families
{
	my @lines;
	my ($tables) = wall('', $I, 'tables');
	foreach my $full (split /\n/, $tables)
	{
		(my $t = $full) =~ s{.*/}{};
		my ($out) = wall('', $full, 'families');
		foreach my $f (split /\n/, $out)
		{
			my ($fam, $policy, $agg) = split /\t/, $f;
			push @lines, join('|', $t, $fam, $policy, $agg);
		}
	}
	return join("\n", sort @lines);
}

# One step on both servers ("SRV" in $sql is the server); each side's output
# and error (SQLSTATE first) are returned as lines.
sub both
{
	my ($sql) = @_;
	my @r;
	foreach my $s ('lv', 'bt')
	{
		(my $q = $sql) =~ s/SRV/$s/g;
		my ($rc, $o, $e) = $node->psql('postgres', "\\set VERBOSITY sqlstate\n$q");
		$e =~ s/^psql:<stdin>:\d+: //mg;
		push @r, "$o|$e";
	}
	return @r;
}

sub step
{
	my ($name, $sql) = @_;
	my ($lv, $bt) = both($sql);
	is($bt, $lv, "$name: the same answer on both engines");
	is(families('bt'), families('lv'), "$name: the same families()");
	my $bt_families = join("\n", map { s/\|-$/|-/r } split /\n/, families('bt'));
	is(wall_families(), $bt_families, "$name: Bigtable has them (GetTable)");
}

step('create_family with the default policy', "SELECT widecolumn.create_family('SRV', 't1', 'a')");
step('with a policy', "SELECT widecolumn.create_family('SRV', 't1', 'b', 'maxage=1d')");
step('with a policy of two rules',
	"SELECT widecolumn.create_family('SRV', 't1', 'c', 'maxversions=3 or maxage=2h')");
step('set_gc_policy', "SELECT widecolumn.set_gc_policy('SRV', 't1', 'a', 'maxversions=5 and maxage=7d')");
wc_with_google('aggregate families', 'create_family', sub {
	step('an aggregate family', "SELECT widecolumn.create_family('SRV', 't1', 'n', 'never', 'sum')");
}, 3);
step('drop_family', "SELECT 'dropped' FROM (SELECT widecolumn.drop_family('SRV', 't1', 'b')) d");
step('a second table, in one transaction',
	"BEGIN; SELECT widecolumn.create_family('SRV', 't2', 'x'); SELECT widecolumn.create_family('SRV', 't2', 'y', 'maxversions=2'); COMMIT;");
step('ROLLBACK sends nothing',
	"BEGIN; SELECT widecolumn.create_family('SRV', 't3', 'x'); SELECT widecolumn.set_gc_policy('SRV', 't1', 'a', 'never'); ROLLBACK;");
step('drop_table', "SELECT 'dropped' FROM (SELECT widecolumn.drop_table('SRV', 't2')) d");

# Errors, the same on both: nothing changes.
step('a family that exists', "SELECT widecolumn.create_family('SRV', 't1', 'a')");
step('a family that does not', "SELECT widecolumn.drop_family('SRV', 't1', 'nosuch')");
step('set_gc_policy of a family that does not exist',
	"SELECT widecolumn.set_gc_policy('SRV', 't1', 'nosuch', 'maxversions=2')");
step('a table that does not exist', "SELECT widecolumn.drop_table('SRV', 'nosuch')");
step('a bad policy', "SELECT widecolumn.create_family('SRV', 't1', 'bad', 'maxversions=0')");

# A drop's data is gone; dropped and made again in one transaction, a
# family starts empty.
$node->safe_psql('postgres', q{
CREATE FOREIGN TABLE lv_t1 (rowkey text COLLATE "C", a text OPTIONS (column 'a:q'),
  c text OPTIONS (column 'c:q')) SERVER lv OPTIONS (table 't1');
CREATE FOREIGN TABLE bt_t1 (rowkey text COLLATE "C", a text OPTIONS (column 'a:q'),
  c text OPTIONS (column 'c:q')) SERVER bt OPTIONS (table 't1');
INSERT INTO lv_t1 VALUES ('r1', 'a1', 'c1'), ('r2', 'a2', 'c2');
INSERT INTO bt_t1 VALUES ('r1', 'a1', 'c1'), ('r2', 'a2', 'c2');
});
is($node->safe_psql('postgres', 'SELECT * FROM bt_t1 ORDER BY 1'), "r1|a1|c1\nr2|a2|c2", 'rows in t1');
step('drop_family and create it again in one transaction',
	"BEGIN; SELECT 'dropped' FROM (SELECT widecolumn.drop_family('SRV', 't1', 'c')) d; SELECT widecolumn.create_family('SRV', 't1', 'c', 'maxversions=2'); COMMIT;");
# (the older emulator keeps a dropped family's cells for the family made again)
wc_with_google("family drops that delete the family's cells", 'drop_family', sub {
	is($node->safe_psql('postgres', 'SELECT * FROM bt_t1 ORDER BY 1'),
		$node->safe_psql('postgres', 'SELECT * FROM lv_t1 ORDER BY 1'), 'the family made again is empty, as on LevelDB');
	is($node->safe_psql('postgres', 'SELECT * FROM bt_t1 ORDER BY 1'), "r1|a1|\nr2|a2|", '... its cells gone');
	my ($cells) = wall('', "$I/tables/t1", 'read');
	unlike($cells, qr/^r\d\tc\t/m, "Bigtable holds no cell of the dropped family");
}, 3);
my ($cells) = wall('', "$I/tables/t1", 'read');
like($cells, qr/^r1\ta\tq\t\d+\ta1$/m, '... and the other family\'s cells');

# drop_family and drop_table count what they delete on LevelDB; on Bigtable
# they return NULL.
is($node->safe_psql('postgres', "SELECT widecolumn.create_family('bt', 't4', 'f'); SELECT widecolumn.drop_table('bt', 't4') IS NULL"),
	"\nt", 'drop_table returns NULL on a Bigtable server');

# The first write to a table and to a family Bigtable lacks makes them.
step('a write to a table that does not exist',
	q{CREATE FOREIGN TABLE SRV_new (rowkey text COLLATE "C", v text OPTIONS (column 'm:v')) SERVER SRV OPTIONS (table 'newtable');
	  INSERT INTO SRV_new VALUES ('k', 'v');
	  CREATE FOREIGN TABLE SRV_t1b (rowkey text COLLATE "C", w text OPTIONS (column 'w:q')) SERVER SRV OPTIONS (table 't1');
	  INSERT INTO SRV_t1b VALUES ('r1', 'w1');
	  SELECT * FROM SRV_new;});
is($node->safe_psql('postgres', "SELECT table_name, family, gc_policy FROM widecolumn.families('bt') WHERE table_name = 'newtable' OR family = 'w' ORDER BY 1"),
	"newtable|m|maxversions=1\nt1|w|maxversions=1", '... with maxversions=1');

# A family made with cbt's API while a change of ours is made is left alone.
is((wall('', "$I/tables/t1", 'family', 'create', 'outside=maxversions=4'))[1], 0, 'a family made outside');
$node->safe_psql('postgres', "SELECT widecolumn.drop_family('bt', 't1', 'w')");
like(wall_families(), qr/^t1\|outside\|maxversions=4\|-$/m, 'a change of ours leaves it be');
unlike(wall_families(), qr/^t1\|w\|/m, '... and makes its own');
$node->safe_psql('postgres', "SELECT widecolumn.drop_family('lv', 't1', 'w')");

SKIP:
{
	skip "Google's cbt is not installed", 2 unless $have_cbt;
	foreach my $t ('t1', 'newtable')
	{
		is(wc_with_cbt($endpoint, $CBT, sub { wc_cbt_families($t) }),
			$node->safe_psql('postgres', "SELECT family || '|' || gc_policy || '|' || coalesce(aggregate, '-') FROM widecolumn.families('bt') WHERE table_name = '$t' ORDER BY 1"),
			"$t: the same families, policies and aggregates as cbt ls");
	}
}

# Policies apply on read, exactly as on LevelDB (btscan.c, btpolicies.c):
# Bigtable (and its emulator) collect lazily, so the versions a policy
# deletes are still there to be read.  The same writes go to both servers
# (a COMMIT each, LevelDB's first), with a time marked between rounds.
sub same_on_both
{
	my ($name, $sql, $settings) = @_;
	my ($lv, $bt) = both(($settings // '') . $sql);
	is($bt, $lv, $name);
	return $lv;
}
both(q{SELECT widecolumn.create_family('SRV', 'gct', 'v2', 'maxversions=2');
  SELECT widecolumn.create_family('SRV', 'gct', 'age', 'maxage=3s');
  SELECT widecolumn.create_family('SRV', 'gct', 'both', 'maxversions=1 and maxage=3s');
  SELECT widecolumn.create_family('SRV', 'gct', 'n', 'never');
  CREATE FOREIGN TABLE SRV_gct (rowkey text COLLATE "C", v2 text OPTIONS (column 'v2:q'),
    age text OPTIONS (column 'age:q'), b text OPTIONS (column 'both:q'), n text OPTIONS (column 'n:q'))
    SERVER SRV OPTIONS (table 'gct');});
my @marks;
foreach my $round (1 .. 3)
{
	both(qq{INSERT INTO SRV_gct SELECT 'r' || g, 'v$round', CASE WHEN g <= 5 THEN 'a$round' END,
	  'b$round', CASE WHEN g > 5 THEN 'n$round' END FROM generate_series(0, 9) g
	  ON CONFLICT DO NOTHING;}) if $round == 1;
	both(qq{UPDATE SRV_gct SET v2 = 'v$round', age = CASE WHEN age IS NOT NULL OR rowkey <= 'r5' THEN 'a$round' END,
	  b = 'b$round', n = CASE WHEN rowkey > 'r5' THEN 'n$round' END;}) if $round > 1;
	usleep(20_000);
	push @marks, $node->safe_psql('postgres', 'SELECT clock_timestamp()');
	usleep(20_000);
}
my $all = 'SELECT * FROM SRV_gct ORDER BY rowkey;';
like(same_on_both('policies on read: now', $all), qr/^r0\|v3\|a3\|b3\|$/m, '... the newest cells');
foreach my $i (0 .. 2)
{
	same_on_both("as of round " . ($i + 1) . ": maxversions counts the newer versions too",
		$all, "SET widecolumn.as_of = '$marks[$i]';\n");
}
like((both("SET widecolumn.as_of = '$marks[0]';\n$all"))[1], qr/^r0\|\|a1\|b1\|$/m,
	'... the first round read as LevelDB reads it: v2 deleted by its count, both:q kept until it is old too');
sleep(4);
same_on_both('maxage passed: the aged cells are gone', $all);
same_on_both('as of round 1, maxage passed', $all, "SET widecolumn.as_of = '$marks[0]';\n");
both(q{SELECT widecolumn.create_family('SRV', 'gct2', 'age', 'maxage=1s');
  SELECT widecolumn.create_family('SRV', 'gct2', 'n', 'never');
  CREATE FOREIGN TABLE SRV_gct2 (rowkey text COLLATE "C", age text OPTIONS (column 'age:q'),
    n text OPTIONS (column 'n:q')) SERVER SRV OPTIONS (table 'gct2');
  INSERT INTO SRV_gct2 SELECT 'r' || lpad(g::text, 2, '0'), CASE WHEN g < 50 THEN 'a' END,
    CASE WHEN g >= 50 THEN 'n' END FROM generate_series(0, 99) g;});
sleep(2);
# (the older emulator counts towards rows_limit the rows its own collection
# emptied, and sends none of them)
wc_with_google('rows_limit of the rows it sends', 'LIMIT past rows with no cell left', sub {
	is(same_on_both('rows whose every cell is aged are no rows: LIMIT reads on past them',
		'SELECT rowkey FROM SRV_gct2 ORDER BY rowkey LIMIT 3;'), "r50\nr51\nr52|", '... the rows after them');
	same_on_both('... reversed', 'SELECT rowkey FROM SRV_gct2 ORDER BY rowkey DESC LIMIT 3;');
}, 3);
same_on_both('... counted', 'SELECT count(*), count(age), count(n) FROM SRV_gct2;');

# set_gc_policy applies to the next read: the policies the scans kept
# (for 10 s) are forgotten.
same_on_both('before a policy changes', 'SELECT count(*), count(n) FROM SRV_gct2;');
both(q{SELECT widecolumn.set_gc_policy('SRV', 'gct2', 'n', 'maxage=1s');});
is(same_on_both('a policy changed applies at once', 'SELECT count(*), count(n) FROM SRV_gct2;'),
	"0|0|", '... every cell now old enough to be deleted');

# Map columns, written and read the same on both engines.
both(q{SELECT widecolumn.create_family('SRV', 'mt', 'attrs');
  CREATE FOREIGN TABLE SRV_mt (rowkey text COLLATE "C", attrs jsonb OPTIONS (family 'attrs'),
    color text OPTIONS (column 'attrs:color')) SERVER SRV OPTIONS (table 'mt');
  INSERT INTO SRV_mt (rowkey, attrs) VALUES ('a', '{"color": "red", "size": "L"}'), ('b', '{"x": "1"}'), ('c', '{"y": "2"}');
  UPDATE SRV_mt SET attrs = attrs - 'size' || '{"weight": "3"}' WHERE rowkey = 'a';
  UPDATE SRV_mt SET color = 'blue' WHERE rowkey = 'b';
  UPDATE SRV_mt SET attrs = '{}' WHERE rowkey = 'c';});
like(same_on_both('map columns written and read', 'SELECT * FROM SRV_mt ORDER BY 1;'),
	qr/^a\|\{"color": "red", "weight": "3"\}\|red\nb\|\{"x": "1", "color": "blue"\}\|blue\|/,
	'... a key dropped and one added, a column of the family set, a map emptied (no row)');
same_on_both('... a map in a transaction, read back before COMMIT',
	q{BEGIN; UPDATE SRV_mt SET attrs = attrs || '{"z": "9"}' WHERE rowkey = 'b'; SELECT attrs FROM SRV_mt WHERE rowkey = 'b'; COMMIT;});

# The cells layout: every version the policy keeps, a row each, the same
# on both engines; and moving a table up keeps every version (cells layout
# to cells layout).
both(q{SELECT widecolumn.create_family('SRV', 'ct', 'f', 'maxversions=3');
  SELECT widecolumn.create_family('SRV', 'ct', 'g', 'never');
  CREATE FOREIGN TABLE SRV_ct (rowkey text COLLATE "C", family text COLLATE "C", qualifier text COLLATE "C",
    ts timestamptz, value bytea) SERVER SRV OPTIONS (table 'ct', layout 'cells');
  INSERT INTO SRV_ct SELECT 'r' || r, f, q, timestamptz '2024-01-01 00:00:00+00' + v * interval '1 second',
      convert_to(f || q || v, 'UTF8')
    FROM generate_series(1, 3) r, unnest(ARRAY['f', 'g']) f, unnest(ARRAY['p', 'q']) q, generate_series(1, 5) v;});
my $versions_q = 'SELECT rowkey, family, qualifier, ts, convert_from(value, \'UTF8\') FROM SRV_ct';
like(same_on_both('the cells layout: every version the policy keeps', "$versions_q ORDER BY 1, 2, 3, 4;"),
	qr/^r1\|f\|p\|2024-01-01 00:00:03\+00\|fp3\nr1\|f\|p\|2024-01-01 00:00:04\+00\|fp4\n/, '... f keeps 3 versions');
same_on_both('... of a family and a qualifier', "$versions_q WHERE family = 'g' AND qualifier = 'q' AND rowkey = 'r2' ORDER BY 4;");
unlike($node->safe_psql('postgres', "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT * FROM bt_ct WHERE family = 'g' AND qualifier = 'q' AND ts < '2024-01-01 00:00:03+00'"),
	qr/Rows Removed by Filter: [1-9]/, '... the engine reads only those: the plan removes none');
same_on_both('... in a time range', "$versions_q WHERE ts >= '2024-01-01 00:00:02+00' AND ts < '2024-01-01 00:00:04+00' ORDER BY 1, 2, 3, 4;");
same_on_both('... with LIMIT', "$versions_q ORDER BY rowkey LIMIT 7;");
same_on_both('... as of a time between versions', "$versions_q ORDER BY 1, 2, 3, 4;",
	"SET widecolumn.as_of = '2024-01-01 00:00:02.5+00';\n");
$node->safe_psql('postgres', q{
CREATE FOREIGN TABLE bt_up (rowkey text COLLATE "C", family text COLLATE "C", qualifier text COLLATE "C",
  ts timestamptz, value bytea) SERVER bt OPTIONS (table 'up', layout 'cells');
SELECT widecolumn.create_family('bt', 'up', 'f', 'never');
SELECT widecolumn.create_family('bt', 'up', 'g', 'never');
INSERT INTO bt_up SELECT * FROM lv_ct;});
is($node->safe_psql('postgres', 'SELECT count(*) FROM ((TABLE bt_up EXCEPT ALL TABLE lv_ct) UNION ALL (TABLE lv_ct EXCEPT ALL TABLE bt_up)) d'),
	'0', 'moving a table up keeps every version: cells layout to cells layout');
is($node->safe_psql('postgres', 'SELECT count(*) FROM bt_up'), '48', '... all 48 of them');

# ... or by a file of Bigtable's Avro schema: export_avro from LevelDB,
# import_avro into a Bigtable server's table, export_avro from there
# again: the two files hold the same cells, as Avro's own reader (Python's)
# reads them, and the tables the same versions.
my $adir = PostgreSQL::Test::Utils::tempdir;
$node->safe_psql('postgres', qq{
SELECT widecolumn.export_avro('lv_ct', path => '$adir/lv.avro');
SELECT widecolumn.create_family('bt', 'av', 'f', 'never');
SELECT widecolumn.create_family('bt', 'av', 'g', 'never');
CREATE FOREIGN TABLE bt_av (rowkey text COLLATE "C", family text COLLATE "C", qualifier text COLLATE "C",
  ts timestamptz, value bytea) SERVER bt OPTIONS (table 'av', layout 'cells');});
is($node->safe_psql('postgres', "SELECT widecolumn.import_avro('bt_av', '$adir/lv.avro')"), 3,
	'import_avro into a Bigtable server: the file\'s 3 rows');
is($node->safe_psql('postgres', "SELECT widecolumn.export_avro('bt_av', path => '$adir/bt.avro')"), 3,
	'export_avro from it: 3 rows');
# every version as Avro's reader dumps it (test/t/avro_tool.py), the file's
# order: rows by key, each cell's versions newest first
sub avro_dump
{
	my ($file) = @_;
	my $out = `/usr/bin/python3 $FindBin::RealBin/avro_tool.py dump $file`;
	$out =~ s/^schema .*\n//;	# the schema's line
	return $out;
}
my $lvdump = avro_dump("$adir/lv.avro");
like($lvdump, qr/\A(?:[^\n]*\n){48}rows 3\n\z/, "Avro's reader: the LevelDB export's 48 versions, 3 rows");
is(avro_dump("$adir/bt.avro"), $lvdump, '... and the Bigtable export the same, in the same order');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ((TABLE bt_av EXCEPT ALL TABLE lv_ct) UNION ALL (TABLE lv_ct EXCEPT ALL TABLE bt_av)) d'),
	'0', '... and the tables the same versions');

# A version deleted from the cells layout is that version alone
# (DeleteFromColumn of its millisecond), the others of its cell stay.  (Not
# held against LevelDB: whether an older version comes back into the
# policy's count depends on whether each engine has collected it yet.)
(my $bt_versions = $versions_q) =~ s/SRV_ct/bt_ct/;
my $deleted = $node->safe_psql('postgres',
	"DELETE FROM bt_ct WHERE rowkey = 'r1' AND family = 'f' AND qualifier = 'p' AND ts = '2024-01-01 00:00:04+00'; $bt_versions WHERE rowkey = 'r1' AND family = 'f' ORDER BY 3, 4;") . "\n";
ok($deleted =~ /\|fp3\n/ && $deleted =~ /\|fp5\n/ && $deleted !~ /fp4/ && $deleted =~ /\|fq4\n/,
	'... the versions before and after it stay, and its qualifier\'s neighbour') or diag $deleted;
is($node->safe_psql('postgres', q{BEGIN; INSERT INTO bt_up VALUES ('r9', 'f', 'q', NULL, 'x');
SELECT rowkey, qualifier, ts IS NULL AS pending, convert_from(value, 'UTF8') FROM bt_up WHERE rowkey = 'r9'; ROLLBACK;
SELECT count(*) FROM bt_up WHERE rowkey = 'r9';}),
	"r9|q|t|x\n0", "a transaction reads its own writes to the cells layout, the COMMIT's version pending; ROLLBACK sends none");
my ($rc, $o, $e);

# IMPORT FOREIGN SCHEMA from a Bigtable server: a foreign table per
# Bigtable table (ListTables, GetTable), its row key and a jsonb map column
# per family (Bigtable keeps no record of SQL types), or the cells layout.
$node->safe_psql('postgres', q{CREATE SCHEMA imp; CREATE SCHEMA impc;
IMPORT FOREIGN SCHEMA bigtable LIMIT TO (mt, ct) FROM SERVER bt INTO imp;
IMPORT FOREIGN SCHEMA cells LIMIT TO (ct) FROM SERVER bt INTO impc;});
is($node->safe_psql('postgres', q{SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod)
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'imp' AND a.attnum > 0 ORDER BY 1, a.attnum}),
	"ct|rowkey|text\nct|f|jsonb\nct|g|jsonb\nmt|rowkey|text\nmt|attrs|jsonb",
	'IMPORT FOREIGN SCHEMA: the row key and a map column per family of Bigtable\'s');
is($node->safe_psql('postgres', q{SELECT rowkey, k, convert_from(decode(substr(v, 3), 'hex'), 'UTF8')
  FROM imp.mt, jsonb_each_text(attrs) e(k, v) ORDER BY 1, 2}),
	$node->safe_psql('postgres', 'SELECT rowkey, k, v FROM bt_mt, jsonb_each_text(attrs) e(k, v) ORDER BY 1, 2'),
	'... which read the rows (their values bytea: no type is recorded)');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ((TABLE impc.ct EXCEPT ALL TABLE bt_ct) UNION ALL (TABLE bt_ct EXCEPT ALL TABLE impc.ct)) d'),
	'0', '... and the cells layout');

# export_schema on a Bigtable server: the same commands, from Bigtable's own
# families (032 runs such commands with cbt).
my $schema = $node->safe_psql('postgres', "SELECT widecolumn.export_schema('bt')");
like($schema, qr/^cbt setgcpolicy ct f maxversions=3$/m, "export_schema: Bigtable's families and policies");
like($schema, qr/^create 'ct', \{NAME => 'f', VERSIONS => 3\}, \{NAME => 'g', VERSIONS => 2147483647\}$/m, '... and the HBase shell\'s');

# Aggregate families written, AddToCell on Bigtable: the same answers as
# the LevelDB server's merges, through INSERT, UPDATE (an increment, a
# value set, NULL), a transaction reading its own merges, DELETE and an
# INSERT after it.  Bigtable holds one cell per column, at time 0, the fold
# of every AddToCell (btcommit.c); another client's AddToCell between an
# UPDATE's read and its COMMIT stays, since the UPDATE adds its difference;
# two sessions' 200 increments each all count.  (Sum families only: Google's
# emulator replaces the cell of a min or max family at each AddToCell
# instead of folding it, as Bigtable does.)
wc_with_google('aggregate families', 'AddToCell', sub {
	both(q{
SELECT widecolumn.create_family('SRV', 'ctr', 's', 'maxversions=1', 'sum');
SELECT widecolumn.create_family('SRV', 'ctr', 'p');
CREATE FOREIGN TABLE ctr_SRV (rowkey text COLLATE "C", hits bigint OPTIONS (column 's:hits'),
  visits int OPTIONS (column 's:visits'), tag text OPTIONS (column 'p:tag')) SERVER SRV OPTIONS (table 'ctr');});
	my @agg_steps = (
		[ 'INSERT merges', "INSERT INTO ctr_SRV VALUES ('a', 5, 3, 'x'); INSERT INTO ctr_SRV VALUES ('a', 2, 1, NULL), ('b', 1, 1, NULL); SELECT * FROM ctr_SRV ORDER BY 1;" ],
		[ 'UPDATE: an increment, and a value set', "UPDATE ctr_SRV SET hits = hits + 10, visits = 2 WHERE rowkey = 'a'; SELECT * FROM ctr_SRV ORDER BY 1;" ],
		[ 'a transaction reading its own merge and UPDATE', "BEGIN; INSERT INTO ctr_SRV VALUES ('a', 1, 100, NULL); SELECT * FROM ctr_SRV WHERE rowkey = 'a'; UPDATE ctr_SRV SET hits = hits * 2 WHERE rowkey = 'a'; SELECT * FROM ctr_SRV WHERE rowkey = 'a'; COMMIT; SELECT * FROM ctr_SRV ORDER BY 1;" ],
		[ 'NULL, and DELETE then INSERT in one transaction', "UPDATE ctr_SRV SET hits = NULL WHERE rowkey = 'b'; BEGIN; DELETE FROM ctr_SRV WHERE rowkey = 'a'; INSERT INTO ctr_SRV VALUES ('a', 4, 4, NULL); COMMIT; SELECT * FROM ctr_SRV ORDER BY 1;" ],
		[ 'UPDATE from NULL', "UPDATE ctr_SRV SET hits = 9 WHERE rowkey = 'b'; SELECT * FROM ctr_SRV ORDER BY 1;" ]);
	foreach my $st (@agg_steps)
	{
		my ($lv, $bt) = both($st->[1]);
		is($bt, $lv, "aggregate families, $st->[0]: the same answer on both engines");
	}
	is($node->safe_psql('postgres', 'SELECT * FROM ctr_bt ORDER BY 1'), "a|4|4|\nb|9|1|", '... and the answer SQL gives');
	$node->safe_psql('postgres', q{CREATE FOREIGN TABLE ctr_cells (rowkey text COLLATE "C", family text COLLATE "C",
  qualifier text COLLATE "C", ts timestamptz, value bytea) SERVER bt OPTIONS (table 'ctr', layout 'cells');});
	my ($rc, $o, $e) = $node->psql('postgres', q{\set VERBOSITY verbose
BEGIN; UPDATE ctr_bt SET hits = NULL WHERE rowkey = 'b'; UPDATE ctr_bt SET hits = 3 WHERE rowkey = 'b'; SELECT * FROM ctr_cells; ROLLBACK;});
	like($e, qr/0A000: cannot read uncommitted merges of an aggregate family through cells-layout foreign table "ctr_cells"/,
		"a value set in an aggregate family, read through the cells layout before COMMIT (an AddToCell at time 0 then): 0A000");
	($rc, $o, $e) = $node->psql('postgres', q{\set VERBOSITY verbose
BEGIN; INSERT INTO ctr_cells VALUES ('c', 's', 'hits', NULL, '\x0000000000000001'); SELECT * FROM ctr_cells; ROLLBACK;});
	like($e, qr/0A000: cannot read uncommitted merges of an aggregate family through cells-layout foreign table "ctr_cells"/,
		"... and one written there through the cells layout (a SetCell Bigtable folds into the cell): 0A000");
	my ($cells) = wall('', "$I/tables/ctr", 'read', 'family=s');
	is($cells, "a\ts\thits\t0\t\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x04\na\ts\tvisits\t0\t\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x04\n"
		. "b\ts\thits\t0\t\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x09\nb\ts\tvisits\t0\t\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01\nrows 2\n",
		"Bigtable holds one cell per column, at time 0");

	my $s = $node->background_psql('postgres', on_error_stop => 0);
	$s->query_safe("BEGIN; UPDATE ctr_bt SET hits = hits + 1 WHERE rowkey = 'a';");
	my ($put) = wall("add\ta\ts\thits\t0\t100\n", "$I/tables/ctr", 'put');
	$s->{stderr} = '';
	$s->query('COMMIT;');
	is($s->{stderr} . $put, "applied 1 of 1\n", "another client's AddToCell between an UPDATE's read and its COMMIT");
	$s->quit;
	is($node->safe_psql('postgres', "SELECT hits FROM ctr_bt WHERE rowkey = 'a'"), 105, '... stays: 4 + 1 + 100');

	sessions_at_once($node, 2, 200, "two sessions' 200 increments each", 'incr.sql',
		"UPDATE ctr_bt SET hits = hits + 1 WHERE rowkey = 'a';");
	is($node->safe_psql('postgres', "SELECT hits FROM ctr_bt WHERE rowkey = 'a'"), 505,
		'... none lost: 105 + 400');
	SKIP:
	{
		skip "Google's cbt is not installed", 1 unless $have_cbt;
		local $ENV{HOME} = PostgreSQL::Test::Utils::tempdir;
		local $ENV{BIGTABLE_EMULATOR_HOST} = $endpoint;
		my $out = `$CBT -project p -instance i read ctr prefix=a columns=s:hits 2>&1`;
		like($out, qr{^  s:hits\s+\@ 1970/01/01-00:00:00\.000000\n    "\\x00\\x00\\x00\\x00\\x00\\x00\\x01\\xf9"$}m,
			"cbt read: the one cell at time 0, 505 as Bigtable's big-endian Int64") or diag $out;
	}
}, 16);

# The schema advisor on a Bigtable server: it samples with SampleRowKeys
# and reads the probes as on LevelDB, and finds what it finds there (the
# evidence names sampled keys, which each engine samples its own way, and
# adds no heat map on Bigtable, whose heat is Key Visualizer's).
both(q{SELECT widecolumn.create_family('SRV', 'adv', 'm');
  CREATE FOREIGN TABLE SRV_adv (rowkey text COLLATE "C", v text OPTIONS (column 'm:v')) SERVER SRV OPTIONS (table 'adv');
  INSERT INTO SRV_adv SELECT 't2021-03-05-12' || lpad(g::text, 2, '0') || '#' || (3000 + g * 7), 'x' FROM generate_series(0, 59) g;});
like(same_on_both('advise(): the same findings', "SELECT severity, finding FROM widecolumn.advise('SRV_adv') ORDER BY 2;"),
	qr/^warning\|timestamp_key\|$/m, '... a timestamp first in the key, on both');

# A change that fails at COMMIT (the emulator gone after the list was
# read): the error says which table's families it could not change, and
# that nothing after it was sent; the session goes on.
my ($in, $out, $err) = ('', '', '');
my $h = IPC::Run::start([ 'psql', '-X', '-A', '-t', '-v', 'VERBOSITY=verbose', '-d', $node->connstr('postgres') ],
	'<', \$in, '>', \$out, '2>', \$err);
$in .= "BEGIN;\nSELECT widecolumn.create_family('bt', 't5', 'f');\nSELECT 'ready';\n";
my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
$h->pump while $out !~ /^ready$/m && time() < $deadline;
wc_bt_stop_emulator();
$in .= "COMMIT;\nSELECT 'after';\n\\q\n";
$h->finish;
like($err, qr/08006: COMMIT to Bigtable applied 0 of 0 rows/, 'a change that fails: 08006');
like($err, qr{Changing the families of projects/p/instances/i/tables/t5 failed \(gRPC code 14\), and nothing after it was sent},
	'... which table, and that nothing after it was sent');
like($out, qr/^after$/m, '... and the session goes on');
is(families('lv') =~ /^t5\|/m ? 1 : 0, 0, 'nothing of it on LevelDB either');

$node->stop;
done_testing();
