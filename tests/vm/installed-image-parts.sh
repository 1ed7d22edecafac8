# shellcheck shell=bash
# fdewiz VM tests: the functions of installed-image.sh, which sources this file (its cache
# key covers both). They read and set the build's variables ($tmp, $kver, $lvm_dir, ...).

# The kernel line of every image (its GRUB configuration and /etc/default/grub, which
# update-grub and fdewiz's step write it from again): the test machine's, emulated on a
# host that may be busy. The early IO-APIC timer check can miss its window and panic
# (no_timer_check); systemd's 90 s wait for /boot's device ran out and left a correctly
# unlocked system in emergency mode. norandmaps: without KVM, QEMU translates the guest's
# code once per virtual address, so with address-space randomisation every exec translates
# its libraries again: one update-initramfs in the booted system took 75 s randomised and
# 26 s not, 100 sed and readlink 8.1 s and 2.4 s. Nothing fdewiz does depends on where
# programs are mapped.
kernel_args="console=ttyS0,115200 no_timer_check norandmaps systemd.default_timeout_start_sec=900"

# The mirror this machine uses for bookworm: the first deb822 URIs or one-line "deb" entry
# whose suite is bookworm (not the security archive).
mirror()
{
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		case "$f" in
		*.sources)
			awk '/^URIs:/ {u=$2} /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") { print u; exit } }' "$f"
			;;
		*)
			awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i == "bookworm") { print ($2 ~ /^\[/ ? $3 : $2); exit } }' "$f"
			;;
		esac
	done | head -n1
}

# boot_check_install TREE: the unit that checks the data files at every boot of the system
# in TREE, reports on the serial console (FDW-BOOT-OK or FDW-BOOT-FAIL, what / lies on, its
# file system and subvolume, the swap areas) and powers off; the consoles' gettys masked.
boot_check_install()
{
	install -m 0755 /dev/stdin "$1/usr/local/sbin/fdw-boot-check" <<'EOF'
#!/bin/sh
# Reports on the serial console what this boot found, then powers off.
out=/dev/ttyS0
# A test's own steps for this boot: a disk labelled fdw-drive holding drive.sh (and
# fdewiz's libraries are in this system, for a test that runs fdewiz inside it).
drive=$(blkid -L fdw-drive 2>/dev/null || true)
if [ -n "$drive" ] && mkdir -p /run/fdw-drive && mount "$drive" /run/fdw-drive &&
	[ -x /run/fdw-drive/drive.sh ]; then
	/run/fdw-drive/drive.sh >$out 2>&1 || echo "FDW-DRIVE-FAIL rc=$?" >$out
	umount /run/fdw-drive
fi
n=$(wc -l </var/lib/fdw-check/sums)
if (cd / && sha256sum --quiet -c /var/lib/fdw-check/sums) >/run/fdw-sums.log 2>&1; then
	sums="sums=ok files=$n"
else
	sums="sums=bad files=$n bad=$(grep -c FAILED /run/fdw-sums.log)"
fi
src=$(findmnt -no SOURCE /)
# On a btrfs subvolume findmnt names the subvolume after the device: /dev/X[/@rootfs].
src=${src%%\[*}
rtype=$(lsblk -ndo TYPE "$src" 2>/dev/null)
echo "FDW-ROOT source=$src type=$rtype" >$out
# What / lies on, down to the disk: "lvm,crypt,part,disk," for a root volume in a LUKS PV.
echo "FDW-ROOT-CHAIN $(lsblk -snlo TYPE "$src" 2>/dev/null | tr '\n' ',')" >$out
# Its file system and the folder of it mounted as / ("/@rootfs" for a btrfs subvolume).
echo "FDW-ROOT-FS fstype=$(findmnt -no FSTYPE /) fsroot=$(findmnt -no FSROOT /)" >$out
swapon --show=NAME,TYPE --noheadings | while read -r name type; do
	echo "FDW-SWAP name=$name type=$type dmtype=$(lsblk -ndo TYPE "$name" 2>/dev/null)"
done >$out
echo "FDW-CMDLINE $(cat /proc/cmdline)" >$out
case "$sums" in
sums=ok*) echo "FDW-BOOT-OK $sums root=$rtype" >$out ;;
*) echo "FDW-BOOT-FAIL $sums root=$rtype" >$out; head -n 5 /run/fdw-sums.log >$out ;;
esac
systemctl --no-block poweroff
EOF
	cat >"$1/etc/systemd/system/fdw-boot-check.service" <<'EOF'
