# The Bigtable engine's gRPC wall (src/worker/bigtable/btclient.cc, through
# test/bigtable/btwall) against Google's Bigtable emulator, held against
# Google's own client, cbt, in both directions:
# - what the wall writes (MutateRows: cells at their timestamps, binary
#   values, deletes of cells, families and rows) `cbt read` reads back
#   exactly, and what `cbt set` writes the wall reads;
# - the wall's reads (row sets of keys, ranges and prefixes, rows_limit,
#   reversed, RowFilter chains) give exactly the rows and cells a model of
#   the table kept here says, ReadRows' chunks merged by readrows.c;
# - SampleRowKeys, CheckAndMutateRow both ways, a MutateRows entry that
#   fails while the others are applied, a read stopped part-way, a large
#   value;
# - the table admin API against cbt ls: families with every kind of policy
#   and the aggregates in both directions, their changes, tables, row-range
#   drops;
# - errors within the deadline: a missing table, a refused connection, an
#   endpoint that never answers.
# Google's emulator where it is installed, else the one make deps builds
# from Debian's packages (older: no reversed reads, no aggregate families;
# those checks are skipped there, as are cbt's where cbt is missing).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IO::Socket::INET;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my ($EMULATOR, $google) = wc_bt_emulator();
plan skip_all => 'no Bigtable emulator: make deps builds one' unless $EMULATOR;
my $CBT = `command -v cbt 2>/dev/null`;
chomp $CBT;
my $have_cbt = $CBT ne '' && !$ENV{WC_TEST_NO_CBT};

# A check with Google's cbt, skipped (and said so) without it (one with a
# feature of Google's emulator the older one lacks: wc_with_google).
sub with_cbt
{
	my ($name, $check) = @_;
	return $check->() if $have_cbt;
	Test::More->builder->skip("Google's cbt is not installed: $name");
	return;
}

my $WALL = "$FindBin::RealBin/../bigtable/btwall";
BAIL_OUT("$WALL is not built (make test/bigtable/btwall)") unless -x $WALL;

our $endpoint = wc_bt_start_emulator($EMULATOR);

local $ENV{HOME} = wc_cbt_home();
local $ENV{BIGTABLE_EMULATOR_HOST} = $endpoint;
my $T = 'projects/p/instances/i/tables/t';

# Run the wall; its output lines, and its exit code.  Within a row, the
# cells of a read are by family name: Bigtable gives a row's families in
# an order of its own (the emulator: the table's), each family's columns
# by qualifier and each column's versions newest first.
sub wall
{
	my ($input, @args) = @_;
	my ($out, $err);
	IPC::Run::run([ $WALL, $endpoint, @args ], '<', \$input, '>', \$out, '2>', \$err);
	my $code = $? >> 8;
	my (@rows, %at);
	foreach my $line (split /^/, $out)
	{
		my @f = split /\t/, $line;
		if (@f != 5)
		{
			push @rows, [$line];
			next;
		}
		push @rows, [] unless @rows && ref $rows[-1][0] && $rows[-1][0][0] eq $f[0];
		push @{ $rows[-1] }, [ @f, scalar @{ $rows[-1] } ];
	}
	$out = join('', map {
		ref $_->[0]
		  ? map { join("\t", @$_[ 0 .. 4 ]) } sort { $a->[1] cmp $b->[1] or $a->[5] <=> $b->[5] } @$_
		  : $_->[0] } @rows);
	return ($out, $code, $err);
}

my $I = 'projects/p/instances/i';
ok((wall('', $I, 'tables'))[1] == 0, 'the emulator answers ListTables');
is((wall('', $I, 'createtable', 't', 'cf', 'other', 'gone'))[1], 0, 'CreateTable makes a table of three families');

# The bytes of the wall's escapes (\xNN, \\).
sub unesc
{
	my ($s) = @_;
	$s =~ s/\\(\\|x([0-9a-f]{2}))/defined $2 ? chr(hex $2) : '\\'/ge;
	return $s;
}

sub esc
{
	my ($s) = @_;
	$s =~ s/\\/\\\\/g;
	$s =~ s/([^\x21-\x7e])/sprintf('\\x%02x', ord $1)/ge;
	return $s;
}

