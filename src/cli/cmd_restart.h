/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The command line of the conversion that begins at the next restart. */
#ifndef FDW_CLI_CMD_RESTART_H
#define FDW_CLI_CMD_RESTART_H

#include <stdbool.h>

#include "core/luks2/luks2_api.h"

struct cli_restart_opts {
	const char *key_file;
	const char *bench_scale;	/* NULL: quick */
	bool yes, accept_weak, fast_pbkdf, dry_run, no_bench;
	struct fdw_escrow escrow;	/* --escrow-command, --escrow-dir */
};

/* `encrypt --at-restart ADDRESS`: an exit code. */
int cli_encrypt_at_restart(const char *address, const struct cli_restart_opts *o);
int cmd_cancel(int argc, char **argv);
/* Internal: the initramfs's boot script and the booted system's service run these. */
int cmd_restart_step(int argc, char **argv);
int cmd_restart_continue(int argc, char **argv);

#endif
