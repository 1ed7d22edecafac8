/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An installed system's swap partitions: a random key at every boot, the plain swap wiped. */
#include "config.h"

#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <time.h>
#include <unistd.h>

#include "base/durable.h"
#include "base/fileio.h"
#include "base/i18n.h"
#include "base/log.h"
#include "base/tabfile.h"
#include "crypttab.h"
#include "luks2/convert.h"
#include "system_boot_internal.h"
#include "base/testhook.h"

#define MAX_SWAPS 4
/* The key and options of the crypttab line fdewiz writes for a swap partition. */
#define SWAP_KEY "/dev/urandom"
#define SWAP_OPTS "swap,cipher=aes-xts-plain64,size=512"

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

/* Is line @l of a crypttab fdewiz's own line for swap @name on PARTUUID=...? */
static bool our_swap_line(const struct fdw_tab_line *l, const char *name)
{
	return l->n == 4 && fdw_tab_field_is(l, 0, name) && l->flen[1] > 9 &&
	       !strncmp(l->at[1], "PARTUUID=", 9) && fdw_tab_field_is(l, 2, SWAP_KEY) &&
	       fdw_tab_field_is(l, 3, SWAP_OPTS);
}

/*
 * A swap line fdewiz rewrote already (a crash before the plain swap was overwritten):
 * "/dev/mapper/NAME" in fstab with "NAME PARTUUID=... SWAP_KEY SWAP_OPTS" in crypttab. Its
 * partition comes back from that PARTUUID, so that the step can finish.
 */
static int ours_in_crypttab(const char *crypttab, const char *spec, struct swap_part *sw)
{
	const char *name = spec + strlen("/dev/mapper/");
	struct fdw_tab_reader r;
	struct fdw_tab_line l;
	char source[96];

	if (!crypttab || strncmp(name, "cryptswap", 9) || strlen(name) >= sizeof(sw->name))
		return -ENOENT;
	fdw_tab_begin(&r, crypttab);
	while (fdw_tab_next(&r, &l)) {
		if (!our_swap_line(&l, name) || !fdw_tab_field(&l, 1, source, sizeof(source)) ||
		    strlen(source + 9) >= sizeof(sw->partuuid))
			continue;
		snprintf(sw->partuuid, sizeof(sw->partuuid), "%s", source + 9);
		snprintf(sw->name, sizeof(sw->name), "%s", name);
		return fdw_system_boot_find_boot(source, sw->dev, sizeof(sw->dev));
	}
	return -ENOENT;
}

