/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The initramfs hook, boot script and service of a conversion that begins at a restart. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/child.h"
#include "base/durable.h"
#include "base/fileio.h"
#include "base/i18n.h"
#include "base/statedir.h"
#include "disk/fsprobe.h"
#include "disk/private_mount.h"
#include "restart_files.h"

#define HOOK_PATH "/etc/initramfs-tools/hooks/" FDW_RESTART_NAME
#define SCRIPT_PATH "/etc/initramfs-tools/scripts/local-top/" FDW_RESTART_NAME
#define CONF_PATH "/etc/initramfs-tools/conf.d/" FDW_RESTART_NAME
#define UNIT_PATH "/etc/systemd/system/" FDW_RESTART_NAME ".service"
#define WANTS_PATH "/etc/systemd/system/multi-user.target.wants/" FDW_RESTART_NAME ".service"

/* mkinitramfs runs it: fdewiz, what it runs in the initramfs, and the stage folder. */
static const char hook_fmt[] =
	"#!/bin/sh\n"
	"# fdewiz: carries its step that encrypts the root at the next restart\n"
	"# (written by 'fdewiz encrypt --at-restart'; 'fdewiz cancel' removes it).\n"
	"PREREQ=\"\"\n"
	"prereqs() { echo \"$PREREQ\"; }\n"
	"case \"$1\" in prereqs) prereqs; exit 0 ;; esac\n"
	". /usr/share/initramfs-tools/hook-functions\n"
	"[ -f '%1$s/stage' ] || exit 0\n"
	"# Noted for each kernel: 'fdewiz status' names those whose initramfs carry the step.\n"
	"case \"$version\" in\n"
	"''|*/*) ;;\n"
	"*) mkdir -p '%1$s/carried' && : >'%1$s/carried/'\"$version\" || : ;;\n"
	"esac\n"
	"copy_exec '%2$s' /sbin/fdewiz\n"
	"for p in /sbin/e2fsck /sbin/resize2fs /sbin/debugfs /sbin/dumpe2fs "
	"/lib/cryptsetup/askpass; do\n"
	"\tcopy_exec \"$p\"\n"
	"done\n"
	"manual_add_modules dm_crypt\n"
	"# A btrfs root: the tool its shrink checks and resizes it with, and its module.\n"
	"if grep -qx 'fstype=btrfs' '%1$s/stage'; then\n"
	"\tfor p in /bin/btrfs /usr/bin/btrfs /sbin/btrfs; do\n"
	"\t\t[ -x \"$p\" ] || continue\n"
	"\t\tcopy_exec \"$p\" /sbin/btrfs\n"
	"\t\tbreak\n"
	"\tdone\n"
	"\tmanual_add_modules btrfs\n"
	"fi\n"
	"# A PV: the room at its end is made with LVM's tools (lvm2's hook copies lvm itself)\n"
	"# and util-linux's mkswap, which keeps the swap area's UUID.\n"
	"if grep -qx 'fstype=LVM2_member' '%1$s/stage'; then\n"
	"\tcopy_exec /sbin/lvm /sbin/lvm\n"
	"\tfor c in pvs lvs vgchange lvchange lvreduce pvresize; do\n"
	"\t\t[ -e \"$DESTDIR/sbin/$c\" ] || ln -s lvm \"$DESTDIR/sbin/$c\"\n"
	"\tdone\n"
	"\trm -f \"$DESTDIR/usr/sbin/mkswap\" \"$DESTDIR/sbin/mkswap\"\n"
	"\tcopy_exec /sbin/mkswap /sbin/mkswap\n"
	"\tmanual_add_modules dm_mod\n"
	"fi\n"
	"mkdir -p \"$DESTDIR" FDW_RESTART_INITRD_DIR "\"\n"
	"cp '%1$s/stage' '%1$s/header' \"$DESTDIR" FDW_RESTART_INITRD_DIR "/\"\n"
	"# A /boot inside the root moves to a partition of its own first: its planned record,\n"
	"# and the real programs the move runs, in place of busybox's applets of those names\n"
	"# (whichever hook ran first; coreutils' cp where fdewiz looks before /usr/bin).\n"
	"for f in '%1$s'/boot-move-*.json; do\n"
	"\t[ -f \"$f\" ] || continue\n"
	"\tcp \"$f\" \"$DESTDIR" FDW_RESTART_INITRD_DIR "/\"\n"
	"\trm -f \"$DESTDIR/usr/sbin/mke2fs\" \"$DESTDIR/usr/sbin/mkfs.ext4\" \\\n"
	"\t\t\"$DESTDIR/usr/sbin/chroot\" \"$DESTDIR/usr/sbin/cp\"\n"
	"\tcopy_exec /sbin/mke2fs /usr/sbin/mke2fs\n"
	"\tln -s mke2fs \"$DESTDIR/usr/sbin/mkfs.ext4\"\n"
	"\tcopy_exec /usr/sbin/chroot /usr/sbin/chroot\n"
	"\tcopy_exec /bin/cp /usr/sbin/cp\n"
	"\tcopy_file config /etc/mke2fs.conf || :\n"
	"\t# GRUB for EFI is reinstalled into the EFI system partition.\n"
	"\tmanual_add_modules vfat nls_cp437 nls_ascii nls_utf8 nls_iso8859-1 || :\n"
	"done\n";

