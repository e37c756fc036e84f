/* metadata.c — metadata dispatch: the format's own reader fills the record. */
#include <string.h>

#include "jpeg/sy_jpeg_metadata.h"
#include "heif/sy_heif_metadata.h"
#include "still/sy_metadata.h"

sy_status sy__metadata_read(sy_context *ctx, const char *path, const sy_image_info *info, sy__metadata *out,
                            sy_error *err) {
    memset(out, 0, sizeof *out);
    switch (info->format) {
    case SY_FORMAT_JPEG: return sy__jpeg_metadata_read(ctx, path, out, err);
    case SY_FORMAT_HEIF: return sy__heif_metadata_read(ctx, path, out, err);
    default: return SY_OK; /* PNG: nothing carried yet */
    }
}
