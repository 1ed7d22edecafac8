/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An installed Linux system inside a filesystem: found by reading it, never by mounting it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/i18n.h"
#include "debugfs_reader.h"
#include "installed_os.h"
#include "base/tabfile.h"
#include "base/log.h"
#include "base/sysstate.h"

/* The files whose presence tells the boot setup; asked in one go, by fixed names. */
static const char *const probes[] = {
	"/etc/fstab",
	"/usr/sbin/update-initramfs",				/* initramfs-tools */
	"/usr/share/initramfs-tools/hooks/cryptroot",		/* cryptsetup-initramfs */
	"/usr/bin/dracut",
	"/usr/lib/dracut/modules.d/90crypt",			/* dracut's LUKS support */
	"/usr/lib/grub/i386-pc",
	"/usr/lib/grub/x86_64-efi",
	"/usr/lib/systemd/boot/efi/systemd-bootx64.efi",
	"/usr/share/initramfs-tools/hooks/clevis",		/* clevis-initramfs */
	"/usr/bin/clevis-decrypt-tpm2",				/* clevis-tpm2 */
};

enum { P_FSTAB, P_ITOOLS, P_CRYPTROOT, P_DRACUT, P_DRACUT_CRYPT, P_GRUB_PC, P_GRUB_EFI,
       P_SDBOOT, P_CLEVIS_HOOK, P_CLEVIS_TPM2, P__COUNT };

/* Does fstab @spec name the filesystem with @uuid and @label? */
static bool spec_names(const char *spec, const char *uuid, const char *label)
{
	if (uuid && *uuid && (!strncmp(spec, "UUID=", 5) && !strcasecmp(spec + 5, uuid)))
		return true;
	if (uuid && *uuid && !strncmp(spec, "/dev/disk/by-uuid/", 18) &&
	    !strcasecmp(spec + 18, uuid))
		return true;
	if (label && *label && !strncmp(spec, "LABEL=", 6) && !strcmp(spec + 6, label))
		return true;
	return label && *label && !strncmp(spec, "/dev/disk/by-label/", 19) &&
	       !strcmp(spec + 19, label);
}

const char *fdw_installed_os_esp_spec(const struct fdw_installed_os *os)
{
	for (unsigned i = 0; i < os->n_entries; i++)
		if (!strcmp(os->entries[i].dir, "/boot/efi"))
			return os->entries[i].spec;
	return NULL;
}

bool fdw_os_spec_is_partition(const char *spec)
{
	static const char *const tags[] = { "UUID=", "PARTUUID=", "LABEL=", "PARTLABEL=",
					    "/dev/" };

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (!strncmp(spec, tags[i], strlen(tags[i])) && spec[strlen(tags[i])])
			return true;
	return false;
}

/* What its boot loader or initramfs reads before a passphrase can be asked for. */
static bool boot_use(const char *dir)
{
	return !strcmp(dir, "/boot") || !strcmp(dir, "/boot/efi") || !strcmp(dir, "/efi") ||
	       !strcmp(dir, "/usr");
}

/* Remember one partition the system names; one that cannot name a partition is none. */
static void add_entry(struct fdw_installed_os *out, const char *spec, const char *dir,
		      enum fdw_os_use use)
{
	struct fdw_os_entry *e;

	if (!fdw_os_spec_is_partition(spec) || out->n_entries >= FDW_OS_MAX_ENTRIES)
		return;
	e = &out->entries[out->n_entries++];
	snprintf(e->spec, sizeof(e->spec), "%s", spec);
	snprintf(e->dir, sizeof(e->dir), "%s", dir);
	e->use = use;
}

/* The subvol= of an fstab line's options, without a leading '/': "" when none or too long. */
static void subvol_option(const struct fdw_tab_line *l, char *buf, size_t len)
{
	char value[512];
	const char *o = value;

	buf[0] = '\0';
	if (!fdw_tab_option_value(l, 3, "subvol", value, sizeof(value)))
		return;
	while (*o == '/')
		o++;
	if (strlen(o) < len)
		snprintf(buf, len, "%s", o);
}

void fdw_installed_os_parse_fstab(const char *text, const char *fs_uuid, const char *label,
				  struct fdw_installed_os *out)
{
	struct fdw_tab_reader r;
	struct fdw_tab_line l;

