/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A boot partition recognised by what it holds (kernels, boot loaders), not only by an
 * fstab that names it: the fstab may sit inside a root fdewiz cannot read. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot_files.h"
#include "debugfs_reader.h"
#include "base/i18n.h"
#include "base/log.h"

/* The folders fdw_boot_files_look() lists, in its order. */
static const char *const folders[] = { "/", "/boot", "/EFI" };
#define N_FOLDERS (sizeof(folders) / sizeof(folders[0]))

/* Name prefixes of the files a kernel is installed as, and what each tells. */
static const struct {
	const char *prefix;
	unsigned kind;
} name_rules[] = {
	{ "vmlinuz", FDW_BOOTF_KERNELS },	/* vmlinuz-6.1.0-13-amd64, vmlinuz-linux */
	{ "vmlinux-", FDW_BOOTF_KERNELS },
	{ "bzImage", FDW_BOOTF_KERNELS },
	{ "kernel-genkernel-", FDW_BOOTF_KERNELS },
	{ "initrd.img", FDW_BOOTF_INITRAMFS },
	{ "initrd-", FDW_BOOTF_INITRAMFS },
	{ "initramfs-", FDW_BOOTF_INITRAMFS },	/* dracut, mkinitcpio */
	{ "config-", FDW_BOOTF_KERNEL_FILES },
	{ "System.map-", FDW_BOOTF_KERNEL_FILES },
};

unsigned fdw_boot_files_classify_names(const char *names)
{
	unsigned kinds = 0;

	for (const char *p = names; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		for (size_t i = 0; i < sizeof(name_rules) / sizeof(name_rules[0]); i++) {
			size_t pl = strlen(name_rules[i].prefix);

			if (n >= pl && !strncmp(p, name_rules[i].prefix, pl))
				kinds |= name_rules[i].kind;
		}
		p = nl ? nl + 1 : NULL;
	}
	return kinds;
}

/* Paths whose presence tells a boot loader, at the top ("/...") and under boot/. */
static const struct {
	const char *path;
	unsigned kind;
} path_rules[] = {
	{ "/grub/grub.cfg", FDW_BOOTF_GRUB },
	{ "/grub/grubenv", FDW_BOOTF_GRUB },
	{ "/grub/i386-pc", FDW_BOOTF_GRUB },
	{ "/grub/x86_64-efi", FDW_BOOTF_GRUB },
	{ "/grub2/grub.cfg", FDW_BOOTF_GRUB },
	{ "/grub2/grubenv", FDW_BOOTF_GRUB },
	{ "/grub2/i386-pc", FDW_BOOTF_GRUB },
	{ "/loader/entries", FDW_BOOTF_LOADER },
	{ "/loader/loader.conf", FDW_BOOTF_LOADER },
	{ "/syslinux", FDW_BOOTF_SYSLINUX },
	{ "/extlinux", FDW_BOOTF_SYSLINUX },
	{ "/syslinux.cfg", FDW_BOOTF_SYSLINUX },
	{ "/extlinux.conf", FDW_BOOTF_SYSLINUX },
	{ "/EFI/Microsoft/Boot", FDW_BOOTF_WINDOWS },
	{ "/bootmgr", FDW_BOOTF_WINDOWS },
	{ "/Boot/BCD", FDW_BOOTF_WINDOWS },
	{ "/Windows/System32/winload.exe", FDW_BOOTF_WINDOWS_SYSTEM },
	{ "/Windows/System32/winload.efi", FDW_BOOTF_WINDOWS_SYSTEM },
	{ "/System/Library/CoreServices/boot.efi", FDW_BOOTF_MACOS },
	{ "/com.apple.recovery.boot", FDW_BOOTF_MACOS },
};

#define N_PATH_RULES (sizeof(path_rules) / sizeof(path_rules[0]))
/* Each rule at the top and under /boot; only the Linux ones are looked for under /boot. */
#define N_PATHS (2 * N_PATH_RULES)

static bool linux_kind(unsigned kind)
{
	return !(kind & FDW_BOOTF_OTHER_OS);
}

