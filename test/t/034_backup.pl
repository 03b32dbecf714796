# widecolumn.backup and widecolumn.restore, end to end: a server filled with
# families of every kind of policy, aggregates (sum, min, max), many
# versions, a map column, versions at old timestamps, a dropped row range
# and a table with no file-safe name is backed up while a writer commits to
# it and to a native table in each transaction; pg_dump saves the database.
# Both go into a fresh cluster, and there every cell version (row key,
# family, qualifier, timestamp to the microsecond, value) is the one the
# backup's snapshot saw, as read in the backup's own REPEATABLE READ
# transaction, and the native table read in that transaction says how many
# of the writer's commits it must hold.  Apache Avro's Python library reads
# the backup's files as the same versions.  Then what backup and restore
# refuse, each changing nothing.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use JSON::PP;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $PY = '/usr/bin/python3';
my $TOOL = "$FindBin::RealBin/avro_tool.py";
my $have_python =
  system("$PY -c 'import avro.datafile, snappy' 2>/dev/null") == 0;

my $a = wc_node('wc_backup_a');
my $dir = PostgreSQL::Test::Utils::tempdir;

# Every stored table's versions as one text, a line each:
# table|rowkey|family|qualifier|ts|value (bytes in hex, ts in UTC).
my $cells_sql = q{
CREATE VIEW all_cells AS
  SELECT 'events' AS t, encode(rowkey, 'hex') AS k, family, encode(qualifier, 'hex') AS q,
         to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS ts, encode(value, 'hex') AS v
    FROM events_cells
  UNION ALL
  SELECT 'video', encode(rowkey, 'hex'), family, encode(qualifier, 'hex'),
         to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'), encode(value, 'hex')
    FROM video_cells
  UNION ALL
  SELECT 'odd/name "x"', encode(rowkey, 'hex'), family, encode(qualifier, 'hex'),
         to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'), encode(value, 'hex')
    FROM odd_cells;
};
my $all_cells =
  q{SELECT t || '|' || k || '|' || family || '|' || q || '|' || ts || '|' || v FROM all_cells ORDER BY 1};

