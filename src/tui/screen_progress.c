/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Progress screen: the header steps (with the baseline benchmark's test, bar and time
 * left), the conversion's state, bar, speed, ETA and log, and the after-benchmark's
 * progress (refreshed 4 times a second). The recovery key is made, tested and wiped here;
 * its screen (screen_recovery.c) only shows it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/boot/boot_api.h"
#include "core/base/base_api.h"
#include "core/disk/disk_api.h"
#include "core/luks2/luks2_api.h"
#include "curses.h"
#include "tui.h"

/*
 * This screen's own: the header steps' thread and what it hands over (the baseline
 * benchmark's last step under @lock; its result once @begin_done), and what the boot
 * entries step did.
 */
struct progress_state {
	pthread_t begin_thread;
	int begin_phase;		/* atomic: the phase the thread is in */
	int begin_done;			/* atomic: the thread has finished */
	int begin_rc;
	char begin_why[1024];
	struct fdw_start_result begin_res;	/* what the start did */
	pthread_mutex_t lock;
	bool lock_made;
	bool have_bench;
	struct fdw_bench_status bench;
	char boot_msg[1024];
	bool boot_failed;
};

static struct progress_state *state_of(struct tui *t)
{
	return t->state[TUI_PROGRESS];
}

/* Called in the header thread: only keep the step; the main loop draws it. */
static void on_bench(const struct fdw_bench_status *s, void *ctx)
{
	struct progress_state *st = state_of(ctx);

	pthread_mutex_lock(&st->lock);
	st->bench = *s;
	st->have_bench = true;
	pthread_mutex_unlock(&st->lock);
}

/* The last step heard, or false when none yet. */
static bool bench_seen(struct tui *t, struct fdw_bench_status *out)
{
	struct progress_state *st = state_of(t);
	bool have;

	pthread_mutex_lock(&st->lock);
	have = st->have_bench;
	*out = st->bench;
	pthread_mutex_unlock(&st->lock);
	return have;
}

/* Called in the header thread: only publish the phase; the main loop draws it. */
static void on_phase(enum fdw_phase phase, void *ctx)
{
	struct progress_state *st = state_of(ctx);

	__atomic_store_n(&st->begin_phase, (int)phase, __ATOMIC_RELEASE);
}

static void recovery_wipe(struct tui *t)
{
	fdw_secret_free(t->recovery);
	t->recovery = NULL;
}

