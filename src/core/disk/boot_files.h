/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A boot partition recognised by what it holds (kernels, boot loaders), not only by an
 * fstab that names it: the fstab may sit inside a root fdewiz cannot read. */
#ifndef FDW_BOOT_FILES_H
#define FDW_BOOT_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What was found; several may be. */
enum fdw_boot_file_kind {
	FDW_BOOTF_KERNELS = 1 << 0,	/* vmlinuz*, vmlinux-*, bzImage, kernel-genkernel-* */
	FDW_BOOTF_INITRAMFS = 1 << 1,	/* initrd.img-*, initrd-*, initramfs-* */
	FDW_BOOTF_KERNEL_FILES = 1 << 2, /* config-*, System.map-* */
	FDW_BOOTF_GRUB = 1 << 3,	/* grub/ or grub2/ with its configuration or modules */
	FDW_BOOTF_LOADER = 1 << 4,	/* loader/entries or loader/loader.conf (systemd-boot) */
	FDW_BOOTF_EFI = 1 << 5,		/* an EFI/ folder with something in it */
	FDW_BOOTF_SYSLINUX = 1 << 6,	/* syslinux/, extlinux/, their configuration */
	FDW_BOOTF_WINDOWS = 1 << 7,	/* Windows' boot manager: bootmgr, Boot/BCD,
					 * EFI/Microsoft/Boot */
	FDW_BOOTF_WINDOWS_SYSTEM = 1 << 8, /* an installed Windows (Windows/System32/winload) */
	FDW_BOOTF_MACOS = 1 << 9,	/* macOS's boot files, or an APFS container */
};

/* Another operating system's boot: fdewiz leaves those alone, erase included. */
#define FDW_BOOTF_OTHER_OS (FDW_BOOTF_WINDOWS | FDW_BOOTF_WINDOWS_SYSTEM | FDW_BOOTF_MACOS)

/* Enough to call it a boot partition: a config-* file alone may be anybody's. */
#define FDW_BOOTF_DECISIVE (~(unsigned)FDW_BOOTF_KERNEL_FILES)

#define FDW_BOOTF_MAX_UUIDS 4

struct fdw_boot_files {
	unsigned kinds;			/* enum fdw_boot_file_kind bits; 0: none found */
	bool under_boot;		/* found in boot/ of a filesystem, not at its top */
	/* Could not look inside (no driver for its filesystem, a mount that failed): -errno,
	 * 0 when it looked or did not need to. */
	int look_error;
	/* What its boot loader's configuration says of the root it starts: the LUKS UUIDs it
	 * names (rd.luks.uuid=, cryptomount -u, cryptdevice=UUID=; lower case, no dashes) and
	 * the device-mapper name of root= ("sda3_crypt"); outside text. */
	char luks_uuids[FDW_BOOTF_MAX_UUIDS][33];
	unsigned n_luks_uuids;
	char root_mapper[64];
	/* The encrypted partition that system's root is, found by those (attribution.c);
	 * "" when none is known. */
	char root_address[512];
	int root_luks_version;
};

/*
 * How the files of a filesystem are looked at, from its top: an unmounted ext by debugfs
 * (boot_files_read.c), anything else mounted read-only in a child (system_peek.c).
 */
struct fdw_boot_reader {
	/* The names in folder @dir ("/" or "/boot"), one a line, in a new string. */
	int (*list)(void *ctx, const char *dir, char **names);
	/* found[i]: does paths[i] exist? */
	int (*exist)(void *ctx, const char *const *paths, int n, bool *found);
	/* The first of @paths that exists, as text, in a new string. */
	int (*cat)(void *ctx, const char *const *paths, int n, char **text);
	void *ctx;
};

/* Look through @rd. 0 with @out filled (out->kinds 0 when nothing was found), or -errno. */
int fdw_boot_files_look(const struct fdw_boot_reader *rd, struct fdw_boot_files *out);

/* The ext2/3/4 at @offset of @path (a disk, image or partition) read with debugfs, never
 * mounted: two runs of it at most. 0 or -errno. */
int fdw_boot_files_probe_ext(const char *path, uint64_t offset, struct fdw_boot_files *out);

/* The parts apart, pure, for tests and fuzzing: the names of one folder ("vmlinuz-6.1",
 * one a line) and a boot loader's configuration (grub.cfg). */
unsigned fdw_boot_files_classify_names(const char *names);
void fdw_boot_files_parse_config(const char *text, struct fdw_boot_files *out);
/* Does @uuid (a LUKS UUID, dashes or not, any case) appear among out->luks_uuids? */
bool fdw_boot_files_names_uuid(const struct fdw_boot_files *bf, const char *uuid);
/* The partition number a root= mapper name like "sda3_crypt" or "nvme0n1p3_crypt" was
 * named after by the installer, or 0. */
int fdw_boot_files_mapper_number(const struct fdw_boot_files *bf);

/* Its outside text terminated, whatever the process that filled it in did. */
void fdw_boot_files_terminate(struct fdw_boot_files *bf);

/* "kernels, initramfs images and GRUB's files", translated, for a person. */
size_t fdw_boot_files_describe(unsigned kinds, char *buf, size_t len);
/* Stable names for JSON ("kernels", "grub", "windows-boot", ...), bit by bit; NULL for
 * a bit that names none. */
const char *fdw_boot_file_kind_name(unsigned bit);

#endif
