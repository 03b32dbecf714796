#!/bin/sh
# Build the libFuzzer harnesses (test/fuzz/fuzz_*.c) and run each for a while.
#
#   sh test/fuzz/run.sh [-merge] [target ...]      targets: keycodec readrows values wire
#                                                  (default: all)
#
# keycodec, readrows and wire are standalone programs.  values runs inside PostgreSQL
# (fuzz_values.c says why): it is built as a shared library, and libFuzzer
# is started from an SQL function in a single-user backend of a scratch
# cluster (initdb), with the AddressSanitizer runtime preloaded when clang
# has it.  PostgreSQL refuses to run as root: as root, the backend runs as
# the user "postgres" (PGUSER_FOR_FUZZ to choose another).
#
#   FUZZ_SECONDS   seconds per target (default 10); 0 only replays the corpus
#   FUZZ_CC        compiler (default clang; needs libFuzzer, as Debian's clang has)
#   FUZZ_FLAGS     extra libFuzzer flags, e.g. "-jobs=4 -workers=4" or "-seed=1"
#
# Each target starts from a copy of test/fuzz/corpus/<target> in a temporary
# directory, so the tree is never written to.  With -merge, inputs that add
# coverage are merged back into test/fuzz/corpus/<target> at the end (that is
# the only way this script writes into the tree; review and commit them).
#
# A crash, a sanitizer report (AddressSanitizer, UndefinedBehaviorSanitizer)
# or a failed property check fails the target; the input that did it is
# printed in hex and kept, with the log, in a directory named in the output.
# Ends with "fuzz: N passed, M failed" (targets) and exits non-zero if any
# target failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
seconds=${FUZZ_SECONDS:-10}
cc=${FUZZ_CC:-clang}
merge=0
targets=""
for a in "$@"; do
	case $a in
		-merge) merge=1 ;;
		-*) echo "fuzz: unknown option $a" >&2; exit 2 ;;
		*) targets="$targets $a" ;;
	esac
done
if [ -z "$targets" ]; then
	for f in "$here"/fuzz_*.c; do
		t=$(basename "$f" .c)
		targets="$targets ${t#fuzz_}"
	done
fi
case $seconds in
	''|*[!0-9]*) echo "fuzz: FUZZ_SECONDS must be a whole number of seconds" >&2; exit 2 ;;
esac

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz: $cc not found (Debian: apt-get install clang)" >&2
	echo "fuzz: 0 passed, 0 failed (not run)"
	exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/wc_fuzz.XXXXXX")
