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
	bool found;
	char name[128];
	char where[64];
};

bool fdw_system_peek_needed(const char *fstype)
{
	return fstype && (!strcmp(fstype, "btrfs") || !strcmp(fstype, "xfs"));
}

/* Read-only and no log replay: not a byte of the filesystem is written. */
static const char *no_replay_option(const char *fstype)
{
	return !strcmp(fstype, "btrfs") ? "rescue=nologreplay" : "norecovery";
}

/* Is @top/@sub/etc/fstab a regular file (no link followed)? */
static bool has_fstab(const char *top, const char *sub)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s/etc/fstab", top, sub);
	return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The system's PRETTY_NAME from @top/@sub/etc/os-release, or "". */
static void system_name(const char *top, const char *sub, char *name, size_t len)
{
	struct fdw_installed_os os = { 0 };
	char path[PATH_MAX], *text;

	snprintf(path, sizeof(path), "%s/%s/etc/os-release", top, sub);
	if (fdw_read_file(path, 64 * 1024, FDW_READ_NOFOLLOW | FDW_READ_TEXT, &text, NULL,
			  NULL) == 0) {
		fdw_installed_os_parse_os_release(text, &os);
		free(text);
	}
	snprintf(name, len, "%s", os.name);
}

/* Its top, then each folder of its top (btrfs subvolumes appear as folders). */
static void look(const char *top, struct peek_reply *r)
{
	DIR *dir;
	struct dirent *de;

	if (has_fstab(top, ".")) {
		r->found = true;
		snprintf(r->where, sizeof(r->where), "/");
		system_name(top, ".", r->name, sizeof(r->name));
		return;
	}
	dir = opendir(top);
	while (dir && (de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.' || !has_fstab(top, de->d_name))
			continue;
		r->found = true;
		snprintf(r->where, sizeof(r->where), "/%.62s", de->d_name);
		system_name(top, de->d_name, r->name, sizeof(r->name));
		break;
	}
	if (dir)
		closedir(dir);
}

static int peek_child(void *ctx, int fd, int status_fd)
{
	static struct peek_reply r;
	struct fdw_target tg = *(const struct fdw_target *)ctx;	/* its own loop device */
	const char *type = tg.part->fstype;
	char top[128];

	(void)status_fd;
	r.rc = fdw_private_mount_dir("peek", top, sizeof(top));
	if (!r.rc)
		r.rc = fdw_target_attach(&tg);
	if (!r.rc && mount(tg.device, top, type, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			   no_replay_option(type)) != 0)
		r.rc = -errno;
	if (!r.rc) {
		look(top, &r);
		umount2(top, MNT_DETACH);
	}
	/* Our own loop device (autoclear) goes with its last descriptor; wait until it has. */
	if (tg.loop_attached && !((const struct fdw_target *)ctx)->loop_attached) {
		close(tg.loop_fd);
		fdw_loop_wait_detached(tg.device);
	}
	return fdw_child_send(fd, &r, sizeof(r)) ? 1 : 0;
}

int fdw_system_peek(const struct fdw_target *t, bool *found, char *name, size_t name_len,
		    char *where, size_t where_len)
{
	const struct fdw_child_opts o = { .parent_death_signal = SIGKILL };
	struct peek_reply r = { .rc = -ECHILD };
	struct fdw_child c;
	size_t got = 0;
	ssize_t n;
	int rc;

	*found = false;
	rc = fdw_child_start(&c, &o, peek_child, (void *)t);
	if (rc)
		return rc;
	while (got < sizeof(r) && ((n = read(c.reply_fd, (char *)&r + got, sizeof(r) - got)) > 0 ||
				   (n < 0 && errno == EINTR)))
		got += n > 0 ? (size_t)n : 0;
	fdw_child_reap(&c);
	if (got != sizeof(r))
		return -ECHILD;
	if (r.rc) {
		fdw_log(FDW_LOG_WARN, "%s: cannot look inside its %s: %s", t->part->address,
			t->part->fstype, strerror(-r.rc));
		return r.rc;
	}
	*found = r.found;
	r.name[sizeof(r.name) - 1] = r.where[sizeof(r.where) - 1] = '\0';
	snprintf(name, name_len, "%s", r.name);
	snprintf(where, where_len, "%s", r.where);
	return 0;
}

int fdw_system_peek_refusal(const struct fdw_target *t, char *why, size_t len)
{
	char name[128], where[64];
	bool found;
	int rc;

	if (!fdw_system_peek_needed(t->part->fstype))
		return 0;
	rc = fdw_system_peek(t, &found, name, sizeof(name), where, sizeof(where));
	if (rc) {
		snprintf(why, len, _("%s could not be looked inside (mounting its %s read-only "
				     "failed: %s), so fdewiz cannot tell whether it holds an "
				     "installed system that would no longer start. Mount it once "
				     "and unmount it cleanly, then try again. Nothing was changed."),
			 t->part->address, t->part->fstype, strerror(-rc));
		return rc;
	}
	if (!found)
		return 0;
	snprintf(why, len, _("%s holds an installed system (%s, in %s of its %s): fdewiz sets "
			     "up the boot of a system on ext4 only for now, and encrypting it "
			     "would leave that system unable to start. Nothing was changed."),
		 t->part->address, name[0] ? name : _("no name given"), where,
		 t->part->fstype);
	return -EPERM;
}
