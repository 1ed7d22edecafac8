#!/bin/bash
# Names from a hostile disk: a GPT name and an ext4 label with ESC sequences, BEL, CR and
# invalid UTF-8 reach no terminal raw. `list`, erase-encrypt's confirmation and the wizard
# show them escaped (\x1b style; the bytes are captured), `list --json` keeps them exactly.
. "$(dirname "$0")/../lib/start.sh" tmux
require_cmds sgdisk mkfs.ext4 python3 tmux losetup sha256sum

srv=fdw-hostile-$$
img_test_init
tmux_own "$srv"
export FDEWIZ_STATE_DIR=$IMG_TMP/state
img=$IMG_TMP/hostile.img

# Partition name: an OSC window title ended by BEL, a clear-screen CSI, a CR and Cyrillic
# (valid UTF-8, kept). Label (16 bytes at most): SGR red, invalid UTF-8 0xff 0xfe, CR, BEL.
gpt_name=$(printf 'a\033]0;pwn\a\033[2J\rXД')
label=$(printf '\033[31mR\xff\xfe\r\a\033[0m')
img_new "$img" 128
sgdisk -n 1:2048:+100M -t 1:8300 "$img" >/dev/null 2>&1
sgdisk -c 1:"$gpt_name" "$img" >/dev/null 2>&1
img_mkfs "$img" 1 ext4 "$label"
before=$(sha256sum <"$img")

# The raw control bytes the disk carries; none of them may reach a terminal.
no_raw_controls()
{
	local what=$1 file=$2

	if python3 - "$file" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
bad = [b'\x1b]0;pwn', b'\x07', b'\x1b[31mR', b'\xff\xfe', b'\x1b[2J\r', b'\x1b[2Jel',
       b'\x9b6n', b'note\x1b']
sys.exit(1 if any(b in data for b in bad) else 0)
PY
	then
		assert_pass "$what: no raw control byte or invalid UTF-8 from the disk"
	else
		assert_fail "$what: a raw control sequence from the disk reached the output:"
		od -c "$file" | head -20 >&2
	fi
}

# 1. list: escaped like lsblk, Cyrillic kept.
run_cmd "$IMG_TMP/l" "$FDEWIZ" list "$img"
assert_eq "list: exit" 0 "$RUN_RC"
no_raw_controls "list" "$IMG_TMP/l.out"
no_raw_controls "list stderr" "$IMG_TMP/l.err"
assert_contains "list: GPT name escaped" "$(cat "$IMG_TMP/l.out")" \
	'a\x1b]0;pwn\x07\x1b[2J\x0dXД'
assert_contains "list: label escaped" "$(cat "$IMG_TMP/l.out")" \
	'\x1b[31mR\xff\xfe\x0d\x07\x1b[0m'

# 2. list --json: both strings round-trip byte for byte (invalid UTF-8 stays as raw bytes;
# a reader decodes with surrogateescape), the control characters as JSON escapes.
run_cmd "$IMG_TMP/j" "$FDEWIZ" list --json "$img"
assert_eq "list --json: exit" 0 "$RUN_RC"
if python3 - "$IMG_TMP/j.out" "$gpt_name" "$label" <<'PY'
import json, os, sys
raw = open(sys.argv[1], 'rb').read()
assert b'\x1b' not in raw and b'\x07' not in raw and b'\r' not in raw, 'raw control in JSON'
d = json.loads(raw.decode('utf-8', 'surrogateescape'))
p = d['disks'][0]['partitions'][0]
enc = lambda s: s.encode('utf-8', 'surrogateescape')
assert enc(p['name']) == os.fsencode(sys.argv[2]), (p['name'], sys.argv[2])
assert enc(p['label']) == os.fsencode(sys.argv[3]), (p['label'], sys.argv[3])
PY
then
	assert_pass "list --json: name and label round-trip exactly"
else
	assert_fail "list --json: name or label changed"
fi

# 3. erase-encrypt's confirmation: a wrong answer, the prompt captured, nothing written.
printf 'erase test passphrase' >"$IMG_TMP/pass"
run_cmd "$IMG_TMP/e" bash -c "printf 'no\n' | '$FDEWIZ' erase-encrypt --fs none \
	--fast-pbkdf --key-file '$IMG_TMP/pass' '$img:1'"
assert_eq "erase-encrypt wrong answer: exit" 1 "$RUN_RC"
no_raw_controls "erase-encrypt prompt" "$IMG_TMP/e.out"
no_raw_controls "erase-encrypt stderr" "$IMG_TMP/e.err"
assert_contains "erase-encrypt: label escaped in the prompt" "$(cat "$IMG_TMP/e.out")" \
	"(ext4 '\\x1b[31mR\\xff\\xfe\\x0d\\x07\\x1b[0m'"
assert_eq "erase-encrypt: image unchanged" "$before" "$(sha256sum <"$img")"

# 4. bench --compare of result files whose strings were crafted: shown escaped.
for which in plain enc; do
	python3 - "$FDEWIZ_SRCDIR/tests/fuzz/corpus/fuzz_bench_result/bench-io.json" \
		"$IMG_TMP/$which.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['target'] = 'usb\x1b]0;pwn\x07\r'
d['label'] = 'lab\x1b[2Jel'
d['cpu_model'] = 'cpu\x9b6n'
d['tests'][0]['note'] = 'note\x1b[31m'
json.dump(d, open(sys.argv[2], 'w'))
PY
done
run_cmd "$IMG_TMP/c" "$FDEWIZ" bench --compare "$IMG_TMP/plain.json" "$IMG_TMP/enc.json"
assert_eq "bench --compare: exit" 0 "$RUN_RC"
[ "$RUN_RC" = 0 ] || cat "$IMG_TMP/c.err" >&2
no_raw_controls "bench --compare" "$IMG_TMP/c.out"
assert_contains "bench --compare: target and label escaped" "$(cat "$IMG_TMP/c.out")" \
	'usb\x1b]0;pwn\x07\x0d (lab\x1b[2Jel'
run_cmd "$IMG_TMP/c2" bash -c "'$FDEWIZ' bench --compare --json '$IMG_TMP/plain.json' \
	'$IMG_TMP/enc.json'"
assert_eq "bench --compare --json: exit" 0 "$RUN_RC"

# 5. The wizard: every byte it writes to the terminal (tmux pipe-pane) and the screen.
tmux_start "$srv" 120 30 "$FDEWIZ" "$img"
tmux_cmd "$srv" pipe-pane -o -t "$srv" "cat >>'$IMG_TMP/tui.raw'"
tmux_send "$srv" C-l
tmux_wait_for "$srv" 'pwn\x07' 10
screen=$(tmux_capture "$srv")
assert_contains "wizard: GPT name shown escaped" "$screen" 'a\x1b]0;pwn\x07'
tmux_send "$srv" q
tmux_wait_exit "$srv" 10 || true
sleep 0.3
[ -s "$IMG_TMP/tui.raw" ] && assert_pass "wizard: terminal bytes captured" ||
	assert_fail "wizard: nothing captured from the pane"
no_raw_controls "wizard terminal output" "$IMG_TMP/tui.raw"
assert_contains "wizard: the escaped name was among the captured bytes" \
	"$(tr -d '\000' <"$IMG_TMP/tui.raw")" ']0;pwn\x07' 
assert_eq "wizard: image unchanged" "$before" "$(sha256sum <"$img")"

assert_finish
