#!/bin/bash
# CI smoke run of every fuzz harness (clang, ASan + UBSan): the kept regression inputs, then
# FUZZ_SMOKE_SECONDS (default 20) of fuzzing each from the seed corpus. Fails on a crash.
set -euo pipefail

src=${FDEWIZ_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
# The tests run with FDEWIZ set to the built program: the build tree is two levels up.
if [ -n "${FDEWIZ:-}" ]; then
	FDEWIZ_BUILDDIR=${FDEWIZ_BUILDDIR:-$(cd "$(dirname "$FDEWIZ")/.." && pwd)}
	export FDEWIZ_BUILDDIR
fi
export FDEWIZ_SRCDIR=$src
FUZZ_SECONDS=${FUZZ_SMOKE_SECONDS:-20} exec bash "$src/tests/fuzz/run.sh"
