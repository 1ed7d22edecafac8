/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The real kernel build benchmark: unpack a kernel source tarball, configure, build, clean. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench_build.h"
#include "bench_kernel.h"
#include "base/clock.h"
#include "base/dropcache.h"
#include "base/durable.h"
#include "base/i18n.h"
#include "base/log.h"
#include "base/spawn.h"
#include "base/units.h"

enum { K_UNPACK, K_PREPARE, K_BUILD, K_CLEAN, K_STEPS };

static const char *const step_ids[K_STEPS] = {
	"kernel.unpack", "kernel.prepare", "kernel.build", "kernel.clean",
};
/* The English names of the steps, as they appear in a failure sentence. */
static const char *const step_names[K_STEPS] = {
	N_("unpack"), N_("configure"), N_("build"), N_("clean"),
};

/*
 * The configuration, the same every time: allnoconfig (so nothing depends on the machine's
 * own kernel) and a block layer with ext4, so that fs/ has something to build. A 32-bit x86
 * kernel needs no objtool, and so no libelf.
 */
static const char config_fragment[] =
	"# CONFIG_64BIT is not set\n"
	"CONFIG_BLOCK=y\n"
	"CONFIG_EXT4_FS=y\n"
	"CONFIG_PRINTK=y\n";

/* What configuring and `make prepare` read, besides the part built (below the top folder). */
static const char *const prepare_members[] = {
	"Makefile", "Kconfig", "Kbuild", "include", "scripts", "kernel", "tools/include",
	"*Kconfig*", "*Makefile", "*Kbuild",
	/* Sources include their neighbours' private headers (lib/vsprintf.c: ../mm/internal.h). */
	"mm/*.h", "fs/*.h", "block/*.h", "crypto/*.h", "security/*.h", "ipc/*.h", "io_uring/*.h",
	"net/*.h",
};

/* The helpers, and the Debian packages they come in, for the message when one is missing. */
static const char *const tools_needed[] = { "tar", "xz", "make", "gcc", "flex", "bison", "bc" };
#define TOOL_PACKAGES "build-essential flex bison bc xz-utils"

struct kstep {
	double wall, user, sys;
};

struct kctx {
	const struct fdw_bench_options *o;
	char tarball[PATH_MAX];
	char top[64];			/* the tarball's top folder: linux-source-6.1 */
	char srcarch[72];		/* arch/<srcarch> of this machine */
	char dirs[FDW_KERNEL_MAX_DIRS][64];
	size_t n_dirs;			/* 0: the whole tree */
	char scratch[PATH_MAX];		/* o->dir/fdewiz-kernel.XXXXXX */
	char tree[PATH_MAX];		/* scratch/top */
	int jobs;
	bool dropped_global;
	size_t files;			/* unpacked by the last unpack */
	const char *missing;		/* a directory of the part the tarball lacks */
	int failed_exit;		/* exit status of the helper that failed, or -1 */
	const char *failed_prog;
};

const char *fdw_bench_kernel_default_part(enum fdw_bench_scale s)
{
	switch (s) {
	case FDW_BENCH_TINY: return "init";
	case FDW_BENCH_QUICK: return "lib";
	case FDW_BENCH_FULL: return "all";
	default: return "lib,fs";
	}
}

/* Split @part into @c->dirs; 0, or -EINVAL when a directory is not plain and relative. */
static int parse_part(const char *part, struct kctx *c)
{
	const char *p = part, *end;

	c->n_dirs = 0;
	if (!strcmp(part, "all"))
		return 0;
	for (;; p = end + 1) {
		size_t n;

		end = strchrnul(p, ',');
		n = (size_t)(end - p);
		if (!n || n >= sizeof(c->dirs[0]) || c->n_dirs == FDW_KERNEL_MAX_DIRS)
			return -EINVAL;
		for (size_t i = 0; i < n; i++) {
			char ch = p[i];

			/* Nothing a helper could take for an option: no leading '-'. */
			if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ||
			      (ch == '-' && i > 0 && p[i - 1] != '/') || (ch == '/' && i > 0)))
				return -EINVAL;
		}
		/* No empty component, no trailing slash ('.' is not allowed at all). */
		if (p[n - 1] == '/' || memmem(p, n, "//", 2))
			return -EINVAL;
		memcpy(c->dirs[c->n_dirs], p, n);
		c->dirs[c->n_dirs++][n] = '\0';
		if (!*end)
			return 0;
	}
}

