
# A damaged LevelDB data block reaches the session that reads it and nobody
# else.
#
# One foreign server's LevelDB database ("bad", stored uncompressed so that
# a row's value can be found in its table file) gets bytes flipped in the
# middle of the data block holding row r10000's value, while the cluster is
# stopped: so no cached copy of the block exists when it starts again.
# Then, at the same time:
#  - sessions reading another server's table, and the rows of "bad" far
#    from the damage, get exactly the rows of their native twins, every
#    time, with no error;
#  - a session scanning the damaged range, or reading the damaged row,
#    gets SQLSTATE XX001 (data corrupted) saying which database and what
#    LevelDB reported: its block checksum, which the worker has it verify
#    on every read (verify_checksums in storage.c), not a short or wrong
#    answer; the session goes on working after it.
# The storage worker keeps running (same pid) throughout.
#
# Every wait polls with a timeout; nothing depends on how long anything
# takes.

use strict;
use warnings;

use File::Find;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;
use Time::HiRes qw(usleep);

my $ROWS   = 20_000;
my $TARGET = 'r10000';    # the row whose data block is damaged

my $node = wc_node('wc_corrupt',
	"widecolumn_fdw.worker_threads = 4\nwidecolumn_fdw.sweep_naptime = 0\n");

$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER bad FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (compression 'none');
CREATE SERVER good FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE bad_t (k text OPTIONS (rowkey 'true') COLLATE "C", v int, w text)
	SERVER bad;
CREATE FOREIGN TABLE good_t (k text OPTIONS (rowkey 'true') COLLATE "C", v int, w text)
	SERVER good;
CREATE TABLE bad_n (k text COLLATE "C" PRIMARY KEY, v int, w text);
CREATE TABLE good_n (k text COLLATE "C" PRIMARY KEY, v int, w text);
INSERT INTO bad_n SELECT 'r' || lpad(g::text, 5, '0'), g,
	'VAL-r' || lpad(g::text, 5, '0') || '-' || repeat(md5(g::text), 6)
	FROM generate_series(0, $ROWS - 1) g;
INSERT INTO good_n SELECT 'g' || lpad(g::text, 5, '0'), g, repeat(md5(g::text), 4)
	FROM generate_series(0, $ROWS - 1) g;
INSERT INTO bad_t SELECT * FROM bad_n;
INSERT INTO good_t SELECT * FROM good_n;
});

# A restart makes LevelDB write what its log holds into a table file; the
# stop after it leaves every file as it is.
$node->restart;
$node->safe_psql('postgres', 'SELECT count(*) FROM bad_t');
$node->stop;

my $marker = "VAL-$TARGET-";
my @hits;
my @logs;
find(
	sub {
		return unless -f $_ && /\.(ldb|sst|log)$/;
		my $file = $File::Find::name;
		my $data = slurp_file($file);
		my $at   = index($data, $marker);
		return if $at < 0;
		if (/\.log$/) { push @logs, $file; }
		else { push @hits, [ $file, $at, length($data) ]; }
	},
	$node->data_dir . '/widecolumn_fdw');
is(scalar(@logs), 0, 'no LevelDB log holds the row any more')
  or diag("@logs");
is(scalar(@hits), 1, "one LevelDB table file holds ${TARGET}'s value")
  or diag(join(', ', map { $_->[0] } @hits));
my ($file, $at, $size) = @{ $hits[0] };
note("${TARGET}'s value at byte $at of $file ($size bytes)");
ok($at > 64 * 1024 && $at < $size - 64 * 1024,
	'the value is in a data block in the middle of the file');

# Flip 16 bytes of the value: the block's CRC no longer matches.
open(my $fh, '+<:raw', $file) or die "could not open $file: $!";
seek($fh, $at + 24, 0);
read($fh, my $buf, 16) == 16 or die "could not read $file: $!";
seek($fh, $at + 24, 0);
print $fh ($buf ^ ("\xff" x 16));
close($fh) or die "could not write $file: $!";

$node->start;
my $worker = worker_pid($node);
ok(defined $worker, 'storage worker is running');

