/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A partition another installed system mounts, encrypted from outside: that system's
 * crypttab and fstab after the conversion, recorded, idempotent and resumable. */
#include "config.h"

#include <ctype.h>
#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/child.h"
#include "crypttab.h"
#include "base/sysstate.h"
#include "base/durable.h"
#include "base/i18n.h"
#include "base/log.h"
#include "base/tabfile.h"
#include "base/loopdev.h"
#include "system_boot.h"
#include "system_data.h"
#include "system_data_internal.h"
#include "base/testhook.h"
#include "base/uuid.h"

/* An fstab is small text; more is not one. */
#define FSTAB_MAX (256 * 1024)

bool fdw_system_data_applies(const struct fdw_partition *p)
{
	return p->owner.found && p->owner.use == FDW_USE_DATA;
}

void fdw_system_data_name(const struct fdw_owner *o, char *name, size_t len)
{
	char base[64] = "";
	size_t n = 0;

	/* "/srv/data" -> "srv-data": what crypttab and device-mapper names allow. */
	for (const char *p = o->dir; *p && n + 1 < sizeof(base); p++) {
		unsigned char c = (unsigned char)*p;

		if (isalnum(c) || c == '_')
			base[n++] = (char)tolower(c);
		else if (n && base[n - 1] != '-')
			base[n++] = '-';
	}
	while (n && base[n - 1] == '-')
		n--;
	base[n] = '\0';
	snprintf(name, len, "%.40s_crypt", n ? base : "data");
	if (!fdw_crypttab_name_valid(name))
		snprintf(name, len, "data_crypt");
}

size_t fdw_system_data_steps(const struct fdw_partition *p, char *buf, size_t len)
{
	char whose[1024], name[64];
	int n;

	fdw_owner_describe(&p->owner, whose, sizeof(whose));
	fdw_system_data_name(&p->owner, name, sizeof(name));
	n = snprintf(buf, len,
		     _("this is %s: its boot entries are written in THAT system, not in this "
		       "one\n"
		       "mount its root (%s) for a moment and add '%s' (by the new LUKS UUID) to "
		       "its etc/crypttab\n"
		       "its etc/fstab mounts %s from /dev/mapper/%s instead of '%s' (systemd "
		       "waits for that device as long as the passphrase takes; a UUID= line "
		       "would give up after 90 s)\n"
		       "every file changed is kept beside it as a backup (FILE.fdewiz-...bak)"),
		     whose, p->owner.root_address, name, p->owner.dir, name, p->owner.spec);
	if (n < 0 || (size_t)n >= len)
		return n < 0 ? 0 : len - 1;
	/* Its root encrypted (and unlocked here, or it could not have been read): a key file. */
	n += snprintf(buf + n, len - (size_t)n, "\n%s",
		      p->owner.root_via[0]
			      ? _("its root is encrypted: this partition gets a key file inside "
				  "it (/etc/cryptsetup-keys.d), so that one passphrase starts the "
				  "system")
			      : _("at boot that system asks for this partition's passphrase; "
				  "encrypt its root afterwards with the same passphrase and fdewiz "
				  "gives this partition a key file inside it, so that one "
				  "passphrase starts the system"));
	return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}

size_t fdw_system_data_unseen_note(const struct fdw_disk *d, const struct fdw_partition *p,
				   char *buf, size_t len)
{
	int n = 0;

	if (p->owner.found || p->luks_version || p->os.found)
		return 0;
	for (size_t i = 0; i < d->n_parts && !n; i++) {
		const struct fdw_partition *q = &d->parts[i];

		if (q == p || !q->luks_version || q->n_holders)
			continue;
		n = snprintf(buf, len, _("%s on this disk is encrypted and closed, so fdewiz cannot "
					 "see whether it is the root of a system that mounts this "
					 "partition. If it is, open it first (cryptsetup open %s "
					 "NAME): fdewiz then writes that system's crypttab, and the "
					 "system finds this partition at its next boot."),
			     q->address, q->address);
	}
	return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}

