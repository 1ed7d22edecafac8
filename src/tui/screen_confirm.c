/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Confirm screen: the summary, and the typed confirmation word that starts the conversion. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/base/base_api.h"
#include "core/convert/convert_api.h"
#include "curses.h"
#include "tui.h"
#include "typed_word.h"

/* The word typed, and why the last one was refused. */
struct confirm_state {
	struct tui_typed_word word;
	char msg[256];
};

/* TRANSLATORS: the word the user types to confirm; keep it short (as in `encrypt`). */
#define CONFIRM_WORD _("YES")

/*
 * What the benchmark will really do: the after-run needs the encrypted volume open, which
 * the engine says is not possible everywhere. Returns the rows used.
 */
static int bench_line(struct tui *t, int y)
{
	const char *closed = fdw_encrypt_closed_why(t->enc);
	char line[512];

	if (!t->bench_baseline || !fdw_encrypt_can_bench(t->enc))
		return tui_wrap(y, 2, COLS - 4, 1, _("- no benchmark;"));
	if (!closed)
		return tui_wrap(y, 2, COLS - 4, 1, _("- the speed is measured before and after;"));
	snprintf(line, sizeof(line), _("- the speed of the plain filesystem is measured "
				       "first, but not after the conversion: %s;"), closed);
	return tui_wrap(y, 2, COLS - 4, 3, line);
}

/* The plan's prediction (kept by the engine for the job), in its one sentence. */
static int predict_line(struct tui *t, int y)
{
	const struct fdw_bench_run *pred = fdw_encrypt_prediction(t->enc);
	char sentence[512], line[640];

	if (!pred || !pred->n_tests)
		return tui_wrap(y, 2, COLS - 4, 1, _("- no prediction of the speed (it was not "
						     "measured);"));
	fdw_predict_sentence(pred, sentence, sizeof(sentence));
	snprintf(line, sizeof(line), _("- expected speed: %s"), sentence);
	return tui_wrap(y, 2, COLS - 4, 2, line);
}

static void confirm_draw(struct tui *t)
{
	struct confirm_state *cs = t->state[TUI_CONFIRM];
	const struct fdw_plan *pl = fdw_encrypt_plan(t->enc);
	char line[PATH_MAX + 256], a[32];
	const char *bg;
	int y = 2, bottom;

	tui_title(t, _("Confirm"));
	snprintf(line, sizeof(line), _("fdewiz will now encrypt %s in place (%s):"), t->address,
		 fdw_strategy_name(pl->strategy));
	y += tui_wrap(y, 2, COLS - 4, 2, line);
	y++;
	snprintf(line, sizeof(line),
		 _("- the encrypted volume will hold %s, cipher %s-%s with a %u-bit key;"),
		 fdw_format_size(pl->volume_size, a, sizeof(a)), pl->cipher, pl->cipher_mode,
		 pl->key_bits);
	y += tui_wrap(y, 2, COLS - 4, 2, line);
	snprintf(line, sizeof(line), _("- a copy of the header goes to %s;"),
		 fdw_encrypt_header_backup(t->enc));
	y += tui_wrap(y, 2, COLS - 4, 2, line);
	y += predict_line(t, y);
	y += bench_line(t, y);
	y += tui_wrap(y, 2, COLS - 4, 1, t->recovery_key ?
		      _("- a recovery key is added in a second slot;") :
		      _("- no recovery key;"));
	if (fdw_encrypt_tpm_pcrs(t->enc))
		y += tui_wrap(y, 2, COLS - 4, 2,
			      _("- once it is done, a key sealed to this computer's TPM opens it at "
				"each start (the passphrase and the recovery key stay);"));
	y += tui_wrap(y, 2, COLS - 4, 2, t->boot_entries ?
		      _("- it opens at boot: an entry in /etc/crypttab, and /etc/fstab lines that "
			"name the partition are changed (old files kept as backups);") :
		      _("- /etc/crypttab and /etc/fstab are not changed;"));
	snprintf(line, sizeof(line), _("Type %s and press Enter to start. Esc goes back; "
				       "nothing has been changed yet."), CONFIRM_WORD);
	/* On a short terminal the field and its message come before the last sentence. */
	bottom = tui_wrap_count(COLS - 4, 2, line) + 4;
	bg = _("- it converts in the background; you can close this screen, and an "
	       "interrupted conversion (even a power cut) resumes where it stopped.");
	if (y + tui_wrap_count(COLS - 4, 3, bg) + 1 + bottom <= LINES - 1)
		y += tui_wrap(y, 2, COLS - 4, 3, bg) + 1;
	else if (y + bottom < LINES - 1)
		y++;
	tui_attr_on(t, TUI_C_WARN);
	y += tui_wrap(y, 2, COLS - 4, 2, line);
	tui_attr_off(t, TUI_C_WARN);
	y++;
	if (cs->msg[0]) {
		tui_attr_on(t, TUI_C_BAD);
		tui_wrap(y + 2, 2, COLS - 4, LINES - y - 3, cs->msg);
		tui_attr_off(t, TUI_C_BAD);
	}
	tui_word_draw(t, &cs->word, y);
}

static void confirm_key(struct tui *t, struct tui_key k)
{
	struct confirm_state *cs = t->state[TUI_CONFIRM];

	if (k.kind == TUI_KEY_ESC) {
		/* Back to the passphrase: it is typed again, the old one is wiped. */
		tui_wipe_passphrases(t);
		tui_word_clear(&cs->word);
		tui_go(t, TUI_PASS);
	} else if (k.kind == TUI_KEY_ENTER) {
		if (tui_word_matches(&cs->word, CONFIRM_WORD)) {
			tui_go(t, TUI_PROGRESS);	/* from here, it starts the conversion */
			return;
		}
		snprintf(cs->msg, sizeof(cs->msg),
			 _("Not confirmed: that was not %s. Nothing was changed."), CONFIRM_WORD);
		tui_word_clear(&cs->word);
	} else {
		tui_word_key(&cs->word, k);
	}
}

static bool confirm_enter(struct tui *t, enum tui_screen from)
{
	struct confirm_state *cs = t->state[TUI_CONFIRM];

	(void)from;
	tui_word_clear(&cs->word);
	cs->msg[0] = '\0';
	return true;
}

const struct tui_screen_ops tui_screen_confirm = {
	.enter = confirm_enter,
	.draw = confirm_draw,
	.key = confirm_key,
	.hint = N_("Enter: start if the word is right  Esc: back"),
	.state_size = sizeof(struct confirm_state),
	.text = true,
};
