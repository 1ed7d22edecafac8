#!/bin/bash
# In-place encryption of a btrfs partition: the list offers a shrink (estimated from its
# superblock), the conversion shrinks it through a private mount and `btrfs filesystem
# resize`, and cryptsetup (not fdewiz) then decrypts it for `btrfs check` and the sha256
# of every file. Refused, each time with the image unchanged and the message saying why: a
# btrfs too full to give up the header's room (by the list and by encrypt), and one holding
# an installed system in a subvolume (without an initramfs fdewiz knows), found by a
# read-only look inside.
# Cost: about 40 s (two small btrfs filesystems, one conversion of 320 MiB).
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds jq parted losetup blkid blockdev mkfs.btrfs btrfs mkfs.vfat cryptsetup sha256sum

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
img=$IMG_TMP/btrfs.img
img_worker_stop_at_exit "$FDEWIZ_STATE_DIR" "$img" 2
key=$IMG_TMP/key
printf '%s' "correct horse battery staple" >"$key"
res=$IMG_TMP/run
MiB=1048576

img_new "$img" 680
img_gpt "$img"
img_part "$img" ESP 1 33
img_flag "$img" 1 esp
img_mkfs "$img" 1 vfat ESP
# btrfs resizes no device below 256 MiB: both partitions are above that plus the header.
img_part "$img" Pool 33 353
img_mkfs "$img" 2 btrfs pool
img_fill "$img" 2 80
img_part "$img" Tight 353 end
img_mkfs "$img" 3 btrfs tight
img_fill "$img" 3 200

# 1. The list: the btrfs with room shrinks, the full one says how much to free.
fdw list --json "$img"
assert_eq "list exit status" 0 "$RUN_RC"
part() { jq -c ".disks[0].partitions[] | select(.number == $1) | .verdict" "$res.out"; }
assert_eq "pool: eligible, by shrinking" '"shrink"' "$(part 2 | jq -c .strategy)"
assert_eq "tight: too full" '"full"' "$(part 3 | jq -c .reason)"
assert_contains "tight: says btrfs is too full and what to free" "$(part 3 | jq -r .message)" \
	"btrfs filesystem is too full"
assert_contains "tight: names the MiB to free" "$(part 3 | jq -r .message)" "MiB freed"

# 2. Encrypting the full one: refused, not a byte changed.
sum=$(sha256sum <"$img")
fdw encrypt --yes --foreground --fast-pbkdf --no-bench --key-file "$key" --work-dir "$IMG_TMP" \
	"$img:3"
assert_true "tight: refused (exit $RUN_RC)" [ "$RUN_RC" -ne 0 ]
assert_contains "tight: the reason" "$(tr '\n' ' ' <"$res.all")" "too full"
assert_eq "tight: image unchanged" "$sum" "$(sha256sum <"$img")"

# 3. A system installed in a subvolume of the pool (as Fedora installs one), found by a
# read-only look inside: this one has no initramfs fdewiz could make ask for a passphrase,
# so encrypt refuses, naming it, its subvolume and why.
with_system() # add|remove
{
	local dev mnt=$IMG_TMP/sys
	dev=$(img_loop "$img" 2)
	img_mount "$dev" "$mnt"
	if [ "$1" = add ]; then
		btrfs -q subvolume create "$mnt/@"
		mkdir -p "$mnt/@/etc"
		echo "UUID=$(blkid -o value -s UUID "$dev") / btrfs subvol=@ 0 0" >"$mnt/@/etc/fstab"
		echo 'PRETTY_NAME="Fedora Linux 39 (Test)"' >"$mnt/@/etc/os-release"
	else
		btrfs -q subvolume delete "$mnt/@"
	fi
	img_umount "$mnt"
	img_unloop "$dev"
}
with_system add
sum=$(sha256sum <"$img")
fdw encrypt --yes --foreground --fast-pbkdf --no-bench --key-file "$key" --work-dir "$IMG_TMP" \
	"$img:2"
assert_true "system on btrfs: refused (exit $RUN_RC)" [ "$RUN_RC" -ne 0 ]
assert_contains "system on btrfs: names it and where" "$(tr '\n' ' ' <"$res.all")" \
	"Holds Fedora Linux 39 (Test) (/ in the subvolume @, /boot inside)"
assert_contains "system on btrfs: says why" "$(tr '\n' ' ' <"$res.all")" \
	"neither initramfs-tools nor dracut was found in it"
assert_contains "system on btrfs: nothing changed" "$(tr '\n' ' ' <"$res.all")" \
	"Nothing was changed."
assert_eq "system on btrfs: image unchanged" "$sum" "$(sha256sum <"$img")"
with_system remove

# 4. The pool converts in place.
fdw encrypt --yes --foreground --fast-pbkdf --no-bench --key-file "$key" --work-dir "$IMG_TMP" \
	"$img:2"
assert_eq "pool: encrypt exit status" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
loop=$(img_loop "$img" 2)
assert_eq "pool: LUKS2 on the partition" crypto_LUKS "$(blkid -p -o value -s TYPE "$loop")"

# 5. Independent check: cryptsetup decrypts it through a new header file (this host has
# no device-mapper; the VM tests open volumes), then btrfs check and every file's sha256.
part_size=$(blockdev --getsize64 "$loop")
assert_true "pool: cryptsetup reencrypt --decrypt" run_quiet cryptsetup reencrypt --decrypt \
	--header "$IMG_TMP/dec.hdr" --key-file "$key" --batch-mode "$loop"
assert_eq "pool: btrfs again after decryption" btrfs "$(blkid -p -o value -s TYPE "$loop")"
assert_true "pool: btrfs check --readonly" run_quiet btrfs check --readonly "$loop"
dev_size=$(btrfs inspect-internal dump-super "$loop" |
	awk '$1 == "dev_item.total_bytes" { print $2 }')
echo "pool: btrfs device size $dev_size of a $part_size-byte partition"
assert_true "pool: shrunk by the header's room" [ "$dev_size" -le $((part_size - 32 * MiB)) ]
img_unloop "$loop"
assert_true "pool: sha256 of every file" img_verify "$img" 2
assert_finish
