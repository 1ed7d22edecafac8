#!/bin/bash
# The wizard on plain terminals: ASCII only on vt100 and in the C locale, UTF-8 trees where
# the locale allows, no colour with NO_COLOR, colour otherwise; a terminal that is too
# small gets a clear message and the screen comes back when it grows again.
. "$(dirname "$0")/../lib/start.sh" tmux
require_cmds tmux parted losetup mkfs.ext4 mkfs.vfat

srv=fdewiz-test-terms-$$
img_test_init
tmux_own "$srv"

img=$IMG_TMP/terms.img
img_new "$img" 200
img_gpt "$img"
img_part "$img" EFI 1 33
img_flag "$img" 1 esp
img_mkfs "$img" 1 vfat EFI
img_part "$img" Data 33 199
img_mkfs "$img" 2 ext4 Data
before=$(sha256sum <"$img")

# Bytes outside ASCII on the screen, shown as hex; empty when there are none.
non_ascii()
{
	LC_ALL=C grep -o $'[\x80-\xff]' <<<"$1" | head -3 | od -An -tx1 | tr -d ' \n' || true
}

# Foreground colours in a capture with escapes (SGR 30-38, 90-97).
colour_codes()
{
	grep -cE $'\e\\[([0-9]+;)*(3[0-8]|9[0-7])(;[0-9]+)*m' <<<"$1" || true
}

start()
{
	tmux_stop "$srv"
	tmux_start "$srv" 80 24 env FDEWIZ_STATE_DIR="$IMG_TMP/state" "$@" "$FDEWIZ" "$img"
	tmux_wait_for "$srv" "Choose a partition" 20
}

# 1. vt100 in the C locale: every screen is plain ASCII.
TUI_TERM=vt100 LANG=C start
s=$(tmux_capture "$srv")
assert_eq "vt100 disks: non-ASCII bytes" "" "$(non_ascii "$s")"
assert_contains "vt100 disks: ASCII tree" "$s" "\`- 2 Data"
assert_contains "vt100 disks: verdict marker" "$s" "yes (shrink)"
tmux_send "$srv" "?"
tmux_wait_for "$srv" "this help" 10
s=$(tmux_capture "$srv")
assert_eq "vt100 help: non-ASCII bytes" "" "$(non_ascii "$s")"
assert_contains "vt100 help: ASCII box" "$s" "+---"
tmux_send "$srv" Space
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Plan for" 20
s=$(tmux_capture "$srv")
assert_eq "vt100 plan: non-ASCII bytes" "" "$(non_ascii "$s")"
assert_contains "vt100 plan: checkbox" "$s" "[x]"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Choose the passphrase" 10
tmux_send "$srv" -l "abcdefgh"
tmux_wait_for "$srv" "Strength: weak" 10
s=$(tmux_capture "$srv")
assert_eq "vt100 passphrase: non-ASCII bytes" "" "$(non_ascii "$s")"
assert_contains "vt100 passphrase: masked" "$s" "********"
assert_not_contains "vt100 passphrase: never shown" "$s" "abcdefgh"
tmux_send "$srv" Escape
tmux_wait_for "$srv" "Plan for" 10
tmux_send "$srv" Escape
tmux_wait_for "$srv" "Choose a partition" 10
# Too small, then big enough again.
tmux_resize "$srv" 58 15
tmux_wait_for "$srv" "Terminal too small: need at least 60x18, have 58x15" 10
assert_eq "vt100 too small: non-ASCII bytes" "" "$(non_ascii "$(tmux_capture "$srv")")"
tmux_resize "$srv" 60 18
tmux_wait_for "$srv" "Choose a partition" 10
s=$(tmux_capture "$srv")
assert_not_contains "60x18: no too-small message" "$s" "too small"
assert_contains "60x18: the partition is listed" "$s" "2 Data"
tmux_send "$srv" q
tmux_wait_exit "$srv" 10
assert_eq "vt100: exit status" 0 "$(tmux_exit_status "$srv")"

# 2. The Linux console in the C locale: ASCII too.
TUI_TERM=linux LANG=C start
s=$(tmux_capture "$srv")
assert_eq "linux/C disks: non-ASCII bytes" "" "$(non_ascii "$s")"
assert_contains "linux/C disks: ASCII tree" "$s" "\`- 2 Data"
tmux_send "$srv" q
tmux_wait_exit "$srv" 10

# 3. A UTF-8 locale on a modern terminal: line-drawing characters (so check 1 can fail).
LANG=C.UTF-8 start
s=$(tmux_capture "$srv")
assert_contains "UTF-8 disks: tree" "$s" "└─ 2 Data"
e=$(tmux_capture "$srv" -e)
assert_true "UTF-8 disks: colours are used" [ "$(colour_codes "$e")" -gt 0 ]
tmux_send "$srv" q
tmux_wait_exit "$srv" 10

# 4. NO_COLOR: the same screen without a single colour; the words still mark the verdicts.
LANG=C.UTF-8 start NO_COLOR=1
e=$(tmux_capture "$srv" -e)
assert_eq "NO_COLOR: colour escapes" 0 "$(colour_codes "$e")"
assert_contains "NO_COLOR: verdict words" "$(tmux_capture "$srv")" "no (efi-system)"
tmux_send "$srv" q
tmux_wait_exit "$srv" 10
assert_eq "NO_COLOR: exit status" 0 "$(tmux_exit_status "$srv")"

assert_eq "image unchanged" "$before" "$(sha256sum <"$img")"
assert_finish
