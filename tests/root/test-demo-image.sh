#!/bin/bash
# The README's demo disk: built as documented, listed as a laptop disk, its sample data intact.
set -euo pipefail

lib=$(dirname "$0")/../lib
. "$lib/assert.sh"
. "$lib/images.sh"
require_root
require_cmds jq losetup sha256sum
require_fdewiz
img_test_init
work=$IMG_TMP
fail() { echo "FAIL: $*" >&2; exit 1; }

img=$work/laptop.img
"$FDEWIZ_SRCDIR/data/make-demo-disk.sh" "$img" 120 >/dev/null
# Refuses to overwrite an existing image.
if "$FDEWIZ_SRCDIR/data/make-demo-disk.sh" "$img" 2>/dev/null; then fail "overwrote an existing image"; fi

"$FDEWIZ" list --json "$img" >"$work/list.json"
q() { jq -r "$1" "$work/list.json"; }
[ "$(q '.disks[0].table')" = gpt ] || fail "table is not gpt"
[ "$(q '.disks[0].partitions | length')" = 3 ] || fail "expected 3 partitions"
[ "$(q '[.disks[0].partitions[].name] | join(",")')" = "EFI,Legacy,Data" ] || fail "names"
[ "$(q '[.disks[0].partitions[].fstype] | join(",")')" = "vfat,ext4,ext4" ] || fail "fstypes"
[ "$(q '.disks[0].partitions[0].verdict.reason')" = efi-system ] || fail "EFI verdict"
[ "$(q '.disks[0].partitions[2].verdict.eligible')" = true ] || fail "Data not eligible"
[ "$(q '.disks[0].partitions[2].verdict.strategy')" = shrink ] || fail "Data strategy"
used=$(q '.disks[0].partitions[2].fs_used')
[ "$used" -gt $((120 * 1048576)) ] || fail "Data holds only $used bytes"

# The checksum list matches the files in the Data partition.
off=$(q '.disks[0].partitions[2].start')
size=$(q '.disks[0].partitions[2].size')
loop=$(losetup -f --show -r -o "$off" --sizelimit "$size" "$img")
img_register loop "$loop"
img_mount "$loop" "$work/mnt" ro
(cd "$work/mnt" && sha256sum -c --quiet "$img.sha256") || fail "sample data checksums"
echo "PASS: demo image: EFI, Legacy, Data as documented; $(wc -l <"$img.sha256") files verified"
