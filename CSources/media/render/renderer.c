/* renderer.c — the driver: plans a render once (sy_renderer_create) and
 * produces row bands (sy_renderer_render_rows), on one or more threads.
 *
 * Per band: border rows; then the inner rows in pieces whose downscale grid
 * region fits a memory cap; inside a piece, sub-bands of SUB rows go
 * geometry -> exposure table -> baked LUT -> vignette -> sharpen + round ->
 * the target rows (with the border columns). Sharpening needs one row above
 * and below, which each sub-band recomputes rather than shares, so a band's
 * bytes never depend on its neighbours. A plain downscale (collage cells,
 * thumbnails: the grid is the output, no colour or finishing) rounds the
 * grid rows straight to 8 bits, with no copy through the sub-band rows. */
#include <pthread.h>
#include <string.h>

#include "render/sy_render_gamut.h"
#include "render/sy_render_internal.h"
#include "render/sy_render_copy.h"
#include "render/sy_render_scratch.h"
#include "render/sy_render_stretch.h"
#include "render/sy_render_window.h"

#define SUB 32                         /* output rows per sub-band */
#define LUT_NODES 33                   /* baked LUT size for slider-only looks */

void sy_renderer_destroy(sy_renderer *r) {
    if (!r) return;
    sy_context *ctx = r->ctx;
    sy__axis_free(ctx, &r->ax);
    sy__axis_free(ctx, &r->ay);
    sy__free(ctx, r->exposure);
    sy__free(ctx, r->lut.data);
    sy__free(ctx, r->lut_index);
    sy__finish_free(ctx, &r->finish);
    sy__free(ctx, r);
}

void sy_renderer_size(const sy_renderer *r, uint32_t *dst_w, uint32_t *dst_h) {
    if (dst_w) *dst_w = r ? r->dst_w : 0;
    if (dst_h) *dst_h = r ? r->dst_h : 0;
}

/* Bakes tone, colour and the filter (blended by intensity) into one LUT. */
static sy_status bake_lut(sy_renderer *r, const sy_recipe *recipe, const sy__adjust *adj, sy_error *err) {
    int32_t look_index = recipe->filter_id ? sy_filter_find(recipe->filter_id) : -1;
    const sy_lut *user = recipe->filter_lut;
    float intensity = (float)recipe->filter_intensity;
    int filter = (look_index >= 0 || user) && intensity > 0;
    int adjust = adj->tone_active || adj->colour_active;
    if (!filter && !adjust) return SY_OK;
    /* A user table alone keeps its own grid, so an affine cube stays exact. */
    uint32_t n = LUT_NODES;
    if (user && filter) n = adjust && user->size < LUT_NODES ? LUT_NODES : user->size;
    r->lut.size = n;
    /* +1 entry: the 4-lane node loads read one value past the last node. */
    r->lut.data = sy__calloc(r->ctx, (size_t)n * n * n * 3 + 1, sizeof(uint16_t), "render lut", err);
    if (!r->lut.data) return err ? err->code : SY_E_BUDGET;
    sy__look_prep prep, *look = NULL;
    if (look_index >= 0) {
        sy__look_prepare(sy__filter_look(look_index), &prep);
        look = &prep;
    }
    uint16_t *p = r->lut.data;
    for (uint32_t b = 0; b < n; b++)
        for (uint32_t g = 0; g < n; g++)
            for (uint32_t rr = 0; rr < n; rr++, p += 3) {
                float v[3] = {(float)rr / (n - 1), (float)g / (n - 1), (float)b / (n - 1)};
                if (adjust) sy__adjust_apply(adj, &r->tf, v, v);
                if (filter) {
                    float f[3];
                    if (look) sy__look_apply(look, &r->tf, v, f);
                    else sy__lut_eval(user, v, f);
                    for (int c = 0; c < 3; c++) v[c] += (f[c] - v[c]) * intensity;
                }
                for (int c = 0; c < 3; c++) {
                    float x = v[c] > 0 ? (v[c] < 1 ? v[c] : 1) : 0; /* NaN -> 0 */
                    p[c] = (uint16_t)(x * 65535.0f + 0.5f);
                }
            }
    return SY_OK;
}

