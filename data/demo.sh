#!/bin/sh
# Try fdewiz on a safe demo disk image: install build dependencies, build, make the image, open it.
#
# Run as root from a clone of the repository: ./data/demo.sh
# Only the image file under demo/ is ever written; no real disk is touched.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

./tests/install-deps.sh build
if [ ! -x src/fdewiz ] || [ ! -f config.status ]; then
	./autogen.sh >/dev/null
	./configure --quiet
fi
make -j"$(nproc)" >/dev/null

mkdir -p demo
[ -f demo/laptop.img ] || ./data/make-demo-disk.sh demo/laptop.img

exec ./src/fdewiz demo/laptop.img
