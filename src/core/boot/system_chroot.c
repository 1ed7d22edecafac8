/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The boot step of an installed system's root: its crypttab and initramfs, in a chroot. */
#include "config.h"

#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/child.h"
#include "chroot_tree.h"
#include "restart_files.h"
#include "disk/lvm_room.h"
#include "base/fileio.h"
#include "luks2/convert.h"
#include "crypttab.h"
#include "base/i18n.h"
#include "disk/job_locate.h"
#include "base/log.h"
#include "base/spawn.h"
#include "initramfs_builders.h"
#include "system_boot.h"
#include "system_boot_internal.h"
#include "tpm.h"

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in, out, rc = 0;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0) {
		rc = -errno;
		close(in);
		return rc;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, (size_t)n) != n) {
			rc = -EIO;
			break;
		}
	}
	if (n < 0)
		rc = -errno;
	if (!rc && fsync(out) != 0)
		rc = -errno;
	close(out);
	close(in);
	if (rc)
		unlink(to);
	return rc;
}

/*
 * An initramfs of /boot (@dir) is one whose kernel is there too: initrd.img-VERSION
 * (initramfs-tools) or initramfs-VERSION.img (dracut) beside vmlinuz-VERSION. What a power
 * cut inside update-initramfs leaves (NAME.new, NAME.dpkg-bak) and fdewiz's own backups
 * are no system's initramfs: they are neither kept nor checked.
 */
static bool is_initramfs(const char *dir, const char *name)
{
	char version[256], kernel[PATH_MAX + 300];
	size_t n = strlen(name);

	if (!strncmp(name, "initrd.img-", 11) && n - 11 < sizeof(version))
		snprintf(version, sizeof(version), "%s", name + 11);
	else if (!strncmp(name, "initramfs-", 10) && n > 14 && !strcmp(name + n - 4, ".img") &&
		 n - 14 < sizeof(version))
		snprintf(version, sizeof(version), "%.*s", (int)(n - 14), name + 10);
	else
		return false;
	snprintf(kernel, sizeof(kernel), "%s/vmlinuz-%s", dir, version);
	return version[0] && access(kernel, F_OK) == 0;
}

/* Keep every initramfs as NAME.fdewiz-bak before it is rebuilt (once: a rerun keeps the
 * first, which is the one that booted the plain system). */
