/* sy_metadata.h — reading the metadata a conversion carries over (Exif, XMP,
 * ICC) from any still: dispatch over the formats' own readers
 * (engine-private). The record is base/sy_metadata.h; the Exif facts and
 * edits on it are exif/sy_exif.h. */
#ifndef SY_STILL_METADATA_H
#define SY_STILL_METADATA_H

#include "base/sy_metadata.h"
#include "sy_image.h"

/* Reads what `path` carries (JPEG APP1/APP2, HEIF Exif/XMP items and colr;
 * nothing yet for PNG) into *out (zeroed first). Missing parts stay NULL;
 * free with sy__metadata_free, also after a failure. */
sy_status sy__metadata_read(sy_context *ctx, const char *path, const sy_image_info *info, sy__metadata *out,
                            sy_error *err);

#endif
