/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `fdewiz bench`: measure a filesystem or device, save the result, compare two results. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_report.h"
#include "cli.h"
#include "core/bench/bench_api.h"
#include "core/base/base_api.h"

/* "all" is the quick three; the real kernel build takes minutes and is asked for by name. */
enum { KIND_IO = 1, KIND_BUILD = 2, KIND_CIPHER = 4, KIND_ALL = 7, KIND_KERNEL = 8 };

enum {
	OPT_QUICK = 256, OPT_FULL, OPT_KIND, OPT_REPEATS, OPT_JSON, OPT_SAVE, OPT_LABEL,
	OPT_ALLOW_WRITE, OPT_REAL_CC, OPT_COMPARE, OPT_IO_SIZE, OPT_RUNTIME, OPT_IO_ENGINE,
	OPT_IO_TESTS, OPT_KERNEL_PART,
};

static volatile sig_atomic_t bench_stop;

static void bench_usage(FILE *out)
{
	fprintf(out, _("Usage: %s bench [--quick|--full] [--kind io,build,cipher,kernel]\n"
		       "                    [--repeats N] [--json] [--save FILE] [--label L]\n"
		       "                    [--allow-write] [--real-cc] [--kernel-part P] TARGET\n"
		       "       %s bench --compare BEFORE.json AFTER.json [--json]\n"
		       "Measure I/O (fio-style), a build-like workload and the ciphers on\n"
		       "TARGET, a directory on a mounted filesystem or a block device (read-only\n"
		       "unless --allow-write), and save the result; or compare a plain and an\n"
		       "encrypted result.\n"
		       "  --quick, --full   shorter tests, or the usual disk-benchmark settings\n"
		       "                    (--full: 1 GiB, 5 s per test, 5 runs, 5 s pauses)\n"
		       "  --kind LIST       which benchmarks, of io, build, cipher (default: these\n"
		       "                    three) and kernel: a real kernel build from\n"
		       "                    /usr/src/linux-source-*.tar.xz (package linux-source-6.1)\n"
		       "  --repeats N       runs of each test, 1 to 9 (default 3)\n"
		       "  --json            machine-readable output (the saved format)\n"
		       "  --save FILE       save there (default: %s/<label>-<target>-<date>.json)\n"
		       "  --label L         name of this run, like before or after\n"
		       "  --allow-write     on a block device: also test writing (destroys its "
		       "data)\n"
		       "  --real-cc         build: compile the generated sources with cc\n"
		       "  --kernel-part P   kernel: build only these directories, like lib or\n"
		       "                    lib,fs/ext4, or all (default: by scale; quick lib,\n"
		       "                    normal lib,fs, full all)\n"
		       "  --compare A B     compare a plain result A with an encrypted result B\n"),
		fdw_progname, fdw_progname, fdw_bench_dir());
}

/* A bad option: say which and how it is used, that nothing changed, and where help is. */
static int usage_fail(const char *msg)
{
	fprintf(stderr, "%s: bench: %s\n", fdw_progname, msg);
	cli_usage_error("bench");
	return FDW_EXIT_USAGE;
}

static int parse_kinds(const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int kinds = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "io"))
			kinds |= KIND_IO;
		else if (!strcmp(tok, "build"))
			kinds |= KIND_BUILD;
		else if (!strcmp(tok, "cipher"))
			kinds |= KIND_CIPHER;
		else if (!strcmp(tok, "kernel"))
			kinds |= KIND_KERNEL;
		else if (!strcmp(tok, "all"))
			kinds |= KIND_ALL;
		else {
			kinds = -1;
			break;
		}
	}
	free(copy);
	return kinds ? kinds : -1;
}

/* 123, 64M, 1G (powers of 1024); 0 when malformed. */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return 0;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	return *end ? 0 : v;
}

static int load_for_compare(const char *path, struct fdw_bench_run *r)
{
	int rc = fdw_bench_run_load(path, r);

	if (rc == -ENOENT)
		fprintf(stderr, _("%s: bench: %s does not exist. Nothing was changed. Give two "
				  "files that 'fdewiz bench' saved (they are kept in %s).\n"),
			fdw_progname, path, fdw_bench_dir());
	else if (rc == -EINVAL)
		fprintf(stderr, _("%s: bench: %s is not a saved fdewiz benchmark (damaged, or "
				  "another format). Nothing was changed. Give two files that "
				  "'fdewiz bench' saved (they are kept in %s).\n"),
			fdw_progname, path, fdw_bench_dir());
	else if (rc)
		fprintf(stderr, _("%s: bench: cannot read %s: %s. Nothing was changed.\n"),
			fdw_progname, path, strerror(-rc));
	return rc;
}

