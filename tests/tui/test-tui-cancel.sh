#!/bin/bash
# The wizard, cancelled at every step before the typed confirmation (and with a wrong word,
# and with Ctrl-C), leaves the disk image byte for byte unchanged and the terminal restored.
. "$(dirname "$0")/../lib/start.sh" tmux
require_cmds tmux parted losetup mkfs.ext4 sha256sum

srv=fdewiz-test-cancel-$$
img_test_init
tmux_own "$srv"

img=$IMG_TMP/cancel.img
state=$IMG_TMP/state
img_ext4_fixture "$img" 200 20
before=$(sha256sum <"$img")

# The pane runs the wizard, then prints its exit status and the terminal modes, which
# must be back to what a shell needs (canonical input, echo, signals).
start()
{
	tmux_stop "$srv"
	# shellcheck disable=SC2016 # expanded by the pane's shell
	tmux_start "$srv" 100 30 sh -c 'trap : INT; "$@"; rc=$?; echo "exit=$rc"
		echo "modes: $(stty -a | tr " ;" "\n\n" | grep -xE -- "-?(icanon|echo|isig)" |
			tr "\n" " ")"; exit $rc' sh \
		env FDEWIZ_STATE_DIR="$state" "$FDEWIZ" "$img"
	tmux_wait_for "$srv" "Choose a partition" 20
}

# finish WHAT STATUS: the wizard exited with STATUS, the terminal is sane, nothing changed.
finish()
{
	local what=$1 screen

	tmux_wait_exit "$srv" 20 || true
	screen=$(tmux_capture "$srv" -J -S -)
	assert_eq "$what: exit status" "$2" "$(tmux_exit_status "$srv")"
	assert_contains "$what: exit status printed" "$screen" "exit=$2"
	assert_contains "$what: terminal modes restored" "$screen" "modes: isig icanon echo"
	assert_not_contains "$what: curses screen left behind" "$screen" "Choose a partition"
	assert_eq "$what: image unchanged" "$before" "$(sha256sum <"$img")"
	assert_eq "$what: no job recorded" "" "$(ls "$state/jobs" 2>/dev/null || true)"
}

to_plan()
{
	tmux_send "$srv" Enter
	tmux_wait_for "$srv" "Plan for" 20
}

to_pass()
{
	to_plan
	tmux_send "$srv" Enter
	tmux_wait_for "$srv" "Choose the passphrase" 10
}

to_confirm()
{
	to_pass
	tmux_send "$srv" -l "correct horse battery staple"
	tmux_send "$srv" Tab
	tmux_send "$srv" -l "correct horse battery staple"
	tmux_send "$srv" Enter
	tmux_wait_for "$srv" "Type YES" 10
}

start
tmux_send "$srv" q
finish "q at disks" 0

start
tmux_send "$srv" Escape
finish "Esc at disks" 0

start
tmux_send "$srv" C-c
finish "Ctrl-C at disks" 130
assert_contains "Ctrl-C message" "$(tmux_capture "$srv" -J -S -)" "Nothing was changed"

start
to_plan
tmux_send "$srv" Escape
tmux_wait_for "$srv" "Choose a partition" 10
tmux_send "$srv" q
finish "Esc at plan, then q" 0

start
to_plan
tmux_send "$srv" q
finish "q at plan" 0

start
to_pass
tmux_send "$srv" -l "secret"
tmux_send "$srv" Escape
tmux_wait_for "$srv" "Plan for" 10
tmux_send "$srv" Escape
tmux_wait_for "$srv" "Choose a partition" 10
tmux_send "$srv" q
finish "Esc at passphrase" 0

start
to_pass
tmux_send "$srv" -l "secret"
tmux_send "$srv" C-c
finish "Ctrl-C at passphrase" 130

start
to_confirm
tmux_send "$srv" Escape
tmux_wait_for "$srv" "Choose the passphrase" 10
# Going back wiped both fields: Enter now asks for a passphrase instead of going on.
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Type a passphrase." 10
tmux_send "$srv" Escape
tmux_wait_for "$srv" "Plan for" 10
tmux_send "$srv" q
finish "Esc at confirm" 0

start
to_confirm
tmux_send "$srv" -l "yes"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Not confirmed" 10
tmux_send "$srv" -l "YESS"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Not confirmed" 10
assert_eq "wrong word: image unchanged while the wizard runs" "$before" "$(sha256sum <"$img")"
tmux_send "$srv" C-c
finish "wrong confirmation word" 130

# The partition still verifies, file by file.
if img_verify "$img" 1; then
	assert_eq "data verifies" 0 0
else
	assert_eq "data verifies" 0 1
fi
assert_finish
