/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Kernel-build-style benchmark: generate a C source tree, compile it in parallel, link, clean. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench_build.h"
#include "base/clock.h"
#include "base/dropcache.h"
#include "base/durable.h"
#include "base/fileio.h"
#include "base/i18n.h"
#include "base/log.h"
#include "base/spawn.h"
#include "base/units.h"

/* Per-step measurement. */
struct step_time {
	double wall_s, user_s, sys_s;
};

struct build_ctx {
	const struct fdw_bench_options *o;
	const struct build_plan *p;
	char root[PATH_MAX];
	int jobs;
	bool real_cc;
	bool dropped_global;	/* /proc/sys/vm/drop_caches worked */
	/* compile workers */
	size_t next, done;
	int err;		/* first -errno of a worker */
	size_t err_file;
	int abort;
	char errpath[PATH_MAX];
};



/* ---- timing ---- */

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

struct clock_mark {
	double wall, user, sys;
};

static void mark(struct clock_mark *m)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	m->wall = fdw_now_s();
	m->user = tv_s(self.ru_utime) + tv_s(kids.ru_utime);
	m->sys = tv_s(self.ru_stime) + tv_s(kids.ru_stime);
}

static void mark_since(const struct clock_mark *a, struct step_time *st)
{
	struct clock_mark b;

	mark(&b);
	st->wall_s = b.wall - a->wall;
	st->user_s = b.user - a->user;
	st->sys_s = b.sys - a->sys;
}

static bool want_stop(struct build_ctx *c, const char *what, double frac)
{
	if (c->o->stop && *c->o->stop)
		return true;
	return c->o->progress && c->o->progress(what, frac, c->o->progress_ctx) != 0;
}

/* ---- steps ---- */

static int step_generate(struct build_ctx *c, double f0, double f1)
{
	const struct build_plan *p = c->p;
	struct text t = { 0 };
	char path[PATH_MAX];
	size_t i;
	int rc = 0;

	t.cap = 256 * 1024 + 4096;
	t.buf = malloc(t.cap);
	if (!t.buf)
		return -ENOMEM;
	for (i = 0; i < p->n_dirs && !rc; i++) {
		build_path_join(path, sizeof(path), c->root, p->dirs[i]);
		if (mkdir(path, 0755) != 0)
			rc = -errno;
	}
	for (i = 0; i < p->n_hdr && !rc; i++) {
		t.len = 0;
		build_gen_header(&p->hdr[i], (unsigned)i, &t);
		build_path_join(path, sizeof(path), c->root, p->hdr[i].rel);
		rc = build_write_file(path, t.buf, t.len);
	}
	for (i = 0; i < p->n_src && !rc; i++) {
		if (i % 64 == 0 && want_stop(c, N_("generating the source tree"),
					     f0 + (f1 - f0) * i / p->n_src))
			rc = -EINTR;
		if (rc)
			break;
		t.len = 0;
		build_gen_source(p, i, &t);
		build_path_join(path, sizeof(path), c->root, p->src[i].rel);
		rc = build_write_file(path, t.buf, t.len);
	}
	if (rc && rc != -EINTR)
		fdw_log(FDW_LOG_ERROR, "build benchmark: writing %s: %s", path, strerror(-rc));
	free(t.buf);
	return rc ? rc : fdw_sync_fs_of(c->root);
}

static void fadvise_drop(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	fdw_drop_caches(fd, false);
	close(fd);
}

/* Start the next step with cold caches: per file, and system-wide where allowed. */
static void drop_caches(struct build_ctx *c, bool objects)
{
	const struct build_plan *p = c->p;
	char path[PATH_MAX];
	size_t i;
	int fd;

	fdw_sync_fs_of(c->root);
	for (i = 0; i < p->n_hdr; i++) {
		build_path_join(path, sizeof(path), c->root, p->hdr[i].rel);
		fadvise_drop(path);
	}
	for (i = 0; i < p->n_src; i++) {
		if (objects)
			build_obj_path(path, sizeof(path), c->root, p->src[i].rel);
		else
			build_path_join(path, sizeof(path), c->root, p->src[i].rel);
		fadvise_drop(path);
	}
	fd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	c->dropped_global = fdw_drop_caches(fd, true);
	if (fd >= 0)
		close(fd);
}

