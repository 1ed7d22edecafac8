/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Decides whether and how each partition can be encrypted in place, and says why. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "boot_carve.h"
#include "verdict_lvm.h"
#include "disk.h"
#include "fsprobe.h"
#include "base/i18n.h"
#include "os_support.h"
#include "base/units.h"

static const struct {
	const char *name;
	const char *message;
} reasons[FDW_REASON__COUNT] = {
	[FDW_REASON_OK] = { "ok", N_("Can be encrypted in place.") },
	[FDW_REASON_MOUNTED_ROOT] = { "mounted-root",
		N_("Holds the running system (mounted as /): encrypt it with one restart "
		   "(fdewiz encrypt --at-restart), or from a live system.") },
	[FDW_REASON_MOUNTED] = { "mounted",
		N_("Mounted: unmount it first; it is mounted again through the encrypted volume.") },
	[FDW_REASON_ACTIVE_SWAP] = { "active-swap",
		N_("Active swap space: turn it off with swapoff and set up encrypted swap instead.") },
	[FDW_REASON_SWAP] = { "swap",
		N_("Swap space holds nothing worth keeping: set up encrypted swap instead.") },
	[FDW_REASON_ALREADY_LUKS] = { "already-luks", N_("Already encrypted with LUKS.") },
	[FDW_REASON_LUKS_UNFINISHED] = { "luks-unfinished",
		N_("A LUKS2 conversion on it is unfinished: resume it with 'fdewiz resume'.") },
	[FDW_REASON_OTHER_CRYPTO] = { "other-encryption",
		N_("Already encrypted with another system; fdewiz leaves it alone.") },
	[FDW_REASON_RAID_MEMBER] = { "raid-member",
		N_("Member of a RAID array: encrypt the array device instead.") },
	[FDW_REASON_LVM_MEMBER] = { "lvm-member",
		N_("LVM physical volume: encrypt a logical volume instead.") },
	[FDW_REASON_HOLDERS] = { "has-holders",
		N_("In use by another device (device-mapper, RAID or loop): stop that first.") },
	[FDW_REASON_READ_ONLY] = { "read-only", N_("Read-only: it cannot be written.") },
	[FDW_REASON_TOO_SMALL] = { "too-small",
		N_("Too small: a partition needs at least 64 MiB to be encrypted in place.") },
	[FDW_REASON_NO_ROOM] = { "no-room",
		N_("The filesystem cannot shrink and there is no free space after the partition: "
		   "only a detached header on another disk would work.") },
	[FDW_REASON_FULL] = { "full",
		N_("The filesystem is too full to shrink by 32 MiB and there is no free space after "
		   "the partition: free some space, or use a detached header on another disk.") },
	[FDW_REASON_ESP] = { "efi-system",
		N_("EFI system partition: the firmware must read it, so it stays unencrypted.") },
	[FDW_REASON_BIOS_BOOT] = { "bios-boot",
		N_("BIOS boot partition: the boot loader needs it unencrypted.") },
	[FDW_REASON_EXTENDED] = { "extended",
		N_("Extended partition: a container for logical partitions, choose one of those.") },
	[FDW_REASON_NO_FILESYSTEM] = { "no-filesystem",
		N_("No filesystem found, so there is nothing to keep: erase and encrypt it instead.") },
	[FDW_REASON_INSTALLED_SYSTEM] = { "installed-system",
		N_("Holds an installed system: encrypting it in place would leave that system "
		   "unable to start, and fdewiz cannot set up its boot (crypttab, an initramfs "
		   "with LUKS support, the boot loader) the way it is installed.") },
	[FDW_REASON_SYSTEM_BOOT_PART] = { "installed-system-boot",
		N_("An installed system reads it before it can ask for a passphrase (its /boot "
		   "or /usr): encrypting it would leave that system unable to start, so it stays "
		   "unencrypted by design. Encrypt that system's root instead.") },
	[FDW_REASON_LVM_NO_ROOM] = { "lvm-no-room",
		N_("An installed system's LVM physical volume with no room for the header at its "
		   "end: free some extents at the end of the volume group, then look again.") },
	[FDW_REASON_BOOT_FILES] = { "boot-files",
		N_("Holds kernels or a boot loader's files: a boot loader reads this partition "
		   "before any passphrase can be asked for, so encrypting it would leave the "
		   "system that starts from it unable to start. It stays unencrypted.") },
	[FDW_REASON_OTHER_OS_BOOT] = { "other-os-boot",
		N_("Another operating system starts from it (Windows or macOS): fdewiz leaves "
		   "it alone.") },
	[FDW_REASON_DECRYPT_UNFINISHED] = { "decrypt-unfinished",
		N_("Its decryption is unfinished: continue it with 'fdewiz decrypt'.") },
	[FDW_REASON_NOT_LOOKED] = { "not-looked-inside",
		N_("fdewiz could not look inside this filesystem, so it cannot tell whether a "
		   "boot loader reads it; nothing is converted unseen.") },
	[FDW_REASON_UNSUPPORTED_FS] = { "unsupported-filesystem",
		N_("This filesystem cannot be resized by fdewiz and there is no free space after "
		   "the partition: only a detached header on another disk would work.") },
	[FDW_REASON_NO_SIGNATURE] = { "no-signature",
		N_("No signature found: may be encrypted data (a LUKS volume whose header is kept "
		   "elsewhere, or another tool's). fdewiz leaves it alone; erasing it needs an "
		   "extra, explicit confirmation.") },
	[FDW_REASON_MIN_UNKNOWN] = { "min-size-unknown",
		N_("How far the filesystem can shrink could not be measured (resize2fs -P failed; "
		   "run e2fsck -f on it, the log says more) and there is no free space after the "
		   "partition: only a detached header on another disk would work for now.") },
};