static void *begin_main(void *arg)
{
	struct tui *t = arg;
	struct progress_state *st = state_of(t);
	struct fdw_start_options so = {
		.recovery_key = t->recovery_key, .boot_entries = t->boot_entries,
		.boot = { .root = "/", .fstab = true }, .phase = on_phase, .bench = on_bench,
		.ctx = t,
	};

	st->begin_rc = fdw_encrypt_start(t->enc, t->pass[0], &so, &st->begin_res, st->begin_why,
					 sizeof(st->begin_why));
	__atomic_store_n(&st->begin_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Say what the boot entries step of the start did; a failure only warns. */
static void boot_entries(struct tui *t)
{
	struct progress_state *st = state_of(t);
	const struct fdw_boot_result *res = &st->begin_res.boot;
	const char *why = st->begin_res.boot_why;
	char ct[1024], fs[1024 + 256];
	int rc = st->begin_res.boot_rc;

	st->boot_failed = rc != 0;
	if (rc < 0) {
		snprintf(st->boot_msg, sizeof(st->boot_msg),
			 _("crypttab was not written: %s The conversion goes on; to add the "
			   "entry later run: fdewiz crypttab %s"), why, t->address);
		return;
	}
	if (res->crypttab_present)
		snprintf(ct, sizeof(ct), _("/etc/crypttab already opened it as /dev/mapper/%s; "
					   "nothing added."), res->name);
	else if (res->crypttab.backup[0])
		snprintf(ct, sizeof(ct), _("added to /etc/crypttab: it opens at boot as "
					   "/dev/mapper/%s (old file kept as %s)."), res->name,
			 res->crypttab.backup);
	else
		snprintf(ct, sizeof(ct), _("added to /etc/crypttab: it opens at boot as "
					   "/dev/mapper/%s."), res->name);
	if (res->fstab_failed)
		snprintf(fs, sizeof(fs), _("/etc/fstab was not changed: %s Fix it by hand, or "
					   "run fdewiz crypttab %s later."), why, t->address);
	else if (res->fstab.changed)
		snprintf(fs, sizeof(fs),
			 dngettext(PACKAGE, "/etc/fstab: %d line now names /dev/mapper/%s (old "
					    "file kept as %s).",
				   "/etc/fstab: %d lines now name /dev/mapper/%s (old file kept "
				   "as %s).", (unsigned long)res->fstab.lines),
			 res->fstab.lines, res->name, res->fstab.backup);
	else
		snprintf(fs, sizeof(fs), "%s", _("/etc/fstab: no line names the partition "
						 "itself; unchanged."));
	snprintf(st->boot_msg, sizeof(st->boot_msg), _("Boot: %s %s"), ct, fs);
}

/* What the boot step did, once, over the progress screen (it also stays on the screen). */
static void boot_dialog(struct tui *t)
{
	const struct progress_state *st = state_of(t);

	if (st->boot_msg[0] && !t->dialog[0])
		tui_show_dialog(t, st->boot_failed ? _("Boot entries: warning") :
				_("Boot entries"), st->boot_msg);
}

/* After the typed confirmation: make room, write the header, start the worker. */
static bool progress_start(struct tui *t)
{
	struct progress_state *st = state_of(t);
	int rc;

	if (!st->lock_made)
		st->lock_made = pthread_mutex_init(&st->lock, NULL) == 0;
	st->have_bench = false;
	recovery_wipe(t);
	fdw_start_result_wipe(&st->begin_res);
	st->begin_res.recovery_why[0] = '\0';
	st->boot_msg[0] = '\0';
	st->boot_failed = false;
	st->begin_phase = FDW_PHASE_CHECKING;
	st->begin_done = 0;
	st->begin_why[0] = '\0';
	t->have_job = false;
	t->have_prog = false;
	t->progress_msg[0] = '\0';
	tui_hold_suspend(true);
	rc = pthread_create(&st->begin_thread, NULL, begin_main, t);
	if (rc) {
		tui_hold_suspend(false);
		tui_wipe_passphrases(t);
		tui_release_plan(t);
		tui_show_dialog(t, _("Not encrypted"), strerror(rc));
		tui_go(t, TUI_DISKS);
		return false;
	}
	t->begin_running = true;
	return true;
}

static void progress_tick(struct tui *t);

/* The header steps are done: show how, and launch the worker when they succeeded. */
static void begin_finish(struct tui *t)
{
	struct progress_state *st = state_of(t);
	char why[1024] = "";
	pid_t pid;

	pthread_join(st->begin_thread, NULL);
	t->begin_running = false;
	/* The key, when the start handed one out (added and tested), is this screen's now. */
	t->recovery = st->begin_res.recovery;
	st->begin_res.recovery = NULL;
	if (st->begin_rc < 0) {
		tui_wipe_passphrases(t);
		tui_release_plan(t);
		recovery_wipe(t);
		tui_show_dialog(t, _("Not encrypted"), st->begin_why);
		tui_go(t, TUI_DISKS);
		return;
	}
	if (st->begin_rc > 0)	/* done, with a warning */
		snprintf(t->progress_msg, sizeof(t->progress_msg), "%s", st->begin_why);
	if (st->begin_res.recovery_why[0]) {
		size_t l = strlen(t->progress_msg);

		snprintf(t->progress_msg + l, sizeof(t->progress_msg) - l, "%s%s",
			 l ? " " : "", st->begin_res.recovery_why);
	}
	t->job = *fdw_encrypt_job(t->enc);
	t->have_job = true;
	if (st->begin_res.boot_tried)
		boot_entries(t);
	pid = fdw_encrypt_launch(t->enc, t->pass[0], NULL, why, sizeof(why));
	tui_wipe_passphrases(t);
	tui_release_plan(t);
	if (pid < 0)
		tui_show_dialog(t, _("The conversion did not start"), why);
	/* The conversion is launched first: it never waits for the key to be written down. */
	if (t->recovery) {
		tui_go(t, TUI_RECOVERY);
		return;
	}
	boot_dialog(t);
	progress_tick(t);
}

/* In the main loop: when the header steps have finished, launch the worker. */
static void progress_begin_poll(struct tui *t)
{
	if (!t->begin_running || !__atomic_load_n(&state_of(t)->begin_done, __ATOMIC_ACQUIRE))
		return;
	begin_finish(t);
	/* The worker runs on its own now: a held Ctrl-Z may stop the wizard. */
	tui_hold_suspend(false);
}

static void progress_tick(struct tui *t)
{
	bool was_failed;

	if (!t->have_job || t->begin_running)
		return;
	was_failed = t->have_prog && t->prog.state == FDW_JOB_FAILED;
	t->have_prog = fdw_job_observe(&t->job, &t->prog) == 0;
	/* A failure on the screen is seen (once, not every tick): the next start need not
	 * bring it up again. */
	if (t->have_prog && t->prog.state == FDW_JOB_FAILED && !was_failed)
		fdw_job_mark_seen(&t->job);
	if (t->have_prog && t->prog.state == FDW_JOB_COMPLETE && !t->dialog[0] &&
	    t->prompt == TUI_PROMPT_NONE) {
		struct fdw_job again;

		/* The record now names the benchmark results. */
		if (fdw_job_find_id(t->job.id, &again) == 0)
			t->job = again;
		tui_go(t, TUI_RESULTS);
	}
}

/* The last @max lines of the worker's log, oldest first, into @lines. */
static int log_tail(const struct fdw_job *job, char lines[][200], int max)
{
	char path[PATH_MAX], buf[8192];
	struct stat st;
	ssize_t n;
	int fd, count = 0;
	char *end, *p;

	fdw_job_log_path(job, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && st.st_size > (off_t)sizeof(buf) - 1)
		lseek(fd, st.st_size - (off_t)sizeof(buf) + 1, SEEK_SET);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* Walk back from the end, one line at a time. */
	end = buf + n;
	while (end > buf && end[-1] == '\n')
		*--end = '\0';
	while (count < max && end > buf) {
		p = end;
		while (p > buf && p[-1] != '\n')
			p--;
		{
			size_t l = strlen(p) < 199 ? strlen(p) : 199;

			memcpy(lines[count], p, l);
			lines[count++][l] = '\0';
		}
		if (p == buf)
			break;
		end = p - 1;
		*end = '\0';
	}
	/* Oldest first. */
	for (int i = 0; i < count / 2; i++) {
		char tmp[200];

		memcpy(tmp, lines[i], sizeof(tmp));
		memcpy(lines[i], lines[count - 1 - i], sizeof(tmp));
		memcpy(lines[count - 1 - i], tmp, sizeof(tmp));
	}
	return count;
}

/*
 * A benchmark's step from @y: the test running, a bar for the whole benchmark and the
 * time left, as the engine reports them. Returns the next row.
 */
static int draw_bench(struct tui *t, int y, const char *what, double fraction, double left)
{
	char line[256], t_left[32];
	int bw = COLS - 12;

	snprintf(line, sizeof(line), _("Measuring: %s"), what[0] ? _(what) : "...");
	tui_put(y++, 2, COLS - 4, line, false);
	tui_bar(t, y, 2, bw, fraction, TUI_C_GOOD);
	snprintf(line, sizeof(line), "%3.0f%%", fraction * 100);
	tui_put(y++, 3 + bw, 8, line, false);
	if (left >= 0)
		snprintf(line, sizeof(line), _("Time left: about %s"),
			 fdw_format_duration(left, "--:--", t_left, sizeof(t_left)));
	else
		snprintf(line, sizeof(line), "%s", _("Time left: estimating..."));
	tui_put(y++, 2, COLS - 4, line, false);
	return y;
}

static void draw_preparing(struct tui *t, int y)
{
	int phase = __atomic_load_n(&state_of(t)->begin_phase, __ATOMIC_ACQUIRE);
	struct fdw_bench_status b;
	char line[256];

	snprintf(line, sizeof(line), _("Phase: %s"), fdw_phase_label((enum fdw_phase)phase));
	tui_attr_on(t, TUI_C_KEY);
	tui_put(y, 2, COLS - 4, line, false);
	tui_attr_off(t, TUI_C_KEY);
	y += 2;
	if (phase == FDW_PHASE_BENCHMARKING) {
		y += tui_wrap(y, 2, COLS - 4, 3,
			      _("Measuring the speed of the plain filesystem before anything "
				"changes; this takes a minute or two."));
		if (bench_seen(t, &b))
			y = draw_bench(t, y + 1, b.what, b.fraction, b.left) + 1;
	} else
		y += tui_wrap(y, 2, COLS - 4, 3,
			      _("Making room for the header and writing it; this takes a "
				"moment."));
	tui_wrap(y, 2, COLS - 4, 3, _("Keep the computer on. Ctrl-C waits until this step is "
				      "done; nothing is half-written."));
}

/* Paused by the worker itself for a low battery, waiting (alive) for the charger. */
static bool on_battery(const struct fdw_progress *p)
{
	return p->state == FDW_JOB_PAUSED && p->phase == FDW_PHASE_ON_BATTERY;
}

/* The conversion's state, bar, amounts, speed and times from @y; returns the next row. */
static int draw_state(struct tui *t, int y)
{
	const struct fdw_progress *p = &t->prog;
	char line[512], a[32], b[32], c[48], eta[32], el[32];
	double frac;
	int bw;

	frac = p->total ? (double)p->done / (double)p->total : 0;
	snprintf(line, sizeof(line), _("State: %s    Phase: %s"),
		 fdw_job_state_label(p->state), fdw_phase_label(p->phase));
	tui_attr_on(t, p->state == FDW_JOB_RUNNING ? TUI_C_GOOD :
		    p->state == FDW_JOB_FAILED || p->state == FDW_JOB_NEEDS_REPAIR ?
		    TUI_C_BAD : TUI_C_WARN);
	tui_put(y, 2, COLS - 4, line, false);
	tui_attr_off(t, p->state == FDW_JOB_RUNNING ? TUI_C_GOOD :
		     p->state == FDW_JOB_FAILED || p->state == FDW_JOB_NEEDS_REPAIR ?
		     TUI_C_BAD : TUI_C_WARN);
	y += 2;
	bw = COLS - 12;
	tui_bar(t, y, 2, bw, frac, TUI_C_GOOD);
	snprintf(line, sizeof(line), "%5.1f%%", frac * 100);
	tui_put(y, 3 + bw, 8, line, false);
	y += 2;
	snprintf(line, sizeof(line), _("%s of %s encrypted"),
		 fdw_format_size(p->done, a, sizeof(a)),
		 fdw_format_size(p->total, b, sizeof(b)));
	tui_put(y++, 2, COLS - 4, line, false);
	fdw_progress_eta_text(p, "--:--", eta, sizeof(eta));
	fdw_format_duration(p->elapsed, "--:--", el, sizeof(el));
	if (p->state == FDW_JOB_RUNNING && p->speed > 0)
		snprintf(c, sizeof(c), _("%s/s"), fdw_format_size((uint64_t)p->speed, a,
								  sizeof(a)));
	else
		snprintf(c, sizeof(c), "-");
	snprintf(line, sizeof(line), _("Speed: %s    ETA: %s    Elapsed: %s"), c, eta,
		 el);
	tui_put(y++, 2, COLS - 4, line, false);
	/* How it shares the disk, and while it waits for other work, that work's speed. */
	if (p->state == FDW_JOB_RUNNING && p->pace[0]) {
		if (p->yielding)
			snprintf(line, sizeof(line), _("Pace: %s, yielding to other work: %s/s"),
				 p->pace, fdw_format_size((uint64_t)p->others_bps, a, sizeof(a)));
		else
			snprintf(line, sizeof(line), _("Pace: %s"), p->pace);
		tui_put(y++, 2, COLS - 4, line, false);
	}
	/* A suspend's time is in no speed or time left: say it was there. */
	if (p->slept >= 1) {
		snprintf(line, sizeof(line), _("Asleep: %s (suspended; not in the speed or the time "
					       "left)"), fdw_format_duration(p->slept, "--:--", el,
									     sizeof(el)));
		tui_put(y++, 2, COLS - 4, line, false);
	}
	if (p->state == FDW_JOB_RUNNING && p->phase == FDW_PHASE_BENCHMARKING &&
	    p->bench_what[0]) {
		y += tui_wrap(y + 1, 2, COLS - 4, 2, _("Measuring the speed of the encrypted "
						       "filesystem, to compare with before.")) + 1;
		y = draw_bench(t, y, p->bench_what, p->bench_fraction, p->bench_left);
	}
	if (p->message[0]) {
		tui_attr_on(t, TUI_C_DIM);
		y += tui_wrap(y, 2, COLS - 4, 2, p->message);
		tui_attr_off(t, TUI_C_DIM);
	}
	if (on_battery(p)) {
		/* The worker waits by itself and goes on with the charger: nothing to press. */
		tui_attr_on(t, TUI_C_WARN);
		y += tui_wrap(y, 2, COLS - 4, 3, _("Paused at a safe point because the battery is "
						   "low: the data is intact. Connect the "
						   "charger; the conversion goes on by itself."));
		tui_attr_off(t, TUI_C_WARN);
	} else if (p->state == FDW_JOB_PAUSED || p->state == FDW_JOB_INTERRUPTED ||
		   p->state == FDW_JOB_NEEDS_REPAIR) {
		tui_attr_on(t, TUI_C_WARN);
		y += tui_wrap(y, 2, COLS - 4, 2, _("Stopped at a safe point: the data is "
						   "intact. Press r to resume."));
		tui_attr_off(t, TUI_C_WARN);
	}
	return y;
}

static void progress_draw(struct tui *t)
{
	const struct progress_state *st = state_of(t);
	char title[PATH_MAX + 64];
	char logs[TUI_LOG_LINES][200];
	int y = 2, n;

	snprintf(title, sizeof(title), _("Encrypting %s"), t->have_job ? t->job.address :
		 t->address);
	tui_title(t, title);
	if (t->begin_running) {
		draw_preparing(t, y);
		return;
	}
	if (!t->have_prog) {
		tui_wrap(y, 2, COLS - 4, 2, t->have_job ? _("Waiting for the worker's first "
							    "report...") : _("No conversion."));
	} else {
		y = draw_state(t, y);
	}
	if (t->progress_msg[0]) {
		tui_attr_on(t, TUI_C_WARN);
		y += tui_wrap(y, 2, COLS - 4, 3, t->progress_msg);
		tui_attr_off(t, TUI_C_WARN);
	}
	if (st->boot_msg[0]) {
		tui_attr_on(t, st->boot_failed ? TUI_C_WARN : TUI_C_GOOD);
		y += tui_wrap(y, 2, COLS - 4, 3, st->boot_msg);
		tui_attr_off(t, st->boot_failed ? TUI_C_WARN : TUI_C_GOOD);
	}
	/* The worker's recent log lines, as many as fit. */
	y++;
	if (y < LINES - 3 && t->have_job) {
		int room = LINES - 2 - (y + 1);

		tui_hline(t, y, 0, COLS);
		tui_put(y++, 2, COLS - 4, _(" Log "), false);
		n = log_tail(&t->job, logs, room < TUI_LOG_LINES ? room : TUI_LOG_LINES);
		tui_attr_on(t, TUI_C_DIM);
		for (int i = 0; i < n && y < LINES - 1; i++)
			tui_put(y++, 2, COLS - 4, logs[i], false);
		tui_attr_off(t, TUI_C_DIM);
	}
}

/* While the header steps run no key is taken: no hints then. */
static const char *progress_hint(const struct tui *t)
{
	return t->begin_running ? NULL : N_("b: keep running in the background and quit  "
					    "p: pause  r: resume  g: pace  ?: help");
}

/* The next pace (auto, gentle, full, auto...), kept in the record the worker reads. */
static void pace_next(struct tui *t)
{
	int now = fdw_pace_parse(t->prog.pace[0] ? t->prog.pace : t->job.pace);
	enum fdw_pace next = (enum fdw_pace)((now < 0 ? 0 : now + 1) % FDW_PACE__COUNT);

	if (!t->have_job) {
		tui_set_status(t, false, "%s", _("This conversion has no record of fdewiz's."));
		return;
	}
	if (fdw_job_set_pace(&t->job, next) != 0) {
		tui_set_status(t, true, "%s", _("The pace could not be recorded; it goes on as "
						"it was."));
		return;
	}
	tui_set_status(t, false, _("Pace %s from now on (%s)."), fdw_pace_name(next),
		       fdw_pace_text(next));
}

static void progress_key(struct tui *t, struct tui_key k)
{
	bool running = t->have_prog && t->prog.state == FDW_JOB_RUNNING;
	char note[512], safe[768];
	int rc;

	if (t->begin_running)
		return;
	if (tui_key_is(k, 'b') || tui_key_is(k, 'q') || k.kind == TUI_KEY_ESC) {
		if (running)
			snprintf(t->farewell, sizeof(t->farewell),
				 _("The conversion of %s continues in the background. Run fdewiz "
				   "again (or fdewiz status) to see it."), t->job.address);
		t->quit = true;
	} else if (tui_key_is(k, 'p')) {
		if (!running) {
			tui_set_status(t, false, "%s", _("It is not running."));
			return;
		}
		tui_set_status(t, false, "%s", _("Pausing at the next safe point..."));
		tui_redraw(t);
		rc = fdw_job_pause(&t->job, 60, note, sizeof(note));
		if (rc == 0 && note[0])
			tui_set_status(t, true, _("Paused: the data is intact. But something else "
						  "holds it now, and resuming waits until that is "
						  "gone: %s"), fdw_text_safe(note, safe, sizeof(safe)));
		else if (rc == 0)
			tui_set_status(t, false, "%s", _("Paused: the data is intact. Press r to "
							 "resume."));
		else if (rc == -ESTALE)
			tui_set_status(t, true, "%s", _("The process on record is not converting "
							"this volume; it was left alone."));
		else if (rc == -ESRCH)
			tui_set_status(t, false, "%s", _("It is not running."));
		else
			tui_set_status(t, true, _("It did not pause in time (%s); it may still "
						  "stop soon."), strerror(-rc));
		progress_tick(t);
	} else if (tui_key_is(k, 'g')) {
		pace_next(t);
	} else if (tui_key_is(k, 'r')) {
		if (running)
			tui_set_status(t, false, "%s", _("It is running already."));
		else if (t->have_prog && t->prog.state == FDW_JOB_COMPLETE &&
			 !fdw_job_unfinished(&t->job, &t->prog))
			tui_set_status(t, false, "%s", _("It is complete."));
		else if (t->have_prog && on_battery(&t->prog))
			tui_set_status(t, false, "%s", _("It waits for the charger and goes on by "
							 "itself once it is connected."));
		else if (t->have_job)
			tui_prompt_resume(t, &t->job);
	}
}

static bool progress_enter(struct tui *t, enum tui_screen from)
{
	if (from == TUI_CONFIRM)
		return progress_start(t);
	if (from == TUI_RECOVERY) {
		/* The key is written down: it goes from memory. */
		recovery_wipe(t);
		tui_set_status(t, false, "%s", _("The recovery key was wiped from memory."));
		boot_dialog(t);
	} else {
		t->have_prog = false;
	}
	progress_tick(t);
	return true;
}

static void progress_free(void *state)
{
	struct progress_state *st = state;

	fdw_start_result_wipe(&st->begin_res);
	if (st->lock_made)
		pthread_mutex_destroy(&st->lock);
}

const struct tui_screen_ops tui_screen_progress = {
	.enter = progress_enter,
	.draw = progress_draw,
	.key = progress_key,
	.hint_of = progress_hint,
	.poll = progress_begin_poll,
	.tick = progress_tick,
	.state_size = sizeof(struct progress_state),
	.free_state = progress_free,
};
