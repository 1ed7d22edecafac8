/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reads mounts, swaps and loop devices so a scan can tell what is in use. */
#include "config.h"

#include <stdbool.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "sysstate.h"

int fdw_strv_push(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(char *));
	char *copy;

	if (!nv)
		return -ENOMEM;
	*v = nv;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	nv[(*n)++] = copy;
	return 0;
}

void fdw_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void fdw_unescape_octal(char *s)
{
	char *w = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
}

static void mount_free(struct fdw_mount *m)
{
	free(m->root);
	free(m->mountpoint);
	free(m->source);
	free(m->fstype);
}

/* Split off the next space-separated field; returns NULL at the end of the line. */
static char *next_field(char **cursor)
{
	char *s = *cursor, *start;

	while (*s == ' ')
		s++;
	if (!*s || *s == '\n')
		return NULL;
	start = s;
	while (*s && *s != ' ' && *s != '\n')
		s++;
	if (*s)
		*s++ = '\0';
	*cursor = s;
	return start;
}

int fdw_mountinfo_parse(FILE *f, struct fdw_mount **out, size_t *n_out)
{
	char *line = NULL;
	size_t cap = 0;
	struct fdw_mount *v = NULL;
	size_t n = 0;
	int rc = 0;

	while (getline(&line, &cap, f) > 0) {
		char *cur = line, *fld[5], *f_type, *f_src, *sep;
		struct fdw_mount m = { 0 };
		struct fdw_mount *nv;
		int i;

		for (i = 0; i < 5; i++)
			if (!(fld[i] = next_field(&cur)))
				break;
		if (i < 5 || sscanf(fld[2], "%u:%u", &m.major, &m.minor) != 2)
			continue;
		/* Optional fields end at a lone "-". */
		while ((sep = next_field(&cur)) && strcmp(sep, "-") != 0)
			;
		f_type = sep ? next_field(&cur) : NULL;
		f_src = f_type ? next_field(&cur) : NULL;
		if (!f_src)
			continue;
		fdw_unescape_octal(fld[3]);
		fdw_unescape_octal(fld[4]);
		fdw_unescape_octal(f_src);
		m.root = strdup(fld[3]);
		m.mountpoint = strdup(fld[4]);
		m.source = strdup(f_src);
		m.fstype = strdup(f_type);
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!m.root || !m.mountpoint || !m.source || !m.fstype || !nv) {
			mount_free(&m);
			if (nv)
				v = nv;
			rc = -ENOMEM;
			break;
		}
		v = nv;
		v[n++] = m;
	}
	free(line);
	if (rc) {
		for (size_t i = 0; i < n; i++)
			mount_free(&v[i]);
		free(v);
		return rc;
	}
	*out = v;
	*n_out = n;
	return 0;
}

int fdw_swaps_parse(FILE *f, char ***out, size_t *n_out)
{
	char *line = NULL;
	size_t cap = 0;
	char **v = NULL;
	size_t n = 0;
	bool first = true;
	int rc = 0;

	while (getline(&line, &cap, f) > 0) {
		char *cur = line, *name;

		if (first) {	/* header line: "Filename Type Size Used Priority" */
			first = false;
			continue;
		}
		name = next_field(&cur);
		if (!name)
			continue;
		fdw_unescape_octal(name);
		rc = fdw_strv_push(&v, &n, name);
		if (rc)
			break;
	}
	free(line);
	if (rc) {
		fdw_strv_free(v, n);
		return rc;
	}
	*out = v;
	*n_out = n;
	return 0;
}

int fdw_read_line_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int rc = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		rc = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return rc;
}

static char *read_sysfs_line(const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	if (!f)
		return NULL;
	len = getline(&line, &cap, f);
	fclose(f);
	if (len <= 0) {
		free(line);
		return NULL;
	}
	if (line[len - 1] == '\n')
		line[len - 1] = '\0';
	return line;
}

static uint64_t read_sysfs_u64(const char *path)
{
	char *s = read_sysfs_line(path);
	uint64_t v = s ? strtoull(s, NULL, 10) : 0;

	free(s);
	return v;
}

