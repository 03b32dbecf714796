# Helpers shared by widecolumn_fdw's TAP tests.
package WcTest;

use strict;
use warnings;

use Config;
use Exporter 'import';
use File::Copy ();
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use File::Basename ();
use FindBin;
use Test::More ();
use Time::HiRes qw(usleep);

our @EXPORT =
  qw(wc_node wc_fixture_copy wc_run_statements worker_pid wait_for_new_worker sqlstate sessions_at_once @clients start_client pump_clients wait_clients wc_commit_held wc_bt_emulator wc_bt_start_emulator wc_bt_cbt wc_bt_wall wc_bt_stop_emulator wc_normal_policy wc_cbt_families wc_bt_test_start wc_with_cbt wc_cbt_home wc_with_google $WC_BTWALL wc_unblocked_signals @WC_PG_SIGNALS wc_log_written wc_same_as_native);

my $WORKER = 'widecolumn_fdw storage worker';

# Signal numbers by name, from Perl's build of the C library's <signal.h>,
# and the signals PostgreSQL installs handlers for (URG: latch wakeups).
my %signo;
@signo{ split ' ', $Config{sig_name} } = split ' ', $Config{sig_num};
our @WC_PG_SIGNALS = grep { exists $signo{$_} } qw(HUP INT QUIT TERM USR1 USR2 ALRM URG);

# Thread $tid of process $pid: the signals of @WC_PG_SIGNALS it does not
# block (names without SIG), from /proc/<pid>/task/<tid>/status, or undef
# where its mask cannot be read.  The hex mask is read nibble by nibble
# (signal n is bit n-1), so 64-bit masks need no 64-bit integers.
sub wc_unblocked_signals
{
	my ($pid, $tid) = @_;
	my $status = eval { slurp_file("/proc/$pid/task/$tid/status") };
	return undef unless defined $status && $status =~ /^SigBlk:\s*([0-9a-f]+)$/m;
	my $hex = $1;
	my @open;
	foreach my $name (@WC_PG_SIGNALS)
	{
		my $n = $signo{$name};
		my $nibble = substr($hex, length($hex) - 1 - int(($n - 1) / 4), 1);
		push @open, $name unless (hex($nibble) >> (($n - 1) % 4)) & 1;
	}
	return \@open;
}

# The end of what LevelDB wrote to its log $file: past its last record,
# before the zeros the storage worker allocates ahead of the writes
# (src/worker/leveldb/logfiles.c: 32 kB blocks of records, each a 7-byte
# header, its length at bytes 4-5 and its type, never 0, at byte 6; a
# block's last bytes, too few for a header, are zeros).
sub wc_log_written
{
	my ($file) = @_;
	open(my $fh, '<:raw', $file) or die "could not open $file: $!";
	my $data = do { local $/; <$fh> };
	close($fh);
	my $pos = 0;
	while ($pos < length($data))
	{
		my $left = 32768 - $pos % 32768;
		if ($left < 7)
		{
			$pos += $left;
			next;
		}
		last if $pos + 7 > length($data);
		my ($len, $type) = unpack('v C', substr($data, $pos + 4, 3));
		last if $type == 0;
		$pos += 7 + $len;
	}
	return $pos;
}

# The Bigtable engine's wall as a command (test/bigtable/btwall, built by
# make test).
our $WC_BTWALL = "$FindBin::RealBin/../bigtable/btwall";

# A session whose transaction runs $sql and then COMMITs, held after its
# foreign writes are stored (widecolumn_fdw.debug_wait_after_store) by the
# advisory lock $key, which the returned holder session has; returns the
# holder, the writer and the writer's pid once it waits there.
sub wc_commit_held
{
	my ($node, $sql, $key) = @_;
	my $holder = $node->background_psql('postgres');
	$holder->query_safe("SELECT pg_advisory_lock($key)");
	my $writer = $node->background_psql('postgres', on_error_stop => 0);
	$writer->query_safe("BEGIN; SET LOCAL widecolumn_fdw.debug_wait_after_store = $key;" . $sql);
	my $pid = $writer->query_safe('SELECT pg_backend_pid()');
	$writer->query_until(qr/^$/, "COMMIT;\n");
	$node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_locks WHERE pid = $pid AND locktype = 'advisory' AND NOT granted")
	  or die "the writer did not reach the wait after its store";
	return ($holder, $writer, $pid);
}

