
# Crashes in the middle of a stream of committing transactions.
#
# Several psql clients commit transactions one after another, each writing
# the same number of rows, tagged with the transaction's number, to two
# stored tables of one server (so one LevelDB write batch).  Every client
# prints markers around its statements:
#
#     begin X          the transaction is about to start
#     commit-sent X    COMMIT is about to be sent
#     COMMIT           (psql's command tag: the server said COMMIT)
#     committed X
#
# so afterwards we know, for every transaction, whether it
#  - reported COMMIT: it must be there in full, in both tables;
#  - had its COMMIT in flight when the fault hit: it is in doubt, as any
#    interrupted COMMIT is, and must be there either in full or not at all;
#  - never sent COMMIT: nothing of it may be visible.
# Nothing else may be visible, and no row may be partial.  What a round
# decided stays decided: later rounds check every earlier transaction again.
#
# The faults, one per round, each while the clients are mid-stream, with
# one more session holding uncommitted writes and, where it can be caught,
# a large COMMIT (10,000 rows per table, many WRITE messages) in flight:
#  round 1:    SIGKILL of the storage worker (the postmaster treats it as a
#              crash and restarts every backend; the worker must come back);
#  rounds 2-3: pg_ctl stop -m immediate during a bulk load (COPY + INSERT of
#              20,000 rows per table in one transaction), caught once in the
#              middle of the COPY and once while the bulk COMMIT is in
#              flight, then a start;
#  round 4:    pg_terminate_backend of every client backend wherever it is:
#              no crash, the worker keeps running, and a session that was in
#              a transaction meanwhile commits;
#  round 5:    SIGKILL of the backend holding uncommitted writes and of the
#              one whose large COMMIT is in flight (a crash restart).
# Finally new writes work, and every decided transaction survives a clean
# restart.
#
# Every client must end with a clear error (SQLSTATE 08006 from the
# extension, or the server's own crash / shutdown / termination message,
# whichever comes first), never with any other error and never by hanging.
#
# Every wait polls with a timeout; nothing depends on how long anything
# takes.  A client runs a script of thousands of transactions and the fault
# is injected after a few dozen, so every client is mid-stream.

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

my $WORKER = 'widecolumn_fdw storage worker';
my $PAD    = 200;            # filler bytes per row of ta
my $SCRIPT_TX = 3000;        # transactions per small client's script

# the point of this test: a crashed child makes the postmaster restart all
my $node = wc_node('wc_crash', "restart_after_crash = on\n");

$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE ta (
	k text OPTIONS (rowkey 'true') COLLATE "C",
	tx bigint OPTIONS (column 'f:tx'),
	pad text OPTIONS (column 'f:pad')
) SERVER wc OPTIONS (table 'crash_a');
CREATE FOREIGN TABLE tb (
	k text OPTIONS (rowkey 'true') COLLATE "C",
	tx bigint OPTIONS (column 'g:tx'),
	n int OPTIONS (column 'g:n')
) SERVER wc OPTIONS (table 'crash_b');
-- One transaction's writes: nrows rows in each stored table.
CREATE PROCEDURE put_tx(t bigint, nrows int) LANGUAGE sql AS \$\$
	INSERT INTO ta SELECT 't' || t || ':' || i, t,
		't' || t || ':' || i || '#' || repeat('x', $PAD)
		FROM generate_series(1, nrows) i;
	INSERT INTO tb SELECT 't' || t || ':' || i, t, i
		FROM generate_series(1, nrows) i;
\$\$;
});

my $scratch = PostgreSQL::Test::Utils::tempdir;

# Rows per stored table of every transaction any script contains.
my %rows_of;

# Decided outcomes of earlier rounds: tx => 1 (present in full) or 0 (absent).
my %final;

# ---------------------------------------------------------------------
# Helpers



# Poll until the server answers queries again (after a crash restart).  A
# psql that the restarting server turns away can exit before it reads its
# query, and IPC::Run then dies writing to it ("Broken pipe"): that is one
# more poll, not a failure.
sub wait_for_server
{
	for (my $try = 0;; $try++)
	{
		my $ok = eval { $node->poll_query_until('postgres', 'SELECT true') };
		return $ok if !$@;
		die $@ if $@ !~ /Broken pipe/ || $try >= 50;
		usleep(100_000);
	}
}

# The marker lines of transaction $tx around the SQL of its body.
sub tx_text
{
	my ($tx, $body) = @_;
	return "\\echo begin $tx\nBEGIN;\n$body"
	  . "\\echo commit-sent $tx\nCOMMIT;\n\\echo committed $tx\n";
}