	fdw_tab_begin(&r, text);
	while (fdw_tab_next(&r, &l)) {
		/* A spec too long for the record is not one it could name. */
		char spec[sizeof(out->boot_spec)], dir[256], type[64];

		if (!fdw_tab_field(&l, 0, spec, sizeof(spec)) ||
		    !fdw_tab_field(&l, 1, dir, sizeof(dir)) ||
		    !fdw_tab_field(&l, 2, type, sizeof(type)))
			continue;
		if (!strcmp(type, "swap")) {
			out->n_swaps++;
			/* A file: it stays inside its filesystem, whatever happens to that. */
			if (spec[0] == '/' && strncmp(spec, "/dev/", 5) && !out->n_swap_files++)
				snprintf(out->swap_file, sizeof(out->swap_file), "%s", spec);
			add_entry(out, spec, "", FDW_USE_SWAP);
		} else if (!strcmp(dir, "/")) {
			out->found = true;
			out->fstab_names_it |= spec_names(spec, fs_uuid, label);
			snprintf(out->root_spec, sizeof(out->root_spec), "%s", spec);
			subvol_option(&l, out->fstab_subvol, sizeof(out->fstab_subvol));
		} else if (!strcmp(dir, "/boot")) {
			out->boot_separate = true;
			snprintf(out->boot_spec, sizeof(out->boot_spec), "%s", spec);
		} else if (!strcmp(dir, "/usr")) {
			out->usr_separate = true;
		} else if (!strcmp(dir, "/home")) {
			out->home_separate = true;
		}
		if (strcmp(type, "swap") && strcmp(dir, "/") && dir[0] == '/')
			add_entry(out, spec, dir, boot_use(dir) ? FDW_USE_BOOT : FDW_USE_DATA);
	}
}

void fdw_installed_os_parse_crypttab(const char *text, struct fdw_installed_os *out)
{
	struct fdw_tab_reader r;
	struct fdw_tab_line l;

	fdw_tab_begin(&r, text);
	while (fdw_tab_next(&r, &l)) {
		char source[sizeof(out->entries[0].spec)];

		if (l.n >= 2 && fdw_tab_field(&l, 1, source, sizeof(source)))
			add_entry(out, source, "", FDW_USE_CRYPT);
	}
}

void fdw_installed_os_parse_resume(const char *text, struct fdw_installed_os *out)
{
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n > 7 && !strncmp(p, "RESUME=", 7) && !(n == 11 && !strncmp(p + 7, "none", 4))) {
			char spec[128];
			size_t vl = n - 7 < sizeof(spec) - 1 ? n - 7 : sizeof(spec) - 1;

			memcpy(spec, p + 7, vl);
			spec[vl] = '\0';
			/* The shell quotes it sometimes: RESUME="UUID=...". */
			if (vl >= 2 && (spec[0] == '"' || spec[0] == '\'') && spec[vl - 1] == spec[0]) {
				memmove(spec, spec + 1, vl - 2);
				spec[vl - 2] = '\0';
			}
			out->hibernates = true;
			add_entry(out, spec, "", FDW_USE_RESUME);
		}
		if (n > 14 && !strncmp(p, "RESUME_OFFSET=", 14))
			out->resume_offset = true;
		p = nl ? nl + 1 : NULL;
	}
}

void fdw_installed_os_parse_default_grub(const char *text, struct fdw_installed_os *out)
{
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n'), *at;
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		while (n && (*p == ' ' || *p == '\t')) {
			p++;
			n--;
		}
		at = n && *p != '#' ? strstr(p, "resume_offset=") : NULL;
		if (at && (size_t)(at - p) < n && !strncmp(p, "GRUB_CMDLINE_LINUX", 18))
			out->resume_offset = true;
		p = nl ? nl + 1 : NULL;
	}
}

const char *fdw_os_use_name(enum fdw_os_use use)
{
	static const char *const names[] = {
		[FDW_USE_BOOT] = "boot", [FDW_USE_DATA] = "data", [FDW_USE_SWAP] = "swap",
		[FDW_USE_RESUME] = "resume", [FDW_USE_CRYPT] = "crypttab",
	};

	return use > FDW_USE_NONE && use <= FDW_USE_CRYPT ? names[use] : NULL;
}

void fdw_installed_os_parse_os_release(const char *text, struct fdw_installed_os *out)
{
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n'), *v;
		size_t n = nl ? (size_t)(nl - p) : strlen(p), vl;

		if (n > 12 && !strncmp(p, "PRETTY_NAME=", 12)) {
			v = p + 12;
			vl = n - 12;
			/* Shell quoting: one pair of quotes around the value, no escapes kept. */
			if (vl >= 2 && (v[0] == '"' || v[0] == '\'') && v[vl - 1] == v[0]) {
				v++;
				vl -= 2;
			}
			if (vl >= sizeof(out->name))
				vl = sizeof(out->name) - 1;
			memcpy(out->name, v, vl);
			out->name[vl] = '\0';
			return;
		}
		p = nl ? nl + 1 : NULL;
	}
}

/* One file (or the first of several) through @rd, parsed by @parse; none is no error. */
static void read_one(const struct fdw_os_reader *rd, const char *const *paths, int n,
		     void (*parse)(const char *, struct fdw_installed_os *),
		     struct fdw_installed_os *out)
{
	char *text = NULL;

	if (rd->cat(rd->ctx, paths, n, &text) == 0)
		parse(text, out);
	free(text);
}

