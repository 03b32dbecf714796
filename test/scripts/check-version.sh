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
# every older full install script has an upgrade path to this version
for f in widecolumn_fdw--*.sql; do
	old=${f#widecolumn_fdw--}
	old=${old%.sql}
	case $old in
		*--*) continue ;;	# an upgrade script
		"$v") continue ;;
	esac
	step=$old
	while [ "$step" != "$v" ]; do
		next=$(ls widecolumn_fdw--"$step"--*.sql 2>/dev/null | head -1)
		[ -n "$next" ] || { echo "version: no upgrade script from $step (towards $v)"; fail=1; break; }
		step=${next#widecolumn_fdw--"$step"--}
		step=${step%.sql}
	done
done
[ $fail = 0 ] && echo "version: $v everywhere"
exit $fail
