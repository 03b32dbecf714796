#!/bin/sh
# Every test suite, against a throwaway cluster with the extension preloaded.
# Prints one line per suite and a closing "N passed, N failed" count of
# test files; exits non-zero if anything failed.
set -u
export PATH=/usr/lib/postgresql/15/bin:$PATH
PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
log=$(mktemp)
passed=0
failed=0

count() {
	# pg_regress and isolation lines: "test name ... ok" / "... FAILED"
	p=$(grep -cE '^(test | ?)[a-z0-9_ ]+\.\.\. ok|^ok [0-9]+ |^fuzz: [a-z_]+: ok' "$log" || true)
	f=$(grep -cE '\.\.\. FAILED|^not ok [0-9]+ |^fuzz: [a-z_]+: .*FAIL' "$log" || true)
	passed=$((passed + p))
	failed=$((failed + f))
}

run() {
	name=$1
	shift
	echo "== $name"
	if "$@" >"$log" 2>&1; then
		cat "$log"
		count
	else
		cat "$log"
		count
		# a suite that failed without saying which test counts once
		[ "$(grep -cE 'FAILED|not ok' "$log")" = 0 ] && failed=$((failed + 1))
	fi
}

run "unit: key codec" ./test/keycodec_test
run "unit: garbage-collection policies" ./test/gcpolicy_test
run "unit: Bigtable's ReadRows chunks" ./test/readrows_test

run "fuzz (libFuzzer, ${FUZZ_SECONDS:-5} s a target; more: FUZZ_SECONDS=300 sh test/fuzz/run.sh)" \
	env FUZZ_SECONDS="${FUZZ_SECONDS:-5}" sh test/fuzz/run.sh

run "pg_regress, isolation and TAP (make installcheck)" \
	pg_virtualenv -o shared_preload_libraries=widecolumn_fdw -o max_prepared_transactions=10 \
	make -s PG_CONFIG=$PG_CONFIG installcheck PROVE_FLAGS=-v

run "pgTAP (pg_prove)" \
	pg_virtualenv -o shared_preload_libraries=widecolumn_fdw -o max_prepared_transactions=10 \
	sh -c 'createdb wc_spec && psql -X -q -d wc_spec -c "CREATE EXTENSION pgtap; CREATE EXTENSION widecolumn_fdw;" && pg_prove -v -d wc_spec test/pgtap/*.sql'

rm -f "$log"
echo "summary: $passed passed, $failed failed"
[ "$failed" = 0 ]
