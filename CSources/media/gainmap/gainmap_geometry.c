/* gainmap_geometry.c — the gain map through the one frame renderer's
 * geometry: the recipe with every colour step neutral (sy_recipe_geometry_only),
 * rendered at the map's own resolution so base and map stay aligned. The
 * renderer works on RGB8; a greyscale map is carried in all three channels
 * (whole-pixel geometry is then an exact permutation, straighten a bicubic
 * interpolation of the map codes). */
#include <string.h>

#include "gainmap/sy_gainmap_internal.h"

void sy_recipe_geometry_only(const sy_recipe *in, uint8_t border_value, sy_recipe *out) {
    sy_recipe_init(out);
    out->crop = in->crop;
    out->straighten = in->straighten;
    out->quarter_turns = in->quarter_turns;
    out->flip_horizontal = in->flip_horizontal;
    out->flip_vertical = in->flip_vertical;
    out->border_width = in->border_width;
    out->border_color[0] = out->border_color[1] = out->border_color[2] = border_value;
}

/* EXIF orientation -> the recipe that makes the stored frame upright
 * (turns clockwise, then flips: 5 = transpose = turn + mirror, 7 = turn + flip). */
static void orientation_recipe(uint8_t o, sy_recipe *r) {
    static const uint8_t turns[9] = {0, 0, 0, 2, 0, 1, 1, 1, 3};
    sy_recipe_init(r);
    r->quarter_turns = turns[o <= 8 ? o : 1];
    r->flip_horizontal = o == 2 || o == 5;
    r->flip_vertical = o == 4 || o == 7;
}

static sy_status render_rgb(sy_context *ctx, const sy_recipe *r, const uint8_t *rgb, uint32_t w, uint32_t h,
                            uint32_t dw, uint32_t dh, uint8_t **out, sy_error *err) {
    *out = sy__alloc(ctx, (size_t)dw * 3, dh, "gain map render", err);
    if (!*out) return err ? err->code : SY_E_BUDGET;
    sy_pixels src = {rgb, (size_t)w * 3, w, h};
    sy_status st = sy_render(ctx, r, &src, dw, dh, *out, (size_t)dw * 3, 1, err);
    if (st != SY_OK) sy__free(ctx, *out), *out = NULL;
    return st;
}

sy_status sy__gainmap_render(sy_context *ctx, const sy_gainmap_image *map, uint8_t orientation,
                             const sy_recipe *recipe, uint8_t border_value, uint32_t dst_w, uint32_t dst_h,
                             sy_gainmap_image *out, sy_error *err) {
    memset(out, 0, sizeof *out);
    const uint32_t w = map->width, h = map->height, ch = map->channels;
    uint8_t *rgb = sy__alloc(ctx, (size_t)w * 3, h, "gain map as RGB", err), *upright = NULL, *done = NULL;
    if (!rgb) return err ? err->code : SY_E_BUDGET;
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *s = map->pixels + (size_t)y * map->stride;
        uint8_t *d = rgb + (size_t)y * w * 3;
        if (ch == 3) memcpy(d, s, (size_t)w * 3);
        else for (uint32_t x = 0; x < w; x++) d[3 * x] = d[3 * x + 1] = d[3 * x + 2] = s[x];
    }
    sy_status st = SY_OK;
    uint32_t uw = w, uh = h;
    if (orientation > 1 && orientation <= 8) {
        sy_recipe o;
        orientation_recipe(orientation, &o);
        if (orientation >= 5) uw = h, uh = w;
        st = render_rgb(ctx, &o, rgb, w, h, uw, uh, &upright, err);
    }
    sy_recipe g;
    sy_recipe_geometry_only(recipe, border_value, &g);
    if (st == SY_OK) st = render_rgb(ctx, &g, upright ? upright : rgb, uw, uh, dst_w, dst_h, &done, err);
    sy__free(ctx, rgb);
    sy__free(ctx, upright);
    if (st != SY_OK) return st;
    if (ch == 3) {
        *out = (sy_gainmap_image){done, (size_t)dst_w * 3, dst_w, dst_h, 3};
        return SY_OK;
    }
    for (size_t i = 0; i < (size_t)dst_w * dst_h; i++) done[i] = done[3 * i]; /* in place: i <= 3i */
    *out = (sy_gainmap_image){done, dst_w, dst_w, dst_h, 1};
    return SY_OK;
}
