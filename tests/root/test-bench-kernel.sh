#!/bin/bash
# fdewiz bench --kind kernel on a loop-mounted ext4: the real kernel source unpacked (only the
# part's files, counted), configured, init/ built, the tree removed; wall, user and sys from
# the make processes; clear errors for a missing tarball, a bad part and a block device.
. "$(dirname "$0")/../lib/start.sh"
require_cmds jq losetup mkfs.ext4 e2fsck mount umount unshare tar xz make gcc flex bison bc
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | tail -n 1)
if [ -z "$tarball" ]; then
	echo "FAIL: no /usr/src/linux-source-*.tar.xz: run tests/install-deps.sh test"
	exit 1
fi

img_test_init

img=$IMG_TMP/kernel.img
img_new "$img" 900
img_mkfs "$img" 0 ext4 kbench
mnt=$IMG_TMP/mnt
loop=$(img_loop "$img" 0)
img_mount "$loop" "$mnt"
dir=$mnt/bench
mkdir "$dir"
out=$IMG_TMP/out
mkdir "$out"
export FDEWIZ_STATE_DIR=$IMG_TMP/state

# What the engine is to unpack for the part init/ (bench_kernel.c): the files configuring and
# `make prepare` read, and init/. Counted here with tar on its own, in the background.
srcarch=x86
top_dir=$(basename "$tarball" .tar.xz)
members=()
for m in Makefile Kconfig Kbuild include scripts kernel tools/include '*Kconfig*' \
	'*Makefile' '*Kbuild' 'mm/*.h' 'fs/*.h' 'block/*.h' 'crypto/*.h' 'security/*.h' \
	'ipc/*.h' 'io_uring/*.h' 'net/*.h' "arch/$srcarch" "tools/arch/$srcarch" init; do
	members+=("$top_dir/$m")
done
(tar -tJf "$tarball" --wildcards "${members[@]}" | grep -vc '/$' >"$out/expected") &
counter=$!

echo "== errors before anything runs"
run_cmd "$out/badpart" "$FDEWIZ" bench --kind kernel --kernel-part ../etc "$dir"
assert_eq "a part outside the tree is a usage error" 2 "$RUN_RC"
assert_contains "it says what a part is" "$(cat "$out/badpart.err")" "--kernel-part takes all"
run_cmd "$out/dev" "$FDEWIZ" bench --kind kernel "$loop"
assert_eq "a block device is refused" 1 "$RUN_RC"
assert_contains "it says a directory is needed" "$(cat "$out/dev.err")" \
	"kernel benchmark needs a directory"
# No tarball: /usr/src hidden behind an empty tmpfs in a mount namespace of its own.
run_cmd "$out/nosrc" unshare -m sh -c 'mount -t tmpfs none /usr/src && exec "$@"' sh \
	"$FDEWIZ" bench --kind kernel --kernel-part init --repeats 1 "$dir"
assert_eq "a missing kernel source is an error" 1 "$RUN_RC"
assert_contains "it names the package to install" "$(cat "$out/nosrc.err")" \
	"comes in the package linux-source-6.1"
assert_contains "it says nothing was changed" "$(cat "$out/nosrc.err")" "nothing was changed"
assert_eq "nothing written in the target after the errors" 0 \
	"$(find "$dir" -mindepth 1 | wc -l)"

echo "== init/ built once from the real source"
# The table is printed, the JSON saved: both are checked from this one run.
run_cmd "$out/k" "$FDEWIZ" bench --kind kernel --kernel-part init --repeats 1 \
	--label plain --save "$out/k.json" "$dir"
assert_eq "kernel bench exit status" 0 "$RUN_RC"
[ "$RUN_RC" = 0 ] || sed 's/^/    | /' "$out/k.err" >&2
a=$out/k.json
assert_jq "four kernel steps, in order" "$a" \
	'[.tests[].id] == ["kernel.unpack", "kernel.prepare", "kernel.build", "kernel.clean"]'
