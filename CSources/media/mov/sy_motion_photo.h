/* sy_motion_photo.h — locating the movie inside a Motion Photo
 * (engine-private; the public side is sy_motion_photo_probe in sy_mov.h). */
#ifndef SY_MOTION_PHOTO_H
#define SY_MOTION_PHOTO_H

#include "base/sy_internal.h"
#include "sy_mov.h"

/* Where the movie of the file open on `fd` (file_size bytes) lies, as
 * sy_motion_photo_probe describes; reads only the JPEG header segments or
 * the HEIF top-level box headers with pread (thread-safe on a shared fd).
 * The XMP packet is held for the call only (at most 64 KB, charged to ctx). */
sy_status sy__motion_photo_locate(sy_context *ctx, int fd, const char *path, uint64_t file_size,
                                  sy_motion_photo_info *out, sy_error *err);

#endif
