#!/bin/bash
# The tmux helpers work on the real program: fdewiz list in a pane, its screen, exit status, resize.
. "$(dirname "$0")/../lib/start.sh" tmux
require_cmds tmux jq parted losetup mkfs.ext4

# A private server per run, so parallel runs and a user's own tmux are left alone.
srv=fdewiz-test-list-$$
img_test_init
tmux_own "$srv"

img=$IMG_TMP/tui.img
img_new "$img" 96
img_gpt "$img"
img_part "$img" Data 1 95
img_mkfs "$img" 1 ext4 data
# The sentence the table must show, as the program itself words it.
verdict=$("$FDEWIZ" list --json "$img" | jq -r '.disks[0].partitions[0].verdict.message')
assert_contains "verdict of Data" "$verdict" "Can be encrypted in place"

tmux_start "$srv" 80 24 "$FDEWIZ" list "$img"
assert_eq "pane size at start" 80x24 "$(tmux_size "$srv")"
tmux_wait_for "$srv" "Data" 10
tmux_wait_for "$srv" "$verdict" 10
tmux_wait_exit "$srv" 10
assert_eq "exit status of fdewiz list" 0 "$(tmux_exit_status "$srv")"
# With the history: the dead-pane notice scrolled the first line off the screen.
screen=$(tmux_capture "$srv" -S -)
printf '%s\n' "$screen"
first=$(head -n 1 <<<"$screen")
assert_eq "first line starts with the image" "$img" "${first%%  *}"
assert_contains "screen" "$screen" "yes (shrink)"
# No stray stderr (such as "udevadm: not found") on the screen.
assert_not_contains "screen" "$screen" "udevadm"

# The server resizes the window and back, as a terminal would.
tmux_resize "$srv" 100 30
assert_eq "pane size after resize" 100x30 "$(tmux_size "$srv")"
tmux_resize "$srv" 80 24
assert_eq "pane size after resizing back" 80x24 "$(tmux_size "$srv")"

# A failing program's status is kept too: the helper does not just print 0.
tmux_stop "$srv"
tmux_start "$srv" 80 24 "$FDEWIZ" list "$IMG_TMP/no-such.img"
tmux_wait_exit "$srv" 10
assert_eq "exit status of fdewiz list on a missing image" 1 "$(tmux_exit_status "$srv")"
tmux_wait_for "$srv" "Nothing was changed" 5

# Keys reach the program in the pane.
tmux_stop "$srv"
tmux_start "$srv" 80 24 sh -c 'read -r line; echo "got: $line"; exit 3'
tmux_send "$srv" "hello" Enter
tmux_wait_for "$srv" "got: hello" 5
tmux_wait_exit "$srv" 5
assert_eq "exit status of the key test" 3 "$(tmux_exit_status "$srv")"

# Ctrl-C reaches the program as SIGINT with its default action.
tmux_stop "$srv"
tmux_start "$srv" 80 24 sh -c 'echo ready; exec sleep 60'
# Only once it runs: a Ctrl-C typed before would hit the wrapper, not the program.
tmux_wait_for "$srv" ready 5
tmux_send "$srv" C-c
tmux_wait_exit "$srv" 5
assert_eq "exit status after Ctrl-C" 130 "$(tmux_exit_status "$srv")"

tmux_stop "$srv"
assert_eq "server stopped" 1 "$(tmux_cmd "$srv" has-session 2>/dev/null; echo $?)"
assert_finish