/*
 * In local-top, before cryptroot (which then finds the volume open and leaves it): the
 * passphrase at the usual prompt, three tries; fdewiz prints the mapping to mount.
 * Whatever fails, the script ends normally: the boot goes on plain or encrypted, as the
 * disk is, and fdewiz has said which.
 */
static const char script_text[] =
	"#!/bin/sh\n"
	"# fdewiz: encrypts the root before it is mounted, then the boot goes on from it.\n"
	"PREREQ=\"\"\n"
	"prereqs() { echo \"$PREREQ\"; }\n"
	"case \"$1\" in prereqs) prereqs; exit 0 ;; esac\n"
	"stage=" FDW_RESTART_INITRD_DIR "/stage\n"
	"[ -f \"$stage\" ] || exit 0\n"
	". /scripts/functions\n"
	"modprobe -q dm_crypt\n"
	"wait_for_udev 10\n"
	"dev=$(sed -n 's/^device=//p' \"$stage\")\n"
	"name=$(sed -n 's/^name=//p' \"$stage\")\n"
	"vg=$(sed -n 's/^vg=//p' \"$stage\")\n"
	"i=0\n"
	"while [ ! -b \"$dev\" ] && [ $i -lt 30 ]; do sleep 1; i=$((i + 1)); done\n"
	"tries=0\n"
	"while [ $tries -lt 3 ]; do\n"
	"\ttries=$((tries + 1))\n"
	"\tout=$(/lib/cryptsetup/askpass \"Please unlock disk $name: \" |\n"
	"\t\t/sbin/fdewiz restart-step \"$stage\")\n"
	"\trc=$?\n"
	"\t[ $rc = 3 ] && continue\n"
	"\tbreak\n"
	"done\n"
	"if [ $rc = 0 ] && [ -b \"$out\" ]; then\n"
	"\techo \"ROOT=$out\" >>/conf/param.conf\n"
	"\t# The plain swap the boot setup replaced is no resume device any more: not\n"
	"\t# waited for (init reads param.conf after each script).\n"
	"\tif grep -qx 'swap=replaced' \"$stage\" && [ -n \"${resume:-}\" ] &&\n"
	"\t   [ -z \"$(resolve_device \"$resume\" 2>/dev/null)\" ]; then\n"
	"\t\techo 'resume=' >>/conf/param.conf\n"
	"\tfi\n"
	"elif [ -n \"$vg\" ]; then\n"
	"\t# The step may have closed the volume group, which udev opened once only.\n"
	"\tlvm vgchange -a y \"$vg\" >/dev/null 2>&1 || :\n"
	"fi\n"
	"exit 0\n";

static const char conf_text[] =
	"# fdewiz: the initramfs carries cryptsetup for the root being encrypted.\n"
	"CRYPTSETUP=y\n";

