/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Named points at which a test can have fdewiz killed or a step fail, to prove what is left. */
#ifndef FDW_TESTHOOK_H
#define FDW_TESTHOOK_H

#include <stdbool.h>
#include <stdint.h>

/* The environment variable that names the point (see HACKING.md, "Test hooks"). */
#define FDW_TEST_KILL_AT_ENV "FDEWIZ_TEST_KILL_AT"

/*
 * When FDEWIZ_TEST_KILL_AT names @point, the process ends here at once with SIGKILL, as a
 * power cut or `kill -9` would end it. Points:
 *   "last-hotzone": libcryptsetup reported every hotzone done; its final header step
 *                   has not run yet (the end window, final_window.c).
 *   "room-made":    the header's room is made (the filesystem shrunk by resize2fs, or the
 *                   partition grown); the LUKS2 header is not written yet.
 *   "before-system-boot": an installed system's root is converted (and its filesystem
 *                   grown back); its boot step (crypttab, initramfs) has not started.
 *   "swap-tables-written": in that boot step (its child process), the target's crypttab,
 *                   fstab and RESUME name the random-key swap; the plain swap partition is
 *                   not overwritten yet (system_swap.c). Only that child dies: the
 *                   conversion reports the boot step as left, and resume finishes it.
 *   "boot-move-shrunk", "boot-move-split", "boot-move-filled", "boot-move-fstab",
 *   "boot-move-done": in the move of a system's /boot out of its root (boot_move.c),
 *                   each step done and not yet recorded: resume repeats it.
 *   "lvm-room-reduced", "lvm-room-swap", "lvm-room-resized", "lvm-room-done": in the
 *                   making of the header's room at an installed system's LVM PV's end
 *                   (disk/lvm_room.c), each step done and not yet recorded.
 *   "before-system-data": a partition of another installed system (its /home) is
 *                   converted; that system's crypttab is not written yet (worker.c).
 *   "system-data-written": in that step (its child process), that system's crypttab and
 *                   fstab are written; the step is not marked done (system_data.c). Only
 *                   that child dies; resume does the step again and adds no second line.
 */
void fdw_test_point(const char *point);

/*
 * When FDEWIZ_TEST_KILL_AT is "progress=N" or "progress=N+USEC", the process kills itself
 * the first time the conversion has done @done of @size bytes with done >= N % of size
 * (and done < size): at once, or USEC microseconds later from another thread while the
 * next hotzone is being written. Kill points then come from the engine, not from a test
 * polling the progress line and racing the conversion (test-encrypt-killpoints.sh).
 */
void fdw_test_point_progress(uint64_t done, uint64_t size);

/* The environment variable that holds a conversion at a point until it is stopped. */
#define FDW_TEST_HOLD_AT_ENV "FDEWIZ_TEST_HOLD_AT"

/*
 * True when FDEWIZ_TEST_HOLD_AT is "progress=N" and this process's conversion has just gone
 * from below N % to @done of @size bytes at or past it: the conversion then waits at this
 * safe point, telling its watchers as usual, until it is asked to stop (pause, SIGINT, a
 * low battery). Once per process, and never in a run that started past N % (a resume goes
 * on). A test that stops a running conversion so finds it running on any machine.
 */
bool fdw_test_hold(uint64_t done, uint64_t size);

/* The environment variable that names a step to fail on purpose. */
#define FDW_TEST_FAIL_AT_ENV "FDEWIZ_TEST_FAIL_AT"

/*
 * True when FDEWIZ_TEST_FAIL_AT names @point: the caller then fails that step the way
 * it would really fail, to prove the failure path. Points:
 *   "recovery-key-mismatch": the recovery key to be shown differs by one character from
 *                            the one written with the header (encrypt_start.c); its test
 *                            must refuse to show it.
 *   "header-backup-refresh": refreshing the header backup after the conversion fails
 *                            with -ENOSPC, as on a full state folder (worker.c).
 */
bool fdw_test_fail(const char *point);

/* Tests only: another folder to read as /sys/class/power_supply (the battery guard). */
#define FDW_TEST_POWER_ROOT_ENV "FDEWIZ_TEST_POWER_SUPPLY"
/* $FDEWIZ_TEST_POWER_SUPPLY, or /sys/class/power_supply. */
const char *fdw_power_supply_root(void);

/*
 * Tests only: how many times the before/after benchmark of a conversion repeats each test
 * (1 to 9; unset: the benchmark's own choice), to keep emulated runs short.
 */
#define FDW_TEST_BENCH_REPEATS_ENV "FDEWIZ_TEST_BENCH_REPEATS"
/* $FDEWIZ_TEST_BENCH_REPEATS when it is 1 to 9, else 0. */
int fdw_test_bench_repeats(void);

/* Tests only: another folder to read as /sys/class/tpm (is there a TPM 2.0?). */
#define FDW_TEST_TPM_SYSFS_ENV "FDEWIZ_TEST_TPM_SYSFS"
/* $FDEWIZ_TEST_TPM_SYSFS, or /sys/class/tpm. */
const char *fdw_tpm_sysfs_root(void);
/*
 * Tests only: the TPM the TPM helpers (clevis, tpm2-tools) talk to instead of the
 * kernel's, as their TPM2TOOLS_TCTI (a software TPM: "swtpm:host=...,port=...").
 */
#define FDW_TEST_TPM_TCTI_ENV "FDEWIZ_TEST_TPM_TCTI"
/* "TPM2TOOLS_TCTI=..." for the helpers' environment, or NULL: the kernel's TPM. */
const char *fdw_tpm_tcti_env(void);

#endif