[Unit]
Description=fdewiz test: check the data files and report on the serial console
After=local-fs.target swap.target
Wants=swap.target

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/fdw-boot-check

[Install]
WantedBy=multi-user.target
EOF
	chroot "$1" systemctl enable fdw-boot-check.service >&2
	chroot "$1" systemctl mask getty@tty1.service serial-getty@ttyS0.service >&2 || true
	# What no test looks at, started at every boot: the gettys that getty-static starts on
	# tty2-6 (this system has no logind), the timers, e2scrub's and pstore's runs, utmp.
	# Masked, a boot of disk-bootinside.img to its check took 42.0 and 41.5 s against 45.4
	# s (TCG, alone on the machine); the suite boots these systems about 25 times.
	chroot "$1" systemctl mask getty-static.service getty.target e2scrub_reap.service \
		systemd-pstore.service systemd-update-utmp.service \
		systemd-update-utmp-runlevel.service apt-daily.timer apt-daily-upgrade.timer \
		dpkg-db-backup.timer e2scrub_all.timer fstrim.timer \
		systemd-tmpfiles-clean.timer >&2
	# systemd's status lines off, but for errors: its "A start job is running" spinner,
	# redrawn on the console while the check unit runs a test's steps, wrote "\r<spaces>\r"
	# before a line of the drive's (restart-btrfs: "^FDW-DRIVE REBOOTING" not found), and
	# could cut one in two. No test reads a status line; error lines still show.
	mkdir -p "$1/etc/systemd/system.conf.d"
	printf '[Manager]\nShowStatus=error\n' >"$1/etc/systemd/system.conf.d/fdw-test.conf"
}

