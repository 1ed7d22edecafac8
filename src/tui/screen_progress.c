/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Progress screen: the header steps, the conversion's state, bar, speed, ETA and log
 * (refreshed 4 times a second); and the recovery key, shown once before it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/boot_entries.h"
#include "core/i18n.h"
#include "core/textsafe.h"
#include "core/recovery.h"
#include "core/units.h"
#include "curses.h"
#include "tui.h"

const char *tui_phase_label(const char *key)
{
	for (int p = 0; p < FDW_PHASE__COUNT; p++)
		if (!strcmp(key, fdw_phase_key((enum fdw_phase)p)))
			return fdw_phase_label((enum fdw_phase)p);
	return key;
}

const char *tui_state_label(enum fdw_job_state s)
{
	switch (s) {
	case FDW_JOB_RUNNING:
		return _("running");
	case FDW_JOB_PAUSED:
		return _("paused");
	case FDW_JOB_INTERRUPTED:
		return _("interrupted");
	case FDW_JOB_NEEDS_REPAIR:
		return _("needs repair");
	case FDW_JOB_COMPLETE:
		return _("complete");
	case FDW_JOB_FAILED:
		return _("failed");
	default:
		return "?";
	}
}

void tui_open_job(struct tui *t, const struct fdw_job *job)
{
	t->job = *job;
	t->have_job = true;
	t->have_prog = false;
	t->progress_msg[0] = '\0';
	tui_go(t, TUI_PROGRESS);
	progress_tick(t);
}

/* Called in the header thread: only publish the phase; the main loop draws it. */
static void on_phase(enum fdw_phase phase, void *ctx)
{
	struct tui *t = ctx;

	__atomic_store_n(&t->begin_phase, (int)phase, __ATOMIC_RELEASE);
}

static void recovery_wipe(struct tui *t)
{
	t->enc.recovery_key = NULL;
	fdw_secret_free(t->recovery);
	t->recovery = NULL;
}