/* Text kept in the record, one per line: nothing that could end a line or hide one. */
static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

int fdw_system_data_prepare(const struct fdw_target *t, bool detached, char *why, size_t len)
{
	const struct fdw_owner *o = &t->part->owner;

	if (detached) {
		snprintf(why, len, _("%s belongs to another system (%s), which could not read a "
				     "header kept in a file on this one at boot: choose another "
				     "strategy. Nothing was changed."), t->part->address,
			 o->root_address);
		return -EINVAL;
	}
	if (!printable(o->dir) || !printable(o->spec) || !printable(o->root_disk) ||
	    !fdw_uuid_valid(o->root_uuid)) {
		snprintf(why, len, _("%s belongs to another system (%s), but how that system "
				     "names it cannot be recorded (control characters, or its "
				     "root has no UUID): set up its crypttab by hand with 'fdewiz "
				     "crypttab --root' instead. Nothing was changed."),
			 t->part->address, o->root_address);
		return -EINVAL;
	}
	return 0;
}

int fdw_system_data_record(const struct fdw_target *t, const struct fdw_job *job, char *why,
			   size_t len)
{
	const struct fdw_owner *o = &t->part->owner;
	struct fdw_sysdata_record r = { 0 };
	int rc;

	fdw_system_data_name(o, r.name, sizeof(r.name));
	snprintf(r.dir, sizeof(r.dir), "%s", o->dir);
	snprintf(r.spec, sizeof(r.spec), "%s", o->spec);
	snprintf(r.root_disk, sizeof(r.root_disk), "%s", o->root_disk);
	snprintf(r.root_uuid, sizeof(r.root_uuid), "%s", o->root_uuid);
	snprintf(r.root_address, sizeof(r.root_address), "%s", o->root_address);
	r.root_number = o->root_number;
	r.root_start = o->root_start;
	r.root_size = o->root_size;
	rc = fdw_system_data_save(job, &r);
	if (rc)
		snprintf(why, len, _("cannot record the steps for the system this partition "
				     "belongs to in the state folder (%s). Nothing was changed."),
			 strerror(-rc));
	return rc;
}

bool fdw_system_data_pending(const struct fdw_job *job)
{
	struct fdw_sysdata_record r;

	return fdw_system_data_load(job, &r) == 0 && !r.done;
}

int fdw_system_data_status(const struct fdw_job *job, struct fdw_system_data_result *res,
			   bool *done)
{
	struct fdw_sysdata_record r;
	int rc = fdw_system_data_load(job, &r);

	memset(res, 0, sizeof(*res));
	if (rc)
		return rc;
	*done = r.done;
	snprintf(res->root_address, sizeof(res->root_address), "%s", r.root_address);
	snprintf(res->changed, sizeof(res->changed), "%s", r.changed);
	res->key_file = strstr(r.changed, FDW_KEY_FILE_DIR "/") != NULL;
	snprintf(res->line, sizeof(res->line), "%s UUID=%s %s%s%s luks", r.name, job->id,
		 res->key_file ? FDW_KEY_FILE_DIR "/" : "none", res->key_file ? r.name : "",
		 res->key_file ? ".key" : "");
	return 0;
}

/* @root/etc/fstab, read without following a link that system's files might hold. */
static char *read_fstab(const char *root)
{
	int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), efd = -1, fd = -1;
	char *text = NULL;
	size_t used = 0;
	ssize_t n;

	if (dfd >= 0)
		efd = openat(dfd, "etc", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (efd >= 0)
		fd = openat(efd, "fstab", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (text = malloc(FSTAB_MAX + 1))) {
		while (used < FSTAB_MAX && (n = read(fd, text + used, FSTAB_MAX - used)) > 0)
			used += (size_t)n;
		text[used] = '\0';
	}
	if (fd >= 0)
		close(fd);
	if (efd >= 0)
		close(efd);
	if (dfd >= 0)
		close(dfd);
	return text;
}

