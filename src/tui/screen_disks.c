/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Disks screen: a tree of disks and partitions with verdicts; choose one to encrypt. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/base_api.h"
#include "core/disk/disk_api.h"
#include "curses.h"
#include "tui.h"

#define DETAIL_LINES 5

/* A row of the disks tree: a disk (part < 0) or one of its partitions. */
struct tui_row {
	int disk, part;
};

/* The disks shown, as a tree, and the selection. */
struct disks_state {
	struct fdw_disk *disks;
	size_t n_disks;
	char scan_errors[1024];
	struct tui_row *tree;
	size_t n_tree, sel, top;
};

static struct disks_state *state_of(const struct tui *t)
{
	return t->state[TUI_DISKS];
}

/* "PATH: why." in the words `fdewiz list` uses (fdw_scan_error_text). */
static void add_error(struct disks_state *ds, const char *path, int err)
{
	size_t used = strlen(ds->scan_errors);

	snprintf(ds->scan_errors + used, sizeof(ds->scan_errors) - used, "%s%s: %s.",
		 used ? " " : "", path, fdw_scan_error_text(err));
}

/* The disks the scan of all disks could not read, named with the reason. */
static void add_failures(struct disks_state *ds, struct fdw_disk_list *list)
{
	for (size_t i = 0; i < list->n_failed; i++) {
		add_error(ds, list->failed[i].path, list->failed[i].err);
		free(list->failed[i].path);
	}
	free(list->failed);
	list->failed = NULL;
	list->n_failed = 0;
}

static void free_disks(struct disks_state *ds)
{
	for (size_t i = 0; i < ds->n_disks; i++)
		fdw_disk_free(&ds->disks[i]);
	free(ds->disks);
	free(ds->tree);
	ds->disks = NULL;
	ds->tree = NULL;
	ds->n_disks = ds->n_tree = ds->sel = ds->top = 0;
}

static int scan(struct tui *t, struct disks_state *ds)
{
	struct fdw_disk_list list = { 0 };
	size_t rows = 0;
	int rc = 0;

	free_disks(ds);
	ds->scan_errors[0] = '\0';

	if (t->n_paths > 0) {
		list.disks = calloc((size_t)t->n_paths, sizeof(*list.disks));
		if (!list.disks)
			return -ENOMEM;
		for (int i = 0; i < t->n_paths; i++) {
			rc = fdw_disk_scan(t->paths[i], &list.disks[list.n_disks]);
			if (rc)
				add_error(ds, t->paths[i], rc);
			else
				list.n_disks++;
		}
	} else {
		rc = fdw_disk_scan_all(&list);
		add_failures(ds, &list);
		if (rc)
			add_error(ds, _("all disks"), rc);
		else if (geteuid() != 0)
			add_error(ds, _("all disks"), -EACCES);
	}
	ds->disks = list.disks;
	ds->n_disks = list.n_disks;
	for (size_t d = 0; d < ds->n_disks; d++)
		rows += 1 + ds->disks[d].n_parts;
	ds->tree = calloc(rows ? rows : 1, sizeof(*ds->tree));
	if (!ds->tree)
		return -ENOMEM;
	for (size_t d = 0; d < ds->n_disks; d++) {
		ds->tree[ds->n_tree++] = (struct tui_row){ (int)d, -1 };
		for (size_t p = 0; p < ds->disks[d].n_parts; p++)
			ds->tree[ds->n_tree++] = (struct tui_row){ (int)d, (int)p };
	}
	/* Start on the first partition that can be encrypted. */
	for (size_t i = 0; i < ds->n_tree; i++) {
		const struct tui_row *r = &ds->tree[i];

		if (r->part >= 0 && ds->disks[r->disk].parts[r->part].verdict.eligible) {
			ds->sel = i;
			break;
		}
	}
	return 0;
}