const char *fdw_reason_name(enum fdw_reason reason)
{
	return reason < FDW_REASON__COUNT ? reasons[reason].name : "unknown";
}

const char *fdw_reason_message(enum fdw_reason reason)
{
	return reason < FDW_REASON__COUNT ? _(reasons[reason].message) : "";
}

const char *fdw_strategy_name(enum fdw_strategy strategy)
{
	switch (strategy) {
	case FDW_STRATEGY_SHRINK:
		return "shrink";
	case FDW_STRATEGY_GROW:
		return "grow";
	case FDW_STRATEGY_DETACHED:
		return "detached-header";
	case FDW_STRATEGY_FREE_TAIL:
		return "free-tail";
	default:
		return NULL;
	}
}

static bool fstype_is(const struct fdw_partition *p, const char *t)
{
	return p->fstype && strcmp(p->fstype, t) == 0;
}

static bool is_ext(const struct fdw_partition *p)
{
	return fdw_fstype_is_ext(p->fstype);
}

/* A btrfs fdewiz can shrink: on one device (the scan then estimated its minimum). */
static bool is_btrfs_single(const struct fdw_partition *p)
{
	return fstype_is(p, "btrfs") && p->fs_min_size >= 0;
}

bool fdw_mounted_as_root(const struct fdw_partition *p)
{
	if (p->lvm_root_running)
		return true;
	for (size_t i = 0; i < p->n_mountpoints; i++)
		if (strcmp(p->mountpoints[i], "/") == 0)
			return true;
	return false;
}

static bool is_foreign_crypto(const struct fdw_partition *p)
{
	static const char *const types[] = { "BitLocker", "crypto_LUKS", "VeraCrypt",
					     "TrueCrypt", "geli", "crypto_lvm2" };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (fstype_is(p, types[i]))
			return true;
	return false;
}

