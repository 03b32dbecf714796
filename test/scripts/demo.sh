#!/bin/sh
# make demo: build, install, and run test/scripts/demo.sql in a throwaway
# cluster with the extension preloaded.
set -e
cd "$(dirname "$0")/../.."
sh test/scripts/build.sh
sh test/scripts/as-postgres.sh pg_virtualenv -o shared_preload_libraries=widecolumn_fdw \
	psql -X -v ON_ERROR_STOP=1 -f test/scripts/demo.sql
