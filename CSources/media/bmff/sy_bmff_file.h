/* sy_bmff_file.h — opening an ISO-BMFF file for the HEIF reader and the
 * MOV/MP4 demuxer alike (engine-private). */
#ifndef SY_BMFF_FILE_H
#define SY_BMFF_FILE_H

#include <stdarg.h>
#include <stdio.h>
#include "base/sy_internal.h"
#include "bmff/sy_bmff.h"

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

/* Fails with "path: reason ('box', offset N)" (no box part when box is 0);
 * `offset` is absolute in the file. With err NULL just returns code. */
sy_status sy__bmff_fail(sy_error *err, sy_status code, const char *path, uint32_t box, uint64_t offset,
                        const char *fmt, va_list ap);

/* sy_bmff_next whose errors name `path`. */
sy_status sy__bmff_next_in(const char *path, sy_bmff_cursor *c, sy_bmff_box *b, sy_error *err);

#endif
