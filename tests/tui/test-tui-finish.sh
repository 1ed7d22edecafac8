#!/bin/bash
# The wizard's last steps of an installation, on real images and loop devices.
# A. Recovery key, on a partition of a disk image: the boot (crypttab) box is greyed out
#    with its reason and cannot be ticked; the recovery key is asked for, shown once in
#    its printed form (8 groups of 6), survives resizing, waits for Enter while the
#    conversion already runs; afterwards the key copied from the screen opens the volume
#    (cryptsetup), appears nowhere in the state directory or logs, and decrypts it; then
#    fsck and sha256 verify the data.
# B. Boot entries, on a loop device holding a filesystem: the box ticked, the wizard adds
#    the crypttab entry and rewrites the fstab line that named the device. This runs in a
#    private mount namespace over a copy of /etc, so the machine's own files stay as they
#    were (checked); the data is verified again after a cryptsetup decryption.
#
# FDEWIZ_TUI_CAPTURES=DIR saves a capture of the screens there, the key replaced by X's.
# FDEWIZ_TEST_FAST_PBKDF=1 (test-only) makes the wizard use a weak key derivation.
. "$(dirname "$0")/../lib/start.sh" jobs tmux
require_cmds tmux jq parted losetup mkfs.ext4 cryptsetup e2fsck sha256sum blkid grep unshare \
	mount

tmux_test_init finish rk.img
pass="correct horse battery staple"
img_ext4_fixture "$img" 240 40

# The key alphabet of src/core/luks2/recovery.h: digits 2-9, A-Z without I and O.
group='[2-9A-HJ-NP-Z]{6}'
key_re="$group(-$group){7}"
hidden=XXXXXX-XXXXXX-XXXXXX-XXXXXX-XXXXXX-XXXXXX-XXXXXX-XXXXXX

# refute WHAT COMMAND...: the command fails (its arguments, which hold keys, not printed).
refute()
{
	local what=$1

	shift
	ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
	if "$@"; then
		assert_fail "$what"
	else
		assert_pass "$what"
	fi
}

# The screen as one line: box sides dropped, runs of blanks and line ends as one space, so
# a sentence the wizard wrapped inside a dialog is found whole.
flat()
{
	tmux_capture "$srv" | sed 's/[│|]/ /g' | tr -s ' \n' '  '
}

# wait_flat TEXT TIMEOUT_S
wait_flat()
{
	local tries=$(($2 * 10))

	while [ "$tries" -gt 0 ]; do
		[[ "$(flat)" == *"$1"* ]] && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	echo "not on the screen within $2 s: $1" >&2
	tmux_capture "$srv" | sed 's/^/    | /' >&2
	return 1
}

save()
{
	[ -z "${FDEWIZ_TUI_CAPTURES:-}" ] ||
		tmux_capture "$srv" | sed -E "s/$key_re/$hidden/g" \
			>"$FDEWIZ_TUI_CAPTURES/$1.txt"
}

tmux_start "$srv" 100 30 env FDEWIZ_STATE_DIR="$state" FDEWIZ_TEST_FAST_PBKDF=1 \
	"$FDEWIZ" "$img"
tmux_wait_for "$srv" "Choose a partition" 20
tmux_send "$srv" Enter

# 1. Plan: the boot box is greyed out for an image file, with its reason, and stays off.
tmux_wait_for "$srv" "Plan for $img:1" 30
save rk-1-plan
s=$(tmux_capture "$srv" -J)
assert_contains "plan: boot box shown" "$s" \
	"[-] Open this volume at boot (add it to /etc/crypttab and adjust /etc/fstab)"
assert_contains "plan: the reason it is greyed out" "$s" \
	"Not for a partition of an image file: this system does not open it at boot"
tmux_send "$srv" Tab
tmux_send "$srv" Space
tmux_wait_for "$srv" "Not for a partition of an image file" 10
assert_contains "plan: still off after Space" "$(tmux_capture "$srv" -J)" \
	"[-] Open this volume at boot"
assert_not_contains "plan: never ticked" "$(tmux_capture "$srv" -J)" "[x] Open this volume"
# The benchmark box again (back over the boot box; Tab goes on to the cipher list),
# turned off to save time.
tmux_send "$srv" BTab
tmux_send "$srv" Space
tmux_wait_for "$srv" "[ ] Measure the speed" 10
tmux_send "$srv" Enter

# 2. Passphrase twice, then the recovery key box.
tmux_passphrase_twice "$srv" "$pass" recovery-key

