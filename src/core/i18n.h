/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Translation macros shared by the engine and the front-ends. */
#ifndef FDW_I18N_H
#define FDW_I18N_H

#include <libintl.h>

#define _(s) dgettext(PACKAGE, s)
#define N_(s) (s)

#endif
