#!/bin/bash
# The wizard makes its plan long before the first write (passphrase, typed YES between): the
# partition is looked at again when the YES is typed. Mounted meanwhile (through a loop
# device, read-only), or the image swapped for another file under the same name: refused,
# the dialog says what changed, and no byte of either image changed. (With nothing in the
# way the same flow converts: test-tui-flow.sh.)
. "$(dirname "$0")/../lib/start.sh" tmux
require_cmds tmux parted losetup mkfs.ext4 sha256sum mount

srv=fdewiz-test-recheck-$$
img_test_init
tmux_own "$srv"

img=$IMG_TMP/disk.img
other=$IMG_TMP/other.img
state=$IMG_TMP/state
pass="correct horse battery staple"
img_ext4_fixture "$img" 300 8
cp --sparse=always "$img" "$other"

# plan_to_yes: start the wizard on the image and go as far as the typed confirmation.
plan_to_yes()
{
	tmux_stop "$srv"
	tmux_start "$srv" 100 30 env FDEWIZ_STATE_DIR="$state" FDEWIZ_TEST_FAST_PBKDF=1 \
		"$FDEWIZ" "$img"
	tmux_wait_for "$srv" "Choose a partition" 20
	tmux_send "$srv" Enter
	tmux_wait_for "$srv" "Plan for $img:1" 30
	tmux_send "$srv" Enter
	tmux_passphrase_twice "$srv" "$pass"
}

yes_refused()
{
	local what=$1 expect=$2 s

	tmux_send "$srv" -l "YES"
	tmux_send "$srv" Enter
	tmux_wait_for "$srv" "Not encrypted" 30
	s=$(tmux_capture "$srv" | tr -s ' \n│' ' ')
	assert_contains "$what: the dialog says what" "$s" "$expect"
	assert_contains "$what: the dialog says nothing changed" "$s" "Nothing was changed"
}

# 1. Mounted read-only through a loop device between the plan and the YES.
plan_to_yes
sum=$(sha256sum <"$img")
loop=$(img_loop "$img" 1)
img_mount "$loop" "$IMG_TMP/mnt" ro
yes_refused "mounted meanwhile" "${loop#/dev/}"
assert_eq "mounted meanwhile: the image is unchanged" "$sum" "$(sha256sum <"$img")"
img_umount "$IMG_TMP/mnt"
img_unloop "$loop"

# 2. The image replaced by another file under the same name (a USB disk swapped).
plan_to_yes
mv "$img" "$IMG_TMP/first.img"
cp --sparse=always "$other" "$img"
sum=$(sha256sum <"$img")
sum_first=$(sha256sum <"$IMG_TMP/first.img")
yes_refused "swapped meanwhile" "changed since the plan was made"
assert_eq "swapped meanwhile: the new file is unchanged" "$sum" "$(sha256sum <"$img")"
assert_eq "swapped meanwhile: the old file is unchanged" "$sum_first" \
	"$(sha256sum <"$IMG_TMP/first.img")"
assert_true "every file intact" img_verify "$img" 1

assert_finish
