# The Bigtable engine's writes (src/worker/bigtable/btcommit.c): INSERT,
# UPDATE, DELETE and COPY on a Bigtable server's table against Google's
# emulator, each step done to a native twin too and the two compared, and
# what SQL wrote read back by Bigtable's own client (cbt read) and by the
# wall:
# - moving a table up is one statement (INSERT ... SELECT from native);
# - a NULL set is the cell deleted; ROLLBACK sends nothing;
# - a COMMIT that fails part-way (rows with a family Bigtable lacks) says
#   how many rows were applied and which failed first, and those applied
#   are there (families, and a table Bigtable lacks: 039).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes ();
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my ($endpoint, $CBT) = wc_bt_test_start();
my $have_cbt = $CBT ne '';
my $I = 'projects/p/instances/i';

sub wall { return wc_bt_wall($endpoint, @_); }

# The rows the wall reads of a table: "key family qualifier value" each.
sub wall_cells
{
	my ($table) = @_;
	my ($out) = wall('', "$I/tables/$table", 'read');
	my @cells;
	foreach my $line (split /\n/, $out)
	{
		my @f = split /\t/, $line;
		push @cells, join('|', @f[ 0, 1, 2, 4 ]) if @f == 5;
	}
	return join("\n", sort @cells);
}

is((wall('', $I, 'createtable', 'balloon', 'm=maxversions=1'))[1], 0, 'the Bigtable table is made');

my $node = wc_node('btw', "widecolumn_fdw.worker_threads = 2\nmax_prepared_transactions = 10\n");
$node->safe_psql('postgres', qq{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER bt FOREIGN DATA WRAPPER widecolumn_fdw
  OPTIONS (engine 'bigtable', project 'p', instance 'i', endpoint '$endpoint', credentials 'insecure');
CREATE FOREIGN TABLE balloon (rowkey text COLLATE "C", city text OPTIONS (column 'm:city'),
  temp text OPTIONS (column 'm:temp')) SERVER bt;
CREATE TABLE balloon_local (rowkey text COLLATE "C" PRIMARY KEY, city text, temp text);
INSERT INTO balloon_local
  SELECT 'k' || lpad(g::text, 4, '0'), 'city-' || (g % 37), CASE WHEN g % 5 <> 0 THEN (g * 3)::text END
  FROM generate_series(1, 2000) g;
});

# The foreign table and its twin, the same rows.
sub same
{
	my ($name) = @_;
	is($node->safe_psql('postgres', 'SELECT * FROM balloon ORDER BY rowkey'),
		$node->safe_psql('postgres', 'SELECT * FROM balloon_twin ORDER BY rowkey'), $name);
}
$node->safe_psql('postgres', 'CREATE TABLE balloon_twin (LIKE balloon_local)');

# Moving a table up: one statement.
$node->safe_psql('postgres', 'INSERT INTO balloon SELECT * FROM balloon_local');
$node->safe_psql('postgres', 'INSERT INTO balloon_twin SELECT * FROM balloon_local');
same('INSERT ... SELECT from a native table: every row');

# Bigtable holds exactly those cells (the wall's read), NULLs not written.
my $expect = join("\n", sort split /\n/, $node->safe_psql('postgres', q{
SELECT rowkey || '|m|city|' || city FROM balloon_local
UNION ALL SELECT rowkey || '|m|temp|' || temp FROM balloon_local WHERE temp IS NOT NULL}));
is(wall_cells('balloon'), $expect, 'Bigtable holds exactly the cells written');

