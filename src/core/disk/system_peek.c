/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Is there an installed system inside a filesystem fdewiz cannot read without mounting it
 * (btrfs, XFS)? Looked at read-only, where no one else sees it, before anything changes. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "installed_os.h"
#include "private_mount.h"
#include "system_peek.h"
#include "base/child.h"
#include "base/fileio.h"
#include "base/i18n.h"
#include "base/log.h"
#include "base/loopdev.h"

/* What the looking child sends back. */
struct peek_reply {
	int rc;
	struct fdw_installed_os os;	/* os.found: a system is there */
	struct fdw_boot_files bf;	/* when none is: boot files, if asked for */
};

bool fdw_system_peek_needed(const char *fstype)
{
	return fstype && (!strcmp(fstype, "btrfs") || !strcmp(fstype, "xfs"));
}

/* The filesystems blkid names that the kernel mounts, and under which name; the options
 * that keep a read-only mount from writing (no log replay). */
static const struct {
	const char *blkid, *kernel, *options;
} mountable[] = {
	{ "btrfs", "btrfs", "rescue=nologreplay" },
	{ "xfs", "xfs", "norecovery" },
	{ "vfat", "vfat", NULL },
	{ "exfat", "exfat", NULL },
	{ "ntfs", "ntfs3", NULL },
	{ "hfsplus", "hfsplus", NULL },
	{ "hfs", "hfs", NULL },
	{ "f2fs", "f2fs", "norecovery" },
	{ "jfs", "jfs", NULL },
	{ "nilfs2", "nilfs2", "norecovery" },
	{ "udf", "udf", NULL },
};

static int mountable_index(const char *fstype)
{
	for (size_t i = 0; fstype && i < sizeof(mountable) / sizeof(mountable[0]); i++)
		if (!strcmp(fstype, mountable[i].blkid))
			return (int)i;
	return -1;
}

bool fdw_boot_files_peek_needed(const char *fstype)
{
	return mountable_index(fstype) >= 0;
}

