/* resize.c — downscale to the output pixel grid in linear light.
 *
 * Separable Catmull-Rom (Keys, a = -0.5) widened by the scale factor, so it
 * integrates over each output pixel's footprint (a proper antialiasing
 * prefilter, never nearest neighbour). 8-bit sRGB codes are decoded to
 * linear floats (exact 256-entry table), filtered vertically then
 * horizontally, and encoded back to 16-bit sRGB. Only the grid rectangle a
 * row band needs is produced. Results depend only on the grid index, never
 * on the rectangle, so bands of one image agree byte for byte; contraction
 * into fused multiply-adds is off so vector and scalar code round alike. */
#pragma STDC FP_CONTRACT OFF
#include <string.h>

#include "render_internal.h"

static double cubic(double x) {
    x = fabs(x);
    if (x < 1.0) return (1.5 * x - 2.5) * x * x + 1.0;
    if (x < 2.0) return ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0;
    return 0.0;
}

void sy__axis_free(sy_context *ctx, sy__axis *a) {
    sy__free(ctx, a->first);
    sy__free(ctx, a->count);
    sy__free(ctx, a->w);
    memset(a, 0, sizeof *a);
}

sy_status sy__axis_plan(sy_context *ctx, uint32_t src_len, double origin, double scale, sy__axis *a, sy_error *err) {
    memset(a, 0, sizeof *a);
    a->origin = origin;
    a->scale = scale;
    /* Grid indices whose centres lie inside the source. */
    double lo = ceil(-origin / scale - 0.5), hi = floor((src_len - origin) / scale - 0.5);
    if (hi < lo) hi = lo;
    if (lo < -(double)SY_RENDER_MAX_SIDE || hi > 2.0 * SY_RENDER_MAX_SIDE)
        return sy__fail(err, SY_E_USAGE, "render: grid %.0f..%.0f out of range", lo, hi);
    a->lo = (int32_t)lo;
    a->hi = (int32_t)hi;
    size_t n = (size_t)(a->hi - a->lo + 1);
    int identity = scale == 1.0 && origin == floor(origin);
    double widen = scale > 1.0 ? scale : 1.0, radius = 2.0 * widen;
    a->taps = identity ? 1 : (uint32_t)ceil(radius * 2.0) + 2;
    a->first = sy__alloc(ctx, n, sizeof *a->first, "render grid weights", err);
    a->count = sy__alloc(ctx, n, sizeof *a->count, "render grid weights", err);
    a->w = sy__alloc(ctx, n * a->taps, sizeof *a->w, "render grid weights", err);
    if (!a->first || !a->count || !a->w) {
        sy__axis_free(ctx, a);
        return err ? err->code : SY_E_BUDGET;
    }
    double tmp[a->taps];
    for (size_t k = 0; k < n; k++) {
        int32_t i = a->lo + (int32_t)k;
        if (identity) {
            int64_t s = (int64_t)origin + i;
            a->first[k] = (int32_t)(s < 0 ? 0 : s >= (int64_t)src_len ? (int64_t)src_len - 1 : s);
            a->count[k] = 1;
            a->w[k] = 1.0f;
            continue;
        }
        double centre = origin + (i + 0.5) * scale; /* source edge coordinates */
        long s0 = (long)floor(centre - radius), s1 = (long)ceil(centre + radius);
        if (s0 < 0) s0 = 0;
        if (s1 > (long)src_len - 1) s1 = (long)src_len - 1;
        if (s1 - s0 + 1 > (long)a->taps) s1 = s0 + (long)a->taps - 1;
        if (s1 < s0) s1 = s0;
        uint32_t taps = (uint32_t)(s1 - s0 + 1);
        double sum = 0;
        for (uint32_t t = 0; t < taps; t++) sum += tmp[t] = cubic((s0 + t + 0.5 - centre) / widen);
        float *w = a->w + k * a->taps;
        for (uint32_t t = 0; t < taps; t++) w[t] = (float)(sum != 0 ? tmp[t] / sum : (t == 0));
        a->first[k] = (int32_t)s0;
        a->count[k] = taps;
    }
    return SY_OK;
}

/* Decodes `n` bytes of 8-bit sRGB to linear floats. */
static void linearize(const float *lin8, const uint8_t *in, float *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = lin8[in[i]];
}

/* acc[x] = sum_k w[k] * rows[k][x], summed in k order. */
SY__RENDER_CLONES static void vertical(const float *const *rows, const float *w, uint32_t taps, float *acc, size_t n) {
    const float *r0 = rows[0];
    float w0 = w[0];
    for (size_t x = 0; x < n; x++) acc[x] = w0 * r0[x];
    for (uint32_t k = 1; k < taps; k++) {
        const float *r = rows[k];
        float wk = w[k];
        for (size_t x = 0; x < n; x++) acc[x] = acc[x] + wk * r[x];
    }
}