/* The configurations that carry the kernel's command line, at the top and under boot/. */
static const char *const configs[] = {
	"/grub/grub.cfg", "/grub2/grub.cfg", "/boot/grub/grub.cfg", "/boot/grub2/grub.cfg",
	"/syslinux/syslinux.cfg", "/extlinux/extlinux.conf", "/boot/syslinux/syslinux.cfg",
	"/boot/extlinux/extlinux.conf",
};

/* Kernels and boot loaders at the top or under /boot, and the EFI folder at the top. */
static int look_paths(const struct fdw_boot_reader *rd, struct fdw_boot_files *out)
{
	const char *paths[N_PATHS];
	char buf[N_PATH_RULES][64];
	bool found[N_PATHS] = { false };
	int n = 0, rc;

	for (size_t i = 0; i < N_PATH_RULES; i++)
		paths[n++] = path_rules[i].path;
	for (size_t i = 0; i < N_PATH_RULES; i++) {
		snprintf(buf[i], sizeof(buf[i]), "/boot%s", path_rules[i].path);
		paths[n++] = buf[i];
	}
	rc = rd->exist(rd->ctx, paths, n, found);
	if (rc)
		return rc;
	for (size_t i = 0; i < N_PATH_RULES; i++) {
		if (found[i])
			out->kinds |= path_rules[i].kind;
		if (found[N_PATH_RULES + i] && linux_kind(path_rules[i].kind)) {
			out->kinds |= path_rules[i].kind;
			out->under_boot = true;
		}
	}
	return 0;
}

/* One folder's names through @rd, classified; a folder that is not there is none. */
static unsigned look_folder(const struct fdw_boot_reader *rd, const char *dir, bool *any)
{
	char *names = NULL;
	unsigned kinds = 0;

	if (rd->list(rd->ctx, dir, &names) == 0 && names) {
		kinds = fdw_boot_files_classify_names(names);
		*any = names[strspn(names, "\n")] != '\0';
	}
	free(names);
	return kinds;
}

int fdw_boot_files_look(const struct fdw_boot_reader *rd, struct fdw_boot_files *out)
{
	unsigned under;
	bool any = false;
	char *text = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = look_paths(rd, out);
	if (rc)
		return rc;
	out->kinds |= look_folder(rd, folders[0], &any);
	under = look_folder(rd, folders[1], &any);
	if (under)
		out->under_boot = true;
	out->kinds |= under;
	/* An EFI folder at the top with anything in it is for a firmware to start. */
	any = false;
	look_folder(rd, folders[2], &any);
	if (any)
		out->kinds |= FDW_BOOTF_EFI;
	if ((out->kinds & (FDW_BOOTF_GRUB | FDW_BOOTF_SYSLINUX)) &&
	    rd->cat(rd->ctx, configs, (int)(sizeof(configs) / sizeof(configs[0])), &text) == 0)
		fdw_boot_files_parse_config(text, out);
	free(text);
	return 0;
}

/* The debugfs reader of an ext: the existence questions and the three listings in one
 * run, the listings kept for list(). */
struct ext_look {
	struct fdw_debugfs d;
	char *listing[N_FOLDERS];
};

static int ext_exist(void *ctx, const char *const *paths, int n, bool *found)
{
	struct ext_look *x = ctx;
	const char *cmds[FDW_DEBUGFS_BATCH_MAX];
	char *out[FDW_DEBUGFS_BATCH_MAX], buf[FDW_DEBUGFS_BATCH_MAX][80];
	int k = 0, rc;

	if (n + (int)N_FOLDERS > FDW_DEBUGFS_BATCH_MAX)
		return -E2BIG;
	for (int i = 0; i < n; i++, k++) {
		snprintf(buf[k], sizeof(buf[k]), "stat %s", paths[i]);
		cmds[k] = buf[k];
	}
	for (size_t i = 0; i < N_FOLDERS; i++, k++) {
		snprintf(buf[k], sizeof(buf[k]), "ls -p %s", folders[i]);
		cmds[k] = buf[k];
	}
	rc = fdw_debugfs_batch(&x->d, cmds, k, out);
	if (rc)
		return rc;
	for (int i = 0; i < n; i++) {
		found[i] = !strncmp(out[i], "Inode:", 6) || strstr(out[i], "\nInode:");
		free(out[i]);
	}
	for (size_t i = 0; i < N_FOLDERS; i++) {
		x->listing[i] = fdw_debugfs_parse_ls(out[n + (int)i]);
		free(out[n + (int)i]);
	}
	return 0;
}

