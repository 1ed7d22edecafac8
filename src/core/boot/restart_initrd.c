/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The running system's initramfs made with or without a restart's step, or put back. */
#include "config.h"

#include <dirent.h>
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
#include "initramfs_builders.h"
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
	fdw_initramfs_builders_settle();
	rc = fdw_spawn(mk);
	if (rc) {
		snprintf(why, len, _("update-initramfs failed (exit status %d; the log says "
				     "more)."), rc);
		return rc > 0 ? -EIO : rc;
	}
	if (!listing)
		return 0;
	rc = fdw_spawn_stdout(ls, listing, llen);
	if (rc) {
		snprintf(why, len, _("%s could not be listed (exit status %d)."), initrd, rc);
		return rc > 0 ? -EIO : rc;
	}
	return 0;
}

/* Does @listing (lsinitramfs) carry the step whole: fdewiz, its script, its stage? */
static bool carries_step(const char *listing)
{
	return strstr(listing, "fdewiz-restart/stage\n") && strstr(listing, "sbin/fdewiz\n") &&
	       strstr(listing, "sbin/resize2fs\n") &&
	       strstr(listing, "local-top/" FDW_RESTART_NAME "\n");
}

/*
 * Every kernel's initramfs, not only the running one's: a kernel installed since the
 * system started is the one the next restart takes. @want_step: each carries the step
 * whole; else none carries its stage.
 */
static int check_every_initrd(bool want_step, char *listing, size_t llen, char *why,
			      size_t len)
{
	glob_t g;
	int rc = 0;

	if (glob("/boot/initrd.img-*", 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; !rc && i < g.gl_pathc; i++) {
		char kernel[PATH_MAX];
		char *ls[] = { "lsinitramfs", g.gl_pathv[i], NULL };

		snprintf(kernel, sizeof(kernel), "/boot/vmlinuz-%s",
			 g.gl_pathv[i] + strlen("/boot/initrd.img-"));
		/* What a cut update-initramfs leaves (.new, .dpkg-bak) is no kernel's. */
		if (access(kernel, F_OK) != 0)
			continue;
		rc = fdw_spawn_stdout(ls, listing, llen);
		if (rc) {
			snprintf(why, len, _("%s could not be listed (exit status %d)."),
				 g.gl_pathv[i], rc);
			rc = rc > 0 ? -EIO : rc;
		} else if (want_step && !carries_step(listing)) {
			snprintf(why, len, _("%s was made again but does not carry fdewiz's step."),
				 g.gl_pathv[i]);
			rc = -ENOEXEC;
		} else if (!want_step && strstr(listing, "fdewiz-restart/stage\n")) {
			snprintf(why, len, _("%s still carries fdewiz's step."), g.gl_pathv[i]);
			rc = -EEXIST;
		}
	}
	globfree(&g);
	return rc;
}

int fdw_restart_initrd_remake(bool want_step, char *initrd, size_t ilen, char *why, size_t len)
{
	static char listing[1 << 20];
	int rc = fdw_initrd_remake_running(initrd, ilen, NULL, 0, why, len);

	return rc ? rc : check_every_initrd(want_step, listing, sizeof(listing), why, len);
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
	char copy[PATH_MAX], mark[PATH_MAX], carried[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *de;
	DIR *d;

	kept_paths(dir, copy, mark, sizeof(copy));
	unlink(copy);
	unlink(mark);
	snprintf(carried, sizeof(carried), "%s/carried", dir);
	d = opendir(carried);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", carried, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(carried);
}

static void add_version(char *list, size_t len, const char *version)
{
	size_t n = strlen(list);

	if (n < len)
		snprintf(list + n, len - n, "%s%s", n ? ", " : "", version);
}

void fdw_restart_initrd_carriers(const char *dir, char *with, size_t wlen, char *without,
				 size_t wolen)
{
	glob_t g;

	with[0] = without[0] = '\0';
	if (glob("/boot/vmlinuz-*", 0, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *version = g.gl_pathv[i] + strlen("/boot/vmlinuz-");
		char initrd[PATH_MAX], marker[PATH_MAX + 300];
		struct stat si, sm;
		bool carried;

		snprintf(initrd, sizeof(initrd), "/boot/initrd.img-%s", version);
		snprintf(marker, sizeof(marker), "%s/carried/%s", dir, version);
		/* The hook notes it while the initramfs is made, which is written at the end: an
		 * initramfs older than the note is not the one the hook went into. */
		carried = stat(initrd, &si) == 0 && stat(marker, &sm) == 0 &&
			  (si.st_mtim.tv_sec > sm.st_mtim.tv_sec ||
			   (si.st_mtim.tv_sec == sm.st_mtim.tv_sec &&
			    si.st_mtim.tv_nsec >= sm.st_mtim.tv_nsec));
		add_version(carried ? with : without, carried ? wlen : wolen, version);
	}
	globfree(&g);
}
