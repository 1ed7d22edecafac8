/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Waiting for the other initramfs builds of this system to end before fdewiz's own. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "initramfs_builders.h"

static const char *const builders[] = { "update-initramfs", "mkinitramfs", "dracut" };

static bool is_builder_name(const char *arg)
{
	const char *base = strrchr(arg, '/');

	base = base ? base + 1 : arg;
	for (size_t i = 0; i < sizeof(builders) / sizeof(builders[0]); i++)
		if (!strcmp(base, builders[i]))
			return true;
	return false;
}

/*
 * Which builder @pid is, from its command line: the program itself, or the script a shell
 * runs ("/bin/sh /usr/sbin/update-initramfs -u"). NULL for any other process.
 */
static const char *builder_of(const char *proc, const char *pid, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/cmdline", proc, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	if (is_builder_name(buf))
		return buf;
	/* The second argument, when the first is a shell. */
	size_t first = strlen(buf);
	const char *shell = strrchr(buf, '/');

	shell = shell ? shell + 1 : buf;
	if ((ssize_t)first + 1 < n && (!strcmp(shell, "sh") || !strcmp(shell, "bash") ||
				       !strcmp(shell, "dash")) &&
	    is_builder_name(buf + first + 1))
		return buf + first + 1;
	return NULL;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static size_t scan(const char *proc, pid_t *pids, size_t max, char *who, size_t len)
{
	char cmd[512];
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir(proc);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		const char *name;
		long pid;

		if (!all_digits(de->d_name))
			continue;
		pid = strtol(de->d_name, NULL, 10);
		if (pid == (long)getpid())
			continue;
		name = builder_of(proc, de->d_name, cmd, sizeof(cmd));
		if (!name)
			continue;
		if (n == 0 && who && len) {
			const char *base = strrchr(name, '/');

			snprintf(who, len, "pid %ld: %s", pid, base ? base + 1 : name);
		}
		if (n < max)
			pids[n] = (pid_t)pid;
		n++;
	}
	closedir(d);
	return n;
}

size_t fdw_initramfs_builders(const char *proc, pid_t *pids, size_t max)
{
	return scan(proc, pids, max, NULL, 0);
}

int fdw_initramfs_builders_wait(unsigned timeout_s, char *who, size_t len)
{
	double end = fdw_now_s() + timeout_s;
	const struct timespec step = { 0, 250 * 1000 * 1000 };
	pid_t pid;
	size_t first = scan("/proc", &pid, 1, who, len), n = first;

	/* Said when it begins: the journal tells why the boot setup pauses. */
	if (first)
		fdw_log(FDW_LOG_INFO, "waiting for another initramfs build to end (%s)", who);
	/* Until none at all: one begun meanwhile read the files as they are now, but is
	 * waited for too, so that fdewiz's build is the last. */
	while (n) {
		if (fdw_now_s() >= end)
			return -ETIMEDOUT;
		nanosleep(&step, NULL);
		n = scan("/proc", &pid, 1, NULL, 0);
	}
	return (int)first;
}

void fdw_initramfs_builders_settle(void)
{
	char who[160] = "";
	int rc = fdw_initramfs_builders_wait(FDW_INITRAMFS_BUILD_WAIT_S, who, sizeof(who));

	if (rc > 0)
		fdw_log(FDW_LOG_INFO, "waited for another initramfs build to end (%s) before "
			"making the initramfs again", who);
	else if (rc < 0)
		fdw_log(FDW_LOG_WARN, "another initramfs build (%s) still runs after %d s; the "
			"initramfs is made again now and checked afterwards", who,
			FDW_INITRAMFS_BUILD_WAIT_S);
}
