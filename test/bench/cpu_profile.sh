#!/bin/sh
# Where the CPU of one statement goes, thread by thread: run.sh calls
# "start" just before a foreign COPY and "stop" right after it, from inside
# the psql session that runs it; scaling.sh around a stretch of a 2-client
# pgbench run of point reads (one of the two backends).
#
#   cpu_profile.sh start DIR BACKEND_PID WORKER_PID
#   cpu_profile.sh stop DIR
#
# "stop" prints "name value" lines for results.txt:
#   profile_cpu.<thread> USER_S SYS_S      from /proc/<pid>/task/<tid>/stat
#   profile_dso.<thread>.<dso> PERCENT     share of that thread's samples
#   profile_sym.<thread>.<n> PERCENT DSO SYMBOL   its five hottest symbols
#   profile_share.<thread> PERCENT         that thread's share of all samples
# where <thread> is backend, worker (the storage worker's own thread),
# writer (its commit writer, the thread named "wc writer") or leveldb (the
# threads LevelDB starts: flushes and compactions).  The perf lines are
# there only if perf is installed and may profile the server's processes
# (perf_event_paranoid 2 allows it for one's own processes, user space only).
set -eu

cmd=$1 dir=$2

# "tid thread utime stime" for every thread of the given processes, in
# clock ticks.
threads() {
	for pid in "$@"; do
		for t in /proc/"$pid"/task/*; do
			tid=${t##*/}
			comm=$(cat "$t/comm" 2>/dev/null) || continue
			if [ "$pid" = "$(cat "$dir/backend.pid")" ]; then
				role=backend
			elif [ "$tid" = "$pid" ]; then
				role=worker
			elif [ "$comm" = "wc writer" ]; then
				role=writer
			else
				role=leveldb
			fi
			# Fields 14 and 15 of stat, after the command in parentheses.
			sed 's/^.*) //' "$t/stat" | awk -v tid="$tid" -v role="$role" '{ print tid, role, $12, $13 }'
		done
	done
}

case $cmd in
start)
	echo "$3" >"$dir/backend.pid"
	echo "$3 $4" >"$dir/pids"
	threads $3 $4 >"$dir/cpu.before"
	rm -f "$dir/copy.perf" "$dir/perf.pid"
	if command -v perf >/dev/null 2>&1; then
		perf record -q -F 999 -e cpu-clock -o "$dir/copy.perf" -p "$3,$4" \
			>"$dir/perf.log" 2>&1 </dev/null &
		echo $! >"$dir/perf.pid"
		sleep 1		# perf needs a moment to attach
	fi
	;;
stop)
	threads $(cat "$dir/pids") >"$dir/cpu.after"
	if [ -f "$dir/perf.pid" ]; then
		kill -INT "$(cat "$dir/perf.pid")" 2>/dev/null || true
		while kill -0 "$(cat "$dir/perf.pid")" 2>/dev/null; do sleep 0.2; done
	fi
	hz=$(getconf CLK_TCK)
	# A thread started during the statement counts from zero.
	awk -v hz="$hz" 'NR == FNR { u[$1] = $3; s[$1] = $4; next }
		{ du[$2] += $3 - u[$1]; ds[$2] += $4 - s[$1] }
		END { for (r in du) printf("profile_cpu.%s %.2f %.2f\n", r, du[r] / hz, ds[r] / hz) }' \
		"$dir/cpu.before" "$dir/cpu.after" | sort
	if [ -s "$dir/copy.perf" ]; then
		# perf names a thread "tid:comm"; the roles come from the snapshot.
		perf report -i "$dir/copy.perf" --stdio --no-children --sort pid,dso,sym -g none \
			--percent-limit 0 -t '|' 2>/dev/null >"$dir/perf.report" || true
		# Lines are "pct% | tid:comm | dso | [.] symbol", hottest first.
		awk 'NR == FNR { role[$1] = $2; next }
			/^#/ { next }
			{
				n = split($0, f, "|")
				if (n < 4) next
				pct = f[1]; gsub(/[ %]/, "", pct)
				tid = f[2]; sub(/^ */, "", tid); sub(/:.*/, "", tid)
				r = (tid in role) ? role[tid] : "leveldb"
				dso = f[3]; gsub(/ /, "", dso)
				sym = f[4]; sub(/^ *\[.\] */, "", sym)
				tot[r] += pct; bydso[r, dso] += pct
				if (++cnt[r] <= 5) top[r, cnt[r]] = pct " " dso " " sym
			}
			END {
				for (k in bydso) {
					split(k, q, SUBSEP)
					printf("profile_dso.%s.%s %.1f\n", q[1], q[2], 100 * bydso[k] / tot[q[1]])
				}
				for (k in top) {
					split(k, q, SUBSEP)
					rest = top[k]; pct = rest + 0; sub(/^[^ ]* /, "", rest)
					printf("profile_sym.%s.%d %.1f %s\n", q[1], q[2], 100 * pct / tot[q[1]], rest)
				}
				for (r in tot)
					printf("profile_share.%s %.1f\n", r, tot[r])
			}' "$dir/cpu.after" "$dir/perf.report" | sort
	fi
	;;
*)
	echo "usage: $0 start DIR BACKEND_PID WORKER_PID | stop DIR" >&2
	exit 2
	;;
esac
