/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `fdewiz pace`: how a conversion shares the disk with other work, changed while it runs. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "core/base/base_api.h"
#include "core/convert/convert_api.h"
#include "core/disk/disk_api.h"
#include "core/state/state_api.h"

static void pace_usage(FILE *out)
{
	fprintf(out, _("Usage: %s pace DEVICE|IMAGE:N auto|gentle|full\n"
		       "How the conversion of DEVICE shares the disk from now on: auto goes at\n"
		       "full speed while the disk is quiet and yields while other work uses it,\n"
		       "gentle always leaves most of the disk to other work, full takes all it\n"
		       "can. A running conversion follows within about a second; a paused one\n"
		       "resumes with it.\n"), fdw_progname);
}

int cmd_pace(int argc, char **argv)
{
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	struct fdw_job job;
	bool recorded;
	int c, pace;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			pace_usage(stdout);
			return FDW_EXIT_OK;
		}
		cli_usage_error("pace");
		return FDW_EXIT_USAGE;
	}
	if (optind != argc - 2 || (pace = fdw_pace_parse(argv[optind + 1])) < 0) {
		if (optind == argc - 2)
			fprintf(stderr, _("%s: unknown pace '%s': auto, gentle or full.\n"),
				fdw_progname, cli_safe(argv[optind + 1]));
		cli_usage_error("pace");
		return FDW_EXIT_USAGE;
	}
	if (fdw_job_for_address(argv[optind], &job, &recorded) != 0 || !recorded) {
		fprintf(stderr, _("%s: %s has no conversion of fdewiz's. Nothing was changed.\n"),
			fdw_progname, cli_safe(argv[optind]));
		return FDW_EXIT_ERROR;
	}
	if (fdw_job_set_pace(&job, (enum fdw_pace)pace) != 0) {
		fprintf(stderr, _("%s: the record of %s could not be written. Nothing was "
				  "changed.\n"), fdw_progname, cli_safe(argv[optind]));
		return FDW_EXIT_ERROR;
	}
	printf(_("%s: pace %s from now on (%s).\n"), cli_safe(argv[optind]),
	       fdw_pace_name((enum fdw_pace)pace), fdw_pace_text((enum fdw_pace)pace));
	return FDW_EXIT_OK;
}