# And Google's cbt reads them.
SKIP:
{
	skip "Google's cbt is not installed", 2 unless $have_cbt;
	my $home = PostgreSQL::Test::Utils::tempdir;
	local $ENV{HOME} = $home;
	local $ENV{BIGTABLE_EMULATOR_HOST} = $endpoint;
	my $out = `$CBT -project p -instance i read balloon prefix=k001 2>&1`;
	my (%got, %got_ts, $row, $col);
	require Time::Local;
	foreach my $line (split /\n/, $out)
	{
		if ($line =~ /^(k\S+)$/) { $row = $1; }
		elsif ($line =~ /^\s+(m:\w+)\s+@ (\d{4})\/(\d\d)\/(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{6})$/)
		{
			$col = $1;
			# cbt prints a cell's time in UTC, to the microsecond
			$got_ts{"$row|$col"} = Time::Local::timegm($7, $6, $5, $4, $3 - 1, $2) * 1_000_000 + $8;
		}
		elsif ($line =~ /^\s+"(.*)"$/) { $got{"$row|$col"} = $1; }
	}
	my %want = map { my @f = split /\|/; ("$f[0]|$f[1]:$f[2]" => $f[3]) }
	  grep { /^k001/ } split /\n/, $expect;
	is_deeply(\%got, \%want, "cbt read gives SQL's cells (k001*)");
	# and the times the cells layout gives them (the COMMIT's, in milliseconds)
	$node->safe_psql('postgres', q{CREATE FOREIGN TABLE balloon_versions (rowkey text COLLATE "C",
	  family text COLLATE "C", qualifier text COLLATE "C", ts timestamptz, value bytea)
	  SERVER bt OPTIONS (table 'balloon', layout 'cells')});
	my %want_ts = map { my @f = split /\|/; ("$f[0]|$f[1]:$f[2]" => $f[3]) } split /\n/,
	  $node->safe_psql('postgres', q{SELECT rowkey, family, qualifier,
	    (extract(epoch FROM ts) * 1000000)::bigint FROM balloon_versions WHERE rowkey LIKE 'k001%'});
	is_deeply(\%got_ts, \%want_ts, "... at the times SQL's cells layout reads (k001*)");
	$node->safe_psql('postgres', 'DROP FOREIGN TABLE balloon_versions');
}

# UPDATE, a NULL (the cell deleted), DELETE, COPY: each on both tables.
foreach my $t ('balloon', 'balloon_twin')
{
	$node->safe_psql('postgres', qq{
UPDATE $t SET city = upper(city) WHERE rowkey LIKE 'k01%';
UPDATE $t SET temp = NULL WHERE rowkey IN ('k0101', 'k0102');
UPDATE $t SET temp = 'set' WHERE rowkey = 'k0105';
DELETE FROM $t WHERE rowkey < 'k0005' OR rowkey BETWEEN 'k1500' AND 'k1599';
});
}
same('UPDATE, a NULL, DELETE');
is(scalar(grep { /^k0101\|m\|temp/ } split /\n/, wall_cells('balloon')), 0,
	'a NULL deletes the cell in Bigtable');
my $copy = join('', map { "c$_\tcopied-$_\t$_\n" } 1 .. 300);
foreach my $t ('balloon', 'balloon_twin')
{
	my ($rc, $o, $e) = $node->psql('postgres', "COPY $t FROM STDIN;\n$copy\\.\n");
	die "COPY $t: $e" if $rc;
}
same('COPY FROM');

# ROLLBACK sends nothing.
my $before = wall_cells('balloon');
$node->safe_psql('postgres', q{
BEGIN;
INSERT INTO balloon VALUES ('rolled', 'back', '1');
UPDATE balloon SET city = 'no' WHERE rowkey = 'k1000';
ROLLBACK;
});
is(wall_cells('balloon'), $before, 'ROLLBACK: Bigtable unchanged');

# A COMMIT that fails part-way: rows whose only cell is of a family Bigtable
# no longer has fail, the others are applied, and the error says so.  The
# family is dropped behind the session's back (by the wall), after its
# first COMMIT made it and its second read the list it then trusts.  (A row
# that also has a good cell would be half applied by the emulator, which
# does not check an entry's mutations before applying them as Bigtable
# does.)
$node->safe_psql('postgres', q{
CREATE FOREIGN TABLE partial (rowkey text COLLATE "C", city text OPTIONS (column 'm:city'),
  extra text OPTIONS (column 'gone:x')) SERVER bt OPTIONS (table 'balloon');
});
my ($rc, $o, $e) = $node->psql('postgres', qq{
\\set VERBOSITY verbose
INSERT INTO partial VALUES ('p0', NULL, 'x');
INSERT INTO partial VALUES ('p00', NULL, 'x');
DELETE FROM partial WHERE rowkey IN ('p0', 'p00');
\\! $WC_BTWALL $endpoint $I/tables/balloon family drop gone
INSERT INTO partial VALUES ('p1', 'ok', NULL), ('p2', NULL, 'x'), ('p3', 'ok', NULL), ('p4', NULL, 'y');
});
like($e, qr/COMMIT to Bigtable applied 2 of 4 rows/, 'a partial COMMIT: how many rows were applied');
like($e, qr/The first row not applied is "p2"/, '... and which failed first');
like($e, qr/not atomic together/, '... and why');
is($node->safe_psql('postgres', "SELECT rowkey, city FROM balloon WHERE rowkey LIKE 'p%' ORDER BY 1"),
	"p1|ok\np3|ok", 'the rows applied are there, the others not');
