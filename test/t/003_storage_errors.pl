
# Storage that fails: a foreign server's LevelDB directory that is
# unreadable, is a regular file, is locked by another process, is missing,
# or sits on a full disk.  In every case the statement fails with a clear
# error (SQLSTATE and message checked), nothing crashes, the cluster keeps
# serving the tables of other servers, and once the cause is gone the same
# server works again without a restart.  On a full disk the transaction
# fails cleanly: nothing of it is visible then or after the database is
# reopened, and transactions committed after space was freed survive.
#
# Not crashing is checked three ways: the storage worker keeps its pid, a
# session opened at the start still works at the end, and every other
# server's table answers after every fault.
#
# DISK FULL needs a small filesystem.  The test gets one by itself where
# unprivileged user namespaces are allowed: it starts a second cluster under
# `unshare --user --mount` with a 16 MB tmpfs mounted for it (the mount is
# visible only to that cluster; nothing on the machine changes).  Where that
# is not allowed, point WC_DISKFULL_DIR at an empty directory on a small
# filesystem (at most 512 MB free) writable by the user the tests run as;
# the test fills it with a file and deletes it again.  For example, as root:
#
#     mkdir -p /mnt/wc_full
#     mount -t tmpfs -o size=16m,uid=postgres,mode=0700 tmpfs /mnt/wc_full
#       (or a loop device: truncate -s 32M /tmp/wc_full.img;
#        mkfs.ext4 -q /tmp/wc_full.img; mount -o loop /tmp/wc_full.img /mnt/wc_full;
#        chown postgres /mnt/wc_full)
#     cd /work/main && WC_DISKFULL_DIR=/mnt/wc_full sh test/scripts/as-postgres.sh \
#       make -s PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config installcheck \
#       REGRESS= ISOLATION= PROVE_TESTS=test/t/003_storage_errors.pl PROVE_FLAGS=-v
#     umount /mnt/wc_full
#
# WC_DISKFULL_DIR=none skips the disk-full part; without either, it is
# skipped with a message saying why.
#
# By hand, the same check: create a server whose path is on the small
# filesystem, fill the filesystem to a few MB free, run one transaction
# writing more than that (it must fail with SQLSTATE 53100 and leave nothing
# behind), free the space, commit a few small transactions, restart the
# server, and check that they are all still there.
#
# Every wait polls with a timeout; nothing depends on how long anything
# takes.

use strict;
use warnings;

use Config;
use Fcntl qw(F_SETLK F_WRLCK F_UNLCK SEEK_SET O_RDWR O_CREAT);
use File::Path qw(rmtree);
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;
use Time::HiRes qw(usleep);

my $WORKER = 'widecolumn_fdw storage worker';

my $node = wc_node('wc_storage');

my $base = PostgreSQL::Test::Utils::tempdir;

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE good (
	k text OPTIONS (rowkey 'true') COLLATE "C",
	v text
) SERVER wc;
INSERT INTO good SELECT 'g' || i, 'v' || i FROM generate_series(1, 10) i;
});
my $good_rows = 10;

# ---------------------------------------------------------------------
# Helpers