/* Grid axis along one source axis: output scale when it shrinks, else the
 * source pixels themselves. `lo_centre` is the smallest output pixel centre
 * on that axis (pixel-centre units). */
static sy_status plan_axis(sy_context *ctx, uint32_t src_len, double scale, double lo_centre, sy__axis *axis,
                           sy_error *err) {
    if (scale > 1 + 1e-9) return sy__axis_plan(ctx, src_len, lo_centre + 0.5 - scale / 2, scale, axis, err);
    return sy__axis_plan(ctx, src_len, 0, 1, axis, err);
}

static sy_status create(sy_context *ctx, const sy_recipe *recipe, uint32_t src_w, uint32_t src_h, uint32_t dst_w,
                        uint32_t dst_h, const float gamut[9], int fill, sy_renderer **out, sy_error *err);

sy_status sy_renderer_create(sy_context *ctx, const sy_recipe *recipe, uint32_t src_w, uint32_t src_h, uint32_t dst_w,
                             uint32_t dst_h, sy_renderer **out, sy_error *err) {
    return sy__renderer_create_gamut(ctx, recipe, src_w, src_h, dst_w, dst_h, NULL, out, err);
}

sy_status sy__renderer_create_gamut(sy_context *ctx, const sy_recipe *recipe, uint32_t src_w, uint32_t src_h,
                                    uint32_t dst_w, uint32_t dst_h, const float gamut[9], sy_renderer **out,
                                    sy_error *err) {
    return create(ctx, recipe, src_w, src_h, dst_w, dst_h, gamut, 0, out, err);
}

sy_status sy__renderer_create_stretched(sy_context *ctx, uint32_t src_w, uint32_t src_h, uint32_t dst_w,
                                        uint32_t dst_h, sy_renderer **out, sy_error *err) {
    sy_recipe identity;
    sy_recipe_init(&identity);
    return create(ctx, &identity, src_w, src_h, dst_w, dst_h, NULL, 1, out, err);
}

