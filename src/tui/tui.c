/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The wizard's frame: terminal setup and restore, signals, the key loop, drawing helpers. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "core/base/base_api.h"
#include "curses.h"
#include "textlayout.h"
#include "tui.h"

volatile sig_atomic_t tui_stop_signal;

static bool curses_active;
static int saved_stderr = -1;

static void on_stop_signal(int sig)
{
	tui_stop_signal = sig;
}

/* Ctrl-Z while the header steps run: held back, and acted on once they are done. */
static volatile sig_atomic_t suspend_held;
static struct sigaction suspend_saved;
static bool suspend_swapped;

static void on_held_suspend(int sig)
{
	(void)sig;
	suspend_held = 1;
}

void tui_hold_suspend(bool hold)
{
	struct sigaction sa;

	if (hold && !suspend_swapped) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_held_suspend;
		sigemptyset(&sa.sa_mask);
		suspend_held = 0;
		suspend_swapped = sigaction(SIGTSTP, &sa, &suspend_saved) == 0;
	} else if (!hold && suspend_swapped) {
		/* curses' own handler again: it restores the terminal before stopping. */
		sigaction(SIGTSTP, &suspend_saved, NULL);
		suspend_swapped = false;
		/* Held back, not dropped; unless the wizard is quitting anyway. */
		if (suspend_held && !tui_stop_signal)
			raise(SIGTSTP);
		suspend_held = 0;
	}
}

/* ---- text on the screen (the layout itself is in textlayout.c) ---- */

/* Print @n wide characters at (y, x); those wcwidth does not know become '?'. */
static void put_wide(int y, int x, const wchar_t *s, size_t n)
{
	move(y, x);
	for (size_t i = 0; i < n; i++) {
		wchar_t wc = s[i] == L'\n' ? L' ' : wcwidth(s[i]) < 0 ? L'?' : s[i];

		addnwstr(&wc, 1);
	}
}

int tui_put(int y, int x, int w, const char *s, bool pad)
{
	wchar_t buf[TUI_TEXT_MAX];
	size_t n = tui_text_decode(s, buf, TUI_TEXT_MAX), i;
	int used = 0;

	if (w <= 0 || y < 0 || y >= LINES || x >= COLS)
		return 0;
	if (x + w > COLS)
		w = COLS - x;
	for (i = 0; i < n; i++) {
		int cw = tui_text_cell_width(buf[i]);

		if (used + cw > w)
			break;
		used += cw;
	}
	put_wide(y, x, buf, i);
	if (pad)
		for (; used < w; used++)
			mvaddch(y, x + used, ' ');
	return used;
}

int tui_wrap(int y, int x, int w, int max_lines, const char *s)
{
	wchar_t buf[TUI_TEXT_MAX];
	struct tui_text_line lines[TUI_TEXT_MAX];
	size_t n = tui_text_decode(s, buf, TUI_TEXT_MAX);
	int count;

	if (max_lines > TUI_TEXT_MAX)
		max_lines = TUI_TEXT_MAX;
	count = tui_text_wrap(buf, n, w, max_lines, lines);
	for (int i = 0; i < count; i++)
		put_wide(y + i, x, buf + lines[i].start, lines[i].end - lines[i].start);
	return count;
}

static const struct { short fg; attr_t mono; } palette[TUI_C__COUNT] = {
	[TUI_C_NORMAL] = { -1, A_NORMAL },
	[TUI_C_TITLE] = { COLOR_CYAN, A_REVERSE },
	[TUI_C_GOOD] = { COLOR_GREEN, A_BOLD },
	[TUI_C_BAD] = { COLOR_RED, A_NORMAL },
	[TUI_C_WARN] = { COLOR_YELLOW, A_BOLD },
	[TUI_C_SELECT] = { -1, A_REVERSE },
	[TUI_C_DIM] = { -1, A_DIM },
	[TUI_C_BAR_PLAIN] = { COLOR_BLUE, A_NORMAL },
	[TUI_C_BAR_ENC] = { COLOR_MAGENTA, A_NORMAL },
	[TUI_C_KEY] = { -1, A_BOLD },
};