sub write_script
{
	my ($name, $text) = @_;
	my $file = "$scratch/$name.sql";
	open(my $fh, '>', $file) or die "could not write $file: $!";
	print $fh "SELECT 'pid ' || pg_backend_pid();\n", $text;
	close($fh);
	return $file;
}

# A script of $SCRIPT_TX transactions numbered $base+1...: most write 20
# rows per table, every tenth 400 (several WRITE messages to the worker).
sub small_script
{
	my ($name, $base) = @_;
	my $text = '';
	for my $i (1 .. $SCRIPT_TX)
	{
		my $tx = $base + $i;
		$rows_of{$tx} = $i % 10 == 0 ? 400 : 20;
		$text .= tx_text($tx, "CALL put_tx($tx, $rows_of{$tx});\n");
	}
	return write_script($name, $text);
}

# A script of $count large transactions of $rows rows per table each.
sub large_script
{
	my ($name, $base, $count, $rows) = @_;
	my $text = '';
	for my $i (1 .. $count)
	{
		my $tx = $base + $i;
		$rows_of{$tx} = $rows;
		$text .= tx_text($tx, "CALL put_tx($tx, $rows);\n");
	}
	return write_script($name, $text);
}

# A bulk load: $count transactions, each a COPY of $rows rows into ta and an
# INSERT ... SELECT of $rows rows into tb.  "copying X" marks the COPY.
sub bulk_script
{
	my ($name, $base, $count, $rows) = @_;
	my $text = '';
	for my $i (1 .. $count)
	{
		my $tx = $base + $i;
		$rows_of{$tx} = $rows;
		my $body = "\\echo copying $tx\nCOPY ta (k, tx, pad) FROM STDIN;\n";
		my $x = 'x' x $PAD;
		$body .= "t$tx:$_\t$tx\tt$tx:$_#$x\n" for 1 .. $rows;
		$body .= "\\.\n";
		$body .=
		  "INSERT INTO tb SELECT 't' || $tx || ':' || i, $tx, i FROM generate_series(1, $rows) i;\n";
		$text .= tx_text($tx, $body);
	}
	return write_script($name, $text);
}

# An open transaction with uncommitted writes that waits to be cut off.
sub holder_script
{
	my ($name, $tx, $rows) = @_;
	$rows_of{$tx} = $rows;
	return write_script($name,
		    "\\echo begin $tx\nBEGIN;\nCALL put_tx($tx, $rows);\n"
		  . "\\echo holding $tx\nSELECT pg_sleep(3600);\n"
		  . "\\echo commit-sent $tx\nCOMMIT;\n\\echo committed $tx\n");
}

# Wait for every client to end; any that hangs is killed and reported.
sub finish_clients
{
	my ($label) = @_;
	my $all = wait_clients(sub { !grep { !$_->{done} } @clients });
	ok($all, "$label: every client ends (none hangs)");
	foreach my $c (grep { !$_->{done} } @clients)
	{
		diag("$c->{name} did not end; stdout tail: "
			  . substr($c->{out}, -300));
		$c->{h}->kill_kill;
		$c->{done} = 1;
		$c->{rc} = -1;
	}
}

sub committed_count
{
	my ($c) = @_;
	my $n = () = $c->{out} =~ /^committed \d+$/mg;
	return $n;
}

# The last marker a client printed: (word, tx).
sub last_marker
{
	my ($c) = @_;
	my @m = $c->{out} =~
	  /^(begin|copying|holding|commit-sent|committed) (\d+)$/mg;
	return @m ? @m[ -2, -1 ] : ('', 0);
}

sub client_pid
{
	my ($c) = @_;
	return $c->{out} =~ /^pid (\d+)$/m ? $1 : undef;
}