static sy_status create(sy_context *ctx, const sy_recipe *recipe, uint32_t src_w, uint32_t src_h, uint32_t dst_w,
                        uint32_t dst_h, const float gamut[9], int fill, sy_renderer **out, sy_error *err) {
    if (!ctx || !out) return sy__fail(err, SY_E_USAGE, "sy_renderer_create: NULL argument");
    *out = NULL;
    sy_status st = sy_recipe_validate(recipe, err);
    if (st != SY_OK) return st;
    if (src_w == 0 || src_h == 0 || src_w > SY_RENDER_MAX_SIDE || src_h > SY_RENDER_MAX_SIDE)
        return sy__fail(err, SY_E_USAGE, "sy_renderer_create: source %ux%u is outside 1..%u", src_w, src_h,
                        SY_RENDER_MAX_SIDE);
    if (dst_w == 0 || dst_h == 0 || dst_w > SY_RENDER_MAX_SIDE || dst_h > SY_RENDER_MAX_SIDE)
        return sy__fail(err, SY_E_USAGE, "sy_renderer_create: target %ux%u is outside 1..%u", dst_w, dst_h,
                        SY_RENDER_MAX_SIDE);
    sy_renderer *r = sy__calloc(ctx, 1, sizeof *r, "renderer", err);
    if (!r) return err ? err->code : SY_E_BUDGET;
    r->ctx = ctx;
    r->src_w = src_w;
    r->src_h = src_h;
    r->dst_w = dst_w;
    r->dst_h = dst_h;
    r->border = sy__border_pixels(recipe->border_width, dst_w, dst_h);
    r->inner_w = dst_w - 2 * r->border;
    r->inner_h = dst_h - 2 * r->border;
    memcpy(r->border_rgb, recipe->border_color, 3);
    sy__transfer_init(&r->tf);
    if (gamut) {
        memcpy(r->gamut_matrix, gamut, sizeof r->gamut_matrix);
        r->gamut = r->gamut_matrix;
    }

    sy__geometry_plan(recipe, src_w, src_h, r->inner_w, r->inner_h, fill, &r->geo);
    const sy__geometry *g = &r->geo;
    r->grid = g->scale_x > 1 + 1e-9 || g->scale_y > 1 + 1e-9;
    if (r->grid) {
        /* Smallest output pixel centre along each source axis: a corner. */
        double lx = INFINITY, ly = INFINITY;
        for (int i = 0; i < 4; i++) {
            double u = (i & 1) ? r->inner_w - 1.0 : 0, v = (i & 2) ? r->inner_h - 1.0 : 0;
            lx = fmin(lx, g->m[0] * u + g->m[1] * v + g->m[2]);
            ly = fmin(ly, g->m[3] * u + g->m[4] * v + g->m[5]);
        }
        if ((st = plan_axis(ctx, src_w, g->scale_x, lx, &r->ax, err)) != SY_OK ||
            (st = plan_axis(ctx, src_h, g->scale_y, ly, &r->ay, err)) != SY_OK) {
            sy_renderer_destroy(r);
            return st;
        }
        /* Output -> grid pixel-centre units. */
        double m[6];
        for (int row = 0; row < 2; row++) {
            const sy__axis *a = row ? &r->ay : &r->ax;
            const double *gm = g->m + 3 * row;
            m[3 * row] = gm[0] / a->scale;
            m[3 * row + 1] = gm[1] / a->scale;
            m[3 * row + 2] = (gm[2] + 0.5 - a->origin) / a->scale - 0.5;
        }
        sy__sampler_plan(&r->sampler, m, r->ax.lo, r->ax.hi, r->ay.lo, r->ay.hi);
    } else {
        sy__sampler_plan(&r->sampler, g->m, 0, (int32_t)src_w - 1, 0, (int32_t)src_h - 1);
    }

    sy__adjust adj;
    sy__adjust_prepare(&recipe->adjustments, &adj);
    if (adj.exposure_active) {
        r->exposure = sy__alloc(ctx, 65536, sizeof *r->exposure, "render exposure table", err);
        if (!r->exposure) {
            sy_renderer_destroy(r);
            return err ? err->code : SY_E_BUDGET;
        }
        sy__exposure_table(&adj, &r->tf, r->exposure);
    }
    if ((st = bake_lut(r, recipe, &adj, err)) != SY_OK) {
        sy_renderer_destroy(r);
        return st;
    }
    if (r->lut.data) {
        r->lut_index = sy__alloc(ctx, 65536, sizeof *r->lut_index, "render lut index", err);
        if (!r->lut_index) {
            sy_renderer_destroy(r);
            return err ? err->code : SY_E_BUDGET;
        }
        sy__lut16_index_table(&r->lut, r->exposure, r->lut_index);
    }
    if ((st = sy__finish_prepare(ctx, recipe->adjustments.vignette, recipe->adjustments.sharpness, r->inner_w,
                                 r->inner_h, &r->finish, err)) != SY_OK) {
        sy_renderer_destroy(r);
        return st;
    }
    int plain = !r->exposure && !r->lut.data && !r->finish.vignette && !r->finish.sharpen_q8;
    r->direct = !r->grid && r->sampler.kind == SY__SAMPLE_COPY && plain && !r->gamut;
    const sy__sampler *s = &r->sampler;
    r->grid_direct = r->grid && s->kind == SY__SAMPLE_COPY && s->cdxu == 1 && s->cdyu == 0 && s->cdxv == 0 &&
                     s->cdyv == 1 && plain;
    *out = r;
    return SY_OK;
}

int sy__renderer_copies_rect(const sy_renderer *r, uint32_t *x0, uint32_t *y0) {
    const sy__sampler *s = &r->sampler;
    if (!r->direct || r->border || s->cdxu != 1 || s->cdyu != 0 || s->cdxv != 0 || s->cdyv != 1 || s->cx0 < 0 ||
        s->cy0 < 0)
        return 0;
    *x0 = (uint32_t)s->cx0;
    *y0 = (uint32_t)s->cy0;
    return 1;
}

