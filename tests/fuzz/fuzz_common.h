/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helpers shared by the fuzz harnesses: the input as a C string or as a file. */
#ifndef FDW_FUZZ_COMMON_H
#define FDW_FUZZ_COMMON_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The input with a terminating NUL (parsers of text files see a C string). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* The input as a file in memory; its path in @path ("/proc/self/fd/N"). The fd or -1. */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz-input", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
