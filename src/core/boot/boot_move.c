/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Moving an installed system's /boot out of its root: the steps and their record. */
#include "config.h"

#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/child.h"
#include "base/fileio.h"
#include "base/i18n.h"
#include "base/log.h"
#include "base/spawn.h"
#include "base/statedir.h"
#include "base/testhook.h"
#include "base/units.h"
#include "base/uuid.h"
#include "boot_move.h"
#include "chroot_tree.h"
#include "crypttab.h"
#include "disk/boot_carve.h"
#include "disk/fsresize.h"
#include "disk/partsplit.h"
#include "disk/private_mount.h"
#include "disk/target.h"
#include "fstab_mount.h"
#include "state/step_record.h"
#include "system_boot_internal.h"

/* Each step is recorded once done; a crash repeats at most the one it was in. */
enum move_step { STEP_PLANNED, STEP_SHRUNK, STEP_SPLIT, STEP_FILLED, STEP_FSTAB, STEP_DONE };

static const char *const step_keys[] = { "planned", "shrunk", "split", "filled", "fstab",
					  "done" };

struct move_record {
	char fs_uuid[40];		/* the root filesystem's: what the record belongs to */
	char disk[PATH_MAX];		/* the disk that holds the root (and gets GRUB) */
	int number;			/* the root's partition number */
	bool logical;
	uint64_t boot_start, boot_size, root_size, root_fs_max;
	char boot_uuid[40];		/* chosen before the new filesystem is made */
	int boot_number;		/* the new partition's number, once split */
	char esp_spec[128];		/* GRUB for EFI: its ESP as fstab names it; "" for BIOS */
	enum move_step step;
};

_Static_assert(sizeof(enum move_step) == sizeof(int), "a step record's step is an int");

static const struct fdw_record_field move_fields[] = {
	FDW_REC_FIELD(struct move_record, fs_uuid, FDW_REC_STR),
	FDW_REC_FIELD(struct move_record, disk, FDW_REC_STR),
	FDW_REC_FIELD(struct move_record, number, FDW_REC_INT),
	FDW_REC_FIELD(struct move_record, logical, FDW_REC_BOOL),
	FDW_REC_FIELD(struct move_record, boot_start, FDW_REC_U64),
	FDW_REC_FIELD(struct move_record, boot_size, FDW_REC_U64),
	FDW_REC_FIELD(struct move_record, root_size, FDW_REC_U64),
	FDW_REC_FIELD(struct move_record, root_fs_max, FDW_REC_U64),
	FDW_REC_FIELD(struct move_record, boot_uuid, FDW_REC_STR),
	FDW_REC_FIELD(struct move_record, boot_number, FDW_REC_INT),
	FDW_REC_FIELD(struct move_record, esp_spec, FDW_REC_STR),
};

/* What the steps need of a record, beyond its fields' types. */
static bool move_fits(const void *rec)
{
	const struct move_record *r = rec;

	return fdw_uuid_valid(r->boot_uuid) && r->number >= 1 && r->root_size && r->boot_size &&
	       r->root_fs_max <= r->root_size;
}

static const struct fdw_step_record move_kind = {
	.kind = "boot-move", .id_key = "fs_uuid", .steps = step_keys, .n_steps = STEP_DONE + 1,
	.size = sizeof(struct move_record), .step_offset = offsetof(struct move_record, step),
	.fields = move_fields, .n_fields = sizeof(move_fields) / sizeof(move_fields[0]),
	.fits = move_fits, .misfit = "its sizes and numbers do not fit together",
};

int fdw_boot_move_record_path(const char *dir, const char *fs_uuid, char *buf, size_t len)
{
	return fdw_step_record_path(&move_kind, dir, fs_uuid, buf, len);
}

static int record_save(const struct move_record *r)
{
	return fdw_step_record_save(&move_kind, r->fs_uuid, r);
}

