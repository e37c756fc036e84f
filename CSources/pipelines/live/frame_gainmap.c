/* frame_gainmap.c — a gain map for a still made of an HDR movie's frame
 * (sy_frame_gainmap.h). */
#include <string.h>

#include "base/sy_internal.h"
#include "live/sy_frame_gainmap.h"

static void frame_map_info(sy_still_format format, uint16_t peak, sy_gainmap_info *info) {
    memset(info, 0, sizeof *info);
    info->kind = format == SY_STILL_HEIC ? SY_GAINMAP_ISO_HEIC : SY_GAINMAP_ULTRAHDR_JPEG;
    info->map_channels = 1;
    sy__gainmap_signal_params(&info->params, peak); /* HDR = SDR x 2^gain exactly (sy__hdr_gain): no offsets */
}

sy_status sy__frame_gainmap_prepare(sy_context *ctx, const sy__gain_plane *plane, const sy_recipe *recipe,
                                    const char *output, sy_still_format format, int quality, sy_gainmap_image *map,
                                    sy__gainmap_save *save, sy_error *err) {
    memset(map, 0, sizeof *map);
    memset(save, 0, sizeof *save);
    sy_gainmap_image stored = {0};
    stored.width = plane->width, stored.height = plane->height, stored.channels = 1, stored.stride = plane->width;
    stored.pixels = sy__alloc(ctx, plane->width, plane->height, "frame gain map", err);
    if (!stored.pixels) return err ? err->code : SY_E_BUDGET;
    for (size_t i = 0; i < (size_t)plane->width * plane->height; i++)
        stored.pixels[i] = sy__gainmap_signal_code(plane->log2[i], plane->peak);
    sy_gainmap_info info;
    frame_map_info(format, plane->peak, &info);
    /* upright and through the geometry, as the frame went through its path */
    sy_recipe geo;
    sy_recipe_geometry_only(recipe, 0, &geo);
    uint32_t uw = plane->orientation >= 5 ? plane->height : plane->width;
    uint32_t uh = plane->orientation >= 5 ? plane->width : plane->height, mw = 0, mh = 0;
    sy_status st = sy_render_output_size(&geo, uw, uh, 0, 0, 0, &mw, &mh, err);
    if (st == SY_OK) st = sy__gainmap_render(ctx, &stored, plane->orientation, recipe, 0, mw, mh, map, err);
    sy_gainmap_image_free(ctx, &stored);
    if (st == SY_OK)
        st = sy__gainmap_save_prepare_forms(save, ctx, output, format, quality, &info, map,
                                            format == SY_STILL_HEIC ? SY_GAINMAP_FORM_ISO21496 : 0, err);
    return st;
}
