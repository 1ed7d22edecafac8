/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Scans disks and image files with libparted, then fills each partition's facts and verdict. */
#include "config.h"

#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <limits.h>
#include <parted/parted.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "disk.h"
#include "disk_paths.h"
#include "fsprobe.h"
#include "detached.h"
#include "fsresize.h"
#include "holders.h"
#include "system_peek.h"
#include "base/log.h"
#include "base/sysstate.h"
#include "state/job.h"

/*
 * libparted asks questions through exceptions; a scan must never answer "Fix"
 * (that writes), so it takes the most passive option offered and logs the text.
 */
static PedExceptionOption scan_exception_handler(PedException *ex)
{
	fdw_log(FDW_LOG_DEBUG, "libparted: %s", ex->message);
	if (ex->options & PED_EXCEPTION_IGNORE)
		return PED_EXCEPTION_IGNORE;
	if (ex->options & PED_EXCEPTION_CANCEL)
		return PED_EXCEPTION_CANCEL;
	if (ex->options & PED_EXCEPTION_NO)
		return PED_EXCEPTION_NO;
	return PED_EXCEPTION_UNHANDLED;
}

static char *xstrdup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

/*
 * Who uses the partition's bytes: loop devices and device-mapper tables found by identity
 * (holders.c), with their mounts and swaps and those of the partition itself.
 */
static int fill_usage(const struct fdw_sysstate *st, const struct fdw_disk *d,
		      struct fdw_partition *p, dev_t rdev)
{
	struct fdw_holders h = { 0 };
	int rc = fdw_holders_find(st, d->path, p, NULL, &h);

	if (rc) {
		fdw_holders_free(&h);
		return rc;
	}
	p->holders = h.names;
	p->n_holders = h.n_names;
	p->mountpoints = h.mountpoints;
	p->n_mountpoints = h.n_mountpoints;
	p->swap_active = h.swap;
	if (rdev && fdw_sysfs_read_only(rdev))
		p->read_only = true;
	return 0;
}

/*
 * A mounted filesystem's free count in the superblock is stale; ask the kernel for it.
 * The size stays the superblock's (statvfs leaves out metadata and journal), so used
 * space means the same thing mounted or not: everything that is not free.
 */
static void usage_from_mount(struct fdw_partition *p)
{
	struct statvfs vfs;
	int64_t free_bytes;

	if (p->fs_size < 0 || statvfs(p->mountpoints[0], &vfs) != 0)
		return;
	free_bytes = (int64_t)(vfs.f_bfree * vfs.f_frsize);
	if (free_bytes > p->fs_size)
		return;
	p->fs_free = free_bytes;
	p->fs_used = p->fs_size - p->fs_free;
}

/* What mountinfo says is mounted at "/", when @p is the filesystem there: "/@rootfs".
 * The last such line: a mount over "/" hides the ones before it. */
static const char *running_root_folder(const struct fdw_sysstate *st,
				       const struct fdw_partition *p)
{
	const char *folder = NULL;

	for (size_t i = 0; fdw_mounted_as_root(p) && i < st->n_mounts; i++)
		if (!strcmp(st->mounts[i].mountpoint, "/"))
			folder = st->mounts[i].root;
	return folder;
}

/*
 * An installed system inside @p? An ext2/3/4 is read from the disk (or image) at the
 * partition's offset, never mounted. A btrfs, which nothing reads unmounted, is mounted
 * read-only where only a child of fdewiz sees it, when it is not in use (a mounted one is
 * no system fdewiz converts offline), or read where it is when it is the running system's
 * root (which is encrypted at a restart). A failure to look is logged and leaves it "not
 * found".
 */
static void look_for_installed_os(const struct fdw_disk *d, const struct fdw_sysstate *st,
				  struct fdw_partition *p)
{
	bool btrfs = p->fstype && !strcmp(p->fstype, "btrfs");
	const char *running = btrfs ? running_root_folder(st, p) : NULL;
	int rc = -ENOENT;

	if (fdw_fstype_is_ext(p->fstype))
		rc = fdw_installed_os_probe(d->path, p->start, p->uuid, p->label, &p->os);
	/* The running system's btrfs root: it is this system, read where it is. */
	else if (running)
		rc = fdw_system_read_running(p->uuid, p->label, running, &p->os);
	else if (btrfs && !p->n_mountpoints && !p->n_holders)
		rc = fdw_system_peek(&(const struct fdw_peek_where){
			.device = p->node, .file = d->path, .offset = p->start, .size = p->size,
			.fstype = p->fstype, .uuid = p->uuid, .label = p->label }, &p->os,
			&p->boot_files);
	if (rc != 0)
		memset(&p->os, 0, sizeof(p->os));
	if (btrfs && rc != 0 && !running && !p->n_mountpoints && !p->n_holders)
		p->boot_files.look_error = rc;
}

