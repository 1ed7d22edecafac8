/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Files of an unmounted ext2/3/4 read with debugfs, read-only: nothing is mounted, no
 * journal replayed, nothing written. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debugfs_reader.h"
#include "installed_os.h"
#include "base/spawn.h"

/*
 * debugfs read-only ("-c": catastrophic mode, which also never writes). The filesystem is
 * named by the descriptor, so the path is opened once and no '?' in it can be taken for
 * an option.
 */
int fdw_debugfs_run(const struct fdw_debugfs *d, const char *commands, size_t max, char **out)
{
	char spec[64], *buf = malloc(max + 1);
	char *argv[] = { "debugfs", "-c", "-f", "-", spec, NULL };
	const struct fdw_spawn_opts o = {
		.stdin_bytes = commands, .stdin_len = strlen(commands), .fd3 = d->fd,
		.discard_stderr = true,
	};
	size_t len = 0;
	int op, rc;
	pid_t pid;
	ssize_t n;

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	snprintf(spec, sizeof(spec), "/proc/self/fd/3?offset=%llu", (unsigned long long)d->offset);
	rc = fdw_spawn_start(argv, &o, &pid, &op);
	if (rc) {
		free(buf);
		return rc;
	}
	while ((n = read(op, buf + len, max - len)) > 0)
		len += (size_t)n;
	close(op);
	buf[len] = '\0';
	if (fdw_spawn_wait(pid, NULL) != 0) {
		free(buf);
		return -EIO;
	}
	*out = buf;
	return 0;
}

/* Which of @paths exist, from debugfs's "debugfs: stat NAME" echo and "Inode:" lines. */
void fdw_debugfs_parse_stats(const char *out, const char *const *paths, int n_paths,
			     bool *found)
{
	int cur = -1;

	for (const char *line = out; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);

		if (!strncmp(line, "debugfs: stat ", 14)) {
			cur = -1;
			for (int i = 0; i < n_paths; i++)
				if (n - 14 == strlen(paths[i]) && !strncmp(line + 14, paths[i], n - 14))
					cur = i;
		} else if (cur >= 0 && !strncmp(line, "Inode:", 6)) {
			found[cur] = true;
		}
		line = nl ? nl + 1 : NULL;
	}
}

/* "VERB PATH" lines for debugfs's stdin; -ENAMETOOLONG past @len. */
static int commands(const char *verb, const char *const *paths, int n, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		size_t used = strlen(buf);

		if ((size_t)snprintf(buf + used, len - used, "%s %s\n", verb, paths[i]) >= len - used)
			return -ENAMETOOLONG;
	}
	return 0;
}

int fdw_debugfs_exist(void *ctx, const char *const *paths, int n, bool *found)
{
	const struct fdw_debugfs *c = ctx;
	char cmds[4096], *text;
	int rc = commands("stat", paths, n, cmds, sizeof(cmds));

	if (!rc)
		rc = fdw_debugfs_run(c, cmds, FDW_OS_TEXT_MAX, &text);
	if (rc)
		return rc;
	fdw_debugfs_parse_stats(text, paths, n, found);
	free(text);
	return 0;
}

int fdw_debugfs_cat(void *ctx, const char *const *paths, int n, char **text)
{
	const struct fdw_debugfs *c = ctx;
	char cmds[4096];
	int rc = commands("cat", paths, n, cmds, sizeof(cmds));

	return rc ? rc : fdw_debugfs_run(c, cmds, FDW_OS_TEXT_MAX, text);
}

/* Kernels: "vmlinuz-" entries in boot/ (debugfs "ls -p": /ino/mode/.../name/). */
bool fdw_debugfs_has_kernels(void *ctx)
{
	const struct fdw_debugfs *c = ctx;
	char *text;
	bool yes;

	if (fdw_debugfs_run(c, "ls -p /boot\n", FDW_OS_TEXT_MAX, &text))
		return false;
	yes = strstr(text, "/vmlinuz-") != NULL;
	free(text);
	return yes;
}

/* A folder's listing can be long (a data partition's top): more than any text file read. */
#define LIST_MAX (4 * 1024 * 1024)

