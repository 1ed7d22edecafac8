#!/bin/bash
# fdewiz bench --kind build,cipher on a scratch ext4: every step measured, the tree generated
# the same each time and always removed, a clear error on a too-small filesystem, cipher labels.
. "$(dirname "$0")/../lib/start.sh"
require_cmds jq losetup mkfs.ext4 mount umount sha256sum cc cryptsetup unshare

img_test_init

# Only the test's own entries may remain in $1: no scratch tree, no objects.
assert_no_scratch()
{
	local left

	left=$(find "$1" -mindepth 1 -maxdepth 1 -name '.fdewiz-build-*' | wc -l)
	assert_eq "$2: scratch directories left in $1" 0 "$left"
}

tree_list()
{
	(cd "$1" && find . -type f -printf '%P %s\n' | LC_ALL=C sort)
}

tree_sums()
{
	(cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}

img=$IMG_TMP/bench.img
img_new "$img" 400
img_mkfs "$img" 0 ext4 bench
mnt=$IMG_TMP/mnt
img_mount "$(img_loop "$img" 0)" "$mnt"
dir=$mnt/bench
mkdir "$dir"
out=$IMG_TMP/out
mkdir "$out"

echo "== build and cipher, quick, two repetitions"
run_cmd "$out/a" "$FDEWIZ" bench --quick --kind build,cipher --repeats 2 --json \
	--save "$out/a.json" "$dir"
assert_eq "bench exit status" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || sed 's/^/    | /' "$out/a.err" >&2
assert_no_scratch "$dir" "after a full run"
assert_eq "files left in the bench directory" "" "$(ls -A "$dir")"
a=$out/a.json
for step in generate compile link clean; do
	t=".tests[] | select(.id == \"build.$step\")"
	assert_eq "build.$step present" 1 "$(jq "[$t] | length" "$a")"
	assert_jq "build.$step kind" "$a" "$t | .kind == \"build\""
	assert_jq "build.$step headline is wall_s" "$a" "$t | .primary == \"wall_s\""
	assert_jq "build.$step has 2 wall samples > 0" "$a" \
		"$t | .metrics[] | select(.key == \"wall_s\")
		 | (.samples | length == 2 and all(. > 0))"
	assert_jq "build.$step user+sys > 0 in every repetition" "$a" \
		"$t | [.metrics[] | select(.key == \"user_s\" or .key == \"sys_s\") | .samples]
		 | transpose | all(add > 0)"
	assert_jq "build.$step cpu_pct present" "$a" \
		"$t | [.metrics[] | select(.key == \"cpu_pct\")] | length == 1"
done
assert_jq "compile title names -j$(nproc)" "$a" \
	".tests[] | select(.id == \"build.compile\") | .title | contains(\"-j$(nproc)\")"
files=$(jq -r '.tests[] | select(.id == "build.generate") | .title' "$a" |
	sed -n 's/^generate \([0-9]*\) files.*/\1/p')
assert_true "generated file count ($files) is in the thousands" \
	test "${files:-0}" -ge 2000 -a "${files:-0}" -le 5000

echo "== cipher results and their labels"
if cryptsetup benchmark -c aes-xts-plain64 -s 512 >/dev/null 2>&1; then
	kernel=yes
else
	kernel=no
fi
for c in aes-xts-256 aes-xts-512; do
	t=".tests[] | select(.id == \"cipher.$c\")"
	assert_jq "cipher.$c encryption and decryption MiB/s > 0" "$a" \
		"$t | [.metrics[] | select(.key == \"enc_mibps\" or .key == \"dec_mibps\")
		 | .median > 0] | length == 2 and all"
	if [ $kernel = no ]; then
		assert_jq "cipher.$c labelled userspace" "$a" \
			"$t | (.title | contains(\"userspace\")) and
			 (.note | startswith(\"userspace OpenSSL, not the kernel's dm-crypt\"))"
	else
		assert_jq "cipher.$c labelled kernel" "$a" \
			"$t | .note | startswith(\"kernel crypto API\")"
	fi
done
for c in serpent-xts-512 adiantum; do
	t=".tests[] | select(.id == \"cipher.$c\")"
	if [ $kernel = no ]; then
		assert_jq "cipher.$c reported as not measurable, without figures" "$a" \
			"$t | (.note | startswith(\"not measurable here\")) and (.metrics == [])"
	else
		assert_jq "cipher.$c measured or explained" "$a" \
			"$t | (.metrics | length == 2) or (.note | startswith(\"not measurable\"))"
	fi
done
t='.tests[] | select(.id == "cipher.pbkdf-argon2id")'
assert_jq "argon2id: ms, iterations, memory, threads > 0" "$a" \
	"$t | [.metrics[] | .median > 0] | length == 4 and all"
assert_jq "argon2id: at least 4 iterations (the LUKS2 minimum)" "$a" \
	"$t | .metrics[] | select(.key == \"iterations\") | .median >= 4"
assert_jq "argon2id: threads no more than CPUs" "$a" \
	"$t | .metrics[] | select(.key == \"threads\") | .median <= $(nproc)"
if awk -F: '/^(flags|Features)/ { print $2; exit }' /proc/cpuinfo | grep -qw aes; then
	want="recommended: aes xts-plain64, 512-bit key"
else
	want="recommended: xchacha12,aes adiantum-plain64, 256-bit key"
fi
assert_eq "recommendation" "$want" \
	"$(jq -r '.tests[] | select(.id == "cipher.recommended") | .title' "$a")"
assert_jq "recommendation says why" "$a" \
	'.tests[] | select(.id == "cipher.recommended") | .note | test("instructions|Measured")'
assert_jq "printed JSON and saved file agree on the tests" "$out/a.out" \
	"[.tests[].id] == $(jq -c '[.tests[].id]' "$a")"

echo "== the tree is the same every time"
for k in b c; do
	run_cmd "$out/$k" env FDEWIZ_BENCH_KEEP_TREE="$mnt/tree-$k" "$FDEWIZ" bench --quick \
		--kind build --repeats 1 --json --save "$out/$k.json" "$dir"
	assert_eq "kept-tree run $k exit status" 0 "$RUN_RC"
	assert_no_scratch "$dir" "kept-tree run $k"
	assert_true "tree $k kept" test -d "$mnt/tree-$k"
done
# Comparing two build runs: the table says how to read build rows; the JSON stays JSON.
run_cmd "$out/cmp" "$FDEWIZ" bench --compare "$out/b.json" "$out/c.json"
assert_eq "compare exit status" 0 "$RUN_RC"
assert_contains "compare: build rows are an upper bound" "$(cat "$out/cmp.out")" \
	"read their slowdown as an upper bound for a real build"
run_cmd "$out/cmpj" "$FDEWIZ" bench --compare --json "$out/b.json" "$out/c.json"
assert_eq "compare --json exit status" 0 "$RUN_RC"
assert_jq "compare --json is JSON alone, with the build rows" "$out/cmpj.out" \
	'[.tests[].id | select(startswith("build."))] | length == 4'
tree_list "$mnt/tree-b" >"$out/list-b"
tree_list "$mnt/tree-c" >"$out/list-c"
tree_sums "$mnt/tree-b" >"$out/sums-b"
tree_sums "$mnt/tree-c" >"$out/sums-c"
assert_eq "file count of the kept tree (as the title says)" "$files" "$(wc -l <"$out/list-b")"
assert_true "same names and sizes twice" cmp -s "$out/list-b" "$out/list-c"
assert_true "same contents twice (sha256)" cmp -s "$out/sums-b" "$out/sums-c"
assert_eq "no objects left after clean" 0 \
	"$(find "$mnt/tree-b" -name '*.o' | wc -l)"
assert_eq "headers in include/gen" 400 "$(find "$mnt/tree-b/include/gen" -name '*.h' | wc -l)"
dirs=$(find "$mnt/tree-b" -mindepth 1 -type d | wc -l)
assert_true "a deep tree: $dirs directories" test "$dirs" -ge 100
big=$(awk '$2 >= 65536' "$out/list-b" | wc -l)
small=$(awk '$2 < 4096' "$out/list-b" | wc -l)
assert_true "sizes spread like a kernel tree: $small files < 4 KiB, $big >= 64 KiB" \
	test "$small" -ge 100 -a "$big" -ge 20
bytes=$(awk '{ s += $2 } END { print s }' "$out/list-b")
assert_true "tree of 30-50 MB ($bytes bytes)" test "$bytes" -ge 30000000 -a "$bytes" -le 52428800
# The generated C is valid C: a sample, the largest and the smallest compile cleanly.
sample=$( (awk '$1 ~ /\.c$/' "$out/list-b" | sort -k2,2n | sed -n '1p;$p'
	   awk '$1 ~ /\.c$/ { print }' "$out/list-b" | awk 'NR % 150 == 1') | cut -d' ' -f1)
bad=0
for f in $sample; do
	cc -fsyntax-only -Wall -Werror -I"$mnt/tree-b/include" "$mnt/tree-b/$f" \
		2>>"$out/cc.err" || bad=$((bad + 1))
done
assert_eq "generated sources that cc rejects (of $(echo "$sample" | wc -w))" 0 "$bad"
[ "$bad" -eq 0 ] || head -20 "$out/cc.err" >&2
rm -rf "$mnt/tree-b" "$mnt/tree-c"

echo "== --real-cc: cc compiles the generated C (12 sources: all of them would take minutes)"
run_cmd "$out/r" env FDEWIZ_BENCH_BUILD_SOURCES=12 "$FDEWIZ" bench --quick --kind build \
	--real-cc --repeats 1 --json --save "$out/r.json" "$dir"
assert_eq "real cc exit status" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || sed 's/^/    | /' "$out/r.err" >&2
t='.tests[] | select(.id == "build.compile")'
assert_jq "real cc: compile title" "$out/r.json" "$t | .title | startswith(\"compile with cc -c\")"
assert_jq "real cc: compiler CPU time counted (user+sys > 0)" "$out/r.json" \
	"$t | [.metrics[] | select(.key == \"user_s\" or .key == \"sys_s\") | .median] | add > 0"
assert_jq "real cc: all four steps" "$out/r.json" \
	'[.tests[] | select(.kind == "build")] | length == 4'
assert_jq "real cc: 412 files generated" "$out/r.json" \
	'.tests[] | select(.id == "build.generate") | .title | startswith("generate 412 files")'
assert_no_scratch "$dir" "after --real-cc"

# fdewiz runs the system's cc (from /usr/sbin, /usr/bin, /sbin or /bin, with none of the
# caller's environment), so a PATH of the caller's neither replaces nor hides it; here the
# system's own cc is replaced, or made unrunnable, by a bind mount in a mount namespace of
# fdewiz's run alone (with_cc_replaced FILE CMD...).
with_cc_replaced()
{
	local file=$1
	shift
	unshare -m sh -c 'mount --bind "$1" "$(command -v cc)" && shift && exec "$@"' sh \
		"$file" "$@"
}
# The caller's PATH names a cc that fails: not the one fdewiz runs.
mkdir "$IMG_TMP/badcc"
printf '#!/bin/sh\necho "bench-test: simulated compiler error" >&2\nexit 1\n' \
	>"$IMG_TMP/badcc/cc"
chmod +x "$IMG_TMP/badcc/cc"
run_cmd "$out/p" env PATH="$IMG_TMP/badcc:$PATH" FDEWIZ_BENCH_BUILD_SOURCES=12 "$FDEWIZ" bench \
	--quick --kind build --real-cc --repeats 1 --save "$out/p.json" "$dir"
assert_eq "a cc first in the caller's PATH is not run: exit" 0 "$RUN_RC"
assert_true "a cc first in the caller's PATH is not run: no complaint of it" \
	test -z "$(grep 'simulated compiler error' "$out/p.err")"
# A compiler that fails: a clear message with its complaint, and nothing left behind.
run_cmd "$out/x" with_cc_replaced "$IMG_TMP/badcc/cc" "$FDEWIZ" bench --quick --kind build \
	--real-cc --repeats 1 --save "$out/x.json" "$dir"
assert_true "failing cc: nonzero exit" test "$RUN_RC" -ne 0
assert_contains "failing cc: message" "$(cat "$out/x.err")" "The C compiler failed"
assert_contains "failing cc: its complaint is logged" "$(cat "$out/x.err")" \
	"bench-test: simulated compiler error"
assert_eq "failing cc: nothing left" "" "$(ls -A "$dir")"

echo "== stopped halfway: the scratch tree is removed"
"$FDEWIZ" bench --quick --kind build --repeats 3 --json --save "$out/d.json" "$dir" \
	>"$out/d.out" 2>"$out/d.err" &
pid=$!
for _ in $(seq 300); do
	[ -z "$(find "$dir" -name '*.c' -print -quit 2>/dev/null)" ] ||
		break
	sleep 0.1
done
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
assert_true "stopped run fails (status $rc)" test "$rc" -ne 0
assert_contains "stopped run message" "$(cat "$out/d.err")" "stopped"
assert_no_scratch "$dir" "after SIGINT"
assert_eq "files left after SIGINT" "" "$(ls -A "$dir")"

echo "== too small a filesystem: a clear error, nothing written"
# 170 MiB: room for the I/O benchmark's target check (128 MiB free), not for the build
# tree, its objects and the link output (about 143 MiB at the quick scale).
small_img=$IMG_TMP/small.img
img_new "$small_img" 170
img_mkfs "$small_img" 0 ext4 small
smnt=$IMG_TMP/small
img_mount "$(img_loop "$small_img" 0)" "$smnt"
before=$(df --output=used -B1 "$smnt" | tail -1)
run_cmd "$out/e" "$FDEWIZ" bench --quick --kind build --save "$out/e.json" "$smnt"
assert_true "too small: nonzero exit ($RUN_RC)" test "$RUN_RC" -ne 0
err=$(cat "$out/e.err")
assert_contains "too small: message" "$err" "The build benchmark needs"
assert_contains "too small: says how much is free" "$err" "is free; nothing was written"
assert_eq "too small: filesystem contents" "lost+found" "$(ls -A "$smnt")"
assert_eq "too small: used bytes unchanged" "$before" "$(df --output=used -B1 "$smnt" | tail -1)"
assert_true "too small: no result saved" test ! -e "$out/e.json"

echo "== a block device is not a directory; --real-cc without cc"
# A device without a filesystem, so that the I/O check lets it through with --allow-write.
blank=$IMG_TMP/blank.img
img_new "$blank" 64
dev=$(img_loop "$blank" 0)
# --allow-write gets past the device check of the I/O benchmark; build must still refuse.
run_cmd "$out/f" "$FDEWIZ" bench --quick --kind build --allow-write --save "$out/f.json" \
	"$dev"
assert_true "block device: nonzero exit" test "$RUN_RC" -ne 0
assert_contains "block device: message" "$(cat "$out/f.err")" "needs a directory"
printf 'not a program\n' >"$IMG_TMP/nocc"
chmod 0644 "$IMG_TMP/nocc"
run_cmd "$out/g" with_cc_replaced "$IMG_TMP/nocc" "$FDEWIZ" bench --quick --kind build \
	--real-cc --save "$out/g.json" "$dir"
assert_true "no cc: nonzero exit" test "$RUN_RC" -ne 0
assert_contains "no cc: message" "$(cat "$out/g.err")" "No C compiler (cc) was found"
assert_eq "no cc: nothing written" "" "$(ls -A "$dir")"

echo "quick build wall s (generate compile link clean):" \
	"$(jq -r '[.tests[] | select(.kind == "build") | .metrics[0].median * 100 | round / 100]
		| join(" ")' "$a")"
echo "cipher enc MiB/s:" "$(jq -r '[.tests[] | select(.id | startswith("cipher.aes"))
	| "\(.id)=\(.metrics[0].median | round)"] | join(" ")' "$a")"
echo "argon2id ms:" "$(jq -r '.tests[] | select(.id == "cipher.pbkdf-argon2id")
	| .metrics[0].median' "$a")"
assert_finish
