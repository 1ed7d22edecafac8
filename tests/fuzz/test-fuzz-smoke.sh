#!/bin/bash
# CI smoke run of every fuzz harness (clang, ASan + UBSan): the kept regression inputs and
# every seed, then FUZZ_SMOKE_SECONDS (default 1) of fuzzing each from the seed corpus.
# Fails on a crash. A smoke test: the harnesses build, run and still pass what was once
# found; fuzzing for long is `make fuzz`'s job (FUZZ_SECONDS, 60 s each by default).
set -euo pipefail

src=${FDEWIZ_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
# The tests run with FDEWIZ set to the built program: the build tree is two levels up.
if [ -n "${FDEWIZ:-}" ]; then
	FDEWIZ_BUILDDIR=${FDEWIZ_BUILDDIR:-$(cd "$(dirname "$FDEWIZ")/.." && pwd)}
	export FDEWIZ_BUILDDIR
fi
export FDEWIZ_SRCDIR=$src
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
FUZZ_SECONDS=${FUZZ_SMOKE_SECONDS:-1} bash "$src/tests/fuzz/run.sh" | tee "$out" || rc=$?
# One check per harness (its row ends "ok" or says CRASH), and the suite's closing line.
passed=$(grep -cE '^fuzz_[a-z0-9_]+ .* ok$' "$out" || true)
failed=$(grep -cE '^fuzz_[a-z0-9_]+ .*CRASH' "$out" || true)
[ "$rc" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1	# run.sh failed before any harness ran
echo "test-fuzz-smoke: $passed passed, $failed failed"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
