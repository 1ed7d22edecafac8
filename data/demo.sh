#!/bin/sh
# Try fdewiz on a safe demo disk image: install build dependencies, build, make the image, open it.
#
# Run as root from a clone of the repository: ./data/demo.sh
# Only the image file under demo/ is ever written; no real disk is touched.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

./tests/install-deps.sh build
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Build quietly; on failure show what the build said.
quiet() { "$@" >"$log" 2>&1 || { cat "$log" >&2; echo "demo: '$*' failed" >&2; exit 1; }; }
if [ ! -x src/fdewiz ] || [ ! -f config.status ]; then
	quiet ./autogen.sh
	quiet ./configure --quiet
fi
quiet make -j"$(nproc)"

mkdir -p demo
[ -f demo/laptop.img ] || ./data/make-demo-disk.sh demo/laptop.img

rm -f "$log"
trap - EXIT
exec ./src/fdewiz demo/laptop.img
