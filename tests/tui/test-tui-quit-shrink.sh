#!/bin/bash
# Ctrl-Z and Ctrl-\ in the wizard while resize2fs shrinks the filesystem: resize2fs (in a
# process group of its own) is neither stopped nor killed and finishes; the wizard shows
# each key held back, writes the header, then stops cleanly (exit 130, the terminal
# restored) and the conversion goes on in the background. cryptsetup decrypts the result:
# e2fsck -fn and the sha256 of every file.
# resize2fs is the real one behind a wrapper that, for the shrink, waits until the test has
# seen both keys held back and resize2fs still alive before it runs it (so the keys surely
# land while it runs, on a fast machine as on a slow one; it used to sleep 8 s before and
# after, and so did every `resize2fs -P` of the listing), bind-mounted over the system's in
# a mount namespace of this run's alone: fdewiz runs helpers only from the system's own
# directories.
. "$(dirname "$0")/../lib/start.sh" jobs tmux
require_cmds tmux jq parted losetup mkfs.ext4 cryptsetup e2fsck resize2fs sha256sum blkid \
	unshare

tmux_test_init quit quit.img
pass="correct horse battery staple"
img_ext4_fixture "$img" 200 40

mkdir -p "$IMG_TMP/bin" "$IMG_TMP/real"
sys_resize2fs=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v resize2fs)
cp "$sys_resize2fs" "$IMG_TMP/real/resize2fs"
# A test that fails before it says go lets it go at exit (or it gives up after 10 minutes).
at_exit touch "$IMG_TMP/resize.go"
# Measuring (-P, for the verdict and the plan) changes nothing and goes straight through.
cat >"$IMG_TMP/bin/resize2fs" <<WRAP
#!/bin/sh
case " \$* " in
*" -P "*) exec "$IMG_TMP/real/resize2fs" "\$@" ;;
esac
echo \$\$ >"$IMG_TMP/resize.pid"
: >"$IMG_TMP/resize.started"
n=0
while [ ! -e "$IMG_TMP/resize.go" ] && [ \$n -lt 6000 ]; do
	sleep 0.1
	n=\$((n + 1))
done
"$IMG_TMP/real/resize2fs" "\$@"
rc=\$?
echo "\$rc" >"$IMG_TMP/resize.rc"
exit \$rc
WRAP
chmod +x "$IMG_TMP/bin/resize2fs"

# shellcheck disable=SC2016 # expanded by the pane's shells
tmux_start "$srv" 100 30 sh -c 'trap : INT QUIT; "$@"; rc=$?; echo "exit=$rc"
	echo "modes: $(stty -a | tr " ;" "\n\n" | grep -xE -- "-?(icanon|echo|isig)" |
		tr "\n" " ")"; exit $rc' sh \
	unshare -m --propagation private sh -c 'mount --bind "$1" "$2" || exit 99; shift 2
		exec "$@"' sh "$IMG_TMP/bin/resize2fs" "$sys_resize2fs" \
	env FDEWIZ_STATE_DIR="$state" FDEWIZ_TEST_FAST_PBKDF=1 "$FDEWIZ" "$img"
tmux_wait_for "$srv" "Choose a partition" 30
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Plan for $img:1" 30
assert_contains "the plan shrinks the filesystem" "$(tmux_capture "$srv" -J)" "hrink"
# Without the baseline benchmark: the header steps come at once.
tmux_send "$srv" Space
tmux_wait_for "$srv" "[ ] Measure the speed" 10
tmux_send "$srv" Enter
tmux_passphrase_twice "$srv" "$pass"
tmux_send "$srv" -l "YES"
tmux_send "$srv" Enter
for _ in $(seq 1 1200); do
	[ -e "$IMG_TMP/resize.started" ] && break
	sleep 0.1
done
assert_true "resize2fs started" test -e "$IMG_TMP/resize.started"
tmux_send "$srv" C-z
tmux_wait_for "$srv" "Ctrl-Z waits until the header is written" 10 ||
	assert_fail "Ctrl-Z: not shown as held back"
tmux_send "$srv" 'C-\'
tmux_wait_for "$srv" "Stopping once the header is written" 10 ||
	assert_fail "Ctrl-\\: not shown as held back"
# The wrapper itself, in resize2fs's process group: alive, neither stopped (T) nor gone.
rpid=$(cat "$IMG_TMP/resize.pid")
rstate=$(sed -n 's/^[0-9]* (.*) \([A-Z]\).*/\1/p' "/proc/$rpid/stat" 2>/dev/null || true)
assert_true "resize2fs still runs after both keys (state '$rstate')" \
	test -n "$rstate" -a "$rstate" != T -a "$rstate" != Z
: >"$IMG_TMP/resize.go"
tmux_wait_exit "$srv" 300
s=$(tmux_capture "$srv" -J -S -)
assert_eq "resize2fs finished, exit status" 0 "$(cat "$IMG_TMP/resize.rc" 2>/dev/null)"
assert_eq "exit status after Ctrl-\\" 130 "$(tmux_exit_status "$srv")"
[ "$(tmux_exit_status "$srv")" = 130 ] || printf '%s\n' "$s" | tail -40 | sed 's/^/    | /' >&2
assert_contains "says it goes on" "$s" "continues in the background"
assert_contains "terminal modes restored" "$s" "modes: isig icanon echo"
assert_not_contains "curses screen left behind" "$s" "Phase: "
assert_not_contains "no core dump" "$s" "core dumped"

# The worker finishes on its own.
FDEWIZ_STATE_DIR=$state wait_job "$img:1" complete 600 || true
assert_eq "conversion state" complete "$JOB_STATE"

verify_encrypted "$img" "$pass"
assert_finish
