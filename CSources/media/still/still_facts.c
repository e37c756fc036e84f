/* still_facts.c — a still's catalogue facts (header, capture date, GPS, camera, Live
 * identifier) in one whole-file probe and one metadata read: what a photo library
 * import records. */
#include <string.h>

#include "exif/sy_content_id.h"
#include "exif/sy_exif.h"
#include "still/sy_metadata.h"
#include "sy_still.h"

sy_status sy_still_read_facts(sy_context *ctx, const char *path, sy_still_facts *out, sy_error *err) {
    if (!ctx || !path || !out) return sy__fail(err, SY_E_USAGE, "sy_still_read_facts: NULL argument");
    memset(out, 0, sizeof *out);
    sy_status st = sy_image_probe_whole(ctx, path, &out->info, err);
    if (st != SY_OK) return st;
    sy__metadata md;
    if ((st = sy__metadata_read(ctx, path, &out->info, &md, err)) != SY_OK) {
        sy__metadata_free(ctx, &md);
        return st;
    }
    sy__capture_date(md.exif, md.exif_len, md.xmp, md.xmp_len, out->capture_date);
    if (md.exif) {
        out->has_location = (uint8_t)sy__exif_gps_position(md.exif, md.exif_len, &out->latitude, &out->longitude);
        sy__exif_camera(md.exif, md.exif_len, out->camera, sizeof out->camera);
        if (!sy__content_id_read(md.exif, md.exif_len, out->content_identifier)) out->content_identifier[0] = 0;
    }
    if (!out->has_location && md.xmp) /* a position stated in XMP only (an editor's or a manager's) */
        out->has_location = (uint8_t)sy__xmp_gps_position(md.xmp, md.xmp_len, &out->latitude, &out->longitude);
    sy__metadata_free(ctx, &md);
    return SY_OK;
}
