/* sy_png_metadata.h — a PNG's metadata chunks (engine-private). */
#ifndef SY_PNG_METADATA_H
#define SY_PNG_METADATA_H

#include "base/sy_metadata.h"

/* PNG ancillary chunks: eXIf (Exif TIFF), an uncompressed iTXt
 * "XML:com.adobe.xmp", iCCP (inflated) and cICP into *out (zeroed first);
 * `animated` = an acTL chunk before the first IDAT (APNG). On failure *out
 * is freed and zeroed. */
sy_status sy__png_metadata_read(sy_context *ctx, const char *path, sy__metadata *out, int *animated,
                                sy_error *err);

#endif