int fdw_installed_os_read(const struct fdw_os_reader *rd, const char *fs_uuid,
			  const char *label, struct fdw_installed_os *out)
{
	static const char *const fstab[] = { "/etc/fstab" };
	/* /etc's is a link into /usr on current systems; debugfs reads no links. */
	static const char *const os_release[] = { "/usr/lib/os-release", "/etc/os-release" };
	static const char *const resume[] = { "/etc/initramfs-tools/conf.d/resume" };
	static const char *const grub[] = { "/etc/default/grub" };
	static const char *const crypttab[] = { "/etc/crypttab" };
	bool found[P__COUNT] = { false };
	char *text = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = rd->exist(rd->ctx, probes, P__COUNT, found);
	if (rc || !found[P_FSTAB])
		return rc;	/* no fstab: a data filesystem */
	rc = rd->cat(rd->ctx, fstab, 1, &text);
	if (rc)
		return rc;
	fdw_installed_os_parse_fstab(text, fs_uuid, label, out);
	free(text);
	if (!out->found)
		return 0;
	read_one(rd, os_release, 2, fdw_installed_os_parse_os_release, out);
	out->has_kernels = rd->has_kernels(rd->ctx);
	read_one(rd, resume, 1, fdw_installed_os_parse_resume, out);
	read_one(rd, grub, 1, fdw_installed_os_parse_default_grub, out);
	read_one(rd, crypttab, 1, fdw_installed_os_parse_crypttab, out);

	if (found[P_ITOOLS]) {
		out->initramfs = FDW_INITRAMFS_TOOLS;
		out->luks_in_initramfs = found[P_CRYPTROOT];
		out->tpm_in_initramfs = found[P_CLEVIS_HOOK] && found[P_CLEVIS_TPM2];
	} else if (found[P_DRACUT]) {
		out->initramfs = FDW_INITRAMFS_DRACUT;
		out->luks_in_initramfs = found[P_DRACUT_CRYPT];
	}
	if (found[P_SDBOOT])
		out->loader = FDW_LOADER_SYSTEMD_BOOT;
	else if (found[P_GRUB_EFI])
		out->loader = FDW_LOADER_GRUB_EFI;
	else if (found[P_GRUB_PC])
		out->loader = FDW_LOADER_GRUB_BIOS;
	return 0;
}

int fdw_installed_os_probe(const char *path, uint64_t offset, const char *fs_uuid,
			   const char *label, struct fdw_installed_os *out)
{
	struct fdw_debugfs c = { .offset = offset };
	const struct fdw_os_reader rd = { fdw_debugfs_exist, fdw_debugfs_cat,
					   fdw_debugfs_has_kernels, &c };
	int rc;

	memset(out, 0, sizeof(*out));
	c.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c.fd < 0)
		return -errno;
	rc = fdw_installed_os_read(&rd, fs_uuid, label, out);
	close(c.fd);
	if (rc)
		fdw_log(FDW_LOG_DEBUG, "%s: could not look for an installed system at %llu: %s",
			path, (unsigned long long)offset, strerror(-rc));
	return rc;
}

const char *fdw_boot_loader_text(enum fdw_boot_loader loader)
{
	switch (loader) {
	case FDW_LOADER_GRUB_BIOS:
		return _("GRUB (BIOS)");
	case FDW_LOADER_GRUB_EFI:
		return _("GRUB (EFI)");
	case FDW_LOADER_SYSTEMD_BOOT:
		return _("systemd-boot");
	default:
		return "";
	}
}

const char *fdw_boot_loader_name(enum fdw_boot_loader loader)
{
	switch (loader) {
	case FDW_LOADER_GRUB_BIOS:
		return "grub-bios";
	case FDW_LOADER_GRUB_EFI:
		return "grub-efi";
	case FDW_LOADER_SYSTEMD_BOOT:
		return "systemd-boot";
	default:
		return NULL;
	}
}

const char *fdw_initramfs_name(enum fdw_initramfs_kind kind)
{
	switch (kind) {
	case FDW_INITRAMFS_TOOLS:
		return "initramfs-tools";
	case FDW_INITRAMFS_DRACUT:
		return "dracut";
	default:
		return NULL;
	}
}

size_t fdw_installed_os_describe(const struct fdw_installed_os *os, char *buf, size_t len)
{
	const char *name = *os->name ? os->name : _("an installed Linux system");
	int n;

	if (os->root_subvol[0] && os->boot_separate)
		n = snprintf(buf, len, _("%s (/ in the subvolume %s; /boot on another partition)"),
			     name, os->root_subvol);
	else if (os->root_subvol[0])
		n = snprintf(buf, len, _("%s (/ in the subvolume %s, /boot inside)"), name,
			     os->root_subvol);
	else if (os->boot_separate)
		n = snprintf(buf, len, _("%s (/; /boot on another partition)"), name);
	else
		n = snprintf(buf, len, _("%s (/, /boot inside)"), name);
	return n < 0 ? 0 : (size_t)n;
}
