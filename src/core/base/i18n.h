/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Translation macros shared by the engine and the front-ends. */
#ifndef FDW_I18N_H
#define FDW_I18N_H

#include <libintl.h>

#define _(s) dgettext(PACKAGE, s)
#define N_(s) (s)

/*
 * A string read back from a file (a saved test title) in the user's language when the
 * catalogue knows it. Never dgettext(""), which answers with the catalogue's header.
 */
static inline const char *fdw_gettext_read(const char *s)
{
	return s && s[0] ? dgettext(PACKAGE, s) : "";
}

#endif
