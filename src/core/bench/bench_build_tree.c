/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The build benchmark's source tree: decided from the scale alone, written file by file. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_build.h"
#include "base/log.h"

/* ---- deterministic generation ---- */

uint64_t build_splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd(uint64_t *s, uint64_t n)
{
	return n ? build_splitmix(s) % n : 0;
}

/* File sizes shaped like a kernel tree: per size class (KiB), the share in percent. */
struct size_bin {
	unsigned lo_kib, hi_kib, pct;
};

static const struct size_bin src_bins[] = {
	{ 1, 2, 8 }, { 2, 4, 12 }, { 4, 8, 20 }, { 8, 16, 22 }, { 16, 32, 19 },
	{ 32, 64, 12 }, { 64, 128, 5 }, { 128, 256, 2 },
};

static const struct size_bin hdr_bins[] = {
	{ 1, 2, 30 }, { 2, 4, 20 }, { 4, 8, 20 }, { 8, 16, 15 }, { 16, 32, 10 },
	{ 32, 64, 5 },
};

static uint64_t pick_size(uint64_t *s, const struct size_bin *bins, size_t n)
{
	unsigned r = (unsigned)rnd(s, 100), acc = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		acc += bins[i].pct;
		if (r < acc)
			break;
	}
	if (i == n)
		i = n - 1;
	return bins[i].lo_kib * 1024ULL + rnd(s, (bins[i].hi_kib - bins[i].lo_kib) * 1024ULL);
}

static const char *const top_dirs[] = {
	"drivers", "drivers", "drivers", "drivers", "drivers", "drivers", "drivers", "drivers",
	"arch", "arch", "fs", "fs", "net", "net", "sound", "kernel", "mm", "lib", "crypto",
	"block", "security",
};

static const char *const words[] = {
	"core", "host", "gadget", "serial", "phy", "pci", "i2c", "spi", "gpu", "drm", "media",
	"input", "hid", "scsi", "ata", "char", "tty", "mmc", "nvme", "usb", "soc", "codecs",
	"power", "clk", "irq", "dma", "iio", "thermal", "hwmon", "leds", "rtc", "video", "misc",
	"firmware", "acpi", "platform", "bus", "regulator", "pinctrl", "watchdog", "sched",
	"trace", "ext4", "xfs", "btrfs", "ipv4", "ipv6", "bridge", "wireless", "bluetooth",
};
#define N_WORDS (sizeof(words) / sizeof(words[0]))

void build_plan_free(struct build_plan *p)
{
	size_t i;

	for (i = 0; i < p->n_src; i++)
		free(p->src[i].rel);
	for (i = 0; i < p->n_hdr; i++)
		free(p->hdr[i].rel);
	for (i = 0; i < p->n_dirs; i++)
		free(p->dirs[i]);
	free(p->src);
	free(p->hdr);
	free(p->dirs);
	memset(p, 0, sizeof(*p));
}

static int plan_add_dir(struct build_plan *p, size_t cap, const char *d)
{
	size_t i;

	for (i = 0; i < p->n_dirs; i++)
		if (!strcmp(p->dirs[i], d))
			return 0;
	if (p->n_dirs >= cap)
		return -ENOMEM;
	p->dirs[p->n_dirs] = strdup(d);
	if (!p->dirs[p->n_dirs])
		return -ENOMEM;
	p->n_dirs++;
	return 0;
}

