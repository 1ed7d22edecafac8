/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Finds loop devices, device-mapper tables, mounts and swaps that overlap a partition's bytes. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/dm-ioctl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "holders.h"
#include "base/i18n.h"
#include "base/log.h"

#define MAX_EXTENTS 256
#define SECTOR 512ULL

/*
 * Bytes of one object: a regular file (its st_dev and inode) or a block device (its
 * number). Identity, not a path: a path differs across bind mounts and chroots, and the
 * kernel's own record of it gains " (deleted)".
 */
struct extent {
	bool file;
	dev_t dev;
	ino_t ino;
	uint64_t start, end;	/* end exclusive; UINT64_MAX: to the end */
	char node[64];		/* "/dev/loop7" for a block device we know the name of */
	bool sysfs_seen;
};

enum loop_role { LOOP_OTHER, LOOP_HOLDER, LOOP_BASE };

struct loopinfo {
	char name[32];
	dev_t rdev;
	struct extent back;	/* what it maps: offset to offset + size limit of its backing */
	enum loop_role role;
};

struct dmtarget {
	uint64_t start, len;	/* sectors of the dm device */
	char type[DM_MAX_TYPE_NAME];
	char *params;
};

struct dminfo {
	char name[32];		/* dm-0 */
	char mapname[DM_NAME_LEN];
	dev_t rdev;
	struct dmtarget *t;
	size_t n_t;
	bool table_known;
	dev_t slaves[16];
	size_t n_slaves;
	bool holder;
};

struct walk {
	struct extent ext[MAX_EXTENTS];
	size_t n_ext;
	size_t n_seeds;
	struct loopinfo *loops;
	size_t n_loops;
	struct dminfo *dms;
	size_t n_dms;
	const char *skip_dm;
	struct fdw_holders *out;
};

/* The kernel's 32-bit device encoding (huge_encode_dev) as a dev_t. */
static dev_t decode_dev(uint64_t v)
{
	return makedev((unsigned)((v & 0xfff00) >> 8),
		       (unsigned)((v & 0xff) | ((v >> 12) & 0xfff00)));
}

static int read_small(const char *path, char *buf, size_t len)
{
	int rc = fdw_read_line_file(path, buf, len);

	return rc ? rc : (buf[0] ? 0 : -EIO);
}

static bool sysfs_devno(const char *name, dev_t *out)
{
	char path[PATH_MAX], buf[32];
	unsigned ma, mi;

	snprintf(path, sizeof(path), "/sys/block/%s/dev", name);
	if (read_small(path, buf, sizeof(buf)) || sscanf(buf, "%u:%u", &ma, &mi) != 2)
		return false;
	*out = makedev(ma, mi);
	return true;
}

static void add_extent(struct walk *w, const struct extent *e)
{
	for (size_t i = 0; i < w->n_ext; i++) {
		const struct extent *x = &w->ext[i];

		if (x->file == e->file && x->dev == e->dev && x->ino == e->ino &&
		    x->start == e->start && x->end == e->end)
			return;
	}
	if (w->n_ext < MAX_EXTENTS)
		w->ext[w->n_ext++] = *e;
}

static struct extent block_extent(dev_t dev, uint64_t start, uint64_t end, const char *name)
{
	struct extent e = { .dev = dev, .start = start, .end = end };

	if (name)
		snprintf(e.node, sizeof(e.node), "/dev/%s", name);
	return e;
}

/* Do @a and @b name the same object with overlapping bytes? [*lo, *hi) is the overlap. */
static bool overlap(const struct extent *a, const struct extent *b, uint64_t *lo, uint64_t *hi)
{
	if (a->file != b->file || a->dev != b->dev || (a->file && a->ino != b->ino))
		return false;
	*lo = a->start > b->start ? a->start : b->start;
	*hi = a->end < b->end ? a->end : b->end;
	return *lo < *hi;
}