static void *begin_main(void *arg)
{
	struct tui *t = arg;
	char why[512] = "";
	int slot = -1, rc;

	t->begin_rc = fdw_encrypt_begin(&t->enc, t->pass[0], on_phase, t, t->begin_why,
					sizeof(t->begin_why));
	/*
	 * A key is shown only when it is known to open the volume: one that went wrong
	 * would be written down and trusted in vain.
	 */
	if (t->begin_rc >= 0 && t->recovery) {
		rc = fdw_recovery_key_test(t->enc.target.device, t->enc.plan.detached_header,
					   t->recovery, &slot, why, sizeof(why));
		if (rc) {
			snprintf(t->recovery_msg, sizeof(t->recovery_msg),
				 _("No recovery key was added (%s). Once the conversion is "
				   "complete, add one with: fdewiz recovery-key add %s"),
				 rc == -EPERM ? _("the header has no keyslot for it") : why,
				 t->address);
			recovery_wipe(t);
		}
	}
	__atomic_store_n(&t->begin_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Add the crypttab entry (and fix fstab) once the header is on; a failure only warns. */
static void boot_entries(struct tui *t)
{
	struct fdw_boot_request rq = { .root = "/", .fstab = true,
				       .name = t->enc.boot_name[0] ? t->enc.boot_name : NULL };
	struct fdw_boot_result res;
	char why[1024] = "", ct[1024], fs[1024 + 256];
	int rc = fdw_boot_entries_write(t->address, &rq, &res, why, sizeof(why));

	t->boot_failed = rc != 0;
	if (rc < 0) {
		snprintf(t->boot_msg, sizeof(t->boot_msg),
			 _("crypttab was not written: %s The conversion goes on; to add the "
			   "entry later run: fdewiz crypttab %s"), why, t->address);
		return;
	}
	if (res.crypttab_present)
		snprintf(ct, sizeof(ct), _("/etc/crypttab already opened it as /dev/mapper/%s; "
					   "nothing added."), res.name);
	else if (res.crypttab.backup[0])
		snprintf(ct, sizeof(ct), _("added to /etc/crypttab: it opens at boot as "
					   "/dev/mapper/%s (old file kept as %s)."), res.name,
			 res.crypttab.backup);
	else
		snprintf(ct, sizeof(ct), _("added to /etc/crypttab: it opens at boot as "
					   "/dev/mapper/%s."), res.name);
	if (res.fstab_failed)
		snprintf(fs, sizeof(fs), _("/etc/fstab was not changed: %s Fix it by hand, or "
					   "run fdewiz crypttab %s later."), why, t->address);
	else if (res.fstab.changed)
		snprintf(fs, sizeof(fs), _("/etc/fstab: %d line(s) now name /dev/mapper/%s (old "
					   "file kept as %s)."), res.fstab.lines, res.name,
			 res.fstab.backup);
	else
		snprintf(fs, sizeof(fs), "%s", _("/etc/fstab: no line names the partition "
						 "itself; unchanged."));
	snprintf(t->boot_msg, sizeof(t->boot_msg), _("Boot: %s %s"), ct, fs);
}

/* What the boot step did, once, over the progress screen (it also stays on the screen). */
static void boot_dialog(struct tui *t)
{
	if (t->boot_msg[0] && !t->dialog[0])
		tui_show_dialog(t, t->boot_failed ? _("Boot entries: warning") :
				_("Boot entries"), t->boot_msg);
}

void progress_start(struct tui *t)
{
	int rc;

	recovery_wipe(t);
	t->recovery_msg[0] = '\0';
	t->boot_msg[0] = '\0';
	t->boot_failed = false;
	if (t->recovery_key) {
		rc = fdw_recovery_key_generate(&t->recovery);
		if (rc) {
			t->recovery = NULL;
			snprintf(t->confirm_msg, sizeof(t->confirm_msg),
				 _("The recovery key could not be made (%s). Nothing was changed; "
				   "go back with Esc and untick its box to go on without one."),
				 strerror(-rc));
			t->confirm_len = 0;
			t->confirm[0] = '\0';
			return;
		}
		t->enc.recovery_key = t->recovery;
	}
	t->begin_phase = FDW_PHASE_CHECKING;
	t->begin_done = 0;
	t->begin_why[0] = '\0';
	t->have_job = false;
	t->have_prog = false;
	t->progress_msg[0] = '\0';
	tui_go(t, TUI_PROGRESS);
	tui_hold_suspend(true);
	rc = pthread_create(&t->begin_thread, NULL, begin_main, t);
	if (rc) {
		tui_hold_suspend(false);
		t->begin_phase = -1;
		tui_wipe_passphrases(t);
		tui_release_plan(t);
		recovery_wipe(t);
		tui_show_dialog(t, _("Not encrypted"), strerror(rc));
		tui_go(t, TUI_DISKS);
		return;
	}
	t->begin_running = true;
}

/* The header steps are done: show how, and launch the worker when they succeeded. */
static void begin_finish(struct tui *t)
{
	char why[1024] = "";
	pid_t pid;

	pthread_join(t->begin_thread, NULL);
	t->begin_running = false;
	if (t->begin_rc < 0) {
		t->begin_phase = -1;
		tui_wipe_passphrases(t);
		tui_release_plan(t);
		recovery_wipe(t);
		tui_show_dialog(t, _("Not encrypted"), t->begin_why);
		tui_scan(t);
		tui_go(t, TUI_DISKS);
		return;
	}
	if (t->begin_rc > 0)	/* done, with a warning */
		snprintf(t->progress_msg, sizeof(t->progress_msg), "%s", t->begin_why);
	if (t->recovery_msg[0]) {
		size_t l = strlen(t->progress_msg);

		snprintf(t->progress_msg + l, sizeof(t->progress_msg) - l, "%s%s",
			 l ? " " : "", t->recovery_msg);
	}
	t->job = t->enc.job;
	t->have_job = true;
	/* The entry is right from now on: the volume opens mid-conversion too. */
	if (t->boot_entries)
		boot_entries(t);
	pid = fdw_launch_background(&t->enc.job, &t->enc.target, t->pass[0], NULL, why,
				    sizeof(why));
	t->begin_phase = -1;
	tui_wipe_passphrases(t);
	t->enc.recovery_key = NULL;
	tui_release_plan(t);
	if (pid < 0)
		tui_show_dialog(t, _("The conversion did not start"), why);
	/* The conversion is launched first: it never waits for the key to be written down. */
	if (t->recovery) {
		t->recovery_quit_asked = false;
		tui_go(t, TUI_RECOVERY);
		return;
	}
	boot_dialog(t);
	progress_tick(t);
}

void progress_begin_poll(struct tui *t)
{
	if (!t->begin_running || !__atomic_load_n(&t->begin_done, __ATOMIC_ACQUIRE))
		return;
	begin_finish(t);
	/* The worker runs on its own now: a held Ctrl-Z may stop the wizard. */
	tui_hold_suspend(false);
}

void progress_tick(struct tui *t)
{
	if (!t->have_job || t->begin_running)
		return;
	t->have_prog = fdw_job_observe(&t->job, &t->prog) == 0;
	if (t->have_prog && t->prog.state == FDW_JOB_COMPLETE && !t->dialog[0] &&
	    t->prompt == TUI_PROMPT_NONE) {
		struct fdw_job again;

		/* The record now names the benchmark results. */
		if (fdw_job_find_id(t->job.id, &again) == 0)
			t->job = again;
		results_enter(t);
	}
}

static void fmt_duration(double secs, char *buf, size_t len)
{
	long s = secs < 0 ? -1 : (long)(secs + 0.5);

	if (s < 0)
		snprintf(buf, len, "%s", "--:--");
	else if (s >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%ld:%02ld", s / 60, s % 60);
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

static void draw_preparing(struct tui *t, int y)
{
	int phase = __atomic_load_n(&t->begin_phase, __ATOMIC_ACQUIRE);
	char line[256];

	snprintf(line, sizeof(line), _("Phase: %s"), fdw_phase_label((enum fdw_phase)phase));
	tui_attr_on(t, TUI_C_KEY);
	tui_put(y, 2, COLS - 4, line, false);
	tui_attr_off(t, TUI_C_KEY);
	y += 2;
	if (phase == FDW_PHASE_BENCHMARKING)
		y += tui_wrap(y, 2, COLS - 4, 3,
			      _("Measuring the speed of the plain filesystem before anything "
				"changes; this takes a minute or two."));
	else
		y += tui_wrap(y, 2, COLS - 4, 3,
			      _("Making room for the header and writing it; this takes a "
				"moment."));
	tui_wrap(y, 2, COLS - 4, 3, _("Keep the computer on. Ctrl-C waits until this step is "
				      "done; nothing is half-written."));
}

void progress_draw(struct tui *t)
{
	const struct fdw_progress *p = &t->prog;
	char title[PATH_MAX + 64], line[512], a[32], b[32], c[48], eta[32], el[32];
	char logs[TUI_LOG_LINES][200];
	double frac;
	int y = 2, n, bw;

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
		frac = p->total ? (double)p->done / (double)p->total : 0;
		snprintf(line, sizeof(line), _("State: %s    Phase: %s"),
			 tui_state_label(p->state), tui_phase_label(p->phase));
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
		fmt_duration(p->state == FDW_JOB_RUNNING ? p->eta : -1, eta, sizeof(eta));
		fmt_duration(p->elapsed, el, sizeof(el));
		if (p->state == FDW_JOB_RUNNING && p->speed > 0)
			snprintf(c, sizeof(c), _("%s/s"), fdw_format_size((uint64_t)p->speed, a,
									  sizeof(a)));
		else
			snprintf(c, sizeof(c), "-");
		snprintf(line, sizeof(line), _("Speed: %s    ETA: %s    Elapsed: %s"), c, eta,
			 el);
		tui_put(y++, 2, COLS - 4, line, false);
		if (p->message[0]) {
			tui_attr_on(t, TUI_C_DIM);
			y += tui_wrap(y, 2, COLS - 4, 2, p->message);
			tui_attr_off(t, TUI_C_DIM);
		}
		if (p->state == FDW_JOB_PAUSED || p->state == FDW_JOB_INTERRUPTED ||
		    p->state == FDW_JOB_NEEDS_REPAIR) {
			tui_attr_on(t, TUI_C_WARN);
			y += tui_wrap(y, 2, COLS - 4, 2, _("Stopped at a safe point: the data is "
							   "intact. Press r to resume."));
			tui_attr_off(t, TUI_C_WARN);
		}
	}
	if (t->progress_msg[0]) {
		tui_attr_on(t, TUI_C_WARN);
		y += tui_wrap(y, 2, COLS - 4, 3, t->progress_msg);
		tui_attr_off(t, TUI_C_WARN);
	}
	if (t->boot_msg[0]) {
		tui_attr_on(t, t->boot_failed ? TUI_C_WARN : TUI_C_GOOD);
		y += tui_wrap(y, 2, COLS - 4, 3, t->boot_msg);
		tui_attr_off(t, t->boot_failed ? TUI_C_WARN : TUI_C_GOOD);
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
	tui_attr_on(t, TUI_C_DIM);
	tui_put(LINES - 1, 0, COLS, _("b: keep running in the background and quit  p: pause  "
				      "r: resume  ?: help"), true);
	tui_attr_off(t, TUI_C_DIM);
}

void progress_key(struct tui *t, int ch, bool is_key)
{
	bool running = t->have_prog && t->prog.state == FDW_JOB_RUNNING;
	char note[512], safe[768];
	int rc;

	(void)is_key;
	if (is_key || t->begin_running)
		return;
	if (ch == 'b' || ch == 'q' || ch == 27) {
		if (running)
			snprintf(t->farewell, sizeof(t->farewell),
				 _("The conversion of %s continues in the background. Run fdewiz "
				   "again (or fdewiz status) to see it."), t->job.address);
		t->quit = true;
	} else if (ch == 'p') {
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
	} else if (ch == 'r') {
		if (running)
			tui_set_status(t, false, "%s", _("It is running already."));
		else if (t->have_prog && t->prog.state == FDW_JOB_COMPLETE)
			tui_set_status(t, false, "%s", _("It is complete."));
		else if (t->have_job)
			tui_prompt_resume(t, &t->job);
	}
}

/* ---- the recovery key, shown once ---- */

void recovery_draw(struct tui *t)
{
	const char *lines[] = {
		_("Write it down or print it now: it is shown only this once and is kept "
		  "nowhere else."),
		_("It opens the volume like the passphrase does; cryptsetup open accepts it "
		  "exactly as printed, dashes included."),
		_("Keep it away from this computer: whoever has it can read the data."),
		_("The conversion is already running in the background; it does not wait for "
		  "this screen."),
	};
	char line[PATH_MAX + 128];
	int y = 2, kw, x, bottom, need = 0;
	bool framed;

	tui_title(t, _("Recovery key"));
	if (!t->recovery)
		return;
	snprintf(line, sizeof(line), _("The recovery key of %s:"), t->address);
	y += tui_wrap(y, 2, COLS - 4, 2, line);
	bottom = LINES - 3;
	for (size_t i = 0; i < 3; i++)
		need += tui_wrap_count(COLS - 4, 3, lines[i]);
	/* The key on a line of its own, centred; framed by rules when there is room. */
	kw = (int)t->recovery->len;
	x = (COLS - kw) / 2 > 0 ? (COLS - kw) / 2 : 0;
	framed = y + 5 + need <= bottom;
	if (framed) {
		tui_hline(t, y + 1, x - 1 > 0 ? x - 1 : 0, kw + 2);
		tui_hline(t, y + 3, x - 1 > 0 ? x - 1 : 0, kw + 2);
		y += 2;
	} else {
		y++;
	}
	tui_attr_on(t, TUI_C_KEY);
	attron(A_BOLD);
	tui_put(y, x, kw, t->recovery->data, false);
	attroff(A_BOLD);
	tui_attr_off(t, TUI_C_KEY);
	y += framed ? 3 : 2;
	/* Whole sentences only, in order: the last one is the first to go. */
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		int n = tui_wrap_count(COLS - 4, 3, lines[i]);

		if (y + n > bottom)
			break;
		if (i == 2)
			tui_attr_on(t, TUI_C_WARN);
		y += tui_wrap(y, 2, COLS - 4, n, lines[i]);
		if (i == 2)
			tui_attr_off(t, TUI_C_WARN);
	}
	tui_attr_on(t, TUI_C_KEY);
	tui_put(LINES - 2, 2, COLS - 4, _("I have written it down: press Enter."), false);
	tui_attr_off(t, TUI_C_KEY);
	tui_attr_on(t, TUI_C_DIM);
	tui_put(LINES - 1, 0, COLS, _("Enter: written down, go on  q: quit (the conversion goes "
				      "on)"), true);
	tui_attr_off(t, TUI_C_DIM);
}

void recovery_key(struct tui *t, int ch, bool is_key)
{
	if ((is_key && ch == KEY_ENTER) || (!is_key && (ch == '\r' || ch == '\n'))) {
		recovery_wipe(t);
		tui_go(t, TUI_PROGRESS);
		tui_set_status(t, false, "%s", _("The recovery key was wiped from memory."));
		boot_dialog(t);
		progress_tick(t);
	} else if (!is_key && (ch == 'q' || ch == 27)) {
		if (!t->recovery_quit_asked) {
			t->recovery_quit_asked = true;
			tui_set_status(t, false, "%s", _("The key is not shown again. Press q "
							 "again to quit anyway, Enter once it "
							 "is written down."));
			return;
		}
		snprintf(t->farewell, sizeof(t->farewell),
			 _("The conversion of %s continues in the background. Run fdewiz again "
			   "(or fdewiz status) to see it."), t->job.address);
		t->quit = true;
	} else {
		t->recovery_quit_asked = false;
		tui_set_status(t, false, "%s", _("Press Enter once the recovery key is written "
						 "down."));
	}
}
