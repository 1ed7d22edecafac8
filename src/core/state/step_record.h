/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The record of a resumable change made step by step (the move of an installed system's
 * /boot, the header's room at an LVM PV's end): a JSON file in the state folder, named
 * <kind>-<id>.json, rewritten atomically and durably once each step is done, so that a
 * crash repeats at most the step it was in. Each kind describes its fields once; saving,
 * loading and checking are the same for all. A job's own records (the job itself, its
 * system's boot step, its data volume's boot entries) are kinds without steps or id, kept
 * in a file of the job (state/job.h names them).
 */
#ifndef FDW_STEP_RECORD_H
#define FDW_STEP_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The version this program writes; a record without one is of version 0 (the same fields). */
#define FDW_STEP_RECORD_VERSION 1

/* FDW_REC_OBJ: a struct inside the record, written as a JSON object of its own fields. */
enum fdw_record_type { FDW_REC_STR, FDW_REC_U64, FDW_REC_I64, FDW_REC_INT, FDW_REC_BOOL,
		       FDW_REC_OBJ };

/* One field of the kind's struct: its key in the file, its type, where it is. */
struct fdw_record_field {
	const char *key;
	enum fdw_record_type type;
	size_t offset, size;		/* size: of the char array, for FDW_REC_STR */
	const struct fdw_record_field *sub;	/* FDW_REC_OBJ: the inner struct's fields */
	size_t n_sub;
};

#define FDW_REC_FIELD(st, member, rtype)                                                       \
	{ .key = #member, .type = rtype, .offset = offsetof(st, member),                        \
	  .size = sizeof(((st *)0)->member) }
/* The struct @member of @st, kept as the object @name of the fields in the array @fields. */
#define FDW_REC_OBJECT(st, member, name, fields)                                               \
	{ .key = name, .type = FDW_REC_OBJ, .offset = offsetof(st, member),                     \
	  .size = sizeof(((st *)0)->member), .sub = fields,                                     \
	  .n_sub = sizeof(fields) / sizeof((fields)[0]) }

/* A field's name in the "key=value" lines of an older version, where it was another. */
struct fdw_record_older_key {
	const char *older, *key;
};

struct fdw_step_record {
	const char *kind;		/* "boot-move": the file is <state>/boot-move-<id>.json */
	const char *id_key;		/* the field holding the id (a string field); NULL: none */
	const char *const *steps;	/* the step keys in order; the last means done */
	int n_steps;			/* 0: no steps (a record of a job's, _file below) */
	size_t size;			/* of the kind's struct */
	size_t step_offset;		/* the struct's step: an enum (int) counting from 0 */
	const struct fdw_record_field *fields;
	size_t n_fields;
	/* The kind's own check of a loaded record (NULL: none), and what a failed one means. */
	bool (*fits)(const void *rec);
	const char *misfit;
	/* What a record holds before it is loaded (a field an older record lacks keeps it);
	 * NULL: zeros. */
	const void *blank;
	/* The "key=value" lines an older version wrote (fdw_step_record_load_older): the keys
	 * it named otherwise, and the string field that gathers every other line, each
	 * ending in a newline (NULL: such lines are dropped). */
	const struct fdw_record_older_key *older_keys;
	size_t n_older_keys;
	const char *older_rest;
};

/* May @id name a record (letters, digits and dashes, 8 to 64 of them: a UUID)? */
bool fdw_step_record_id_valid(const char *id);
/* The file of @id's record in @dir (NULL: the state folder; the restart's stage folder
 * carries a planned one). 0, or -EINVAL for an id that cannot name a file. */
int fdw_step_record_path(const struct fdw_step_record *k, const char *dir, const char *id,
			 char *buf, size_t len);
/* Write @rec (the kind's struct) as the record of @id. 0, or -errno. */
int fdw_step_record_save(const struct fdw_step_record *k, const char *id, const void *rec);
/*
 * Read the record of @id into @rec (zeroed first). 0; -ENOENT when there is none;
 * -EBADMSG with @why naming what is wrong (not JSON, another id, an unknown step, a newer
 * version, the kind's check failed), when it cannot be trusted; that is logged too.
 */
int fdw_step_record_load(const struct fdw_step_record *k, const char *id, void *rec, char *why,
			 size_t len);
/* The same for a record kept in the file @path (a job's, whose name says whose it is):
 * @id NULL, or the id its id field must hold. */
int fdw_step_record_save_file(const struct fdw_step_record *k, const char *path,
			      const void *rec);
int fdw_step_record_load_file(const struct fdw_step_record *k, const char *path,
			      const char *id, void *rec, char *why, size_t len);
/*
 * A job's record that an older version wrote as "key=value" lines: when the file at @path
 * is no JSON (its first byte not '{'), its lines are read by the kind's field names (and
 * older_keys), and the kind's check follows. 0; -ENOENT when there is none; -EINVAL when
 * it cannot be trusted (logged, as for a step record).
 */
int fdw_step_record_load_older(const struct fdw_step_record *k, const char *path, void *rec);

#endif
