#!/bin/sh
# Build and install the extension into the PostgreSQL 15 installation.
set -e
cd "$(dirname "$0")/../.."
PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
# CI (CI=true) treats warnings as errors; users' builds do not.
if [ "${CI:-}" = true ] || [ -n "${WERROR:-}" ]; then
	make -s PG_CONFIG=$PG_CONFIG PG_CFLAGS="-Wextra -Werror -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers"
else
	make -s PG_CONFIG=$PG_CONFIG
fi
make -s PG_CONFIG=$PG_CONFIG install >/dev/null