/* Identity of a loop device's backing from the kernel itself; false if it cannot say. */
static bool loop_status(const char *name, dev_t rdev, struct extent *back)
{
	struct loop_info64 info;
	char node[64];
	struct stat st;
	bool ok;
	int fd;

	snprintf(node, sizeof(node), "/dev/%s", name);
	fd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	/* In a container /dev/loopN may be another device than the host's loopN. */
	ok = fstat(fd, &st) == 0 && st.st_rdev == rdev &&
	     ioctl(fd, LOOP_GET_STATUS64, &info) == 0;
	close(fd);
	if (!ok)
		return false;
	memset(back, 0, sizeof(*back));
	if (info.lo_rdevice) {
		back->dev = decode_dev(info.lo_rdevice);
	} else {
		back->file = true;
		back->dev = decode_dev(info.lo_device);
		back->ino = (ino_t)info.lo_inode;
	}
	back->start = info.lo_offset;
	back->end = info.lo_sizelimit ? info.lo_offset + info.lo_sizelimit : UINT64_MAX;
	return true;
}

/*
 * Without the ioctl (no /dev node here), the backing file's name is all there is: stat it.
 * A name marked deleted names nothing any more: that loop device is left out, and logged.
 */
static bool loop_status_sysfs(const char *name, struct extent *back)
{
	char path[PATH_MAX], file[PATH_MAX], buf[32];
	size_t n;
	struct stat st;

	snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", name);
	if (read_small(path, file, sizeof(file)))
		return false;
	n = strlen(file);
	if ((n > 10 && !strcmp(file + n - 10, " (deleted)")) || stat(file, &st) != 0) {
		fdw_log(FDW_LOG_WARN, "%s: its backing file %s cannot be identified", name, file);
		return false;
	}
	memset(back, 0, sizeof(*back));
	back->file = S_ISREG(st.st_mode);
	back->dev = back->file ? st.st_dev : st.st_rdev;
	back->ino = back->file ? st.st_ino : 0;
	snprintf(path, sizeof(path), "/sys/block/%s/loop/offset", name);
	back->start = read_small(path, buf, sizeof(buf)) ? 0 : strtoull(buf, NULL, 10);
	snprintf(path, sizeof(path), "/sys/block/%s/loop/sizelimit", name);
	n = read_small(path, buf, sizeof(buf)) ? 0 : strtoull(buf, NULL, 10);
	back->end = n ? back->start + n : UINT64_MAX;
	return true;
}

static int load_loops(struct walk *w)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	int rc = 0;

	if (!d)
		return 0;
	while (!rc && (de = readdir(d))) {
		char path[PATH_MAX];
		struct loopinfo lp = { 0 }, *nv;

		if (strncmp(de->d_name, "loop", 4) || strlen(de->d_name) >= sizeof(lp.name))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop", de->d_name);
		if (access(path, F_OK) != 0 || !sysfs_devno(de->d_name, &lp.rdev))
			continue;	/* not attached */
		snprintf(lp.name, sizeof(lp.name), "%s", de->d_name);
		if (!loop_status(lp.name, lp.rdev, &lp.back) &&
		    !loop_status_sysfs(lp.name, &lp.back))
			continue;
		nv = realloc(w->loops, (w->n_loops + 1) * sizeof(*nv));
		if (!nv) {
			rc = -ENOMEM;
			break;
		}
		w->loops = nv;
		w->loops[w->n_loops++] = lp;
	}
	closedir(d);
	return rc;
}