# The model: row => family => qualifier => ts => value.
my %model;

# A value with bytes of every kind cbt must quote.
sub value_of
{
	my ($r, $v) = @_;
	return "v$r.$v" . ($r % 3 == 0 ? "\x00\xff\t\n\"\\end" : '');
}

my @lines;
for my $r (1 .. 120)
{
	my $row = sprintf('row%04d', $r);
	for my $v (1 .. 3)
	{
		my $ts = 1_600_000_000_000_000 + $v * 1000 + $r * 1_000_000;
		push @lines, join("\t", 'set', $row, 'cf', 'q', $ts, esc(value_of($r, $v)));
		$model{$row}{cf}{q}{$ts} = value_of($r, $v);
	}
	push @lines, join("\t", 'set', $row, 'other', "col$r", 1000 * $r, esc("o$r"));
	$model{$row}{other}{"col$r"}{ 1000 * $r } = "o$r";
	push @lines, join("\t", 'set', $row, 'gone', 'x', 5000, 'soon deleted');
	$model{$row}{gone}{x}{5000} = 'soon deleted';
}
my ($out, $code) = wall(join("\n", @lines) . "\n", $T, 'put');
is($code, 0, 'MutateRows of 120 rows succeeds');
like($out, qr/^applied 120 of 120$/m, 'each row is one entry, all applied');

# Deletes: a version range of a column, a family, whole rows.
my @dels;
for my $r (1 .. 120)
{
	my $row = sprintf('row%04d', $r);
	if ($r % 10 == 0)
	{
		push @dels, "delrow\t$row";
		delete $model{$row};
		next;
	}
	push @dels, "delfamily\t$row\tgone";
	delete $model{$row}{gone};
	if ($r % 4 == 0)
	{
		# the oldest two versions: [first, third) of q
		my @ts = sort { $a <=> $b } keys %{ $model{$row}{cf}{q} };
		push @dels, join("\t", 'delcells', $row, 'cf', 'q', $ts[0], $ts[2]);
		delete $model{$row}{cf}{q}{$_} for @ts[ 0, 1 ];
	}
}
($out, $code) = wall(join("\n", @dels) . "\n", $T, 'put');
is($code, 0, 'MutateRows of deletes succeeds') or diag($out);

# The model as the wall prints cells, rows in order (reversed: the other way).
sub model_cells
{
	my (%o) = @_;
	my @rows = sort keys %model;
	@rows = grep { $o{rows}->($_) } @rows if $o{rows};
	@rows = reverse @rows if $o{reversed};
	@rows = grep { my $r = $_; grep { %{ $model{$r}{$_} } } keys %{ $model{$r} } } @rows;
	@rows = @rows[ 0 .. $o{limit} - 1 ] if $o{limit} && @rows > $o{limit};
	my @cells;
	foreach my $r (@rows)
	{
		foreach my $f (sort keys %{ $model{$r} })
		{
			next if $o{family} && $f ne $o{family};
			foreach my $q (sort keys %{ $model{$r}{$f} })
			{
				my @ts = sort { $b <=> $a } keys %{ $model{$r}{$f}{$q} };
				@ts = grep { $_ >= $o{lo} && $_ < $o{hi} } @ts if defined $o{lo};
				@ts = @ts[ 0 .. $o{versions} - 1 ] if $o{versions} && @ts > $o{versions};
				push @cells, join("\t", esc($r), esc($f), esc($q), $_, esc($model{$r}{$f}{$q}{$_}))
				  for @ts;
			}
		}
	}
	my %seen;
	my $n = grep { !$seen{$_}++ } map { (split /\t/)[0] } @cells;
	return join('', map { "$_\n" } @cells) . "rows $n\n";
}

# ---------------------------------------------------------------------
# What the wall wrote, cbt reads: rows, cells, timestamps, bytes.