/* The "compiler": mix every byte of the source (several rounds) and of its headers. */
static uint64_t mix(const char *buf, size_t len, unsigned rounds, uint64_t h)
{
	size_t i;
	unsigned r;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, buf + i, 8);
		for (r = 0; r < rounds; r++) {
			h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
			h ^= h >> 29;
			w += h;
		}
	}
	for (; i < len; i++)
		h = (h ^ (unsigned char)buf[i]) * 0x100000001b3ULL;
	return h;
}

/* The largest file a compile reads: the tree's are generated far smaller. */
#define SRC_MAX (64u << 20)

/* Mix in the headers @src names, read as a preprocessor would. */
static int read_headers(const struct build_ctx *c, const char *src, uint64_t *h)
{
	for (const char *line = strstr(src, "#include \""); line;
	     line = strstr(line + 1, "#include \"")) {
		char inc[256], rel[300], hpath[PATH_MAX], *hb;
		const char *q = line + 10;
		size_t hn, k = 0;
		int rc;

		while (*q && *q != '"' && k < sizeof(inc) - 1)
			inc[k++] = *q++;
		inc[k] = '\0';
		snprintf(rel, sizeof(rel), "include/%s", inc);
		build_path_join(hpath, sizeof(hpath), c->root, rel);
		rc = fdw_read_file(hpath, SRC_MAX, 0, &hb, &hn, NULL);
		if (rc)
			return rc;
		*h = mix(hb, hn, 1, *h);
		free(hb);
	}
	return 0;
}

static int fake_compile(struct build_ctx *c, size_t idx, char *obj, size_t obj_cap)
{
	const struct build_plan *p = c->p;
	char path[PATH_MAX], *src;
	uint64_t h = 0, s, osize;
	size_t i, n;
	int rc;

	build_path_join(path, sizeof(path), c->root, p->src[idx].rel);
	rc = fdw_read_file(path, SRC_MAX, 0, &src, &n, NULL);
	if (rc)
		return rc;
	h = mix(src, n, SRC_ROUNDS, h);
	osize = build_obj_size_of((uint64_t)n);
	rc = read_headers(c, src, &h);
	free(src);
	if (rc)
		return rc;
	if (osize > obj_cap)
		osize = obj_cap;
	s = h;
	for (i = 0; i + 8 <= osize; i += 8) {
		uint64_t w = build_splitmix(&s);

		memcpy(obj + i, &w, 8);
	}
	build_obj_path(path, sizeof(path), c->root, p->src[idx].rel);
	return build_write_file(path, obj, (size_t)osize);
}

