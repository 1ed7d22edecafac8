/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Erase and encrypt: LUKS2 format of a whole partition and a new filesystem inside it. */
#include "config.h"

#include <errno.h>
#include <libcryptsetup.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_cipher.h"
#include "boot/boot_entries.h"
#include "luks2/convert.h"
#include "luks2/cryptglue.h"
#include "boot/crypttab.h"
#include "erase.h"
#include "base/i18n.h"
#include "base/log.h"
#include "base/spawn.h"
#include "base/textsafe.h"
#include "base/units.h"

/* One erase being set up: fdw_erase_prepare() makes it, fdw_erase_close() ends it. */
struct fdw_erase {
	struct fdw_target target;
	bool target_open;
	int lock;
	char address[PATH_MAX];
	char fs[16];
	char label[256];
	char cipher[32], cipher_mode[64];
	unsigned key_bits;
	bool fast_pbkdf;
	enum fdw_erase_after after;
	char name[128];
	char root[PATH_MAX];
	char what[768];			/* "ext4 'Data', 135 MiB", escaped for a terminal */
	char size[32];
};

struct fs_kind {
	const char *name;
	size_t label_max;	/* bytes */
};

static const struct fs_kind fs_kinds[] = {
	{ "ext4", 16 }, { "xfs", 12 }, { "btrfs", 255 }, { "vfat", 11 }, { "none", 0 },
};

static const struct fs_kind *fs_find(const char *fs)
{
	for (size_t i = 0; i < sizeof(fs_kinds) / sizeof(fs_kinds[0]); i++)
		if (fs && !strcmp(fs, fs_kinds[i].name))
			return &fs_kinds[i];
	return NULL;
}

bool fdw_erase_fs_known(const char *fs)
{
	return fs_find(fs) != NULL;
}

const char *fdw_erase_fs_name(size_t i)
{
	return i < sizeof(fs_kinds) / sizeof(fs_kinds[0]) ? fs_kinds[i].name : NULL;
}

int fdw_erase_check(const struct fdw_partition *part, char *why, size_t why_len)
{
	if (part->n_mountpoints) {
		snprintf(why, why_len, _("it is mounted at %s; unmount it first"),
			 part->mountpoints[0]);
		return -EBUSY;
	}
	if (part->swap_active) {
		snprintf(why, why_len, _("it is active swap; turn it off first (swapoff)"));
		return -EBUSY;
	}
	if (part->n_holders) {
		snprintf(why, why_len, _("it is in use by %s; close or detach that first"),
			 part->holders[0]);
		return -EBUSY;
	}
	if (part->read_only) {
		snprintf(why, why_len, _("it is read-only"));
		return -EROFS;
	}
	if (part->flag_esp) {
		snprintf(why, why_len, _("it is the EFI system partition, which the firmware "
					 "must read unencrypted"));
		return -EPERM;
	}
	if (part->flag_bios_boot) {
		snprintf(why, why_len, _("it is the BIOS boot partition, which the boot loader "
					 "needs unencrypted"));
		return -EPERM;
	}
	if (part->extended) {
		snprintf(why, why_len, _("it is an extended partition, a container of other "
					 "partitions"));
		return -EPERM;
	}
	if (part->size < FDW_MIN_PARTITION) {
		snprintf(why, why_len, _("it is smaller than 64 MiB"));
		return -ENOSPC;
	}
	/* Another installed system's /boot (or /usr): it would no longer start. Its /home: a
	 * new filesystem has a new UUID, which its fstab does not name, so it would wait for
	 * the old one at boot; encrypting in place keeps the data and writes its crypttab. */
	if (part->owner.found && (part->owner.use == FDW_USE_BOOT ||
				  part->owner.use == FDW_USE_DATA)) {
		char whose[1024];

		fdw_owner_describe(&part->owner, whose, sizeof(whose));
		if (part->owner.use == FDW_USE_BOOT)
			snprintf(why, why_len, _("it is the %s, which that system reads before it "
						 "can ask for a passphrase: erasing it would leave "
						 "it unable to start. It stays unencrypted by design; "
						 "encrypt that system's root (%s) instead"), whose,
				 part->owner.root_address);
		else
			snprintf(why, why_len, _("it is the %s, and that system's fstab names the "
						 "filesystem on it (%s), which erasing replaces: that "
						 "system would wait for it at boot. Encrypt it in "
						 "place instead (fdewiz encrypt), which keeps the data "
						 "and writes that system's crypttab"), whose,
				 part->owner.spec);
		return -EPERM;
	}
	/* Its data only looks empty to blkid: the header that reads it lives in a file. */
	if (part->detached_header) {
		snprintf(why, why_len, _("it is an encrypted LUKS2 volume whose header is kept at "
					 "%s; erasing it would destroy that data. Open it with "
					 "that header instead"), part->detached_header);
		return -EPERM;
	}
	return 0;
}

