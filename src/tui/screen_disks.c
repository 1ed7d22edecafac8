/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Disks screen: a tree of disks and partitions with verdicts; choose one to encrypt. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/i18n.h"
#include "core/units.h"
#include "curses.h"
#include "tui.h"

#define DETAIL_LINES 5

/* "PATH: why." in the words `fdewiz list` uses (fdw_scan_error_text). */
static void add_error(struct tui *t, const char *path, int err)
{
	size_t used = strlen(t->scan_errors);

	snprintf(t->scan_errors + used, sizeof(t->scan_errors) - used, "%s%s: %s.",
		 used ? " " : "", path, fdw_scan_error_text(err));
}

/* The disks the scan of all disks could not read, named with the reason. */
static void add_failures(struct tui *t, struct fdw_disk_list *list)
{
	for (size_t i = 0; i < list->n_failed; i++) {
		add_error(t, list->failed[i].path, list->failed[i].err);
		free(list->failed[i].path);
	}
	free(list->failed);
	list->failed = NULL;
	list->n_failed = 0;
}

int tui_scan(struct tui *t)
{
	struct fdw_disk_list list = { 0 };
	size_t rows = 0;
	int rc = 0;

	for (size_t i = 0; i < t->n_disks; i++)
		fdw_disk_free(&t->disks[i]);
	free(t->disks);
	free(t->tree);
	t->disks = NULL;
	t->tree = NULL;
	t->n_disks = t->n_tree = t->sel = t->top = 0;
	t->scan_errors[0] = '\0';

	if (t->n_paths > 0) {
		list.disks = calloc((size_t)t->n_paths, sizeof(*list.disks));
		if (!list.disks)
			return -ENOMEM;
		for (int i = 0; i < t->n_paths; i++) {
			rc = fdw_disk_scan(t->paths[i], &list.disks[list.n_disks]);
			if (rc)
				add_error(t, t->paths[i], rc);
			else
				list.n_disks++;
		}
	} else {
		rc = fdw_disk_scan_all(&list);
		add_failures(t, &list);
		if (rc)
			add_error(t, _("all disks"), rc);
		else if (geteuid() != 0)
			add_error(t, _("all disks"), -EACCES);
	}
	t->disks = list.disks;
	t->n_disks = list.n_disks;
	for (size_t d = 0; d < t->n_disks; d++)
		rows += 1 + t->disks[d].n_parts;
	t->tree = calloc(rows ? rows : 1, sizeof(*t->tree));
	if (!t->tree)
		return -ENOMEM;
	for (size_t d = 0; d < t->n_disks; d++) {
		t->tree[t->n_tree++] = (struct tui_row){ (int)d, -1 };
		for (size_t p = 0; p < t->disks[d].n_parts; p++)
			t->tree[t->n_tree++] = (struct tui_row){ (int)d, (int)p };
	}
	/* Start on the first partition that can be encrypted. */
	for (size_t i = 0; i < t->n_tree; i++) {
		const struct tui_row *r = &t->tree[i];

		if (r->part >= 0 && t->disks[r->disk].parts[r->part].verdict.eligible) {
			t->sel = i;
			break;
		}
	}
	return 0;
}

static const struct fdw_partition *row_part(const struct tui *t, size_t i)
{
	const struct tui_row *r = &t->tree[i];

	return r->part < 0 ? NULL : &t->disks[r->disk].parts[r->part];
}

/* The verdict column: "yes (shrink)" or "no (mounted)"; the words mark it without colour. */
static void verdict_text(const struct fdw_partition *p, char *buf, size_t len)
{
	if (p->verdict.eligible)
		snprintf(buf, len, _("yes (%s)"), fdw_strategy_name(p->verdict.strategy));
	else
		snprintf(buf, len, _("no (%s)"), fdw_reason_name(p->verdict.reason));
}

struct columns {
	int name, size, fs, label, mount, verdict;
};

static void layout(struct columns *c)
{
	int rest;

	c->size = 9;
	c->fs = 11;	/* "crypto_LUKS" */
	c->verdict = 18;
	c->label = COLS >= 90 ? 12 : 0;
	c->mount = COLS >= 100 ? 12 : 0;
	rest = COLS - 2 - (c->size + 1) - (c->fs + 1) - (c->verdict + 1) -
	       (c->label ? c->label + 1 : 0) - (c->mount ? c->mount + 1 : 0);
	c->name = rest;
}