static void *compile_worker(void *arg)
{
	struct build_ctx *c = arg;
	size_t obj_cap = build_obj_size_of(256 * 1024) + 8;
	char *obj = malloc(obj_cap);

	for (;;) {
		size_t idx = __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED);
		int rc;

		if (idx >= c->p->n_src || __atomic_load_n(&c->abort, __ATOMIC_RELAXED))
			break;
		rc = obj ? fake_compile(c, idx, obj, obj_cap) : -ENOMEM;
		if (rc) {
			int none = 0;

			if (__atomic_compare_exchange_n(&c->err, &none, rc, false,
							__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
				c->err_file = idx;
			__atomic_store_n(&c->abort, 1, __ATOMIC_RELAXED);
			break;
		}
		__atomic_fetch_add(&c->done, 1, __ATOMIC_RELAXED);
	}
	free(obj);
	return NULL;
}

static int compile_threads(struct build_ctx *c, double f0, double f1)
{
	pthread_t th[MAX_JOBS];
	int n = 0, k, rc;

	c->next = c->done = 0;
	c->err = c->abort = 0;
	for (k = 0; k < c->jobs; k++) {
		rc = pthread_create(&th[n], NULL, compile_worker, c);
		if (rc) {
			fdw_log(FDW_LOG_WARN, "build benchmark: thread: %s", strerror(rc));
			break;
		}
		n++;
	}
	if (n == 0)
		return -EAGAIN;
	while (__atomic_load_n(&c->done, __ATOMIC_RELAXED) < c->p->n_src &&
	       !__atomic_load_n(&c->abort, __ATOMIC_RELAXED)) {
		double frac = (double)__atomic_load_n(&c->done, __ATOMIC_RELAXED) / c->p->n_src;

		if (want_stop(c, N_("compiling"), f0 + (f1 - f0) * frac)) {
			__atomic_store_n(&c->abort, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&c->err, -EINTR, __ATOMIC_RELAXED);
			break;
		}
		usleep(50 * 1000);
	}
	for (k = 0; k < n; k++)
		pthread_join(th[k], NULL);
	if (c->err && c->err != -EINTR)
		fdw_log(FDW_LOG_ERROR, "build benchmark: compiling %s: %s",
			c->p->src[c->err_file].rel, strerror(-c->err));
	return c->err;
}

/* The compiler's first complaints, into the log before the scratch tree goes. */
static void log_cc_messages(const char *path)
{
	FILE *f = fopen(path, "re");
	char line[512];
	int n = 0;

	while (f && n++ < 20 && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		fdw_log(FDW_LOG_ERROR, "cc: %s", line);
	}
	if (f)
		fclose(f);
}

static int spawn_cc(struct build_ctx *c, size_t idx, pid_t *pid)
{
	char inc[PATH_MAX + 16], src[PATH_MAX], obj[PATH_MAX];
	char *argv[] = { "cc", "-c", "-O2", "-w", inc, "-o", obj, src, NULL };
	/* The system's cc (spawn.h: its directories, no caller environment), as root too. */
	const struct fdw_spawn_opts o = { .fd3 = -1, .output_file = c->errpath };

	snprintf(inc, sizeof(inc), "-I%s/include", c->root);
	build_path_join(src, sizeof(src), c->root, c->p->src[idx].rel);
	build_obj_path(obj, sizeof(obj), c->root, c->p->src[idx].rel);
	return fdw_spawn_start(argv, &o, pid, NULL);
}

/*
 * Real compiler: up to c->jobs `cc -c` at once, their messages into one file. Each child
 * is watched through a pidfd, so a stop request is seen at once, not after a long compile.
 */
static int compile_cc(struct build_ctx *c, double f0, double f1)
{
	const struct build_plan *p = c->p;
	struct pollfd pfd[MAX_JOBS];
	pid_t kids[MAX_JOBS];
	size_t next = 0, done = 0;
	int running = 0, rc = 0, k, blocking;

	build_path_join(c->errpath, sizeof(c->errpath), c->root, "cc-messages.log");
	for (k = 0; k < c->jobs; k++) {
		kids[k] = 0;
		pfd[k].fd = -1;
		pfd[k].events = POLLIN;
	}
	while (done < p->n_src) {
		for (k = 0; !rc && k < c->jobs && next < p->n_src; k++) {
			if (kids[k])
				continue;
			rc = spawn_cc(c, next, &kids[k]);
			if (rc) {
				kids[k] = 0;
				break;
			}
			pfd[k].fd = (int)syscall(SYS_pidfd_open, kids[k], 0);
			running++;
			next++;
		}
		if (running == 0)
			break;
		/* A child without a pidfd (an old kernel) is waited for in turn. */
		for (blocking = -1, k = 0; k < c->jobs && blocking < 0; k++)
			if (kids[k] && pfd[k].fd < 0)
				blocking = k;
		if (blocking < 0 && poll(pfd, (nfds_t)c->jobs, 100) < 0 && errno != EINTR)
			rc = rc ? rc : -errno;
		for (k = 0; k < c->jobs; k++) {
			int status;

			if (!kids[k] || (k != blocking && !(pfd[k].revents & POLLIN)))
				continue;
			status = fdw_spawn_wait(kids[k], NULL);
			if (pfd[k].fd >= 0)
				close(pfd[k].fd);
			pfd[k].fd = -1;
			pfd[k].revents = 0;
			kids[k] = 0;
			running--;
			done++;
			if (!rc && status != 0) {
				fdw_log(FDW_LOG_ERROR, "build benchmark: cc failed (status %d)",
					status);
				rc = -EIO;
			}
		}
		if (!rc && want_stop(c, N_("compiling"), f0 + (f1 - f0) * done / p->n_src))
			rc = -EINTR;
		if (rc)
			for (k = 0; k < c->jobs; k++)
				if (kids[k])
					kill(kids[k], SIGTERM);
	}
	if (rc == -EIO)
		log_cc_messages(c->errpath);
	return rc;
}

static int step_link(struct build_ctx *c, double f0, double f1)
{
	const struct build_plan *p = c->p;
	char path[PATH_MAX], *buf = malloc(IO_CHUNK);
	size_t i;
	int out, rc = 0;

	if (!buf)
		return -ENOMEM;
	build_path_join(path, sizeof(path), c->root, "vmlinux.o");
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		free(buf);
		return -errno;
	}
	for (i = 0; i < p->n_src && !rc; i++) {
		int fd;
		ssize_t n;

		if (i % 64 == 0 && want_stop(c, N_("linking"), f0 + (f1 - f0) * i / p->n_src)) {
			rc = -EINTR;
			break;
		}
		build_obj_path(path, sizeof(path), c->root, p->src[i].rel);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			rc = -errno;
			break;
		}
		while ((n = read(fd, buf, IO_CHUNK)) != 0) {
			if (n < 0) {
				if (errno == EINTR)
					continue;
				rc = -errno;
				break;
			}
			rc = build_write_all(out, buf, (size_t)n);
			if (rc)
				break;
		}
		close(fd);
	}
	if (!rc && fsync(out) != 0)
		rc = -errno;
	if (close(out) != 0 && !rc)
		rc = -errno;
	free(buf);
	return rc;
}

