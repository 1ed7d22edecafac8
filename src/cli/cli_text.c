/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What every command prints with: the program's name, outside text made safe for the
 * terminal, and the usage error. Apart from main.c, which calls the commands. */
#include "config.h"

#include <stdio.h>

#include "cli.h"
#include "core/base/base_api.h"

const char *fdw_progname = "fdewiz";

const char *cli_safe(const char *s)
{
	static char ring[8][4 * 1024];
	static unsigned next;
	char *buf = ring[next++ % 8];

	return fdw_text_safe(s, buf, sizeof(ring[0]));
}

static bool info_shown, progress_pending;

void cli_show_info(void)
{
	info_shown = true;
}

bool cli_info_shown(void)
{
	return info_shown;
}

void cli_progress_pending(bool pending)
{
	progress_pending = pending;
}

void cli_line_break(void)
{
	if (progress_pending)
		fputc('\n', stderr);
	progress_pending = false;
}

void cli_usage_error(const char *command)
{
	fprintf(stderr, _("%s: wrong usage. Nothing was changed. See '%s %s%s--help'.\n"),
		fdw_progname, fdw_progname, command ? command : "", command ? " " : "");
}
