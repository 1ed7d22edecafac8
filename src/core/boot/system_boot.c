/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An installed system's root: the pre-flight, the plan's boot steps and their record. */
#include "config.h"

#include <errno.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <blkid.h>

#include "disk/boot_carve.h"
#include "base/units.h"
#include "crypttab.h"
#include "base/durable.h"
#include "base/i18n.h"
#include "base/log.h"
#include "disk/lvm_room.h"
#include "disk/verdict_lvm.h"
#include "system_boot.h"
#include "system_boot_internal.h"
#include "tpm.h"

/* The move of a /boot inside the root (boot_move.c), one step a line. */
static size_t move_steps(const struct fdw_target *t, char *buf, size_t len)
{
	struct fdw_boot_carve plan;
	bool efi = t->part->os.loader == FDW_LOADER_GRUB_EFI;
	char boot[32], room[32], fs[32], where[PATH_MAX + 32];
	int n;

	if (efi)
		snprintf(where, sizeof(where), "%s", _("in its EFI system partition"));
	else
		snprintf(where, sizeof(where), _("on %s"), t->disk.path);
	fdw_boot_carve_plan(&t->disk, t->part, 0, &plan);
	fdw_format_size(plan.boot_size, boot, sizeof(boot));
	fdw_format_size(FDW_HEADER_ROOM, room, sizeof(room));
	fdw_format_size(plan.root_fs_max, fs, sizeof(fs));
	n = snprintf(buf, len,
		     _("first, make /boot a partition of its own (at least %s; three times what "
		       "/boot holds):\n"
		       "  shrink the root filesystem to %s (the new /boot and %s for the header)\n"
		       "  end the root partition there and make the new /boot partition after it\n"
		       "  copy /boot into it and name it in the system's etc/fstab by UUID\n"
		       "  reinstall GRUB (%s) %s to read the new /boot; the system then "
		       "starts unencrypted as before\n"
		       "each of these steps is recorded; after a crash 'fdewiz resume' goes on"),
		     boot, fs, room, efi ? "EFI" : "BIOS", where);
	return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}

/* The header's room at the end of an installed system's PV (disk/lvm_room.c). */
static size_t lvm_room_steps(const struct fdw_target *t, char *buf, size_t len)
{
	const struct fdw_lvm_pv *pv = &t->part->lvm;
	const struct fdw_lvm_room *room = &t->part->verdict.lvm_room;
	char room_b[32], a[32], b[32];
	int n = 0;

	fdw_format_size(FDW_HEADER_ROOM, room_b, sizeof(room_b));
	if (!fdw_lvm_room_needed(t))
		n = snprintf(buf, len, _("first, deactivate volume group %s (the header's room at "
					 "the end of its physical volume is made already)"),
			     pv->vg);
	else if (room->kind == FDW_LVM_ROOM_SWAP)
		n = snprintf(buf, len,
			     _("first, make room for the header (%s) at the end of the physical "
			       "volume:\n"
			       "  deactivate volume group %s\n"
			       "  shrink its swap volume %s from %s to %s (lvreduce) and make its "
			       "swap area again with the same UUID\n"
			       "  end the physical volume that much earlier (pvresize)\n"
			       "each of these steps is recorded; after a crash 'fdewiz resume' goes "
			       "on"),
			     room_b, pv->vg, pv->lvs[pv->swap_lv].name,
			     fdw_format_size(pv->lvs[pv->swap_lv].n_pe * pv->extent, a, sizeof(a)),
			     fdw_format_size(room->swap_pe * pv->extent, b, sizeof(b)));
	else if (room->kind == FDW_LVM_ROOM_PVRESIZE)
		n = snprintf(buf, len,
			     _("first, deactivate volume group %s and end its physical volume %s "
			       "earlier, where its free extents are (pvresize); recorded, 'fdewiz "
			       "resume' goes on after a crash"), pv->vg, room_b);
	else
		n = snprintf(buf, len, _("first, deactivate volume group %s"), pv->vg);
	return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}

