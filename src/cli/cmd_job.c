/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `fdewiz status`, `pause` and `resume`: look at, stop and continue conversions. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "conversion.h"
#include "core/luks2/luks2_api.h"
#include "core/convert/convert_api.h"
#include "core/base/base_api.h"
#include "core/state/state_api.h"
#include "core/disk/disk_api.h"
#include "core/boot/boot_api.h"
#include "passphrase.h"

#define STATUS_JSON_VERSION 1

/* Complete conversions older than this are left out of `status` without --all. */
#define RECENT_DAYS 7

/* A conversion to show: from a job record, or found in a header with no record. */
struct view {
	struct fdw_job job;
	struct fdw_progress p;
	bool recorded;		/* false: started by another tool, seen in the header */
	bool restart_begun;	/* unrecorded because the service after the restart has not
				 * taken it over yet: begun by fdewiz's step there */
	bool service_pending;	/* interrupted (a power cut), and the service after this
				 * restart has not taken it over yet: it will */
	char where[PATH_MAX];	/* the address its volume is on now; empty: not found */
};

static double percent_of(const struct fdw_progress *p)
{
	return p->total ? 100.0 * (double)p->done / (double)p->total : 0.0;
}

/* What a person recognises the volume by: its label, size, former filesystem and UUID. */
static void print_volume_line(const struct view *v)
{
	const struct fdw_volume_id *id = &v->job.ident;
	char size[32], when[32] = "";
	struct tm tm;
	time_t t = (time_t)v->job.created;

	printf("    ");
	if (id->label[0])
		printf(_("\"%s\", "), cli_safe(id->label));
	if (id->size) {
		fdw_format_size(id->size, size, sizeof(size));
		printf("%s, ", size);
	}
	if (id->fstype[0] && strcmp(id->fstype, "crypto_LUKS"))
		printf(_("was %s, "), cli_safe(id->fstype));
	printf("UUID %s", cli_safe(v->job.id));
	if (v->recorded && t > 0 && localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
	if (when[0])
		printf(_(", started %s"), when);
	putchar('\n');
}

/* What to do next with @v, found where it is now: a line, or none. */
static void print_next_step(const struct view *v)
{
	char why[PATH_MAX * 2 + 512];

	switch (v->p.state) {
	case FDW_JOB_PAUSED:
		if (v->p.pid) {
			printf(_("    it goes on by itself once the charger is connected (worker "
				 "%d)\n"), (int)v->p.pid);
			break;
		}
		/* fall through */
	case FDW_JOB_INTERRUPTED:
		/* Only ever set for an interrupted one (fdw_restart_goes_on_with()). */
		if (v->service_pending) {
			fdw_restart_phase_text(FDW_RESTART_BEGUN, NULL, why, sizeof(why));
			printf("    %s\n", why);
			break;
		}
		if (v->job.direction[0])
			printf(_("    continue with: %s decrypt %s\n"), fdw_progname,
			       cli_safe(v->where));
		else
			printf(_("    continue with: %s resume %s\n"), fdw_progname,
			       cli_safe(v->where));
		break;
	case FDW_JOB_NEEDS_REPAIR:
		printf(_("    interrupted mid-write; '%s resume %s' repairs it first\n"),
		       fdw_progname, cli_safe(v->where));
		break;
	case FDW_JOB_COMPLETE:
		if (v->job.bench_before[0] && v->job.bench_after[0])
			printf(_("    benchmark: %s bench --compare %s %s\n"), fdw_progname,
			       cli_safe(v->job.bench_before), cli_safe(v->job.bench_after));
		else if (v->job.bench_note[0])
			printf(_("    benchmark: only before (%s)\n"), cli_safe(v->job.bench_note));
		break;
	default:
		break;
	}
}

static void print_view_line(const struct view *v)
{
	char done[32], total[32], speed[32], eta[48], elapsed[48], why[PATH_MAX * 2 + 512];

	/* Interrupted only until its service takes it over: not a state to act on. */
	if (v->where[0] && v->restart_begun)
		printf(_("%s  begun at the restart"), cli_safe(v->where));
	else if (v->where[0])
		printf("%s  %s", cli_safe(v->where), fdw_job_state_name(v->p.state));
	else
		printf(_("(not found; last on %s)  %s"), cli_safe(v->job.address),
		       fdw_job_state_name(v->p.state));
	/* Before and after the encrypting itself there are other steps worth naming. */
	if (v->p.state == FDW_JOB_RUNNING && v->p.phase != FDW_PHASE_NONE &&
	    v->p.phase != FDW_PHASE_ENCRYPTING)
		printf(" (%s)", fdw_phase_label(v->p.phase));
	if (v->p.total) {
		fdw_format_size(v->p.done, done, sizeof(done));
		fdw_format_size(v->p.total, total, sizeof(total));
		printf("  %.1f%%  %s / %s", percent_of(&v->p), done, total);
	}
	if (v->p.state == FDW_JOB_RUNNING) {
		fdw_format_size((uint64_t)v->p.speed, speed, sizeof(speed));
		fdw_progress_eta_text(&v->p, "?", eta, sizeof(eta));
		fdw_format_duration(v->p.elapsed, "?", elapsed, sizeof(elapsed));
		/* Another program's run: its speed comes from two readings of the header. */
		if (!v->p.pid)
			printf(_("  %s/s  ETA %s"), speed, eta);
		else
			printf(_("  %s/s  ETA %s  elapsed %s  worker %d"), speed, eta, elapsed,
			       (int)v->p.pid);
	}
	if (v->p.state == FDW_JOB_RUNNING && v->p.yielding) {
		fdw_format_size((uint64_t)v->p.others_bps, speed, sizeof(speed));
		printf(_("  yielding to other work: %s/s"), speed);
	}
	if (v->p.state == FDW_JOB_RUNNING && v->p.pace[0])
		printf(_("  pace %s"), cli_safe(v->p.pace));
	/* A suspend's time is in no speed or time left: say it was there. */
	if (v->p.slept >= 1) {
		fdw_format_duration(v->p.slept, "?", elapsed, sizeof(elapsed));
		printf(_("  asleep %s (not counted)"), elapsed);
	}
	if (!v->recorded && !v->restart_begun)
		printf(_("  (started outside fdewiz)"));
	if (v->p.message[0])
		printf("  (%s)", cli_safe(v->p.message));
	putchar('\n');
	print_volume_line(v);
	if (v->restart_begun) {
		fdw_restart_phase_text(FDW_RESTART_BEGUN, NULL, why, sizeof(why));
		printf("    %s\n", why);
		return;
	}
	if (!v->recorded) {
		fdw_job_unrecorded_hint(why, sizeof(why));
		printf("    %s\n", why);
	}
	if (v->job.detached_header[0] && v->job.direction[0])
		printf(_("    being decrypted; its header is kept at %s until it is done\n"),
		       cli_safe(v->job.detached_header));
	else if (v->job.detached_header[0])
		printf(_("    encrypted, header kept at %s\n"), cli_safe(v->job.detached_header));
	if (fdw_results_backup_stale(&v->job, why, sizeof(why)))
		printf("    %s\n", cli_safe(why));
	if (v->where[0])
		print_next_step(v);
}

static struct json_object *view_json(const struct view *v)
{
	struct json_object *o = json_object_new_object();
	const struct fdw_volume_id *id = &v->job.ident;

	json_object_object_add(o, "address", json_object_new_string(v->where[0] ? v->where :
									 v->job.address));
	json_object_object_add(o, "found", json_object_new_boolean(v->where[0] != '\0'));
	json_object_object_add(o, "recorded_address", json_object_new_string(v->job.address));
	json_object_object_add(o, "created", v->job.created ?
			       json_object_new_int64(v->job.created) : NULL);
	json_object_object_add(o, "updated", v->p.updated ?
			       json_object_new_int64((int64_t)v->p.updated) : NULL);
	json_object_object_add(o, "label", json_object_new_string(id->label));
	json_object_object_add(o, "fs_uuid", json_object_new_string(id->fs_uuid));
	json_object_object_add(o, "fstype", json_object_new_string(id->fstype));
	json_object_object_add(o, "partuuid", json_object_new_string(id->partuuid));
	json_object_object_add(o, "disk", json_object_new_string(id->disk));
	json_object_object_add(o, "number", json_object_new_int(id->number));
	json_object_object_add(o, "start", json_object_new_int64((int64_t)id->start));
	json_object_object_add(o, "size", json_object_new_int64((int64_t)id->size));
	json_object_object_add(o, "image", id->image[0] ? json_object_new_string(id->image) :
			       NULL);
	json_object_object_add(o, "image_offset", id->image_ino ?
			       json_object_new_int64((int64_t)id->image_offset) : NULL);
	json_object_object_add(o, "id", json_object_new_string(v->job.id));
	json_object_object_add(o, "source", json_object_new_string(v->recorded ? "fdewiz" :
								 v->restart_begun ? "restart" :
								 "header"));
	json_object_object_add(o, "state", json_object_new_string(fdw_job_state_name(v->p.state)));
	/* Begun at a restart: its service goes on with it (unrecorded yet, or interrupted). */
	json_object_object_add(o, "service_takes_over",
			       json_object_new_boolean(v->restart_begun || v->service_pending));
	json_object_object_add(o, "phase", json_object_new_string(fdw_phase_key(v->p.phase)));
	json_object_object_add(o, "percent", json_object_new_double(percent_of(&v->p)));
	json_object_object_add(o, "done", json_object_new_int64((int64_t)v->p.done));
	json_object_object_add(o, "total", json_object_new_int64((int64_t)v->p.total));
	json_object_object_add(o, "speed", json_object_new_double(v->p.speed));
	json_object_object_add(o, "eta", v->p.eta >= 0 ? json_object_new_double(v->p.eta) : NULL);
	json_object_object_add(o, "elapsed", json_object_new_double(v->p.elapsed));
	json_object_object_add(o, "pid", v->p.pid ? json_object_new_int(v->p.pid) : NULL);
	json_object_object_add(o, "message", json_object_new_string(v->p.message));
	json_object_object_add(o, "pace", json_object_new_string(v->p.pace[0] ? v->p.pace :
								  v->job.pace[0] ? v->job.pace : "auto"));
	json_object_object_add(o, "yielding", json_object_new_boolean(v->p.yielding));
	json_object_object_add(o, "others_bps", json_object_new_double(v->p.others_bps));
	json_object_object_add(o, "slept", json_object_new_double(v->p.slept));
	json_object_object_add(o, "direction", json_object_new_string(v->job.direction[0] ?
								       v->job.direction : "encrypt"));
	json_object_object_add(o, "detached_header", v->job.detached_header[0] ?
			       json_object_new_string(v->job.detached_header) : NULL);
	/* A stale backup is no header backup: it is named apart, with the sentence. */
	json_object_object_add(o, "header_backup",
			       v->job.header_backup[0] && !v->job.header_backup_stale ?
			       json_object_new_string(v->job.header_backup) : NULL);
	json_object_object_add(o, "header_backup_stale", v->job.header_backup_stale ?
			       json_object_new_string(v->job.header_backup) : NULL);
	json_object_object_add(o, "bench_before", v->job.bench_before[0] ?
			       json_object_new_string(v->job.bench_before) : NULL);
	json_object_object_add(o, "bench_after", v->job.bench_after[0] ?
			       json_object_new_string(v->job.bench_after) : NULL);
	json_object_object_add(o, "bench_note", v->job.bench_note[0] ?
			       json_object_new_string(v->job.bench_note) : NULL);
	return o;
}

/* Is @v worth a line without --all: not finished, or finished in the last few days? */
static bool recent_or_open(const struct view *v)
{
	time_t cutoff = time(NULL) - RECENT_DAYS * 86400;

	if (v->p.state != FDW_JOB_COMPLETE)
		return true;
	return (v->p.updated && v->p.updated >= cutoff) || v->job.created >= cutoff;
}

/* Was @where already shown for a newer record? Then this older one is not there. */
static bool where_taken(const struct view *views, size_t n, const char *where)
{
	for (size_t i = 0; i < n; i++)
		if (views[i].where[0] && !strcmp(views[i].where, where))
			return true;
	return false;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Mark @v (observed) by whether the service of a restart goes on with it (@b: the restart
 * looked up once per gathering). */
static void restart_begun_mark(struct view *v, struct fdw_restart_begun *b)
{
	bool goes_on = fdw_restart_goes_on_with(b, &v->job, v->recorded, &v->p);

	v->restart_begun = goes_on && !v->recorded;
	v->service_pending = goes_on && v->recorded;
}

/* Unfinished conversions on this machine that have no record (started by another tool). */
static int collect_unrecorded(struct view **out, size_t *n, struct fdw_restart_begun *begun)
{
	struct fdw_job *jobs;
	struct view *nv;
	size_t n_jobs;
	int rc = fdw_job_unrecorded(&jobs, &n_jobs);

	if (rc || !n_jobs)
		return rc;
	nv = realloc(*out, (*n + n_jobs) * sizeof(**out));
	if (!nv) {
		free(jobs);
		return -ENOMEM;
	}
	*out = nv;
	for (size_t i = 0; i < n_jobs; i++) {
		struct view *v = &nv[*n];

		memset(v, 0, sizeof(*v));
		v->job = jobs[i];
		if (fdw_job_observe_at(&v->job, &v->p, v->where, sizeof(v->where)) == 0) {
			fdw_outside_rate(&v->job, &v->p, now_s());
			restart_begun_mark(v, begun);
			(*n)++;
		}
	}
	free(jobs);
	return 0;
}

/* Gather what to show: one address, or the recorded jobs (@all: every one kept). */
static int collect(const char *address, bool all, struct view **out, size_t *n)
{
	struct fdw_job *jobs = NULL;
	struct fdw_restart_begun begun = { 0 };
	size_t n_jobs = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (address) {
		struct view *v = calloc(1, sizeof(*v));

		if (!v)
			return -ENOMEM;
		rc = fdw_job_for_address(address, &v->job, &v->recorded);
		if (!rc)
			rc = fdw_job_observe_at(&v->job, &v->p, v->where, sizeof(v->where));
		if (!rc && !v->recorded)
			fdw_outside_rate(&v->job, &v->p, now_s());
		if (!rc)
			restart_begun_mark(v, &begun);
		if (rc) {
			free(v);
			return rc == -ENODEV ? -ENOENT : rc;
		}
		*out = v;
		*n = 1;
		return 0;
	}
	rc = fdw_job_list(&jobs, &n_jobs);
	if (rc)
		return rc;
	*out = calloc(n_jobs ? n_jobs : 1, sizeof(**out));
	if (!*out) {
		free(jobs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_jobs; i++) {
		struct view *v = &(*out)[*n];

		v->job = jobs[i];
		v->recorded = true;
		rc = fdw_job_observe_at(&v->job, &v->p, v->where, sizeof(v->where));
		/* Not found is shown (by what it was); a device unreadable now is skipped. */
		if (rc && rc != -ENODEV)
			continue;
		if (v->where[0] && where_taken(*out, *n, v->where))
			v->where[0] = '\0';
		if (v->where[0])
			restart_begun_mark(v, &begun);
		if (all || recent_or_open(v))
			(*n)++;
	}
	free(jobs);
	return collect_unrecorded(out, n, &begun);
}

/*
 * Worth another look: a conversion running, or (@first look) one another program may be
 * running, which only a second reading of its header can tell.
 */
static bool any_running(const struct view *v, size_t n, bool first)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].p.state == FDW_JOB_RUNNING ||
		    (first && !v[i].recorded && v[i].p.state != FDW_JOB_COMPLETE &&
		     v[i].p.state != FDW_JOB_FAILED))
			return true;
	return false;
}