static int dm_add_target(struct dminfo *dm, const struct dm_target_spec *s, const char *params)
{
	struct dmtarget *nv = realloc(dm->t, (dm->n_t + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	dm->t = nv;
	nv[dm->n_t].start = s->sector_start;
	nv[dm->n_t].len = s->length;
	snprintf(nv[dm->n_t].type, sizeof(nv[dm->n_t].type), "%.*s",
		 (int)sizeof(s->target_type), s->target_type);
	nv[dm->n_t].params = strdup(params);
	if (!nv[dm->n_t].params)
		return -ENOMEM;
	dm->n_t++;
	return 0;
}

/* Walk the targets DM_TABLE_STATUS returned in @io; false if the answer is malformed. */
static int dm_parse(struct dminfo *dm, const struct dm_ioctl *io)
{
	const char *base = (const char *)io + io->data_start;
	size_t room = io->data_size > io->data_start ? io->data_size - io->data_start : 0;
	size_t off = 0;

	for (uint32_t i = 0; i < io->target_count; i++) {
		const struct dm_target_spec *s = (const void *)(base + off);
		const char *params = (const char *)(s + 1);
		int rc;

		if (off + sizeof(*s) >= room ||
		    !memchr(params, '\0', room - off - sizeof(*s)))
			return -EIO;
		rc = dm_add_target(dm, s, params);
		if (rc)
			return rc;
		if (s->next <= off && i + 1 < io->target_count)
			return -EIO;
		off = s->next;
	}
	return 0;
}

/* The live table of device-mapper device @dm, through /dev/mapper/control (@ctl). */
static int dm_table(int ctl, struct dminfo *dm)
{
	size_t size = 16384;

	for (int attempt = 0; attempt < 5; attempt++, size *= 4) {
		struct dm_ioctl *io = calloc(1, size);
		int rc;

		if (!io)
			return -ENOMEM;
		io->version[0] = DM_VERSION_MAJOR;
		io->data_size = (uint32_t)size;
		io->data_start = sizeof(*io);
		io->flags = DM_STATUS_TABLE_FLAG;
		snprintf(io->name, sizeof(io->name), "%s", dm->mapname);
		if (ioctl(ctl, DM_TABLE_STATUS, io) != 0) {
			rc = -errno;
			free(io);
			return rc;
		}
		if (io->flags & DM_BUFFER_FULL_FLAG) {
			free(io);
			continue;
		}
		rc = dm_parse(dm, io);
		free(io);
		return rc;
	}
	return -E2BIG;
}

static void dm_slaves(struct dminfo *dm)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/block/%s/slaves", dm->name);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) && dm->n_slaves < sizeof(dm->slaves) / sizeof(dm->slaves[0])) {
		char buf[32];
		unsigned ma, mi;

		snprintf(path, sizeof(path), "/sys/block/%s/slaves/%s/dev", dm->name, de->d_name);
		if (de->d_name[0] != '.' && !read_small(path, buf, sizeof(buf)) &&
		    sscanf(buf, "%u:%u", &ma, &mi) == 2)
			dm->slaves[dm->n_slaves++] = makedev(ma, mi);
	}
	closedir(d);
}

static int load_dms(struct walk *w)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	int ctl, rc = 0;

	if (!d)
		return 0;
	ctl = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	while (!rc && (de = readdir(d))) {
		char path[PATH_MAX];
		struct dminfo dm = { 0 }, *nv;

		if (strncmp(de->d_name, "dm-", 3) || strlen(de->d_name) >= sizeof(dm.name) ||
		    !sysfs_devno(de->d_name, &dm.rdev))
			continue;
		snprintf(dm.name, sizeof(dm.name), "%s", de->d_name);
		snprintf(path, sizeof(path), "/sys/block/%s/dm/name", de->d_name);
		if (read_small(path, dm.mapname, sizeof(dm.mapname)))
			dm.mapname[0] = '\0';
		dm_slaves(&dm);
		/* Without the table, every device it sits on counts as wholly mapped. */
		dm.table_known = ctl >= 0 && dm.mapname[0] && dm_table(ctl, &dm) == 0;
		nv = realloc(w->dms, (w->n_dms + 1) * sizeof(*nv));
		if (!nv) {
			rc = -ENOMEM;
			break;
		}
		w->dms = nv;
		w->dms[w->n_dms++] = dm;
	}
	if (ctl >= 0)
		close(ctl);
	closedir(d);
	return rc;
}

static int push_unique(char ***v, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], s))
			return 0;
	return fdw_strv_push(v, n, s);
}

/* @lp maps some of our bytes: it is a holder, and what sits on it is looked at too. */
static bool visit_loop(struct walk *w, struct loopinfo *lp)
{
	for (size_t i = 0; i < w->n_ext; i++) {
		uint64_t lo, hi;
		struct extent e;

		if (!overlap(&lp->back, &w->ext[i], &lo, &hi))
			continue;
		lp->role = LOOP_HOLDER;
		e = block_extent(lp->rdev, lo - lp->back.start, hi - lp->back.start, lp->name);
		add_extent(w, &e);
		return true;
	}
	return false;
}

