#!/bin/bash
# SIGKILL during the baseline benchmark and during the shrink leaves nothing behind: the
# benchmark mounts in a private mount namespace of its own child and fdewiz's loop devices
# detach with their last user, so after each kill no loop device covers the image and no
# mount of it is left (a mount would keep its loop device), and the data is intact. A stale
# benchmark mount an older fdewiz left in this namespace (made here by hand, through a loop
# device without autoclear) is cleared by the next encrypt, whose message says so when it
# then refuses. Finally encrypt converts: cryptsetup decrypts it, fsck is clean, every file
# equal. Ten points in all: four of the baseline, five while e2fsck or resize2fs runs, and
# one between the shrink and the header.
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds cryptsetup parted mkfs.ext4 e2fsck dumpe2fs sha256sum losetup timeout pgrep

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
img=$IMG_TMP/disk.img
key=$IMG_TMP/key
printf 'bench kill test key' >"$key"
img_ext4_fixture "$img" 300 12
cp --sparse=always "$img" "$IMG_TMP/pristine.img"

start_encrypt()
{
	"$FDEWIZ" encrypt --foreground --yes --fast-pbkdf "$@" --key-file "$key" \
		--work-dir "$IMG_TMP" --header-backup "$IMG_TMP/h" "$img:1" \
		>"$IMG_TMP/run.out" 2>&1 &
	pid=$!
}

# The child of $pid whose own mount namespace has this run's benchmark mount.
bench_child()
{
	local c

	for c in $(pgrep -P "$pid"); do
		grep -q " /run/fdewiz/bench-" "/proc/$c/mounts" 2>/dev/null && echo "$c"
	done
	return 0
}

# Benchmark mounts in this namespace over a loop device of this test's images (other runs
# on this machine may have their own).
our_bench_mounts()
{
	local mm

	awk '$5 ~ "^/run/fdewiz/bench-" { print $3 }' /proc/self/mountinfo | while read -r mm; do
		grep -qF "$IMG_TMP/" "/sys/dev/block/$mm/loop/backing_file" 2>/dev/null &&
			echo "$mm"
	done
	return 0
}

# Nothing of a killed run may stay: no loop device over the image (its mounts, in any
# namespace, would keep one), no benchmark mount here, no header, the files intact.
check_left_nothing()
{
	local what=$1

	for _ in $(seq 1 300); do
		[ -z "$(losetup -j "$img" -n -O NAME)" ] && break
		sleep 0.1
	done
	assert_eq "$what: no loop device left over the image" "" "$(losetup -j "$img" -n -O NAME)"
	assert_eq "$what: no benchmark mount of this image left here" "" "$(our_bench_mounts)"
	assert_true "$what: no header backup" test ! -e "$IMG_TMP/h"
	local loop
	loop=$(img_loop "$img" 1)
	assert_eq "$what: still plain ext4" ext4 "$(blkid -o value -s TYPE "$loop")"
	assert_true "$what: fsck clean" run_quiet e2fsck -fn "$loop"
	img_unloop "$loop"
	assert_true "$what: every file equal" img_verify "$img" 1
}

# 1. Kill at four points of the baseline: the parent (its child follows it) or the
# benchmarking child itself, at different moments after the mount is up.
for point in 0 1 2 3; do
	# The benchmark's scratch files of a killed run stay in the filesystem: start afresh.
	cp --sparse=always "$IMG_TMP/pristine.img" "$img"
	start_encrypt --bench-scale tiny
	child=""
	# Until the mount is up or the run ended (a loaded machine can take long to get there).
	for _ in $(seq 1 2400); do
		child=$(bench_child)
		[ -n "$child" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	assert_true "baseline point $point: the benchmark mounted in its own namespace" \
		test -n "$child"
	[ -n "$child" ] || cat "$IMG_TMP/run.out"
	assert_eq "baseline point $point: its mount is not in ours" "" "$(our_bench_mounts)"
	sleep "0.$((point * 2))"
	if [ $((point % 2)) = 0 ]; then
		kill -KILL "$pid"
	else
		kill -KILL "$child" 2>/dev/null || true
		sleep 0.1
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
	check_left_nothing "baseline point $point"
done

# 2. Kill at five points of the shrink: while e2fsck or resize2fs starts, runs or has just
# finished. The helpers are the real ones behind a wrapper that waits before or after them,
# so each point is hit every time. A helper is never cut mid-way: it finishes on its own,
# then the loop device goes with it. fdewiz runs helpers only from the system's own
# directories, with an environment of its own: the wrappers (their waits written into them)
# are bind-mounted over the real ones in a mount namespace of this run's alone, and call
# copies of the real programs.
mkdir -p "$IMG_TMP/bin" "$IMG_TMP/real"
for tool in e2fsck resize2fs; do
	cp "$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$tool")" "$IMG_TMP/real/$tool"