static const char unit_fmt[] =
	"[Unit]\n"
	"Description=fdewiz: encrypt the root in the background\n"
	"Documentation=man:fdewiz(8)\n"
	"After=local-fs.target\n"
	"ConditionPathExists=%1$s/stage\n"
	"\n"
	"[Service]\n"
	"Type=simple\n"
	"ExecStart=%2$s restart-continue\n"
	"# The passphrase typed at the restart waits in root's keyring.\n"
	"KeyringMode=shared\n"
	"Nice=10\n"
	"# Not idle: the volume's hotzone is held while its own I/O waits.\n"
	"IOSchedulingClass=best-effort\n"
	"IOSchedulingPriority=7\n"
	"# At shutdown it stops at the next safe point, after the hotzone in hand.\n"
	"KillMode=mixed\n"
	"TimeoutStopSec=300\n"
	"\n"
	"[Install]\n"
	"WantedBy=multi-user.target\n";

void fdw_restart_dir(char *buf, size_t len)
{
	snprintf(buf, len, "%s/restart", fdw_state_dir());
}

void fdw_restart_key_desc(const char *uuid, char *buf, size_t len)
{
	snprintf(buf, len, "fdewiz-restart:%s", uuid);
}

/* LVM's names: letters, digits and "+_.-" (lvm(8)); a node under /dev/mapper. */
static bool lvm_name_valid(const char *name)
{
	return name[0] && name[0] != '-' && strcmp(name, ".") && strcmp(name, "..") &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+_.-") ==
		       strlen(name);
}

/* A PV's stage names its group and root volume; no other stage does. */
static bool stage_lvm_valid(const struct fdw_restart_stage *st)
{
	if (strcmp(st->fstype, "LVM2_member"))
		return !st->vg[0] && !st->root_lv[0];
	return lvm_name_valid(st->vg) && !strncmp(st->root_lv, "/dev/mapper/", 12) &&
	       lvm_name_valid(st->root_lv + 12);
}

/*
 * The root's filesystem type and btrfs subvolume as the step may use them: a type it knows
 * ("" in a stage of an earlier fdewiz), and a subvolume only on a btrfs, relative, with no
 * element "." or ".." (it is joined to a mount point), no ',' (it would end a mount
 * option) and no backslash (mountinfo's escape).
 */
