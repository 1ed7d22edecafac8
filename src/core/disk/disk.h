/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Disks, partitions and their encryption verdicts: the engine's view of the machine. */
#ifndef FDW_DISK_H
#define FDW_DISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot_files.h"
#include "installed_os.h"
#include "lvm_pv.h"

#define FDW_MIB (1024ULL * 1024ULL)
/* Room a LUKS2 header takes at the start of the device when data shifts in place:
 * twice the default 16 MiB header, as cryptsetup recommends for --reduce-device-size. */
#define FDW_HEADER_ROOM (32 * FDW_MIB)
/* No btrfs device is resized below this (the kernel's limit): its smallest fs_min_size. */
#define FDW_BTRFS_MIN_RESIZE (256 * (int64_t)FDW_MIB)
/* Below this a partition is not worth encrypting in place. */
#define FDW_MIN_PARTITION (64 * FDW_MIB)

enum fdw_disk_kind { FDW_DISK_BLOCK, FDW_DISK_IMAGE };

enum fdw_strategy {
	FDW_STRATEGY_NONE = 0,
	FDW_STRATEGY_SHRINK = 1 << 0,	/* shrink the filesystem to free the tail */
	FDW_STRATEGY_GROW = 1 << 1,	/* grow the partition into free space after it */
	FDW_STRATEGY_DETACHED = 1 << 2,	/* header kept in a file elsewhere */
	FDW_STRATEGY_FREE_TAIL = 1 << 3,	/* the filesystem already ends early enough */
};

/* Why a partition can or cannot be encrypted in place; one sentence each in verdict.c. */
enum fdw_reason {
	FDW_REASON_OK,
	FDW_REASON_MOUNTED_ROOT,
	FDW_REASON_MOUNTED,
	FDW_REASON_ACTIVE_SWAP,
	FDW_REASON_SWAP,
	FDW_REASON_ALREADY_LUKS,
	FDW_REASON_LUKS_UNFINISHED,
	FDW_REASON_OTHER_CRYPTO,
	FDW_REASON_RAID_MEMBER,
	FDW_REASON_LVM_MEMBER,
	FDW_REASON_HOLDERS,
	FDW_REASON_READ_ONLY,
	FDW_REASON_TOO_SMALL,
	FDW_REASON_NO_ROOM,
	FDW_REASON_FULL,
	FDW_REASON_ESP,
	FDW_REASON_BIOS_BOOT,
	FDW_REASON_EXTENDED,
	FDW_REASON_NO_FILESYSTEM,
	FDW_REASON_UNSUPPORTED_FS,
	FDW_REASON_MIN_UNKNOWN,
	FDW_REASON_NO_SIGNATURE,
	FDW_REASON_INSTALLED_SYSTEM,
	FDW_REASON_SYSTEM_BOOT_PART,	/* another system's /boot, /usr, ...: its boot reads it */
	FDW_REASON_LVM_NO_ROOM,		/* an installed system's PV without the header's room */
	FDW_REASON_BOOT_FILES,		/* kernels or a boot loader: a /boot, whoever's it is */
	FDW_REASON_OTHER_OS_BOOT,	/* Windows' or macOS's boot, or an installed Windows */
	FDW_REASON_NOT_LOOKED,		/* could not look inside for boot files */
	FDW_REASON_DECRYPT_UNFINISHED,	/* fdewiz decrypt is moving its data back */
	FDW_REASON__COUNT
};

struct fdw_verdict {
	bool eligible;
	enum fdw_reason reason;
	unsigned strategies;		/* bitmask of enum fdw_strategy */
	enum fdw_strategy strategy;	/* the one `auto` would pick */
	/* An installed system with /boot inside this root (disk/boot_carve.h): a /boot of
	 * its own is carved from the partition's end first; or why not (carve_refusal, an
	 * enum fdw_carve_refusal, with carve_short_by bytes to free). */
	bool carve_boot;
	uint64_t carve_root_size;	/* the partition after the carve (its planned start) */
	uint64_t carve_fs_max;		/* what its filesystem keeps */
	int carve_refusal;
	uint64_t carve_short_by;
	/* An LVM physical volume holding an installed system (its root on a logical volume):
	 * how the header's room at the PV's end is made (disk/lvm_pv.h). */
	bool lvm_system;
	struct fdw_lvm_room lvm_room;
};