static void draw_row(struct tui *t, int y, size_t i, const struct columns *c)
{
	const struct tui_row *r = &t->tree[i];
	const struct fdw_disk *d = &t->disks[r->disk];
	const struct fdw_partition *p = row_part(t, i);
	bool last = p && (size_t)r->part + 1 == d->n_parts;
	char name[512], size[32], verdict[96];
	int x = 1;

	if (i == t->sel)
		tui_attr_on(t, TUI_C_SELECT);
	tui_put(y, 0, COLS, i == t->sel ? ">" : " ", true);
	if (!p) {
		/* A disk's row is one line across the columns: long image paths stay whole. */
		snprintf(name, sizeof(name), "%s  %s, %s, %s", d->path,
			 d->kind == FDW_DISK_IMAGE ? _("image file") :
			 (d->model ? d->model : _("disk")),
			 fdw_format_size(d->size, size, sizeof(size)), d->table);
		tui_put(y, x, COLS - x, name, false);
		if (i == t->sel)
			tui_attr_off(t, TUI_C_SELECT);
		return;
	}
	snprintf(name, sizeof(name), "%s%d %s", t->utf8 ? (last ? "\u2514\u2500 " :
		 "\u251c\u2500 ") : (last ? "`- " : "|- "), p->number, p->name ? p->name : "");
	x += tui_put(y, x, c->name, name, true) + 1;
	tui_put(y, x, c->size, fdw_format_size(p->size, size, sizeof(size)), true);
	x += c->size + 1;
	tui_put(y, x, c->fs, p->fstype ? p->fstype : "-", true);
	x += c->fs + 1;
	if (c->label) {
		tui_put(y, x, c->label, p->label ? p->label : "-", true);
		x += c->label + 1;
	}
	if (c->mount) {
		tui_put(y, x, c->mount, p->n_mountpoints ? p->mountpoints[0] : "-", true);
		x += c->mount + 1;
	}
	verdict_text(p, verdict, sizeof(verdict));
	if (i != t->sel)
		tui_attr_on(t, p->verdict.eligible ? TUI_C_GOOD : TUI_C_BAD);
	tui_put(y, x, COLS - x, verdict, true);
	if (i != t->sel)
		tui_attr_off(t, p->verdict.eligible ? TUI_C_GOOD : TUI_C_BAD);
	if (i == t->sel)
		tui_attr_off(t, TUI_C_SELECT);
}

static void draw_detail(struct tui *t, int y)
{
	const struct fdw_partition *p;
	const struct fdw_disk *d;
	char buf[1024], a[32], b[32];

	tui_hline(t, y++, 0, COLS);
	if (t->n_tree == 0)
		return;
	p = row_part(t, t->sel);
	d = &t->disks[t->tree[t->sel].disk];
	if (!p) {
		snprintf(buf, sizeof(buf), _("%s: %s, partition table %s, sectors of %u bytes."),
			 d->path, fdw_format_size(d->size, a, sizeof(a)), d->table,
			 d->logical_sector_size);
		tui_wrap(y, 1, COLS - 2, 2, buf);
		tui_attr_on(t, TUI_C_DIM);
		tui_put(y + 2, 1, COLS - 2, _("Choose one of its partitions to encrypt."), false);
		tui_attr_off(t, TUI_C_DIM);
		return;
	}
	fdw_verdict_explain(p, buf, sizeof(buf));
	tui_attr_on(t, p->verdict.eligible ? TUI_C_GOOD : TUI_C_BAD);
	y += tui_wrap(y, 1, COLS - 2, 2, buf);
	tui_attr_off(t, p->verdict.eligible ? TUI_C_GOOD : TUI_C_BAD);
	if (p->fs_used >= 0 && p->fs_size > 0)
		snprintf(buf, sizeof(buf), _("%s  used %s of %s  UUID %s"), p->address,
			 fdw_format_size((uint64_t)p->fs_used, a, sizeof(a)),
			 fdw_format_size((uint64_t)p->fs_size, b, sizeof(b)),
			 p->uuid ? p->uuid : "-");
	else
		snprintf(buf, sizeof(buf), "%s  UUID %s", p->address, p->uuid ? p->uuid : "-");
	tui_attr_on(t, TUI_C_DIM);
	y += tui_wrap(y, 1, COLS - 2, 2, buf);
	if (p->n_mountpoints)
		tui_put(y, 1, COLS - 2, p->mountpoints[0], false);
	tui_attr_off(t, TUI_C_DIM);
}

