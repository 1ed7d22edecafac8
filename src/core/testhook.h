/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Named points at which a test can have fdewiz killed, to prove what a crash there leaves. */
#ifndef FDW_TESTHOOK_H
#define FDW_TESTHOOK_H

/* The environment variable that names the point (see HACKING.md, "Test hooks"). */
#define FDW_TEST_KILL_AT_ENV "FDEWIZ_TEST_KILL_AT"

/*
 * When FDEWIZ_TEST_KILL_AT names @point, the process ends here at once with SIGKILL, as a
 * power cut or `kill -9` would end it. Points:
 *   "last-hotzone": libcryptsetup reported every hotzone done; its final header step
 *                   has not run yet (the end window, final_window.c).
 *   "before-system-boot": an installed system's root is converted (and its filesystem
 *                   grown back); its boot step (crypttab, initramfs) has not started.
 */
void fdw_test_point(const char *point);

#endif
