#!/bin/sh
# The regression suites against a sanitized build of the extension, in a
# private PostgreSQL:
#   asan  AddressSanitizer and UndefinedBehaviorSanitizer (make asan);
#   tsan  ThreadSanitizer, on the suites that run the storage worker's
#         threads (make tsan).
#
#   sh test/scripts/as-postgres.sh sh test/fuzz/sanitize.sh asan|tsan  (as root)
#   sh test/fuzz/sanitize.sh asan|tsan                    (as any other user)
#
# Nothing is installed and nothing in the tree is written to; everything
# happens in one temporary directory:
#
#  1. the source is copied there and built with clang and
#     -fsanitize=address,undefined or -fsanitize=thread (objects and .so in
#     the copy only);
#  2. PostgreSQL 15 is copied there (bin, lib, share), with the sanitized .so
#     and this tree's control and SQL files in the copy's lib and extension
#     directories.  PostgreSQL finds its share and lib directories relative
#     to its binaries, so the copy's server resolves '$libdir/widecolumn_fdw'
#     (module_pathname, shared_preload_libraries) to the sanitized .so and
#     can never load the installed one; the script checks that in a
#     backend's /proc/self/maps;
#  3. a cluster of the copy runs with the sanitizer's runtime in the
#     postmaster (the server itself is not instrumented) and the library in
#     shared_preload_libraries, as in production: the runtime is
#     preloaded (LD_PRELOAD), with test/fuzz/asan_preload.c or
#     tsan_preload.c (each says why it is needed);
#  4. asan: pg_regress and the isolation specs (make installcheck without
#     the TAP tests, which start clusters of their own), the pgTAP
#     specifications and test/fuzz/values.sql (the value codecs on random
#     and mutated bytes) run against it; then the Perl TAP tests run with the
#     copy's binaries and the runtime preloaded into every process.
#     tsan: pg_regress and the isolation specs, then make check-long's
#     8-client mix (test/long, LONG_SECONDS, default 20 here) against it;
#     then the Perl TAP tests, the same way as asan;
#  5. every sanitizer report (the runtime's log_path files) and every server
#     process killed by a signal is a failure.
#
# asan: UBSan is built to recover and halt_on_error=0, so one run collects
# every report; an ASan report aborts its process (the postmaster restarts,
# the suites fail from there).  Set ASAN_EXTRA / UBSAN_EXTRA to add options,
# e.g. ASAN_EXTRA=detect_stack_use_after_return=1.  ASAN_TAP_TESTS chooses
# some Perl TAP tests, as TSAN_TAP_TESTS does.  ASAN_TAP=0 skips the
# Perl TAP tests, ASAN_VALUES=0 values.sql.
# tsan: every report is collected (halt_on_error=0) and the process goes on.
# test/fuzz/tsan.supp lists what is suppressed, and why.  TSAN_EXTRA adds
# options; TSAN_TAP=0 skips the Perl TAP tests, TSAN_TAP_TESTS='test/t/008*'
# chooses some.
# KEEP=1 keeps the directory.
#
# Ends with "asan: N passed, M failed" (or "tsan: ..."): suites, plus one
# failure per sanitizer report or crash; exits non-zero on any failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
SYSPG=/usr/lib/postgresql/15
SYSSHARE=/usr/share/postgresql/15
SYS_PG_CONFIG=$SYSPG/bin/pg_config
mode=${1:-}
case $mode in
	asan) CC=${ASAN_CC:-clang} ;;
	tsan) CC=${TSAN_CC:-clang} ;;
	*)
		echo "usage: sh test/fuzz/sanitize.sh asan|tsan" >&2
		exit 2
		;;
esac

if [ "$(id -u)" = 0 ]; then
	echo "$mode: PostgreSQL does not run as root; use: sh test/scripts/as-postgres.sh sh test/fuzz/sanitize.sh $mode" >&2
	exit 2
fi
rt=$($CC -print-file-name=libclang_rt.$mode-x86_64.so 2>/dev/null)
if [ ! -f "$rt" ]; then
	echo "$mode: no $mode runtime from $CC (Debian: apt-get install clang libclang-rt-14-dev)" >&2
	exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/wc_$mode.XXXXXX")
chmod 700 "$work"
keep=${KEEP:-0}
pg=$work/pg/lib/postgresql/15
bin=$pg/bin
data=$work/data
san=$work/sanitizer
mkdir -p "$san"
port=$((20000 + $$ % 20000))

