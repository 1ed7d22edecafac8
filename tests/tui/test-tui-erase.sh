#!/bin/bash
# The wizard's reinstall path: from the disks screen, "Erase and encrypt (for a reinstall)" on
# the middle partition of a three-partition image. Quitting at the typed confirmation, and a
# wrong typed word, leave the image byte for byte unchanged; the right word makes a LUKS2
# volume that the cryptsetup program opens with the passphrase, the filesystem chosen inside
# (where this kernel has device-mapper to make one), and the other partitions untouched.
. "$(dirname "$0")/../lib/start.sh" tmux
require_cmds tmux parted losetup mkfs.ext4 e2fsck sha256sum cryptsetup blkid

srv=fdewiz-test-erase-$$
img_test_init
tmux_own "$srv"

img=$IMG_TMP/erase.img
state=$IMG_TMP/state
pass="reinstall horse battery staple"
key=$IMG_TMP/key
printf '%s' "$pass" >"$key"
img_new "$img" 300
img_gpt "$img"
img_part "$img" Boot 1 65
img_part "$img" Data 65 200
img_part "$img" Keep 200 299
img_mkfs "$img" 1 ext4 Boot
img_mkfs "$img" 2 ext4 Data
img_mkfs "$img" 3 ext4 Keep
img_fill "$img" 1 4
img_fill "$img" 2 8
img_fill "$img" 3 4
part_sum()
{
	dd if="$img" iflag=skip_bytes,count_bytes skip="$(img_part_offset "$img" "$1")" \
		count="$(img_part_size "$img" "$1")" bs=1M status=none | sha256sum
}
on_loop() { img_on_loop "$img" "$@"; }
have_dm() { grep -q ' device-mapper$' /proc/misc 2>/dev/null && [ -e /dev/mapper/control ]; }
whole=$(sha256sum <"$img")
sum1=$(part_sum 1)
sum2=$(part_sum 2)
sum3=$(part_sum 3)
if have_dm; then
	fs=ext4
	label=Reinstall
else
	# The engine makes a filesystem inside only through device-mapper; here it offers none.
	fs=none
	label=
fi

start()
{
	tmux_stop "$srv"
	tmux_start "$srv" 120 32 env FDEWIZ_STATE_DIR="$state" FDEWIZ_TEST_FAST_PBKDF=1 \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}" LSAN_OPTIONS="${LSAN_OPTIONS:-}" "$FDEWIZ" "$img"
	tmux_wait_for "$srv" "Choose a partition" 20
}

screen() { tmux_capture "$srv" -J; }

# From the disks screen to the erase screen of partition 2.
to_erase()
{
	local s

	s=$(screen)
	assert_contains "disks: the choice is labelled" "$s" "e: erase and encrypt (for a reinstall)"
	tmux_send "$srv" Home Down Down
	tmux_wait_for "$srv" ">├─ 2 Data" 10
	tmux_send "$srv" e
	tmux_wait_for "$srv" "Erase and encrypt (for a reinstall)" 10
}

# The filesystem, the label, the passphrase (a weak one first), up to the typed word.
to_confirm()
{
	local s

	to_erase
	s=$(screen)
	assert_contains "erase: names the partition, what is on it, its size" "$s" \
		"This destroys all data on $img:2 (ext4 'Data', 135 MiB)."
	# Select $fs: from the top of the list, down to it.
	tmux_send "$srv" Home
	for _ in 1 2 3 4 5; do
		screen | grep -qE "^ *\(\*\) $fs\$" && break
		tmux_send "$srv" Down
		sleep 0.2
	done
	tmux_wait_for "$srv" "(*) $fs" 5
	if [ -n "$label" ]; then
		tmux_send "$srv" Tab
		tmux_send "$srv" -l "$label"
	fi
	tmux_send "$srv" Enter
	tmux_wait_for "$srv" "Choose the passphrase" 10
	assert_not_contains "passphrase: no recovery key box when erasing" "$(screen)" \
		"recovery key"
	tmux_send "$srv" -l "abc"
	tmux_send "$srv" Tab
	tmux_send "$srv" -l "abc"
	tmux_send "$srv" Enter
	tmux_wait_for "$srv" "Weak passphrase" 10
	tmux_send "$srv" Escape
	tmux_wait_for "$srv" "Type a stronger passphrase" 10
	tmux_send "$srv" -l "$pass"
	tmux_send "$srv" Tab
	tmux_send "$srv" -l "$pass"
	tmux_send "$srv" Enter
	tmux_wait_for "$srv" "Type ERASE" 10
}

# finish WHAT STATUS: the wizard exited with STATUS and the terminal is back.
finish()
{
	tmux_wait_exit "$srv" 30 || true
	assert_eq "$1: exit status" "$2" "$(tmux_exit_status "$srv")"
}

