/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An installed Linux system inside a filesystem: found by reading it, never by mounting it. */
#ifndef FDW_INSTALLED_OS_H
#define FDW_INSTALLED_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fdw_boot_loader {
	FDW_LOADER_UNKNOWN,
	FDW_LOADER_GRUB_BIOS,		/* GRUB for BIOS (grub-pc) */
	FDW_LOADER_GRUB_EFI,		/* GRUB for EFI */
	FDW_LOADER_SYSTEMD_BOOT,
};

enum fdw_initramfs_kind {
	FDW_INITRAMFS_UNKNOWN,
	FDW_INITRAMFS_TOOLS,		/* Debian, Ubuntu: initramfs-tools */
	FDW_INITRAMFS_DRACUT,		/* Fedora, openSUSE, ... */
};

struct fdw_installed_os {
	bool found;			/* its etc/fstab mounts a filesystem at / */
	bool fstab_names_it;		/* ... and names this very filesystem */
	char name[128];			/* PRETTY_NAME of os-release (outside text), or "" */
	bool boot_separate;		/* /boot is another filesystem */
	char boot_spec[128];		/* its fstab spec (UUID=..., outside text), or "" */
	bool usr_separate;		/* /usr is another filesystem */
	bool home_separate;		/* /home is another filesystem */
	bool has_kernels;		/* boot/vmlinuz-* on this filesystem */
	enum fdw_boot_loader loader;
	enum fdw_initramfs_kind initramfs;
	bool luks_in_initramfs;		/* cryptsetup-initramfs or dracut's crypt module */
	bool hibernates;		/* a resume device is configured */
	unsigned n_swaps;		/* swap entries in its fstab */
};

/*
 * Look inside the ext2/3/4 filesystem of @size bytes at @offset of @path (a block device or
 * an image file) for an installed system, read-only and without mounting it (debugfs in
 * catastrophic, read-only mode: no journal replay, nothing written). @fs_uuid and @label
 * identify the filesystem, so that its fstab's / entry can be matched to it.
 * Returns 0 (out->found says whether there is one), or -errno when it could not look.
 */
int fdw_installed_os_probe(const char *path, uint64_t offset, const char *fs_uuid,
			   const char *label, struct fdw_installed_os *out);

/*
 * The parsers, apart so that they can be tested and fuzzed on any text: an fstab (which
 * sets found, fstab_names_it, *_separate and n_swaps) and an os-release (the name).
 */
void fdw_installed_os_parse_fstab(const char *text, const char *fs_uuid, const char *label,
				  struct fdw_installed_os *out);
void fdw_installed_os_parse_os_release(const char *text, struct fdw_installed_os *out);

/* "GRUB (BIOS)", "systemd-boot", ... for a person, translated; "" when unknown. */
const char *fdw_boot_loader_text(enum fdw_boot_loader loader);
/* Stable names for JSON: "grub-bios", "grub-efi", "systemd-boot", or NULL when unknown. */
const char *fdw_boot_loader_name(enum fdw_boot_loader loader);
const char *fdw_initramfs_name(enum fdw_initramfs_kind kind);

/* One line a person understands: "Debian GNU/Linux 12 (bookworm) (/, /boot inside)". */
size_t fdw_installed_os_describe(const struct fdw_installed_os *os, char *buf, size_t len);

#endif
