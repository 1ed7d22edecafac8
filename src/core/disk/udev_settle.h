/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Waiting for udev to have handled what the kernel announced (new partitions, a PV seen). */
#ifndef FDW_UDEV_SETTLE_H
#define FDW_UDEV_SETTLE_H

/*
 * Where udevd runs (its control socket exists: a booted system, an initramfs, most live
 * systems), wait up to @timeout_s seconds for its queue to empty (udevadm settle). One
 * that did not end cleanly is logged; the caller goes on either way.
 */
void fdw_udev_settle(int timeout_s);

#endif