/* The first rule that blocks the partition, or FDW_REASON_OK. Order: most telling first. */
static enum fdw_reason blocking_reason(const struct fdw_partition *p, const struct fdw_disk *d)
{
	if (p->extended)
		return FDW_REASON_EXTENDED;
	if (p->flag_esp)
		return FDW_REASON_ESP;
	if (p->flag_bios_boot)
		return FDW_REASON_BIOS_BOOT;
	if (p->luks_version)
		return p->decrypting ? FDW_REASON_DECRYPT_UNFINISHED :
		       p->luks_reencrypt_unfinished ? FDW_REASON_LUKS_UNFINISHED
						    : FDW_REASON_ALREADY_LUKS;
	/* Another system's /boot or /usr: refused whoever mounts it now, so first. */
	if (p->owner.found && p->owner.use == FDW_USE_BOOT)
		return FDW_REASON_SYSTEM_BOOT_PART;
	/* The same by what it holds, whether or not fdewiz can read the system's root. */
	if (p->boot_files.kinds & FDW_BOOTF_OTHER_OS)
		return FDW_REASON_OTHER_OS_BOOT;
	if (p->boot_files.kinds & FDW_BOOTF_DECISIVE)
		return FDW_REASON_BOOT_FILES;
	if (fdw_mounted_as_root(p))
		return FDW_REASON_MOUNTED_ROOT;
	if (p->swap_active)
		return FDW_REASON_ACTIVE_SWAP;
	if (p->n_mountpoints)
		return FDW_REASON_MOUNTED;
	/* A PV's own logical volumes, none mounted: the conversion deactivates them. */
	if (p->n_holders && !(fdw_verdict_lvm_system(p) && p->held_by_own_lvs))
		return FDW_REASON_HOLDERS;
	if (fstype_is(p, "linux_raid_member") || fstype_is(p, "isw_raid_member") ||
	    fstype_is(p, "ddf_raid_member"))
		return FDW_REASON_RAID_MEMBER;
	if ((fstype_is(p, "LVM2_member") || fstype_is(p, "LVM1_member")) &&
	    !fdw_verdict_lvm_system(p))
		return FDW_REASON_LVM_MEMBER;
	if (is_foreign_crypto(p))
		return FDW_REASON_OTHER_CRYPTO;
	if (p->read_only || d->read_only)
		return FDW_REASON_READ_ONLY;
	if (fstype_is(p, "swap"))
		return FDW_REASON_SWAP;
	/* Its own root: converting it without its boot set up leaves a machine that cannot
	 * start (a live system sees it unmounted). */
	if (p->os.found && fdw_os_support_check(&p->os) != FDW_SYSBOOT_OK)
		return FDW_REASON_INSTALLED_SYSTEM;
	if (p->size < FDW_MIN_PARTITION)
		return FDW_REASON_TOO_SMALL;
	if (p->boot_files.look_error)
		return FDW_REASON_NOT_LOOKED;
	if (!p->fstype && p->looks_random)
		return FDW_REASON_NO_SIGNATURE;
	if (!p->fstype)
		return FDW_REASON_NO_FILESYSTEM;
	return FDW_REASON_OK;
}

bool fdw_has_free_tail(const struct fdw_partition *p)
{
	if (p->lvm.read)
		return p->lvm.pv_size + FDW_HEADER_ROOM <= p->size;
	/* Only where fdewiz reads the filesystem's own end from its superblock. */
	if (!is_ext(p) && !fstype_is(p, "xfs") && !is_btrfs_single(p))
		return false;
	return p->fs_size > 0 && (uint64_t)p->fs_size + FDW_HEADER_ROOM <= p->size;
}

int64_t fdw_shrink_shortfall(const struct fdw_partition *p)
{
	uint64_t target;

	if ((!is_ext(p) && !is_btrfs_single(p)) || p->fs_min_size < 0 || p->fs_block_size <= 0 ||
	    p->size < FDW_HEADER_ROOM)
		return -1;
	/* resize2fs is given whole blocks: the most the filesystem may keep. */
	target = (p->size - FDW_HEADER_ROOM) / (uint64_t)p->fs_block_size *
		 (uint64_t)p->fs_block_size;
	if ((uint64_t)p->fs_min_size <= target)
		return 0;
	return (int64_t)((uint64_t)p->fs_min_size - target);
}

/* Its only obstacle is a /boot inside it, with GRUB for BIOS, or for EFI with its ESP at
 * /boot/efi: the carve can lift it. */
