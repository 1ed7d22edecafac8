#!/bin/bash
# fdewiz encrypt --escrow-command / --escrow-dir: the recovery key handed to an IT
# department's store before a byte of the disk changes. A command that fails (here: one
# that also prints what it was given) stops the conversion with the disk byte for byte as
# it was, no job record and no header backup, and its words in the message, never the key;
# a folder that is not one, the same. Then both at once: the command gets one JSON
# document on its standard input, the folder the same document as LUKS-UUID.json (mode
# 0600); the document names the host, the machine, the device, the filesystem's and the
# header's UUIDs, and holds the key shown on the screen, which opens the volume; while it
# ran, no process's command line or environment held the key (/proc scanned), nor did
# fdewiz's verbose log. Then --events json, unattended, on a second disk: standard output
# holds JSON lines only (planned, started, progress, done; a refusal: planned, failed
# with the reason), never the key. The data is verified with the cryptsetup program, fsck
# clean.
# Cost: two 100 MiB images, three tries and two foreground conversions, about 15 s.
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds cryptsetup parted mkfs.ext4 e2fsck sha256sum losetup python3

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
img=$IMG_TMP/disk.img
key=$IMG_TMP/pass
printf 'escrow test passphrase' >"$key"
img_ext4_fixture "$img" 100 16
part_sum() { img_on_loop "$img" 1 sha256sum | cut -d' ' -f1; }
records() { find "$FDEWIZ_STATE_DIR" -name '*.json' 2>/dev/null | wc -l; }
before=$(part_sum)

# events FILE: every line of FILE is one JSON object with an "event"; their names in order,
# one a line (progress once however often it came).
events()
{
	python3 - "$1" <<'EOF'
import json, sys
names = []
for line in open(sys.argv[1]):
    e = json.loads(line)
    assert isinstance(e, dict) and isinstance(e["event"], str), line
    if not (names and names[-1] == e["event"] == "progress"):
        names.append(e["event"])
print("\n".join(names))
EOF
}

# 1. The escrow command fails, after printing what it was given: stopped, nothing changed,
# its words in the message with the key masked. With --events json: the plan and the
# failure as JSON lines on standard output, the words for a person on standard error.
encrypt_argv
run_cmd "$IMG_TMP/fail" "$FDEWIZ" "${ENCRYPT_ARGV[@]}" --header-backup "$IMG_TMP/fail.hdr" \
	--events json \
	--escrow-command "tee '$IMG_TMP/given.json'; echo the store said no >&2; exit 3" "$img:1"
assert_eq "failing escrow: exit" 1 "$RUN_RC"
err=$(cat "$IMG_TMP/fail.err")
assert_contains "failing escrow: says the command failed, and how" "$err" \
	"the recovery key was not escrowed: the escrow command failed (exit status 3; it said: "
assert_contains "failing escrow: its words" "$err" "the store said no"
assert_contains "failing escrow: nothing was changed" "$err" "Nothing was changed"
given_key=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["recovery_key"])' \
	"$IMG_TMP/given.json" 2>/dev/null || true)
assert_eq "failing escrow: the command was given a key" 55 "${#given_key}"
assert_not_contains "failing escrow: the key it printed is not in the message" \
	"$err$(cat "$IMG_TMP/fail.out")" "${given_key:-no key}"
assert_eq "failing escrow: the partition byte for byte as before" "$before" "$(part_sum)"
assert_eq "failing escrow: no job record" 0 "$(records)"
assert_eq "failing escrow: events planned, failed (JSON lines, nothing else on stdout)" \
	"$(printf 'planned\nfailed')" "$(events "$IMG_TMP/fail.out" 2>&1)"
assert_contains "failing escrow: the failed event says why" "$(tail -n1 "$IMG_TMP/fail.out")" \
	'"reason":"the recovery key was not escrowed: the escrow command failed (exit status 3'
assert_contains "failing escrow: the plan for a person on stderr" "$err" "cipher"
assert_true "failing escrow: no header backup" test ! -e "$IMG_TMP/fail.hdr"

# 2. An escrow folder that is not one: the same.
run_cmd "$IMG_TMP/nodir" "$FDEWIZ" "${ENCRYPT_ARGV[@]}" --header-backup "$IMG_TMP/nodir.hdr" \
	--escrow-dir "$IMG_TMP/no-such-share" "$img:1"
assert_eq "missing folder: exit" 1 "$RUN_RC"
assert_contains "missing folder: says so" "$(cat "$IMG_TMP/nodir.err")" \
	"the escrow folder $IMG_TMP/no-such-share is not a folder"
assert_contains "missing folder: nothing was changed" "$(cat "$IMG_TMP/nodir.err")" \
	"Nothing was changed"
assert_eq "missing folder: the partition as before" "$before" "$(part_sum)"