typedef float sy__f4 __attribute__((vector_size(16)));

/* One grid row: horizontal taps over the vertically filtered span (which
 * starts at source column `col0`; one spare float for the 4-lane loads),
 * then linear -> 16-bit sRGB. */
SY__RENDER_CLONES static void horizontal(const float *acc, int32_t col0, const sy__axis *ax, int32_t x0, int32_t x1,
                                         const float *encode, uint16_t *out) {
    for (int32_t i = x0; i <= x1; i++, out += 3) {
        size_t k = (size_t)(i - ax->lo);
        const float *w = ax->w + k * ax->taps;
        const float *p = acc + (size_t)(ax->first[k] - col0) * 3;
        sy__f4 sum = {0, 0, 0, 0};
        for (uint32_t t = 0; t < ax->count[k]; t++, p += 3) {
            sy__f4 v;
            __builtin_memcpy(&v, p, sizeof v);
            sum = sum + v * w[t];
        }
        for (int c = 0; c < 3; c++) out[c] = (uint16_t)(sy__tf_lerp(encode, sum[c]) * 65535.0f + 0.5f);
    }
}

sy_status sy__resize_region(sy_context *ctx, const sy__axis *ax, const sy__axis *ay, const sy__transfer *tf,
                            const sy_pixels *src, sy__grid_region *g, sy_error *err) {
    size_t gw = (size_t)(g->x1 - g->x0 + 1), gh = (size_t)(g->y1 - g->y0 + 1);
    g->stride = gw * 3 + 4; /* +4: the samplers' 4-lane loads may read one pixel past the end */
    g->px = sy__alloc(ctx, gh, g->stride * sizeof(uint16_t), "render grid region", err);
    if (!g->px) return err ? err->code : SY_E_BUDGET;
    /* Source columns the region reads. */
    int32_t col0 = INT32_MAX, col1 = 0;
    for (int32_t i = g->x0; i <= g->x1; i++) {
        size_t k = (size_t)(i - ax->lo);
        if (ax->first[k] < col0) col0 = ax->first[k];
        if (ax->first[k] + (int32_t)ax->count[k] > col1) col1 = ax->first[k] + (int32_t)ax->count[k];
    }
    size_t span = (size_t)(col1 - col0) * 3;
    uint32_t ring_rows = ay->taps;
    float *ring = sy__alloc(ctx, ring_rows, (span + 4) * sizeof(float), "render resize ring", err);
    float *acc = sy__calloc(ctx, span + 4, sizeof(float), "render resize accumulator", err);
    sy_status st = SY_OK;
    if (!ring || !acc) {
        st = err ? err->code : SY_E_BUDGET;
        goto done;
    }
    int64_t loaded_lo = -1, loaded_hi = -1; /* source rows in the ring: [lo, hi) */
    for (int32_t j = g->y0; j <= g->y1; j++) {
        if (((j - g->y0) & 31) == 31 && (st = sy__check_cancel(ctx, err)) != SY_OK) break;
        size_t kj = (size_t)(j - ay->lo);
        int64_t first = ay->first[kj], n = ay->count[kj];
        /* Rows valid in the ring: [max(loaded_lo, loaded_hi - ring_rows), loaded_hi).
         * Windows only move down, so reuse them or start again. */
        if (first > loaded_hi || first < loaded_lo || first < loaded_hi - (int64_t)ring_rows)
            loaded_lo = loaded_hi = first;
        while (loaded_hi < first + n) {
            const uint8_t *row = src->data + (size_t)loaded_hi * src->stride + (size_t)col0 * 3;
            linearize(tf->lin8, row, ring + (size_t)(loaded_hi % ring_rows) * (span + 4), span);
            loaded_hi++;
        }
        const float *rows[ring_rows];
        for (int64_t t = 0; t < n; t++) rows[t] = ring + (size_t)((first + t) % ring_rows) * (span + 4);
        vertical(rows, ay->w + kj * ay->taps, (uint32_t)n, acc, span);
        horizontal(acc, col0, ax, g->x0, g->x1, tf->encode, g->px + (size_t)(j - g->y0) * g->stride);
    }
done:
    sy__free(ctx, ring);
    sy__free(ctx, acc);
    if (st != SY_OK) {
        sy__free(ctx, g->px);
        g->px = NULL;
    }
    return st;
}
