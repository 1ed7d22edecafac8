/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Preparing and beginning an in-place encryption: checks first, then room, header, record. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_cipher.h"
#include "disk/job_observe.h"
#include "predict.h"
#include "bench/bench_flow.h"
#include "luks2/convert.h"
#include "boot/crypttab.h"
#include "encrypt_flow.h"
#include "encrypt_settings.h"
#include "encrypt_internal.h"
#include "disk/fsresize.h"
#include "base/i18n.h"
#include "disk/holders.h"
#include "base/log.h"
#include "base/power.h"
#include "base/loopdev.h"
#include "disk/partgrow.h"
#include "base/testhook.h"
#include "base/units.h"
#include "base/sysstate.h"
#include "disk/lvm_room.h"
#include "boot/system_boot.h"
#include "boot/system_data.h"
#include "base/uuid.h"
#include "disk/system_peek.h"
#include "disk/volume_id.h"

/* @path made absolute against the current directory (the file need not exist yet). */
static int absolute_path(const char *path, char *out, size_t len)
{
	char cwd[PATH_MAX];

	if (path[0] == '/')
		return snprintf(out, len, "%s", path) < (int)len ? 0 : -ENAMETOOLONG;
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	return snprintf(out, len, "%s/%s", cwd, path) < (int)len ? 0 : -ENAMETOOLONG;
}

/* A file name for the header backup derived from the address ("/dev/sda2" -> "sda2"). */
static void default_backup_path(const char *address, char *out, size_t len)
{
	const char *base = strrchr(address, '/');

	base = base ? base + 1 : address;
	snprintf(out, len, "%s/%s-%ld.header", fdw_state_dir(), base, (long)time(NULL));
	/* "disk.img:2" -> "disk.img-2": a colon confuses scp and some shells. */
	for (char *c = strrchr(out, '/'); c && *c; c++)
		if (*c == ':')
			*c = '-';
}

/* Can a new file be made at @path? Its directory must exist and be writable. */
static int dir_writable_for(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		return access(".", W_OK | X_OK) == 0 ? 0 : -errno;
	slash[slash == dir ? 1 : 0] = '\0';
	return access(dir, W_OK | X_OK) == 0 ? 0 : -errno;
}

/*
 * Every path a run will write is checked before anything changes: a missing directory
 * found after the filesystem was shrunk would leave a half-done job behind.
 */