static int backup_initramfs(const struct fdw_tree *t, struct fdw_sysboot_record *r)
{
	char dir[PATH_MAX], from[PATH_MAX + 256], to[PATH_MAX + 300];
	struct dirent *de;
	DIR *d;
	int rc = 0, n = 0;

	if (snprintf(dir, sizeof(dir), "%s/boot", t->root) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (!d)
		return -errno;
	while (!rc && (de = readdir(d))) {
		if (!is_initramfs(dir, de->d_name))
			continue;
		snprintf(from, sizeof(from), "%s/%s", dir, de->d_name);
		snprintf(to, sizeof(to), "%s.fdewiz-bak", from);
		if (access(to, F_OK) != 0)
			rc = copy_file(from, to);
		if (!rc) {
			fdw_system_boot_note_changed(r, from + strlen(t->root),
						     to + strlen(t->root));
			n++;
		}
	}
	closedir(d);
	return rc ? rc : n ? 0 : -ENOENT;
}

/* Does every initramfs now carry the crypttab entry of the root, and no restart's step?
 * (And clevis, when the TPM is to unlock it: else @r is marked so, and only the
 * passphrase will.) */
static int initramfs_unlocks(const struct fdw_tree *t, struct fdw_sysboot_record *r)
{
	char dir[PATH_MAX], inside[PATH_MAX + 8];
	size_t cap = 4u << 20;
	char *buf = malloc(cap);
	struct dirent *de;
	int rc = 0, n = 0;
	DIR *d;

	if (!buf)
		return -ENOMEM;
	snprintf(dir, sizeof(dir), "%s/boot", t->root);
	d = opendir(dir);
	if (!d) {
		free(buf);
		return -errno;
	}
	while (!rc && (de = readdir(d))) {
		if (!is_initramfs(dir, de->d_name))
			continue;
		snprintf(inside, sizeof(inside), "/boot/%s", de->d_name);
		char *argv[] = { "chroot", (char *)t->root,
				 r->initramfs == FDW_INITRAMFS_DRACUT ? "lsinitrd" : "lsinitramfs",
				 inside, NULL };
		if (fdw_spawn_output(argv, buf, cap) != 0 || !strstr(buf, "crypttab")) {
			fdw_log(FDW_LOG_ERROR, "system boot: %s has no crypttab inside", inside);
			rc = -ENOEXEC;
		} else if (strstr(buf, FDW_RESTART_NAME "/stage\n")) {
			/* A build begun before the restart's hook was removed, ended after. */
			fdw_log(FDW_LOG_ERROR, "system boot: %s still carries fdewiz's step", inside);
			rc = -ENOEXEC;
		} else if (r->vg[0] && !strstr(buf, "sbin/lvm")) {
			/* The root's volume group is opened after the LUKS volume: by lvm. */
			fdw_log(FDW_LOG_ERROR, "system boot: %s has no lvm inside", inside);
			rc = -ENOEXEC;
		} else if (!strcmp(r->root_fstype, "btrfs") && !strstr(buf, "btrfs")) {
			/* Its root is mounted from the initramfs: btrfs must be there. */
			fdw_log(FDW_LOG_ERROR, "system boot: %s has no btrfs inside", inside);
			rc = -ENOEXEC;
		} else if (r->tpm_pcrs[0] && (!strstr(buf, "clevis-decrypt-tpm2") ||
					      !strstr(buf, "tpm2_unseal"))) {
			/* Asked to unlock with the TPM: clevis unseals from the initramfs. Without
			 * it the passphrase still starts the system: no key is sealed then. */
			fdw_log(FDW_LOG_WARN, "system boot: %s has no clevis for the TPM inside; "
				"no key is sealed", inside);
			r->tpm_unready = true;
		}
		n++;
	}
	closedir(d);
	free(buf);
	return rc ? rc : n ? 0 : -ENOENT;
}

static void loader_check(const struct fdw_tree *t, const struct fdw_sysboot_record *r, char *note,
			 size_t len)
{
	char path[PATH_MAX + 32], want[224];
	char *text = NULL;

	snprintf(path, sizeof(path), "%s/boot/grub/grub.cfg", t->root);
	if (r->vg[0])
		snprintf(want, sizeof(want), "root=%s", r->root_dev);
	else
		snprintf(want, sizeof(want), "root=UUID=%s", r->fs_uuid);
	/* Its first MiB: far more than GRUB's scripts write. */
	fdw_read_file(path, 1u << 20, FDW_READ_PREFIX, &text, NULL, NULL);
	if (text && strstr(text, want) && r->vg[0])
		snprintf(note, len, _("GRUB configuration unchanged: it names the root by its "
				      "logical volume (%s), which the volume group keeps inside "
				      "the encrypted volume."), r->root_dev);
	else if (text && strstr(text, want))
		snprintf(note, len, _("GRUB configuration unchanged: it finds the root by the "
				      "filesystem's UUID, which the volume keeps."));
	else
		snprintf(note, len, _("GRUB configuration (/boot/grub/grub.cfg) does not name "
				      "the root by its UUID: check its kernel line before "
				      "rebooting."));
	free(text);
}

/* The system's crypttab and fstab for its root, then key files for its other volumes. */
static int write_tables(const struct fdw_job *job, const char *root,
			struct fdw_sysboot_record *r, const struct fdw_secret *pass)
{
	struct fdw_part_ids ids = { .node = !strncmp(job->address, "/dev/", 5) ? job->address
										 : NULL,
				    .partuuid = job->ident.partuuid[0] ? job->ident.partuuid
								       : NULL };
	struct fdw_tab_result tab;
	char why[512];
	int rc;

	r->changed[0] = '\0';
	rc = fdw_crypttab_add(root, r->name, job->id, false, &tab, why, sizeof(why));
	if (rc < 0) {
		fdw_log(FDW_LOG_ERROR, "system boot: crypttab: %s", why);
		return rc;
	}
	fdw_system_boot_note_tab(r, root, "/etc/crypttab", &tab);
	rc = fdw_fstab_update(root, r->name, &ids, &tab, why, sizeof(why));
	if (rc < 0) {
		fdw_log(FDW_LOG_ERROR, "system boot: fstab: %s", why);
		return rc;
	}
	fdw_system_boot_note_tab(r, root, "/etc/fstab", &tab);
	return fdw_system_keyfile_step(root, r->name, pass, r);
}

/* In a mount namespace of its own, so no mount outlives it or shows elsewhere. */
static int steps_in_chroot(const struct fdw_job *job, struct fdw_sysboot_record *r,
			   const char *mapper, const struct fdw_secret *pass, char *note,
			   size_t note_len)
{
	struct fdw_tree t = { .n = 0 };
	char bootdev[PATH_MAX], *type;
	int rc;

	rc = fdw_child_private_mounts();
	if (rc)
		return rc;
	fdw_job_file_path(job, FDW_JOB_ROOT, t.root, sizeof(t.root));
	if (mkdir(t.root, 0700) != 0 && errno != EEXIST)
		return -errno;
	if (r->vg[0]) {
		rc = fdw_tree_mount(&t, r->root_dev, "", r->root_fstype, MS_NOATIME);
	} else {
		char subvol[96];

		/* A root in a btrfs subvolume: the tree is that subvolume, as at its boot. */
		snprintf(subvol, sizeof(subvol), "subvol=%s", r->root_subvol);
		rc = fdw_tree_mount_data(&t, mapper, "", job->fstype[0] ? job->fstype : "ext4",
					 MS_NOATIME, r->root_subvol[0] ? subvol : NULL);
	}
	if (rc)
		return rc;
	rc = fdw_system_boot_find_boot(r->boot_spec, bootdev, sizeof(bootdev));
	type = rc ? NULL : blkid_get_tag_value(NULL, "TYPE", bootdev);
	if (!type) {
		fdw_log(FDW_LOG_ERROR, "system boot: /boot (%s) not found", r->boot_spec);
		rc = -ENODEV;
		goto out;
	}
	rc = fdw_tree_mount(&t, bootdev, "/boot", type, MS_NOATIME);
	free(type);
	if (!rc)
		rc = fdw_tree_bind_system(&t);
	if (rc)
		goto out;
	rc = write_tables(job, t.root, r, pass);
	if (rc)
		goto out;
	if (r->swap) {
		rc = fdw_system_swap_step(t.root, r);
		if (rc) {
			fdw_log(FDW_LOG_ERROR, "system boot: swap: %s", strerror(-rc));
			goto out;
		}
	}
	/* A conversion begun at a restart: its step leaves the initramfs made now. */
	if (fdw_restart_files_present(t.root)) {
		rc = fdw_restart_files_remove_initramfs(t.root);
		if (rc) {
			fdw_log(FDW_LOG_ERROR, "system boot: the restart step's files stay: %s",
				strerror(-rc));
			goto out;
		}
	}
	/* What this step changed (crypttab, the step's hook gone) is read by a build begun
	 * from now on; one begun before must not end after fdewiz's own. */
	fdw_initramfs_builders_settle();
	rc = backup_initramfs(&t, r);
	if (rc) {
		fdw_log(FDW_LOG_ERROR, "system boot: no initramfs backed up in /boot: %s",
			strerror(-rc));
		goto out;
	}
	if (r->initramfs == FDW_INITRAMFS_DRACUT) {
		char *argv[] = { "chroot", t.root, "dracut", "--regenerate-all", "--force", NULL };

		rc = fdw_spawn(argv);
	} else {
		char *argv[] = { "chroot", t.root, "update-initramfs", "-u", "-k", "all", NULL };

		rc = fdw_spawn(argv);
	}
	if (rc) {
		fdw_log(FDW_LOG_ERROR, "system boot: rebuilding the initramfs failed (%d)", rc);
		rc = -ENOEXEC;
		goto out;
	}
	rc = initramfs_unlocks(&t, r);
	if (!rc)
		loader_check(&t, r, note, note_len);
	sync();
out:
	fdw_tree_unmount_all(&t);
	rmdir(t.root);
	return rc;
}

/* The chroot steps run in a child (its own mount namespace); the record comes back on disk. */
struct steps_child {
	const struct fdw_job *job;
	struct fdw_sysboot_record *r;
	const char *mapper;
	const struct fdw_secret *pass;
};

static int steps_child_main(void *ctx, char *note, size_t note_len)
{
	struct steps_child *c = ctx;
	int rc;

	rc = steps_in_chroot(c->job, c->r, c->mapper, c->pass, note, note_len);
	if (!rc) {
		c->r->done = true;
		rc = fdw_system_boot_save(c->job, c->r);
	}
	return rc;
}

static int steps_in_child(const struct fdw_job *job, struct fdw_sysboot_record *r,
			  const char *mapper, const struct fdw_secret *pass, char *note,
			  size_t note_len)
{
	struct steps_child c = { job, r, mapper, pass };

	return fdw_child_run(steps_child_main, &c, note, note_len);
}

static int rename_dm(const char *from, const char *to)
{
	char *argv[] = { "dmsetup", "rename", (char *)from, (char *)to, NULL };
	char path[PATH_MAX];
	int rc = fdw_spawn(argv);

	snprintf(path, sizeof(path), "/dev/mapper/%s", to);
	return rc == 0 && access(path, F_OK) == 0 ? 0 : -EIO;
}

/* Open @job's volume as @name with @pass. */
static int activate(const struct fdw_job *job, const char *name, const struct fdw_secret *pass)
{
	struct fdw_volume v = { .header = job->detached_header[0] ? job->detached_header : NULL,
				.active_name = name };
	struct fdw_target t;
	int rc = fdw_job_locate(job, &t);

	if (rc)
		return rc;
	rc = fdw_target_attach(&t);
	v.device = t.device;
	if (!rc)
		rc = fdw_convert_activate(&v, pass);
	fdw_target_close(&t);
	return rc;
}

/*
 * The volume as /dev/mapper/NAME: already so, or the online conversion's mapping closed
 * and the volume opened again under NAME (*@reopen: give @open_name back afterwards), or,
 * when that mapping is busy (mounted), renamed (*@renamed), or opened with @pass (*@opened).
 */
static int open_volume(const struct fdw_job *job, const struct fdw_sysboot_record *r,
		       const char *open_name, const struct fdw_secret *pass, bool *renamed,
		       bool *opened, bool *reopen)
{
	char path[PATH_MAX];
	int rc;

	snprintf(path, sizeof(path), "/dev/mapper/%s", r->name);
	if (access(path, F_OK) == 0)
		return 0;
	if (open_name) {
		snprintf(path, sizeof(path), "/dev/mapper/%s", open_name);
		if (access(path, F_OK) == 0) {
			if (pass && fdw_convert_deactivate(open_name) == 0) {
				*reopen = true;
			} else {
				rc = rename_dm(open_name, r->name);
				*renamed = rc == 0;
				return rc;
			}
		}
	}
	if (!pass || !pass->len)
		return -ENOKEY;
	rc = activate(job, r->name, pass);
	*opened = rc == 0;
	return rc;
}

/*
 * Sealed to this computer's TPM after every other step, when asked: a failure here leaves
 * a system that asks for its passphrase at each start, as it would without it.
 */
static void tpm_step(const struct fdw_job *job, struct fdw_sysboot_record *r,
		     const struct fdw_secret *pass, struct fdw_system_boot_result *res)
{
	struct fdw_target t;
	char why[512];
	int rc, slot = -1;

	snprintf(res->tpm_pcrs, sizeof(res->tpm_pcrs), "%s", r->tpm_pcrs);
	res->tpm_slot = r->tpm_slot;
	if (!r->tpm_pcrs[0] || r->tpm_slot >= 0)
		return;
	if (r->tpm_unready) {
		fdw_system_boot_tpm_unset_why(r, job->address, res->tpm_why, sizeof(res->tpm_why));
		return;
	}
	if (!pass || !pass->len) {
		snprintf(res->tpm_why, sizeof(res->tpm_why),
			 _("unlocking with the TPM is not set up yet: no passphrase was at hand to "
			   "seal with. 'fdewiz tpm enrol %s' does it."), job->address);
		return;
	}
	rc = fdw_job_locate(job, &t);
	if (!rc) {
		rc = fdw_target_attach(&t);
		if (!rc)
			rc = fdw_tpm_enrol(t.device, pass, r->tpm_pcrs, &slot, why, sizeof(why));
		else
			snprintf(why, sizeof(why), "%s", strerror(-rc));
		fdw_target_close(&t);
	} else {
		snprintf(why, sizeof(why), "%s", strerror(-rc));
	}
	if (rc) {
		fdw_log(FDW_LOG_ERROR, "system boot: TPM: %s", why);
		snprintf(res->tpm_why, sizeof(res->tpm_why),
			 _("unlocking with the TPM was not set up: %s The system asks for its "
			   "passphrase at each start; 'fdewiz tpm enrol %s' tries again."), why,
			 job->address);
		return;
	}
	r->tpm_slot = slot;
	res->tpm_slot = slot;
	if (fdw_system_boot_save(job, r) != 0)
		fdw_log(FDW_LOG_WARN, "system boot: the TPM binding (keyslot %d) is not recorded",
			slot);
}

int fdw_system_boot_finish(const struct fdw_job *job, const char *open_name,
			   const struct fdw_secret *pass, struct fdw_system_boot_result *res,
			   char *why, size_t len)
{
	struct fdw_sysboot_record r;
	bool renamed = false, opened = false, reopen = false, group_was_open;
	char mapper[PATH_MAX];
	int rc;

	memset(res, 0, sizeof(*res));
	rc = fdw_system_boot_load(job, &r);
	if (rc) {
		snprintf(why, len, _("no boot step is recorded for %s (%s)."), job->address,
			 strerror(-rc));
		return rc;
	}
	if (r.done) {
		snprintf(res->changed, sizeof(res->changed), "%s", r.changed);
		tpm_step(job, &r, pass, res);
		return 0;
	}
	fdw_log(FDW_LOG_INFO, "%s: setting up the installed system's boot", job->address);
	rc = open_volume(job, &r, open_name, pass, &renamed, &opened, &reopen);
	if (rc && reopen && activate(job, open_name, pass) != 0)
		fdw_log(FDW_LOG_WARN, "system boot: /dev/mapper/%s could not be opened again",
			open_name);
	if (rc) {
		snprintf(why, len, _("the volume could not be opened as /dev/mapper/%s (%s). The "
				     "data is intact; 'fdewiz resume %s' sets up the boot."),
			 r.name, strerror(-rc), job->address);
		return rc;
	}
	snprintf(mapper, sizeof(mapper), "/dev/mapper/%s", r.name);
	/* A root on a logical volume: its volume group, found on the open volume, opened for
	 * the step and closed after it, unless it was open already (the running system's,
	 * after a restart). */
	group_was_open = r.vg[0] && access(r.root_dev, F_OK) == 0;
	if (r.vg[0] && fdw_lvm_activate(r.vg) != 0) {
		fdw_log(FDW_LOG_ERROR, "system boot: volume group %s not found on %s", r.vg,
			mapper);
		rc = -ENODEV;
	} else {
		rc = steps_in_child(job, &r, mapper, pass, res->loader_note,
				    sizeof(res->loader_note));
	}
	if (r.vg[0] && !group_was_open && fdw_lvm_deactivate(r.vg, false, NULL, 0) != 0)
		fdw_log(FDW_LOG_WARN, "system boot: volume group %s stays active", r.vg);
	if (renamed && rename_dm(r.name, open_name) != 0)
		fdw_log(FDW_LOG_WARN, "system boot: /dev/mapper/%s keeps its name %s", open_name,
			r.name);
	if (opened)
		fdw_convert_deactivate(r.name);
	/* The online conversion's own mapping, as it was: the caller may still use it. */
	if (reopen && activate(job, open_name, pass) != 0)
		fdw_log(FDW_LOG_WARN, "system boot: /dev/mapper/%s could not be opened again",
			open_name);
	if (rc) {
		snprintf(why, len, _("the installed system's boot could not be set up (%s; the "
				     "log says which step). The data is intact and encrypted; "
				     "'fdewiz resume %s' does this step again."),
			 strerror(-rc), job->address);
		return rc;
	}
	if (fdw_system_boot_load(job, &r) == 0)
		snprintf(res->changed, sizeof(res->changed), "%s", r.changed);
	fdw_log(FDW_LOG_INFO, "%s: the installed system's boot is set up", job->address);
	tpm_step(job, &r, pass, res);
	return 0;
}
