#!/bin/sh
# Install, from Debian's packages, whatever building and testing need and the
# machine lacks.  Runs as root (the README's contract); as another user it
# only says what is missing.
set -e

pkgs="make gcc clang libclang-rt-14-dev postgresql-15 postgresql-server-dev-15 libleveldb-dev \
postgresql-15-pgtap libtap-parser-sourcehandler-pgtap-perl libipc-run-perl \
libavro-dev libsnappy-dev zlib1g-dev python3-avro python3-snappy chromium fonts-dejavu-core \
g++ pkg-config libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc"

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: install them as root (apt-get install$missing)" >&2
	exit 1
fi
echo "deps: installing$missing"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
