#!/bin/bash
# The wizard's undo: a partition encrypted by the command line is opened from the disks
# screen; its results screen offers "u: undo (decrypt)"; the decryption screen refuses a
# wrong typed word (nothing changed) and Esc leaves it. Killed half-way by the command line,
# the decryption is on the wizard's start screen: r goes on with it (the passphrase, no YES)
# while the screen shows its progress; afterwards the partition is plain ext4 again, fsck
# clean, every file as before. On the disks screen, d on a plain partition says there is
# nothing to decrypt.
# Cost: about 15 s, 11 s of CPU (a 160 MiB image).
. "$(dirname "$0")/../lib/start.sh" tmux
require_cmds tmux parted losetup mkfs.ext4 e2fsck sha256sum cryptsetup blkid

srv=fdewiz-test-decrypt-$$
img_test_init
tmux_own "$srv"
work=$IMG_TMP
img=$work/undo.img
state=$work/state
pass="undo horse battery staple"
printf '%s' "$pass" >"$work/key"
mib=1048576

mkdir -p "$work/tree"
for i in $(seq 1 200); do head -c $((i * 397 % 9001 + 1)) /dev/urandom >"$work/tree/f$i"; done
head -c $((6 * mib)) /dev/urandom >"$work/tree/big"
(cd "$work/tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$work/sums"
truncate -s 160M "$img"
parted -s "$img" mklabel gpt mkpart Data ext4 1MiB 120MiB mkpart Plain ext4 120MiB 159MiB 2>/dev/null
mkfs.ext4 -q -F -L Data -d "$work/tree" -E offset=$mib "$img" $((119 * 1024))k
mkfs.ext4 -q -F -L Plain -E offset=$((120 * mib)) "$img" $((39 * 1024))k
FDEWIZ_STATE_DIR=$state "$FDEWIZ" encrypt --foreground --key-file "$work/key" --yes --fast-pbkdf \
	--no-bench "$img:1" >"$work/enc.out" 2>&1 || { cat "$work/enc.out"; assert_stop "encrypt failed"; }

screen() { tmux_capture "$srv" -J; }
# The wizard on the image, in a fresh tmux session.
start() {
	tmux_stop "$srv"
	tmux_start "$srv" 120 32 env FDEWIZ_STATE_DIR="$state" ASAN_OPTIONS="${ASAN_OPTIONS:-}" \
		LSAN_OPTIONS="${LSAN_OPTIONS:-}" "$FDEWIZ" "$img"
}
start
tmux_wait_for "$srv" "Choose a partition" 20 || assert_stop "no disks screen"
assert_contains "disks: d is offered" "$(screen)" "d: decrypt"

# d on the plain partition: refused on the status line.
tmux_select "$srv" '2 Plain' || assert_stop "the plain partition cannot be selected"
tmux_send "$srv" d
tmux_wait_for "$srv" "nothing to decrypt" 10
assert_contains "d on a plain partition: nothing to decrypt, nothing changed" "$(screen)" \
	"Nothing was changed"

# The encrypted one: its results, then undo.
tmux_send "$srv" Home
tmux_select "$srv" '1 Data' || assert_stop "the encrypted partition cannot be selected"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "u: undo (decrypt)" 20 || assert_stop "no undo on the results screen"
tmux_send "$srv" u
tmux_wait_for "$srv" "Decrypt in place" 10 || assert_stop "no decryption screen"
assert_contains "decrypt: says what happens" "$(screen)" "readable without a passphrase"
tmux_send "$srv" -l "NO"
tmux_send "$srv" Tab
tmux_send "$srv" -l "$pass"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Not confirmed" 10
assert_eq "a wrong word: still LUKS2" crypto_LUKS \
	"$(blkid -p -o value -s TYPE --offset $mib "$img")"
tmux_send "$srv" Escape
tmux_wait_for "$srv" "Choose a partition" 10
tmux_send "$srv" q
tmux_wait_exit "$srv" 10

# Killed half-way by the command line: the wizard opens on it and r goes on with it on the
# decryption's screen (no YES asked again), which shows the progress to the end.
FDEWIZ_STATE_DIR=$state FDEWIZ_TEST_KILL_AT=progress=30 "$FDEWIZ" decrypt --key-file "$work/key" \
	--yes "$img:1" >"$work/dec.out" 2>&1 && rc=0 || rc=$?
assert_eq "the command line's decryption killed at 30 %" 137 "$rc"
start
tmux_wait_for "$srv" "$img:1" 20 || assert_stop "the wizard does not show the unfinished one"
tmux_send "$srv" r
tmux_wait_for "$srv" "is under way" 10 || assert_stop "r does not go on with the decryption"
assert_not_contains "going on: no YES asked again" "$(screen)" "to decrypt it:"
tmux_send "$srv" -l "$pass"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "is decrypted" 120 || assert_stop "the decryption did not end"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Choose a partition" 10
tmux_send "$srv" q
tmux_wait_exit "$srv" 10

loop=$(losetup -f --show -o $mib --sizelimit $((119 * mib)) "$img")
img_register loop "$loop"
assert_eq "after the undo: ext4 again" ext4 "$(blkid -p -o value -s TYPE "$loop")"
assert_true "after the undo: fsck finds nothing" e2fsck -fn "$loop"
mkdir -p "$work/mnt"
mount -o ro "$loop" "$work/mnt"
assert_true "after the undo: every file's sha256" bash -c "cd '$work/mnt' && sha256sum --quiet -c '$work/sums'"
umount "$work/mnt"
assert_finish