/* After the conversion of such a PV: its root on a logical volume inside. */
static size_t lvm_boot_steps(const struct fdw_target *t, const char *name, char *buf,
			     size_t len)
{
	const struct fdw_installed_os *os = &t->part->os;
	const struct fdw_lvm_pv *pv = &t->part->lvm;
	int n = snprintf(buf, len,
			 _("open the volume as /dev/mapper/%s, activate volume group %s on it, "
			   "mount its root %s with the system's /boot (%s)\n"
			   "add '%s' to its etc/crypttab (the physical volume, by its LUKS UUID)\n"
			   "rebuild its initramfs in a chroot (update-initramfs) and check that it "
			   "unlocks the volume and then opens the volume group (lvm)\n"
			   "%s: the kernel names the root by its logical volume, which stays the "
			   "same inside\n"
			   "its swap volumes are inside the encrypted volume: encrypted with it, "
			   "hibernation keeps working\n"
			   "every file changed is kept beside it as a backup (FILE.fdewiz-...bak)"),
			 name, pv->vg, pv->lvs[pv->root_lv].dm_path, os->boot_spec, name,
			 fdw_boot_loader_text(os->loader));

	return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}

/* Does the conversion of @t shrink its filesystem, which may move files inside it? */
static bool moves_files(const struct fdw_target *t)
{
	return t->part->verdict.carve_boot || t->part->verdict.strategy == FDW_STRATEGY_SHRINK;
}

size_t fdw_system_boot_steps(const struct fdw_target *t, const char *name, char *buf,
			     size_t len)
{
	const struct fdw_installed_os *os = &t->part->os;
	char open_line[384];
	const char *boot;
	unsigned crypt_lines = 0;
	size_t moved = 0;
	int n;

	if (t->part->verdict.carve_boot || t->part->verdict.lvm_system) {
		moved = t->part->verdict.carve_boot ? move_steps(t, buf, len)
						    : lvm_room_steps(t, buf, len);
		if (moved + 1 >= len)
			return moved;
		buf[moved++] = '\n';
		buf += moved;
		len -= moved;
	}
	if (t->part->verdict.lvm_system)
		return moved + lvm_boot_steps(t, name, buf, len);
	boot = os->boot_spec[0] ? os->boot_spec : _("the new one");
	if (os->root_subvol[0])
		snprintf(open_line, sizeof(open_line),
			 _("open the volume as /dev/mapper/%s and mount its subvolume %s with "
			   "the system's /boot (%s)"), name, os->root_subvol, boot);
	else
		snprintf(open_line, sizeof(open_line),
			 _("open the volume as /dev/mapper/%s and mount it with the system's "
			   "/boot (%s)"), name, boot);
	n = snprintf(buf, len,
			 _("%s\n"
			   "add '%s' to its etc/crypttab and check its etc/fstab (the filesystem "
			   "keeps its UUID)\n"
			   "rebuild its initramfs in a chroot (%s) and check that it unlocks the "
			   "root\n"
			   "%s: the kernel finds the root by its filesystem UUID, kept inside the "
			   "volume\n"
			   "every file changed is kept beside it as a backup (FILE.fdewiz-...bak)"),
			 open_line, name, os->initramfs == FDW_INITRAMFS_DRACUT ? "dracut" : "update-initramfs",
			 fdw_boot_loader_text(os->loader));

	if (n < 0 || (size_t)n >= len)
		return moved + (n < 0 ? 0 : len - 1);
	for (unsigned i = 0; i < os->n_entries; i++)
		crypt_lines += os->entries[i].use == FDW_USE_CRYPT;
	if (crypt_lines)
		n += snprintf(buf + n, len - (size_t)n, "\n%s",
			      _("its other encrypted partitions (in its crypttab) that this "
				"passphrase opens get a key file inside the encrypted root, so one "
				"passphrase starts the system; any other keeps asking for its own"));
	if (n < 0 || (size_t)n >= len)
		return moved + (n < 0 ? 0 : len - 1);
	if (os->n_swap_files)
		n += snprintf(buf + n, len - (size_t)n, "\n%s %s", os->swap_file,
			      _("(a swap file) stays where it is, inside the root, and is encrypted "
				"with it"));
	if (os->n_swap_files && os->resume_offset && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "\n%s",
			      moves_files(t) ? _("hibernation into it stops working until its "
						 "resume_offset is set again: shrinking the "
						 "filesystem may move the file (filefrag -v names "
						 "its first block)")
					     : _("hibernation into it keeps working: the file does "
						 "not move, and its resume_offset counts from the "
						 "filesystem's start, which stays the volume's start"));
	if (n < 0 || (size_t)n >= len)
		return moved + (n < 0 ? 0 : len - 1);
	if (os->n_swaps > os->n_swap_files && fdw_system_boot_swap_planned(os))
		n += snprintf(buf + n, len - (size_t)n, "\n%s",
			      _("swap: a new random key at every boot (crypttab by PARTUUID); the "
				"plain swap partition is overwritten; no hibernation"));
	else if (os->n_swaps > os->n_swap_files)
		n += snprintf(buf + n, len - (size_t)n, "\n%s",
			      _("swap stays as it is: the system hibernates to it, and a swap with "
				"a random key cannot hold a hibernation image"));
	return moved + (n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n);
}

