/* resample.c — see sy_resample.h. Fixed point: weights have 14 fraction bits;
 * the vertical pass keeps 7 fraction bits in int32, the horizontal pass rounds
 * to 8-bit. Every weight set sums to exactly 1 << 14. */
#include <math.h>
#include <string.h>

#include "../base/sy_internal.h"
#include "sy_resample.h"

#define WEIGHT_BITS 14
#define WEIGHT_ONE (1 << WEIGHT_BITS)
#define VERTICAL_KEEP 7 /* fraction bits kept between the passes */

typedef struct weights {
    uint32_t taps;    /* stride of `w` per output sample */
    uint32_t *first;  /* first source index per output sample */
    uint32_t *count;  /* used taps per output sample */
    int16_t *w;       /* dst * taps weights */
} weights;

/* Catmull-Rom (Keys cubic, a = -0.5), support [-2, 2]. */
static double cubic(double x) {
    x = fabs(x);
    if (x < 1.0) return (1.5 * x - 2.5) * x * x + 1.0;
    if (x < 2.0) return ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0;
    return 0.0;
}

static void free_weights(sy_context *ctx, weights *wt) {
    sy__free(ctx, wt->first);
    sy__free(ctx, wt->count);
    sy__free(ctx, wt->w);
    memset(wt, 0, sizeof *wt);
}

/* Weights mapping [start, start+len) of a source axis of `src_len` samples onto `dst_len` samples. */
static sy_status make_weights(sy_context *ctx, uint32_t src_len, double start, double len, uint32_t dst_len,
                              weights *wt, sy_error *err) {
    memset(wt, 0, sizeof *wt);
    double scale = len / dst_len;
    double widen = scale > 1.0 ? scale : 1.0;
    double radius = 2.0 * widen;
    wt->taps = (uint32_t)ceil(radius * 2.0) + 2;
    wt->first = sy__alloc(ctx, dst_len, sizeof *wt->first, "resample weights", err);
    wt->count = sy__alloc(ctx, dst_len, sizeof *wt->count, "resample weights", err);
    wt->w = sy__alloc(ctx, (size_t)dst_len * wt->taps, sizeof *wt->w, "resample weights", err);
    if (!wt->first || !wt->count || !wt->w) {
        free_weights(ctx, wt);
        return err ? err->code : SY_E_BUDGET;
    }
    double tmp[wt->taps];
    for (uint32_t i = 0; i < dst_len; i++) {
        double centre = start + (i + 0.5) * scale; /* in source edge coordinates */
        long lo = (long)floor(centre - radius), hi = (long)ceil(centre + radius);
        if (lo < 0) lo = 0;
        if (hi > (long)src_len - 1) hi = (long)src_len - 1;
        if (hi - lo + 1 > (long)wt->taps) hi = lo + wt->taps - 1;
        if (hi < lo) hi = lo; /* degenerate window: nearest edge sample */
        double sum = 0;
        uint32_t n = (uint32_t)(hi - lo + 1);
        for (uint32_t k = 0; k < n; k++) {
            tmp[k] = cubic((lo + k + 0.5 - centre) / widen);
            sum += tmp[k];
        }
        int16_t *w = wt->w + (size_t)i * wt->taps;
        int total = 0, biggest = 0;
        for (uint32_t k = 0; k < n; k++) {
            w[k] = (int16_t)lrint(sum != 0 ? tmp[k] / sum * WEIGHT_ONE : (k == 0 ? WEIGHT_ONE : 0));
            total += w[k];
            if (w[k] > w[biggest]) biggest = (int)k;
        }
        w[biggest] += (int16_t)(WEIGHT_ONE - total); /* exact unity gain */
        wt->first[i] = (uint32_t)lo;
        wt->count[i] = n;
    }
    return SY_OK;
}

/* The two hot loops get an AVX2 clone picked at load time (ifunc); the
 * default clone is plain x86-64 SSE2 (or whatever the target's baseline is). */
#if defined(__x86_64__) && defined(__has_attribute) && !defined(__SANITIZE_ADDRESS__)
#if __has_attribute(target_clones)
#define SY__HOT_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef SY__HOT_CLONES
#define SY__HOT_CLONES
#endif

/* acc[x] = sum_k w[k] * rows[k][x] over `n` values; kept with VERTICAL_KEEP fraction bits. */
SY__HOT_CLONES static void vertical_pass(const uint8_t *const *rows, const int16_t *w, uint32_t taps, int32_t *acc, size_t n) {
    for (size_t x = 0; x < n; x++) acc[x] = 1 << (WEIGHT_BITS - VERTICAL_KEEP - 1);
    for (uint32_t k = 0; k < taps; k++) {
        const uint8_t *r = rows[k];
        int32_t wk = w[k];
        for (size_t x = 0; x < n; x++) acc[x] += wk * r[x];
    }
    for (size_t x = 0; x < n; x++) acc[x] >>= (WEIGHT_BITS - VERTICAL_KEEP);
}