static int bench_compare(const char *a, const char *b, bool json)
{
	struct fdw_bench_run *plain = calloc(1, sizeof(*plain));
	struct fdw_bench_run *enc = calloc(1, sizeof(*enc));
	struct fdw_bench_delta d[FDW_BENCH_MAX_TESTS];
	int rc = FDW_EXIT_ERROR;
	size_t n;

	if (!plain || !enc) {
		fprintf(stderr, "%s: %s\n", fdw_progname, strerror(ENOMEM));
		goto out;
	}
	if (load_for_compare(a, plain) || load_for_compare(b, enc))
		goto out;
	n = fdw_bench_compare(plain, enc, d, FDW_BENCH_MAX_TESTS);
	if (json)
		bench_print_compare_json(stdout, a, plain, b, enc, d, n);
	else
		bench_print_compare_table(stdout, plain, enc, d, n);
	rc = FDW_EXIT_OK;
out:
	free(plain);
	free(enc);
	return rc;
}

struct progress_line {
	const char *kind;
	bool tty;
	bool shown;
	double start;		/* fdw_now_s() when the benchmark began */
	double base, weight;	/* the share of the whole done before this kind, and its own */
};

#define BAR_WIDTH 20

/* On a terminal: the test running, a bar for the whole benchmark, and the time left. */
static int show_progress(const char *what, double fraction, void *ctx)
{
	struct progress_line *p = ctx;
	double whole = p->base + p->weight * fraction, took = fdw_now_s() - p->start;
	char bar[BAR_WIDTH + 1], left[32];
	int i, filled;

	if (!p->tty)
		return bench_stop != 0;
	whole = whole < 0 ? 0 : whole > 1 ? 1 : whole;
	filled = (int)(whole * BAR_WIDTH + 0.5);
	for (i = 0; i < BAR_WIDTH; i++)
		bar[i] = i < filled ? '#' : '.';
	bar[BAR_WIDTH] = '\0';
	/* The time left only once there is something to go by. */
	if (whole >= 0.03 && took >= 2)
		fdw_format_duration(took / whole * (1 - whole), "?", left, sizeof(left));
	else
		snprintf(left, sizeof(left), "?");
	/* The line is redrawn in place; the control codes stay out of the translated text. */
	fputs("\r\033[K", stderr);
	fprintf(stderr, _("%s: %.40s [%s] %3.0f%%, about %s left"), p->kind, _(what), bar,
		whole * 100.0, left);
	fflush(stderr);
	p->shown = true;
	return bench_stop != 0;
}

static void end_progress(struct progress_line *p)
{
	if (p->shown)
		fprintf(stderr, "\r\033[K");
	p->shown = false;
}

typedef int (*bench_fn)(const struct fdw_bench_options *, struct fdw_bench_run *, char *,
			size_t);

/* --kernel-part, NULL for the scale's part. */
static const char *kernel_part;

static int bench_kernel(const struct fdw_bench_options *o, struct fdw_bench_run *r, char *why,
			size_t len)
{
	return fdw_bench_kernel(o, kernel_part, r, why, len);
}

static int run_kinds(struct fdw_bench_options *o, struct fdw_bench_run *r, int kinds,
		     struct progress_line *pl)
{
	/* weight: each kind's rough share of the time, for the bar over the whole run */
	static const struct {
		int kind;
		const char *name;
		bench_fn fn;
		double weight;
	} list[] = {
		{ KIND_IO, "io", fdw_bench_io, 6 },
		{ KIND_BUILD, "build", fdw_bench_build, 3 },
		{ KIND_CIPHER, "cipher", fdw_bench_cipher, 1 },
		{ KIND_KERNEL, "kernel", bench_kernel, 20 },
	};
	char why[512];
	size_t i;
	double total = 0;
	int rc;

	for (i = 0; i < sizeof(list) / sizeof(list[0]); i++)
		total += kinds & list[i].kind ? list[i].weight : 0;
	pl->start = fdw_now_s();
	pl->base = 0;
	for (i = 0; i < sizeof(list) / sizeof(list[0]); i++) {
		double t0;

		if (!(kinds & list[i].kind))
			continue;
		pl->kind = list[i].name;
		pl->base += pl->weight;
		pl->weight = list[i].weight / total;
		why[0] = '\0';
		t0 = fdw_now_s();
		rc = list[i].fn(o, r, why, sizeof(why));
		end_progress(pl);
		if (rc) {
			fprintf(stderr, "%s: bench: %s\n", fdw_progname,
				why[0] ? why : strerror(-rc));
			return rc;
		}
		fprintf(stderr, _("%s: bench: %s took %.0f s\n"), fdw_progname, list[i].name,
			fdw_now_s() - t0);
	}
	return 0;
}