# What the client's output says of each transaction it started.
sub client_states
{
	my ($c) = @_;
	my %st;
	my @lines = split /\n/, $c->{out};
	for my $i (0 .. $#lines)
	{
		my $l = $lines[$i];
		if ($l =~ /^(?:begin) (\d+)$/)
		{
			$st{$1} = 'begun';
		}
		elsif ($l =~ /^commit-sent (\d+)$/)
		{
			$st{$1} = 'sent';
		}
		elsif ($l =~ /^committed (\d+)$/)
		{
			# only a COMMIT tag right before counts as reported
			$st{$1} =
			  ($i > 0
				  && $lines[ $i - 1 ] eq 'COMMIT'
				  && ($st{$1} // '') eq 'sent') ? 'committed' : 'confused';
		}
	}
	return \%st;
}

# Every client was cut off mid-stream and said why clearly: a non-zero exit,
# one of the expected messages, and no error with another SQLSTATE.
sub check_client_errors
{
	my ($label, $codes) = @_;
	my $clear = qr/terminating connection because of crash of another server process
		|terminating connection due to immediate shutdown command
		|terminating connection due to administrator command
		|lost\ connection\ to\ the\ widecolumn_fdw\ storage\ worker
		|server\ closed\ the\ connection\ unexpectedly
		|connection\ to\ server\ was\ lost/x;
	my @bad;
	foreach my $c (@clients)
	{
		my @why;
		my @other = grep { !$codes->{$_} }
		  $c->{err} =~ /(?:ERROR|FATAL|PANIC):\s+([0-9A-Z]{5}):/g;
		push @why, 'exit code ' . ($c->{rc} // 'none')
		  if !defined $c->{rc} || $c->{rc} == 0;
		push @why, 'no clear error' if $c->{err} !~ $clear;
		push @why, "unexpected SQLSTATE @other" if @other;
		my ($first) = $c->{err} =~ /^(.*(?:WARNING|ERROR|FATAL|server closed).*)$/m;
		note("$c->{name} (exit code " . ($c->{rc} // 'none') . '): '
			  . ($first // $c->{err}));
		next unless @why;
		push @bad, "$c->{name}: " . join('; ', @why);
		diag("$c->{name} stderr:\n$c->{err}");
	}
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	is_deeply(\@bad, [],
		"$label: every client was cut off mid-stream with a clear error");
}

# What the tables hold: tx => { a => [rows, good rows], b => [...] }.
sub stored_state
{
	my $out = $node->safe_psql(
		'postgres', qq{
SELECT 'a', coalesce(tx::text, 'NULL'), count(*),
	count(*) FILTER (WHERE k LIKE 't' || tx || ':%'
		AND pad = k || '#' || repeat('x', $PAD))
FROM ta GROUP BY tx
UNION ALL
SELECT 'b', coalesce(tx::text, 'NULL'), count(*),
	count(*) FILTER (WHERE k = 't' || tx || ':' || n)
FROM tb GROUP BY tx});
	my %db;
	foreach my $l (split /\n/, $out)
	{
		my ($t, $tx, $n, $good) = split /\|/, $l;
		$db{$tx}{$t} = [ $n, $good ];
	}
	return \%db;
}

# Check the promise after a fault; $states: tx => state from the clients.
sub verify
{
	my ($label, $states) = @_;
	my $db = stored_state();
	my @bad;
	my %doubt = (present => 0, absent => 0);

	my $full = sub {
		my ($tx) = @_;
		my $n = $rows_of{$tx};
		return 0 unless exists $db->{$tx};    # (no autovivification)
		for my $t ('a', 'b')
		{
			my $s = $db->{$tx}{$t};
			return 0 unless $s && $s->[0] == $n && $s->[1] == $n;
		}
		return 1;
	};
	my $show = sub {
		my ($tx) = @_;
		my $s = $db->{$tx} // {};
		return join(', ',
			map { "$_: " . ($s->{$_} ? join('/', @{ $s->{$_} }) : 0) }
			  ('a', 'b'))
		  . " of $rows_of{$tx} rows";
	};

	foreach my $tx (sort { $a <=> $b } keys %final)
	{
		if ($final{$tx})
		{
			push @bad, "tx $tx (decided present earlier) is not whole: "
			  . $show->($tx)
			  unless $full->($tx);
		}
		elsif (exists $db->{$tx})
		{
			push @bad,
			  "tx $tx (decided absent earlier) is visible: " . $show->($tx);
		}
	}
	foreach my $tx (sort { $a <=> $b } keys %$states)
	{
		my $st = $states->{$tx};
		if ($st eq 'committed')
		{
			push @bad, "tx $tx reported COMMIT but is not whole: "
			  . $show->($tx)
			  unless $full->($tx);
			$final{$tx} = 1;
		}
		elsif ($st eq 'sent')
		{
			if ($full->($tx))
			{
				$final{$tx} = 1;
				$doubt{present}++;
			}
			elsif (!exists $db->{$tx})
			{
				$final{$tx} = 0;
				$doubt{absent}++;
			}
			else
			{
				push @bad, "tx $tx (COMMIT in flight) is partial: "
				  . $show->($tx);
				$final{$tx} = 0;
			}
		}
		elsif ($st eq 'begun')
		{
			push @bad,
			  "tx $tx never sent COMMIT but is visible: " . $show->($tx)
			  if exists $db->{$tx};
			$final{$tx} = 0;
		}
		else
		{
			push @bad, "tx $tx: client output makes no sense ($st)";
		}
	}
	foreach my $tx (sort keys %$db)
	{
		push @bad, "rows of tx $tx that no client wrote: " . join(', ',
			map { "$_: " . ($db->{$tx}{$_} ? $db->{$tx}{$_}[0] : 0) }
			  ('a', 'b'))
		  unless exists $final{$tx};
	}

	my $committed = grep { $_ eq 'committed' } values %$states;
	note("$label: $committed reported COMMIT; COMMIT in flight: "
		  . "$doubt{present} applied, $doubt{absent} not applied");
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	is(scalar(@bad), 0,
		"$label: every reported COMMIT is whole, nothing else is visible, nothing is partial"
	) or diag(join("\n", @bad[ 0 .. ($#bad < 49 ? $#bad : 49) ]));
	return $committed;
}

sub all_states
{
	my %st;
	foreach my $c (@clients)
	{
		my $s = client_states($c);
		@st{ keys %$s } = values %$s;
	}
	return \%st;
}

# Small clients numbered $round*1_000_000 + $i*10_000 + ...
sub start_small_clients
{
	my ($round, $n) = @_;
	return map {
		start_client($node, "r$round small$_",
			small_script("r${round}_small$_", $round * 1_000_000 + $_ * 10_000))
	} 1 .. $n;
}

sub wait_for_commits
{
	my ($label, $min, @cs) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	ok( wait_clients(
			sub { !grep { committed_count($_) < $min } @cs }
		),
		"$label: clients are committing")
	  or diag(join("\n", map { "$_->{name}: $_->{err}" } @cs));
}

# ---------------------------------------------------------------------
# Round 1: SIGKILL of the storage worker mid-stream.

{
	my $label = 'worker SIGKILL';
	@clients = ();
	my @small = start_small_clients(1, 4);
	my $large =
	  start_client($node, 'r1 large', large_script('r1_large', 1_090_000, 500, 10_000));
	my $holder =
	  start_client($node, 'r1 holder', holder_script('r1_holder', 1_099_999, 300));

	wait_for_commits($label, 15, @small, $large);
	ok(wait_clients(sub { (last_marker($holder))[0] eq 'holding' }),
		"$label: a session holds uncommitted writes");

	# Kill while a large COMMIT is in flight, if one can be caught soon.
	wait_clients(sub { (last_marker($large))[0] eq 'commit-sent' });
	my $old = worker_pid($node);
	ok(defined $old, "$label: storage worker is running");
	kill 'KILL', $old if defined $old;

	finish_clients($label);
	check_client_errors($label, { '08006' => 1, '57P02' => 1 });

	ok(wait_for_server(), "$label: the server accepts queries again");
	my $new = wait_for_new_worker($node, $old);
	ok(defined $new, "$label: a new storage worker runs");

	my $states = all_states();
	is($states->{1_099_999}, 'begun', "$label: holder never sent COMMIT");
	cmp_ok(verify($label, $states), '>=', 4 * 15 + 15,
		"$label: the clients committed before the crash");
}

# ---------------------------------------------------------------------
# Rounds 2 and 3: immediate stop during a bulk load, twice: in the middle of the
# COPY, and while the bulk COMMIT is in flight.

foreach my $when ('copying', 'commit-sent')
{
	my $round = $when eq 'copying' ? 2 : 3;
	my $label = "immediate stop, bulk load at '$when'";
	@clients = ();
	my @small = start_small_clients($round, 3);
	my $bulk = start_client($node, "r$round bulk",
		bulk_script("r${round}_bulk", $round * 1_000_000 + 90_000, 5, 20_000));
	my $holder = start_client($node, "r$round holder",
		holder_script("r${round}_holder", $round * 1_000_000 + 99_999, 300));

	wait_for_commits($label, 10, @small);
	ok(wait_clients(sub { (last_marker($holder))[0] eq 'holding' }),
		"$label: a session holds uncommitted writes");
	# at least one bulk transaction committed, and the next one at $when
	ok( wait_clients(
			sub {
				committed_count($bulk) >= 1
				  && (last_marker($bulk))[0] eq $when;
			}
		),
		"$label: the bulk load is at '$when'");
	$node->stop('immediate');

	finish_clients($label);
	check_client_errors($label, { '08006' => 1, '57P01' => 1 });

	$node->start;
	ok(defined wait_for_new_worker($node, undef), "$label: storage worker runs");
	my $states = all_states();
	is($states->{ $round * 1_000_000 + 99_999 }, 'begun',
		"$label: holder never sent COMMIT");
	verify($label, $states);
}

# ---------------------------------------------------------------------
# Round 4: pg_terminate_backend in the middle of transactions: of a session
# with uncommitted writes, of one with a large COMMIT in flight, and of the
# small clients wherever they are.  No crash: the worker and other sessions
# are not disturbed.

{
	my $label = 'pg_terminate_backend';
	@clients = ();
	# a session in a transaction throughout, whose COMMIT comes after
	my $bystander = $node->background_psql('postgres', on_error_stop => 0);
	$rows_of{4_099_998} = 5;
	$bystander->query_safe('BEGIN; CALL put_tx(4099998, 5); SELECT count(*) FROM tb;');

	my @small = start_small_clients(4, 3);
	my $large =
	  start_client($node, 'r4 large', large_script('r4_large', 4_090_000, 500, 10_000));
	my $holder =
	  start_client($node, 'r4 holder', holder_script('r4_holder', 4_099_999, 300));

	wait_for_commits($label, 15, @small, $large);
	ok(wait_clients(sub { (last_marker($holder))[0] eq 'holding' }),
		"$label: a session holds uncommitted writes");
	wait_clients(sub { (last_marker($large))[0] eq 'commit-sent' });

	my $old = worker_pid($node);
	my @pids = grep { defined } map { client_pid($_) } @clients;
	is(scalar(@pids), scalar(@clients), "$label: every client's pid is known");
	$node->safe_psql('postgres',
		'SELECT pg_terminate_backend(pid) FROM unnest(ARRAY['
		  . join(',', @pids)
		  . ']::int[]) pid');

	finish_clients($label);
	check_client_errors($label, { '57P01' => 1 });

	is(worker_pid($node), $old, "$label: the storage worker was not restarted");
	my ($out, $failed) = $bystander->query("COMMIT; SELECT 'ok';");
	is("$failed|$out", "0|ok",
		"$label: a session in a transaction meanwhile goes on and commits");
	$bystander->quit;
	my $states = all_states();
	is($states->{4_099_999}, 'begun', "$label: holder never sent COMMIT");
	$states->{4_099_998} = 'committed';
	verify($label, $states);
}

# ---------------------------------------------------------------------
# Round 5: SIGKILL of one backend with uncommitted writes and of one with a
# large COMMIT in flight (the postmaster restarts every backend).

{
	my $label = 'backend SIGKILL';
	@clients = ();
	my @small = start_small_clients(5, 3);
	my $large =
	  start_client($node, 'r5 large', large_script('r5_large', 5_090_000, 500, 10_000));
	my $holder =
	  start_client($node, 'r5 holder', holder_script('r5_holder', 5_099_999, 300));

	wait_for_commits($label, 15, @small, $large);
	ok(wait_clients(sub { (last_marker($holder))[0] eq 'holding' }),
		"$label: a session holds uncommitted writes");
	wait_clients(sub { (last_marker($large))[0] eq 'commit-sent' });

	my $old = worker_pid($node);
	my ($hp, $lp) = (client_pid($holder), client_pid($large));
	ok(defined $hp && defined $lp, "$label: backend pids are known");
	kill 'KILL', grep { defined } $lp, $hp;

	finish_clients($label);
	check_client_errors($label, { '08006' => 1, '57P02' => 1 });

	ok(wait_for_server(), "$label: the server accepts queries again");
	ok(defined wait_for_new_worker($node, $old),
		"$label: the storage worker was restarted with everything else");
	my $states = all_states();
	is($states->{5_099_999}, 'begun', "$label: holder never sent COMMIT");
	verify($label, $states);
}

# ---------------------------------------------------------------------
# Afterwards: new writes work, and everything decided survives a clean
# restart.

$node->safe_psql('postgres', 'CALL put_tx(9000001, 20)');
$rows_of{9_000_001} = 20;
verify('new writes after the faults', { 9_000_001 => 'committed' });

$node->restart;
ok(defined wait_for_new_worker($node, undef), 'storage worker runs after restart');
verify('after a clean restart', {});

$node->stop;
done_testing();
