/* Plan screen: exactly what will happen, the cipher and why, and the baseline benchmark. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/bench_cipher.h"
#include "core/i18n.h"
#include "core/units.h"
#include "curses.h"
#include "tui.h"

void tui_release_plan(struct tui *t)
{
	if (t->enc_open)
		fdw_encrypt_close(&t->enc);
	t->enc_open = false;
}

bool plan_enter(struct tui *t, const char *address)
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
	snprintf(t->address, sizeof(t->address), "%s", address);
	rc = fdw_encrypt_prepare(&t->enc, address, &o, why, sizeof(why));
	if (rc) {
		fdw_encrypt_close(&t->enc);
		tui_show_dialog(t, _("Cannot encrypt"), why);
		tui_scan(t);
		return false;
	}
	t->enc_open = true;
	tui_go(t, TUI_PLAN);
	return true;
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
	case FDW_STRATEGY_DETACHED:
		return _("detached header: the header lives in a file on another disk; the data "
			 "does not move.");
	default:
		return "";
	}
}

void plan_draw(struct tui *t)
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
	snprintf(v, sizeof(v), _("%s now, at most %s before encryption"),
		 pl->fs_size_before >= 0 ? fdw_format_size((uint64_t)pl->fs_size_before, a,
							   sizeof(a)) : "?",
		 fdw_format_size(pl->fs_size_max, b, sizeof(b)));
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
	if (t->cipher_why[0]) {
		tui_attr_on(t, TUI_C_DIM);
		y += tui_wrap(y, 3 + lw, COLS - 4 - lw, 2, t->cipher_why);
		tui_attr_off(t, TUI_C_DIM);
	}
	snprintf(v, sizeof(v), _("%u bytes"), pl->sector_size);
	y += field(t, y, lw, labels[7], v, 1);
	y++;
	snprintf(v, sizeof(v), "%s %s", tui_checkbox(t->bench_baseline),
		 _("Measure the speed before and after (a quick benchmark of the plain "
		   "filesystem first)"));
	tui_attr_on(t, TUI_C_SELECT);
	tui_put(y, 2, 4, tui_checkbox(t->bench_baseline), false);
	tui_attr_off(t, TUI_C_SELECT);
	y += tui_wrap(y, 6, COLS - 8, 2, strchr(v, ']') + 2);
	if (y < LINES - 2) {
		tui_attr_on(t, TUI_C_DIM);
		tui_wrap(y + 1, 2, COLS - 4, LINES - 2 - y - 1,
			 _("Nothing has been changed yet. The next steps ask for the passphrase "
			   "and a typed confirmation."));
		tui_attr_off(t, TUI_C_DIM);
	}
	tui_attr_on(t, TUI_C_DIM);
	tui_put(LINES - 1, 0, COLS, _("Space: toggle the benchmark  Enter: continue  Esc: back  "
				      "q: quit"), true);
	tui_attr_off(t, TUI_C_DIM);
}

void plan_key(struct tui *t, int ch, bool is_key)
{
	if (!is_key && ch == ' ') {
		t->bench_baseline = !t->bench_baseline;
		t->enc.bench_baseline = t->bench_baseline;
	} else if ((is_key && ch == KEY_ENTER) || (!is_key && (ch == '\r' || ch == '\n'))) {
		tui_wipe_passphrases(t);
		t->pass_msg[0] = '\0';
		tui_go(t, TUI_PASS);
	} else if ((!is_key && (ch == 27 || ch == 127 || ch == 8)) ||
		   (is_key && ch == KEY_BACKSPACE)) {
		/* Nothing changed: the disks are as they were, the selection too. */
		tui_release_plan(t);
		tui_go(t, TUI_DISKS);
	} else if (!is_key && ch == 'q') {
		t->quit = true;
	}
}
