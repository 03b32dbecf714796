#!/bin/sh
# make check-long: 8 pgbench clients mix point reads, prefix scans,
# inserts, updates, deletes and increments on foreign tables for a bounded
# time (LONG_SECONDS, default 60), then check the invariants:
#   - every counter equals the number of increments logged for it (none lost);
#   - the rows that exist are exactly the ones the log says were put and not
#     deleted since;
#   - pgbench saw no failed transaction.
# Then 8 more clients run the twin workload (test/long/twin*.sql) for as
# long: point reads, prefix and range scans, cursors fetched slowly across
# other sessions' commits, single- and multi-row writes, UPDATEs, DELETEs,
# commits and rollbacks, each on a foreign table and its native twin in the
# same transaction; it checks as it runs what holds whatever the timing
# (a session's own rows and counter read as their twin, a cursor reads one
# snapshot: its REPEATABLE READ transaction's), and at the end that the
# foreign table holds exactly the native twin's rows.
# Then 6 clients commit pairs (a native row and the same key on two foreign
# servers, one transaction) while others read them in READ COMMITTED,
# REPEATABLE READ and SERIALIZABLE: the torn reads found are counted and
# printed, and must be none (test/long/pairs_*.sql).
# Runs in a throwaway cluster; as root, go through test/scripts/as-postgres.sh.
# LONG_CLUSTER=here runs it in the database that PGHOST, PGPORT and
# PGDATABASE name instead (make tsan's, whose server carries TSan).
set -eu
export PATH=/usr/lib/postgresql/15/bin:$PATH
cd "$(dirname "$0")/../.."
export LONG_SECONDS=${LONG_SECONDS:-60}
out=$(mktemp)

mix='
	psql -X -q -v ON_ERROR_STOP=1 -f test/long/setup.sql
	pgbench -n -c 8 -j 2 -T "$LONG_SECONDS" -f test/long/mix.sql 2>&1 | grep -E "processed|failed|tps|error|ERROR"
	psql -X -q -v ON_ERROR_STOP=1 -At -f test/long/check.sql
	psql -X -q -v ON_ERROR_STOP=1 -f test/long/twin_setup.sql
	PGOPTIONS="-c client_min_messages=warning" pgbench -n -c 8 -j 2 -T "$LONG_SECONDS" \
		--max-tries=1000 -D mine=0 -f test/long/twin.sql 2>&1 | grep -E "processed|failed|retried|tps|error|ERROR|invariant"
	psql -X -q -v ON_ERROR_STOP=1 -At -f test/long/twin_check.sql
	psql -X -q -v ON_ERROR_STOP=1 -f test/long/pairs_setup.sql
	pgbench -n -c 6 -j 2 -T "$LONG_SECONDS" --max-tries=100 -f test/long/pairs_write.sql@3 \
		-f test/long/pairs_read_rc.sql@1 -f test/long/pairs_read_rr.sql@1 \
		-f test/long/pairs_read_ser.sql@1 2>&1 | grep -E "processed|failed|tps|error|ERROR"
	psql -X -q -v ON_ERROR_STOP=1 -At -f test/long/pairs_check.sql
'
if [ "${LONG_CLUSTER:-}" = here ]; then
	sh -eu -c "$mix" > "$out" 2>&1 || true
else
	# worker_threads above the CPU count, so that 2 CPUs run the reader threads too
	pg_virtualenv -o shared_preload_libraries=widecolumn_fdw -o widecolumn_fdw.worker_threads=4 sh -eu -c "$mix" > "$out" 2>&1 || true
fi
cat "$out"
if grep -q "^ok counters" "$out" && grep -q "^ok rows" "$out" &&
	grep -q "^ok twin rows" "$out" && grep -q "^ok twin point reads" "$out" &&
	grep -q "^ok twin shared sum" "$out" && grep -q "^ok pairs" "$out" &&
	[ "$(grep -c "^number of failed transactions: 0 " "$out")" = 3 ] &&
	! grep -qi "error\|invariant" "$out"; then
	echo "check-long: 1 passed, 0 failed"
	rm -f "$out"
	exit 0
fi
echo "check-long: 0 passed, 1 failed"
rm -f "$out"
exit 1
