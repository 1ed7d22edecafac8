/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What every cmocka unit test starts with: config.h first, the headers cmocka.h needs
 * before it (in this order), cmocka itself, and what more than one test shares.
 * A test includes this first, then the system headers and the engine headers it uses.
 */
#ifndef FDW_TESTS_UNIT_H
#define FDW_TESTS_UNIT_H

#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#define MIB 1048576ULL

/* unit_data(NAME): the whole of tests/unit/data/luks2/NAME (a captured LUKS2 header's
 * JSON), NUL-terminated, from the source tree make check names (FDEWIZ_SRCDIR) or the
 * current directory; the caller frees it. Any failure fails the test. */
static inline char *unit_data(const char *name)
{
	const char *top = getenv("FDEWIZ_SRCDIR");
	char path[4096];
	char *buf;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/unit/data/luks2/%s", top ? top : ".", name);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

#endif