static int ext_list(void *ctx, const char *dir, char **names)
{
	struct ext_look *x = ctx;

	*names = NULL;
	for (size_t i = 0; i < N_FOLDERS; i++)
		if (!strcmp(dir, folders[i]) && x->listing[i]) {
			*names = strdup(x->listing[i]);
			return *names ? 0 : -ENOMEM;
		}
	return -ENOENT;
}

int fdw_boot_files_probe_ext(const char *path, uint64_t offset, struct fdw_boot_files *out)
{
	struct ext_look x = { .d.offset = offset };
	const struct fdw_boot_reader rd = { ext_list, ext_exist, fdw_debugfs_cat, &x };
	int rc;

	memset(out, 0, sizeof(*out));
	x.d.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (x.d.fd < 0)
		return -errno;
	rc = fdw_boot_files_look(&rd, out);
	close(x.d.fd);
	for (size_t i = 0; i < N_FOLDERS; i++)
		free(x.listing[i]);
	if (rc)
		fdw_log(FDW_LOG_DEBUG, "%s: could not look for boot files at %llu: %s", path,
			(unsigned long long)offset, strerror(-rc));
	return rc;
}

/* @v (up to a blank, a quote, ':' or a ')') as a UUID: hex digits without dashes, lower
 * case, kept when it has the 32 digits of one. */
static void add_uuid(struct fdw_boot_files *out, const char *v)
{
	char id[33];
	size_t n = 0;

	if (!strncmp(v, "luks-", 5))
		v += 5;
	for (; *v && !strchr(" \t\"';:)\n", *v) && n < 33; v++) {
		if (*v == '-')
			continue;
		if (!isxdigit((unsigned char)*v))
			return;
		id[n++] = (char)tolower((unsigned char)*v);
	}
	if (n != 32 || out->n_luks_uuids >= FDW_BOOTF_MAX_UUIDS ||
	    fdw_boot_files_names_uuid(out, (id[32] = '\0', id)))
		return;
	memcpy(out->luks_uuids[out->n_luks_uuids++], id, sizeof(id));
}

/* The word after @at (skipping blanks), which must follow a blank or start the line. */
static const char *token_after(const char *line, const char *at, size_t skip)
{
	if (at > line && !strchr(" \t\"'", at[-1]))
		return NULL;
	at += skip;
	while (*at == ' ' || *at == '\t')
		at++;
	return at;
}

/* One line of a configuration: what it says of an encrypted root. */
static void parse_line(const char *line, struct fdw_boot_files *out)
{
	static const char *const uuid_keys[] = { "rd.luks.uuid=", "rd.luks.name=",
						 "cryptdevice=UUID=", "cryptomount -u" };
	const char *at, *v;

	for (size_t i = 0; i < sizeof(uuid_keys) / sizeof(uuid_keys[0]); i++)
		for (at = strstr(line, uuid_keys[i]); at; at = strstr(at + 1, uuid_keys[i]))
			if ((v = token_after(line, at, strlen(uuid_keys[i]))))
				add_uuid(out, v);
	for (at = strstr(line, "root=/dev/mapper/"); at; at = strstr(at + 1, "root=/dev/mapper/")) {
		size_t n;

		if (!(v = token_after(line, at, 17)) || out->root_mapper[0])
			continue;
		n = strcspn(v, " \t\"';\n");
		if (n && n < sizeof(out->root_mapper)) {
			memcpy(out->root_mapper, v, n);
			out->root_mapper[n] = '\0';
		}
	}
}