$node->safe_psql('postgres', "INSERT INTO balloon_twin VALUES ('p1', 'ok', NULL), ('p3', 'ok', NULL)");

# drop_row_range: Bigtable's DropRowRange at COMMIT, before the rows: the
# transaction's writes to the range before the drop are gone with it,
# those after it stay; ROLLBACK sends nothing.
$node->safe_psql('postgres', q{
BEGIN;
SELECT widecolumn.drop_row_range('balloon', 'k2');
ROLLBACK;
});
same('a drop rolled back changes nothing');
$node->safe_psql('postgres', q{
BEGIN;
INSERT INTO balloon VALUES ('k1zz', 'before', NULL);
SELECT widecolumn.drop_row_range('balloon', 'k1');
INSERT INTO balloon VALUES ('k1new', 'after', NULL);
SELECT count(*) FROM balloon WHERE rowkey LIKE 'k1%';
COMMIT;
DELETE FROM balloon_twin WHERE rowkey LIKE 'k1%';
INSERT INTO balloon_twin VALUES ('k1new', 'after', NULL);
});
same('drop_row_range: the prefix\'s rows gone, the one written after the drop there');
is($node->safe_psql('postgres', "SELECT rowkey, city FROM balloon WHERE rowkey LIKE 'k1%'"), 'k1new|after',
	'... only it');
unlike(wall_cells('balloon'), qr/^k1(?!new)/m, '... as Bigtable has them');
like(wall_cells('balloon'), qr/^k2/m, '... and the rows of other prefixes');

# Two sessions of this cluster each adding 1 to one counter 200 times: the
# extension's row locks make them take turns, each UPDATE rereading the
# row once the other's COMMIT is in Bigtable, so none is lost.
is((wall('', $I, 'createtable', 'counters', 'c=maxversions=1'))[1], 0, 'a table of counters');
$node->safe_psql('postgres', q{
CREATE FOREIGN TABLE counters (rowkey text COLLATE "C", n bigint OPTIONS (column 'c:n')) SERVER bt;
INSERT INTO counters VALUES ('hits', 0);
});
my @sessions;
foreach my $i (1 .. 2)
{
	my %sess = (out => '', err => '',
		in => "\\set ON_ERROR_STOP 0\n" . ("UPDATE counters SET n = n + 1 WHERE rowkey = 'hits';\n" x 200));
	$sess{h} = IPC::Run::start([ 'psql', '-X', '-q', '-d', $node->connstr('postgres') ],
		'<', \$sess{in}, '>', \$sess{out}, '2>', \$sess{err});
	push @sessions, \%sess;
}
$_->{h}->finish foreach @sessions;
my $errors = 0;
$errors += () = $_->{err} =~ /ERROR/g foreach @sessions;
is($node->safe_psql('postgres', "SELECT n FROM counters WHERE rowkey = 'hits'"), 400 - $errors,
	"two sessions' 400 increments: none lost ($errors refused)");

# Another Bigtable client writing a row between an UPDATE's or DELETE's
# read and its COMMIT: the COMMIT sends each row it read as a
# CheckAndMutateRow that applies only if the row has no newer cell, and
# fails with 40001 when it has; nothing of that row is applied, and the
# rows read are sent first, so nothing else is either.  The other client's
# cell stays, and the transaction tried again goes through.
is((wall('', $I, 'createtable', 'acct', 'c=maxversions=1', 'x=maxversions=1'))[1], 0, 'a table of accounts');
$node->safe_psql('postgres', q{
CREATE FOREIGN TABLE acct (rowkey text COLLATE "C", n bigint OPTIONS (column 'c:n'),
  note text OPTIONS (column 'c:note')) SERVER bt;
INSERT INTO acct VALUES ('a', 1, NULL), ('b', 1, NULL), ('c', 1, NULL);
});