/* Where in @dm target @t's sectors land on a device we watch, if anywhere. */
static bool visit_dm_target(struct walk *w, const struct dminfo *dm, const struct dmtarget *t)
{
	uint64_t t_lo = t->start * SECTOR, t_hi = (t->start + t->len) * SECTOR;
	unsigned ma, mi;
	unsigned long long sec;
	char *save = NULL, *copy = strdup(t->params), *tok;
	bool hit = false;

	if (!copy)
		return true;	/* cannot tell: count it */
	if (!strcmp(t->type, "linear") && sscanf(t->params, "%u:%u %llu", &ma, &mi, &sec) == 3) {
		struct extent src = block_extent(makedev(ma, mi), sec * SECTOR,
						 sec * SECTOR + t->len * SECTOR, NULL);

		for (size_t i = 0; i < w->n_ext && !hit; i++) {
			uint64_t lo, hi;
			struct extent e;

			if (!overlap(&src, &w->ext[i], &lo, &hi))
				continue;
			e = block_extent(dm->rdev, t_lo + (lo - src.start), t_lo + (hi - src.start),
					 dm->name);
			add_extent(w, &e);
			hit = true;
		}
		free(copy);
		return hit;
	}
	/* Any other target (crypt, striped, mirror, ...): a device of ours in it means all. */
	for (tok = strtok_r(copy, " ", &save); tok && !hit; tok = strtok_r(NULL, " ", &save)) {
		char end;

		if (sscanf(tok, "%u:%u%c", &ma, &mi, &end) != 2)
			continue;
		for (size_t i = 0; i < w->n_ext && !hit; i++)
			hit = !w->ext[i].file && w->ext[i].dev == makedev(ma, mi);
	}
	free(copy);
	if (hit) {
		struct extent e = block_extent(dm->rdev, t_lo, t_hi, dm->name);

		add_extent(w, &e);
	}
	return hit;
}

static bool visit_dm(struct walk *w, struct dminfo *dm)
{
	bool hit = false;

	if (w->skip_dm && !strcmp(dm->mapname, w->skip_dm))
		return false;
	if (dm->table_known) {
		for (size_t i = 0; i < dm->n_t; i++)
			hit |= visit_dm_target(w, dm, &dm->t[i]);
	} else {
		for (size_t s = 0; s < dm->n_slaves && !hit; s++)
			for (size_t i = 0; i < w->n_ext && !hit; i++)
				hit = !w->ext[i].file && w->ext[i].dev == dm->slaves[s];
		if (hit) {
			struct extent e = block_extent(dm->rdev, 0, UINT64_MAX, dm->name);

			add_extent(w, &e);
		}
	}
	dm->holder = hit;
	return hit;
}

/* Other kernel holders (md, bcache): all of them count; dm goes by its table above. */
static int visit_sysfs(struct walk *w, struct extent *e, bool *changed)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	e->sysfs_seen = true;
	if (e->file)
		return 0;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/holders", major(e->dev),
		 minor(e->dev));
	d = opendir(path);
	if (!d)
		return 0;
	while (!rc && (de = readdir(d))) {
		struct extent h;
		dev_t dev;

		if (de->d_name[0] == '.' || !strncmp(de->d_name, "dm-", 3) ||
		    strlen(de->d_name) >= sizeof(h.node) - 5 || !sysfs_devno(de->d_name, &dev))
			continue;
		h = block_extent(dev, 0, UINT64_MAX, de->d_name);
		add_extent(w, &h);
		rc = push_unique(&w->out->names, &w->out->n_names, de->d_name);
		*changed = true;
	}
	closedir(d);
	return rc;
}

/*
 * The volume of a conversion being resumed may sit on a loop device of ours that a killed
 * worker left to it: that loop device is no holder either, as long as that volume is
 * what holds it.
 */