/* A root prepared to be encrypted at the next restart (for @address when given), whose
 * conversion has not begun: @st filled, or NULL when there is none. */
static const struct fdw_restart_stage *prepared_of(const char *address,
						   struct fdw_restart_stage *st)
{
	return fdw_restart_phase_of(address, st) == FDW_RESTART_PREPARED ? st : NULL;
}

/* Its --json object, {"address", "name", "id"}, or null for none. */
static struct json_object *prepared_json(const char *address,
					 const struct fdw_restart_stage *st)
{
	struct json_object *o;

	if (!st)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "address", json_object_new_string(address ? address :
									  st->address));
	json_object_object_add(o, "name", json_object_new_string(st->name));
	json_object_object_add(o, "id", json_object_new_string(st->uuid));
	return o;
}

/*
 * The JSON document of `status --json`: the conversions, and in "errors" (as in
 * `list --json`) what could not be looked at, with the sentence stderr says.
 */
static void print_status_json(const struct view *views, size_t n, const char *address,
			      const struct fdw_restart_stage *prepared, const char *path,
			      const char *why)
{
	struct json_object *root = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	struct json_object *errs = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, view_json(&views[i]));
	if (why) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "path", json_object_new_string(path));
		json_object_object_add(e, "message", json_object_new_string(why));
		json_object_array_add(errs, e);
	}
	json_object_object_add(root, "fdewiz_status_version",
			       json_object_new_int(STATUS_JSON_VERSION));
	json_object_object_add(root, "conversions", arr);
	json_object_object_add(root, "errors", errs);
	json_object_object_add(root, "prepared_restart", prepared_json(address, prepared));
	printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}

