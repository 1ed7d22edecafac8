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

/* What the system uses a partition named in its fstab, crypttab or resume setting for. */
enum fdw_os_use {
	FDW_USE_NONE,
	FDW_USE_BOOT,			/* read before its initramfs can ask for a passphrase:
					 * /boot, /boot/efi, /efi, /usr */
	FDW_USE_DATA,			/* mounted after the root: /home, /srv, /var, ... */
	FDW_USE_SWAP,			/* an fstab swap line */
	FDW_USE_RESUME,			/* the hibernation image (RESUME=) */
	FDW_USE_CRYPT,			/* the source of one of its crypttab lines */
};

/* One partition the system names: spec as written (outside text), what it is for. */
struct fdw_os_entry {
	char spec[128];			/* UUID=..., LABEL=..., PARTUUID=..., /dev/sda2 */
	char dir[64];			/* its mount point ("" for swap, resume, crypttab) */
	enum fdw_os_use use;
};

#define FDW_OS_MAX_ENTRIES 16

struct fdw_installed_os {
	bool found;			/* its etc/fstab mounts a filesystem at / */
	bool fstab_names_it;		/* ... and names this very filesystem */
	char root_spec[128];		/* how its fstab names / (outside text) */
	/* The btrfs subvolume its root is ("@rootfs", "@", "root"; outside text), "" for a
	 * filesystem's top: where the system was found, and its fstab's subvol= for /. */
	char root_subvol[64];
	char fstab_subvol[64];		/* subvol= of its fstab's / line, leading '/' dropped */
	char name[128];			/* PRETTY_NAME of os-release (outside text), or "" */
	bool boot_separate;		/* /boot is another filesystem */
	char boot_spec[128];		/* its fstab spec (UUID=..., outside text), or "" */
	bool usr_separate;		/* /usr is another filesystem */
	bool home_separate;		/* /home is another filesystem */
	bool has_kernels;		/* boot/vmlinuz-* on this filesystem */
	enum fdw_boot_loader loader;
	enum fdw_initramfs_kind initramfs;
	bool luks_in_initramfs;		/* cryptsetup-initramfs or dracut's crypt module */
	/* clevis-initramfs and clevis-tpm2: its initramfs-tools can unlock with a TPM */
	bool tpm_in_initramfs;
	bool hibernates;		/* a resume device is configured */
	unsigned n_swaps;		/* swap entries in its fstab */
	unsigned n_swap_files;		/* ... of which files (/swap.img): inside a filesystem */
	char swap_file[128];		/* the first such file (outside text), or "" */
	bool resume_offset;		/* it hibernates into a file: RESUME_OFFSET= in its
					 * initramfs-tools resume setting, or resume_offset= on
					 * GRUB's kernel line */
	/* Read through an open mapping of its LUKS volume (/dev/mapper/NAME), or "": the
	 * system's root is encrypted, and was unlocked for fdewiz to look inside. */
	char via[160];
	/* Every other partition it names (fstab, crypttab, RESUME=), at most the first 16. */
	unsigned n_entries;
	struct fdw_os_entry entries[FDW_OS_MAX_ENTRIES];
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

/* The most a reader returns of one of the system's files: small text; more is no fstab. */
#define FDW_OS_TEXT_MAX (256 * 1024)

/*
 * How the files of a system are read: by debugfs from an unmounted ext filesystem, or
 * from a mounted tree (system_peek.c). Paths are absolute inside the system.
 */
struct fdw_os_reader {
	/* found[i]: does paths[i] exist (a link counts as what it is, not followed)? */
	int (*exist)(void *ctx, const char *const *paths, int n, bool *found);
	/* The files of @paths one after the other, missing ones left out, in a new string. */
	int (*cat)(void *ctx, const char *const *paths, int n, char **text);
	/* Is there a boot/vmlinuz-* ? */
	bool (*has_kernels)(void *ctx);
	void *ctx;
};

/* The system read through @rd, identified as in fdw_installed_os_probe(). 0 or -errno. */
int fdw_installed_os_read(const struct fdw_os_reader *rd, const char *fs_uuid,
			  const char *label, struct fdw_installed_os *out);

/*
 * The parsers, apart so that they can be tested and fuzzed on any text: an fstab (which
 * sets found, fstab_names_it, *_separate and n_swaps) and an os-release (the name).
 */
void fdw_installed_os_parse_fstab(const char *text, const char *fs_uuid, const char *label,
				  struct fdw_installed_os *out);
void fdw_installed_os_parse_os_release(const char *text, struct fdw_installed_os *out);
/* Its etc/crypttab (each line's source device becomes an FDW_USE_CRYPT entry) and its
 * initramfs-tools resume setting (RESUME=SPEC: an FDW_USE_RESUME entry; sets hibernates). */
void fdw_installed_os_parse_crypttab(const char *text, struct fdw_installed_os *out);
void fdw_installed_os_parse_resume(const char *text, struct fdw_installed_os *out);
/* Its etc/default/grub: resume_offset= on a kernel line that is not a comment. */
void fdw_installed_os_parse_default_grub(const char *text, struct fdw_installed_os *out);

/* The fstab spec of its EFI system partition (mounted at /boot/efi), or NULL. */
const char *fdw_installed_os_esp_spec(const struct fdw_installed_os *os);
/* Can @spec name a partition (UUID=, PARTUUID=, LABEL=, PARTLABEL=, /dev/...)? */
bool fdw_os_spec_is_partition(const char *spec);
/* Stable names for JSON: "boot", "data", "swap", "resume", "crypttab"; NULL for none. */
const char *fdw_os_use_name(enum fdw_os_use use);

/* "GRUB (BIOS)", "systemd-boot", ... for a person, translated; "" when unknown. */
const char *fdw_boot_loader_text(enum fdw_boot_loader loader);
/* Stable names for JSON: "grub-bios", "grub-efi", "systemd-boot", or NULL when unknown. */
const char *fdw_boot_loader_name(enum fdw_boot_loader loader);
const char *fdw_initramfs_name(enum fdw_initramfs_kind kind);

/* One line a person understands: "Debian GNU/Linux 12 (bookworm) (/, /boot inside)". */
size_t fdw_installed_os_describe(const struct fdw_installed_os *os, char *buf, size_t len);

#endif
