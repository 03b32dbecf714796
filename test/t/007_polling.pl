
# Scans read the same rows whether sessions poll for batches or sleep.
#
# A session waiting for a scan's next batch polls the answer queue for up
# to widecolumn_fdw.poll_microseconds before it sleeps on its latch
# (src/fdw/link/client.c).  Which of the two happens depends on timing, so each
# setting is tried: 0 (always sleep), the default, and 10000 (nearly always
# poll), with one session and with four scanning at once, and every result
# is compared with a native table holding the same rows.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use WcTest;

my $node = wc_node('wc_polling');

# 20,000 rows of about 100 bytes: a scan of them takes a dozen batches.
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE t (k text OPTIONS (rowkey 'true') COLLATE "C", a bigint, b text)
	SERVER wc;
CREATE TABLE n (k text COLLATE "C" PRIMARY KEY, a bigint, b text);
INSERT INTO n SELECT 'k' || (i % 20) || '#' || lpad(i::text, 6, '0'), i, repeat(md5(i::text), 2)
	FROM generate_series(1, 20000) i;
INSERT INTO t SELECT * FROM n;
});

is($node->safe_psql('postgres', 'SHOW widecolumn_fdw.poll_microseconds'),
	'100', 'sessions poll for 100 microseconds by default');

# Rows that one table has and the other has not, for a prefix, a range and
# the whole table; 0 when they agree.
my $differ = q{
SELECT count(*) FROM (
	(SELECT * FROM t WHERE k LIKE 'k7#%' EXCEPT ALL SELECT * FROM n WHERE k LIKE 'k7#%')
	UNION ALL (SELECT * FROM n WHERE k LIKE 'k7#%' EXCEPT ALL SELECT * FROM t WHERE k LIKE 'k7#%')
	UNION ALL (SELECT * FROM t WHERE k BETWEEN 'k1' AND 'k3' EXCEPT ALL SELECT * FROM n WHERE k BETWEEN 'k1' AND 'k3')
	UNION ALL (SELECT * FROM n WHERE k BETWEEN 'k1' AND 'k3' EXCEPT ALL SELECT * FROM t WHERE k BETWEEN 'k1' AND 'k3')
	UNION ALL (SELECT * FROM t EXCEPT ALL SELECT * FROM n)
	UNION ALL (SELECT * FROM n EXCEPT ALL SELECT * FROM t)
) d};

foreach my $us (0, 100, 10000)
{
	$node->safe_psql('postgres',
		"ALTER SYSTEM SET widecolumn_fdw.poll_microseconds = $us");
	$node->reload;
	# (the new value must be in effect, or this tests nothing new)
	$node->poll_query_until('postgres',
		"SELECT current_setting('widecolumn_fdw.poll_microseconds') = '$us'")
	  or die "poll_microseconds = $us did not take effect";

	is($node->safe_psql('postgres', $differ), '0',
		"poll_microseconds = $us: one session reads what the native table holds");
	is( $node->safe_psql('postgres',
			"SELECT count(*), sum(a) FROM t WHERE k LIKE 'k7#%'"),
		$node->safe_psql('postgres',
			"SELECT count(*), sum(a) FROM n WHERE k LIKE 'k7#%'"),
		"poll_microseconds = $us: a prefix scan's count and sum are the native table's");

	# Four sessions at once, each scanning while the others do; a scan
	# that disagrees divides by zero, which aborts pgbench.
	sessions_at_once($node, 4, 5,
		"poll_microseconds = $us: four sessions scanning at once all read what the native table holds",
		"007_scans_$us", "SELECT 1 / (($differ) = 0)::int;\n");
}

# It is a server-wide setting: a session cannot change it.
my ($ret, $out, $err) = $node->psql('postgres',
	'SET widecolumn_fdw.poll_microseconds = 5');
like($err, qr/cannot be changed now/, 'a session cannot set poll_microseconds');
($ret, $out, $err) = $node->psql('postgres',
	'ALTER SYSTEM SET widecolumn_fdw.poll_microseconds = -1');
like($err, qr/-1 is outside the valid range/, 'a negative poll_microseconds is refused');

$node->stop;
done_testing();
