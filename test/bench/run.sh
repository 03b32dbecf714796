#!/bin/sh
# The performance benchmark: widecolumn_fdw against a native heap table and
# against raw LevelDB, on the weather-balloon rows of Bigtable's schema
# design guide.  Speed is measured and reported, never asserted: the only
# failures are errors.
#
#   make bench                        (as root: build, install, then this)
#   sh test/bench/run.sh              as root or as any user that can run
#                                     PostgreSQL; as root it runs itself as
#                                     "postgres" through as-postgres.sh
#
# Environment:
#   SCALE=rows      rows loaded (default 1000000; rounded down to a multiple
#                   of 1000, at least 10000)
#   QUICK=1         a smoke test: 20000 rows, short runs
#   BENCH_SECONDS   seconds per pgbench run (default 5, QUICK 1)
#   BENCH_ROUNDS    runs per workload and table, alternating (default 3,
#                   QUICK 2); the tables show the median
#   BENCH_ONLY=counters  only the counter workload, its results printed
#                   (no raw LevelDB, no load, no report)
#   BENCH_ONLY=droprange  the same for the row range drop workload (it
#                   loads its own copies of the SCALE rows)
#   BENCH_ONLY=key_stats  the same for the cost of the heat map's counting:
#                   point reads with widecolumn_fdw.key_stats on against
#                   off (it loads its own copy of the SCALE rows)
#   BENCH_ONLY=avro  the same for the Avro export and import workload
#                   (test/bench/avro.sh)
#   BENCH_ONLY=bigtable  the same for the Bigtable engine on the emulator
#                   against the bare client (test/bench/bigtable.sh); its
#                   section also in $BENCH_OUT/bigtable.md
#   BENCH_ONLY=scaling  only the scaling workloads of issue 18
#                   (test/bench/scaling.sh) on the SCALE rows; prints the
#                   report's scaling section, also in $BENCH_OUT/scaling.md
#   BENCH_OUT       a directory for the results (default
#                   /tmp/widecolumn_fdw-bench): performance.md, results.txt,
#                   runs.txt, pgbench logs, plans, check outputs
#
# The report is printed and written to $BENCH_OUT/performance.md, and to
# docs/performance.md of the tree it runs in: started as root, this tree;
# started through as-postgres.sh, only the scratch copy (take it from
# $BENCH_OUT).
set -eu
cd "$(dirname "$0")/../.."

OUT=${BENCH_OUT:-/tmp/widecolumn_fdw-bench}

if [ "$(id -u)" = 0 ] && [ "${1:-}" != --inside ]; then
	# PostgreSQL refuses to run as root: run as postgres in a scratch copy of
	# the tree, then bring the report back here.
	mkdir -p "$OUT"
	chown postgres "$OUT"
	if [ -d "$OUT/pgbench" ]; then chown -R postgres "$OUT/pgbench"; fi
	BENCH_OUT=$OUT
	export BENCH_OUT
	sh test/scripts/as-postgres.sh sh test/bench/run.sh
	[ -z "${BENCH_ONLY:-}" ] || exit 0
	cp "$OUT/performance.md" docs/performance.md
	echo "bench: wrote docs/performance.md (and $OUT/performance.md)" >&2
	exit 0
fi

export PATH=/usr/lib/postgresql/15/bin:$PATH

say() {
	echo "bench: $(date +%H:%M:%S) $*" >&2
}
. test/bench/avro.sh
. test/bench/bigtable.sh

