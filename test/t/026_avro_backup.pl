
# Backup and restore with Avro files: every stored table of a server is
# exported while another session writes, the tables are dropped, their
# families made again and the files imported: the data is the same,
# versions and timestamps (to the millisecond, as Bigtable keeps them)
# included.  The export is of one snapshot: the
# writer changes the table's first and last rows in each of its
# transactions, so a file that mixed two moments would hold different
# versions for them.
#
# Then kill -9 of the storage worker during an import's COMMIT: held
# between the writes and the COMMIT (widecolumn_fdw.debug_pause_before_commit_ms),
# nothing is written; killed as the COMMIT runs, all or nothing is; and
# an import into a new table, committed in chunks, killed between two.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;
use Time::HiRes qw(usleep);

my $node = wc_node('wc_avro_backup', "restart_after_crash = on\n");
my $dir = PostgreSQL::Test::Utils::tempdir;

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
SELECT widecolumn.create_family('wc', 'users', 'profile', 'never');
SELECT widecolumn.create_family('wc', 'users', 'stats', 'maxversions=3');
SELECT widecolumn.create_family('wc', 'events', 'e', 'maxage=3650d or maxversions=2');
CREATE FOREIGN TABLE users (rowkey text COLLATE "C", name text OPTIONS (column 'profile:name'),
	visits int OPTIONS (column 'stats:visits')) SERVER wc;
CREATE FOREIGN TABLE events (rowkey text COLLATE "C", family text COLLATE "C",
	qualifier text COLLATE "C", ts timestamptz, value text) SERVER wc OPTIONS (layout 'cells');
INSERT INTO users SELECT 'u' || lpad(g::text, 6, '0'), 'name ' || g, g FROM generate_series(1, 20000) g;
UPDATE users SET visits = visits + 1 WHERE rowkey < 'u010000';
UPDATE users SET visits = visits + 1, name = name || '!' WHERE rowkey < 'u005000';
UPDATE users SET visits = visits + 1 WHERE rowkey < 'u002000';
DELETE FROM users WHERE rowkey LIKE '%7';
INSERT INTO users VALUES ('a', 'w0', 0), ('zzz', 'w0', 0);
INSERT INTO events SELECT 'ev' || (g % 500), 'e', 'q' || (g % 7),
	timestamptz '2024-01-01 00:00+00' + g * interval '1 second', 'v' || g
	FROM generate_series(1, 20000) g;
-- a cells-layout table of every stored table of the server, to export and compare
SELECT format('CREATE FOREIGN TABLE %I (rowkey bytea, family text COLLATE "C", qualifier bytea,
	ts timestamptz, value bytea) SERVER wc OPTIONS (table %L, layout %L)', 'bk_' || t, t, 'cells')
	FROM (SELECT DISTINCT table_name AS t FROM widecolumn.families('wc')) s \gexec
CREATE TABLE saved_families AS SELECT * FROM widecolumn.families('wc');
});

# Every version of a stored table but the writer's two rows, as one digest
# The versions as an export keeps them, in Bigtable's milliseconds: each
# timestamp rounded down, the newest of a cell's versions in one
# millisecond.
sub digest
{
	my ($t) = @_;
	return $node->safe_psql('postgres', qq{
SELECT count(*) || ' ' || md5(string_agg(format('%s|%s|%s|%s|%s', rowkey, family, qualifier, ts, value),
	',' ORDER BY rowkey, family, qualifier, ts DESC))
	FROM (SELECT DISTINCT ON (rowkey, family, qualifier, date_trunc('milliseconds', ts))
	             rowkey, family, qualifier, date_trunc('milliseconds', ts) AS ts, value
	        FROM $t WHERE rowkey NOT IN ('a', 'zzz')
	       ORDER BY rowkey, family, qualifier, date_trunc('milliseconds', ts), ts DESC) v});
}
my %before = map { $_ => digest("bk_$_") } qw(users events);