# A cell written by "another client" now, after what SQL wrote.
sub other_client_writes
{
	my ($row, $fam, $qual, $value) = @_;
	my $ts = int(Time::HiRes::time() * 1000 + 2) * 1000;
	Time::HiRes::usleep(3_000);
	my ($out, $rc) = wall("set\t$row\t$fam\t$qual\t$ts\t$value\n", "$I/tables/acct", 'put');
	return $out;
}
sub acct { return $node->safe_psql('postgres', 'SELECT rowkey, n, note FROM acct ORDER BY 1'); }

my $s = $node->background_psql('postgres', on_error_stop => 0);
# runs $sql in $s; its stderr
sub in_s
{
	my ($sql) = @_;
	$s->{stderr} = '';
	$s->query("\\set VERBOSITY verbose\n$sql");
	return $s->{stderr};
}
my $update_ab = "UPDATE acct SET n = n + 10 WHERE rowkey IN ('a', 'b');";
is(in_s("BEGIN; $update_ab"), '', 'a transaction updates rows a and b');
like(other_client_writes('a', 'c', 'note', 'theirs'), qr/applied 1 of 1/, 'another client writes a cell of row a');
my $err = in_s('COMMIT;');
like($err, qr/ERROR:  40001: could not serialize access due to concurrent update/, 'its COMMIT: 40001');
like($err, qr/Row key "a" of \S+acct was written or deleted by another Bigtable client after this transaction read it; COMMIT to Bigtable applied none of the transaction's 2 rows/,
	'... which row changed, and that nothing was applied');
is(acct(), "a|1|theirs\nb|1|\nc|1|", "... the other client's cell stays, and neither row has the update");
is(in_s("BEGIN; $update_ab COMMIT;"), '', 'the transaction tried again goes through');
is(acct(), "a|11|theirs\nb|11|\nc|1|", '... with both rows, on top of the other client\'s write');

# A conflict after a row was applied is no 40001: running the transaction
# again would apply that row twice.  The error says what was applied.
is(in_s("BEGIN; $update_ab"), '', 'a transaction updates rows a and b again');
other_client_writes('b', 'c', 'note', 'theirs too');
$err = in_s('COMMIT;');
like($err, qr/ERROR:  55000: COMMIT to Bigtable applied 1 of 2 rows\nDETAIL:  Row key "b" of \S+acct was written or deleted by another Bigtable client after this transaction read it/,
	'a conflict at the second row: 55000, one row applied, not 40001');
like($err, qr/running the transaction again would apply them twice/, '... and why it is not to be retried');
is(acct(), "a|21|theirs\nb|11|theirs too\nc|1|", '... row a has the update, row b the other client\'s write');
$node->safe_psql('postgres', "UPDATE acct SET n = 11 WHERE rowkey = 'a'");

# A write to another row, or no write at all, is no conflict.
is(in_s("BEGIN; UPDATE acct SET n = n + 1 WHERE rowkey = 'a';"), '', 'an UPDATE of row a');
other_client_writes('c', 'c', 'note', 'elsewhere');
is(in_s('COMMIT;'), '', '... commits when another client wrote row c');
is(acct(), "a|12|theirs\nb|11|theirs too\nc|1|elsewhere", '... both writes there');

# A DELETE, and a cell of a family the foreign table does not map: the row
# changed all the same.
is(in_s("BEGIN; DELETE FROM acct WHERE rowkey = 'b';"), '', 'a DELETE of row b');
other_client_writes('b', 'x', 'audit', 'seen');
like(in_s('COMMIT;'), qr/ERROR:  40001: .*\n.*Row key "b"/, "... fails when another client wrote a family the table does not map");
is(acct(), "a|12|theirs\nb|11|theirs too\nc|1|elsewhere", '... and row b is still there');
like(wall_cells('acct'), qr/^b\|x\|audit\|seen$/m, "... with the other client's cell");

# REPEATABLE READ: a write since the transaction's first read is a change,
# even though the UPDATE's read does not see it.
is(in_s("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM acct;"), '', 'a REPEATABLE READ transaction reads');
other_client_writes('c', 'c', 'note', 'later');
$err = in_s("UPDATE acct SET n = n + 1 WHERE rowkey = 'c'; COMMIT;");
like($err, qr/ERROR:  40001:/, '... and its UPDATE of a row another client wrote since fails with 40001');
is(acct(), "a|12|theirs\nb|11|theirs too\nc|1|later", '... applying nothing');
in_s('ROLLBACK;');

