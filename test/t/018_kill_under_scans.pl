
# kill -9 of the storage worker while many sessions read at once: full
# scans, cursors moved through the table in steps (so their scans stay open
# in the worker), and point reads, with widecolumn_fdw.worker_threads = 4
# (more reader threads than this machine may have CPUs).
#
# Every session must end with a clear error (the extension's lost
# connection, SQLSTATE 08006, or the server's crash message, 57P02), none
# may hang or get another error, and every answer a session printed before
# the crash must be right.  Then a new worker runs and the data is exactly
# what was committed: the same checksum as before, and the same rows as the
# native twin.
#
# Every wait polls with a timeout; nothing depends on how long anything
# takes.  Each session runs a script far longer than the test and the kill
# comes once every session has answered a few times.

use strict;
use warnings;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;
use Time::HiRes qw(usleep);

my $ROWS = 20_000;

my $node = wc_node('wc_kill_scans',
	"restart_after_crash = on\nwidecolumn_fdw.worker_threads = 4\n");

$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE big (k text OPTIONS (rowkey 'true') COLLATE "C", v int, w text)
	SERVER wc;
CREATE TABLE big_n (k text COLLATE "C" PRIMARY KEY, v int, w text);
INSERT INTO big_n SELECT 'k' || lpad(g::text, 5, '0'), g, md5(g::text) || repeat('w', 68)
	FROM generate_series(1, $ROWS) g;
INSERT INTO big SELECT * FROM big_n;
});

my $SUM = q{SELECT count(*) || ' ' || sum(hashtext(k || '/' || v || '/' || w)::bigint) FROM big};
my $before = $node->safe_psql('postgres', $SUM);
like($before, qr/^$ROWS -?\d+$/, 'checksum of the committed data');
my $scan_md5 = $node->safe_psql('postgres',
	q{SELECT md5(string_agg(k || v || w, ',' ORDER BY k)) FROM big_n});

my $scratch = PostgreSQL::Test::Utils::tempdir;

sub write_script
{
	my ($name, $text) = @_;
	my $file = "$scratch/$name.sql";
	open(my $fh, '>', $file) or die "could not write $file: $!";
	print $fh $text;
	close($fh);
	return $file;
}

# Full scans: "scan <md5 of every row>".
sub scan_script
{
	return write_script($_[0],
		"SELECT 'scan ' || md5(string_agg(k || v || w, ',' ORDER BY k)) FROM big;\n" x 5000);
}

# A cursor through the whole table in steps, in a transaction: "MOVE n"
# lines between "cursor begin" and "cursor done".
sub cursor_script
{
	my $tx = "\\echo cursor begin\nBEGIN;\nDECLARE c NO SCROLL CURSOR FOR SELECT k, v, w FROM big;\n"
	  . "MOVE 3000 IN c;\nSELECT pg_sleep(0.05) \\g /dev/null\n" x 4
	  . "MOVE ALL IN c;\nCOMMIT;\n\\echo cursor done\n";
	return write_script($_[0], $tx x 3000);
}

# Point reads: "point <key> <v>", v is the key's number.
sub point_script
{
	my ($name, $seed) = @_;
	my $text = '';
	for my $i (1 .. 20_000)
	{
		my $n = 1 + ($seed * 7919 + $i * 104_729) % $ROWS;
		$text .= sprintf("SELECT 'point ' || k || ' ' || v FROM big WHERE k = 'k%05d';\n", $n);
	}
	return write_script($name, $text);
}

# How many answers a client has printed.
sub answers
{
	my ($c) = @_;
	my $n = () = $c->{out} =~ /^(?:scan |point |cursor done)/mg;
	return $n;
}

