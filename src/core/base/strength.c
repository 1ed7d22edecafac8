/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Passphrase strength: length, character classes, runs and a list of very common ones. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "i18n.h"
#include "strength.h"

/* Below these many bits of guessing entropy a passphrase is weak, or only fair. */
#define WEAK_BITS 45.0
#define FAIR_BITS 75.0
#define MIN_CHARS 8

/* Lower case; trailing digits and symbols are ignored when comparing ("Password123!"). */
static const char *const common[] = {
	"password", "passw0rd", "p@ssw0rd", "123456", "12345678", "123456789", "1234567890",
	"qwerty", "qwertyuiop", "qwertz", "azerty", "abc123", "letmein", "welcome", "admin",
	"iloveyou", "monkey", "dragon", "football", "baseball", "master", "sunshine",
	"princess", "shadow", "superman", "trustno1", "secret", "changeme", "default",
	"hunter", "root", "toor", "linux", "ubuntu", "debian", "test", "guest", "qazwsx",
	"asdfgh", "asdfghjkl", "zxcvbnm", "111111", "000000", "666666", "654321", "pass",
};

/* Does @pw (minus trailing digits and symbols) equal a common password, ignoring case? */
static bool is_common(const char *pw, size_t len)
{
	size_t core = len;

	while (core > 0 && !isalpha((unsigned char)pw[core - 1]))
		core--;
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++) {
		size_t n = strlen(common[i]);

		if ((n == len || n == core) && !strncasecmp(pw, common[i], n))
			return true;
	}
	return false;
}

/* log2(@pool) for the pool sizes the classes add up to, without libm. */
static double bits_per_char(unsigned pool)
{
	double bits = 0, x = pool;

	while (x >= 2) {
		x /= 2;
		bits += 1;
	}
	/* log2(x) for x in [1, 2): a quadratic within 0.01 bit. */
	return bits + (x - 1) * (1.3465 - 0.3465 * (x - 1));
}

enum cls { CLS_LOWER = 1, CLS_UPPER = 2, CLS_DIGIT = 4, CLS_SYMBOL = 8, CLS_OTHER = 16 };

static unsigned class_of(unsigned char c)
{
	if (c >= 0x80)
		return CLS_OTHER;
	if (islower(c))
		return CLS_LOWER;
	if (isupper(c))
		return CLS_UPPER;
	if (isdigit(c))
		return CLS_DIGIT;
	return CLS_SYMBOL;
}

void fdw_strength_estimate(const char *pw, size_t len, struct fdw_strength_result *r)
{
	unsigned classes = 0, pool = 0;
	double effective = 0;
	size_t chars = 0, runs = 0;
	int prev = -1, d, last_d = 0x7fff;

	r->bits = 0;
	if (len == 0) {
		r->level = FDW_STRENGTH_EMPTY;
		r->advice = _("Type a passphrase.");
		return;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)pw[i];

		if ((c & 0xc0) == 0x80)	/* UTF-8 continuation byte: part of the last char */
			continue;
		chars++;
		classes |= class_of(c);
		/* A character that repeats the last one, or continues a sequence ("abc",
		 * "321"), adds little: an attacker tries those patterns early. */
		d = prev >= 0 && c < 0x80 ? (int)c - prev : 0x7fff;
		if (d == 0 || ((d == 1 || d == -1) && d == last_d)) {
			effective += 0.25;
			runs++;
		} else if (d == 1 || d == -1) {
			effective += 0.5;
			runs++;
		} else {
			effective += 1.0;
		}
		last_d = d;
		prev = c < 0x80 ? c : -1;
	}
	if (classes & CLS_LOWER)
		pool += 26;
	if (classes & CLS_UPPER)
		pool += 26;
	if (classes & CLS_DIGIT)
		pool += 10;
	if (classes & CLS_SYMBOL)
		pool += 33;
	if (classes & CLS_OTHER)
		pool += 100;
	r->bits = effective * bits_per_char(pool);

	if (is_common(pw, len)) {
		r->bits = r->bits < 10 ? r->bits : 10;
		r->level = FDW_STRENGTH_WEAK;
		r->advice = _("This is one of the most common passwords; it is tried first.");
	} else if (chars < MIN_CHARS) {
		r->level = FDW_STRENGTH_WEAK;
		r->advice = _("Too short: use at least 12 characters, or several unrelated words.");
	} else if (r->bits < WEAK_BITS && runs * 2 >= chars) {
		r->level = FDW_STRENGTH_WEAK;
		r->advice = _("Repeated or sequential characters add little; use several "
			      "unrelated words.");
	} else if (r->bits < WEAK_BITS) {
		r->level = FDW_STRENGTH_WEAK;
		r->advice = _("Easy to guess: make it longer, for example several unrelated "
			      "words.");
	} else if (r->bits < FAIR_BITS) {
		r->level = FDW_STRENGTH_FAIR;
		r->advice = _("Fair: one or two more words would make it much harder to guess.");
	} else {
		r->level = FDW_STRENGTH_STRONG;
		r->advice = _("Strong: hard to guess. Keep it safe: without it the data is lost.");
	}
}

const char *fdw_strength_label(enum fdw_strength level)
{
	switch (level) {
	case FDW_STRENGTH_WEAK:
		return _("weak");
	case FDW_STRENGTH_FAIR:
		return _("fair");
	case FDW_STRENGTH_STRONG:
		return _("strong");
	default:
		return "";
	}
}

int fdw_strength_check_new(const char *pw, size_t len, bool accept_weak, char *why,
			   size_t why_len)
{
	struct fdw_strength_result r;

	fdw_strength_estimate(pw, len, &r);
	if (r.level == FDW_STRENGTH_EMPTY) {
		snprintf(why, why_len, _("the passphrase is empty"));
		return -EINVAL;
	}
	if (r.level != FDW_STRENGTH_WEAK || accept_weak)
		return 0;
	snprintf(why, why_len, _("the passphrase is rated weak (about %.0f bits: someone who "
				 "gets the disk could guess it, and then read everything on "
				 "it). %s"), r.bits, r.advice);
	return -EPERM;
}
