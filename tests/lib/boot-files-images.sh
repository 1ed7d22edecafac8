# SPDX-License-Identifier: GPL-3.0-or-later
# Disk images whose boot partitions only their contents tell (sourced after images.sh and
# fake-system.sh): nothing fdewiz can read names them in an fstab.
# boot_tree DIR ROOT_ARG: kernels, initramfs images and GRUB's configuration in DIR, as
# Debian's installer writes a /boot partition; ROOT_ARG is the kernel's root= and more.
boot_tree()
{
	mkdir -p "$1/grub"
	head -c 8192 /dev/urandom >"$1/vmlinuz-6.1.0-13-amd64"
	head -c 8192 /dev/urandom >"$1/initrd.img-6.1.0-13-amd64"
	printf 'CONFIG_X=y\n' >"$1/config-6.1.0-13-amd64"
	printf 'menuentry "Debian GNU/Linux" {\n\tlinux /vmlinuz-6.1.0-13-amd64 %s ro quiet\n' \
		"$2" >"$1/grub/grub.cfg"
	printf '\tinitrd /initrd.img-6.1.0-13-amd64\n}\n' >>"$1/grub/grub.cfg"
}

# encrypted_install_image IMG: the layout Debian's installer writes when encryption is
# chosen: 1 ESP (vfat, esp flag), 2 /boot (ext4), 3 the root in LUKS2, closed. Its GRUB
# names the root as the installer does (root=/dev/mapper/sda3_crypt).
encrypted_install_image()
{
	local t=$IMG_TMP/enc-boot

	boot_tree "$t" root=/dev/mapper/sda3_crypt
	img_new "$1" 200
	img_gpt "$1"
	img_part "$1" EFI 1 33
	img_flag "$1" 1 esp
	img_part "$1" Boot 33 129
	img_part "$1" Root 129 end
	img_mkfs "$1" 1 vfat EFI
	fake_system_mkfs "$1" 2 "$t" "$(cat /proc/sys/kernel/random/uuid)"
	img_mkfs "$1" 3 luks2
}