$a->safe_psql(
	'postgres', qq{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
SELECT widecolumn.create_family('wc', 'events', 'never', 'never');
SELECT widecolumn.create_family('wc', 'events', 'v3', 'maxversions=3');
SELECT widecolumn.create_family('wc', 'events', 'age', 'maxage=3650d');
SELECT widecolumn.create_family('wc', 'events', 'either', 'maxversions=2 or maxage=3650d');
SELECT widecolumn.create_family('wc', 'events', 'both', 'maxversions=1 and maxage=3650d');
SELECT widecolumn.create_family('wc', 'events', 'tags', 'maxversions=2');
SELECT widecolumn.create_family('wc', 'video', 'views', 'maxversions=1', 'sum');
SELECT widecolumn.create_family('wc', 'video', 'low', 'maxversions=1', 'min');
SELECT widecolumn.create_family('wc', 'video', 'high', 'never', 'max');
SELECT widecolumn.create_family('wc', 'video', 'info', 'maxversions=5');
SELECT widecolumn.create_family('wc', 'empty', 'f', 'maxage=1h');
SELECT widecolumn.create_family('wc', 'odd/name "x"', 'f.1-x_y');
CREATE FOREIGN TABLE events (
    rowkey text COLLATE "C", n int OPTIONS (column 'never:n'), v text OPTIONS (column 'v3:v'),
    a text OPTIONS (column 'age:a'), e text OPTIONS (column 'either:e'),
    b text OPTIONS (column 'both:b'), tags jsonb OPTIONS (family 'tags')
) SERVER wc OPTIONS (table 'events');
CREATE FOREIGN TABLE video (
    rowkey text COLLATE "C", title text OPTIONS (column 'info:title'),
    views bigint OPTIONS (column 'views:n'), low bigint OPTIONS (column 'low:n'),
    high bigint OPTIONS (column 'high:n')
) SERVER wc OPTIONS (table 'video');
CREATE FOREIGN TABLE events_cells (rowkey bytea, family text COLLATE "C", qualifier bytea,
    ts timestamptz, value bytea) SERVER wc OPTIONS (table 'events', layout 'cells');
CREATE FOREIGN TABLE video_cells (rowkey bytea, family text COLLATE "C", qualifier bytea,
    ts timestamptz, value bytea) SERVER wc OPTIONS (table 'video', layout 'cells');
CREATE FOREIGN TABLE odd_cells (rowkey bytea, family text COLLATE "C", qualifier bytea,
    ts timestamptz, value bytea) SERVER wc OPTIONS (table 'odd/name "x"', layout 'cells');
$cells_sql
CREATE TABLE log (id serial PRIMARY KEY, k int NOT NULL);
INSERT INTO events SELECT 'e' || lpad(i::text, 3, '0'), i, 'v' || i, 'a' || i, 'e' || i, 'b' || i,
    jsonb_build_object('t' || (i % 7), i::text, 'all', 'x')
  FROM generate_series(1, 300) i;
INSERT INTO video SELECT 'v' || i, 'title ' || i, 0, 1000, 0 FROM generate_series(0, 9) i;
INSERT INTO odd_cells VALUES ('\\x00ff', 'f.1-x_y', '\\x', '1970-01-01 00:00:00.000001+00', '\\x01'),
    ('k', 'f.1-x_y', 'q', '2021-03-05 12:00:00.123456+00', '\\x');
INSERT INTO events_cells SELECT convert_to('e' || lpad(i::text, 3, '0'), 'UTF8'), 'never', 'old',
    timestamptz '2020-01-01 00:00+00' + i * interval '1.000001 second', '\\xbeef'
  FROM generate_series(1, 300) i;
});
# more versions, one commit each
for my $round (1 .. 4)
{
	$a->safe_psql('postgres',
		"UPDATE events SET n = n + $round, v = v || '.$round', a = a || '.$round', e = e || '.$round',"
		  . " b = b || '.$round', tags = tags || jsonb_build_object('r', '$round') WHERE rowkey <= 'e150'"
	);
}
$a->safe_psql('postgres', q{
SELECT widecolumn.drop_row_range('events', 'e02');
INSERT INTO events (rowkey, v) VALUES ('e025', 'after the drop');
});

# The writer: each transaction a native row, a foreign row named after it,
# a counter merge and an overwrite.
my $writer_script = "$dir/writer.sql";
open(my $fh, '>', $writer_script) or die;
print $fh q{\set k random(100, 300)
BEGIN;
WITH l AS (INSERT INTO log (k) VALUES (:k) RETURNING id)
  INSERT INTO events (rowkey, v) SELECT 'w' || lpad(id::text, 6, '0'), 'written ' || id FROM l;
INSERT INTO video (rowkey, views, low, high) VALUES ('v' || (:k % 10), 1, :k, :k);
INSERT INTO events (rowkey, v, tags) VALUES ('e' || lpad(:k::text, 3, '0'), 'w' || :k, jsonb_build_object('w', :k::text));
COMMIT;
};
close $fh;
my ($wout, $werr) = ('', '');
my $writer = IPC::Run::start(
	[
		'pgbench', '-n', '-c', '1', '-T', '8', '-f', $writer_script,
		'-h', $a->host, '-p', $a->port, 'postgres'
	],
	'<', '/dev/null', '>', \$wout, '2>', \$werr);

sub log_count
{
	return $a->safe_psql('postgres', 'SELECT count(*) FROM log');
}
my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
usleep(50_000) while log_count() < 50 && time() < $deadline;

# The backup and the oracle, in one REPEATABLE READ transaction that the
# writer goes on committing around.
my $bk = "$dir/backup";
my ($rc, $out, $err) = $a->psql(
	'postgres', qq{
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT 'log=' || count(*) || ' views=' || (SELECT sum(views) FROM video) FROM log;
SELECT pg_sleep(0.3);
SELECT 'backup=' || widecolumn.backup('wc', '$bk');
SELECT pg_sleep(0.3);
$all_cells;
COMMIT;
});
is($rc, 0, 'the backup ran in a REPEATABLE READ transaction') or diag($err);
my @lines = split /\n/, $out;
my ($log_seen, $views_seen) = $lines[0] =~ /^log=(\d+) views=(\d+)$/;
my ($backed_up) = grep { /^backup=/ } @lines;
$backed_up =~ s/^backup=//;
my @oracle = grep { /\|/ } @lines;
$writer->finish;
is($writer->result(0), 0, 'the writer ran throughout') or diag($werr);
my $log_after = log_count();
ok($log_seen >= 50 && $log_after > $log_seen + 20,
	"the writer committed before the backup's snapshot ($log_seen) and after it ($log_after)"
);
is($backed_up, scalar(@oracle),
	"backup returns the versions it wrote, those the snapshot sees ($backed_up)");
