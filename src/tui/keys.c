/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The one key decoder: curses input (wide characters, key codes, resize) into a small enum. */
#include "config.h"

#include "curses.h"
#include "tui.h"

/* Curses key codes the wizard acts on, and what they mean to it. */
static const struct {
	int code;
	enum tui_key_kind kind;
} key_codes[] = {
	{ KEY_ENTER, TUI_KEY_ENTER },	{ KEY_UP, TUI_KEY_UP },
	{ KEY_DOWN, TUI_KEY_DOWN },	{ KEY_HOME, TUI_KEY_HOME },
	{ KEY_END, TUI_KEY_END },	{ KEY_PPAGE, TUI_KEY_PAGE_UP },
	{ KEY_NPAGE, TUI_KEY_PAGE_DOWN }, { KEY_BTAB, TUI_KEY_BACKTAB },
	{ KEY_BACKSPACE, TUI_KEY_BACKSPACE }, { KEY_RESIZE, TUI_KEY_RESIZE },
};

struct tui_key tui_key_decode(int rc, wint_t wc)
{
	struct tui_key k = { TUI_KEY_NONE, 0 };

	if (rc == ERR)
		return k;
	k.kind = TUI_KEY_OTHER;
	if (rc == KEY_CODE_YES) {
		for (size_t i = 0; i < sizeof(key_codes) / sizeof(key_codes[0]); i++)
			if (key_codes[i].code == (int)wc)
				k.kind = key_codes[i].kind;
		return k;
	}
	switch (wc) {
	case L'\n':
	case L'\r':
		k.kind = TUI_KEY_ENTER;
		break;
	case 27:
		k.kind = TUI_KEY_ESC;
		break;
	case L'\t':
		k.kind = TUI_KEY_TAB;
		break;
	case 127:
	case 8:
		k.kind = TUI_KEY_BACKSPACE;
		break;
	case 21:		/* Ctrl-U */
		k.kind = TUI_KEY_CLEAR;
		break;
	case 12:		/* Ctrl-L */
		k.kind = TUI_KEY_REPAINT;
		break;
	default:
		if (wc >= 0x20) {
			k.kind = TUI_KEY_CHAR;
			k.ch = (wchar_t)wc;
		}
	}
	return k;
}