# ---------------------------------------------------------------------------
# Inside the throwaway cluster (pg_virtualenv runs this script again with
# --inside): load, check, run the workloads.  Results are "name value" lines
# in $OUT/results.txt and "workload table round tps latency_ms failed"
# lines in $OUT/runs.txt.
# ---------------------------------------------------------------------------
inside() {
	res=$OUT/results.txt
	runs=$OUT/runs.txt
	: >"$runs"

	put() {
		echo "$1 $2" >>"$res"
	}
	# The SQL for a server $2 and its foreign table $1 of the balloon rows.
	foreign_balloon() {
		cat <<-SQL
		CREATE SERVER $2 FOREIGN DATA WRAPPER widecolumn_fdw;
		CREATE FOREIGN TABLE $1 (
		    rowkey   text   OPTIONS (rowkey 'true') COLLATE "C",
		    pressure bigint OPTIONS (column 'measurements:pressure'),
		    temp     float8 OPTIONS (column 'measurements:temperature'),
		    humidity float8 OPTIONS (column 'measurements:humidity'),
		    altitude float8 OPTIONS (column 'measurements:altitude')
		) SERVER $2 OPTIONS (table 'weather');
		SQL
	}
	# The SQL for a native table $1 of the balloon rows.
	native_balloon() {
		cat <<-SQL
		CREATE TABLE $1 (
		    rowkey   text COLLATE "C" PRIMARY KEY,
		    pressure bigint,
		    temp     float8,
		    humidity float8,
		    altitude float8
		);
		SQL
	}
	sql() {
		psql -X -q -At -v ON_ERROR_STOP=1 "$@"
	}
	locs="ARRAY['us-west2', 'us-east1', 'us-central1', 'europe-west1', 'europe-north1', 'asia-south1', 'asia-east1', 'australia-southeast1', 'southamerica-east1', 'northamerica-northeast1']"
	# The key functions of the balloon rows.
	key_functions() {
		cat <<-SQL
		-- Row k (0 .. rows-1): location k / (100 ntimes), balloon 3600 + k / ntimes
		-- % 100, the (k % ntimes)-th minute from 2021-03-05 00:00.  Only immutable
		-- operations, so the planner inlines it and folds it into a constant
		-- under custom plans.  test/bench/raw_leveldb.c makes the same keys.
		CREATE FUNCTION bench_key(k bigint) RETURNS text
		LANGUAGE sql IMMUTABLE PARALLEL SAFE AS \$\$
		SELECT ($locs)[k / (100 * $NT) + 1] || '#' || (3600 + k / $NT % 100)::text
		    || '#2021-03-' || lpad((5 + k % $NT / 1440)::text, 2, '0')
		    || '-' || lpad((k % $NT % 1440 / 60 * 100 + k % $NT % 60)::text, 4, '0')
		\$\$;
		-- 'location#balloon#' of location l (0-9) and balloon 3600 + b (b 0-99).
		CREATE FUNCTION bench_prefix(l int, b int) RETURNS text
		LANGUAGE sql IMMUTABLE PARALLEL SAFE AS \$\$
		SELECT ($locs)[l + 1] || '#' || (3600 + b)::text || '#'
		\$\$;
		-- Keys of inserted rows: balloons 9000-9099, never loaded.
		CREATE FUNCTION bench_new_key(l int, b int, r bigint) RETURNS text
		LANGUAGE sql IMMUTABLE PARALLEL SAFE AS \$\$
		SELECT ($locs)[l + 1] || '#' || (9000 + b)::text || '#' || lpad(r::text, 12, '0')
		\$\$;
		SQL
	}
	# The SELECT of the balloon rows (the load and droprange's copies).
	balloon_rows() {
		cat <<-SQL
		SELECT bench_key(k), 94000 + (b * 37 + t) % 900,
		       ((b * 7 + t) % 700)::float8 / 10 - 50, ((b + t * 3) % 1000)::float8 / 10,
		       (1000 + (b * 13 + t * 7) % 30000)::float8
		FROM generate_series(0, $SCALE - 1) k,
		     LATERAL (SELECT k / $NT % 100 AS b, k % $NT AS t) x
		SQL
	}

	put pg_version "$(sql -c 'SHOW server_version' | sed 's/ .*//')"
	if [ "${BENCH_ONLY:-}" = counters ]; then
		sql -c 'CREATE EXTENSION widecolumn_fdw'
		mkdir -p "$OUT/pgbench"
		counter_workload
		return
	fi
	if [ "${BENCH_ONLY:-}" = droprange ]; then
		sql -c 'CREATE EXTENSION widecolumn_fdw' -c "$(key_functions)"
		droprange_workload
		return
	fi
	if [ "${BENCH_ONLY:-}" = key_stats ]; then
		sql -c 'CREATE EXTENSION widecolumn_fdw' -c "$(key_functions)"
		mkdir -p "$OUT/pgbench"
		key_stats_workload
		return
	fi
	if [ "${BENCH_ONLY:-}" = avro ]; then
		sql -c 'CREATE EXTENSION widecolumn_fdw' -c "$(key_functions)"
		avro_workload
		return
	fi
	if [ "${BENCH_ONLY:-}" = bigtable ]; then
		sql -c 'CREATE EXTENSION widecolumn_fdw' -c "$(key_functions)"
		mkdir -p "$OUT/pgbench"
		bigtable_workload
		return
	fi
	if [ "${BENCH_ONLY:-}" = scaling ]; then
		datadir=$(sql -c 'SHOW data_directory')
		scaling_load
		scaling_workload
		return
	fi
	put pg_settings "$(sql -c "SELECT string_agg(name || '=' || setting, ' ' ORDER BY name) FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'shared_buffers', 'jit', 'plan_cache_mode', 'max_parallel_workers_per_gather', 'shared_preload_libraries')")"
	datadir=$(sql -c 'SHOW data_directory')

	say "creating the tables and the key functions"
	sql <<-SQL
	CREATE EXTENSION widecolumn_fdw;
	$(foreign_balloon balloon wc)
	$(native_balloon balloon_native)
	$(key_functions)
	SQL
	srvdir=$(sql -c "SELECT d.oid || '-' || s.oid FROM pg_database d, pg_foreign_server s WHERE d.datname = current_database() AND s.srvname = 'wc'")
	ldb=$datadir/widecolumn_fdw/$srvdir

	say "generating $SCALE rows"
	data=$WORK/balloon.tsv
	sql <<-SQL
	COPY ($(balloon_rows)) TO '$data';
	SQL

	# COPY, timed by psql (the statement, its commit included), in ROUNDS
	# rounds alternating which table loads first; each load starts after a
	# CHECKPOINT and a sync, so that neither pays for the other's writeback.
	# All rounds but the last load scratch tables (a scratch server, so a
	# LevelDB database of its own); the last loads the tables the workloads
	# read.  The median goes into the results.
	copy_one() {	# table, round
		sql -c CHECKPOINT
		sync
		sql >"$OUT/copy.$1.$2.log" 2>&1 <<-SQL
		SELECT pg_backend_pid() AS pid \gset
		\setenv BACKEND_PID :pid
		\timing on
		COPY $1 FROM '$data';
		\timing off
		\! grep VmHWM /proc/\$BACKEND_PID/status
		SQL
		ms=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$OUT/copy.$1.$2.log")
		echo "$ms" >>"$WORK/copy_ms.$3"
	}
	rm -f "$WORK"/copy_ms.*
	r=1
	while [ $r -le "$ROUNDS" ]; do
		if [ $r -lt "$ROUNDS" ]; then
			say "COPY round $r (scratch tables)"
			sql <<-SQL
			$(foreign_balloon balloon_copy$r wc_copy$r)
			CREATE TABLE balloon_native_copy$r (LIKE balloon_native INCLUDING ALL);
			SQL
			native=balloon_native_copy$r foreign=balloon_copy$r
		else
			say "COPY round $r"
			native=balloon_native foreign=balloon
		fi
		if [ $((r % 2)) = 1 ]; then
			copy_one "$native" $r balloon_native
			copy_one "$foreign" $r balloon
		else
			copy_one "$foreign" $r balloon
			copy_one "$native" $r balloon_native
		fi
		if [ $r -lt "$ROUNDS" ]; then
			sql -c "DROP TABLE $native" -c "DROP SERVER wc_copy$r CASCADE"
		fi
		r=$((r + 1))
	done
	for t in balloon_native balloon; do
		ms=$(sort -n "$WORK/copy_ms.$t" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
		put "copy_runs_ms.$t" "$(tr '\n' ' ' <"$WORK/copy_ms.$t" | sed 's/ $//')"
		put "copy_s.$t" "$(awk -v ms="$ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
		put "copy_rows_per_s.$t" "$(awk -v ms="$ms" -v n="$SCALE" 'BEGIN { printf "%.0f", n / (ms / 1000) }')"
	done
	put "copy_backend_peak_kb.balloon_native" "$(awk '/VmHWM/ { print $2 }' "$OUT/copy.balloon_native.$ROUNDS.log")"
	put "copy_backend_peak_kb.balloon" "$(awk '/VmHWM/ { print $2 }' "$OUT/copy.balloon.$ROUNDS.log")"

	# One more foreign load, on a scratch server: where its CPU goes, thread
	# by thread, and in what (test/bench/cpu_profile.sh).
	say "COPY once more, profiled"
	sql -c "$(foreign_balloon balloon_profile wc_profile)"
	# The worker has no database connection, so it is not in
	# pg_stat_activity: it is the postmaster's child with its title.
	postmaster=$(head -1 "$datadir/postmaster.pid")
	worker=$(ps --ppid "$postmaster" -o pid= -o args= | awk '/widecolumn_fdw storage worker/ { print $1 }')
	mkdir -p "$WORK/profile"
	sql -c CHECKPOINT
	sync
	sql >"$OUT/copy.profile.log" 2>&1 <<-SQL
	SELECT pg_backend_pid() AS pid \gset
	\setenv BACKEND_PID :pid
	\! sh test/bench/cpu_profile.sh start $WORK/profile \$BACKEND_PID $worker
	\timing on
	COPY balloon_profile FROM '$data';
	\timing off
	\! sh test/bench/cpu_profile.sh stop $WORK/profile >$WORK/profile/results
	SQL
	cat "$WORK/profile/results" >>"$res"
	put profile_copy_ms "$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$OUT/copy.profile.log")"
	cp "$WORK/profile/perf.report" "$OUT/copy.perf.txt" 2>/dev/null || true
	sql -c "DROP SERVER wc_profile CASCADE"
	rm -f "$data"

	# sizes right after the load
	put size_bytes.balloon_native "$(sql -c "SELECT pg_total_relation_size('balloon_native')")"
	put size_bytes.balloon "$(du -sb "$ldb" | cut -f1)"
	describe_leveldb loaded
	say "native: $(sql -c "SELECT pg_size_pretty(pg_total_relation_size('balloon_native'))"), LevelDB: $(du -sh "$ldb" | cut -f1)"

	# Not timed: what autovacuum would do to the freshly loaded heap.
	sql -c 'VACUUM (ANALYZE) balloon_native'

	say "correctness: the same queries on both tables"
	sed 's/\bballoon\b/balloon_native/g' test/bench/check.sql >"$WORK/check_native.sql"
	sql -v rows="$SCALE" -v ntimes="$NT" -f "$WORK/check_native.sql" >"$OUT/check.balloon_native.out" 2>&1 || true
	sql -v rows="$SCALE" -v ntimes="$NT" -f test/bench/check.sql >"$OUT/check.balloon.out" 2>&1 || true
	if diff "$OUT/check.balloon_native.out" "$OUT/check.balloon.out" >"$OUT/check.diff"; then
		put check_mismatches 0
	else
		put check_mismatches "$(grep -c '^>' "$OUT/check.diff" || true)"
		say "MISMATCH between the tables, see $OUT/check.diff"
	fi
	put check_queries "$(wc -l <"$OUT/check.balloon_native.out")"

	say "EXPLAIN ANALYZE: a 0.1% prefix against the full scan"
	p=$(sql -c "SELECT bench_prefix(0, 98)")
	sql -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*) FROM balloon WHERE rowkey LIKE '$p%'" >"$OUT/explain.prefix.txt"
	sql -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*) FROM balloon WHERE temp > 1000" >"$OUT/explain.full.txt"
	sql -c "EXPLAIN (ANALYZE, COSTS OFF, BUFFERS) SELECT count(*) FROM balloon_native WHERE rowkey LIKE '$p%'" >"$OUT/explain.prefix.native.txt"
	sql -c "EXPLAIN (ANALYZE, COSTS OFF, BUFFERS) SELECT count(*) FROM balloon_native WHERE temp > 1000" >"$OUT/explain.full.native.txt"
	put explain_prefix "$p%"
	put prefix_entries "$(sed -n 's/.*Storage Entries Read: \([0-9]*\).*/\1/p' "$OUT/explain.prefix.txt")"
	put prefix_rows "$(sed -n 's/.*Storage Rows Read: \([0-9]*\).*/\1/p' "$OUT/explain.prefix.txt")"
	put full_entries "$(sed -n 's/.*Storage Entries Read: \([0-9]*\).*/\1/p' "$OUT/explain.full.txt")"
	put full_rows "$(sed -n 's/.*Storage Rows Read: \([0-9]*\).*/\1/p' "$OUT/explain.full.txt")"
	put prefix_ms "$(sed -n 's/.*Execution Time: \([0-9.]*\) ms.*/\1/p' "$OUT/explain.prefix.txt")"
	put full_ms "$(sed -n 's/.*Execution Time: \([0-9.]*\) ms.*/\1/p' "$OUT/explain.full.txt")"

	# LIMIT in a prefix, prepared as pgbench runs it: custom and generic plans
	# (plan_cache_mode = auto may pick either after five executions)
	for dir in "" DESC; do
		sql >"$OUT/explain.limit$dir.txt" <<-SQL
		PREPARE lim(int, int) AS SELECT * FROM balloon WHERE rowkey LIKE bench_prefix(\$1, \$2) || '%' ORDER BY rowkey $dir LIMIT 10;
		SET plan_cache_mode = force_custom_plan;
		EXPLAIN (ANALYZE, COSTS OFF) EXECUTE lim(0, 98);
		SET plan_cache_mode = force_generic_plan;
		EXPLAIN (ANALYZE, COSTS OFF) EXECUTE lim(0, 98);
		SQL
		tag=$(echo "limit$dir" | tr 'A-Z' 'a-z')
		put "${tag}_custom_entries" "$(sed -n 's/.*Storage Entries Read: \([0-9]*\).*/\1/p' "$OUT/explain.limit$dir.txt" | sed -n 1p)"
		put "${tag}_generic_entries" "$(sed -n 's/.*Storage Entries Read: \([0-9]*\).*/\1/p' "$OUT/explain.limit$dir.txt" | sed -n 2p)"
	done

	# the pgbench scripts, as written (balloon) and renamed (balloon_native)
	mkdir -p "$WORK/scripts/balloon" "$WORK/scripts/balloon_native" "$OUT/pgbench"
	for f in test/bench/*.sql; do
		cp "$f" "$WORK/scripts/balloon/"
		sed 's/\bballoon\b/balloon_native/g' "$f" >"$WORK/scripts/balloon_native/$(basename "$f")"
	done

	# One pgbench run of a script for the wake-ups workloads.
	wake_run() {
		log=$OUT/pgbench/$1.$2.$4.log
		if pgbench -n -M prepared -T "$SECONDS_PER_RUN" -D rows="$SCALE" -D ntimes="$NT" \
			-f "$3" >"$log" 2>&1; then
			tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$log")
		else
			tps=error
			say "pgbench failed: $1 $2 (see $log)"
		fi
		lat=$(sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p' "$log")
		echo "$1 $2 $4 ${tps:-error} ${lat:--} 0" >>"$runs"
	}

	# name|clients|scripts (file[@weight] ...)|transactions per run ("" = -T)
	while IFS='|' read -r name clients scripts tx; do
		[ -n "$name" ] || continue
		say "workload $name"
		r=1
		while [ $r -le "$ROUNDS" ]; do
			if [ $((r % 2)) = 1 ]; then order="balloon_native balloon"; else order="balloon balloon_native"; fi
			for t in $order; do
				set --
				for s in $scripts; do
					set -- "$@" -f "$WORK/scripts/$t/$s"
				done
				if [ -n "$tx" ]; then set -- "$@" -t "$tx"; else set -- "$@" -T "$SECONDS_PER_RUN"; fi
				log=$OUT/pgbench/$name.$t.$r.log
				if pgbench -n -M prepared -c "$clients" -j "$(( clients < 2 ? clients : 2 ))" \
					-D rows="$SCALE" -D ntimes="$NT" "$@" >"$log" 2>&1; then
					tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$log")
				else
					tps=error
					say "pgbench failed: $name on $t (see $log)"
					tail -5 "$log" >&2
				fi
				lat=$(sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p' "$log")
				failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$log")
				echo "$name $t $r ${tps:-error} ${lat:--} ${failed:-0}" >>"$runs"
			done
			r=$((r + 1))
		done
	done <<-EOF
	point|1|point.sql|
	multiget|1|multiget.sql|
	prefix|1|prefix.sql|
	prefix_count|1|prefix_count.sql|
	range|1|range.sql|
	limit_asc|1|limit_asc.sql|
	limit_desc|1|limit_desc.sql|
	fullscan|1|fullscan.sql|$FULLSCAN_TX
	insert|1|insert.sql|
	update|1|update.sql|
	mix1|1|point.sql@8 update.sql@1 insert.sql@1|
	mix4|4|point.sql@8 update.sql@1 insert.sql@1|
	EOF

	# Waking an idle CPU: point reads and prefix scans once more, the native
	# table beside cpu_keeper (a process that keeps a CPU busy and only
	# yields), the foreign table with polling off (report: "Polling").
	say "workload wake-ups: native beside a busy CPU, foreign without polling"
	sql -c "ALTER SYSTEM SET widecolumn_fdw.poll_microseconds = 0" >/dev/null
	sql -c "SELECT pg_reload_conf()" >/dev/null
	sleep 1
	r=1
	while [ $r -le "$ROUNDS" ]; do
		for s in point prefix; do
			"$WORK/cpu_keeper" $((SECONDS_PER_RUN + 2)) &
			keeper=$!
			sleep 0.2
			wake_run "wake_$s" native_busy "$WORK/scripts/balloon_native/$s.sql" $r
			kill $keeper 2>/dev/null
			wait $keeper 2>/dev/null || true
			wake_run "wake_$s" foreign_nopoll "$WORK/scripts/balloon/$s.sql" $r
		done
		r=$((r + 1))
	done
	sql -c "ALTER SYSTEM RESET widecolumn_fdw.poll_microseconds" >/dev/null
	sql -c "SELECT pg_reload_conf()" >/dev/null

	# A cell written 10,000 times (seed 001's week of minutes in one cell,
	# kept by the family's maxage=7d) against a cell written once: a point
	# read of the newest must not step over the old versions (the worker
	# seeks past them).  10,000 UPDATE transactions of one client, on a
	# server without fsync, make the versions.  (With maxversions=1 the
	# sweep deletes them instead, and until LevelDB compacts them away a
	# read steps over the deletions inside LevelDB: analysis.md.)
	say "workload versions: a cell of 10,000 versions against a cell of one"
	sql <<-SQL
	CREATE SERVER wc_versions FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
	CREATE FOREIGN TABLE versions (
	    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
	    v bigint OPTIONS (column 'measurements:pressure')
	) SERVER wc_versions OPTIONS (table 'versions');
	SELECT widecolumn.create_family('wc_versions', 'versions', 'measurements', 'maxage=7d');
	INSERT INTO versions VALUES ('one', 0), ('many', 0);
	SQL
	echo "UPDATE versions SET v = v + 1 WHERE rowkey = 'many';" >"$WORK/versions_update.sql"
	echo "SELECT v FROM versions WHERE rowkey = 'one';" >"$WORK/versions_one.sql"
	echo "SELECT v FROM versions WHERE rowkey = 'many';" >"$WORK/versions_many.sql"
	pgbench -n -M prepared -t 10000 -f "$WORK/versions_update.sql" >"$OUT/pgbench/versions_update.log" 2>&1 ||
		say "pgbench failed: versions_update (see $OUT/pgbench/versions_update.log)"
	put versions_written "$(sql -c "SELECT v FROM versions WHERE rowkey = 'many'")"
	sql -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT v FROM versions WHERE rowkey = 'many'" >"$OUT/explain.versions.txt"
	put versions_entries "$(sed -n 's/.*Storage Entries Read: \([0-9]*\).*/\1/p' "$OUT/explain.versions.txt")"
	r=1
	while [ $r -le "$ROUNDS" ]; do
		wake_run versions one "$WORK/versions_one.sql" $r
		wake_run versions many "$WORK/versions_many.sql" $r
		r=$((r + 1))
	done
	sql -c "DROP SERVER wc_versions CASCADE" >/dev/null

	map_workload
	counter_workload
	droprange_workload
	key_stats_workload
	avro_workload
	bigtable_workload
	# A cells-layout table's range read of 1,000 versions: the newest 1,000
	# of a cell of 2,000 (a timestamp range), beside raw LevelDB reading the
	# same 1,000 entries (raw_leveldb versions, before the cluster starts).
	say "workload cells: a cells-layout range read of 1,000 versions"
	sql <<-SQL
	CREATE SERVER wc_cells FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
	SELECT widecolumn.create_family('wc_cells', 'cells_bench', 'measurements', 'never');
	CREATE FOREIGN TABLE cells_bench (
	    rowkey text COLLATE "C", family text COLLATE "C", qualifier text COLLATE "C",
	    ts timestamptz, value bigint
	) SERVER wc_cells OPTIONS (layout 'cells');
	INSERT INTO cells_bench
	    SELECT 'us-west2#3698#week1', 'measurements', 'pressure',
	           timestamptz '2021-03-05 00:00+00' + m * interval '1 minute', 94000 + m
	    FROM generate_series(0, 1999) m;
	SQL
	cat >"$WORK/cells_range.sql" <<-SQL
	SELECT sum(value) FROM cells_bench WHERE rowkey = 'us-west2#3698#week1'
	    AND family = 'measurements' AND qualifier = 'pressure'
	    AND ts >= timestamptz '2021-03-05 00:00+00' + interval '1000 minutes';
	SQL
	put cells_range_versions "$(sql -c "SELECT count(*) FROM cells_bench WHERE ts >= timestamptz '2021-03-05 00:00+00' + interval '1000 minutes'")"
	r=1
	while [ $r -le "$ROUNDS" ]; do
		wake_run cells range "$WORK/cells_range.sql" $r
		r=$((r + 1))
	done
	sql -c "DROP SERVER wc_cells CASCADE" >/dev/null
	# Space given back (issue 16): 10 UPDATE passes over 100,000 rows of a
	# family that keeps one version, then widecolumn.compact() with the
	# background sweep off; and the same left to the background sweep for a
	# minute.  Each on a server of its own, so the directory holds only this
	# table; sizes against the size after the first load.
	for how in compact sweep; do
		say "workload gc: 10 UPDATE passes over 100,000 rows (maxversions=1), then $how"
		if [ $how = compact ]; then naptime=0; else naptime=10; fi
		sql -c "ALTER SYSTEM SET widecolumn_fdw.sweep_naptime = $naptime" >/dev/null
		sql -c "SELECT pg_reload_conf()" >/dev/null
		sql <<-SQL
		CREATE SERVER wc_gc_$how FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
		SELECT widecolumn.create_family('wc_gc_$how', 'gc', 'measurements', 'maxversions=1');
		CREATE FOREIGN TABLE gc_$how (
		    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
		    pressure bigint OPTIONS (column 'measurements:pressure'),
		    temp float8 OPTIONS (column 'measurements:temperature')
		) SERVER wc_gc_$how OPTIONS (table 'gc');
		INSERT INTO gc_$how SELECT 'k' || lpad(i::text, 7, '0'), 94000 + i % 900, i % 700 FROM generate_series(1, 100000) i;
		SQL
		gcdir=$datadir/widecolumn_fdw/$(sql -c "SELECT d.oid || '-' || s.oid FROM pg_database d, pg_foreign_server s WHERE d.datname = current_database() AND s.srvname = 'wc_gc_$how'")
		put "gc_size_loaded.$how" "$(du -sb "$gcdir" | cut -f1)"
		i=1
		while [ $i -le 10 ]; do
			sql -c "UPDATE gc_$how SET pressure = pressure + 1, temp = temp + 1" >/dev/null
			i=$((i + 1))
		done
		put "gc_size_updated.$how" "$(du -sb "$gcdir" | cut -f1)"
		if [ $how = compact ]; then
			put gc_removed "$(sql -c "SELECT widecolumn.compact('wc_gc_compact')")"
		else
			sleep 60
		fi
		put "gc_size_end.$how" "$(du -sb "$gcdir" | cut -f1)"
		put "gc_rows.$how" "$(sql -c "SELECT count(*) FILTER (WHERE pressure = 94010 + (right(rowkey, 7)::int % 900)) FROM gc_$how")"
		sql -c "DROP SERVER wc_gc_$how CASCADE" >/dev/null
	done
	sql -c "ALTER SYSTEM RESET widecolumn_fdw.sweep_naptime" >/dev/null
	sql -c "SELECT pg_reload_conf()" >/dev/null

	# Every committed INSERT must have left its row.
	for t in balloon_native balloon; do
		single=$(cat "$OUT"/pgbench/insert."$t".*.log |
			sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' |
			awk '{ n += $1 } END { print n + 0 }')
		mixed=$(cat "$OUT"/pgbench/mix?."$t".*.log | awk '
			/^SQL script [0-9]+: .*insert\.sql/ { ins = 1; next }
			/^SQL script/ { ins = 0 }
			ins && /^ - [0-9]+ transactions/ { n += $2; ins = 0 }
			END { print n + 0 }')
		put "inserts_committed.$t" $((single + mixed))
		put "inserted_rows.$t" "$(sql -c "SELECT count(*) FROM $t WHERE split_part(rowkey, '#', 2) >= '9000'")"
	done

	scaling_workload

	# The server's log: errors, warnings, crashes of the run.
	serverlog=${PG_CLUSTER_CONF_ROOT:+$(dirname "$PG_CLUSTER_CONF_ROOT")/log/postgresql-15-regress.log}
	if [ -n "$serverlog" ] && [ -r "$serverlog" ]; then
		cp "$serverlog" "$OUT/server.log"
		put server_log_errors "$(grep -cE '(ERROR|FATAL|PANIC):' "$OUT/server.log" || true)"
		put server_log_warnings "$(grep -c 'WARNING:' "$OUT/server.log" || true)"
		put server_log_crashes "$(grep -cE 'terminated by signal|exited with exit code [1-9]' "$OUT/server.log" || true)"
	fi

	# LevelDB after the workloads, then fully compacted with the server down.
	put size_bytes_end.balloon "$(du -sb "$ldb" | cut -f1)"
	describe_leveldb end
	say "stopping the server for an offline compaction of the LevelDB directory"
	# (a stop that fails is reported, not the end of the run: the runs of
	# 2026-12-02 and 12-03 ended here without saying why)
	stop_started=$(date +%s)
	if PGCTLTIMEOUT=600 pg_ctl -D "$datadir" -m fast -w stop >"$OUT/stop.log" 2>&1; then
		put server_stop_seconds $(($(date +%s) - stop_started))
	else
		put server_stop_seconds error
		say "the fast shutdown failed: $(tr '\n' ' ' <"$OUT/stop.log")"
		pg_ctl -D "$datadir" -m immediate -w stop >>"$OUT/stop.log" 2>&1 || true
	fi
	if "$WORK/raw_leveldb" compact "$ldb" >"$OUT/compact.log" 2>&1; then
		put size_bytes_compacted.balloon "$(du -sb "$ldb" | cut -f1)"
		describe_leveldb compacted
	else
		put size_bytes_compacted.balloon error
	fi
}

