#!/bin/sh
# The version is defined once, in the Makefile; everything else must agree.
set -e
cd "$(dirname "$0")/../.."
v=$(sed -n 's/^EXTVERSION *= *//p' Makefile)
fail=0
grep -q "^default_version = '$v'" widecolumn_fdw.control || { echo "version: widecolumn_fdw.control does not say $v"; fail=1; }
[ "$(grep -c "\"version\": \"$v\"" META.json)" = 2 ] || { echo "version: META.json does not say $v twice"; fail=1; }
grep -q "widecolumn_fdw--$v.sql" META.json || { echo "version: META.json names another install script"; fail=1; }
[ -f "widecolumn_fdw--$v.sql" ] || { echo "version: widecolumn_fdw--$v.sql is missing"; fail=1; }
[ "$(ls widecolumn_fdw--*.sql | wc -l)" = 1 ] || { echo "version: more than one install script"; fail=1; }
[ $fail = 0 ] && echo "version: $v everywhere"
exit $fail