static void fill_border(uint8_t *p, uint32_t n, const uint8_t rgb[3]) {
    for (uint32_t i = 0; i < n; i++, p += 3) memcpy(p, rgb, 3);
}

/* Geometry and colour for inner rows [a, b) into `rows` (stride in elements). */
static void colour_rows(const sy_renderer *r, const sy_pixels *src, const sy__grid_region *region, uint32_t a,
                        uint32_t b, uint16_t *rows, size_t stride) {
    for (uint32_t v = a; v < b; v++) {
        uint16_t *row = rows + (size_t)(v - a) * stride;
        if (r->grid) {
            sy__sample_row16(&r->sampler, region, v, r->inner_w, row);
        } else {
            sy__sample_row8(&r->sampler, src, v, r->inner_w, row);
            if (r->gamut) sy__gamut_row16(r->gamut, &r->tf, row, r->inner_w); /* the grid has it already */
        }
        size_t n = (size_t)r->inner_w * 3;
        if (r->lut.data)
            sy__lut16_apply_row(&r->lut, r->lut_index, row, r->inner_w);
        else if (r->exposure)
            for (size_t i = 0; i < n; i++) row[i] = r->exposure[row[i]];
        if (r->finish.vignette) sy__vignette_row(&r->finish, v, row);
    }
}

/* Regions above this are allocated per render even with a scratch: a
 * canvas-sized one (a focus collage's hero, 7.9 MB at 1080x1222) would stay
 * held by every thread that ever drew it. */
#define SCRATCH_KEEP_MAX_BYTES ((size_t)4 << 20)

/* Points `region` (its rectangle set) at the scratch's rows, grown to fit;
 * *kept = 0 (region untouched) when it is too big to keep. */
static sy_status scratch_region(sy_context *ctx, sy__render_scratch *scratch, sy__grid_region *region, int *kept,
                                sy_error *err) {
    size_t stride = sy__grid_region_stride(region);
    size_t need = stride * (size_t)(region->y1 - region->y0 + 1);
    *kept = 0;
    if (need > SCRATCH_KEEP_MAX_BYTES / sizeof(uint16_t)) return SY_OK;
    if (need > scratch->elements) {
        uint16_t *px = sy__alloc(ctx, need, sizeof *px, "render grid region (kept)", err);
        if (!px) return err ? err->code : SY_E_BUDGET;
        sy__free(scratch->ctx, scratch->px); /* charged to the context it came from */
        scratch->ctx = ctx;
        scratch->px = px;
        scratch->elements = need;
    }
    region->px = scratch->px;
    region->stride = stride;
    *kept = 1;
    return SY_OK;
}

void sy__render_scratch_free(sy__render_scratch *scratch) {
    if (!scratch || !scratch->px) return;
    sy__free(scratch->ctx, scratch->px);
    *scratch = (sy__render_scratch){0};
}

