#!/bin/bash
# PARTLABEL= in fstab is only rewritten when no other partition has that GPT name: two
# partitions named "Shared" leave their PARTLABEL lines alone (with a message saying so),
# while the PARTUUID line of the same partition and a unique name are rewritten.
. "$(dirname "$0")/../lib/start.sh"
require_cmds cryptsetup parted sgdisk sha256sum losetup

img_test_init
img=$IMG_TMP/disk.img
img_new "$img" 200
img_gpt "$img"
img_part "$img" Shared 1 60
img_part "$img" Shared 60 120
img_part "$img" Only 120 199
img_mkfs "$img" 1 luks2
img_mkfs "$img" 2 ext4
img_mkfs "$img" 3 luks2
partuuid=$(sgdisk -i 1 "$img" | sed -n 's/^Partition unique GUID: //p' | tr 'A-Z' 'a-z')
image_sum=$(sha256sum <"$img")

root=$IMG_TMP/root
mkdir -p "$root/etc"
cat >"$root/etc/fstab" <<FSTAB
PARTLABEL=Shared /data ext4 defaults 0 2
/dev/disk/by-partlabel/Shared /data2 ext4 defaults 0 2
PARTUUID=$partuuid /srv ext4 defaults 0 2
PARTLABEL=Only /only ext4 defaults 0 2
FSTAB

run_cmd "$IMG_TMP/c1" "$FDEWIZ" crypttab --root "$root" --name one "$img:1"
assert_eq "shared name: exit" 0 "$RUN_RC"
cat "$IMG_TMP/c1.err" >&2
assert_contains "shared name: message" "$(cat "$IMG_TMP/c1.out")" \
	"lines that say PARTLABEL=Shared were left alone: 2 partitions on this machine have that name"
assert_contains "shared name: only the PARTUUID line moved" "$(cat "$IMG_TMP/c1.out")" \
	"fstab: 1 line that named the partition now names"
assert_eq "shared name: PARTLABEL lines unchanged, PARTUUID line rewritten" \
	"PARTLABEL=Shared /data ext4 defaults 0 2
/dev/disk/by-partlabel/Shared /data2 ext4 defaults 0 2
/dev/mapper/one /srv ext4 defaults 0 2
PARTLABEL=Only /only ext4 defaults 0 2" "$(cat "$root/etc/fstab")"

run_cmd "$IMG_TMP/c2" "$FDEWIZ" crypttab --root "$root" --name only "$img:3"
assert_eq "unique name: exit" 0 "$RUN_RC"
assert_not_contains "unique name: no warning" "$(cat "$IMG_TMP/c2.out")" "left alone"
assert_eq "unique name: its PARTLABEL line rewritten" "/dev/mapper/only /only ext4 defaults 0 2" \
	"$(tail -n 1 "$root/etc/fstab")"
assert_eq "the image itself is unchanged" "$image_sum" "$(sha256sum <"$img")"

assert_finish