static attr_t attr_of(struct tui *t, enum tui_color c)
{
	if (c == TUI_C_TITLE && t->color)
		return COLOR_PAIR(c) | A_REVERSE | A_BOLD;
	if (c == TUI_C_SELECT || c == TUI_C_DIM || c == TUI_C_KEY || c == TUI_C_NORMAL ||
	    !t->color)
		return palette[c].mono;
	return COLOR_PAIR(c) | (c == TUI_C_GOOD || c == TUI_C_WARN ? A_BOLD : A_NORMAL);
}

void tui_attr_on(struct tui *t, enum tui_color c)
{
	attron(attr_of(t, c));
}

void tui_attr_off(struct tui *t, enum tui_color c)
{
	attroff(attr_of(t, c));
}

void tui_hline(struct tui *t, int y, int x, int w)
{
	for (int i = 0; i < w && x + i < COLS; i++) {
		if (t->utf8)
			mvaddwstr(y, x + i, L"\u2500");
		else
			mvaddch(y, x + i, '-');
	}
}

void tui_title(struct tui *t, const char *title)
{
	char line[512];

	snprintf(line, sizeof(line), " fdewiz %s %s", t->utf8 ? "\u2014" : "-", title);
	tui_attr_on(t, TUI_C_TITLE);
	tui_put(0, 0, COLS, line, true);
	tui_attr_off(t, TUI_C_TITLE);
}

void tui_bar(struct tui *t, int y, int x, int w, double fraction, enum tui_color c)
{
	int full;

	if (w < 3)
		return;
	if (fraction < 0)
		fraction = 0;
	if (fraction > 1)
		fraction = 1;
	if (!t->utf8) {
		/* "[#####.....]" */
		full = (int)(fraction * (w - 2) + 0.5);
		mvaddch(y, x, '[');
		for (int i = 0; i < w - 2; i++)
			mvaddch(y, x + 1 + i, i < full ? '#' : '.');
		mvaddch(y, x + w - 1, ']');
		return;
	}
	full = (int)(fraction * w + 0.5);
	tui_attr_on(t, c);
	for (int i = 0; i < w; i++) {
		if (i == full)
			tui_attr_off(t, c);
		mvaddwstr(y, x + i, i < full ? L"\u2588" : L"\u2591");
	}
	if (full >= w)
		tui_attr_off(t, c);
}

void tui_masked(struct tui *t, int y, int x, int w, const struct fdw_secret *s, bool focus)
{
	size_t chars = 0;
	int i;

	for (size_t b = 0; s && b < s->len; b++)
		if (((unsigned char)s->data[b] & 0xc0) != 0x80)
			chars++;
	tui_attr_on(t, focus ? TUI_C_SELECT : TUI_C_DIM);
	for (i = 0; i < w; i++)
		mvaddch(y, x + i, (size_t)i < chars && i < w - 1 ? '*' : (t->utf8 ? ' ' : '_'));
	tui_attr_off(t, focus ? TUI_C_SELECT : TUI_C_DIM);
	if (focus) {
		int cx = (int)chars < w - 1 ? (int)chars : w - 1;

		move(y, x + cx);
	}
}

const char *tui_checkbox(bool on)
{
	return on ? "[x]" : "[ ]";
}

void tui_set_status(struct tui *t, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->status, sizeof(t->status), fmt, ap);
	va_end(ap);
	t->status_error = error;
}

void tui_capitalise(char *s)
{
	if (s[0] >= 'a' && s[0] <= 'z')
		s[0] = (char)(s[0] - 'a' + 'A');
}

void tui_show_dialog(struct tui *t, const char *title, const char *msg)
{
	snprintf(t->dialog_title, sizeof(t->dialog_title), "%s", title);
	snprintf(t->dialog, sizeof(t->dialog), "%s", msg);
	tui_capitalise(t->dialog);
}

