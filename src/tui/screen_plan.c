/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Plan screen: exactly what will happen, the cipher and why, and the baseline benchmark. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bench_cipher.h"
#include "core/i18n.h"
#include "core/system_boot.h"
#include "core/textsafe.h"
#include "core/units.h"
#include "curses.h"
#include "tui.h"

/* Prepare the conversion of @address; false (with a dialog) if it cannot be. */
static bool plan_enter(struct tui *t, const char *address)
{
	struct fdw_encrypt_options o;
	struct fdw_cipher_advice a;
	char why[512] = "";
	int rc;

	tui_release_plan(t);
	memset(&o, 0, sizeof(o));
	memset(&a, 0, sizeof(a));
	/* The advice is filled in even when the CPU cannot be read. */
	fdw_cipher_recommend(&a);
	t->cipher_recommended = a.cipher[0] && a.mode[0];
	if (t->cipher_recommended) {
		snprintf(t->cipher_spec, sizeof(t->cipher_spec), "%s-%s", a.cipher, a.mode);
		snprintf(t->cipher_why, sizeof(t->cipher_why), "%s", a.why);
		o.rq.cipher_spec = t->cipher_spec;
		o.rq.key_bits = a.key_bits;
	}
	o.fast_pbkdf = t->fast_pbkdf;
	o.bench_baseline = t->bench_baseline;
	/* Test-only: a benchmark scale for emulated machines ("tiny"); unknown ones are ignored. */
	o.bench_scale = getenv("FDEWIZ_TEST_BENCH_SCALE");
	snprintf(t->address, sizeof(t->address), "%s", address);
	rc = fdw_encrypt_prepare(&t->enc, address, &o, why, sizeof(why));
	if (rc) {
		fdw_encrypt_close(&t->enc);
		tui_show_dialog(t, _("Cannot encrypt"), why);
		return false;
	}
	t->enc_open = true;
	/* Each plan starts with the boot box off: it changes this system's files. */
	t->boot_entries = false;
	t->plan_focus = 0;
	return true;
}

/* Test-only: a benchmark scale for emulated machines ("tiny"), once the plan is made. */
static void test_bench_scale(struct tui *t)
{
	const char *scale = getenv("FDEWIZ_TEST_BENCH_SCALE");
	enum fdw_bench_scale parsed;

	if (t->enc_open && fdw_bench_scale_parse(scale, &parsed) == 0)
		snprintf(t->enc.bench_scale, sizeof(t->enc.bench_scale), "%s", scale);
}

static bool plan_open(struct tui *t, enum tui_screen from)
{
	/* From the disks: a new plan; back from the passphrase: the same one. */
	if (from == TUI_DISKS && !plan_enter(t, t->chosen)) {
		tui_go(t, TUI_DISKS);	/* read again: what refused may have changed */
		return false;
	}
	test_bench_scale(t);
	return true;
}

/* Why the boot box cannot be ticked for the planned partition, or NULL when it can. */
static const char *plan_boot_unavailable(const struct tui *t)
{
	if (!t->enc_open)
		return _("No partition is planned.");
	/* The wizard writes this system's own files: its root is "/". */
	return fdw_encrypt_boot_unavailable(&t->enc, "/");
}

/* "label   value" with labels padded to @lw cells; returns the rows used. */
static int field(struct tui *t, int y, int lw, const char *label, const char *value, int lines)
{
	tui_attr_on(t, TUI_C_KEY);
	tui_put(y, 2, lw, label, true);
	tui_attr_off(t, TUI_C_KEY);
	return tui_wrap(y, 3 + lw, COLS - 4 - lw, lines, value);
}

static const char *strategy_sentence(const struct fdw_plan *pl)
{
	switch (pl->strategy) {
	case FDW_STRATEGY_SHRINK:
		return _("shrink: the filesystem gives up 32 MiB at its end; the data moves up "
			 "to make room for the header at the start.");
	case FDW_STRATEGY_GROW:
		return _("grow: the partition grows into the free space right after it; the "
			 "filesystem is not touched.");
	case FDW_STRATEGY_FREE_TAIL:
		return _("free tail: the filesystem already ends before the last 32 MiB of the "
			 "partition; nothing is resized and nothing grows back afterwards.");
	case FDW_STRATEGY_DETACHED:
		return _("detached header: the header lives in a file on another disk; the data "
			 "does not move.");
	default:
		return "";
	}
}