# efi_grub TREE UUID PREFIX ROOT ESP WHAT [ARGS]: GRUB for EFI in the system TREE, made by
# hand as grub-install --no-nvram would: the modules in TREE/boot/grub/x86_64-efi, the menu
# beside them (its kernel and initramfs read where PREFIX's file system has them, the kernel
# line naming the root as ROOT, with ARGS after its "ro" as grub-mkconfig puts
# rootflags=subvol=...; WHAT says where /boot is), and an image whose embedded config
# finds the file system with UUID and reads PREFIX there, in the ESP tree ESP under Debian's
# name and the removable path, with Debian's stub grub.cfg beside it. No firmware variables.
efi_grub()
{
	local tree=$1 uuid=$2 prefix=$3 rootarg=$4 esp=$5 what=$6 args=${7:-} kdir=${3%/grub}

	mkdir -p "$tree/boot/grub/x86_64-efi" "$tree/boot/efi"
	cp "$tree"/usr/lib/grub/x86_64-efi/*.mod "$tree"/usr/lib/grub/x86_64-efi/*.lst \
		"$tree/boot/grub/x86_64-efi/"
	cat >"$tree/boot/grub/grub.cfg" <<EOF2
# Written like grub-mkconfig's output for one kernel, $what.
serial --unit=0 --speed=115200
terminal_input serial
terminal_output serial
set timeout=0
set default=0
insmod part_gpt
insmod ext2
search --no-floppy --fs-uuid --set=root $uuid
menuentry 'Debian GNU/Linux' {
	insmod part_gpt
	insmod ext2
	search --no-floppy --fs-uuid --set=root $uuid
	linux $kdir/vmlinuz-$kver root=$rootarg ro ${args:+$args }$kernel_args
	initrd $kdir/initrd.img-$kver
}
EOF2
	cat >"$tree/tmp/load.cfg" <<EOF2
search --no-floppy --fs-uuid --set=root $uuid
set prefix=(\$root)'$prefix'
EOF2
	chroot "$tree" grub-mkimage -O x86_64-efi -o /tmp/grubx64.efi -p "$prefix" -c /tmp/load.cfg \
		part_gpt part_msdos fat ext2 search search_fs_uuid normal configfile linux boot echo \
		test serial terminal all_video efi_gop efi_uga gzio >&2
	mkdir -p "$esp/EFI/debian" "$esp/EFI/BOOT"
	mv "$tree/tmp/grubx64.efi" "$esp/EFI/debian/grubx64.efi"
	rm -f "$tree/tmp/load.cfg"
	cp "$esp/EFI/debian/grubx64.efi" "$esp/EFI/BOOT/BOOTX64.EFI"
	cat >"$esp/EFI/debian/grub.cfg" <<EOF2
search.fs_uuid $uuid root hd0,gpt2
set prefix=(\$root)'$prefix'
configfile \$prefix/grub.cfg
EOF2
}

# esp_image TREE FILE ID UUID: a 64 MiB FAT32 ESP in FILE with volume ID ID, holding TREE's
# EFI folder, filled with mtools (never mounted), checked to carry UUID and to be clean.
esp_image()
{
	truncate -s "${esp_mib}M" "$2"
	mkfs.vfat -F 32 -n EFI -i "$3" "$2" >&2
	MTOOLS_SKIP_CHECK=1 mcopy -s -i "$2" "$1/EFI" ::/
	[ "$(blkid -o value -s UUID "$2")" = "$4" ] || die "the ESP $2's UUID is not $4"
	fsck.vfat -n "$2" >&2
}

# lvm_conf DEVICE: the LVM configuration in $lvm_dir, which sees DEVICE alone: no devices
# file, udev or hints to read, no device-mapper to activate in, no backups, archives or
# locks of the host's to write.
lvm_conf()
{
	cat >"$lvm_dir/lvm.conf" <<EOF
devices {
	use_devicesfile = 0
	filter = [ "a|^$1\$|", "r|.*|" ]
	obtain_device_list_from_udev = 0
	external_device_info_source = "none"
	hints = "none"
}
global {
	activation = 0
	use_lvmlockd = 0
	event_activation = 0
	locking_dir = "$lvm_dir/lock"
}
activation {
	udev_sync = 0
	udev_rules = 0
	monitoring = 0
}
backup {
	backup = 0
	archive = 0
}
EOF
}

# lvm_run COMMAND...: an LVM command under that configuration, without its warnings that
# activation is off, the LVs are not zeroed and the metadata is not backed up (all meant).
lvm_run()
{
	LVM_SYSTEM_DIR=$lvm_dir LVM_SUPPRESS_FD_WARNINGS=1 "$@" \
		2> >(grep -v -e 'Activation disabled' -e 'not zeroed' -e 'NOT backed up' >&2)
}

# lv_geometry: from the metadata on $lv_loop, the PV's data start and the extent size in
# bytes (lv_pe_start, lv_extent) and the LVs' first extents (lv_root_first, lv_swap_first)
# and lengths (lv_root_ext, lv_swap_ext). Fails unless root is at extent 0, swap_1 right
# after it ends the PV, and the VG has no extent free.
lv_geometry()
{
	local count free segs n r w
	lv_pe_start=$(lvm_run pvs --noheadings --nosuffix --units b -o pe_start "$lv_loop" | tr -d ' ')
	lv_extent=$(lvm_run vgs --noheadings --nosuffix --units b -o vg_extent_size "$lv_vg" | tr -d ' ')
	read -r count free < <(lvm_run vgs --noheadings -o vg_extent_count,vg_free_count "$lv_vg")
	segs=$(lvm_run pvs --noheadings --segments -o pvseg_start,pvseg_size,lv_name "$lv_loop" |
		awk '{ printf "%s %s %s;", $1, $2, $3 }')
	say "VG $lv_vg: PV data from byte ${lv_pe_start:-?}, extents of ${lv_extent:-?} bytes," \
		"${count:-?} in all, ${free:-?} free; segments (first length LV): $segs"
	for n in "$lv_pe_start" "$lv_extent" "$count" "$free"; do
		case "$n" in
		'' | *[!0-9]*) return 1 ;;
		esac
	done
	[ "$lv_extent" -gt 0 ] || return 1
	read -r lv_root_first lv_root_ext lv_swap_first lv_swap_ext < <(
		awk -v RS=';' '$3 == "root" { r = $1 " " $2 } $3 == "swap_1" { w = $1 " " $2 }
			END { print r, w }' <<<"$segs")
	r=$((lv_root_mib * 1048576 / lv_extent))
	w=$((lv_swap_mib * 1048576 / lv_extent))
	[ "$segs" = "0 $r root;$r $w swap_1;" ] && [ "$free" = 0 ] &&
		[ $((lv_swap_first + lv_swap_ext)) = "$count" ]
}

# What the LVM system's initramfs must hold to find its root and swap on the VG.
lvm_initrd_ok()
{
	local l
	l=$(chroot "$lvm_tree" lsinitramfs "/boot/initrd.img-$kver") || return 1
	grep -q 'sbin/lvm$' <<<"$l" && grep -q '/dm-mod\.ko' <<<"$l" &&
		grep -q '^conf/conf\.d/resume$' <<<"$l"
}

# What the btrfs system's initramfs must hold to mount its root.
bt_initrd_ok()
{
	local l
	l=$(chroot "$bt_tree" lsinitramfs "/boot/initrd.img-$kver") || return 1
	grep -q '/btrfs\.ko' <<<"$l" && grep -q 'bin/btrfs$' <<<"$l"
}

# What the EFI system's initramfs must hold to unlock its root with a TPM (clevis; Debian's
# kernel has the TPM drivers built in).
efi_clevis_initrd_ok()
{
	local l
	l=$(chroot "$efi_root" lsinitramfs "/boot/initrd.img-$kver") || return 1
	grep -q 'bin/clevis-decrypt-tpm2$' <<<"$l" && grep -q 'bin/tpm2_unseal$' <<<"$l" &&
		grep -q 'bin/busybox$' <<<"$l"
}

# le64 FILE OFFSET: the little-endian 64-bit number at OFFSET; put_le64 FILE OFFSET VALUE
# writes one there.
le64() { od -An -tu8 -j "$2" -N8 "$1" | tr -d ' '; }

put_le64()
{
	perl -e 'print pack("Q<", $ARGV[0])' "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# btrfs_root_fs: the fifth image's btrfs in $tmp/bt-root.fs, made on this machine through a
# loop device ($bt_loop while attached): the tree $bt_tree in subvolume $bt_subvol of an
# otherwise empty top level, at least 150 MiB left free; checked unmounted.
btrfs_root_fs()
{
	truncate -s "${bt_root_mib}M" "$tmp/bt-root.fs"
	mkfs.btrfs -q -f -U "$bt_root_uuid" -L root "$tmp/bt-root.fs" >&2
	bt_loop=$(losetup -f --show "$tmp/bt-root.fs")
	mkdir -p "$tmp/bt-mnt"
	mount -t btrfs "$bt_loop" "$tmp/bt-mnt"
	btrfs -q subvolume create "$tmp/bt-mnt/$bt_subvol" >&2
	# cp -a keeps owners, modes, times, hard links and extended attributes (capabilities).
	cp -a "$bt_tree/." "$tmp/bt-mnt/$bt_subvol/"
	sync -f "$tmp/bt-mnt"
	btrfs filesystem usage -b "$tmp/bt-mnt" >"$tmp/bt-usage" 2>&1
	bt_free=$(awk '/Free \(estimated\):/ { print int($3 / 1048576) }' "$tmp/bt-usage")
	bt_subvols=$(btrfs subvolume list "$tmp/bt-mnt" | awk '{ print $NF }' | tr '\n' ' ')
	bt_top=$(find "$tmp/bt-mnt" -mindepth 1 -maxdepth 1 -printf '%f ')
	umount "$tmp/bt-mnt"
	losetup -d "$bt_loop"
	bt_loop=
	say "btrfs of the fifth image: ${bt_root_mib} MiB, ${bt_free:-?} MiB free; subvolumes: $bt_subvols"
	if [ "$bt_subvols" != "$bt_subvol " ] || [ "$bt_top" != "$bt_subvol " ]; then
		die "the btrfs top level holds more than subvolume $bt_subvol: $bt_top"
	fi
	[ "${bt_free:-0}" -ge 150 ] || die "the btrfs has under 150 MiB free: it could not be shrunk"
	btrfs check --readonly "$tmp/bt-root.fs" >&2
}

# lvm_pv_make: the PV's metadata in $tmp/lv-pv.fs ($lv_pv_mib MiB), through a loop device
# ($lv_loop while attached): VG $lv_vg with root and then swap_1 filling it.
lvm_pv_make()
{
	truncate -s "${lv_pv_mib}M" "$tmp/lv-pv.fs"
	lv_loop=$(losetup -f --show "$tmp/lv-pv.fs")
	lvm_conf "$lv_loop"
	lvm_run pvcreate --dataalignment 1m "$lv_loop" >&2
	lvm_run vgcreate -s 4m "$lv_vg" "$lv_loop" >&2
	lvm_run lvcreate --activate n --zero n --wipesignatures n -n root -L "${lv_root_mib}m" "$lv_vg" >&2
	lvm_run lvcreate --activate n --zero n --wipesignatures n -n swap_1 -L "${lv_swap_mib}m" "$lv_vg" >&2
	lv_geometry || die "the VG $lv_vg is not root then swap_1 filling its PV"
	losetup -d "$lv_loop"
	lv_loop=
}

# lvm_image_check: the fourth image read back from the finished $part_lv: the VG through a
# read-only loop device of partition 3 where the GPT puts it, then the root's file system
# and the swap from their extents.
lvm_image_check()
{
	lv_pv_off=$(parted -s -m "$part_lv" unit B print | awk -F: '$1 == "3" { sub("B", "", $2); print $2 }')
	lv_pv_len=$(parted -s -m "$part_lv" unit B print | awk -F: '$1 == "3" { sub("B", "", $4); print $4 }')
	if [ "$lv_pv_off" != $((lv_p3 * 1048576)) ] || [ "$lv_pv_len" != $((lv_pv_mib * 1048576)) ]; then
		die "partition 3 of the LVM image is not where its PV was written"
	fi
	lv_loop=$(losetup -f --show -r -o "$lv_pv_off" --sizelimit "$lv_pv_len" "$part_lv")
	lvm_conf "$lv_loop"
	lv_geometry || die "the LVM image's VG, read back, is not root then swap_1 filling its PV"
	lvm_run vgs -o vg_name,pv_count,lv_count,vg_size,vg_free,vg_free_count "$lv_vg" >&2
	lvm_run lvs -o lv_name,lv_size,seg_pe_ranges "$lv_vg" >&2
	losetup -d "$lv_loop"
	lv_loop=
	dd if="$part_lv" of="$tmp/lv-check.fs" bs=1M iflag=skip_bytes,count_bytes conv=sparse status=none \
		skip=$((lv_pv_off + lv_pe_start + lv_root_first * lv_extent)) count=$((lv_root_ext * lv_extent))
	e2fsck -fn "$tmp/lv-check.fs" >&2
	[ "$(blkid -o value -s UUID "$tmp/lv-check.fs")" = "$lv_root_uuid" ] ||
		die "the root LV read back has not the root's file system"
	rm -f "$tmp/lv-check.fs"
	[ "$(blkid -p -O $((lv_pv_off + lv_pe_start + lv_swap_first * lv_extent)) \
		-S $((lv_swap_ext * lv_extent)) -o value -s UUID "$part_lv")" = "$lv_swap_uuid" ] ||
		die "the swap_1 LV read back has not the swap"
}

# btrfs_image_check: the fifth image read back from the finished $part_bt, where the GPT
# puts each partition: its file system types and UUIDs, the btrfs partition's size.
btrfs_image_check()
{
	bt_part_off() { parted -s -m "$part_bt" unit B print | awk -F: -v n="$1" '$1 == n { sub("B", "", $2); print $2 }'; }
	bt_part_len() { parted -s -m "$part_bt" unit B print | awk -F: -v n="$1" '$1 == n { sub("B", "", $4); print $4 }'; }
	for n in 1:vfat:"$bt_esp_uuid" 2:ext4:"$bt_boot_uuid" 3:btrfs:"$bt_root_uuid" 4:swap:"$bt_swap_uuid"; do
		IFS=: read -r pn pt pu <<<"$n"
		got=$(blkid -p -O "$(bt_part_off "$pn")" -S "$(bt_part_len "$pn")" -o export "$part_bt" |
			sed -n 's/^\(TYPE\|UUID\)=//p' | sort | tr '\n' ' ')
		[ "$got" = "$(printf '%s\n' "$pt" "$pu" | sort | tr '\n' ' ')" ] ||
			die "partition $pn of the btrfs image has not the $pt file system $pu: $got"
	done
	[ "$(bt_part_len 3)" = $((bt_root_mib * 1048576)) ] || die "partition 3 of the btrfs image is not as large as its btrfs"
}

# grub_bios_gpt DISK BOOT_IMG CORE_IMG SECTOR: GRUB for BIOS on a GPT disk image, as
# grub-install puts it there: BOOT_IMG in the protective MBR's first 440 bytes, CORE_IMG at
# SECTOR (the BIOS boot partition's first), linked by boot.img's kernel sector (byte 0x5c)
# and the first block list entry of core.img's diskboot (byte 500: its start, after the
# diskboot sector itself). grub-mkimage writes both for a core at sector 1; checked first.
grub_bios_gpt()
{
	local boot=$tmp/boot-gpt.img core=$tmp/core-gpt.img
	cp "$2" "$boot"
	cp "$3" "$core"
	[ "$(le64 "$boot" 92)" = 1 ] && [ "$(le64 "$core" 500)" = 2 ] ||
		die "boot.img or core.img does not say sector 1 and 2 where grub-install would change them"
	put_le64 "$boot" 92 "$4"
	put_le64 "$core" 500 $(($4 + 1))
	dd if="$boot" of="$1" bs=440 count=1 conv=notrunc status=none
	dd if="$core" of="$1" bs=512 seek="$4" conv=notrunc status=none
	rm -f "$boot" "$core"
}