/* Inner rows [pa, pb) of one piece; its grid rows in `scratch` when given. */
static sy_status render_piece(const sy_renderer *r, const sy_pixels *src, uint32_t pa, uint32_t pb, uint32_t y0,
                              uint8_t *dst, size_t dst_stride, uint16_t *rows, size_t stride,
                              sy__render_scratch *scratch, sy_error *err) {
    sy_context *ctx = r->ctx;
    uint32_t halo = r->finish.sharpen_q8 ? 1 : 0;
    sy__grid_region region = {0};
    sy_status st = SY_OK;
    int owned = 0, kept = 0;
    if (r->grid) {
        uint32_t ga = pa >= halo ? pa - halo : 0, gb = pb + halo < r->inner_h ? pb + halo : r->inner_h;
        int32_t box[4];
        sy__sampler_bbox(&r->sampler, r->inner_w, ga, gb, box);
        const sy__grid_region *h = r->held;
        if (h && h->x0 <= box[0] && h->y0 <= box[1] && h->x1 >= box[2] && h->y1 >= box[3]) {
            region = *h; /* the same values resampling would give (resize.c) */
        } else {
            h = NULL;
            region.x0 = box[0], region.y0 = box[1], region.x1 = box[2], region.y1 = box[3];
            if (scratch && (st = scratch_region(ctx, scratch, &region, &kept, err)) != SY_OK) return st;
            if ((st = sy__resize_region(ctx, &r->ax, &r->ay, &r->tf, r->gamut, src, &region, err)) != SY_OK) return st;
        }
        owned = h == NULL && !kept;
    }
    if (r->grid_direct) { /* output row v is grid row cy0 + v from column cx0: no copy into `rows` */
        for (uint32_t v = pa; v < pb; v++) {
            if (((v - pa) & 31) == 0 && (st = sy__check_cancel(ctx, err)) != SY_OK) break;
            const uint16_t *cur = region.px + (size_t)(r->sampler.cy0 + v - region.y0) * region.stride +
                                  (size_t)(r->sampler.cx0 - region.x0) * 3;
            uint8_t *out = dst + (size_t)(v + r->border - y0) * dst_stride;
            fill_border(out, r->border, r->border_rgb);
            sy__finish_row(&r->finish, cur, cur, cur, out + (size_t)r->border * 3);
            fill_border(out + (size_t)(r->border + r->inner_w) * 3, r->border, r->border_rgb);
        }
        if (owned) sy__free(ctx, region.px);
        return st;
    }
    for (uint32_t sa = pa; sa < pb && st == SY_OK; sa += SUB) {
        if ((st = sy__check_cancel(ctx, err)) != SY_OK) break;
        uint32_t sb = sa + SUB < pb ? sa + SUB : pb;
        uint32_t ga = sa >= halo ? sa - halo : 0, gb = sb + halo < r->inner_h ? sb + halo : r->inner_h;
        colour_rows(r, src, &region, ga, gb, rows, stride);
        for (uint32_t v = sa; v < sb; v++) {
            const uint16_t *cur = rows + (size_t)(v - ga) * stride;
            const uint16_t *above = v > ga ? cur - stride : cur, *below = v + 1 < gb ? cur + stride : cur;
            uint8_t *out = dst + (size_t)(v + r->border - y0) * dst_stride;
            fill_border(out, r->border, r->border_rgb);
            sy__finish_row(&r->finish, above, cur, below, out + (size_t)r->border * 3);
            fill_border(out + (size_t)(r->border + r->inner_w) * 3, r->border, r->border_rgb);
        }
    }
    if (owned) sy__free(ctx, region.px);
    return st;
}

/* Splits [va, vb) so each piece's grid region stays under SY__REGION_CAP. */
static uint32_t piece_rows(const sy_renderer *r, uint32_t va, uint32_t vb) {
    uint32_t rows = vb - va;
    if (!r->grid) return rows;
    while (rows > SUB) {
        size_t worst = 0;
        for (uint32_t a = va; a < vb; a += rows) {
            uint32_t b = a + rows < vb ? a + rows : vb;
            int32_t box[4];
            sy__sampler_bbox(&r->sampler, r->inner_w, a, b, box);
            size_t bytes = (size_t)(box[2] - box[0] + 1) * (size_t)(box[3] - box[1] + 1) * 6;
            if (bytes > worst) worst = bytes;
        }
        if (worst <= SY__REGION_CAP) break;
        rows = (rows + 1) / 2;
    }
    return rows;
}

sy_status sy_renderer_render_rows(const sy_renderer *r, const sy_pixels *src, uint32_t y0, uint32_t count,
                                  uint8_t *dst, size_t dst_stride, sy_error *err) {
    return sy__renderer_render_rows_reusing(r, src, y0, count, dst, dst_stride, NULL, err);
}

