/* sy_bmff_file.h — opening an ISO-BMFF file for the HEIF reader and the
 * MOV/MP4 demuxer alike (engine-private). */
#ifndef SY_BMFF_FILE_H
#define SY_BMFF_FILE_H

#include <stdio.h>
#include "../base/sy_internal.h"

/* The last 96 characters of a path, for messages. */
const char *sy__short_path(const char *path);

/* Copies `path` (engine-allocated into *path_copy), opens it for reading and
 * checks it is a regular file. On failure nothing stays open or allocated.
 * The caller later fcloses *fp and sy__frees *path_copy. *fd is fileno(*fp), for pread. */
sy_status sy__bmff_file_open(sy_context *ctx, const char *path, char **path_copy, FILE **fp, int *fd,
                             uint64_t *size, sy_error *err);

/* Reads exactly n bytes at `offset` with pread (thread-safe on a shared fd);
 * SY_E_IO naming `path` on an error or a short file. */
sy_status sy__bmff_read_at(int fd, const char *path, uint64_t offset, void *dst, size_t n, sy_error *err);

#endif
