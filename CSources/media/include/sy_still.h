/* sy_still.h — still files as a whole: header probe over every codec, the
 * output formats a still is written in, and a file's identity (SPEC E7). */
#ifndef SY_STILL_H
#define SY_STILL_H

#include "sy_base.h"
#include "sy_image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sy_still_format {
    SY_STILL_JPEG = 0,
    SY_STILL_PNG = 1,
    SY_STILL_HEIC = 2,
} sy_still_format;

/** Reads only the header of `path`: format, dimensions, orientation.
 *  Fails with SY_E_INVALID_INPUT (naming the file) for unreadable, truncated or
 *  absurd inputs, SY_E_UNSUPPORTED for other file types, SY_E_IO when the file
 *  cannot be opened. Thread-safe. */
sy_status sy_image_probe(sy_context *ctx, const char *path, sy_image_info *out, sy_error *err);

/** A file's byte size and SHA-256 (lowercase hex): the identity the SPEC E7
 *  gate compares. */
sy_status sy_file_identity(sy_context *ctx, const char *path, uint64_t *bytes, char sha256_hex[65], sy_error *err);

#ifdef __cplusplus
}
#endif
#endif
