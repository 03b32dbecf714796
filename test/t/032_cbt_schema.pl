# The cbt commands widecolumn.export_schema prints, run as they are against
# Google's Bigtable emulator with Google's cbt, make the tables, families,
# GC policies and aggregate types that widecolumn.families() lists: what
# `cbt ls <table>` then shows is compared with families(), family by
# family.  Skipped where the emulator or cbt is not installed.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $EMULATOR = '/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator';
my $CBT = `command -v cbt 2>/dev/null`;
chomp $CBT;
plan skip_all => "Google's Bigtable emulator is not installed ($EMULATOR)" unless -x $EMULATOR;
plan skip_all => "Google's cbt is not installed" unless $CBT ne '';

my $node = wc_node('wc_cbt');
my $port = PostgreSQL::Test::Cluster::get_free_port();
my $emulator = IPC::Run::start([ $EMULATOR, '-host', '127.0.0.1', '-port', $port ],
	'>', \my $emu_out, '2>', \my $emu_err);
# stopped however the test ends, a failed check or a die included
END { local $?; $emulator->kill_kill if $emulator; }

# cbt finds the project and instance in ~/.cbtrc, so the printed lines
# run as they are
my $home = PostgreSQL::Test::Utils::tempdir;
open my $rc, '>', "$home/.cbtrc" or die "$home/.cbtrc: $!";
print $rc "project = widecolumn-test\ninstance = emulated\n";
close $rc;
local $ENV{HOME} = $home;
local $ENV{BIGTABLE_EMULATOR_HOST} = "127.0.0.1:$port";

# the emulator listens when cbt can list its (no) tables
my $up = 0;
for (1 .. 60)
{
	if (system("cbt ls >/dev/null 2>&1") == 0) { $up = 1; last; }
	sleep 1;
}
ok($up, 'the emulator answers cbt');

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
SELECT widecolumn.create_family('wc', 'video', 'info', 'maxversions=1');
SELECT widecolumn.create_family('wc', 'video', 'history', 'never');
SELECT widecolumn.create_family('wc', 'video', 'views', 'maxversions=1', aggregate => 'sum');
SELECT widecolumn.create_family('wc', 'video', 'lowest', 'maxversions=1', aggregate => 'min');
SELECT widecolumn.create_family('wc', 'video', 'highest', 'never', aggregate => 'max');
SELECT widecolumn.create_family('wc', 'weather', 'recent', 'maxage=7d');
SELECT widecolumn.create_family('wc', 'weather', 'hourly', 'maxage=36h or maxversions=2');
SELECT widecolumn.create_family('wc', 'weather', 'kept', 'maxage=90m and maxversions=3');
});

my $schema = $node->safe_psql('postgres', q{SELECT widecolumn.export_schema('wc')});
my @cbt = grep { /^cbt / } split /\n/, $schema;
ok(scalar(@cbt) > 0, 'export_schema prints cbt commands');
foreach my $line (@cbt)
{
	my $out = `$line 2>&1`;
	is($?, 0, "runs: $line") or diag($out);
}

# What cbt ls shows, in families()'s words: "versions() > N" is
# maxversions=N, "age() > X" maxage=X, "||" or, "&&" and, no policy never;
# the value type names the aggregate.
sub policy_of
{
	my ($gc) = @_;
	return 'never' if $gc eq '';
	$gc =~ s/^\((.*)\)$/$1/;
	$gc =~ s/versions\(\) > (\d+)/maxversions=$1/g;
	$gc =~ s/age\(\) > (\w+)/maxage=$1/g;
	$gc =~ s/ \|\| / or /g;
	$gc =~ s/ && / and /g;
	return $gc;
}

my @listed;
foreach my $table ('video', 'weather')
{
	my $out = `cbt ls $table 2>/dev/null`;
	is($?, 0, "cbt ls $table");
	foreach my $row (split /\n/, $out)
	{
		next if $row =~ /^(Family Name|-+)/;
		# columns padded with tabs: an empty policy leaves only tabs
		my @f = grep { $_ ne '' } split /\t/, $row;
		my $family = shift @f;
		my $type = @f && $f[-1] =~ /^\{/ ? pop @f : '';
		my $aggregate = $type =~ /"(sum|min|max)":\{\}/ ? $1 : '';
		push @listed, join('|', $table, $family, policy_of(join('', @f)), $aggregate);
	}
}
is( join("\n", sort @listed),
	$node->safe_psql(
		'postgres', q{
SELECT string_agg(concat_ws('|', table_name, family, gc_policy, coalesce(aggregate, '')), E'\n'
                  ORDER BY table_name || '|' || family COLLATE "C")
  FROM widecolumn.families('wc')}),
	'cbt ls shows every family of families(), with its policy and aggregate');

$node->stop;
done_testing();