# 3. The summary says both.
s=$(tmux_capture "$srv" -J)
assert_contains "confirm: recovery key listed" "$s" "a recovery key is added in a second slot"
assert_contains "confirm: boot files untouched" "$s" \
	"/etc/crypttab and /etc/fstab are not changed"
tmux_send "$srv" -l "YES"
tmux_send "$srv" Enter

# 4. The recovery key screen, while the conversion already runs.
tmux_wait_for "$srv" "I have written it down: press Enter." 120
s=$(tmux_capture "$srv")
save rk-2-recovery-key
keys=$(grep -oE "$key_re" <<<"$s" || true)
assert_eq "one key on the screen" 1 "$(grep -c . <<<"$keys")"
key=$keys
assert_eq "key: 55 characters" 55 "${#key}"
assert_true "key: 8 groups of 6 from the alphabet" \
	grep -qxE "$key_re" <<<"$key"
assert_contains "key screen: shown once" "$s" "shown only this once"
assert_contains "key screen: opens like the passphrase" "$s" "cryptsetup open accepts it"
assert_contains "key screen: away from the computer" "$s" "Keep it away from this computer"
# It does not wait for the screen: the worker is converting already.
running=no
FDEWIZ_STATE_DIR=$state wait_job "$img:1" '.state == "running" or .state == "complete"' 20 &&
	running=yes
assert_eq "conversion runs while the key is shown" yes "$running"

# 5. Resizing: the key stays whole; too small hides it; back again.
tmux_resize "$srv" 60 18
tmux_wait_for "$srv" "I have written it down" 10
assert_contains "60x18: the key whole" "$(tmux_capture "$srv")" "$key"
save rk-3-recovery-key-60x18
tmux_resize "$srv" 40 10
tmux_wait_for "$srv" "need at least 60x18, have 40x10" 10
assert_not_contains "40x10: no key" "$(tmux_capture "$srv" -J)" "${key:0:6}"
tmux_resize "$srv" 100 30
tmux_wait_for "$srv" "I have written it down" 10
assert_contains "100x30: the key again" "$(tmux_capture "$srv")" "$key"

# 6. Other keys do not dismiss it; a first q only warns; Enter goes on.
tmux_send "$srv" x
tmux_wait_for "$srv" "Press Enter once the recovery key is written down." 10
tmux_send "$srv" q
tmux_wait_for "$srv" "Press q again to quit anyway" 10
assert_contains "q once: the key is still there" "$(tmux_capture "$srv")" "$key"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "The recovery key was wiped from memory." 10
assert_not_contains "progress: no key" "$(tmux_capture "$srv")" "${key:0:13}"
tmux_wait_for "$srv" "Results for $img:1" 900
tmux_send "$srv" q
tmux_wait_exit "$srv" 20
assert_eq "exit status" 0 "$(tmux_exit_status "$srv")"
out=$(tmux_capture "$srv" -J -S -)
assert_not_contains "nothing printed says the key was not confirmed" "$out" "not confirmed"

# 7. The key as printed opens the volume; a changed one does not.
loop=$(img_loop "$img" 1)
assert_eq "LUKS2 on the partition" crypto_LUKS "$(blkid -p -o value -s TYPE "$loop")"
assert_true "recovery key opens it (cryptsetup)" \
	cryptsetup luksOpen --test-passphrase --key-file <(printf %s "$key") "$loop"
assert_true "passphrase still opens it" \
	cryptsetup luksOpen --test-passphrase --key-file <(printf %s "$pass") "$loop"
bad=${key:0:54}$([ "${key:54:1}" = 2 ] && echo 3 || echo 2)
refute "a changed key does not" \
	cryptsetup luksOpen --test-passphrase --key-file <(printf %s "$bad") "$loop"
assert_eq "two keyslots" 2 "$(cryptsetup luksDump "$loop" | grep -cE '^  [0-9]+: luks2')"

# 8. The key is nowhere in the state directory or logs, with or without its dashes.
assert_true "state directory exists" test -d "$state"
refute "key not in the state directory" grep -rqaF -- "$key" "$state"
refute "key (no dashes) not in the state directory" grep -rqaF -- "${key//-/}" "$state"
for f in /var/log/syslog /var/log/messages; do
	[ -r "$f" ] || continue
	refute "key not in $f" grep -qaF -- "$key" "$f"
done

# 9. Decrypt with the recovery key (cryptsetup, a new header file), then fsck and sums.
img_unloop "$loop"
verify_decrypt --as "the recovery key" --key <(printf %s "$key") "$img" 1
tmux_stop "$srv"