# Readers of undamaged data, each running its checks many times: a line
# "ok" per right answer, anything else is wrong.
my $twin_check = sub {
	my ($f, $n, $where) = @_;
	return "SELECT CASE WHEN count(*) = 0 THEN 'ok' ELSE 'differ' END FROM "
	  . "((SELECT * FROM $f WHERE $where EXCEPT SELECT * FROM $n WHERE $where) UNION ALL "
	  . "(SELECT * FROM $n WHERE $where EXCEPT SELECT * FROM $f WHERE $where)) d;\n";
};
my @scripts = (
	$twin_check->('good_t', 'good_n', 'true'),
	$twin_check->('bad_t', 'bad_n', "k < 'r05000'"),
	$twin_check->('bad_t', 'bad_n', "k >= 'r15000'"),
	"SELECT CASE WHEN v = 2 THEN 'ok' ELSE 'wrong' END FROM bad_t WHERE k = 'r00002';\n"
	  . "SELECT CASE WHEN v = 19000 THEN 'ok' ELSE 'wrong' END FROM bad_t WHERE k = 'r19000';\n"
	  . "SELECT CASE WHEN v = 10000 THEN 'ok' ELSE 'wrong' END FROM good_t WHERE k = 'g10000';\n");
my $ROUNDS = 100;
my $scratch = PostgreSQL::Test::Utils::tempdir;
my @clients;
for my $i (0 .. $#scripts)
{
	my $f = "$scratch/reader$i.sql";
	open(my $sf, '>', $f) or die "could not write $f: $!";
	print $sf $scripts[$i] x $ROUNDS;
	close($sf);
	my $c = { name => "reader$i", out => '', err => '', done => 0 };
	$c->{expect} = $ROUNDS * (() = $scripts[$i] =~ /;\n/g);
	$c->{h} = IPC::Run::start(
		[
			'psql', '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1',
			'-v', 'VERBOSITY=verbose',
			'-d', $node->connstr('postgres'), '-f', $f
		],
		'<', '/dev/null', '>', \$c->{out}, '2>', \$c->{err});
	push @clients, $c;
}

# The session that reads the damage, several times while the readers run
# (once each has answered).
my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
while (grep { $_->{out} !~ /^ok$/m } @clients and time() < $deadline)
{
	$_->{h}->pump_nb for grep { $_->{h}->pumpable } @clients;
	usleep(5_000);
}
my $victim = $node->background_psql('postgres', on_error_stop => 0);
$victim->query_safe('\set VERBOSITY verbose');
my @damaged = (
	[ 'a range scan', "SELECT count(*) FROM bad_t WHERE k >= 'r09900' AND k < 'r10100'" ],
	[ 'a full scan', 'SELECT count(*), sum(length(w)) FROM bad_t' ],
	[ 'a point read', "SELECT v, w FROM bad_t WHERE k = '$TARGET'" ]);
foreach my $round (1 .. 3)
{
	foreach my $d (@damaged)
	{
		my ($label, $sql) = @$d;
		$victim->{stderr} = '';
		my ($out, $ret) = $victim->query($sql);
		my $err = $victim->{stderr};
		isnt($ret, 0, "$label of the damaged block fails (round $round)")
		  or diag("it returned: $out");
		is(sqlstate($err), 'XX001', "$label: SQLSTATE XX001 (data corrupted)")
		  or diag($err);
		like($err, qr/could not read LevelDB database ".*widecolumn_fdw\/\d+-\d+"/,
			"$label: the error names the database");
		like($err, qr/LevelDB reported: Corruption: block checksum mismatch/,
			"$label: the detail says the block's checksum caught it");
		like($err, qr/HINT:.*Restore the database's directory from a backup/,
			"$label: the hint says what to do");
	}
}
$victim->{stderr} = '';
my ($after, $ok) = $victim->query(
	"SELECT count(*) FROM bad_t WHERE k >= 'r18000'");
is("$ok|$after", "0|2000", 'the session that met the damage goes on reading');
$victim->quit;

$deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
while (grep { !$_->{done} } @clients and time() < $deadline)
{
	foreach my $c (grep { !$_->{done} } @clients)
	{
		$c->{h}->pump_nb if $c->{h}->pumpable;
		next if $c->{h}->pumpable;
		$c->{h}->finish;
		$c->{rc} = $c->{h}->result(0);
		$c->{done} = 1;
	}
	usleep(5_000);
}
foreach my $c (@clients)
{
	if (!$c->{done})
	{
		$c->{h}->kill_kill;
		$c->{rc} = -1;
	}
	my $good  = () = $c->{out} =~ /^ok$/mg;
	my $lines = () = $c->{out} =~ /^/mg;
	is("$c->{rc}|$good|$lines|$c->{err}", "0|$c->{expect}|$c->{expect}|",
		"$c->{name}: every answer meanwhile is right, no error");
}

is(worker_pid($node), $worker, 'the storage worker kept running (same pid)');
is($node->safe_psql('postgres', 'SELECT count(*) FROM good_t'),
	$ROWS, 'another database reads in full afterwards');

$node->stop;
done_testing();
