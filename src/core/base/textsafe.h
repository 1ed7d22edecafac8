/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Outside text (labels, partition names, models, paths) made safe to show on a terminal. */
#ifndef FDW_TEXTSAFE_H
#define FDW_TEXTSAFE_H

#include <stddef.h>

/*
 * Copy @in to @out (@len bytes, always terminated when @len > 0) with every byte that a
 * terminal could act on written as "\xHH", as lsblk does: C0 controls, DEL, the C1 controls
 * (U+0080..U+009F), bidirectional overrides, a backslash itself (so the escape cannot be
 * faked), and every byte of invalid UTF-8. Valid printable UTF-8 (Cyrillic, CJK) is kept.
 * Output is cut only between whole characters or escapes. NULL reads as "".
 * Returns the length the full result needs (without the terminator), like snprintf.
 */
size_t fdw_text_escape(const char *in, char *out, size_t len);

/* fdw_text_escape() returning @out, for use inside a printf argument list. */
const char *fdw_text_safe(const char *in, char *out, size_t len);

#endif