done
# start_wrapped TOOL PRE POST: encrypt with TOOL behind a wrapper waiting PRE s before it
# and POST s after it (the other helper behind one that waits for nothing).
start_wrapped()
{
	local t pre post
	for t in e2fsck resize2fs; do
		pre=0 post=0
		[ "$t" = "$1" ] && pre=$2 post=$3
		printf '#!/bin/sh\nsleep %s\n"%s" "$@"\nrc=$?\nsleep %s\nexit $rc\n' \
			"$pre" "$IMG_TMP/real/$t" "$post" >"$IMG_TMP/bin/$t"
		chmod +x "$IMG_TMP/bin/$t"
	done
	unshare -m --propagation private sh -c '
		for t in e2fsck resize2fs; do
			mount --bind "$0/bin/$t" "$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$t")" ||
				exit 99
		done
		exec "$@"' "$IMG_TMP" "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench \
		--key-file "$key" --work-dir "$IMG_TMP" --header-backup "$IMG_TMP/h" "$img:1" \
		>"$IMG_TMP/run.out" 2>&1 &
	pid=$!
}
points=("e2fsck 1 0" "e2fsck 0 1" "resize2fs 1 0" "resize2fs 0 1" "resize2fs 0.4 0.4")
for point in 0 1 2 3 4; do
	read -r tool pre post <<<"${points[point]}"
	# From the unshrunk filesystem each time, so e2fsck and resize2fs have work to do.
	cp --sparse=always "$IMG_TMP/pristine.img" "$img"
	start_wrapped "$tool" "$pre" "$post"
	helper=""
	for _ in $(seq 1 6000); do
		helper=$(pgrep -P "$pid" -x "$tool" || true)
		[ -n "$helper" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.02
	done
	assert_true "shrink point $point: $tool ran" test -n "$helper"
	[ "$point" != 4 ] || sleep 0.5
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	check_left_nothing "shrink point $point ($tool, +$pre s, then +$post s)"
done

# 2b. The tenth point: between the shrink and the header. resize2fs has finished and
# fdewiz dies (FDEWIZ_TEST_KILL_AT=room-made) before a byte of LUKS2 is written. The
# filesystem stays shrunk (smaller than before, plain, intact); the next encrypt (section
# 4, after section 3 refuses) starts from there and completes.
cp --sparse=always "$IMG_TMP/pristine.img" "$img"
blocks_of() { dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block count: *//p'; }
loop=$(img_loop "$img" 1)
before_blocks=$(blocks_of "$loop")
img_unloop "$loop"
FDEWIZ_TEST_KILL_AT=room-made "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench \
	--key-file "$key" --work-dir "$IMG_TMP" --header-backup "$IMG_TMP/h" "$img:1" \
	>"$IMG_TMP/run.out" 2>&1 &
pid=$!
rc=0
wait "$pid" || rc=$?
assert_eq "shrink point 5 (resize2fs done, header not written): killed by SIGKILL" 137 "$rc"
[ "$rc" = 137 ] || cat "$IMG_TMP/run.out"
check_left_nothing "shrink point 5 (resize2fs done, header not written)"
loop=$(img_loop "$img" 1)
after_blocks=$(blocks_of "$loop")
img_unloop "$loop"
assert_true "shrink point 5: the filesystem was shrunk ($before_blocks -> $after_blocks blocks)" \
	test "${after_blocks:-0}" -gt 0 -a "${after_blocks:-0}" -lt "${before_blocks:-0}"
assert_eq "shrink point 5: no mount of the image left anywhere here" "" \
	"$(grep -F "$IMG_TMP/" /proc/mounts || true)"

# 3. A stale benchmark mount of an older fdewiz, in this namespace, over a loop device
# without autoclear; plus a loop device of the user's: encrypt clears the stale mount but
# refuses, and says exactly what it changed.
off=$(img_part_offset "$img" 1)
size=$(img_part_size "$img" 1)
stale=/run/fdewiz/bench-test-$$
mkdir -p "$stale"
old_loop=$(losetup --find --show --offset "$off" --sizelimit "$size" "$img")
mount "$old_loop" "$stale"
user_loop=$(img_loop "$img" 1)
run_cmd "$IMG_TMP/run2" "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench \
	--key-file "$key" --work-dir "$IMG_TMP" --header-backup "$IMG_TMP/h" "$img:1"
assert_eq "stale mount and a user's loop device: refused" 1 "$RUN_RC"
assert_contains "the message names the user's loop device" "$(cat "$IMG_TMP/run2.err")" \
	"${user_loop#/dev/}"
assert_contains "the message tells the stale mount was cleared" \
	"$(cat "$IMG_TMP/run2.err")" "$stale"
assert_not_contains "the message does not claim nothing changed" \
	"$(cat "$IMG_TMP/run2.err")" "Nothing was changed"
assert_true "the stale mount is gone" bash -c "! grep -q ' $stale ' /proc/self/mounts"
assert_true "its directory is gone" test ! -e "$stale"
for _ in $(seq 1 100); do
	losetup "$old_loop" 2>/dev/null | grep -q "$img" || break
	sleep 0.05
done
assert_true "the stale loop device went with its mount" \
	bash -c "! losetup '$old_loop' 2>/dev/null | grep -q '$img'"
img_unloop "$user_loop"

# 4. Now encrypt converts; the data is all there.
run_cmd "$IMG_TMP/run3" "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench \
	--key-file "$key" --work-dir "$IMG_TMP" --header-backup "$IMG_TMP/h" "$img:1"
assert_eq "encrypt after the kills: exit" 0 "$RUN_RC"
[ "$RUN_RC" = 0 ] || cat "$IMG_TMP/run3.out" "$IMG_TMP/run3.err"
assert_eq "no loop device left after the run" "" "$(losetup -j "$img" -n -O NAME)"
verify_decrypt --as "after the kills" "$img" 1
assert_finish
