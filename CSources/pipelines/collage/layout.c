/* layout.c — sy__layout_compute: the long layout (stacked at a common width,
 * shrunk to fit a JPEG when asked) and the canvas around a grid (grid.c). */
#include <math.h>
#include <string.h>

#include "base/sy_internal.h"
#include "collage/sy_layout.h"

static uint32_t even_down(uint32_t v, int even) { return even ? v & ~1u : v; }
static uint32_t even_up(uint32_t v, int even) { return even ? (v + 1) & ~1u : v; }

/* Long layout at canvas width `width`; returns the total height (64-bit so a
 * huge stack cannot wrap). */
static uint64_t place_long(const sy_image_info *const *infos, uint32_t count, uint32_t width, uint32_t margin,
                           uint32_t spacing, int even, sy__rect *cells) {
    uint32_t inner = width > 2 * margin ? even_down(width - 2 * margin, even) : 0;
    uint32_t x = even_down((width - inner) / 2, even);
    uint64_t y = margin;
    for (uint32_t i = 0; i < count; i++) {
        double aspect = infos[i] ? (double)infos[i]->height / infos[i]->width : 0.75;
        uint32_t h = (uint32_t)fmin(lround(inner * aspect), 1u << 30);
        h = even_up(h < 2 ? 2 : h, even);
        cells[i] = (sy__rect){x, (uint32_t)fmin((double)y, 4e9), inner, h};
        y += h + (i + 1 < count ? spacing : 0);
    }
    return y + margin;
}

sy_status sy__layout_compute(sy_context *ctx, const sy_collage_options *opts, const sy_image_info *const *infos,
                             uint32_t count, int even, sy__layout *out, sy_error *err) {
    return sy__layout_compute_within(ctx, opts, infos, count, even, 0, NULL, out, err);
}

sy_status sy__layout_compute_within(sy_context *ctx, const sy_collage_options *opts, const sy_image_info *const *infos,
                                    uint32_t count, int even, uint32_t limit, const char *limit_name, sy__layout *out,
                                    sy_error *err) {
    memset(out, 0, sizeof *out);
    uint32_t width = opts->width, margin = even_up(opts->margin, even), spacing = even_up(opts->spacing, even);
    if (width < 16 || width > SY_JPEG_MAX_DIMENSION)
        return sy__fail(err, SY_E_USAGE, "collage: width %u is outside 16..%u", width, SY_JPEG_MAX_DIMENSION);
    if (2 * (uint64_t)margin + 16 > width)
        return sy__fail(err, SY_E_USAGE, "collage: margin %u leaves no room in width %u", margin, width);
    sy__rect *cells = sy__calloc(ctx, count, sizeof *cells, "layout", err);
    if (!cells) return err ? err->code : SY_E_BUDGET;
    out->cells = cells;
    out->count = count;
    out->scale = 1.0;
    /* JPEG and HEIC (what libheif readers open) scale a too-tall long image to fit; PNG has no limit here */
    const int bounded = opts->format == SY_STILL_JPEG || opts->format == SY_STILL_HEIC || limit;
    uint64_t max_height = opts->format == SY_STILL_JPEG   ? SY_JPEG_MAX_DIMENSION
                          : opts->format == SY_STILL_HEIC ? SY_HEIC_MAX_DIMENSION
                                                          : 0x7FFFFFFFu;
    const char *name = opts->format == SY_STILL_HEIC ? "HEIC" : "JPEG";
    if (limit && limit < max_height) max_height = limit, name = limit_name ? limit_name : "canvas";

    if (opts->layout == SY_LAYOUT_LONG) {
        uint64_t height = place_long(infos, count, width, margin, spacing, even, cells);
        if (height > max_height) {
            if (opts->too_tall || !bounded) {
                sy__layout_free(ctx, out);
                return sy__fail(err, SY_E_BUDGET,
                                "collage: a long image of %u photos at width %u is %llu px tall; %s allows %llu "
                                "(use PNG or a smaller width)",
                                count, width, (unsigned long long)height, name, (unsigned long long)max_height);
            }
            /* Shrink the whole canvas uniformly until it fits. */
            double k = (double)max_height / height;
            uint32_t w = even_down((uint32_t)(width * k), even);
            for (;; w -= even ? 2 : 1) {
                uint32_t m = even_up((uint32_t)(margin * k), even), s = even_up((uint32_t)(spacing * k), even);
                if (w < 16 + 2 * m) {
                    sy__layout_free(ctx, out);
                    return sy__fail(err, SY_E_BUDGET, "collage: %u photos cannot fit in a %llu px tall %s", count,
                                    (unsigned long long)max_height, name);
                }
                height = place_long(infos, count, w, m, s, even, cells);
                if (height <= max_height) break;
            }
            out->scaled_to_fit = 1;
            out->scale = (double)w / width;
            width = w;
        }
        out->width = width;
        out->height = (uint32_t)height;
        return SY_OK;
    }

    /* Grid. */
    if (count < 2 || count > 30) {
        sy__layout_free(ctx, out);
        return sy__fail(err, SY_E_USAGE, "collage: a grid takes 2 to 30 photos, not %u", count);
    }
    uint32_t inner = even_down(width - 2 * margin, even);
    uint64_t grid_height = sy__grid_place(infos, count, opts->columns, margin, margin, inner, spacing, even, cells);
    if (grid_height == 0) {
        sy__layout_free(ctx, out);
        if (opts->columns)
            return sy__fail(err, SY_E_USAGE, "collage: %u columns with spacing %u do not fit width %u", opts->columns,
                            spacing, width);
        return sy__fail(err, SY_E_USAGE, "collage: a grid of %u photos with spacing %u does not fit width %u", count,
                        spacing, width);
    }
    uint64_t height = 2 * (uint64_t)margin + grid_height;
    if (height > max_height) {
        sy__layout_free(ctx, out);
        return sy__fail(err, SY_E_BUDGET, "collage: grid is %llu px tall, over the limit", (unsigned long long)height);
    }
    out->width = width;
    out->height = (uint32_t)height;
    return SY_OK;
}

void sy__layout_free(sy_context *ctx, sy__layout *layout) {
    sy__free(ctx, layout->cells);
    memset(layout, 0, sizeof *layout);
}