/*
 * Not a root: does a boot loader read it all the same (a /boot whose root fdewiz cannot
 * read, another system's boot manager)? Unused filesystems only: one in use is refused
 * anyway, and looked at again once it is not. ext is read with debugfs, anything else
 * the kernel mounts read-only in a child's own namespace; an APFS container is macOS's.
 */
static void look_for_boot_files(const struct fdw_disk *d, struct fdw_partition *p)
{
	struct fdw_installed_os none;
	int rc = 0;

	if (p->os.found || p->extended || p->flag_esp || p->flag_bios_boot || p->luks_version ||
	    p->n_mountpoints || p->n_holders || !p->fstype)
		return;
	if (!strcmp(p->fstype, "apfs")) {
		p->boot_files.kinds = FDW_BOOTF_MACOS;
	} else if (fdw_fstype_is_ext(p->fstype)) {
		rc = fdw_boot_files_probe_ext(d->path, p->start, &p->boot_files);
	} else if (!strcmp(p->fstype, "btrfs")) {
		return;		/* looked at with its system (look_for_installed_os) */
	} else if (fdw_boot_files_peek_needed(p->fstype)) {
		rc = fdw_system_peek(&(const struct fdw_peek_where){
			.device = p->node, .file = d->path, .offset = p->start, .size = p->size,
			.fstype = p->fstype, .uuid = p->uuid, .label = p->label }, &none,
			&p->boot_files);
	}
	if (rc) {
		memset(&p->boot_files, 0, sizeof(p->boot_files));
		p->boot_files.look_error = rc;
	}
}

/*
 * An encrypted root that someone unlocked here (cryptsetup open) can be looked into: its
 * open dm-crypt mapping, found among the partition's holders, holds the filesystem. Then
 * its system's other partitions are attributed to it like a plain root's.
 */
/* The /dev/mapper path of a holder named by its device-mapper name or as dm-N. */
static bool mapper_path(const char *holder, char *via, size_t len)
{
	char sys[PATH_MAX], name[128] = "";
	FILE *f;

	if (strchr(holder, '/'))
		return false;
	if (!strncmp(holder, "dm-", 3)) {
		snprintf(sys, sizeof(sys), "/sys/block/%s/dm/name", holder);
		f = fopen(sys, "re");
		if (!f)
			return false;
		if (!fgets(name, sizeof(name), f))
			name[0] = '\0';
		fclose(f);
		name[strcspn(name, "\n")] = '\0';
		holder = name;
	}
	return holder[0] && !strchr(holder, '/') &&
	       snprintf(via, len, "/dev/mapper/%s", holder) < (int)len && access(via, F_OK) == 0;
}

static void look_inside_open_luks(struct fdw_partition *p)
{
	for (size_t i = 0; i < p->n_holders && !p->os.found; i++) {
		char via[160], *type, *uuid, *label;

		if (!mapper_path(p->holders[i], via, sizeof(via)))
			continue;
		type = blkid_get_tag_value(NULL, "TYPE", via);
		uuid = blkid_get_tag_value(NULL, "UUID", via);
		label = blkid_get_tag_value(NULL, "LABEL", via);
		if (fdw_fstype_is_ext(type) &&
		    fdw_installed_os_probe(via, 0, uuid, label, &p->os) == 0 && p->os.found)
			snprintf(p->os.via, sizeof(p->os.via), "%s", via);
		else
			memset(&p->os, 0, sizeof(p->os));
		free(type);
		free(uuid);
		free(label);
	}
}

/* Is every holder of @p one of the logical volumes of its PV (by device-mapper name)? */
static bool held_by_own_lvs(const struct fdw_partition *p)
{
	for (size_t i = 0; i < p->n_holders; i++) {
		char via[160];
		bool own = false;

		if (!mapper_path(p->holders[i], via, sizeof(via)))
			return false;
		for (unsigned k = 0; k < p->lvm.n_lvs && !own; k++)
			own = !strcmp(via, p->lvm.lvs[k].dm_path);
		if (!own)
			return false;
	}
	return true;
}

