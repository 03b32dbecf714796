#!/bin/sh
# Run a command as an unprivileged user in a copy of the tree it owns.
#
# PostgreSQL refuses to run as root, so when we are root the suites run as
# the "postgres" user (created by Debian's server package) in a scratch copy
# under /tmp; otherwise they run here as we are.
set -e
cd "$(dirname "$0")/../.."
if [ "$(id -u)" != 0 ]; then
	exec "$@"
fi
work=$(mktemp -d /tmp/widecolumn_fdw.XXXXXX)
trap 'rm -rf "$work"' EXIT
tar cf - --exclude=.git --exclude=results --exclude=tmp_check --exclude=output_iso . | (cd "$work" && tar xf -)
chown -R postgres "$work"
chmod 755 "$work"
status=0
runuser -u postgres -- sh -c 'cd "$1" && shift && "$@"' sh "$work" "$@" || status=$?
# keep what explains a failure (all of it is in .gitignore)
for f in regression.diffs regression.out results output_iso tmp_check; do
	rm -rf "./$f"
	[ -e "$work/$f" ] && cp -r "$work/$f" "./$f"
done
exit $status