int fdw_erase_check_fs(const char *fs, const char *label, char *why, size_t why_len)
{
	const struct fs_kind *k = fs_find(fs);

	if (!k) {
		snprintf(why, why_len, _("'%s' is not a filesystem erase-encrypt can make (ext4, "
					 "xfs, btrfs, vfat or none)"), fs ? fs : "");
		return -EINVAL;
	}
	if (label && *label && strlen(label) > k->label_max) {
		if (!k->label_max)
			snprintf(why, why_len, _("a label needs a filesystem (--fs)"));
		else
			snprintf(why, why_len, _("a %s label holds at most %zu bytes"), k->name,
				 k->label_max);
		return -EINVAL;
	}
	if (strcmp(fs, "none") && !fdw_have_device_mapper()) {
		snprintf(why, why_len, _("this system has no device-mapper, so the new volume "
					 "cannot be opened to make the %s filesystem in it; use --fs "
					 "none here and make the filesystem after opening the volume "
					 "on a system that can ('cryptsetup open', then mkfs)"), fs);
		return -ENOTSUP;
	}
	return 0;
}

static int make_fs(const char *fs, const char *label, const char *dev)
{
	const char *argv[8];
	int n = 0;

	if (!strcmp(fs, "ext4")) {
		argv[n++] = "mkfs.ext4";
		argv[n++] = "-q";
		argv[n++] = "-F";
	} else if (!strcmp(fs, "xfs")) {
		argv[n++] = "mkfs.xfs";
		argv[n++] = "-q";
		argv[n++] = "-f";
	} else if (!strcmp(fs, "btrfs")) {
		argv[n++] = "mkfs.btrfs";
		argv[n++] = "-q";
		argv[n++] = "-f";
	} else {
		argv[n++] = "mkfs.vfat";
	}
	if (label && *label) {
		argv[n++] = !strcmp(fs, "vfat") ? "-n" : "-L";
		argv[n++] = label;
	}
	argv[n++] = dev;
	argv[n] = NULL;
	return fdw_spawn((char *const *)argv);
}

