#!/bin/sh
# make test: build, install, check the version, run every suite.
set -e
cd "$(dirname "$0")/../.."
sh test/scripts/build.sh
sh test/scripts/check-version.sh
make -s -j2 test/keycodec_test test/gcpolicy_test test/readrows_test test/bigtable/btwall
sh test/scripts/as-postgres.sh sh test/scripts/suites.sh