/* Whose partition this is: an installed system found on another partition names it. */
struct fdw_owner {
	bool found;
	enum fdw_os_use use;
	char dir[64];			/* where that system mounts it, or "" (outside text) */
	char spec[128];			/* how it names it (outside text) */
	char os_name[128];		/* that system's PRETTY_NAME, or "" (outside text) */
	char root_address[512];		/* its root: /dev/sda3 or IMAGE:3 */
	char root_disk[512];		/* the disk (or image) that holds its root */
	int root_number;		/* the root's partition number there */
	uint64_t root_start, root_size;	/* the root's bytes on root_disk */
	char root_uuid[40];		/* the root filesystem's UUID (its LUKS UUID when
					 * the root is encrypted: see root_via) */
	char root_via[160];		/* the root's open mapping when it is encrypted */
};

struct fdw_partition {
	int number;		/* 0: the whole disk holds a filesystem, no table */
	char *node;		/* device node, NULL where none exists */
	char *address;		/* what to hand to other commands: node or IMAGE:N */
	uint64_t start;		/* bytes from the start of the disk */
	uint64_t size;		/* bytes */
	char *name;		/* GPT partition name, or NULL */
	bool flag_esp, flag_bios_boot, flag_boot, flag_raid, flag_lvm, flag_swap;
	bool extended;		/* msdos extended container */

	/* From libblkid and the superblock */
	char *fstype, *fsversion, *label, *uuid;
	int64_t fs_size, fs_used, fs_free;	/* bytes, -1 if unknown */
	int64_t fs_block_size;			/* bytes, -1 if unknown */
	/* The smallest size the filesystem can shrink to (ext: resize2fs -P), bytes; -1 if
	 * unknown or not measured (only measured where a shrink is in question). */
	int64_t fs_min_size;
	/* The largest I/O unit the filesystem accepts from its device (XFS: its sector
	 * size, FAT: bytes per sector, ext: its block size); -1 if unknown. */
	int64_t fs_sector_size;

	/* In use? */
	char **mountpoints;
	size_t n_mountpoints;
	char **holders;
	size_t n_holders;
	bool swap_active;
	bool read_only;

	/* LUKS */
	int luks_version;		/* 0: not LUKS */
	bool luks_reencrypt_unfinished;
	/* LUKS2 with its header in this file (fdewiz's job record, checked against the
	 * header itself); NULL when the header is on the partition or there is none. */
	char *detached_header;
	/* fdewiz is decrypting it (its job record says so and keeps its header): whatever
	 * blkid sees there now is half of the data. */
	bool decrypting;
	/* No signature at all, but the bytes look random: may be encrypted data. */
	bool looks_random;

	/* An LVM physical volume: LVM's report of it (lvm.read), and whether every holder
	 * is one of its own logical volumes (active, which the conversion deactivates). */
	struct fdw_lvm_pv lvm;
	bool held_by_own_lvs;
	/* Its installed system's root volume is mounted at "/": the running system's. */
	bool lvm_root_running;

	/* An installed system inside (its fstab mounts something at /), read, never mounted;
	 * for a PV, on its logical volume lvm.lvs[lvm.root_lv]. */
	struct fdw_installed_os os;

	/* Not a root: the kernels and boot loaders it holds (boot_files.h), read like the
	 * installed systems; kinds 0 when none, look_error when it could not look. */
	struct fdw_boot_files boot_files;

	/* The installed system (on another partition) whose fstab, crypttab or RESUME= names
	 * this one, and what for; found.false when none does. */
	struct fdw_owner owner;

