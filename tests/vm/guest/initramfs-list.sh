#!/bin/sh
# Run by the installed system's check unit from the disk labelled fdw-drive (see
# installed-image-parts.sh): the initramfs this boot started from, listed by the system's
# own lsinitramfs, as counts of what an encrypted root on btrfs needs in it.
say() { echo "FDW-DRIVE $*"; }
initrd=/boot/initrd.img-$(uname -r)
if lsinitramfs "$initrd" >/run/initrd.txt 2>/run/initrd.err; then
	say "INITRAMFS ${initrd##*/} cryptsetup=$(grep -c 'sbin/cryptsetup$' /run/initrd.txt)" \
		"dm-crypt=$(grep -c '/dm-crypt\.ko' /run/initrd.txt)" \
		"btrfs-ko=$(grep -c '/btrfs\.ko' /run/initrd.txt)" \
		"btrfs-tool=$(grep -c 'bin/btrfs$' /run/initrd.txt)" \
		"crypttab=$(grep -c 'cryptroot/crypttab$' /run/initrd.txt)"
else
	say "INITRAMFS unlisted: $(head -n 3 /run/initrd.err | tr '\n' ' ')"
fi