/* Nothing to show for @address (or the records): say why; with --json also on stdout. */
static void status_error(const char *address, int rc, bool json)
{
	const char *path = address ? address : fdw_state_dir();
	const char *why;

	if (rc == -ENOENT && address) {
		why = _("it has no conversion (not LUKS2)");
		fprintf(stderr, _("%s: %s has no conversion (not LUKS2). Nothing was "
				  "changed.\n"), fdw_progname, address);
	} else if (rc == -EPERM) {	/* the state directory, refused: said why */
		why = _("the records of conversions were not read");
		fprintf(stderr, _("%s: the records in %s were not read. Nothing "
				  "was changed.\n"), fdw_progname, cli_safe(fdw_state_dir()));
	} else {
		why = fdw_scan_error_text(rc);
		cli_report_scan_error(path, rc);
	}
	if (json) {
		struct fdw_restart_stage st;

		print_status_json(NULL, 0, address, prepared_of(address, &st), path, why);
		fflush(stdout);
	}
}

/* The prepared root's part of `status` (see prepared_of): its line, or with @json the
 * whole document; false when there is none. */
static bool show_prepared(const char *address, bool json)
{
	struct fdw_restart_stage st;
	char text[2048];

	if (!prepared_of(address, &st))
		return false;
	if (json) {
		print_status_json(NULL, 0, address, &st, NULL, NULL);
		return true;
	}
	fdw_restart_phase_text(FDW_RESTART_PREPARED, &st, text, sizeof(text));
	printf("%s  %s\n", cli_safe(address ? address : st.address), cli_safe(text));
	return true;
}