void fdw_boot_files_parse_config(const char *text, struct fdw_boot_files *out)
{
	char line[1024];

	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		/* A longer line is cut: the kernel's options come early on it. */
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		if (line[strspn(line, " \t")] != '#')
			parse_line(line, out);
		p = nl ? nl + 1 : NULL;
	}
}

bool fdw_boot_files_names_uuid(const struct fdw_boot_files *bf, const char *uuid)
{
	char id[33];
	size_t n = 0;

	for (; uuid && *uuid && n < 32; uuid++)
		if (*uuid != '-')
			id[n++] = (char)tolower((unsigned char)*uuid);
	id[n] = '\0';
	for (unsigned i = 0; n == 32 && i < bf->n_luks_uuids && i < FDW_BOOTF_MAX_UUIDS; i++)
		if (!strcmp(bf->luks_uuids[i], id))
			return true;
	return false;
}

int fdw_boot_files_mapper_number(const struct fdw_boot_files *bf)
{
	const char *m = bf->root_mapper, *end = strstr(m, "_crypt"), *p;

	/* Debian's installer names the mapping after the partition: sda3_crypt, vda5_crypt,
	 * nvme0n1p3_crypt. */
	if (!end || end[6] || end == m || !isdigit((unsigned char)end[-1]))
		return 0;
	for (p = end; p > m && isdigit((unsigned char)p[-1]);)
		p--;
	if (end - p > 3 || p == m)
		return 0;
	return atoi(p);
}

void fdw_boot_files_terminate(struct fdw_boot_files *bf)
{
	if (bf->n_luks_uuids > FDW_BOOTF_MAX_UUIDS)
		bf->n_luks_uuids = FDW_BOOTF_MAX_UUIDS;
	for (unsigned i = 0; i < FDW_BOOTF_MAX_UUIDS; i++)
		bf->luks_uuids[i][sizeof(bf->luks_uuids[i]) - 1] = '\0';
	bf->root_mapper[sizeof(bf->root_mapper) - 1] = '\0';
	bf->root_address[sizeof(bf->root_address) - 1] = '\0';
}

static const struct {
	unsigned bit;
	const char *name;
	const char *text;
} kind_texts[] = {
	{ FDW_BOOTF_KERNELS, "kernels", N_("kernels") },
	{ FDW_BOOTF_INITRAMFS, "initramfs", N_("initramfs images") },
	{ FDW_BOOTF_KERNEL_FILES, "kernel-files", N_("kernel configurations") },
	{ FDW_BOOTF_GRUB, "grub", N_("GRUB's files") },
	{ FDW_BOOTF_LOADER, "systemd-boot", N_("systemd-boot's entries") },
	{ FDW_BOOTF_EFI, "efi", N_("an EFI folder") },
	{ FDW_BOOTF_SYSLINUX, "syslinux", N_("SYSLINUX's files") },
	{ FDW_BOOTF_WINDOWS, "windows-boot", N_("Windows' boot manager") },
	{ FDW_BOOTF_WINDOWS_SYSTEM, "windows", N_("an installed Windows") },
	{ FDW_BOOTF_MACOS, "macos-boot", N_("macOS's boot files") },
};

#define N_KIND_TEXTS (sizeof(kind_texts) / sizeof(kind_texts[0]))

const char *fdw_boot_file_kind_name(unsigned bit)
{
	for (size_t i = 0; i < N_KIND_TEXTS; i++)
		if (kind_texts[i].bit == bit)
			return kind_texts[i].name;
	return NULL;
}

size_t fdw_boot_files_describe(unsigned kinds, char *buf, size_t len)
{
	const char *parts[N_KIND_TEXTS];
	size_t n = 0, used = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	for (size_t i = 0; i < N_KIND_TEXTS; i++)
		if (kinds & kind_texts[i].bit)
			parts[n++] = _(kind_texts[i].text);
	for (size_t i = 0; i < n && used < len; i++) {
		/* TRANSLATORS: between the last two of "kernels, initramfs images and GRUB's
		 * files". */
		const char *sep = i == 0 ? "" : i + 1 == n ? _(" and ") : ", ";
		int w = snprintf(buf + used, len - used, "%s%s", sep, parts[i]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return used < len ? used : len - 1;
}