ok(-f "$bk/backup.json", 'the backup directory has its manifest');

my $manifest = decode_json(slurp_file("$bk/backup.json"));
is($manifest->{format} . ' ' . $manifest->{version}, 'widecolumn_fdw backup 1',
	'the manifest says what it is');
is( join(',', map { $_->{table_name} } @{ $manifest->{tables} }),
	'empty,events,odd/name "x",video',
	'the manifest lists every stored table, in byte order');
is( join(
		',',
		map { "$_->{family}:$_->{gc_policy}:" . ($_->{aggregate} // '') }
		  map { @{ $_->{families} } } @{ $manifest->{tables} }),
	$a->safe_psql(
		'postgres',
		q{SELECT string_agg(family || ':' || gc_policy || ':' || coalesce(aggregate, ''), ',' ORDER BY table_name, family) FROM widecolumn.families('wc')}
	),
	'and their families, policies and aggregates, as families() has them');

# Python reads the files as the versions the snapshot saw.
SKIP:
{
	skip 'python3-avro or python3-snappy is not installed', 1 unless $have_python;
	my @py;
	for my $t (@{ $manifest->{tables} })
	{
		my $dump = `$PY $TOOL dump $bk/$t->{file}`;
		die "avro_tool.py failed on $t->{file}" if $?;
		for my $line (split /\n/, $dump)
		{
			# key|family|qualifier|timestamp|value, after the schema
			my @f = split /\|/, $line, -1;
			next unless @f == 5 && $f[3] =~ /^\d+$/;
			my ($s, $us) = (int($f[3] / 1_000_000), $f[3] % 1_000_000);
			my @tm = gmtime($s);
			push @py,
			  sprintf("%s|%s|%s|%s|%04d-%02d-%02d %02d:%02d:%02d.%06d|%s",
				$t->{table_name}, $f[0], $f[1], $f[2],
				$tm[5] + 1900, $tm[4] + 1, @tm[ 3, 2, 1, 0 ], $us, $f[4]);
		}
	}
	is(join("\n", sort @py), join("\n", sort @oracle),
		"Apache Avro's reader finds in the backup's files every version of the snapshot, to the microsecond"
	);
}

# pg_dump, and both into a fresh cluster
my $dump = "$dir/dump.sql";
$a->command_ok([ 'pg_dump', '-d', $a->connstr('postgres'), '-f', $dump ], 'pg_dump');
my $b = wc_node('wc_backup_b');
$b->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $b->connstr('postgres'), '-f', $dump ],
	'the dump restores into a fresh cluster');
is($b->safe_psql('postgres', 'SELECT count(*) FROM all_cells'), '0',
	'where the server has no data yet');
is($b->safe_psql('postgres', "SELECT widecolumn.restore('wc', '$bk')"), $backed_up,
	'restore returns the versions it loaded');
