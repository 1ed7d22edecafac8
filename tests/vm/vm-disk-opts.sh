#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# fdewiz VM tests: how QEMU opens a disk image, for every VM test's -drive (after "file=...,").
# Prints "cache=none,aio=io_uring", or "cache=none" where the kernel refuses io_uring.
#
# cache=none: O_DIRECT, so that the image holds exactly what the guest flushed, like a real
# disk (FDEWIZ_VM_DISK_CACHE replaces it). aio=io_uring: the same boot of the installed
# Debian (disk.img, alone on the machine) took 34.3 and 34.8 s against 39.0 and 39.1 s
# with QEMU's default thread pool (aio=threads); aio=native 35.4 s. A power cut (qemu
# killed) loses what was in flight either way, as a real disk loses its volatile cache;
# what the guest flushed was written before QEMU said so. FDEWIZ_VM_AIO replaces it.
set -u
aio=${FDEWIZ_VM_AIO:-io_uring}
disabled=$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)
if [ "$aio" = io_uring ] && [ "$disabled" != 0 ]; then
	aio=threads
fi
echo "cache=${FDEWIZ_VM_DISK_CACHE:-none},aio=$aio"
