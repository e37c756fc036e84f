/* sample.c — the residual geometry: output pixel -> sampled image (the
 * source, or the output-scale grid after a downscale).
 *
 * COPY when the map is a whole-pixel signed permutation (quarter turns,
 * flips, integer crops at 1:1): exact, no arithmetic on the values.
 * CUBIC otherwise: Catmull-Rom 4x4 at 1/256-pixel phases in fixed point
 * (14-bit weights summing exactly to 1 << 14), clamp-to-edge addressing.
 * Phase 0 weights are (0, 1, 0, 0), so whole-pixel positions copy exactly.
 * Positions are computed from the absolute output row and column, so every
 * band of an image produces the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "render/sy_render_encode.h"
#include "render/sy_render_internal.h"

#if defined(__x86_64__) && defined(__clang__)
#define SY__X86_PATH 1
#include <immintrin.h>
#else
#define SY__X86_PATH 0
#endif

static int near_int(double v, int64_t *out) {
    double r = floor(v + 0.5);
    if (fabs(v - r) > 1e-6 || fabs(r) > 1e12) return 0;
    *out = (int64_t)r;
    return 1;
}

void sy__sampler_plan(sy__sampler *s, const double m[6], int32_t ext_x0, int32_t ext_x1, int32_t ext_y0,
                      int32_t ext_y1) {
    memset(s, 0, sizeof *s);
    memcpy(s->m, m, sizeof s->m);
    s->ext_x0 = ext_x0;
    s->ext_x1 = ext_x1;
    s->ext_y0 = ext_y0;
    s->ext_y1 = ext_y1;
    int64_t k[6];
    int whole = 1;
    for (int i = 0; i < 6; i++) whole &= near_int(m[i], &k[i]);
    /* A signed permutation: one of (dxu, dyu) and one of (dxv, dyv) is +-1, crosswise. */
    int perm = whole && ((llabs(k[0]) == 1 && k[3] == 0 && k[1] == 0 && llabs(k[4]) == 1) ||
                         (k[0] == 0 && llabs(k[3]) == 1 && llabs(k[1]) == 1 && k[4] == 0));
    if (perm) {
        s->kind = SY__SAMPLE_COPY;
        s->cdxu = k[0], s->cdxv = k[1], s->cx0 = k[2];
        s->cdyu = k[3], s->cdyv = k[4], s->cy0 = k[5];
        return;
    }
    s->kind = SY__SAMPLE_CUBIC;
    for (int p = 0; p < SY__PHASES; p++) {
        double t = (double)p / SY__PHASES, w[4] = {sy__cubic(t + 1), sy__cubic(t), sy__cubic(1 - t), sy__cubic(2 - t)};
        int total = 0, biggest = 1;
        for (int i = 0; i < 4; i++) {
            s->w[p][i] = (int16_t)lrint(w[i] * 16384);
            total += s->w[p][i];
            if (s->w[p][i] > s->w[p][biggest]) biggest = i;
        }
        s->w[p][biggest] = (int16_t)(s->w[p][biggest] + 16384 - total); /* exact unity gain */
        for (int c = 0; c < 3; c++) {
            s->wpair[p][2 * c] = s->w[p][0];
            s->wpair[p][2 * c + 1] = s->w[p][1];
            s->wpair[p][8 + 2 * c] = s->w[p][2];
            s->wpair[p][8 + 2 * c + 1] = s->w[p][3];
        }
    }
#if SY__X86_PATH
    s->simd = __builtin_cpu_supports("avx2");
#endif
}

static int32_t clampi(int64_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : (int32_t)v; }