/* Is @top/@sub/etc/fstab a regular file, with no link on the way? */
static bool has_fstab(int top, const char *sub)
{
	int dir = openat(top, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), etc = -1;
	struct stat st;
	bool yes;

	if (dir >= 0)
		etc = openat(dir, "etc", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	yes = etc >= 0 && fstatat(etc, "fstab", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	      S_ISREG(st.st_mode);
	if (etc >= 0)
		close(etc);
	if (dir >= 0)
		close(dir);
	return yes;
}

/* The reader of a system the child has made its root (chroot): its links resolve
 * inside it, as they do for the system itself. */
static int tree_exist(void *ctx, const char *const *paths, int n, bool *found)
{
	struct stat st;

	(void)ctx;
	for (int i = 0; i < n; i++)
		found[i] = lstat(paths[i], &st) == 0;
	return 0;
}

static int tree_cat(void *ctx, const char *const *paths, int n, char **text)
{
	(void)ctx;
	*text = NULL;
	for (int i = 0; i < n; i++) {
		struct stat st;

		/* Only a regular file: a FIFO would block, a device is no text. */
		if (stat(paths[i], &st) == 0 && S_ISREG(st.st_mode) &&
		    fdw_read_file(paths[i], FDW_OS_TEXT_MAX, FDW_READ_TEXT, text, NULL, NULL) == 0)
			return 0;
	}
	return -ENOENT;
}

/* The names in @dir, one a line, "." and ".." left out. */
static int tree_list(void *ctx, const char *dir, char **names)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t len = 0, cap = 4096;
	char *buf;

	(void)ctx;
	*names = NULL;
	if (!d)
		return -errno;
	buf = malloc(cap);
	while (buf && (de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (len + n + 2 > cap) {
			char *nb = realloc(buf, cap = (len + n + 2) * 2);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
		memcpy(buf + len, de->d_name, n);
		len += n;
		buf[len++] = '\n';
	}
	closedir(d);
	if (!buf)
		return -ENOMEM;
	buf[len] = '\0';
	*names = buf;
	return 0;
}

static bool tree_has_kernels(void *ctx)
{
	DIR *dir = opendir("/boot");
	struct dirent *de;
	bool yes = false;

	(void)ctx;
	while (dir && !yes && (de = readdir(dir)) != NULL)
		yes = !strncmp(de->d_name, "vmlinuz-", 8);
	if (dir)
		closedir(dir);
	return yes;
}

/* The folder at @top holding a system: "." itself, or one folder down (btrfs subvolumes
 * appear as folders); "" when none. */
static void find_system(const char *top, char *sub, size_t len)
{
	int fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir;
	struct dirent *de;

	sub[0] = '\0';
	if (fd < 0)
		return;
	if (has_fstab(fd, ".")) {
		snprintf(sub, len, ".");
		close(fd);
		return;
	}
	dir = fdopendir(fd);
	while (dir && (de = readdir(dir)) != NULL) {
		if (de->d_name[0] != '.' && strlen(de->d_name) < len &&
		    has_fstab(dirfd(dir), de->d_name)) {
			snprintf(sub, len, "%s", de->d_name);
			break;
		}
	}
	if (dir)
		closedir(dir);
	else
		close(fd);
}

/* Read the system at @top/@sub as its own root would show it (chroot), then come back. */
static void read_system(const char *top, const char *sub, const struct fdw_peek_where *w,
			struct peek_reply *r)
{
	const struct fdw_os_reader rd = { tree_exist, tree_cat, tree_has_kernels, NULL };
	int real_root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char root[PATH_MAX];

	snprintf(root, sizeof(root), "%s/%s", top, sub);
	if (real_root < 0 || chroot(root) != 0 || chdir("/") != 0) {
		r->rc = -errno;
	} else {
		r->rc = fdw_installed_os_read(&rd, w->uuid, w->label, &r->os);
		if (strcmp(sub, "."))
			snprintf(r->os.root_subvol, sizeof(r->os.root_subvol), "%s", sub);
		/* Its fstab mounts another subvolume at / (a snapshot found first, say): this
		 * tree is not the root it boots from. */
		if (strcmp(sub, ".") && r->os.fstab_subvol[0] &&
		    strcmp(r->os.fstab_subvol, sub))
			r->os.fstab_names_it = false;
	}
	/* Back to the real root, so that the mount can be undone by its path. */
	if (real_root >= 0 && (fchdir(real_root) != 0 || chroot(".") != 0 || chdir("/") != 0))
		r->rc = r->rc ? r->rc : -errno;
	if (real_root >= 0)
		close(real_root);
}

/* No system at @top: does a boot loader read it? Looked at as a tree of its own (chroot),
 * so that no link leads out of it. */
static void read_boot_files(const char *top, struct peek_reply *r)
{
	const struct fdw_boot_reader rd = { tree_list, tree_exist, tree_cat, NULL };
	int real_root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (real_root < 0 || chroot(top) != 0 || chdir("/") != 0)
		r->rc = -errno;
	else
		r->rc = fdw_boot_files_look(&rd, &r->bf);
	if (real_root >= 0 && (fchdir(real_root) != 0 || chroot(".") != 0 || chdir("/") != 0))
		r->rc = r->rc ? r->rc : -errno;
	if (real_root >= 0)
		close(real_root);
}

static int peek_child(void *ctx, int fd, int status_fd)
{
	static struct peek_reply r;
	const struct fdw_peek_where *w = ctx;
	const char *device = w->device;
	char top[128], sub[64], loop[64];
	int loop_fd = -1, m = mountable_index(w->fstype);

	(void)status_fd;
	r.rc = fdw_private_mount_dir("peek", top, sizeof(top));
	if (!r.rc && !device) {
		loop_fd = fdw_loop_attach(w->file, w->offset, w->size, loop, sizeof(loop));
		r.rc = loop_fd < 0 ? loop_fd : 0;
		device = loop;
	}
	if (!r.rc && m < 0)
		r.rc = -ENOTSUP;
	if (!r.rc && mount(device, top, mountable[m].kernel,
			   MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, mountable[m].options) != 0)
		r.rc = -errno;
	if (!r.rc) {
		find_system(top, sub, sizeof(sub));
		if (sub[0])
			read_system(top, sub, w, &r);
		else if (w->boot_files)
			read_boot_files(top, &r);
		umount2(top, MNT_DETACH);
	}
	/* Our own loop device (autoclear) goes with its last descriptor; wait until it has. */
	if (loop_fd >= 0) {
		close(loop_fd);
		fdw_loop_wait_detached(loop);
	}
	return fdw_child_send(fd, &r, sizeof(r)) ? 1 : 0;
}

int fdw_system_peek_os(const struct fdw_peek_where *w, struct fdw_installed_os *os)
{
	return fdw_system_peek(w, os, NULL);
}

int fdw_system_peek(const struct fdw_peek_where *w, struct fdw_installed_os *os,
		    struct fdw_boot_files *bf)
{
	const struct fdw_child_opts o = { .parent_death_signal = SIGKILL };
	static struct peek_reply r;
	struct fdw_child c;
	size_t got = 0;
	ssize_t n;
	int rc;

	struct fdw_peek_where asked = *w;

	memset(os, 0, sizeof(*os));
	if (bf)
		memset(bf, 0, sizeof(*bf));
	asked.boot_files = bf != NULL;
	r.rc = -ECHILD;
	rc = fdw_child_start(&c, &o, peek_child, &asked);
	if (rc)
		return rc;
	while (got < sizeof(r) && ((n = read(c.reply_fd, (char *)&r + got, sizeof(r) - got)) > 0 ||
				   (n < 0 && errno == EINTR)))
		got += n > 0 ? (size_t)n : 0;
	fdw_child_reap(&c);
	if (got != sizeof(r))
		return -ECHILD;
	if (r.rc) {
		/* A look for boot files that fails is the verdict's to say (not-looked-inside). */
		fdw_log(bf ? FDW_LOG_DEBUG : FDW_LOG_WARN, "%s: cannot look inside its %s: %s",
			w->device ? w->device : w->file, w->fstype, strerror(-r.rc));
		return r.rc;
	}
	*os = r.os;
	/* Outside text, sent back as bytes: terminated here whatever the child did. */
	os->name[sizeof(os->name) - 1] = os->root_subvol[sizeof(os->root_subvol) - 1] = '\0';
	if (bf && !os->found) {
		*bf = r.bf;
		fdw_boot_files_terminate(bf);
	}
	return 0;
}

int fdw_system_read_running(const char *uuid, const char *label, const char *mount_root,
			    struct fdw_installed_os *os)
{
	const struct fdw_os_reader rd = { tree_exist, tree_cat, tree_has_kernels, NULL };
	const char *sub = mount_root ? mount_root + strspn(mount_root, "/") : "";
	int rc;

	memset(os, 0, sizeof(*os));
	/* "/" is this system's tree: the reader's paths are read as they are. */
	rc = fdw_installed_os_read(&rd, uuid, label, os);
	if (rc)
		return rc;
	if (strlen(sub) >= sizeof(os->root_subvol))
		return -ENAMETOOLONG;
	snprintf(os->root_subvol, sizeof(os->root_subvol), "%s", sub);
	return 0;
}

int fdw_system_peek_refusal(const struct fdw_target *t, char *why, size_t len)
{
	const struct fdw_peek_where w = {
		.device = t->device[0] ? t->device : NULL, .file = t->disk.path,
		.offset = t->part->start, .size = t->part->size, .fstype = t->part->fstype,
		.uuid = t->part->uuid, .label = t->part->label,
	};
	struct fdw_installed_os os;
	int rc;

	if (!fdw_system_peek_needed(t->part->fstype))
		return 0;
	rc = fdw_system_peek_os(&w, &os);
	if (rc) {
		snprintf(why, len, _("%s could not be looked inside (mounting its %s read-only "
				     "failed: %s), so fdewiz cannot tell whether it holds an "
				     "installed system that would no longer start. Mount it once "
				     "and unmount it cleanly, then try again. Nothing was changed."),
			 t->part->address, t->part->fstype, strerror(-rc));
		return rc;
	}
	if (!os.found)
		return 0;
	snprintf(why, len, _("%s holds an installed system (%s, in /%s of its %s): fdewiz sets "
			     "up the boot of a system on ext4, or on btrfs on a disk, and "
			     "encrypting it would leave that system unable to start. Nothing "
			     "was changed."),
		 t->part->address, os.name[0] ? os.name : _("no name given"), os.root_subvol,
		 t->part->fstype);
	return -EPERM;
}
