# The Bigtable engine's workload of test/bench/run.sh (sourced by it;
# BENCH_ONLY=bigtable runs it alone): a Bigtable server's foreign table on
# Google's emulator (or the one make deps builds) against a native table
# of the same rows and against the bare client, test/bench/raw_bigtable.c,
# which makes the engine's calls through the same wall with nothing
# between: COPY of BT_ROWS balloon rows (the bare client's MutateRows in
# batches of 1,000 rows), prepared point reads, scans of 10,000
# consecutive rows and full scans serial and split among two parallel
# workers, in rounds that alternate them, with the CPU the emulator and
# the machine spent on the point reads.  The emulator is
# in memory and on this machine, so a call costs what its CPU does, not a
# network's round trip: the ratios say what the extension adds to a call,
# not what a user on Google's Bigtable would see.  Inside the cluster;
# uses run.sh's sql, put, say, foreign_balloon, native_balloon and
# balloon_rows.  Results:
# "bt_*" lines in results.txt and $OUT/bigtable.md.

bt_emulator() {
	for e in /usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator \
		/usr/local/lib/widecolumn_fdw/cbtemulator; do
		if [ -x "$e" ]; then
			echo "$e"
			return
		fi
	done
}

# pgbench of the script on stdin for SECONDS_PER_RUN; its tps in $tps.
bt_pgbench() {
	cat >"$WORK/bt_$1.sql"
	log=$OUT/pgbench/bigtable.$1.$2.log
	if pgbench -n -M prepared -T "$SECONDS_PER_RUN" -D rows="$BT_ROWS" -D ntimes="$NT" \
		-f "$WORK/bt_$1.sql" >"$log" 2>&1; then
		tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$log")
	else
		say "bigtable: pgbench $1 failed (see $log)"
		tail -5 "$log" >&2
		exit 1
	fi
}

# CPU ticks: of a process (user + system), and of the machine busy (all
# but idle and iowait).
bt_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}
bt_busy() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat
}

# Where a run's CPU went: "emulator_ms_per_op busy_cores" of the command
# given, ops being what it prints as its rate times its seconds.
bt_cpu_of() {
	e0=$(bt_ticks "$emu_pid") b0=$(bt_busy) t0=$(date +%s.%N)
	"$@"
	e1=$(bt_ticks "$emu_pid") b1=$(bt_busy) t1=$(date +%s.%N)
	hz=$(getconf CLK_TCK)
	bt_cpu="$(awk -v e=$((e1 - e0)) -v b=$((b1 - b0)) -v hz="$hz" -v t0="$t0" -v t1="$t1" -v ops="$bt_ops" \
		'BEGIN { printf "%.3f %.2f", e / hz * 1000 / ops, b / hz / (t1 - t0) }')"
}

# The median of the numbers on stdin.
bt_median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