static bool carve_applies(const struct fdw_partition *p)
{
	bool grub = p->os.loader == FDW_LOADER_GRUB_BIOS ||
		    (p->os.loader == FDW_LOADER_GRUB_EFI && fdw_installed_os_esp_spec(&p->os));

	return p->os.found && fdw_os_support_check(&p->os) == FDW_SYSBOOT_BOOT_INSIDE &&
	       !p->os.usr_separate && grub && is_ext(p);
}

/* The verdict of such a root: the carve shrinks its filesystem, nothing else is chosen. */
static void decide_carve(struct fdw_partition *p, const struct fdw_disk *d)
{
	struct fdw_verdict *v = &p->verdict;
	struct fdw_boot_carve c;

	if (d->kind != FDW_DISK_BLOCK) {
		v->carve_refusal = FDW_CARVE_NOT_A_DISK;
		return;
	}
	if (fdw_boot_carve_plan(d, p, 0, &c) != 0) {
		v->carve_refusal = (int)c.refusal;
		v->carve_short_by = c.short_by;
		return;
	}
	v->reason = FDW_REASON_OK;
	v->eligible = true;
	v->carve_boot = true;
	v->carve_root_size = c.root_size;
	v->carve_fs_max = c.root_fs_max;
	v->strategies = FDW_STRATEGY_SHRINK;
	v->strategy = FDW_STRATEGY_SHRINK;
}

void fdw_verdict_decide(struct fdw_partition *p, const struct fdw_disk *d)
{
	struct fdw_verdict *v = &p->verdict;

	memset(v, 0, sizeof(*v));
	v->reason = blocking_reason(p, d);
	if (v->reason == FDW_REASON_INSTALLED_SYSTEM && carve_applies(p))
		decide_carve(p, d);
	if (v->reason == FDW_REASON_OK && fdw_verdict_lvm_system(p))
		fdw_verdict_lvm_decide(p);
	if (v->reason != FDW_REASON_OK || v->carve_boot || v->lvm_system)
		return;

	v->strategies = FDW_STRATEGY_DETACHED;
	/* Room already free after the filesystem is used as it is: nothing to shrink. */
	if (fdw_has_free_tail(p))
		v->strategies |= FDW_STRATEGY_FREE_TAIL;
	else if (fdw_shrink_shortfall(p) == 0)
		v->strategies |= FDW_STRATEGY_SHRINK;
	if (p->number > 0 && p->free_after >= FDW_HEADER_ROOM)
		v->strategies |= FDW_STRATEGY_GROW;

	/* Untouched beats a grown partition, which beats a shrunk filesystem. */
	if (v->strategies & FDW_STRATEGY_FREE_TAIL)
		v->strategy = FDW_STRATEGY_FREE_TAIL;
	else if (v->strategies & FDW_STRATEGY_GROW)
		v->strategy = FDW_STRATEGY_GROW;
	else if (v->strategies & FDW_STRATEGY_SHRINK)
		v->strategy = FDW_STRATEGY_SHRINK;

	if (v->strategy) {
		v->eligible = true;
	} else if (is_ext(p) || is_btrfs_single(p)) {
		v->reason = fdw_shrink_shortfall(p) < 0 ? FDW_REASON_MIN_UNKNOWN : FDW_REASON_FULL;
	} else if (fstype_is(p, "xfs")) {
		v->reason = FDW_REASON_NO_ROOM;
	} else {
		v->reason = FDW_REASON_UNSUPPORTED_FS;
	}
}

