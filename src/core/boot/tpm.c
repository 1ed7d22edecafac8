/* SPDX-License-Identifier: GPL-3.0-or-later */
/* TPM 2.0 unlock through clevis: detect, bind (and check), list, remove; the initramfs. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/i18n.h"
#include "base/log.h"
#include "base/spawn.h"
#include "base/tabfile.h"
#include "base/testhook.h"
#include "luks2/convert.h"
#include "luks2/luks2_peek.h"
#include "restart_initrd.h"
#include "tpm.h"

/* clevis luks list: a line per binding, "N: pin 'config'", a few per volume. */
#define LIST_MAX 8192

void fdw_tpm_detect(struct fdw_tpm_info *info)
{
	char path[PATH_MAX], *text = NULL;
	size_t n;

	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "tpm0");
	snprintf(path, sizeof(path), "%s/tpm0", fdw_tpm_sysfs_root());
	if (access(path, F_OK) != 0)
		return;
	info->present = true;
	/* Linux 5.6 and later say it; older ones have no TPM 2.0 files of this kind. */
	snprintf(path, sizeof(path), "%s/tpm0/tpm_version_major", fdw_tpm_sysfs_root());
	if (fdw_read_file(path, 16, FDW_READ_TEXT, &text, &n, NULL) == 0)
		info->version = atoi(text);
	free(text);
}

bool fdw_tpm_route_ready(const char *root, bool at_start, char *missing, size_t len)
{
	/* What each package of the route puts where its initramfs hook and tools look. */
	static const struct {
		const char *file, *package;
	} need[] = {
		{ "usr/bin/clevis-luks-bind", "clevis-luks" },
		{ "usr/bin/clevis-decrypt-tpm2", "clevis-tpm2" },
		{ "usr/share/initramfs-tools/hooks/clevis", "clevis-initramfs" },
	};
	char path[PATH_MAX];
	size_t used = 0;

	if (len)
		missing[0] = '\0';
	for (size_t i = 0; i < (at_start ? 3u : 2u); i++) {
		snprintf(path, sizeof(path), "%s/%s", strcmp(root, "/") ? root : "", need[i].file);
		if (access(path, F_OK) == 0 || used >= len)
			continue;
		used += (size_t)snprintf(missing + used, len - used, "%s%s", used ? " " : "",
					 need[i].package);
	}
	return !missing[0];
}

/* clevis with the TPM the tests name instead of the kernel's. */
static int run_clevis(char *const argv[], const char *in, size_t in_len, char *out,
		      size_t out_len)
{
	const struct fdw_spawn_opts o = { .fd3 = -1, .stdin_bytes = in, .stdin_len = in_len,
					  .extra_env = fdw_tpm_tcti_env(),
					  .discard_stderr = out != NULL };
	char sink[1024];

	return fdw_spawn_collect(argv, &o, out ? out : sink, out ? out_len : sizeof(sink));
}

/* One line of clevis luks list: "1: tpm2 '{"pcr_bank":"sha256","pcr_ids":"7"}'". */
static bool parse_binding(const char *line, struct fdw_tpm_binding *b)
{
	char pin[16], *json, *end;
	json_object *o, *v;
	int slot, used = 0;
	bool ok = false;

	if (sscanf(line, "%d: %15s '%n", &slot, pin, &used) < 2 || !used || strcmp(pin, "tpm2"))
		return false;
	json = strdup(line + used);
	if (!json)
		return false;
	end = strrchr(json, '\'');
	if (end)
		*end = '\0';
	o = json_tokener_parse(json);
	free(json);
	memset(b, 0, sizeof(*b));
	b->slot = slot;
	snprintf(b->pcr_bank, sizeof(b->pcr_bank), "sha256");
	if (o && json_object_is_type(o, json_type_object)) {
		if (json_object_object_get_ex(o, "pcr_bank", &v) && json_object_is_type(v, json_type_string))
			snprintf(b->pcr_bank, sizeof(b->pcr_bank), "%s", json_object_get_string(v));
		if (json_object_object_get_ex(o, "pcr_ids", &v) && json_object_is_type(v, json_type_string))
			snprintf(b->pcr_ids, sizeof(b->pcr_ids), "%s", json_object_get_string(v));
		ok = slot >= 0;
	}
	json_object_put(o);
	return ok;
}

int fdw_tpm_bindings(const char *device, struct fdw_tpm_binding *b, int max)
{
	char *argv[] = { "clevis", "luks", "list", "-d", (char *)device, NULL };
	static char out[LIST_MAX];
	int n = 0, rc = run_clevis(argv, NULL, 0, out, sizeof(out));

	/* No binding at all: clevis says nothing and exits 1. */
	if (rc < 0)
		return rc;
	for (char *line = out, *nl; line && *line && n < max; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (parse_binding(line, &b[n]))
			n++;
	}
	return n;
}

