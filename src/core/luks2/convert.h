/* SPDX-License-Identifier: GPL-3.0-or-later */
/* In-place LUKS2 encryption of a block device with datashift resilience (crash-safe, resumable). */
#ifndef FDW_CONVERT_H
#define FDW_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/secret.h"

/* A decryption of a detached header's volume goes in steps (hotzones) of this size. */
#define FDW_DECRYPT_HOTZONE_BYTES (16ULL * 1024 * 1024)

/* The header area at the start and the tail given up for the data shift. */
#define FDW_DATA_SHIFT_BYTES (32ULL * 1024 * 1024)

/* Where a LUKS2 volume's pieces are. */
struct fdw_volume {
	const char *device;		/* block device with the data (partition or loop) */
	const char *header;		/* detached header file; NULL: at the start of device */
	const char *active_name;	/* device-mapper name when online; NULL: offline */
};

struct fdw_convert_params {
	const char *device;		/* block device (partition or loop device) */
	const char *detached_header;	/* new file for the header; NULL: datashift on device */
	const char *uuid;		/* of the new LUKS2 volume; NULL: random */
	const char *cipher;		/* "aes" */
	const char *cipher_mode;	/* "xts-plain64" */
	unsigned key_bits;		/* 512 for AES-256-XTS */
	unsigned sector_size;		/* 512 or 4096; never above the filesystem block size */
	const char *work_dir;		/* temporary header lives here, never on @device */
	const char *header_backup;	/* written before any data moves */
	bool fast_pbkdf;		/* tests only: a cheap PBKDF2, never for real use */
	const struct fdw_secret *recovery_key;	/* a second keyslot, or NULL */
	/* A header made earlier by fdw_convert_prepare_header (its keyslots, UUID, cipher
	 * and sector size); NULL: one is formatted here. Datashift on @device only. */
	const char *prepared_header;
};

/*
 * Format a LUKS2 header for @p->device in the new file @path, with @pass's keyslot and the
 * recovery key's, laid out for a later fdw_convert_init() with datashift; nothing on the
 * device changes. For a conversion that begins where no person can read a recovery key
 * (at the next restart): the keys are chosen and tested now.
 */
int fdw_convert_prepare_header(const struct fdw_convert_params *p, const struct fdw_secret *pass,
			       const char *path);

/*
 * Format a LUKS2 header in a temporary file, record an encryption with datashift in it,
 * write a header backup, then place the header at the start of @device. After this the
 * device is a LUKS2 volume in reencryption; no data has moved yet. The filesystem must
 * already end FDW_DATA_SHIFT_BYTES before the end of @device (the caller checks).
 * With a detached header, the header is made in that file instead, the data does not
 * move and the whole device stays the volume; nothing on @device changes here.
 */
int fdw_convert_init(const struct fdw_convert_params *p, const struct fdw_secret *pass);

/*
 * Progress: @done and @total in bytes. Return nonzero to stop cleanly at the next
 * safe point (the header then records where to resume).
 */
typedef int (*fdw_convert_progress_fn)(uint64_t done, uint64_t total, void *ctx);

/*
 * Run (or resume) the conversion recorded in @device's header until it completes or
 * @progress asks to stop. Repairs the header first after a crash. Offline: the device
 * must not be active. Returns 0 when complete, -EINTR when stopped, or -errno.
 */
int fdw_convert_run(const struct fdw_volume *v, const struct fdw_secret *pass,
		    fdw_convert_progress_fn progress, void *ctx);

/*
 * Replace the header backup at @path with the volume's current header (written beside
 * it, then renamed). After completion the backup taken before the conversion describes
 * a half-converted volume and must not be restored; this one may.
 */
int fdw_convert_backup_header(const struct fdw_volume *v, const char *path);

/* Does @pass open a keyslot of the volume? 0, -EPERM when it does not, or -errno. */
int fdw_convert_check_passphrase(const struct fdw_volume *v, const struct fdw_secret *pass);

/* Open the volume (also mid-conversion) as /dev/mapper/@v->active_name. */
int fdw_convert_activate(const struct fdw_volume *v, const struct fdw_secret *pass);
/* Close /dev/mapper/@name; -EBUSY while it is mounted. */
int fdw_convert_deactivate(const char *name);
/* Does this system have device-mapper (so conversions can run online)? */
bool fdw_have_device_mapper(void);

#endif
