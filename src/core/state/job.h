/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The record of a conversion, kept on disk so it is found again after a crash or reboot. */
#ifndef FDW_JOB_H
#define FDW_JOB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "progress.h"
#include "base/statedir.h"
#include "base/uuid.h"

/* Records of complete conversions are removed this long after they finished. */
#define FDW_JOB_KEEP_DAYS 90

/*
 * Who a volume is, so that a record answers for its own volume and for nothing else that
 * later appears under the same name. Kept in the record as it was when the conversion
 * began (the filesystem's UUID and label are gone once it is encrypted).
 */
struct fdw_volume_id {
	char luks_uuid[40];		/* the LUKS2 header's UUID on the device, or empty */
	char partuuid[40];		/* GPT or MBR partition UUID, or empty */
	char fs_uuid[40];		/* the filesystem's UUID (before conversion) */
	char label[64];			/* the filesystem's label (before conversion) */
	char fstype[16];
	char disk[PATH_MAX];		/* the disk or image as scanned: /dev/sdb, /dev/loop0 */
	int number;			/* partition number; 0: the whole disk or file */
	uint64_t start, size;		/* bytes */
	char image[PATH_MAX];		/* the image file under it, directly or by loop */
	uint64_t image_dev, image_ino;	/* that file's st_dev and st_ino; 0: none */
	uint64_t image_offset;		/* where the partition starts in that file */
};

struct fdw_job {
	char id[40];			/* the LUKS2 UUID of the new volume */
	char address[PATH_MAX];		/* as the user named it: /dev/sda2 or disk.img:2 */
	char header_backup[PATH_MAX];
	/*
	 * The refresh of @header_backup after the conversion failed: that file still
	 * describes the volume before conversion, so there is no valid header backup.
	 */
	bool header_backup_stale;
	char detached_header[PATH_MAX];	/* empty: the header is on the device */
	char active_name[64];		/* device-mapper name when online, else empty */
	char fs_to_grow[16];		/* filesystem type to grow back when done, or empty */
	char fstype[16];		/* the filesystem being encrypted */
	char cipher[96];		/* "aes-xts-plain64, 512-bit key" */
	char bench_before[PATH_MAX];	/* saved benchmark of the plain volume, or empty */
	char bench_after[PATH_MAX];	/* ... of the encrypted volume when done, or empty */
	char bench_note[256];
	char bench_predicted[PATH_MAX];	/* the prediction made before it began, or empty */
	char bench_scale[8];		/* "tiny", "quick": the after-run matches */
	/* How it shares the disk (base/pace.h: "auto", "gentle", "full"; "" is auto): chosen
	 * at the start, changed by `fdewiz pace` while it runs, kept for a resume. */
	char pace[8];
	/* "": an encryption; "decrypt": the volume is being turned back into plain data, its
	 * header in @detached_header (FDW_JOB_DECRYPT_HEADER) until that is done. */
	char direction[8];
	int64_t created;
	struct fdw_volume_id ident;	/* empty in records made before identities were kept */
};

int fdw_job_save(const struct fdw_job *job);
int fdw_job_load_file(const char *path, struct fdw_job *job);
/* All recorded jobs, newest first. */
int fdw_job_list(struct fdw_job **out, size_t *n);
/* The job with this id (the LUKS2 UUID), or -ENOENT. */
int fdw_job_find_id(const char *id, struct fdw_job *job);

/*
 * Does @job belong to the volume @now describes? A LUKS2 header on the device decides by
 * its UUID (the job id). With no header there (a detached header), the partition decides:
 * the image file and offset, else the PARTUUID, else disk, number and start; records
 * older than identities fall back to the address.
 */
bool fdw_job_is_for(const struct fdw_job *job, const struct fdw_volume_id *now);
/*
 * The one lookup every reader uses: the newest record that belongs to the volume @now
 * describes, or -ENOENT. For a partition a caller holds (verdicts, plans):
 *	fdw_volume_id_of(disk, part, &now); fdw_job_for_volume(&now, &job);
 * and job.detached_header names its header file when it has one.
 */
int fdw_job_for_volume(const struct fdw_volume_id *now, struct fdw_job *job);
/*
 * A job's files and folders in the state folder's jobs/, each named here once: whatever
 * writes, reads, moves or forgets one asks for its path.
 */
enum fdw_job_file {
	FDW_JOB_RECORD,	    /* ID.json: the job itself */
	FDW_JOB_STATUS,	    /* ID.status: the worker's progress (fdw_job_status_path) */
	FDW_JOB_LOG,	    /* ID.log: its log lines (fdw_job_log_path) */
	FDW_JOB_SEEN,	    /* ID.seen: when a viewer last saw its ending */
	FDW_JOB_OWNER,	    /* ID.owner: the system whose crypttab a data volume joins */
	FDW_JOB_SYSTEM,	    /* ID.system: an installed system's boot step */
	FDW_JOB_DECRYPT_HEADER, /* ID.decrypting: the header while the volume is decrypted;
				 * never removed with the record while it is needed */
	FDW_JOB_OWNER_ROOT, /* ID.ownerroot/: where that system's root is mounted (a folder) */
	FDW_JOB_ROOT,	    /* ID.root/: the chroot the boot step runs in (a folder) */
};
void fdw_job_file_path(const struct fdw_job *job, enum fdw_job_file which, char *buf, size_t len);
/* The same name in another state folder @dir (the initramfs's, the restart's fallback). */
void fdw_job_file_path_in(const char *dir, const char *id, enum fdw_job_file which, char *buf,
			  size_t len);
/* Where the worker publishes the progress of @job. */
void fdw_job_status_path(const struct fdw_job *job, char *buf, size_t len);
/* Where the worker appends its log lines (no secrets ever go there). */
void fdw_job_log_path(const struct fdw_job *job, char *buf, size_t len);
/* A conversion that ended this many days ago is no news any more. */
#define FDW_JOB_NEWS_DAYS 7
/*
 * Someone has seen how @job ended (its results, its failure): a person watched it end in
 * the foreground, or the wizard showed it. A marker beside the record, never the record
 * itself, which its worker may be rewriting at that moment; its time says which ending
 * was seen, so one published later (the job resumed and ended again) is news again.
 */
int fdw_job_mark_seen(const struct fdw_job *job);
/*
 * Did @job end (@p: complete or failed) within FDW_JOB_NEWS_DAYS while nobody watched?
 * The wizard opens on such a conversion, so that a conversion left in the background is
 * found again with its results, not only under its partition.
 */
bool fdw_job_ended_unseen(const struct fdw_job *job, const struct fdw_progress *p);

/*
 * Does @p (as published) say a worker of ours is on the volume: converting, or paused for a
 * low battery and waiting for the charger? (Whether that pid is still alive is checked by
 * fdw_job_observe(), which reports it only then.)
 */
bool fdw_job_has_worker(const struct fdw_progress *p);
/* Remove @job's record, status, log and seen marker (pruning; the volume is not touched). */
void fdw_job_forget(const struct fdw_job *job);

#endif