/* Is the logical volume @lv (active) what mountinfo says is mounted at "/"? */
static bool lv_is_running_root(const struct fdw_sysstate *st, const struct fdw_lvm_lv *lv)
{
	struct stat sb;

	if (stat(lv->dm_path, &sb) != 0 || !S_ISBLK(sb.st_mode))
		return false;
	for (size_t i = 0; i < st->n_mounts; i++)
		if (!strcmp(st->mounts[i].mountpoint, "/") &&
		    st->mounts[i].major == major(sb.st_rdev) &&
		    st->mounts[i].minor == minor(sb.st_rdev))
			return true;
	return false;
}

/*
 * An LVM physical volume on a block device: LVM's report of it, and an installed system on
 * one of its logical volumes, read from the partition itself (nothing is activated).
 */
static void look_into_pv(const struct fdw_disk *d, int fd, const struct fdw_sysstate *st,
			 struct fdw_partition *p)
{
	if (d->kind != FDW_DISK_BLOCK || !p->node || !p->fstype ||
	    strcmp(p->fstype, "LVM2_member") || fdw_lvm_pv_read(p->node, &p->lvm) != 0)
		return;
	fdw_lvm_pv_look(d->path, fd, p->start, &p->lvm, &p->os);
	p->fs_size = (int64_t)p->lvm.pv_size;
	p->held_by_own_lvs = held_by_own_lvs(p);
	p->lvm_root_running = p->held_by_own_lvs && p->lvm.root_lv >= 0 &&
			      lv_is_running_root(st, &p->lvm.lvs[p->lvm.root_lv]);
}

/*
 * The filesystem's real minimum size, where a shrink is in question: an unmounted,
 * unused ext2/3/4 that does not already leave the header room free. Read-only.
 */
static void measure_min_size(const struct fdw_disk *d, struct fdw_partition *p)
{
	char dev[PATH_MAX + 32];
	uint64_t min;

	if (!fdw_fstype_is_ext(p->fstype) || p->fs_block_size <= 0 || p->n_mountpoints ||
	    p->n_holders || fdw_has_free_tail(p))
		return;
	/* A node of its own, or the disk with e2fsprogs' "?offset=" (no '?' in the name). */
	if (p->node && access(p->node, F_OK) == 0)
		snprintf(dev, sizeof(dev), "%s", p->node);
	else if (!strchr(d->path, '?'))
		snprintf(dev, sizeof(dev), "%s?offset=%llu", d->path, (unsigned long long)p->start);
	else
		return;
	if (fdw_ext_min_size(dev, (uint64_t)p->fs_block_size, &min) == 0 && min <= INT64_MAX)
		p->fs_min_size = (int64_t)min;
}

/*
 * Nothing blkid recognises: is it a volume fdewiz encrypted with a detached header (its
 * job record says so and the header agrees), or at least bytes that look encrypted?
 */
static void probe_unrecognised(const struct fdw_disk *d, int fd, struct fdw_partition *p)
{
	struct fdw_job job;
	char header[PATH_MAX];
	bool unfinished = false;

	if (p->extended)
		return;
	/*
	 * Mid-decryption the start of the partition is plain already: a filesystem's
	 * signature there is half of the data, never one to encrypt again. It is the LUKS2
	 * volume of its record, with the header the record keeps.
	 */
	if (fdw_decrypt_lookup(d, p, &job) == 0) {
		free(p->detached_header);
		free(p->uuid);
		free(p->fstype);
		free(p->label);
		p->label = NULL;
		p->detached_header = strdup(job.detached_header);
		p->uuid = strdup(job.id);
		p->fstype = strdup("crypto_LUKS");
		p->decrypting = true;
		p->luks_version = 2;
		p->luks_reencrypt_unfinished = true;
		return;
	}
	if (p->fstype || p->luks_version)
		return;
	if (fdw_detached_lookup(d, p, header, sizeof(header), &unfinished) == 0) {
		p->detached_header = strdup(header);
		if (p->detached_header) {
			p->luks_version = 2;
			p->luks_reencrypt_unfinished = unfinished;
			return;
		}
	}
	p->looks_random = fdw_looks_random(fd, p->start, p->size);
}

/* How deep a scan looks: what a listing shows, who owns what, or where the bytes are. */
enum scan_depth {
	SCAN_FULL,	/* everything the list and the verdicts need */
	SCAN_OWNERS,	/* no filesystem's minimum size (resize2fs on each) */
	SCAN_LOCATE,	/* the table, blkid and usage: no installed system, LVM report or sizes */
};

