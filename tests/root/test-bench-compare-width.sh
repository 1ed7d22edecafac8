#!/bin/bash
# `fdewiz bench --compare` in Russian and Japanese: the columns after the (translated,
# Cyrillic or double-width) test titles line up by display width, as `list` does.
. "$(dirname "$0")/../lib/start.sh" locale
require_cmds jq msgfmt python3 unshare
for loc in ru_RU ja_JP; do
	locale -a 2>/dev/null | grep -qix "$loc.utf-\{0,1\}8" ||
		{ echo "FAIL: the $loc.UTF-8 locale is not generated (tests/install-deps.sh test)"; exit 1; }
done
img_test_init

run=$(locale_runner) || { echo "FAIL: cannot run fdewiz with the test catalogues"; exit 1; }
plain=$IMG_TMP/plain.json
enc=$IMG_TMP/enc.json
# A saved benchmark (one run per test) and the same one, slower, as if encrypted.
cp "$FDEWIZ_SRCDIR/tests/fuzz/corpus/fuzz_bench_result/bench-io.json" "$plain"
jq '.label = "after" | .cipher = "aes-xts-plain64"
    | .tests[].metrics[] |= (.median *= 0.8 | .samples = [.median] | .min = .median
                              | .max = .median)' "$plain" >"$enc"

# aligned WHAT FILE: the header and the 8 test lines of the table, every one as wide as the
# others: each title padded to one display width, each column after it in its place.
aligned()
{
	local widths

	widths=$(table_widths "$2")
	ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
	if [ "$(wc -l <<<"$widths")" -eq 9 ] && [ "$(sort -u <<<"$widths" | wc -l)" -eq 1 ]; then
		assert_pass "$1: 9 lines, each $(head -1 <<<"$widths") columns wide"
	else
		assert_fail "$1: line widths $(tr '\n' ' ' <<<"$widths")"
		sed 's/^/    | /' "$2" >&2
	fi
}

for l in ru_RU ja_JP; do
	out=$IMG_TMP/$l.compare
	"$run" env -u LANGUAGE -u LC_ALL LANG=$l.UTF-8 "$FDEWIZ" bench --compare "$plain" "$enc" \
		>"$out" 2>&1 || { cat "$out"; echo "FAIL: bench --compare ($l)"; exit 1; }
	sed -n '4,6p' "$out" | sed "s/^/    $l: /"
	assert_not_contains "$l compare: translated" "$(sed -n 4p "$out")" "TEST"
	aligned "$l compare" "$out"
done
out=$IMG_TMP/C.compare
LANG=C.UTF-8 "$FDEWIZ" bench --compare "$plain" "$enc" >"$out" 2>&1
aligned "English compare" "$out"

assert_finish
