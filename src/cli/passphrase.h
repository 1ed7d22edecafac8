/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Getting a passphrase from a key file or the terminal into locked memory. */
#ifndef FDW_PASSPHRASE_H
#define FDW_PASSPHRASE_H

#include <stdbool.h>

#include "core/base/base_api.h"

/*
 * From @key_file ("-" for stdin) when given, else from /dev/tty without echo, asked
 * twice when @confirm. Prints its own error and returns NULL on failure.
 */
struct fdw_secret *passphrase_get(const char *key_file, bool confirm);

/*
 * The passphrase @pass is to protect a new volume: refuse an empty one, and a weak one
 * unless @accept_weak, or, when @may_ask (a person at a terminal, no --yes), unless they
 * type the word asked for. Prints why and what to do; 0 when it may be used, -1 if not.
 */
int passphrase_check_new(const struct fdw_secret *pass, bool accept_weak, bool may_ask);

#endif