/* Probe the content of @p and find out who uses it; then decide its verdict. */
static int fill_partition(struct fdw_disk *d, int fd, const struct fdw_sysstate *st,
			  struct fdw_partition *p, dev_t disk_rdev, enum scan_depth depth)
{
	dev_t rdev = 0;
	int rc;

	p->fs_size = p->fs_used = p->fs_free = p->fs_block_size = p->fs_sector_size = -1;
	p->fs_min_size = -1;
	if (!p->extended) {
		rc = fdw_fsprobe(fd, p->start, p->size, p);
		if (rc)
			return rc;
		probe_unrecognised(d, fd, p);
	}
	if (d->kind == FDW_DISK_BLOCK && p->number == 0)
		rdev = disk_rdev;
	else if (p->node && !fdw_is_block_node(p->node, &rdev))
		rdev = 0;
	rc = fill_usage(st, d, p, rdev);
	if (rc)
		return rc;
	if (p->n_mountpoints)
		usage_from_mount(p);
	/* Finding a job's volume needs none of the rest: under emulation the installed
	 * systems' files read with debugfs took seconds of each status and resume. */
	if (depth == SCAN_LOCATE) {
		fdw_verdict_decide(p, d);
		return 0;
	}
	look_for_installed_os(d, st, p);
	look_for_boot_files(d, p);
	if (p->luks_version && p->n_holders)
		look_inside_open_luks(p);
	look_into_pv(d, fd, st, p);
	/* Who owns what needs no minimum sizes: resize2fs on every filesystem of every disk
	 * made each encrypt pay for a full listing. */
	if (depth == SCAN_FULL)
		measure_min_size(d, p);
	fdw_verdict_decide(p, d);
	return 0;
}

static struct fdw_partition *parts_append(struct fdw_disk *d)
{
	struct fdw_partition *nv = realloc(d->parts, (d->n_parts + 1) * sizeof(*nv));

	if (!nv)
		return NULL;
	d->parts = nv;
	memset(&nv[d->n_parts], 0, sizeof(*nv));
	return &nv[d->n_parts++];
}

/* Unallocated bytes in the free-space regions that directly follow @part. */
static uint64_t free_after(PedDisk *disk, PedPartition *part)
{
	uint64_t bytes = 0;

	for (PedPartition *q = ped_disk_next_partition(disk, part); q;
	     q = ped_disk_next_partition(disk, q)) {
		if (!(q->type & PED_PARTITION_FREESPACE))
			break;
		bytes += (uint64_t)q->geom.length * (uint64_t)disk->dev->sector_size;
	}
	return bytes;
}

static bool flag_of(PedPartition *part, PedPartitionFlag flag)
{
	return ped_partition_is_flag_available(part, flag) && ped_partition_get_flag(part, flag);
}

static int add_table_partition(struct fdw_disk *d, PedDisk *disk, PedPartition *part)
{
	struct fdw_partition *p = parts_append(d);
	uint64_t ss = (uint64_t)disk->dev->sector_size;
	char *node;
	dev_t rdev;

	if (!p)
		return -ENOMEM;
	p->number = part->num;
	p->start = (uint64_t)part->geom.start * ss;
	p->size = (uint64_t)part->geom.length * ss;
	p->extended = part->type & PED_PARTITION_EXTENDED;
	if (ped_disk_type_check_feature(disk->type, PED_DISK_TYPE_PARTITION_NAME))
		p->name = xstrdup_or_null(ped_partition_get_name(part));
	p->flag_esp = flag_of(part, PED_PARTITION_ESP);
	p->flag_bios_boot = flag_of(part, PED_PARTITION_BIOS_GRUB);
	p->flag_boot = flag_of(part, PED_PARTITION_BOOT);
	p->flag_raid = flag_of(part, PED_PARTITION_RAID);
	p->flag_lvm = flag_of(part, PED_PARTITION_LVM);
	p->flag_swap = flag_of(part, PED_PARTITION_SWAP);
	p->free_after = free_after(disk, part);

	if (d->kind == FDW_DISK_BLOCK) {
		node = ped_partition_get_path(part);
		/* Loop devices without partition scanning have no pN nodes. */
		if (node && fdw_is_block_node(node, &rdev))
			p->node = node;
		else
			free(node);
	}
	if (p->node) {
		p->address = strdup(p->node);
	} else if (asprintf(&p->address, "%s:%d", d->path, p->number) < 0) {
		p->address = NULL;
	}
	return p->address ? 0 : -ENOMEM;
}

