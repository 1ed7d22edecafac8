/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `fdewiz list`: scan the named disks and images (or all disks) and show them. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/base/base_api.h"

static void list_usage(FILE *out)
{
	fprintf(out, _("Usage: %s list [--json] [DEVICE|IMAGE ...]\n"
		       "Show disks and disk images, their partitions, and whether each can be "
		       "encrypted in place.\n"
		       "  --json   machine-readable output (schema: fdewiz-list.schema.json)\n"),
		fdw_progname);
}

static char *scan_error_text(int err)
{
	return strdup(fdw_scan_error_text(err));
}

void cli_report_scan_error(const char *path, int err)
{
	char *msg = scan_error_text(err);

	fprintf(stderr, _("%s: %s: %s. Nothing was changed.\n"), fdw_progname, path,
		msg ? msg : strerror(-err));
	free(msg);
}

static int list_named(char **paths, int n, bool json)
{
	struct fdw_disk *disks = calloc((size_t)n, sizeof(*disks));
	struct list_error *errors = calloc((size_t)n, sizeof(*errors));
	size_t n_disks = 0, n_errors = 0;
	int rc;

	if (!disks || !errors) {
		free(disks);
		free(errors);
		fprintf(stderr, "%s: %s\n", fdw_progname, strerror(ENOMEM));
		return FDW_EXIT_ERROR;
	}
	for (int i = 0; i < n; i++) {
		rc = fdw_disk_scan(paths[i], &disks[n_disks]);
		if (rc == 0) {
			n_disks++;
			continue;
		}
		cli_report_scan_error(paths[i], rc);
		errors[n_errors].path = paths[i];
		errors[n_errors].message = scan_error_text(rc);
		n_errors++;
	}
	if (json)
		list_print_json(stdout, disks, n_disks, errors, n_errors);
	else
		list_print_table(stdout, disks, n_disks, errors, n_errors);
	for (size_t i = 0; i < n_disks; i++)
		fdw_disk_free(&disks[i]);
	for (size_t i = 0; i < n_errors; i++)
		free(errors[i].message);
	free(disks);
	free(errors);
	return n_errors ? FDW_EXIT_ERROR : FDW_EXIT_OK;
}

static int list_all(bool json)
{
	struct fdw_disk_list list;
	struct list_error *errors;
	int rc;

	/* Without root libparted sees no disks at all; say so instead of an empty list. */
	if (geteuid() != 0) {
		fprintf(stderr, _("%s: listing all disks needs root; run it with sudo, or name "
				  "the image files to list. Nothing was changed.\n"), fdw_progname);
		return FDW_EXIT_ERROR;
	}
	rc = fdw_disk_scan_all(&list);
	if (rc) {
		fprintf(stderr, _("%s: could not scan the disks: %s. Nothing was changed.\n"),
			fdw_progname, strerror(-rc));
		return FDW_EXIT_ERROR;
	}
	errors = calloc(list.n_failed + 1, sizeof(*errors));
	if (!errors) {
		fdw_disk_list_free(&list);
		fprintf(stderr, "%s: %s\n", fdw_progname, strerror(ENOMEM));
		return FDW_EXIT_ERROR;
	}
	/* Disks that could not be read are named with the reason, never silently left out. */
	for (size_t i = 0; i < list.n_failed; i++) {
		cli_report_scan_error(list.failed[i].path, list.failed[i].err);
		errors[i].path = list.failed[i].path;
		errors[i].message = scan_error_text(list.failed[i].err);
	}
	if (json)
		list_print_json(stdout, list.disks, list.n_disks, errors, list.n_failed);
	else
		list_print_table(stdout, list.disks, list.n_disks, errors, list.n_failed);
	for (size_t i = 0; i < list.n_failed; i++)
		free(errors[i].message);
	free(errors);
	rc = list.n_failed ? FDW_EXIT_ERROR : FDW_EXIT_OK;
	fdw_disk_list_free(&list);
	return rc;
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	bool json = false;
	int c;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			list_usage(stdout);
			return FDW_EXIT_OK;
		default:
			cli_usage_error("list");
			return FDW_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return list_named(argv + optind, argc - optind, json);
	return list_all(json);
}
