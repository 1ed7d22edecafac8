/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared declarations of the command-line front-end. */
#ifndef FDW_CLI_H
#define FDW_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "core/disk/disk_api.h"

/* Exit codes of every command. */
enum { FDW_EXIT_OK = 0, FDW_EXIT_ERROR = 1, FDW_EXIT_USAGE = 2 };

extern const char *fdw_progname;

/*
 * Outside text (labels, names, paths, messages that quote them) escaped for the terminal
 * (see core/textsafe.h), in one of a ring of static buffers: up to eight results can be
 * used in one printf. The JSON output never goes through this.
 */
const char *cli_safe(const char *s);
/* The engine's notes (level info: the pace taken up, a sleep, a stop) on standard error
 * from now on, as -v shows them (without the debug lines): for a service, whose standard
 * error is its journal. */
void cli_show_info(void);
bool cli_info_shown(void);
/* A progress line ("\rencrypting 8.1% ...") is on standard error without its newline
 * (@pending), or ended; cli_line_break() ends it first, so that a message printed meanwhile
 * (a note, a warning) starts a line of its own, on a terminal and in a service's journal. */
void cli_progress_pending(bool pending);
void cli_line_break(void);

/* Display width of UTF-8 @s (CJK takes two columns), or its byte length if invalid. */
int cli_text_width(const char *s);
/* @text padded with spaces to @width display columns: after it, or before it (@right). */
void cli_pad(FILE *out, const char *text, int width, bool right);

int cmd_list(int argc, char **argv);
int cmd_encrypt(int argc, char **argv);
int cmd_decrypt(int argc, char **argv);
int cmd_resume(int argc, char **argv);
int cmd_pause(int argc, char **argv);
int cmd_pace(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_recovery_key(int argc, char **argv);
int cmd_tpm(int argc, char **argv);
int cmd_header_backup(int argc, char **argv);
int cmd_header_restore(int argc, char **argv);
int cmd_erase_encrypt(int argc, char **argv);
int cmd_crypttab(int argc, char **argv);

struct fdw_target;
/* Open @address and attach a loop device when needed; says why not (nothing changed). */
int cli_open_target(const char *address, struct fdw_target *t);
/* Take the partition's lock: the fd to close when done, or -errno after saying why. */
int cli_lock_target(const struct fdw_target *t, const char *address);
/* Print @prompt, read one line from stdin (byte by byte): true when it is @expect. */
bool cli_confirm_typed(const char *prompt, const char *expect);

/* Write the crypttab/fstab entries of @address and say what changed (an exit code). */
struct fdw_boot_request;
int cli_boot_entries(const char *address, const struct fdw_boot_request *rq);
/* Say what an fdw_boot_entries_write() that returned @rc did (an exit code). */
struct fdw_boot_result;
int cli_boot_report(const char *address, const struct fdw_boot_request *rq, int rc,
		    const struct fdw_boot_result *res, const char *why);

/* Show a recovery key once, straight from locked memory, with what to do with it. */
struct fdw_secret;
int cli_show_recovery_key(const char *address, int slot, const struct fdw_secret *key);

/* After getopt's own complaint: say nothing changed and where help is. */
void cli_usage_error(const char *command);

/* Say what went wrong with @path, that nothing changed, and what to do. */
void cli_report_scan_error(const char *path, int err);

/* Renderers of a scan result. */
/* Errors are (path, message) pairs: in the table after the disks, in JSON "errors". */
struct list_error {
	const char *path;
	char *message;
};
void list_print_table(FILE *out, const struct fdw_disk *disks, size_t n,
		      const struct list_error *errors, size_t n_errors);
void list_print_json(FILE *out, const struct fdw_disk *disks, size_t n,
		     const struct list_error *errors, size_t n_errors);

#endif