# 1. Refusals on the erase screen change nothing: a filesystem or an "afterwards" the engine
# will not do here says why, Enter refuses, and q leaves.
start
to_erase
tmux_send "$srv" Tab Tab Down Down
tmux_wait_for "$srv" "Not for a partition of an image file" 10
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Nothing was changed" 10
assert_contains "refused: the partition is still named with what is on it" "$(screen)" \
	"This destroys all data on $img:2 (ext4 'Data', 135 MiB)."
tmux_send "$srv" Up Up Tab
if ! have_dm; then
	tmux_send "$srv" Up
	tmux_wait_for "$srv" "no device-mapper" 10
	tmux_send "$srv" Enter
	tmux_wait_for "$srv" "Nothing was changed" 10
	assert_contains "ext4 without device-mapper: what to do" "$(screen)" "none"
fi
tmux_send "$srv" Escape
tmux_wait_for "$srv" "Choose a partition" 10
# From the plan screen too: the plan's lock is let go for the erase's own.
tmux_send "$srv" Home Down Down
tmux_wait_for "$srv" ">├─ 2 Data" 10
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Plan for" 30
assert_contains "plan: the choice is offered" "$(screen)" "e: erase instead"
tmux_send "$srv" e
tmux_wait_for "$srv" "Erase and encrypt (for a reinstall)" 10
assert_contains "from the plan: the same partition" "$(screen)" \
	"This destroys all data on $img:2 (ext4 'Data', 135 MiB)."
tmux_send "$srv" q
finish "q at the erase screen" 0
assert_eq "q at the erase screen: image unchanged" "$whole" "$(sha256sum <"$img")"

# 2. The whole path to the typed confirmation, then back out and quit: nothing changed.
start
to_confirm
s=$(screen)
assert_contains "confirm: names the partition and its size" "$s" \
	"This destroys all data on $img:2 (ext4 'Data', 135 MiB)."
assert_contains "confirm: says everything goes" "$s" "Everything on it will be destroyed"
save_dir=${FDEWIZ_TUI_CAPTURES:-}
[ -z "$save_dir" ] || { mkdir -p "$save_dir"; tmux_capture "$srv" >"$save_dir/erase-confirm.txt"; }
assert_eq "at the typed confirmation: image unchanged" "$whole" "$(sha256sum <"$img")"
tmux_send "$srv" Escape
tmux_wait_for "$srv" "Choose the passphrase" 10
tmux_send "$srv" Escape
tmux_wait_for "$srv" "Erase and encrypt (for a reinstall)" 10
tmux_send "$srv" q
finish "quit before the typed word" 0
assert_eq "quit before the typed word: image unchanged" "$whole" "$(sha256sum <"$img")"
assert_not_contains "quit: nothing reported as made" "$(tmux_capture "$srv" -J -S -)" \
	"is now an empty LUKS2 volume"

# 3. A wrong word refuses and changes nothing; the right one erases and encrypts.
start
to_confirm
tmux_send "$srv" -l "erase"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Not confirmed: that was not ERASE. Nothing was changed." 10
assert_eq "wrong word: image unchanged" "$whole" "$(sha256sum <"$img")"
tmux_send "$srv" -l "ERASE"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Erased and encrypted" 120
[ -z "$save_dir" ] || tmux_capture "$srv" >"$save_dir/erase-done.txt"
tmux_send "$srv" q
finish "erase" 0
out=$(tmux_capture "$srv" -J -S -)
assert_contains "erase: said after the wizard quits" "$out" \
	"$img:2 is now an empty LUKS2 volume"

dump=$(on_loop 2 cryptsetup luksDump)
assert_contains "luksDump: LUKS2" "$dump" "Version:       	2"
uuid=$(on_loop 2 cryptsetup luksUUID)
assert_contains "the UUID is reported" "$out" "(UUID $uuid)"
assert_true "cryptsetup accepts the passphrase" on_loop 2 cryptsetup open --test-passphrase \
	--key-file "$key"
assert_true "partition 2 changed" test "$(part_sum 2)" != "$sum2"
assert_eq "partition 1 untouched" "$sum1" "$(part_sum 1)"
assert_eq "partition 3 untouched" "$sum3" "$(part_sum 3)"
assert_true "partition 1's files verify" img_verify "$img" 1
assert_true "partition 3's files verify" img_verify "$img" 3
if [ "$fs" != none ]; then
	l=$(img_loop "$img" 2)
	cryptsetup open --key-file "$key" "$l" "fdewiz-test-erase-$$"
	m=/dev/mapper/fdewiz-test-erase-$$
	assert_eq "inside: the filesystem chosen" "$fs" "$(blkid -o value -s TYPE "$m")"
	assert_eq "inside: the label typed" "$label" "$(blkid -o value -s LABEL "$m")"
	assert_true "inside: fsck is clean" run_quiet e2fsck -fn "$m"
	cryptsetup close "fdewiz-test-erase-$$"
	img_unloop "$l"
else
	echo "note: no device-mapper here: the wizard offered 'none' only (checked above)"
fi
assert_finish
