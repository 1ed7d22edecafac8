/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The wizard: shared state of its screens, drawing helpers, and the screen functions. */
#ifndef FDW_TUI_H
#define FDW_TUI_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

#include "core/bench/bench_api.h"
#include "core/disk/disk_api.h"
#include "core/convert/convert_api.h"
#include "core/state/state_api.h"
#include "core/base/base_api.h"
#include "textlayout.h"

/* Smallest terminal the layout fits. */
#define TUI_MIN_COLS 60
#define TUI_MIN_ROWS 18
/* Longest passphrase the fields take, in bytes. */
#define TUI_PASS_MAX 512
#define TUI_LOG_LINES 8

enum tui_screen {
	TUI_START, TUI_DISKS, TUI_PLAN, TUI_PASS, TUI_CONFIRM, TUI_PROGRESS, TUI_RESULTS,
	TUI_RECOVERY, TUI_ERASE, TUI_ERASE_CONFIRM, TUI_ERASE_DONE, TUI_RESTART, TUI_DECRYPT,
	TUI__COUNT
};

/* Semantic colours (pairs); in monochrome each maps to an attribute. */
enum tui_color {
	TUI_C_NORMAL, TUI_C_TITLE, TUI_C_GOOD, TUI_C_BAD, TUI_C_WARN, TUI_C_SELECT,
	TUI_C_DIM, TUI_C_BAR_PLAIN, TUI_C_BAR_ENC, TUI_C_KEY, TUI_C__COUNT
};

/* A key as the screens see it: what it means, and the character when it is one. */
enum tui_key_kind {
	TUI_KEY_NONE,		/* nothing came (timeout, signal) */
	TUI_KEY_CHAR,		/* a printable character, in @ch */
	TUI_KEY_ENTER,		/* Enter, Return, the keypad's Enter */
	TUI_KEY_ESC, TUI_KEY_TAB, TUI_KEY_BACKTAB, TUI_KEY_BACKSPACE,
	TUI_KEY_CLEAR,		/* Ctrl-U: empty the field */
	TUI_KEY_REPAINT,	/* Ctrl-L: the whole screen written again */
	TUI_KEY_UP, TUI_KEY_DOWN, TUI_KEY_HOME, TUI_KEY_END, TUI_KEY_PAGE_UP, TUI_KEY_PAGE_DOWN,
	TUI_KEY_RESIZE,		/* the terminal changed size */
	TUI_KEY_OTHER		/* anything else: a control character, a function key */
};

struct tui_key {
	enum tui_key_kind kind;
	wchar_t ch;
};

/* What get_wch() returned (@rc: OK, KEY_CODE_YES or ERR; @wc) as a key (keys.c). */
struct tui_key tui_key_decode(int rc, wint_t wc);

/* Is @k the character @c? */
static inline bool tui_key_is(struct tui_key k, wchar_t c)
{
	return k.kind == TUI_KEY_CHAR && k.ch == c;
}

/* Erase and encrypt (screen_erase*.c): the prepared erase and what the person chose. */
struct tui_erase {
	struct fdw_erase *e;		/* the engine's, while @open */
	bool open;			/* prepared: it holds the partition's lock */
	size_t fs;			/* fdw_erase_fs_name(fs) */
	char label[64];
	size_t label_len;
	enum fdw_erase_after after;
	bool done;			/* it ran: @rc, @res, @why */
	int rc;
	struct fdw_erase_result res;
	char why[2048];
};

/* Why the masked prompt is open. */
enum tui_prompt_for { TUI_PROMPT_NONE, TUI_PROMPT_RESUME };

struct tui {
	enum tui_screen screen;
	bool quit;
	int exit_code;
	char farewell[512];		/* printed after the terminal is restored */
	bool utf8, color;
	int rows, cols;
	char status[512];		/* one line at the bottom; empty: key hints */
	bool status_error;
	char dialog[4096];		/* a modal message, any key closes it */
	char dialog_title[128];
	bool help;
	char log[TUI_LOG_LINES][160];	/* engine warnings while curses owns the screen */
	unsigned n_log;

	/* What the wizard was opened on: named disks or images, or all disks. */
	char **paths;
	int n_paths;

	/* Each screen's own state (its struct is in its file; NULL when it keeps none). */
	void *state[TUI__COUNT];
	unsigned nav;			/* counts tui_go(): an enter that went elsewhere */

	/* Disks: the partition chosen for the plan. */
	char chosen[PATH_MAX];

	/* Plan: the prepared conversion holds the partition's lock until it is closed. */
	struct fdw_encrypt *enc;	/* the engine's; one for the whole run */
	bool enc_open;
	char address[PATH_MAX];
	bool bench_baseline;
	bool fast_pbkdf;
	bool boot_entries;		/* crypttab (and fstab) entries once the header is on */

	/* Passphrase. */
	struct fdw_secret *pass[2];
	bool recovery_key;

	/* Recovery key: made and tested by the start, shown once, then wiped. */
	struct fdw_secret *recovery;

	/* Progress. */
	struct fdw_job job;
	bool have_job;
	struct fdw_progress prog;
	bool have_prog;
	/*
	 * The header steps (and the baseline benchmark) run in a thread of their own, so the
	 * screen keeps refreshing and resizing; curses stays in the main thread. The thread
	 * and its result are the progress screen's; the key loop waits while it runs.
	 */
	bool begin_running;
	char progress_msg[1024];