for step in unpack prepare build; do
	t=".tests[] | select(.id == \"kernel.$step\")"
	assert_jq "kernel.$step: wall, user and sys > 0" "$a" \
		"[$t | .metrics[] | select(.key == (\"wall_s\", \"user_s\", \"sys_s\")) | .median > 0]
		 | length == 3 and all"
	assert_jq "kernel.$step headline is wall_s, measured" "$a" \
		"$t | .primary == \"wall_s\" and .status == \"measured\" and .kind == \"kernel\""
done
assert_jq "kernel.clean: wall > 0" "$a" \
	'.tests[] | select(.id == "kernel.clean") | .metrics[] | select(.key == "wall_s") | .median > 0'
wait "$counter"
expected=$(cat "$out/expected")
got=$(jq -r '.tests[] | select(.id == "kernel.unpack") | .metrics[] | select(.key == "files")
	| .median' "$a")
assert_eq "files unpacked = the tarball's count for init/ and what configuring needs" \
	"$expected" "$got"
assert_true "that is thousands of files ($expected)" test "$expected" -ge 5000
assert_jq "files per second = files / wall" "$a" \
	'.tests[] | select(.id == "kernel.unpack") | ([.metrics[] | {(.key): .median}] | add)
	 | (.files / .wall_s - .files_per_s | fabs) < 1'
assert_jq "the build names the part and -j as many CPUs" "$a" \
	".tests[] | select(.id == \"kernel.build\") | .title == \"kernel: make -j$(nproc) init/\""
assert_eq "the target holds nothing after the clean" 0 "$(find "$dir" -mindepth 1 | wc -l)"

echo "== the table and the comparison show the kernel rows"
run_cmd "$out/t" "$FDEWIZ" bench --compare "$a" "$a"
assert_eq "compare exit status" 0 "$RUN_RC"
assert_contains "compare has the build line" "$(cat "$out/t.out")" "kernel: make -j$(nproc) init/"
assert_contains "compare has the unpack line" "$(cat "$out/t.out")" "kernel: unpack"
run_cmd "$out/c" "$FDEWIZ" bench --compare --json "$a" "$a"
assert_jq "compare JSON pairs the four steps" "$out/c.out" \
	'[.tests[].id | select(startswith("kernel."))] | length == 4'
for h in WALL USER SYS FILES/S "kernel: allnoconfig, make prepare"; do
	assert_contains "the table shows $h" "$(cat "$out/k.out")" "$h"
done

echo "== rows without figures say so in words (cipher rows, the recommendation)"
run_cmd "$out/ci" "$FDEWIZ" bench --quick --kind cipher --repeats 1 --save "$out/ci.json" "$dir"
assert_eq "cipher bench exit status" 0 "$RUN_RC"
assert_jq "the recommendation is advice, not a measurement" "$out/ci.json" \
	'.tests[] | select(.id == "cipher.recommended") | .status == "advice, not a measurement"'
assert_jq "every cipher row is measured, or not measured here with a reason and no figures" \
	"$out/ci.json" '[.tests[] | select(.id != "cipher.recommended") | .status == "measured"
	 or (.status == "not measured here" and .metrics == [] and (.note | length > 0))] | all'
assert_eq "no table row shows a bare -" "" "$(grep -E '(^| )-( |$)' "$out/ci.out" || true)"
run_cmd "$out/cc" "$FDEWIZ" bench --compare "$out/ci.json" "$out/ci.json"
assert_contains "the comparison names the advice row in words" "$(cat "$out/cc.out")" \
	"not compared: advice, not a measurement."

echo "== the filesystem is intact"
img_umount "$mnt"
assert_true "e2fsck finds the filesystem clean" e2fsck -fn "$loop"

echo "kernel init/ build: $(jq -r '[.tests[] | "\(.id)=\(.metrics[0].median)s"] | join(" ")' "$a"),
	files $got"
assert_finish
