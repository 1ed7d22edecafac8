/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An installed system's swap partitions: a random key at every boot, the plain swap wiped. */
#include "config.h"

#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/durable.h"
#include "base/fileio.h"
#include "base/i18n.h"
#include "base/log.h"
#include "system_boot_internal.h"
#include "base/testhook.h"

#define MAX_SWAPS 4
/* The options of the crypttab line fdewiz writes for a swap partition. */
#define SWAP_OPTS "/dev/urandom swap,cipher=aes-xts-plain64,size=512"

struct swap_part {
	char spec[256];			/* as its fstab names it */
	char dev[256];
	char partuuid[64];
	char name[32];			/* cryptswap1, ... */
};

/* @path whole (a table of the target system: a link there is not followed), or NULL with
 * errno set. */
static char *read_text(const char *path)
{
	char *text;
	int rc = fdw_read_file(path, 16u << 20, FDW_READ_NOFOLLOW | FDW_READ_TEXT, &text, NULL,
			       NULL);

	if (rc)
		errno = -rc;
	return rc ? NULL : text;
}

/*
 * A swap line fdewiz rewrote already (a crash before the plain swap was overwritten):
 * "/dev/mapper/NAME" in fstab with "NAME PARTUUID=... SWAP_OPTS" in crypttab. Its
 * partition comes back from that PARTUUID, so that the step can finish.
 */
static int ours_in_crypttab(const char *crypttab, const char *spec, struct swap_part *sw)
{
	const char *name = spec + strlen("/dev/mapper/"), *at = crypttab;
	char want[96], pu[64], opts[128];

	if (!crypttab || strncmp(name, "cryptswap", 9) || strlen(name) >= sizeof(sw->name))
		return -ENOENT;
	snprintf(want, sizeof(want), "%s PARTUUID=", name);
	while ((at = strstr(at, want)) != NULL) {
		if ((at == crypttab || at[-1] == '\n') &&
		    sscanf(at + strlen(want), "%63s %127[^\n]", pu, opts) == 2 &&
		    !strcmp(opts, SWAP_OPTS)) {
			snprintf(sw->partuuid, sizeof(sw->partuuid), "%s", pu);
			snprintf(sw->name, sizeof(sw->name), "%s", name);
			snprintf(want, sizeof(want), "PARTUUID=%s", pu);
			return fdw_system_boot_find_boot(want, sw->dev, sizeof(sw->dev));
		}
		at += strlen(want);
	}
	return -ENOENT;
}

/* A swap partition its fstab names by @spec, with a PARTUUID here: 0, or why not. */
static int plain_swap(const char *spec, struct swap_part *sw, int n)
{
	char *pu;

	if (fdw_system_boot_find_boot(spec, sw->dev, sizeof(sw->dev)) != 0) {
		fdw_log(FDW_LOG_WARN, "system boot: swap %s is on no disk here; left as it is", spec);
		return -ENODEV;
	}
	pu = blkid_get_tag_value(NULL, "PARTUUID", sw->dev);
	if (!pu) {
		fdw_log(FDW_LOG_WARN, "system boot: swap %s has no PARTUUID; left as it is",
			sw->dev);
		return -ENOENT;
	}
	snprintf(sw->partuuid, sizeof(sw->partuuid), "%s", pu);
	snprintf(sw->name, sizeof(sw->name), "cryptswap%d", n + 1);
	free(pu);
	return 0;
}

/*
 * The swap partitions its fstab names that are on a partition with a PARTUUID here, and
 * those it names by a mapping fdewiz gave them in its crypttab (a step cut short).
 */
static int find_swaps(const char *fstab, const char *crypttab, struct swap_part *sw)
{
	char *copy = strdup(fstab), *save = NULL;
	int n = 0, rc;

	if (!copy)
		return 0;
	for (char *line = strtok_r(copy, "\n", &save); line && n < MAX_SWAPS;
	     line = strtok_r(NULL, "\n", &save)) {
		char spec[256], dir[256], type[64];

		if (line[0] == '#' || sscanf(line, "%255s %255s %63s", spec, dir, type) != 3 ||
		    strcmp(type, "swap"))
			continue;
		if (!strncmp(spec, "/dev/mapper/", 12))
			rc = ours_in_crypttab(crypttab, spec, &sw[n]);
		else
			rc = plain_swap(spec, &sw[n], n);
		if (rc)
			continue;
		snprintf(sw[n].spec, sizeof(sw[n].spec), "%s", spec);
		n++;
	}
	free(copy);
	return n;
}

