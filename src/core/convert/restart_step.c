/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The running system's root encrypted with one restart: the step in the initramfs, then the
 * started system's take-over and end. (Prepared and cancelled in restart.c.) */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/durable.h"
#include "base/fileio.h"
#include "base/i18n.h"
#include "base/keyring.h"
#include "base/log.h"
#include "base/power.h"
#include "base/statedir.h"
#include "base/uuid.h"
#include "boot/boot_move.h"
#include "boot/restart_files.h"
#include "boot/system_boot.h"
#include "disk/fsresize.h"
#include "disk/job_observe.h"
#include "disk/lvm_room.h"
#include "disk/target.h"
#include "encrypt_flow.h"
#include "luks2/convert.h"
#include "luks2/first_segment.h"
#include "luks2/luks2_peek.h"
#include "restart.h"
#include "restart_internal.h"
#include "state/job.h"
#include "state/progress.h"

/* A header backup or record is never larger (the LUKS2 header is 16 MiB). */
#define STATE_FILE_MAX (64u << 20)

/* Copy @from (a state file, at most @max bytes) to @to, atomically. */
static int copy_state_file(const char *from, const char *to, size_t max)
{
	char *data = NULL;
	size_t n;
	int rc = fdw_read_file(from, max, FDW_READ_NOFOLLOW, &data, &n, NULL);

	if (!rc)
		rc = fdw_write_file_atomic(to, data, n, 0600);
	free(data);
	return rc;
}

/*
 * The move of /boot as planned before the restart, from the initramfs's copy into its state
 * folder, afresh at each restart until the header is written: a power cut empties /run, and
 * each step of the move can be done again (boot/boot_move.c), so the move starts over from
 * the same plan. The old GRUB keeps starting the system until the new one is installed.
 */
static int carry_move_plan(const char *stage, const struct fdw_restart_stage *st)
{
	char from[PATH_MAX + 64], to[PATH_MAX + 64], *copy = strdup(stage);
	int rc;

	if (!copy)
		return -ENOMEM;
	/* The stage names a root filesystem: only a well-formed UUID. */
	rc = fdw_uuid_valid(st->fs_uuid) ? fdw_boot_move_record_path(dirname(copy), st->fs_uuid,
								    from, sizeof(from))
					 : -EINVAL;
	free(copy);
	if (!rc)
		rc = fdw_boot_move_record_path(NULL, st->fs_uuid, to, sizeof(to));
	if (!rc)
		rc = fdw_state_dir_ensure();
	return rc ? rc : copy_state_file(from, to, 1u << 20);
}

/* A wrong passphrase changes nothing: it is tried on the prepared header first. */
static int passphrase_opens(const char *device, const char *header,
			    const struct fdw_secret *pass)
{
	struct fdw_volume v = { .device = device, .header = header };

	return fdw_convert_check_passphrase(&v, pass);
}

/* The encryption flow, as from a live system, with the header made before the restart. */
static int step_begin(const struct fdw_restart_stage *st, const char *device,
		      const char *header, const struct fdw_secret *pass, fdw_phase_fn phase,
		      void *ctx, char *why, size_t len)
{
	struct fdw_encrypt_options o = { 0 };
	struct fdw_encrypt *e = fdw_encrypt_new();
	int rc;

	if (!e)
		return -ENOMEM;
	o.prepared_header = header;
	o.prepared_uuid = st->uuid;
	o.active_name = st->name;
	/* No charger question can be answered here; the booted system's worker asks. */
	o.allow_low_battery = true;
	rc = fdw_encrypt_prepare(e, device, &o, why, len);
	if (!rc)
		rc = fdw_encrypt_begin(e, pass, phase, ctx, why, len);
	fdw_encrypt_free(e);
	return rc < 0 ? rc : 0;
}

/*
 * The move of /boot, whole, before the encrypt flow plans: a power cut inside it leaves a
 * layout (the partition split, fstab not yet written) whose verdict would refuse the root,
 * where the move's own record knows how to go on. Each of its parts can be done again.
 */