sy_status sy__renderer_render_rows_reusing(const sy_renderer *r, const sy_pixels *src, uint32_t y0, uint32_t count,
                                           uint8_t *dst, size_t dst_stride, sy__render_scratch *scratch,
                                           sy_error *err) {
    if (!r || !src || !dst) return sy__fail(err, SY_E_USAGE, "sy_renderer_render_rows: NULL argument");
    if (!src->data || src->width != r->src_w || src->height != r->src_h || src->stride < (size_t)src->width * 3)
        return sy__fail(err, SY_E_USAGE, "sy_renderer_render_rows: source %ux%u (stride %zu) does not match %ux%u",
                        src->width, src->height, src->stride, r->src_w, r->src_h);
    if (y0 > r->dst_h || count > r->dst_h - y0 || dst_stride < (size_t)r->dst_w * 3)
        return sy__fail(err, SY_E_USAGE, "sy_renderer_render_rows: rows %u+%u or stride %zu outside %ux%u", y0, count,
                        dst_stride, r->dst_w, r->dst_h);
    sy_context *ctx = r->ctx;
    uint32_t y1 = y0 + count;
    for (uint32_t y = y0; y < y1; y++)
        if (y < r->border || y >= r->border + r->inner_h)
            fill_border(dst + (size_t)(y - y0) * dst_stride, r->dst_w, r->border_rgb);
    uint32_t va = y0 > r->border ? y0 - r->border : 0;
    uint32_t vb = y1 > r->border ? y1 - r->border : 0;
    if (vb > r->inner_h) vb = r->inner_h;
    if (va >= vb) return SY_OK;

    sy_status st = SY_OK;
    if (r->direct) {
        for (uint32_t v = va; v < vb; v++) {
            if (((v - va) & 63) == 0 && (st = sy__check_cancel(ctx, err)) != SY_OK) return st;
            uint8_t *out = dst + (size_t)(v + r->border - y0) * dst_stride;
            fill_border(out, r->border, r->border_rgb);
            sy__copy_row8(&r->sampler, src, v, r->inner_w, out + (size_t)r->border * 3);
            fill_border(out + (size_t)(r->border + r->inner_w) * 3, r->border, r->border_rgb);
        }
        return SY_OK;
    }
    size_t stride = (size_t)r->inner_w * 3 + 4;
    uint16_t *rows = sy__alloc(ctx, SUB + 2, stride * sizeof(uint16_t), "render rows", err);
    if (!rows) return err ? err->code : SY_E_BUDGET;
    uint32_t step = piece_rows(r, va, vb);
    for (uint32_t pa = va; pa < vb && st == SY_OK; pa += step) {
        uint32_t pb = pa + step < vb ? pa + step : vb;
        st = render_piece(r, src, pa, pb, y0, dst, dst_stride, rows, stride, scratch, err);
    }
    sy__free(ctx, rows);
    return st;
}

/* Inner rows a band reads, widened by the sharpening halo (as render_piece does). */
static void band_inner_rows(const sy_renderer *r, uint32_t y0, uint32_t count, uint32_t *va, uint32_t *vb) {
    uint32_t y1 = y0 + count, halo = r->finish.sharpen_q8 ? 1 : 0;
    uint32_t a = y0 > r->border ? y0 - r->border : 0, b = y1 > r->border ? y1 - r->border : 0;
    if (b > r->inner_h) b = r->inner_h;
    if (a >= b) {
        *va = *vb = 0;
        return;
    }
    *va = a >= halo ? a - halo : 0;
    *vb = b + halo < r->inner_h ? b + halo : r->inner_h;
}

int sy__renderer_source_rows(const sy_renderer *r, uint32_t y0, uint32_t count, uint32_t *first, uint32_t *last) {
    uint32_t va, vb;
    band_inner_rows(r, y0, count, &va, &vb);
    if (va >= vb) return 0;
    int32_t box[4];
    sy__sampler_bbox(&r->sampler, r->inner_w, va, vb, box);
    if (!r->grid) {
        *first = (uint32_t)box[1];
        *last = (uint32_t)box[3];
        return 1;
    }
    int64_t lo = INT64_MAX, hi = -1;
    for (int32_t j = box[1]; j <= box[3]; j++) {
        size_t k = (size_t)(j - r->ay.lo);
        if (r->ay.first[k] < lo) lo = r->ay.first[k];
        if (r->ay.first[k] + (int64_t)r->ay.count[k] - 1 > hi) hi = r->ay.first[k] + (int64_t)r->ay.count[k] - 1;
    }
    *first = (uint32_t)lo;
    *last = (uint32_t)hi;
    return 1;
}

