/* sy_jpeg_metadata.h — a JPEG's metadata from its markers (engine-private). */
#ifndef SY_JPEG_METADATA_H
#define SY_JPEG_METADATA_H

#include "base/sy_metadata.h"

/* Exif (APP1 "Exif\0\0"), XMP (APP1 Adobe namespace; the extended XMP
 * its xmpNote:HasExtendedXMP names, reassembled) and the ICC profile
 * (APP2 chunks, reassembled) into *out (zeroed first); missing parts stay
 * NULL. On failure *out is freed and zeroed. */
sy_status sy__jpeg_metadata_read(sy_context *ctx, const char *path, sy__metadata *out, sy_error *err);

#endif
