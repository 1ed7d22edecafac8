#!/bin/bash
# fdewiz list on bad input: right exit status, a message that names the problem, nothing written.
. "$(dirname "$0")/../lib/start.sh"
FDEWIZ_SCHEMA=${FDEWIZ_SCHEMA:-$FDEWIZ_SRCDIR/data/fdewiz-list.schema.json}
require_cmds jq parted losetup mkfs.ext4 setpriv sha256sum unshare mknod stat head

img_test_init

# Run fdewiz as nobody, with no supplementary groups (so not in group disk).
as_nobody()
{
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

good=$IMG_TMP/good.img
img_new "$good" 48
img_gpt "$good"
img_part "$good" Data 1 47
img_mkfs "$good" 1 ext4 data
missing=$IMG_TMP/no-such.img
dir=$IMG_TMP/a-directory
mkdir "$dir"
text=$IMG_TMP/notes.txt
# 4096 bytes: a whole number of sectors, so it gets past the size check to the probe.
for i in $(seq 128); do
	printf '%-31s\n' "Line $i of a text file."
done >"$text"
empty=$IMG_TMP/empty.img
: >"$empty"
odd=$IMG_TMP/odd.img
head -c 1000 /dev/urandom >"$odd"
inputs=("$good" "$text" "$empty" "$odd")

# Nobody may enter the temp dir but not list it; the image itself stays root-only.
chmod 711 "$IMG_TMP"
chmod 600 "$good"
fdewiz_nobody=$FDEWIZ
if ! as_nobody test -x "$FDEWIZ"; then
	# The build tree is not reachable for nobody: run the same binary from here.
	mkdir -m 755 "$IMG_TMP/bin"
	install -m 755 "$FDEWIZ" "$IMG_TMP/bin/fdewiz"
	fdewiz_nobody=$IMG_TMP/bin/fdewiz
fi
loop=$(img_loop "$good" 0)

sums=$IMG_TMP/sums
sha256sum "${inputs[@]}" >"$sums"

# expect WHAT STATUS CMD...: run CMD, check its exit status and that it says nothing was
# changed and changed nothing. Leaves stdout and stderr in $res.out and $res.err.
res=$IMG_TMP/res
expect()
{
	local what=$1 status=$2

	shift 2
	run_cmd "$res" "$@"
	assert_eq "$what: exit status" "$status" "$RUN_RC"
	assert_contains "$what: stderr" "$(cat "$res.err")" "Nothing was changed"
	assert_true "$what: inputs unchanged" sha256sum --quiet -c "$sums"
}

expect "missing path" 1 "$FDEWIZ" list "$missing"
assert_contains "missing path: stderr" "$(cat "$res.err")" "$missing"
assert_contains "missing path: stderr" "$(cat "$res.err")" "no such device or file"

expect "directory" 1 "$FDEWIZ" list "$dir"
assert_contains "directory: stderr" "$(cat "$res.err")" "$dir"
assert_contains "directory: stderr" "$(cat "$res.err")" "not a disk"

expect "text file" 1 "$FDEWIZ" list "$text"
assert_contains "text file: stderr" "$(cat "$res.err")" "$text"
assert_contains "text file: stderr" "$(cat "$res.err")" "not a disk"

expect "empty file" 1 "$FDEWIZ" list "$empty"
assert_contains "empty file: stderr" "$(cat "$res.err")" "not a disk"

expect "1000-byte file" 1 "$FDEWIZ" list "$odd"
assert_contains "1000-byte file: stderr" "$(cat "$res.err")" "not a disk"

# One bad name must not hide the good ones: both are reported, the status says error.
expect "good + missing, json" 1 "$FDEWIZ" list --json "$good" "$missing"
assert_true "good + missing: JSON matches the schema" \
	/usr/bin/python3 "$lib/check-list-schema.py" "$res.out" "$FDEWIZ_SCHEMA"
assert_json "$res.out" '[.disks[].path]' "[\"$good\"]"
assert_json "$res.out" '.disks[0].partitions[0].name' Data
assert_json "$res.out" '[.errors[].path]' "[\"$missing\"]"
assert_json "$res.out" '.errors[0].message | test("no such device or file")' true
assert_contains "good + missing: stderr" "$(cat "$res.err")" "$missing"
expect "good + missing, table" 1 "$FDEWIZ" list "$good" "$missing"
assert_contains "good + missing: table" "$(cat "$res.out")" "Data"
assert_contains "good + missing: stderr" "$(cat "$res.err")" "$missing"

expect "unknown option of list" 2 "$FDEWIZ" list --frobnicate "$good"
assert_contains "unknown option of list: stderr" "$(cat "$res.err")" "frobnicate"
expect "unknown global option" 2 "$FDEWIZ" --frobnicate list "$good"
assert_contains "unknown global option: stderr" "$(cat "$res.err")" "frobnicate"

expect "unknown command" 2 "$FDEWIZ" frobnicate
assert_contains "unknown command: stderr" "$(cat "$res.err")" "unknown command 'frobnicate'"
assert_eq "unknown command: stdout" "" "$(cat "$res.out")"

# Without root: a root-only block device, a root-only image, and all disks.
expect "block device as nobody" 1 as_nobody "$fdewiz_nobody" list "$loop"
assert_contains "block device as nobody: stderr" "$(cat "$res.err")" "$loop"
assert_contains "block device as nobody: stderr" "$(cat "$res.err")" "root"

expect "root-only image as nobody" 1 as_nobody "$fdewiz_nobody" list --json "$good"
assert_contains "root-only image as nobody: stderr" "$(cat "$res.err")" "root"
assert_json "$res.out" '[.errors[].path]' "[\"$good\"]"

expect "all disks as nobody" 1 as_nobody "$fdewiz_nobody" list
assert_contains "all disks as nobody: stderr" "$(cat "$res.err")" "root"
expect "all disks as nobody, no command" 1 as_nobody "$fdewiz_nobody"
assert_contains "all disks as nobody, no command: stderr" "$(cat "$res.err")" "root"

# A disk that exists and that the system refuses to open even to root (a container's
# device rules on a real machine; here the node of our loop device seen through a nodev
# mount, in a private mount namespace that dies with the command): listing all disks
# names it with the reason in the table, in the JSON errors and in the exit status.
# libparted leaves such a disk out without a word; the list used to say "No disks found."
# (exit 0) on a machine whose only disk it was.
mkdir "$IMG_TMP/nodev"
refused_dev()
{
	unshare -m --propagation private bash -c '
		mount -t tmpfs -o nodev,size=64k fdewiz-nodev "$1" &&
		mknod "$1/node" b "$2" "$3" && mount --bind "$1/node" "$4" || exit 99
		shift 4
		exec "$@"' bash "$IMG_TMP/nodev" "$((0x$(stat -c %t "$loop")))" \
		"$((0x$(stat -c %T "$loop")))" "$loop" "$@"
}
rc=0
refused_dev head -c 512 "$loop" >/dev/null 2>&1 || rc=$?
assert_eq "the node of $loop refuses root in the namespace (head's exit status)" 1 "$rc"
expect "all disks, one refused to root, json" 1 refused_dev "$FDEWIZ" list --json
assert_true "all disks, one refused: JSON matches the schema" \
	/usr/bin/python3 "$lib/check-list-schema.py" "$res.out" "$FDEWIZ_SCHEMA"
assert_json "$res.out" "[.disks[].path | select(. == \"$loop\")]" '[]'
assert_json "$res.out" "[.errors[] | select(.path == \"$loop\") | .message |
	test(\"refused access even to root\")]" '[true]'
assert_contains "all disks, one refused: stderr" "$(cat "$res.err")" "$loop"
expect "all disks, one refused to root, table" 1 refused_dev "$FDEWIZ" list
assert_contains "all disks, one refused: the table names it" "$(cat "$res.out")" \
	"$loop  not read"
assert_contains "all disks, one refused: the table says why" "$(cat "$res.out")" \
	"the system refused access even to root"
assert_true "all disks, one refused: not 'No disks found.'" \
	eval '! grep -q "No disks found" "$res.out"'

# And the good image alone still lists: the checks above did not just fail on everything.
run_cmd "$res" "$FDEWIZ" list --json "$good"
assert_eq "good image: exit status" 0 "$RUN_RC"
assert_json "$res.out" '.disks[0].partitions[0].fstype' ext4
assert_true "inputs unchanged at the end" sha256sum --quiet -c "$sums"

assert_finish
