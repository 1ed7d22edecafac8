/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reads /proc/cpuinfo and looks up CPU feature flags. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "cpuinfo.h"
#include "fileio.h"

#define CPUINFO_MAX (1024 * 1024)

/* @line (up to @end) starts with @name, then blanks and a colon: the value after it, or NULL. */
static const char *cpuinfo_value(const char *line, const char *end, const char *name)
{
	size_t n = strlen(name);
	const char *p = line + n;

	if ((size_t)(end - line) < n || strncmp(line, name, n) != 0)
		return NULL;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || *p != ':')
		return NULL;
	return p + 1;
}

static bool word_in(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	while (p < end) {
		const char *w;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		w = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		if ((size_t)(p - w) == n && strncmp(w, word, n) == 0)
			return true;
	}
	return false;
}

bool fdw_cpuinfo_has_flag(const char *text, const char *flag)
{
	const char *line = text;

	if (!text || !flag || !*flag)
		return false;
	while (*line) {
		const char *end = strchr(line, '\n'), *v;

		if (!end)
			end = line + strlen(line);
		v = cpuinfo_value(line, end, "flags");
		if (!v)
			v = cpuinfo_value(line, end, "Features");
		/* The first processor block decides; all cores of one machine match. */
		if (v)
			return word_in(v, end, flag);
		line = *end ? end + 1 : end;
	}
	return false;
}

bool fdw_cpuinfo_text_has_aes(const char *text)
{
	return fdw_cpuinfo_has_flag(text, "aes");
}

char *fdw_cpuinfo_read(void)
{
	char *text;
	/* The first processor's block decides (fdw_cpuinfo_has_flag): the start is enough. */
	int rc = fdw_read_file("/proc/cpuinfo", CPUINFO_MAX, FDW_READ_PREFIX, &text, NULL, NULL);

	if (rc) {
		errno = -rc;
		return NULL;
	}
	return text;
}