# The Bigtable emulator to test against, and whether it is Google's:
# Google's where it is installed, else the one make deps builds from
# Debian's packages (test/bigtable/emulator), else none.  WC_TEST_EMULATOR
# names another, taken as the older kind.
sub wc_bt_emulator
{
	my $google = '/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator';
	my $debian = '/usr/local/lib/widecolumn_fdw/cbtemulator';
	return ($ENV{WC_TEST_EMULATOR}, 0) if $ENV{WC_TEST_EMULATOR};
	return ($google, 1) if -x $google;
	return ($debian, 0) if -x $debian;
	return (undef, 0);
}

# The emulator $binary (wc_bt_emulator's) on a free loopback port, once it
# answers the wall (test/bigtable/btwall) within a minute: its endpoint.
# It is stopped when the test ends.
my $bt_emulator;

sub wc_bt_start_emulator
{
	my ($binary) = @_;
	my $port = PostgreSQL::Test::Cluster::get_free_port();
	my $endpoint = "127.0.0.1:$port";
	my $wall = $WC_BTWALL;
	my ($out, $err) = ('', '');

	$bt_emulator = IPC::Run::start([ $binary, '-host', '127.0.0.1', '-port', $port ],
		'>', \$out, '2>', \$err);
	for (1 .. 60)
	{
		my ($in, $o, $e) = ('', '', '');
		IPC::Run::run([ $wall, $endpoint, 'projects/p/instances/i', 'tables' ],
			'<', \$in, '>', \$o, '2>', \$e);
		return $endpoint if $? == 0;
		sleep 1;
	}
	Test::More::BAIL_OUT("the Bigtable emulator did not come up: $err");
}

END { local $?; $bt_emulator->kill_kill if $bt_emulator; }

# Kill the emulator wc_bt_start_emulator started (SIGKILL), now.
sub wc_bt_stop_emulator
{
	$bt_emulator->kill_kill if $bt_emulator;
	$bt_emulator = undef;
}

# A test of the Bigtable engine begins: skipped without an emulator, bailed
# out without the wall; the emulator started.  Its endpoint and cbt ('' if
# missing).
sub wc_bt_test_start
{
	my ($emulator) = wc_bt_emulator();

	Test::More::plan(skip_all => 'no Bigtable emulator: make deps builds one') unless $emulator;
	Test::More::BAIL_OUT("$WC_BTWALL is not built (make test/bigtable/btwall)") unless -x $WC_BTWALL;
	return (wc_bt_start_emulator($emulator), wc_bt_cbt());
}

# Google's cbt, or '' where it is missing (or WC_TEST_NO_CBT is set).
sub wc_bt_cbt
{
	my $cbt = `command -v cbt 2>/dev/null`;
	chomp $cbt;
	return $ENV{WC_TEST_NO_CBT} ? '' : $cbt;
}

# Run the wall (test/bigtable/btwall) against $endpoint with $input: its
# output and exit code.
sub wc_bt_wall
{
	my ($endpoint, $input, @args) = @_;
	my ($out, $err);
	IPC::Run::run([ $WC_BTWALL, $endpoint, @args ],
		'<', \$input, '>', \$out, '2>', \$err);
	return ($out, $? >> 8);
}

# A policy of two rules in one order, to compare.
sub wc_normal_policy
{
	my ($p) = @_;
	foreach my $join (' or ', ' and ')
	{
		my @r = split /\Q$join\E/, $p;
		return join($join, sort @r) if @r == 2;
	}
	return $p;
}