static void status_usage(FILE *out)
{
	fprintf(out, _("Usage: %s status [--all] [--json] [--watch] [DEVICE|IMAGE:N]\n"
		       "Show conversions: running, paused, interrupted, needing repair or "
		       "failed,\nand those completed in the last %d days.\n"
		       "  --all     every conversion on record, however old\n"
		       "  --json    machine-readable output\n"
		       "  --watch   follow until no conversion is running\n"), fdw_progname,
		RECENT_DAYS);
}

int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "watch", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	bool json = false, watch = false, all = false, tty = isatty(STDOUT_FILENO);
	bool first = true;
	const char *address;
	struct view *views;
	size_t n;
	int c, rc;

	while ((c = getopt_long(argc, argv, "ajwh", opts, NULL)) != -1) {
		switch (c) {
		case 'a': all = true; break;
		case 'j': json = true; break;
		case 'w': watch = true; break;
		case 'h': status_usage(stdout); return FDW_EXIT_OK;
		default: cli_usage_error("status"); return FDW_EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		status_usage(stderr);
		return FDW_EXIT_USAGE;
	}
	address = optind < argc ? argv[optind] : NULL;
	for (;;) {
		rc = collect(address, all, &views, &n);
		/* Not LUKS2 yet (plain, or an LVM PV in use), but prepared to be encrypted at
		 * the next restart: said so. */
		if (rc && address && show_prepared(address, json))
			return FDW_EXIT_OK;
		if (rc) {
			status_error(address, rc, json);
			return FDW_EXIT_ERROR;
		}
		if (json) {
			struct fdw_restart_stage st;

			print_status_json(views, n, address, prepared_of(address, &st), NULL,
					  NULL);
		} else {
			bool prepared;

			if (watch && tty)
				fputs("\033[H\033[J", stdout);
			for (size_t i = 0; i < n; i++)
				print_view_line(&views[i]);
			prepared = !address && show_prepared(NULL, false);
			if (!n && !prepared)
				printf(_("No conversions.\n"));
		}
		fflush(stdout);
		if (!watch || !any_running(views, n, first)) {
			free(views);
			return FDW_EXIT_OK;
		}
		free(views);
		first = false;
		sleep(1);
	}
}

