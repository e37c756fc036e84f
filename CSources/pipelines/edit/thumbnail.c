/* thumbnail.c — the averaged thumbnail of a rendered image (sy_edit_thumbnail.h).
 * Each source pixel adds to the one cell it falls in (x * w / src_w,
 * y * h / src_h): a box filter over whole pixels, exact integer sums, the
 * same bytes on every run. */
#include <string.h>

#include "edit/sy_edit_thumbnail.h"

static uint32_t scaled(uint32_t v, uint32_t side, uint32_t longest) {
    uint32_t s = (uint32_t)(((uint64_t)v * side + longest / 2) / longest);
    if (s > 2) s &= ~1u; /* even sides keep the thumbnail one 4:2:0 item */
    return s ? s : 1;
}

sy_status sy__thumbnail_open(sy_context *ctx, uint32_t src_w, uint32_t src_h, uint32_t side, sy__thumbnail *t,
                             sy_error *err) {
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
    if (!side || !src_w || !src_h) return SY_OK;
    uint32_t longest = SY__MAX(src_w, src_h);
    if (side > longest) side = longest;
    t->src_w = src_w, t->src_h = src_h;
    t->w = scaled(src_w, side, longest), t->h = scaled(src_h, side, longest);
    t->sum = sy__calloc(ctx, (size_t)t->w * t->h * 3, sizeof *t->sum, "thumbnail sums", err);
    t->count = sy__calloc(ctx, (size_t)t->w * t->h, sizeof *t->count, "thumbnail counts", err);
    if (!t->sum || !t->count) {
        sy__thumbnail_free(t);
        return err ? err->code : SY_E_BUDGET;
    }
    return SY_OK;
}

void sy__thumbnail_rows(sy__thumbnail *t, const uint8_t *px, size_t stride, uint32_t rows) {
    for (uint32_t r = 0; t->w && r < rows && t->rows_in < t->src_h; r++, t->rows_in++) {
        const uint8_t *p = px + (size_t)r * stride;
        const size_t cy = (size_t)((uint64_t)t->rows_in * t->h / t->src_h) * t->w;
        for (uint32_t x = 0; x < t->src_w; x++, p += 3) {
            size_t cell = cy + (size_t)((uint64_t)x * t->w / t->src_w);
            uint32_t *s = t->sum + cell * 3;
            s[0] += p[0], s[1] += p[1], s[2] += p[2];
            t->count[cell]++;
        }
    }
}

sy_status sy__thumbnail_write(sy__thumbnail *t, sy__still_writer *w, sy_error *err) {
    if (!t->w) return SY_OK;
    const size_t n = (size_t)t->w * t->h;
    uint8_t *rgb = sy__alloc(t->ctx, n, 3, "thumbnail", err);
    if (!rgb) return err ? err->code : SY_E_BUDGET;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = t->count[i] ? t->count[i] : 1;
        for (int k = 0; k < 3; k++) rgb[i * 3 + k] = (uint8_t)((t->sum[i * 3 + k] + c / 2) / c);
    }
    sy_status st = sy__still_writer_add_thumbnail(w, rgb, (size_t)t->w * 3, t->w, t->h, err);
    sy__free(t->ctx, rgb);
    return st;
}

void sy__thumbnail_free(sy__thumbnail *t) {
    if (!t->ctx) return;
    sy__free(t->ctx, t->sum);
    sy__free(t->ctx, t->count);
    t->sum = t->count = NULL;
    t->w = t->h = 0;
}