# B. Boot entries on a block device, under a copy of /etc in a private mount namespace.
host_sums=$(cat /etc/crypttab /etc/fstab 2>/dev/null | sha256sum)
bimg=$IMG_TMP/boot.img
state_b=$IMG_TMP/state-b
etc=$IMG_TMP/etc
truncate -s 200M "$bimg"
mkfs.ext4 -q -L Vol "$bimg"
bloop=$(img_loop "$bimg" 0)
img_worker_stop_at_exit "$state_b" "$bloop" 0
mnt=$IMG_TMP/bmnt
img_mount "$bloop" "$mnt"
mkdir "$mnt/data"
for i in 1 2 3 4 5 6; do head -c $((i * 1024 * 1024 + i)) /dev/urandom >"$mnt/data/f$i"; done
(cd "$mnt" && sha256sum data/*) >"$IMG_TMP/boot.sha256"
img_umount "$mnt"
mkdir "$etc"
cp -a /etc/. "$etc/"
printf '%s /mnt/fdewiz-test-vol ext4 noauto 0 2\n' "$bloop" >>"$etc/fstab"
# The tmux server is born in the namespace and keeps it; the test talks to its socket.
unshare -m --propagation private bash -c '
	mount --bind "$1" /etc || exit 1
	shift
	. "$0"
	tmux_start "$@"' "$lib/tmux.sh" "$etc" "$srv" 100 30 env FDEWIZ_STATE_DIR="$state_b" \
	FDEWIZ_TEST_FAST_PBKDF=1 ASAN_OPTIONS="${ASAN_OPTIONS:-}" \
	LSAN_OPTIONS="${LSAN_OPTIONS:-}" "$FDEWIZ" "$bloop"
tmux_wait_for "$srv" "Choose a partition" 20
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Plan for $bloop" 30
s=$(tmux_capture "$srv" -J)
assert_contains "B plan: boot box off by default" "$s" "[ ] Open this volume at boot"
assert_not_contains "B plan: no reason for a block device" "$s" "Not for a partition"
tmux_send "$srv" Tab
tmux_send "$srv" Space
tmux_wait_for "$srv" "[x] Open this volume at boot" 10
save b-1-plan
tmux_send "$srv" BTab
tmux_send "$srv" Space
tmux_wait_for "$srv" "[ ] Measure the speed" 10
tmux_send "$srv" Enter
tmux_passphrase_twice "$srv" "$pass"
assert_contains "B confirm: boot entries listed" "$(tmux_capture "$srv" -J)" \
	"it opens at boot: an entry in /etc/crypttab"
tmux_send "$srv" -l "YES"
tmux_send "$srv" Enter
wait_flat "/etc/fstab: 1 line now names /dev/mapper/" 120
save b-2-boot-entries
s=$(flat)
assert_contains "B dialog: its title" "$s" "Boot entries"
assert_contains "B dialog: crypttab added" "$s" "added to /etc/crypttab: it opens at boot as"
uuid=$(blkid -p -o value -s UUID "$bloop")
assert_true "B: crypttab names the LUKS UUID" \
	grep -qE "^[^#].* UUID=$uuid none luks" "$etc/crypttab"
name=$(awk -v u="UUID=$uuid" '$2 == u { print $1 }' "$etc/crypttab")
assert_true "B: fstab line rewritten" \
	grep -qxF "/dev/mapper/$name /mnt/fdewiz-test-vol ext4 noauto 0 2" "$etc/fstab"
refute "B: fstab no longer names the device" grep -qF "$bloop " "$etc/fstab"
assert_true "B: fstab backup kept" ls "$etc"/fstab.fdewiz-*.bak >/dev/null
assert_true "B: the backup has the old line" grep -qF "$bloop /mnt/fdewiz-test-vol" \
	"$etc"/fstab.fdewiz-*.bak
assert_eq "B: the machine's own crypttab and fstab untouched" "$host_sums" \
	"$(cat /etc/crypttab /etc/fstab 2>/dev/null | sha256sum)"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Results for $bloop" 600
tmux_send "$srv" q
tmux_wait_exit "$srv" 20
assert_eq "B: exit status" 0 "$(tmux_exit_status "$srv")"
tmux_stop "$srv"
verify_decrypt --as B --key <(printf %s "$pass") --sums "$IMG_TMP/boot.sha256" "$bloop"
assert_finish
