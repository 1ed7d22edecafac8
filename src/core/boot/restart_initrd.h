/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The running system's initramfs around a restart's preparation: made again with or
 * without fdewiz's step and checked, and the one it had before kept, so that 'cancel'
 * puts it back instead of making it again.
 */
#ifndef FDW_RESTART_INITRD_H
#define FDW_RESTART_INITRD_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The running system's initramfs made again (update-initramfs -u -k all) and that of the
 * running kernel (@initrd) listed into @listing (lsinitramfs; not when @listing is NULL),
 * once other builds running now have ended. 0, or -errno with @why.
 */
int fdw_initrd_remake_running(char *initrd, size_t ilen, char *listing, size_t llen,
			      char *why, size_t len);
/*
 * update-initramfs for every kernel (once other builds running now have ended), then
 * every kernel's initramfs listed: with @want_step each must carry fdewiz, its boot
 * script, resize2fs and the stage folder's files; without, none a stage. The running
 * kernel's path in @initrd. 0, or -errno with @why.
 */
int fdw_restart_initrd_remake(bool want_step, char *initrd, size_t ilen, char *why, size_t len);

/* Before the preparation: a copy of the running kernel's initramfs in @dir. 0 or -errno. */
int fdw_restart_initrd_keep(const char *dir);
/* After it: what the initramfs made then looks like (size and time), in @dir. */
int fdw_restart_initrd_mark(const char *dir);
/*
 * Put the kept copy back, when the system has exactly one initramfs and it is still the
 * one the preparation made (no kernel update since). 0; -ESTALE when it is not (the
 * caller makes it again); or -errno.
 */
int fdw_restart_initrd_restore(const char *dir);
/* The kept copy, the mark and the hook's notes of the kernels go. */
void fdw_restart_initrd_forget(const char *dir);
/*
 * The installed kernels (/boot/vmlinuz-VERSION) whose initramfs carries the step of the
 * preparation in @dir (its hook noted the version, and the initramfs was written after):
 * their versions in @with ("6.1.0-50-amd64, 6.1.0-57-amd64"), the others in @without.
 */
void fdw_restart_initrd_carriers(const char *dir, char *with, size_t wlen, char *without,
				 size_t wolen);

#endif