int fdw_erase_encrypt(const struct fdw_erase_params *p, const struct fdw_secret *pass,
		      char *uuid, size_t uuid_len, char *why, size_t why_len)
{
	struct crypt_params_luks2 luks2 = { .sector_size = p->sector_size };
	struct fdw_cipher_advice advice = { .key_bits = 512 };
	struct crypt_device *cd = NULL;
	char name[64], node[96];
	bool with_fs = p->fs && strcmp(p->fs, "none");
	int rc;

	rc = fdw_erase_check_fs(p->fs ? p->fs : "none", p->label, why, why_len);
	if (rc)
		return rc;
	rc = fdw_crypt_init(&cd, p->device, NULL);
	if (rc) {
		snprintf(why, why_len, _("cannot open %s: %s; nothing was changed"), p->device,
			 strerror(-rc));
		return rc;
	}
	if (p->fast_pbkdf)
		rc = fdw_crypt_use_fast_pbkdf(cd);
	/* No cipher asked for: the one the advisor recommends for this CPU. */
	if (!p->cipher)
		fdw_cipher_recommend(&advice);
	if (!rc)
		rc = crypt_format(cd, CRYPT_LUKS2, p->cipher ? p->cipher : advice.cipher,
				  p->cipher ? p->cipher_mode : advice.mode, NULL, NULL,
				  (p->key_bits ? p->key_bits : p->cipher ? 512 : advice.key_bits) / 8,
				  &luks2);
	if (rc) {
		snprintf(why, why_len, _("libcryptsetup could not format %s (%s); its header "
					 "area may have been partly written, so treat the old data "
					 "as lost"), p->device, strerror(-rc));
		goto out;
	}
	rc = crypt_keyslot_add_by_volume_key(cd, CRYPT_ANY_SLOT, NULL, 0, pass->data, pass->len);
	if (rc < 0) {
		snprintf(why, why_len, _("%s was formatted but no keyslot could be added (%s); "
					 "run erase-encrypt again"), p->device, strerror(-rc));
		goto out;
	}
	snprintf(uuid, uuid_len, "%s", crypt_get_uuid(cd) ? crypt_get_uuid(cd) : "");
	fdw_log(FDW_LOG_INFO, "formatted %s as LUKS2, UUID %s", p->device, uuid);
	rc = 0;
	if (!with_fs)
		goto out;
	snprintf(name, sizeof(name), "fdewiz-erase-%ld", (long)getpid());
	snprintf(node, sizeof(node), "/dev/mapper/%s", name);
	rc = crypt_activate_by_passphrase(cd, name, CRYPT_ANY_SLOT, pass->data, pass->len, 0);
	if (rc < 0) {
		snprintf(why, why_len, _("the LUKS2 volume was made but could not be opened to "
					 "make the filesystem (%s); open it and run mkfs yourself"),
			 strerror(-rc));
		goto out;
	}
	rc = make_fs(p->fs, p->label, node);
	if (rc) {
		snprintf(why, why_len, _("the LUKS2 volume was made, but mkfs.%s failed (%s %d); "
					 "see the log (-v), then open the volume and run mkfs "
					 "yourself"), p->fs, rc < 0 ? "error" : "exit", rc);
		rc = rc < 0 ? rc : -EIO;
	}
	if (crypt_deactivate(cd, name) < 0 && !rc) {
		snprintf(why, why_len, _("the volume and its %s filesystem were made, but %s "
					 "could not be closed; close it with 'cryptsetup close %s'"),
			 p->fs, node, name);
		rc = -EBUSY;
	}
out:
	crypt_free(cd);
	return rc;
}

/* What is on the partition now, for the confirmation: "ext4 'Data', 135 MiB". */
static void describe(struct fdw_erase *e)
{
	const struct fdw_partition *p = e->target.part;
	char fs[128], label[512];

	fdw_format_size(p->size, e->size, sizeof(e->size));
	fdw_text_safe(p->fstype, fs, sizeof(fs));
	fdw_text_safe(p->label, label, sizeof(label));
	if (p->fstype && p->label && *p->label)
		snprintf(e->what, sizeof(e->what), "%s '%s', %s", fs, label, e->size);
	else if (p->fstype)
		snprintf(e->what, sizeof(e->what), "%s, %s", fs, e->size);
	else
		snprintf(e->what, sizeof(e->what), p->looks_random ?
			 _("no signature found: may be encrypted data, %s") :
			 _("no filesystem found, %s"), e->size);
}

/* The options, defaults filled in, copied into @e. */
static int take_options(struct fdw_erase *e, const struct fdw_erase_options *o, char *why,
			size_t why_len)
{
	const char *fs = o->fs ? o->fs : FDW_ERASE_DEFAULT_FS;

	snprintf(e->fs, sizeof(e->fs), "%s", fs);
	snprintf(e->label, sizeof(e->label), "%s", o->label ? o->label : "");
	snprintf(e->cipher, sizeof(e->cipher), "%s", o->cipher ? o->cipher : "");
	snprintf(e->cipher_mode, sizeof(e->cipher_mode), "%s",
		 o->cipher_mode ? o->cipher_mode : "");
	e->key_bits = o->key_bits;
	e->fast_pbkdf = o->fast_pbkdf;
	e->after = o->after;
	snprintf(e->root, sizeof(e->root), "%s", o->root ? o->root : "/");
	e->name[0] = '\0';
	if (o->name && !fdw_crypttab_name_valid(o->name)) {
		snprintf(why, why_len, _("'%s' cannot be a device-mapper name (letters, digits, "
					 "'-' and '_')"), o->name);
		return -EINVAL;
	}
	if (o->name)
		snprintf(e->name, sizeof(e->name), "%s", o->name);
	else if (e->label[0])
		fdw_crypttab_name_from_label(e->label, e->name, sizeof(e->name));
	if (!e->name[0] && e->target.part)
		fdw_crypttab_default_name(e->target.part, e->name, sizeof(e->name));
	return 0;
}

