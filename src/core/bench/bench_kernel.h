/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The real kernel build benchmark: unpack a kernel source tarball, configure, build, clean. */
#ifndef FDW_BENCH_KERNEL_H
#define FDW_BENCH_KERNEL_H

#include <stddef.h>

#include "bench.h"

/* Where the kernel source is looked for (Debian's linux-source-X.Y packages put it there). */
#define FDW_KERNEL_SOURCE_GLOB "/usr/src/linux-source-*.tar.xz"
/* The package named when it is missing. */
#define FDW_KERNEL_SOURCE_PACKAGE "linux-source-6.1"

/*
 * The part of the tree built: "all" (the whole kernel), or up to FDW_KERNEL_MAX_DIRS
 * directories of the tree separated by commas, like "lib" or "lib,fs/ext4". Only what
 * the configuration and the build of that part need is unpacked.
 */
#define FDW_KERNEL_MAX_DIRS 4

/* The part a scale builds when none is given: tiny "init", quick "lib", normal "lib,fs",
 * full "all". */
const char *fdw_bench_kernel_default_part(enum fdw_bench_scale s);

/* 0 when @part is "all" or a list of plain relative directories, else -EINVAL. */
int fdw_bench_kernel_part_check(const char *part);

/* The newest tarball matching FDW_KERNEL_SOURCE_GLOB into @path; 0, or -ENOENT. */
int fdw_bench_kernel_source(char *path, size_t len);

/*
 * Build the kernel in a scratch directory under o->dir, o->repeats times (default 3): each
 * time unpack (files per second, syncfs included), configure (allnoconfig and a fixed set
 * of options) and make prepare, build @part (NULL: by scale) with -j as many CPUs,
 * cold cache, then remove the tree. Appends the tests "kernel.unpack", "kernel.prepare",
 * "kernel.build" and "kernel.clean" to @r. Wall time, and user and system time of the
 * helper and everything it waited for (wait4). Return 0, or -errno with one sentence in
 * @why; the scratch directory is removed either way.
 */
int fdw_bench_kernel(const struct fdw_bench_options *o, const char *part,
		     struct fdw_bench_run *r, char *why, size_t len);

#endif
