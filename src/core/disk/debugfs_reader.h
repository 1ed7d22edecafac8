/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Files of an unmounted ext2/3/4 read with debugfs, read-only: nothing is mounted, no
 * journal replayed, nothing written. */
#ifndef FDW_DEBUGFS_READER_H
#define FDW_DEBUGFS_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The filesystem at @offset of the file open as @fd (a disk, an image or a partition). */
struct fdw_debugfs {
	int fd;
	uint64_t offset;
};

/* debugfs with @commands on its stdin; at most @max bytes of its stdout in a new string. */
int fdw_debugfs_run(const struct fdw_debugfs *d, const char *commands, size_t max, char **out);
/* found[i]: does paths[i] exist (a link counts as what it is, not followed)? One run. */
int fdw_debugfs_exist(void *ctx, const char *const *paths, int n, bool *found);
/* The files of @paths one after the other, missing ones left out, in a new string. */
int fdw_debugfs_cat(void *ctx, const char *const *paths, int n, char **text);
/* The names in folder @dir, one a line ("." and ".." left out), in a new string. */
int fdw_debugfs_list(void *ctx, const char *dir, char **names);
/* Is there a boot/vmlinuz-* ? */
bool fdw_debugfs_has_kernels(void *ctx);

/*
 * Several commands in one run (a fork and exec costs tens of milliseconds under emulation):
 * outputs[i] is what commands[i] printed, a new string each ("" for one whose echo never
 * came). 0 or -errno.
 */
#define FDW_DEBUGFS_BATCH_MAX 48
int fdw_debugfs_batch(const struct fdw_debugfs *d, const char *const *commands, int n,
		      char **outputs);

/* The batch's output @text cut into each command's (the parser of fdw_debugfs_batch). */
int fdw_debugfs_split(const char *text, const char *const *commands, int n, char **outputs);

/* The parsers of debugfs's output, apart for tests and fuzzing: which of @paths its
 * "stat" echoes say exist, and the names of an "ls -p" listing, one a line. */
void fdw_debugfs_parse_stats(const char *out, const char *const *paths, int n_paths,
			     bool *found);
char *fdw_debugfs_parse_ls(const char *out);

#endif