static bool stage_fs_valid(const char *fstype, const char *subvol)
{
	if (fstype[0] && !fdw_fstype_is_ext(fstype) && strcmp(fstype, "btrfs") &&
	    strcmp(fstype, "LVM2_member"))
		return false;
	if (!subvol[0])
		return true;
	if (strcmp(fstype, "btrfs") || subvol[0] == '/' || strpbrk(subvol, ",\\"))
		return false;
	for (const char *c = subvol; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return false;
	for (const char *e = subvol;;) {
		size_t n = strcspn(e, "/");

		if ((n == 1 && e[0] == '.') || (n == 2 && e[0] == '.' && e[1] == '.'))
			return false;
		if (!e[n])
			return true;
		e += n + 1;
	}
}

int fdw_restart_stage_write(const char *path, const struct fdw_restart_stage *st)
{
	/* Every field at its longest fits, and stays under the reader's 4096 bytes. */
	char text[2048];
	int n;

	if (!stage_fs_valid(st->fstype, st->subvol) || !stage_lvm_valid(st))
		return -EINVAL;
	n = snprintf(text, sizeof(text),
		     "# fdewiz: the root to encrypt at the next restart\n"
		     "device=%s\naddress=%s\nuuid=%s\nfs_uuid=%s\nname=%s\nboot_mib=%u\n"
		     "%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s",
		     st->device, st->address, st->uuid, st->fs_uuid, st->name, st->boot_mib,
		     st->swap_replaced ? "swap=replaced\n" : "",
		     st->home[0] ? "home=" : "", st->home, st->home[0] ? "\n" : "",
		     st->fstype[0] ? "fstype=" : "", st->fstype, st->fstype[0] ? "\n" : "",
		     st->subvol[0] ? "subvol=" : "", st->subvol, st->subvol[0] ? "\n" : "",
		     st->vg[0] ? "vg=" : "", st->vg, st->vg[0] ? "\n" : "",
		     st->root_lv[0] ? "root_lv=" : "", st->root_lv, st->root_lv[0] ? "\n" : "");
	if (n < 0 || n >= (int)sizeof(text))
		return -ENAMETOOLONG;
	return fdw_write_file_atomic(path, text, (size_t)n, 0600);
}

/* One "key=value" line's value into @out; the value has no control characters. -ENOENT
 * when there is no such line, -EINVAL when it is malformed. */
static int stage_field(const char *text, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			const char *v = p + klen + 1;
			size_t n = strcspn(v, "\n");

			if (!n || n >= len)
				return -EINVAL;
			for (size_t i = 0; i < n; i++)
				if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
					return -EINVAL;
			memcpy(out, v, n);
			out[n] = '\0';
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

int fdw_restart_stage_read(const char *path, struct fdw_restart_stage *st)
{
	char *text = NULL, mib[16];
	size_t n;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = fdw_read_file(path, 4096, FDW_READ_NOFOLLOW | FDW_READ_TEXT, &text, &n, NULL);
	if (rc)
		return rc;
	rc = stage_field(text, "device", st->device, sizeof(st->device));
	if (!rc)
		rc = stage_field(text, "address", st->address, sizeof(st->address));
	if (!rc)
		rc = stage_field(text, "uuid", st->uuid, sizeof(st->uuid));
	if (!rc)
		rc = stage_field(text, "fs_uuid", st->fs_uuid, sizeof(st->fs_uuid));
	if (!rc)
		rc = stage_field(text, "name", st->name, sizeof(st->name));
	if (rc == -ENOENT)
		rc = -EINVAL;
	/* Optional: a stage without it moves no /boot. */
	if (!rc) {
		int mrc = stage_field(text, "boot_mib", mib, sizeof(mib));
		char *end = mib;
		unsigned long v = mrc ? 0 : strtoul(mib, &end, 10);

		if (mrc == -EINVAL || (!mrc && (*end || !isdigit((unsigned char)mib[0]) ||
						v > 1u << 20)))
			rc = -EINVAL;
		else
			st->boot_mib = (unsigned)v;
	}
	/* Optional too: an absolute path, or the check against the system is skipped. */
	if (!rc) {
		int hrc = stage_field(text, "home", st->home, sizeof(st->home));

		if (hrc == -EINVAL || (!hrc && (st->home[0] != '/' || strstr(st->home, "/.."))))
			rc = -EINVAL;
	}
	/* Optional: a stage without them is an ext root's, at its filesystem's top. */
	if (!rc) {
		int frc = stage_field(text, "fstype", st->fstype, sizeof(st->fstype));
		int src = stage_field(text, "subvol", st->subvol, sizeof(st->subvol));

		if (frc == -EINVAL || src == -EINVAL || !stage_fs_valid(st->fstype, st->subvol))
			rc = -EINVAL;
	}
	/* Optional: a stage without it leaves the resume device to the initramfs. */
	if (!rc) {
		char swap[16];
		int wrc = stage_field(text, "swap", swap, sizeof(swap));

		if (wrc == -EINVAL || (!wrc && strcmp(swap, "replaced")))
			rc = -EINVAL;
		st->swap_replaced = !wrc;
	}
	/* On a PV only, both (checked against its fstype). */
	if (!rc) {
		int vrc = stage_field(text, "vg", st->vg, sizeof(st->vg));
		int lrc = stage_field(text, "root_lv", st->root_lv, sizeof(st->root_lv));

		if (vrc == -EINVAL || lrc == -EINVAL || !stage_lvm_valid(st))
			rc = -EINVAL;
	}
	free(text);
	return rc;
}

static int put(const char *root, const char *path, const char *text, unsigned mode)
{
	char full[PATH_MAX];

	if (snprintf(full, sizeof(full), "%s%s", strcmp(root, "/") ? root : "", path) >=
	    (int)sizeof(full))
		return -ENAMETOOLONG;
	return fdw_write_file_atomic(full, text, strlen(text), mode);
}

/* Quotes would end the hook's single-quoted words. */
static bool shell_safe(const char *s)
{
	return !strpbrk(s, "'\n\\");
}

int fdw_restart_files_install(const char *root, const char *exe, const char *stage_dir,
			      char *why, size_t len)
{
	char text[4096], wants[PATH_MAX];
	const char *failed = HOOK_PATH;
	int rc;

	if (!shell_safe(exe) || !shell_safe(stage_dir)) {
		snprintf(why, len, _("the path of fdewiz or of its state folder has a quote or "
				     "a newline in it. Nothing was changed."));
		return -EINVAL;
	}
	/* A hook cut short would carry half of what the step runs. */
	rc = snprintf(text, sizeof(text), hook_fmt, stage_dir, exe);
	rc = rc < 0 || rc >= (int)sizeof(text) ? -ENAMETOOLONG : put(root, HOOK_PATH, text, 0755);
	if (!rc) {
		failed = SCRIPT_PATH;
		rc = put(root, SCRIPT_PATH, script_text, 0755);
	}
	if (!rc) {
		failed = CONF_PATH;
		rc = put(root, CONF_PATH, conf_text, 0644);
	}
	if (!rc) {
		failed = UNIT_PATH;
		snprintf(text, sizeof(text), unit_fmt, stage_dir, exe);
		rc = put(root, UNIT_PATH, text, 0644);
	}
	if (!rc) {
		failed = WANTS_PATH;
		snprintf(wants, sizeof(wants), "%s%s", strcmp(root, "/") ? root : "", WANTS_PATH);
		unlink(wants);
		rc = symlink(UNIT_PATH, wants) ? -errno : 0;
	}
	if (rc) {
		snprintf(why, len, _("%s could not be written (%s)."), failed, strerror(-rc));
		fdw_restart_files_remove(root);
	}
	return rc;
}

static int remove_from(const char *root, size_t first)
{
	static const char *const paths[] = { WANTS_PATH, UNIT_PATH, CONF_PATH, SCRIPT_PATH,
					     HOOK_PATH };
	char full[PATH_MAX];
	int rc = 0;

	for (size_t i = first; i < sizeof(paths) / sizeof(paths[0]); i++) {
		snprintf(full, sizeof(full), "%s%s", strcmp(root, "/") ? root : "", paths[i]);
		if (unlink(full) != 0 && errno != ENOENT && !rc)
			rc = -errno;
	}
	return rc;
}

int fdw_restart_files_remove(const char *root)
{
	return remove_from(root, 0);
}

int fdw_restart_files_remove_initramfs(const char *root)
{
	return remove_from(root, 2);
}

bool fdw_restart_files_present(const char *root)
{
	char full[PATH_MAX];
	const char *r = strcmp(root, "/") ? root : "";

	snprintf(full, sizeof(full), "%s%s", r, HOOK_PATH);
	if (access(full, F_OK) == 0)
		return true;
	snprintf(full, sizeof(full), "%s%s", r, SCRIPT_PATH);
	return access(full, F_OK) == 0;
}

/* In a child: the system's root mounted read-only, its stage record read. */
static int stage_in_root_main(void *ctx, char *note, size_t len)
{
	const struct fdw_restart_stage *st = ctx;
	const unsigned long flags = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
	char top[PATH_MAX], path[PATH_MAX + 400];
	struct fdw_restart_stage found;
	int rc = fdw_private_mount_dir("restart-check", top, sizeof(top));

	(void)note;
	(void)len;
	if (rc)
		return rc;
	/*
	 * No journal or log replay: nothing is written. ext4's driver reads ext2 and ext3 too;
	 * a btrfs is mounted at its top level (subvolid 5), where the root's subvolume is a
	 * folder.
	 */
	if (!strcmp(st->fstype, "btrfs"))
		rc = mount(st->device, top, "btrfs", flags, "rescue=nologreplay,subvolid=5");
	else if (st->root_lv[0])
		rc = mount(st->root_lv, top, "ext4", flags, "noload");
	else
		rc = mount(st->device, top, "ext4", flags, "noload");
	if (rc != 0)
		return -errno;
	snprintf(path, sizeof(path), "%s%s%s%s/stage", top, st->subvol[0] ? "/" : "", st->subvol,
		 st->home);
	rc = fdw_restart_stage_read(path, &found);
	umount2(top, MNT_DETACH);
	if (rc == -ENOENT || (!rc && strcmp(found.uuid, st->uuid)))
		return -ENOENT;
	return rc;
}

int fdw_restart_stage_in_root(const char *device, const struct fdw_restart_stage *st)
{
	struct fdw_restart_stage at = *st;
	char note[8];
	int rc;

	if (!st->home[0])
		return 1;
	snprintf(at.device, sizeof(at.device), "%s", device);
	rc = fdw_child_run(stage_in_root_main, &at, note, sizeof(note));
	return rc == 0 ? 1 : rc == -ENOENT ? 0 : rc;
}