/* Has @crypttab a line of fdewiz's for swap @sw already? */
static bool crypttab_has(const char *crypttab, const struct swap_part *sw)
{
	struct fdw_tab_reader r;
	struct fdw_tab_line l;
	char source[96];

	fdw_tab_begin(&r, crypttab);
	while (fdw_tab_next(&r, &l))
		if (our_swap_line(&l, sw->name) && fdw_tab_field(&l, 1, source, sizeof(source)) &&
		    !strcmp(source + 9, sw->partuuid))
			return true;
	return false;
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
	struct fdw_tab_reader r;
	struct fdw_tab_line l;
	int n = 0, rc;

	fdw_tab_begin(&r, fstab);
	while (n < MAX_SWAPS && fdw_tab_next(&r, &l)) {
		char spec[256];

		if (!fdw_tab_field_is(&l, 2, "swap") || !fdw_tab_field(&l, 0, spec, sizeof(spec)))
			continue;
		/* A swap file lives inside the root and is encrypted with it. */
		if (spec[0] == '/' && strncmp(spec, "/dev/", 5))
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
	return n;
}

/* A sysfs attribute's first line; "" when it cannot be read. */
static void sysfs_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f && fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

/*
 * The running system's own swap (its root converted after a restart) is in use: plain,
 * or already through the random-key mapping of fdewiz's crypttab line, opened at a start
 * that a power cut ended before this step was recorded. Its pages come back into memory
 * and that mapping is closed; the next start opens it again with a new key. True when
 * something was released.
 */
static bool release_running_swap(const char *dev)
{
	char real[PATH_MAX], dir[PATH_MAX + 32], attr[PATH_MAX + 300], node[300], line[160];
	bool released = swapoff(dev) == 0;
	struct dirent *de;
	DIR *d;

	if (released || !realpath(dev, real))
		return released;
	snprintf(dir, sizeof(dir), "/sys/class/block/%s/holders", strrchr(real, '/') + 1);
	d = opendir(dir);
	while (d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(attr, sizeof(attr), "/sys/class/block/%s/dm/uuid", de->d_name);
		sysfs_line(attr, line, sizeof(line));
		/* Only a plain (random-key) mapping: a LUKS volume is never closed here. */
		if (strncmp(line, "CRYPT-PLAIN-", 12))
			continue;
		snprintf(node, sizeof(node), "/dev/%s", de->d_name);
		snprintf(attr, sizeof(attr), "/sys/class/block/%s/dm/name", de->d_name);
		sysfs_line(attr, line, sizeof(line));
		if (swapoff(node) == 0 && line[0] && fdw_convert_deactivate(line) == 0)
			released = true;
	}
	if (d)
		closedir(d);
	return released;
}

/* Overwrite the whole partition: plaintext swap may hold anything that was in memory. */
static int wipe(const char *dev)
{
	static char zeros[1 << 20];
	uint64_t size = 0, done = 0;
	int fd = open(dev, O_WRONLY | O_EXCL | O_CLOEXEC), rc = 0;

	if (fd < 0 && errno == EBUSY && release_running_swap(dev)) {
		fdw_log(FDW_LOG_INFO, "system boot: swap %s turned off to be overwritten", dev);
		fd = open(dev, O_WRONLY | O_EXCL | O_CLOEXEC);
	}
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

/* @crypttab with a line for every swap of @sw it lacks (malloc'ed), or NULL. */
static char *crypttab_with(const char *crypttab, const struct swap_part *sw, int n)
{
	size_t cap = (crypttab ? strlen(crypttab) : 0) + 1024 * MAX_SWAPS;
	char *out = calloc(1, cap);

	if (!out)
		return NULL;
	snprintf(out, cap, "%s", crypttab ? crypttab : "");
	for (int i = 0; i < n; i++) {
		if (crypttab_has(crypttab, &sw[i]))
			continue;
		if (out[0] && out[strlen(out) - 1] != '\n')
			strcat(out, "\n");
		snprintf(out + strlen(out), cap - strlen(out), "%s PARTUUID=%s " SWAP_KEY " "
			 SWAP_OPTS "\n", sw[i].name, sw[i].partuuid);
	}
	return out;
}

/* @fstab with each swap of @sw named by its mapping (malloc'ed); every other byte stays. */
static int fstab_with(const char *fstab, const struct swap_part *sw, int n, char **out)
{
	char *text = strdup(fstab);

	for (int i = 0; text && i < n; i++) {
		const struct fdw_part_ids ids = { .spec = sw[i].spec };
		char *next = NULL;
		int rc = fdw_fstab_edit(text, sw[i].name, &ids, &next);

		if (rc < 0) {
			free(text);
			return rc;
		}
		if (next) {
			free(text);
			text = next;
		}
	}
	*out = text;
	return text ? 0 : -ENOMEM;
}

int fdw_system_swap_step(const char *root, struct fdw_sysboot_record *r)
{
	struct swap_part sw[MAX_SWAPS];
	char path[4096], *fstab, *crypttab, *out = NULL;
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
	/* crypttab: a fresh random key at every boot, by the partition's stable PARTUUID. */
	out = crypttab_with(crypttab, sw, n);
	rc = out ? replace(root, "/etc/crypttab", out, r) : -ENOMEM;
	free(out);
	out = NULL;
	/* fstab: the swap lines name the mapping; every other line stays as it was. */
	if (!rc)
		rc = fstab_with(fstab, sw, n, &out);
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