bool fdw_system_boot_swap_planned(const struct fdw_installed_os *os)
{
	return os->n_swaps > os->n_swap_files && !os->hibernates &&
	       os->initramfs == FDW_INITRAMFS_TOOLS;
}

/* A place a power cut empties: tmpfs, ramfs, or an overlay (a live system's root). */
static bool volatile_fs(const char *path)
{
	char dir[4096], *slash;
	struct statfs st;

	snprintf(dir, sizeof(dir), "%s", path);
	while (statfs(dir, &st) != 0) {
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return false;
		*slash = '\0';
	}
	return st.f_type == TMPFS_MAGIC || st.f_type == RAMFS_MAGIC ||
	       st.f_type == OVERLAYFS_SUPER_MAGIC || st.f_type == SQUASHFS_MAGIC;
}

int fdw_system_boot_find_boot(const char *spec, char *dev, size_t len)
{
	char *tag = NULL, *value = NULL, *found;

	if (!strncmp(spec, "/dev/", 5)) {
		snprintf(dev, len, "%s", spec);
		return 0;
	}
	if (blkid_parse_tag_string(spec, &tag, &value) != 0)
		return -EINVAL;
	found = blkid_evaluate_tag(tag, value, NULL);
	free(tag);
	free(value);
	if (!found)
		return -ENODEV;
	snprintf(dev, len, "%s", found);
	free(found);
	return 0;
}

int fdw_system_boot_prepare(const struct fdw_target *t, const char *header_backup,
			    bool state_moves_later, char *why, size_t len)
{
	const struct fdw_installed_os *os = &t->part->os;
	char dev[4096];

	if (!t->part->node) {
		snprintf(why, len, _("%s holds an installed system, but it is a partition of an "
				     "image file: fdewiz sets up the boot of a system only on a "
				     "disk. Nothing was changed."), t->part->address);
		return -EOPNOTSUPP;
	}
	/* A /boot inside the root gets a partition of its own first (boot_move.c). */
	if (!t->part->verdict.carve_boot &&
	    fdw_system_boot_find_boot(os->boot_spec, dev, sizeof(dev)) != 0) {
		snprintf(why, len, _("the system's /boot (%s in its fstab) was not found on any "
				     "disk: attach it, then try again. Nothing was changed."),
			 os->boot_spec);
		return -ENODEV;
	}
	if (!state_moves_later &&
	    (volatile_fs(fdw_state_dir()) || (header_backup && volatile_fs(header_backup)))) {
		snprintf(why, len, _("the state folder (%s) or the header backup (%s) is on a "
				     "filesystem held in memory, which a power cut empties, and "
				     "encrypting a system's root takes long: set FDEWIZ_STATE_DIR "
				     "and --header-backup to a persistent place that is not on the "
				     "disk being converted (a USB stick). Nothing was changed."),
			 fdw_state_dir(), header_backup ? header_backup : "");
		return -EROFS;
	}
	return 0;
}

