#!/bin/bash
# The wizard's guards, on a real disk image in tmux:
#  - a passphrase the engine rates weak is not taken by Enter, nor by a wrong word; Esc
#    empties the fields; typing WEAK accepts it; a strong one goes straight on;
#  - the confirm screen says what the benchmark will really do: before and after where the
#    volume can be opened, otherwise the baseline only and why (no device-mapper here);
#  - with a power-supply folder of the test's own (FDEWIZ_TEST_POWER_SUPPLY), the charger
#    pulled at 12 % mid-conversion: the progress screen says it waits for the charger (not
#    "press r"), nothing moves; the charger back, it runs on by itself and completes;
#    cryptsetup decrypts it to the same files (fsck, sha256 of every file).
#
# FDEWIZ_TUI_CAPTURES=DIR saves a text capture of each screen there.
. "$(dirname "$0")/../lib/start.sh" jobs tmux power
require_cmds tmux jq parted losetup mkfs.ext4 cryptsetup e2fsck sha256sum blkid

tmux_test_init guards guards.img
weak="letmein123"
pass="correct horse battery staple"
t0=$SECONDS
img_ext4_fixture "$img" 1202 60 Data end

# A mains supply, the laptop's battery, and a mouse's nearly empty one (not the computer's).
power_fake "$IMG_TMP/power_supply"
set_power 1 12 Charging

save()
{
	[ -z "${FDEWIZ_TUI_CAPTURES:-}" ] || tmux_capture "$srv" >"$FDEWIZ_TUI_CAPTURES/$1.txt"
}

# The screen as one line: the wizard wraps its sentences itself, so they are joined here.
flat()
{
	tmux_capture "$srv" | sed 's/[[:space:]]*$//' | tr '\n' ' ' | tr -s ' '
}

status_json()
{
	FDEWIZ_STATE_DIR=$state "$FDEWIZ" status --json "$img:1" 2>/dev/null || true
}

before=$(sha256sum <"$img")
tmux_start "$srv" 100 30 env FDEWIZ_STATE_DIR="$state" FDEWIZ_TEST_FAST_PBKDF=1 \
	FDEWIZ_TEST_POWER_SUPPLY="$power" "$FDEWIZ" "$img"
tmux_wait_for "$srv" "Choose a partition" 20
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Plan for $img:1" 30
tmux_wait_for "$srv" "[x] Measure the speed" 10
tmux_send "$srv" Enter

# 1. A weak passphrase: Enter alone and a wrong word do not take it; Esc empties the fields.
tmux_wait_for "$srv" "Choose the passphrase" 10
tmux_send "$srv" -l "$weak"
tmux_send "$srv" Tab
tmux_send "$srv" -l "$weak"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "To use it anyway, type WEAK and press Enter." 10
save guards-1-weak
s=$(flat)
assert_contains "weak: says why" "$s" "Weak passphrase: the passphrase is rated weak"
assert_contains "weak: the engine's advice" "$s" "one of the most common passwords"
assert_not_contains "weak: passphrase never on screen" "$s" "letmein"
# still_asked WHAT: a key typed after the Enter lands in the word's field, so the Enter was
# handled and left the question open.
still_asked()
{
	tmux_send "$srv" -l "x"
	tmux_wait_for "$srv" "> x" 10
	s=$(flat)
	assert_contains "$1: not accepted" "$s" "Not accepted: that was not WEAK."
	assert_contains "$1: still asked" "$s" "To use it anyway, type WEAK"
	assert_not_contains "$1: not on the confirm screen" "$s" "Type YES"
	tmux_send "$srv" BSpace
}
tmux_send "$srv" Enter
still_asked "weak: plain Enter"
tmux_send "$srv" -l "weak"
tmux_send "$srv" Enter
still_asked "weak: lower-case 'weak'"
tmux_send "$srv" Escape
tmux_wait_for "$srv" "Type a stronger passphrase (several unrelated words)." 10
assert_not_contains "weak: Esc leaves the question" "$(flat)" \
	"To use it anyway"
# Esc emptied both fields: Enter asks for a passphrase.
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Type a passphrase." 10

# The same weak one again, this time accepted with the typed word.
tmux_send "$srv" -l "$weak"
tmux_send "$srv" Tab
tmux_send "$srv" -l "$weak"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "To use it anyway, type WEAK and press Enter." 10
# On the smallest terminal the question and its field still fit.
tmux_resize "$srv" 60 18
tmux_wait_for "$srv" "Enter: use it if the word is right" 10
s=$(flat)
save guards-1-weak-60x18
assert_contains "60x18: the question whole" "$s" \
	"To use it anyway, type WEAK and press Enter. Esc: choose another one."
assert_contains "60x18: its field" "$s" "> "
assert_contains "60x18: the reason, whole" "$s" \
	"Weak passphrase: the passphrase is rated weak (about 10 bits: someone who gets the disk could guess it, and then read everything on it). This is one of the most common passwords; it is tried first."
tmux_resize "$srv" 100 30
tmux_wait_for "$srv" "To use it anyway, type WEAK and press Enter." 10
tmux_send "$srv" -l "WEAK"
tmux_send "$srv" Enter