static int check_paths(const struct fdw_encrypt *e, const struct fdw_encrypt_options *o,
		       char *why, size_t len)
{
	const struct { const char *path, *what; bool is_dir; } paths[] = {
		{ o->work_dir, "--work-dir", true },
		{ e->header_backup, "--header-backup", false },
		{ e->plan.detached_header, "--strategy detached-header", false },
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		const char *p = paths[i].path;
		int rc;

		if (!p || !p[0])
			continue;
		rc = paths[i].is_dir ? (access(p, W_OK | X_OK) == 0 ? 0 : -errno)
				     : dir_writable_for(p);
		if (!rc && !paths[i].is_dir && access(p, F_OK) == 0)
			rc = -EEXIST;
		if (rc == -EEXIST) {
			snprintf(why, len, _("%s %s already exists; fdewiz never overwrites it. "
					     "Choose another name. Nothing was changed."),
				 paths[i].what, p);
			return rc;
		}
		if (rc) {
			snprintf(why, len, _("%s %s: its directory cannot be written (%s). "
					     "Choose a writable place. Nothing was changed."),
				 paths[i].what, p, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* The device a mountpoint of this namespace sits on ("/dev/loop3"), from mountinfo. */
static bool mount_source(const char *mountpoint, char *dev, size_t len)
{
	struct fdw_sysstate st;
	bool found = false;

	if (fdw_sysstate_load(&st) != 0)
		return false;
	for (size_t i = 0; i < st.n_mounts && !found; i++) {
		if (strcmp(st.mounts[i].mountpoint, mountpoint))
			continue;
		snprintf(dev, len, "%s", st.mounts[i].source);
		found = true;
	}
	fdw_sysstate_free(&st);
	return found;
}

/*
 * A baseline benchmark of an older fdewiz, killed mid-way, left its mount (in the caller's
 * namespace) and its loop device behind. Whoever made it held this partition's lock, which
 * is ours now, so it is dead: unmount it; its loop device, if it still maps exactly this
 * partition, is told to detach with its last user. Returns whether anything was unmounted
 * and names the first such mount in @cleared.
 */
static bool clear_stale_bench_mounts(const struct fdw_target *t, char *cleared, size_t len)
{
	static const char prefix[] = FDW_LOCK_DIR "/bench-";
	const struct fdw_partition *part = t->part;

	cleared[0] = '\0';
	for (size_t i = 0; i < part->n_mountpoints; i++) {
		const char *m = part->mountpoints[i];
		char dev[PATH_MAX];

		if (strncmp(m, prefix, sizeof(prefix) - 1) || strchr(m + sizeof(prefix) - 1, '/'))
			continue;
		bool ours = t->disk.kind == FDW_DISK_IMAGE && mount_source(m, dev, sizeof(dev)) &&
			    !strncmp(dev, "/dev/loop", 9) &&
			    fdw_loop_autoclear_if(dev, t->disk.path, part->start, part->size) == 0;

		if (ours)
			fdw_log(FDW_LOG_INFO, "%s goes with the stale benchmark mount", dev);
		if (umount2(m, 0) == 0) {
			rmdir(m);
			if (ours)
				fdw_loop_wait_detached(dev);
			fdw_log(FDW_LOG_INFO, "unmounted %s, left by an interrupted benchmark", m);
			if (!cleared[0])
				snprintf(cleared, len, "%s", m);
		}
	}
	return cleared[0] != '\0';
}

/* After a stale benchmark mount was cleared, "nothing was changed" is no longer true. */
static void tell_cleared(const char *cleared, char *why, size_t len)
{
	const char *nothing = _("Nothing was changed.");
	char *at = strstr(why, nothing), tail[1024];

	snprintf(tail, sizeof(tail), _("Only the benchmark mount %s, left by an interrupted "
				       "run, was unmounted; nothing else was changed."), cleared);
	if (at)
		*at = '\0';
	else if (strlen(why) + 1 < len)
		strcat(why, " ");
	if (strlen(why) + strlen(tail) < len)
		strcat(why, tail);
}

/* The plan for @rq; with no cipher asked for, the one the advisor recommends for this CPU. */
static int plan_make(struct fdw_encrypt *e, const struct fdw_plan_request *asked,
		     const char **why)
{
	struct fdw_plan_request rq = *asked;
	struct fdw_cipher_advice a;
	char spec[48];

	if (!rq.cipher_spec) {
		fdw_cipher_recommend(&a);
		snprintf(spec, sizeof(spec), "%s-%s", a.cipher, a.mode);
		rq.cipher_spec = spec;
		if (!rq.key_bits)
			rq.key_bits = a.key_bits;
		snprintf(e->cipher_why, sizeof(e->cipher_why), "%s", a.why);
		fdw_log(FDW_LOG_INFO, "cipher %s (%u-bit key), as advised for this CPU", spec,
			rq.key_bits);
	}
	return fdw_plan_make(e->target.part, &rq, &e->plan, why);
}

/* @e as @o asks, with nothing open yet. */
static void prepare_options(struct fdw_encrypt *e, const struct fdw_encrypt_options *o)
{
	memset(e, 0, sizeof(*e));
	e->lock_fd = -1;
	e->excl_fd = -1;
	e->offline = o->offline;
	e->fast_pbkdf = o->fast_pbkdf;
	e->allow_low_battery = o->allow_low_battery;
	e->bench_baseline = o->bench_baseline;
	if (o->prepared_header && o->prepared_uuid) {
		snprintf(e->prepared_header, sizeof(e->prepared_header), "%s", o->prepared_header);
		snprintf(e->prepared_uuid, sizeof(e->prepared_uuid), "%s", o->prepared_uuid);
	}
	if (o->active_name)
		snprintf(e->active_name, sizeof(e->active_name), "%s", o->active_name);
	if (o->tpm_pcrs)
		snprintf(e->tpm_pcrs, sizeof(e->tpm_pcrs), "%s", o->tpm_pcrs);
	e->pace = fdw_pace_name(o->pace) ? o->pace : FDW_PACE_AUTO;
	snprintf(e->bench_scale, sizeof(e->bench_scale), "quick");
	if (o->bench_scale && fdw_encrypt_set_bench(e, e->bench_baseline, o->bench_scale) != 0)
		fdw_log(FDW_LOG_WARN, "unknown benchmark scale '%s': quick instead", o->bench_scale);
}

/*
 * Open the partition at @address; unless @dry_run, under its lock, looked at again once
 * locked, and again after a stale benchmark mount was cleared (named in @cleared).
 */
static int prepare_open(struct fdw_encrypt *e, const char *address, bool dry_run,
			char *cleared, size_t cleared_len, char *why, size_t len)
{
	int rc = fdw_target_open_to_change(address, &e->target);

	if (!rc && !dry_run) {
		/* Lock, then look again: a run that held the lock may have just changed it. */
		e->lock_fd = fdw_target_lock(&e->target);
		fdw_target_close(&e->target);
		if (e->lock_fd < 0) {
			rc = e->lock_fd;
			if (rc == -EBUSY)
				snprintf(why, len, _("another fdewiz is converting %s right now. "
						     "Nothing was changed."), address);
			else
				snprintf(why, len, _("cannot lock %s (%s). Nothing was changed."),
					 address, strerror(-rc));
			return rc;
		}
		rc = fdw_target_open_to_change(address, &e->target);
		if (!rc && clear_stale_bench_mounts(&e->target, cleared, cleared_len)) {
			fdw_target_close(&e->target);
			rc = fdw_target_open_to_change(address, &e->target);
		}
	}
	if (rc) {
		snprintf(why, len, _("%s: %s. Nothing was changed."), address,
			 fdw_scan_error_text(rc));
		return rc;
	}
	e->target_open = true;
	return 0;
}

/* Only a name from the label: "luks-UUID" must wait for the volume's own UUID. */
static void prepare_boot_name(struct fdw_encrypt *e)
{
	fdw_crypttab_name_from_label(e->target.part->label, e->boot_name, sizeof(e->boot_name));
	if (!e->boot_name[0])
		fdw_crypttab_name_from_label(e->target.part->name, e->boot_name,
					     sizeof(e->boot_name));
	if (!fdw_crypttab_name_valid(e->boot_name))
		e->boot_name[0] = '\0';
}

/* The plan for @o->rq, or why there is none. */
static int prepare_plan(struct fdw_encrypt *e, const char *address,
			const struct fdw_encrypt_options *o, char *why, size_t len)
{
	const char *plan_why = "";
	int rc = plan_make(e, &o->rq, &plan_why);

	if (rc) {
		char detail[2048];

		/* The verdict's own sentence names the mountpoint or holder. */
		if (rc == -EPERM)
			fdw_verdict_explain(e->target.part, detail, sizeof(detail));
		snprintf(why, len, _("%s cannot be encrypted: %s Nothing was changed."), address,
			 rc == -EPERM ? detail : plan_why);
	}
	return rc;
}

/* The worker runs in "/": relative paths would later point somewhere else. */
static int prepare_paths(struct fdw_encrypt *e, const char *address,
			 const struct fdw_encrypt_options *o, char *why, size_t len)
{
	int rc = 0;

	if (o->header_backup)
		rc = absolute_path(o->header_backup, e->header_backup, sizeof(e->header_backup));
	else
		default_backup_path(address, e->header_backup, sizeof(e->header_backup));
	if (!rc && o->work_dir)
		rc = absolute_path(o->work_dir, e->work_dir, sizeof(e->work_dir));
	else if (!rc)
		snprintf(e->work_dir, sizeof(e->work_dir), "%s", fdw_state_dir());
	if (rc)
		snprintf(why, len, _("a path is too long or the current directory is gone (%s). "
				     "Nothing was changed."), strerror(-rc));
	return rc;
}

static int prepare_steps(struct fdw_encrypt *e, const char *address,
			 const struct fdw_encrypt_options *o, char *cleared, size_t cleared_len,
			 char *why, size_t len)
{
	int rc;

	prepare_options(e, o);
	if (!o->dry_run && geteuid() != 0) {
		snprintf(why, len, _("encrypting needs root; run it with sudo. Nothing was "
				     "changed."));
		return -EPERM;
	}
	rc = prepare_open(e, address, o->dry_run, cleared, cleared_len, why, len);
	if (rc)
		return rc;
	prepare_boot_name(e);
	rc = prepare_plan(e, address, o, why, len);
	if (rc || o->dry_run)
		return rc;
	rc = prepare_paths(e, address, o, why, len);
	if (rc)
		return rc;
	rc = fdw_state_dir_ensure();
	if (rc) {
		snprintf(why, len, _("cannot create %s: %s. Nothing was changed."),
			 fdw_state_dir(), strerror(-rc));
		return rc;
	}
	rc = check_paths(e, o, why, len);
	/* A system on btrfs or XFS is not one whose boot fdewiz sets up: looked for inside. */
	if (!rc && !e->target.part->os.found)
		rc = fdw_system_peek_refusal(&e->target, why, len);
	/* An installed system's root: its /boot and a persistent state folder, checked now. */
	if (!rc && e->target.part->os.found)
		rc = fdw_system_boot_prepare(&e->target, e->header_backup,
					     e->prepared_header[0] != '\0', why, len);
	if (!rc && e->tpm_pcrs[0])
		rc = fdw_encrypt_set_tpm(e, e->tpm_pcrs, why, len);
	/* Another system's /home: its tables are written after the conversion. */
	if (!rc && fdw_system_data_applies(e->target.part))
		rc = fdw_system_data_prepare(&e->target, e->plan.detached_header != NULL, why,
					     len);
	return rc;
}

int fdw_encrypt_prepare(struct fdw_encrypt *e, const char *address,
			const struct fdw_encrypt_options *o, char *why, size_t len)
{
	char cleared[PATH_MAX] = "";
	int rc = prepare_steps(e, address, o, cleared, sizeof(cleared), why, len);

	if (rc && cleared[0])
		tell_cleared(cleared, why, len);
	if (!rc)
		rc = fdw_encrypt_remember_identity(e, why, len);
	return rc;
}

/* Size of a block device as the kernel sees it, or 0. */
static uint64_t kernel_size(const char *node)
{
	uint64_t bytes = 0;
	int fd = open(node, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (ioctl(fd, BLKGETSIZE64, &bytes) != 0)
		bytes = 0;
	close(fd);
	return bytes;
}

static void announce(fdw_phase_fn phase, void *ctx, enum fdw_phase p)
{
	if (phase)
		phase(p, ctx);
}

/* Grow the partition into the free space after it, and make sure the kernel agrees. */
static int grow_partition(struct fdw_encrypt *e, char *why, size_t len)
{
	char address[PATH_MAX];
	int rc;

	snprintf(address, sizeof(address), "%s", e->target.part->address);
	rc = fdw_partition_grow(e->target.disk.path, e->target.part->number, e->plan.grow_bytes);
	if (rc) {
		snprintf(why, len, _("the partition could not grow (%s). Nothing was changed."),
			 strerror(-rc));
		return rc;
	}
	/* Sizes and offsets changed: look at the partition again. */
	fdw_target_close(&e->target);
	rc = fdw_target_open(address, &e->target);
	e->target_open = rc == 0;
	if (!rc && e->target.part->node &&
	    kernel_size(e->target.part->node) != e->plan.partition_size) {
		/* libparted may have failed to tell the kernel; the header would then land
		 * on the old, smaller partition's live data. */
		snprintf(why, len, _("the partition table now says %s is %llu bytes, but the "
				     "kernel still sees the old size. Nothing else was changed; run "
				     "partprobe (or reboot), then try again."),
			 e->target.part->node, (unsigned long long)e->plan.partition_size);
		return -EIO;
	}
	if (rc || e->target.part->size != e->plan.partition_size) {
		snprintf(why, len, _("the partition table was changed (partition grown by %llu "
				     "bytes) but the new size cannot be confirmed. The data is intact "
				     "and not encrypted."), (unsigned long long)e->plan.grow_bytes);
		return rc ? rc : -EIO;
	}
	return 0;
}

/*
 * Give the header its room (shrink the filesystem or grow the partition; nothing for a
 * detached header) and leave the target attached to a device covering the partition.
 */
static int make_room(struct fdw_encrypt *e, fdw_phase_fn phase, void *ctx, char *why,
		     size_t len)
{
	char a[32], b[32];
	uint64_t min = 0;
	int rc;

	if (e->plan.strategy == FDW_STRATEGY_GROW) {
		announce(phase, ctx, FDW_PHASE_GROWING_PARTITION);
		rc = grow_partition(e, why, len);
		if (rc)
			return rc;
	}
	rc = fdw_target_attach(&e->target);
	if (rc) {
		snprintf(why, len, _("cannot attach a loop device for %s: %s. %s"),
			 e->target.part->address, strerror(-rc), e->plan.grow_bytes ?
			 _("The partition was grown; its data is intact and not encrypted.") :
			 _("Nothing was changed."));
		return rc;
	}
	if (e->plan.strategy != FDW_STRATEGY_SHRINK)
		return 0;
	announce(phase, ctx, FDW_PHASE_SHRINKING);
	rc = fdw_fs_shrink(e->target.device, e->target.part->fstype, e->plan.fs_size_max, &min);
	if (rc == -ENOSPC && min > e->plan.fs_size_max)
		snprintf(why, len, _("the checked filesystem cannot shrink below %s, more than the "
				     "%s it may keep; it needs about %llu MiB freed. It was not "
				     "resized; the data is intact and not encrypted."),
			 fdw_format_size(min, a, sizeof(a)),
			 fdw_format_size(e->plan.fs_size_max, b, sizeof(b)),
			 (unsigned long long)((min - e->plan.fs_size_max + FDW_MIB - 1) / FDW_MIB));
	else if (rc && e->target.part->fstype && !strcmp(e->target.part->fstype, "btrfs"))
		snprintf(why, len, _("the btrfs filesystem could not be shrunk (%s): it may be too "
				     "full for btrfs to move its chunks, or damaged. The data is "
				     "intact and not encrypted; free some space, or check it with "
				     "btrfs check --readonly."), strerror(-rc));
	else if (rc)
		snprintf(why, len, _("the filesystem could not be shrunk (%s). The data is intact "
				     "and not encrypted; check it with e2fsck -f."), strerror(-rc));
	return rc;
}

/* What was changed before a failure of the header step, for its message. */
static const char *changed_so_far(const struct fdw_plan *plan)
{
	if (plan->strategy == FDW_STRATEGY_SHRINK)
		return _("The filesystem was shrunk; its data is intact and not encrypted.");
	if (plan->strategy == FDW_STRATEGY_GROW)
		return _("The partition was grown; its data is intact and not encrypted.");
	return _("The data is intact and not encrypted.");
}

/* The plain filesystem measured before anything changes; it keeps its contents. */
static int baseline(struct fdw_encrypt *e, fdw_phase_fn phase, void *ctx, char *why,
		    size_t len)
{
	char detail[512];
	int rc;

	announce(phase, ctx, FDW_PHASE_BENCHMARKING);
	rc = fdw_target_attach(&e->target);
	if (!rc)
		rc = fdw_bench_before(&e->job, e->target.device, e->target.part->fstype,
				      e->bench_status, e->bench_ctx, detail, sizeof(detail));
	else
		snprintf(detail, sizeof(detail), "%s.", strerror(-rc));
	if (rc)
		snprintf(why, len, _("the baseline benchmark could not run: %s The partition "
				     "was not changed; to encrypt without the benchmark, turn it "
				     "off (--no-bench)."), detail);
	return rc;
}

/*
 * The plan may be old (the wizard makes it before the passphrase and the typed YES).
 * Under the lock, look again: another disk under the same name, a partition changed,
 * a mount, loop device or table made meanwhile, and nothing is done.
 */
static int recheck(struct fdw_encrypt *e, char *why, size_t len)
{
	const char *address = e->target.part->address, *changed;
	struct fdw_target now;
	int rc;

	/* A PV's logical volumes are closed for the conversion: nothing may hold it. A hold
	 * that still fails is said below, with what holds it. */
	if (e->target.part->verdict.lvm_system) {
		rc = fdw_encrypt_hold_closed_pv(e, 3, true, why, len);
		if (rc && why[0])
			return rc;
	}
	rc = fdw_target_open(address, &now);

	if (rc) {
		snprintf(why, len, _("%s cannot be found again: %s. Nothing was changed."),
			 address, fdw_scan_error_text(rc));
		return rc;
	}
	changed = fdw_encrypt_what_changed(e, &now);
	if (changed) {
		snprintf(why, len, _("%s changed since the plan was made: %s. Nothing was "
				     "changed; look at it again and start over."), address, changed);
		rc = -ESTALE;
	} else {
		rc = fdw_holders_check(&now, NULL, why, len);
	}
	fdw_target_close(&now);
	if (!rc)
		rc = fdw_encrypt_excl_take(e);
	if (rc == -EBUSY && !why[0])
		snprintf(why, len, _("%s is held open exclusively by something this system does "
				     "not show here (a mount in another mount namespace, a "
				     "device-mapper table or a RAID). Nothing was changed."), address);
	else if (rc < 0 && !why[0])
		snprintf(why, len, _("cannot open %s: %s. Nothing was changed."), address,
			 strerror(-rc));
	return rc;
}

/* The LUKS2 header goes on, with the recovery key's keyslot and the header backup. */
static int write_header(struct fdw_encrypt *e, const struct fdw_secret *pass, char *why,
			size_t len)
{
	struct fdw_convert_params cp = { 0 };
	int rc;

	cp.device = e->target.device;
	cp.detached_header = e->plan.detached_header;
	cp.uuid = e->job.id;
	cp.cipher = e->plan.cipher;
	cp.cipher_mode = e->plan.cipher_mode;
	cp.key_bits = e->plan.key_bits;
	cp.sector_size = e->plan.sector_size;
	cp.work_dir = e->work_dir;
	cp.header_backup = e->header_backup;
	cp.fast_pbkdf = e->fast_pbkdf;
	cp.recovery_key = e->recovery_key;
	cp.prepared_header = e->prepared_header[0] ? e->prepared_header : NULL;
	rc = fdw_convert_init(&cp, pass);
	if (rc) {
		snprintf(why, len, _("the LUKS2 header could not be written: %s. The data was not "
				     "moved. %s"), strerror(-rc), changed_so_far(&e->plan));
		return rc;
	}
	return 0;
}

/*
 * The job's id, which its LUKS2 header takes as UUID (a prepared one's, or new), then the
 * recovery key handed over as asked, named by that UUID.
 */
static int name_and_escrow(struct fdw_encrypt *e, char *why, size_t len)
{
	struct fdw_job *job = &e->job;

	if (e->prepared_uuid[0])
		snprintf(job->id, sizeof(job->id), "%s", e->prepared_uuid);
	else if (fdw_new_uuid(job->id, sizeof(job->id)) != 0) {
		snprintf(why, len, _("cannot make a UUID. Nothing was changed."));
		return -EIO;
	}
	if (!e->recovery_key || !fdw_escrow_wanted(e->escrow))
		return 0;
	struct fdw_escrow_volume v = {
		.device = e->target.part->address,
		.filesystem_uuid = e->target.part->uuid ? e->target.part->uuid : "",
		.luks_uuid = job->id,
	};

	return fdw_escrow_key(e->escrow, &v, e->recovery_key, why, len);
}

static int begin_steps(struct fdw_encrypt *e, const struct fdw_secret *pass,
		       fdw_phase_fn phase, void *ctx, char *why, size_t len)
{
	struct fdw_job *job = &e->job;
	int rc;

	announce(phase, ctx, FDW_PHASE_CHECKING);
	/* Checked before anything changes: libcryptsetup refuses to overwrite a backup. */
	if (access(e->header_backup, F_OK) == 0) {
		snprintf(why, len, _("the header backup %s already exists; choose another "
				     "--header-backup. Nothing was changed."), e->header_backup);
		return -EEXIST;
	}
	why[0] = '\0';
	rc = recheck(e, why, len);
	if (rc)
		return rc;
	/* Named, and its recovery key escrowed, before the first change (a layout step may
	 * be one). */
	rc = name_and_escrow(e, why, len);
	if (!rc)
		rc = fdw_encrypt_layout_steps(e, phase, ctx, why, len);
	if (rc)
		return rc;
	snprintf(job->address, sizeof(job->address), "%s", e->target.part->address);
	/* Who the volume is, taken while its filesystem still says (label, UUID). */
	fdw_volume_id_of(&e->target.disk, e->target.part, &job->ident);
	snprintf(job->fstype, sizeof(job->fstype), "%s", e->target.part->fstype);
	if (e->target.part->os.found) {
		char name[64];

		/* Recorded before a byte changes: a power cut from here on leaves it to resume. */
		fdw_system_boot_name(&e->target, name, sizeof(name));
		rc = fdw_system_boot_record(&e->target, job, name,
					    e->tpm_pcrs[0] ? e->tpm_pcrs : NULL, why, len);
		if (rc)
			return rc;
	}
	if (fdw_system_data_applies(e->target.part)) {
		rc = fdw_system_data_record(&e->target, job, why, len);
		if (rc)
			return rc;
	}
	snprintf(job->cipher, sizeof(job->cipher), "%s-%s, %u-bit key", e->plan.cipher,
		 e->plan.cipher_mode, e->plan.key_bits);
	snprintf(job->pace, sizeof(job->pace), "%s", fdw_pace_name(e->pace));
	if (e->bench_baseline && fdw_encrypt_can_bench(e)) {
		snprintf(job->bench_scale, sizeof(job->bench_scale), "%s", e->bench_scale);
		fdw_encrypt_excl_drop(e);
		rc = baseline(e, phase, ctx, why, len);
		if (rc)
			return rc;
	}
	fdw_encrypt_excl_drop(e);
	rc = make_room(e, phase, ctx, why, len);
	if (rc)
		return rc;
	fdw_test_point("room-made");
	announce(phase, ctx, FDW_PHASE_INITIALISING);
	rc = write_header(e, pass, why, len);
	if (rc)
		return rc;
	snprintf(job->header_backup, sizeof(job->header_backup), "%s", e->header_backup);
	if (e->plan.detached_header &&
	    !realpath(e->plan.detached_header, job->detached_header))
		snprintf(job->detached_header, sizeof(job->detached_header), "%s",
			 e->plan.detached_header);
	if (e->plan.strategy == FDW_STRATEGY_SHRINK)
		snprintf(job->fs_to_grow, sizeof(job->fs_to_grow), "%s",
			 e->target.part->fstype);
	if (!fdw_encrypt_closed_why(e) && e->active_name[0])
		snprintf(job->active_name, sizeof(job->active_name), "%s", e->active_name);
	else if (!fdw_encrypt_closed_why(e))
		snprintf(job->active_name, sizeof(job->active_name), "fdewiz-%.8s", job->id);
	job->created = (int64_t)time(NULL);
	/* The prediction made on the plan goes with the job: the results set it beside. */
	if (fdw_predict_record(e->predicted, job) != 0)
		fdw_log(FDW_LOG_WARN, "%s: the prediction could not be saved", job->address);
	rc = fdw_job_save(job);
	if (rc) {
		/* The header says everything needed; status reads it without a record. */
		snprintf(why, len, _("the job record could not be saved (%s); 'status' will read "
				     "the header only."), strerror(-rc));
		return 1;
	}
	fdw_job_prune(FDW_JOB_KEEP_DAYS);
	return 0;
}

int fdw_encrypt_begin(struct fdw_encrypt *e, const struct fdw_secret *pass,
		      fdw_phase_fn phase, void *ctx, char *why, size_t len)
{
	sigset_t stop, old;
	int rc;

	rc = fdw_power_start_check(e->allow_low_battery, why, len);
	if (rc)
		return rc;
	/*
	 * From the first write on, Ctrl-C, Ctrl-\, Ctrl-Z, SIGTERM and a hang-up wait until
	 * the header steps are done; the helpers (resize2fs) run in a process group of their
	 * own and inherit the mask, so they are never cut or stopped in the middle.
	 */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGQUIT);
	sigaddset(&stop, SIGTSTP);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, &old);
	rc = begin_steps(e, pass, phase, ctx, why, len);
	fdw_encrypt_excl_drop(e);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

void fdw_encrypt_close(struct fdw_encrypt *e)
{
	if (e->target_open)
		fdw_target_close(&e->target);
	e->target_open = false;
	if (e->lock_fd >= 0)
		close(e->lock_fd);
	e->lock_fd = -1;
	fdw_encrypt_excl_drop(e);
	free(e->predicted);
	e->predicted = NULL;
}

struct fdw_encrypt *fdw_encrypt_new(void)
{
	struct fdw_encrypt *e = calloc(1, sizeof(*e));

	if (e) {
		e->lock_fd = -1;
		e->excl_fd = -1;
	}
	return e;
}

void fdw_encrypt_free(struct fdw_encrypt *e)
{
	if (!e)
		return;
	fdw_encrypt_close(e);
	free(e);
}