# the first line where two listings differ, for a failure's diagnostics
sub first_difference
{
	my ($got, $want) = @_;
	my @g = split /\n/, $got;
	my @w = split /\n/, $want;
	for my $i (0 .. ($#g > $#w ? $#g : $#w))
	{
		my ($x, $y) = ($g[$i] // '(none)', $w[$i] // '(none)');
		return "line $i: got $x, want $y" if $x ne $y;
	}
	return 'none';
}
my $restored = $b->safe_psql('postgres', $all_cells);
ok($restored eq join("\n", @oracle),
	'every version is back, cell by cell, timestamps to the microsecond, as the backup\'s snapshot saw it')
  or diag(first_difference($restored, join("\n", @oracle)));
is( $b->safe_psql(
		'postgres',
		q{SELECT string_agg(table_name || ':' || family || ':' || gc_policy || ':' || coalesce(aggregate, ''), ',' ORDER BY 1) FROM widecolumn.families('wc')}
	),
	$a->safe_psql(
		'postgres',
		q{SELECT string_agg(table_name || ':' || family || ':' || gc_policy || ':' || coalesce(aggregate, ''), ',' ORDER BY 1) FROM widecolumn.families('wc')}
	),
	'every family is back with its policy and aggregate, the empty table\'s too');
is( $b->safe_psql('postgres', q{SELECT count(*) FROM events WHERE rowkey LIKE 'w%'}),
	$log_seen,
	"the restored table holds the writer's commits the native table showed the snapshot ($log_seen), no more"
);
is($b->safe_psql('postgres', 'SELECT sum(views) FROM video'),
	$views_seen, "the counters hold the sum the snapshot saw ($views_seen)");
is( $b->safe_psql('postgres', q{SELECT count(*) FROM events WHERE rowkey LIKE 'e02%'}),
	'1', 'the dropped row range stays dropped, the row written after the drop is there');

# aggregates come back as aggregates: an INSERT merges into them
my ($v1, $low1, $high1) = split /\|/,
  $b->safe_psql('postgres', q{SELECT views, low, high FROM video WHERE rowkey = 'v1'});
$b->safe_psql('postgres',
	q{INSERT INTO video (rowkey, views, low, high) VALUES ('v1', 1000, 5000, -5)});
is( $b->safe_psql('postgres', q{SELECT views, low, high FROM video WHERE rowkey = 'v1'}),
	($v1 + 1000) . "|$low1|$high1",
	"a restored sum adds, a min and a max keep their extremes against values that lose ($low1, $high1)");
$b->safe_psql('postgres',
	q{INSERT INTO video (rowkey, views, low, high) VALUES ('v1', -1000, -5, 5000)});
is( $b->safe_psql('postgres', q{SELECT views, low, high FROM video WHERE rowkey = 'v1'}),
	"$v1|-5|5000", 'and take values that win');

# What restore and backup refuse, changing nothing.
my $before = $b->safe_psql('postgres', $all_cells);
sub fails
{
	my ($node, $sql, $state, $re, $label) = @_;
	my ($r, $o, $e) = $node->psql('postgres', "\\set VERBOSITY verbose\n$sql");
	is(sqlstate($e), $state, "$label: $state");
	like($e, $re, "$label: the message says why");
	return;
}
fails($b, "SELECT widecolumn.restore('wc', '$bk')", '55000',
	qr/stored table "empty" of server "wc" is not empty/,
	'a restore into tables that hold data');
is($b->safe_psql('postgres', $all_cells), $before, 'and it left the tables as they were');

$b->safe_psql(
	'postgres', q{
CREATE SERVER dropped FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
SELECT widecolumn.create_family('dropped', 'video', 'views');
SELECT widecolumn.drop_table('dropped', 'video');
CREATE SERVER fresh FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
CREATE FOREIGN TABLE fresh_events (rowkey text COLLATE "C", v text OPTIONS (column 'v3:v'))
  SERVER fresh OPTIONS (table 'events');
});
fails($b, "BEGIN; SELECT widecolumn.drop_row_range('fresh_events', 'x'); SELECT widecolumn.restore('fresh', '$bk')",
	'55000', qr/cannot restore into server "fresh" after this transaction changed its column families or dropped rows/,
	'a restore after a drop in the same transaction, which its COMMIT would stamp after the versions');
fails($b, "SELECT widecolumn.restore('dropped', '$bk')", '55000',
	qr/stored table "video" of server "dropped" is not empty/,
	'a restore into a table that was dropped, whose drop would hide the old versions');
is($b->safe_psql('postgres', q{SELECT count(*) FROM widecolumn.families('dropped')}),
	'0', 'and it created no family');
$b->safe_psql('postgres', q{SELECT widecolumn.compact('dropped', 'video')});
is($b->safe_psql('postgres', "BEGIN; SELECT widecolumn.restore('dropped', '$bk'); ROLLBACK"),
	$backed_up, 'once compact has deleted the drop too, the table takes a restore');

# a backup whose file was cut short
my $cut = "$dir/cut";
mkdir $cut or die;
for my $t (@{ $manifest->{tables} })
{
	PostgreSQL::Test::Utils::append_to_file("$cut/$t->{file}", slurp_file("$bk/$t->{file}"));
}
my $m = slurp_file("$bk/backup.json");
PostgreSQL::Test::Utils::append_to_file("$cut/backup.json", $m =~ s/"versions": (\d+)/'"versions": ' . ($1 + 1)/er);
fails($b, "SELECT widecolumn.restore('fresh', '$cut')", '22P04',
	qr/holds \d+ versions of stored table "empty"; the backup wrote 1/,
	'a backup file that holds other versions than the manifest says');
is($b->safe_psql('postgres', q{SELECT count(*) FROM widecolumn.families('fresh')}),
	'0', 'and the restore left nothing behind');
# a file cut short
my ($events_file) = map { $_->{file} } grep { $_->{table_name} eq 'events' } @{ $manifest->{tables} };
unlink "$cut/backup.json";
PostgreSQL::Test::Utils::append_to_file("$cut/backup.json", $m);
truncate("$cut/$events_file", (-s "$cut/$events_file") - 100) or die;
my ($r_cut, $o_cut, $e_cut) = $b->psql('postgres', "\\set VERBOSITY verbose\nSELECT widecolumn.restore('fresh', '$cut')");
is(sqlstate($e_cut), '22P04', 'a backup file cut short: 22P04');
like($e_cut, qr/Avro file ".*$events_file"/, 'the error names the file');
is($b->safe_psql('postgres', q{SELECT count(*) FROM widecolumn.families('fresh')}),
	'0', 'and the restore left nothing behind');
# manifests that are not a backup's
for my $bad (
	[ 'not JSON', '{"format": ' ],
	[ 'a file above the directory', $m =~ s/"file": "table-1.avro"/"file": "..\/table-1.avro"/r ],
	[ 'a file in another directory', $m =~ s/"file": "table-1.avro"/"file": "x\/table-1.avro"/r ],
	[ 'an empty table name', $m =~ s/"table_name": "empty"/"table_name": ""/r ],
	[ 'a table without families', $m =~ s/"families": \[[^\]]*\]/"families": []/r ],
	[ 'a fractional count', $m =~ s/"versions": (\d+)/"versions": $1.5/r ],
	[ 'a table named twice', $m =~ s/"table_name": "video"/"table_name": "events"/r ])
{
	my ($what, $text) = @$bad;
	unlink "$cut/backup.json";
	PostgreSQL::Test::Utils::append_to_file("$cut/backup.json", $text);
	fails($b, "SELECT widecolumn.restore('fresh', '$cut')", '22P04', qr/is not a backup of widecolumn_fdw 1/,
		"a manifest with $what");
}
is($b->safe_psql('postgres', q{SELECT count(*) FROM widecolumn.families('fresh')}),
	'0', 'and none of them left anything behind');
PostgreSQL::Test::Utils::append_to_file("$cut/other.json", '{"format": "something else"}');
unlink "$cut/backup.json";
fails($b, "SELECT widecolumn.restore('fresh', '$cut')", '58P01',
	qr/could not open file ".*backup\.json" for reading.*\n.*HINT:  A backup directory is one widecolumn\.backup wrote/,
	'a directory with no manifest');
PostgreSQL::Test::Utils::append_to_file("$cut/backup.json", '{"format": "something else", "version": 1, "tables": []}');
fails($b, "SELECT widecolumn.restore('fresh', '$cut')", '22P04',
	qr/is not a backup of widecolumn_fdw 1/, 'a manifest of another format');

fails($b, "SELECT widecolumn.backup('wc', '$bk')", '58P02',
	qr/could not create directory .*: File exists\n.*HINT:  A backup goes into a new directory/,
	'a backup into a directory that exists');
fails($b, "SELECT widecolumn.backup('wc', 'relative')", '42602',
	qr/relative path not allowed/, 'a relative path');
$b->safe_psql(
	'postgres', q{
CREATE ROLE filer LOGIN IN ROLE pg_write_server_files, pg_read_server_files;
GRANT USAGE ON FOREIGN SERVER wc TO filer;
CREATE ROLE srvowner LOGIN;
ALTER SERVER fresh OWNER TO srvowner;
});
fails($b, "SET ROLE filer; SELECT widecolumn.backup('wc', '$dir/by_filer')", '42501',
	qr/must be owner of foreign server wc/, 'a backup by a role that does not own the server');
fails($b, "SET ROLE srvowner; SELECT widecolumn.backup('fresh', '$dir/by_owner')", '42501',
	qr/pg_write_server_files role to back up/, 'a backup by an owner who may not write server files');
fails($b, "SET ROLE srvowner; SELECT widecolumn.restore('fresh', '$bk')", '42501',
	qr/pg_read_server_files role to restore/, 'a restore by an owner who may not read server files');
ok(!-e "$dir/by_filer" && !-e "$dir/by_owner", 'and the refused backups made no directory');
fails($b, "BEGIN; INSERT INTO events (rowkey, v) VALUES ('new', 'x'); SELECT widecolumn.backup('wc', '$dir/after_write')",
	'55000', qr/cannot export stored table "events" after this transaction wrote to it/,
	'a backup after a write in the same transaction, which fails after it made its directory');
ok(!-e "$dir/after_write", 'and the failed backup removed its directory');

# The restored server backs up and restores again; progress is reported.
my $again = "$dir/again";
($rc, $out, $err) = $b->psql('postgres',
	"SET widecolumn_fdw.debug_progress_notice_interval = 0; SELECT widecolumn.backup('fresh', '$dir/fresh'); SELECT widecolumn.backup('wc', '$again')"
);
my (undef, $again_versions) = split /\n/, $out;
like($err, qr/NOTICE:  widecolumn\.backup\(\) has been running for 0 seconds\nDETAIL:  It has written \d+ cell versions of stored table "\w+" to its file\./,
	'a backup says how far it is');
is($b->safe_psql('postgres', "SELECT count(*) FROM pg_ls_dir('$dir/fresh')"), '1',
	'a backup of a server with no tables is its manifest alone');
($rc, $out, $err) = $b->psql('postgres',
	"SET widecolumn_fdw.debug_progress_notice_interval = 0; BEGIN; SELECT widecolumn.restore('fresh', '$again'); ROLLBACK;"
);
is($out, $again_versions, "the restored server's backup restores again ($again_versions versions)");
like($err, qr/NOTICE:  widecolumn\.restore\(\) has been running for 0 seconds\nDETAIL:  It has read \d+ of \d+ bytes of the file of stored table "\w+"\./,
	'a restore says how far it is');

# READ COMMITTED: the backup's statement's snapshot, which a native read in
# the same statement shares, while the writer commits again.
($wout, $werr) = ('', '');
$writer = IPC::Run::start(
	[
		'pgbench', '-n', '-c', '1', '-T', '4', '-f', $writer_script,
		'-h', $a->host, '-p', $a->port, 'postgres'
	],
	'<', '/dev/null', '>', \$wout, '2>', \$werr);
my $before_rc = log_count();
usleep(50_000) while log_count() < $before_rc + 50 && time() < $deadline + 60;
my ($rc_versions, $rc_logged) = split /\|/, $a->safe_psql('postgres',
	"SELECT widecolumn.backup('wc', '$dir/rc'), (SELECT count(*) FROM log)");
$writer->finish;
is($writer->result(0), 0, 'the writer ran again') or diag($werr);
ok(log_count() > $rc_logged, "and committed after the READ COMMITTED backup's snapshot ($rc_logged)");
$a->safe_psql(
	'postgres', q{
CREATE SERVER rc_restored FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
CREATE FOREIGN TABLE rc_events (rowkey text COLLATE "C", v text OPTIONS (column 'v3:v'))
  SERVER rc_restored OPTIONS (table 'events');
});
is($a->safe_psql('postgres', "SELECT widecolumn.restore('rc_restored', '$dir/rc')"),
	$rc_versions, 'the READ COMMITTED backup restores');
is($a->safe_psql('postgres', q{SELECT count(*) FROM rc_events WHERE rowkey LIKE 'w%'}),
	$rc_logged, "and holds exactly the writer's commits its statement's native read saw ($rc_logged)");

$a->stop;
$b->stop;
done_testing();
