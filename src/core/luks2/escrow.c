/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A recovery key escrowed before the conversion: a JSON document to a command or a folder. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/durable.h"
#include "base/fileio.h"
#include "base/i18n.h"
#include "base/log.h"
#include "base/spawn.h"
#include "base/uuid.h"
#include "escrow.h"

/* Big enough for the document: its fields are short, the key 55 bytes. */
#define DOC_CAP 4096

/* The document is written by hand, not with json-c: json-c would copy the key into
 * ordinary heap memory, outside the locked buffer it must stay in. */

/* @s as a JSON string's contents into @out (at most @len with its NUL): quotes, backslashes
 * and control characters escaped; bytes above 0x7f kept (UTF-8 passes through). */
static void json_escape(const char *s, char *out, size_t len)
{
	size_t n = 0;

	for (; s && *s && n + 7 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			out[n++] = '\\';
			out[n++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			n += (size_t)snprintf(out + n, len - n, "\\u%04x", c);
		} else {
			out[n++] = (char)c;
		}
	}
	out[n] = '\0';
}

static void machine_id(char *buf, size_t len)
{
	char *text = NULL;

	buf[0] = '\0';
	if (fdw_read_file("/etc/machine-id", 256, FDW_READ_TEXT | FDW_READ_PREFIX, &text, NULL,
			  NULL) == 0) {
		text[strcspn(text, "\n")] = '\0';
		json_escape(text, buf, len);
	}
	free(text);
}

int fdw_escrow_document(const struct fdw_escrow_volume *v, const struct fdw_secret *key,
			struct fdw_secret **out)
{
	char host[256] = "", ehost[512], mid[128], dev[1024], fsu[160], lu[160], when[32];
	struct fdw_secret *doc;
	time_t now = time(NULL);
	struct tm tm;
	int n, rc;

	*out = NULL;
	gethostname(host, sizeof(host) - 1);
	json_escape(host, ehost, sizeof(ehost));
	machine_id(mid, sizeof(mid));
	json_escape(v->device, dev, sizeof(dev));
	json_escape(v->filesystem_uuid, fsu, sizeof(fsu));
	json_escape(v->luks_uuid, lu, sizeof(lu));
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	rc = fdw_secret_new(&doc, DOC_CAP);
	if (rc)
		return rc;
	/* The key is of the recovery alphabet (digits, capitals, '-'): nothing to escape. */
	n = snprintf(doc->data, DOC_CAP,
		     "{\"fdewiz_escrow\": 1, \"host\": \"%s\", \"machine_id\": \"%s\", "
		     "\"device\": \"%s\", \"filesystem_uuid\": \"%s\", \"luks_uuid\": \"%s\", "
		     "\"recovery_key\": \"%.*s\", \"time\": \"%s\"}\n",
		     ehost, mid, dev, fsu, lu, (int)key->len, key->data, when);
	if (n < 0 || n >= DOC_CAP) {
		fdw_secret_free(doc);
		return -EMSGSIZE;
	}
	doc->len = (size_t)n;
	*out = doc;
	return 0;
}

/*
 * What the command printed, for the message: on one line, and never the key itself (a
 * command that echoes its input would otherwise put it in a message and a log).
 */
static void last_words(char *said, const struct fdw_secret *key)
{
	char *at;

	for (char *c = said; *c; c++)
		if (*c == '\n' || *c == '\r' || *c == '\t')
			*c = ' ';
	while (key->len && (at = strstr(said, key->data)) != NULL)
		memset(at, '*', key->len);
	/* What was cut off at the end may have kept the key's beginning. */
	for (size_t n = strlen(said), k = key->len - 1; key->len && k >= 4; k--)
		if (n >= k && !memcmp(said + n - k, key->data, k)) {
			memset(said + n - k, '*', k);
			break;
		}
}

static int to_command(const char *command, const struct fdw_secret *doc,
		      const struct fdw_secret *key, char *why, size_t len)
{
	char *argv[] = { "sh", "-c", (char *)command, NULL };
	struct fdw_spawn_opts o = { .stdin_bytes = doc->data, .stdin_len = doc->len, .fd3 = -1 };
	char said[512] = "";
	int rc = fdw_spawn_collect(argv, &o, said, sizeof(said));

	if (rc == 0)
		return 0;
	last_words(said, key);
	if (rc < 0)
		snprintf(why, len, _("the escrow command could not run (%s)."), strerror(-rc));
	else
		snprintf(why, len, _("the escrow command failed (exit status %d%s%s)."), rc,
			 said[0] ? _("; it said: ") : "", said);
	return rc < 0 ? rc : -EIO;
}

static int to_dir(const char *dir, const char *luks_uuid, const struct fdw_secret *doc,
		  char *why, size_t len)
{
	char path[PATH_MAX];
	struct stat st;
	int rc;

	if (!fdw_uuid_valid(luks_uuid)) {
		snprintf(why, len, _("the volume has no valid UUID to name its escrow file."));
		return -EINVAL;
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		int err = stat(dir, &st) != 0 ? errno : ENOTDIR;

		snprintf(why, len, _("the escrow folder %s is not a folder (%s)."), dir,
			 strerror(err));
		return -ENOTDIR;
	}
	if (snprintf(path, sizeof(path), "%s/%s.json", dir, luks_uuid) >= (int)sizeof(path)) {
		snprintf(why, len, _("the escrow folder's path is too long."));
		return -ENAMETOOLONG;
	}
	/* A file of this name is another conversion's key: never replaced. */
	if (access(path, F_OK) == 0) {
		snprintf(why, len, _("%s already exists; it is not replaced."), path);
		return -EEXIST;
	}
	rc = fdw_write_file_atomic(path, doc->data, doc->len, 0600);
	if (rc)
		snprintf(why, len, _("the recovery key could not be written to %s (%s)."), path,
			 strerror(-rc));
	return rc;
}

int fdw_escrow_key(const struct fdw_escrow *es, const struct fdw_escrow_volume *v,
		   const struct fdw_secret *key, char *why, size_t len)
{
	struct fdw_secret *doc = NULL;
	char detail[768] = "";
	int rc;

	if (!fdw_escrow_wanted(es))
		return 0;
	rc = fdw_escrow_document(v, key, &doc);
	if (rc) {
		snprintf(why, len, _("the escrow document could not be made (%s). Nothing was "
				     "changed."), strerror(-rc));
		return rc;
	}
	if (es->command && es->command[0])
		rc = to_command(es->command, doc, key, detail, sizeof(detail));
	if (!rc && es->dir && es->dir[0])
		rc = to_dir(es->dir, v->luks_uuid, doc, detail, sizeof(detail));
	fdw_secret_free(doc);
	if (rc) {
		snprintf(why, len, _("the recovery key was not escrowed: %s Nothing was changed; "
				     "fix the escrow and run it again."), detail);
		return rc;
	}
	fdw_log(FDW_LOG_INFO, "%s: the recovery key was escrowed%s%s%s%s", v->device,
		es->command && es->command[0] ? " to the escrow command" : "",
		es->command && es->command[0] && es->dir && es->dir[0] ? " and" : "",
		es->dir && es->dir[0] ? " into " : "", es->dir && es->dir[0] ? es->dir : "");
	return 0;
}