static int loops_load(struct fdw_sysstate *st)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		struct fdw_loop lp = { 0 };
		struct fdw_loop *nv;
		char *devno;

		if (strncmp(de->d_name, "loop", 4) != 0)
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", de->d_name);
		lp.backing_file = read_sysfs_line(path);
		if (!lp.backing_file)
			continue;	/* not attached */
		snprintf(path, sizeof(path), "/sys/block/%s/loop/offset", de->d_name);
		lp.offset = read_sysfs_u64(path);
		snprintf(path, sizeof(path), "/sys/block/%s/loop/sizelimit", de->d_name);
		lp.sizelimit = read_sysfs_u64(path);
		snprintf(path, sizeof(path), "/sys/block/%s/dev", de->d_name);
		devno = read_sysfs_line(path);
		if (devno)
			sscanf(devno, "%u:%u", &lp.major, &lp.minor);
		free(devno);
		lp.name = strdup(de->d_name);
		nv = realloc(st->loops, (st->n_loops + 1) * sizeof(*nv));
		if (!lp.name || !nv) {
			free(lp.name);
			free(lp.backing_file);
			if (nv)
				st->loops = nv;
			closedir(d);
			return -ENOMEM;
		}
		st->loops = nv;
		st->loops[st->n_loops++] = lp;
	}
	closedir(d);
	return 0;
}

int fdw_sysstate_load(struct fdw_sysstate *st)
{
	FILE *f;
	int rc = 0;

	memset(st, 0, sizeof(*st));
	f = fopen("/proc/self/mountinfo", "re");
	if (f) {
		rc = fdw_mountinfo_parse(f, &st->mounts, &st->n_mounts);
		fclose(f);
	}
	if (!rc && (f = fopen("/proc/swaps", "re"))) {
		rc = fdw_swaps_parse(f, &st->swaps, &st->n_swaps);
		fclose(f);
	}
	if (!rc)
		rc = loops_load(st);
	if (rc)
		fdw_sysstate_free(st);
	return rc;
}

void fdw_sysstate_free(struct fdw_sysstate *st)
{
	for (size_t i = 0; i < st->n_mounts; i++)
		mount_free(&st->mounts[i]);
	free(st->mounts);
	fdw_strv_free(st->swaps, st->n_swaps);
	for (size_t i = 0; i < st->n_loops; i++) {
		free(st->loops[i].name);
		free(st->loops[i].backing_file);
	}
	free(st->loops);
	memset(st, 0, sizeof(*st));
}

int fdw_sysstate_mounts_of(const struct fdw_sysstate *st, dev_t rdev, const char *node,
			   char ***mps, size_t *n_mps)
{
	for (size_t i = 0; i < st->n_mounts; i++) {
		const struct fdw_mount *m = &st->mounts[i];
		bool same_dev = rdev && m->major == major(rdev) && m->minor == minor(rdev);
		/* btrfs reports an anonymous device number; its source names the device. */
		bool same_src = node && strcmp(m->source, node) == 0;
		int rc;

		if (!same_dev && !same_src)
			continue;
		rc = fdw_strv_push(mps, n_mps, m->mountpoint);
		if (rc)
			return rc;
	}
	return 0;
}

int fdw_sysstate_is_swap(const struct fdw_sysstate *st, const char *node)
{
	char real[PATH_MAX];

	if (!node || !realpath(node, real))
		return 0;
	for (size_t i = 0; i < st->n_swaps; i++) {
		char swreal[PATH_MAX];

		if (realpath(st->swaps[i], swreal) && strcmp(swreal, real) == 0)
			return 1;
	}
	return 0;
}

int fdw_sysfs_holders(dev_t rdev, char ***out, size_t *n_out)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/holders", major(rdev), minor(rdev));
	d = opendir(path);
	if (!d)
		return 0;
	while (!rc && (de = readdir(d)))
		if (de->d_name[0] != '.')
			rc = fdw_strv_push(out, n_out, de->d_name);
	closedir(d);
	return rc;
}

int fdw_sysfs_read_only(dev_t rdev)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/ro", major(rdev), minor(rdev));
	return read_sysfs_u64(path) != 0;
}
