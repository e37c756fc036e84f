/* sy_jpeg_source.h — JPEG header probe and row source (engine-private;
 * the interface is base/sy_source.h). */
#ifndef SY_JPEG_SOURCE_H
#define SY_JPEG_SOURCE_H

#include <stdio.h>

#include "base/sy_source.h"

/* Header only; `path` is used only in messages (the FILE is positioned at 0). */
sy_status sy__jpeg_probe(sy_context *ctx, FILE *file, const char *path, sy_image_info *out, sy_error *err);

/* Opens a row source at the smallest DCT scale (n/8, n = 1..16) whose
 * stored-frame size is >= min_width x min_height. Rows come out as JFIF
 * YCbCr for YCbCr files (SY__PIX_YCC), else R'G'B'. */
sy_status sy__jpeg_source_open(sy_context *ctx, const char *path, uint32_t min_width, uint32_t min_height,
                               sy__source **out, sy_error *err);
/* The same, but YCbCr files come out as R'G'B' (libjpeg's conversion); the
 * organize fingerprints hash R'G'B' rows and skip a scalar conversion. */
sy_status sy__jpeg_source_open_rgb(sy_context *ctx, const char *path, uint32_t min_width, uint32_t min_height,
                                   sy__source **out, sy_error *err);

/* A CMYK (or YCCK) JPEG source: 1, and whether libjpeg hands its values out
 * inverted (an Adobe marker: 255 = no ink); 0 for any other source. */
int sy__jpeg_source_cmyk(const sy__source *src, int *inverted);

/* A CMYK source's rows go through `convert` (4 bytes a pixel in, R'G'B' out)
 * instead of the naive 1 - ink arithmetic; `release(user)` runs at close. */
typedef void (*sy__cmyk_convert)(const void *user, const uint8_t *cmyk, uint8_t *rgb, uint32_t width);
void sy__jpeg_source_convert_cmyk(sy__source *src, sy__cmyk_convert convert, void *user, void (*release)(void *));

#endif