void sy__sampler_bbox(const sy__sampler *s, uint32_t width, uint32_t v0, uint32_t v1, int32_t box[4]) {
    double xs[4], ys[4];
    double us[2] = {0, width - 1.0}, vs[2] = {v0, v1 - 1.0};
    for (int i = 0; i < 4; i++) {
        double u = us[i & 1], v = vs[i >> 1];
        xs[i] = s->m[0] * u + s->m[1] * v + s->m[2];
        ys[i] = s->m[3] * u + s->m[4] * v + s->m[5];
    }
    double x0 = fmin(fmin(xs[0], xs[1]), fmin(xs[2], xs[3])), x1 = fmax(fmax(xs[0], xs[1]), fmax(xs[2], xs[3]));
    double y0 = fmin(fmin(ys[0], ys[1]), fmin(ys[2], ys[3])), y1 = fmax(fmax(ys[0], ys[1]), fmax(ys[2], ys[3]));
    /* CUBIC taps reach -1..+2 around floor(x), plus one for the phase rounding. */
    int pad_lo = s->kind == SY__SAMPLE_COPY ? 0 : 2, pad_hi = s->kind == SY__SAMPLE_COPY ? 0 : 3;
    box[0] = clampi((int64_t)floor(x0 + 0.5) - pad_lo - (s->kind == SY__SAMPLE_CUBIC), s->ext_x0, s->ext_x1);
    box[1] = clampi((int64_t)floor(y0 + 0.5) - pad_lo - (s->kind == SY__SAMPLE_CUBIC), s->ext_y0, s->ext_y1);
    box[2] = clampi((int64_t)floor(x1 + 0.5) + pad_hi, s->ext_x0, s->ext_x1);
    box[3] = clampi((int64_t)floor(y1 + 0.5) + pad_hi, s->ext_y0, s->ext_y1);
}

typedef int32_t sy__i4 __attribute__((vector_size(16)));
typedef uint8_t sy__b4 __attribute__((vector_size(4)));
typedef uint16_t sy__h4 __attribute__((vector_size(8)));

/* Positions along a row in 32.32 fixed point: pos(u) = start + u * step,
 * from the absolute row v, so any band computes the same positions. The
 * 1/256 phase is rounded to nearest: p256 = (pos + 2^23) >> 24. */
typedef struct row_walk {
    int64_t x, y, dx, dy;
} row_walk;

static inline row_walk walk(const sy__sampler *s, uint32_t v) {
    const double one = 4294967296.0;
    row_walk w = {llround((s->m[1] * v + s->m[2]) * one) + (1 << 23), llround((s->m[4] * v + s->m[5]) * one) + (1 << 23),
                  llround(s->m[0] * one), llround(s->m[3] * one)};
    return w;
}

static inline sy__i4 load8(const uint8_t *p) {
    sy__b4 b;
    __builtin_memcpy(&b, p, 4); /* lane 3 (the next pixel's red) is ignored */
    return __builtin_convertvector(b, sy__i4);
}

static inline sy__i4 load8_last(const uint8_t *p) {
    sy__b4 b = {p[0], p[1], p[2], 0}; /* no read past the pixel */
    return __builtin_convertvector(b, sy__i4);
}

static inline sy__i4 load16(const uint16_t *p) {
    sy__h4 h;
    __builtin_memcpy(&h, p, sizeof h); /* lane 3 ignored; rows are padded */
    return __builtin_convertvector(h, sy__i4);
}

static inline uint16_t to16_from8(int32_t acc) {
    int32_t t = (acc + (1 << 12)) >> 13; /* 8-bit value x 256 */
    t = t < 0 ? 0 : t > 65280 ? 65280 : t;
    return (uint16_t)(t + (t >> 8));
}

static inline uint16_t to16(int32_t acc) {
    int32_t t = (acc + (1 << 13)) >> 14;
    return (uint16_t)(t < 0 ? 0 : t > 65535 ? 65535 : t);
}

/* Near an edge: taps clamped to the sampled image, no over-reads. Same
 * arithmetic as the fast path, so the bytes do not depend on the path. */