/* 0, -ENOENT when there is none, -EBADMSG when it cannot be trusted (the log says why). */
static int record_load(const char *fs_uuid, struct move_record *r)
{
	char why[PATH_MAX + 256];

	return fdw_step_record_load(&move_kind, fs_uuid, r, why, sizeof(why));
}

bool fdw_boot_move_unfinished(const struct fdw_target *t)
{
	struct move_record r;

	return t->part->uuid && record_load(t->part->uuid, &r) == 0 && r.step != STEP_DONE;
}

/* ---- in children, each in a mount namespace of its own ---- */

struct move_child {
	const struct move_record *r;
	const char *root_dev;		/* the root partition's block device */
	const char *boot_dev;		/* the new /boot's */
};

static uint64_t used_bytes;

static int add_used(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)path;
	(void)flag;
	(void)f;
	used_bytes += (uint64_t)st->st_blocks * 512;
	return 0;
}

/* Mount the root read-only (no journal replay: nothing written) at @top/root. */
static int mount_root_ro(const char *dev, char *top, char *dir, size_t len)
{
	int rc = fdw_private_mount_dir("boot-move", top, len);

	if (rc)
		return rc;
	if (snprintf(dir, len, "%s/root", top) >= (int)len)
		return -ENAMETOOLONG;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -errno;
	if (mount(dev, dir, "ext4", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "noload") != 0)
		return -errno;
	return 0;
}

/* The bytes its /boot folder takes now, in the note (a number). */
static int measure_main(void *ctx, char *note, size_t len)
{
	struct move_child *c = ctx;
	char top[PATH_MAX], dir[PATH_MAX], boot[PATH_MAX + 8];
	int rc = mount_root_ro(c->root_dev, top, dir, sizeof(dir));

	if (rc)
		return rc;
	snprintf(boot, sizeof(boot), "%s/boot", dir);
	used_bytes = 0;
	if (nftw(boot, add_used, 16, FTW_PHYS | FTW_MOUNT) != 0)
		return -EIO;
	snprintf(note, len, "%" PRIu64, used_bytes);
	return 0;
}

/* /boot's files, owners, modes, links and times into the new filesystem, synced. */
static int fill_main(void *ctx, char *note, size_t len)
{
	struct move_child *c = ctx;
	char top[PATH_MAX], dir[PATH_MAX], from[PATH_MAX + 8], to[PATH_MAX + 8];
	int rc = mount_root_ro(c->root_dev, top, dir, sizeof(dir));

	(void)note;
	(void)len;
	if (rc)
		return rc;
	snprintf(from, sizeof(from), "%s/boot/.", dir);
	snprintf(to, sizeof(to), "%s/boot", top);
	if (mkdir(to, 0700) != 0 && errno != EEXIST)
		return -errno;
	if (mount(c->boot_dev, to, "ext4", MS_NOSUID | MS_NODEV, NULL) != 0)
		return -errno;
	char *argv[] = { "cp", "-a", "--one-file-system", from, to, NULL };

	rc = fdw_spawn(argv);
	sync();
	if (umount(to) != 0 && !rc)
		rc = -errno;
	return rc > 0 ? -EIO : rc;
}