static int move_boot_first(const char *device, fdw_phase_fn phase, void *ctx, char *why,
			   size_t len)
{
	struct fdw_target t;
	int rc = fdw_target_open(device, &t);

	if (rc) {
		snprintf(why, len, _("%s cannot be opened: %s. The system starts unencrypted, as "
				     "before."), device, strerror(-rc));
		return rc;
	}
	if (phase)
		phase(FDW_PHASE_MOVING_BOOT, ctx);
	rc = fdw_boot_move_run(&t, why, len);
	if (t.part)
		fdw_target_close(&t);
	return rc;
}

/* Before the step begins: its preparation still in the system, the filesystem checked,
 * the move of /boot's plan at hand. 0, or -errno with @why (nothing changed). */
static int step_checks(const char *stage, const struct fdw_restart_stage *st,
		       const char *device, fdw_phase_fn phase, void *ctx, char *why, size_t len)
{
	int there;

	/* udev's rules open a volume group as its PV appears; the root volume is read there
	 * (the encrypt flow closes the group again before it changes anything). */
	if (st->vg[0] && fdw_lvm_activate(st->vg) != 0)
		fdw_log(FDW_LOG_WARN, "volume group %s could not be activated", st->vg);
	there = fdw_restart_stage_in_root(device, st);

	/* Before anything writes (e2fsck does): a stale copy after a cancel changes nothing. */
	if (there == 0) {
		snprintf(why, len, _("the encryption was cancelled in the system ('fdewiz "
				     "cancel'), and this initramfs is an old copy that still "
				     "carries fdewiz's step. The system starts unencrypted, "
				     "nothing was changed; make its initramfs again "
				     "(update-initramfs -u) to remove the step."));
		return -ECANCELED;
	}
	if (there < 0)
		fdw_log(FDW_LOG_WARN, "%s: whether the preparation is still in the system cannot "
			"be told (%s); going on", device, strerror(-there));
	/*
	 * A power cut during an earlier restart's shrink leaves a filesystem that resize2fs
	 * will not measure before a full check (the plan needs that measure): checked first,
	 * as the shrink itself would. A btrfs needs no measure: its shrink runs 'btrfs check
	 * --readonly' itself before it resizes (disk/fsresize_btrfs.c). A PV's filesystems
	 * do not move: room is made at its end, from its swap volume.
	 */
	if (strcmp(st->fstype, "btrfs") && !st->vg[0] && fdw_ext_check(device) != 0) {
		snprintf(why, len, _("the root filesystem on %s has errors that e2fsck -p does not "
				     "fix (the log says which). The system starts unencrypted, as "
				     "before; run 'e2fsck -f %s' from a live system, then restart "
				     "('fdewiz cancel' undoes the preparation)."), device, device);
		return -EUCLEAN;
	}
	if (st->boot_mib) {
		int rc = carry_move_plan(stage, st);

		if (rc) {
			snprintf(why, len, _("the plan of the new /boot that the initramfs carries "
					     "cannot be used (%s); the system starts plain, nothing "
					     "was changed."), strerror(-rc));
			return rc;
		}
		return move_boot_first(device, phase, ctx, why, len);
	}
	return 0;
}

/* A PV's volume group, now inside the open volume: the boot mounts its root volume. */
static int open_group(const struct fdw_restart_stage *st, char *root, size_t root_len,
		      char *why, size_t len)
{
	if (fdw_lvm_activate(st->vg) != 0 || access(st->root_lv, F_OK) != 0) {
		snprintf(why, len, _("the encrypted volume is open as %s, but its volume group %s "
				     "could not be activated inside it. Its data is intact; the "
				     "conversion goes on after a restart."), root, st->vg);
		return -ENODEV;
	}
	snprintf(root, root_len, "%s", st->root_lv);
	return 0;
}