static int add_whole_disk(struct fdw_disk *d)
{
	struct fdw_partition *p = parts_append(d);

	if (!p)
		return -ENOMEM;
	p->number = 0;
	p->start = 0;
	p->size = d->size;
	if (d->kind == FDW_DISK_BLOCK)
		p->node = strdup(d->path);
	p->address = strdup(d->path);
	return p->address ? 0 : -ENOMEM;
}

static int read_table(struct fdw_disk *d, PedDevice *dev)
{
	PedDiskType *type = ped_disk_probe(dev);
	PedDisk *disk;
	int rc = 0;

	/* libparted's "loop" type is no table: it claims any bare filesystem it knows. */
	if (!type || !strcmp(type->name, "loop")) {
		d->table = strdup("none");
		return d->table ? 0 : -ENOMEM;
	}
	d->table = strdup(type->name);
	if (!d->table)
		return -ENOMEM;
	disk = ped_disk_new(dev);
	if (!disk) {
		fdw_log(FDW_LOG_WARN, "%s: the %s partition table could not be read", d->path,
			type->name);
		return -EIO;
	}
	for (PedPartition *part = ped_disk_next_partition(disk, NULL); part && !rc;
	     part = ped_disk_next_partition(disk, part)) {
		if (part->num <= 0 || (part->type & (PED_PARTITION_METADATA |
						     PED_PARTITION_FREESPACE)))
			continue;
		rc = add_table_partition(d, disk, part);
	}
	ped_disk_destroy(disk);
	return rc;
}

/*
 * Read-only for the one who would encrypt it (root), not for whoever is asking: a user
 * may look at a root-owned image. What stops root is a read-only mount or the immutable bit.
 */
static bool is_read_only(const char *path, const struct stat *st)
{
	struct statvfs vfs;

	if (geteuid() == 0)
		return access(path, W_OK) != 0;
	if (S_ISBLK(st->st_mode))
		return false;	/* the kernel's "ro" flag, checked by the caller, decides */
	return statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_RDONLY);
}