/* Too full to shrink: by how much, in figures a person can act on. */
static int explain_full(const struct fdw_partition *p, char *buf, size_t len)
{
	int64_t short_by = fdw_shrink_shortfall(p);
	uint64_t mib = short_by > 0 ? ((uint64_t)short_by + FDW_MIB - 1) / FDW_MIB : 0;
	char room[32], min[32];

	fdw_format_size(FDW_HEADER_ROOM, room, sizeof(room));
	fdw_format_size(p->fs_min_size > 0 ? (uint64_t)p->fs_min_size : 0, min, sizeof(min));
	if (is_ext(p) && p->fs_size > 0 && p->fs_min_size >= p->fs_size)
		return snprintf(buf, len,
				_("The filesystem is too full to give up %s for the header: it "
				  "cannot shrink at all now (resize2fs needs all of its %s), so it "
				  "needs at least %llu MiB freed. There is no free space after the "
				  "partition either: free some space, or use a detached header on "
				  "another disk."), room, min, (unsigned long long)mib);
	if (is_btrfs_single(p) && p->fs_min_size <= FDW_BTRFS_MIN_RESIZE)
		return snprintf(buf, len,
				_("btrfs cannot be made smaller than %s, and this partition is too "
				  "small to keep that much beside the %s header. There is no free "
				  "space after the partition either: use a detached header on "
				  "another disk."), min, room);
	if (p->fs_used > 0 && is_btrfs_single(p)) {
		char used[32];

		fdw_format_size((uint64_t)p->fs_used, used, sizeof(used));
		return snprintf(buf, len,
				_("The btrfs filesystem is too full to give up %s for the header: "
				  "with %s in use, its chunks and the room btrfs needs to move them "
				  "come to about %s, so it needs about %llu MiB freed. There is no "
				  "free space after the partition either: free some space, or use "
				  "a detached header on another disk."), room, used, min,
				(unsigned long long)mib);
	}
	if (p->fs_used > 0) {
		char used[32];

		/* resize2fs's estimate runs well above what is in use (about 1.8 times the
		 * blocks of a half-full 2 GiB ext4): both figures, or "too full" puzzles. */
		fdw_format_size((uint64_t)p->fs_used, used, sizeof(used));
		return snprintf(buf, len,
				_("The filesystem is too full to give up %s for the header: it "
				  "cannot shrink below %s (resize2fs's own estimate, with %s in "
				  "use), so it needs about %llu MiB freed. There is no free space "
				  "after the partition either: free some space, or use a detached "
				  "header on another disk."), room, min, used,
				(unsigned long long)mib);
	}
	return snprintf(buf, len,
			_("The filesystem is too full to give up %s for the header: it cannot "
			  "shrink below %s, so it needs about %llu MiB freed. There is no free "
			  "space after the partition either: free some space, or use a detached "
			  "header on another disk."), room, min, (unsigned long long)mib);
}

/* "Can be encrypted in place: ..." for the strategy auto would take. */
static int explain_ok(const struct fdw_partition *p, char *buf, size_t len)
{
	char sz[32];

	if (p->verdict.lvm_system)
		return fdw_verdict_lvm_explain_ok(p, buf, len);
	if (p->verdict.carve_boot)
		return snprintf(buf, len,
				_("Its /boot is inside this partition: first a /boot partition of "
				  "its own (%s) is carved from its end, /boot copied there, named in "
				  "its fstab and GRUB reinstalled to read it (the system still starts "
				  "unencrypted after this step); then the root is encrypted in place."),
				fdw_format_size(FDW_CARVE_BOOT_MIN, sz, sizeof(sz)));
	switch (p->verdict.strategy) {
	case FDW_STRATEGY_FREE_TAIL:
		fdw_format_size(p->size - (uint64_t)p->fs_size, sz, sizeof(sz));
		return snprintf(buf, len,
				_("Can be encrypted in place: the filesystem already ends %s "
				  "before the end of the partition, so the header fits without "
				  "resizing anything."), sz);
	case FDW_STRATEGY_GROW:
		return snprintf(buf, len,
				_("Can be encrypted in place: the partition grows into the free "
				  "space after it, the filesystem is not touched."));
	default:
		return snprintf(buf, len,
				_("Can be encrypted in place: the filesystem shrinks by %s to make "
				  "room for the encryption header."),
				fdw_format_size(FDW_HEADER_ROOM, sz, sizeof(sz)));
	}
}

