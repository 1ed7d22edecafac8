/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Getting a passphrase from a key file or the terminal into locked memory. */
#ifndef FDW_PASSPHRASE_H
#define FDW_PASSPHRASE_H

#include <stdbool.h>

#include "core/secret.h"

/*
 * From @key_file ("-" for stdin) when given, else from /dev/tty without echo, asked
 * twice when @confirm. Prints its own error and returns NULL on failure.
 */
struct fdw_secret *passphrase_get(const char *key_file, bool confirm);

#endif