void disks_draw(struct tui *t)
{
	struct columns c;
	int y = 2, list_rows = LINES - 4 - DETAIL_LINES, x = 1;

	tui_title(t, _("Choose a partition to encrypt in place"));
	layout(&c);
	tui_attr_on(t, TUI_C_KEY);
	x += tui_put(1, x, c.name, _("DISK / PARTITION"), true) + 1;
	x += tui_put(1, x, c.size, _("SIZE"), true) + 1;
	x += tui_put(1, x, c.fs, _("FS"), true) + 1;
	if (c.label)
		x += tui_put(1, x, c.label, _("LABEL"), true) + 1;
	if (c.mount)
		x += tui_put(1, x, c.mount, _("MOUNTED"), true) + 1;
	tui_put(1, x, COLS - x, _("IN PLACE"), false);
	tui_attr_off(t, TUI_C_KEY);

	if (t->n_tree == 0) {
		tui_wrap(y, 1, COLS - 2, 3, _("No disks to show."));
		y++;
	}
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + (size_t)list_rows)
		t->top = t->sel - (size_t)list_rows + 1;
	for (size_t i = t->top; i < t->n_tree && y < 2 + list_rows; i++)
		draw_row(t, y++, i, &c);
	if (t->scan_errors[0] && y < 2 + list_rows) {
		tui_attr_on(t, TUI_C_BAD);
		tui_wrap(y, 1, COLS - 2, 2 + list_rows - y, t->scan_errors);
		tui_attr_off(t, TUI_C_BAD);
	}
	draw_detail(t, LINES - 1 - DETAIL_LINES - 1);
	tui_attr_on(t, TUI_C_DIM);
	tui_put(LINES - 1, 0, COLS, _("Up/Down: move  Enter: choose  r: scan again  ?: help  "
				      "q: quit"), true);
	tui_attr_off(t, TUI_C_DIM);
}

/* An encrypted partition: its conversion's progress or results, or an unfinished one to resume. */
static void open_conversion(struct tui *t, const struct fdw_partition *p)
{
	struct fdw_volume_id now;
	struct fdw_job job;
	char why[512];

	/* Its own record (by the header's UUID), never one of a volume named so before. */
	fdw_volume_id_of(&t->disks[t->tree[t->sel].disk], p, &now);
	if (fdw_job_for_volume(&now, &job) == 0) {
		snprintf(job.address, sizeof(job.address), "%s", p->address);
		tui_open_job(t, &job);
		return;
	}
	if (p->verdict.reason == FDW_REASON_LUKS_UNFINISHED && now.luks_uuid[0]) {
		/* Another tool started it: its header is all there is, and resume continues it. */
		memset(&job, 0, sizeof(job));
		snprintf(job.id, sizeof(job.id), "%s", now.luks_uuid);
		snprintf(job.address, sizeof(job.address), "%s", p->address);
		job.ident = now;
		tui_open_job(t, &job);
		return;
	}
	fdw_verdict_explain(p, why, sizeof(why));
	tui_set_status(t, true, _("Cannot encrypt this one: %s"), why);
}

void disks_key(struct tui *t, struct tui_key k)
{
	const struct fdw_partition *p;
	size_t page = (size_t)(LINES > 12 ? LINES - 12 : 1);

	if (k.kind == TUI_KEY_UP || tui_key_is(k, 'k')) {
		if (t->sel > 0)
			t->sel--;
	} else if (k.kind == TUI_KEY_DOWN || tui_key_is(k, 'j')) {
		if (t->sel + 1 < t->n_tree)
			t->sel++;
	} else if (k.kind == TUI_KEY_HOME) {
		t->sel = 0;
	} else if (k.kind == TUI_KEY_END) {
		t->sel = t->n_tree ? t->n_tree - 1 : 0;
	} else if (k.kind == TUI_KEY_PAGE_UP) {
		t->sel = t->sel > page ? t->sel - page : 0;
	} else if (k.kind == TUI_KEY_PAGE_DOWN) {
		t->sel = t->sel + page < t->n_tree ? t->sel + page :
						   (t->n_tree ? t->n_tree - 1 : 0);
	} else if (k.kind == TUI_KEY_ENTER) {
		if (t->n_tree == 0)
			return;
		p = row_part(t, t->sel);
		if (!p) {
			tui_set_status(t, true, "%s", _("That is a whole disk: choose one of its "
							"partitions."));
		} else if (p->verdict.reason == FDW_REASON_ALREADY_LUKS ||
			   p->verdict.reason == FDW_REASON_LUKS_UNFINISHED) {
			open_conversion(t, p);
		} else if (!p->verdict.eligible) {
			char why[512];

			fdw_verdict_explain(p, why, sizeof(why));
			tui_set_status(t, true, _("Cannot encrypt this one: %s"), why);
		} else {
			plan_enter(t, p->address);
		}
	} else if (tui_key_is(k, 'r')) {
		tui_scan(t);
		tui_set_status(t, false, "%s", _("Scanned again."));
	} else if (tui_key_is(k, 'q') || k.kind == TUI_KEY_ESC) {
		if (k.kind == TUI_KEY_ESC && t->n_jobs) {
			start_load(t);
			if (t->n_jobs) {
				tui_go(t, TUI_START);
				return;
			}
		}
		t->quit = true;
	}
}