	/* Erase and encrypt: the passphrase screen serves it while @erasing. */
	bool erasing;
	/* The running root at the next restart: passphrase and recovery screens serve it. */
	bool restarting;
	struct tui_erase erase;

	/* The masked prompt (resume): its keys go to prompt_key (set with it). */
	enum tui_prompt_for prompt;
	void (*prompt_key)(struct tui *t, struct tui_key k);
	struct fdw_secret *prompt_pass;
	char prompt_msg[512];
};

extern volatile sig_atomic_t tui_stop_signal;
/*
 * Hold Ctrl-Z back while the header steps run (@hold), and give it its usual effect once
 * they are done (curses' suspend), unless the wizard is quitting then anyway.
 */
void tui_hold_suspend(bool hold);

/* Drawing helpers (tui.c). */
/* Print @s at (@y, @x) in at most @w cells; pad with spaces when @pad. Returns cells used. */
int tui_put(int y, int x, int w, const char *s, bool pad);
/* Word-wrap @s into at most @max_lines lines of @w cells; returns lines used. */
int tui_wrap(int y, int x, int w, int max_lines, const char *s);
void tui_attr_on(struct tui *t, enum tui_color c);
void tui_attr_off(struct tui *t, enum tui_color c);
void tui_hline(struct tui *t, int y, int x, int w);
void tui_title(struct tui *t, const char *title);
/* A bar of @w cells, @fraction of it full. */
void tui_bar(struct tui *t, int y, int x, int w, double fraction, enum tui_color c);
/* A masked field: one '*' per character of @s, and a cursor when focused. */
void tui_masked(struct tui *t, int y, int x, int w, const struct fdw_secret *s, bool focus);
/* "[x]" / "[ ]" */
const char *tui_checkbox(bool on);
void tui_set_status(struct tui *t, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tui_show_dialog(struct tui *t, const char *title, const char *msg);
/* The engine's sentences start in lower case (they follow "fdewiz: "); alone, capitalised. */
void tui_capitalise(char *s);
/*
 * The only way from one screen to another: runs @s's enter (which is told where the person
 * came from) and shows @s. False when @s was not entered: its enter said no (and may have
 * shown a dialog or gone to another screen itself).
 */
bool tui_go(struct tui *t, enum tui_screen s);
/* Draw the whole screen now (used while the header steps block the loop). */
void tui_redraw(struct tui *t);

/*
 * Text input into @buf (@len bytes used, room for @size with its terminating NUL):
 * Backspace drops the last character whole, a character is added when it fits. Returns
 * true when @k was one of those keys.
 */
bool tui_field_key(char *buf, size_t *len, size_t size, struct tui_key k);
/* Text input into a secret (Ctrl-U clears it): true when @k was an editing key it used. */
bool tui_secret_key(struct fdw_secret *s, struct tui_key k);
void tui_secret_clear(struct fdw_secret *s);

/* What the screens share (session.c). */
void tui_wipe_passphrases(struct tui *t);
void tui_release_plan(struct tui *t);
/* End the erase path: its lock released, the wizard's screens as for encrypting. */
void tui_release_erase(struct tui *t);
/* Show the progress of @job (the screen shows the results once it is complete); a
 * decryption on its own screen. */
void tui_open_job(struct tui *t, const struct fdw_job *job);
/* Ask for the passphrase of @job over the screen, and resume it (resume_prompt.c). */
void tui_prompt_resume(struct tui *t, const struct fdw_job *job);

/*
 * A screen. @enter runs on every arrival, told the screen the person comes from (TUI__COUNT
 * when the wizard opens); it returns false when the screen is not to be shown (it may then
 * have gone elsewhere with tui_go). @poll runs on every turn of the key loop, for every
 * screen; @tick about five times a second while the screen is shown. @hint is the key-hint
 * line at the bottom, untranslated (N_()): tui.c translates and draws it after @draw; when
 * it depends on the screen's state, @hint_of returns it instead (NULL: no hint line).
 * @state_size bytes of state are kept for it in t->state[] (zeroed at the start),
 * @free_state releases what they point to. @text: the screen takes typed text, so '?' is
 * not the help key there.
 */
struct tui_screen_ops {
	bool (*enter)(struct tui *t, enum tui_screen from);
	void (*draw)(struct tui *t);
	void (*key)(struct tui *t, struct tui_key k);
	const char *hint;
	const char *(*hint_of)(const struct tui *t);
	void (*poll)(struct tui *t);
	void (*tick)(struct tui *t);
	size_t state_size;
	void (*free_state)(void *state);
	bool text;
};

/* One per screen file; only tui.c's table names them. */
extern const struct tui_screen_ops tui_screen_start, tui_screen_disks, tui_screen_plan,
	tui_screen_pass, tui_screen_confirm, tui_screen_progress, tui_screen_results,
	tui_screen_recovery, tui_screen_erase, tui_screen_eraseconfirm, tui_screen_erasedone,
	tui_screen_restart, tui_screen_decrypt;

/* Entry point: the wizard on @paths (all disks when @n is 0). Returns an exit code. */
int tui_run(char **paths, int n);

#endif