char *fdw_debugfs_parse_ls(const char *out)
{
	size_t len = strlen(out), used = 0;
	char *names = malloc(len + 1);

	if (!names)
		return NULL;
	/* "/ino/mode/uid/gid/name/size/": the name is the fifth field; a name holds no '/'. */
	for (const char *line = out; line && *line;) {
		const char *nl = strchr(line, '\n'), *f = line;
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		int slash = 0;

		while (f < line + n && slash < 5)
			if (*f++ == '/')
				slash++;
		if (*line == '/' && slash == 5) {
			const char *end = memchr(f, '/', (size_t)(line + n - f));
			size_t nl_len = end ? (size_t)(end - f) : 0;

			if (end && nl_len && !(nl_len == 1 && *f == '.') &&
			    !(nl_len == 2 && !strncmp(f, "..", 2))) {
				memcpy(names + used, f, nl_len);
				used += nl_len;
				names[used++] = '\n';
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	names[used] = '\0';
	return names;
}

int fdw_debugfs_list(void *ctx, const char *dir, char **names)
{
	const struct fdw_debugfs *c = ctx;
	char cmd[512], *text;
	int rc;

	*names = NULL;
	if ((size_t)snprintf(cmd, sizeof(cmd), "ls -p %s\n", dir) >= sizeof(cmd) ||
	    strchr(dir, '\n'))
		return -ENAMETOOLONG;
	rc = fdw_debugfs_run(c, cmd, LIST_MAX, &text);
	if (rc)
		return rc;
	*names = fdw_debugfs_parse_ls(text);
	free(text);
	return *names ? 0 : -ENOMEM;
}

int fdw_debugfs_split(const char *text, const char *const *commands, int n, char **outputs)
{
	const char *cut[FDW_DEBUGFS_BATCH_MAX + 1];
	int at = 0;

	if (n < 1 || n > FDW_DEBUGFS_BATCH_MAX)
		return -EINVAL;
	/* Each command's output follows its echo, "debugfs: COMMAND". A file name may hold
	 * a newline and forge such a line, so only the next command's echo, in order, starts
	 * a section: a forged one can move a listing's names to a later listing, never out
	 * of all of them. */
	for (const char *line = text; line && *line && at < n;) {
		const char *nl = strchr(line, '\n');

		if (!strncmp(line, "debugfs: ", 9) && !strncmp(line + 9, commands[at],
							       strlen(commands[at])) &&
		    (line[9 + strlen(commands[at])] == '\n' || !line[9 + strlen(commands[at])]))
			cut[at++] = line;
		line = nl ? nl + 1 : NULL;
	}
	for (int i = 0; i < n; i++) {
		const char *from = i < at ? strchr(cut[i], '\n') : NULL;
		size_t l;

		from = from ? from + 1 : "";
		l = i + 1 < at ? (size_t)(cut[i + 1] - from) : strlen(from);
		if (i >= at)
			l = 0;
		outputs[i] = strndup(from, l);
		if (!outputs[i]) {
			for (int k = 0; k < i; k++)
				free(outputs[k]);
			return -ENOMEM;
		}
	}
	return 0;
}

int fdw_debugfs_batch(const struct fdw_debugfs *d, const char *const *commands, int n,
		      char **outputs)
{
	size_t len = 1;
	char *cmds, *text;
	int rc;

	if (n < 1 || n > FDW_DEBUGFS_BATCH_MAX)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		if (strchr(commands[i], '\n'))
			return -EINVAL;
		len += strlen(commands[i]) + 1;
		outputs[i] = NULL;
	}
	cmds = malloc(len);
	if (!cmds)
		return -ENOMEM;
	cmds[0] = '\0';
	for (int i = 0; i < n; i++)
		strcat(strcat(cmds, commands[i]), "\n");
	rc = fdw_debugfs_run(d, cmds, LIST_MAX, &text);
	free(cmds);
	if (rc)
		return rc;
	rc = fdw_debugfs_split(text, commands, n, outputs);
	free(text);
	return rc;
}