static void edge_pixel8(const sy__sampler *s, const sy_pixels *src, int64_t x0, int64_t y0, const int16_t *wx,
                        const int16_t *wy, uint16_t *out) {
    size_t cols[4];
    for (int k = 0; k < 4; k++) cols[k] = (size_t)clampi(x0 - 1 + k, s->ext_x0, s->ext_x1) * 3;
    sy__i4 acc = {0, 0, 0, 0};
    for (int r = 0; r < 4; r++) {
        const uint8_t *row = src->data + (size_t)clampi(y0 - 1 + r, s->ext_y0, s->ext_y1) * src->stride;
        sy__i4 h = load8_last(row + cols[0]) * wx[0] + load8_last(row + cols[1]) * wx[1] +
                   load8_last(row + cols[2]) * wx[2] + load8_last(row + cols[3]) * wx[3];
        acc += ((h + 64) >> 7) * wy[r];
    }
    out[0] = to16_from8(acc[0]);
    out[1] = to16_from8(acc[1]);
    out[2] = to16_from8(acc[2]);
}

#if SY__X86_PATH
/* CUBIC from 8-bit with SSSE3 shuffles and 16-bit multiply-adds: one 16-byte
 * load per tap row gives all 4 taps x 3 channels; the integer sums are the
 * portable path's, so the bytes are identical. Needs 4 bytes past pixel x0+2. */
__attribute__((target("avx2"))) static void cubic_row8_x86(const sy__sampler *s, const sy_pixels *src, row_walk w,
                                                           uint32_t n, uint16_t *out) {
    const uint8_t *base = src->data;
    const size_t stride = src->stride;
    const __m128i pairs01 = _mm_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1);
    const __m128i pairs23 = _mm_setr_epi8(6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1);
    const __m128i round7 = _mm_set1_epi32(64);
    const int64_t xlo = s->ext_x0 + 1, xhi = s->ext_x1 - 4, ylo = s->ext_y0 + 1, yhi = s->ext_y1 - 2;
    for (uint32_t u = 0; u < n; u++, out += 3) {
        int64_t px = (w.x + w.dx * (int64_t)u) >> 24, py = (w.y + w.dy * (int64_t)u) >> 24;
        int64_t x0 = px >> 8, y0 = py >> 8;
        const int16_t *wy = s->w[py & 255];
        if (x0 < xlo || x0 > xhi || y0 < ylo || y0 > yhi) {
            edge_pixel8(s, src, x0, y0, s->w[px & 255], wy, out);
            continue;
        }
        const __m128i wa = _mm_loadu_si128((const __m128i *)s->wpair[px & 255]);
        const __m128i wb = _mm_loadu_si128((const __m128i *)(s->wpair[px & 255] + 8));
        const uint8_t *p = base + (size_t)(y0 - 1) * stride + (size_t)(x0 - 1) * 3;
        __m128i acc = _mm_setzero_si128();
        for (int r = 0; r < 4; r++, p += stride) {
            if (!wy[r]) continue; /* a whole-row phase (a stretch across only): one row of taps */
            __m128i v = _mm_loadu_si128((const __m128i *)p);
            __m128i h = _mm_add_epi32(_mm_madd_epi16(_mm_shuffle_epi8(v, pairs01), wa),
                                      _mm_madd_epi16(_mm_shuffle_epi8(v, pairs23), wb));
            h = _mm_srai_epi32(_mm_add_epi32(h, round7), 7);
            acc = _mm_add_epi32(acc, _mm_mullo_epi32(h, _mm_set1_epi32(wy[r])));
        }
        int32_t lanes[4];
        _mm_storeu_si128((__m128i *)lanes, acc);
        out[0] = to16_from8(lanes[0]);
        out[1] = to16_from8(lanes[1]);
        out[2] = to16_from8(lanes[2]);
    }
}
#endif