/* The system's fstab gains its /boot line (the old fstab kept as a backup). */
static int fstab_main(void *ctx, char *note, size_t len)
{
	struct move_child *c = ctx;
	char top[PATH_MAX], dir[PATH_MAX + 8], path[PATH_MAX + 32], spec[64];
	struct fdw_tab_result res = { 0 };
	char *old = NULL, *text = NULL;
	int rc = fdw_private_mount_dir("boot-move", top, sizeof(top));

	if (rc)
		return rc;
	if (snprintf(dir, sizeof(dir), "%s/root", top) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -errno;
	if (mount(c->root_dev, dir, "ext4", MS_NOSUID | MS_NODEV, NULL) != 0)
		return -errno;
	snprintf(path, sizeof(path), "%s/etc/fstab", dir);
	snprintf(spec, sizeof(spec), "UUID=%s", c->r->boot_uuid);
	rc = fdw_read_file(path, 1u << 20, 0, &old, NULL, NULL);
	if (!rc)
		rc = fdw_fstab_add_mount(old, spec, "/boot", "ext4", "defaults", 2, &text, note,
					 len);
	if (rc == 0)
		rc = fdw_tab_file_replace(path, old, 0644, text, &res, note, len);
	else if (rc == 1)
		rc = 0;
	free(old);
	free(text);
	sync();
	if (umount(dir) != 0 && !rc)
		rc = -errno;
	return rc;
}

/*
 * grub-mkconfig names the root by UUID (root=UUID=...) only when /dev/disk/by-uuid has it,
 * and by its node otherwise, which is wrong once the root is encrypted. A live system
 * without udev has no such links: the chroot then gets a /dev of its own, a copy of the
 * live one, with the links of the root and the new /boot.
 */
static int dev_with_uuid_links(struct fdw_tree *t, const struct move_child *c)
{
	char dir[PATH_MAX + 32], link[PATH_MAX + 96], to[PATH_MAX + 8];
	int rc;

	snprintf(link, sizeof(link), "%s/dev/disk/by-uuid/%s", t->root, c->r->fs_uuid);
	if (access(link, F_OK) == 0)
		return 0;
	rc = fdw_tree_mount(t, "tmpfs", "/dev", "tmpfs", MS_NOSUID);
	if (rc)
		return rc;
	snprintf(to, sizeof(to), "%s/dev/", t->root);
	char *argv[] = { "cp", "-a", "--one-file-system", "/dev/.", to, NULL };

	rc = fdw_spawn(argv);
	if (rc)
		return rc > 0 ? -EIO : rc;
	snprintf(dir, sizeof(dir), "%s/dev/disk", t->root);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return -errno;
	snprintf(dir, sizeof(dir), "%s/dev/disk/by-uuid", t->root);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return -errno;
	if (symlink(c->root_dev, link) != 0 && errno != EEXIST)
		return -errno;
	snprintf(link, sizeof(link), "%s/dev/disk/by-uuid/%s", t->root, c->r->boot_uuid);
	if (symlink(c->boot_dev, link) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* The folder under EFI/ that holds the system's GRUB ("debian"), as its installer named it. */
static void efi_bootloader_id(const char *esp, char *id, size_t len)
{
	char dir[PATH_MAX + 32], file[PATH_MAX + 300];
	struct dirent *de;
	DIR *d;

	snprintf(id, len, "debian");
	snprintf(dir, sizeof(dir), "%s/EFI", esp);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcasecmp(de->d_name, "BOOT") ||
		    strlen(de->d_name) >= len)
			continue;
		snprintf(file, sizeof(file), "%s/%s/grubx64.efi", dir, de->d_name);
		if (access(file, F_OK) == 0) {
			snprintf(id, len, "%s", de->d_name);
			break;
		}
	}
	closedir(d);
}

/* GRUB for EFI into the ESP (mounted at /boot/efi), under its own name and, where the
 * firmware's fallback copy EFI/BOOT/BOOTX64.EFI was GRUB's, there too; no NVRAM change. */
static int grub_install_efi(struct fdw_tree *t, const struct move_child *c, char *note,
			    size_t len)
{
	char esp_dev[PATH_MAX], esp[PATH_MAX + 16], fallback[PATH_MAX + 48], id[64], opt[96];
	char *type = NULL;
	int rc = fdw_system_boot_find_boot(c->r->esp_spec, esp_dev, sizeof(esp_dev));

	if (!rc)
		type = blkid_get_tag_value(NULL, "TYPE", esp_dev);
	if (!type) {
		snprintf(note, len, _("its EFI system partition (%s) was not found"),
			 c->r->esp_spec);
		return -ENODEV;
	}
	rc = fdw_tree_mount(t, esp_dev, "/boot/efi", type, MS_NOSUID | MS_NODEV);
	free(type);
	if (rc)
		return rc;
	snprintf(esp, sizeof(esp), "%s/boot/efi", t->root);
	efi_bootloader_id(esp, id, sizeof(id));
	snprintf(opt, sizeof(opt), "--bootloader-id=%s", id);
	char *install[] = { "chroot", t->root, "grub-install", "--target=x86_64-efi",
			    "--efi-directory=/boot/efi", opt, "--no-nvram", NULL };
	char *removable[] = { "chroot", t->root, "grub-install", "--target=x86_64-efi",
			      "--efi-directory=/boot/efi", "--removable", "--no-nvram", NULL };

	rc = fdw_spawn(install);
	snprintf(fallback, sizeof(fallback), "%s/EFI/BOOT/BOOTX64.EFI", esp);
	if (!rc && access(fallback, F_OK) == 0)
		rc = fdw_spawn(removable);
	if (rc)
		snprintf(note, len, _("grub-install failed in that system (exit %d)"), rc);
	return rc > 0 ? -EIO : rc;
}

/* GRUB reinstalled to read the new /boot (BIOS: on the disk; EFI: in the ESP); its menu
 * made again by update-grub. */
static int grub_main(void *ctx, char *note, size_t len)
{
	struct move_child *c = ctx;
	struct fdw_tree t = { .n = 0 };
	char top[PATH_MAX], cfg[PATH_MAX + 32], want[64];
	char *text = NULL;
	int rc = fdw_private_mount_dir("boot-move", top, sizeof(top));

	if (rc)
		return rc;
	if (snprintf(t.root, sizeof(t.root), "%s/root", top) >= (int)sizeof(t.root))
		return -ENAMETOOLONG;
	if (mkdir(t.root, 0700) != 0 && errno != EEXIST)
		return -errno;
	rc = fdw_tree_mount(&t, c->root_dev, "", "ext4", MS_NOATIME);
	if (!rc)
		rc = fdw_tree_mount(&t, c->boot_dev, "/boot", "ext4", MS_NOATIME);
	if (!rc)
		rc = fdw_tree_bind_system(&t);
	if (!rc)
		rc = dev_with_uuid_links(&t, c);
	if (!rc && c->r->esp_spec[0]) {
		rc = grub_install_efi(&t, c, note, len);
	} else if (!rc) {
		char *install[] = { "chroot", t.root, "grub-install", "--target=i386-pc",
				    (char *)c->r->disk, NULL };

		rc = fdw_spawn(install);
		if (rc)
			snprintf(note, len, _("grub-install failed in that system (exit %d)"), rc);
		rc = rc > 0 ? -EIO : rc;
	}
	if (!rc) {
		char *mkconfig[] = { "chroot", t.root, "update-grub", NULL };

		rc = fdw_spawn(mkconfig);
		if (rc)
			snprintf(note, len, _("update-grub failed in that system (exit %d)"), rc);
		rc = rc > 0 ? -EIO : rc;
	}
	/* The menu GRUB now reads must start a kernel from the new /boot, naming the root
	 * by its filesystem's UUID (which the encrypted volume keeps inside). */
	snprintf(cfg, sizeof(cfg), "%s/boot/grub/grub.cfg", t.root);
	snprintf(want, sizeof(want), "root=UUID=%s", c->r->fs_uuid);
	if (!rc && (fdw_read_file(cfg, 1u << 20, FDW_READ_PREFIX, &text, NULL, NULL) != 0 ||
		    (!strstr(text, "linux\t/vmlinuz-") && !strstr(text, "linux /vmlinuz-")) ||
		    !strstr(text, want))) {
		snprintf(note, len, _("the new GRUB menu does not start a kernel from the new "
				      "/boot with the root named by its UUID"));
		rc = -ENOEXEC;
	}
	free(text);
	sync();
	fdw_tree_unmount_all(&t);
	return rc;
}

/* ---- the steps, in the parent ---- */

/* The plan for @part (@t's, or a copy with its minimum guessed) and a /boot folder of @used
 * bytes, in @r. */
static int plan_for(const struct fdw_target *t, const struct fdw_partition *part, uint64_t used,
		    struct move_record *r, char *why, size_t len)
{
	struct fdw_boot_carve plan;
	int rc;

	if (t->disk.kind != FDW_DISK_BLOCK) {
		snprintf(why, len, _("a /boot of its own can only be made on a disk GRUB starts "
				     "from, not inside an image file. Nothing was changed."));
		return -ENOTBLK;
	}
	rc = fdw_boot_carve_plan(&t->disk, part, used, &plan);
	if (rc) {
		snprintf(why, len, _("its /boot holds %llu MiB, and a /boot of its own of %llu MiB "
				     "does not fit at the end of the partition (%llu MiB short). "
				     "Nothing was changed; free some space in it."),
			 (unsigned long long)(used / FDW_MIB),
			 (unsigned long long)(fdw_boot_carve_size(used) / FDW_MIB),
			 (unsigned long long)((plan.short_by + FDW_MIB - 1) / FDW_MIB));
		return rc;
	}
	memset(r, 0, sizeof(*r));
	snprintf(r->fs_uuid, sizeof(r->fs_uuid), "%s", part->uuid);
	snprintf(r->disk, sizeof(r->disk), "%s", t->disk.path);
	r->number = part->number;
	r->logical = plan.slot == FDW_CARVE_SLOT_LOGICAL;
	r->boot_start = plan.boot_start;
	r->boot_size = plan.boot_size;
	r->root_size = plan.root_size;
	r->root_fs_max = plan.root_fs_max;
	r->step = STEP_PLANNED;
	if (part->os.loader == FDW_LOADER_GRUB_EFI) {
		const char *esp = fdw_installed_os_esp_spec(&part->os);

		if (!esp) {
			snprintf(why, len, _("its GRUB for EFI has no EFI system partition at "
					     "/boot/efi in its fstab. Nothing was changed."));
			return -ENODEV;
		}
		snprintf(r->esp_spec, sizeof(r->esp_spec), "%s", esp);
	} else if (part->os.loader != FDW_LOADER_GRUB_BIOS) {
		snprintf(why, len, _("it does not start with GRUB, which fdewiz reinstalls to read "
				     "a new /boot. Nothing was changed."));
		return -EOPNOTSUPP;
	}
	rc = fdw_new_uuid(r->boot_uuid, sizeof(r->boot_uuid));
	if (rc)
		snprintf(why, len, _("cannot make a UUID. Nothing was changed."));
	return rc;
}

static int record_or_say(const struct move_record *r, char *why, size_t len)
{
	int rc = record_save(r);

	if (rc)
		snprintf(why, len, _("the plan of the new /boot could not be recorded in %s (%s). "
				     "Nothing was changed."), fdw_state_dir(), strerror(-rc));
	fdw_log(FDW_LOG_INFO, "boot move: new /boot of %llu MiB at byte %llu of %s",
		(unsigned long long)(r->boot_size / FDW_MIB), (unsigned long long)r->boot_start,
		r->disk);
	return rc;
}

/* The plan, from what /boot holds now, recorded before anything changes. */
static int plan_new(struct fdw_target *t, struct move_record *r, char *why, size_t len)
{
	struct move_child c = { .r = r, .root_dev = t->device };
	char note[64] = "";
	uint64_t used;
	int rc;

	if (t->disk.kind != FDW_DISK_BLOCK)
		return plan_for(t, t->part, 0, r, why, len);
	rc = fdw_child_run(measure_main, &c, note, sizeof(note));
	used = strtoull(note, NULL, 10);
	if (rc || !used) {
		snprintf(why, len, _("the /boot folder of the system could not be measured (%s). "
				     "Nothing was changed."), strerror(rc ? -rc : EIO));
		return rc ? rc : -EIO;
	}
	fdw_log(FDW_LOG_INFO, "boot move: /boot holds %llu MiB", (unsigned long long)(used / FDW_MIB));
	rc = plan_for(t, t->part, used, r, why, len);
	return rc ? rc : record_or_say(r, why, len);
}

int fdw_boot_move_plan_running(const struct fdw_target *t, uint64_t fs_min_guess, bool record,
			       struct fdw_boot_move_ahead *out, char *why, size_t len)
{
	struct fdw_partition guessed = *t->part;
	struct move_record r;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!t->part->uuid || !fdw_uuid_valid(t->part->uuid)) {
		snprintf(why, len, _("the root filesystem has no UUID. Nothing was changed."));
		return -EINVAL;
	}
	/* Mounted as /: its /boot folder measured in place, not crossing into the ESP. */
	used_bytes = 0;
	if (nftw("/boot", add_used, 16, FTW_PHYS | FTW_MOUNT) != 0 || !used_bytes) {
		snprintf(why, len, _("the /boot folder of the system could not be measured (%s). "
				     "Nothing was changed."), strerror(errno ? errno : EIO));
		return -EIO;
	}
	guessed.fs_min_size = (int64_t)fs_min_guess;
	rc = plan_for(t, &guessed, used_bytes, &r, why, len);
	if (!rc && record)
		rc = record_or_say(&r, why, len);
	if (rc)
		return rc;
	out->boot_size = r.boot_size;
	out->root_fs_max = r.root_fs_max;
	snprintf(out->boot_uuid, sizeof(out->boot_uuid), "%s", r.boot_uuid);
	return 0;
}