int fdw_tpm_check(const char *device, int slot)
{
	char num[16];
	char *argv[] = { "clevis", "luks", "pass", "-d", (char *)device, "-s", num, NULL };
	struct fdw_volume v = { .device = device };
	struct fdw_secret *key = NULL;
	int rc;

	snprintf(num, sizeof(num), "%d", slot);
	rc = fdw_secret_new(&key, 4096);
	if (rc)
		return rc;
	rc = run_clevis(argv, NULL, 0, key->data, key->cap + 1);
	key->len = strlen(key->data);
	if (rc != 0 || !key->len) {
		fdw_secret_free(key);
		return rc < 0 ? rc : -EACCES;
	}
	rc = fdw_convert_check_passphrase(&v, key);
	fdw_secret_free(key);
	return rc == -EPERM || rc == -ENOENT ? -EKEYREJECTED : rc;
}

static bool pcrs_valid(const char *pcrs)
{
	int n = 0;

	if (!pcrs[0] || strlen(pcrs) > 40)
		return false;
	for (const char *p = pcrs; *p; p++) {
		if (*p == ',') {
			if (!n)
				return false;
			n = 0;
		} else if (isdigit((unsigned char)*p) && ++n <= 2) {
			continue;
		} else {
			return false;
		}
	}
	return n > 0;
}

static int unbind(const char *device, int slot)
{
	char num[16];
	char *argv[] = { "clevis", "luks", "unbind", "-d", (char *)device, "-s", num, "-f", NULL };

	snprintf(num, sizeof(num), "%d", slot);
	return run_clevis(argv, NULL, 0, NULL, 0);
}

/* The binding clevis just added: the slot that is not among the @n old ones. */
static int new_slot(const char *device, const struct fdw_tpm_binding *old, int n)
{
	struct fdw_tpm_binding now[FDW_TPM_MAX_BINDINGS];
	int m = fdw_tpm_bindings(device, now, FDW_TPM_MAX_BINDINGS);

	for (int i = 0; i < m; i++) {
		bool seen = false;

		for (int j = 0; j < n; j++)
			seen = seen || old[j].slot == now[i].slot;
		if (!seen)
			return now[i].slot;
	}
	return -ENOENT;
}

bool fdw_tpm_in_system_crypttab(const char *device)
{
	struct fdw_luks2_peek p;
	struct fdw_tab_reader r;
	struct fdw_tab_line l;
	char *tab = NULL, want[64];
	size_t n;
	bool found = false;

	if (fdw_luks2_peek(device, 0, 0, &p) != 0)
		return false;
	snprintf(want, sizeof(want), "UUID=%s", p.uuid);
	fdw_luks2_peek_release(&p);
	if (fdw_read_file("/etc/crypttab", 1 << 20, FDW_READ_TEXT, &tab, &n, NULL) != 0)
		return false;
	fdw_tab_begin(&r, tab);
	while (!found && fdw_tab_next(&r, &l))
		found = fdw_tab_field_is(&l, 1, want) || fdw_tab_field_is(&l, 1, device);
	free(tab);
	return found;
}

void fdw_tpm_plan_text(const char *pcrs, char *buf, size_t len)
{
	snprintf(buf, len, _("once it is encrypted, a key sealed to this computer's TPM 2.0 "
			     "(PCR %s: the Secure Boot state) opens it at each start, with "
			     "nothing typed. A stolen laptop or its disk taken out stays locked; "
			     "someone who has the laptop itself can start it up to the login "
			     "screen, so the login password matters. When the TPM refuses (the "
			     "firmware or its Secure Boot settings changed, the TPM cleared) the "
			     "passphrase is asked, and the recovery key works there too."),
		 pcrs && pcrs[0] ? pcrs : FDW_TPM_DEFAULT_PCRS);
}

int fdw_tpm_usable(const char *pcrs, bool at_start, char *why, size_t len)
{
	struct fdw_tpm_info tpm;
	char missing[128];

	fdw_tpm_detect(&tpm);
	if (!tpm.present || tpm.version != 2) {
		snprintf(why, len, tpm.present ?
			 _("this computer's TPM is not a TPM 2.0 (version %d); clevis needs 2.0. "
			   "Nothing was changed.") :
			 _("this computer has no TPM (nothing under /sys/class/tpm); it may be "
			   "turned off in the firmware settings. Nothing was changed."), tpm.version);
		return -ENODEV;
	}
	if (!fdw_tpm_route_ready("/", at_start, missing, sizeof(missing))) {
		snprintf(why, len, _("this system lacks what unlocks with the TPM: install %s "
				     "(apt install %s), then try again. Nothing was changed."),
			 missing, missing);
		return -ENOPKG;
	}
	if (!pcrs_valid(pcrs)) {
		snprintf(why, len, _("'%s' is not a list of PCR numbers like 7 or 0,7. Nothing "
				     "was changed."), pcrs);
		return -EINVAL;
	}
	return 0;
}