/* Does what mounts @r->dir in @root's fstab still find the filesystem at boot? */
static int fstab_check(const char *root, const struct fdw_sysdata_record *r, char *why, size_t len)
{
	char *text = read_fstab(root), mapper[128];
	struct fdw_tab_reader tab;
	struct fdw_tab_line l;
	int rc = 0;

	if (!text) {
		snprintf(why, len, _("its etc/fstab could not be read back"));
		return -EIO;
	}
	snprintf(mapper, sizeof(mapper), "/dev/mapper/%s", r->name);
	fdw_tab_begin(&tab, text);
	while (fdw_tab_next(&tab, &l)) {
		char spec[256], dir[256];

		if (!fdw_tab_field(&l, 0, spec, sizeof(spec)) ||
		    !fdw_tab_field(&l, 1, dir, sizeof(dir)) || strcmp(dir, r->dir))
			continue;
		/* The filesystem keeps its UUID and label inside the volume. */
		if (!strncmp(spec, "UUID=", 5) || !strncmp(spec, "LABEL=", 6) ||
		    !strncmp(spec, "/dev/disk/by-uuid/", 18) ||
		    !strncmp(spec, "/dev/disk/by-label/", 19) || !strcmp(spec, mapper))
			continue;
		snprintf(why, len, _("its etc/fstab still mounts %s from %s, which is the "
				     "encrypted partition now, not the filesystem: change it to "
				     "%s"), r->dir, spec, mapper);
		rc = -EUCLEAN;
		break;
	}
	free(text);
	return rc;
}

/* "etc/crypttab (backup: ...)" as that system names its files, not under our mount. */
static void note_changed(struct fdw_sysdata_record *r, const char *root, const char *file,
			 const struct fdw_tab_result *tab)
{
	size_t used = strlen(r->changed), n = strlen(root);
	const char *backup = !strncmp(tab->backup, root, n) ? tab->backup + n : tab->backup;

	if (!tab->changed)
		return;
	snprintf(r->changed + used, sizeof(r->changed) - used, "%s %s (%s)\n", r->root_address,
		 file, backup[0] ? backup : _("new file"));
}

/*
 * Its root is encrypted (@pass set): one passphrase at boot, with a key file for this volume
 * inside that root, added with this volume's passphrase (fdw_system_keyfile_give).
 */
static int key_file(const char *root, const struct fdw_job *job, struct fdw_sysdata_record *r,
		    const struct fdw_secret *pass, char *why, size_t len)
{
	struct fdw_tab_result tab, key = { .changed = true };
	char source[64], inside[256];
	int rc;

	if (!pass || !pass->len)
		return 0;
	snprintf(source, sizeof(source), "UUID=%s", job->id);
	rc = fdw_system_keyfile_give(root, r->name, source, pass, inside, sizeof(inside), &tab);
	if (rc < 0) {
		snprintf(why, len, _("its crypttab could not name the key file (%s)"),
			 strerror(-rc));
		return rc;
	}
	if (rc > 0) {
		note_changed(r, root, inside, &key);
		note_changed(r, root, "/etc/crypttab", &tab);
	}
	return 0;
}

