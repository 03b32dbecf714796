#!/bin/sh
# The CPU a pgbench run's transactions cost, process by process, on both
# tables: scaling.sh calls "start" a second into a run and "stop" a
# while before its end, so that every process it counts lives through
# the stretch.  On a machine whose CPUs are all busy, throughput is the
# number of CPUs over the CPU a transaction costs; this says which
# process spends it.
#
#   cpu_account.sh start DIR POSTMASTER_PID PGBENCH_PID
#   cpu_account.sh stop DIR
#
# "stop" prints "class ticks" lines, the ticks (getconf CLK_TCK a second)
# each class of process used over the stretch, and "idle IDLE TOTAL", the
# machine's idle ticks (idle and iowait) and all its ticks, from
# /proc/stat (so summed over its CPUs).  The classes: backend (the client
# backends pgbench is connected to), pgbench, worker (the storage
# worker's own thread), readers (its threads named "wc reader N"), writer
# (its commit writer, "wc writer"), leveldb (the threads LevelDB starts:
# flushes and compactions), server (PostgreSQL's other processes:
# checkpointer, WAL writer and the rest).
set -eu

cmd=$1 dir=$2

# "tid class utime stime" for every thread of the given processes.
threads() {
	for pid in $(cat "$dir/pids"); do
		class=$(awk -v p="$pid" '$1 == p { print $2 }' "$dir/classes")
		for t in /proc/"$pid"/task/*; do
			tid=${t##*/}
			comm=$(cat "$t/comm" 2>/dev/null) || continue
			c=$class
			if [ "$class" = worker ] && [ "$tid" != "$pid" ]; then
				case $comm in
				"wc reader"*) c=readers ;;
				"wc writer") c=writer ;;
				*) c=leveldb ;;
				esac
			fi
			# Fields 14 and 15 of stat, after the command in parentheses.
			sed 's/^.*) //' "$t/stat" 2>/dev/null |
				awk -v tid="$tid" -v c="$c" '{ print tid, c, $12 + $13 }' || true
		done
	done
}

idle() {
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print $5 + $6, t }' /proc/stat
}

case $cmd in
start)
	postmaster=$3 pgbench=$4
	{
		echo "$pgbench pgbench"
		ps --ppid "$postmaster" -o pid= -o args= | awk '
			/widecolumn_fdw storage worker/ { print $1, "worker"; next }
			/ pgbench / || / \[local\] / || /[0-9.:]+\([0-9]+\)/ { print $1, "backend"; next }
			{ print $1, "server" }'
	} >"$dir/classes"
	awk '{ print $1 }' "$dir/classes" >"$dir/pids"
	threads >"$dir/cpu.before"
	idle >"$dir/idle.before"
	;;
stop)
	threads >"$dir/cpu.after"
	idle >"$dir/idle.after"
	# A thread started during the stretch counts from zero.
	awk 'NR == FNR { t[$1] = $3; next } { d[$2] += $3 - t[$1] }
		END { for (c in d) print c, d[c] }' "$dir/cpu.before" "$dir/cpu.after" | sort
	paste "$dir/idle.before" "$dir/idle.after" | awk '{ print "idle", $3 - $1, $4 - $2 }'
	;;
*)
	echo "usage: $0 start DIR POSTMASTER_PID PGBENCH_PID | stop DIR" >&2
	exit 2
	;;
esac