# Many rows read before they are written: their conditions go several at a
# time after the first (btcommit.c, send_checked), each row's as alone.
$node->safe_psql('postgres', "INSERT INTO acct SELECT 'm' || lpad(g::text, 3, '0'), g FROM generate_series(1, 300) g");
is(in_s("BEGIN; UPDATE acct SET n = n + 1000 WHERE rowkey LIKE 'm%'; COMMIT;"), '', 'an UPDATE of 300 rows read first');
is($node->safe_psql('postgres', "SELECT count(*), sum(n) FROM acct WHERE rowkey LIKE 'm%'"), '300|' . (300 * 1000 + 45150),
	'... every row applied once');
is(in_s("BEGIN; UPDATE acct SET n = n + 1000 WHERE rowkey LIKE 'm%';"), '', 'the UPDATE again');
other_client_writes('m150', 'c', 'note', 'mid');
$err = in_s('COMMIT;');
like($err, qr/ERROR:  55000: COMMIT to Bigtable applied \d+ of 300 rows\nDETAIL:  Row key "m150" of \S+acct was written or deleted by another Bigtable client/,
	'... another client wrote row m150 meanwhile: 55000, the rows applied counted');
my ($applied) = $err =~ /applied (\d+) of/;
is($node->safe_psql('postgres', "SELECT count(*) FILTER (WHERE n > 2000) FROM acct WHERE rowkey LIKE 'm%'"), $applied // 'none',
	'... as many rows have the update as it says');
is($node->safe_psql('postgres', "SELECT n, note FROM acct WHERE rowkey = 'm150'"), '1150|mid',
	"... and row m150 the other client's write, not the update");

# A row an UPDATE locks is read again from Bigtable only if a session of
# this cluster committed to a Bigtable server since the scan read it
# (fdw/exec/scan.c): an UPDATE of 300 rows alone is one request; one that
# waited for another session's COMMIT of one of its rows reads its rows
# again, and updates what that COMMIT left.
like($node->safe_psql('postgres', "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) UPDATE acct SET n = n + 1 WHERE rowkey LIKE 'm%'"),
	qr/Bigtable Requests: 1\n/, 'an UPDATE of 300 rows alone: one request, no row read again');
