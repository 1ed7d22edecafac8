#!/bin/bash
# fdewiz VM tests: build (once) a disk image holding a real installed Debian 12.
#
# Usage: installed-image.sh [--quiet]
# Prints "image=PATH" (read-only cache: copy it before booting or changing it) and the
# lines of its layout ("kernel=...", "root_uuid=..."...), then "image_bootinside=PATH" and
# that image's layout ("bi_root_uuid=...", "bi_swap_uuid=...", "bi_root_part=1",
# "bi_swap_part=2", "bi_root_mib=..."), then "image_efi_bootinside=PATH" and its layout
# ("be_root_uuid=...", "be_esp_uuid=...", "be_swap_uuid=...", "be_esp_part=1",
# "be_root_part=2", "be_swap_part=3", "be_root_mib=..."), then "image_lvm=PATH" and its
# layout ("lv_esp_uuid=...", "lv_boot_uuid=...", "lv_root_uuid=...", "lv_swap_uuid=...",
# "lv_vg=fdw-installed-vg", "lv_esp_part=1", "lv_boot_part=2", "lv_pv_part=3",
# "lv_root_mib=...", "lv_swap_mib=128"), then "image_btrfs=PATH" and its layout
# ("bt_esp_uuid=...", "bt_boot_uuid=...", "bt_root_uuid=..." (the btrfs file system's),
# "bt_swap_uuid=...", "bt_esp_part=1", "bt_boot_part=2", "bt_root_part=3", "bt_swap_part=4",
# "bt_subvol=@rootfs", "bt_root_mib=..."), then "image_ubuntu=PATH" and its layout
# ("ub_root_uuid=...", "ub_biosboot_part=1", "ub_root_part=2", "ub_root_mib=...",
# "ub_swap_file=/swap.img") on stdout; progress goes to stderr.
#
# The image (disk.img): an MBR with GRUB (i386-pc, for SeaBIOS) in front of partition 1,
# which is /boot (ext4); partition 2 is / (ext4); partition 3 is swap. fstab names all
# three by UUID; the kernel line says console=ttyS0.
#
# The second image (disk-bootinside.img), from the same system tree, is laid out as
# Debian's installer does with "all files in one partition" on BIOS: GRUB in the MBR,
# partition 1 is / (ext4) with /boot a folder inside it (kernel, initramfs, grub/ with
# grub.cfg and the i386-pc modules; GRUB's prefix is (hd0,msdos1)/boot/grub), partition 2
# is swap; fstab names both by UUID, no /boot line; grub-install and update-grub work in
# it as installed (grub-pc, /etc/default/grub). Its root partition is the first image's
# root plus the boot tree plus 608 MiB, so that a 512 MiB /boot and a 32 MiB encryption
# header can be carved from its end with its data kept; it has UUIDs of its own.
#
# The third image (disk-efi-bootinside.img) is laid out as Debian's installer does with
# "all files in one partition" on EFI: a GPT; partition 1 is the EFI system partition
# (FAT32, 64 MiB, esp flag), partition 2 is / (ext4, as large as the second image's root)
# with /boot a folder inside it, partition 3 is swap; its system alone has clevis-tpm2 and
# clevis-initramfs (TPM unlock from its initramfs). fstab names /, /boot/efi (vfat,
# umask=0077) and the swap by UUID, no /boot line. Its system is a copy of the tree in
# which grub-pc and grub-pc-bin were replaced by grub-efi-amd64 (and dosfstools, as an
# installed EFI system has for its ESP's fsck), so it has /usr/lib/grub/x86_64-efi and no
# i386-pc, and grub-install --target=x86_64-efi --no-nvram and update-grub work in it;
# the other two systems keep grub-pc and never get x86_64-efi. GRUB for EFI is made by
# hand, as grub-install would, without NVRAM: the modules in /boot/grub/x86_64-efi, a
# grub-mkimage image whose embedded config finds the root by UUID and sets the prefix to
# its /boot/grub, in the ESP as EFI/debian/grubx64.efi and as the removable path
# EFI/BOOT/BOOTX64.EFI (which OVMF with empty variables boots), with Debian's stub
# EFI/debian/grub.cfg beside it.
#
# The fourth image (disk-lvm.img) is laid out as Debian's installer does with "Guided - use
# entire disk and set up LVM" on EFI: a GPT; partition 1 is the EFI system partition (FAT32,
# 64 MiB, esp flag), partition 2 is /boot (ext4, 192 MiB: the kernel, the initramfs, grub/
# with the x86_64-efi modules and grub.cfg), partition 3 (lvm flag) is the one physical
# volume of the volume group fdw-installed-vg (the installer's "<hostname>-vg"; its dash is
# doubled in the mapper names, /dev/mapper/fdw--installed--vg-root). Its logical volumes are
# root (ext4, as large as the first image's root) and then swap_1 (swap, 128 MiB), so the
# swap's extents end the PV; the partition is sized so that the VG has no free extents, as
# the installer's guided LVM leaves it. fstab names / and the swap by their mapper names,
# /boot and /boot/efi by UUID, and initramfs-tools' conf.d/resume names the swap LV, as the
# installer writes them. Its system is a copy of the third image's with lvm2 installed (so
# its initramfs, made again, activates the VG); the other three systems never get lvm2.
# GRUB for EFI is made by hand as for the third image, its embedded config finding /boot by
# UUID with the prefix /grub. The LVM metadata is written by this machine's lvm2 through a
# loop device of the PV alone, with a configuration of its own (that device only, no
# device-mapper activation, no udev, no devices file, hints, backups or archives) so that
# nothing of the host's LVM is read or written; the file systems are then copied with dd to
# the extents the two LVs got, and the loop device is detached before the build goes on.
#
# The fifth image (disk-btrfs.img) is laid out as Debian's installer does on btrfs on EFI: a
# GPT; partition 1 is the EFI system partition (FAT32, 64 MiB, esp flag), partition 2 is
# /boot (ext4, 192 MiB, as the fourth image's), partition 3 is btrfs holding the root in the
# subvolume @rootfs (the installer's name; the top level holds nothing else, and stays the
# default subvolume), partition 4 is swap (128 MiB). fstab names / as "UUID=<btrfs> / btrfs
# defaults,subvol=@rootfs 0 0", /boot, /boot/efi and the swap by UUID. Its system is a copy
# of the third image's with btrfs-progs installed (its initramfs hook copies the btrfs tool)
# and btrfs added to the initramfs' module list, made again; the other four systems never
# get btrfs-progs. GRUB for EFI is made by hand as for the fourth image (it reads only
# /boot), its kernel line naming the root by the btrfs UUID with rootflags=subvol=@rootfs,
# as grub-mkconfig writes it for a root on a btrfs subvolume. The btrfs is made on this
# machine (mkfs.btrfs on a file, mounted through a loop device, the subvolume made and the
# tree copied in, unmounted and detached), checked (btrfs check), then copied with dd to
# partition 3; it is as large as the first image's root plus 256 MiB (1 GiB at least), so
# that it keeps room to be shrunk.
#
# The sixth image (disk-ubuntu.img) is laid out as Ubuntu's installer does on a BIOS
# machine: a GPT; partition 1 is a BIOS boot partition (1 MiB, bios_grub flag) holding
# GRUB's core.img, partition 2 is / (ext4) with /boot a folder inside it and a 64 MiB swap
# file /swap.img (random bytes under its swap header, so that it has no holes); fstab names
# / by UUID and the swap file, no /boot line. Its system is the second image's tree (GRUB
# for BIOS), its root as large as the second's plus the swap file. GRUB is made by hand as
# grub-install does it on a GPT: boot.img in the protective MBR's first 440 bytes, a
# core.img reading (hd0,gpt2)/boot/grub written at sector 2048, the two linked by the
# kernel sector in boot.img and the first block list entry in core.img (grub-mkimage
# writes both for a core at sector 1; checked to say so before they are changed).
#
# All systems: Debian comes from mmdebstrap with the apt
# mirror this machine already uses (read from /etc/apt/sources.list*), with
# linux-image-amd64, cryptsetup-initramfs, systemd-sysv, grub-pc, e2fsprogs and zstd.
# 300 files go into /srv/fdw-data; their sha256 list is
# /var/lib/fdw-check/sums. The unit fdw-boot-check.service checks them at every boot,
# reports on the serial console ("FDW-BOOT-OK ..." or "FDW-BOOT-FAIL ...", what / lies on,
# its file system type and the subvolume mounted as / ("FDW-ROOT-FS fstype=btrfs
# fsroot=/@rootfs"), the swap areas) and powers off.
#
# Cache: ${FDEWIZ_INSTALLED_CACHE:-/var/cache/fdewiz-tests/installed}/<hash of this
# script and installed-image-parts.sh, its functions>/disk.img, disk-bootinside.img,
# disk-efi-bootinside.img, disk-lvm.img, disk-btrfs.img and disk-ubuntu.img (sparse), with
# their layout files. A lock makes concurrent callers wait for
# one build.
set -euo pipefail

