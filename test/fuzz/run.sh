#!/bin/sh
# Build the libFuzzer harnesses (test/fuzz/fuzz_*.c) and run each for a while.
#
#   sh test/fuzz/run.sh [-merge] [target ...]      targets: keycodec wire (default: all)
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
	# every harness links both plain-C sources; the linker drops what is unused
	if ! $cc $cflags -I"$top/src" -o "$bin" "$src" "$top/src/keycodec.c" "$top/src/wire.c" >"$log" 2>&1; then
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
	(cd "$work" && "$bin" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$work/artifacts/$t-" \
		$run ${FUZZ_FLAGS:-} "$corpus") >"$log" 2>&1
	status=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [ $status = 0 ] && ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log"; then
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
			echo "fuzz: $t: reproduce: $bin $a   (or rebuild: $cc $cflags -Isrc -o fuzz_$t test/fuzz/fuzz_$t.c src/keycodec.c src/wire.c)"
		done
		echo "fuzz: $t: full log $log"
		failed=$((failed + 1))
		continue
	fi
	if [ $merge = 1 ]; then
		mkdir -p "$here/corpus/$t"
		before=$(ls "$here/corpus/$t" | wc -l)
		if (cd "$work" && "$bin" -merge=1 -max_len=4096 "$here/corpus/$t" "$corpus") >"$log.merge" 2>&1; then
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