my $m_before = $node->safe_psql('postgres', "SELECT string_agg(n::text, ',' ORDER BY rowkey) FROM acct WHERE rowkey IN ('m001', 'm002')");
is(in_s("BEGIN; UPDATE acct SET n = n + 100 WHERE rowkey = 'm001';"), '', 'a session updates row m001');
my $b = $node->background_psql('postgres', on_error_stop => 0);
$b->query_until(qr/started/, "\\echo started\nEXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) UPDATE acct SET n = n + 1 WHERE rowkey IN ('m001', 'm002');\n\\echo finished\n");
$node->poll_query_until('postgres', "SELECT count(*) > 0 FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
  or die 'the second UPDATE never waited';
is(in_s('COMMIT;'), '', '... and commits while another UPDATE of it waits');
my $waited = $b->query_until(qr/finished/, '');
like($waited, qr/Bigtable Requests: 3\n/, '... which reads both its rows again (one request each)') or diag $waited;
my ($m1, $m2) = split /,/, $m_before;
is($node->safe_psql('postgres', "SELECT string_agg(n::text, ',' ORDER BY rowkey) FROM acct WHERE rowkey IN ('m001', 'm002')"),
	($m1 + 101) . ',' . ($m2 + 1), '... and applies its update on top of the COMMIT it waited for');
like($b->{stderr}, qr/^$/, '... without an error');
$b->quit;

# A row read under an UPDATE's lock and also written through the cells
# layout is one CheckAndMutateRow with all of its writes (btcommit.c,
# join_checked): another client's write to it meanwhile leaves none of
# them applied, and the COMMIT counts it as one row.
$node->safe_psql('postgres', q{CREATE FOREIGN TABLE acct_cells (rowkey text COLLATE "C", family text COLLATE "C",
  qualifier text COLLATE "C", ts timestamptz, value bytea) SERVER bt OPTIONS (table 'acct', layout 'cells');});
my $m10 = $node->safe_psql('postgres', "SELECT n FROM acct WHERE rowkey = 'm010'");
is(in_s("BEGIN; UPDATE acct SET n = n + 1 WHERE rowkey = 'm010'; INSERT INTO acct_cells VALUES ('m010', 'c', 'extra', NULL, 'x');"), '',
	'a transaction updates row m010 and writes a cell of it through the cells layout');
other_client_writes('m010', 'c', 'note', 'meanwhile');
like(in_s('COMMIT;'), qr/40001: .*\n.*Row key "m010" .*applied none of the transaction's 1 row\./,
	'... another client wrote the row: 40001, one row');
is($node->safe_psql('postgres', "SELECT n, note, (SELECT count(*) FROM acct_cells WHERE rowkey = 'm010' AND qualifier = 'extra') FROM acct WHERE rowkey = 'm010'"),
	"$m10|meanwhile|0", '... and neither of its writes applied');

# Another client's deletion of a row read is a change too (the newest cell
# read is gone): the row stays deleted.
is(in_s("BEGIN; UPDATE acct SET n = n + 1 WHERE rowkey = 'm030';"), '', 'an UPDATE of row m030');
wall("delrow\tm030\n", "$I/tables/acct", 'put');
like(in_s('COMMIT;'), qr/ERROR:  40001: .*\n.*Row key "m030" of \S+acct was written or deleted by another Bigtable client/,
	'... fails when another client deleted the row meanwhile');
is($node->safe_psql('postgres', "SELECT count(*) FROM acct WHERE rowkey = 'm030'"), '0', '... which stays deleted');

# A row of more changes than Bigtable takes in one request fails before
# anything of its COMMIT is sent.
($rc, $o, $e) = $node->psql('postgres', q{\set VERBOSITY verbose
BEGIN;
INSERT INTO acct VALUES ('small', 1);
INSERT INTO acct_cells SELECT 'huge', 'c', 'q', to_timestamp(g), 'v' FROM generate_series(1, 100001) g;
COMMIT;});
like($e, qr/ERROR:  54000: a row of 100001 changes is more than Bigtable takes in one request \(100000\)/,
	'a row of 100,001 versions: 54000');
is($node->safe_psql('postgres', "SELECT count(*) FROM acct WHERE rowkey IN ('small', 'huge')"), '0', '... and nothing of its COMMIT sent');
# REPEATABLE READ reads as of the transaction's start: a row another
# session updated since is read as it was (its newer version counts for no
# maxversions=1 then), and an UPDATE of it fails at once (40001), as on
# LevelDB, read again under the lock since the COMMIT was before the scan.
my $m3 = $node->safe_psql('postgres', "SELECT n FROM acct WHERE rowkey = 'm003'");
is(in_s("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM acct;"), '', 'a REPEATABLE READ transaction reads');
$node->safe_psql('postgres', "UPDATE acct SET n = n + 1 WHERE rowkey = 'm003'");
is($s->query("SELECT n FROM acct WHERE rowkey = 'm003'"), $m3, "... a row another session updated since: as it was");
like(in_s("UPDATE acct SET n = n + 10 WHERE rowkey = 'm003';"), qr/ERROR:  40001: could not serialize access due to concurrent update/,
	"... and its UPDATE: 40001");
in_s('ROLLBACK;');
is($node->safe_psql('postgres', "SELECT n FROM acct WHERE rowkey = 'm003'"), $m3 + 1, "... the other session's update alone applied");

# The start is when the transaction's snapshot is taken, as PostgreSQL's
# is: at its first statement, not at BEGIN.  A row committed between the
# two (with its native twin, in one transaction) is there, as the twin is;
# one committed after the first statement is on neither.
my $rr_count = "SELECT (SELECT count(*) FROM balloon_twin WHERE rowkey LIKE 'rr-%') || '|' || (SELECT count(*) FROM balloon WHERE rowkey LIKE 'rr-%')";
sub both_insert
{
	my ($key) = @_;
	$node->safe_psql('postgres', "BEGIN; INSERT INTO balloon VALUES ('$key', 'x', NULL); INSERT INTO balloon_twin VALUES ('$key', 'x', NULL); COMMIT;");
}
is(in_s('BEGIN ISOLATION LEVEL REPEATABLE READ;'), '', 'BEGIN of a REPEATABLE READ transaction');
both_insert('rr-before');
is($s->query($rr_count), '1|1', '... a row committed before its first statement: there, as its native twin is');
both_insert('rr-after');
is($s->query($rr_count), '1|1', '... one committed after it: on neither');
in_s('COMMIT;');
is($node->safe_psql('postgres', $rr_count), '2|2', '... both there once it has ended');
$s->quit;

# In a procedure, a transaction its COMMIT begins starts then, after the
# CALL statement: its REPEATABLE READ reads see what the procedure
# committed before.
$node->safe_psql('postgres', q{
CREATE PROCEDURE rr_proc(INOUT n bigint) LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO balloon VALUES ('rrp-1', 'x', NULL);
  COMMIT;
  SELECT count(*) INTO n FROM balloon WHERE rowkey = 'rrp-1';
END $$;
});
is($node->safe_psql('postgres', "SET default_transaction_isolation = 'repeatable read'; CALL rr_proc(NULL)"), '1',
	'REPEATABLE READ in a transaction a procedure began: the row the procedure committed before is read');


# PREPARE TRANSACTION would send the writes, which Bigtable applies at
# once and ROLLBACK PREPARED could not undo: refused, nothing sent; one
# that only read the Bigtable server is prepared as any.
($rc, $o, $e) = $node->psql('postgres', q{\set VERBOSITY verbose
BEGIN; INSERT INTO balloon VALUES ('prepared', 'x', NULL); PREPARE TRANSACTION 'p1';});
like($e, qr/ERROR:  0A000: cannot PREPARE a transaction that has written to a Bigtable server/,
	'PREPARE TRANSACTION after a write to a Bigtable server: 0A000');
unlike(wall_cells('balloon'), qr/^prepared\|/m, '... and nothing of it in Bigtable');
$node->safe_psql('postgres', "BEGIN; SELECT count(*) FROM balloon; INSERT INTO balloon_twin VALUES ('p2', 'x', NULL); PREPARE TRANSACTION 'p2'; ROLLBACK PREPARED 'p2';");
is($node->safe_psql('postgres', "SELECT count(*) FROM balloon_twin WHERE rowkey = 'p2'"), 0,
	'... one that only read it is prepared and rolled back as any');

# The families Bigtable has, as families() lists them: from ListTables and
# GetTable, Bigtable's own policies in cbt's grammar.
is((wall('', $I, 'createtable', 'fams', 'a=maxversions=3', 'b=maxage=1d', 'c=maxage=2h or maxversions=2'))[1], 0,
	'a table of three families');
is($node->safe_psql('postgres', "SELECT table_name, family, gc_policy, aggregate FROM widecolumn.families('bt') ORDER BY 1, 2"),
	"acct|c|maxversions=1|\nacct|x|maxversions=1|\nballoon|m|maxversions=1|\ncounters|c|maxversions=1|\nfams|a|maxversions=3|\nfams|b|maxage=1d|\nfams|c|maxage=2h or maxversions=2|",
	"families(): Bigtable's tables, families and policies");
SKIP:
{
	skip "Google's cbt is not installed", 1 unless $have_cbt;
	is(wc_with_cbt($endpoint, $CBT, sub { wc_cbt_families('fams') }),
		$node->safe_psql('postgres', "SELECT family || '|' || gc_policy || '|-' FROM widecolumn.families('bt') WHERE table_name = 'fams' ORDER BY 1"),
		'the same families and policies as cbt ls');
}

# A COMMIT of this worker still being sent (100 MutateRows calls) when a
# REPEATABLE READ transaction takes its snapshot after the COMMIT's time:
# the transaction's read waits for it and reads all of its rows, where a
# READ COMMITTED read already saw some (btcommit.c, bt_commit_wait).
my $nbig = 100000;
$node->safe_psql('postgres', q{CREATE FOREIGN TABLE rrbig (rowkey text COLLATE "C", v text) SERVER bt OPTIONS (table 'rrbig')});
my $big = $node->background_psql('postgres', on_error_stop => 0);
$big->query_until(qr/^$/, "INSERT INTO rrbig SELECT 'k' || lpad(g::text, 6, '0'), 'x' FROM generate_series(1, $nbig) g;\n");
$node->poll_query_until('postgres', "SELECT count(*) > 0 FROM rrbig")
  or die "the COMMIT sent no row";
my $seen = $node->safe_psql('postgres', "SELECT count(*) FROM rrbig");
my $rr_big = $node->safe_psql('postgres', "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM rrbig; COMMIT;");
note("READ COMMITTED saw $seen rows of the COMMIT being sent");
is($rr_big, $nbig, 'REPEATABLE READ begun while a COMMIT of its past is being sent: all of its rows');
is($big->query('SELECT count(*) FROM rrbig'), $nbig, '... which the COMMIT applied');
$big->quit;

# REPEATABLE READ transactions reading twice while one-row COMMITs go on:
# the two reads agree.  A COMMIT that comes just after a read has waited
# for the COMMITs of its past, in the millisecond of the transaction's
# time, would be stamped inside it and be in the second read only
# (btcommit.c: the COMMITs after a wait are stamped after its time).  Ten
# counters, two writers adding to five each, so that a read is short and
# many come in the time.  Their family keeps every version: Bigtable's
# garbage collection (the emulator's runs every second or so) may remove
# a version a transaction's time still needs once the policy no longer
# keeps it, which no stamping can prevent (README, "Transactions, as far
# as Bigtable allows").
is((wall('', $I, 'createtable', 'rrgap', 'c=maxversions=1000000'))[1], 0, 'a table of ten counters');
$node->safe_psql('postgres', q{
CREATE FOREIGN TABLE rrgap (rowkey text COLLATE "C", n bigint OPTIONS (column 'c:n')) SERVER bt OPTIONS (table 'rrgap');
CREATE TABLE rrgap_torn (s1 numeric, s2 numeric);
INSERT INTO rrgap SELECT 'k' || g, 0 FROM generate_series(1, 10) g;
});
my $gapdir = PostgreSQL::Test::Utils::tempdir();
PostgreSQL::Test::Utils::append_to_file("$gapdir/write.sql",
	"\\set k (:client_id % 2) * 5 + random(1, 5)\nUPDATE rrgap SET n = n + 1 WHERE rowkey = 'k' || :k;\n");
PostgreSQL::Test::Utils::append_to_file("$gapdir/read.sql", q{BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT sum(n) AS s1 FROM rrgap \gset
SELECT sum(n) AS s2 FROM rrgap \gset
COMMIT;
INSERT INTO rrgap_torn SELECT :s1, :s2 WHERE :s1 <> :s2;
});
my @gap_connect = ('-h', $node->host, '-p', $node->port, 'postgres');
my ($gw_out, $gw_err, $gr_out, $gr_err) = ('', '', '', '');
my $gap_writer = IPC::Run::start([ 'pgbench', '-n', '-c', '2', '-T', '10', '-f', "$gapdir/write.sql", @gap_connect ],
	'>', \$gw_out, '2>', \$gw_err);
IPC::Run::run([ 'pgbench', '-n', '-c', '1', '-T', '8', '-f', "$gapdir/read.sql", @gap_connect ],
	'>', \$gr_out, '2>', \$gr_err);
$gap_writer->finish;
my ($gap_reads) = $gr_out =~ /actually processed: (\d+)/;
my ($gap_writes) = $gw_out =~ /actually processed: (\d+)/;
ok(($gap_reads // 0) > 100 && ($gap_writes // 0) > 100,
	'REPEATABLE READ transactions read twice while COMMITs went on (' . ($gap_reads // 'none')
	  . ' transactions, ' . ($gap_writes // 'no') . ' COMMITs)')
  or diag($gr_err . $gw_err);
is($node->safe_psql('postgres', 'SELECT count(*) FROM rrgap_torn'), '0',
	'... and each read the same rows twice')
  or diag($node->safe_psql('postgres', 'SELECT * FROM rrgap_torn'));
is($node->safe_psql('postgres', 'SELECT sum(n) FROM rrgap'), $gap_writes, '... and no COMMIT was lost');

# The emulator killed before a COMMIT: its error says nothing was applied,
# the transaction's native write is rolled back, and the session goes on.
wc_bt_stop_emulator();
($rc, $o, $e) = $node->psql('postgres', q{
\set VERBOSITY verbose
\set ON_ERROR_STOP 0
BEGIN;
INSERT INTO balloon_twin VALUES ('gone', 'x', NULL);
INSERT INTO balloon VALUES ('gone', 'x', NULL);
COMMIT;
SELECT count(*) AS twin_rows_named_gone FROM balloon_twin WHERE rowkey = 'gone';
});
like($e, qr/08006: (COMMIT to Bigtable applied 0 of 1 rows|Bigtable request failed)/, 'the emulator gone at COMMIT: 08006');
like($o, qr/^0$/m, "the transaction's native write rolled back, and the session goes on");

$node->stop;
done_testing();