bigtable_workload() {
	# one location's rows (its keys sort as k does), at most 100,000
	BT_ROWS=$(( NT * 100 < 100000 ? NT * 100 : 100000 ))
	BT_SPAN=$(( BT_ROWS / 2 < 10000 ? BT_ROWS / 2 : 10000 ))
	emu=$(bt_emulator)
	if [ -z "$emu" ]; then
		say "bigtable: no emulator (make deps builds one): skipped"
		return
	fi
	raw=$PWD/test/bench/raw_bigtable
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	ep=127.0.0.1:$port
	"$emu" -host 127.0.0.1 -port "$port" >"$OUT/emulator.log" 2>&1 &
	emu_pid=$!
	# shellcheck disable=SC2064
	trap "kill $emu_pid 2>/dev/null || true" EXIT
	up=0
	for _ in $(seq 1 60); do
		if test/bigtable/btwall "$ep" projects/p/instances/i tables >/dev/null 2>&1; then
			up=1
			break
		fi
		sleep 1
	done
	[ $up = 1 ] || { say "bigtable: the emulator did not come up"; exit 1; }
	say "workload bigtable: $BT_ROWS rows on the emulator at $ep ($emu)"
	put bt_emulator "$emu"
	put bt_rows "$BT_ROWS"
	put bt_span "$BT_SPAN"

	sql -c "COPY ($(SCALE=$BT_ROWS; balloon_rows)) TO '$WORK/bt_rows.tsv'"
	[ "$(wc -l <"$WORK/bt_rows.tsv")" = "$BT_ROWS" ] || { say "bigtable: the rows file is not $BT_ROWS rows"; exit 1; }
	# run.sh's balloon tables, the server a Bigtable one
	sql <<-SQL
	$(foreign_balloon bt_balloon bt | sed "s/^CREATE SERVER bt FOREIGN DATA WRAPPER widecolumn_fdw;/CREATE SERVER bt FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (engine 'bigtable', project 'p', instance 'i', endpoint '$ep', credentials 'insecure');/")
	$(native_balloon bt_native)
	SELECT widecolumn.create_family('bt', 'weather', 'measurements');
	SELECT widecolumn.create_family('bt', 'weather_raw', 'measurements');
	SQL
	[ "$(sql -c "SELECT srvoptions::text FROM pg_foreign_server WHERE srvname = 'bt'")" != "" ] ||
		{ say "bigtable: the server is not a Bigtable server"; exit 1; }

	# COPY: one each (a second COPY of the same rows would only overwrite)
	copy_ms() {
		printf '%s\n' '\timing on' "$1" | sql >"$OUT/bigtable.copy.$2.log" 2>&1 ||
			{ cat "$OUT/bigtable.copy.$2.log" >&2; exit 1; }
		sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$OUT/bigtable.copy.$2.log" | tail -1
	}
	ms=$(copy_ms "COPY bt_native FROM '$WORK/bt_rows.tsv'" native)
	put bt_copy_native_rows_per_s "$(awk -v n="$BT_ROWS" -v ms="$ms" 'BEGIN { printf "%.0f", n / ms * 1000 }')"
	ms=$(copy_ms "COPY bt_balloon FROM '$WORK/bt_rows.tsv'" bigtable)
	put bt_copy_rows_per_s "$(awk -v n="$BT_ROWS" -v ms="$ms" 'BEGIN { printf "%.0f", n / ms * 1000 }')"
	"$raw" "$ep" projects/p/instances/i/tables/weather_raw load "$BT_ROWS" "$NT" 1000 >>"$res"
	same=$(sql -c "SELECT count(*) FROM ((TABLE bt_balloon EXCEPT TABLE bt_native) UNION ALL (TABLE bt_native EXCEPT TABLE bt_balloon)) d")
	[ "$same" = 0 ] || { say "bigtable: the foreign table and the native one differ in $same rows"; exit 1; }

	# what EXPLAIN ANALYZE says Bigtable was sent and sent back
	sql -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT * FROM bt_balloon WHERE rowkey = ANY (ARRAY(SELECT bench_key(k * 37) FROM generate_series(0, 99) k))" >"$OUT/bigtable.explain.any100.txt"
	sql -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT * FROM bt_balloon ORDER BY rowkey LIMIT 10" >"$OUT/bigtable.explain.limit10.txt"
	put bt_in100_requests "$(sed -n 's/.*Bigtable Requests: \([0-9]*\).*/\1/p' "$OUT/bigtable.explain.any100.txt")"
	put bt_in100_rows "$(sed -n 's/.*Rows Received: \([0-9]*\).*/\1/p' "$OUT/bigtable.explain.any100.txt")"
	put bt_limit10_requests "$(sed -n 's/.*Bigtable Requests: \([0-9]*\).*/\1/p' "$OUT/bigtable.explain.limit10.txt")"
	put bt_limit10_rows "$(sed -n 's/.*Rows Received: \([0-9]*\).*/\1/p' "$OUT/bigtable.explain.limit10.txt")"

	# a full scan, serial and split at SampleRowKeys' points among two
	# workers (forced: at these costs the planner would not pay for them)
	par_settings="SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; SET parallel_leader_participation = off;"
	full_ms() {
		printf '%s\n' "SET max_parallel_workers_per_gather = $1; $par_settings" '\timing on' \
			"SELECT count(*), sum(length(rowkey)) FROM bt_balloon;" | sql >"$OUT/bigtable.full.$1.log" 2>&1 ||
			{ cat "$OUT/bigtable.full.$1.log" >&2; exit 1; }
		sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$OUT/bigtable.full.$1.log" | tail -1
	}
	sql -c "SET max_parallel_workers_per_gather = 2; $par_settings EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(*), sum(length(rowkey)) FROM bt_balloon" >"$OUT/bigtable.explain.parallel.txt"
	put bt_parallel_workers "$(sed -n 's/.*Workers Launched: \([0-9]*\).*/\1/p' "$OUT/bigtable.explain.parallel.txt")"

	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		# with where the CPU went: the emulator's per scan, the cores busy
		bt_ops=1
		bt_cpu_of full_ms 0 >>"$WORK/bt_full_serial"
		echo "$bt_cpu" >>"$WORK/bt_full_serial_cpu"
		bt_cpu_of full_ms 2 >>"$WORK/bt_full_parallel"
		echo "$bt_cpu" >>"$WORK/bt_full_parallel_cpu"
		for t in bt_native bt_balloon; do
			printf '%s\n' '\set k random(0, :rows - 1)' "SELECT * FROM $t WHERE rowkey = bench_key(:k);" >"$WORK/bt_point.sql"
			bt_ops=1
			bt_cpu_of bt_pgbench "point.$t" "$r" <"$WORK/bt_point.sql"
			echo "$t $tps" >>"$WORK/bt_point"
			# the CPU of the same run per read: tps * seconds reads
			bt_ops=$(awk -v t="$tps" -v s="$SECONDS_PER_RUN" 'BEGIN { printf "%.0f", t * s }')
			bt_cpu="$(echo "$bt_cpu" | awk -v ops="$bt_ops" '{ printf "%.3f %s", $1 / ops, $2 }')"
			[ "$t" = bt_native ] || echo "$bt_cpu" >>"$WORK/bt_point_cpu"
			bt_pgbench "range.$t" "$r" <<-SQL
			\set k random(0, :rows - $BT_SPAN - 1)
			SELECT count(*) FROM (SELECT * FROM $t WHERE rowkey >= bench_key(:k) AND rowkey < bench_key(:k + $BT_SPAN) OFFSET 0) s;
			SQL
			echo "$t $(awk -v t="$tps" -v n="$BT_SPAN" 'BEGIN { printf "%.0f", t * n }')" >>"$WORK/bt_range"
		done
		bt_ops=1
		bt_cpu_of "$raw" "$ep" projects/p/instances/i/tables/weather point "$BT_ROWS" "$NT" "$SECONDS_PER_RUN" >"$WORK/bt_raw"
		bt_ops=$(awk -v s="$SECONDS_PER_RUN" '$1 == "bt_raw_point_per_s" { printf "%.0f", $2 * s }' "$WORK/bt_raw")
		echo "$bt_cpu" | awk -v ops="$bt_ops" '{ printf "%.3f %s\n", $1 / ops, $2 }' >>"$WORK/bt_raw_point_cpu"
		"$raw" "$ep" projects/p/instances/i/tables/weather range "$BT_ROWS" "$NT" "$SECONDS_PER_RUN" "$BT_SPAN" >>"$WORK/bt_raw"
		cat "$WORK/bt_raw" >>"$WORK/bt_raws"
		r=$((r + 1))
	done
	for t in bt_native bt_balloon; do
		put "bt_point_per_s.$t" "$(awk -v t="$t" '$1 == t { printf "%.0f\n", $2 }' "$WORK/bt_point" | bt_median)"
		put "bt_range_rows_per_s.$t" "$(awk -v t="$t" '$1 == t { print $2 }' "$WORK/bt_range" | bt_median)"
	done
	put bt_full_serial_ms "$(bt_median <"$WORK/bt_full_serial")"
	put bt_full_parallel_ms "$(bt_median <"$WORK/bt_full_parallel")"
	for m in serial parallel; do
		put "bt_full_${m}_emulator_ms" "$(awk '{ print $1 }' "$WORK/bt_full_${m}_cpu" | bt_median)"
		put "bt_full_${m}_busy_cores" "$(awk '{ print $2 }' "$WORK/bt_full_${m}_cpu" | bt_median)"
	done
	put bt_point_emulator_ms "$(awk '{ print $1 }' "$WORK/bt_point_cpu" | bt_median)"
	put bt_point_busy_cores "$(awk '{ print $2 }' "$WORK/bt_point_cpu" | bt_median)"
	put bt_raw_point_emulator_ms "$(awk '{ print $1 }' "$WORK/bt_raw_point_cpu" | bt_median)"
	put bt_raw_point_busy_cores "$(awk '{ print $2 }' "$WORK/bt_raw_point_cpu" | bt_median)"
	for m in bt_raw_point_per_s bt_raw_point_ms bt_raw_range_rows_per_s; do
		put "$m" "$(awk -v m="$m" '$1 == m { print $2 }' "$WORK/bt_raws" | bt_median)"
	done

	# the report's section, from the lines put above
	awk '
	{ v[$1] = $2 }
	function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
	END {
		print "## The Bigtable engine (issue 36), on the emulator"
		print ""
		printf "%s rows of the balloon table on a Bigtable server, `%s` on this machine, in memory; ", v["bt_rows"], v["bt_emulator"]
		print "each figure the median of the rounds. The bare client is `test/bench/raw_bigtable.c`: the same wall, the same calls, no PostgreSQL."
		print ""
		print "| workload | native table | Bigtable server | bare client | server / bare (target) | server / native |"
		print "|---|---:|---:|---:|---:|---:|"
		printf "| COPY FROM, rows/s | %s | %s | %s (MutateRows, 1,000 rows a call) | %s (>= 0.7) | %s |\n", v["bt_copy_native_rows_per_s"], v["bt_copy_rows_per_s"], v["bt_raw_load_rows_per_s"], ratio(v["bt_copy_rows_per_s"], v["bt_raw_load_rows_per_s"]), ratio(v["bt_copy_rows_per_s"], v["bt_copy_native_rows_per_s"])
		printf "| prepared point read, /s | %s | %s | %s | %s (>= 0.7) | %s |\n", v["bt_point_per_s.bt_native"], v["bt_point_per_s.bt_balloon"], v["bt_raw_point_per_s"], ratio(v["bt_point_per_s.bt_balloon"], v["bt_raw_point_per_s"]), ratio(v["bt_point_per_s.bt_balloon"], v["bt_point_per_s.bt_native"])
		printf "| %s-row range, rows/s | %s | %s | %s | %s (>= 0.7) | %s |\n", v["bt_span"], v["bt_range_rows_per_s.bt_native"], v["bt_range_rows_per_s.bt_balloon"], v["bt_raw_range_rows_per_s"], ratio(v["bt_range_rows_per_s.bt_balloon"], v["bt_raw_range_rows_per_s"]), ratio(v["bt_range_rows_per_s.bt_balloon"], v["bt_range_rows_per_s.bt_native"])
		print ""
		printf "Where a point read goes: the emulator spends %s ms of CPU on one read from the Bigtable server and %s ms on one from the bare client, ", v["bt_point_emulator_ms"], v["bt_raw_point_emulator_ms"]
		printf "and the machine is %s of its cores busy during the server'"'"'s run against %s during the bare client'"'"'s (of %s). ", v["bt_point_busy_cores"], v["bt_raw_point_busy_cores"], v["machine_nproc"] ? v["machine_nproc"] : "2"
		print "The emulator runs on the same cores as PostgreSQL here, so what the backend and the storage worker spend on a read is taken from the emulator too."
		# A read through PostgreSQL pays what a native statement costs (the
		# round trip from pgbench, the executor) on top of the call: the
		# ratio has a ceiling.
		n = v["bt_point_per_s.bt_native"]; b = v["bt_raw_point_per_s"]
		if (n > 0 && b > 0)
		{
			c = n / (n + b)
			printf "A point read through PostgreSQL costs at least what a prepared point read of a native table does (1/%s s: pgbench'"'"'s round trip, the executor, an index probe the foreign table does not make) on top of the call itself (1/%s s), so its ratio to the bare client is at most native / (native + bare) = %.2f on this machine, whatever the extension does%s.\n", n, b, c, c < 0.7 ? ": the target of 0.7 is above that ceiling" : ""
		}
		print ""
		printf "An IN list of 100 keys (`rowkey = ANY (ARRAY(...))`): %s request(s), %s rows received (target: one request). `LIMIT 10`: %s request(s), %s rows received (target: at most 10). From EXPLAIN ANALYZE.\n", v["bt_in100_requests"], v["bt_in100_rows"], v["bt_limit10_requests"], v["bt_limit10_rows"]
		print ""
		printf "A full scan of the table: %s ms serial, %s ms split at SampleRowKeys'"'"' points among %s parallel workers (the leader not reading): %s times as fast (target: >= 1.5).\n", v["bt_full_serial_ms"], v["bt_full_parallel_ms"], v["bt_parallel_workers"], ratio(v["bt_full_serial_ms"], v["bt_full_parallel_ms"])
		printf "The emulator spends %s ms of CPU on the serial scan and %s ms on the parallel one; the machine is %s of its cores busy during the serial scan and %s during the parallel one.\n", v["bt_full_serial_emulator_ms"], v["bt_full_parallel_emulator_ms"], v["bt_full_serial_busy_cores"], v["bt_full_parallel_busy_cores"]
		# The CPU of the serial scan, spread over every core at best.
		p = v["machine_nproc"] ? v["machine_nproc"] : 2; u = v["bt_full_serial_busy_cores"]
		if (u > 0)
			printf "With the serial scan keeping %s of the %s cores busy (the emulator, the backend, the worker), no split of the same work can be more than %s / %s = %.2f times as fast here%s.\n", u, p, p, u, p / u, p / u < 1.5 ? ": the target of 1.5 is above that ceiling" : ""
	}' "$res" >"$OUT/bigtable.md"
	kill "$emu_pid" 2>/dev/null || true
}
