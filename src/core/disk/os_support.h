/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Which installed systems fdewiz can set up the boot of: decided from what the scan read
 * inside the root (struct fdw_installed_os) alone, so the verdicts need no boot code. */
#ifndef FDW_OS_SUPPORT_H
#define FDW_OS_SUPPORT_H

#include "installed_os.h"

/* Why an installed system's root cannot be converted with its boot set up. */
enum fdw_sysboot_refusal {
	FDW_SYSBOOT_OK,
	FDW_SYSBOOT_NOT_ITS_ROOT,	/* its fstab mounts another filesystem at / */
	FDW_SYSBOOT_UNKNOWN_INITRAMFS,	/* neither initramfs-tools nor dracut */
	FDW_SYSBOOT_NO_LUKS_INITRAMFS,	/* no cryptsetup-initramfs / dracut crypt module */
	FDW_SYSBOOT_UNKNOWN_LOADER,	/* no boot loader fdewiz knows */
	FDW_SYSBOOT_SYSTEMD_BOOT,	/* systemd-boot: not set up by fdewiz yet */
	FDW_SYSBOOT_BOOT_INSIDE,	/* /boot on the root with GRUB */
	FDW_SYSBOOT_USR_SEPARATE,	/* /usr elsewhere: the initramfs must mount it too */
};

/* Pure: may this installed system's root be converted with its boot set up? */
enum fdw_sysboot_refusal fdw_os_support_check(const struct fdw_installed_os *os);
/* The reason and what to do, one or two translated sentences. */
const char *fdw_os_support_refusal_text(enum fdw_sysboot_refusal r);

#endif