/* Open @address again after the table changed; the device attached. */
static int reopen(struct fdw_target *t, const char *address)
{
	int rc;

	fdw_target_close(t);
	rc = fdw_target_open(address, t);
	if (!rc)
		rc = fdw_target_attach(t);
	return rc;
}

static int step_done(struct move_record *r, enum move_step step, const char *point)
{
	r->step = step;
	fdw_log(FDW_LOG_INFO, "boot move: %s", step_keys[step]);
	fdw_test_point(point);
	return record_save(r);
}

/* The new partition's filesystem, made and filled with /boot's files. */
static int fill_boot(struct move_record *r, const char *root_dev, char *why, size_t len)
{
	char address[PATH_MAX + 16], label[] = "boot";
	struct fdw_target nb;
	struct move_child c = { .r = r, .root_dev = root_dev };
	int rc;

	snprintf(address, sizeof(address), "%s:%d", r->disk, r->boot_number);
	rc = fdw_target_open(address, &nb);
	if (rc)
		return rc;
	rc = fdw_target_attach(&nb);
	if (!rc && nb.part->start != r->boot_start)
		rc = -ESTALE;
	if (!rc) {
		char *argv[] = { "mkfs.ext4", "-q", "-F", "-U", r->boot_uuid, "-L", label,
				 nb.device, NULL };

		rc = fdw_spawn(argv);
		rc = rc > 0 ? -EIO : rc;
	}
	c.boot_dev = nb.device;
	if (!rc)
		rc = fdw_child_run(fill_main, &c, why, len);
	fdw_target_close(&nb);
	return rc;
}

