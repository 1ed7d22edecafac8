/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Volumes blkid cannot see: LUKS2 with the header in a file, and data that looks encrypted. */
#ifndef FDW_DETACHED_H
#define FDW_DETACHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fdw_disk;
struct fdw_partition;
struct fdw_job;

/*
 * The detached header of partition @p of @d, from the job record that belongs to it by
 * identity (fdw_job_for_volume: never by a device name), accepted only when the header
 * file agrees: its UUID is the record's and every
 * data segment it describes lies inside the partition. 0 with the path in @header and
 * whether its conversion is unfinished; -ENOENT when there is no such record, -ESTALE
 * or -ERANGE when the header does not match, or -errno.
 */
int fdw_detached_lookup(const struct fdw_disk *d, const struct fdw_partition *p, char *header,
			size_t len, bool *unfinished);
/*
 * Is fdewiz decrypting partition @p of @d (a job record that belongs to it by identity
 * says so, and the header it keeps meanwhile is there)? 0 with that record in @job;
 * -ENOENT when not.
 */
int fdw_decrypt_lookup(const struct fdw_disk *d, const struct fdw_partition *p,
		       struct fdw_job *job);
/* Do samples from the start, middle and end of the range all look like random bytes? */
bool fdw_looks_random(int fd, uint64_t offset, uint64_t size);

#endif
