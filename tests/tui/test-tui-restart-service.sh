#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The wizard's start screen right after a restart of 'encrypt --at-restart' whose
# background conversion a power cut interrupted, before its service takes it over: the
# step at that start left the passphrase in root's keyring for the service. The screen
# lists the conversion as fdewiz's (not "not by fdewiz"), says under the list that its
# service goes on with it, and 'r' says so instead of asking for the passphrase; nothing
# moves. Once the key is gone (a service that took it and stopped, or Debian's cryptroot
# opened the root), 'r' asks for the passphrase as for any interrupted conversion.
# Made by hand on an image (the real restart: test-vm-system-restart.sh): fdewiz's own
# conversion killed at 30 %, a stage record naming it, the key put in with the keyring's
# system calls (tests/lib/restart-state.sh). The same for status: test-status-restart.sh.
# Cost: about 15 s.
. "$(dirname "$0")/../lib/start.sh" tmux restart-state
require_cmds tmux jq parted losetup mkfs.ext4 cryptsetup blkid python3

srv=fdewiz-test-restart-service-$$
img_test_init
tmux_own "$srv"
export ASAN_OPTIONS=${ASAN_OPTIONS:-intercept_strchr=0}
export FDEWIZ_STATE_DIR=$IMG_TMP/state
img=$IMG_TMP/disk.img
img_new "$img" 160
img_gpt "$img"
img_part "$img" Root 1 159
img_mkfs "$img" 1 ext4 Root
img_fill "$img" 1 16
rc=0
restart_interrupted "$img:1" "$IMG_TMP" || rc=$?
assert_eq "the conversion was killed at 30 %" 137 "$rc"
loop=$(img_loop "$img" 1)
uuid=$(cryptsetup luksUUID "$loop")
restart_stage "$FDEWIZ_STATE_DIR" 5f0c1d2e-7a8b-4c9d-8e0f-123456789abc "$loop" "$uuid" none
at_exit restart_key drop "$uuid"
restart_key put "$uuid"
percent() { "$FDEWIZ" status --json "$img:1" | jq -r '.conversions[0].percent'; }
before=$(percent)

# 1. The key waiting: the service's to go on with.
tmux_start "$srv" 120 30 env FDEWIZ_STATE_DIR="$FDEWIZ_STATE_DIR" "$FDEWIZ" "$img"
assert_true "the start screen lists the unfinished conversion" \
	tmux_wait_for "$srv" "Unfinished conversions" 30
screen=$(tmux_capture "$srv" -J)
echo "$screen"
assert_contains "its UUID" "$screen" "${uuid:0:8}"
assert_contains "interrupted" "$screen" "interrupted"
assert_not_contains "fdewiz's own, not another tool's" "$screen" "not by fdewiz"
assert_contains "under the list: its service goes on with it" "$screen" \
	"its service (fdewiz-restart) goes on with it"
tmux_send "$srv" r
assert_true "'r' says the service goes on with it" \
	tmux_wait_for "$srv" "The restart's conversion: its service" 10
screen=$(tmux_capture "$srv" -J)
assert_not_contains "... and asks for no passphrase" "$screen" "assphrase:"
tmux_send "$srv" q
tmux_wait_exit "$srv" 20 || true
tmux_stop "$srv"
assert_eq "nothing moved" "$before" "$(percent)"

# 2. The key gone: resumed by hand, as any interrupted conversion.
restart_key drop "$uuid"
tmux_start "$srv" 120 30 env FDEWIZ_STATE_DIR="$FDEWIZ_STATE_DIR" "$FDEWIZ" "$img"
assert_true "the start screen again" tmux_wait_for "$srv" "Unfinished conversions" 30
screen=$(tmux_capture "$srv" -J)
assert_not_contains "no word of the service" "$screen" "its service (fdewiz-restart)"
tmux_send "$srv" r
assert_true "'r' asks for the passphrase" tmux_wait_for "$srv" "assphrase" 10
tmux_send "$srv" Escape
tmux_send "$srv" q
tmux_wait_exit "$srv" 20 || true
tmux_stop "$srv"
assert_eq "still nothing moved" "$before" "$(percent)"
img_unloop "$loop"
assert_finish
