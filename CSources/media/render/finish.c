/* finish.c — the last per-pixel steps on 16-bit encoded rows: vignette,
 * sharpness and the rounding to 8 bits.
 *
 * Vignette: r^2 = (dx^2 + dy^2) / 2 with dx, dy in -1..1 across the image
 * (1 in the corners), w = smoothstep(0.2, 1, r); amount a > 0 darkens,
 * v' = v (1 - 0.8 a w); a < 0 lightens towards white, v' = v + (1 - v) 0.6 |a| w.
 * Sharpness: unsharp mask against the 3x3 binomial blur B,
 * v' = v + k (v - B), k = 1.5 s for s > 0 (sharpen) and k = s for s < 0
 * (s = -1 gives the blur itself). Edges repeat the outermost pixels. */
#include <string.h>

#include "render/sy_render_internal.h"

sy_status sy__finish_prepare(sy_context *ctx, double vignette, double sharpness, uint32_t inner_w, uint32_t inner_h,
                             sy__finish *f, sy_error *err) {
    memset(f, 0, sizeof *f);
    f->inner_w = inner_w;
    f->inner_h = inner_h;
    if (sharpness != 0) {
        double k = sharpness > 0 ? 1.5 * sharpness : sharpness;
        f->sharpen_q8 = (int32_t)lrint(k * 256);
    }
    if (vignette == 0) return SY_OK;
    f->vig_mul = sy__alloc(ctx, SY__VIG_STEPS + 1, sizeof *f->vig_mul, "render vignette", err);
    f->vig_add = sy__alloc(ctx, SY__VIG_STEPS + 1, sizeof *f->vig_add, "render vignette", err);
    f->vig_dx2 = sy__alloc(ctx, inner_w, sizeof *f->vig_dx2, "render vignette", err);
    if (!f->vig_mul || !f->vig_add || !f->vig_dx2) {
        sy__finish_free(ctx, f);
        return err ? err->code : SY_E_BUDGET;
    }
    f->vignette = 1;
    for (int i = 0; i <= SY__VIG_STEPS; i++) {
        double r = sqrt((double)i / SY__VIG_STEPS), t = (r - 0.2) / 0.8;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double w = t * t * (3 - 2 * t);
        double mul = vignette > 0 ? 1 - 0.8 * vignette * w : 1 + 0.6 * vignette * w;
        double add = vignette > 0 ? 0 : -0.6 * vignette * w * 65535;
        f->vig_mul[i] = (int32_t)lrint(mul * 32768);
        f->vig_add[i] = (int32_t)lrint(add * 32768);
    }
    for (uint32_t u = 0; u < inner_w; u++) {
        double dx = ((u + 0.5) - inner_w / 2.0) / (inner_w / 2.0);
        f->vig_dx2[u] = (float)(dx * dx / 2);
    }
    return SY_OK;
}

void sy__finish_free(sy_context *ctx, sy__finish *f) {
    sy__free(ctx, f->vig_mul);
    sy__free(ctx, f->vig_add);
    sy__free(ctx, f->vig_dx2);
    f->vig_mul = f->vig_add = NULL;
    f->vig_dx2 = NULL;
    f->vignette = 0;
}

void sy__vignette_row(const sy__finish *f, uint32_t v, uint16_t *px) {
    double dy = ((v + 0.5) - f->inner_h / 2.0) / (f->inner_h / 2.0);
    float dy2 = (float)(dy * dy / 2);
    for (uint32_t u = 0; u < f->inner_w; u++, px += 3) {
        float r2 = f->vig_dx2[u] + dy2;
        int i = (int)(r2 * SY__VIG_STEPS + 0.5f);
        if (i > SY__VIG_STEPS) i = SY__VIG_STEPS;
        uint32_t mul = (uint32_t)f->vig_mul[i], add = (uint32_t)f->vig_add[i];
        for (int c = 0; c < 3; c++) px[c] = (uint16_t)((px[c] * mul + add + 16384) >> 15);
    }
}

/* Round 16-bit to 8-bit: exact for v = 257 k. */
static inline uint8_t q8(int32_t v) {
    v = v < 0 ? 0 : v > 65535 ? 65535 : v;
    return (uint8_t)(((uint32_t)v * 255u + 32895u) >> 16);
}

/* One sharpened value: column sums (1 2 1) down the three rows at l, i, r,
 * then (1 2 1) across. */
static inline uint8_t sharpen_at(const uint16_t *above, const uint16_t *cur, const uint16_t *below, size_t l, size_t i,
                                 size_t r, int32_t k) {
    int32_t cl = above[l] + 2 * cur[l] + below[l];
    int32_t cc = above[i] + 2 * cur[i] + below[i];
    int32_t cr = above[r] + 2 * cur[r] + below[r];
    int32_t c = cur[i];
    return q8(c + (((c * 16 - (cl + 2 * cc + cr)) * k) >> 12));
}

SY__RENDER_CLONES void sy__finish_row(const sy__finish *f, const uint16_t *above, const uint16_t *cur,
                                      const uint16_t *below, uint8_t *out) {
    const size_t n = (size_t)f->inner_w * 3;
    if (!f->sharpen_q8) {
        for (size_t i = 0; i < n; i++) out[i] = (uint8_t)((cur[i] * 255u + 32895u) >> 16);
        return;
    }
    const int32_t k = f->sharpen_q8;
    if (n <= 6) { /* one or two pixels */
        for (size_t i = 0; i < n; i++)
            out[i] = sharpen_at(above, cur, below, i >= 3 ? i - 3 : i, i, i + 3 < n ? i + 3 : i, k);
        return;
    }
    /* The outermost pixels repeat themselves as their missing neighbours. */
    for (size_t i = 0; i < 3; i++) out[i] = sharpen_at(above, cur, below, i, i, i + 3, k);
    for (size_t i = 3; i < n - 3; i++) out[i] = sharpen_at(above, cur, below, i - 3, i, i + 3, k);
    for (size_t i = n - 3; i < n; i++) out[i] = sharpen_at(above, cur, below, i - 3, i, i, k);
}