/* Check the path before libparted sees it, so the error says what is wrong. */
static int classify_path(const char *path, struct fdw_disk *d, dev_t *rdev)
{
	unsigned char first[512];
	struct stat st;
	int fd, err = 0;

	if (stat(path, &st) != 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		d->kind = FDW_DISK_BLOCK;
		*rdev = st.st_rdev;
	} else if (S_ISREG(st.st_mode)) {
		d->kind = FDW_DISK_IMAGE;
		if (st.st_size < 512 || st.st_size % 512)
			return -ENOTBLK;
	} else {
		return -ENOTBLK;
	}
	/* Open it once here: libparted would only report a generic failure. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* A disk whose reads fail (dying, or a device-mapper error target) must be named as
	 * unreadable, not listed as empty: libparted and blkid take a failed read for none. */
	if (pread(fd, first, sizeof(first), 0) < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	d->read_only = is_read_only(path, &st);
	return 0;
}

static int scan_with(const char *path, struct fdw_disk *d, const struct fdw_sysstate *st,
		     enum scan_depth depth)
{
	PedDevice *dev;
	dev_t rdev = 0;
	int fd, rc;

	memset(d, 0, sizeof(*d));
	rc = classify_path(path, d, &rdev);
	if (rc)
		return rc;
	d->path = d->kind == FDW_DISK_IMAGE ? realpath(path, NULL) : strdup(path);
	if (!d->path)
		return -ENOMEM;

	ped_exception_set_handler(scan_exception_handler);
	dev = ped_device_get(path);
	if (!dev) {
		rc = -EIO;
		goto out;
	}
	d->model = xstrdup_or_null(dev->model);
	d->size = (uint64_t)dev->length * (uint64_t)dev->sector_size;
	d->logical_sector_size = (unsigned)dev->sector_size;
	d->physical_sector_size = (unsigned)dev->phys_sector_size;
	if (dev->read_only || (rdev && fdw_sysfs_read_only(rdev)))
		d->read_only = true;

	rc = read_table(d, dev);
	if (rc)
		goto out;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	if (!strcmp(d->table, "none"))
		rc = add_whole_disk(d);
	for (size_t i = 0; i < d->n_parts && !rc; i++)
		rc = fill_partition(d, fd, st, &d->parts[i], rdev, depth);
	close(fd);

	/* A file with neither a table nor a filesystem is not a disk image. */
	if (!rc && d->kind == FDW_DISK_IMAGE && !strcmp(d->table, "none") && !d->parts[0].fstype)
		rc = -ENOTBLK;
	/* A bare block device with nothing on it is listed as one empty entry. */
	if (!rc)
		fdw_disks_attribute(d, 1);
out:
	if (dev)
		ped_device_destroy(dev);
	if (rc)
		fdw_disk_free(d);
	return rc;
}

static int scan_one(const char *path, struct fdw_disk *out, enum scan_depth depth)
{
	struct fdw_sysstate st;
	int rc = fdw_sysstate_load(&st);

	if (rc)
		return rc;
	rc = scan_with(path, out, &st, depth);
	fdw_sysstate_free(&st);
	return rc;
}

int fdw_disk_scan(const char *path, struct fdw_disk *out)
{
	return scan_one(path, out, SCAN_FULL);
}

int fdw_disk_scan_locate(const char *path, struct fdw_disk *out)
{
	return scan_one(path, out, SCAN_LOCATE);
}

/* Remember a disk that could not be read: the lists and the wizard name it and why. */
static void note_failure(struct fdw_disk_list *out, const char *path, int err)
{
	struct fdw_scan_failure *nf = realloc(out->failed, (out->n_failed + 1) * sizeof(*nf));

	fdw_log(FDW_LOG_DEBUG, "%s: cannot be read (%s)", path, strerror(-err));
	if (!nf)
		return;
	out->failed = nf;
	nf[out->n_failed].path = strdup(path);
	nf[out->n_failed].err = err;
	if (nf[out->n_failed].path)
		out->n_failed++;
}

static int scan_all(struct fdw_disk_list *out, enum scan_depth depth)
{
	struct fdw_sysstate st;
	char **paths = NULL;
	size_t n_paths = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = fdw_sysstate_load(&st);
	if (rc)
		return rc;
	ped_exception_set_handler(scan_exception_handler);
	/*
	 * scan_with() gets each device again and destroys it, which unlinks it from
	 * libparted's list: walking that list meanwhile read freed memory (it crashed on a
	 * machine with an unreadable device-mapper disk).
	 */
	rc = fdw_disk_paths(&paths, &n_paths);
	for (size_t i = 0; i < n_paths && !rc; i++) {
		struct fdw_disk *nv = realloc(out->disks, (out->n_disks + 1) * sizeof(*nv));
		int one;

		if (!nv) {
			rc = -ENOMEM;
			break;
		}
		out->disks = nv;
		one = scan_with(paths[i], &out->disks[out->n_disks], &st, depth);
		if (one == 0)
			out->n_disks++;
		else
			note_failure(out, paths[i], one);
	}
	/* A system on one disk may name partitions of another (/home on a second disk). */
	if (!rc)
		fdw_disks_attribute(out->disks, out->n_disks);
	for (size_t i = 0; i < n_paths; i++)
		free(paths[i]);
	free(paths);
	ped_device_free_all();
	fdw_sysstate_free(&st);
	if (rc)
		fdw_disk_list_free(out);
	return rc;
}

int fdw_disk_scan_all(struct fdw_disk_list *out)
{
	return scan_all(out, SCAN_FULL);
}

int fdw_disk_scan_all_owners(struct fdw_disk_list *out)
{
	return scan_all(out, SCAN_OWNERS);
}

int fdw_disk_scan_all_locate(struct fdw_disk_list *out)
{
	return scan_all(out, SCAN_LOCATE);
}

static void partition_free(struct fdw_partition *p)
{
	free(p->node);
	free(p->address);
	free(p->name);
	free(p->fstype);
	free(p->detached_header);
	free(p->fsversion);
	free(p->label);
	free(p->uuid);
	fdw_strv_free(p->mountpoints, p->n_mountpoints);
	fdw_strv_free(p->holders, p->n_holders);
}

void fdw_disk_free(struct fdw_disk *d)
{
	for (size_t i = 0; i < d->n_parts; i++)
		partition_free(&d->parts[i]);
	free(d->parts);
	free(d->path);
	free(d->model);
	free(d->table);
	memset(d, 0, sizeof(*d));
}

void fdw_disk_list_free(struct fdw_disk_list *list)
{
	for (size_t i = 0; i < list->n_disks; i++)
		fdw_disk_free(&list->disks[i]);
	free(list->disks);
	for (size_t i = 0; i < list->n_failed; i++)
		free(list->failed[i].path);
	free(list->failed);
	memset(list, 0, sizeof(*list));
}
