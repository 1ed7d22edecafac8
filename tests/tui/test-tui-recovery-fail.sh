#!/bin/bash
# The wizard's recovery key goes through the engine's start, as the command line's does: a
# key that does not pass its test against the new header is never shown.
# FDEWIZ_TEST_FAIL_AT=recovery-key-mismatch makes the key to show differ from the one
# written. The wizard then skips the recovery key screen, says on the progress screen that
# no key was added and how to add one, and the conversion completes: the passphrase opens
# the volume (cryptsetup, key on stdin), it decrypts to the same files (fsck clean), and
# `fdewiz recovery-key add` then gives a working key in the next free keyslot.
. "$(dirname "$0")/../lib/start.sh" jobs tmux
require_cmds tmux parted losetup mkfs.ext4 cryptsetup e2fsck sha256sum

tmux_test_init rkfail rk.img
pass="correct horse battery staple"
img_ext4_fixture "$img" 240 40
group='[2-9A-HJ-NP-Z]{6}'
key_re="$group(-$group){7}"

# The screen as one line, so a sentence the wizard wrapped is found whole.
flat()
{
	tmux_capture "$srv" | sed 's/[│|]/ /g' | tr -s ' \n' '  '
}

tmux_start "$srv" 100 30 env FDEWIZ_STATE_DIR="$state" FDEWIZ_TEST_FAST_PBKDF=1 \
	FDEWIZ_TEST_FAIL_AT=recovery-key-mismatch "$FDEWIZ" "$img"
tmux_wait_for "$srv" "Choose a partition" 20
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Plan for $img:1" 30
# The benchmark box off, to save time.
tmux_send "$srv" Space
tmux_wait_for "$srv" "[ ] Measure the speed" 10
tmux_send "$srv" Enter
tmux_passphrase_twice "$srv" "$pass" recovery-key
tmux_send "$srv" -l "YES"
tmux_send "$srv" Enter

# No key screen: the progress screen says no key was added, and how to add one later.
said=no
seen_key=no
for _ in $(seq 1 1200); do
	s=$(flat)
	grep -qE "$key_re" <<<"$s" && seen_key=yes
	[[ "$s" == *"I have written it down"* ]] && seen_key=yes
	if [[ "$s" == *"No recovery key is shown (the key made does not open the volume)"* ]]
	then
		said=yes
		break
	fi
	[[ "$s" == *"Results for $img:1"* ]] && break
	sleep 0.1
done
assert_eq "progress: says no recovery key was added" yes "$said"
assert_contains "progress: how to add one" "$s" "fdewiz recovery-key add $img:1"
assert_eq "no recovery key shown, no key screen" no "$seen_key"
tmux_wait_for "$srv" "Results for $img:1" 900
tmux_send "$srv" q
tmux_wait_exit "$srv" 20
assert_eq "exit status" 0 "$(tmux_exit_status "$srv")"
assert_not_contains "nothing says a key waits to be written down" \
	"$(tmux_capture "$srv" -J -S -)" "not confirmed"

# The data: the passphrase opens it; recovery-key add gives a key in keyslot 2 (1 holds
# the one that failed its test), which cryptsetup confirms; it decrypts to the same files.
loop=$(img_loop "$img" 1)
assert_true "the passphrase opens it (cryptsetup, stdin)" run_quiet bash -c \
	'printf "%s" "$1" | cryptsetup open --test-passphrase --key-file=- "$2"' _ "$pass" "$loop"
img_unloop "$loop"
printf '%s' "$pass" >"$IMG_TMP/pass"
run_cmd "$IMG_TMP/add" env FDEWIZ_STATE_DIR="$state" "$FDEWIZ" recovery-key add --fast-pbkdf \
	--key-file "$IMG_TMP/pass" "$img:1"
assert_eq "recovery-key add afterwards: exit" 0 "$RUN_RC"
assert_contains "recovery-key add afterwards: keyslot 2" "$(cat "$IMG_TMP/add.out")" \
	"(keyslot 2)"
key=$(grep -oE "$key_re" "$IMG_TMP/add.out" || true)
loop=$(img_loop "$img" 1)
assert_eq "cryptsetup opens the new key in keyslot 2" 2 "$(printf '%s' "$key" |
	cryptsetup open --test-passphrase -v --key-file=- "$loop" 2>&1 |
	sed -n 's/^Key slot \([0-9]*\) unlocked\.$/\1/p')"
img_unloop "$loop"
# The key as shown, never written to a file.
verify_decrypt --as "the new key" --key <(printf '%s' "$key") "$img" 1

assert_finish
