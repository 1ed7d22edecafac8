/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A simple, honest estimate of how hard a passphrase is to guess. */
#ifndef FDW_STRENGTH_H
#define FDW_STRENGTH_H

#include <stddef.h>

enum fdw_strength { FDW_STRENGTH_EMPTY, FDW_STRENGTH_WEAK, FDW_STRENGTH_FAIR,
		    FDW_STRENGTH_STRONG };

struct fdw_strength_result {
	enum fdw_strength level;
	double bits;		/* rough guessing entropy */
	const char *advice;	/* one translated sentence */
};

/*
 * Judge @len bytes at @pw (UTF-8, not necessarily NUL-terminated) by length, character
 * classes, repeated and sequential runs, and a short list of very common passwords.
 * Reads the bytes in place; copies nothing.
 */
void fdw_strength_estimate(const char *pw, size_t len, struct fdw_strength_result *r);
/* "weak", "fair", "strong" (translated); "" for an empty passphrase. */
const char *fdw_strength_label(enum fdw_strength level);

#endif