/* A root with /boot inside that has no room (or no slot) for a /boot of its own. */
static int explain_no_carve(const struct fdw_partition *p, const char *os, char *buf,
			    size_t len)
{
	unsigned long long mib = (p->verdict.carve_short_by + FDW_MIB - 1) / FDW_MIB;
	char boot[32], room[32];

	fdw_format_size(FDW_CARVE_BOOT_MIN, boot, sizeof(boot));
	fdw_format_size(FDW_HEADER_ROOM, room, sizeof(room));
	switch ((enum fdw_carve_refusal)p->verdict.carve_refusal) {
	case FDW_CARVE_TOO_FULL:
		return snprintf(buf, len,
				_("Holds %s, whose /boot is inside this partition. fdewiz would "
				  "carve a /boot of its own (%s) from its end and keep %s for the "
				  "header, but the filesystem cannot shrink that far: free about "
				  "%llu MiB in it, then look again."), os, boot, room, mib);
	case FDW_CARVE_TOO_SMALL:
		return snprintf(buf, len,
				_("Holds %s, whose /boot is inside this partition. The partition is "
				  "too small to give up a /boot of its own (%s) and %s for the header "
				  "(%llu MiB short): move /boot to another partition first."),
				os, boot, room, mib);
	case FDW_CARVE_NO_SLOT:
		return snprintf(buf, len,
				_("Holds %s, whose /boot is inside this partition. Its partition "
				  "table has no free entry for a /boot of its own (an MBR with four "
				  "primary partitions): move /boot to another partition first."), os);
	case FDW_CARVE_NO_BIOS_BOOT:
		return snprintf(buf, len,
				_("Holds %s, whose /boot is inside this partition. It starts with "
				  "GRUB for BIOS, but this GPT disk has no BIOS boot partition for "
				  "GRUB to be reinstalled in after /boot moves: move /boot to another "
				  "partition first."), os);
	case FDW_CARVE_NOT_A_DISK:
		return snprintf(buf, len,
				_("Holds %s, whose /boot is inside this partition. fdewiz makes a "
				  "/boot of its own for it only on a real disk, where GRUB is "
				  "reinstalled to read it, not inside an image file."), os);
	case FDW_CARVE_MIN_UNKNOWN:
		return snprintf(buf, len,
				_("Holds %s, whose /boot is inside this partition. How far its "
				  "filesystem can shrink to make room for a /boot of its own is not "
				  "known: check it with e2fsck -f, then look again."), os);
	default:
		return snprintf(buf, len,
				_("Holds %s, whose /boot is inside this partition, which is on no "
				  "partition table: there is nowhere to put a /boot of its own."), os);
	}
}

/* A LUKS2 volume, finished or not; a detached one is named with its header file. */
static int explain_luks(const struct fdw_partition *p, char *buf, size_t len)
{
	const char *hdr = p->detached_header;

	if (!hdr)
		return snprintf(buf, len, "%s", fdw_reason_message(p->verdict.reason));
	if (p->verdict.reason == FDW_REASON_DECRYPT_UNFINISHED)
		return snprintf(buf, len,
				_("Its decryption is unfinished, header kept at %s: continue it "
				  "with 'fdewiz decrypt'."), hdr);
	if (p->verdict.reason == FDW_REASON_LUKS_UNFINISHED)
		return snprintf(buf, len,
				_("A LUKS2 conversion on it is unfinished, header kept at %s: "
				  "resume it with 'fdewiz resume'."), hdr);
	return snprintf(buf, len,
			_("Encrypted with LUKS2, header kept at %s: keep that file safe, without "
			  "it nothing on this partition can be read."), hdr);
}

/* A partition of another installed system: what it is for it, why it must stay plain,
 * and what to do instead. */
static int explain_system_boot_part(const struct fdw_partition *p, char *buf, size_t len)
{
	char whose[1024];

	fdw_owner_describe(&p->owner, whose, sizeof(whose));
	return snprintf(buf, len,
			_("%s (%s in its fstab): its boot loader and initramfs read this "
			  "partition before any passphrase can be asked for, so encrypting it "
			  "would leave that system unable to start. It stays unencrypted by "
			  "design; encrypt that system's root (%s) instead."), whose,
			p->owner.spec, p->owner.root_address);
}

/* Kernels or a boot loader, found by what the partition holds: whose, when its boot
 * loader's configuration names an encrypted root here, and what to do instead. */