static int simple_usage(const char *cmd, int c)
{
	if (c != 'h') {
		cli_usage_error(cmd);
		return FDW_EXIT_USAGE;
	}
	if (!strcmp(cmd, "pause"))
		printf(_("Usage: %s pause DEVICE|IMAGE:N\n"
			 "Stop a running conversion at its next safe point; resume continues "
			 "it.\n"), fdw_progname);
	else
		printf(_("Usage: %s resume [--key-file FILE|-] [--foreground] "
			 "[--allow-low-battery] [--tpm [--pcrs LIST]] [--pace MODE] "
			 "DEVICE|IMAGE:N\n"
			 "Continue an unfinished conversion (repairing it first after a crash), or\n"
			 "the boot steps of an installed system's root left by a power cut.\n"
			 "  --key-file FILE|-   read the passphrase from FILE (or stdin)\n"
			 "  --foreground        convert in this process with a progress line\n"
			 "  --allow-low-battery start even on a battery below %d %%, and do not\n"
			 "                      pause when it runs low\n"
			 "  --tpm               an installed system's root: also unlock it with\n"
			 "                      this computer's TPM 2.0 at its start, once done\n"
			 "  --pcrs LIST         with --tpm: the PCRs to seal to (default 7)\n"
			 "  --pace MODE         auto, gentle or full (default: as it was)\n"),
		       fdw_progname, FDW_BATTERY_START_PERCENT);
	return FDW_EXIT_OK;
}

