/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The running system's initramfs made with or without a restart's step, or put back. */
#include "config.h"

#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/durable.h"
#include "base/fileio.h"
#include "base/i18n.h"
#include "base/spawn.h"
#include "restart_files.h"
#include "restart_initrd.h"

/* An initramfs is tens of MiB; one larger than this is not copied but made again. */
#define INITRD_MAX (512u << 20)

static int running_initrd(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u) != 0)
		return -errno;
	snprintf(buf, len, "/boot/initrd.img-%s", u.release);
	return 0;
}

int fdw_initrd_remake_running(char *initrd, size_t ilen, char *listing, size_t llen,
			      char *why, size_t len)
{
	char *mk[] = { "update-initramfs", "-u", "-k", "all", NULL };
	char *ls[] = { "lsinitramfs", initrd, NULL };
	int rc = running_initrd(initrd, ilen);

	if (rc)
		return rc;
	rc = fdw_spawn(mk);
	if (rc) {
		snprintf(why, len, _("update-initramfs failed (exit status %d; the log says "
				     "more)."), rc);
		return rc > 0 ? -EIO : rc;
	}
	rc = fdw_spawn_stdout(ls, listing, llen);
	if (rc) {
		snprintf(why, len, _("%s could not be listed (exit status %d)."), initrd, rc);
		return rc > 0 ? -EIO : rc;
	}
	return 0;
}

int fdw_restart_initrd_remake(bool want_step, char *initrd, size_t ilen, char *why, size_t len)
{
	static char listing[1 << 20];
	bool has_stage, has_exe;
	int rc = fdw_initrd_remake_running(initrd, ilen, listing, sizeof(listing), why, len);

	if (rc)
		return rc;
	has_stage = strstr(listing, "fdewiz-restart/stage\n") != NULL;
	has_exe = strstr(listing, "sbin/fdewiz\n") != NULL;
	if (want_step && !(has_stage && has_exe && strstr(listing, "sbin/resize2fs\n") &&
			   strstr(listing, "local-top/" FDW_RESTART_NAME "\n"))) {
		snprintf(why, len, _("%s was made again but does not carry fdewiz's step."),
			 initrd);
		return -ENOEXEC;
	}
	if (!want_step && has_stage) {
		snprintf(why, len, _("%s still carries fdewiz's step."), initrd);
		return -EEXIST;
	}
	return 0;
}

static void kept_paths(const char *dir, char *copy, char *mark, size_t len)
{
	snprintf(copy, len, "%s/initrd.before", dir);
	snprintf(mark, len, "%s/initrd.made", dir);
}

int fdw_restart_initrd_keep(const char *dir)
{
	char initrd[300], copy[PATH_MAX], mark[PATH_MAX], *data = NULL;
	size_t n;
	int rc = running_initrd(initrd, sizeof(initrd));

	kept_paths(dir, copy, mark, sizeof(copy));
	if (!rc)
		rc = fdw_read_file(initrd, INITRD_MAX, FDW_READ_NOFOLLOW, &data, &n, NULL);
	if (!rc)
		rc = fdw_write_file_atomic(copy, data, n, 0600);
	free(data);
	return rc;
}

/* "size mtime-seconds mtime-nanoseconds" of the running kernel's initramfs. */
static int initrd_identity(char *buf, size_t len)
{
	char initrd[300];
	struct stat st;
	int rc = running_initrd(initrd, sizeof(initrd));

	if (rc)
		return rc;
	if (lstat(initrd, &st) != 0)
		return -errno;
	snprintf(buf, len, "%" PRIu64 " %lld %ld\n", (uint64_t)st.st_size,
		 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	return 0;
}

int fdw_restart_initrd_mark(const char *dir)
{
	char copy[PATH_MAX], mark[PATH_MAX], id[96];
	int rc = initrd_identity(id, sizeof(id));

	kept_paths(dir, copy, mark, sizeof(copy));
	return rc ? rc : fdw_write_file_atomic(mark, id, strlen(id), 0600);
}

static size_t initrd_count(void)
{
	glob_t g;
	size_t n = 0;

	if (glob("/boot/initrd.img-*", 0, NULL, &g) == 0)
		n = g.gl_pathc;
	globfree(&g);
	return n;
}

int fdw_restart_initrd_restore(const char *dir)
{
	char initrd[300], copy[PATH_MAX], mark[PATH_MAX], id[96], *made = NULL, *data = NULL;
	size_t n;
	int rc;

	kept_paths(dir, copy, mark, sizeof(copy));
	if (initrd_count() != 1 || initrd_identity(id, sizeof(id)) != 0 ||
	    fdw_read_file(mark, 256, FDW_READ_NOFOLLOW | FDW_READ_TEXT, &made, &n, NULL) != 0)
		return -ESTALE;
	rc = strcmp(made, id) ? -ESTALE : running_initrd(initrd, sizeof(initrd));
	free(made);
	if (!rc)
		rc = fdw_read_file(copy, INITRD_MAX, FDW_READ_NOFOLLOW, &data, &n, NULL);
	if (rc == -ENOENT)
		rc = -ESTALE;
	if (!rc)
		rc = fdw_write_file_atomic(initrd, data, n, 0644);
	free(data);
	return rc;
}

void fdw_restart_initrd_forget(const char *dir)
{
	char copy[PATH_MAX], mark[PATH_MAX];

	kept_paths(dir, copy, mark, sizeof(copy));
	unlink(copy);
	unlink(mark);
}