SY__RENDER_CLONES void sy__sample_row8(const sy__sampler *s, const sy_pixels *src, uint32_t v, uint32_t n,
                                       uint16_t *out) {
    const uint8_t *base = src->data;
    const size_t stride = src->stride;
    if (s->kind == SY__SAMPLE_COPY) {
        int64_t x = s->cx0 + s->cdxv * (int64_t)v, y = s->cy0 + s->cdyv * (int64_t)v;
        for (uint32_t u = 0; u < n; u++, x += s->cdxu, y += s->cdyu, out += 3) {
            const uint8_t *p = base + (size_t)y * stride + (size_t)x * 3;
            out[0] = (uint16_t)(p[0] * 257);
            out[1] = (uint16_t)(p[1] * 257);
            out[2] = (uint16_t)(p[2] * 257);
        }
        return;
    }
    row_walk w = walk(s, v);
#if SY__X86_PATH
    if (s->simd) {
        cubic_row8_x86(s, src, w, n, out);
        return;
    }
#endif
    /* Fast path: taps x0-1..x0+2 (plus the 4th byte of x0+2) and y0-1..y0+2 inside. */
    const int64_t xlo = s->ext_x0 + 1, xhi = s->ext_x1 - 3, ylo = s->ext_y0 + 1, yhi = s->ext_y1 - 2;
    for (uint32_t u = 0; u < n; u++, out += 3) {
        int64_t px = (w.x + w.dx * (int64_t)u) >> 24, py = (w.y + w.dy * (int64_t)u) >> 24;
        int64_t x0 = px >> 8, y0 = py >> 8;
        const int16_t *wx = s->w[px & 255], *wy = s->w[py & 255];
        if (x0 < xlo || x0 > xhi || y0 < ylo || y0 > yhi) {
            edge_pixel8(s, src, x0, y0, wx, wy, out);
            continue;
        }
        const uint8_t *p = base + (size_t)(y0 - 1) * stride + (size_t)(x0 - 1) * 3;
        const int32_t w0 = wx[0], w1 = wx[1], w2 = wx[2], w3 = wx[3];
        sy__i4 acc = {0, 0, 0, 0};
        for (int r = 0; r < 4; r++, p += stride) {
            if (!wy[r]) continue; /* a whole-row phase: one row of taps */
            sy__i4 h = load8(p) * w0 + load8(p + 3) * w1 + load8(p + 6) * w2 + load8(p + 9) * w3;
            acc += ((h + 64) >> 7) * wy[r];
        }
        out[0] = to16_from8(acc[0]);
        out[1] = to16_from8(acc[1]);
        out[2] = to16_from8(acc[2]);
    }
}

/* One CUBIC pixel from a grid region, taps clamped to the grid's extent
 * (which the region covers): the portable arithmetic every path matches. */
static inline void cubic_pixel16(const sy__sampler *s, const sy__grid_region *g, int64_t x0, int64_t y0,
                                 const int16_t *wx, const int16_t *wy, uint16_t *out) {
    const uint16_t *rows[4];
    size_t cols[4];
    for (int k = 0; k < 4; k++) {
        cols[k] = (size_t)(clampi(x0 - 1 + k, s->ext_x0, s->ext_x1) - g->x0) * 3;
        rows[k] = g->px + (size_t)(clampi(y0 - 1 + k, s->ext_y0, s->ext_y1) - g->y0) * g->stride;
    }
    sy__i4 acc = {0, 0, 0, 0};
    for (int r = 0; r < 4; r++) {
        const uint16_t *row = rows[r];
        sy__i4 h = load16(row + cols[0]) * wx[0] + load16(row + cols[1]) * wx[1] + load16(row + cols[2]) * wx[2] +
                   load16(row + cols[3]) * wx[3];
        acc += ((h + 8192) >> 14) * wy[r];
    }
    out[0] = to16(acc[0]);
    out[1] = to16(acc[1]);
    out[2] = to16(acc[2]);
}