# cbt read's output as the wall prints cells.  cbt quotes a value as Go's
# %q does, and prints a timestamp as UTC to the microsecond.
sub go_unquote
{
	my ($s) = @_;
	$s =~ s/^"(.*)"$/$1/s or die "not a quoted value: $s";
	my %c = (a => "\a", b => "\b", f => "\f", n => "\n", r => "\r", t => "\t", v => "\x0b", '\\' => '\\',
		'"' => '"');
	$s =~ s/\\(x([0-9a-f]{2})|u([0-9a-f]{4})|([abfnrtv\\"]))/
	  defined $2 ? chr(hex $2) : defined $3 ? do { my $c = chr(hex $3); utf8::encode($c); $c } : $c{$4}/ge;
	return $s;
}

sub cbt_cells
{
	my ($args) = @_;
	my $text = `cbt read t $args 2>/dev/null`;
	my (@cells, $row, %rows);
	my @l = split /\n/, $text;
	for (my $i = 0; $i < @l; $i++)
	{
		next if $l[$i] =~ /^-+$/ || $l[$i] eq '';
		if ($l[$i] !~ /^\s/)
		{
			$row = $l[$i];
			$rows{$row} = 1;
			next;
		}
		$l[$i] =~ /^\s+(\S+?):(\S*)\s+@ (\d{4})\/(\d\d)\/(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{6})$/
		  or die "cbt line: $l[$i]";
		my ($f, $q) = ($1, $2);
		my $ts = (timegm_of($3, $4, $5, $6, $7, $8) * 1_000_000) + $9;
		my $v = go_unquote($l[ ++$i ] =~ s/^\s+//r);
		push @cells, [ $row, $f, $q, $ts, $v ];
	}
	# cbt prints a row's columns by family then qualifier, newest first
	return join('', map { join("\t", esc($_->[0]), esc($_->[1]), esc($_->[2]), $_->[3], esc($_->[4])) . "\n" }
		  sort { $a->[0] cmp $b->[0] or $a->[1] cmp $b->[1] or $a->[2] cmp $b->[2] or $b->[3] <=> $a->[3] } @cells)
	  . 'rows ' . scalar(keys %rows) . "\n";
}

sub timegm_of
{
	my ($y, $mo, $d, $h, $mi, $s) = @_;
	require Time::Local;
	return Time::Local::timegm($s, $mi, $h, $d, $mo - 1, $y);
}

with_cbt('what the wall wrote', sub {
	is(cbt_cells(''), model_cells(), 'cbt reads exactly what the wall wrote: rows, cells, timestamps, bytes');
});

# ---------------------------------------------------------------------
# Reads: row sets, limits, direction, filters, against the model.
my %reads = (
	'every row' => [ [], {} ],
	'reversed' => [ ['reversed'], { reversed => 1 } ],
	'keys' => [
		[ 'keys=row0007,row0003,row0010,row9999,row0003' ],
		{ rows => sub { $_[0] =~ /^row00(07|03|10)$/ } }
	],
	# both ends existing rows: the start is in, the end out
	'a range' => [ [ 'range=row0021,row0041' ], { rows => sub { $_[0] ge 'row0021' && $_[0] lt 'row0041' } } ],
	'two ranges and a key' => [
		[ 'range=row0005,row0008', 'range=row0100,', 'keys=row0050' ],
		{ rows => sub { ($_[0] ge 'row0005' && $_[0] lt 'row0008') || $_[0] ge 'row0100' || $_[0] eq 'row0050' } }
	],
	'a prefix' => [ [ 'prefix=row006' ], { rows => sub { $_[0] =~ /^row006/ } } ],
	'a prefix, reversed, limit 3' =>
	  [ [ 'prefix=row00', 'reversed', 'limit=3' ], { rows => sub { $_[0] =~ /^row00/ }, reversed => 1, limit => 3 } ],
	'limit 10' => [ ['limit=10'], { limit => 10 } ],
	'the newest version of each column' => [ ['versions=1'], { versions => 1 } ],
	'one family, two versions' => [ [ 'family=cf', 'versions=2' ], { family => 'cf', versions => 2 } ],
	# (milliseconds: Bigtable takes no finer bound)
	'a timestamp range' => [
		[ 'ts=1600000010000000,1600000060003000' ],
		{ lo => 1_600_000_010_000_000, hi => 1_600_000_060_003_000 }
	],);
foreach my $name (sort keys %reads)
{
	my ($args, $o) = @{ $reads{$name} };
	my $check = sub {
		($out, $code) = wall('', $T, 'read', @$args);
		is($code, 0, "read, $name: succeeds");
		is($out, model_cells(%$o), "read, $name: exactly the model's rows and cells");
	};
	if ($o->{reversed} && !$google)
	{
		# it answers in ascending order: readrows.c's order check says so
		($out, $code) = wall('', $T, 'read', @$args);
		like($out, qr/^error 13 .*out of order/m, "read, $name: the older emulator's ascending answer is an error");
		Test::More->builder->skip("the older emulator from Debian's packages has no reversed reads: $name");
		next;
	}
	$check->();
}
($out) = wall('', $T, 'read', 'limit=10');
like($out, qr/^rows 10$/m, 'rows_limit 10 receives 10 rows');

# ---------------------------------------------------------------------
# What cbt writes, the wall reads.
with_cbt('cbt set', sub {
	is(system("cbt set t row0001 cf:q=from-cbt\@1700000000000000 other:new=x\@1000 >/dev/null 2>&1"), 0,
		'cbt set writes two cells');
	$model{row0001}{cf}{q}{1_700_000_000_000_000} = 'from-cbt';
	$model{row0001}{other}{new}{1000} = 'x';
	($out) = wall('', $T, 'read', 'keys=row0001');
	is($out, model_cells(rows => sub { $_[0] eq 'row0001' }), 'the wall reads what cbt wrote');
});

# ---------------------------------------------------------------------
# CheckAndMutateRow: the predicate matches, then does not.
($out, $code) = wall('', $T, 'check', 'row0002', '^v2\.3$', 'cf', 'q', '1800000000000000', 'checked');
is($out, "matched true\n", 'CheckAndMutateRow: a matching cell applies the true mutations');
$model{row0002}{cf}{q}{1_800_000_000_000_000} = 'checked';
($out, $code) = wall('', $T, 'check', 'row0003', '^nothing$', 'other', 'q', '1', 'never');
is($out, "matched false\n", 'CheckAndMutateRow: no matching cell applies the false mutations');
delete $model{row0003}{other};
($out) = wall('', $T, 'read', 'keys=row0002,row0003');
is($out, model_cells(rows => sub { $_[0] =~ /^row000[23]$/ }), 'the wall reads what CheckAndMutateRow did');
with_cbt('CheckAndMutateRow', sub {
	is(cbt_cells('start=row0002 end=row0004'), model_cells(rows => sub { $_[0] =~ /^row000[23]$/ }),
		'cbt reads what CheckAndMutateRow did');
});

# ---------------------------------------------------------------------
# One entry fails (no such family); the others are applied.
($out, $code) = wall(
	"set\trow0200\tcf\tq\t1000\tfirst\nset\trow0201\tnofamily\tq\t1000\tbad\nset\trow0202\tcf\tq\t1000\tthird\n",
	$T, 'put');
is($code, 1, 'MutateRows with an entry for a missing family fails');
like($out, qr/^entry 1 [1-9]\d*$/m, 'the failed entry is named with its code');
unlike($out, qr/^entry [02] /m, 'the other entries are not');
like($out, qr/^applied 2 of 3$/m, 'and how many were applied is said');
$model{row0200}{cf}{q}{1000} = 'first';
$model{row0202}{cf}{q}{1000} = 'third';
($out) = wall('', $T, 'read', 'range=row0200,');
is($out, model_cells(rows => sub { $_[0] ge 'row0200' }), 'the applied entries are there, the failed one is not');
with_cbt('a failed entry', sub {
	is(cbt_cells('start=row0200'), model_cells(rows => sub { $_[0] ge 'row0200' }),
		'cbt reads the applied entries and not the failed one');
});

# ---------------------------------------------------------------------
# A large value (5 MB) goes through both ways.
my $big = join('', map { chr(($_ * 7) % 256) } 0 .. 5 * 1024 * 1024 - 1);
($out, $code) = wall("set\tbig\tcf\tq\t1000\t" . esc($big) . "\n", $T, 'put');
is($code, 0, 'a 5 MB value is written');
($out) = wall('', $T, 'read', 'keys=big');
my @got = split /\n/, $out;
is(scalar(@got), 2, 'a 5 MB value reads as one cell');
ok(unesc((split /\t/, $got[0])[4]) eq $big, 'a 5 MB value reads back byte for byte');

# ---------------------------------------------------------------------
# SampleRowKeys: keys in order, offsets growing, the last key empty.
($out, $code) = wall('', $T, 'sample');
is($code, 0, 'SampleRowKeys succeeds');
my @samples = map { [ split /\t/ ] } split /\n/, $out;
ok(@samples >= 1, 'SampleRowKeys gives samples');
wc_with_google('final sample at the table\'s end', 'SampleRowKeys', sub {
	is($samples[-1][0], '', 'SampleRowKeys ends at the empty key (the table\'s end)');
});
my $ordered = 1;
for my $i (1 .. $#samples)
{
	$ordered = 0 if $samples[$i][1] < $samples[ $i - 1 ][1];
	$ordered = 0 if $samples[$i][0] ne '' && $samples[$i][0] le $samples[ $i - 1 ][0];
}
ok($ordered, 'sample keys and offsets grow');
wc_with_google('final sample at the table\'s end', 'SampleRowKeys', sub {
	cmp_ok($samples[-1][1], '>', 5 * 1024 * 1024, 'the last offset counts the table\'s bytes');
});

# ---------------------------------------------------------------------
# A read stopped after 5 rows is cancelled; the emulator goes on.
($out, $code) = wall('', $T, 'read', 'stopafter=5');
is($code, 1, 'a read stopped part-way ends with an error');
like($out, qr/^rows 5\nerror 1 /m, 'it gave 5 rows and says it was cancelled');
($out, $code) = wall('', $T, 'read', 'limit=1');
like($out, qr/^rows 1$/m, 'the emulator answers the next read');

# ---------------------------------------------------------------------
# The table admin API, held against cbt ls: families with each kind of
# policy and the aggregates, both directions; changes; tables; row-range
# drops.
my @families = (
	'info=maxversions=1', 'history=never', 'views=maxversions=1/sum', 'low=maxversions=1/min',
	'high=never/max', 'recent=maxage=7d', 'hourly=maxage=36h or maxversions=2',
	'kept=maxage=90m and maxversions=3');
# (the older emulator takes an aggregate family as a plain one)
s{/\w+$}{} foreach $google ? () : @families;
($out, $code) = wall('', $I, 'createtable', 't2', @families);
is($code, 0, 'CreateTable with eight families') or diag($out);

# A policy's rules in one order, so that cbt's and ours compare.
sub wall_families
{
	my ($table) = @_;
	my ($o) = wall('', "$I/tables/$table", 'families');
	return join("\n", sort map { my @f = split /\t/; join('|', $f[0], wc_normal_policy($f[1]), $f[2]) } split /\n/, $o);
}

my $expected = join("\n", sort map {
	my ($f, $rest) = split /=/, $_, 2;
	my ($p, $agg) = split m{/}, $rest;
	join('|', $f, wc_normal_policy($p), $agg // '-') } @families);
wc_with_google('aggregate families', 'the aggregates CreateTable made', sub { like($expected, qr/\|sum$/m, 'the families include aggregates'); });
with_cbt('CreateTable', sub {
	is(wc_cbt_families('t2'), $expected, 'cbt ls shows the families CreateTable made: policies and aggregates');
});
is(wall_families('t2'), $expected, 'GetTable reads them back the same');

with_cbt('a family cbt made', sub {
	is(system(q{cbt createfamily t2 cbtmade >/dev/null 2>&1 && cbt setgcpolicy t2 cbtmade maxversions=4 >/dev/null 2>&1}), 0,
		'cbt makes a family with a policy');
	is(system(q{cbt createfamily t2 nested >/dev/null 2>&1 && cbt setgcpolicy t2 nested "(maxversions=1 or maxage=1d) and maxversions=3" >/dev/null 2>&1}),
		0, 'cbt makes a family with a nested policy');
	like(wall_families('t2'), qr/^cbtmade\|maxversions=4\|-$/m, 'GetTable reads the family cbt made');
	like(wall_families('t2'), qr/^nested\|\?\|-$/m, 'a policy beyond two rules reads as unknown, not as something else');
});

($out, $code) = wall('', "$I/tables/t2", 'family', 'update', 'info=maxage=12h or maxversions=2');
is($code, 0, 'ModifyColumnFamilies updates a policy');
($out, $code) = wall('', "$I/tables/t2", 'family', 'drop', 'low');
is($code, 0, 'ModifyColumnFamilies drops a family');
($out, $code) = wall('', "$I/tables/t2", 'family', 'create', 'fresh=maxage=30m');
is($code, 0, 'ModifyColumnFamilies creates a family');
my $now = wall_families('t2');
like($now, qr/^info\|maxage=12h or maxversions=2\|-$/m, 'GetTable reads the updated policy');
unlike($now, qr/^low\|/m, 'GetTable no longer lists the dropped family');
like($now, qr/^fresh\|maxage=30m\|-$/m, 'GetTable lists the created family');
with_cbt('ModifyColumnFamilies', sub {
	my $now = wc_cbt_families('t2');
	like($now, qr/^info\|maxage=12h or maxversions=2\|-$/m, 'cbt ls shows the updated policy');
	unlike($now, qr/^low\|/m, 'cbt ls no longer shows the dropped family');
	like($now, qr/^fresh\|maxage=30m\|-$/m, 'cbt ls shows the created family');
});

($out, $code) = wall('', $I, 'createtable', 't2');
like($out, qr/^error 6 /m, 'CreateTable of an existing table is ALREADY_EXISTS');

# in no order of Bigtable's: the emulator lists them from a Go map
($out) = wall('', $I, 'tables');
is(join('', sort split /^/, $out), "$I/tables/t\n$I/tables/t2\n", 'ListTables names both tables');
($out, $code) = wall('', "$I/tables/t2", 'deletetable');
is($code, 0, 'DeleteTable succeeds');
($out) = wall('', $I, 'tables');
is($out, "$I/tables/t\n", 'ListTables no longer names it');
with_cbt('DeleteTable', sub { unlike(`cbt ls 2>/dev/null`, qr/^t2$/m, 'nor does cbt ls'); });

# drop the rows under a prefix, then every row
($out, $code) = wall('', $T, 'droprange', 'row00');
is($code, 0, 'DropRowRange of a prefix succeeds');
delete $model{$_} for grep { /^row00/ } keys %model;
delete $model{big};
($out) = wall('', $T, 'read', 'range=c,');
is($out, model_cells(), 'the rows under the prefix are gone, the others are there');
# (cbt's client takes no answer over 4 MB: not the 5 MB row)
with_cbt('DropRowRange', sub { is(cbt_cells('start=c'), model_cells(), 'cbt reads the same'); });
($out, $code) = wall('', $T, 'droprange', '--all');
is($code, 0, 'DropRowRange of every row succeeds');
($out) = wall('', $T, 'read');
is($out, "rows 0\n", 'no row is left');
with_cbt('DropRowRange', sub { like(`cbt count t 2>/dev/null`, qr/^0$/m, 'cbt counts no row left'); });

# ---------------------------------------------------------------------
# Errors, each within the deadline.
($out, $code) = wall('', 'projects/p/instances/i/tables/missing', 'read');
like($out, qr/^error 5 .*not found/m, 'a missing table is NOT_FOUND');
my $closed = PostgreSQL::Test::Cluster::get_free_port();
{
	local $endpoint = "127.0.0.1:$closed";
	($out, $code) = wall('', $T, 'read');
	like($out, qr/^error 14 /m, 'a refused connection is UNAVAILABLE');
}
# a socket that takes the connection and never answers
my $mute = IO::Socket::INET->new(Listen => 5, LocalAddr => '127.0.0.1', LocalPort => 0, Proto => 'tcp')
  or die "listen: $!";
{
	local $endpoint = '127.0.0.1:' . $mute->sockport;
	local $ENV{BTWALL_TIMEOUT_MS} = 1500;
	($out, $code) = wall('', $T, 'read');
	like($out, qr/^error 4 /m, 'an endpoint that never answers is DEADLINE_EXCEEDED, not a hang');
}

done_testing();