static inline uint8_t clamp8(int32_t v) { return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v; }

/* out[i] for 3 interleaved channels; `acc` starts at source column `col0`.
 * Each tap loads 4 lanes (3 channels + the next pixel's first, ignored), so
 * one vector multiply-add serves all channels; `acc` has one spare element. */
typedef int32_t sy__v4 __attribute__((vector_size(16)));

SY__HOT_CLONES static void horizontal_pass(const int32_t *acc, uint32_t col0, const weights *wt, uint32_t dst_w,
                                           uint8_t *out) {
    const int32_t round = 1 << (WEIGHT_BITS + VERTICAL_KEEP - 1);
    for (uint32_t i = 0; i < dst_w; i++) {
        const int16_t *w = wt->w + (size_t)i * wt->taps;
        const int32_t *p = acc + (size_t)(wt->first[i] - col0) * 3;
        sy__v4 sum = {round, round, round, round};
        for (uint32_t k = 0; k < wt->count[i]; k++, p += 3) {
            sy__v4 v;
            __builtin_memcpy(&v, p, sizeof v);
            sum += v * (int32_t)w[k];
        }
        sum >>= (WEIGHT_BITS + VERTICAL_KEEP);
        out[3 * i] = clamp8(sum[0]);
        out[3 * i + 1] = clamp8(sum[1]);
        out[3 * i + 2] = clamp8(sum[2]);
    }
}

sy_status sy__resample_stream(sy_context *ctx, sy__source *src, sy__window window, uint32_t dst_w,
                              uint32_t dst_h, sy__row_sink sink, void *user, sy_error *err) {
    if (dst_w == 0 || dst_h == 0 || window.width <= 0 || window.height <= 0)
        return sy__fail(err, SY_E_USAGE, "resample: empty window or target");
    weights hw, vw;
    sy_status st = make_weights(ctx, src->width, window.x, window.width, dst_w, &hw, err);
    if (st != SY_OK) return st;
    if ((st = make_weights(ctx, src->height, window.y, window.height, dst_h, &vw, err)) != SY_OK) {
        free_weights(ctx, &hw);
        return st;
    }
    /* Only the source columns the horizontal pass touches are read vertically. */
    uint32_t col0 = hw.first[0], col1 = hw.first[dst_w - 1] + hw.count[dst_w - 1];
    size_t span = (size_t)(col1 - col0) * 3;
    uint32_t ring_rows = vw.taps;
    size_t row_bytes = (size_t)src->width * 3;
    uint8_t *ring = sy__alloc(ctx, ring_rows, row_bytes, "resample ring", err);
    int32_t *acc = sy__calloc(ctx, span + 1, sizeof *acc, "resample accumulator", err); /* +1: vector tail */
    uint8_t *out = sy__alloc(ctx, dst_w, 3, "resample output row", err);
    if (!ring || !acc || !out) {
        st = err ? err->code : SY_E_BUDGET;
        goto done;
    }
    uint32_t next_src = 0; /* next source row the decoder will deliver */
    for (uint32_t y = 0; y < dst_h && st == SY_OK; y++) {
        uint32_t first = vw.first[y], n = vw.count[y];
        if ((y & 15) == 0 && (st = sy__check_cancel(ctx, err)) != SY_OK) break;
        if (next_src < first) { /* rows nobody needs */
            if ((st = src->skip_rows(src, first - next_src, err)) != SY_OK) break;
            next_src = first;
        }
        while (next_src < first + n) {
            uint8_t *slot = ring + (size_t)(next_src % ring_rows) * row_bytes;
            if ((st = src->read_rows(src, &slot, 1, err)) != SY_OK) break;
            next_src++;
        }
        if (st != SY_OK) break;
        const uint8_t *rows[ring_rows];
        for (uint32_t k = 0; k < n; k++) rows[k] = ring + (size_t)((first + k) % ring_rows) * row_bytes + (size_t)col0 * 3;
        vertical_pass(rows, vw.w + (size_t)y * vw.taps, n, acc, span);
        horizontal_pass(acc, col0, &hw, dst_w, out);
        st = sink(user, y, out, err);
    }
done:
    sy__free(ctx, ring);
    sy__free(ctx, acc);
    sy__free(ctx, out);
    free_weights(ctx, &hw);
    free_weights(ctx, &vw);
    return st;
}
