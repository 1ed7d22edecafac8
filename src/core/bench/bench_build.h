/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The build benchmark's parts, shared by its files: the generated tree and its files. */
#ifndef FDW_BENCH_BUILD_H
#define FDW_BENCH_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bench.h"

/* Test hooks: move the source tree of the last repetition here instead of deleting it; */
#define BUILD_KEEP_ENV "FDEWIZ_BENCH_KEEP_TREE"
/* and use only the first N sources of the tree (a real compile of all of it takes minutes). */
#define BUILD_SOURCES_ENV "FDEWIZ_BENCH_BUILD_SOURCES"

#define MAX_INCLUDES 16
/* Mixing rounds per 8 source bytes: the CPU work of the simulated compiler. */
#define SRC_ROUNDS 300
#define IO_CHUNK (1024 * 1024)
#define MAX_JOBS 64

struct build_file {
	char *rel;		/* path below the tree root */
	uint64_t size;		/* exact size of the generated file */
	uint64_t seed;
	unsigned n_inc;
	unsigned inc[MAX_INCLUDES];	/* headers included (sources only) */
};

struct build_plan {
	struct build_file *src, *hdr;
	size_t n_src, n_hdr;
	char **dirs;		/* every directory, parents first */
	size_t n_dirs;
	uint64_t src_bytes, hdr_bytes;
};

/* Text of one generated file, filled up to cap. */
struct text {
	char *buf;
	size_t len, cap;
};

/* bench_build_tree.c: the tree (decided from the scale alone), file text, file helpers. */
uint64_t build_splitmix(uint64_t *s);
void build_plan_free(struct build_plan *p);
int build_plan_make(enum fdw_bench_scale scale, struct build_plan *p);
void build_plan_limit(struct build_plan *p, const char *env);
void build_gen_header(const struct build_file *f, unsigned idx, struct text *t);
void build_gen_source(const struct build_plan *p, size_t idx, struct text *t);
int build_write_all(int fd, const void *buf, size_t len);
int build_write_file(const char *path, const void *buf, size_t len);
void build_path_join(char *out, size_t len, const char *root, const char *rel);
void build_obj_path(char *out, size_t len, const char *root, const char *rel);
uint64_t build_obj_size_of(uint64_t src);
uint64_t build_round4k(uint64_t n);
/* Remove the tree under @root (not following links); 0, or -ENOTEMPTY when some stayed. */
int build_remove_tree(const char *root);

#endif