static int step_run(const char *stage, const struct fdw_secret *pass, fdw_phase_fn phase,
		    void *ctx, char *mapper, size_t mapper_len, char *why, size_t len)
{
	char header[PATH_MAX], device[PATH_MAX], desc[128], *copy;
	struct fdw_restart_stage st;
	struct fdw_volume v = { 0 };
	bool begun, repaired;
	int rc;

	/* Records go to the initramfs's /run, which the booted system inherits. */
	setenv("FDEWIZ_STATE_DIR", INITRD_STATE, 1);
	if (mkdir("/run/" FDW_RESTART_NAME, 0700) != 0 && errno != EEXIST) {
		rc = -errno;
		snprintf(why, len, _("/run/%s cannot be made (%s); the system starts plain, "
				     "nothing was changed."), FDW_RESTART_NAME, strerror(-rc));
		return rc;
	}
	rc = fdw_restart_stage_read(stage, &st);
	if (rc) {
		snprintf(why, len, _("its stage record %s cannot be read (%s); the system starts "
				     "plain, nothing was changed."), stage, strerror(-rc));
		return rc;
	}
	copy = strdup(stage);
	if (!copy)
		return -ENOMEM;
	snprintf(header, sizeof(header), "%s/header", dirname(copy));
	free(copy);
	if (!realpath(st.device, device)) {
		rc = -errno;
		snprintf(why, len, _("the root partition %s was not found (%s); the system starts "
				     "plain, nothing was changed."), st.device, strerror(-rc));
		return rc;
	}
	rc = fdw_first_segment_repair(device, st.uuid, &repaired);
	if (rc) {
		snprintf(why, len, _("the start of %s cannot be checked (%s); the system starts "
				     "plain, nothing was changed."), device, strerror(-rc));
		return rc;
	}
	/* The last restart lost its power while it wrote the header: as before it, now. */
	if (repaired)
		fdw_log(FDW_LOG_WARN, "%s: a header cut short by a power cut; the start of the "
			"filesystem was written back from its copy", device);
	begun = fdw_luks2_peek_has_uuid(device, st.uuid);
	rc = passphrase_opens(device, begun ? NULL : header, pass);
	if (rc)
		return rc == -EPERM || rc == -ENOENT ? -EKEYREJECTED : rc;
	if (!begun) {
		rc = step_checks(stage, &st, device, phase, ctx, why, len);
		if (rc)
			return rc;
	}
	if (!begun) {
		fdw_log(FDW_LOG_INFO, "%s: making room and writing the header", device);
		rc = step_begin(&st, device, header, pass, phase, ctx, why, len);
		if (rc && !fdw_luks2_peek_has_uuid(device, st.uuid)) {
			size_t n = strlen(why);

			/* The system starts plain from its volume group, closed for the step. */
			if (st.vg[0] && fdw_lvm_activate(st.vg) != 0)
				fdw_log(FDW_LOG_ERROR, "volume group %s could not be activated again",
					st.vg);
			snprintf(why + n, len - n, _(" The system starts unencrypted, as before; the "
						     "step is tried again at the next restart "
						     "('fdewiz cancel' undoes it)."));
			return rc;
		}
		if (rc)
			fdw_log(FDW_LOG_WARN, "%s: the header is written, but: %s", device, why);
	}
	v.device = device;
	v.active_name = st.name;
	rc = fdw_convert_activate(&v, pass);
	if (rc) {
		snprintf(why, len, _("the encrypted root could not be opened (%s). Its data is "
				     "intact; start again and type the passphrase, or open it from "
				     "a live system."), strerror(-rc));
		return rc;
	}
	fdw_restart_key_desc(st.uuid, desc, sizeof(desc));
	if (fdw_keyring_put(desc, pass) != 0)
		fdw_log(FDW_LOG_WARN, "the passphrase could not be left for the booted system: "
			"'fdewiz resume' will ask for it");
	snprintf(mapper, mapper_len, "/dev/mapper/%s", st.name);
	return st.vg[0] ? open_group(&st, mapper, mapper_len, why, len) : 0;
}

/*
 * The step, and what the started system is to say of it: when it did not begin the
 * conversion, why (the system starts plain and stays prepared), in the initramfs's /run,
 * which the started system keeps until the next restart; when it did, no such note.
 */