sy_status sy__renderer_render_window(const sy_renderer *r, const uint8_t *rows, size_t stride, uint32_t first,
                                     uint32_t n, uint32_t y0, uint32_t count, uint8_t *dst, size_t dst_stride,
                                     sy_error *err) {
    if (!r || !rows || !dst) return sy__fail(err, SY_E_USAGE, "sy__renderer_render_window: NULL argument");
    if (stride < (size_t)r->src_w * 3 || n > r->src_h || first > r->src_h - n)
        return sy__fail(err, SY_E_USAGE, "sy__renderer_render_window: window %u+%u (stride %zu) outside the %ux%u source",
                        first, n, stride, r->src_w, r->src_h);
    uint32_t a, b;
    if (sy__renderer_source_rows(r, y0, count, &a, &b) && (a < first || b >= (uint64_t)first + n))
        return sy__fail(err, SY_E_USAGE, "sy__renderer_render_window: rows %u..%u are not in the window %u+%u", a, b,
                        first, n);
    /* The samplers address rows absolutely (data + y * stride). The window's
     * row 0 is source row `first`, so its origin sits `first` rows before the
     * buffer: computed in integers, and only rows inside the window are read. */
    sy_pixels view = {(const uint8_t *)((uintptr_t)rows - (uintptr_t)first * stride), stride, r->src_w, r->src_h};
    return sy_renderer_render_rows(r, &view, y0, count, dst, dst_stride, err);
}

typedef struct band_job {
    const sy_renderer *r;
    const sy_pixels *src;
    uint32_t y0, count;
    uint8_t *dst;
    size_t stride;
    sy_status status;
    sy_error err;
} band_job;

static void *band_main(void *arg) {
    band_job *job = arg;
    job->status = sy_renderer_render_rows(job->r, job->src, job->y0, job->count, job->dst, job->stride, &job->err);
    return NULL;
}

sy_status sy_render(sy_context *ctx, const sy_recipe *recipe, const sy_pixels *src, uint32_t dst_w, uint32_t dst_h,
                    uint8_t *dst, size_t dst_stride, uint32_t threads, sy_error *err) {
    if (!src || !dst) return sy__fail(err, SY_E_USAGE, "sy_render: NULL argument");
    sy_renderer *r = NULL;
    sy_status st = sy_renderer_create(ctx, recipe, src->width, src->height, dst_w, dst_h, &r, err);
    if (st != SY_OK) return st;
    if (threads < 1) threads = 1;
    if (threads > 8) threads = 8;
    if (threads > dst_h) threads = dst_h;
    band_job jobs[8];
    pthread_t tids[8];
    int started[8] = {0};
    for (uint32_t i = 0; i < threads; i++) {
        uint32_t a = (uint32_t)((uint64_t)dst_h * i / threads), b = (uint32_t)((uint64_t)dst_h * (i + 1) / threads);
        jobs[i] = (band_job){r, src, a, b - a, dst + (size_t)a * dst_stride, dst_stride, SY_OK, {0}};
    }
    for (uint32_t i = 1; i < threads; i++) started[i] = pthread_create(&tids[i], NULL, band_main, &jobs[i]) == 0;
    band_main(&jobs[0]);
    for (uint32_t i = 1; i < threads; i++) {
        if (started[i]) pthread_join(tids[i], NULL);
        else band_main(&jobs[i]); /* no thread available: render it here */
    }
    for (uint32_t i = 0; i < threads && st == SY_OK; i++)
        if (jobs[i].status != SY_OK) {
            st = jobs[i].status;
            if (err) *err = jobs[i].err;
        }
    sy_renderer_destroy(r);
    return st;
}
