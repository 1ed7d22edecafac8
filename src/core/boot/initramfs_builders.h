/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Other programs building an initramfs at the same moment as fdewiz: apt's
 * update-initramfs after a kernel update, or one started by hand. Each reads the system's
 * files (crypttab, hooks) when it starts and writes its initramfs when it ends, so one
 * begun before fdewiz changed those files and ending after fdewiz's own build would put
 * back an initramfs without the change. fdewiz lets those end before it builds.
 */
#ifndef FDW_INITRAMFS_BUILDERS_H
#define FDW_INITRAMFS_BUILDERS_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The processes of this system building an initramfs now (update-initramfs, mkinitramfs,
 * dracut), the caller excepted: their pids in @pids (at most @max), their number returned.
 * @proc is the proc filesystem's folder ("/proc"; another for the tests).
 */
size_t fdw_initramfs_builders(const char *proc, pid_t *pids, size_t max);
/*
 * Until no initramfs is being built, at most @timeout_s seconds: 0 at once when none was;
 * else (the wait's beginning logged) the number of builders waited for, with the first one
 * ("pid 123: update-initramfs") in @who; -ETIMEDOUT when some still ran at the end (@who
 * names one).
 */
int fdw_initramfs_builders_wait(unsigned timeout_s, char *who, size_t len);

/* A build takes a minute or two on a slow machine; one running longer is stuck. */
#define FDW_INITRAMFS_BUILD_WAIT_S 900
/* fdw_initramfs_builders_wait with that limit, what it waited for logged. */
void fdw_initramfs_builders_settle(void);

#endif