/* Overwrite the whole partition: plaintext swap may hold anything that was in memory. */
static int wipe(const char *dev)
{
	static char zeros[1 << 20];
	uint64_t size = 0, done = 0;
	int fd = open(dev, O_WRONLY | O_EXCL | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKGETSIZE64, &size) != 0)
		rc = -errno;
	while (!rc && done < size) {
		size_t chunk = size - done < sizeof(zeros) ? (size_t)(size - done) : sizeof(zeros);
		ssize_t w = pwrite(fd, zeros, chunk, (off_t)done);

		if (w <= 0)
			rc = w < 0 ? -errno : -EIO;
		else
			done += (uint64_t)w;
	}
	if (!rc && fsync(fd) != 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* @rel in the record's list of changed files, once. */
static void note(struct fdw_sysboot_record *r, const char *rel, bool backup)
{
	size_t used = strlen(r->changed);
	char head[4200];

	snprintf(head, sizeof(head), "%s (", rel);
	for (const char *at = r->changed; (at = strstr(at, head)) != NULL; at++)
		if (at == r->changed || at[-1] == '\n')
			return;
	snprintf(r->changed + used, sizeof(r->changed) - used, "%s (%s%s)\n", rel,
		 backup ? rel : _("new file"), backup ? ".fdewiz-bak" : "");
}

/*
 * Write @text to @root@rel, the old file kept as FILE.fdewiz-bak (once). Already so (a
 * step done again after a crash): listed all the same when that backup is there.
 */
static int replace(const char *root, const char *rel, const char *text,
		   struct fdw_sysboot_record *r)
{
	char path[4096], bak[4200];
	char *old;
	int rc;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(bak, sizeof(bak), "%s.fdewiz-bak", path);
	old = read_text(path);
	if (old && !strcmp(old, text)) {
		if (access(bak, F_OK) == 0)
			note(r, rel, true);
		free(old);
		return 0;
	}
	if (old && access(bak, F_OK) != 0) {
		rc = fdw_write_file_atomic(bak, old, strlen(old), 0644);
		if (rc) {
			free(old);
			return rc;
		}
	}
	rc = fdw_write_file_atomic(path, text, strlen(text), 0644);
	if (!rc)
		note(r, rel, old != NULL);
	free(old);
	return rc;
}

int fdw_system_swap_step(const char *root, struct fdw_sysboot_record *r)
{
	struct swap_part sw[MAX_SWAPS];
	char path[4096], *fstab, *crypttab, *out = NULL, *save = NULL;
	size_t cap;
	int n, rc = 0;

	snprintf(path, sizeof(path), "%s/etc/fstab", root);
	fstab = read_text(path);
	if (!fstab)
		return -errno;
	snprintf(path, sizeof(path), "%s/etc/crypttab", root);
	crypttab = read_text(path);
	n = find_swaps(fstab, crypttab, sw);
	if (n == 0)
		goto out;
	cap = strlen(fstab) + (crypttab ? strlen(crypttab) : 0) + 1024 * MAX_SWAPS;
	out = calloc(1, cap);
	if (!out) {
		rc = -ENOMEM;
		goto out;
	}
	/* crypttab: a fresh random key at every boot, by the partition's stable PARTUUID. */
	snprintf(out, cap, "%s", crypttab ? crypttab : "");
	for (int i = 0; i < n; i++) {
		char line[512];

		snprintf(line, sizeof(line),
			 "%s PARTUUID=%s " SWAP_OPTS "\n",
			 sw[i].name, sw[i].partuuid);
		if (!strstr(out, line)) {
			if (out[0] && out[strlen(out) - 1] != '\n')
				strcat(out, "\n");
			strcat(out, line);
		}
	}
	rc = replace(root, "/etc/crypttab", out, r);
	/* fstab: the swap lines name the mapping; every other line stays (blank ones go). */
	out[0] = '\0';
	for (char *line = strtok_r(fstab, "\n", &save); !rc && line;
	     line = strtok_r(NULL, "\n", &save)) {
		int hit = -1;

		for (int i = 0; i < n; i++)
			if (!strncmp(line, sw[i].spec, strlen(sw[i].spec)) &&
			    (line[strlen(sw[i].spec)] == ' ' || line[strlen(sw[i].spec)] == '\t'))
				hit = i;
		if (hit >= 0)
			snprintf(out + strlen(out), cap - strlen(out), "/dev/mapper/%s%s\n",
				 sw[hit].name, line + strlen(sw[hit].spec));
		else
			snprintf(out + strlen(out), cap - strlen(out), "%s\n", line);
	}
	if (!rc)
		rc = replace(root, "/etc/fstab", out, r);
	/* No hibernation image can come from a swap with a random key: the initramfs must not
	 * wait for one. */
	if (!rc)
		rc = replace(root, "/etc/initramfs-tools/conf.d/resume", "RESUME=none\n", r);
	/* A crash here leaves the tables naming the mapping and the plain swap as it was:
	 * find_swaps() finds it again by its crypttab line, and the step goes on. */
	if (!rc)
		fdw_test_point("swap-tables-written");
	for (int i = 0; !rc && i < n; i++) {
		rc = wipe(sw[i].dev);
		if (rc)
			fdw_log(FDW_LOG_ERROR, "system boot: cannot overwrite the swap %s: %s",
				sw[i].dev, strerror(-rc));
		else
			fdw_log(FDW_LOG_INFO, "system boot: swap %s overwritten; it is %s from now on",
				sw[i].dev, sw[i].name);
	}
out:
	free(out);
	free(fstab);
	free(crypttab);
	return rc;
}
