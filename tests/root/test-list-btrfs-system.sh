#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# An installed system on btrfs with its root in a subvolume (Debian's installer names it
# @rootfs), laid out as on an EFI machine: ESP, /boot, the btrfs, swap. list finds it by a
# read-only mount that only a child of fdewiz sees (on a loop device of its own: these are
# partitions of an image file), names the subvolume in words and in list --json, offers a
# shrink, and attributes the ESP, /boot and swap to it; the plan names the subvolume in its
# boot steps. Not a byte of the image changes (the look replays no log). Hostile trees are
# not taken for a system: a subvolume whose etc is a link out of it (to a system's tree on
# this machine), an fstab that is a FIFO; and one whose fstab mounts another subvolume at / is not
# the root it boots from. encrypt of a partition of an image file stays refused with
# nothing changed (a system's boot is set up only on a disk: test-vm-system-btrfs.sh).
# Cost: about 10 s.
. "$(dirname "$0")/../lib/start.sh"
require_cmds mkfs.btrfs btrfs mkfs.ext4 mkfs.vfat mkswap jq python3 parted sha256sum

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
img=$IMG_TMP/laptop.img
key=$IMG_TMP/key
printf 'btrfs system list test key' >"$key"

img_new "$img" 700
img_gpt "$img"
img_part "$img" ESP 1 33
img_flag "$img" 1 esp
img_part "$img" boot 33 97
img_part "$img" root 97 600
img_part "$img" swap 600 699
esp=$(img_loop "$img" 1)
boot=$(img_loop "$img" 2)
root=$(img_loop "$img" 3)
swap=$(img_loop "$img" 4)
mkfs.vfat "$esp" >/dev/null
mkfs.ext4 -q -F "$boot"
mkfs.btrfs -q -f "$root"
mkswap -q "$swap" >/dev/null
uuid() { blkid -p -o value -s UUID "$1"; }
root_uuid=$(uuid "$root")

# A stand-in Debian 12 in the subvolume @rootfs: initramfs-tools with cryptsetup-initramfs,
# GRUB for EFI, /boot and the ESP apart, swap by UUID.
make_system() # DIR SUBVOL-IN-FSTAB
{
	local r=$1
	mkdir -p "$r/etc/initramfs-tools/conf.d" "$r/usr/lib/grub/x86_64-efi" "$r/usr/sbin" \
		"$r/usr/share/initramfs-tools/hooks" "$r/boot" "$r/home/user"
	cat >"$r/etc/fstab" <<EOF
# /etc/fstab: static file system information.
UUID=$root_uuid / btrfs defaults,subvol=$2 0 0
UUID=$(uuid "$boot") /boot ext4 defaults 0 2
UUID=$(uuid "$esp") /boot/efi vfat umask=0077 0 1
UUID=$(uuid "$swap") none swap sw 0 0
EOF
	printf 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n' >"$r/usr/lib/os-release"
	ln -s ../usr/lib/os-release "$r/etc/os-release"
	printf '#!/bin/sh\n' >"$r/usr/sbin/update-initramfs"
	printf '#!/bin/sh\n' >"$r/usr/share/initramfs-tools/hooks/cryptroot"
	for i in $(seq 1 30); do head -c $((i * 97)) /dev/urandom >"$r/home/user/f$i"; done
}
mnt=$IMG_TMP/mnt
img_mount "$root" "$mnt"
btrfs -q subvolume create "$mnt/@rootfs"
make_system "$mnt/@rootfs" @rootfs
img_umount "$mnt"
for d in "$esp" "$boot" "$root" "$swap"; do img_unloop "$d"; done

list() # NAME: list --json of the image into $IMG_TMP/NAME.json
{
	"$FDEWIZ" list --json "$img" >"$IMG_TMP/$1.json"
}
p() { echo ".disks[0].partitions[$(($1 - 1))]"; }

# 1. Found, named with its subvolume, offered; the image unchanged by the look.
sum=$(sha256sum <"$img")
list found
assert_list_schema "$IMG_TMP/found.json"
assert_json "$IMG_TMP/found.json" "$(p 3) | .installed_system.root_subvolume" @rootfs
assert_json "$IMG_TMP/found.json" "$(p 3) | .installed_system.fstab_names_it" true
assert_json "$IMG_TMP/found.json" "$(p 3) | .installed_system.boot_separate" true
assert_json "$IMG_TMP/found.json" "$(p 3) | .installed_system.boot_loader" grub-efi
assert_json "$IMG_TMP/found.json" "$(p 3) | .verdict.reason" ok
assert_json "$IMG_TMP/found.json" "$(p 3) | .verdict.strategy" shrink
assert_contains "list names the system and its subvolume" \
	"$(jq -r "$(p 3) | .verdict.message" "$IMG_TMP/found.json")" \
	"Holds Debian GNU/Linux 12 (bookworm) (/ in the subvolume @rootfs; /boot on another partition)"