# cbt ls TABLE (cbt on PATH, its HOME and BIGTABLE_EMULATOR_HOST set), as
# "family|policy|aggregate" lines (032_cbt_schema.pl's reading): policies
# in our grammar, "?" for one with no form of ours, "-" for no aggregate.
sub wc_cbt_families
{
	my ($table) = @_;
	my @listed;
	foreach my $row (split /\n/, `cbt ls $table 2>/dev/null`)
	{
		next if $row =~ /^(Family Name|-+)/;
		my @f = grep { $_ ne '' } split /\t/, $row;
		my $family = shift @f;
		my $type = @f && $f[-1] =~ /^\{/ ? pop @f : '';
		my $aggregate = $type =~ /"(sum|min|max)":\{\}/ ? $1 : '-';
		my $gc = join('', @f);
		$gc = 'never' if $gc eq '<never>' || $gc eq '';
		$gc =~ s/^\((.*)\)$/$1/;
		$gc =~ s/versions\(\) > (\d+)/maxversions=$1/g;
		$gc =~ s/age\(\) > (\w+)/maxage=$1/g;
		$gc =~ s/ \|\| / or /g;
		$gc =~ s/ && / and /g;
		$gc = '?' if $gc =~ /[()]/;
		push @listed, join('|', $family, wc_normal_policy($gc), $aggregate);
	}
	return join("\n", sort @listed);
}

# Run the $n checks of $check where the emulator is Google's; else say they
# are skipped: the older emulator, from Debian's packages, has no $what.
sub wc_with_google
{
	my ($what, $name, $check, $n) = @_;
	my (undef, $google) = wc_bt_emulator();
	return $check->() if $google;
	Test::More->builder->skip("the older emulator from Debian's packages has no $what: $name")
	  foreach 1 .. ($n // 1);
	return;
}

# A home of its own whose ~/.cbtrc names the instance projects/p/instances/i,
# as cbt reads it.
sub wc_cbt_home
{
	my $home = PostgreSQL::Test::Utils::tempdir;
	open my $rc, '>', "$home/.cbtrc" or die "$home/.cbtrc: $!";
	print $rc "project = p\ninstance = i\n";
	close $rc;
	return $home;
}

# Run $code with Google's cbt ($cbt, wc_bt_cbt's) on PATH, pointed at the
# emulator at $endpoint and that instance; what $code returns.
sub wc_with_cbt
{
	my ($endpoint, $cbt, $code) = @_;
	local $ENV{HOME} = wc_cbt_home();
	local $ENV{BIGTABLE_EMULATOR_HOST} = $endpoint;
	local $ENV{PATH} = File::Basename::dirname($cbt) . ":$ENV{PATH}";
	return $code->();
}

# A new cluster with the extension preloaded, started; $conf is added to its
# postgresql.conf.
sub wc_node
{
	my ($name, $conf) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);

	$node->init;
	# PostgreSQL's default wal_level (the test library's is minimal): the
	# worker logs small commits in WAL, and keeps WAL with a slot
	$node->append_conf('postgresql.conf',
		"shared_preload_libraries = 'widecolumn_fdw'\nwal_level = replica\n" . ($conf // ''));
	$node->start;
	return $node;
}

# The foreign table $foreign of database postgres holds exactly the rows
# (k, v) of the native table $native, $rows of them: two checks.
sub wc_same_as_native
{
	my ($node, $foreign, $native, $label, $rows) = @_;

	Test::More::is($node->safe_psql('postgres', qq{
SELECT count(*) FROM ((SELECT k, v FROM $foreign EXCEPT ALL SELECT k, v FROM $native)
  UNION ALL (SELECT k, v FROM $native EXCEPT ALL SELECT k, v FROM $foreign)) x}),
		'0', "$label: $foreign holds exactly the native table's rows");
	Test::More::is($node->safe_psql('postgres', "SELECT count(*) FROM $foreign"), $rows,
		"$label: every committed row is in $foreign");
	return;
}

# A copy of the LevelDB database of test/fixtures/<name>/db in a new
# directory $dir, to be opened: the fixture itself must stay as the old
# version wrote it.
sub wc_fixture_copy
{
	my ($fixture, $dir) = @_;

	mkdir $dir or die "mkdir $dir: $!";
	opendir(my $dh, "$fixture/db") or die "opendir $fixture/db: $!";
	for my $f (grep { -f "$fixture/db/$_" } readdir $dh)
	{
		File::Copy::copy("$fixture/db/$f", "$dir/$f") or die "copy $f: $!";
	}
	closedir $dh;
	return;
}

# Run the SQL text $sql in database $db of $node one statement at a time,
# each a transaction of its own, as a fixture's history was written (lines
# that begin with -- left out; a statement ends with ; at a line's end).
sub wc_run_statements
{
	my ($node, $db, $sql) = @_;

	for my $stmt (grep { /\S/ } split /;\s*\n/, join("\n", grep { !/^--/ } split /\n/, $sql))
	{
		$node->safe_psql($db, $stmt);
	}
	return;
}

# The storage worker's pid, or undef while none runs.  The worker has no
# database connection, so it is not in pg_stat_activity on every version:
# find the postmaster's child with its title in /proc.
sub worker_pid
{
	my ($node) = @_;

	if (!-d '/proc/self')
	{
		my ($ret, $pid) = $node->psql('postgres',
			"SELECT pid FROM pg_stat_activity WHERE backend_type = '$WORKER'");
		return $ret == 0 && $pid =~ /^\d+$/ ? $pid : undef;
	}

	open(my $pf, '<', $node->data_dir . '/postmaster.pid') or return undef;
	my $pm = <$pf>;
	close($pf);
	return undef unless defined $pm;
	chomp($pm);
	opendir(my $dh, '/proc') or return undef;
	my @pids = grep { /^\d+$/ } readdir($dh);
	closedir($dh);
	foreach my $p (@pids)
	{
		open(my $sf, '<', "/proc/$p/stat") or next;
		my $stat = <$sf>;
		close($sf);
		next unless defined $stat && $stat =~ /\)\s+\S+\s+(\d+)/;
		next unless $1 == $pm;
		open(my $cf, '<', "/proc/$p/cmdline") or next;
		my $cmd = do { local $/; <$cf> };
		close($cf);
		return $p if defined $cmd && $cmd =~ /\Q$WORKER\E/;
	}
	return undef;
}

# Poll until a worker other than $old runs; its pid, or undef on timeout.
sub wait_for_new_worker
{
	my ($node, $old) = @_;
	my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
	while (time() < $deadline)
	{
		my $p = worker_pid($node);
		return $p if defined $p && (!defined $old || $p != $old);
		usleep(100_000);
	}
	return undef;
}

# Run $script (named $name) in $clients sessions at once, $each times in
# each, with pgbench: every transaction must succeed and nothing may be
# printed on stderr.  $label names the checks.
sub sessions_at_once
{
	my ($node, $clients, $each, $label, $name, $script) = @_;
	my $total = $clients * $each;

	$node->pgbench(
		"-n -c $clients -j 2 -t $each",
		0,
		[qr{actually processed: $total/$total}],
		[qr{^$}],
		$label,
		{ $name => $script },
		'-h', $node->host, '-p', $node->port, 'postgres');
	return;
}

# The SQLSTATE of an error psql printed with VERBOSITY verbose, or ''.
sub sqlstate
{
	my ($err) = @_;
	return $err =~ /(?:ERROR|FATAL|PANIC):\s+([0-9A-Z]{5}):/ ? $1 : '';
}

# Sessions running psql scripts in the background, for tests that kill the
# worker under them: each a hash of name, out, err, done and (once done) rc.
our @clients;

# Start a psql running $file on $node, as client $name.
sub start_client
{
	my ($node, $name, $file) = @_;
	my $c = { name => $name, out => '', err => '', done => 0 };
	$c->{h} = IPC::Run::start(
		[
			'psql', '-X', '-A', '-t',
			'-v', 'ON_ERROR_STOP=1',
			'-v', 'VERBOSITY=verbose',
			'-d', $node->connstr('postgres'),
			'-f', $file
		],
		'<', '/dev/null', '>', \$c->{out}, '2>', \$c->{err});
	push @clients, $c;
	return $c;
}

# Read what the clients wrote so far; note those that have ended.
sub pump_clients
{
	foreach my $c (@clients)
	{
		next if $c->{done};
		$c->{h}->pump_nb if $c->{h}->pumpable;
		if (!$c->{h}->pumpable)
		{
			$c->{h}->finish;
			$c->{rc} = $c->{h}->result(0);
			$c->{done} = 1;
		}
	}
	return;
}

# Poll the clients until $cond is true; false on timeout.
sub wait_clients
{
	my ($cond) = @_;
	my $deadline = time() + $PostgreSQL::Test::Utils::timeout_default;
	while (time() < $deadline)
	{
		pump_clients();
		return 1 if $cond->();
		usleep(5_000);
	}
	return 0;
}

1;
