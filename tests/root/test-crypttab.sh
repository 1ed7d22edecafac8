#!/bin/bash
# fdewiz crypttab on a scratch root: the entry is added with the LUKS UUID read from the
# header, every old byte of crypttab stays, the old file is kept as a backup, a second run
# changes nothing, conflicts are refused with nothing changed, and fstab lines that name the
# partition (device, PARTUUID=, PARTLABEL=) move to /dev/mapper/NAME while UUID= lines stay.
. "$(dirname "$0")/../lib/start.sh"
require_cmds cryptsetup parted sgdisk sha256sum losetup

img_test_init
img=$IMG_TMP/disk.img
img_new "$img" 200
img_gpt "$img"
img_part "$img" Data 1 99
img_part "$img" Plain 99 199
img_mkfs "$img" 1 luks2
img_mkfs "$img" 2 ext4 Plain
loop=$(img_loop "$img" 1)
uuid=$(cryptsetup luksUUID "$loop")
img_unloop "$loop"
partuuid=$(sgdisk -i 1 "$img" | sed -n 's/^Partition unique GUID: //p' | tr 'A-Z' 'a-z')

root=$IMG_TMP/root
mkdir -p "$root/etc"
crypttab_old='# <target name>	<source device>		<key file>	<options>
swap	/dev/sda5	/dev/urandom	swap,cipher=aes-xts-plain64,size=256   

home UUID=f00dcafe-0000-4000-8000-123456789abc none luks	# trailing comment'
printf '%s' "$crypttab_old" >"$root/etc/crypttab"	# no final newline, on purpose
chmod 0600 "$root/etc/crypttab"
cat >"$root/etc/fstab" <<FSTAB
# /etc/fstab: static file system information.
UUID=1111-2222 / ext4 errors=remount-ro 0 1
PARTUUID=${partuuid^^}	/srv	ext4	defaults,noatime	0	2
PARTLABEL=Data /data ext4 defaults 0 2
/dev/disk/by-partuuid/$partuuid /data2 ext4 defaults 0 2
PARTLABEL=Plain /plain ext4 defaults 0 2
#PARTUUID=$partuuid /old ext4 defaults 0 2
FSTAB
fstab_old=$(cat "$root/etc/fstab")

# 1. Add: the entry, the old bytes kept, backups made.
run_cmd "$IMG_TMP/c1" "$FDEWIZ" crypttab --root "$root" "$img:1"
assert_eq "add: exit" 0 "$RUN_RC"
cat "$IMG_TMP/c1.err" >&2
assert_contains "add: message" "$(cat "$IMG_TMP/c1.out")" "data UUID=$uuid none luks"
assert_eq "crypttab: old bytes, a newline, the entry" \
	"$crypttab_old"$'\n'"data UUID=$uuid none luks" "$(cat "$root/etc/crypttab")"
assert_eq "crypttab ends with a newline" 1 "$(tail -c1 "$root/etc/crypttab" | wc -l)"
assert_eq "crypttab keeps its mode" 600 "$(stat -c %a "$root/etc/crypttab")"
bak=$(ls "$root/etc/" | grep -E '^crypttab\.fdewiz-[0-9]{8}-[0-9]{6}\.bak$' || true)
assert_eq "one crypttab backup" 1 "$(printf '%s' "$bak" | grep -c . || true)"
assert_eq "the backup is the old file" "$crypttab_old" "$(cat "$root/etc/$bak")"
expect_fstab="# /etc/fstab: static file system information.
UUID=1111-2222 / ext4 errors=remount-ro 0 1
/dev/mapper/data	/srv	ext4	defaults,noatime	0	2
/dev/mapper/data /data ext4 defaults 0 2
/dev/mapper/data /data2 ext4 defaults 0 2
PARTLABEL=Plain /plain ext4 defaults 0 2
#PARTUUID=$partuuid /old ext4 defaults 0 2"
assert_eq "fstab: partition names rewritten, the rest byte for byte" "$expect_fstab" \
	"$(cat "$root/etc/fstab")"
