/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The wizard: shared state of its screens, drawing helpers, and the screen functions. */
#ifndef FDW_TUI_H
#define FDW_TUI_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/bench.h"
#include "core/disk.h"
#include "core/encrypt_flow.h"
#include "core/job.h"
#include "core/progress.h"
#include "core/secret.h"

/* Smallest terminal the layout fits. */
#define TUI_MIN_COLS 60
#define TUI_MIN_ROWS 18
/* Longest passphrase the fields take, in bytes. */
#define TUI_PASS_MAX 512
#define TUI_LOG_LINES 8

enum tui_screen {
	TUI_START, TUI_DISKS, TUI_PLAN, TUI_PASS, TUI_CONFIRM, TUI_PROGRESS, TUI_RESULTS,
	TUI_RECOVERY, TUI__COUNT
};

/* Semantic colours (pairs); in monochrome each maps to an attribute. */
enum tui_color {
	TUI_C_NORMAL, TUI_C_TITLE, TUI_C_GOOD, TUI_C_BAD, TUI_C_WARN, TUI_C_SELECT,
	TUI_C_DIM, TUI_C_BAR_PLAIN, TUI_C_BAR_ENC, TUI_C_KEY, TUI_C__COUNT
};

/* A row of the disks tree: a disk (part < 0) or one of its partitions. */
struct tui_row {
	int disk, part;
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
	char dialog[1024];		/* a modal message, any key closes it */
	char dialog_title[128];
	bool help;
	char log[TUI_LOG_LINES][160];	/* engine warnings while curses owns the screen */
	unsigned n_log;

	/* What the wizard was opened on: named disks or images, or all disks. */
	char **paths;
	int n_paths;

	/* Start: unfinished conversions. */
	struct fdw_job *jobs;
	struct fdw_progress *job_progress;
	size_t n_jobs, job_sel;

	/* Disks. */
	struct fdw_disk *disks;
	size_t n_disks;
	char scan_errors[1024];
	struct tui_row *tree;
	size_t n_tree, sel, top;

	/* Plan: the prepared conversion holds the partition's lock until it is closed. */
	struct fdw_encrypt enc;
	bool enc_open;
	char address[PATH_MAX];
	char cipher_spec[48];
	char cipher_why[256];
	bool cipher_recommended;
	bool bench_baseline;
	bool fast_pbkdf;
	bool boot_entries;		/* crypttab (and fstab) entries once the header is on */
	int plan_focus;			/* 0: the benchmark box; 1: the boot box */

	/* Passphrase. */
	struct fdw_secret *pass[2];
	int pass_focus;			/* 0, 1: the fields; 2: the recovery key box */
	bool recovery_key;
	char pass_msg[256];

	/* Recovery key: made before the header steps, shown once, then wiped. */
	struct fdw_secret *recovery;
	bool recovery_quit_asked;

	/* Confirm. */
	char confirm[64];
	size_t confirm_len;
	char confirm_msg[256];

	/* Progress. */
	struct fdw_job job;
	bool have_job;
	struct fdw_progress prog;
	bool have_prog;
	/*
	 * The header steps (and the baseline benchmark) run in a thread of their own, so the
	 * screen keeps refreshing and resizing; curses stays in the main thread.
	 */
	int begin_phase;		/* while they run: the phase (atomic), else -1 */
	pthread_t begin_thread;
	bool begin_running;
	int begin_done;			/* atomic: the thread has finished */
	int begin_rc;
	char begin_why[1024];
	char progress_msg[1024];
	char boot_msg[1024];		/* what the boot entries step did */
	bool boot_failed;
	char recovery_msg[512];		/* set in the header thread: the key was not added */

	/* Results: the benchmark before and after, when saved. */
	struct fdw_bench_run *bench[2];
	size_t res_top;

	/* The masked prompt (resume). */
	enum tui_prompt_for prompt;
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
int tui_width(const char *s);
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
/* How many lines tui_wrap() would use for @s in @w cells (at most @max_lines). */
int tui_wrap_count(int w, int max_lines, const char *s);
void tui_set_status(struct tui *t, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tui_show_dialog(struct tui *t, const char *title, const char *msg);
void tui_go(struct tui *t, enum tui_screen s);
/* Draw the whole screen now (used while the header steps block the loop). */
void tui_redraw(struct tui *t);

/* Text input into a secret: returns true when @ch was an editing key it used. */
bool tui_secret_key(struct fdw_secret *s, int ch, bool is_key);
void tui_secret_clear(struct fdw_secret *s);

/* Shared engine glue. */
int tui_scan(struct tui *t);
void tui_wipe_passphrases(struct tui *t);
void tui_release_plan(struct tui *t);
void tui_open_job(struct tui *t, const struct fdw_job *job);
void tui_prompt_resume(struct tui *t, const struct fdw_job *job);
const char *tui_phase_label(const char *key);
const char *tui_state_label(enum fdw_job_state s);

void start_load(struct tui *t);
/* Prepare the conversion of @address and open the plan; false (with a dialog) if not. */
bool plan_enter(struct tui *t, const char *address);
/* After the typed confirmation: make room, write the header, start the worker. */
void progress_start(struct tui *t);
/* In the main loop: when the header steps have finished, launch the worker. */
void progress_begin_poll(struct tui *t);
void results_enter(struct tui *t);

/* Screens: each draws from state and takes keys (@is_key: a KEY_* code). */
void start_draw(struct tui *t);
void start_key(struct tui *t, int ch, bool is_key);
void disks_draw(struct tui *t);
void disks_key(struct tui *t, int ch, bool is_key);
void plan_draw(struct tui *t);
void plan_key(struct tui *t, int ch, bool is_key);
void pass_draw(struct tui *t);
void pass_key(struct tui *t, int ch, bool is_key);
void confirm_draw(struct tui *t);
void confirm_key(struct tui *t, int ch, bool is_key);
void progress_draw(struct tui *t);
void progress_key(struct tui *t, int ch, bool is_key);
void progress_tick(struct tui *t);
void results_draw(struct tui *t);
void results_key(struct tui *t, int ch, bool is_key);
void recovery_draw(struct tui *t);
void recovery_key(struct tui *t, int ch, bool is_key);
/* Why the boot box cannot be ticked for the planned partition, or NULL when it can. */
const char *plan_boot_unavailable(const struct tui *t);

/* Entry point: the wizard on @paths (all disks when @n is 0). Returns an exit code. */
int tui_run(char **paths, int n);

#endif