static int explain_boot_files(const struct fdw_partition *p, char *buf, size_t len)
{
	const struct fdw_boot_files *bf = &p->boot_files;
	char what[512];

	fdw_boot_files_describe(bf->kinds, what, sizeof(what));
	if (bf->root_address[0])
		return snprintf(buf, len,
				_("The /boot of the encrypted system on %s (LUKS%d): it holds %s, "
				  "which its boot loader reads before any passphrase can be asked "
				  "for, so encrypting it would leave that system unable to start. "
				  "That system's root is encrypted already; this partition stays "
				  "unencrypted by design."), bf->root_address, bf->root_luks_version,
				what);
	if (bf->under_boot)
		return snprintf(buf, len,
				_("Holds %s in its boot folder, and no system of its own (no "
				  "etc/fstab): a boot loader may read this partition before any "
				  "passphrase can be asked for, so encrypting it could leave the "
				  "system that starts from it unable to start. If nothing starts "
				  "from it any more, move those files away and look again, or erase "
				  "and encrypt it (fdewiz erase-encrypt)."), what);
	return snprintf(buf, len,
			_("Holds %s: a boot loader reads this partition before any passphrase can "
			  "be asked for, so encrypting it would leave the system that starts from "
			  "it unable to start. It stays unencrypted by design: encrypt that "
			  "system's root instead, or, if nothing starts from it any more, erase "
			  "and encrypt it (fdewiz erase-encrypt)."), what);
}

/* Windows or macOS starts from it: their own encryption is theirs to do. */
static int explain_other_os(const struct fdw_partition *p, char *buf, size_t len)
{
	unsigned k = p->boot_files.kinds;
	char what[512];

	fdw_boot_files_describe(k & FDW_BOOTF_OTHER_OS, what, sizeof(what));
	if (k & FDW_BOOTF_MACOS)
		return snprintf(buf, len,
				_("Holds %s (or is an APFS container): macOS starts from it, and "
				  "encrypting it would leave macOS unable to start. fdewiz leaves it "
				  "alone; macOS's own FileVault encrypts it."), what);
	return snprintf(buf, len,
			_("Holds %s: Windows starts from it, and encrypting it would leave Windows "
			  "unable to start. fdewiz leaves it alone; Windows' own BitLocker "
			  "encrypts it."), what);
}

/* Its contents are unknown: no driver for its filesystem, a mount that failed. */
static int explain_not_looked(const struct fdw_partition *p, char *buf, size_t len)
{
	int err = -p->boot_files.look_error;

	if (err == ENODEV)
		return snprintf(buf, len,
				_("fdewiz could not look inside its %s filesystem (this kernel has "
				  "no driver for it loaded), so it cannot tell whether a boot loader "
				  "reads it before any passphrase can be asked for; nothing is "
				  "converted unseen. Load the driver (modprobe) and look again, or "
				  "erase and encrypt it if it holds nothing to keep."), p->fstype);
	return snprintf(buf, len,
			_("fdewiz could not look inside its %s filesystem (mounting it read-only "
			  "failed: %s), so it cannot tell whether a boot loader reads it before any "
			  "passphrase can be asked for; nothing is converted unseen. Check it with "
			  "its fsck, then look again."), p->fstype, strerror(err));
}

/* "/home of Debian GNU/Linux 12 on IMAGE:3: " before the verdict's own words. */
static int owner_prefix(const struct fdw_partition *p, char *buf, size_t len)
{
	char whose[1024];

	if (!p->owner.found || p->verdict.reason == FDW_REASON_SYSTEM_BOOT_PART)
		return 0;
	fdw_owner_describe(&p->owner, whose, sizeof(whose));
	if (p->verdict.reason == FDW_REASON_OK && p->owner.use == FDW_USE_DATA)
		return snprintf(buf, len, _("Belongs to another system: %s; fdewiz writes that "
					    "system's crypttab after the conversion. "), whose);
	return snprintf(buf, len, _("Belongs to another system: %s. "), whose);
}

