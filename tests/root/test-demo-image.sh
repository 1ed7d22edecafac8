#!/bin/bash
# The README's demo disk: built as documented, listed as a laptop disk, its sample data intact.
. "$(dirname "$0")/../lib/start.sh"
require_cmds jq losetup sha256sum
img_test_init
work=$IMG_TMP

img=$work/laptop.img
"$FDEWIZ_SRCDIR/data/make-demo-disk.sh" "$img" 120 >/dev/null
# Refuses to overwrite an existing image.
assert_true "refuses to overwrite an existing image" \
	eval '! "$FDEWIZ_SRCDIR/data/make-demo-disk.sh" "$img" 2>/dev/null'

"$FDEWIZ" list --json "$img" >"$work/list.json"
q() { jq -r "$1" "$work/list.json"; }
assert_eq "table" gpt "$(q '.disks[0].table')"
assert_eq "partitions" 3 "$(q '.disks[0].partitions | length')"
assert_eq "names" "EFI,Legacy,Data" "$(q '[.disks[0].partitions[].name] | join(",")')"
assert_eq "fstypes" "vfat,ext4,ext4" "$(q '[.disks[0].partitions[].fstype] | join(",")')"
assert_eq "EFI verdict" efi-system "$(q '.disks[0].partitions[0].verdict.reason')"
assert_eq "Data eligible" true "$(q '.disks[0].partitions[2].verdict.eligible')"
assert_eq "Data strategy" shrink "$(q '.disks[0].partitions[2].verdict.strategy')"
used=$(q '.disks[0].partitions[2].fs_used')
assert_true "Data holds more than 120 MiB ($used bytes)" test "$used" -gt $((120 * 1048576))

# The checksum list matches the files in the Data partition.
off=$(q '.disks[0].partitions[2].start')
size=$(q '.disks[0].partitions[2].size')
loop=$(losetup -f --show -r -o "$off" --sizelimit "$size" "$img")
img_register loop "$loop"
img_mount "$loop" "$work/mnt" ro
assert_true "sample data checksums ($(wc -l <"$img.sha256") files)" \
	bash -c 'cd "$1" && sha256sum -c --quiet "$2"' _ "$work/mnt" "$img.sha256"
assert_finish