static int step_clean(struct build_ctx *c)
{
	const struct build_plan *p = c->p;
	char path[PATH_MAX];
	size_t i;
	int rc = 0;

	for (i = 0; i < p->n_src; i++) {
		build_obj_path(path, sizeof(path), c->root, p->src[i].rel);
		if (unlink(path) != 0 && errno != ENOENT && !rc)
			rc = -errno;
	}
	build_path_join(path, sizeof(path), c->root, "vmlinux.o");
	if (unlink(path) != 0 && errno != ENOENT && !rc)
		rc = -errno;
	return rc ? rc : fdw_sync_fs_of(c->root);
}

/* ---- the benchmark ---- */

static void add_metric(struct fdw_bench_test *t, const char *key, const char *unit, bool higher,
		       double v)
{
	struct fdw_bench_metric *m;
	size_t i;

	for (i = 0; i < t->n_metrics && strcmp(t->metrics[i].key, key); i++)
		;
	if (i == t->n_metrics) {
		if (i >= FDW_BENCH_MAX_METRICS)
			return;
		m = &t->metrics[t->n_metrics++];
		memset(m, 0, sizeof(*m));
		snprintf(m->key, sizeof(m->key), "%s", key);
		snprintf(m->unit, sizeof(m->unit), "%s", unit);
		m->higher_is_better = higher;
	}
	m = &t->metrics[i];
	if (m->n < FDW_BENCH_MAX_REPEATS)
		m->samples[m->n++] = v;
}

static void add_step(struct fdw_bench_test *t, const struct step_time *st)
{
	double cpu = st->user_s + st->sys_s;

	add_metric(t, "wall_s", "s", false, st->wall_s);
	add_metric(t, "user_s", "s", false, st->user_s);
	add_metric(t, "sys_s", "s", false, st->sys_s);
	add_metric(t, "cpu_pct", "%", false, st->wall_s > 0 ? cpu / st->wall_s * 100.0 : 0);
}

enum { STEP_GENERATE, STEP_COMPILE, STEP_LINK, STEP_CLEAN, N_STEPS };

static const char *const step_ids[N_STEPS] = {
	"build.generate", "build.compile", "build.link", "build.clean",
};

/* One repetition in a fresh scratch directory; @keep: where to move the tree, or NULL. */
static int build_once(struct build_ctx *c, struct fdw_bench_test *tests, int rep, int repeats,
		      const char *keep, const char **failed_step)
{
	static const char *const names[N_STEPS] = { "generate", "compile", "link", "clean" };
	struct step_time st[N_STEPS];
	struct clock_mark m;
	double base = (double)rep / repeats, w = 1.0 / repeats;
	int rc, k;

	snprintf(c->root, sizeof(c->root), "%s/.fdewiz-build-XXXXXX", c->o->dir);
	if (!mkdtemp(c->root)) {
		*failed_step = "setup";
		c->root[0] = '\0';
		return -errno;
	}
	*failed_step = names[STEP_GENERATE];
	mark(&m);
	rc = step_generate(c, base, base + 0.3 * w);
	mark_since(&m, &st[STEP_GENERATE]);
	if (rc)
		goto out;
	drop_caches(c, false);
	*failed_step = names[STEP_COMPILE];
	mark(&m);
	rc = c->real_cc ? compile_cc(c, base + 0.3 * w, base + 0.8 * w) :
		compile_threads(c, base + 0.3 * w, base + 0.8 * w);
	if (!rc)
		rc = fdw_sync_fs_of(c->root);
	mark_since(&m, &st[STEP_COMPILE]);
	if (rc)
		goto out;
	drop_caches(c, true);
	*failed_step = names[STEP_LINK];
	mark(&m);
	rc = step_link(c, base + 0.8 * w, base + 0.95 * w);
	mark_since(&m, &st[STEP_LINK]);
	if (rc)
		goto out;
	*failed_step = names[STEP_CLEAN];
	mark(&m);
	rc = step_clean(c);
	mark_since(&m, &st[STEP_CLEAN]);
	if (rc)
		goto out;
	for (k = 0; k < N_STEPS; k++)
		add_step(&tests[k], &st[k]);
out:
	if (!rc && keep) {
		char msgs[PATH_MAX];

		build_path_join(msgs, sizeof(msgs), c->root, "cc-messages.log");
		unlink(msgs);
		if (rename(c->root, keep) == 0)
			c->root[0] = '\0';
		else
			fdw_log(FDW_LOG_WARN, "build benchmark: cannot keep the tree at %s: %s",
				keep, strerror(errno));
	}
	if (c->root[0] && build_remove_tree(c->root) != 0)
		fdw_log(FDW_LOG_WARN, "build benchmark: %s could not be removed entirely",
			c->root);
	return rc;
}