cache=${FDEWIZ_INSTALLED_CACHE:-/var/cache/fdewiz-tests/installed}
quiet=0
[ "${1:-}" = --quiet ] && quiet=1

say()
{
	[ "$quiet" = 1 ] || echo "installed-image: $*" >&2
}

die()
{
	echo "installed-image: error: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot, ownership of the files)"
here=$(dirname "$(readlink -f "$0")")
. "$here/installed-image-parts.sh"
# A change to either file is a new version of the images.
key=$(cat "$0" "$here/installed-image-parts.sh" | sha256sum | cut -c1-16)
dir=$cache/$key
img=$dir/disk.img
img_bi=$dir/disk-bootinside.img
img_be=$dir/disk-efi-bootinside.img
img_lv=$dir/disk-lvm.img
img_ub=$dir/disk-ubuntu.img
img_bt=$dir/disk-btrfs.img

report()
{
	echo "image=$img"
	cat "$dir/layout"
	echo "image_bootinside=$img_bi"
	cat "$dir/layout-bootinside"
	echo "image_efi_bootinside=$img_be"
	cat "$dir/layout-efi-bootinside"
	echo "image_lvm=$img_lv"
	cat "$dir/layout-lvm"
	echo "image_btrfs=$img_bt"
	cat "$dir/layout-btrfs"
	echo "image_ubuntu=$img_ub"
	cat "$dir/layout-ubuntu"
}

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -s "$img" ] && [ -s "$dir/layout" ] && [ -s "$img_bi" ] && [ -s "$dir/layout-bootinside" ] &&
	[ -s "$img_be" ] && [ -s "$dir/layout-efi-bootinside" ] &&
	[ -s "$img_lv" ] && [ -s "$dir/layout-lvm" ] &&
	[ -s "$img_ub" ] && [ -s "$dir/layout-ubuntu" ] &&
	[ -s "$img_bt" ] && [ -s "$dir/layout-btrfs" ]; then
	report
	exit 0
fi

need=()
for p in mmdebstrap e2fsprogs parted dosfstools mtools lvm2 btrfs-progs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	say "installing ${need[*]}"
	apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
fi

url=$(mirror)
[ -n "$url" ] || die "no bookworm entry in /etc/apt/sources.list*: cannot tell which mirror to use"