#if SY__X86_PATH
/* CUBIC from a 16-bit grid with 16-bit multiply-adds: each tap row is two
 * 8-value loads shuffled into (tap k, tap k+1) pairs per channel. madd is
 * signed, so values are offset by -32768 (a sign-bit flip); the weights sum
 * to exactly 1 << 14, so adding 32768 << 14 back gives the portable path's
 * integer sums, and the rounding, shifts and clamp are its own: the same
 * bytes. Reads 2 values past pixel x0+2 (rows are padded by 4). */
__attribute__((target("avx2"))) static void cubic_row16_x86(const sy__sampler *s, const sy__grid_region *g,
                                                            row_walk w, uint32_t n, uint16_t *out) {
    const uint16_t *base = g->px;
    const size_t stride = g->stride;
    const __m128i pairs = _mm_setr_epi8(0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11, -1, -1, -1, -1);
    const __m128i flip = _mm_set1_epi16((short)0x8000);
    const __m128i unflip = _mm_set1_epi32(32768 << 14), round14 = _mm_set1_epi32(8192);
    const int64_t xlo = g->x0 + 1, xhi = g->x1 - 2, ylo = g->y0 + 1, yhi = g->y1 - 2;
    for (uint32_t u = 0; u < n; u++, out += 3) {
        int64_t px = (w.x + w.dx * (int64_t)u) >> 24, py = (w.y + w.dy * (int64_t)u) >> 24;
        int64_t x0 = px >> 8, y0 = py >> 8;
        const int16_t *wy = s->w[py & 255];
        if (x0 < xlo || x0 > xhi || y0 < ylo || y0 > yhi) {
            cubic_pixel16(s, g, x0, y0, s->w[px & 255], wy, out);
            continue;
        }
        const __m128i wa = _mm_loadu_si128((const __m128i *)s->wpair[px & 255]);
        const __m128i wb = _mm_loadu_si128((const __m128i *)(s->wpair[px & 255] + 8));
        const uint16_t *p = base + (size_t)(y0 - 1 - g->y0) * stride + (size_t)(x0 - 1 - g->x0) * 3;
        __m128i acc = _mm_setzero_si128();
        for (int r = 0; r < 4; r++, p += stride) {
            __m128i t01 = _mm_xor_si128(_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)p), pairs), flip);
            __m128i t23 = _mm_xor_si128(_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 6)), pairs), flip);
            __m128i h = _mm_add_epi32(_mm_add_epi32(_mm_madd_epi16(t01, wa), _mm_madd_epi16(t23, wb)), unflip);
            h = _mm_srai_epi32(_mm_add_epi32(h, round14), 14);
            acc = _mm_add_epi32(acc, _mm_mullo_epi32(h, _mm_set1_epi32(wy[r])));
        }
        __m128i q = _mm_packus_epi32(_mm_srai_epi32(_mm_add_epi32(acc, round14), 14), acc); /* to16's clamp */
        uint32_t rg = (uint32_t)_mm_cvtsi128_si32(q);
        memcpy(out, &rg, 4);
        out[2] = (uint16_t)_mm_extract_epi16(q, 2);
    }
}
#endif

