/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The running system's root encrypted with one restart: checked, prepared, cancelled. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/i18n.h"
#include "base/log.h"
#include "base/statedir.h"
#include "base/uuid.h"
#include "boot/boot_move.h"
#include "boot/restart_initrd.h"
#include "boot/system_boot.h"
#include "disk/fsprobe.h"
#include "disk/lvm_pv.h"
#include "disk/os_support.h"
#include "disk/target.h"
#include "disk/verdict_lvm.h"
#include "disk/volume_id.h"
#include "luks2/convert.h"
#include "luks2/escrow.h"
#include "luks2/luks2_peek.h"
#include "luks2/recovery.h"
#include "state/job.h"
#include "restart.h"
#include "restart_internal.h"

void fdw_restart_stage_paths(char *dir, size_t dlen, char *stage, char *header, size_t len)
{
	fdw_restart_dir(dir, dlen);
	snprintf(stage, len, "%s/stage", dir);
	snprintf(header, len, "%s/header", dir);
}

bool fdw_restart_pending(struct fdw_restart_stage *st)
{
	char dir[PATH_MAX], stage[PATH_MAX + 16], header[PATH_MAX + 16];

	fdw_restart_stage_paths(dir, sizeof(dir), stage, header, sizeof(stage));
	return fdw_restart_stage_read(stage, st) == 0;
}

bool fdw_restart_begun(const struct fdw_restart_stage *st)
{
	char dev[PATH_MAX];

	/* The device by its PARTUUID link, or as the person named it where there is none. */
	return (realpath(st->device, dev) || (st->address[0] && realpath(st->address, dev))) &&
	       fdw_luks2_peek_has_uuid(dev, st->uuid);
}

/* Is the boot folder a filesystem of its own? The initramfs is read from it plain. */
static bool boot_separate(void)
{
	struct stat root, boot;

	return stat("/", &root) == 0 && stat("/boot", &boot) == 0 && root.st_dev != boot.st_dev;
}