passed=0
failed=0
ok() { echo "$mode: $1: ok"; passed=$((passed + 1)); }
bad() { echo "$mode: $1: FAILED"; failed=$((failed + 1)); keep=1; }

finish() {
	[ -f "$data/postmaster.pid" ] && "$bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1
	if [ "$keep" = 1 ]; then
		echo "$mode: kept $work (server.log, sanitizer/, src/regression.diffs)"
	else
		rm -rf "$work"
	fi
}
trap finish EXIT
trap 'exit 130' INT TERM

# TSan maps its shadow memory at fixed addresses and gives up ("unexpected
# memory mapping") where the kernel puts mappings outside the ranges it
# knows, as clang 14's runtime does under vm.mmap_rnd_bits above 28 (the
# default of some newer kernels).  Without address randomization (setarch
# -R, inherited through fork and exec) they always fit; so if a TSan program
# fails here, the servers run under that.
norandom=
if [ "$mode" = tsan ]; then
	printf 'int main(void) { return 0; }\n' >"$work/probe.c"
	if ! $CC -fsanitize=thread -o "$work/probe" "$work/probe.c" >"$work/probe.log" 2>&1; then
		cat "$work/probe.log"
		bad "a ThreadSanitizer program builds"
		exit 1
	fi
	if ! "$work/probe" >>"$work/probe.log" 2>&1; then
		if setarch "$(uname -m)" -R "$work/probe" >>"$work/probe.log" 2>&1; then
			norandom="setarch $(uname -m) -R"
			echo "tsan: TSan does not fit this kernel's address randomization (vm.mmap_rnd_bits = $(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null)): the servers run under $norandom"
		else
			cat "$work/probe.log"
			bad "a ThreadSanitizer program runs (try: sysctl vm.mmap_rnd_bits=28)"
			exit 1
		fi
	fi
fi

# ---- 1. the sanitized build, in a copy of the source ----
case $mode in
	# No -fwrapv (PostgreSQL's own flag): UBSan should see signed overflow
	# in the extension's code.
	asan) sanitize="-fsanitize=address,undefined" instrumented=__asan_report ;;
	tsan) sanitize="-fsanitize=thread" instrumented=__tsan_read ;;
esac
echo "$mode: building with $CC $sanitize in $work/src"
mkdir -p "$work/src"
(cd "$top" && tar cf - --exclude=.git --exclude=results --exclude=tmp_check \
	--exclude=output_iso --exclude='*.o' --exclude='*.so' --exclude='*.bc' .) |
	(cd "$work/src" && tar xf -)
cflags="-g -O1 -fno-omit-frame-pointer -fno-strict-aliasing $sanitize -Wall -Wno-unused-command-line-argument -Wno-compound-token-split-by-macro -Wno-ignored-attributes"
if ! make -C "$work/src" -s PG_CONFIG=$SYS_PG_CONFIG CC="$CC" with_llvm=no \
	CFLAGS="$cflags" >"$work/build.log" 2>&1; then
	cat "$work/build.log"
	bad build
	echo "$mode: $passed passed, $failed failed"
	exit 1
fi
grep -E 'warning|error' "$work/build.log" | head -20
if ! nm -D "$work/src/widecolumn_fdw.so" | grep -q $instrumented; then
	bad "build (widecolumn_fdw.so is not instrumented)"
	exit 1
fi
ok build

# ---- 2. a private copy of PostgreSQL 15 with the sanitized extension ----
mkdir -p "$work/pg/lib/postgresql" "$work/pg/share/postgresql"
(cd "$SYSPG/.." && tar cf - --exclude=15/lib/bitcode 15) | (cd "$work/pg/lib/postgresql" && tar xf -)
(cd "$SYSSHARE/.." && tar cf - 15) | (cd "$work/pg/share/postgresql" && tar xf -)
cp "$work/src/widecolumn_fdw.so" "$pg/lib/widecolumn_fdw.so"
cp "$work/src/widecolumn_fdw.control" "$work/src"/widecolumn_fdw--*.sql "$work/pg/share/postgresql/15/extension/"
if [ "$("$bin/pg_config" --pkglibdir)" != "$pg/lib" ] ||
	[ "$("$bin/pg_config" --sharedir)" != "$work/pg/share/postgresql/15" ]; then
	echo "$mode: the copied PostgreSQL does not find its own lib and share directories:"
	"$bin/pg_config" --pkglibdir --sharedir
	bad "private PostgreSQL"
	exit 1
fi

