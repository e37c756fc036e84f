/* sy_png_source.h — PNG header probe and row source (engine-private; the
 * interface is base/sy_source.h). */
#ifndef SY_PNG_SOURCE_H
#define SY_PNG_SOURCE_H

#include <stdio.h>

#include "base/sy_source.h"

/* Header only; `path` is used only in messages (the FILE is positioned at 0). */
sy_status sy__png_probe(sy_context *ctx, FILE *file, const char *path, sy_image_info *out, sy_error *err);
/* Opens a full-size row source (8-bit R'G'B'). */
sy_status sy__png_source_open(sy_context *ctx, const char *path, sy__source **out, sy_error *err);

#endif