int fdw_bench_kernel_part_check(const char *part)
{
	struct kctx c;

	return part ? parse_part(part, &c) : -EINVAL;
}

int fdw_bench_kernel_source(char *path, size_t len)
{
	glob_t g;
	int rc = -ENOENT;

	if (glob(FDW_KERNEL_SOURCE_GLOB, 0, NULL, &g) != 0)
		return -ENOENT;
	/* glob sorts: the last is the newest version of the same series. */
	for (size_t i = g.gl_pathc; i-- > 0;) {
		struct stat st;

		if (stat(g.gl_pathv[i], &st) == 0 && S_ISREG(st.st_mode) &&
		    snprintf(path, len, "%s", g.gl_pathv[i]) < (int)len) {
			rc = 0;
			break;
		}
	}
	globfree(&g);
	return rc;
}

/* The kernel's name for this machine's architecture folder. */
static void machine_srcarch(char *out, size_t len)
{
	struct utsname u;
	const char *m = uname(&u) == 0 ? u.machine : "x86_64";

	if (!strcmp(m, "x86_64") || (m[0] == 'i' && !strcmp(m + 2, "86")))
		m = "x86";
	else if (!strcmp(m, "aarch64"))
		m = "arm64";
	else if (!strncmp(m, "arm", 3))
		m = "arm";
	else if (!strncmp(m, "ppc", 3))
		m = "powerpc";
	else if (!strncmp(m, "riscv", 5))
		m = "riscv";
	snprintf(out, len, "%s", m);
}

/* ---- running a helper: own process group, minimal environment, output to the log ---- */

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static bool want_stop(const struct kctx *c, const char *what, double frac)
{
	if (c->o->stop && *c->o->stop)
		return true;
	return c->o->progress && c->o->progress(what, frac, c->o->progress_ctx) != 0;
}

/* Log the complete lines in @buf and keep the rest at its start. */
static void log_lines(const char *name, char *buf, size_t *used, bool all)
{
	char *start = buf, *nl;

	buf[*used] = '\0';
	while ((nl = strchr(start, '\n'))) {
		*nl = '\0';
		fdw_log(FDW_LOG_INFO, "%s: %s", name, start);
		start = nl + 1;
	}
	*used -= (size_t)(start - buf);
	memmove(buf, start, *used);
	if (*used && all) {
		buf[*used] = '\0';
		fdw_log(FDW_LOG_INFO, "%s: %s", name, buf);
		*used = 0;
	}
}

/* Read the helper's output until it closes it; stop its whole group when asked to. */
static bool drain(const struct kctx *c, int fd, pid_t pid, const char *name, const char *what,
		  double frac)
{
	char buf[4096];
	size_t used = 0;
	bool killed = false;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int n = poll(&p, 1, 250);
		ssize_t got;

		if (!killed && want_stop(c, what, frac)) {
			kill(-pid, SIGTERM);
			killed = true;
		}
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		got = read(fd, buf + used, sizeof(buf) - 1 - used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		used += (size_t)got;
		log_lines(name, buf, &used, used == sizeof(buf) - 1);
	}
	log_lines(name, buf, &used, true);
	return killed;
}

/*
 * Run @argv like fdw_spawn(), and add its wall time and the user and system time of it and
 * of all it waited for (wait4) to @t. 0, -EINTR when stopped, -EIO when it failed.
 */
static int run_helper(struct kctx *c, char *const argv[], struct kstep *t, const char *what,
		      double frac)
{
	/* Its own process group: the terminal's Ctrl-C is fdewiz's, which stops the group. */
	const struct fdw_spawn_opts o = { .fd3 = -1, .own_pgroup = true };
	struct rusage ru;
	int fd, status;
	bool killed;
	double t0;
	pid_t pid;

	t0 = fdw_now_s();
	status = fdw_spawn_start(argv, &o, &pid, &fd);
	if (status)
		return status;
	killed = drain(c, fd, pid, argv[0], what, frac);
	close(fd);
	status = fdw_spawn_wait(pid, &ru);
	if (status < 0)
		return status;
	t->wall += fdw_now_s() - t0;
	t->user += tv_s(ru.ru_utime);
	t->sys += tv_s(ru.ru_stime);
	if (killed)
		return -EINTR;
	if (status == 0)
		return 0;
	c->failed_prog = argv[0];
	c->failed_exit = status;
	fdw_log(FDW_LOG_ERROR, "%s failed with status %d (%s)", argv[0], c->failed_exit, what);
	return -EIO;
}