# 3. To a command and a folder: the command waits a moment, so that the scan of every
# process's command line and environment sees it running.
mkdir -m 0700 "$IMG_TMP/share"
scan=$IMG_TMP/proc-scan
: >"$scan"
"$FDEWIZ" -v "${ENCRYPT_ARGV[@]}" --header-backup "$IMG_TMP/ok.hdr" \
	--escrow-command "sleep 0.5; cat >'$IMG_TMP/store.json'" --escrow-dir "$IMG_TMP/share" \
	"$img:1" >"$IMG_TMP/ok.out" 2>"$IMG_TMP/ok.err" &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
	for p in /proc/[0-9]*; do
		{ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null || true
		echo
		{ tr '\0' '\n' <"$p/environ"; } 2>/dev/null || true
	done >>"$scan"
	sleep 0.1
done
rc=0
wait "$pid" || rc=$?
assert_eq "escrowed: exit" 0 "$rc"
[ "$rc" = 0 ] || cat "$IMG_TMP/ok.out" "$IMG_TMP/ok.err" >&2
alnum='[2-9A-HJ-NP-Z]'
shown=$(grep -E "^    ($alnum{6}-){7}$alnum{6}\$" "$IMG_TMP/ok.out" | tr -d ' ' || true)
assert_eq "escrowed: the key shown" 55 "${#shown}"
doc=$IMG_TMP/store.json
files=$(find "$IMG_TMP/share" -type f)
luks=$(img_on_loop "$img" 1 cryptsetup luksUUID)
assert_eq "escrowed: one file in the folder, named by the header's UUID" \
	"$IMG_TMP/share/$luks.json" "$files"
assert_eq "escrowed: that file is 0600" 600 "$(stat -c %a "$files" 2>/dev/null || true)"
assert_true "escrowed: the command and the folder got the same document" cmp "$doc" "$files"
fields=$(python3 - "$doc" <<'EOF' || true
import json, sys
d = json.load(open(sys.argv[1]))
print(d["fdewiz_escrow"], d["host"] != "", d["device"], d["luks_uuid"], len(d["filesystem_uuid"]),
      d["time"].endswith("Z"), d["machine_id"] == open("/etc/machine-id").read().strip())
print(d["recovery_key"])
EOF
)
assert_eq "escrowed: the document's fields" \
	"1 True $img:1 $luks 36 True True" "$(head -n1 <<<"$fields")"
escrowed=$(sed -n 2p <<<"$fields")
assert_eq "escrowed: the key in the document is the key shown" "$shown" "$escrowed"
assert_true "escrowed: that key opens the volume (cryptsetup)" \
	img_on_loop "$img" 1 cryptsetup open --test-passphrase --key-file <(printf '%s' "$escrowed")
assert_contains "escrowed: the scan saw the escrow command run" "$(cat "$scan")" "sleep 0.5; cat >"
assert_not_contains "escrowed: no command line or environment held the key" \
	"$(cat "$scan")" "${escrowed:-no key}"
assert_contains "escrowed: the log says where it went" "$(cat "$IMG_TMP/ok.err")" \
	"the recovery key was escrowed to the escrow command and into $IMG_TMP/share"
assert_not_contains "escrowed: the key is not in the log" "$(cat "$IMG_TMP/ok.err")" \
	"${escrowed:-no key}"
verify_encrypted "$img" "escrow test passphrase"

# 4. Unattended, on a second disk: --events json with the escrow into the folder. Standard
# output holds JSON lines only: planned, started (escrowed, the header's UUID), progress up
# to 100 %, done; none holds the key.
img2=$IMG_TMP/disk2.img
img_ext4_fixture "$img2" 100 16
run_cmd "$IMG_TMP/ev" "$FDEWIZ" "${ENCRYPT_ARGV[@]}" --header-backup "$IMG_TMP/ev.hdr" \
	--events json --escrow-dir "$IMG_TMP/share" "$img2:1"
assert_eq "events: exit" 0 "$RUN_RC"
[ "$RUN_RC" = 0 ] || cat "$IMG_TMP/ev.out" "$IMG_TMP/ev.err" >&2
luks2=$(img_on_loop "$img2" 1 cryptsetup luksUUID)
assert_eq "events: planned, started, progress, done, as JSON lines" \
	"$(printf 'planned\nstarted\nprogress\ndone')" "$(events "$IMG_TMP/ev.out" 2>&1 | grep -vx said)"
assert_contains "events: started names the header's UUID and the escrow" \
	"$(grep '"event":"started"' "$IMG_TMP/ev.out")" "\"luks_uuid\":\"$luks2\",\"recovery_key\":\"made and tested\",\"escrowed\":\"yes\""
assert_contains "events: the last progress is 100 %" \
	"$(grep '"event":"progress"' "$IMG_TMP/ev.out" | tail -n1)" '"percent":100'
key2=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["recovery_key"])' \
	"$IMG_TMP/share/$luks2.json" 2>/dev/null || true)
assert_eq "events: the escrowed key" 55 "${#key2}"
assert_not_contains "events: no event holds the key" "$(cat "$IMG_TMP/ev.out")" "${key2:-no key}"
assert_contains "events: the key for a person is on stderr" "$(cat "$IMG_TMP/ev.err")" "${key2:-no key}"
verify_encrypted "$img2" "escrow test passphrase"
assert_finish