/* The screens, in the order of enum tui_screen. */
static const struct tui_screen_ops *const screens[TUI__COUNT] = {
	[TUI_START] = &tui_screen_start,	[TUI_DISKS] = &tui_screen_disks,
	[TUI_PLAN] = &tui_screen_plan,		[TUI_PASS] = &tui_screen_pass,
	[TUI_CONFIRM] = &tui_screen_confirm,	[TUI_PROGRESS] = &tui_screen_progress,
	[TUI_RESULTS] = &tui_screen_results,	[TUI_RECOVERY] = &tui_screen_recovery,
	[TUI_ERASE] = &tui_screen_erase,	[TUI_ERASE_CONFIRM] = &tui_screen_eraseconfirm,
	[TUI_ERASE_DONE] = &tui_screen_erasedone,	[TUI_RESTART] = &tui_screen_restart,
	[TUI_DECRYPT] = &tui_screen_decrypt,
};

bool tui_go(struct tui *t, enum tui_screen s)
{
	static int entering;	/* > 0 while a screen's enter runs */
	enum tui_screen from = t->screen;
	unsigned nav = ++t->nav;
	bool ok;

	/* A move made by an enter (progress on to results) keeps what that enter said. */
	if (!entering)
		t->status[0] = '\0';
	curs_set(0);
	entering++;
	ok = !screens[s]->enter || screens[s]->enter(t, from);
	entering--;
	if (!ok)
		return false;
	/* An enter that went on to another screen itself (progress to results) has the say. */
	if (t->nav == nav)
		t->screen = s;
	return true;
}

void tui_open_job(struct tui *t, const struct fdw_job *job)
{
	/* A decryption goes on from its own screen, which checks, asks and runs it. */
	if (job->direction[0]) {
		snprintf(t->chosen, sizeof(t->chosen), "%s", job->address);
		tui_go(t, TUI_DECRYPT);
		return;
	}
	t->job = *job;
	t->have_job = true;
	t->progress_msg[0] = '\0';
	tui_go(t, TUI_PROGRESS);
}

/* ---- the frame ---- */

static void draw_too_small(struct tui *t)
{
	char need[128], msg[256];
	const char *head = _("Terminal too small:");

	snprintf(need, sizeof(need), _("need at least %dx%d, have %dx%d."), TUI_MIN_COLS,
		 TUI_MIN_ROWS, COLS, LINES);
	snprintf(msg, sizeof(msg), "%s %s", head, need);
	tui_attr_on(t, TUI_C_WARN);
	if (tui_width(msg) <= COLS) {
		tui_put(LINES / 2, 0, COLS, msg, false);
	} else {
		/* The sizes stay on one line of their own. */
		tui_put(LINES / 2 - 1 > 0 ? LINES / 2 - 1 : 0, 0, COLS, head, false);
		tui_wrap(LINES / 2, 0, COLS, LINES - LINES / 2, need);
	}
	tui_attr_off(t, TUI_C_WARN);
}

/* A box in the middle of the screen with @title and wrapped @msg. */
static int draw_box(struct tui *t, const char *title, const char *msg, const char *hint,
		    int extra)
{
	int w = tui_box_width(COLS), lines = tui_box_lines(msg, COLS, LINES, extra), h, y0, x0;

	h = lines + 5 + extra;
	y0 = (LINES - h) / 2;
	x0 = (COLS - w) / 2;
	for (int y = y0; y < y0 + h; y++)
		tui_put(y, x0, w, "", true);
	if (t->utf8) {
		mvaddwstr(y0, x0, L"\u250c");
		mvaddwstr(y0, x0 + w - 1, L"\u2510");
		mvaddwstr(y0 + h - 1, x0, L"\u2514");
		mvaddwstr(y0 + h - 1, x0 + w - 1, L"\u2518");
		for (int y = y0 + 1; y < y0 + h - 1; y++) {
			mvaddwstr(y, x0, L"\u2502");
			mvaddwstr(y, x0 + w - 1, L"\u2502");
		}
	} else {
		mvaddch(y0, x0, '+');
		mvaddch(y0, x0 + w - 1, '+');
		mvaddch(y0 + h - 1, x0, '+');
		mvaddch(y0 + h - 1, x0 + w - 1, '+');
		for (int y = y0 + 1; y < y0 + h - 1; y++) {
			mvaddch(y, x0, '|');
			mvaddch(y, x0 + w - 1, '|');
		}
	}
	tui_hline(t, y0, x0 + 1, w - 2);
	tui_hline(t, y0 + h - 1, x0 + 1, w - 2);
	tui_attr_on(t, TUI_C_KEY);
	tui_put(y0, x0 + 2, w - 4, title, false);
	tui_attr_off(t, TUI_C_KEY);
	tui_wrap(y0 + 2, x0 + 2, w - 4, lines, msg);
	tui_attr_on(t, TUI_C_DIM);
	tui_put(y0 + h - 2, x0 + 2, w - 4, hint, false);
	tui_attr_off(t, TUI_C_DIM);
	return y0 + 2 + lines;
}