int fdw_restart_step(const char *stage, const struct fdw_secret *pass, fdw_phase_fn phase,
		     void *ctx, char *mapper, size_t mapper_len, char *why, size_t len)
{
	const char *note = why;
	int rc = step_run(stage, pass, phase, ctx, mapper, mapper_len, why, len);

	if (!rc) {
		unlink(FDW_RESTART_STEP_FAILED);
		return 0;
	}
	if (rc == -EKEYREJECTED)
		note = _("the passphrase typed at the start did not open the prepared header.");
	else if (!why[0])
		note = strerror(-rc);
	if (fdw_write_file_atomic(FDW_RESTART_STEP_FAILED, note, strlen(note), 0600) != 0)
		fdw_log(FDW_LOG_WARN, "%s could not be written", FDW_RESTART_STEP_FAILED);
	return rc;
}

/* Copy @from to @to (atomically), then remove @from. */
static int move_file(const char *from, const char *to)
{
	int rc = copy_state_file(from, to, STATE_FILE_MAX);

	if (!rc)
		unlink(from);
	return rc;
}

/*
 * The job record (with its header backup) and the boot step's record, from the state
 * folder @from (the initramfs's, or the preparation's) to this one's.
 */
static int take_job(const char *from_dir, const char *id)
{
	char from[PATH_MAX], to[PATH_MAX], *base;
	struct fdw_job job;
	size_t flen = strlen(from_dir);
	int rc;

	fdw_job_file_path_in(from_dir, id, FDW_JOB_RECORD, from, sizeof(from));
	rc = fdw_job_load_file(from, &job);
	if (rc)
		return rc;
	if (!strncmp(job.header_backup, from_dir, flen) && job.header_backup[flen] == '/' &&
	    access(job.header_backup, F_OK) == 0) {
		base = strrchr(job.header_backup, '/') + 1;
		snprintf(to, sizeof(to), "%s/%s", fdw_state_dir(), base);
		rc = move_file(job.header_backup, to);
		if (rc)
			return rc;
		snprintf(job.header_backup, sizeof(job.header_backup), "%s", to);
	}
	fdw_job_file_path_in(from_dir, id, FDW_JOB_SYSTEM, from, sizeof(from));
	fdw_job_file_path_in(fdw_state_dir(), id, FDW_JOB_SYSTEM, to, sizeof(to));
	if (access(from, F_OK) == 0) {
		rc = move_file(from, to);
		if (rc)
			return rc;
	}
	rc = fdw_job_save(&job);
	if (!rc) {
		fdw_job_file_path_in(from_dir, id, FDW_JOB_RECORD, from, sizeof(from));
		unlink(from);
	}
	return rc;
}

/* The state of @st's conversion as its record and header say now; -1 without a record. */
static int restart_job_state(const struct fdw_restart_stage *st)
{
	struct fdw_progress p;
	struct fdw_job job;

	if (fdw_job_find_id(st->uuid, &job) != 0 || fdw_job_observe(&job, &p) != 0)
		return -1;
	return (int)p.state;
}

bool fdw_restart_stopped_safely(const struct fdw_restart_stage *st)
{
	int state = restart_job_state(st);

	return state == FDW_JOB_PAUSED || state == FDW_JOB_INTERRUPTED;
}

bool fdw_restart_paused(const struct fdw_restart_stage *st)
{
	return restart_job_state(st) == FDW_JOB_PAUSED;
}

/* The step's record knows nothing of the baseline benchmark the preparation measured. */
static int carry_baseline(const char *uuid)
{
	static struct fdw_job job, kept;	/* large: off the stack */
	char dir[PATH_MAX], path[PATH_MAX + 64];

	fdw_restart_dir(dir, sizeof(dir));
	fdw_job_file_path_in(dir, uuid, FDW_JOB_RECORD, path, sizeof(path));
	if (fdw_job_load_file(path, &kept) != 0 || !kept.bench_before[0] ||
	    fdw_job_find_id(uuid, &job) != 0 || job.bench_before[0])
		return 0;
	snprintf(job.bench_before, sizeof(job.bench_before), "%s", kept.bench_before);
	snprintf(job.bench_scale, sizeof(job.bench_scale), "%s", kept.bench_scale);
	return fdw_job_save(&job);
}