static const char *bench_text(void)
{
	return _("Measure the speed before and after (a quick benchmark of the plain "
		 "filesystem first)");
}

static const char *boot_text(void)
{
	return _("Open this volume at boot (add it to /etc/crypttab and adjust /etc/fstab)");
}

/* Rows the two boxes take (with the reason the boot box is greyed out). */
static int boxes_height(const struct tui *t)
{
	const char *why = plan_boot_unavailable(t);

	return tui_wrap_count(COLS - 8, 2, bench_text()) +
	       tui_wrap_count(COLS - 8, 2, boot_text()) +
	       (why ? tui_wrap_count(COLS - 8, 2, why) : 0);
}

/* One box at @y: "[x] text", the box highlighted when focused. Returns the rows used. */
static int draw_box_line(struct tui *t, int y, bool on, bool focus, bool grey, const char *text)
{
	int n;

	if (y >= LINES - 1)
		return 0;
	tui_attr_on(t, focus ? TUI_C_SELECT : grey ? TUI_C_DIM : TUI_C_NORMAL);
	tui_put(y, 2, 4, grey ? "[-]" : tui_checkbox(on), false);
	tui_attr_off(t, focus ? TUI_C_SELECT : grey ? TUI_C_DIM : TUI_C_NORMAL);
	if (grey)
		tui_attr_on(t, TUI_C_DIM);
	n = tui_wrap(y, 6, COLS - 8, LINES - 1 - y < 2 ? LINES - 1 - y : 2, text);
	if (grey)
		tui_attr_off(t, TUI_C_DIM);
	return n;
}

static int draw_boxes(struct tui *t, int y0)
{
	const char *why = plan_boot_unavailable(t);
	int y = y0;

	y += draw_box_line(t, y, t->bench_baseline, t->plan_focus == 0, false, bench_text());
	y += draw_box_line(t, y, t->boot_entries, t->plan_focus == 1, why != NULL, boot_text());
	if (why && y < LINES - 1) {
		tui_attr_on(t, TUI_C_DIM);
		y += tui_wrap(y, 6, COLS - 8, LINES - 1 - y < 2 ? LINES - 1 - y : 2, why);
		tui_attr_off(t, TUI_C_DIM);
	}
	return y - y0;
}

/* An installed system's root: what is done in it after the conversion, one line. */
static int system_steps(struct tui *t, int y, int lw, const char *label)
{
	char name[64], steps[2048], safe[4096];

	fdw_system_boot_name(&t->enc.target, name, sizeof(name));
	fdw_system_boot_steps(&t->enc.target.part->os, name, steps, sizeof(steps));
	for (char *c = steps; *c; c++)
		if (*c == '\n')
			*c = ';';
	return field(t, y, lw, label, fdw_text_safe(steps, safe, sizeof(safe)), 6);
}