static void draw_help(struct tui *t)
{
	draw_box(t, _("Keys"),
		 _("Up/Down or k/j: move.  Enter: choose or continue.  Space: toggle a box.  "
		   "Tab: next field.  Esc or Backspace: go back (nothing is changed before you "
		   "type the confirmation word).  ?: this help.  q: quit.  On the progress "
		   "screen: b leaves the conversion running in the background and quits, p "
		   "pauses it at a safe point, r resumes it, g changes how it shares the disk "
		   "(auto, gentle, full)."),
		 _("Press any key to close."), 0);
}

static void draw_prompt(struct tui *t)
{
	int w = tui_box_width(COLS), x0 = (COLS - w) / 2, y;
	char msg[PATH_MAX + 128];

	snprintf(msg, sizeof(msg), _("Passphrase of %s (to resume its conversion):"),
		 t->job.address);
	y = draw_box(t, _("Resume"), msg, _("Enter: resume   Esc: cancel"), 3);
	if (t->prompt_msg[0]) {
		tui_attr_on(t, TUI_C_BAD);
		tui_put(y + 2, x0 + 2, w - 4, t->prompt_msg, false);
		tui_attr_off(t, TUI_C_BAD);
	}
	curs_set(1);
	tui_masked(t, y + 1, x0 + 2, w - 4, t->prompt_pass, true);
}

/*
 * The bottom line: a status message, else the screen's key hints. Drawn after the screen,
 * so the cursor the screen left in its field goes back there.
 */
static void draw_bottom_line(struct tui *t)
{
	const struct tui_screen_ops *s = screens[t->screen];
	const char *hint = s->hint_of ? s->hint_of(t) : s->hint;
	enum tui_color c = TUI_C_DIM;
	int y, x;

	if (t->status[0])
		c = t->status_error ? TUI_C_BAD : TUI_C_WARN;
	else if (!hint)
		return;
	getyx(stdscr, y, x);
	tui_attr_on(t, c);
	tui_put(LINES - 1, 0, COLS, t->status[0] ? t->status : _(hint), true);
	tui_attr_off(t, c);
	move(y, x);
}

void tui_redraw(struct tui *t)
{
	t->rows = LINES;
	t->cols = COLS;
	erase();
	curs_set(0);
	if (COLS < TUI_MIN_COLS || LINES < TUI_MIN_ROWS) {
		draw_too_small(t);
		refresh();
		return;
	}
	screens[t->screen]->draw(t);
	draw_bottom_line(t);
	if (t->prompt != TUI_PROMPT_NONE)
		draw_prompt(t);
	else if (t->dialog[0])
		draw_box(t, t->dialog_title, t->dialog, _("Press Enter to continue."), 0);
	else if (t->help)
		draw_help(t);
	refresh();
}

static void dispatch(struct tui *t, struct tui_key k)
{
	if (k.kind == TUI_KEY_RESIZE)
		return;
	/* Whatever else wrote on the terminal: every cell is sent again at the next draw. */
	if (k.kind == TUI_KEY_REPAINT) {
		clearok(curscr, TRUE);
		return;
	}
	if (COLS < TUI_MIN_COLS || LINES < TUI_MIN_ROWS) {
		if (tui_key_is(k, 'q') || k.kind == TUI_KEY_ESC)
			t->quit = true;
		return;
	}
	if (t->prompt != TUI_PROMPT_NONE) {
		t->prompt_key(t, k);
		return;
	}
	if (t->dialog[0]) {
		t->dialog[0] = '\0';
		return;
	}
	if (t->help) {
		t->help = false;
		return;
	}
	t->status[0] = '\0';
	if (tui_key_is(k, '?') && !screens[t->screen]->text) {
		t->help = true;
		return;
	}
	screens[t->screen]->key(t, k);
}