/* The records of @uuid: the step's when /run still has them, else the preparation's. */
static int take_records(const char *uuid)
{
	char path[PATH_MAX], dir[PATH_MAX];
	int rc;

	fdw_job_file_path_in(INITRD_STATE, uuid, FDW_JOB_RECORD, path, sizeof(path));
	if (access(path, F_OK) == 0) {
		rc = take_job(INITRD_STATE, uuid);
		return rc ? rc : carry_baseline(uuid);
	}
	fdw_job_file_path_in(fdw_state_dir(), uuid, FDW_JOB_RECORD, path, sizeof(path));
	if (access(path, F_OK) == 0)
		return 0;
	/* A power cut took /run with the step's records. */
	fdw_restart_dir(dir, sizeof(dir));
	fdw_log(FDW_LOG_INFO, "the records of the restart's step are gone; the preparation's "
		"are used");
	return take_job(dir, uuid);
}

int fdw_restart_take_over(struct fdw_restart_stage *st, struct fdw_secret **pass, char *why,
			  size_t len)
{
	char desc[128], dev[PATH_MAX];
	int rc;

	*pass = NULL;
	/* The service runs under the root it converts, in the conversion and in a boot step
	 * a power cut left over alike. */
	fdw_process_lock_pages();
	if (!fdw_restart_pending(st)) {
		snprintf(why, len, _("no encryption of the root was prepared for a restart."));
		return -ENOENT;
	}
	if (!realpath(st->device, dev) || !fdw_luks2_peek_has_uuid(dev, st->uuid)) {
		char failed[1024];

		if (fdw_restart_step_failed(failed, sizeof(failed)))
			snprintf(why, len, _("the step at the restart did not encrypt %s: %s It "
					     "stays prepared for the next restart ('fdewiz cancel' "
					     "undoes it)."), st->address, failed);
		else
			snprintf(why, len, _("the step at the restart did not encrypt %s (its "
					     "messages were shown before the system started); it "
					     "stays prepared for the next restart ('fdewiz cancel' "
					     "undoes it)."), st->address);
		return -EAGAIN;
	}
	rc = fdw_state_dir_ensure();
	if (!rc)
		rc = take_records(st->uuid);
	if (rc) {
		snprintf(why, len, _("the records the restart left in %s could not be kept (%s)."),
			 INITRD_STATE, strerror(-rc));
		return rc;
	}
	fdw_restart_key_desc(st->uuid, desc, sizeof(desc));
	/* Debian's cryptroot opened it (the initramfs was made again before a power cut):
	 * no passphrase was left, and the boot step that is left needs none. */
	if (fdw_keyring_get(desc, pass) != 0)
		*pass = NULL;
	/* It stays only in this process from here on. */
	fdw_keyring_drop(desc);
	if (fdw_restart_paused(st)) {
		fdw_secret_free(*pass);
		*pass = NULL;
		snprintf(why, len, _("the encryption of %s was paused ('fdewiz pause') and stays "
				     "paused across restarts; the volume is open and the system "
				     "works as usual. Continue with: fdewiz resume %s"), st->address,
			 st->address);
		return -EINTR;
	}
	/* Nobody here chose to run on a low battery: wait for the charger instead. */
	fdw_power_guard_insist();
	return 0;
}

void fdw_restart_conclude(const struct fdw_job *job)
{
	struct fdw_restart_stage st;

	/* A boot step that failed is left to 'resume': the service must stay for it. */
	if (!fdw_restart_pending(&st) || strcmp(st.uuid, job->id) != 0 ||
	    fdw_system_boot_pending(job))
		return;
	fdw_log(FDW_LOG_INFO, "%s: converted and its boot set up; the restart's stage, key and "
		"service go", job->address);
	fdw_restart_done(&st);
}

void fdw_restart_done(const struct fdw_restart_stage *st)
{
	char dir[PATH_MAX], stage[PATH_MAX + 16], header[PATH_MAX + 16], desc[128];

	fdw_restart_key_desc(st->uuid, desc, sizeof(desc));
	fdw_keyring_drop(desc);
	fdw_restart_files_remove("/");
	fdw_restart_stage_paths(dir, sizeof(dir), stage, header, sizeof(stage));
	fdw_restart_remove_stage_dir(dir, stage, header);
}