assert_contains "fstab: message" "$(cat "$IMG_TMP/c1.out")" "3 lines that named the partition now name"
fbak=$(ls "$root/etc/" | grep -E '^fstab\.fdewiz-.*\.bak$' || true)
assert_eq "fstab backup is the old file" "$fstab_old" "$(cat "$root/etc/$fbak")"
assert_eq "no temporary files left" "" "$(ls -a "$root/etc" | grep -E '\.fdewiz-[A-Za-z0-9]{6}$' || true)"

# 2. Again: nothing changes, no new backup.
sums=$(cd "$root/etc" && sha256sum ./* | sort)
run_cmd "$IMG_TMP/c2" "$FDEWIZ" crypttab --root "$root" "$img:1"
assert_eq "again: exit" 0 "$RUN_RC"
assert_contains "again: message" "$(cat "$IMG_TMP/c2.out")" "nothing to add"
assert_contains "again: fstab" "$(cat "$IMG_TMP/c2.out")" "nothing to change"
assert_eq "again: files and backups unchanged" "$sums" "$(cd "$root/etc" && sha256sum ./* | sort)"

# 3. Conflicts: other options, another name for this volume, a name already taken.
run_cmd "$IMG_TMP/c3" "$FDEWIZ" crypttab --root "$root" --discard "$img:1"
assert_eq "other options: exit" 1 "$RUN_RC"
assert_contains "other options: message" "$(cat "$IMG_TMP/c3.err")" "with other settings"
run_cmd "$IMG_TMP/c4" "$FDEWIZ" crypttab --root "$root" --name secret "$img:1"
assert_eq "other name: exit" 1 "$RUN_RC"
assert_contains "other name: message" "$(cat "$IMG_TMP/c4.err")" "already opens this volume, as 'data'"
run_cmd "$IMG_TMP/c5" "$FDEWIZ" crypttab --root "$root" --name home "$img:1"
assert_eq "name taken: exit" 1 "$RUN_RC"
assert_contains "name taken: message" "$(cat "$IMG_TMP/c5.err")" "already uses the name 'home'"
run_cmd "$IMG_TMP/c6" "$FDEWIZ" crypttab --root "$root" --name 'a/b' "$img:1"
assert_eq "bad name: exit" 2 "$RUN_RC"
assert_eq "conflicts: nothing changed" "$sums" "$(cd "$root/etc" && sha256sum ./* | sort)"

# 4. Not LUKS; not a system root.
run_cmd "$IMG_TMP/c7" "$FDEWIZ" crypttab --root "$root" "$img:2"
assert_eq "plain partition: exit" 1 "$RUN_RC"
assert_contains "plain partition: message" "$(cat "$IMG_TMP/c7.err")" "not a LUKS2 volume"
run_cmd "$IMG_TMP/c8" "$FDEWIZ" crypttab --root "$IMG_TMP/nowhere" "$img:1"
assert_eq "no etc: exit" 1 "$RUN_RC"
assert_contains "no etc: message" "$(cat "$IMG_TMP/c8.err")" "not the root of a system"
assert_eq "failures: nothing changed" "$sums" "$(cd "$root/etc" && sha256sum ./* | sort)"

# 5. A fresh root: crypttab created (0644, no backup); --discard; no fstab, none made.
mkdir -p "$IMG_TMP/fresh/etc"
run_cmd "$IMG_TMP/c9" "$FDEWIZ" crypttab --root "$IMG_TMP/fresh/" --discard --name vault "$img:1"
assert_eq "fresh: exit" 0 "$RUN_RC"
assert_eq "fresh: crypttab" "vault UUID=$uuid none luks,discard" "$(cat "$IMG_TMP/fresh/etc/crypttab")"
assert_eq "fresh: mode" 644 "$(stat -c %a "$IMG_TMP/fresh/etc/crypttab")"
assert_eq "fresh: only crypttab" crypttab "$(ls "$IMG_TMP/fresh/etc")"

# 6. A block device: fstab lines naming its node move; the default name is luks-UUID.
loop=$(losetup --find --show --offset "$(img_part_offset "$img" 1)" \
	--sizelimit "$(img_part_size "$img" 1)" "$img")
img_register loop "$loop"
mkdir -p "$IMG_TMP/blk/etc"
printf '%s /srv ext4 defaults 0 2\n%s0 /x ext4 defaults 0 2\n' "$loop" "$loop" >"$IMG_TMP/blk/etc/fstab"
run_cmd "$IMG_TMP/c10" "$FDEWIZ" crypttab --root "$IMG_TMP/blk" "$loop"
assert_eq "block device: exit" 0 "$RUN_RC"
cat "$IMG_TMP/c10.err" >&2
assert_eq "block device: crypttab" "luks-$uuid UUID=$uuid none luks" "$(cat "$IMG_TMP/blk/etc/crypttab")"
assert_eq "block device: fstab" "/dev/mapper/luks-$uuid /srv ext4 defaults 0 2
${loop}0 /x ext4 defaults 0 2" "$(cat "$IMG_TMP/blk/etc/fstab")"
img_unloop "$loop"

# 7. encrypt --crypttab: the entry is written as soon as the header is on, with the new
# volume's UUID; a missing --root/etc, or no --root for an image, is refused before
# anything changes.
mkdir -p "$IMG_TMP/enc/etc"
printf 'PARTLABEL=Plain /plain ext4 defaults 0 2\n' >"$IMG_TMP/enc/etc/fstab"
printf 'crypttab test key' >"$IMG_TMP/key"
before=$(sha256sum <"$img")
run_cmd "$IMG_TMP/c11" "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench \
	--key-file "$IMG_TMP/key" --crypttab --root "$IMG_TMP/missing" "$img:2"
assert_eq "encrypt --crypttab, no etc: exit" 1 "$RUN_RC"
assert_contains "encrypt --crypttab, no etc: message" "$(cat "$IMG_TMP/c11.err")" "Nothing was changed"
assert_eq "encrypt --crypttab, no etc: image unchanged" "$before" "$(sha256sum <"$img")"
# This system never opens an image's partition at boot: without --root it is refused (the
# engine's policy, as the wizard's greyed-out box says), before anything changes.
host_ct=$(sha256sum /etc/crypttab 2>/dev/null || echo none)
run_cmd "$IMG_TMP/c11b" "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench \
	--key-file "$IMG_TMP/key" --crypttab "$img:2"
assert_eq "encrypt --crypttab, image, no --root: exit" 1 "$RUN_RC"
assert_contains "encrypt --crypttab, image, no --root: why" "$(cat "$IMG_TMP/c11b.err")" \
	"Not for a partition of an image file"
assert_contains "encrypt --crypttab, image, no --root: nothing changed" \
	"$(cat "$IMG_TMP/c11b.err")" "Nothing was changed"
assert_eq "encrypt --crypttab, image, no --root: image unchanged" "$before" \
	"$(sha256sum <"$img")"
assert_eq "encrypt --crypttab, image, no --root: /etc/crypttab untouched" "$host_ct" \
	"$(sha256sum /etc/crypttab 2>/dev/null || echo none)"
run_cmd "$IMG_TMP/c12" "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench \
	--key-file "$IMG_TMP/key" --crypttab --root "$IMG_TMP/enc" --name plainvol "$img:2"
assert_eq "encrypt --crypttab: exit" 0 "$RUN_RC"
loop=$(img_loop "$img" 2)
uuid2=$(cryptsetup luksUUID "$loop")
img_unloop "$loop"
assert_eq "encrypt --crypttab: entry" "plainvol UUID=$uuid2 none luks" "$(cat "$IMG_TMP/enc/etc/crypttab")"
assert_eq "encrypt --crypttab: fstab" "/dev/mapper/plainvol /plain ext4 defaults 0 2" \
	"$(cat "$IMG_TMP/enc/etc/fstab")"

assert_finish