/* Save the result (in @save, or the default place @path) and show it. */
static int save_and_show(const struct fdw_bench_run *r, const char *save, const char *path,
			 bool json)
{
	int rc = save ? 0 : fdw_bench_dir_ensure();

	if (!rc)
		rc = fdw_bench_run_save(r, path);
	if (json)
		bench_print_json(stdout, r);
	else
		bench_print_table(stdout, r);
	if (rc) {
		fprintf(stderr, _("%s: bench: the result could not be saved to %s: %s. It is "
				  "shown above only.\n"), fdw_progname, path, strerror(-rc));
		return FDW_EXIT_ERROR;
	}
	fprintf(stderr, _("%s: bench: result saved to %s\n"), fdw_progname, path);
	return FDW_EXIT_OK;
}

static int bench_target(struct fdw_bench_options *o, const char *target, int kinds,
			bool explicit_kinds, const char *label, const char *save, bool json)
{
	struct fdw_bench_run *r = calloc(1, sizeof(*r));
	struct progress_line pl = { .tty = isatty(STDERR_FILENO) == 1 };
	struct fdw_stop_signals old;
	char why[512], path[PATH_MAX];
	struct stat st;
	int rc, ret = FDW_EXIT_ERROR;

	if (!r) {
		fprintf(stderr, "%s: %s\n", fdw_progname, strerror(ENOMEM));
		return FDW_EXIT_ERROR;
	}
	if (stat(target, &st) == 0 && S_ISBLK(st.st_mode))
		o->device = target;
	else
		o->dir = target;
	if (o->device && (kinds & (KIND_BUILD | KIND_KERNEL))) {
		if (!explicit_kinds) {
			/* The build workload needs a filesystem; a device gets the others. */
			kinds &= ~KIND_BUILD;
		} else {
			const char *k = kinds & KIND_BUILD ? "build" : "kernel";

			fprintf(stderr, _("%s: bench: the %s benchmark needs a directory "
					  "on a mounted filesystem, and %s is a block device. "
					  "Nothing was changed. Give a directory, or leave %s "
					  "out of --kind.\n"), fdw_progname, k, target, k);
			goto out;
		}
	}
	why[0] = '\0';
	/* The I/O test's needs (room for its file, a device safe to write) are its own; the
	 * build and cipher kinds check what they need themselves. */
	if (kinds & KIND_IO)
		rc = fdw_bench_target_check(o, r, why, sizeof(why));
	else
		rc = snprintf(r->target, sizeof(r->target), "%s", target) < 0 ? -EINVAL : 0;
	if (rc) {
		fprintf(stderr, "%s: bench: %s\n", fdw_progname, why[0] ? why : strerror(-rc));
		goto out;
	}
	snprintf(r->label, sizeof(r->label), "%s", label ? label : "");
	fdw_bench_run_describe(r);
	snprintf(r->scale, sizeof(r->scale), "%s", fdw_bench_scale_name(o->scale));
	if (save)
		snprintf(path, sizeof(path), "%s", save);
	else
		fdw_bench_default_path(r, path, sizeof(path));

	o->stop = &bench_stop;
	o->progress = show_progress;
	o->progress_ctx = &pl;
	fdw_stop_signals_catch(&bench_stop, true, &old);
	rc = run_kinds(o, r, kinds, &pl);
	/* @pl lives on this stack: the caller's options must not keep pointing at it. */
	o->progress = NULL;
	o->progress_ctx = NULL;
	fdw_stop_signals_restore(&old);
	if (rc)
		goto out;

	ret = save_and_show(r, save, path, json);
out:
	free(r);
	return ret;
}

struct bench_args {
	struct fdw_bench_options o;
	const char *save, *label;
	bool json, compare, explicit_kinds;
	int kinds;
};

#define ARGS_GO_ON (-1)

