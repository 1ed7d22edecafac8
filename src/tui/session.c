/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the wizard's screens share: typed secrets, the prepared plan, labels. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "core/base/base_api.h"
#include "tui.h"

bool tui_field_key(char *buf, size_t *len, size_t size, struct tui_key k)
{
	if (k.kind == TUI_KEY_BACKSPACE) {
		/* Drop the last character, whole: a UTF-8 lead byte and its continuations. */
		while (*len > 0) {
			unsigned char c = (unsigned char)buf[--*len];

			buf[*len] = '\0';
			if ((c & 0xc0) != 0x80)
				break;
		}
		return true;
	}
	if (k.kind == TUI_KEY_CHAR) {
		char mb[MB_LEN_MAX];
		mbstate_t st;
		size_t n;

		memset(&st, 0, sizeof(st));
		n = wcrtomb(mb, k.ch, &st);
		if (n != (size_t)-1 && *len + n < size) {
			memcpy(buf + *len, mb, n);
			*len += n;
			buf[*len] = '\0';
		}
		/* The field may hold a passphrase: leave no copy of its characters behind. */
		explicit_bzero(mb, sizeof(mb));
		return true;
	}
	return false;
}

bool tui_secret_key(struct fdw_secret *s, struct tui_key k)
{
	if (k.kind == TUI_KEY_CLEAR) {
		tui_secret_clear(s);
		return true;
	}
	return tui_field_key(s->data, &s->len, s->cap + 1, k);
}

void tui_secret_clear(struct fdw_secret *s)
{
	if (!s)
		return;
	explicit_bzero(s->data, s->cap);
	s->len = 0;
}

void tui_wipe_passphrases(struct tui *t)
{
	tui_secret_clear(t->pass[0]);
	tui_secret_clear(t->pass[1]);
}

void tui_release_plan(struct tui *t)
{
	if (t->enc_open)
		fdw_encrypt_close(t->enc);
	t->enc_open = false;
}

void tui_release_erase(struct tui *t)
{
	if (t->erase.open)
		fdw_erase_close(t->erase.e);
	t->erase.e = NULL;
	t->erase.open = false;
	t->erase.done = false;
	t->erasing = false;
}