int fdw_system_boot_tpm_check(const struct fdw_target *t, const char *tpm_pcrs, char *why,
			      size_t len)
{
	const struct fdw_installed_os *os = &t->part->os;
	int rc;

	/* This computer seals the key (from a live system: its clevis), the installed
	 * system's initramfs unseals it at each start. */
	rc = fdw_tpm_usable(tpm_pcrs, false, why, len);
	if (!rc && (os->initramfs != FDW_INITRAMFS_TOOLS || !os->tpm_in_initramfs)) {
		snprintf(why, len, _("the installed system cannot unlock with the TPM at its start: "
				     "it needs initramfs-tools with clevis-tpm2 and "
				     "clevis-initramfs (Debian 12: 'apt install clevis-tpm2 "
				     "clevis-initramfs' in that system). Encrypt without the TPM, "
				     "or install them there first. Nothing was changed."));
		rc = -ENOPKG;
	}
	return rc;
}

void fdw_system_boot_name(const struct fdw_target *t, char *name, size_t len)
{
	const char *node = t->part->node ? strrchr(t->part->node, '/') : NULL;

	/* Debian's installer names it after the partition: sda2_crypt. */
	if (node && fdw_crypttab_name_valid(node + 1) && strlen(node + 1) + 7 <= len) {
		snprintf(name, len, "%s_crypt", node + 1);
		return;
	}
	snprintf(name, len, "root_crypt");
}

/* The record saved before anything changes, or why not in @why. */
static int save_or_say(const struct fdw_job *job, const struct fdw_sysboot_record *r, char *why,
		       size_t len)
{
	int rc = fdw_system_boot_save(job, r);

	if (rc)
		snprintf(why, len, _("cannot record the boot steps in the state folder (%s). "
				     "Nothing was changed."), strerror(-rc));
	return rc;
}

int fdw_system_boot_record(const struct fdw_target *t, const struct fdw_job *job,
			   const char *name, const char *tpm_pcrs, char *why, size_t len)
{
	struct fdw_sysboot_record r = { .tpm_slot = -1 };

	snprintf(r.tpm_pcrs, sizeof(r.tpm_pcrs), "%s", tpm_pcrs ? tpm_pcrs : "");
	snprintf(r.name, sizeof(r.name), "%s", name);
	snprintf(r.boot_spec, sizeof(r.boot_spec), "%s", t->part->os.boot_spec);
	snprintf(r.fs_uuid, sizeof(r.fs_uuid), "%s", t->part->uuid ? t->part->uuid : "");
	r.initramfs = t->part->os.initramfs;
	r.loader = t->part->os.loader;
	r.swap = fdw_system_boot_swap_planned(&t->part->os);
	snprintf(r.root_subvol, sizeof(r.root_subvol), "%s", t->part->os.root_subvol);
	snprintf(r.root_fstype, sizeof(r.root_fstype), "%s",
		 t->part->fstype ? t->part->fstype : "");
	/* Its verdict, or the running system's PV prepared for a restart. */
	if (t->part->verdict.lvm_system || fdw_verdict_lvm_system(t->part)) {
		const struct fdw_lvm_lv *lv = &t->part->lvm.lvs[t->part->lvm.root_lv];

		snprintf(r.vg, sizeof(r.vg), "%s", t->part->lvm.vg);
		snprintf(r.root_dev, sizeof(r.root_dev), "%s", lv->dm_path);
		snprintf(r.root_fstype, sizeof(r.root_fstype), "%s", lv->fstype);
		/* Its swap volumes are inside the encrypted PV already. */
		r.swap = false;
	}
	return save_or_say(job, &r, why, len);
}