/* What the system needs for the step, said as what to install. */
static int system_ready(char *why, size_t len)
{
	if (access("/usr/sbin/update-initramfs", X_OK) != 0) {
		snprintf(why, len, _("this system does not make its initramfs with "
				     "initramfs-tools, which the step at the restart needs. "
				     "Nothing was changed."));
		return -EOPNOTSUPP;
	}
	if (access("/usr/share/initramfs-tools/hooks/cryptroot", F_OK) != 0) {
		snprintf(why, len, _("the package cryptsetup-initramfs is not installed, and "
				     "without it the encrypted root cannot be opened at boot: "
				     "install it (apt install cryptsetup-initramfs), then try again. "
				     "Nothing was changed."));
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * How far the mounted root could shrink, guessed from what it holds (resize2fs measures
 * only an unmounted one): a tenth more for the metadata that moves with the data, and
 * 256 MiB. The step measures it again before anything moves and refuses below it.
 */
static int fs_min_guess(const struct fdw_partition *p, uint64_t *guess)
{
	uint64_t used;

	if (p->fs_size <= 0 || p->fs_free < 0 || p->fs_free > p->fs_size)
		return -ENODATA;
	used = (uint64_t)(p->fs_size - p->fs_free);
	*guess = used + used / 10 + 256 * FDW_MIB;
	return 0;
}

/*
 * /boot inside the root: the step first makes it a partition of its own (boot/boot_move.h),
 * planned now; with @record, the plan kept in the state folder for the step. 0 with
 * @ahead, or -errno with @why.
 */
static int boot_move_ahead(const struct fdw_target *t, bool record,
			   struct fdw_boot_move_ahead *ahead, char *why, size_t len)
{
	const struct fdw_installed_os *os = &t->part->os;
	enum fdw_sysboot_refusal r = fdw_os_support_check(os);
	char detail[512] = "";
	uint64_t guess;
	int rc;

	if (!os->found || r != FDW_SYSBOOT_BOOT_INSIDE) {
		snprintf(why, len, _("/boot is inside the root filesystem, and this system cannot "
				     "be given a /boot of its own: %s Nothing was changed."),
			 os->found && r != FDW_SYSBOOT_OK ? fdw_os_support_refusal_text(r)
							  : _("its installed system was not "
							      "recognised."));
		return -EOPNOTSUPP;
	}
	if (fs_min_guess(t->part, &guess) != 0) {
		snprintf(why, len, _("the root filesystem's use could not be measured. Nothing was "
				     "changed."));
		return -ENODATA;
	}
	rc = fdw_boot_move_plan_running(t, guess, record, ahead, detail, sizeof(detail));
	if (rc)
		snprintf(why, len, _("/boot is inside the root filesystem, and the restart's step "
				     "would first make it a partition of its own: %s"), detail);
	return rc;
}

static bool is_btrfs(const struct fdw_partition *p)
{
	return p->fstype && !strcmp(p->fstype, "btrfs");
}

static bool is_pv(const struct fdw_partition *p)
{
	return p->fstype && !strcmp(p->fstype, "LVM2_member");
}

/*
 * A root on a logical volume (Debian's guided LVM): the whole PV is encrypted, its
 * volumes inside, once the step made the header's room at its end (disk/lvm_room.c) with
 * the volume group closed, as a live system does. /boot must be apart: GRUB cannot read
 * the root's LUKS2 volume.
 */
static int check_pv(const struct fdw_partition *p, char *why, size_t len)
{
	struct fdw_lvm_room room;

	if (!fdw_verdict_lvm_system(p)) {
		snprintf(why, len, _("the root is on a volume group that spans more than this "
				     "physical volume, or whose system could not be read; fdewiz "
				     "encrypts a volume group on one physical volume only. Nothing "
				     "was changed."));
		return -EOPNOTSUPP;
	}
	if (!boot_separate()) {
		snprintf(why, len, _("the root is on LVM with /boot inside it; the system could "
				     "not start from an encrypted volume group. Give /boot a "
				     "partition of its own (as Debian's guided LVM does), then try "
				     "again. Nothing was changed."));
		return -EOPNOTSUPP;
	}
	if (access("/usr/share/initramfs-tools/hooks/lvm2", F_OK) != 0) {
		snprintf(why, len, _("the initramfs cannot open LVM (the package lvm2 has no "
				     "initramfs hook here). Nothing was changed."));
		return -EOPNOTSUPP;
	}
	fdw_lvm_room_plan(&p->lvm, FDW_HEADER_ROOM, &room);
	if (room.kind == FDW_LVM_ROOM_NONE) {
		snprintf(why, len, _("the physical volume of volume group %s needs %llu MiB free "
				     "at its end for the header, and %llu MiB of it are in use (by "
				     "%s). Free the extents at its end (lvreduce its last logical "
				     "volume, or pvmove it), then try again. Nothing was changed."),
			 p->lvm.vg, (unsigned long long)(FDW_HEADER_ROOM / FDW_MIB),
			 (unsigned long long)((room.short_by + FDW_MIB - 1) / FDW_MIB),
			 p->lvm.last_lv >= 0 ? p->lvm.lvs[p->lvm.last_lv].name : "?");
		return -ENOSPC;
	}
	return 0;
}

/*
 * A filesystem the step can shrink while it is unmounted: ext2/3/4 (resize2fs), or a
 * single-device btrfs (mounted privately and resized) whose /boot is a partition of its
 * own (the move of /boot shrinks ext only); or an LVM PV with room made at its end.
 */
static int check_fstype(const struct fdw_partition *p, char *why, size_t len)
{
	if (is_pv(p))
		return check_pv(p, why, len);
	if (is_btrfs(p)) {
		if (p->fs_min_size < 0) {
			snprintf(why, len, _("the root is a btrfs over several devices, or one "
					     "whose use could not be read; at a restart fdewiz "
					     "shrinks a btrfs on one partition only. Nothing was "
					     "changed."));
			return -EOPNOTSUPP;
		}
		if (!boot_separate()) {
			snprintf(why, len, _("the root is a btrfs with /boot inside it; fdewiz "
					     "makes /boot a partition of its own only from an ext4 "
					     "root. Give /boot a partition of its own (as Fedora's "
					     "installer does), then try again. Nothing was changed."));
			return -EOPNOTSUPP;
		}
		return 0;
	}
	if (!fdw_fstype_is_ext(p->fstype)) {
		snprintf(why, len, _("the root's filesystem is %s; at a restart fdewiz can shrink "
				     "only ext2, ext3, ext4 and btrfs (or encrypt an LVM physical "
				     "volume). Nothing was changed."),
			 p->fstype ? p->fstype : _("unknown"));
		return -EOPNOTSUPP;
	}
	return 0;
}

static int check_target(const struct fdw_target *t, struct fdw_restart_stage *st, char *why,
			size_t len)
{
	const struct fdw_partition *p = t->part;
	struct fdw_volume_id id;
	int rc;

	if (!p->node) {
		snprintf(why, len, _("%s is a partition of an image file; a system starts only "
				     "from a disk's partition. Nothing was changed."), p->address);
		return -EINVAL;
	}
	if (!fdw_mounted_as_root(p)) {
		snprintf(why, len, _("%s is not the running system's root; encrypt it as it "
				     "is, without --at-restart. Nothing was changed."), p->address);
		return -EINVAL;
	}
	rc = check_fstype(p, why, len);
	if (rc)
		return rc;
	if (p->fs_free >= 0 && (uint64_t)p->fs_free < 4 * FDW_HEADER_ROOM) {
		snprintf(why, len, _("the root filesystem has less than %llu MiB free; the "
				     "header needs 32 MiB of it. Free some space. Nothing was "
				     "changed."), (unsigned long long)(4 * FDW_HEADER_ROOM / FDW_MIB));
		return -ENOSPC;
	}
	if (!boot_separate()) {
		struct fdw_boot_move_ahead ahead;

		rc = boot_move_ahead(t, false, &ahead, why, len);
		if (rc)
			return rc;
		st->boot_mib = (unsigned)(ahead.boot_size / FDW_MIB);
	}
	snprintf(st->fstype, sizeof(st->fstype), "%s", p->fstype);
	/* The step looks for the stage inside the root's subvolume ("" when unknown: then it
	 * finds none there, and starts the system plain). */
	if (is_btrfs(p) && p->os.found)
		snprintf(st->subvol, sizeof(st->subvol), "%s", p->os.root_subvol);
	/* The step finds the stage on the root volume, and opens the group again after. */
	if (is_pv(p)) {
		snprintf(st->vg, sizeof(st->vg), "%s", p->lvm.vg);
		snprintf(st->root_lv, sizeof(st->root_lv), "%s",
			 p->lvm.lvs[p->lvm.root_lv].dm_path);
	}
	fdw_volume_id_of(&t->disk, p, &id);
	if (id.partuuid[0])
		snprintf(st->device, sizeof(st->device), "/dev/disk/by-partuuid/%s", id.partuuid);
	else
		snprintf(st->device, sizeof(st->device), "%s", p->node);
	snprintf(st->address, sizeof(st->address), "%s", p->address);
	snprintf(st->fs_uuid, sizeof(st->fs_uuid), "%s", p->uuid ? p->uuid : "");
	fdw_system_boot_name(t, st->name, sizeof(st->name));
	st->swap_replaced = p->os.found && fdw_system_boot_swap_planned(&p->os);
	return 0;
}

/* fdw_restart_check(), with @t left open for the caller when it says yes. */
static int check_open(const char *address, struct fdw_restart_stage *st, struct fdw_target *t,
		      char *why, size_t len)
{
	int rc;

	memset(st, 0, sizeof(*st));
	if (geteuid() != 0) {
		snprintf(why, len, _("encrypting needs root; run it with sudo. Nothing was "
				     "changed."));
		return -EPERM;
	}
	if (fdw_restart_pending(&(struct fdw_restart_stage){ 0 })) {
		snprintf(why, len, _("the encryption of the root is already prepared for the next "
				     "restart. Restart, or undo it with: fdewiz cancel"));
		return -EALREADY;
	}
	rc = fdw_target_open(address, t);
	if (rc) {
		snprintf(why, len, _("%s cannot be opened: %s. Nothing was changed."), address,
			 strerror(-rc));
		return rc;
	}
	rc = check_target(t, st, why, len);
	if (!rc)
		rc = system_ready(why, len);
	if (rc)
		fdw_target_close(t);
	return rc;
}

int fdw_restart_check(const char *address, struct fdw_restart_stage *st, char *why,
		      size_t len)
{
	struct fdw_target t;
	int rc = check_open(address, st, &t, why, len);

	if (!rc)
		fdw_target_close(&t);
	return rc;
}

/* The keys, made and tested in a header file: the initramfs cannot show a recovery key. */
static int prepare_keys(const struct fdw_partition *p, const char *header,
			const struct fdw_secret *pass, bool fast_pbkdf,
			struct fdw_restart_result *res, char *why, size_t len)
{
	struct fdw_convert_params cp = {
		.device = p->node, .uuid = res->stage.uuid, .cipher = "aes",
		.cipher_mode = "xts-plain64", .key_bits = 512, .fast_pbkdf = fast_pbkdf,
		.sector_size = p->fs_block_size >= 4096 ? 4096 : 512,
	};
	char twhy[256] = "";
	int rc = fdw_recovery_key_generate(&res->recovery);

	if (rc) {
		snprintf(why, len, _("the recovery key could not be made (%s)."), strerror(-rc));
		return rc;
	}
	cp.recovery_key = res->recovery;
	rc = fdw_convert_prepare_header(&cp, pass, header);
	if (rc) {
		snprintf(why, len, _("the LUKS2 header could not be made in %s (%s)."), header,
			 strerror(-rc));
		return rc;
	}
	rc = fdw_recovery_key_test(p->node, header, res->recovery, &res->recovery_slot, twhy,
				   sizeof(twhy));
	if (rc) {
		/* Never hand out a key that was not seen to open the header. */
		snprintf(why, len, _("the recovery key did not pass its test (%s)."), twhy);
		return rc;
	}
	return 0;
}

static void forget_fallback(const char *dir, const char *uuid)
{
	char path[PATH_MAX + 64];

	fdw_job_file_path_in(dir, uuid, FDW_JOB_RECORD, path, sizeof(path));
	unlink(path);
	fdw_job_file_path_in(dir, uuid, FDW_JOB_SYSTEM, path, sizeof(path));
	unlink(path);
}

/* Cancelled: the baseline measured at the preparation compares with nothing now. */
static void forget_baseline(const char *dir, const char *uuid)
{
	static struct fdw_job kept;	/* large: off the stack */
	char path[PATH_MAX + 64];

	fdw_job_file_path_in(dir, uuid, FDW_JOB_RECORD, path, sizeof(path));
	if (fdw_job_load_file(path, &kept) == 0 && kept.bench_before[0])
		unlink(kept.bench_before);
}

void fdw_restart_remove_stage_dir(const char *dir, const char *stage, const char *header)
{
	char jobs[PATH_MAX + 8];
	struct fdw_restart_stage st;

	if (fdw_restart_stage_read(stage, &st) == 0) {
		forget_fallback(dir, st.uuid);
		char move[PATH_MAX + 64];

		if (fdw_uuid_valid(st.fs_uuid) &&
		    fdw_boot_move_record_path(dir, st.fs_uuid, move, sizeof(move)) == 0)
			unlink(move);
	}
	snprintf(jobs, sizeof(jobs), "%s/jobs", dir);
	rmdir(jobs);
	fdw_restart_initrd_forget(dir);
	unlink(stage);
	unlink(header);
	rmdir(dir);
}

/*
 * The job's records as the step at the restart will make them, kept in @dir/jobs: the
 * step's own go to the initramfs's /run, which a power cut right after the header went
 * on empties, and without a record the service would take fdewiz's mapping for another
 * program's.
 */
static int fallback_records(const struct fdw_target *t, const struct fdw_restart_stage *st,
			    const char *dir, const struct fdw_job *measured, const char *boot_uuid,
			    char *why, size_t len)
{
	/* The boot is set up for the system as the step leaves it: with its new /boot. */
	struct fdw_partition after = *t->part;
	struct fdw_target moved = *t;
	char saved[PATH_MAX];
	struct fdw_job job = { 0 };
	int rc;

	snprintf(saved, sizeof(saved), "%s", fdw_state_dir());
	snprintf(job.id, sizeof(job.id), "%s", st->uuid);
	snprintf(job.address, sizeof(job.address), "%s", t->part->address);
	if (snprintf(job.header_backup, sizeof(job.header_backup), "%s/restart-%.8s.header", saved,
		     st->uuid) >= (int)sizeof(job.header_backup))
		return -ENAMETOOLONG;
	/* Opened under its crypttab name from the start: systemd's crypttab unit then finds it
	 * open, and the boot step has nothing to rename. */
	snprintf(job.active_name, sizeof(job.active_name), "%s", st->name);
	/* A shrunk filesystem grows back at the end; a PV was only made to end earlier. */
	if (!is_pv(t->part))
		snprintf(job.fs_to_grow, sizeof(job.fs_to_grow), "%s", t->part->fstype);
	snprintf(job.fstype, sizeof(job.fstype), "%s", t->part->fstype);
	snprintf(job.cipher, sizeof(job.cipher), "aes-xts-plain64, 512-bit key");
	job.created = (int64_t)time(NULL);
	/* The end of the conversion compares with the baseline measured now. */
	snprintf(job.bench_before, sizeof(job.bench_before), "%s", measured->bench_before);
	snprintf(job.bench_scale, sizeof(job.bench_scale), "%s", measured->bench_scale);
	fdw_volume_id_of(&t->disk, t->part, &job.ident);
	/* The record functions write under the state folder: here, the restart's. */
	setenv("FDEWIZ_STATE_DIR", dir, 1);
	rc = fdw_state_dir_ensure();
	if (!rc)
		rc = fdw_job_save(&job);
	if (rc)
		snprintf(why, len, _("the job record could not be kept in %s (%s)."), dir,
			 strerror(-rc));
	if (!rc && boot_uuid[0]) {
		snprintf(after.os.boot_spec, sizeof(after.os.boot_spec), "UUID=%s", boot_uuid);
		after.os.boot_separate = true;
		moved.part = &after;
		t = &moved;
	}
	if (!rc && t->part->os.found)
		rc = fdw_system_boot_record(t, &job, st->name, NULL, why, len);
	setenv("FDEWIZ_STATE_DIR", saved, 1);
	return rc;
}

/* The move of /boot planned into the restart's folder @dir, which the initramfs carries. */
static int plan_move_in(const char *dir, const struct fdw_target *t,
			struct fdw_boot_move_ahead *ahead, char *why, size_t len)
{
	char saved[PATH_MAX];
	int rc;

	snprintf(saved, sizeof(saved), "%s", fdw_state_dir());
	setenv("FDEWIZ_STATE_DIR", dir, 1);
	rc = boot_move_ahead(t, true, ahead, why, len);
	setenv("FDEWIZ_STATE_DIR", saved, 1);
	return rc;
}

/* The step's files gone, the initramfs as before: the kept one put back, else made again. */
static int disarm(const char *dir, char *initrd, size_t ilen, char *why, size_t len)
{
	int rc = fdw_restart_files_remove("/");

	if (rc) {
		snprintf(why, len, _("fdewiz's files could not be removed (%s)."), strerror(-rc));
		return rc;
	}
	rc = fdw_restart_initrd_restore(dir);
	if (rc == 0)
		return 0;
	fdw_log(FDW_LOG_INFO, "the initramfs is made again without the step (%s)",
		rc == -ESTALE ? "the kept one is not the system's now" : strerror(-rc));
	return fdw_restart_initrd_remake(false, initrd, ilen, why, len);
}

/*
 * The plain root measured now, mounted a second time privately (it is mounted as /):
 * @measured's bench_before and bench_scale, for the record the end compares with.
 */
static int measure_baseline(const struct fdw_target *t, const struct fdw_restart_options *o,
			    const char *uuid, struct fdw_job *measured, char *why, size_t len)
{
	char detail[1024];
	int rc;

	memset(measured, 0, sizeof(*measured));
	/* A PV holds no filesystem of its own to measure, as in a live system. */
	if (!o->bench || is_pv(t->part))
		return 0;
	snprintf(measured->id, sizeof(measured->id), "%s", uuid);
	snprintf(measured->address, sizeof(measured->address), "%s", t->part->address);
	snprintf(measured->bench_scale, sizeof(measured->bench_scale), "%s",
		 o->bench_scale ? o->bench_scale : "quick");
	rc = fdw_bench_before(measured, t->device, t->part->fstype, o->bench_status,
			      o->bench_ctx, detail, sizeof(detail));
	if (rc)
		snprintf(why, len, _("the baseline benchmark could not run: %s To prepare "
				     "without the benchmark, turn it off (--no-bench)."), detail);
	return rc;
}

static int arm_steps(const struct fdw_target *t, const struct fdw_secret *pass,
		     const struct fdw_restart_options *o, struct fdw_restart_result *res,
		     char *why, size_t len)
{
	char dir[PATH_MAX], stage[PATH_MAX + 16], header[PATH_MAX + 16], undo[256];
	static struct fdw_job measured;	/* large: off the stack */
	struct fdw_boot_move_ahead ahead = { 0 };
	int rc;

	fdw_restart_stage_paths(dir, sizeof(dir), stage, header, sizeof(stage));
	rc = fdw_state_dir_ensure();
	if (!rc)
		rc = fdw_private_dir_ensure(dir);
	if (rc) {
		snprintf(why, len, _("the folder %s could not be made (%s)."), dir, strerror(-rc));
		return rc;
	}
	unlink(header);
	/* The step checks that the preparation is still there (not cancelled) by this path. */
	if (strlen(dir) < sizeof(res->stage.home))
		snprintf(res->stage.home, sizeof(res->stage.home), "%s", dir);
	rc = measure_baseline(t, o, res->stage.uuid, &measured, why, len);
	if (!rc)
		rc = prepare_keys(t->part, header, pass, o->fast_pbkdf, res, why, len);
	if (!rc && fdw_escrow_wanted(o->escrow)) {
		struct fdw_escrow_volume v = {
			.device = t->part->address,
			.filesystem_uuid = t->part->uuid ? t->part->uuid : "",
			.luks_uuid = res->stage.uuid,
		};

		rc = fdw_escrow_key(o->escrow, &v, res->recovery, why, len);
	}
	if (!rc) {
		rc = fdw_restart_stage_write(stage, &res->stage);
		if (rc)
			snprintf(why, len, _("%s could not be written (%s)."), stage, strerror(-rc));
	}
	if (!rc && res->stage.boot_mib)
		rc = plan_move_in(dir, t, &ahead, why, len);
	if (!rc)
		rc = fallback_records(t, &res->stage, dir, &measured, ahead.boot_uuid, why, len);
	if (!rc) {
		rc = fdw_restart_initrd_keep(dir);
		if (rc)
			snprintf(why, len, _("the initramfs could not be kept in %s (%s)."), dir,
				 strerror(-rc));
	}
	if (!rc)
		rc = fdw_restart_files_install("/", o->exe, dir, why, len);
	if (!rc)
		rc = fdw_restart_initrd_remake(true, res->initrd, sizeof(res->initrd), why, len);
	if (!rc)
		rc = fdw_restart_initrd_mark(dir);
	if (!rc)
		return 0;
	if (disarm(dir, res->initrd, sizeof(res->initrd), undo, sizeof(undo)) != 0)
		fdw_log(FDW_LOG_ERROR, "the preparation could not be undone: %s", undo);
	fdw_restart_remove_stage_dir(dir, stage, header);
	if (measured.bench_before[0])
		unlink(measured.bench_before);
	return rc;
}

int fdw_restart_arm(const char *address, const struct fdw_secret *pass,
		    const struct fdw_restart_options *o, struct fdw_restart_result *res,
		    char *why, size_t len)
{
	struct fdw_restart_options local;
	struct fdw_target t;
	char detail[512] = "", exe[PATH_MAX];
	int rc;

	memset(res, 0, sizeof(*res));
	res->recovery_slot = -1;
	if (!o->exe) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (n <= 0) {
			snprintf(why, len, _("cannot tell where fdewiz itself is (%s). Nothing was "
					     "changed."), strerror(errno));
			return -EIO;
		}
		exe[n] = '\0';
		local = *o;
		local.exe = exe;
		o = &local;
	}
	rc = check_open(address, &res->stage, &t, why, len);
	if (rc)
		return rc;
	if (fdw_new_uuid(res->stage.uuid, sizeof(res->stage.uuid)) != 0) {
		snprintf(why, len, _("cannot make a UUID. Nothing was changed."));
		fdw_target_close(&t);
		return -EIO;
	}
	rc = arm_steps(&t, pass, o, res, detail, sizeof(detail));
	fdw_target_close(&t);
	if (rc) {
		snprintf(why, len, _("the restart could not be prepared: %s Nothing is left of "
				     "the preparation; the system starts as before."), detail);
		fdw_restart_result_wipe(res);
	}
	return rc;
}

void fdw_restart_result_wipe(struct fdw_restart_result *res)
{
	fdw_secret_free(res->recovery);
	res->recovery = NULL;
}

int fdw_restart_cancel(char *why, size_t len)
{
	char dir[PATH_MAX], stage[PATH_MAX + 16], header[PATH_MAX + 16], initrd[256];
	struct fdw_restart_stage st;
	int rc;

	fdw_restart_stage_paths(dir, sizeof(dir), stage, header, sizeof(stage));
	if (fdw_restart_stage_read(stage, &st) != 0) {
		snprintf(why, len, _("no encryption is prepared for the next restart."));
		return -ENOENT;
	}
	if (fdw_restart_begun(&st)) {
		snprintf(why, len, _("the encryption of %s has begun (at a restart) and cannot "
				     "be undone; pause it with: fdewiz pause %s"), st.address,
			 st.address);
		return -EALREADY;
	}
	rc = disarm(dir, initrd, sizeof(initrd), why, len);
	if (rc)
		return rc;
	forget_baseline(dir, st.uuid);
	fdw_restart_remove_stage_dir(dir, stage, header);
	return 0;
}