/* ---- the steps ---- */

static __thread size_t counted;

static int count_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path;
	(void)st;
	(void)ftw;
	if (type != FTW_D && type != FTW_DP && type != FTW_DNR)
		counted++;
	return 0;
}

/* tar -xJf TARBALL -C SCRATCH --no-same-owner [--wildcards MEMBERS...], then syncfs. */
static int step_unpack(struct kctx *c, struct kstep *t, double frac)
{
	char members[K_STEPS + 32][PATH_MAX / 4];
	char *argv[64];
	size_t n = 0, m = 0, i;
	int rc;

	argv[n++] = "tar";
	argv[n++] = "-xJf";
	argv[n++] = c->tarball;
	argv[n++] = "-C";
	argv[n++] = c->scratch;
	argv[n++] = "--no-same-owner";
	if (c->n_dirs) {
		argv[n++] = "--wildcards";
		for (i = 0; i < sizeof(prepare_members) / sizeof(prepare_members[0]); i++)
			snprintf(members[m++], sizeof(members[0]), "%s/%s", c->top,
				 prepare_members[i]);
		snprintf(members[m++], sizeof(members[0]), "%s/arch/%s", c->top, c->srcarch);
		snprintf(members[m++], sizeof(members[0]), "%s/tools/arch/%s", c->top,
			 c->srcarch);
		for (i = 0; i < c->n_dirs; i++)
			snprintf(members[m++], sizeof(members[0]), "%s/%s", c->top, c->dirs[i]);
		for (i = 0; i < m; i++)
			argv[n++] = members[i];
	}
	argv[n] = NULL;
	rc = run_helper(c, argv, t, N_("unpacking the kernel source"), frac);
	if (rc)
		return rc;
	{
		double t0 = fdw_now_s();

		rc = fdw_sync_fs_of(c->scratch);
		t->wall += fdw_now_s() - t0;
	}
	if (rc)
		return rc;
	counted = 0;
	if (nftw(c->tree, count_one, 32, FTW_PHYS | FTW_MOUNT) != 0)
		return -errno ? -errno : -EIO;
	c->files = counted;
	return 0;
}

/* Every directory of the part is in the tree (the tarball may lack one named). */
static const char *missing_dir(const struct kctx *c)
{
	char path[PATH_MAX];
	struct stat st;

	for (size_t i = 0; i < c->n_dirs; i++) {
		build_path_join(path, sizeof(path), c->tree, c->dirs[i]);
		if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			return c->dirs[i];
	}
	return NULL;
}

/* allnoconfig with the fixed fragment, then make prepare. */
static int step_prepare(struct kctx *c, struct kstep *t, double frac)
{
	char frag[PATH_MAX], allconfig[PATH_MAX + 32], jobs[16];
	char *cfg[] = { "make", "-s", "-C", c->tree, allconfig, "allnoconfig", NULL };
	char *prep[] = { "make", "-s", "-C", c->tree, jobs, "prepare", NULL };
	int rc;

	build_path_join(frag, sizeof(frag), c->scratch, "fdewiz.config");
	rc = build_write_file(frag, config_fragment, strlen(config_fragment));
	if (rc)
		return rc;
	snprintf(allconfig, sizeof(allconfig), "KCONFIG_ALLCONFIG=%s", frag);
	snprintf(jobs, sizeof(jobs), "-j%d", c->jobs);
	rc = run_helper(c, cfg, t, N_("configuring the kernel"), frac);
	if (!rc)
		rc = run_helper(c, prep, t, N_("preparing the kernel build"), frac);
	return rc;
}

