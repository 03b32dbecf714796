# The scaling workloads of issue 18, sourced by run.sh and run inside its
# cluster (BENCH_ONLY=scaling runs only these): how throughput grows with
# clients, what a bulk commit and a full scan do to other sessions' point
# reads, and what parallel query gives a full scan.  Every figure is
# measured on the foreign table and on the native one, side by side.
#
# Results: runs.txt lines "scale_<w>_c<n> native|foreign round tps lat
# failed" (w: point, prefix, write; n: 1, 2, 4, 8) and "pscan_w<n> ..."
# (max_parallel_workers_per_gather n), and results.txt lines scale_*; the
# report's "Scaling" section (report.awk) reads them.  Uses run.sh's sql,
# put, say, balloon_rows, foreign_balloon and native_balloon.

# BENCH_ONLY=scaling: the balloon rows into both tables, as run.sh's load
# leaves them (one COPY each, the native table vacuumed), the foreign COPY
# timed for the latency workload's run length.
scaling_load() {
	say "scaling: loading $SCALE rows into balloon and balloon_native"
	sql <<-SQL
	CREATE EXTENSION widecolumn_fdw;
	$(foreign_balloon balloon wc)
	$(native_balloon balloon_native)
	$(key_functions)
	COPY ($(balloon_rows)) TO '$WORK/balloon.tsv';
	SQL
	start=$(date +%s.%N)
	sql -c "COPY balloon FROM '$WORK/balloon.tsv'"
	put copy_s.balloon "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')"
	sql -c "COPY balloon_native FROM '$WORK/balloon.tsv'" -c 'VACUUM (ANALYZE) balloon_native'
}

# One pgbench run of the scaling workloads: name, side (native|foreign),
# clients, script, more pgbench options.  The round is $r.
scale_run() {
	name=$1 side=$2 clients=$3 script=$4
	shift 4
	log=$OUT/pgbench/$name.$side.$r.log
	if pgbench -n -M prepared -c "$clients" -j "$(( clients < 2 ? clients : 2 ))" \
		-D rows="$SCALE" -D ntimes="$NT" "$@" -f "$script" >"$log" 2>&1; then
		tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$log")
	else
		tps=error
		say "pgbench failed: $name on $side (see $log)"
		tail -5 "$log" >&2
	fi
	lat=$(sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p' "$log")
	failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$log")
	echo "$name $side $r ${tps:-error} ${lat:--} ${failed:-0}" >>"$runs"
}

# The 99th percentile of the latencies in pgbench --log files $3...,
# counting only the transactions that ended between epoch seconds $1 and
# $2 ("" "": all): "p99_ms transactions last_end".
p99_of() {
	from=$1 to=$2
	shift 2
	# a line: client transaction latency_us script epoch_s epoch_us (the
	# time printed in full: print would round it to OFMT's 6 digits)
	cat "$@" | awk -v from="$from" -v to="$to" '{
		t = $5 + $6 / 1e6
		if (from != "" && (t < from || t > to)) next
		printf "%s %.6f\n", $3, t
	}' | sort -n | awk '{ a[NR] = $1; if ($2 > last) last = $2 }
	END {
		if (NR == 0) { print "- 0 0"; exit }
		i = int(NR * 0.99); if (i < NR * 0.99) i++
		printf "%.3f %d %.6f\n", a[i] / 1000, NR, last
	}'
}

# The space-separated list $1 with $2 appended.
append() {
	if [ -z "$1" ]; then echo "$2"; else echo "$1 $2"; fi
}

