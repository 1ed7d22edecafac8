#!/bin/bash
# The wizard's baseline benchmark shows its progress: the test running (by its preset
# name), a bar for the whole benchmark that advances between captures, and the time left,
# as the engine reports them. q while it measures does nothing (the header steps cannot be
# left half-done); the conversion then completes and cryptsetup decrypts the result
# (fsck + sha256 of every file).
#
# FDEWIZ_TUI_CAPTURES=DIR saves a capture of the screen while it measures there.
. "$(dirname "$0")/../lib/start.sh" jobs tmux
require_cmds tmux jq parted losetup mkfs.ext4 cryptsetup e2fsck sha256sum blkid

tmux_test_init benchprog benchprog.img
pass="correct horse battery staple"
img_ext4_fixture "$img" 400 60

tmux_start "$srv" 100 30 env FDEWIZ_STATE_DIR="$state" FDEWIZ_TEST_FAST_PBKDF=1 \
	FDEWIZ_TEST_BENCH_SCALE=tiny "$FDEWIZ" "$img"
tmux_wait_for "$srv" "Choose a partition" 20
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Plan for $img:1" 30
assert_contains "plan: baseline benchmark on" "$(tmux_capture "$srv")" "[x] Measure the speed"
tmux_send "$srv" Enter
tmux_passphrase_twice "$srv" "$pass"
tmux_send "$srv" -l "YES"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Phase: benchmarking" 60

# The whole benchmark's percent after the bar (the line under "Measuring: ..."), or empty.
bench_percent()
{
	grep -A1 '^  Measuring: ' <<<"$1" | sed -n 2p | grep -oE '[0-9]+%$' | tr -d % || true
}

# Capture the screen while it measures, until the bar has moved on three times (or the
# baseline is over); keep the captures that show the benchmark's step.
caps=0 moves=0 last= first= names=() lefts=0 shown=
for _ in $(seq 1 600); do
	s=$(tmux_capture "$srv")
	[[ "$s" == *"Phase: benchmarking"* ]] || break
	p=$(bench_percent "$s")
	if [ -n "$p" ]; then
		caps=$((caps + 1))
		[ -n "$first" ] || first=$p
		if [ -n "$last" ] && [ "$p" -gt "$last" ]; then
			moves=$((moves + 1))
		fi
		last=$p
		names+=("$(grep -oE '^  Measuring: .*' <<<"$s" | sed 's/^  Measuring: //; s/ *$//')")
		if grep -qE '^  Time left: about [0-9]+:[0-9]{2}' <<<"$s"; then
			lefts=$((lefts + 1))
			# The capture saved is one with everything: name, bar and time left.
			[ -n "$shown" ] || shown=$s
		fi
		[ "$moves" -ge 3 ] && [ -n "$shown" ] && break
	fi
	sleep 0.3
done
echo "captures while measuring: $caps; the bar moved $moves times ($first% -> $last%);" \
	"time left shown in $lefts"
printf '  test shown: %s\n' "${names[@]}" | sort | uniq -c
assert_true "several captures showed the benchmark's step ($caps)" test "$caps" -ge 3
assert_true "the bar advanced between captures ($first% -> $last%, $moves moves)" \
	test "$moves" -ge 3
assert_true "a time left was shown ($lefts captures)" test "$lefts" -ge 1
assert_true "a preset test was named (${names[*]:0:3} ...)" \
	grep -qE '^(SEQ1M|RND4K) Q[0-9]+T1 (read|write|mix 70/30)$' \
	< <(printf '%s\n' "${names[@]}")
assert_contains "the bar is drawn" "$shown" "█"
[ -z "${FDEWIZ_TUI_CAPTURES:-}" ] || printf '%s\n' "$shown" \
	>"$FDEWIZ_TUI_CAPTURES/5b-baseline-progress.txt"

# q while it measures: nothing happens, the screen stays (the header steps come next).
if [[ "$(tmux_capture "$srv")" == *"Phase: benchmarking"* ]]; then
	tmux_send "$srv" q
	sleep 1
	assert_contains "q while measuring: the wizard stays" "$(tmux_capture "$srv")" \
		"Encrypting $img:1"
fi

# The conversion then runs and completes (without device-mapper here, offline).
tmux_wait_for "$srv" "Results for $img:1" 900
tmux_send "$srv" q
tmux_wait_exit "$srv" 20
assert_eq "results: exit status" 0 "$(tmux_exit_status "$srv")"
state_now=$(FDEWIZ_STATE_DIR=$state "$FDEWIZ" status --json "$img:1" |
	jq -r '.conversions[0].state')
assert_eq "status after the wizard" complete "$state_now"
job_file=$(ls "$state"/jobs/*.json)
assert_true "the baseline was saved" test -s "$(jq -r .bench_before "$job_file")"

# cryptsetup decrypts through a new header file, then fsck and the sums of every file.
verify_encrypted "$img" "$pass"
assert_finish