/* In that system's root mounted at @root: its crypttab line, its fstab, the check. */
static int write_tables(const char *root, const struct fdw_job *job, struct fdw_sysdata_record *r,
			const struct fdw_secret *pass, char *why, size_t len)
{
	struct fdw_part_ids ids = { 0 };
	struct fdw_tab_result tab;
	char detail[1024];
	int rc;

	/*
	 * Every name that system gives it becomes /dev/mapper/NAME, the filesystem's UUID=
	 * too: systemd waits for a crypttab volume's mapper device as long as the passphrase
	 * takes, but gives up on a by-uuid device after 90 s (DefaultDeviceTimeoutSec) and
	 * starts the emergency shell. The raw partition's names now reach the LUKS header.
	 */
	ids.spec = r->spec;
	if (!strncmp(r->spec, "PARTLABEL=", 10))
		ids.partlabel = r->spec + 10;
	if (job->ident.partuuid[0])
		ids.partuuid = job->ident.partuuid;
	rc = fdw_crypttab_add(root, r->name, job->id, false, &tab, detail, sizeof(detail));
	if (rc < 0) {
		snprintf(why, len, "%s", detail);
		return rc;
	}
	note_changed(r, root, "/etc/crypttab", &tab);
	rc = fdw_fstab_update(root, r->name, &ids, &tab, detail, sizeof(detail));
	if (rc < 0) {
		snprintf(why, len, "%s", detail);
		return rc;
	}
	note_changed(r, root, "/etc/fstab", &tab);
	rc = key_file(root, job, r, pass, why, len);
	if (rc < 0)
		return rc;
	/* Saved now, so that a step done again still lists the files this one changed. */
	rc = fdw_system_data_save(job, r);
	if (rc)
		return rc;
	fdw_test_point("system-data-written");
	return fstab_check(root, r, why, len);
}

/*
 * That system's root, found again by identity: the partition at the recorded place of the
 * recorded disk whose filesystem has the recorded UUID. Either already mounted here
 * (@mounted set, its mount point) or a device to mount (@dev: its node, or "" for a
 * partition of an image, reached through a loop device, or its open mapping when it is
 * encrypted: *@encrypted), with its type.
 */
static int find_root(const struct fdw_sysdata_record *r, char *mounted, char *dev, char *type,
		     size_t len, bool *encrypted, char *why, size_t why_len)
{
	struct fdw_disk d;
	int rc = fdw_disk_scan(r->root_disk, &d);

	mounted[0] = dev[0] = type[0] = '\0';
	if (rc) {
		snprintf(why, why_len, _("the disk that holds it (%s) cannot be read: %s"),
			 r->root_disk, fdw_scan_error_text(rc));
		return rc;
	}
	rc = -ENODEV;
	for (size_t i = 0; i < d.n_parts; i++) {
		const struct fdw_partition *p = &d.parts[i];

		if (p->number != r->root_number || p->start != r->root_start ||
		    p->size != r->root_size || !p->uuid || strcasecmp(p->uuid, r->root_uuid))
			continue;
		*encrypted = p->luks_version != 0;
		if (p->n_mountpoints) {
			snprintf(mounted, len, "%s", p->mountpoints[0]);
			rc = 0;
		} else if (p->os.via[0]) {
			/* Encrypted, and unlocked here: its filesystem is on the mapping. */
			char *t = blkid_get_tag_value(NULL, "TYPE", p->os.via);

			snprintf(dev, len, "%s", p->os.via);
			snprintf(type, len, "%s", t ? t : "ext4");
			free(t);
			rc = 0;
		} else if (p->luks_version) {
			snprintf(why, why_len, _("its root (%s) is encrypted and not open here: "
						 "open it first (cryptsetup open %s NAME), so "
						 "that fdewiz can write its crypttab"),
				 r->root_address, r->root_address);
			rc = -ENOKEY;
		} else if (p->n_holders) {
			snprintf(why, why_len, _("its root (%s) is in use by %s: stop that first"),
				 r->root_address, p->holders[0]);
			rc = -EBUSY;
		} else {
			snprintf(dev, len, "%s", p->node ? p->node : "");
			snprintf(type, len, "%s", p->fstype ? p->fstype : "ext4");
			rc = 0;
		}
	}
	if (rc == -ENODEV)
		snprintf(why, why_len, _("its root (filesystem UUID %s) is no longer partition %d "
					 "of %s: attach that disk"), r->root_uuid,
			 r->root_number, r->root_disk);
	fdw_disk_free(&d);
	return rc;
}

/* In a child with its own mount namespace: mount that root, write, unmount; the loop
 * device and the mount die with the child whatever happens. */