# The writer: each transaction gives the first and the last row the same new name
my $script = "$dir/writer.sql";
open(my $fh, '>', $script) or die "could not write $script: $!";
print $fh "UPDATE users SET name = 'w$_' WHERE rowkey IN ('a', 'zzz');\n" foreach 1 .. 200000;
close($fh);
my $writer = start_client($node, 'writer', $script);
ok(wait_clients(sub { ($writer->{out} =~ tr/\n//) >= 20 }), 'the writer commits');

my %rows;
foreach my $t (qw(users events))
{
	my $n0 = ($writer->{out} =~ tr/\n//);
	$rows{$t} = $node->safe_psql('postgres',
		"SELECT widecolumn.export_avro('bk_$t', path => '$dir/$t.avro')");
	pump_clients();
	note("$t: $rows{$t} rows exported while the writer committed "
		  . (($writer->{out} =~ tr/\n//) - $n0) . ' transactions');
}
ok(!$writer->{done}, 'the writer still ran after the exports');
$writer->{h}->kill_kill;
$node->safe_psql('postgres',
	q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'UPDATE users SET name%'});

# Drop the tables, sweep the drops, make their families again, import
$node->safe_psql('postgres', q{
SELECT widecolumn.drop_table('wc', t) FROM (SELECT DISTINCT table_name AS t FROM saved_families) s;
});
is($node->safe_psql('postgres', 'SELECT count(*) FROM bk_users UNION ALL SELECT count(*) FROM bk_events'),
	"0\n0", 'the tables are dropped');
# versions older than a drop are hidden by it until it is swept (docs/format.md)
my ($ret, $out, $err) = $node->psql('postgres',
	q{SELECT widecolumn.compact('wc', t) FROM (SELECT DISTINCT table_name AS t FROM saved_families) s},
	timeout => $PostgreSQL::Test::Utils::timeout_default);
is($ret, 0, 'compact sweeps the drops') or BAIL_OUT("compact: $err");
$node->safe_psql('postgres', q{
SELECT widecolumn.create_family('wc', table_name, family, gc_policy) FROM saved_families;
});
foreach my $t (qw(users events))
{
	is($node->safe_psql('postgres', "SELECT widecolumn.import_avro('bk_$t', '$dir/$t.avro')"),
		$rows{$t}, "$t: every row imported");
	is(digest("bk_$t"), $before{$t}, "$t: the same versions, with their timestamps");
}
is( $node->safe_psql('postgres', 'TABLE saved_families EXCEPT SELECT * FROM widecolumn.families(\'wc\')'),
	'', 'the same families and policies');

# One snapshot: the first and last rows have the same versions in the file
my $pair = $node->safe_psql('postgres', q{
SELECT string_agg(convert_from(value, 'UTF8'), ',' ORDER BY ts) FROM bk_users
	WHERE rowkey = 'a' AND family = 'profile'
UNION ALL
SELECT string_agg(convert_from(value, 'UTF8'), ',' ORDER BY ts) FROM bk_users
	WHERE rowkey = 'zzz' AND family = 'profile'});
my ($first, $last) = split /\n/, $pair;
ok(length($first) > 0, 'the writer\'s rows were exported');
is($first, $last, 'the first and the last row are of the same moment');
# and the mapped table reads the restored rows
is($node->safe_psql('postgres', q{SELECT count(*) FROM users WHERE rowkey NOT IN ('a', 'zzz')}),
	'18000', 'the mapped table reads the restored rows');

# kill -9 of the worker in an import's COMMIT
$node->safe_psql('postgres', q{
SELECT widecolumn.create_family('wc', 'imp', 'profile', 'never');
SELECT widecolumn.create_family('wc', 'imp', 'stats', 'never');
CREATE FOREIGN TABLE imp (rowkey bytea, family text, qualifier bytea, ts timestamptz, value bytea)
	SERVER wc OPTIONS (layout 'cells');
});
my $full = $node->safe_psql('postgres', 'SELECT count(*) FROM bk_users');

# Without a pause the COMMIT may be over before a poll sees it (each poll
# is a psql, slow under the sanitizers): then the import runs again on an
# emptied table, up to $tries times.
sub import_killed
{
	my ($pause, $label, $tries) = @_;
	my $file = "$dir/import_$label.sql";
	open(my $fh, '>', $file) or die "could not write $file: $!";
	print $fh "SET application_name = 'importer';\n";
	print $fh "SET widecolumn_fdw.debug_pause_before_commit_ms = $pause;\n" if $pause;
	print $fh "BEGIN;\nSELECT widecolumn.import_avro('imp', '$dir/users.avro');\nCOMMIT;\n";
	close($fh);
	my $c;
	my $in_commit = 0;
	for (my $try = 1; !$in_commit && $try <= $tries; $try++)
	{
		$node->safe_psql('postgres', q{SELECT widecolumn.drop_row_range('imp', ''::bytea)})
		  if $try > 1;
		$c = start_client($node, "importer_${label}_$try", $file);
		for (my $i = 0; $i < 30000 && !$in_commit && !$c->{done}; $i++)
		{
			pump_clients();
			$in_commit = $node->safe_psql('postgres',
				q{SELECT count(*) FROM pg_stat_activity WHERE application_name = 'importer'
					AND starts_with(query, 'COMMIT')});
			usleep(1_000) unless $in_commit;
		}
		wait_clients(sub { $c->{done} }) unless $in_commit;
	}
	ok($in_commit, "$label: the import is in its COMMIT" . ($tries > 1 ? " (in one of $tries tries)" : ''));
	my $worker = worker_pid($node);
	kill 'KILL', $worker;
	ok(wait_clients(sub { $c->{done} }), "$label: the session ends");
	$node->poll_query_until('postgres', 'SELECT true') or die 'the server did not come back';
	ok(defined wait_for_new_worker($node, $worker), "$label: a new storage worker runs");
	return $node->safe_psql('postgres', 'SELECT count(*) FROM imp');
}

is(import_killed(5000, 'held', 1), '0', 'killed before its COMMIT message: nothing written');
my $n = import_killed(0, 'racing', 5);
ok($n eq '0' || $n eq $full, "killed as the COMMIT runs: all or nothing ($n of $full)");

# An import of more than 4 MiB into a new table is committed in chunks, as
# a COPY is; the worker killed between two of them (the hidden setting
# widecolumn_fdw.debug_crash_after_commit_batches), the next open removes
# what the first wrote.
$node->safe_psql('postgres', q{
CREATE FOREIGN TABLE big (rowkey text OPTIONS (rowkey 'true') COLLATE "C", v text) SERVER wc;
INSERT INTO big SELECT 'b' || lpad(g::text, 6, '0'), repeat('x', 200) || g FROM generate_series(1, 50000) g;
CREATE FOREIGN TABLE big_copy (rowkey text COLLATE "C", family text COLLATE "C",
	qualifier text COLLATE "C", ts timestamptz, value bytea) SERVER wc OPTIONS (table 'big_copy', layout 'cells');
});
$node->safe_psql('postgres', "SELECT widecolumn.export_avro('big', path => '$dir/big.avro')");
$node->safe_psql('postgres',
	'ALTER SYSTEM SET widecolumn_fdw.debug_crash_after_commit_batches = 1; SELECT pg_reload_conf();');
$node->safe_psql('postgres', 'SELECT count(*) FROM big_copy');
my $worker = worker_pid($node);
($ret, $out, $err) = $node->psql('postgres',
	"BEGIN; SELECT widecolumn.import_avro('big_copy', '$dir/big.avro'); COMMIT;");
isnt($ret, 0, 'a large import into a new table is chunked: killed after its first chunk');
ok(defined wait_for_new_worker($node, $worker), 'a new storage worker runs');
$node->poll_query_until('postgres', 'SELECT true') or die 'the server did not come back';
$node->safe_psql('postgres',
	'ALTER SYSTEM RESET widecolumn_fdw.debug_crash_after_commit_batches; SELECT pg_reload_conf();');
is($node->safe_psql('postgres', 'SELECT count(*) FROM big_copy'), '0',
	'nothing of the interrupted import is left');
is($node->safe_psql('postgres', q{SELECT count(*) FROM widecolumn.families('wc') WHERE table_name = 'big_copy'}),
	'0', 'nor the family it made');
is($node->safe_psql('postgres', "BEGIN; SELECT widecolumn.import_avro('big_copy', '$dir/big.avro'); COMMIT;"),
	'50000', 'imported again, uninterrupted');
is($node->safe_psql('postgres', q{SELECT count(*), sum(length(value)) FROM big_copy}),
	$node->safe_psql('postgres', q{SELECT count(*), sum(length(v)) FROM big}), 'it holds every value');

$node->stop;
done_testing();