# The wrong answers among what a client printed.
sub wrong_answers
{
	my ($c) = @_;
	my @bad;
	my $moved;
	foreach my $l (split /\n/, $c->{out})
	{
		if ($l =~ /^scan (\S*)$/)
		{
			push @bad, $l if $1 ne $scan_md5;
		}
		elsif ($l =~ /^point k(\d+) (-?\d+)$/)
		{
			push @bad, $l if $1 + 0 != $2;
		}
		elsif ($l eq 'cursor begin')
		{
			$moved = 0;
		}
		elsif ($l =~ /^MOVE (\d+)$/)
		{
			$moved += $1;
		}
		elsif ($l eq 'cursor done')
		{
			push @bad, "a cursor moved over $moved rows" if $moved != $ROWS;
		}
		elsif ($l ne 'BEGIN' && $l ne 'DECLARE CURSOR' && $l ne 'COMMIT')
		{
			push @bad, "unexpected output: $l";
		}
	}
	return @bad;
}

start_client($node, "scan$_", scan_script("scan$_")) for 1 .. 3;
start_client($node, "cursor$_", cursor_script("cursor$_")) for 1 .. 3;
start_client($node, "point$_", point_script("point$_", $_)) for 1 .. 4;

ok( wait_clients(sub { !grep { answers($_) < 3 } @clients }),
	'every session is reading')
  or diag(join("\n", map { "$_->{name}: $_->{err}" } @clients));

my $old = worker_pid($node);
ok(defined $old, 'storage worker is running');
kill 'KILL', $old if defined $old;

my $all = wait_clients(sub { !grep { !$_->{done} } @clients });
ok($all, 'every session ends (none hangs)');
foreach my $c (grep { !$_->{done} } @clients)
{
	diag("$c->{name} did not end; stdout tail: " . substr($c->{out}, -300));
	$c->{h}->kill_kill;
	$c->{done} = 1;
	$c->{rc} = -1;
}

my $clear = qr/terminating connection because of crash of another server process
	|lost\ connection\ to\ the\ widecolumn_fdw\ storage\ worker
	|server\ closed\ the\ connection\ unexpectedly
	|connection\ to\ server\ was\ lost/x;
my @bad;
foreach my $c (@clients)
{
	my @why;
	my @other = grep { $_ ne '08006' && $_ ne '57P02' }
	  $c->{err} =~ /(?:ERROR|FATAL|PANIC):\s+([0-9A-Z]{5}):/g;
	push @why, 'exit code ' . ($c->{rc} // 'none')
	  if !defined $c->{rc} || $c->{rc} == 0;
	push @why, 'no clear error' if $c->{err} !~ $clear;
	push @why, "unexpected SQLSTATE @other" if @other;
	my @wrong = wrong_answers($c);
	push @why, scalar(@wrong) . " wrong answers, e.g. $wrong[0]" if @wrong;
	my ($first) = $c->{err} =~ /^(.*(?:ERROR|FATAL|server closed).*)$/m;
	note("$c->{name}: " . answers($c) . ' answers, then: ' . ($first // $c->{err}));
	push @bad, "$c->{name}: " . join('; ', @why) if @why;
}
is_deeply(\@bad, [],
	'every session was cut off with a clear error, after right answers only');
note('cursors open when the worker was killed: '
	  . (grep { $_->{out} =~ /cursor begin\n(?:(?!cursor done).)*\z/s } @clients));

ok($node->poll_query_until('postgres', 'SELECT true'),
	'the server accepts queries again');
ok(defined wait_for_new_worker($node, $old), 'a new storage worker runs');

is($node->safe_psql('postgres', $SUM), $before,
	'after the restart the data has the checksum it had before');
is( $node->safe_psql(
		'postgres', q{
SELECT count(*) FROM ((SELECT * FROM big EXCEPT SELECT * FROM big_n)
	UNION ALL (SELECT * FROM big_n EXCEPT SELECT * FROM big)) d}),
	'0',
	'after the restart the foreign table holds the native twin\'s rows');

# and many sessions read at once again
sessions_at_once($node, 8, 5, 'sessions scan again after the restart',
	'scan_again',
	"SELECT 1 / (count(*) = $ROWS)::int FROM big;\n"
	  . "SELECT 1 / (v = 777)::int FROM big WHERE k = 'k00777';\n");

$node->stop;
done_testing();