keep=0
cleanup() {
	if [ $keep = 0 ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Leaks are not a concern of these harnesses' properties, but nothing
# should leak: keep LeakSanitizer on.  UBSan reports are fatal (the build
# does not recover), with a stack.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

cflags="-g -O1 -Wall -Wextra -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"

# ---- the values harness: a library run by a single-user PostgreSQL ----
bindir=$(${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config} --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
incdir=$(${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config} --includedir-server 2>/dev/null || echo /usr/include/postgresql/15/server)
libdir=$(${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config} --pkglibdir 2>/dev/null || echo /usr/lib/postgresql/15/lib)
asan_rt=$($cc -print-file-name=libclang_rt.asan-x86_64.so)
preload=""
as_user=""
if [ "$(id -u)" = 0 ]; then
	as_user=${PGUSER_FOR_FUZZ:-postgres}
fi

build_values() {
	driver=$($cc -print-file-name=libclang_rt.fuzzer_no_main-x86_64.a)
	[ -f "$driver" ] || { echo "no $driver: this clang has no libFuzzer driver library"; return 1; }
	sanitize=fuzzer-no-link,undefined
	libasan=""
	if [ -f "$asan_rt" ]; then
		# an uninstrumented postgres loads the library: ASan's runtime is
		# preloaded (asan_preload.c says why it needs a companion)
		sanitize=$sanitize,address
		libasan=-shared-libasan
		$cc -O1 -shared -fPIC -o "$work/asan_preload.so" "$here/asan_preload.c" || return 1
		preload="$asan_rt:$work/asan_preload.so"
	fi
	# UBSan traps: its runtime is not linked into shared libraries
	$cc -g -O1 -fPIC -shared -fno-omit-frame-pointer -fsanitize=$sanitize \
		-fsanitize-trap=undefined $libasan \
		-Wall -Wno-ignored-attributes -Wno-compound-token-split-by-macro \
		-I"$incdir" -I"$top/src" -o "$1.so" "$here/fuzz_values.c" \
		"$top/src/fdw/model/valuecodec.c" "$top/src/fdw/model/rowkey.c" "$top/src/fdw/model/keyformat.c" \
		"$top/src/common/keycodec.c" \
		-Wl,--whole-archive "$driver" -Wl,--no-whole-archive -lstdc++ || return 1
	rm -rf "$work/values-data"
	if [ -n "$as_user" ]; then
		chown -R "$as_user" "$work"
		runuser -u "$as_user" -- "$bindir/initdb" -D "$work/values-data" -A trust --no-sync >"$work/initdb.log" 2>&1
	else
		"$bindir/initdb" -D "$work/values-data" -A trust --no-sync >"$work/initdb.log" 2>&1
	fi || { cat "$work/initdb.log"; return 1; }
}

# fuzz_exec target binary libFuzzer-arguments...
fuzz_exec() {
	t=$1
	bin=$2
	shift 2
	if [ "$t" != values ]; then
		"$bin" "$@"
		return
	fi
	[ -z "$as_user" ] || chown -R "$as_user" "$work"
	# one SQL function call; libFuzzer ends the process itself
	args=""
	for a in "$@"; do
		args="$args${args:+, }'$(printf '%s' "$a" | sed "s/'/''/g")'"
	done
	sql="CREATE FUNCTION wc_fuzz_values(text[]) RETURNS int AS '$bin.so' LANGUAGE C STRICT; SELECT wc_fuzz_values(ARRAY[$args]::text[]);"
	# detect_leaks=0: PostgreSQL leaves its memory to the end of the process
	echo "$sql" | ${as_user:+runuser -u "$as_user" --} env ASAN_OPTIONS="detect_leaks=0" \
		LD_PRELOAD="$preload" "$bindir/postgres" --single -D "$work/values-data" postgres
}
passed=0
failed=0
for t in $targets; do
	src="$here/fuzz_$t.c"
	bin="$work/fuzz_$t"
	corpus="$work/corpus/$t"
	log="$work/$t.log"
	if [ ! -f "$src" ]; then
		echo "fuzz: $t: no $src"
		failed=$((failed + 1))
		continue
	fi
	if [ "$t" = values ]; then
		build_values "$bin" >"$log" 2>&1
	else
		# wire.c is built as PostgreSQL builds its frontend code: palloc and
		# StringInfo come from the frontend library
		$cc $cflags -DFRONTEND -I"$top/src" -I"$incdir" -o "$bin" "$src" \
			"$top/src/common/keycodec.c" "$top/src/common/wire.c" "$top/src/common/wirerows.c" "$top/src/common/wirestats.c" "$top/src/common/wireheat.c" \
			"$top/src/common/bytebuf.c" "$top/src/worker/bigtable/readrows.c" \
			"$libdir/libpgcommon.a" "$libdir/libpgport.a" >"$log" 2>&1
	fi
	if [ $? != 0 ]; then
		cat "$log"
		echo "fuzz: $t: build FAILED"
		failed=$((failed + 1))
		continue
	fi
	mkdir -p "$corpus" "$work/artifacts"
	if [ -d "$here/corpus/$t" ]; then
		cp "$here/corpus/$t"/* "$corpus"/ 2>/dev/null || true
	fi
	nseeds=$(ls "$corpus" | wc -l)
	if [ "$seconds" = 0 ]; then
		run="-runs=0"
		what="replay of $nseeds inputs"
	else
		run="-max_total_time=$seconds"
		what="${seconds}s from $nseeds inputs"
	fi
	# -timeout: one input may not take a second; -rss_limit_mb: a runaway
	# allocation is a failure too.
	# shellcheck disable=SC2086
	(cd "$work" && fuzz_exec "$t" "$bin" -max_len=4096 -timeout=10 -rss_limit_mb=4096 \
		-print_final_stats=1 -artifact_prefix="$work/artifacts/$t-" \
		$run ${FUZZ_FLAGS:-} "$corpus") >"$log" 2>&1
	status=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	# no statistics: libFuzzer never ran (the values backend may exit 0
	# after an SQL error)
	if [ $status = 0 ] && [ -n "$execs" ] &&
		! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log"; then
		echo "fuzz: $t: ok ($what, ${execs:-?} runs, corpus now $(ls "$corpus" | wc -l))"
		passed=$((passed + 1))
	else
		keep=1
		echo "fuzz: $t: FAILED (exit $status, $what)"
		grep -E 'ERROR:|runtime error:|check failed|SUMMARY|^ *#[0-9]+ ' "$log" |
			grep -vE 'fuzzer::|libc_start|in _start|in main ' | head -40
		for a in "$work/artifacts/$t-"*; do
			[ -f "$a" ] || continue
			echo "fuzz: $t: input $a ($(wc -c <"$a") bytes):"
			od -An -tx1 -v "$a" | head -32
			if [ "$t" = values ]; then
				echo "fuzz: $t: reproduce: copy it into test/fuzz/corpus/values and run FUZZ_SECONDS=0 sh test/fuzz/run.sh values"
			else
				echo "fuzz: $t: reproduce: $bin $a   (or rebuild: see the head of test/fuzz/fuzz_$t.c)"
			fi
		done
		echo "fuzz: $t: full log $log"
		failed=$((failed + 1))
		continue
	fi
	if [ $merge = 1 ]; then
		mkdir -p "$here/corpus/$t" "$work/merged/$t"
		before=$(ls "$here/corpus/$t" | wc -l)
		cp "$here/corpus/$t"/* "$work/merged/$t"/ 2>/dev/null || true
		# merged in the scratch directory, which the values backend can write
		if (cd "$work" && fuzz_exec "$t" "$bin" -merge=1 -max_len=4096 "$work/merged/$t" "$corpus") >"$log.merge" 2>&1 &&
			cp "$work/merged/$t"/* "$here/corpus/$t"/; then
			echo "fuzz: $t: merged into test/fuzz/corpus/$t: $before -> $(ls "$here/corpus/$t" | wc -l) files"
		else
			tail -5 "$log.merge"
			echo "fuzz: $t: merge FAILED"
			keep=1
			failed=$((failed + 1))
			passed=$((passed - 1))
		fi
	fi
done
[ $keep = 1 ] && echo "fuzz: kept $work"
echo "fuzz: $passed passed, $failed failed"
[ $failed = 0 ]