# Run SQL; (exit code, stdout, stderr), errors with their SQLSTATE.
sub run_sql
{
	my ($n, $sql) = @_;
	my ($out, $err) = ('', '');
	my $ret = $n->psql(
		'postgres', $sql,
		stdout => \$out,
		stderr => \$err,
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	return ($ret, $out, $err);
}


# $sql must fail with SQLSTATE $code (a regex) and an error matching each
# of @res (message, detail, hint).
sub fails_clearly
{
	my ($n, $label, $sql, $code, @res) = @_;
	my ($ret, $out, $err) = run_sql($n, $sql);
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	isnt($ret, 0, "$label: the statement fails");
	like(sqlstate($err), $code, "$label: SQLSTATE") or diag($err);
	like($err, $_, "$label: the error says $_") for @res;
	unlike($err, qr/server closed the connection|terminating connection/,
		"$label: the session survives");
	return $err;
}

my $worker0 = worker_pid($node);
ok(defined $worker0, 'storage worker is running');

# A session open from the start: a crash restart would end it.
my $witness = $node->background_psql('postgres', on_error_stop => 0);
$witness->query_safe('SELECT count(*) FROM good');

# The cluster still serves the default server: reads, and writes that
# commit.
sub still_serving
{
	my ($label) = @_;
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	$good_rows++;
	my ($ret, $out, $err) = run_sql($node,
		"INSERT INTO good VALUES ('g$good_rows', '$label'); SELECT count(*) FROM good"
	);
	is("$ret|$out", "0|$good_rows",
		"$label: another server's table is still read and written")
	  or diag($err);
	is(worker_pid($node), $worker0,
		"$label: the storage worker neither crashed nor restarted");
}

sub make_server
{
	my ($n, $name, $path) = @_;
	$n->safe_psql(
		'postgres', qq{
CREATE SERVER $name FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$path');
CREATE FOREIGN TABLE t_$name (
	k text OPTIONS (rowkey 'true') COLLATE "C",
	v text
) SERVER $name;
});
}

# ---------------------------------------------------------------------
# (a) An unreadable directory, for a database the worker has not opened.

{
	my $label = 'unreadable directory';
	my $d = "$base/unreadable";
	mkdir($d) or die "mkdir $d: $!";
	make_server($node, 's_unreadable', $d);
	chmod(0000, $d) or die "chmod $d: $!";

	SKIP:
	{
		# (only a superuser could read it anyway; PostgreSQL never runs as one)
		skip 'running as root: permissions are not enforced', 1
		  if $> == 0;
		fails_clearly($node, "$label: read", 'SELECT * FROM t_s_unreadable',
			qr/^58030$/, qr/could not open LevelDB database "\Q$d\E"/,
			qr/Permission denied/);
		fails_clearly($node, "$label: write",
			"INSERT INTO t_s_unreadable VALUES ('a', 'b')",
			qr/^58030$/, qr/could not open LevelDB database "\Q$d\E"/,
			qr/Permission denied/);
	}
	still_serving($label);

	chmod(0700, $d) or die "chmod $d: $!";
	my ($ret, $out, $err) = run_sql($node,
		"INSERT INTO t_s_unreadable VALUES ('a', 'b'); SELECT k, v FROM t_s_unreadable"
	);
	is("$ret|$out", '0|a|b',
		"$label: readable again, the same server works without a restart")
	  or diag($err);
}

# ---------------------------------------------------------------------
# (b) A regular file where the database directory should be, and as a
# parent of it.

{
	my $label = 'regular file at the database path';
	my $f = "$base/a_file";
	open(my $fh, '>', $f) or die "write $f: $!";
	print $fh "not a database\n";
	close($fh);

	make_server($node, 's_file', $f);
	fails_clearly($node, $label, 'SELECT * FROM t_s_file',
		qr/^58/, qr/"\Q$f\E/, qr/Not a directory/);
	fails_clearly($node, "$label: write",
		"INSERT INTO t_s_file VALUES ('a', 'b')",
		qr/^58/, qr/"\Q$f\E/, qr/Not a directory/);
	still_serving($label);

	make_server($node, 's_under_file', "$f/db");
	fails_clearly($node, 'regular file as a parent of the database path',
		'SELECT * FROM t_s_under_file',
		qr/^58/, qr/"\Q$f\E/, qr/Not a directory/);
	still_serving('regular file as a parent');

	is(slurp_file($f), "not a database\n", 'the file is left as it was');
}

# ---------------------------------------------------------------------
# (c) A database locked by another process: first by a process holding
# LevelDB's LOCK file with fcntl (as LevelDB does), then by another
# PostgreSQL cluster that has the same directory open.

SKIP:
{
	# struct flock: short l_type, l_whence; off_t l_start, l_len; pid_t l_pid
	skip 'fcntl lock layout known only for 64-bit Linux', 1
	  unless $^O eq 'linux' && $Config{ivsize} == 8;

	my $label = 'LOCK file held by another process';
	my $d = "$base/locked";
	mkdir($d) or die "mkdir $d: $!";
	sysopen(my $lock, "$d/LOCK", O_RDWR | O_CREAT) or die "open $d/LOCK: $!";
	my $fl = pack('s s x4 q q l x4', F_WRLCK, SEEK_SET, 0, 0, 0);
	ok(fcntl($lock, F_SETLK, $fl), "$label: the test holds the lock")
	  or diag("fcntl: $!");

	make_server($node, 's_locked', $d);
	fails_clearly($node, $label, 'SELECT * FROM t_s_locked',
		qr/^55006$/, qr/could not open LevelDB database "\Q$d\E"/,
		qr/HINT:.*Another process holds this LevelDB database open/);
	still_serving($label);

	$fl = pack('s s x4 q q l x4', F_UNLCK, SEEK_SET, 0, 0, 0);
	fcntl($lock, F_SETLK, $fl) or die "unlock: $!";
	close($lock);
	my ($ret, $out, $err) = run_sql($node,
		"INSERT INTO t_s_locked VALUES ('a', 'b'); SELECT k, v FROM t_s_locked"
	);
	is("$ret|$out", '0|a|b',
		"$label: released, the same server works without a restart")
	  or diag($err);
}

{
	my $label = 'database open in another cluster';
	my $d = "$base/shared";
	my $other = wc_node('wc_other');
	$other->safe_psql('postgres', 'CREATE EXTENSION widecolumn_fdw');
	make_server($other, 's_shared', $d);
	$other->safe_psql('postgres',
		"INSERT INTO t_s_shared VALUES ('from', 'the other cluster')");

	make_server($node, 's_shared', $d);
	fails_clearly($node, $label, 'SELECT * FROM t_s_shared',
		qr/^55006$/, qr/could not open LevelDB database "\Q$d\E"/,
		qr/HINT:.*Another process holds this LevelDB database open/);
	still_serving($label);
	is($other->safe_psql('postgres', 'SELECT v FROM t_s_shared'),
		'the other cluster', "$label: the other cluster is not disturbed");

	$other->stop;
	my ($ret, $out, $err) =
	  run_sql($node, 'SELECT k, v FROM t_s_shared');
	is("$ret|$out", '0|from|the other cluster',
		"$label: once it stops, this cluster opens the database and reads it"
	) or diag($err);
}

# ---------------------------------------------------------------------
# (e) A missing directory: one that cannot be created, and the directory of
# a database that held committed data and is gone when the server starts
# (an unmounted volume, a moved directory).

{
	my $label = 'directory that cannot be created';
	my $p = "$base/readonly";
	mkdir($p) or die "mkdir $p: $!";
	chmod(0555, $p) or die "chmod $p: $!";
	make_server($node, 's_readonly', "$p/db");

	SKIP:
	{
		skip 'running as root: permissions are not enforced', 1
		  if $> == 0;
		fails_clearly($node, $label, 'SELECT * FROM t_s_readonly',
			qr/^(42501|58030)$/, qr/"\Q$p\/db\E"/, qr/Permission denied/);
	}
	still_serving($label);
	chmod(0755, $p) or die "chmod $p: $!";
	my ($ret, $out, $err) = run_sql($node,
		"INSERT INTO t_s_readonly VALUES ('a', 'b'); SELECT k, v FROM t_s_readonly"
	);
	is("$ret|$out", '0|a|b',
		"$label: once it can be, the same server works without a restart")
	  or diag($err);
}

{
	my $label = 'database directory gone at startup';
	my $d = "$base/vanishing";
	make_server($node, 's_vanishing', $d);
	$node->safe_psql('postgres',
		"INSERT INTO t_s_vanishing SELECT 'r' || i, 'x' FROM generate_series(1, 5) i"
	);
	$witness->quit;
	$node->stop;
	rename($d, "$d.away") or die "rename $d: $!";
	$node->start;
	$worker0 = wait_for_new_worker($node, undef);
	$witness = $node->background_psql('postgres', on_error_stop => 0);
	$witness->query_safe('SELECT count(*) FROM good');

	# Committed rows must not silently become an empty table.
	my ($ret, $out, $err) = run_sql($node, 'SELECT count(*) FROM t_s_vanishing');
	isnt("$ret|$out", '0|0',
		"$label: reading it does not silently show an empty table");
	isnt($ret, 0, "$label: reading it is an error") or diag("got: $out");
	like($err, qr/"\Q$d\E"/, "$label: the error names the directory");
	still_serving($label);

	# Put it back (removing whatever was created in its place meanwhile).
	$witness->quit;
	$node->stop;
	rmtree($d) if -e $d;
	rename("$d.away", $d) or die "rename $d.away: $!";
	$node->start;
	$worker0 = wait_for_new_worker($node, undef);
	$witness = $node->background_psql('postgres', on_error_stop => 0);
	$witness->query_safe('SELECT count(*) FROM good');
	is($node->safe_psql('postgres', 'SELECT count(*) FROM t_s_vanishing'),
		'5', "$label: back in place, its rows are there");
}

# ---------------------------------------------------------------------
# (f) After a failed write the worker reopens the database before the next
# write, and the snapshots open on it are gone: another session's scan, and
# a REPEATABLE READ transaction's snapshot, must then fail, not end early
# as if there were no more rows.

SKIP:
{
	skip 'running as root: permissions are not enforced', 1 if $> == 0;

	my $label = 'scan open when the database is reopened';
	my $d = "$base/reopened";
	$node->safe_psql(
		'postgres', qq{
CREATE SERVER s_reopen FOREIGN DATA WRAPPER widecolumn_fdw
	OPTIONS (path '$d', write_buffer_size '1');
CREATE FOREIGN TABLE t_s_reopen (k text OPTIONS (rowkey 'true') COLLATE "C", v integer, pad text)
	SERVER s_reopen;
INSERT INTO t_s_reopen SELECT lpad(g::text, 6, '0'), g, repeat('x', 50) FROM generate_series(1, 20000) g;
});
	my $reader = $node->background_psql('postgres', on_error_stop => 0);
	$reader->query_safe(
		'BEGIN; DECLARE c CURSOR FOR SELECT * FROM t_s_reopen; FETCH 5 FROM c');
	my $rr = $node->background_psql('postgres', on_error_stop => 0);
	$rr->query_safe(
		'BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM t_s_reopen');

	# A write that needs a new LevelDB log in a directory it cannot write
	# to fails; the next write reopens the database.  A commit of more than
	# 4 MiB, written in chunks before it is answered: a small one is durable
	# by WAL and answered once in LevelDB's memtable, and the write that
	# meets the full memtable may be the worker's next sync instead
	# (redolog.c), after which the reopening redoes the commit.
	chmod(0500, $d) or die "chmod $d: $!";
	my ($out, $err) = ('', '');
	my $ret = $node->psql('postgres',
		"INSERT INTO t_s_reopen SELECT 'y' || g, g, repeat('y', 200) FROM generate_series(1, 30000) g;\n"
		  . "SET statement_timeout = '300ms';\nSELECT pg_sleep(10);",
		stdout => \$out, stderr => \$err, on_error_stop => 0);
	like($err, qr/could not write LevelDB database|could not .* LevelDB/,
		"$label: sanity: the write to the read-only directory fails");
	# Interrupts were held during the failed COMMIT: the session must take
	# them again afterwards.
	like($err, qr/canceling statement due to statement timeout/,
		"$label: after the failed COMMIT, the session can be interrupted (statement_timeout)");
	chmod(0700, $d) or die "chmod $d: $!";
	($ret, $out, $err) = run_sql($node,
		"INSERT INTO t_s_reopen VALUES ('z', 1)");
	is($ret, 0, "$label: sanity: the next write succeeds") or diag($err);

	for my $case ([ $reader, 'the cursor', 'MOVE FORWARD ALL IN c' ],
		[ $rr, 'the REPEATABLE READ transaction', 'SELECT count(*) FROM t_s_reopen' ])
	{
		my ($s, $who, $sql) = @$case;
		$s->{stderr} = '';
		my $res = $s->query("\\set VERBOSITY verbose\n$sql");
		like($s->{stderr}, qr/72000.*could not go on reading LevelDB database "\Q$d\E": its snapshot is gone/s,
			"$label: $who fails clearly") or diag("got: $res, stderr: $s->{stderr}");
		$s->query('ROLLBACK');
		$s->quit;
	}
	is($node->safe_psql('postgres', 'SELECT count(*) FROM t_s_reopen'), '20001',
		"$label: the rows committed before and after the failed write are there");
	still_serving($label);
}

# Stop the node, write $bytes into a file at an offset that $pick returns (a
# sub: the file's path and size are known only once the node is stopped),
# start it again.
sub damage_stopped
{
	my ($pick, $bytes) = @_;
	$witness->quit;
	$node->stop;
	my ($file, $offset) = $pick->();
	open(my $fh, '+<', $file) or die "open $file: $!";
	binmode($fh);
	seek($fh, $offset, 0);
	print $fh $bytes;
	close($fh);
	$node->start;
	$worker0 = wait_for_new_worker($node, undef);
	$witness = $node->background_psql('postgres', on_error_stop => 0);
	$witness->query_safe('SELECT count(*) FROM good');
	return;
}

# ---------------------------------------------------------------------
# (g) A damaged record in the middle of LevelDB's log (while the server
# was stopped): opening the database is an error (XX001), rather than
# recovering the records around it, which would bring back part of a
# commit written in several batches.

{
	my $label = 'damaged log record';
	my $d = "$base/damaged_log";
	$node->safe_psql(
		'postgres', qq{
CREATE SERVER s_damaged FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$d', write_buffer_size '64');
CREATE FOREIGN TABLE t_s_damaged (k text OPTIONS (rowkey 'true') COLLATE "C", v integer, pad text)
	SERVER s_damaged;
INSERT INTO t_s_damaged SELECT lpad(g::text, 7, '0'), g, repeat(md5(g::text), 3) FROM generate_series(1, 100000) g;
});
	damage_stopped(
		sub {
			my @logs = glob("$d/*.log");
			is(scalar(@logs), 1, "$label: sanity: the commit is in one LevelDB log");
			my $written = wc_log_written($logs[0]);
			cmp_ok($written, '>', 8_000_000, "$label: sanity: several 4 MiB batches");
			# in the middle of what was written, not of the space allocated ahead
			return ($logs[0], int($written / 2));
		},
		'x' x 100);

	my $err = fails_clearly($node, $label, 'SELECT count(*) FROM t_s_damaged',
		qr/^XX001$/, qr/could not open LevelDB database "\Q$d\E"/, qr/Corruption/,
		qr/HINT:.*backup/);
	still_serving($label);
	$node->safe_psql('postgres', 'DROP SERVER s_damaged CASCADE');
}

# ---------------------------------------------------------------------
# (h) A damaged data block in a table file: a scan that passes over it is
# an error (XX001), not a scan with rows missing.  LevelDB's iterator skips
# a block it cannot read and only records the error; the range below ends
# before the end of the database, where the iterator's status used to be
# looked at.

{
	my $label = 'damaged table file';
	my $d = "$base/damaged_table";
	$node->safe_psql(
		'postgres', qq{
CREATE SERVER s_damaged_t FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$d', write_buffer_size '1');
CREATE FOREIGN TABLE t_s_damaged_t (k text OPTIONS (rowkey 'true') COLLATE "C", v integer, pad text)
	SERVER s_damaged_t;
INSERT INTO t_s_damaged_t SELECT 'r' || lpad(g::text, 7, '0'), g, md5(g::text) FROM generate_series(1, 100000) g;
});
	damage_stopped(
		sub {
			my ($biggest) = sort { -s $b <=> -s $a } glob("$d/*.ldb");
			ok(defined $biggest && -s $biggest > 100_000, "$label: sanity: the rows are in table files");
			return ($biggest, int((-s $biggest) / 3));
		},
		"\xff" x 16);

	fails_clearly($node, $label,
		"SELECT count(*) FROM t_s_damaged_t WHERE k < 'r0099999'",
		qr/^XX001$/, qr/could not read LevelDB database "\Q$d\E"/, qr/Corruption/);
	still_serving($label);
	$node->safe_psql('postgres', 'DROP SERVER s_damaged_t CASCADE');
}

# ---------------------------------------------------------------------
# (d) Disk full.

# Where to put the small filesystem: ('env', dir), ('userns', dir) or
# (undef, why not).
sub diskfull_place
{
	my $env = $ENV{WC_DISKFULL_DIR};
	if (defined $env && $env ne '')
	{
		return (undef, 'WC_DISKFULL_DIR=none') if $env eq 'none';
		return (undef, "WC_DISKFULL_DIR=$env is not a writable directory")
		  unless -d $env && -w $env;
		my $df = `df -Pk '$env' 2>/dev/null`;
		my ($avail) = $df =~ /\n\S+\s+\d+\s+\d+\s+(\d+)/;
		return (undef, "cannot tell the free space of WC_DISKFULL_DIR=$env")
		  unless defined $avail;
		return (undef,
			"WC_DISKFULL_DIR=$env has ${avail} kB free; at most 512 MB, please")
		  if $avail > 512 * 1024;
		return ('env', "$env/wc_diskfull_$$");
	}
	return (undef, 'user namespaces are not available on this system')
	  unless $^O eq 'linux';
	my $probe = "$base/probe";
	mkdir($probe);
	my ($out, $err) = ('', '');
	my $ok = eval {
		IPC::Run::run(
			[
				'unshare', '--user', '--mount', '--map-current-user',
				'--keep-caps', 'sh', '-c',
				'mount -t tmpfs -o size=1m wc_probe "$0" && touch "$0/x"',
				$probe
			],
			'<', '/dev/null', '>', \$out, '2>', \$err);
	};
	return ('userns', "$base/diskfull") if $ok;
	chomp($err);
	$err ||= $@ || 'unshare failed';
	$err =~ s/\s+at \S+ line \d+.*//s;
	return (undef,
		    'no small filesystem: unprivileged user namespaces are not '
		  . "available ($err); set WC_DISKFULL_DIR, see the header of this file"
	);
}

SKIP:
{
	my ($how, $mnt) = diskfull_place();
	skip "disk full: $mnt", 1 unless defined $how;
	note("disk full: using $how, $mnt");
	mkdir($mnt) or die "mkdir $mnt: $!";

	my $label = 'disk full';
	my $df = PostgreSQL::Test::Cluster->new('wc_diskfull');
	$df->init;
	$df->append_conf('postgresql.conf',
		"shared_preload_libraries = 'widecolumn_fdw'\n");
	if ($how eq 'env')
	{
		$df->start;
	}
	else
	{
		# The postmaster and its children see a 16 MB tmpfs at $mnt.
		my $ret = PostgreSQL::Test::Utils::system_log(
			'unshare', '--user', '--mount', '--map-current-user',
			'--keep-caps', 'sh', '-c',
			'mount -t tmpfs -o "size=16m,mode=0700" wc_diskfull "$0" && exec "$@"',
			$mnt, 'pg_ctl', '-w', '-D', $df->data_dir, '-l', $df->logfile,
			'-o', '--cluster-name=' . $df->name, 'start');
		# Tell the Cluster object the node runs (as its start method does),
		# so that stop and the teardown at exit work as usual.
		$df->_update_pid($ret == 0 ? 1 : -1);
		BAIL_OUT('could not start the disk-full cluster') if $ret != 0;
	}

	$df->safe_psql(
		'postgres', qq{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER other FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE elsewhere (k text OPTIONS (rowkey 'true'), v text) SERVER other;
CREATE SERVER small FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (path '$mnt/db');
CREATE FOREIGN TABLE fa (
	k text OPTIONS (rowkey 'true') COLLATE "C",
	tx bigint OPTIONS (column 'f:tx'),
	pad text OPTIONS (column 'f:pad')
) SERVER small OPTIONS (table 'full_a');
CREATE FOREIGN TABLE fb (
	k text OPTIONS (rowkey 'true') COLLATE "C",
	tx bigint OPTIONS (column 'g:tx'),
	n int OPTIONS (column 'g:n')
) SERVER small OPTIONS (table 'full_b');
CREATE PROCEDURE put_tx(t bigint, nrows int) LANGUAGE sql AS \$\$
	INSERT INTO fa SELECT 't' || t || ':' || i, t,
		't' || t || ':' || i || '#' || repeat('x', 200)
		FROM generate_series(1, nrows) i;
	INSERT INTO fb SELECT 't' || t || ':' || i, t, i
		FROM generate_series(1, nrows) i;
\$\$;
CALL put_tx(1, 100);
INSERT INTO elsewhere VALUES ('a', 'b');
});
	my %expect = (1 => 100);    # tx => rows per table

	# What fa and fb hold: "tx:rows:good|..." per table, both tables.
	my $contents = sub {
		my $q = q{
SELECT string_agg(tx || ':' || c || ':' || g, ' ' ORDER BY tx) FROM (
	SELECT coalesce(tx, -1) AS tx, count(*) AS c,
		count(*) FILTER (WHERE pad = k || '#' || repeat('x', 200)) AS g
	FROM fa GROUP BY tx) s;
SELECT string_agg(tx || ':' || c || ':' || g, ' ' ORDER BY tx) FROM (
	SELECT coalesce(tx, -1) AS tx, count(*) AS c,
		count(*) FILTER (WHERE k = 't' || tx || ':' || n) AS g
	FROM fb GROUP BY tx) s;
};
		my ($ret, $out, $err) = run_sql($df, $q);
		return $ret == 0 ? $out : "error: $err";
	};
	my $want = sub {
		my $s = join(' ',
			map { "$_:$expect{$_}:$expect{$_}" } sort { $a <=> $b } keys %expect);
		return "$s\n$s";
	};

	is($contents->(), $want->(), "$label: the small filesystem holds a database");
	my $dfworker = worker_pid($df);

	# Fill the filesystem, leaving about 3 MB.  Run by the server, so that
	# it happens in its view of the filesystem.
	$df->safe_psql('postgres',
		    "COPY (SELECT 1) TO PROGRAM 'dd if=/dev/zero of=\"$mnt/filler\" "
		  . "bs=65536 >/dev/null 2>&1; truncate -s -3M \"$mnt/filler\"; cat >/dev/null'");

	# About 10 MB in one transaction.
	fails_clearly($df, "$label: a transaction writing more than fits",
		'CALL put_tx(2, 40000)',
		qr/^53100$/, qr/could not write to LevelDB database "\Q$mnt\/db\E"/,
		qr/No space left on device/);
	is($contents->(), $want->(), "$label: nothing of it is visible");
	is($df->safe_psql('postgres', 'SELECT v FROM elsewhere'), 'b',
		"$label: another server's table is still served");

	# While still full, a small one either commits or fails the same way.
	my ($ret, $out, $err) = run_sql($df, 'CALL put_tx(3, 20)');
	if ($ret == 0)
	{
		$expect{3} = 20;
		pass("$label: a small transaction while full commits");
	}
	else
	{
		is(sqlstate($err), '53100',
			"$label: a small transaction while full fails with 53100")
		  or diag($err);
	}
	# A write after a failed one reopens the database, which needs space
	# itself; while the disk stays full, reading may then fail the same
	# clear way instead.  Either way, nothing partial may be visible.
	my $seen = $contents->();
	if ($seen =~ /ERROR:\s+53100: could not open LevelDB database/)
	{
		pass("$label: while still full, reading fails cleanly with 53100");
	}
	else
	{
		is($seen, $want->(), "$label: all or nothing of it is visible");
	}

	# Free the space: smaller writes work again.
	$df->safe_psql('postgres',
		"COPY (SELECT 1) TO PROGRAM 'rm -f \"$mnt/filler\"; cat >/dev/null'");
	for my $tx ([ 4, 20 ], [ 5, 400 ], [ 6, 20 ])
	{
		($ret, $out, $err) = run_sql($df, "CALL put_tx($tx->[0], $tx->[1])");
		is($ret, 0, "$label: space freed, a transaction of $tx->[1] rows commits")
		  or diag($err);
		$expect{ $tx->[0] } = $tx->[1] if $ret == 0;
	}
	is($contents->(), $want->(),
		"$label: space freed, exactly the committed transactions are visible");
	is(worker_pid($df), $dfworker, "$label: the storage worker did not crash");

	# Reopen the database (a new storage worker opens it and replays its
	# log): every committed transaction must still be there, whole.
	kill 'TERM', $dfworker if defined $dfworker;
	ok(defined wait_for_new_worker($df, $dfworker),
		"$label: a new storage worker runs");
	is($contents->(), $want->(),
		"$label: after reopening, every committed transaction is there and nothing else"
	  )
	  or diag(
		"LevelDB's LOG:\n",
		scalar $df->safe_psql('postgres',
			"SELECT pg_read_file('$mnt/db/LOG')"));
	($ret, $out, $err) = run_sql($df, 'CALL put_tx(7, 20)');
	is($ret, 0, "$label: writes work after reopening") or diag($err);
	$expect{7} = 20 if $ret == 0;
	is($contents->(), $want->(), "$label: and are visible");

	$df->stop;
	rmtree($mnt) if $how eq 'env';
}

# ---------------------------------------------------------------------
# The session opened at the start is still there: no crash restart.

my ($out, $failed) = $witness->query('SELECT count(*) FROM good');
is("$failed|$out", "0|$good_rows", 'the session opened at the start still works');
$witness->quit;

$node->stop;
done_testing();