# ---- 3. the cluster ----
$norandom "$bin/initdb" -D "$data" -A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$work/initdb.log" 2>&1 ||
	{ cat "$work/initdb.log"; bad initdb; exit 1; }
cat >>"$data/postgresql.conf" <<EOF
port = $port
listen_addresses = ''
unix_socket_directories = '$work'
shared_preload_libraries = 'widecolumn_fdw'
fsync = off
# as make test's cluster: the suites prepare transactions after foreign writes
max_prepared_transactions = 10
EOF
symbolizer=$(command -v llvm-symbolizer || true)
case $mode in
	asan)
		# The ASan runtime first; then a shim without which Debian's
		# postgres hangs at startup with it (see asan_preload.c).
		$CC -O1 -shared -fPIC -o "$work/asan_preload.so" "$here/asan_preload.c" >"$work/preload.log" 2>&1 ||
			{ cat "$work/preload.log"; bad "asan_preload.so"; exit 1; }
		preload="$rt:$work/asan_preload.so"
		asan_opts="detect_leaks=0:abort_on_error=1:print_summary=1:log_path=$san/report${symbolizer:+:external_symbolizer_path=$symbolizer}${ASAN_EXTRA:+:$ASAN_EXTRA}"
		ubsan_opts="print_stacktrace=1:halt_on_error=0:log_path=$san/report${UBSAN_EXTRA:+:$UBSAN_EXTRA}"
		senv="LD_PRELOAD=$preload ASAN_OPTIONS=$asan_opts UBSAN_OPTIONS=$ubsan_opts"
		;;
	tsan)
		# The runtime after a library that initializes it before any other
		# constructor runs (see tsan_preload.c).
		$CC -O1 -shared -fPIC -Wl,-z,initfirst -o "$work/tsan_preload.so" "$here/tsan_preload.c" >"$work/preload.log" 2>&1 ||
			{ cat "$work/preload.log"; bad "tsan_preload.so"; exit 1; }
		preload="$work/tsan_preload.so:$rt"
		# exitcode=0: a process with a report exits as it would have, so the
		# postmaster takes it for no crash and the suites go on; the reports
		# are counted from log_path below.  report_signal_unsafe=0: the
		# postmaster of PostgreSQL 15 does its work in signal handlers
		# (reaper, sigusr1_handler: palloc, fork), and every process it
		# forks there starts inside the handler as far as TSan can tell, so
		# all their mallocs would be reported.  The extension's handlers
		# (worker/main.c) only set a flag and the latch, and its threads
		# block every signal.
		tsan_opts="halt_on_error=0:exitcode=0:report_signal_unsafe=0:history_size=4:second_deadlock_stack=1:suppressions=$here/tsan.supp:log_path=$san/report${symbolizer:+:external_symbolizer_path=$symbolizer}${TSAN_EXTRA:+:$TSAN_EXTRA}"
		senv="LD_PRELOAD=$preload TSAN_OPTIONS=$tsan_opts"
		;;
esac
if ! env $senv $norandom "$bin/pg_ctl" -D "$data" -l "$work/server.log" -w -t 120 start >/dev/null; then
	cat "$work/server.log"
	bad "server start"
	exit 1
fi
export PATH="$SYSPG/bin:$PATH" PGHOST="$work" PGPORT="$port" PGUSER="$(id -un)" PGDATABASE=postgres
unset PGSERVICE PGHOSTADDR

# The backend must run the sanitized library, and only it.
maps=$("$bin/psql" -X -A -t -q -c "CREATE DATABASE wc_${mode}_check" \
	-c "\\c wc_${mode}_check" -c "CREATE EXTENSION widecolumn_fdw" \
	-c "SELECT pg_read_file('/proc/self/maps')" 2>&1)
"$bin/psql" -X -q -c "DROP DATABASE wc_${mode}_check" >/dev/null 2>&1
if echo "$maps" | grep -q "$pg/lib/widecolumn_fdw.so" &&
	! echo "$maps" | grep -q "$SYSPG/lib/widecolumn_fdw.so" &&
	echo "$maps" | grep -q "libclang_rt.$mode"; then
	ok "backend loads $pg/lib/widecolumn_fdw.so only"
else
	echo "$maps" | grep -E 'widecolumn|asan|ERROR' | head
	bad "backend loads the sanitized library"
fi

# ---- 4. the suites ----
run() {
	name=$1
	shift
	echo "$mode: == $name"
	if "$@" >"$work/$name.log" 2>&1; then
		grep -E '\.\. |^not ok |passed|failed|^Result' "$work/$name.log" | tail -40
		ok "$name"
	else
		tail -60 "$work/$name.log"
		bad "$name"
	fi
}

