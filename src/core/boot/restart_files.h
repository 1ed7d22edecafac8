/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The files that make the next restart encrypt the running system's root: the stage
 * record, an initramfs-tools hook and boot script that run fdewiz before the root is
 * mounted, and the service that goes on converting in the booted system.
 */
#ifndef FDW_RESTART_FILES_H
#define FDW_RESTART_FILES_H

#include <stdbool.h>
#include <stddef.h>

/* Where the initramfs holds the stage record and the prepared header. */
#define FDW_RESTART_INITRD_DIR "/fdewiz-restart"
/* The boot script's and the service's name. */
#define FDW_RESTART_NAME "fdewiz-restart"

/* What the restart is to do, written before it and read in the initramfs. */
struct fdw_restart_stage {
	char device[256];	/* the root partition, by a name that survives a restart */
	char address[256];	/* as the person named it (for messages) */
	char uuid[40];		/* of the LUKS2 volume to be; the job's id */
	char fs_uuid[40];	/* of the root filesystem, which the initramfs mounts */
	char name[64];		/* crypttab name of the root volume once done */
	unsigned boot_mib;	/* /boot is inside the root: the size of the partition of its
				 * own the step carves first (boot/boot_move.h); 0: none */
	char home[256];		/* the stage folder's path in the system; "" when unknown */
	char fstype[16];	/* of the root: "ext2", "ext3", "ext4" or "btrfs"; "" in a stage
				 * of an earlier fdewiz, which took ext roots only */
	char subvol[64];	/* btrfs: the subvolume the root is, from the top level and
				 * without a leading '/' ("@rootfs"); "" for the top level */
	/* fstype "LVM2_member": the volume group on the PV and its root volume's node
	 * ("/dev/mapper/vg-root"); "" otherwise. */
	char vg[128];
	char root_lv[192];
	/* The boot setup replaces the system's plain swap with one on a random key (its
	 * resume device then gone): the step clears a resume device it no longer finds,
	 * where the initramfs would wait for it (about 30 s) at every start until the setup
	 * has made it again. */
	bool swap_replaced;
};

/* <state dir>/restart: the stage record ("stage") and the prepared header ("header"). */
void fdw_restart_dir(char *buf, size_t len);
/* The kernel keyring's name for the passphrase handed to the booted system. */
void fdw_restart_key_desc(const char *uuid, char *buf, size_t len);

int fdw_restart_stage_write(const char *path, const struct fdw_restart_stage *st);
/*
 * In the initramfs: is the preparation still there in the system whose root filesystem
 * (@st->fstype, unmounted) is @device (or, on LVM, the volume @st->root_lv, its group
 * activated), i.e. @st's stage record in its folder @st->home (under the subvolume
 * @st->subvol of a btrfs), with the same UUID? Mounted read-only in
 * a child for a moment, with no journal or log replayed: nothing is written. 1 yes (or
 * @st does not say where: a stage of an earlier fdewiz), 0 no ('fdewiz cancel' removed it
 * and this initramfs is a stale copy), -errno when it cannot be told.
 */
int fdw_restart_stage_in_root(const char *device, const struct fdw_restart_stage *st);

/* 0, -ENOENT when there is none, -EINVAL when a line is missing or malformed. The lines
 * fstype= and subvol= are optional; a subvol is taken only on a btrfs, relative and with
 * no element "." or ".." (it is joined to a mount point); vg= and root_lv= are there on an
 * LVM PV only, in LVM's own characters. */
int fdw_restart_stage_read(const char *path, struct fdw_restart_stage *st);

/*
 * Install, under the system root @root ("/" for the running system), the initramfs
 * hook (copies @exe, the e2fsprogs it runs, the btrfs tool and module when the stage
 * says fstype=btrfs, and @stage_dir), the boot script, a conf.d file that makes the
 * initramfs carry cryptsetup, and the service (enabled). Each file written atomically;
 * 0 or -errno with @why.
 */
int fdw_restart_files_install(const char *root, const char *exe, const char *stage_dir,
			      char *why, size_t len);
/* Remove what fdw_restart_files_install wrote; files already gone are fine. 0 or -errno. */
int fdw_restart_files_remove(const char *root);
/* Only the initramfs's part (hook, boot script, conf.d): the service stays until its work
 * is recorded done, so that a power cut before that has it go on at the next start. */
int fdw_restart_files_remove_initramfs(const char *root);
/* Are the hook or the boot script there under @root? */
bool fdw_restart_files_present(const char *root);

#endif