static int grub_step(struct move_record *r, const char *root_dev, char *note, size_t len)
{
	char address[PATH_MAX + 16];
	struct fdw_target nb;
	struct move_child c = { .r = r, .root_dev = root_dev };
	int rc;

	snprintf(address, sizeof(address), "%s:%d", r->disk, r->boot_number);
	rc = fdw_target_open(address, &nb);
	if (!rc)
		rc = fdw_target_attach(&nb);
	c.boot_dev = nb.device;
	if (!rc)
		rc = fdw_child_run(grub_main, &c, note, len);
	fdw_target_close(&nb);
	return rc;
}

/* What is true of the system after a failed step, for its message. */
static const char *state_after(enum move_step done)
{
	if (done < STEP_FSTAB)
		return _("The system still starts as before, from /boot inside its root.");
	return _("Its fstab names the new /boot, which holds a copy of the old; the system "
		 "still starts with the GRUB it had.");
}

static int run_steps(struct fdw_target *t, struct move_record *r, char *why, size_t len)
{
	char address[PATH_MAX], note[512] = "";
	uint64_t min = 0;
	int rc = 0;

	snprintf(address, sizeof(address), "%s", t->part->address);
	if (r->step < STEP_SHRUNK) {
		rc = fdw_fs_shrink(t->device, "ext4", r->root_fs_max, &min);
		if (!rc)
			rc = step_done(r, STEP_SHRUNK, "boot-move-shrunk");
		if (rc) {
			snprintf(note, sizeof(note), _("the root filesystem could not be shrunk "
						       "(%s)"), strerror(-rc));
			goto fail;
		}
	}
	if (r->step < STEP_SPLIT) {
		rc = fdw_partition_split_end(r->disk, r->number, r->root_size, r->boot_start,
					     r->logical, &r->boot_number);
		if (!rc)
			rc = fdw_partition_node_settle(r->disk, r->number);
		if (!rc)
			rc = fdw_partition_node_settle(r->disk, r->boot_number);
		if (!rc)
			rc = step_done(r, STEP_SPLIT, "boot-move-split");
		if (!rc)
			rc = reopen(t, address);
		if (rc) {
			snprintf(note, sizeof(note), _("the partition table could not be changed "
						       "(%s)"), strerror(-rc));
			goto fail;
		}
	}
	if (r->step < STEP_FILLED) {
		rc = fill_boot(r, t->device, note, sizeof(note));
		if (!rc)
			rc = step_done(r, STEP_FILLED, "boot-move-filled");
		if (rc) {
			if (!note[0])
				snprintf(note, sizeof(note), _("/boot could not be copied to its new "
							       "partition (%s)"), strerror(-rc));
			goto fail;
		}
	}
	if (r->step < STEP_FSTAB) {
		rc = fdw_child_run(fstab_main, &(struct move_child){ .r = r, .root_dev = t->device },
				   note, sizeof(note));
		if (!rc)
			rc = step_done(r, STEP_FSTAB, "boot-move-fstab");
		if (rc) {
			if (!note[0])
				snprintf(note, sizeof(note), _("its fstab could not be written (%s)"),
					 strerror(-rc));
			goto fail;
		}
	}
	rc = grub_step(r, t->device, note, sizeof(note));
	if (!rc)
		rc = step_done(r, STEP_DONE, "boot-move-done");
	if (rc) {
		if (!note[0])
			snprintf(note, sizeof(note), _("GRUB could not be reinstalled (%s)"),
				 strerror(-rc));
		goto fail;
	}
	return reopen(t, address);
fail:
	snprintf(why, len, _("making a /boot of its own stopped: %s. %s Nothing is encrypted."),
		 note, state_after(r->step));
	return rc;
}

