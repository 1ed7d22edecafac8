#!/bin/bash
# The wizard on a disk whose partition 3 holds an installed Debian with /boot (partition 2)
# and /home (partition 4) of its own: the pane names the system for each of them; its /boot
# is refused in place (Enter) and for erase-and-encrypt (e), with why and what to do; the
# plan for its /home says whose it is and that its boot entry is written in that system,
# and the "Open this volume at boot" box says why not this one's. Then Debian's encrypted
# install (tests/lib/boot-files-images.sh), whose /boot no readable fstab names: its row is
# refused by what it holds, Enter says whose /boot it is, and the erase screen says that
# system will no longer start. Nothing is written: the images' sha256 are the same at the
# end.
#
# FDEWIZ_TUI_CAPTURES=DIR saves a text capture of each screen there.
. "$(dirname "$0")/../lib/start.sh" tmux fake-system boot-files-images
require_cmds tmux mkfs.ext4 debugfs parted sha256sum

srv=fdewiz-test-sysparts-$$
img_test_init
tmux_own "$srv"
fake_system_image "$IMG_TMP/laptop.img"
before=$(sha256sum <"$img")

save()
{
	[ -z "${FDEWIZ_TUI_CAPTURES:-}" ] || tmux_capture "$srv" >"$FDEWIZ_TUI_CAPTURES/$1.txt"
}

# The screen as one line: the wizard wraps its sentences itself, so they are joined here.
flat()
{
	tmux_capture "$srv" | sed 's/[[:space:]]*$//' | tr '\n' ' ' | tr -s ' '
}

# to_row N NAME: select partition N from the top of the list (the wizard starts on the
# first partition it can encrypt).
to_row()
{
	tmux_send "$srv" Home
	for _ in $(seq 1 100); do
		tmux_capture "$srv" | grep -q '^>.*image file' && break
		sleep 0.1
	done
	tmux_select "$srv" " $1 $2 " || assert_fail "partition $1 ($2) could not be selected"
}

tmux_start "$srv" 110 32 env FDEWIZ_STATE_DIR="$IMG_TMP/state" "$FDEWIZ" "$img"
tmux_wait_for "$srv" "Choose a partition" 30

# 1. Its /boot: the pane says whose it is; Enter refuses with why and what to do.
to_row 2 Boot
tmux_wait_for "$srv" "/boot of Debian GNU/Linux 12 (bookworm) on" 10
save sysparts-1-boot
assert_contains "the /boot row is refused in the list" "$(flat)" "no (installed-syst"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Cannot encrypt this one in place" 10
s=$(flat)
assert_contains "Enter on /boot: says whose it is" "$s" \
	"Cannot encrypt this one in place: /boot of Debian GNU/Linux 12 (bookworm)"
assert_not_contains "Enter on /boot: no plan" "$s" "Plan for $img:2"

# 2. Erase-and-encrypt of its /boot: refused too, nothing changed.
tmux_send "$srv" e
tmux_wait_for "$srv" "Cannot erase" 10
save sysparts-2-erase
s=$(flat)
assert_contains "e on /boot: says why" "$s" "unable to start"
assert_contains "e on /boot: says nothing changed" "$s" "Nothing was changed."
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Choose a partition" 10

# 3. Its /home: the pane says whose; the plan says where its boot entry goes.
to_row 4 Home
tmux_wait_for "$srv" "Belongs to another system: /home of Debian GNU/Linux 12" 10
save sysparts-3-home
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Plan for $img:4" 30
tmux_wait_for "$srv" "Another system" 10
save sysparts-4-plan
s=$(flat)
assert_contains "the plan names the system" "$s" \
	"this is /home of Debian GNU/Linux 12 (bookworm) on"
assert_contains "the plan says its boot entries go there" "$s" "written in THAT system"
assert_contains "the boot box speaks of the right system" "$s" \
	"Not for a partition of another installed system: fdewiz writes THAT system's crypttab"

# 4. Leave: nothing was written.
tmux_send "$srv" q
tmux_wait_exit "$srv" 20
assert_eq "the image is unchanged" "$before" "$(sha256sum <"$img")"
assert_true "no loop device is left over the image" test -z "$(losetup -j "$img")"

# 5. Debian's encrypted install: its /boot is refused by what it holds, with whose it is.
img=$IMG_TMP/encrypted-install.img
encrypted_install_image "$img"
before=$(sha256sum <"$img")
tmux_stop "$srv"
tmux_start "$srv" 110 32 env FDEWIZ_STATE_DIR="$IMG_TMP/state" "$FDEWIZ" "$img"
tmux_wait_for "$srv" "Choose a partition" 30
to_row 2 Boot
tmux_wait_for "$srv" "The /boot of the encrypted system on" 10
save sysparts-5-boot-files
s=$(flat)
assert_contains "the encrypted install's /boot is refused in the list" "$s" "no (boot-fil"
# The pane grows to hold the whole verdict: whose, why, what is done.
assert_contains "the pane says whose /boot it is" "$s" \
	"The /boot of the encrypted system on $img:3 (LUKS2): it holds kernels"
assert_contains "the pane says it stays unencrypted" "$s" \
	"this partition stays unencrypted by design."
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Cannot encrypt this one in place" 10
s=$(flat)
assert_contains "Enter on the encrypted install's /boot: refused with the reason" "$s" \
	"Cannot encrypt this one in place: The /boot of the encrypted system on"
assert_not_contains "Enter on the encrypted install's /boot: no plan" "$s" "Plan for $img:2"
tmux_send "$srv" e
tmux_wait_for "$srv" "Erase and encrypt (for a reinstall)" 10
save sysparts-6-boot-files-erase
assert_contains "the erase screen says that system stops starting" "$(flat)" \
	"that system will no longer start."
tmux_send "$srv" Escape
tmux_wait_for "$srv" "Choose a partition" 10
tmux_send "$srv" q
tmux_wait_exit "$srv" 20
assert_eq "the encrypted install's image is unchanged" "$before" "$(sha256sum <"$img")"

assert_finish