# 2. The confirm screen: what the benchmark will really do on this system.
tmux_wait_for "$srv" "Type YES" 10
save guards-2-confirm
s=$(flat)
if grep -q ' device-mapper$' /proc/misc && [ -e /dev/mapper/control ]; then
	assert_contains "confirm: before and after (device-mapper here)" "$s" \
		"- the speed is measured before and after;"
else
	assert_contains "confirm: the baseline only, and why" "$s" \
		"- the speed of the plain filesystem is measured first, but not after the conversion: this system has no device-mapper, so the encrypted volume cannot be opened;"
	assert_not_contains "confirm: no promise of an after-run" "$s" "before and after"
fi
assert_eq "nothing changed before YES (sha256)" "$before" "$(sha256sum <"$img")"

# Back (the passphrase is wiped), and the benchmark off to save time.
tmux_send "$srv" Escape
tmux_wait_for "$srv" "Choose the passphrase" 10
tmux_send "$srv" Escape
tmux_wait_for "$srv" "Plan for $img:1" 10
tmux_send "$srv" Space
tmux_wait_for "$srv" "[ ] Measure the speed" 10
tmux_send "$srv" Enter

# A strong passphrase is not asked about twice.
tmux_passphrase_twice "$srv" "$pass"
s=$(flat)
assert_contains "strong: straight to the confirm screen" "$s" "Confirm"
assert_contains "confirm: no benchmark" "$s" "- no benchmark;"
tmux_send "$srv" -l "YES"
tmux_send "$srv" Enter

# 3. The charger pulled mid-conversion: the screen says it waits for it.
tmux_wait_for "$srv" "State: running" 300
running=no
FDEWIZ_STATE_DIR=$state wait_job "$img:1" '.state == "running" and .done > 0' 60 && running=yes
assert_eq "the worker is converting" yes "$running"
set_power 0 12 Discharging
tmux_wait_for "$srv" "Paused at a safe point because the battery is low" 120
save guards-3-on-battery
s=$(flat)
assert_contains "battery: the phase" "$s" "Phase: waiting for the charger"
assert_contains "battery: the state" "$s" "State: paused"
assert_contains "battery: goes on by itself" "$s" \
	"Connect the charger; the conversion goes on by itself."
assert_contains "battery: the worker's message" "$s" \
	"paused: battery low, waiting for the charger"
assert_not_contains "battery: not 'press r'" "$s" "Press r to resume"
j=$(status_json)
assert_eq "status: paused" paused "$(jq -r '.conversions[0].state' <<<"$j")"
assert_eq "status: on-battery" on-battery "$(jq -r '.conversions[0].phase' <<<"$j")"
done1=$(jq -r '.conversions[0].done' <<<"$j")
total=$(jq -r '.conversions[0].total' <<<"$j")
echo "    paused for the battery at $done1 of $total bytes"
assert_true "battery: part-way" test "$done1" -gt 0 -a "$done1" -lt "$total"
# r asks nothing: it resumes by itself.
tmux_send "$srv" r
tmux_wait_for "$srv" "It waits for the charger and goes on by itself once it is connected." 10
assert_not_contains "r: no passphrase prompt" "$(flat)" "to resume its conversion"
sleep 3
assert_eq "battery: nothing moves meanwhile" "$done1" \
	"$(status_json | jq -r '.conversions[0].done')"
assert_contains "battery: still waiting on screen" "$(flat)" \
	"Phase: waiting for the charger"

# The charger back: it goes on by itself, and completes.
set_power 1 13 Charging
seen=
for _ in $(seq 1 3000); do
	s=$(flat)
	case $s in
	*"Results for $img:1"*) seen=complete; break ;;
	*"State: running"*) seen=running; break ;;
	esac
	sleep 0.1
done
echo "    after the charger: $seen"
assert_true "charger back: the screen shows it running or complete" test -n "$seen"
assert_not_contains "charger back: no battery sentence" "$s" "because the battery is low"
tmux_wait_for "$srv" "Results for $img:1" 900
save guards-4-results
assert_eq "status: complete" complete "$(status_json | jq -r '.conversions[0].state')"
tmux_send "$srv" q
tmux_wait_exit "$srv" 20
assert_eq "exit status" 0 "$(tmux_exit_status "$srv")"
grep -hE "battery|mains" "$state"/jobs/*.log | sed 's/^/    log: /' || true

# 4. cryptsetup decrypts it to the same files.
loop=$(img_loop "$img" 1)
assert_eq "LUKS2 on the partition" crypto_LUKS "$(blkid -p -o value -s TYPE "$loop")"
printf '%s' "$pass" >"$IMG_TMP/key"
printf '%s' "$weak" >"$IMG_TMP/weak-key"
assert_true "the weak passphrase tried first does not open it" sh -c \
	"! cryptsetup luksOpen --test-passphrase --key-file '$IMG_TMP/weak-key' '$loop'"
img_unloop "$loop"
verify_decrypt --key "$IMG_TMP/key" "$img" 1
echo "run time: $((SECONDS - t0)) s"
assert_finish
