/* Shared declarations of the command-line front-end. */
#ifndef FDW_CLI_H
#define FDW_CLI_H

#include <stdio.h>

#include "core/disk.h"

/* Exit codes of every command. */
enum { FDW_EXIT_OK = 0, FDW_EXIT_ERROR = 1, FDW_EXIT_USAGE = 2 };

extern const char *fdw_progname;

int cmd_list(int argc, char **argv);
int cmd_encrypt(int argc, char **argv);
int cmd_resume(int argc, char **argv);
int cmd_pause(int argc, char **argv);
int cmd_status(int argc, char **argv);

/* After getopt's own complaint: say nothing changed and where help is. */
void cli_usage_error(const char *command);

/* Say what went wrong with @path, that nothing changed, and what to do. */
void cli_report_scan_error(const char *path, int err);

/* Renderers of a scan result. */
void list_print_table(FILE *out, const struct fdw_disk *disks, size_t n);
/* Errors are (path, message) pairs printed in the "errors" array. */
struct list_error {
	const char *path;
	char *message;
};
void list_print_json(FILE *out, const struct fdw_disk *disks, size_t n,
		     const struct list_error *errors, size_t n_errors);

#endif
