#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The wizard resumes what the command line resumes (core/convert/resume.h, one resume for
# both): a partition of another installed system (its /home) converted from outside and
# killed once that system's tables were written, before the step was marked done. The
# wizard opens on it ("boot step left"); r asks for the passphrase; a wrong one is refused
# with nothing changed; the right one does the step there and shows the command line's
# words (that system opens it at boot, its crypttab line, the files changed). Afterwards
# nothing is left to resume, status no longer speaks of the step, that system has one
# crypttab line, and the data decrypts whole (e2fsck, sha256 of every file).
# Cost: about 15 s (one encryption of 167 MiB on a loop device, the wizard in tmux).
. "$(dirname "$0")/../lib/start.sh" jobs tmux fake-system
require_cmds tmux mkfs.ext4 debugfs parted sha256sum cryptsetup e2fsck

srv=fdewiz-test-resume-step-$$
img_test_init
tmux_own "$srv"
fake_system_image "$IMG_TMP/laptop.img"
key=$IMG_TMP/key
pass="resume step passphrase"
printf '%s' "$pass" >"$key"
(cd "$h" && find . -type f -exec sha256sum {} +) >"$IMG_TMP/home.sums"
export FDEWIZ_STATE_DIR=$IMG_TMP/state

# The screen as one line, without the dialog's frame: the wizard wraps its sentences.
flat()
{
	tmux_capture "$srv" | sed 's/[│┌┐└┘─]//g; s/[[:space:]]*$//' | tr '\n' ' ' | tr -s ' '
}

# The crypttab lines naming the volume in that system's root.
tab_lines()
{
	local loop n mnt=$IMG_TMP/mnt
	mkdir -p "$mnt"
	loop=$(img_loop "$img" 3)
	mount -o ro "$loop" "$mnt"
	n=$(grep -c "^home_crypt UUID=$luks_uuid none luks$" "$mnt/etc/crypttab" || true)
	umount "$mnt"
	img_unloop "$loop"
	echo "$n"
}

rc=0
FDEWIZ_TEST_KILL_AT=system-data-written "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf \
	--no-bench --key-file "$key" --work-dir "$IMG_TMP" --header-backup "$IMG_TMP/home.hdr" \
	"$img:4" >"$IMG_TMP/enc.out" 2>&1 || rc=$?
assert_true "the killed step is reported as left (exit $rc)" test "$rc" -ne 0
assert_contains "it says how to finish" "$(cat "$IMG_TMP/enc.out")" "fdewiz resume $img:4"
loop=$(img_loop "$img" 4)
luks_uuid=$(cryptsetup luksUUID "$loop")
img_unloop "$loop"
assert_contains "status: the step is left" "$("$FDEWIZ" status "$img:4" 2>&1 || true)" \
	"could not be written: the step was stopped before it finished"

# 1. The wizard opens on it: converted, the step left.
tmux_start "$srv" 130 30 "$FDEWIZ" "$img"
tmux_wait_for "$srv" "Unfinished conversions" 30
assert_contains "the start screen lists it with its step left" "$(flat)" \
	"$img:4 167 MiB ${luks_uuid:0:8} complete 100.0% boot step left"

# 2. A wrong passphrase: refused, nothing changed, asked again.
tmux_send "$srv" r
tmux_wait_for "$srv" "Passphrase of $img:4" 10
tmux_send "$srv" -l "not the passphrase"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "passphrase is wrong" 30
assert_contains "a wrong passphrase: nothing changed" "$(flat)" "Nothing was changed"
assert_contains "status still says the step is left" \
	"$("$FDEWIZ" status "$img:4" 2>&1 || true)" "the step was stopped before it finished"

# 3. The right one: the step is done, in the command line's words.
tmux_send "$srv" -l "$pass"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Step done" 60
s=$(flat)
assert_contains "it says the step runs" "$s" "$img:4 is encrypted; setting up the installed"
assert_contains "it says that system opens it at boot" "$s" \
	"The system on $img:3 opens it at boot (it asks for the passphrase)"
assert_contains "it names the crypttab line" "$s" "'home_crypt UUID=$luks_uuid none luks'"
assert_contains "it lists the files changed" "$s" \
	"Files changed in that system (each kept as a backup): $img:3 /etc/crypttab"
tmux_send "$srv" Enter
# Nothing is left to resume: the wizard goes on to the disks.
tmux_wait_for "$srv" "Choose a partition" 20
tmux_send "$srv" q
tmux_wait_exit "$srv" 20
assert_eq "the wizard ended normally" 0 "$(tmux_exit_status "$srv")"

out=$("$FDEWIZ" status "$img:4" 2>&1 || true)
assert_contains "status: complete" "$out" "complete"
assert_not_contains "status no longer speaks of the step" "$out" "could not be written"
rc=0
out=$("$FDEWIZ" resume --key-file "$key" "$img:4" 2>&1) || rc=$?
assert_true "the command line finds nothing left either (exit $rc)" test "$rc" -ne 0
assert_contains "it says so" "$out" "no unfinished conversion"
assert_eq "that system has one crypttab line" 1 "$(tab_lines)"
verify_decrypt --key "$key" --sums "$IMG_TMP/home.sums" "$img" 4
assert_finish
