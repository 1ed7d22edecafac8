/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Escaping of outside text for terminals: control bytes and invalid UTF-8 become "\xHH". */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "textsafe.h"

/* Length of the valid UTF-8 sequence at @s (at most @n bytes) and its code point, or 0. */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t need, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	} else if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < need)
		return 0;
	for (i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates and code points past U+10FFFF are invalid. */
	if ((need == 3 && c < 0x800) || (need == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return need;
}

/* Code points that a terminal acts on, or that reorder what is shown around them. */
static bool unsafe_code_point(uint32_t c)
{
	return c < 0x20 || c == 0x7f || c == '\\' || (c >= 0x80 && c <= 0x9f) ||
	       (c >= 0x200e && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069) || c == 0xfeff;
}

size_t fdw_text_escape(const char *in, char *out, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)(in ? in : "");
	size_t n = strlen((const char *)s), pos = 0, need = 0;
	bool full = false;

	while (n) {
		char piece[16];
		size_t plen = 0, used;
		uint32_t cp;

		used = utf8_decode(s, n, &cp);
		if (used && !unsafe_code_point(cp)) {
			memcpy(piece, s, used);
			plen = used;
		} else {
			if (!used)
				used = 1;
			for (size_t i = 0; i < used; i++) {
				piece[plen++] = '\\';
				piece[plen++] = 'x';
				piece[plen++] = hex[s[i] >> 4];
				piece[plen++] = hex[s[i] & 0xf];
			}
		}
		if (!full && len && pos + plen < len) {
			memcpy(out + pos, piece, plen);
			pos += plen;
		} else {
			full = true;
		}
		need += plen;
		s += used;
		n -= used;
	}
	if (len)
		out[pos] = '\0';
	return need;
}

const char *fdw_text_safe(const char *in, char *out, size_t len)
{
	fdw_text_escape(in, out, len);
	return out;
}