/* The whole tree, decided before anything is written (same scale, same tree). */
int build_plan_make(enum fdw_bench_scale scale, struct build_plan *p)
{
	static const size_t srcs[] = { [FDW_BENCH_TINY] = 150, [FDW_BENCH_QUICK] = 1800,
				       [FDW_BENCH_NORMAL] = 7000, [FDW_BENCH_FULL] = 24000 };
	static const size_t hdrs[] = { [FDW_BENCH_TINY] = 40, [FDW_BENCH_QUICK] = 400,
				       [FDW_BENCH_NORMAL] = 1000, [FDW_BENCH_FULL] = 2400 };
	size_t n_src, n_hdr;
	size_t dir_cap, i = 0, j, leaf = 0;
	uint64_t s = 0x66646577697a0001ULL;	/* fixed: the tree must not vary between runs */
	char path[256], name[64];
	int rc;

	if ((size_t)scale >= sizeof(srcs) / sizeof(srcs[0]))
		scale = FDW_BENCH_QUICK;
	n_src = srcs[scale];
	n_hdr = hdrs[scale];
	dir_cap = 2 * n_src + 16;
	memset(p, 0, sizeof(*p));
	p->src = calloc(n_src, sizeof(*p->src));
	p->hdr = calloc(n_hdr, sizeof(*p->hdr));
	p->dirs = calloc(dir_cap, sizeof(*p->dirs));
	if (!p->src || !p->hdr || !p->dirs)
		goto nomem;
	if (plan_add_dir(p, dir_cap, "include") || plan_add_dir(p, dir_cap, "include/gen"))
		goto nomem;
	for (j = 0; j < n_hdr; j++) {
		struct build_file *f = &p->hdr[j];

		snprintf(path, sizeof(path), "include/gen/%s%zu.h", words[j % N_WORDS], j);
		f->rel = strdup(path);
		if (!f->rel)
			goto nomem;
		p->n_hdr++;
		f->size = pick_size(&s, hdr_bins, sizeof(hdr_bins) / sizeof(hdr_bins[0]));
		f->seed = build_splitmix(&s);
		p->hdr_bytes += f->size;
	}
	/* Leaf directories of 4..40 files, one to three levels below a top directory. */
	while (i < n_src) {
		const char *top = top_dirs[rnd(&s, sizeof(top_dirs) / sizeof(top_dirs[0]))];
		size_t depth = 1 + rnd(&s, 3), k, in_dir = 4 + rnd(&s, 37);
		int len = snprintf(path, sizeof(path), "%s", top);

		if (plan_add_dir(p, dir_cap, path))
			goto nomem;
		for (k = 0; k < depth; k++) {
			/* The leaf gets a number: every leaf directory is a new one. */
			len += snprintf(path + len, sizeof(path) - len, "/%s",
					words[rnd(&s, N_WORDS)]);
			if (k + 1 == depth)
				len += snprintf(path + len, sizeof(path) - len, "%zu", leaf++);
			if (plan_add_dir(p, dir_cap, path))
				goto nomem;
		}
		for (k = 0; k < in_dir && i < n_src; k++, i++) {
			struct build_file *f = &p->src[i];
			unsigned n_inc = 4 + (unsigned)rnd(&s, MAX_INCLUDES - 3), m;

			snprintf(name, sizeof(name), "%s_%zu.c", words[rnd(&s, N_WORDS)], i);
			f->rel = malloc(strlen(path) + strlen(name) + 2);
			if (!f->rel)
				goto nomem;
			sprintf(f->rel, "%s/%s", path, name);
			p->n_src++;
			f->size = pick_size(&s, src_bins, sizeof(src_bins) / sizeof(src_bins[0]));
			f->seed = build_splitmix(&s);
			/* A few headers are included everywhere, most only here and there. */
			for (m = 0; m < n_inc; m++) {
				unsigned h = (unsigned)(rnd(&s, n_hdr) * rnd(&s, n_hdr) / n_hdr), q;

				for (q = 0; q < f->n_inc && f->inc[q] != h; q++)
					;
				if (q == f->n_inc)
					f->inc[f->n_inc++] = h;
			}
			p->src_bytes += f->size;
		}
	}
	return 0;
nomem:
	rc = -ENOMEM;
	build_plan_free(p);
	return rc;
}

void build_plan_limit(struct build_plan *p, const char *env)
{
	unsigned long n = env ? strtoul(env, NULL, 10) : 0;

	if (n == 0 || n >= p->n_src)
		return;
	fdw_log(FDW_LOG_INFO, "build benchmark: only the first %lu sources (%s)", n,
		BUILD_SOURCES_ENV);
	while (p->n_src > n) {
		p->n_src--;
		p->src_bytes -= p->src[p->n_src].size;
		free(p->src[p->n_src].rel);
		p->src[p->n_src].rel = NULL;
	}
}

/* ---- file text ---- */


static void text_add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->len >= t->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len = n < 0 ? t->cap : t->len + (size_t)n;
	if (t->len > t->cap)
		t->len = t->cap;
}

static void text_comment(struct text *t, uint64_t *s, unsigned n_words)
{
	unsigned k;

	text_add(t, "/*\n *");
	for (k = 0; k < n_words; k++) {
		text_add(t, " %s", words[rnd(s, N_WORDS)]);
		if (k % 10 == 9)
			text_add(t, "\n *");
	}
	text_add(t, "\n */\n");
}

/* Pad to exactly @size with a comment (or newlines when too little room is left). */
static void text_pad(struct text *t, uint64_t size)
{
	size_t room = size > t->len ? size - t->len : 0, k;

	if (room >= 6) {
		t->buf[t->len++] = '/';
		t->buf[t->len++] = '*';
		for (k = 0; k < room - 5; k++)
			t->buf[t->len++] = (k % 72 == 71) ? '\n' : "padding "[k % 8];
		memcpy(t->buf + t->len, "*/\n", 3);
		t->len += 3;
	} else {
		while (t->len < size)
			t->buf[t->len++] = '\n';
	}
}

/* Room a piece may take before the padding; pieces are at most this long. */
#define PIECE_MAX 2048