/* Why enrolling cannot begin; nothing changed then. */
static int enrol_refusal(const char *device, const struct fdw_secret *pass, const char *pcrs,
			 char *why, size_t len)
{
	struct fdw_volume v = { .device = device };
	/* A volume the initramfs opens needs clevis there too; any other, only the tools. */
	int rc = fdw_tpm_usable(pcrs, fdw_tpm_in_system_crypttab(device), why, len);

	if (rc)
		return rc;
	if (fdw_convert_check_passphrase(&v, pass) != 0) {
		snprintf(why, len, _("that passphrase does not open %s. Nothing was changed."),
			 device);
		return -EPERM;
	}
	return 0;
}

int fdw_tpm_enrol(const char *device, const struct fdw_secret *pass, const char *pcrs,
		  int *slot, char *why, size_t len)
{
	struct fdw_tpm_binding old[FDW_TPM_MAX_BINDINGS];
	char config[128];
	char *argv[] = { "clevis", "luks", "bind", "-y", "-d", (char *)device, "-k", "-", "tpm2",
			 config, NULL };
	int n, rc;

	*slot = -1;
	if (!pcrs)
		pcrs = FDW_TPM_DEFAULT_PCRS;
	rc = enrol_refusal(device, pass, pcrs, why, len);
	if (rc)
		return rc;
	n = fdw_tpm_bindings(device, old, FDW_TPM_MAX_BINDINGS);
	n = n < 0 ? 0 : n;
	/* sha256 named: clevis 19's default bank is sha1, which many TPMs no longer keep. */
	snprintf(config, sizeof(config), "{\"pcr_bank\":\"sha256\",\"pcr_ids\":\"%s\"}", pcrs);
	rc = run_clevis(argv, pass->data, pass->len, NULL, 0);
	if (rc) {
		snprintf(why, len, _("clevis could not seal a key to the TPM (exit status %d; the "
				     "log says why). Nothing was changed."), rc);
		return rc > 0 ? -EIO : rc;
	}
	*slot = new_slot(device, old, n);
	rc = *slot < 0 ? *slot : fdw_tpm_check(device, *slot);
	if (rc) {
		/* Never keep a binding that was not seen to open the volume. */
		if (*slot >= 0 && unbind(device, *slot) != 0)
			fdw_log(FDW_LOG_ERROR, "%s: the unchecked TPM binding in keyslot %d could "
				"not be removed", device, *slot);
		snprintf(why, len, _("the key sealed to the TPM did not open %s when unsealed "
				     "(%s); it was removed again. Nothing else was changed."),
			 device, strerror(-rc));
		return rc;
	}
	fdw_log(FDW_LOG_INFO, "%s: TPM binding in keyslot %d, PCRs %s (sha256)", device, *slot,
		pcrs);
	/* Enrolled again: the older seals (to older PCR values) go. */
	for (int i = 0; i < n; i++)
		if (unbind(device, old[i].slot) != 0)
			fdw_log(FDW_LOG_WARN, "%s: the older TPM binding in keyslot %d could not "
				"be removed", device, old[i].slot);
	return 0;
}

int fdw_tpm_remove(const char *device, int *removed, char *why, size_t len)
{
	struct fdw_tpm_binding b[FDW_TPM_MAX_BINDINGS];
	int n = fdw_tpm_bindings(device, b, FDW_TPM_MAX_BINDINGS), rc;

	*removed = 0;
	if (n < 0) {
		snprintf(why, len, _("the bindings of %s cannot be read (%s). Nothing was "
				     "changed."), device, strerror(-n));
		return n;
	}
	for (int i = 0; i < n; i++) {
		rc = unbind(device, b[i].slot);
		if (rc) {
			snprintf(why, len, _("the TPM binding in keyslot %d could not be removed "
					     "(exit status %d); %d of %d were removed."),
				 b[i].slot, rc, *removed, n);
			return rc > 0 ? -EIO : rc;
		}
		fdw_log(FDW_LOG_INFO, "%s: TPM binding in keyslot %d removed", device, b[i].slot);
		(*removed)++;
	}
	return 0;
}

int fdw_tpm_system_initramfs(const char *device, bool *made, char *initrd, size_t ilen,
			     char *why, size_t len)
{
	static char listing[1 << 20];
	int rc;

	*made = false;
	initrd[0] = '\0';
	if (!fdw_tpm_in_system_crypttab(device))
		return 0;
	rc = fdw_initrd_remake_running(initrd, ilen, listing, sizeof(listing), why, len);
	if (rc)
		return rc;
	if (!strstr(listing, "bin/clevis-decrypt-tpm2\n") || !strstr(listing, "tpm2_unseal\n")) {
		snprintf(why, len, _("%s was made again but does not carry clevis's TPM unlock "
				     "(is clevis-initramfs installed?)."), initrd);
		return -ENOEXEC;
	}
	*made = true;
	return 0;
}