const char *fdw_erase_after_unavailable(const struct fdw_erase *e, enum fdw_erase_after after,
					const char *root)
{
	const struct fdw_target *tg = &e->target;

	if (after == FDW_ERASE_AFTER_OPEN && !fdw_have_device_mapper())
		return _("this system has no device-mapper, so the new volume cannot be left "
			 "open here");
	/* This system never opens an image's partition at boot; a system inside it may. */
	if (after == FDW_ERASE_AFTER_BOOT && tg->part &&
	    (tg->disk.kind == FDW_DISK_IMAGE || !tg->part->node) && (!root || !strcmp(root, "/")))
		return _("Not for a partition of an image file: this system does not open it "
			 "at boot (for a system inside the image, run fdewiz crypttab --root "
			 "later).");
	return NULL;
}

/* The checks of fdw_erase_prepare, in its order; 0 or -errno with the sentence in @why. */
static int prepare_checks(struct fdw_erase *e, const char *safe, char *why, size_t why_len)
{
	const char *no;
	char detail[1024];
	int rc;

	rc = fdw_erase_check(e->target.part, detail, sizeof(detail));
	if (rc) {
		snprintf(why, why_len, _("cannot erase %s: %s. Nothing was changed."), safe,
			 detail);
		return rc;
	}
	rc = fdw_erase_check_fs(e->fs, e->label, detail, sizeof(detail));
	if (rc) {
		snprintf(why, why_len, _("erase-encrypt %s: %s. Nothing was changed."), safe,
			 detail);
		return rc;
	}
	no = fdw_erase_after_unavailable(e, e->after, e->root);
	if (no) {
		snprintf(why, why_len, _("erase-encrypt %s: %s. Nothing was changed."), safe, no);
		return -ENOTSUP;
	}
	return 0;
}

int fdw_erase_prepare(struct fdw_erase **out, const char *address,
		      const struct fdw_erase_options *o, char *why, size_t why_len)
{
	struct fdw_erase *e = calloc(1, sizeof(*e));
	char safe[PATH_MAX];
	int rc;

	*out = e;
	if (!e) {
		snprintf(why, why_len, _("out of memory. Nothing was changed."));
		return -ENOMEM;
	}
	e->lock = -1;
	snprintf(e->address, sizeof(e->address), "%s", address);
	fdw_text_safe(address, safe, sizeof(safe));
	rc = fdw_target_open_to_change(address, &e->target);
	if (rc) {
		snprintf(why, why_len, _("%s: %s. Nothing was changed."), safe,
			 fdw_scan_error_text(rc));
		return rc;
	}
	e->target_open = true;
	rc = take_options(e, o, why, why_len);
	if (!rc)
		rc = prepare_checks(e, safe, why, why_len);
	if (rc)
		return rc;
	rc = fdw_target_attach(&e->target);
	if (rc) {
		snprintf(why, why_len, _("%s: could not attach a loop device to reach the "
					 "partition: %s. Nothing was changed."), safe,
			 strerror(-rc));
		return rc;
	}
	e->lock = fdw_target_lock(&e->target);
	if (e->lock == -EBUSY) {
		snprintf(why, why_len, _("%s: another fdewiz is converting this partition right "
					 "now. Nothing was changed; wait until it is done (see "
					 "'fdewiz status') or pause it first."), safe);
		return -EBUSY;
	}
	if (e->lock < 0) {
		rc = e->lock;
		snprintf(why, why_len, _("%s: cannot take the partition's lock in %s: %s. Nothing "
					 "was changed."), safe, FDW_LOCK_DIR, strerror(-rc));
		return rc;
	}
	describe(e);
	return 0;
}