/* Engine warnings would scribble over the screen: keep the last few for the screens. */
static void tui_log_sink(enum fdw_log_level level, const char *msg, void *ctx)
{
	struct tui *t = ctx;

	if (level < FDW_LOG_WARN)
		return;
	memmove(t->log[1], t->log[0], sizeof(t->log[0]) * (TUI_LOG_LINES - 1));
	snprintf(t->log[0], sizeof(t->log[0]), "%s", msg);
	if (t->n_log < TUI_LOG_LINES)
		t->n_log++;
}

static void restore_terminal(void)
{
	if (curses_active) {
		endwin();
		curses_active = false;
	}
	if (saved_stderr >= 0) {
		dup2(saved_stderr, STDERR_FILENO);
		close(saved_stderr);
		saved_stderr = -1;
	}
}

static bool want_utf8(void)
{
	const char *term = getenv("TERM");

	if (strcmp(nl_langinfo(CODESET), "UTF-8") != 0)
		return false;
	/* A real VT100 (and vt220) has no UTF-8, whatever the locale says. */
	if (term && !strncmp(term, "vt", 2))
		return false;
	return true;
}

static void setup_colors(struct tui *t)
{
	const char *no_color = getenv("NO_COLOR");

	t->color = has_colors() && !(no_color && no_color[0]);
	if (!t->color)
		return;
	start_color();
	use_default_colors();
	for (int c = 1; c < TUI_C__COUNT; c++)
		init_pair((short)c, palette[c].fg, -1);
}

static int setup_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocked read returns and the loop sees the flag. */
	/* SIGQUIT (Ctrl-\ ) too: its default, a core dump, would end the run in the middle of a step. */
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL) || sigaction(SIGQUIT, &sa, NULL))
		return -errno;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static void tui_free(struct tui *t)
{
	tui_release_plan(t);
	tui_release_erase(t);
	fdw_encrypt_free(t->enc);
	t->enc = NULL;
	for (int i = 0; i < 2; i++)
		fdw_secret_free(t->pass[i]);
	fdw_secret_free(t->prompt_pass);
	fdw_secret_free(t->recovery);
	t->recovery = NULL;
	for (int i = 0; i < TUI__COUNT; i++) {
		if (t->state[i] && screens[i]->free_state)
			screens[i]->free_state(t->state[i]);
		free(t->state[i]);
	}
}

/* Each screen's own state, zeroed. */
static int alloc_states(struct tui *t)
{
	for (int i = 0; i < TUI__COUNT; i++) {
		if (!screens[i]->state_size)
			continue;
		t->state[i] = calloc(1, screens[i]->state_size);
		if (!t->state[i])
			return -ENOMEM;
	}
	return 0;
}

/* The wizard's state on @paths, with its screens' states and locked passphrase fields. */
static struct tui *tui_new(char **paths, int n)
{
	struct tui *t = calloc(1, sizeof(*t));
	const char *fast = getenv("FDEWIZ_TEST_FAST_PBKDF");

	if (!t)
		return NULL;
	t->paths = paths;
	t->n_paths = n;
	t->bench_baseline = true;
	/* Test-only: a weak key derivation, so tests do not wait for a strong one. */
	t->fast_pbkdf = fast && !strcmp(fast, "1");
	t->screen = TUI__COUNT;	/* none yet: the start screen chooses the first one */
	t->enc = fdw_encrypt_new();
	if (!t->enc) {
		fprintf(stderr, "%s: %s\n", "fdewiz", strerror(ENOMEM));
		free(t);
		return NULL;
	}
	if (alloc_states(t) || fdw_secret_new(&t->pass[0], TUI_PASS_MAX) ||
	    fdw_secret_new(&t->pass[1], TUI_PASS_MAX) ||
	    fdw_secret_new(&t->prompt_pass, TUI_PASS_MAX)) {
		fprintf(stderr, _("%s: cannot lock memory for the passphrase. Nothing was "
				  "changed.\n"), "fdewiz");
		tui_free(t);
		free(t);
		return NULL;
	}
	return t;
}