void build_gen_header(const struct build_file *f, unsigned idx, struct text *t)
{
	uint64_t s = f->seed;
	unsigned k = 0;

	text_add(t, "/* SPDX-License-Identifier: GPL-2.0 */\n#ifndef GEN_H%u\n#define GEN_H%u\n\n",
		 idx, idx);
	while (t->len + PIECE_MAX + 32 < f->size || k == 0) {
		if (rnd(&s, 3) == 0)
			text_comment(t, &s, 8 + (unsigned)rnd(&s, 40));
		text_add(t, "#define H%u_C%u 0x%016llxUL\n\n", idx, k,
			 (unsigned long long)build_splitmix(&s));
		text_add(t, "struct h%u_s%u {\n\tunsigned long a, b;\n\tint c;\n"
			 "\tvoid *priv;\n};\n\n",
			 idx, k);
		text_add(t, "static inline unsigned long h%u_fn%u(unsigned long x)\n{\n"
			 "\treturn ((x ^ H%u_C%u) * 0x9e3779b97f4a7c15UL) + %uUL;\n}\n\n",
			 idx, k, idx, k, k);
		k++;
	}
	text_add(t, "#endif\n");
	text_pad(t, f->size);
}

void build_gen_source(const struct build_plan *p, size_t idx, struct text *t)
{
	const struct build_file *f = &p->src[idx];
	uint64_t s = f->seed;
	unsigned k = 0, m;

	text_add(t, "// SPDX-License-Identifier: GPL-2.0\n");
	text_comment(t, &s, 12 + (unsigned)rnd(&s, 30));
	for (m = 0; m < f->n_inc; m++)
		text_add(t, "#include \"%s\"\n", p->hdr[f->inc[m]].rel + strlen("include/"));
	text_add(t, "\nstatic const unsigned long f%zu_tab[4] = "
		 "{ %lluUL, %lluUL, %lluUL, %lluUL };\n\n",
		 idx, (unsigned long long)rnd(&s, 1000000), (unsigned long long)rnd(&s, 1000000),
		 (unsigned long long)rnd(&s, 1000000), (unsigned long long)rnd(&s, 1000000));
	while (t->len + PIECE_MAX + 32 < f->size || k == 0) {
		unsigned h = f->inc[rnd(&s, f->n_inc)];

		/* Most kernel functions carry a kernel-doc comment. */
		if (rnd(&s, 4) != 0)
			text_comment(t, &s, 15 + (unsigned)rnd(&s, 60));
		/* Kernel-style: a struct pointer, checks, field updates, sometimes a loop. */
		text_add(t, "int f%zu_%u(struct h%u_s0 *st, unsigned long v);\n", idx, k, h);
		text_add(t, "int f%zu_%u(struct h%u_s0 *st, unsigned long v)\n{\n"
			 "\tunsigned long x = v ^ 0x%llxUL;\n\n"
			 "\tif (!st)\n\t\treturn -22;\n"
			 "\tx = h%u_fn0(x) + f%zu_tab[%u];\n"
			 "\tst->a += x >> %u;\n",
			 idx, k, h, (unsigned long long)build_splitmix(&s), h, idx, k & 3,
			 1 + (unsigned)rnd(&s, 40));
		if (rnd(&s, 4) == 0)
			text_add(t, "\tfor (int i = 0; i < st->c; i++)\n"
				 "\t\tst->b ^= f%zu_tab[i & 3] + x;\n", idx);
		text_add(t, "\tif (st->b > x)\n\t\tst->b = x >> 3;\n\telse\n"
			 "\t\tst->c ^= (int)(x & 0x%x);\n"
			 "\treturn (int)(st->a & 0x7f);\n}\n\n", 1 + (unsigned)rnd(&s, 255));
		k++;
	}
	text_pad(t, f->size);
}

/* ---- small file helpers ---- */

int build_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int build_write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), rc;

	if (fd < 0)
		return -errno;
	rc = build_write_all(fd, buf, len);
	if (close(fd) != 0 && !rc)
		rc = -errno;
	return rc;
}

/* @root/@rel; "" (which no open() accepts) if it does not fit. */
void build_path_join(char *out, size_t len, const char *root, const char *rel)
{
	int n = snprintf(out, len, "%s/%s", root, rel);

	if (n < 0 || (size_t)n >= len)
		out[0] = '\0';
}

/* foo.c -> foo.o */
void build_obj_path(char *out, size_t len, const char *root, const char *rel)
{
	size_t n;

	build_path_join(out, len, root, rel);
	n = strlen(out);
	if (n > 2 && out[n - 2] == '.')
		out[n - 1] = 'o';
}

uint64_t build_obj_size_of(uint64_t src)
{
	return src * 3 / 4 + 1024;
}

uint64_t build_round4k(uint64_t n)
{
	return (n + 4095) & ~4095ULL;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) != 0)
		fdw_log(FDW_LOG_WARN, "build benchmark: cannot remove %s: %s", path,
			strerror(errno));
	return 0;
}

int build_remove_tree(const char *root)
{
	struct stat st;

	if (lstat(root, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	nftw(root, rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	return lstat(root, &st) == 0 ? -ENOTEMPTY : 0;
}