/* The options that take a value; ARGS_GO_ON, or the exit status of a usage error. */
static int parse_value(int c, const char *arg, struct bench_args *a)
{
	char *end;

	switch (c) {
	case OPT_KIND:
		a->kinds = parse_kinds(arg);
		a->explicit_kinds = true;
		if (a->kinds < 0)
			return usage_fail(_("--kind takes a list of io, build, cipher and kernel, "
					    "like --kind io,cipher."));
		break;
	case OPT_REPEATS:
		a->o.repeats = (int)strtol(arg, &end, 10);
		if (*end || end == arg || a->o.repeats < 1 ||
		    a->o.repeats > FDW_BENCH_MAX_REPEATS)
			return usage_fail(_("--repeats takes a number from 1 to 9."));
		break;
	case OPT_IO_SIZE:
		a->o.io_size = parse_size(arg);
		if (a->o.io_size < (1u << 20))
			return usage_fail(_("--io-size takes a size of at least 1M, like 256M."));
		break;
	case OPT_RUNTIME:
		a->o.io_runtime = strtod(arg, &end);
		if (*end || end == arg || !(a->o.io_runtime > 0 && a->o.io_runtime <= 3600))
			return usage_fail(_("--runtime takes seconds, like 2.5."));
		break;
	case OPT_IO_ENGINE:
		if (strcmp(arg, "io_uring") && strcmp(arg, "threads"))
			return usage_fail(_("--io-engine is io_uring or threads."));
		a->o.io_engine = arg;
		break;
	case OPT_KERNEL_PART:
		if (fdw_bench_kernel_part_check(arg))
			return usage_fail(_("--kernel-part takes all, or up to four directories of "
					    "the kernel tree, like lib or lib,fs/ext4."));
		kernel_part = arg;
		break;
	default:
		cli_usage_error("bench");
		return FDW_EXIT_USAGE;
	}
	return ARGS_GO_ON;
}

/* One option; ARGS_GO_ON, or the exit status to return now (help, a usage error). */
static int parse_one(int c, const char *arg, struct bench_args *a)
{
	switch (c) {
	case OPT_QUICK:
		a->o.scale = FDW_BENCH_QUICK;
		break;
	case OPT_FULL:
		a->o.scale = FDW_BENCH_FULL;
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_SAVE:
		a->save = arg;
		break;
	case OPT_LABEL:
		a->label = arg;
		break;
	case OPT_ALLOW_WRITE:
		a->o.allow_write = true;
		break;
	case OPT_REAL_CC:
		a->o.real_cc = true;
		break;
	case OPT_COMPARE:
		a->compare = true;
		break;
	case OPT_IO_TESTS:
		a->o.io_tests = arg;
		break;
	case 'h':
		bench_usage(stdout);
		return FDW_EXIT_OK;
	default:
		return parse_value(c, arg, a);
	}
	return ARGS_GO_ON;
}

int cmd_bench(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quick", no_argument, NULL, OPT_QUICK },
		{ "full", no_argument, NULL, OPT_FULL },
		{ "kind", required_argument, NULL, OPT_KIND },
		{ "repeats", required_argument, NULL, OPT_REPEATS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "save", required_argument, NULL, OPT_SAVE },
		{ "label", required_argument, NULL, OPT_LABEL },
		{ "allow-write", no_argument, NULL, OPT_ALLOW_WRITE },
		{ "real-cc", no_argument, NULL, OPT_REAL_CC },
		{ "kernel-part", required_argument, NULL, OPT_KERNEL_PART },
		{ "compare", no_argument, NULL, OPT_COMPARE },
		/* Not in the help: exact I/O parameters, to run what a reference tool runs. */
		{ "io-size", required_argument, NULL, OPT_IO_SIZE },
		{ "runtime", required_argument, NULL, OPT_RUNTIME },
		{ "io-engine", required_argument, NULL, OPT_IO_ENGINE },
		{ "io-tests", required_argument, NULL, OPT_IO_TESTS },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct bench_args a = { .o = { .scale = FDW_BENCH_NORMAL }, .kinds = KIND_ALL };
	int c, rc;

	kernel_part = NULL;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		if ((rc = parse_one(c, optarg, &a)) != ARGS_GO_ON)
			return rc;
	if (a.compare) {
		if (argc - optind != 2)
			return usage_fail(_("--compare takes two saved results: the plain one, "
					    "then the encrypted one."));
		return bench_compare(argv[optind], argv[optind + 1], a.json);
	}
	if (argc - optind != 1)
		return usage_fail(_("name one TARGET: a directory on a mounted filesystem, or a "
				    "block device."));
	return bench_target(&a.o, argv[optind], a.kinds, a.explicit_kinds, a.label, a.save,
			    a.json);
}