static size_t explain_own(const struct fdw_partition *p, char *buf, size_t len)
{
	const struct fdw_verdict *v = &p->verdict;
	int n;

	switch (v->reason) {
	case FDW_REASON_SYSTEM_BOOT_PART:
		n = explain_system_boot_part(p, buf, len);
		break;
	case FDW_REASON_BOOT_FILES:
		n = explain_boot_files(p, buf, len);
		break;
	case FDW_REASON_OTHER_OS_BOOT:
		n = explain_other_os(p, buf, len);
		break;
	case FDW_REASON_NOT_LOOKED:
		n = explain_not_looked(p, buf, len);
		break;
	case FDW_REASON_OK:
		n = 0;
		if (p->os.found) {
			char os[192];

			/* What it holds first: that is what the person must know. */
			fdw_installed_os_describe(&p->os, os, sizeof(os));
			n = snprintf(buf, len, _("Holds %s; fdewiz sets up its boot after the "
						 "conversion. "), os);
			if (n < 0 || (size_t)n >= len)
				break;
		}
		n += explain_ok(p, buf + n, len - (size_t)n);
		break;
	case FDW_REASON_MOUNTED:
		if (p->n_holders)
			n = snprintf(buf, len, _("Mounted at %s through %s: unmount it and detach "
						 "%s first."), p->mountpoints[0], p->holders[0],
				     p->holders[0]);
		else
			n = snprintf(buf, len, _("Mounted at %s: unmount it first; it is mounted "
						 "again through the encrypted volume."),
				     p->mountpoints[0]);
		break;
	case FDW_REASON_FULL:
		n = explain_full(p, buf, len);
		break;
	case FDW_REASON_LVM_NO_ROOM:
		n = fdw_verdict_lvm_explain_no_room(p, buf, len);
		break;
	case FDW_REASON_ALREADY_LUKS:
	case FDW_REASON_LUKS_UNFINISHED:
		n = explain_luks(p, buf, len);
		break;
	case FDW_REASON_HOLDERS:
		/* Nothing mounts it here; a container's own mount namespace still may. */
		n = snprintf(buf, len, _("In use by %s (device-mapper, RAID or loop): stop that "
					 "first. Not mounted here, but another mount namespace (a "
					 "container) may mount it: 'grep -l /dev/%s "
					 "/proc/[0-9]*/mountinfo' names its processes."),
			     p->holders[0], p->holders[0]);
		break;
	case FDW_REASON_INSTALLED_SYSTEM: {
		char os[192];

		fdw_installed_os_describe(&p->os, os, sizeof(os));
		if (carve_applies(p)) {
			n = explain_no_carve(p, os, buf, len);
			break;
		}
		n = snprintf(buf, len, _("Holds %s: encrypting it in place would leave that system "
					 "unable to start: %s"), os,
			     fdw_os_support_refusal_text(fdw_os_support_check(&p->os)));
		break;
	}
	default:
		n = snprintf(buf, len, "%s", fdw_reason_message(v->reason));
		break;
	}
	return n < 0 ? 0 : (size_t)n;
}

size_t fdw_verdict_explain(const struct fdw_partition *p, char *buf, size_t len)
{
	int pre = owner_prefix(p, buf, len);
	size_t n;

	if (pre < 0 || (size_t)pre >= len)
		return pre < 0 ? 0 : len - 1;
	n = explain_own(p, buf + pre, len - (size_t)pre);
	return (size_t)pre + n;
}

size_t fdw_owner_describe(const struct fdw_owner *o, char *buf, size_t len)
{
	const char *os = *o->os_name ? o->os_name : _("an installed Linux system");
	int n;

	switch (o->use) {
	case FDW_USE_SWAP:
		n = snprintf(buf, len, _("swap of %s on %s"), os, o->root_address);
		break;
	case FDW_USE_RESUME:
		n = snprintf(buf, len, _("hibernation (resume) device of %s on %s"), os,
			     o->root_address);
		break;
	case FDW_USE_CRYPT:
		n = snprintf(buf, len, _("encrypted volume (in the crypttab) of %s on %s"), os,
			     o->root_address);
		break;
	default:
		/* TRANSLATORS: "/home of Debian GNU/Linux 12 on /dev/sda3". */
		n = snprintf(buf, len, _("%s of %s on %s"), o->dir, os, o->root_address);
		break;
	}
	return n < 0 ? 0 : (size_t)n;
}
