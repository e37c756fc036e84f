/* sy_heif_metadata.h — a HEIF file's metadata (engine-private). */
#ifndef SY_HEIF_METADATA_H
#define SY_HEIF_METADATA_H

#include "base/sy_metadata.h"

/* The Exif and XMP items describing the primary image (cdsc) and its ICC
 * profile into *out (zeroed first), read with our own HEIF reader; missing
 * parts stay NULL. On failure *out is freed and zeroed. */
sy_status sy__heif_metadata_read(sy_context *ctx, const char *path, sy__metadata *out, sy_error *err);

#endif