static int tables_in_child(const struct fdw_job *job, struct fdw_sysdata_record *r, const char *dev,
			   const char *type, const struct fdw_secret *pass, char *why, size_t len)
{
	char dir[4096], loop[64] = "";
	const char *src = dev;
	int rc, loop_fd = -1;

	rc = fdw_child_private_mounts();
	if (rc)
		return rc;
	if (!dev[0]) {
		loop_fd = fdw_loop_attach(r->root_disk, r->root_start, r->root_size, loop,
					  sizeof(loop));
		if (loop_fd < 0)
			return loop_fd;
		src = loop;
	}
	fdw_job_file_path(job, FDW_JOB_OWNER_ROOT, dir, sizeof(dir));
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -errno;
	if (mount(src, dir, type, MS_NOATIME | MS_NOSUID | MS_NODEV, NULL) != 0) {
		rc = -errno;
		snprintf(why, len, _("its root could not be mounted (%s)"), strerror(errno));
		rmdir(dir);
		return rc;
	}
	rc = write_tables(dir, job, r, pass, why, len);
	sync();
	if (umount2(dir, 0) != 0 && umount2(dir, MNT_DETACH) != 0)
		fdw_log(FDW_LOG_WARN, "system data: cannot unmount %s: %s", dir, strerror(errno));
	rmdir(dir);
	if (loop_fd >= 0)
		close(loop_fd);
	return rc;
}

/* The step runs in a child (fdw_child_run): its reason comes back, its record is on disk. */
struct data_child {
	const struct fdw_job *job;
	struct fdw_sysdata_record *r;
	const char *mounted, *dev, *type;
	const struct fdw_secret *pass;	/* this volume's: for a key file in an encrypted root */
};

static int data_child_main(void *ctx, char *why, size_t len)
{
	struct data_child *c = ctx;
	int rc;

	rc = c->mounted[0] ? write_tables(c->mounted, c->job, c->r, c->pass, why, len)
			   : tables_in_child(c->job, c->r, c->dev, c->type, c->pass, why, len);
	if (!rc) {
		c->r->done = true;
		rc = fdw_system_data_save(c->job, c->r);
	}
	return rc;
}

static int run_child(const struct fdw_job *job, struct fdw_sysdata_record *r, const char *mounted,
		     const char *dev, const char *type, const struct fdw_secret *pass, char *why,
		     size_t len)
{
	struct data_child c = { job, r, mounted, dev, type, pass };

	return fdw_child_run(data_child_main, &c, why, len);
}

int fdw_system_data_finish(const struct fdw_job *job, const struct fdw_secret *pass,
			   struct fdw_system_data_result *res, char *why, size_t len)
{
	char mounted[4096], dev[4096], type[4096], detail[1024] = "";
	struct fdw_sysdata_record r;
	bool done = false, encrypted = false;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = fdw_system_data_load(job, &r);
	if (rc) {
		snprintf(why, len, _("no step for the system %s belongs to is recorded (%s)."),
			 job->address, strerror(-rc));
		return rc;
	}
	if (r.done)
		return fdw_system_data_status(job, res, &done);
	fdw_log(FDW_LOG_INFO, "%s: writing the crypttab of the system on %s", job->address,
		r.root_address);
	rc = find_root(&r, mounted, dev, type, sizeof(mounted), &encrypted, detail,
		       sizeof(detail));
	if (!rc)
		rc = run_child(job, &r, mounted, dev, type, encrypted ? pass : NULL, detail,
			       sizeof(detail));
	if (rc == -EINTR && !detail[0])
		snprintf(detail, sizeof(detail), _("the step was stopped before it finished"));
	if (rc) {
		snprintf(why, len, _("the crypttab of the system on %s could not be written: %s. "
				     "The data is intact and encrypted; that system cannot mount %s "
				     "until this is done: 'fdewiz resume %s' does this step again."),
			 r.root_address, detail[0] ? detail : strerror(-rc), r.dir, job->address);
		return rc;
	}
	fdw_log(FDW_LOG_INFO, "%s: the system on %s opens it at boot", job->address,
		r.root_address);
	return fdw_system_data_status(job, res, &done);
}