assert_contains "the ESP is attributed to it" \
	"$(jq -r "$(p 1) | .verdict.message" "$IMG_TMP/found.json")" "/boot/efi of Debian GNU/Linux 12"
assert_contains "/boot is attributed to it" \
	"$(jq -r "$(p 2) | .verdict.message" "$IMG_TMP/found.json")" "/boot of Debian GNU/Linux 12"
assert_contains "the swap is attributed to it" \
	"$(jq -r "$(p 4) | .verdict.message" "$IMG_TMP/found.json")" "swap of Debian GNU/Linux 12"
text=$("$FDEWIZ" list "$img")
assert_contains "the table names the subvolume" "$text" "/ in the subvolume @rootfs"
"$FDEWIZ" encrypt --dry-run --key-file "$key" "$img:3" >"$IMG_TMP/plan.txt" 2>&1 ||
	{ cat "$IMG_TMP/plan.txt"; exit 1; }
assert_contains "the plan mounts the subvolume in its boot steps" "$(cat "$IMG_TMP/plan.txt")" \
	"and mount its subvolume @rootfs with the system's /boot (UUID=$(jq -r "$(p 2) | .uuid" "$IMG_TMP/found.json"))"
assert_contains "the plan shrinks the btrfs" "$(cat "$IMG_TMP/plan.txt")" "btrfs, 503 MiB now, at most 471 MiB"
rc=0
"$FDEWIZ" encrypt --yes --fast-pbkdf --no-bench --foreground --key-file "$key" "$img:3" \
	>"$IMG_TMP/enc.txt" 2>&1 || rc=$?
assert_true "encrypt of an image's partition holding the system: refused (exit $rc)" [ "$rc" -ne 0 ]
assert_contains "encrypt says why and that nothing changed" "$(cat "$IMG_TMP/enc.txt")" \
	"fdewiz sets up the boot of a system only on a disk. Nothing was changed."
assert_eq "the image is unchanged by list, the plan and the refusal" "$sum" "$(sha256sum <"$img")"

# 2. Hostile trees: nothing outside the filesystem is read, nothing that blocks is opened.
# A system on this machine outside the image, which a reader following links would find.
outside=$IMG_TMP/outside
make_system "$outside" @evil
hostile() # link|fifo|other
{
	root=$(img_loop "$img" 3)
	img_mount "$root" "$mnt"
	if [ "$1" = link ]; then
		btrfs -q subvolume delete "$mnt/@rootfs"
		btrfs -q subvolume create "$mnt/@evil"
		ln -s "$outside/etc" "$mnt/@evil/etc"
	elif [ "$1" = fifo ]; then
		rm "$mnt/@evil/etc"
		mkdir "$mnt/@evil/etc"
		mkfifo "$mnt/@evil/etc/fstab"
	else
		btrfs -q subvolume delete "$mnt/@evil"
		btrfs -q subvolume create "$mnt/@snapshot"
		make_system "$mnt/@snapshot" @rootfs
	fi
	img_umount "$mnt"
	img_unloop "$root"
}
hostile link
list link
assert_json "$IMG_TMP/link.json" "$(p 3) | .installed_system" null
hostile fifo
timeout 60 "$FDEWIZ" list --json "$img" >"$IMG_TMP/fifo.json"
assert_json "$IMG_TMP/fifo.json" "$(p 3) | .installed_system" null
# 3. Its fstab mounts @rootfs at /, but this tree is @snapshot: not the root it boots from.
hostile other
list other
assert_json "$IMG_TMP/other.json" "$(p 3) | .installed_system.root_subvolume" @snapshot
assert_json "$IMG_TMP/other.json" "$(p 3) | .installed_system.fstab_names_it" false
assert_json "$IMG_TMP/other.json" "$(p 3) | .verdict.reason" installed-system
assert_contains "says it is not the root the system boots from" \
	"$(jq -r "$(p 3) | .verdict.message" "$IMG_TMP/other.json")" \
	"its fstab mounts another filesystem at /"
assert_finish