int cmd_pause(int argc, char **argv)
{
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	struct fdw_job job;
	struct fdw_progress p;
	bool recorded;
	char note[1024];
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		return simple_usage("pause", c);
	if (optind != argc - 1)
		return simple_usage("pause", '?');
	rc = fdw_job_for_address(argv[optind], &job, &recorded);
	if (!rc)
		rc = fdw_job_observe(&job, &p);
	if (rc) {
		fprintf(stderr, _("%s: %s has no conversion. Nothing was changed.\n"), fdw_progname,
			argv[optind]);
		return FDW_EXIT_ERROR;
	}
	/* A worker waiting for the charger is stopped for good too. */
	if (!fdw_job_has_worker(&p)) {
		fprintf(stderr, _("%s: the conversion of %s is not running (%s). Nothing was "
				  "changed.\n"), fdw_progname, argv[optind], fdw_job_state_name(p.state));
		return FDW_EXIT_ERROR;
	}
	rc = fdw_job_pause(&job, 60, note, sizeof(note));
	if (rc == -ESTALE) {
		fprintf(stderr, _("%s: worker %d on record is not converting %s (it does not hold "
				  "its lock); it was not signalled. Nothing was changed.\n"),
			fdw_progname, (int)p.pid, argv[optind]);
		return FDW_EXIT_ERROR;
	}
	if (rc == -ETIMEDOUT) {
		fprintf(stderr, _("%s: worker %d has not stopped after 60 s; it was asked to.\n"),
			fdw_progname, (int)p.pid);
		return FDW_EXIT_ERROR;
	}
	if (rc && rc != -ESRCH) {
		fprintf(stderr, _("%s: cannot signal worker %d: %s.\n"), fdw_progname, (int)p.pid,
			strerror(-rc));
		return FDW_EXIT_ERROR;
	}
	if (fdw_job_observe(&job, &p) != 0)
		p.state = FDW_JOB_FAILED;
	printf(_("%s: %s at %.1f%%. Continue with '%s resume %s'.\n"), argv[optind],
	       fdw_job_state_name(p.state), percent_of(&p), fdw_progname, argv[optind]);
	/* Paused all the same: pausing is always safe. Resume is what will refuse. */
	if (note[0])
		fprintf(stderr, _("%s: note: something else holds it now, and resume will refuse "
				  "until that is gone: %s\n"), fdw_progname, cli_safe(note));
	return p.state == FDW_JOB_PAUSED ? FDW_EXIT_OK : FDW_EXIT_ERROR;
}