static void spare_loops_under_skip(struct walk *w)
{
	for (size_t d = 0; d < w->n_dms; d++) {
		char path[PATH_MAX];

		if (!w->skip_dm || strcmp(w->dms[d].mapname, w->skip_dm))
			continue;
		for (size_t l = 0; l < w->n_loops; l++) {
			snprintf(path, sizeof(path), "/sys/block/%s/holders/%s", w->loops[l].name,
				 w->dms[d].name);
			if (w->loops[l].role == LOOP_OTHER && access(path, F_OK) == 0)
				w->loops[l].role = LOOP_BASE;
		}
	}
}

static int walk_holders(struct walk *w)
{
	bool changed = true;
	int rc = 0;

	for (int round = 0; changed && !rc && round < 32; round++) {
		changed = false;
		for (size_t i = 0; i < w->n_loops; i++)
			if (w->loops[i].role == LOOP_OTHER && visit_loop(w, &w->loops[i])) {
				changed = true;
				rc = push_unique(&w->out->names, &w->out->n_names,
						 w->loops[i].name);
			}
		for (size_t i = 0; i < w->n_dms && !rc; i++)
			if (!w->dms[i].holder && visit_dm(w, &w->dms[i])) {
				changed = true;
				rc = push_unique(&w->out->names, &w->out->n_names, w->dms[i].name);
			}
		for (size_t i = 0; i < w->n_ext && !rc; i++)
			if (!w->ext[i].sysfs_seen)
				rc = visit_sysfs(w, &w->ext[i], &changed);
	}
	return rc;
}

/*
 * The partition's own device may be a loop device (a loop device named as the disk, or
 * as the filesystem): its backing bytes are ours too, so another loop device over them
 * is a holder, but the loop devices ours is built on are not.
 */
static void add_bases(struct walk *w)
{
	for (size_t i = 0; i < w->n_ext; i++) {
		for (size_t l = 0; l < w->n_loops; l++) {
			struct loopinfo *lp = &w->loops[l];
			struct extent e = lp->back;

			if (w->ext[i].file || lp->rdev != w->ext[i].dev || lp->role != LOOP_OTHER)
				continue;
			lp->role = LOOP_BASE;
			e.start = lp->back.start + w->ext[i].start;
			if (w->ext[i].end != UINT64_MAX &&
			    lp->back.start + w->ext[i].end < lp->back.end)
				e.end = lp->back.start + w->ext[i].end;
			e.node[0] = '\0';
			e.sysfs_seen = false;
			add_extent(w, &e);
		}
	}
}

static bool swap_matches(const struct fdw_sysstate *st, const struct extent *e)
{
	for (size_t i = 0; i < st->n_swaps; i++) {
		struct stat sb;

		if (stat(st->swaps[i], &sb) != 0)
			continue;
		if (e->file ? (S_ISREG(sb.st_mode) && sb.st_dev == e->dev && sb.st_ino == e->ino)
			    : (S_ISBLK(sb.st_mode) && sb.st_rdev == e->dev))
			return true;
	}
	return false;
}

/* Mounts and swaps of every device that maps our bytes, the partition's own included. */
static int collect_use(struct walk *w, const struct fdw_sysstate *st)
{
	struct fdw_holders *h = w->out;
	int rc = 0;

	for (size_t i = 0; i < w->n_ext && !rc; i++) {
		const struct extent *e = &w->ext[i];

		if (swap_matches(st, e))
			h->swap = true;
		if (e->file)
			continue;
		for (size_t m = 0; m < st->n_mounts && !rc; m++) {
			const struct fdw_mount *mt = &st->mounts[m];
			/* btrfs reports an anonymous device number; its source names the device. */
			bool same = (mt->major == major(e->dev) && mt->minor == minor(e->dev)) ||
				    (e->node[0] && !strcmp(mt->source, e->node));

			if (same)
				rc = push_unique(&h->mountpoints, &h->n_mountpoints, mt->mountpoint);
		}
	}
	return rc;
}