int fdw_erase_set_options(struct fdw_erase *e, const struct fdw_erase_options *o, char *why,
			  size_t why_len)
{
	char safe[PATH_MAX];
	int rc;

	if (!e->target_open || e->lock < 0) {
		snprintf(why, why_len, _("nothing is prepared to erase. Nothing was changed."));
		return -EINVAL;
	}
	fdw_text_safe(e->address, safe, sizeof(safe));
	rc = take_options(e, o, why, why_len);
	return rc ? rc : prepare_checks(e, safe, why, why_len);
}

void fdw_erase_confirm_text(const struct fdw_erase *e, char *buf, size_t len)
{
	char safe[PATH_MAX];

	snprintf(buf, len, _("This destroys all data on %s (%s)."),
		 fdw_text_safe(e->address, safe, sizeof(safe)), e->what);
}

const char *fdw_erase_boot_warning(const struct fdw_erase *e, char *buf, size_t len)
{
	const struct fdw_boot_files *bf = e->target.part ? &e->target.part->boot_files : NULL;
	char what[512], safe[PATH_MAX];

	if (!bf || !(bf->kinds & FDW_BOOTF_DECISIVE))
		return NULL;
	fdw_boot_files_describe(bf->kinds, what, sizeof(what));
	if (bf->kinds & FDW_BOOTF_OTHER_OS)
		snprintf(buf, len, _("It holds %s: the other operating system that starts from it "
				     "will no longer start."), what);
	else if (bf->root_address[0])
		snprintf(buf, len, _("It is the /boot of the encrypted system on %s (it holds %s): "
				     "that system will no longer start."),
			 fdw_text_safe(bf->root_address, safe, sizeof(safe)), what);
	else
		snprintf(buf, len, _("It holds %s: the system that starts from it will no longer "
				     "start."), what);
	return buf;
}

const char *fdw_erase_random_warning(const struct fdw_erase *e, char *buf, size_t len)
{
	char safe[PATH_MAX];

	if (!e->target.part || !e->target.part->looks_random)
		return NULL;
	snprintf(buf, len, _("%s has no signature, but its contents look random: it may be "
			     "encrypted data (for example a LUKS volume whose header is kept in "
			     "a file)."), fdw_text_safe(e->address, safe, sizeof(safe)));
	return buf;
}

/* Leave the new volume open as /dev/mapper/NAME. */
static int open_after(struct fdw_erase *e, const struct fdw_secret *pass, char *why,
		      size_t why_len)
{
	struct crypt_device *cd = NULL;
	int rc = fdw_crypt_load(&cd, e->target.device, NULL);

	if (!rc)
		rc = crypt_activate_by_passphrase(cd, e->name, CRYPT_ANY_SLOT, pass->data,
						  pass->len, 0);
	if (rc < 0)
		snprintf(why, why_len, _("the volume was made but could not be opened as "
					 "/dev/mapper/%s (%s); open it with 'cryptsetup open'"),
			 e->name, strerror(-rc));
	crypt_free(cd);
	return rc < 0 ? rc : 0;
}

/* Its entry in ROOT/etc/crypttab (fstab is not touched: nothing names a new volume yet). */
static int boot_after(struct fdw_erase *e, struct fdw_erase_result *r)
{
	struct fdw_boot_request rq = { .root = e->root, .name = e->name };
	struct fdw_boot_result br;
	int rc;

	rc = fdw_boot_entries_write(e->address, &rq, &br, r->boot_why, sizeof(r->boot_why));
	if (rc < 0)
		return rc;
	r->boot_written = true;
	snprintf(e->name, sizeof(e->name), "%s", br.name);
	snprintf(r->crypttab_backup, sizeof(r->crypttab_backup), "%s", br.crypttab.backup);
	return 0;
}

int fdw_erase_run(struct fdw_erase *e, const struct fdw_secret *pass,
		  struct fdw_erase_result *r, char *why, size_t why_len)
{
	struct fdw_erase_params p = {
		.device = e->target.device, .cipher = e->cipher[0] ? e->cipher : NULL,
		.cipher_mode = e->cipher_mode, .key_bits = e->key_bits, .fs = e->fs,
		.label = e->label[0] ? e->label : NULL, .fast_pbkdf = e->fast_pbkdf,
	};
	int rc;