static const struct fdw_partition *row_part(const struct tui *t, size_t i)
{
	const struct disks_state *ds = state_of(t);
	const struct tui_row *r = &ds->tree[i];

	return r->part < 0 ? NULL : &ds->disks[r->disk].parts[r->part];
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
	const struct disks_state *ds = state_of(t);
	const struct tui_row *r = &ds->tree[i];
	const struct fdw_disk *d = &ds->disks[r->disk];
	const struct fdw_partition *p = row_part(t, i);
	bool last = p && (size_t)r->part + 1 == d->n_parts;
	char name[512], size[32], verdict[96];
	int x = 1;

	if (i == ds->sel)
		tui_attr_on(t, TUI_C_SELECT);
	tui_put(y, 0, COLS, i == ds->sel ? ">" : " ", true);
	if (!p) {
		/* A disk's row is one line across the columns: long image paths stay whole. */
		snprintf(name, sizeof(name), "%s  %s, %s, %s", d->path,
			 d->kind == FDW_DISK_IMAGE ? _("image file") :
			 (d->model ? d->model : _("disk")),
			 fdw_format_size(d->size, size, sizeof(size)), d->table);
		tui_put(y, x, COLS - x, name, false);
		if (i == ds->sel)
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
	if (i != ds->sel)
		tui_attr_on(t, p->verdict.eligible ? TUI_C_GOOD : TUI_C_BAD);
	tui_put(y, x, COLS - x, verdict, true);
	if (i != ds->sel)
		tui_attr_off(t, p->verdict.eligible ? TUI_C_GOOD : TUI_C_BAD);
	if (i == ds->sel)
		tui_attr_off(t, TUI_C_SELECT);
}

/* The pane under the list: DETAIL_LINES, more where the chosen partition's verdict needs
 * them (whose /boot, why, what to do) and the list leaves the rows free. */
static int detail_lines(struct tui *t, const struct disks_state *ds)
{
	const struct fdw_partition *p = ds->n_tree ? row_part(t, ds->sel) : NULL;
	int need, spare = LINES - 4 - (int)ds->n_tree - (ds->scan_errors[0] ? 2 : 0);
	char buf[2048];

	if (!p)
		return DETAIL_LINES;
	fdw_verdict_explain(p, buf, sizeof(buf));
	/* Its address and UUID, and a mountpoint, below the verdict. */
	need = tui_wrap_count(COLS - 2, LINES, buf) + DETAIL_LINES - 2;
	if (need > spare)
		need = spare;
	return need > DETAIL_LINES ? need : DETAIL_LINES;
}

static void draw_detail(struct tui *t, int y, int lines)
{
	const struct disks_state *ds = state_of(t);
	const struct fdw_partition *p;
	const struct fdw_disk *d;
	char buf[2048], a[32], b[32];

	tui_hline(t, y++, 0, COLS);
	if (ds->n_tree == 0)
		return;
	p = row_part(t, ds->sel);
	d = &ds->disks[ds->tree[ds->sel].disk];
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
	y += tui_wrap(y, 1, COLS - 2, lines - (DETAIL_LINES - 2), buf);
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

static void disks_draw(struct tui *t)
{
	struct disks_state *ds = state_of(t);
	struct columns c;
	int lines = detail_lines(t, ds), y = 2, list_rows = LINES - 4 - lines, x = 1;

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

	if (ds->n_tree == 0) {
		tui_wrap(y, 1, COLS - 2, 3, _("No disks to show."));
		y++;
	}
	if (ds->sel < ds->top)
		ds->top = ds->sel;
	if (ds->sel >= ds->top + (size_t)list_rows)
		ds->top = ds->sel - (size_t)list_rows + 1;
	for (size_t i = ds->top; i < ds->n_tree && y < 2 + list_rows; i++)
		draw_row(t, y++, i, &c);
	if (ds->scan_errors[0] && y < 2 + list_rows) {
		tui_attr_on(t, TUI_C_BAD);
		tui_wrap(y, 1, COLS - 2, 2 + list_rows - y, ds->scan_errors);
		tui_attr_off(t, TUI_C_BAD);
	}
	draw_detail(t, LINES - 1 - lines - 1, lines);
}

/* An encrypted partition: its conversion's progress or results, or an unfinished one to resume. */
static void open_conversion(struct tui *t, const struct fdw_partition *p)
{
	const struct disks_state *ds = state_of(t);
	struct fdw_volume_id now;
	struct fdw_job job;
	char why[2048];

	/* Its own record (by the header's UUID), never one of a volume named so before. */
	fdw_volume_id_of(&ds->disks[ds->tree[ds->sel].disk], p, &now);
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

static void disks_key(struct tui *t, struct tui_key k)
{
	struct disks_state *ds = state_of(t);
	const struct fdw_partition *p;
	size_t page = (size_t)(LINES > 12 ? LINES - 12 : 1);

	if (k.kind == TUI_KEY_UP || tui_key_is(k, 'k')) {
		if (ds->sel > 0)
			ds->sel--;
	} else if (k.kind == TUI_KEY_DOWN || tui_key_is(k, 'j')) {
		if (ds->sel + 1 < ds->n_tree)
			ds->sel++;
	} else if (k.kind == TUI_KEY_HOME) {
		ds->sel = 0;
	} else if (k.kind == TUI_KEY_END) {
		ds->sel = ds->n_tree ? ds->n_tree - 1 : 0;
	} else if (k.kind == TUI_KEY_PAGE_UP) {
		ds->sel = ds->sel > page ? ds->sel - page : 0;
	} else if (k.kind == TUI_KEY_PAGE_DOWN) {
		ds->sel = ds->sel + page < ds->n_tree ? ds->sel + page :
						   (ds->n_tree ? ds->n_tree - 1 : 0);
	} else if (k.kind == TUI_KEY_ENTER) {
		if (ds->n_tree == 0)
			return;
		p = row_part(t, ds->sel);
		if (!p) {
			tui_set_status(t, true, "%s", _("That is a whole disk: choose one of its "
							"partitions."));
		} else if (p->verdict.reason == FDW_REASON_DECRYPT_UNFINISHED) {
			snprintf(t->chosen, sizeof(t->chosen), "%s", p->address);
			tui_go(t, TUI_DECRYPT);
		} else if (p->verdict.reason == FDW_REASON_ALREADY_LUKS ||
			   p->verdict.reason == FDW_REASON_LUKS_UNFINISHED) {
			open_conversion(t, p);
		} else if (p->verdict.reason == FDW_REASON_MOUNTED_ROOT) {
			/* The running system's root: at the next restart. */
			snprintf(t->chosen, sizeof(t->chosen), "%s", p->address);
			tui_go(t, TUI_RESTART);
		} else if (!p->verdict.eligible) {
			char why[2048];

			fdw_verdict_explain(p, why, sizeof(why));
			tui_set_status(t, true, _("Cannot encrypt this one in place: %s e: erase and "
						  "encrypt it instead (for a reinstall)."), why);
		} else {
			snprintf(t->chosen, sizeof(t->chosen), "%s", p->address);
			tui_go(t, TUI_PLAN);
		}
	} else if (tui_key_is(k, 'e') && ds->n_tree && row_part(t, ds->sel)) {
		/* Erase and encrypt (for a reinstall): its own screens check and ask. */
		snprintf(t->chosen, sizeof(t->chosen), "%s", row_part(t, ds->sel)->address);
		tui_go(t, TUI_ERASE);
	} else if (tui_key_is(k, 'd') && ds->n_tree && row_part(t, ds->sel)) {
		/* Decrypt in place: its screen checks (LUKS2, closed), asks and runs it. */
		snprintf(t->chosen, sizeof(t->chosen), "%s", row_part(t, ds->sel)->address);
		tui_go(t, TUI_DECRYPT);
	} else if (tui_key_is(k, 'r')) {
		scan(t, ds);
		tui_set_status(t, false, "%s", _("Scanned again."));
	} else if (tui_key_is(k, 'q') || k.kind == TUI_KEY_ESC) {
		/* Esc goes back to the unfinished conversions, when the wizard showed some. */
		if (k.kind == TUI_KEY_ESC && tui_go(t, TUI_START))
			return;
		t->quit = true;
	}
}

static bool disks_enter(struct tui *t, enum tui_screen from)
{
	/*
	 * Back from the plan or the confirmation nothing was changed: the list and the
	 * selection stay as they were. From anywhere else the disks are read again.
	 */
	if (from != TUI_PLAN && from != TUI_CONFIRM)
		scan(t, state_of(t));
	return true;
}

static void disks_free(void *state)
{
	free_disks(state);
}

const struct tui_screen_ops tui_screen_disks = {
	.enter = disks_enter,
	.draw = disks_draw,
	.key = disks_key,
	.hint = N_("Enter: choose  e: erase and encrypt (for a reinstall)  d: decrypt  r: scan again  "
		   "?: help  q: quit"),
	.state_size = sizeof(struct disks_state),
	.free_state = disks_free,
};