static void cubic_row16_portable(const sy__sampler *s, const sy__grid_region *g, row_walk w, uint32_t n,
                                 uint16_t *out) {
    const uint16_t *base = g->px;
    const size_t stride = g->stride;
    /* Rows are padded, so the fast path only needs the taps inside the region. */
    const int64_t xlo = g->x0 + 1, xhi = g->x1 - 2, ylo = g->y0 + 1, yhi = g->y1 - 2;
    for (uint32_t u = 0; u < n; u++, out += 3) {
        int64_t px = (w.x + w.dx * (int64_t)u) >> 24, py = (w.y + w.dy * (int64_t)u) >> 24;
        int64_t x0 = px >> 8, y0 = py >> 8;
        const int16_t *wx = s->w[px & 255], *wy = s->w[py & 255];
        if (x0 < xlo || x0 > xhi || y0 < ylo || y0 > yhi) {
            cubic_pixel16(s, g, x0, y0, wx, wy, out);
            continue;
        }
        const uint16_t *row = base + (size_t)(y0 - 1 - g->y0) * stride + (size_t)(x0 - 1 - g->x0) * 3;
        sy__i4 acc = {0, 0, 0, 0};
        for (int r = 0; r < 4; r++, row += stride) {
            sy__i4 h = load16(row) * wx[0] + load16(row + 3) * wx[1] + load16(row + 6) * wx[2] + load16(row + 9) * wx[3];
            acc += ((h + 8192) >> 14) * wy[r];
        }
        out[0] = to16(acc[0]);
        out[1] = to16(acc[1]);
        out[2] = to16(acc[2]);
    }
}

SY__RENDER_CLONES void sy__sample_row16(const sy__sampler *s, const sy__grid_region *g, uint32_t v, uint32_t n,
                                        uint16_t *out) {
    const uint16_t *base = g->px;
    const size_t stride = g->stride;
    if (s->kind == SY__SAMPLE_COPY) {
        int64_t x = s->cx0 + s->cdxv * (int64_t)v - g->x0, y = s->cy0 + s->cdyv * (int64_t)v - g->y0;
        if (s->cdxu == 1 && s->cdyu == 0) { /* a run of one grid row */
            memcpy(out, base + (size_t)y * stride + (size_t)x * 3, (size_t)n * 3 * sizeof *out);
            return;
        }
        for (uint32_t u = 0; u < n; u++, x += s->cdxu, y += s->cdyu, out += 3)
            memcpy(out, base + (size_t)y * stride + (size_t)x * 3, 3 * sizeof *out);
        return;
    }
    row_walk w = walk(s, v);
#if SY__X86_PATH
    if (s->simd) {
        cubic_row16_x86(s, g, w, n, out);
        return;
    }
#endif
    cubic_row16_portable(s, g, w, n, out);
}

int sy__render_sample16_paths(const double m[6], const uint16_t *grid, uint32_t grid_w, uint32_t grid_h, uint32_t v,
                              uint32_t n, uint16_t *portable, uint16_t *simd) {
    sy__sampler s;
    sy__sampler_plan(&s, m, 0, (int32_t)grid_w - 1, 0, (int32_t)grid_h - 1);
    if (s.kind != SY__SAMPLE_CUBIC) return -1;
    sy__grid_region g = {0, 0, (int32_t)grid_w - 1, (int32_t)grid_h - 1, 0, (uint16_t *)grid};
    g.stride = sy__grid_region_stride(&g);
    cubic_row16_portable(&s, &g, walk(&s, v), n, portable);
#if SY__X86_PATH
    if (__builtin_cpu_supports("avx2")) {
        cubic_row16_x86(&s, &g, walk(&s, v), n, simd);
        return 1;
    }
#endif
    cubic_row16_portable(&s, &g, walk(&s, v), n, simd);
    return 0;
}

void sy__copy_row8(const sy__sampler *s, const sy_pixels *src, uint32_t v, uint32_t n, uint8_t *out) {
    int64_t x = s->cx0 + s->cdxv * (int64_t)v, y = s->cy0 + s->cdyv * (int64_t)v;
    const uint8_t *p = src->data + (size_t)y * src->stride + (size_t)x * 3;
    if (s->cdxu == 1 && s->cdyu == 0) {
        memcpy(out, p, (size_t)n * 3);
        return;
    }
    ptrdiff_t step = (ptrdiff_t)s->cdyu * (ptrdiff_t)src->stride + (ptrdiff_t)s->cdxu * 3;
    for (uint32_t u = 0; u < n; u++, p += step, out += 3) {
        out[0] = p[0];
        out[1] = p[1];
        out[2] = p[2];
    }
}
