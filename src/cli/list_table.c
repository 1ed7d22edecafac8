/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `fdewiz list`: the scan as a table a person reads, one verdict sentence per partition. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "cli.h"
#include "core/base/base_api.h"
#include "core/state/state_api.h"
#include "core/disk/disk_api.h"

static void cell(FILE *out, const char *text, int width)
{
	int pad = width - cli_text_width(text);

	fputs(text, out);
	while (pad-- > 0)
		fputc(' ', out);
	fputc(' ', out);
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static const char *usage_text(const struct fdw_partition *p, char *buf, size_t len)
{
	char used[32], total[32];

	if (p->fs_used < 0 || p->fs_size <= 0)
		return "-";
	snprintf(buf, len, "%s/%s", fdw_format_size((uint64_t)p->fs_used, used, sizeof(used)),
		 fdw_format_size((uint64_t)p->fs_size, total, sizeof(total)));
	return buf;
}

static const char *in_place_text(const struct fdw_partition *p, char *buf, size_t len)
{
	if (!p->verdict.eligible)
		return _("no");
	snprintf(buf, len, _("yes (%s)"), fdw_strategy_name(p->verdict.strategy));
	return buf;
}

/* Who began an unfinished conversion: fdewiz (its record matches the header) or not. */
static void print_conversion_source(FILE *out, const struct fdw_disk *d,
				    const struct fdw_partition *p)
{
	struct fdw_volume_id now;
	struct fdw_job job;

	if (p->verdict.reason != FDW_REASON_LUKS_UNFINISHED)
		return;
	fdw_volume_id_of(d, p, &now);
	fputs("       ", out);
	if (fdw_job_for_volume(&now, &job) == 0)
		fprintf(out, _("Started by fdewiz; '%s status %s' shows where it stopped.\n"),
			fdw_progname, cli_safe(p->address));
	else
		fprintf(out, _("Started outside fdewiz (no record of it); '%s resume %s' "
			       "finishes it.\n"), fdw_progname, cli_safe(p->address));
}

static void print_disk(FILE *out, const struct fdw_disk *d)
{
	char size[32], usage[64], verdict[64], why[2048];

	fdw_format_size(d->size, size, sizeof(size));
	fprintf(out, "%s  %s, %s, %s%s%s\n", cli_safe(d->path),
		d->kind == FDW_DISK_IMAGE ? _("image file") : _("disk"), size,
		strcmp(d->table, "none") ? d->table : _("no partition table"),
		d->model ? ", " : "", d->model ? cli_safe(d->model) : "");
	if (!d->n_parts) {
		fprintf(out, "   %s\n\n", _("(no partitions)"));
		return;
	}
	fputs("   ", out);
	cell(out, "#", 3);
	cell(out, _("NAME"), 10);
	cell(out, _("SIZE"), 9);
	cell(out, _("FS"), 11);
	cell(out, _("LABEL"), 10);
	cell(out, _("USED"), 17);
	cell(out, _("MOUNTED"), 12);
	fprintf(out, "%s\n", _("IN PLACE"));
	for (size_t i = 0; i < d->n_parts; i++) {
		const struct fdw_partition *p = &d->parts[i];
		char num[16];

		snprintf(num, sizeof(num), "%d", p->number);
		fdw_format_size(p->size, size, sizeof(size));
		fputs("   ", out);
		cell(out, num, 3);
		cell(out, cli_safe(or_dash(p->name)), 10);
		cell(out, size, 9);
		cell(out, p->extended ? _("extended") : cli_safe(or_dash(p->fstype)), 11);
		cell(out, cli_safe(or_dash(p->label)), 10);
		cell(out, usage_text(p, usage, sizeof(usage)), 17);
		cell(out, p->n_mountpoints ? cli_safe(p->mountpoints[0]) : "-", 12);
		fprintf(out, "%s\n", in_place_text(p, verdict, sizeof(verdict)));
		fdw_verdict_explain(p, why, sizeof(why));
		fprintf(out, "       %s\n", cli_safe(why));
		print_conversion_source(out, d, p);
		fprintf(out, "       %s %s", _("address"), cli_safe(p->address));
		if (p->uuid)
			fprintf(out, "  UUID %s", cli_safe(p->uuid));
		fputc('\n', out);
	}
	fputc('\n', out);
}

void list_print_table(FILE *out, const struct fdw_disk *disks, size_t n,
		      const struct list_error *errors, size_t n_errors)
{
	if (!n && !n_errors)
		fprintf(out, "%s\n", _("No disks found."));
	for (size_t i = 0; i < n; i++)
		print_disk(out, &disks[i]);
	/* A disk that exists and could not be read is in the table too, with the reason. */
	for (size_t i = 0; i < n_errors; i++) {
		fprintf(out, "%s  %s\n", cli_safe(errors[i].path), _("not read"));
		fprintf(out, "   %s\n\n", cli_safe(errors[i].message ? errors[i].message : "?"));
	}
}
