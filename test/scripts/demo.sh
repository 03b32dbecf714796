#!/bin/sh
# make demo: build, install, and run test/scripts/demo.sql and the
# README's tutorial (test/scripts/tutorial.sql) in a throwaway cluster with
# the extension preloaded; the tutorial's heat maps are written to
# /tmp/widecolumn_fdw-demo.
set -e
cd "$(dirname "$0")/../.."
sh test/scripts/build.sh
mkdir -p /tmp/widecolumn_fdw-demo
chmod 1777 /tmp/widecolumn_fdw-demo
sh test/scripts/as-postgres.sh pg_virtualenv -o shared_preload_libraries=widecolumn_fdw \
	psql -X -v ON_ERROR_STOP=1 -f test/scripts/demo.sql -f test/scripts/tutorial.sql