int cmd_resume(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "key-file", required_argument, NULL, 'k' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "allow-low-battery", no_argument, NULL, 'b' },
		{ "tpm", no_argument, NULL, 't' },
		{ "pcrs", required_argument, NULL, 'p' },
		{ "pace", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *key_file = NULL, *address, *tpm_pcrs = NULL;
	struct fdw_resume_how how = { .ops = conversion_ops() };
	bool low_battery = false;
	struct fdw_secret *pass = NULL;
	struct fdw_resume *r;
	char why[1024];
	int c, rc, exit_code, pace = -1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'k')
			key_file = optarg;
		else if (c == 'f')
			how.foreground = true;
		else if (c == 'b')
			low_battery = true;
		else if (c == 't')
			tpm_pcrs = tpm_pcrs ? tpm_pcrs : FDW_TPM_DEFAULT_PCRS;
		else if (c == 'p')
			tpm_pcrs = optarg;
		else if (c == 'P' && (pace = fdw_pace_parse(optarg)) >= 0)
			continue;
		else
			return simple_usage("resume", c == 'P' ? '?' : c);
	}
	if (optind != argc - 1)
		return simple_usage("resume", '?');
	address = argv[optind];
	fdw_secret_harden_process();
	rc = fdw_resume_open(address, &r, why, sizeof(why));
	if (!rc)
		rc = fdw_power_start_check(low_battery, why, sizeof(why));
	/* Recorded before the passphrase is asked: the boot step, here or in the worker,
	 * seals the key once the conversion is done. */
	if (!rc && tpm_pcrs)
		rc = fdw_resume_want_tpm(r, tpm_pcrs, why, sizeof(why));
	if (rc == -EALREADY)
		fprintf(stderr, _("%s: %s Follow it with '%s status --watch %s'.\n"), fdw_progname,
			cli_safe(why), fdw_progname, cli_safe(address));
	else if (rc)
		fprintf(stderr, "%s: %s\n", fdw_progname, cli_safe(why));
	if (rc) {
		fdw_resume_close(r);
		return FDW_EXIT_ERROR;
	}
	if (pace >= 0 && fdw_resume_set_pace(r, (enum fdw_pace)pace) != 0)
		fprintf(stderr, _("%s: the pace could not be recorded; it goes on as it was.\n"),
			fdw_progname);
	/* Nothing is encrypted yet in a layout step cut short: no passphrase to ask. */
	if (fdw_resume_needs_passphrase(r))
		pass = passphrase_get(key_file, false);
	exit_code = FDW_EXIT_ERROR;
	if (pass || !fdw_resume_needs_passphrase(r))
		exit_code = conversion_resume(r, pass, &how);
	fdw_secret_free(pass);
	fdw_resume_close(r);
	return exit_code;
}
