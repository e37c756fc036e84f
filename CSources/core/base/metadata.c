/* metadata.c — see sy_metadata.h. */
#include <string.h>

#include "base/sy_metadata.h"

void sy__metadata_free(sy_context *ctx, sy__metadata *md) {
    sy__free(ctx, md->exif);
    sy__free(ctx, md->xmp);
    sy__free(ctx, md->xmp_ext);
    sy__free(ctx, md->icc);
    sy__free(ctx, md->iptc);
    memset(md, 0, sizeof *md);
}