/* Signals, stderr away from the screen, and curses; NULL (and a message) if it cannot start. */
static SCREEN *start_terminal(struct tui *t)
{
	SCREEN *screen;
	int fd;

	fdw_secret_harden_process();
	t->utf8 = want_utf8();
	if (setup_signals())
		return NULL;
	/* Library and child-process stderr must not write over the screen. */
	fflush(stderr);
	saved_stderr = dup(STDERR_FILENO);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	fdw_log_set_sink(tui_log_sink, t);
	atexit(restore_terminal);

	/* newterm, unlike initscr, returns instead of exiting on an unknown terminal. */
	screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		restore_terminal();
		fprintf(stderr, _("%s: cannot start the screen: the terminal type TERM=%s is "
				  "unknown. Nothing was changed. Set TERM (for example TERM=linux) "
				  "or use 'fdewiz list'.\n"), "fdewiz",
			getenv("TERM") ? getenv("TERM") : "");
		fdw_log_set_sink(NULL, NULL);
		return NULL;
	}
	set_term(screen);
	curses_active = true;
	setup_colors(t);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(50);
	timeout(250);
	curs_set(0);
	return screen;
}

static void key_loop(struct tui *t)
{
	double last_tick = 0;

	/* A stop signal while the header steps run waits for them (they hold it back too). */
	while ((!t->quit && !tui_stop_signal) || t->begin_running) {
		wint_t wc;
		double secs;
		int rc;

		for (int i = 0; i < TUI__COUNT; i++)
			if (screens[i]->poll)
				screens[i]->poll(t);
		if (tui_stop_signal && t->begin_running)
			tui_set_status(t, false, "%s", _("Stopping once the header is written..."));
		else if (suspend_held && t->begin_running)
			tui_set_status(t, false, "%s", _("Ctrl-Z waits until the header is "
							 "written..."));
		secs = fdw_now_s();
		if (screens[t->screen]->tick && secs - last_tick >= 0.2) {
			screens[t->screen]->tick(t);
			last_tick = secs;
		}
		tui_redraw(t);
		rc = get_wch(&wc);
		if (tui_stop_signal && !t->begin_running)
			break;
		if (rc == ERR)
			continue;
		dispatch(t, tui_key_decode(rc, wc));
	}
}

/* Once the terminal is restored: what goes on, what was not done, the engine's warnings. */
static int farewell(struct tui *t)
{
	if (tui_stop_signal)
		printf(_("Interrupted. %s\n"), t->have_job ?
		       _("A conversion that was started continues in the background; run fdewiz "
			 "again to see it.") : _("Nothing was changed."));
	else if (t->farewell[0])
		printf("%s\n", t->farewell);
	if (t->recovery)	/* left on its screen: say so, never what it was */
		printf(_("The recovery key was not confirmed as written down. If it was not, "
			 "add a new one once the conversion is complete (fdewiz recovery-key add "
			 "%s) and remove the old keyslot with cryptsetup luksKillSlot.\n"),
		       t->address);
	for (unsigned i = t->n_log; i > 0; i--)
		fprintf(stderr, "fdewiz: %s\n", t->log[i - 1]);
	return tui_stop_signal ? 130 : t->exit_code;
}

int tui_run(char **paths, int n)
{
	struct tui *t = tui_new(paths, n);
	SCREEN *screen;
	int exit_code;

	if (!t)
		return 1;
	screen = start_terminal(t);
	if (!screen) {
		tui_free(t);
		free(t);
		return 1;
	}
	/* A running conversion's progress, the unfinished ones, or the disks. */
	tui_go(t, TUI_START);
	key_loop(t);
	restore_terminal();
	exit_code = farewell(t);
	fdw_log_set_sink(NULL, NULL);	/* its context is about to go */
	delscreen(screen);
	tui_free(t);
	free(t);
	return exit_code;
}