	memset(r, 0, sizeof(*r));
	if (!e->target_open || e->lock < 0) {
		snprintf(why, why_len, _("nothing is prepared to erase. Nothing was changed."));
		return -EINVAL;
	}
	rc = fdw_erase_encrypt(&p, pass, r->uuid, sizeof(r->uuid), why, why_len);
	if (rc)
		return rc;
	if (e->after == FDW_ERASE_AFTER_OPEN)
		r->opened = open_after(e, pass, r->boot_why, sizeof(r->boot_why)) == 0;
	else if (e->after == FDW_ERASE_AFTER_BOOT)
		boot_after(e, r);
	return 0;
}

/* The lines about the filesystem and how to open the volume. */
static size_t report_fs(const struct fdw_erase *e, const struct fdw_erase_result *r, char *buf,
			size_t len)
{
	const struct fdw_partition *p = e->target.part;
	char label[512], node[PATH_MAX];

	fdw_text_safe(p->node ? p->node : e->address, node, sizeof(node));
	fdw_text_safe(e->label, label, sizeof(label));
	if (!strcmp(e->fs, "none"))
		return (size_t)snprintf(buf, len, "%s\n", _("It has no filesystem yet: open it "
							    "(cryptsetup open) and make one "
							    "with mkfs."));
	if (r->opened)
		return (size_t)snprintf(buf, len, _("It holds a new %s filesystem%s%s%s, open as "
						    "/dev/mapper/%s for an installer.\n"),
					e->fs, e->label[0] ? " '" : "", label,
					e->label[0] ? "'" : "", e->name);
	return (size_t)snprintf(buf, len, _("It holds a new %s filesystem%s%s%s. Open it with: "
					    "cryptsetup open %s NAME\n"),
				e->fs, e->label[0] ? " '" : "", label, e->label[0] ? "'" : "",
				node);
}

void fdw_erase_report(const struct fdw_erase *e, const struct fdw_erase_result *r, char *buf,
		      size_t len)
{
	char safe[PATH_MAX], root[PATH_MAX];
	size_t n;

	n = (size_t)snprintf(buf, len, _("%s is now an empty LUKS2 volume (UUID %s).\n"),
			     fdw_text_safe(e->address, safe, sizeof(safe)), r->uuid);
	if (n < len)
		n += report_fs(e, r, buf + n, len - n);
	if (n >= len)
		return;
	fdw_text_safe(e->root, root, sizeof(root));
	if (r->boot_written)
		snprintf(buf + n, len - n, _("%s/etc/crypttab opens it at boot as /dev/mapper/%s."
					     "\n"), strcmp(e->root, "/") ? root : "", e->name);
	else if (r->boot_why[0])
		snprintf(buf + n, len - n, _("But: %s\n"), r->boot_why);
}

void fdw_erase_close(struct fdw_erase *e)
{
	if (!e)
		return;
	if (e->lock >= 0)
		close(e->lock);
	if (e->target_open)
		fdw_target_close(&e->target);
	free(e);
}

const char *fdw_erase_address(const struct fdw_erase *e)
{
	return e->address;
}

void fdw_erase_outcome(const struct fdw_erase *e, char *what, size_t what_len, char *after,
		       size_t after_len)
{
	if (!strcmp(e->fs, "none"))
		snprintf(what, what_len, "%s", _("- then: a new LUKS2 volume with no filesystem "
						 "yet;"));
	else if (e->label[0])
		snprintf(what, what_len, _("- then: a new LUKS2 volume holding a new %s "
					   "filesystem labelled '%s';"), e->fs, e->label);
	else
		snprintf(what, what_len, _("- then: a new LUKS2 volume holding a new %s "
					   "filesystem;"), e->fs);
	if (e->after == FDW_ERASE_AFTER_OPEN)
		snprintf(after, after_len, _("- afterwards it stays open as /dev/mapper/%s for "
					     "an installer."), e->name);
	else if (e->after == FDW_ERASE_AFTER_BOOT)
		snprintf(after, after_len, _("- afterwards /etc/crypttab gets an entry '%s', so "
					     "it opens at boot."), e->name);
	else
		snprintf(after, after_len, "%s", _("- afterwards it is closed."));
}