/* make -jN DIR/... (or the whole kernel) from a cold cache, then syncfs. */
static int step_build(struct kctx *c, struct kstep *t, double frac)
{
	char targets[FDW_KERNEL_MAX_DIRS][72], jobs[16];
	char *argv[8 + FDW_KERNEL_MAX_DIRS] = { "make", "-s", "-C", c->tree, jobs };
	size_t n = 5, i;
	int fd, rc;
	double t0;

	fd = open(c->tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	c->dropped_global = fdw_drop_caches(fd, true);
	close(fd);
	snprintf(jobs, sizeof(jobs), "-j%d", c->jobs);
	for (i = 0; i < c->n_dirs; i++) {
		snprintf(targets[i], sizeof(targets[i]), "%s/", c->dirs[i]);
		argv[n++] = targets[i];
	}
	argv[n] = NULL;
	rc = run_helper(c, argv, t, N_("building the kernel"), frac);
	if (rc)
		return rc;
	t0 = fdw_now_s();
	rc = fdw_sync_fs_of(c->tree);
	t->wall += fdw_now_s() - t0;
	return rc;
}

/* Remove the tree and write that back. */
static int step_clean(struct kctx *c, struct kstep *t)
{
	double t0 = fdw_now_s();
	struct rusage a, b;
	int rc;

	getrusage(RUSAGE_THREAD, &a);
	rc = build_remove_tree(c->tree);
	if (!rc)
		rc = fdw_sync_fs_of(c->scratch);
	getrusage(RUSAGE_THREAD, &b);
	t->wall = fdw_now_s() - t0;
	t->user = tv_s(b.ru_utime) - tv_s(a.ru_utime);
	t->sys = tv_s(b.ru_stime) - tv_s(a.ru_stime);
	return rc;
}

/* ---- results ---- */

static void add_metric(struct fdw_bench_test *t, const char *key, const char *unit, bool hib,
		       double v)
{
	struct fdw_bench_metric *m = NULL;

	for (size_t i = 0; i < t->n_metrics; i++)
		if (!strcmp(t->metrics[i].key, key))
			m = &t->metrics[i];
	if (!m) {
		if (t->n_metrics == FDW_BENCH_MAX_METRICS)
			return;
		m = &t->metrics[t->n_metrics++];
		memset(m, 0, sizeof(*m));
		snprintf(m->key, sizeof(m->key), "%s", key);
		snprintf(m->unit, sizeof(m->unit), "%s", unit);
		m->higher_is_better = hib;
	}
	if (m->n < FDW_BENCH_MAX_REPEATS)
		m->samples[m->n++] = v;
}

static void add_times(struct fdw_bench_test *t, const struct kstep *s)
{
	add_metric(t, "wall_s", "s", false, s->wall);
	add_metric(t, "user_s", "s", false, s->user);
	add_metric(t, "sys_s", "s", false, s->sys);
	add_metric(t, "cpu_pct", "%", false,
		   s->wall > 0 ? (s->user + s->sys) / s->wall * 100.0 : 0);
}

static void part_text(const struct kctx *c, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	if (!c->n_dirs)
		snprintf(buf, len, "the whole kernel");
	for (size_t i = 0; i < c->n_dirs && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s/", i ? " " : "",
					 c->dirs[i]);
}

static void name_tests(struct fdw_bench_test *t, const struct kctx *c)
{
	char part[160];

	part_text(c, part, sizeof(part));
	memset(t, 0, sizeof(*t) * K_STEPS);
	for (int k = 0; k < K_STEPS; k++) {
		snprintf(t[k].id, sizeof(t[k].id), "%s", step_ids[k]);
		snprintf(t[k].kind, sizeof(t[k].kind), "kernel");
	}
	snprintf(t[K_UNPACK].title, sizeof(t[0].title), "kernel: unpack %s sources, syncfs",
		 c->n_dirs ? "the part's" : "all");
	snprintf(t[K_PREPARE].title, sizeof(t[0].title), "kernel: allnoconfig, make prepare");
	snprintf(t[K_BUILD].title, sizeof(t[0].title), "kernel: make -j%d %.40s", c->jobs, part);
	snprintf(t[K_CLEAN].title, sizeof(t[0].title), "kernel: remove the tree, syncfs");
	snprintf(t[K_UNPACK].note, sizeof(t[0].note), "%s, %s",
		 strrchr(c->tarball, '/') + 1, c->n_dirs ? "only what the part needs" :
		 "every file");
	snprintf(t[K_PREPARE].note, sizeof(t[0].note),
		 "allnoconfig with block layer and ext4 (32-bit on x86), same every run.");
	snprintf(t[K_BUILD].note, sizeof(t[0].note), "%s; user and sys of make and all it ran.",
		 part);
}

/* One repetition: unpack, prepare, build, clean; the tree is gone afterwards either way. */
static int build_once(struct kctx *c, struct fdw_bench_test *tests, int rep, int repeats,
		      int *failed)
{
	struct kstep st[K_STEPS];
	double base = (double)rep / repeats, w = 1.0 / repeats;
	int rc;

	memset(st, 0, sizeof(st));
	*failed = K_UNPACK;
	rc = step_unpack(c, &st[K_UNPACK], base);
	/* tar fails on a name it does not find: say which, not only that it failed. */
	if ((!rc || rc == -EIO) && (c->missing = missing_dir(c)))
		rc = -ENOENT;
	if (!rc) {
		*failed = K_PREPARE;
		rc = step_prepare(c, &st[K_PREPARE], base + 0.2 * w);
	}
	if (!rc) {
		*failed = K_BUILD;
		rc = step_build(c, &st[K_BUILD], base + 0.45 * w);
	}
	if (rc) {
		build_remove_tree(c->tree);
		return rc;
	}
	*failed = K_CLEAN;
	rc = step_clean(c, &st[K_CLEAN]);
	if (rc)
		return rc;
	for (int k = 0; k < K_STEPS; k++)
		add_times(&tests[k], &st[k]);
	add_metric(&tests[K_UNPACK], "files", "", true, (double)c->files);
	add_metric(&tests[K_UNPACK], "files_per_s", "files/s", true,
		   st[K_UNPACK].wall > 0 ? (double)c->files / st[K_UNPACK].wall : 0);
	return 0;
}

/* ---- before anything runs ---- */

/* The tarball, the helpers, the target and its room; 0, or -errno and a sentence. */
static int check_needs(struct kctx *c, const struct fdw_bench_run *r, char *why, size_t len)
{
	/* A part: about 200 MiB unpacked and built; everything: about 2 GiB. */
	uint64_t need = c->n_dirs ? 512ULL << 20 : 3ULL << 30, have;
	uint64_t inodes = c->n_dirs ? 40000 : 120000;
	char prog[PATH_MAX], a[32], b[32];
	struct statvfs vfs;
	struct stat st;

	if (!c->o->dir || stat(c->o->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, len, _("The kernel build benchmark needs a directory on a mounted "
				     "filesystem, and %s is not one; nothing was changed. Give a "
				     "directory."), c->o->dir ? c->o->dir : c->o->device);
		return -ENOTDIR;
	}
	if (r->n_tests + K_STEPS > FDW_BENCH_MAX_TESTS) {
		snprintf(why, len, "%s", _("The benchmark result holds no more tests; the kernel "
					   "build benchmark was not run. Run it on its own."));
		return -ENOSPC;
	}
	if (fdw_bench_kernel_source(c->tarball, sizeof(c->tarball)) != 0) {
		snprintf(why, len, _("No kernel source was found (%s); nothing was changed. It "
				     "comes in the package %s: install it (apt install %s), or "
				     "leave kernel out of --kind."), FDW_KERNEL_SOURCE_GLOB,
			 FDW_KERNEL_SOURCE_PACKAGE, FDW_KERNEL_SOURCE_PACKAGE);
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof(tools_needed) / sizeof(tools_needed[0]); i++) {
		if (fdw_helper_resolve(tools_needed[i], prog, sizeof(prog)) == 0)
			continue;
		snprintf(why, len, _("The kernel build benchmark needs %s, which is not in %s; "
				     "nothing was changed. Install the packages %s."),
			 tools_needed[i], FDW_HELPER_PATH, TOOL_PACKAGES);
		return -ENOENT;
	}
	if (statvfs(c->o->dir, &vfs) != 0)
		return -errno;
	have = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (have < need || (vfs.f_files && vfs.f_favail < inodes)) {
		snprintf(why, len, _("The kernel build benchmark needs %s and %llu inodes free "
				     "in %s, but %s and %llu are; nothing was written. Free some "
				     "space, or build a smaller part (--kernel-part lib)."),
			 fdw_format_size(need, a, sizeof(a)), (unsigned long long)inodes,
			 c->o->dir, fdw_format_size(have, b, sizeof(b)),
			 (unsigned long long)vfs.f_favail);
		return -ENOSPC;
	}
	return 0;
}

/* linux-source-6.1.tar.xz unpacks into linux-source-6.1/. */
static int set_paths(struct kctx *c)
{
	const char *base = strrchr(c->tarball, '/') + 1;
	const char *dot = strstr(base, ".tar");
	char tmpl[PATH_MAX], dir[PATH_MAX];

	if (!dot || (size_t)(dot - base) >= sizeof(c->top))
		return -EINVAL;
	snprintf(c->top, sizeof(c->top), "%.*s", (int)(dot - base), base);
	/* make changes folders: every path it is given is absolute. */
	if (!realpath(c->o->dir, dir))
		return -errno;
	if (snprintf(tmpl, sizeof(tmpl), "%s/fdewiz-kernel.XXXXXX", dir) >=
	    (int)sizeof(tmpl) - 80)
		return -ENAMETOOLONG;
	if (!mkdtemp(tmpl))
		return -errno;
	snprintf(c->scratch, sizeof(c->scratch), "%s", tmpl);
	build_path_join(c->tree, sizeof(c->tree), c->scratch, c->top);
	return 0;
}

static void failure_sentence(const struct kctx *c, int rc, int failed, char *why, size_t len)
{
	if (rc == -EINTR)
		snprintf(why, len, "%s", _("The kernel build benchmark was stopped; its scratch "
					   "directory was removed and nothing else was changed."));
	else if (rc == -ENOENT && failed == K_UNPACK && c->missing)
		snprintf(why, len, _("The kernel source %s has no directory %s; nothing was "
				     "changed. Name directories of the kernel tree, like lib or "
				     "fs/ext4."), c->tarball, c->missing);
	else if (rc == -EIO && c->failed_prog)
		snprintf(why, len, _("The kernel build failed in its %s step (%s exited with "
				     "status %d; its messages are in the log). The scratch "
				     "directory was removed and nothing else was changed."),
			 _(step_names[failed]), c->failed_prog, c->failed_exit);
	else
		snprintf(why, len, _("The kernel build failed in its %s step: %s. The scratch "
				     "directory was removed and nothing else was changed."),
			 _(step_names[failed]), strerror(-rc));
}

int fdw_bench_kernel(const struct fdw_bench_options *o, const char *part,
		     struct fdw_bench_run *r, char *why, size_t len)
{
	struct fdw_bench_test tests[K_STEPS];
	struct kctx *c = calloc(1, sizeof(*c));
	int repeats = o->repeats > 0 ? o->repeats : 3, rep, failed = K_UNPACK, rc;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (!c)
		return -ENOMEM;
	c->o = o;
	c->failed_exit = -1;
	if (!part)
		part = fdw_bench_kernel_default_part(o->scale);
	rc = parse_part(part, c);
	if (rc) {
		snprintf(why, len, _("\"%s\" is not a part of the kernel tree to build: give all, "
				     "or up to %d directories like lib,fs/ext4. Nothing was "
				     "changed."), part, FDW_KERNEL_MAX_DIRS);
		goto out;
	}
	rc = check_needs(c, r, why, len);
	if (rc)
		goto out;
	rc = set_paths(c);
	if (rc) {
		snprintf(why, len, _("Cannot make a scratch directory in %s: %s; nothing was "
				     "changed."), o->dir, strerror(-rc));
		goto out;
	}
	machine_srcarch(c->srcarch, sizeof(c->srcarch));
	c->jobs = cpus < 1 ? 1 : cpus > MAX_JOBS ? MAX_JOBS : (int)cpus;
	name_tests(tests, c);
	fdw_log(FDW_LOG_INFO, "kernel build benchmark: %s, part %s, -j%d, %d runs", c->tarball,
		part, c->jobs, repeats > FDW_BENCH_MAX_REPEATS ? FDW_BENCH_MAX_REPEATS : repeats);
	for (rep = 0; rep < repeats && rep < FDW_BENCH_MAX_REPEATS && !rc; rep++)
		rc = build_once(c, tests, rep, repeats, &failed);
	if (rc) {
		failure_sentence(c, rc, failed, why, len);
	} else {
		size_t used = strlen(tests[K_BUILD].note);

		snprintf(tests[K_BUILD].note + used, sizeof(tests[0].note) - used, " %s",
			 c->dropped_global ? "Caches dropped before the build." :
			 "Caches could not be dropped (drop_caches not writable).");
		for (int k = 0; k < K_STEPS; k++) {
			fdw_bench_test_finish(&tests[k]);
			r->tests[r->n_tests++] = tests[k];
		}
		if (o->progress)
			o->progress(N_("building the kernel"), 1.0, o->progress_ctx);
	}
	build_remove_tree(c->scratch);
out:
	free(c);
	return rc;
}
