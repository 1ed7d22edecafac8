#!/bin/bash
# The commands that handle passphrases, keys or headers run with core dumps off (as encrypt
# and resume do): recovery-key add, erase-encrypt and header-restore are each caught while
# they wait for their input, and the kernel's view of the live process is checked.
. "$(dirname "$0")/../lib/start.sh"
require_cmds cryptsetup parted mkfs.ext4 sha256sum losetup

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
img=$IMG_TMP/disk.img
img_new "$img" 200
img_gpt "$img"
img_part "$img" Luks 1 99
img_part "$img" Plain 99 199
img_mkfs "$img" 1 luks2
img_mkfs "$img" 2 ext4 Plain
loop=$(img_loop "$img" 1)
cryptsetup luksHeaderBackup --header-backup-file "$IMG_TMP/luks.hdr" "$loop"
img_unloop "$loop"
before=$(sha256sum <"$img")

# Core dumps allowed for everything this test starts: only the program can turn them off.
ulimit -c unlimited

# check NAME CMD...: start CMD with stdin on a FIFO nobody writes to, and once it waits for
# its input (a prompt shown, or 3 s), read its core file size limit from the kernel.
check()
{
	local name=$1 fifo=$IMG_TMP/$1.fifo pid tries=30 core

	shift
	mkfifo "$fifo"
	"$@" <"$fifo" >"$IMG_TMP/$name.out" 2>&1 &
	pid=$!
	at_exit_kill "$pid"
	exec 9>"$fifo"	# the command's open of its stdin returns; nothing is ever written
	while [ "$tries" -gt 0 ] && ! grep -q . "$IMG_TMP/$name.out" 2>/dev/null; do
		sleep 0.1
		tries=$((tries - 1))
	done
	core=$(awk '/^Max core file size/ { print $5 " " $6 }' "/proc/$pid/limits" 2>/dev/null ||
		true)
	assert_eq "$name: waiting for input with core dumps off (soft hard)" "0 0" "$core"
	exec 9>&-
	wait "$pid" 2>/dev/null || true
}

check recovery-key "$FDEWIZ" recovery-key add --key-file - "$img:1"
check erase-encrypt "$FDEWIZ" erase-encrypt --fs none --fast-pbkdf "$img:2"
check header-restore "$FDEWIZ" header-restore "$img:1" "$IMG_TMP/luks.hdr"
assert_eq "nothing was written" "$before" "$(sha256sum <"$img")"

assert_finish
