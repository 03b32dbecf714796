#!/bin/sh
# Install, from Debian's packages, whatever building and testing need and the
# machine lacks.  Runs as root (the README's contract); as another user it
# only says what is missing.
set -e
cd "$(dirname "$0")/../.."

pkgs="make gcc clang libclang-rt-14-dev postgresql-15 postgresql-server-dev-15 libleveldb-dev \
postgresql-15-pgtap libtap-parser-sourcehandler-pgtap-perl libipc-run-perl \
libavro-dev libsnappy-dev zlib1g-dev python3-avro python3-snappy chromium fonts-dejavu-core \
g++ pkg-config libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc"

# Google's Bigtable emulator, or where none is installed, the one built
# here from Debian's packages: its server is golang-google-cloud-dev's
# bttest (test/bigtable/emulator/main.go).
google_emulator=/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator
built_emulator=/usr/local/lib/widecolumn_fdw/cbtemulator
[ -x "$google_emulator" ] || pkgs="$pkgs golang-go golang-google-cloud-dev"

build_emulator() {
	[ -x "$google_emulator" ] || [ -x "$built_emulator" ] && return 0
	[ "$(id -u)" = 0 ] || { echo "deps: no Bigtable emulator; run make deps as root to build one" >&2; return 1; }
	echo "deps: building a Bigtable emulator from Debian's golang-google-cloud-dev"
	mkdir -p "$(dirname "$built_emulator")"
	gohome=$(mktemp -d)
	HOME=$gohome GOCACHE=$gohome/cache GO111MODULE=off GOPATH=/usr/share/gocode \
		go build -o "$built_emulator" test/bigtable/emulator/main.go
	rm -rf "$gohome"
}

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	build_emulator
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: install them as root (apt-get install$missing)" >&2
	exit 1
fi
echo "deps: installing$missing"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
build_emulator
