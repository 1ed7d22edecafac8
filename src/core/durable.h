/* Making a written file survive a power cut: the file and the directory entry naming it. */
#ifndef FDW_DURABLE_H
#define FDW_DURABLE_H

/* fsync @path and then its directory. Returns 0 or -errno. */
int fdw_sync_path(const char *path);

#endif
