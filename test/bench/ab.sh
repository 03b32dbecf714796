#!/bin/sh
# Two builds compared turn by turn on this machine: the COPY load and
# single-row INSERT transactions, each against a native table of the same
# cluster, with this tree's build and an earlier revision's installed in
# alternation.
#
# make bench compares with native tables within one run.  Comparing two
# builds takes two runs, and on a shared machine two runs minutes apart
# differ by more than the change being measured (on 2026-12-06 the native
# single-row INSERTs ran 3,700 tx/s here against 7,600 two days before).
# Interleaving the builds puts both under the same conditions.
#
#   make bench-ab REV=9ec342e    as root: it installs each build in turn into
#                                the system's PostgreSQL, and this tree's
#                                build again at the end
#
# Environment: REV (a revision of this repository; required), CYCLES (default
# 3: each cycle runs both builds, in alternating order), SCALE (rows of the
# COPY, default 1000000), BENCH_SECONDS (each pgbench run, default 5).
# Prints each measurement and a table of the medians.
set -eu
cd "$(dirname "$0")/../.."

if [ "${1:-}" = --inside ]; then
	# In a throwaway cluster, as postgres: $2 names the build, $3 is the
	# file the measurements go to, $4 the data directory for the load.
	label=$2 out=$3 dir=$4
	export PATH=/usr/lib/postgresql/15/bin:$PATH
	sql() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
	sql <<-SQL
	CREATE EXTENSION widecolumn_fdw;
	CREATE SERVER ins FOREIGN DATA WRAPPER widecolumn_fdw;
	CREATE FOREIGN TABLE ins_foreign (k text OPTIONS (rowkey 'true') COLLATE "C",
	    v bigint OPTIONS (column 'm:v')) SERVER ins OPTIONS (table 'ins');
	CREATE TABLE ins_native (k text COLLATE "C" PRIMARY KEY, v bigint);
	SQL
	if [ ! -f "$dir/rows.tsv" ]; then
		# the balloon rows of test/bench/run.sh: ten ascending runs of keys
		nt=$((SCALE / 1000))
		sql -c "COPY (SELECT l || '#' || (3600 + k / $nt % 100)::text || '#' || lpad((k % $nt)::text, 8, '0'),
		               94000 + k % 900, (k % 700)::float8 / 10 - 50, (k % 1000)::float8 / 10,
		               (1000 + k % 30000)::float8
		        FROM generate_series(0, $SCALE - 1) k,
		             LATERAL (SELECT (ARRAY['us-west2', 'us-east1', 'us-central1', 'europe-west1',
		                 'europe-north1', 'asia-south1', 'asia-east1', 'australia-southeast1',
		                 'southamerica-east1', 'northamerica-northeast1'])[k / (100 * $nt) + 1] AS l) x)
		        TO '$dir/rows.tsv'"
		sync
	fi
	printf '\\set r random(0, 999999999999)\nINSERT INTO ins_native VALUES (:r, :r);\n' >"$dir/ins_native.sql"
	printf '\\set r random(0, 999999999999)\nINSERT INTO ins_foreign VALUES (:r, :r);\n' >"$dir/ins_foreign.sql"
	# before the COPY, whose compactions would run beside them
	for round in 1 2; do
		for t in native foreign; do
			pgbench -n -M prepared -T "$BENCH_SECONDS" -f "$dir/ins_$t.sql" >"$dir/pgbench.out" 2>&1 ||
				{ cat "$dir/pgbench.out" >&2; exit 1; }
			tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$dir/pgbench.out")
			echo "$label insert_tps $t $tps" >>"$out"
		done
	done
	sql <<-SQL
	CREATE SERVER copy FOREIGN DATA WRAPPER widecolumn_fdw;
	CREATE FOREIGN TABLE copy_foreign (rowkey text OPTIONS (rowkey 'true') COLLATE "C",
	    pressure bigint OPTIONS (column 'measurements:pressure'),
	    temp float8 OPTIONS (column 'measurements:temperature'),
	    humidity float8 OPTIONS (column 'measurements:humidity'),
	    altitude float8 OPTIONS (column 'measurements:altitude'))
	    SERVER copy OPTIONS (table 'weather');
	CREATE TABLE copy_native (rowkey text COLLATE "C" PRIMARY KEY, pressure bigint,
	    temp float8, humidity float8, altitude float8);
	SQL
	# timed by psql, the commit included, each after a checkpoint and a sync
	for t in native foreign; do
		sql -c CHECKPOINT
		sync
		sql -c '\timing on' -c "COPY copy_$t FROM '$dir/rows.tsv'" >"$dir/copy.out"
		ms=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$dir/copy.out")
		echo "$label copy_ms $t $ms" >>"$out"
	done
	exit 0