# Counter increments (issue 17): 4 clients adding 1 to one of 10 hot
# counters each transaction, as an INSERT merging into an aggregate (sum)
# family, against UPDATE c = c + 1 on the foreign table and on a native
# table.  Afterwards each table's counters must add up to the transactions
# pgbench committed.  Inside the cluster.
counter_workload() {
	say "workload counters: 4 clients, 10 hot counters"
	sql <<-SQL
	CREATE SERVER wc_counters FOREIGN DATA WRAPPER widecolumn_fdw;
	SELECT widecolumn.create_family('wc_counters', 'counters', 'n', aggregate => 'sum');
	CREATE FOREIGN TABLE counters (
	    k text OPTIONS (rowkey 'true') COLLATE "C",
	    c bigint OPTIONS (column 'n:c')
	) SERVER wc_counters;
	CREATE TABLE counters_native (k text COLLATE "C" PRIMARY KEY, c bigint);
	INSERT INTO counters SELECT 'c' || i, 0 FROM generate_series(0, 9) i;
	INSERT INTO counters_native SELECT 'c' || i, 0 FROM generate_series(0, 9) i;
	SQL
	printf '%s\n' '\set i random(0, 9)' "INSERT INTO counters VALUES ('c' || :i, 1);" >"$WORK/counter_merge.sql"
	printf '%s\n' '\set i random(0, 9)' "UPDATE counters SET c = c + 1 WHERE k = 'c' || :i;" >"$WORK/counter_update.sql"
	sed 's/\bcounters\b/counters_native/' "$WORK/counter_update.sql" >"$WORK/counter_update_native.sql"
	r=1
	while [ $r -le "$ROUNDS" ]; do
		for how in merge_foreign update_foreign update_native; do
			script=$WORK/counter_$(echo $how | sed 's/_foreign$//').sql
			log=$OUT/pgbench/counters.$how.$r.log
			if pgbench -n -M prepared -c 4 -j 2 -T "$SECONDS_PER_RUN" -f "$script" >"$log" 2>&1; then
				tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$log")
			else
				tps=error
				say "pgbench failed: counters $how (see $log)"
			fi
			lat=$(sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p' "$log")
			echo "counters $how $r ${tps:-error} ${lat:--} 0" >>"$runs"
		done
		r=$((r + 1))
	done
	committed() {
		for how in "$@"; do cat "$OUT"/pgbench/counters."$how".*.log; done |
			sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' |
			awk '{ n += $1 } END { print n + 0 }'
	}
	put counters_committed.foreign "$(committed merge_foreign update_foreign)"
	put counters_sum.foreign "$(sql -c 'SELECT sum(c) FROM counters')"
	put counters_committed.native "$(committed update_native)"
	put counters_sum.native "$(sql -c 'SELECT sum(c) FROM counters_native')"
	sql -c "DROP SERVER wc_counters CASCADE" -c "DROP TABLE counters_native" >/dev/null
}

# What the heat map's counting costs (issue 19): point reads of the
# balloon rows (test/bench/point.sql, one client) with
# widecolumn_fdw.key_stats on and off, alternating which goes first, ROUNDS
# runs each; key_stats_cost_pct is how much lower the median tps is with
# it on.  A run with it off must count no read, or the bench stops.
# Inside the cluster.
key_stats_workload() {
	say "workload key_stats: point reads, counting on against off"
	# alone (BENCH_ONLY), it loads the balloon rows; in the full run they are there
	if [ "$(sql -c "SELECT count(*) FROM pg_class WHERE relname = 'balloon'")" = 0 ]; then
		sql -c "COPY ($(balloon_rows)) TO '$WORK/key_stats.tsv'"
		sql <<-SQL
		$(foreign_balloon balloon wc)
		COPY balloon FROM '$WORK/key_stats.tsv';
		SQL
		rm -f "$WORK/key_stats.tsv"
	fi
	reads() {
		sql -c "SELECT coalesce(sum(reads), 0) FROM widecolumn.stat_tables WHERE server = 'wc' AND table_name = 'weather'"
	}
	# The storage worker's CPU time (all its threads, clock ticks): the
	# counting's cost per read is measured there too, where the noise of a
	# shared machine's throughput does not reach it.
	wpid=$(sql -c "SELECT pid FROM widecolumn.stat_worker_info")
	ticks() {
		awk '{ print $14 + $15 }' "/proc/$wpid/stat"
	}
	hz=$(getconf CLK_TCK)
	# The worker's CPU per read counts its work, not its waiting: with
	# polling the main loop spins between requests for as long as the
	# client takes, which the machine's noise varies.  So polling is off
	# for this workload (both sides alike).
	sql -c "ALTER SYSTEM SET widecolumn_fdw.poll_microseconds = 0" -c "SELECT pg_reload_conf()" >/dev/null
	r=1
	while [ $r -le "$ROUNDS" ]; do
		if [ $((r % 2)) = 1 ]; then order="on off"; else order="off on"; fi
		for how in $order; do
			sql -c "ALTER SYSTEM SET widecolumn_fdw.key_stats = $how" -c "SELECT pg_reload_conf()" >/dev/null
			sleep 1		# the worker takes the setting at its next pass
			before=$(reads)
			cpu_before=$(ticks)
			log=$OUT/pgbench/key_stats.$how.$r.log
			if pgbench -n -M prepared -T "$SECONDS_PER_RUN" -D rows="$SCALE" -D ntimes="$NT" \
				-f test/bench/point.sql >"$log" 2>&1; then
				tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$log")
			else
				tps=error
				say "pgbench failed: key_stats $how (see $log)"
			fi
			lat=$(sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p' "$log")
			echo "key_stats $how $r ${tps:-error} ${lat:--} 0" >>"$runs"
			cpu=$(($(ticks) - cpu_before))
			put "key_stats_cpu_us.$how.$r" "$(awk -v t="$cpu" -v hz="$hz" -v tps="${tps:-0}" -v s="$SECONDS_PER_RUN" \
				'BEGIN { if (tps > 0) printf "%.2f", t * 1e6 / hz / (tps * s); else print "error" }')"
			counted=$(($(reads) - before))
			if [ "$how" = off ] && [ "$counted" != 0 ]; then
				say "MISMATCH: $counted reads counted with key_stats off"
				exit 1
			fi
			put "key_stats_counted.$how.$r" "$counted"
		done
		r=$((r + 1))
	done
	median() {
		awk -v how="$1" '$1 == "key_stats" && $2 == how { print $4 }' "$runs" | sort -n |
			awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
	}
	on=$(median on)
	off=$(median off)
	put key_stats_tps.on "$on"
	put key_stats_tps.off "$off"
	put key_stats_cost_pct "$(awk -v on="$on" -v off="$off" 'BEGIN { printf "%.1f", (off - on) * 100 / off }')"
	# The costs by round: each round ran both, one right after the other,
	# so a round's pair shares the machine's state; the median of the
	# rounds' costs is the figure (the medians of each side alone mix
	# rounds).
	paired() {	# $1: a file of "round on off", one a line; prints the median cost %
		awk '{ printf "%.4f\n", ($2 - $3) * 100 / $3 }' "$1" | sort -n |
			awk '{ v[NR] = $1 } END { printf "%.1f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
	}
	r=1
	: >"$WORK/ks_cpu"
	: >"$WORK/ks_tps"
	while [ $r -le "$ROUNDS" ]; do
		echo "$r $(sed -n "s/^key_stats_cpu_us\.on\.$r //p" "$res") $(sed -n "s/^key_stats_cpu_us\.off\.$r //p" "$res")" >>"$WORK/ks_cpu"
		# throughput: off over on, so that a positive cost is a loss too
		echo "$r $(awk -v r=$r '$1 == "key_stats" && $2 == "off" && $3 == r { print $4 }' "$runs") $(awk -v r=$r '$1 == "key_stats" && $2 == "on" && $3 == r { print $4 }' "$runs")" >>"$WORK/ks_tps"
		r=$((r + 1))
	done
	put key_stats_cpu_cost_pct "$(paired "$WORK/ks_cpu")"
	put key_stats_tps_cost_pct "$(paired "$WORK/ks_tps")"
	sql -c "ALTER SYSTEM RESET widecolumn_fdw.key_stats" -c "ALTER SYSTEM RESET widecolumn_fdw.poll_microseconds" \
		-c "SELECT pg_reload_conf()" >/dev/null
}

# Dropping a tenth of the rows (issue 17): the prefix of the first
# location, 'us-west2#', holds SCALE / 10 rows.  Three fresh copies of the
# balloon rows (two foreign tables, each on a server of its own, and a
# native table with a primary key on the "C"-collated key, so that the
# native LIKE reads the index): the prefix dropped by drop_row_range, by
# DELETE ... LIKE on the foreign table, by the same DELETE on the native
# table; each timed by psql, COMMIT included, after a CHECKPOINT and a
# sync; then a count(*) of the prefix on the table just emptied of it,
# first and again.  The three tables must hold the same rows before and
# after, or the bench stops.  Inside the cluster.
droprange_workload() {
	p=$(sql -c "SELECT ($locs)[1] || '#'")
	tenth=$((SCALE / 10))
	say "workload droprange: '$p%', $tenth of $SCALE rows, dropped three ways"
	sql -c "COPY ($(balloon_rows)) TO '$WORK/drop.tsv'"
	sql <<-SQL
	$(foreign_balloon drop_range wc_drop_range)
	$(foreign_balloon drop_like wc_drop_like)
	CREATE TABLE drop_native (
	    rowkey   text COLLATE "C" PRIMARY KEY,
	    pressure bigint,
	    temp     float8,
	    humidity float8,
	    altitude float8
	);
	COPY drop_range FROM '$WORK/drop.tsv';
	COPY drop_like FROM '$WORK/drop.tsv';
	COPY drop_native FROM '$WORK/drop.tsv';
	VACUUM (ANALYZE) drop_native;
	SQL
	rm -f "$WORK/drop.tsv"
	# rows, rows of the prefix, and a sum over the rows: equal on the three
	contents() {
		sql -c "SELECT count(*), count(*) FILTER (WHERE rowkey LIKE '$p%'), sum(pressure) FROM $1"
	}
	same() {	# what, expected rows|prefix rows
		a=$(contents drop_native)
		for t in drop_range drop_like; do
			b=$(contents $t)
			if [ "$a" != "$b" ] || [ "${a%|*}" != "$2" ]; then
				say "MISMATCH $1: drop_native has $a, $t has $b (rows|prefix rows|sum; expected $2|...)"
				exit 1
			fi
		done
		put "droprange_rows_$1" "$a"
	}
	same before "$SCALE|$tenth"
	# Which path the DELETE takes: row by row (a Foreign Scan feeding the
	# Foreign Delete) or drop_row_range's (no scan).
	sql -c "EXPLAIN (COSTS OFF) DELETE FROM drop_like WHERE rowkey LIKE '$p%'" >"$OUT/explain.droprange_delete.txt"
	if grep -q 'Foreign Scan' "$OUT/explain.droprange_delete.txt"; then
		put droprange_delete_path "row by row"
	else
		put droprange_delete_path "row range drop"
	fi
	put droprange_delete_plan "$(sed 's/^ *\(-> *\)\{0,1\}//' "$OUT/explain.droprange_delete.txt" | paste -sd '/' | sed 's|/| / |g')"
	# statements from stdin under \timing into $OUT/droprange.$1.log: ms,
	# the sum of their times
	timed() {
		sql -c CHECKPOINT
		sync
		{ printf '%s\n' '\timing on'; cat; } | sql >"$OUT/droprange.$1.log" 2>&1 || {
			cat "$OUT/droprange.$1.log" >&2
			say "droprange: $1 failed"
			exit 1
		}
		ms=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$OUT/droprange.$1.log" | awk '{ s += $1 } END { printf "%.3f", s }')
	}
	# The prefix counted on table $2 after the drop $1: once, right after
	# the drop (first), then 5 times more (their median: count).
	count_after() {
		printf "SELECT count(*) FROM $2 WHERE rowkey LIKE '$p%%';\n%.0s" 1 2 3 4 5 6 >"$WORK/drop_count.sql"
		timed "count.$1" <"$WORK/drop_count.sql"
		if [ "$(grep -v '^Time:' "$OUT/droprange.count.$1.log" | sort -u)" != 0 ]; then
			say "MISMATCH: the count of '$p%' on $2 after $1 is not 0 (see $OUT/droprange.count.$1.log)"
			exit 1
		fi
		times=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$OUT/droprange.count.$1.log")
		first=$(echo "$times" | sed -n 1p)
		count=$(echo "$times" | sed 1d | sort -n | sed -n 3p)
		put "droprange_count_first_ms.$1" "$first"
		put "droprange_count_ms.$1" "$count"
		if [ "$2" = drop_native ]; then opts="ANALYZE, COSTS OFF, BUFFERS"; else opts="ANALYZE, COSTS OFF"; fi
		sql -c "EXPLAIN ($opts) SELECT count(*) FROM $2 WHERE rowkey LIKE '$p%'" >"$OUT/explain.droprange_count.$1.txt"
		[ "$2" = drop_native ] ||
			put "droprange_count_entries.$1" "$(sed -n 's/.*Storage Entries Read: \([0-9]*\).*/\1/p' "$OUT/explain.droprange_count.$1.txt")"
	}
	put droprange_prefix "$p%"
	timed drop_row_range <<-SQL
	BEGIN;
	SELECT widecolumn.drop_row_range('drop_range', '$p');
	COMMIT;
	SQL
	put droprange_ms.drop_row_range "$ms"
	drop_ms=$ms
	count_after drop_row_range drop_range
	drop_count=$count drop_count_first=$first
	timed delete_like <<-SQL
	BEGIN;
	DELETE FROM drop_like WHERE rowkey LIKE '$p%';
	COMMIT;
	SQL
	put droprange_ms.delete_like "$ms"
	like_ms=$ms
	count_after delete_like drop_like
	timed native_delete <<-SQL
	BEGIN;
	DELETE FROM drop_native WHERE rowkey LIKE '$p%';
	COMMIT;
	SQL
	put droprange_ms.native_delete "$ms"
	native_ms=$ms
	count_after native_delete drop_native
	same after "$((SCALE - tenth))|0"
	# time ÷ time: below 1, the foreign table is faster
	awk -v a="$drop_ms" -v b="$like_ms" -v n="$native_ms" -v c="$drop_count" -v cn="$count" \
		-v cf="$drop_count_first" -v cfn="$first" 'BEGIN {
		printf "droprange_ratio.drop_row_range_native_delete %.4f\n", a / n
		printf "droprange_ratio.delete_like_native_delete %.4f\n", b / n
		printf "droprange_ratio.count_foreign_native %.4f\n", c / cn
		printf "droprange_ratio.count_first_foreign_native %.4f\n", cf / cfn
	}' >>"$res"
	sql -c "SET client_min_messages = warning" -c "DROP SERVER wc_drop_range CASCADE" \
		-c "DROP SERVER wc_drop_like CASCADE" -c "DROP TABLE drop_native" >/dev/null
}

# A point read of a row whose map column has 100 qualifiers (issue 16),
# beside raw LevelDB's seek and read of the same 100 cells (raw_leveldb map):
# 1,000 such rows, a random one each transaction.  Inside the cluster.
map_workload() {
	say "workload map100: a point read of a map column of 100 qualifiers"
	sql <<-SQL
	CREATE SERVER wc_maps FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off');
	CREATE FOREIGN TABLE maps (
	    rowkey text OPTIONS (rowkey 'true') COLLATE "C",
	    follows jsonb OPTIONS (family 'follows')
	) SERVER wc_maps;
	INSERT INTO maps
	SELECT 'user' || lpad(r::text, 4, '0'),
	       (SELECT jsonb_object_agg('friend' || lpad(q::text, 3, '0'), '2024-01-01')
	          FROM generate_series(0, 99) q)
	  FROM generate_series(0, 999) r;
	SQL
	cat >"$WORK/map100.sql" <<-'SQL'
	\set k random(0, 999)
	SELECT follows FROM maps WHERE rowkey = 'user' || lpad(:k::text, 4, '0');
	SQL
	sql -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT follows FROM maps WHERE rowkey = 'user0042'" >"$OUT/explain.map100.txt"
	put map100_entries "$(sed -n 's/.*Storage Entries Read: \([0-9]*\).*/\1/p' "$OUT/explain.map100.txt")"
	put map100_keys "$(sql -c "SELECT count(*) FROM maps, jsonb_object_keys(follows) WHERE rowkey = 'user0042'")"
	r=1
	while [ $r -le "$ROUNDS" ]; do
		wake_run map100 foreign "$WORK/map100.sql" $r
		r=$((r + 1))
	done
	sql -c "DROP SERVER wc_maps CASCADE" >/dev/null
}

# The files of the server's LevelDB directory, and the compactions its LOG
# reports, as results named leveldb_<tag>_*.
describe_leveldb() {
	tag=$1
	logb=$(find "$ldb" -maxdepth 1 -name '*.log' -printf '%s\n' | awk '{ n += $1 } END { print n + 0 }')
	tabn=$(find "$ldb" -maxdepth 1 \( -name '*.ldb' -o -name '*.sst' \) | wc -l)
	tabb=$(find "$ldb" -maxdepth 1 \( -name '*.ldb' -o -name '*.sst' \) -printf '%s\n' | awk '{ n += $1 } END { print n + 0 }')
	echo "leveldb_${tag}_log_bytes $logb" >>"$OUT/results.txt"
	echo "leveldb_${tag}_tables $tabn" >>"$OUT/results.txt"
	echo "leveldb_${tag}_table_bytes $tabb" >>"$OUT/results.txt"
	echo "leveldb_${tag}_flushes $(cat "$ldb"/LOG "$ldb"/LOG.old 2>/dev/null | grep -c 'Level-0 table' || true)" >>"$OUT/results.txt"
	echo "leveldb_${tag}_compactions $(cat "$ldb"/LOG "$ldb"/LOG.old 2>/dev/null | grep -c 'Compacting' || true)" >>"$OUT/results.txt"
}

. test/bench/scaling.sh

if [ "${1:-}" = --inside ]; then
	inside
	exit 0
fi

# ---------------------------------------------------------------------------
# Outside: settings, the raw LevelDB limit, the cluster, the report.
# ---------------------------------------------------------------------------
if [ "${QUICK:-}" = 1 ]; then
	SCALE=20000
	SECONDS_PER_RUN=${BENCH_SECONDS:-1}
	ROUNDS=${BENCH_ROUNDS:-2}
	FULLSCAN_TX=3
else
	SCALE=${SCALE:-1000000}
	SECONDS_PER_RUN=${BENCH_SECONDS:-5}
	ROUNDS=${BENCH_ROUNDS:-3}
	FULLSCAN_TX=3
fi
SCALE=$((SCALE / 1000 * 1000))
if [ "$SCALE" -lt 10000 ] || [ "$SCALE" -gt 38880000 ]; then
	echo "bench: SCALE must be between 10000 and 38880000 rows" >&2
	exit 2
fi
NT=$((SCALE / 1000))			# timestamps per balloon: 10 locations x 100 balloons
for tool in pg_virtualenv pgbench psql cc; do
	command -v $tool >/dev/null || { echo "bench: $tool is missing (make deps)" >&2; exit 1; }
done

mkdir -p "$OUT"
# what an earlier run left (only the names this script writes)
rm -rf "$OUT/pgbench"
rm -f "$OUT/results.txt" "$OUT/runs.txt" "$OUT/raw.txt" "$OUT/raw.scattered.txt" \
	"$OUT"/explain.*.txt "$OUT"/check.*.out "$OUT/check.diff" "$OUT"/copy.*.log \
	"$OUT/cluster.log" "$OUT/compact.log" "$OUT/stop.log" "$OUT/server.log" "$OUT/performance.md" "$OUT/bigtable.md" \
	"$OUT"/droprange.*.log "$OUT/scaling.md" "$OUT/point2.perf.txt"
WORK=$(mktemp -d /tmp/wcbench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export SCALE NT SECONDS_PER_RUN ROUNDS FULLSCAN_TX OUT WORK
res=$OUT/results.txt
started=$(date +%s)

if [ "${BENCH_ONLY:-}" = counters ] || [ "${BENCH_ONLY:-}" = droprange ] ||
	[ "${BENCH_ONLY:-}" = key_stats ] || [ "${BENCH_ONLY:-}" = avro ] ||
	[ "${BENCH_ONLY:-}" = bigtable ]; then
	export BENCH_ONLY
	pg_virtualenv -o shared_preload_libraries=widecolumn_fdw -o fsync=on \
		sh test/bench/run.sh --inside >"$OUT/cluster.log" || {
		cat "$OUT/cluster.log" >&2
		echo "bench: the run inside the cluster failed" >&2
		exit 1
	}
	cat "$res" "$OUT/runs.txt"
	if [ "$BENCH_ONLY" = bigtable ] && [ -f "$OUT/bigtable.md" ]; then cat "$OUT/bigtable.md"; fi
	exit 0
fi
if [ "${BENCH_ONLY:-}" = scaling ]; then
	export BENCH_ONLY
	pg_virtualenv -o shared_preload_libraries=widecolumn_fdw -o fsync=on \
		sh test/bench/run.sh --inside >"$OUT/cluster.log" || {
		cat "$OUT/cluster.log" >&2
		echo "bench: the run inside the cluster failed" >&2
		exit 1
	}
	cc -O2 -Wall -o "$WORK/wakeup" test/bench/wakeup.c
	"$WORK/wakeup" >>"$res"
	{
		echo "machine_nproc $(nproc)"
		echo "seconds_per_run $SECONDS_PER_RUN"
		echo "rounds $ROUNDS"
		echo "bench_minutes $(( ($(date +%s) - started + 59) / 60 ))"
	} >>"$res"
	awk -v dir="$OUT" -v only=scaling -f test/bench/report.awk "$res" "$OUT/runs.txt" >"$OUT/scaling.md"
	cat "$OUT/scaling.md"
	exit 0
fi

say "SCALE=$SCALE rows, ${SECONDS_PER_RUN}s per pgbench run, $ROUNDS rounds; results in $OUT"
say "building test/bench/raw_leveldb.c"
cc -O2 -Wall -Isrc -o "$WORK/raw_leveldb" test/bench/raw_leveldb.c src/common/keycodec.c -lleveldb
cc -O2 -Wall -o "$WORK/cpu_keeper" test/bench/cpu_keeper.c
cc -O2 -Wall -o "$WORK/wakeup" test/bench/wakeup.c

say "raw LevelDB: load and measure (no PostgreSQL)"
# -B: 4 MiB write batches, the last synced, as the storage worker writes a
# large commit
"$WORK/raw_leveldb" -r "$SCALE" -B 4194304 -d "$WORK/rawdb" >"$OUT/raw.txt"
echo "raw_compacted_bytes $(du -sb "$WORK/rawdb" | cut -f1)" >>"$OUT/raw.txt"
rm -rf "$WORK/rawdb"
"$WORK/raw_leveldb" map >>"$OUT/raw.txt"
"$WORK/raw_leveldb" versions "$WORK/rawcells" 2000 1000 20000 >>"$OUT/raw.txt" 2>/dev/null
rm -rf "$WORK/rawcells"
"$WORK/wakeup" >>"$OUT/raw.txt"
cat "$OUT/raw.txt" >"$res"

say "starting a throwaway cluster"
# (its stdout: pg_virtualenv's chatter, and the server log if something failed)
pg_virtualenv -o shared_preload_libraries=widecolumn_fdw -o fsync=on \
	sh test/bench/run.sh --inside >"$OUT/cluster.log" || {
	cat "$OUT/cluster.log" >&2
	echo "bench: the run inside the cluster failed" >&2
	exit 1
}

# machine
{
	echo "machine_nproc $(nproc)"
	echo "machine_cpu $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "machine_mem_gib $(awk '/MemTotal/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)"
	echo "machine_kernel $(uname -sr)"
	echo "leveldb_package $(dpkg-query -W -f='${Version}' libleveldb1d 2>/dev/null || echo unknown)"
	echo "bench_minutes $(( ($(date +%s) - started + 59) / 60 ))"
	echo "bench_date $(date -u '+%Y-%m-%d %H:%M UTC')"
} >>"$res"

{
	echo "seconds_per_run $SECONDS_PER_RUN"
	echo "rounds $ROUNDS"
	echo "fullscan_tx $FULLSCAN_TX"
} >>"$res"
awk -v dir="$OUT" -f test/bench/report.awk "$res" "$OUT/runs.txt" >"$OUT/performance.md"
# the Bigtable engine's section (test/bench/bigtable.sh)
if [ -f "$OUT/bigtable.md" ]; then
	{ echo; cat "$OUT/bigtable.md"; echo; } >>"$OUT/performance.md"
fi
# the hand-written profile notes (why the missed targets are missed)
cat test/bench/analysis.md >>"$OUT/performance.md"
cat "$OUT/performance.md"
if [ -w docs ]; then
	cp "$OUT/performance.md" docs/performance.md
fi