int fdw_boot_move_run(struct fdw_target *t, char *why, size_t len)
{
	struct move_record r;
	int rc;

	if (!t->part->uuid) {
		snprintf(why, len, _("the root filesystem has no UUID. Nothing was changed."));
		return -EINVAL;
	}
	rc = fdw_target_attach(t);
	if (rc) {
		snprintf(why, len, _("cannot reach %s (%s). Nothing was changed."),
			 t->part->address, strerror(-rc));
		return rc;
	}
	rc = record_load(t->part->uuid, &r);
	if (rc == -EBADMSG) {
		snprintf(why, len, _("the record of this system's /boot move in %s is damaged; "
				     "look at it before anything else is done. Nothing was "
				     "changed now."), fdw_state_dir());
		return rc;
	}
	if (rc == 0 && r.step == STEP_DONE)
		return 0;
	if (rc == 0 && (strcmp(r.disk, t->disk.path) || r.number != t->part->number)) {
		snprintf(why, len, _("this system's /boot move was begun on %s partition %d, and "
				     "the root is %s now; resume it there. Nothing was changed."),
			 r.disk, r.number, t->part->address);
		return -ESTALE;
	}
	if (rc == -ENOENT)
		rc = plan_new(t, &r, why, len);
	if (rc)
		return rc;
	fdw_log(FDW_LOG_INFO, "boot move of %s from step '%s'", t->part->address,
		step_keys[r.step]);
	return run_steps(t, &r, why, len);
}