static int check_space(const struct fdw_bench_options *o, const struct build_plan *p,
		       char *why, size_t len)
{
	uint64_t need = 0, have, files = p->n_src * 2 + p->n_hdr + p->n_dirs + 16;
	struct statvfs vfs;
	char a[32], b[32];
	size_t i;

	for (i = 0; i < p->n_src; i++)
		need += build_round4k(p->src[i].size) + build_round4k(build_obj_size_of(p->src[i].size));
	for (i = 0; i < p->n_hdr; i++)
		need += build_round4k(p->hdr[i].size);
	need += build_round4k(p->src_bytes * 3 / 4 + p->n_src * 1024);	/* the link output */
	need += p->n_dirs * 4096ULL;
	need += need / 10 + (16ULL << 20);				/* metadata, journal */
	if (statvfs(o->dir, &vfs) != 0) {
		int e = errno;

		snprintf(why, len, _("Cannot read the free space of %s: %s; nothing was written."),
			 o->dir, strerror(e));
		return -e;
	}
	have = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (have < need) {
		fdw_format_size(need, a, sizeof(a));
		fdw_format_size(have, b, sizeof(b));
		if (o->scale == FDW_BENCH_QUICK || o->scale == FDW_BENCH_TINY)
			snprintf(why, len,
				 _("The build benchmark needs %s of free space in %s, but only %s "
				   "is free; nothing was written. Free some space or use a larger "
				   "filesystem."), a, o->dir, b);
		else
			snprintf(why, len,
				 _("The build benchmark needs %s of free space in %s, but only %s "
				   "is free; nothing was written. Free some space, use a larger "
				   "filesystem, or choose the quick scale."), a, o->dir, b);
		return -ENOSPC;
	}
	if (vfs.f_files && vfs.f_favail < files) {
		snprintf(why, len,
			 _("The build benchmark needs %llu free inodes in %s, but only %llu are "
			   "free; nothing was written. Use a filesystem with more inodes."),
			 (unsigned long long)files, o->dir, (unsigned long long)vfs.f_favail);
		return -ENOSPC;
	}
	return 0;
}

