#!/bin/bash
# Builds the libFuzzer harnesses with clang: the engine sources (the program itself is built
# with gcc) compiled again with -fsanitize=fuzzer-no-link,address,undefined into a small
# library, and one fuzzer per tests/fuzz/fuzz_*.c linked against it.
#
# Usage: tests/fuzz/build.sh   (after ./configure; FUZZ_BUILD=DIR puts the output elsewhere)
set -euo pipefail

src=${FDEWIZ_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${FDEWIZ_BUILDDIR:-$src}
out=${FUZZ_BUILD:-$build/tests/fuzz/bin}
CLANG=${CLANG:-clang}

command -v "$CLANG" >/dev/null || {
	echo "$0: $CLANG not found: install clang and libclang-rt-14-dev" \
		"(tests/install-deps.sh test)" >&2
	exit 1
}
[ -f "$build/config.h" ] || { echo "$0: no config.h in $build: run ./configure first" >&2; exit 1; }

pkgs="blkid libparted libcryptsetup json-c liburing libcrypto"
# shellcheck disable=SC2207 # pkg-config output is a list of words
cflags=(-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
	-fno-sanitize-recover=undefined -I"$build" -I"$src/src" -I"$src/src/core"
	-DLOCALEDIR="\"/usr/share/locale\"" $(pkg-config --cflags $pkgs))
# shellcheck disable=SC2207
libs=($(pkg-config --libs $pkgs))

mkdir -p "$out/obj"
# Rebuild an object when its source or any engine header is newer.
newest_h=$(stat -c %Y "$src"/src/core/*/*.h "$build/config.h" | sort -n | tail -1)
stale=()
for c in "$src"/src/core/*/*.c; do
	o=$out/obj/$(basename "${c%.c}").o
	if [ ! -f "$o" ] || [ "$(stat -c %Y "$o")" -lt "$(stat -c %Y "$c")" ] ||
		[ "$(stat -c %Y "$o")" -lt "$newest_h" ]; then
		stale+=("$c")
	fi
done
if [ "${#stale[@]}" -gt 0 ]; then
	echo "fuzz build: compiling ${#stale[@]} engine sources with $CLANG"
	export CLANG out
	export FUZZ_CFLAGS="${cflags[*]}"
	printf '%s\n' "${stale[@]}" | xargs -P "$(nproc)" -I{} sh -c \
		'$CLANG $FUZZ_CFLAGS -c "$1" -o "$out/obj/$(basename "${1%.c}").o"' sh {}
	rm -f "$out/libfdwcore-fuzz.a"
fi
[ -f "$out/libfdwcore-fuzz.a" ] || ar rcs "$out/libfdwcore-fuzz.a" "$out"/obj/*.o

for h in "$src"/tests/fuzz/fuzz_*.c; do
	name=$(basename "${h%.c}")
	bin=$out/$name
	if [ ! -x "$bin" ] || [ "$bin" -ot "$h" ] || [ "$bin" -ot "$out/libfdwcore-fuzz.a" ] ||
		[ "$bin" -ot "$src/tests/fuzz/fuzz_common.h" ]; then
		"$CLANG" "${cflags[@]/fuzzer-no-link/fuzzer}" "$h" "$out/libfdwcore-fuzz.a" \
			"${libs[@]}" -o "$bin"
	fi
done
echo "fuzz build: $(ls "$src"/tests/fuzz/fuzz_*.c | wc -l) harnesses in $out"