# pg_regress and isolation, with the Makefile's lists (TAP tests left out)
run installcheck make -C "$work/src" -s PG_CONFIG=$SYS_PG_CONFIG TAP_TESTS= installcheck

if [ $mode = asan ]; then
	if command -v pg_prove >/dev/null 2>&1 && [ -d "$work/src/test/pgtap" ]; then
		run pgtap sh -c 'createdb wc_spec &&
			psql -X -q -d wc_spec -c "CREATE EXTENSION pgtap; CREATE EXTENSION widecolumn_fdw;" &&
			cd "$1" && pg_prove -d wc_spec test/pgtap/*.sql' sh "$work/src"
	else
		echo "asan: pgtap: skipped (no pg_prove)"
	fi

	# the value codecs on random and mutated cell bytes (test/fuzz/values.sql)
	[ "${ASAN_VALUES:-1}" = 1 ] && run values sh -c 'createdb wc_values && psql -X -v ON_ERROR_STOP=1 -d wc_values -f "$1"' \
		sh "$work/src/test/fuzz/values.sql"
	[ -f "$work/values.log" ] && grep -E '^ +[0-9]+ \|' "$work/values.log" | awk -F'|' '{ d += $3; e += $4; v += $5 }
		END { printf "asan: values: %d decoded, %d refused with 22P03, %d broke a property\n", d, e, v }'
else
	# make check-long's 8 clients reading, scanning and committing at once
	run long sh -c 'createdb wc_long &&
		PGDATABASE=wc_long LONG_CLUSTER=here LONG_SECONDS=${LONG_SECONDS:-20} sh "$1/test/long/run.sh"' \
		sh "$work/src"
fi

"$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1

# The Perl TAP tests (restarts, crashes, storage errors) start clusters of
# their own from the binaries in PATH, so here they run with the copy's
# binaries and the runtime preloaded into every process of the run (perl,
# psql and initdb too, so a report may come from them).
case $mode in
	asan) tap=${ASAN_TAP:-1} tap_tests=${ASAN_TAP_TESTS:-'test/t/*.pl'} ;;
	tsan) tap=${TSAN_TAP:-1} tap_tests=${TSAN_TAP_TESTS:-'test/t/*.pl'} ;;
esac
if [ "$tap" = 1 ]; then
	run tap env $senv PATH="$bin:$PATH" $norandom make -C "$work/src" -s PG_CONFIG="$bin/pg_config" \
		REGRESS= ISOLATION= PROVE_TESTS="$tap_tests" PROVE_FLAGS=-v installcheck
	for f in "$work"/src/tmp_check/log/*.log; do
		[ -f "$f" ] && grep -H -E 'terminated by signal [^9]|was terminated by exception' "$f" >>"$work/tap-crashes.txt"
	done
fi

# ---- 5. what the sanitizers and the server say ----
crashes=$(grep -E 'terminated by signal|was terminated by exception' "$work/server.log" || true)
[ -s "$work/tap-crashes.txt" ] && crashes="$crashes
$(cat "$work/tap-crashes.txt")"
if [ -n "$crashes" ]; then
	echo "$crashes" | head -20
	bad "server processes killed by a signal ($(echo "$crashes" | wc -l))"
else
	ok "no server process killed by a signal"
fi
reports=0
for f in "$san"/*; do
	[ -f "$f" ] || continue
	reports=$((reports + 1))
	# each report: what and where, and the first frames of each stack
	echo "$mode: ---- $f"
	awk '{ sub(/ \(BuildId: [0-9a-f]+\)/, "") }
		/runtime error:|ERROR: AddressSanitizer|^(READ|WRITE) of size|WARNING: ThreadSanitizer|^  (Previous )?(atomic )?(read|write|Read|Write|Atomic)|^  (Location|Mutex|Thread) / { print; n = 0; show = 1; next }
		show && /^ *#[0-9]+ / { if (n++ < 8) print; else show = 0 }' "$f" | head -60
	bad "sanitizer report $(basename "$f")"
done
if [ $reports -gt 0 ]; then
	echo "$mode: distinct reports:"
	cat "$san"/* | sed -n 's/^SUMMARY: //p' | sort | uniq -c
fi
[ $reports = 0 ] && ok "no sanitizer reports"
echo "$mode: $passed passed, $failed failed"
[ $failed = 0 ]