/* What the build benchmark needs before it plans anything; 0 or -errno and a sentence. */
static int check_options(const struct fdw_bench_options *o, const struct fdw_bench_run *r,
			 char *why, size_t len)
{
	char cc[PATH_MAX];
	struct stat st;
	int rc;

	if (!o->dir) {
		snprintf(why, len, "%s", _("The build benchmark needs a directory on a mounted "
					   "filesystem, not a block device; nothing was changed. "
					   "Give a directory."));
		return -ENOTDIR;
	}
	if (stat(o->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		rc = stat(o->dir, &st) != 0 ? -errno : -ENOTDIR;
		snprintf(why, len, _("%s is not a directory (%s); nothing was changed. Give the "
				     "directory of a mounted filesystem."), o->dir, strerror(-rc));
		return rc;
	}
	if (strlen(o->dir) > PATH_MAX - 512) {
		snprintf(why, len, "%s", _("The benchmark directory path is too long; nothing "
					   "was changed. Give a shorter path."));
		return -ENAMETOOLONG;
	}
	if (o->real_cc && fdw_helper_resolve("cc", cc, sizeof(cc)) != 0) {
		snprintf(why, len, "%s", _("No C compiler (cc) was found in /usr/sbin, /usr/bin, "
					   "/sbin or /bin, so the build benchmark cannot compile "
					   "for real; nothing was changed. Install gcc, or run it "
					   "without the real compiler."));
		return -ENOENT;
	}
	if (r->n_tests + N_STEPS > FDW_BENCH_MAX_TESTS) {
		snprintf(why, len, "%s", _("The benchmark result holds no more tests; the build "
					   "benchmark was not run. Run it on its own."));
		return -ENOSPC;
	}
	return 0;
}

/* The steps' ids, kinds and titles (English, as saved). */
static void name_steps(struct fdw_bench_test *tests, const struct build_plan *plan,
		       const struct build_ctx *c)
{
	char sz[32];
	int k;

	memset(tests, 0, sizeof(*tests) * N_STEPS);
	for (k = 0; k < N_STEPS; k++) {
		snprintf(tests[k].id, sizeof(tests[k].id), "%s", step_ids[k]);
		snprintf(tests[k].kind, sizeof(tests[k].kind), "build");
	}
	snprintf(tests[STEP_GENERATE].title, sizeof(tests[0].title),
		 "generate %zu files, %s, syncfs", plan->n_src + plan->n_hdr,
		 fdw_format_size(plan->src_bytes + plan->hdr_bytes, sz, sizeof(sz)));
	snprintf(tests[STEP_COMPILE].title, sizeof(tests[0].title), "%s, -j%d, cold cache",
		 c->real_cc ? "compile with cc -c -O2" : "compile-like jobs", c->jobs);
	snprintf(tests[STEP_LINK].title, sizeof(tests[0].title),
		 "link: read all objects, write one, fsync");
	snprintf(tests[STEP_CLEAN].title, sizeof(tests[0].title), "clean: unlink the objects");
}

int fdw_bench_build(const struct fdw_bench_options *o, struct fdw_bench_run *r, char *why,
		    size_t len)
{
	struct fdw_bench_test tests[N_STEPS];
	struct build_plan plan;
	struct build_ctx c;
	const char *keep = getenv(BUILD_KEEP_ENV), *failed = "";
	int repeats = o->repeats > 0 ? o->repeats : 3, rep, k, rc;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	rc = check_options(o, r, why, len);
	if (rc)
		return rc;
	if (repeats > FDW_BENCH_MAX_REPEATS)
		repeats = FDW_BENCH_MAX_REPEATS;
	rc = build_plan_make(o->scale, &plan);
	if (rc) {
		snprintf(why, len, "%s", _("Out of memory while planning the build benchmark; "
					   "nothing was changed."));
		return rc;
	}
	build_plan_limit(&plan, getenv(BUILD_SOURCES_ENV));
	rc = check_space(o, &plan, why, len);
	if (rc)
		goto out;

	memset(&c, 0, sizeof(c));
	c.o = o;
	c.p = &plan;
	c.real_cc = o->real_cc;
	c.jobs = cpus < 1 ? 1 : cpus > MAX_JOBS ? MAX_JOBS : (int)cpus;
	name_steps(tests, &plan, &c);

	for (rep = 0; rep < repeats; rep++) {
		rc = build_once(&c, tests, rep, repeats, rep + 1 == repeats ? keep : NULL,
				&failed);
		if (rc)
			break;
	}
	if (rc == -EINTR) {
		snprintf(why, len, "%s", _("The build benchmark was stopped; its scratch files "
					   "were removed and nothing else was changed."));
		goto out;
	}
	if (rc == -EIO && c.real_cc && !strcmp(failed, "compile")) {
		snprintf(why, len, "%s", _("The C compiler failed on the generated sources (its "
					   "messages are in the log); the scratch files were "
					   "removed and nothing else was changed."));
		goto out;
	}
	if (rc) {
		snprintf(why, len, _("The build benchmark failed in its %s step: %s. Its scratch "
				     "files were removed and nothing else was changed."),
			 failed, strerror(-rc));
		goto out;
	}
	for (k = 0; k < N_STEPS; k++) {
		snprintf(tests[k].note, sizeof(tests[k].note), "%s%s",
			 k != STEP_COMPILE ? "" : c.real_cc ?
			 "real compiler on the generated C; " :
			 "simulated compiler: reads source and headers, CPU work per byte; ",
			 c.dropped_global ? "caches dropped before compile and link." :
			 "caches dropped per file only (drop_caches not writable).");
		fdw_bench_test_finish(&tests[k]);
		r->tests[r->n_tests++] = tests[k];
	}
out:
	build_plan_free(&plan);
	return rc;
}