# The parallel full scan (pscan_w2 / pscan_w0); SCALING_ONLY=pscan runs
# only this part of the workloads.
scaling_pscan() {
	# A full scan with max_parallel_workers_per_gather 2 and 0 (the
	# cluster's default is 2).  First the same answer both ways on each
	# table (the two tables may differ: the full run's UPDATE workloads
	# change random rows of each), and the plans.
	say "scaling: full scans, max_parallel_workers_per_gather 2 and 0"
	for side in native foreign; do
		t=$(native_table "$side" balloon)
		want=""
		for n in 2 0; do
			# (PGOPTIONS in a subshell: an assignment before a function
			# call may outlive it in sh)
			got=$(export PGOPTIONS="-c max_parallel_workers_per_gather=$n"; sql -c "SELECT count(*), sum(pressure) FROM $t WHERE temp > 19.5")
			if [ -z "$want" ]; then want=$got; fi
			if [ "$got" != "$want" ]; then
				say "MISMATCH: full scan of $t with $n workers gave $got, expected $want"
				exit 1
			fi
			(export PGOPTIONS="-c max_parallel_workers_per_gather=$n"
			 sql -c "EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF) SELECT count(*) FROM $t WHERE temp > 1000") >"$OUT/explain.pscan.$side.w$n.txt"
			say "plan of the full scan of $t with $n workers: $(tr '\n' ' ' <"$OUT/explain.pscan.$side.w$n.txt")"
			planned=$(sed -n 's/.*Workers Planned: \([0-9]*\).*/\1/p' "$OUT/explain.pscan.$side.w$n.txt")
			put "scale_pscan_workers_planned.$side.w$n" "${planned:-0}"
			entries=$(sed -n 's/.*Storage Entries Read: \([0-9]*\).*/\1/p' "$OUT/explain.pscan.$side.w$n.txt")
			put "scale_pscan_entries.$side.w$n" "${entries:-0}"
		done
		put "scale_pscan_answer.$side" "$want"
	done
	# The same scan with a condition storage cannot check (temp + 0 is not
	# a column): every row then travels to the backends, as before storage
	# filters.  Foreign only: the native table's plan is the same either way.
	echo 'SELECT count(*) FROM balloon WHERE temp + 0 > 1000;' >"$WORK/scale/foreign/fullscan_local.sql"
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		for side in $(sides); do
			for n in 2 0; do
				(export PGOPTIONS="-c max_parallel_workers_per_gather=$n"
				 scale_run "pscan_w$n" "$side" 1 "$WORK/scale/$side/fullscan.sql" -T "$SECONDS_PER_RUN"
				 if [ "$side" = foreign ]; then
					 scale_run "pscan_local_w$n" foreign 1 "$WORK/scale/foreign/fullscan_local.sql" -T "$SECONDS_PER_RUN"
				 fi)
			done
		done
		r=$((r + 1))
	done

	# Where the time of three parallel full scans of the foreign table
	# goes: the leader's backend and the storage worker profiled
	# (cpu_profile.sh; the parallel workers come and go with each scan).
	postmaster=$(head -1 "$datadir/postmaster.pid")
	worker=$(ps --ppid "$postmaster" -o pid= -o args= | awk '/widecolumn_fdw storage worker/ { print $1 }')
	mkdir -p "$WORK/profile3"
	sql >"$OUT/pscan.profile.log" 2>&1 <<-SQL
	SELECT pg_backend_pid() AS pid \gset
	\setenv BACKEND_PID :pid
	\! sh test/bench/cpu_profile.sh start $WORK/profile3 \$BACKEND_PID $worker
	\timing on
	SELECT count(*) FROM balloon WHERE temp > 1000;
	SELECT count(*) FROM balloon WHERE temp > 1000;
	SELECT count(*) FROM balloon WHERE temp > 1000;
	\timing off
	\! sh test/bench/cpu_profile.sh stop $WORK/profile3 >$WORK/profile3/results
	SQL
	sed 's/^profile_/scale_pscan_profile_/' "$WORK/profile3/results" >>"$res"
	put scale_pscan_profile_ms "$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$OUT/pscan.profile.log" | paste -sd+ | bc)"
	cp "$WORK/profile3/perf.report" "$OUT/pscan.perf.txt" 2>/dev/null || true
}

