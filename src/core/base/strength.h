/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A simple, honest estimate of how hard a passphrase is to guess. */
#ifndef FDW_STRENGTH_H
#define FDW_STRENGTH_H

#include <stdbool.h>
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

/*
 * May @len bytes at @pw become the passphrase of a new volume? An empty one never; a weak
 * one only when the person accepted exactly that (@accept_weak): a general "yes, go ahead"
 * does not cover it, since a guessable passphrase undoes the encryption. Returns 0, or
 * -EPERM (weak) / -EINVAL (empty) with one translated sentence in @why saying how it was
 * rated and why; the caller says how to accept it.
 */
int fdw_strength_check_new(const char *pw, size_t len, bool accept_weak, char *why,
			   size_t why_len);

#endif