fi

: "${REV:?REV=<revision> names the build to compare with}"
CYCLES=${CYCLES:-3}
SCALE=${SCALE:-1000000}
BENCH_SECONDS=${BENCH_SECONDS:-5}
export SCALE BENCH_SECONDS
[ "$SCALE" -ge 1000 ] || { echo "bench-ab: SCALE must be at least 1000" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench-ab: run as root: it installs each build in turn" >&2; exit 1; }
PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
work=$(mktemp -d /tmp/widecolumn_fdw-ab.XXXXXX)
chmod 755 "$work"
tree=$(pwd)
install_build() { make -s -C "$1" PG_CONFIG=$PG_CONFIG install >/dev/null; }
cleanup() {
	install_build "$tree" || echo "bench-ab: could not install this tree's build again" >&2
	git worktree remove --force "$work/rev" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

echo "bench-ab: building $REV and this tree" >&2
git worktree add -q --detach "$work/rev" "$REV"
make -s -j2 -C "$work/rev" PG_CONFIG=$PG_CONFIG >/dev/null
make -s -j2 PG_CONFIG=$PG_CONFIG >/dev/null
mkdir "$work/data"
cp test/bench/ab.sh "$work/ab.sh"
chown -R postgres "$work/data" "$work/ab.sh"
: >"$work/results"
chown postgres "$work/results"

cycle=1
while [ "$cycle" -le "$CYCLES" ]; do
	if [ $((cycle % 2)) = 1 ]; then order="rev tree"; else order="tree rev"; fi
	for b in $order; do
		if [ "$b" = rev ]; then install_build "$work/rev"; else install_build "$tree"; fi
		echo "bench-ab: cycle $cycle, $b" >&2
		(cd "$work/data" && runuser -u postgres -- pg_virtualenv \
			-o shared_preload_libraries=widecolumn_fdw -o fsync=on \
			sh "$work/ab.sh" --inside "$b" "$work/results" "$work/data" >/dev/null)
	done
	cycle=$((cycle + 1))
done

cat "$work/results"
# Each foreign run is paired with the native run just before it in the same
# cluster; the table shows the median of those ratios, which the machine's
# drift from one cluster to the next moves less than a ratio of medians.
awk -v rev="$REV" -v scale="$SCALE" '
function median(list,    n, i, j, t, a) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
$3 == "native" { native[$1 " " $2] = $4; next }
{
	key = $1 " " $2
	# COPY in milliseconds (lower is faster), INSERTs in tx/s
	ratio[key] = ratio[key] " " ($2 == "copy_ms" ? native[key] / $4 : $4 / native[key])
	n[key]++
}
END {
	print ""
	print "| Workload | " rev ": foreign ÷ native | this tree: foreign ÷ native | this tree ÷ " rev " |"
	print "|---|---|---|---|"
	split("copy_ms insert_tps", m, " ")
	name["copy_ms"] = "COPY, " scale " rows"
	name["insert_tps"] = "Single-row INSERT transactions"
	for (i = 1; i <= 2; i++) {
		r = median(ratio["rev " m[i]])
		t = median(ratio["tree " m[i]])
		printf "| %s (median of %d and %d paired runs) | %.2f | %.2f | %.2f |\n",
			name[m[i]], n["rev " m[i]], n["tree " m[i]], r, t, t / r
	}
}' "$work/results"