static void plan_draw(struct tui *t)
{
	const struct fdw_plan *pl = &t->enc.plan;
	const struct fdw_partition *p = t->enc.target.part;
	const char *labels[] = { _("Partition"), _("Strategy"), _("Header"), _("Filesystem"),
				 _("Free space used"), _("Encrypted volume"), _("Cipher"),
				 _("Sector size") };
	char title[PATH_MAX + 64], v[PATH_MAX + 256], a[32], b[32];
	int lw = 0, y = 2;

	snprintf(title, sizeof(title), _("Plan for %s"), t->address);
	tui_title(t, title);
	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (tui_width(labels[i]) > lw)
			lw = tui_width(labels[i]);
	lw += 1;

	snprintf(v, sizeof(v), "%s, %s %s%s%s", p->address,
		 fdw_format_size(p->size, a, sizeof(a)), p->fstype ? p->fstype : "",
		 p->label ? _(", label ") : "", p->label ? p->label : "");
	y += field(t, y, lw, labels[0], v, 1);
	y += field(t, y, lw, labels[1], strategy_sentence(pl), 2);
	if (pl->detached_header)
		snprintf(v, sizeof(v), _("in the file %s (keep it safe, off this disk)"),
			 pl->detached_header);
	else
		snprintf(v, sizeof(v), _("%s at the start of the partition"),
			 fdw_format_size(pl->header_bytes, a, sizeof(a)));
	y += field(t, y, lw, labels[2], v, 1);
	fdw_format_size(pl->fs_size_max, b, sizeof(b));
	if (pl->fs_size_before < 0)
		snprintf(a, sizeof(a), "?");
	else
		fdw_format_size((uint64_t)pl->fs_size_before, a, sizeof(a));
	/* "2.7 GiB now, at most 2.7 GiB" says nothing: show the 32 MiB in whole MiB. */
	if (!strcmp(a, b) && pl->fs_size_before >= 0) {
		snprintf(a, sizeof(a), "%llu MiB",
			 (unsigned long long)((uint64_t)pl->fs_size_before >> 20));
		snprintf(b, sizeof(b), "%llu MiB", (unsigned long long)(pl->fs_size_max >> 20));
	}
	snprintf(v, sizeof(v), _("%s now, at most %s before encryption"), a, b);
	y += field(t, y, lw, labels[3], v, 1);
	if (pl->grow_bytes)
		snprintf(v, sizeof(v), _("%s of the free space after the partition"),
			 fdw_format_size(pl->grow_bytes, a, sizeof(a)));
	else
		snprintf(v, sizeof(v), "%s", _("none"));
	y += field(t, y, lw, labels[4], v, 1);
	y += field(t, y, lw, labels[5], fdw_format_size(pl->volume_size, a, sizeof(a)), 1);
	snprintf(v, sizeof(v), _("%s-%s, %u-bit key%s"), pl->cipher, pl->cipher_mode,
		 pl->key_bits, t->cipher_recommended ? _(" (recommended)") : "");
	y += field(t, y, lw, labels[6], v, 1);
	if (t->cipher_why[0] && y + tui_wrap_count(COLS - 4 - lw, 2, t->cipher_why) + 2 +
	    boxes_height(t) <= LINES - 1) {
		tui_attr_on(t, TUI_C_DIM);
		y += tui_wrap(y, 3 + lw, COLS - 4 - lw, 2, t->cipher_why);
		tui_attr_off(t, TUI_C_DIM);
	}
	snprintf(v, sizeof(v), _("%u bytes"), pl->sector_size);
	y += field(t, y, lw, labels[7], v, 1);
	if (p->os.found)
		y += system_steps(t, y, lw, _("Boot setup"));
	y++;
	y += draw_boxes(t, y);
	if (y < LINES - 2) {
		tui_attr_on(t, TUI_C_DIM);
		tui_wrap(y + 1, 2, COLS - 4, LINES - 2 - y - 1,
			 _("Nothing has been changed yet. The next steps ask for the passphrase "
			   "and a typed confirmation."));
		tui_attr_off(t, TUI_C_DIM);
	}
	tui_attr_on(t, TUI_C_DIM);
	tui_put(LINES - 1, 0, COLS, _("Tab: next box  Space: toggle  Enter: continue  e: erase "
				      "instead  Esc: back  q: quit"), true);
	tui_attr_off(t, TUI_C_DIM);
}

static void plan_key(struct tui *t, struct tui_key k)
{
	if (tui_key_is(k, ' ')) {
		if (t->plan_focus == 0) {
			t->bench_baseline = !t->bench_baseline;
			fdw_encrypt_set_bench(&t->enc, t->bench_baseline, NULL);
		} else if (plan_boot_unavailable(t)) {
			t->boot_entries = false;
			tui_set_status(t, false, "%s", plan_boot_unavailable(t));
		} else {
			t->boot_entries = !t->boot_entries;
		}
	} else if (k.kind == TUI_KEY_TAB || k.kind == TUI_KEY_DOWN || k.kind == TUI_KEY_UP ||
		   k.kind == TUI_KEY_BACKTAB) {
		t->plan_focus = !t->plan_focus;
	} else if (k.kind == TUI_KEY_ENTER) {
		tui_go(t, TUI_PASS);
	} else if (k.kind == TUI_KEY_ESC || k.kind == TUI_KEY_BACKSPACE) {
		/* Nothing changed: the disks are as they were, the selection too. */
		tui_release_plan(t);
		tui_go(t, TUI_DISKS);
	} else if (tui_key_is(k, 'e')) {
		/* Erase and encrypt instead (for a reinstall): the plan's lock is let go there. */
		tui_go(t, TUI_ERASE);
	} else if (tui_key_is(k, 'q')) {
		t->quit = true;
	}
}

const struct tui_screen_ops tui_screen_plan = {
	.enter = plan_open,
	.draw = plan_draw,
	.key = plan_key,
};