scaling_workload() {
	mkdir -p "$OUT/pgbench" "$WORK/scale/native" "$WORK/scale/foreign" "$WORK/p99"
	put scale_rows "$SCALE"
	# The scripts: point reads and prefix scans from test/bench, and a
	# single-row INSERT transaction into a table of its own (on server wc,
	# so with its default sync on: every COMMIT waits for LevelDB's fsync),
	# whose rows are counted afterwards.
	cat >"$WORK/scale/write.sql" <<-'SQL'
	\set r random(0, 999999999999)
	\set p random(90000, 99999)
	INSERT INTO scale_writes VALUES ('w' || :client_id || '#' || lpad(:r::text, 12, '0'), :p, 12.5, 40.5, 20000);
	SQL
	for s in point prefix fullscan update insert; do
		cp "test/bench/$s.sql" "$WORK/scale/foreign/"
		sed 's/\bballoon\b/balloon_native/g' "test/bench/$s.sql" >"$WORK/scale/native/$s.sql"
	done
	cp "$WORK/scale/write.sql" "$WORK/scale/foreign/"
	sed 's/\bscale_writes\b/scale_writes_native/g' "$WORK/scale/write.sql" >"$WORK/scale/native/write.sql"
	native_table() {
		if [ "$1" = native ]; then echo "$2_native"; else echo "$2"; fi
	}
	sides() {	# native first in odd rounds, as run.sh's workloads
		if [ $((r % 2)) = 1 ]; then echo native foreign; else echo foreign native; fi
	}
	if [ "${SCALING_ONLY:-}" = pscan ]; then
		scaling_pscan
		return
	fi
	sql <<-SQL
	CREATE FOREIGN TABLE scale_writes (
	    rowkey   text   OPTIONS (rowkey 'true') COLLATE "C",
	    pressure bigint OPTIONS (column 'measurements:pressure'),
	    temp     float8 OPTIONS (column 'measurements:temperature'),
	    humidity float8 OPTIONS (column 'measurements:humidity'),
	    altitude float8 OPTIONS (column 'measurements:altitude')
	) SERVER wc OPTIONS (table 'scale_writes');
	$(native_balloon scale_writes_native)
	SQL

	# Throughput against clients: each round runs 1, 2, 4 and 8 clients
	# back to back, so that a ratio compares runs minutes apart at most.
	for w in point prefix write; do
		say "scaling: $w at 1, 2, 4 and 8 clients"
		r=1
		while [ "$r" -le "$ROUNDS" ]; do
			for c in 1 2 4 8; do
				for side in $(sides); do
					scale_run "scale_${w}_c$c" "$side" "$c" "$WORK/scale/$side/$w.sql" -T "$SECONDS_PER_RUN"
				done
			done
			r=$((r + 1))
		done
	done
	# Every committed INSERT must have left its row; a transaction still
	# running when a -T run ended may have committed too (one per client
	# and run at most).
	for side in native foreign; do
		t=$(native_table "$side" scale_writes)
		committed=$(cat "$OUT"/pgbench/scale_write_c*."$side".*.log |
			sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' |
			awk '{ n += $1 } END { print n + 0 }')
		found=$(sql -c "SELECT count(*) FROM $t")
		put "scale_writes_committed.$side" "$committed"
		put "scale_writes_found.$side" "$found"
		if [ "$found" -lt "$committed" ] || [ "$found" -gt $((committed + 15 * ROUNDS)) ]; then
			say "MISMATCH: $t holds $found rows, pgbench committed $committed"
			exit 1
		fi
	done

	# Point reads' p99 latency, alone and while a second session runs full
	# scans back to back and a third commits a COPY of the SCALE rows into a
	# table of its own (a scratch server for the foreign table: its own
	# LevelDB database, the same storage worker).  The loaded p99 counts
	# only the point reads that ended while the COPY ran; the alone run
	# lasts as long.
	data=$WORK/balloon.tsv
	[ -f "$data" ] || sql -c "COPY ($(balloon_rows)) TO '$data'"
	copy_s=$(awk '$1 == "copy_s.balloon" { print $2 }' "$res")
	run_s=$(awk -v c="${copy_s:-5}" -v s="$SECONDS_PER_RUN" 'BEGIN { d = int(3 * c + 3); print (d > s ? d : s) }')
	say "scaling: point reads' p99, alone and beside a full scan and a COPY of $SCALE rows (${run_s} s runs)"
	for side in native foreign; do
		eval "p99_alone_$side= p99_loaded_$side= p99_n_$side= copy_loaded_$side= p99_cover_$side= scans_$side="
	done
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		for side in $(sides); do
			t=$(native_table "$side" balloon)
			point=$WORK/scale/$side/point.sql
			scale_run p99_alone "$side" 1 "$point" -T "$run_s" --log --log-prefix="$WORK/p99/alone.$side.$r"
			set -- $(p99_of "" "" "$WORK/p99/alone.$side.$r".*)
			eval "p99_alone_$side=\$(append \"\$p99_alone_$side\" $1)"

			if [ "$side" = foreign ]; then
				sql -c "$(foreign_balloon scale_copy wc_scale_copy)"
			else
				sql -c "$(native_balloon scale_copy_native)"
			fi
			target=$(native_table "$side" scale_copy)
			rm -f "$WORK/scan.stop" "$WORK/scans"
			(
				while [ ! -f "$WORK/scan.stop" ]; do
					sql -c "SELECT count(*) FROM $t WHERE temp > 1000" >/dev/null
					echo scan >>"$WORK/scans"
				done
			) &
			scanner=$!
			scale_run p99_loaded "$side" 1 "$point" -T "$run_s" --log --log-prefix="$WORK/p99/loaded.$side.$r" &
			bench=$!
			sleep 1
			from=$(date +%s.%N)
			sql -c "COPY $target FROM '$data'"
			to=$(date +%s.%N)
			wait "$bench"
			touch "$WORK/scan.stop"
			wait "$scanner"
			if [ "$(sql -c "SELECT count(*) FROM $target")" != "$SCALE" ]; then
				say "MISMATCH: the COPY into $target did not leave $SCALE rows"
				exit 1
			fi
			if [ "$side" = foreign ]; then
				sql -c "DROP SERVER wc_scale_copy CASCADE" >/dev/null
			else
				sql -c "DROP TABLE $target"
			fi
			set -- $(p99_of "$from" "$to" "$WORK/p99/loaded.$side.$r".*)
			# the share of the COPY's time the point reads covered
			cover=$(awk -v a="$from" -v b="$to" -v l="$3" 'BEGIN { e = l < b ? l : b; printf "%.2f", (e > a ? (e - a) / (b - a) : 0) }')
			eval "p99_loaded_$side=\$(append \"\$p99_loaded_$side\" $1)"
			eval "p99_n_$side=\$(append \"\$p99_n_$side\" $2)"
			eval "p99_cover_$side=\$(append \"\$p99_cover_$side\" $cover)"
			eval "copy_loaded_$side=\$(append \"\$copy_loaded_$side\" $(awk -v a="$from" -v b="$to" 'BEGIN { printf "%.2f", b - a }'))"
			eval "scans_$side=\$(append \"\$scans_$side\" $(wc -l <"$WORK/scans"))"
		done
		r=$((r + 1))
	done
	for side in native foreign; do
		eval "put scale_p99_alone_ms.$side \"\$p99_alone_$side\""
		eval "put scale_p99_loaded_ms.$side \"\$p99_loaded_$side\""
		eval "put scale_p99_loaded_reads.$side \"\$p99_n_$side\""
		eval "put scale_p99_cover.$side \"\$p99_cover_$side\""
		eval "put scale_p99_copy_s.$side \"\$copy_loaded_$side\""
		eval "put scale_p99_scans.$side \"\$scans_$side\""
	done
	put scale_p99_run_s "$run_s"

	scaling_pscan

	# Where the time goes with 2 clients of point reads on the foreign
	# table: one more run, not counted above, with the storage worker and
	# one of the two sessions' backends profiled (cpu_profile.sh).
	say "scaling: 2 clients of point reads, profiled"
	postmaster=$(head -1 "$datadir/postmaster.pid")
	worker=$(ps --ppid "$postmaster" -o pid= -o args= | awk '/widecolumn_fdw storage worker/ { print $1 }')
	mkdir -p "$WORK/profile2"
	r=profiled
	scale_run scale_point_profiled foreign 2 "$WORK/scale/foreign/point.sql" -T $((SECONDS_PER_RUN + 3)) &
	bench=$!
	backend=""
	i=0
	while [ -z "$backend" ] && [ $i -lt 50 ]; do
		sleep 0.1
		backend=$(sql -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgbench' ORDER BY pid LIMIT 1")
		i=$((i + 1))
	done
	if [ -n "$backend" ] && [ -n "$worker" ]; then
		from=$(date +%s.%N)
		sh test/bench/cpu_profile.sh start "$WORK/profile2" "$backend" "$worker"
		sleep "$SECONDS_PER_RUN"
		sh test/bench/cpu_profile.sh stop "$WORK/profile2" | sed 's/^profile_/scale_profile_/' >>"$res"
		put scale_profile_s "$(awk -v a="$from" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')"
		cp "$WORK/profile2/perf.report" "$OUT/point2.perf.txt" 2>/dev/null || true
	fi
	wait "$bench"

	scaling_cpu
}

# What a transaction costs in CPU, process by process (cpu_account.sh),
# for the workloads of the targets at the clients they count (a ratio of
# clients: both counts): one more run of each on both tables, counted from
# its second second to a second before its end.  results.txt: "scale_cpu.<w>.<side> tps secs ticks_per_s
# idle_ticks total_ticks class=ticks...".
scaling_cpu() {
	say "scaling: CPU per transaction, process by process"
	postmaster=$(head -1 "$datadir/postmaster.pid")
	hz=$(getconf CLK_TCK)
	mkdir -p "$WORK/account"
	r=account
	while read -r w clients scripts; do
		for side in native foreign; do
			args=""
			for s in $scripts; do
				args="$args -f $WORK/scale/$side/$s"
			done
			log=$OUT/pgbench/cpu_$w.$side.log
			# shellcheck disable=SC2086
			pgbench -n -M prepared -c "$clients" -j 2 -D rows="$SCALE" -D ntimes="$NT" \
				-T $((SECONDS_PER_RUN + 2)) $args >"$log" 2>&1 &
			bench=$!
			sleep 1
			sh test/bench/cpu_account.sh start "$WORK/account" "$postmaster" "$bench"
			from=$(date +%s.%N)
			sleep "$SECONDS_PER_RUN"
			sh test/bench/cpu_account.sh stop "$WORK/account" >"$WORK/account/result"
			secs=$(awk -v a="$from" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
			wait "$bench" || say "pgbench failed: cpu_$w on $side (see $log)"
			tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$log")
			put "scale_cpu.$w.$side" "${tps:-error} $secs $hz $(awk '$1 == "idle" { print $2, $3 }' "$WORK/account/result") $(awk '$1 != "idle" { printf "%s=%s ", $1, $2 }' "$WORK/account/result")"
		done
	done <<-EOF
	point1 1 point.sql
	point 2 point.sql
	prefix1 1 prefix.sql
	prefix 2 prefix.sql
	write1 1 write.sql
	write 8 write.sql
	mix 4 point.sql@8 update.sql@1 insert.sql@1
	EOF
}