	uint64_t free_after;		/* unallocated bytes right after the partition */
	struct fdw_verdict verdict;
};

struct fdw_disk {
	char *path;
	enum fdw_disk_kind kind;
	char *model;
	uint64_t size;
	unsigned logical_sector_size;
	unsigned physical_sector_size;
	char *table;		/* "gpt", "msdos", ... or "none" */
	bool read_only;
	struct fdw_partition *parts;
	size_t n_parts;
};

/* A disk the scan of all disks could not read, and why (a negative errno). */
struct fdw_scan_failure {
	char *path;
	int err;
};

struct fdw_disk_list {
	struct fdw_disk *disks;
	size_t n_disks;
	struct fdw_scan_failure *failed;	/* shown with fdw_scan_error_text() */
	size_t n_failed;
};

/*
 * Scan one disk (block device or image file). Returns 0 or a negative errno:
 * -ENOENT no such file, -ENOTBLK a file that is neither a disk image nor a
 * filesystem image, -EACCES not allowed to read it.
 */
int fdw_disk_scan(const char *path, struct fdw_disk *out);
/* Scan every disk of the machine that libparted sees; those it cannot read are kept in
 * out->failed with the reason. */
int fdw_disk_scan_all(struct fdw_disk_list *out);
/* The same, for who owns each partition only: no filesystem's minimum size is measured
 * (fs_min_size stays -1, so the verdicts are not the list's). */
int fdw_disk_scan_all_owners(struct fdw_disk_list *out);
/*
 * Scans that only find volumes: the table, what blkid and LUKS say, mounts and holders.
 * No installed system is looked for, no LVM report read, no size measured, so the owners
 * and verdicts are not the list's: for finding a job's volume and taking its lock.
 */
int fdw_disk_scan_locate(const char *path, struct fdw_disk *out);
int fdw_disk_scan_all_locate(struct fdw_disk_list *out);
void fdw_disk_free(struct fdw_disk *disk);
void fdw_disk_list_free(struct fdw_disk_list *list);

/*
 * Attribute to each installed system found on @disks (its root's fstab names it) every
 * other partition it names, by UUID, PARTUUID, LABEL, PARTLABEL or device, and decide
 * those partitions' verdicts again. A /dev/sdXN name is taken as partition N of the disk
 * that holds the root: names of devices are the installed system's, not this one's.
 */
void fdw_disks_attribute(struct fdw_disk *disks, size_t n_disks);
/* "/boot of Debian GNU/Linux 12 on IMAGE:3", translated; outside text as it is. */
size_t fdw_owner_describe(const struct fdw_owner *o, char *buf, size_t len);

/* Fill in the verdict from the facts already in @part. Pure: no I/O. */
void fdw_verdict_decide(struct fdw_partition *part, const struct fdw_disk *disk);
/*
 * How many bytes the filesystem is short of shrinking by FDW_HEADER_ROOM: 0 when the
 * shrink fits, -1 when its minimum size is unknown. The verdict and the plan both ask it.
 */
int64_t fdw_shrink_shortfall(const struct fdw_partition *part);
/* Does the filesystem already end FDW_HEADER_ROOM before the end of the partition? */
bool fdw_has_free_tail(const struct fdw_partition *part);
/* Is the partition mounted as "/" (the running system's root), or a PV whose root volume is? */
bool fdw_mounted_as_root(const struct fdw_partition *part);
/* One sentence a person understands, already translated. */
const char *fdw_reason_message(enum fdw_reason reason);
/* The verdict in one sentence with its details (mountpoint, holder), translated. */
size_t fdw_verdict_explain(const struct fdw_partition *part, char *buf, size_t len);
/* Stable machine-readable name of a reason ("mounted", "already-luks", ...). */
const char *fdw_reason_name(enum fdw_reason reason);
const char *fdw_strategy_name(enum fdw_strategy strategy);
/* What went wrong naming a disk or partition (-ENOENT, -ENXIO, ...), translated. */
const char *fdw_scan_error_text(int err);

#endif
