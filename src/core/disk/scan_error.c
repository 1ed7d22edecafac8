/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One sentence for each way naming a disk or partition can fail. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "disk.h"
#include "base/i18n.h"

const char *fdw_scan_error_text(int err)
{
	const char *what;

	switch (err) {
	case -ENOENT:
		what = _("no such device or file; check the name with 'lsblk' or 'fdewiz list'");
		break;
	case -ENXIO:
		what = _("no such partition on that disk; see 'fdewiz list' for the numbers");
		break;
	case -EISDIR:
		what = _("a whole disk with a partition table; name one of its partitions, "
			 "like DISK:2 or /dev/sda2 (see 'fdewiz list')");
		break;
	case -ENOTBLK:
		what = _("not a disk: neither a block device nor an image file with a partition "
			 "table or a filesystem");
		break;
	case -EIO:
		what = _("it cannot be read (input/output error): the disk may be failing or gone; "
			 "check it (its cable, 'dmesg'), then try again");
		break;
	case -EACCES:
	case -EPERM:
		if (geteuid() == 0)
			what = _("the system refused access even to root (is it locked by a "
				 "security policy or a container?)");
		else
			what = _("permission denied; run fdewiz as root (for example with sudo)");
		break;
	default:
		what = strerror(-err);
		break;
	}
	return what;
}