/* The partition's bytes as seed extents: in its image file, in its disk, as its own node. */
static void add_seeds(struct walk *w, const char *disk_path, const struct fdw_partition *p)
{
	struct stat sb;
	struct extent e = { 0 };

	if (stat(disk_path, &sb) == 0 && (S_ISREG(sb.st_mode) || S_ISBLK(sb.st_mode))) {
		e.file = S_ISREG(sb.st_mode);
		e.dev = e.file ? sb.st_dev : sb.st_rdev;
		e.ino = e.file ? sb.st_ino : 0;
		e.start = p->start;
		e.end = p->start + p->size;
		if (!e.file && p->number == 0)
			snprintf(e.node, sizeof(e.node), "%s", disk_path);
		add_extent(w, &e);
	}
	if (p->node && stat(p->node, &sb) == 0 && S_ISBLK(sb.st_mode)) {
		e = block_extent(sb.st_rdev, 0, p->size, NULL);
		snprintf(e.node, sizeof(e.node), "%s", p->node);
		add_extent(w, &e);
	}
	w->n_seeds = w->n_ext;
}

static void walk_free(struct walk *w)
{
	for (size_t i = 0; i < w->n_dms; i++) {
		for (size_t t = 0; t < w->dms[i].n_t; t++)
			free(w->dms[i].t[t].params);
		free(w->dms[i].t);
	}
	free(w->dms);
	free(w->loops);
	free(w);
}

int fdw_holders_find(const struct fdw_sysstate *st, const char *disk_path,
		     const struct fdw_partition *p, const char *skip_dm, struct fdw_holders *out)
{
	struct walk *w = calloc(1, sizeof(*w));	/* large: off the stack */
	int rc;

	if (!w)
		return -ENOMEM;
	w->skip_dm = skip_dm && skip_dm[0] ? skip_dm : NULL;
	w->out = out;
	add_seeds(w, disk_path, p);
	rc = load_loops(w);
	if (!rc)
		rc = load_dms(w);
	if (!rc) {
		add_bases(w);
		spare_loops_under_skip(w);
		rc = walk_holders(w);
	}
	if (!rc)
		rc = collect_use(w, st);
	walk_free(w);
	return rc;
}

void fdw_holders_free(struct fdw_holders *h)
{
	fdw_strv_free(h->names, h->n_names);
	fdw_strv_free(h->mountpoints, h->n_mountpoints);
	memset(h, 0, sizeof(*h));
}

static void say_in_use(const char *address, const struct fdw_holders *h, char *why, size_t len)
{
	if (h->n_names && h->n_mountpoints)
		snprintf(why, len, _("%s is in use by %s, mounted at %s: unmount it and detach "
				     "%s first. Nothing was changed."), address, h->names[0],
			 h->mountpoints[0], h->names[0]);
	else if (h->n_names)
		snprintf(why, len, _("%s is in use by %s: stop that first (losetup -d, dmsetup "
				     "remove). Not mounted here, but another mount namespace (a "
				     "container) may mount it: 'grep -l /dev/%s /proc/[0-9]*/mountinfo' "
				     "names its processes. Nothing was changed."), address, h->names[0],
			 h->names[0]);
	else if (h->n_mountpoints)
		snprintf(why, len, _("%s is mounted at %s: unmount it first. Nothing was changed."),
			 address, h->mountpoints[0]);
	else
		snprintf(why, len, _("%s is an active swap: turn it off first (swapoff). Nothing "
				     "was changed."), address);
}

int fdw_holders_check(const struct fdw_target *t, const char *skip_dm, char *why, size_t len)
{
	struct fdw_holders h = { 0 };
	struct fdw_sysstate st;
	int rc = fdw_sysstate_load(&st);

	if (!rc)
		rc = fdw_holders_find(&st, t->disk.path, t->part, skip_dm, &h);
	fdw_sysstate_free(&st);
	if (rc) {
		snprintf(why, len, _("cannot tell whether %s is in use (%s). Nothing was changed."),
			 t->part->address, strerror(-rc));
	} else if (h.n_names || h.n_mountpoints || h.swap) {
		say_in_use(t->part->address, &h, why, len);
		rc = -EBUSY;
	}
	fdw_holders_free(&h);
	return rc;
}
