# SPDX-License-Identifier: GPL-3.0-or-later
# A disk image holding a fake installed Debian 12 whose other partitions live beside its
# root, for the tests of what fdewiz does with them (sourced after images.sh):
#   1 EFI (no filesystem), 2 /boot (ext4: kernel, initrd, grub.cfg), 3 its root
#   (initramfs-tools with cryptsetup-initramfs, GRUB for EFI; its fstab names /boot and
#   /home by UUID, /srv by its installer's device name /dev/sda5, and a swap by PARTUUID),
#   4 /home (ext4, 40 files under user/docs), 5 /srv (ext4, 10 files under www).
# fake_system_image IMG: makes it; sets root_uuid, boot_uuid, home_uuid, and r, b, h, the
# trees the root, /boot and /home were made from, and sv, /srv's.
# fake_system_mkfs IMG N DIR UUID: an ext4 made from DIR in partition N of IMG.
fake_system_mkfs()
{
	local off size
	off=$(img_part_offset "$1" "$2")
	size=$(img_part_size "$1" "$2")
	mkfs.ext4 -q -F -b 4096 -U "$4" -d "$3" -E offset="$off" "$1" $((size / 1024))k
}

fake_system_image()
{
	local i
	img=$1
	root_uuid=5b1c3f5e-8a3e-4a59-9c0e-6f1d2a3b4c5d
	boot_uuid=0b0e1234-5678-4abc-8def-0123456789ab
	home_uuid=4e0a1b2c-3d4e-4f50-8162-738495a6b7c8

	r=$IMG_TMP/root
	mkdir -p "$r/etc/initramfs-tools/conf.d" "$r/usr/lib/grub/x86_64-efi" "$r/usr/sbin" \
		"$r/usr/share/initramfs-tools/hooks" "$r/boot" "$r/home"
	{
		echo "# /etc/fstab: static file system information."
		echo "UUID=$root_uuid / ext4 errors=remount-ro 0 1"
		echo "# /boot was on /dev/sda2 during installation"
		echo "UUID=$boot_uuid /boot ext4 defaults 0 2"
		echo "UUID=$home_uuid /home ext4 defaults 0 2"
		echo "/dev/sda5 /srv ext4 defaults 0 2"
		echo "PARTUUID=11111111-2222-3333-4444-555555555555 none swap sw 0 0"
		echo "/dev/sr0 /media/cdrom0 udf,iso9660 user,noauto 0 0"
	} >"$r/etc/fstab"
	printf 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n' >"$r/usr/lib/os-release"
	printf '#!/bin/sh\n' >"$r/usr/sbin/update-initramfs"
	printf '#!/bin/sh\n' >"$r/usr/share/initramfs-tools/hooks/cryptroot"
	printf 'RESUME=none\n' >"$r/etc/initramfs-tools/conf.d/resume"
	b=$IMG_TMP/boot
	mkdir -p "$b/grub"
	head -c 8192 /dev/urandom >"$b/vmlinuz-6.1.0-13-amd64"
	head -c 8192 /dev/urandom >"$b/initrd.img-6.1.0-13-amd64"
	printf 'menuentry "Debian" { linux /vmlinuz-6.1.0-13-amd64 root=UUID=%s }\n' "$root_uuid" \
		>"$b/grub/grub.cfg"
	h=$IMG_TMP/home
	mkdir -p "$h/user/docs"
	for i in $(seq 1 40); do head -c $((i * 211)) /dev/urandom >"$h/user/docs/f$i"; done

	sv=$IMG_TMP/srv
	mkdir -p "$sv/www"
	for i in $(seq 1 10); do head -c $((i * 307)) /dev/urandom >"$sv/www/p$i"; done

	img_new "$img" 600
	img_gpt "$img"
	img_part "$img" EFI 1 33
	img_part "$img" Boot 33 161
	img_part "$img" Root 161 353
	img_part "$img" Home 353 520
	img_part "$img" Srv 520 end
	fake_system_mkfs "$img" 2 "$b" "$boot_uuid"
	fake_system_mkfs "$img" 3 "$r" "$root_uuid"
	fake_system_mkfs "$img" 4 "$h" "$home_uuid"
	fake_system_mkfs "$img" 5 "$sv" "$(cat /proc/sys/kernel/random/uuid)"
}
