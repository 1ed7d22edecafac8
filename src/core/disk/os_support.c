/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Which installed systems fdewiz can set up the boot of, and why not in words. */
#include "config.h"

#include "base/i18n.h"
#include "os_support.h"

enum fdw_sysboot_refusal fdw_os_support_check(const struct fdw_installed_os *os)
{
	if (!os->fstab_names_it)
		return FDW_SYSBOOT_NOT_ITS_ROOT;
	if (os->initramfs == FDW_INITRAMFS_UNKNOWN)
		return FDW_SYSBOOT_UNKNOWN_INITRAMFS;
	if (!os->luks_in_initramfs)
		return FDW_SYSBOOT_NO_LUKS_INITRAMFS;
	if (os->loader == FDW_LOADER_UNKNOWN)
		return FDW_SYSBOOT_UNKNOWN_LOADER;
	if (os->loader == FDW_LOADER_SYSTEMD_BOOT)
		return FDW_SYSBOOT_SYSTEMD_BOOT;
	/* GRUB would have to read the kernel through the LUKS2 header: that needs PBKDF2
	 * keyslots and GRUB_ENABLE_CRYPTODISK, which fdewiz does not set up. */
	if (!os->boot_separate || !os->boot_spec[0])
		return FDW_SYSBOOT_BOOT_INSIDE;
	if (os->usr_separate)
		return FDW_SYSBOOT_USR_SEPARATE;
	return FDW_SYSBOOT_OK;
}

const char *fdw_os_support_refusal_text(enum fdw_sysboot_refusal r)
{
	switch (r) {
	case FDW_SYSBOOT_OK:
		return "";
	case FDW_SYSBOOT_NOT_ITS_ROOT:
		return _("its fstab mounts another filesystem at /, so this is not the root it "
			 "boots from; fdewiz cannot tell how that system would start.");
	case FDW_SYSBOOT_UNKNOWN_INITRAMFS:
		return _("neither initramfs-tools nor dracut was found in it, so fdewiz cannot make "
			 "it ask for the passphrase at boot.");
	case FDW_SYSBOOT_NO_LUKS_INITRAMFS:
		return _("its initramfs cannot open LUKS: install cryptsetup-initramfs (Debian, "
			 "Ubuntu) or dracut's crypt module in that system first, then try again.");
	case FDW_SYSBOOT_UNKNOWN_LOADER:
		return _("its boot loader is not one fdewiz knows (GRUB for BIOS or EFI), so it "
			 "cannot tell whether the system would still start.");
	case FDW_SYSBOOT_SYSTEMD_BOOT:
		return _("it boots with systemd-boot, which fdewiz does not set up yet.");
	case FDW_SYSBOOT_BOOT_INSIDE:
		return _("its /boot is inside this partition, and GRUB would then have to open "
			 "LUKS2 itself, which fdewiz does not set up: move /boot to a partition of "
			 "its own first.");
	case FDW_SYSBOOT_USR_SEPARATE:
		return _("its /usr is on another partition, which fdewiz does not set up for the "
			 "initramfs.");
	}
	return "";
}
