/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Erase and encrypt: a new, empty LUKS2 volume over a whole partition, with a new filesystem. */
#ifndef FDW_ERASE_H
#define FDW_ERASE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "disk/disk.h"
#include "base/secret.h"
#include "disk/target.h"

/* The filesystem made inside when none is named. */
#define FDW_ERASE_DEFAULT_FS "ext4"

struct fdw_erase_params {
	const char *device;		/* block device covering exactly the partition */
	const char *cipher;		/* NULL: as fdw_cipher_recommend() advises */
	const char *cipher_mode;	/* with @cipher: "xts-plain64" */
	unsigned key_bits;		/* 0: 512, or the advice's */
	unsigned sector_size;		/* 0: libcryptsetup's choice for the device */
	const char *fs;			/* "ext4", "xfs", "btrfs", "vfat" or "none" */
	const char *label;		/* filesystem label, or NULL */
	bool fast_pbkdf;		/* tests only */
};

/* Is @fs a filesystem erase can make ("none" included)? */
bool fdw_erase_fs_known(const char *fs);

/*
 * May this partition be erased? Refuses (-EBUSY with @why) what is mounted, active
 * swap, held by another device or loop device, read-only, or the EFI system / BIOS boot
 * partition or an extended container. Pure: uses the scan's facts only.
 */
int fdw_erase_check(const struct fdw_partition *part, char *why, size_t why_len);

/*
 * Can the filesystem be made here? A filesystem other than "none" is made inside the
 * opened volume, which needs device-mapper: -ENOTSUP with @why where there is none.
 * -EINVAL with @why when @fs is unknown or @label too long for it.
 */
int fdw_erase_check_fs(const char *fs, const char *label, char *why, size_t why_len);

/*
 * Format @p->device as LUKS2 with @pass in keyslot 0 (destroying what was there), then,
 * unless the filesystem is "none", open it under a private name, make the filesystem in
 * it and close it again. The UUID of the new volume goes to @uuid. Returns 0, or -errno
 * with @why saying how far it got.
 */
int fdw_erase_encrypt(const struct fdw_erase_params *p, const struct fdw_secret *pass,
		      char *uuid, size_t uuid_len, char *why, size_t why_len);

/* The filesystems erase can make, in the order they are offered; NULL past the last. */
const char *fdw_erase_fs_name(size_t i);

/* What becomes of the new volume once it is made. */
enum fdw_erase_after {
	FDW_ERASE_AFTER_CLOSE,		/* closed: the person opens it later */
	FDW_ERASE_AFTER_OPEN,		/* left open as /dev/mapper/NAME, for an installer */
	FDW_ERASE_AFTER_BOOT,		/* an entry in ROOT/etc/crypttab, so it opens at boot */
	FDW_ERASE_AFTER__COUNT
};

struct fdw_erase_options {
	const char *fs;			/* NULL: FDW_ERASE_DEFAULT_FS */
	const char *label;		/* NULL or "": none */
	const char *cipher;		/* NULL: as advised for this CPU */
	const char *cipher_mode;
	unsigned key_bits;
	bool fast_pbkdf;		/* tests only */
	enum fdw_erase_after after;
	const char *name;		/* device-mapper name; NULL: from the label or partition */
	const char *root;		/* crypttab's root for AFTER_BOOT; NULL: "/" */
};

/*
 * The erase-and-encrypt flow, the same for both front-ends: fdw_erase_prepare (checks,
 * loop device, the partition's lock; changes nothing), the confirmation text
 * (fdw_erase_confirm_text, fdw_erase_random_warning, fdw_erase_boot_warning), then fdw_erase_run with the new
 * passphrase, fdw_erase_report for what to tell, and fdw_erase_close.
 */
struct fdw_erase;

/* What fdw_erase_run did. */
struct fdw_erase_result {
	char uuid[64];
	bool opened;			/* left open as /dev/mapper/NAME */
	bool boot_written;		/* crypttab has the entry (written or already there) */
	char boot_why[1024];		/* AFTER_BOOT/AFTER_OPEN failed after the volume was made */
	char crypttab_backup[4096];
};

/*
 * Check that @address may be erased with @o, attach a loop device where it needs one and
 * take the partition's lock. Nothing is written. Returns 0, or -errno with @why a whole
 * sentence for the person (it says nothing was changed); *@out is set either way (NULL
 * only when out of memory), and fdw_erase_close() ends it either way.
 */
int fdw_erase_prepare(struct fdw_erase **out, const char *address,
		      const struct fdw_erase_options *o, char *why, size_t why_len);
/* The address it was prepared for, as given. */
const char *fdw_erase_address(const struct fdw_erase *e);
/* What the confirmation lists it makes ("- then: a new LUKS2 volume holding...") and what
 * follows it ("- afterwards it is closed."), a line each. */
void fdw_erase_outcome(const struct fdw_erase *e, char *what, size_t what_len, char *after,
		       size_t after_len);

/*
 * The choices changed after fdw_erase_prepare (the wizard asks for them once the partition
 * is known to be erasable): checked as prepare checks them, the lock kept. 0, or -errno with
 * @why a whole sentence; @e stays prepared either way (with the refused options).
 */
int fdw_erase_set_options(struct fdw_erase *e, const struct fdw_erase_options *o, char *why,
			  size_t why_len);

/*
 * Why @after cannot be offered for this partition, or NULL when it can: an image file's
 * partition is not opened at this system's boot (@root "/"), and without device-mapper
 * nothing can be left open. Front-ends ask before offering; fdw_erase_prepare refuses too.
 */
const char *fdw_erase_after_unavailable(const struct fdw_erase *e, enum fdw_erase_after after,
					const char *root);

/* "This destroys all data on ADDRESS (WHAT)." */
void fdw_erase_confirm_text(const struct fdw_erase *e, char *buf, size_t len);

/*
 * When the partition has no signature but random-looking contents (perhaps encrypted data
 * whose header is elsewhere), the sentence that says so; NULL otherwise. Such a partition
 * needs one more explicit answer.
 */
const char *fdw_erase_random_warning(const struct fdw_erase *e, char *buf, size_t len);

/*
 * When the partition holds kernels or a boot loader (a reinstall may mean to erase them),
 * what stops starting, in one sentence ("It is the /boot of the encrypted system on
 * IMAGE:3 ...: that system will no longer start."); NULL otherwise. Shown beside the
 * confirmation; the typed answer is the usual one.
 */
const char *fdw_erase_boot_warning(const struct fdw_erase *e, char *buf, size_t len);

/*
 * Destroy the partition's data: the new LUKS2 volume with @pass, its filesystem, then what
 * @o->after asked for. 0 when the volume was made (a failed after-step is reported in
 * @r->boot_why, the volume stays); -errno with @why saying how far it got.
 */
int fdw_erase_run(struct fdw_erase *e, const struct fdw_secret *pass,
		  struct fdw_erase_result *r, char *why, size_t why_len);

/* What was made and how to use it, in sentences for the person, one per line. */
void fdw_erase_report(const struct fdw_erase *e, const struct fdw_erase_result *r, char *buf,
		      size_t len);

/* Release the lock and the loop device; safe after a failed prepare and twice. */
void fdw_erase_close(struct fdw_erase *e);

#endif