rm -rf "$dir"
mkdir -p "$dir"
tmp=$(mktemp -d "$dir/build.XXXXXX")
# The loop device the fourth image's LVM metadata is written or checked through, while
# attached: detached on every way out, so that no VG stays visible to the host's LVM.
lv_loop=
# The loop device the fifth image's btrfs is mounted through while it is filled: detached
# on every way out (after the unmount).
bt_loop=
# Never remove through a mount left inside the new root (/proc, /sys, /dev).
cleanup()
{
	local m
	[ -z "$lv_loop" ] || losetup -d "$lv_loop" || true
	for m in $(findmnt -rn -o TARGET | grep -F "$tmp/" | sort -r); do
		umount -l "$m" || true
	done
	[ -z "$bt_loop" ] || losetup -d "$bt_loop" || true
	rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT
root=$tmp/root
# Packages downloaded before are kept beside the images, so a rebuild downloads only
# what changed: copied out by a customize hook, which runs before mmdebstrap's cleanup
# empties the chroot's apt cache (and essential/unlink skipped, which would remove the
# essential packages' files before that).
debs=$cache/debs
mkdir -p "$debs"

say "mmdebstrap bookworm from the configured mirror (a few minutes)"
excl=()
for p in '/usr/share/doc/*' '/usr/share/man/*' '/usr/share/locale/*' \
	'/lib/modules/*/kernel/drivers/gpu/*' '/lib/modules/*/kernel/drivers/net/wireless/*' \
	'/lib/modules/*/kernel/drivers/media/*' '/lib/modules/*/kernel/drivers/infiniband/*' \
	'/lib/modules/*/kernel/sound/*' '/lib/modules/*/kernel/drivers/staging/*'; do
	excl+=(--dpkgopt="path-exclude=$p")
done
# The initramfs takes the modules listed in etc/initramfs-tools/modules plus what its
# hooks add (cryptsetup adds dm-crypt and the cipher): built in minutes, not hours, under
# QEMU without KVM, where the boot test rebuilds it in a chroot. zstd, as a Debian install
# has it: without it initramfs-tools falls back to gzip -9, which took most of the boot
# step's minutes under emulation. At level 1, not Debian's 9: of one update-initramfs in
# the booted system (85 to 98 s under TCG) zstd -9 took 8 s and zstd -1 1 s, for an
# initramfs of 9.2 MB instead of 7.7; the tests make one again about 20 times. fdewiz's libraries and tmux: the restart test runs fdewiz
# (its wizard driven in tmux) inside the installed system.
mmdebstrap --variant=minbase --mode=root --format=directory \
	--aptopt='APT::Install-Recommends "false"' "${excl[@]}" --skip=download/empty,essential/unlink \
	--setup-hook="mkdir -p \"\$1/var/cache/apt/archives\" \"\$1/etc/initramfs-tools/conf.d\" && find '$debs' -name '*.deb' -exec cp -t \"\$1/var/cache/apt/archives\" {} + && echo MODULES=list >\"\$1/etc/initramfs-tools/conf.d/modules-list\" && echo COMPRESSLEVEL=1 >\"\$1/etc/initramfs-tools/conf.d/compress-level\"" \
	--customize-hook="find \"\$1/var/cache/apt/archives\" -maxdepth 1 -name '*.deb' -exec cp -n -t '$debs' {} +" \
	--include=linux-image-amd64,cryptsetup-initramfs,cryptsetup,systemd-sysv,udev,grub-pc,e2fsprogs,kmod,initramfs-tools,util-linux,zstd,libparted2,liburing2,libjson-c5,libncursesw6,libssl3,libubsan1,tmux \
	bookworm "$root" "$url" >&2 || die "mmdebstrap failed"

boot_uuid=$(cat /proc/sys/kernel/random/uuid)
root_uuid=$(cat /proc/sys/kernel/random/uuid)
swap_uuid=$(cat /proc/sys/kernel/random/uuid)
bi_root_uuid=$(cat /proc/sys/kernel/random/uuid)
bi_swap_uuid=$(cat /proc/sys/kernel/random/uuid)
ub_root_uuid=$(cat /proc/sys/kernel/random/uuid)
be_root_uuid=$(cat /proc/sys/kernel/random/uuid)
be_swap_uuid=$(cat /proc/sys/kernel/random/uuid)
# A FAT volume ID, as blkid names it: XXXX-XXXX.
be_esp_id=$(od -An -N4 -tx4 /dev/urandom | tr -d ' \n')
be_esp_uuid=$(echo "${be_esp_id:0:4}-${be_esp_id:4:4}" | tr a-f A-F)
lv_boot_uuid=$(cat /proc/sys/kernel/random/uuid)
lv_root_uuid=$(cat /proc/sys/kernel/random/uuid)
lv_swap_uuid=$(cat /proc/sys/kernel/random/uuid)
lv_esp_id=$(od -An -N4 -tx4 /dev/urandom | tr -d ' \n')
lv_esp_uuid=$(echo "${lv_esp_id:0:4}-${lv_esp_id:4:4}" | tr a-f A-F)
bt_boot_uuid=$(cat /proc/sys/kernel/random/uuid)
bt_root_uuid=$(cat /proc/sys/kernel/random/uuid)
bt_swap_uuid=$(cat /proc/sys/kernel/random/uuid)
bt_esp_id=$(od -An -N4 -tx4 /dev/urandom | tr -d ' \n')
bt_esp_uuid=$(echo "${bt_esp_id:0:4}-${bt_esp_id:4:4}" | tr a-f A-F)
# The fifth image's root subvolume, named as Debian's installer names it.
bt_subvol=@rootfs
# The fourth image's VG, named as Debian's installer names it after the host name; in
# device-mapper names each dash of a VG or LV name is doubled.
lv_vg=fdw-installed-vg
lv_mapper=/dev/mapper/fdw--installed--vg
kver=$(basename "$(ls -d "$root"/lib/modules/*)")

say "configuring the system (kernel $kver)"
echo fdw-installed >"$root/etc/hostname"
cat >"$root/etc/fstab" <<EOF
# /etc/fstab: static file system information.
UUID=$root_uuid / ext4 errors=remount-ro 0 1
UUID=$boot_uuid /boot ext4 defaults 0 2
UUID=$swap_uuid none swap sw 0 0
EOF
echo 'root:fdw' | chroot "$root" chpasswd
# The kernel line: installed-image-parts.sh's kernel_args says why.
cat >"$root/etc/default/grub" <<EOF
GRUB_DEFAULT=0
GRUB_TIMEOUT=0
GRUB_DISTRIBUTOR=Debian
GRUB_CMDLINE_LINUX_DEFAULT=""
GRUB_CMDLINE_LINUX="$kernel_args"
GRUB_TERMINAL=serial
GRUB_SERIAL_COMMAND="serial --unit=0 --speed=115200"
EOF
# What this machine's disks and root need (virtio, ext4, the serial console is built in).
printf '%s\n' virtio_pci virtio_blk virtio_scsi sd_mod ext4 crc32c_generic \
	>>"$root/etc/initramfs-tools/modules"

mkdir -p "$root/srv/fdw-data" "$root/var/lib/fdw-check"
say "writing the data files"
# 300 files of 1 byte to 120 KB in 30 folders, 18 MB: every boot's check reads each one
# through dm-crypt, and each read of a file costs about 2.5 ms of the emulated machine
# (3000 files of the same 18 MB took 8.5 s to check from a cold cache, 1.6 s cached).
for d in $(seq 0 29); do
	mkdir -p "$root/srv/fdw-data/d$d"
	for i in $(seq 0 9); do
		head -c $(((d * 10 + i) * 3701 % 120000 + 1)) /dev/urandom >"$root/srv/fdw-data/d$d/f$i"
	done
done
(cd "$root" && find srv/fdw-data -type f -print0 | sort -z | xargs -0 sha256sum) \
	>"$root/var/lib/fdw-check/sums"

boot_check_install "$root"

say "initramfs"
for m in proc sys dev; do mount --bind "/$m" "$root/$m"; done
set +e
chroot "$root" update-initramfs -u -k all >&2
irc=$?
set -e
for m in dev sys proc; do umount "$root/$m"; done
[ "$irc" = 0 ] || die "update-initramfs failed in the new system"

# The third image's system: a copy of the tree (before GRUB for BIOS goes into its /boot)
# in which apt replaces grub-pc by grub-efi-amd64 (grub-pc and grub-pc-bin purged, as on a
# system installed for EFI, which never had them); the tree of the other two is not
# touched. The host's resolv.conf is lent for the downloads; the packages fetched join the
# cache.
say "a copy of the system with GRUB for EFI in place of grub-pc"
efi_root=$tmp/efi-root
cp -a --reflink=auto "$root" "$efi_root"
cp -L /etc/resolv.conf "$efi_root/etc/resolv.conf" 2>/dev/null || true
find "$debs" -name '*.deb' -exec cp -t "$efi_root/var/cache/apt/archives" {} +
for m in proc sys dev dev/pts; do mount --bind "/$m" "$efi_root/$m"; done
set +e
# Purged first, then installed: grub-pc's purge would otherwise remove the /etc/default/grub
# that grub-efi-amd64 has just registered with ucf.
export DEBIAN_FRONTEND=noninteractive
chroot "$efi_root" apt-get update -qq >&2 &&
	chroot "$efi_root" apt-get purge -y -qq grub-pc grub-pc-bin >&2 &&
	chroot "$efi_root" apt-get install -y -qq grub-efi-amd64 dosfstools >&2
arc=$?
unset DEBIAN_FRONTEND
set -e
for m in dev/pts dev sys proc; do umount "$efi_root/$m"; done
[ "$arc" = 0 ] || die "apt-get could not replace grub-pc by grub-efi-amd64 in the copy"
find "$efi_root/var/cache/apt/archives" -maxdepth 1 -name '*.deb' -exec cp -n -t "$debs" {} +
chroot "$efi_root" apt-get clean
find "$efi_root/var/lib/apt/lists" -maxdepth 1 -type f ! -name lock -delete
rm -f "$efi_root/etc/resolv.conf"
# /etc/default/grub as written above (grub-pc's purge removed it, grub-efi-amd64's postinst
# wrote Debian's default through ucf), as an administrator's edit.
cp -p "$root/etc/default/grub" "$efi_root/etc/default/grub"
rm -f "$efi_root"/etc/default/grub.ucf-*
for f in usr/sbin/grub-install usr/sbin/update-grub usr/sbin/grub-mkconfig usr/sbin/grub-probe \
	usr/bin/grub-mkimage etc/grub.d/10_linux usr/lib/grub/x86_64-efi/modinfo.sh \
	usr/sbin/fsck.vfat; do
	[ -e "$efi_root/$f" ] || die "the EFI system has no /$f"
done
[ ! -e "$efi_root/usr/lib/grub/i386-pc" ] || die "the EFI system still has GRUB for BIOS"
[ ! -e "$root/usr/lib/grub/x86_64-efi" ] || die "the BIOS systems' tree got GRUB for EFI"
# Its initramfs is the tree's, built above: made again only if what builds it changed.
if ! diff -rq "$root/etc/initramfs-tools" "$efi_root/etc/initramfs-tools" >/dev/null ||
	! diff -rq "$root/usr/share/initramfs-tools" "$efi_root/usr/share/initramfs-tools" >/dev/null; then
	say "initramfs of the EFI system (its hooks changed)"
	for m in proc sys dev; do mount --bind "/$m" "$efi_root/$m"; done
	set +e
	chroot "$efi_root" update-initramfs -u -k all >&2
	irc=$?
	set -e
	for m in dev sys proc; do umount "$efi_root/$m"; done
	[ "$irc" = 0 ] || die "update-initramfs failed in the EFI system"
fi

# The fourth image's system: a copy of the EFI one (before GRUB goes into its /boot) with
# lvm2 installed by apt, as Debian's installer adds it when the root is on LVM; the other
# three systems never get it. Its fstab and resume file are written first, so that the
# initramfs lvm2's trigger makes again holds the lvm tool, dm-mod and the resume device;
# made again here if that trigger did not. lvm2's postinst runs vgcfgbackup, which with
# this machine's /dev bound in would read its disks and write their VGs' metadata into the
# image: apt is lent a configuration that rejects every device (LVM_SYSTEM_DIR), so the
# image's own /etc/lvm stays Debian's.
say "a copy of the EFI system with lvm2 (fourth image)"
lvm_tree=$tmp/lvm-root
cp -a --reflink=auto "$efi_root" "$lvm_tree"
cat >"$lvm_tree/etc/fstab" <<EOF
# /etc/fstab: static file system information.
$lv_mapper-root / ext4 errors=remount-ro 0 1
UUID=$lv_boot_uuid /boot ext4 defaults 0 2
UUID=$lv_esp_uuid /boot/efi vfat umask=0077 0 1
$lv_mapper-swap_1 none swap sw 0 0
EOF
echo "RESUME=$lv_mapper-swap_1" >"$lvm_tree/etc/initramfs-tools/conf.d/resume"
cp -L /etc/resolv.conf "$lvm_tree/etc/resolv.conf" 2>/dev/null || true
find "$debs" -name '*.deb' -exec cp -t "$lvm_tree/var/cache/apt/archives" {} +
mkdir -p "$lvm_tree/tmp/lvm-none"
echo 'devices { filter = [ "r|.*|" ] use_devicesfile = 0 } global { activation = 0 }' \
	>"$lvm_tree/tmp/lvm-none/lvm.conf"
for m in proc sys dev dev/pts; do mount --bind "/$m" "$lvm_tree/$m"; done
set +e
chroot "$lvm_tree" apt-get update -qq >&2 &&
	DEBIAN_FRONTEND=noninteractive LVM_SYSTEM_DIR=/tmp/lvm-none \
		chroot "$lvm_tree" apt-get install -y -qq lvm2 >&2
arc=$?
if [ "$arc" = 0 ] && ! lvm_initrd_ok; then
	say "initramfs of the LVM system (lvm2's trigger did not make it again)"
	chroot "$lvm_tree" update-initramfs -u -k all >&2 && lvm_initrd_ok
	arc=$?
fi
set -e
for m in dev/pts dev sys proc; do umount "$lvm_tree/$m"; done
[ "$arc" = 0 ] || die "apt-get could not install lvm2 in the LVM system, or its initramfs lacks lvm"
find "$lvm_tree/var/cache/apt/archives" -maxdepth 1 -name '*.deb' -exec cp -n -t "$debs" {} +
chroot "$lvm_tree" apt-get clean
find "$lvm_tree/var/lib/apt/lists" -maxdepth 1 -type f ! -name lock -delete
rm -rf "$lvm_tree/etc/resolv.conf" "$lvm_tree/tmp/lvm-none" "$lvm_tree/run/lvm" "$lvm_tree/run/lock/lvm"
[ -z "$(find "$lvm_tree/etc/lvm/backup" "$lvm_tree/etc/lvm/archive" -type f 2>/dev/null)" ] ||
	die "the LVM system recorded a volume group of this machine in its /etc/lvm"
for f in usr/sbin/lvm usr/sbin/dmsetup usr/sbin/grub-install usr/lib/grub/x86_64-efi/modinfo.sh; do
	[ -e "$lvm_tree/$f" ] || die "the LVM system has no /$f"
done
if [ -e "$efi_root/usr/sbin/lvm" ] || [ -e "$root/usr/sbin/lvm" ]; then
	die "lvm2 got into a system other than the LVM one"
fi

# The fifth image's system: a copy of the EFI one (before GRUB goes into its /boot) with
# btrfs-progs installed by apt, as Debian's installer adds it when the root is on btrfs; the
# other four systems never get it. Its fstab is written first, and btrfs joins the
# initramfs' module list (MODULES=list: btrfs-progs' hook copies the btrfs tool, not the
# module), so that the initramfs btrfs-progs' trigger makes again can mount the root; made
# again here if that trigger did not.
say "a copy of the EFI system with btrfs-progs (fifth image)"
bt_tree=$tmp/btrfs-root
cp -a --reflink=auto "$efi_root" "$bt_tree"
cat >"$bt_tree/etc/fstab" <<EOF
# /etc/fstab: static file system information.
UUID=$bt_root_uuid / btrfs defaults,subvol=$bt_subvol 0 0
UUID=$bt_boot_uuid /boot ext4 defaults 0 2
UUID=$bt_esp_uuid /boot/efi vfat umask=0077 0 1
UUID=$bt_swap_uuid none swap sw 0 0
EOF
echo btrfs >>"$bt_tree/etc/initramfs-tools/modules"
cp -L /etc/resolv.conf "$bt_tree/etc/resolv.conf" 2>/dev/null || true
find "$debs" -name '*.deb' -exec cp -t "$bt_tree/var/cache/apt/archives" {} +
for m in proc sys dev dev/pts; do mount --bind "/$m" "$bt_tree/$m"; done
set +e
chroot "$bt_tree" apt-get update -qq >&2 &&
	DEBIAN_FRONTEND=noninteractive chroot "$bt_tree" apt-get install -y -qq btrfs-progs >&2
arc=$?
if [ "$arc" = 0 ] && ! bt_initrd_ok; then
	say "initramfs of the btrfs system (btrfs-progs' trigger did not make it again)"
	chroot "$bt_tree" update-initramfs -u -k all >&2 && bt_initrd_ok
	arc=$?
fi
set -e
for m in dev/pts dev sys proc; do umount "$bt_tree/$m"; done
[ "$arc" = 0 ] ||
	die "apt-get could not install btrfs-progs in the btrfs system, or its initramfs lacks btrfs"
find "$bt_tree/var/cache/apt/archives" -maxdepth 1 -name '*.deb' -exec cp -n -t "$debs" {} +
chroot "$bt_tree" apt-get clean
find "$bt_tree/var/lib/apt/lists" -maxdepth 1 -type f ! -name lock -delete
rm -f "$bt_tree/etc/resolv.conf"
for f in usr/bin/btrfs usr/sbin/grub-install usr/lib/grub/x86_64-efi/modinfo.sh; do
	[ -e "$bt_tree/$f" ] || die "the btrfs system has no /$f"
done
for t in "$root" "$efi_root" "$lvm_tree"; do
	[ ! -e "$t/usr/bin/btrfs" ] || die "btrfs-progs got into a system other than the btrfs one"
done

# The third image's system, and only it, then gets clevis for TPM unlock (clevis-tpm2,
# clevis-initramfs), as a person who wants it installs it: taken after the LVM and btrfs
# copies, so those never have it. With busybox, which initramfs-tools recommends and a
# Debian install has: clevis' initramfs script finds the passphrase prompt with its ps.
# Its initramfs, made again by their triggers, carries clevis and tpm2-tools; made again
# here if it does not.
say "clevis for TPM unlock in the EFI system (third image)"
cp -L /etc/resolv.conf "$efi_root/etc/resolv.conf" 2>/dev/null || true
find "$debs" -name '*.deb' -exec cp -t "$efi_root/var/cache/apt/archives" {} +
for m in proc sys dev dev/pts; do mount --bind "/$m" "$efi_root/$m"; done
set +e
chroot "$efi_root" apt-get update -qq >&2 &&
	DEBIAN_FRONTEND=noninteractive chroot "$efi_root" apt-get install -y -qq clevis-tpm2 \
		clevis-initramfs busybox >&2
arc=$?
if [ "$arc" = 0 ] && ! efi_clevis_initrd_ok; then
	say "initramfs of the EFI system (clevis' trigger did not make it again)"
	chroot "$efi_root" update-initramfs -u -k all >&2 && efi_clevis_initrd_ok
	arc=$?
fi
set -e
for m in dev/pts dev sys proc; do umount "$efi_root/$m"; done
[ "$arc" = 0 ] || die "apt-get could not install clevis in the EFI system, or its initramfs lacks it"
find "$efi_root/var/cache/apt/archives" -maxdepth 1 -name '*.deb' -exec cp -n -t "$debs" {} +
chroot "$efi_root" apt-get clean
find "$efi_root/var/lib/apt/lists" -maxdepth 1 -type f ! -name lock -delete
rm -f "$efi_root/etc/resolv.conf"
for t in "$root" "$lvm_tree" "$bt_tree"; do
	[ ! -e "$t/usr/bin/clevis" ] || die "clevis got into a system other than the EFI one"
done

say "GRUB"
grub_dir=$root/boot/grub
mkdir -p "$grub_dir/i386-pc"
cp "$root"/usr/lib/grub/i386-pc/*.mod "$root"/usr/lib/grub/i386-pc/*.lst "$grub_dir/i386-pc/"
cat >"$grub_dir/grub.cfg" <<EOF
# Written like grub-mkconfig's output for one kernel.
serial --unit=0 --speed=115200
terminal_input serial
terminal_output serial
set timeout=0
set default=0
insmod part_msdos
insmod ext2
search --no-floppy --fs-uuid --set=root $boot_uuid
menuentry 'Debian GNU/Linux' {
	insmod part_msdos
	insmod ext2
	search --no-floppy --fs-uuid --set=root $boot_uuid
	linux /vmlinuz-$kver root=UUID=$root_uuid ro $kernel_args
	initrd /initrd.img-$kver
}
EOF
# core.img: diskboot + kernel with what it needs to read partition 1; grub-mkimage fills
# in the block list for a core.img that starts at sector 1, which is where boot.img looks.
chroot "$root" grub-mkimage -O i386-pc -o /tmp/core.img -p '(hd0,msdos1)/grub' \
	biosdisk part_msdos ext2 search search_fs_uuid serial >&2
cp "$root/tmp/core.img" "$root/usr/lib/grub/i386-pc/boot.img" "$tmp/"
rm -f "$root/tmp/core.img"
core_sectors=$((($(stat -c %s "$tmp/core.img") + 511) / 512))
[ "$core_sectors" -lt 2000 ] || die "core.img does not fit before the first partition"
# The second image's: the same modules, reading partition 1's /boot/grub.
chroot "$root" grub-mkimage -O i386-pc -o /tmp/core.img -p '(hd0,msdos1)/boot/grub' \
	biosdisk part_msdos ext2 search search_fs_uuid serial >&2
mv "$root/tmp/core.img" "$tmp/core-bootinside.img"
core_sectors=$((($(stat -c %s "$tmp/core-bootinside.img") + 511) / 512))
[ "$core_sectors" -lt 2000 ] || die "core.img (/boot inside) does not fit before the first partition"
# The Ubuntu-like image's: reading a GPT's partition 2, from its BIOS boot partition.
chroot "$root" grub-mkimage -O i386-pc -o /tmp/core.img -p '(hd0,gpt2)/boot/grub' \
	biosdisk part_gpt ext2 search search_fs_uuid serial >&2
mv "$root/tmp/core.img" "$tmp/core-ubuntu.img"
[ $((($(stat -c %s "$tmp/core-ubuntu.img") + 511) / 512)) -lt 2048 ] ||
	die "core.img (Ubuntu-like) does not fit in its 1 MiB BIOS boot partition"
# What a tool changing that system's boot runs in it later.
for f in usr/sbin/grub-install usr/sbin/update-grub usr/sbin/grub-mkconfig usr/sbin/grub-probe \
	etc/grub.d/10_linux usr/lib/grub/i386-pc/modinfo.sh etc/default/grub; do
	[ -e "$root/$f" ] || die "the new system has no /$f"
done

# The third image's, for a /boot inside its root.
say "GRUB for EFI (third image)"
efi_grub "$efi_root" "$be_root_uuid" /boot/grub "UUID=$be_root_uuid" "$tmp/esp" \
	"/boot a folder of the root"
cat >"$efi_root/etc/fstab" <<EOF2
# /etc/fstab: static file system information.
UUID=$be_root_uuid / ext4 errors=remount-ro 0 1
UUID=$be_esp_uuid /boot/efi vfat umask=0077 0 1
UUID=$be_swap_uuid none swap sw 0 0
EOF2

# The fourth image's, for a /boot of its own (GRUB needs no lvm module: nothing it reads is
# on the VG).
say "GRUB for EFI (fourth image)"
efi_grub "$lvm_tree" "$lv_boot_uuid" /grub "$lv_mapper-root" "$tmp/lv-esp" \
	"/boot a partition of its own"

# The fifth image's, for a /boot of its own (GRUB reads nothing on the btrfs): the root by
# the btrfs UUID, its subvolume in rootflags.
say "GRUB for EFI (fifth image)"
efi_grub "$bt_tree" "$bt_boot_uuid" /grub "UUID=$bt_root_uuid" "$tmp/bt-esp" \
	"/boot a partition of its own" "rootflags=subvol=$bt_subvol"

say "filesystems and the disk image"
boot_mib=192
swap_mib=64
root_used=$(du -sm --exclude=./boot "$root" | cut -f1)
# Room for what the tests write (files during a conversion, initramfs copies) and the
# header's 32 MiB, and no more: every test that encrypts a root converts all of it, about
# a tenth of a second per MiB under emulation (768 MiB here, 896 before: 1.4 times the
# tree and 160 MiB).
root_mib=$(((root_used * 13 / 10 + 128 + 63) / 64 * 64))
disk_mib=$((1 + boot_mib + root_mib + swap_mib + 1))

# The second image's root, made from the tree while /boot is still in it, with its own
# fstab and GRUB menu in place of the first image's for the time of its mkfs: room for
# the first image's root, the boot tree, and a 512 MiB /boot plus a 32 MiB header carved
# from its end (512 + 224 MiB: the header's 32, what the step at a restart keeps free in the
# root after it, and some to spare; with 96 the restart's plan was 1 MiB short).
boot_used=$(du -sm "$root/boot" | cut -f1)
bi_root_mib=$(((root_mib + boot_used + 512 + 224 + 63) / 64 * 64))
bi_disk_mib=$((1 + bi_root_mib + swap_mib + 1))
mv "$root/etc/fstab" "$tmp/fstab"
mv "$grub_dir/grub.cfg" "$tmp/grub.cfg"
cat >"$root/etc/fstab" <<EOF
# /etc/fstab: static file system information.
UUID=$bi_root_uuid / ext4 errors=remount-ro 0 1
UUID=$bi_swap_uuid none swap sw 0 0
EOF
cat >"$grub_dir/grub.cfg" <<EOF
# Written like grub-mkconfig's output for one kernel, /boot a folder of the root.
serial --unit=0 --speed=115200
terminal_input serial
terminal_output serial
set timeout=0
set default=0
insmod part_msdos
insmod ext2
search --fs-uuid --set=root $bi_root_uuid
menuentry 'Debian GNU/Linux' {
	insmod part_msdos
	insmod ext2
	search --fs-uuid --set=root $bi_root_uuid
	linux /boot/vmlinuz-$kver root=UUID=$bi_root_uuid ro $kernel_args
	initrd /boot/initrd.img-$kver
}
EOF
# (Its "Creating regular file" goes to stderr: stdout is the report's.)
mkfs.ext4 -q -F -b 4096 -U "$bi_root_uuid" -L root -d "$root" "$tmp/bi-root.fs" "${bi_root_mib}M" >&2
mv "$tmp/fstab" "$root/etc/fstab"
mv "$tmp/grub.cfg" "$grub_dir/grub.cfg"
truncate -s "${swap_mib}M" "$tmp/bi-swap.fs"
mkswap -q -U "$bi_swap_uuid" "$tmp/bi-swap.fs"
e2fsck -fn "$tmp/bi-root.fs" >&2

# The Ubuntu-like image's root: the second image's plus the swap file /swap.img (random
# bytes under its swap header, so that mkfs writes every block: swapon takes no file with
# holes), with its own fstab and GRUB menu (a GPT) for the time of its mkfs.
ub_swap_mib=64
ub_root_mib=$(((bi_root_mib + ub_swap_mib + 63) / 64 * 64))
ub_disk_mib=$((2 + ub_root_mib + 1))
mv "$root/etc/fstab" "$tmp/fstab"
mv "$grub_dir/grub.cfg" "$tmp/grub.cfg"
cat >"$root/etc/fstab" <<EOF
# /etc/fstab: static file system information.
UUID=$ub_root_uuid / ext4 errors=remount-ro 0 1
/swap.img none swap sw 0 0
EOF
cat >"$grub_dir/grub.cfg" <<EOF
# Written like grub-mkconfig's output for one kernel, /boot a folder of the root (GPT).
serial --unit=0 --speed=115200
terminal_input serial
terminal_output serial
set timeout=0
set default=0
insmod part_gpt
insmod ext2
search --fs-uuid --set=root $ub_root_uuid
menuentry 'Debian GNU/Linux' {
	insmod part_gpt
	insmod ext2
	search --fs-uuid --set=root $ub_root_uuid
	linux /boot/vmlinuz-$kver root=UUID=$ub_root_uuid ro $kernel_args
	initrd /boot/initrd.img-$kver
}
EOF
head -c "${ub_swap_mib}M" /dev/urandom >"$root/swap.img"
chmod 0600 "$root/swap.img"
mkswap -q "$root/swap.img" >&2
mkfs.ext4 -q -F -b 4096 -U "$ub_root_uuid" -L root -d "$root" "$tmp/ub-root.fs" "${ub_root_mib}M" >&2
rm -f "$root/swap.img"
mv "$tmp/fstab" "$root/etc/fstab"
mv "$tmp/grub.cfg" "$grub_dir/grub.cfg"
e2fsck -fn "$tmp/ub-root.fs" >&2

# The third image: its root as large as the second's (the same room to carve a /boot and
# a header from its end), a 64 MiB FAT32 ESP filled with mtools (never mounted), swap.
esp_mib=64
be_root_mib=$bi_root_mib
be_disk_mib=$((1 + esp_mib + be_root_mib + swap_mib + 1))
mkfs.ext4 -q -F -b 4096 -U "$be_root_uuid" -L root -d "$efi_root" "$tmp/be-root.fs" "${be_root_mib}M" >&2
e2fsck -fn "$tmp/be-root.fs" >&2
esp_image "$tmp/esp" "$tmp/be-esp.fs" "$be_esp_id" "$be_esp_uuid"
truncate -s "${swap_mib}M" "$tmp/be-swap.fs"
mkswap -q -U "$be_swap_uuid" "$tmp/be-swap.fs"

mkdir -p "$tmp/bootfs"
mv "$root"/boot/* "$tmp/bootfs/"
mkfs.ext4 -q -F -b 4096 -U "$boot_uuid" -L boot -d "$tmp/bootfs" "$tmp/boot.fs" "${boot_mib}M" >&2
mkfs.ext4 -q -F -b 4096 -U "$root_uuid" -L root -d "$root" "$tmp/root.fs" "${root_mib}M" >&2
truncate -s "${swap_mib}M" "$tmp/swap.fs"
mkswap -q -U "$swap_uuid" "$tmp/swap.fs"
e2fsck -fn "$tmp/boot.fs" >&2
e2fsck -fn "$tmp/root.fs" >&2

# The fourth image: /boot from the LVM system's boot tree (kernel, initramfs, grub/, the
# ESP's mount point), its root as large as the first image's (the same spare room), the
# ESP as the third image's, a 128 MiB swap.
lv_swap_mib=128
lv_root_mib=$root_mib
mkdir -p "$tmp/lv-bootfs"
mv "$lvm_tree"/boot/* "$tmp/lv-bootfs/"
mkfs.ext4 -q -F -b 4096 -U "$lv_boot_uuid" -L boot -d "$tmp/lv-bootfs" "$tmp/lv-boot.fs" "${boot_mib}M" >&2
mkfs.ext4 -q -F -b 4096 -U "$lv_root_uuid" -L root -d "$lvm_tree" "$tmp/lv-root.fs" "${lv_root_mib}M" >&2
e2fsck -fn "$tmp/lv-boot.fs" >&2
e2fsck -fn "$tmp/lv-root.fs" >&2
esp_image "$tmp/lv-esp" "$tmp/lv-esp.fs" "$lv_esp_id" "$lv_esp_uuid"
truncate -s "${lv_swap_mib}M" "$tmp/lv-swap.fs"
mkswap -q -U "$lv_swap_uuid" "$tmp/lv-swap.fs"

# The fifth image: /boot from the btrfs system's boot tree, the ESP as the third image's, a
# 128 MiB swap, and the btrfs: as large as the first image's root plus 256 MiB for btrfs'
# own (metadata twice, chunks) and never under 1 GiB (below it mkfs.btrfs mixes data and
# metadata, which an installed system's btrfs does not), with the tree in subvolume @rootfs
# of an otherwise empty top level. It is filled on this machine through a loop device, then
# checked unmounted.
bt_swap_mib=128
bt_root_mib=$((root_mib + 256 > 1024 ? root_mib + 256 : 1024))
mkdir -p "$tmp/bt-bootfs"
mv "$bt_tree"/boot/* "$tmp/bt-bootfs/"
mkfs.ext4 -q -F -b 4096 -U "$bt_boot_uuid" -L boot -d "$tmp/bt-bootfs" "$tmp/bt-boot.fs" "${boot_mib}M" >&2
e2fsck -fn "$tmp/bt-boot.fs" >&2
esp_image "$tmp/bt-esp" "$tmp/bt-esp.fs" "$bt_esp_id" "$bt_esp_uuid"
truncate -s "${bt_swap_mib}M" "$tmp/bt-swap.fs"
mkswap -q -U "$bt_swap_uuid" "$tmp/bt-swap.fs"
btrfs_root_fs

# Its PV, with lvm2's defaults as the installer's: the data area 1 MiB in, behind the one
# metadata area, and 4 MiB extents (both asked for by name, since the partition's size is
# reckoned from them): the partition holds exactly the two LVs' extents after that, so the
# VG has none free. pvcreate, vgcreate and lvcreate write nothing but the metadata (no
# activation, no zeroing, no wiping of signatures), through a loop device of a file as
# large as the PV; the file systems go to the extents the LVs got, found in that metadata,
# when the disk image is put together.
lv_pv_mib=$((1 + lv_root_mib + lv_swap_mib))
lvm_dir=$tmp/lvm
mkdir -p "$lvm_dir/lock"
lvm_pv_make

part=$tmp/disk.img
truncate -s "${disk_mib}M" "$part"
p1=1
p2=$((p1 + boot_mib))
p3=$((p2 + root_mib))
parted -s "$part" mklabel msdos \
	mkpart primary ext4 "${p1}MiB" "${p2}MiB" \
	mkpart primary ext4 "${p2}MiB" "${p3}MiB" \
	mkpart primary linux-swap "${p3}MiB" "$((p3 + swap_mib))MiB" \
	set 1 boot on 2> >(grep -v 'udevadm: not found' >&2)
dd if="$tmp/boot.fs" of="$part" bs=1M seek="$p1" conv=notrunc,sparse status=none
dd if="$tmp/root.fs" of="$part" bs=1M seek="$p2" conv=notrunc,sparse status=none
dd if="$tmp/swap.fs" of="$part" bs=1M seek="$p3" conv=notrunc status=none
dd if="$tmp/boot.img" of="$part" bs=440 count=1 conv=notrunc status=none
dd if="$tmp/core.img" of="$part" bs=512 seek=1 conv=notrunc status=none

part_bi=$tmp/disk-bootinside.img
truncate -s "${bi_disk_mib}M" "$part_bi"
bi_p1=1
bi_p2=$((bi_p1 + bi_root_mib))
parted -s "$part_bi" mklabel msdos \
	mkpart primary ext4 "${bi_p1}MiB" "${bi_p2}MiB" \
	mkpart primary linux-swap "${bi_p2}MiB" "$((bi_p2 + swap_mib))MiB" \
	set 1 boot on 2> >(grep -v 'udevadm: not found' >&2)
dd if="$tmp/bi-root.fs" of="$part_bi" bs=1M seek="$bi_p1" conv=notrunc,sparse status=none
dd if="$tmp/bi-swap.fs" of="$part_bi" bs=1M seek="$bi_p2" conv=notrunc status=none
dd if="$tmp/boot.img" of="$part_bi" bs=440 count=1 conv=notrunc status=none
dd if="$tmp/core-bootinside.img" of="$part_bi" bs=512 seek=1 conv=notrunc status=none

# The Ubuntu-like image: GRUB in the protective MBR and the BIOS boot partition.
part_ub=$tmp/disk-ubuntu.img
truncate -s "${ub_disk_mib}M" "$part_ub"
parted -s "$part_ub" mklabel gpt \
	mkpart bios 1MiB 2MiB \
	mkpart root ext4 2MiB "$((2 + ub_root_mib))MiB" \
	set 1 bios_grub on 2> >(grep -v 'udevadm: not found' >&2)
dd if="$tmp/ub-root.fs" of="$part_ub" bs=1M seek=2 conv=notrunc,sparse status=none
grub_bios_gpt "$part_ub" "$tmp/boot.img" "$tmp/core-ubuntu.img" 2048

part_be=$tmp/disk-efi-bootinside.img
truncate -s "${be_disk_mib}M" "$part_be"
be_p1=1
be_p2=$((be_p1 + esp_mib))
be_p3=$((be_p2 + be_root_mib))
parted -s "$part_be" mklabel gpt \
	mkpart EFI fat32 "${be_p1}MiB" "${be_p2}MiB" \
	mkpart root ext4 "${be_p2}MiB" "${be_p3}MiB" \
	mkpart swap linux-swap "${be_p3}MiB" "$((be_p3 + swap_mib))MiB" \
	set 1 esp on 2> >(grep -v 'udevadm: not found' >&2)
dd if="$tmp/be-esp.fs" of="$part_be" bs=1M seek="$be_p1" conv=notrunc,sparse status=none
dd if="$tmp/be-root.fs" of="$part_be" bs=1M seek="$be_p2" conv=notrunc,sparse status=none
dd if="$tmp/be-swap.fs" of="$part_be" bs=1M seek="$be_p3" conv=notrunc status=none

part_lv=$tmp/disk-lvm.img
lv_disk_mib=$((1 + esp_mib + boot_mib + lv_pv_mib + 1))
truncate -s "${lv_disk_mib}M" "$part_lv"
lv_p1=1
lv_p2=$((lv_p1 + esp_mib))
lv_p3=$((lv_p2 + boot_mib))
parted -s "$part_lv" mklabel gpt \
	mkpart EFI fat32 "${lv_p1}MiB" "${lv_p2}MiB" \
	mkpart boot ext4 "${lv_p2}MiB" "${lv_p3}MiB" \
	mkpart lvm "${lv_p3}MiB" "$((lv_p3 + lv_pv_mib))MiB" \
	set 1 esp on set 3 lvm on 2> >(grep -v 'udevadm: not found' >&2)
dd if="$tmp/lv-esp.fs" of="$part_lv" bs=1M seek="$lv_p1" conv=notrunc,sparse status=none
dd if="$tmp/lv-boot.fs" of="$part_lv" bs=1M seek="$lv_p2" conv=notrunc,sparse status=none
dd if="$tmp/lv-pv.fs" of="$part_lv" bs=1M seek="$lv_p3" conv=notrunc,sparse status=none
dd if="$tmp/lv-root.fs" of="$part_lv" bs=1M oflag=seek_bytes conv=notrunc,sparse status=none \
	seek=$((lv_p3 * 1048576 + lv_pe_start + lv_root_first * lv_extent))
dd if="$tmp/lv-swap.fs" of="$part_lv" bs=1M oflag=seek_bytes conv=notrunc status=none \
	seek=$((lv_p3 * 1048576 + lv_pe_start + lv_swap_first * lv_extent))
lvm_image_check

part_bt=$tmp/disk-btrfs.img
bt_disk_mib=$((1 + esp_mib + boot_mib + bt_root_mib + bt_swap_mib + 1))
truncate -s "${bt_disk_mib}M" "$part_bt"
bt_p1=1
bt_p2=$((bt_p1 + esp_mib))
bt_p3=$((bt_p2 + boot_mib))
bt_p4=$((bt_p3 + bt_root_mib))
parted -s "$part_bt" mklabel gpt \
	mkpart EFI fat32 "${bt_p1}MiB" "${bt_p2}MiB" \
	mkpart boot ext4 "${bt_p2}MiB" "${bt_p3}MiB" \
	mkpart root btrfs "${bt_p3}MiB" "${bt_p4}MiB" \
	mkpart swap linux-swap "${bt_p4}MiB" "$((bt_p4 + bt_swap_mib))MiB" \
	set 1 esp on 2> >(grep -v 'udevadm: not found' >&2)
dd if="$tmp/bt-esp.fs" of="$part_bt" bs=1M seek="$bt_p1" conv=notrunc,sparse status=none
dd if="$tmp/bt-boot.fs" of="$part_bt" bs=1M seek="$bt_p2" conv=notrunc,sparse status=none
dd if="$tmp/bt-root.fs" of="$part_bt" bs=1M seek="$bt_p3" conv=notrunc,sparse status=none
dd if="$tmp/bt-swap.fs" of="$part_bt" bs=1M seek="$bt_p4" conv=notrunc status=none
btrfs_image_check

cat >"$tmp/layout" <<EOF
kernel=$kver
boot_uuid=$boot_uuid
root_uuid=$root_uuid
swap_uuid=$swap_uuid
boot_part=1
root_part=2
swap_part=3
root_mib=$root_mib
EOF
cat >"$tmp/layout-bootinside" <<EOF
bi_root_uuid=$bi_root_uuid
bi_swap_uuid=$bi_swap_uuid
bi_root_part=1
bi_swap_part=2
bi_root_mib=$bi_root_mib
EOF
cat >"$tmp/layout-efi-bootinside" <<EOF
be_root_uuid=$be_root_uuid
be_esp_uuid=$be_esp_uuid
be_swap_uuid=$be_swap_uuid
be_esp_part=1
be_root_part=2
be_swap_part=3
be_root_mib=$be_root_mib
EOF
cat >"$tmp/layout-lvm" <<EOF
lv_esp_uuid=$lv_esp_uuid
lv_boot_uuid=$lv_boot_uuid
lv_root_uuid=$lv_root_uuid
lv_swap_uuid=$lv_swap_uuid
lv_vg=$lv_vg
lv_esp_part=1
lv_boot_part=2
lv_pv_part=3
lv_root_mib=$lv_root_mib
lv_swap_mib=$lv_swap_mib
EOF
cat >"$tmp/layout-btrfs" <<EOF
bt_esp_uuid=$bt_esp_uuid
bt_boot_uuid=$bt_boot_uuid
bt_root_uuid=$bt_root_uuid
bt_swap_uuid=$bt_swap_uuid
bt_esp_part=1
bt_boot_part=2
bt_root_part=3
bt_swap_part=4
bt_subvol=$bt_subvol
bt_root_mib=$bt_root_mib
EOF
cat >"$tmp/layout-ubuntu" <<EOF
ub_root_uuid=$ub_root_uuid
ub_biosboot_part=1
ub_root_part=2
ub_root_mib=$ub_root_mib
ub_swap_file=/swap.img
EOF
chmod 0444 "$part_ub" "$part" "$part_bi" "$part_be" "$part_lv" "$part_bt"
mv "$tmp/layout-btrfs" "$dir/layout-btrfs"
mv "$part_bt" "$img_bt"
mv "$tmp/layout-ubuntu" "$dir/layout-ubuntu"
mv "$part_ub" "$img_ub"
mv "$tmp/layout-lvm" "$dir/layout-lvm"
mv "$part_lv" "$img_lv"
mv "$tmp/layout-efi-bootinside" "$dir/layout-efi-bootinside"
mv "$part_be" "$img_be"
mv "$tmp/layout-bootinside" "$dir/layout-bootinside"
mv "$part_bi" "$img_bi"
mv "$tmp/layout" "$dir/layout"
mv "$part" "$img"
say "built $img (${disk_mib} MiB, root ${root_mib} MiB)"
say "built $img_bi (${bi_disk_mib} MiB, root ${bi_root_mib} MiB)"
say "built $img_be (${be_disk_mib} MiB, root ${be_root_mib} MiB)"
say "built $img_ub (${ub_disk_mib} MiB, root ${ub_root_mib} MiB)"
say "built $img_lv (${lv_disk_mib} MiB, root LV ${lv_root_mib} MiB)"
say "built $img_bt (${bt_disk_mib} MiB, btrfs ${bt_root_mib} MiB)"
report
