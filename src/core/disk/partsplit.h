/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Splitting the end off a partition into a new one, with libparted: the room a new /boot
 * is carved from. */
#ifndef FDW_PARTSPLIT_H
#define FDW_PARTSPLIT_H

#include <stdbool.h>
#include <stdint.h>

/*
 * End partition @number of @disk_path at @new_size bytes from its start, and make a new
 * partition from byte @new_start to where it ended (a GPT entry or an msdos primary, or a
 * logical one when @logical). The start and the content of the old partition stay; what
 * lies past @new_size must hold nothing it needs (its filesystem was shrunk first).
 * Done again after a crash, it finds the split made and does nothing. 0 with the new
 * partition's number in *@new_number, -ENOSPC when the table cannot take it, or -errno.
 */
int fdw_partition_split_end(const char *disk_path, int number, uint64_t new_size,
			    uint64_t new_start, bool logical, int *new_number);

/*
 * After a table change the kernel drops and adds the partitions' nodes, and a udev that
 * runs (an initramfs's) is still probing them: wait for its queue to empty (`udevadm
 * settle`, where there is one) and for the node of partition @number of @disk_path to
 * exist, up to ten seconds. 0, or -ENOENT when it never came.
 */
int fdw_partition_node_settle(const char *disk_path, int number);

#endif