bool fdw_system_boot_pending(const struct fdw_job *job)
{
	struct fdw_sysboot_record r;

	return fdw_system_boot_load(job, &r) == 0 && !r.done;
}

void fdw_system_boot_note_changed(struct fdw_sysboot_record *r, const char *path,
				  const char *backup)
{
	size_t used = strlen(r->changed);

	snprintf(r->changed + used, sizeof(r->changed) - used, "%s (%s)\n", path,
		 backup[0] ? backup : _("new file"));
}

void fdw_system_boot_note_tab(struct fdw_sysboot_record *r, const char *root, const char *file,
			      const struct fdw_tab_result *tab)
{
	if (tab->changed)
		fdw_system_boot_note_changed(r, file,
					     tab->backup + (tab->backup[0] ? strlen(root) : 0));
}

int fdw_system_boot_status(const struct fdw_job *job, struct fdw_system_boot_result *res,
			   bool *done)
{
	struct fdw_sysboot_record r;
	int rc = fdw_system_boot_load(job, &r);

	memset(res, 0, sizeof(*res));
	if (rc)
		return rc;
	*done = r.done;
	snprintf(res->changed, sizeof(res->changed), "%s", r.changed);
	snprintf(res->tpm_pcrs, sizeof(res->tpm_pcrs), "%s", r.tpm_pcrs);
	res->tpm_slot = r.tpm_slot;
	if (r.done && r.tpm_pcrs[0] && r.tpm_slot < 0)
		fdw_system_boot_tpm_unset_why(&r, job->address, res->tpm_why, sizeof(res->tpm_why));
	return 0;
}

void fdw_system_boot_tpm_unset_why(const struct fdw_sysboot_record *r, const char *address,
				   char *buf, size_t len)
{
	if (r->tpm_unready)
		snprintf(buf, len, _("unlocking with the TPM was not set up: the installed "
				     "system's initramfs does not carry clevis's TPM unlock (install "
				     "clevis-tpm2 and clevis-initramfs in it). It asks for its "
				     "passphrase at each start; 'fdewiz tpm enrol %s', run in it "
				     "after that, sets it up."), address);
	else
		snprintf(buf, len, _("unlocking with the TPM was not set up (the log says why): "
				     "the system asks for its passphrase at each start; 'fdewiz tpm "
				     "enrol %s' tries again."), address);
}

int fdw_system_boot_want_tpm(const struct fdw_job *job, const char *pcrs, char *why, size_t len)
{
	struct fdw_sysboot_record r;
	int rc;

	if (fdw_system_boot_load(job, &r) != 0) {
		snprintf(why, len, _("unlocking at the start with the TPM is for an installed "
				     "system's root, and %s holds none: 'fdewiz tpm enrol' binds "
				     "any LUKS2 volume once it is done. Nothing was changed."),
			 job->address);
		return -EINVAL;
	}
	if (r.done && r.tpm_pcrs[0] && r.tpm_slot >= 0) {
		snprintf(why, len, _("%s already unlocks with the TPM (keyslot %d): 'fdewiz tpm "
				     "enrol' seals it again. Nothing was changed."), job->address,
			 r.tpm_slot);
		return -EALREADY;
	}
	rc = fdw_tpm_usable(pcrs, false, why, len);
	if (rc)
		return rc;
	snprintf(r.tpm_pcrs, sizeof(r.tpm_pcrs), "%s", pcrs);
	r.tpm_slot = -1;
	r.tpm_unready = false;
	return save_or_say(job, &r, why, len);
}
