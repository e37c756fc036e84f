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

#include "render/sy_render_encode.h"
#include "render/sy_render_internal.h"

#if defined(__x86_64__) && defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define SY__X86_PATH 1
#include <immintrin.h>
#else
#define SY__X86_PATH 0
#endif

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
        for (uint32_t t = 0; t < taps; t++) sum += tmp[t] = sy__cubic((s0 + t + 0.5 - centre) / widen);
        float *w = a->w + k * a->taps;
        for (uint32_t t = 0; t < taps; t++) w[t] = (float)(sum != 0 ? tmp[t] / sum : (t == 0));
        a->first[k] = (int32_t)s0;
        a->count[k] = taps;
    }
    return SY_OK;
}

typedef float sy__f4 __attribute__((vector_size(16)));
typedef float sy__f8 __attribute__((vector_size(32)));

/* Decodes `n` bytes of 8-bit sRGB to linear floats. A plain loop of loads:
 * an AVX2 gather of the same entries took 3.2x as long (1.21 vs 0.38 ns a
 * value on the Xeon the benchmarks run on; gathers are microcoded on many
 * Intel cores). */
static void linearize(const float *lin8, const uint8_t *in, float *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = lin8[in[i]];
}

/* out[x] = w[0] rows[0][x] + w[1] rows[1][x] + ...: one grid row's vertical
 * sum, over its source rows in increasing order, starting from zero, kept in
 * registers (each lane the same IEEE steps as a scalar loop, so the value is
 * the same whatever the vector width or the region). */
SY__RENDER_CLONES static void vertical_sums(float *restrict out, const float *const *rows, const float *w,
                                            uint32_t count, size_t n) {
    size_t x = 0;
    for (; x + 16 <= n; x += 16) {
        sy__f8 a = {0, 0, 0, 0, 0, 0, 0, 0}, b = a;
        for (uint32_t t = 0; t < count; t++) {
            sy__f8 va, vb;
            __builtin_memcpy(&va, rows[t] + x, sizeof va);
            __builtin_memcpy(&vb, rows[t] + x + 8, sizeof vb);
            a = a + w[t] * va;
            b = b + w[t] * vb;
        }
        __builtin_memcpy(out + x, &a, sizeof a);
        __builtin_memcpy(out + x + 8, &b, sizeof b);
    }
    for (; x < n; x++) {
        float sum = 0;
        for (uint32_t t = 0; t < count; t++) sum = sum + w[t] * rows[t][x];
        out[x] = sum;
    }
}

/* Linear 0..1 -> 16-bit sRGB code: sy__tf_lerp on the encode table, then
 * x 65535 + 0.5 truncated. */
static void encode_portable(const float *sums, size_t n, const float *encode, uint16_t *out) {
    for (size_t i = 0; i < n; i++) out[i] = (uint16_t)(sy__tf_lerp(encode, sums[i]) * 65535.0f + 0.5f);
}

#if SY__X86_PATH
/* Each lane's table pair (table[k], table[k + 1]) as one 8-byte load, the
 * pairs then split into the two vectors: the values a gather would load,
 * 3.4x faster than AVX2's two gathers (1.1 vs 3.8 ns a value on the Xeon the
 * benchmarks run on; gathers are microcoded on many Intel cores). */
__attribute__((target("avx2"))) static inline void table_pairs(const float *table, __m256i k, __m256 *a, __m256 *b) {
    int32_t at[8];
    _mm256_storeu_si256((__m256i *)at, k);
    __m128 p[4];
    for (int i = 0; i < 4; i++) /* lanes 2i and 2i + 1 */
        p[i] = _mm_loadh_pi(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(table + at[2 * i])),
                            (const __m64 *)(table + at[2 * i + 1]));
    __m256 q01 = _mm256_insertf128_ps(_mm256_castps128_ps256(p[0]), p[2], 1); /* a0 b0 a1 b1 | a4 b4 a5 b5 */
    __m256 q23 = _mm256_insertf128_ps(_mm256_castps128_ps256(p[1]), p[3], 1); /* a2 b2 a3 b3 | a6 b6 a7 b7 */
    *a = _mm256_shuffle_ps(q01, q23, _MM_SHUFFLE(2, 0, 2, 0));
    *b = _mm256_shuffle_ps(q01, q23, _MM_SHUFFLE(3, 1, 3, 1));
}

/* The same steps on 8 values at a time: the same IEEE multiplies,
 * subtractions and additions in the same order, no fused multiply-add, so
 * every value equals the portable one. */
__attribute__((target("avx2"))) static void encode_avx2(const float *sums, size_t n, const float *encode,
                                                        uint16_t *out) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), steps = _mm256_set1_ps((float)SY__TF_STEPS);
    const __m256 lo = _mm256_set1_ps(encode[0]), hi = _mm256_set1_ps(encode[SY__TF_STEPS]);
    const __m256 scale = _mm256_set1_ps(65535.0f), half = _mm256_set1_ps(0.5f);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(sums + i);
        __m256 positive = _mm256_cmp_ps(v, zero, _CMP_GT_OQ); /* false for NaN too */
        __m256 top = _mm256_cmp_ps(v, one, _CMP_GE_OQ);
        /* Out-of-range lanes index 0 (their result is replaced below). */
        __m256 x = _mm256_and_ps(_mm256_andnot_ps(top, positive), _mm256_mul_ps(v, steps));
        __m256i k = _mm256_cvttps_epi32(x);
        __m256 f = _mm256_sub_ps(x, _mm256_cvtepi32_ps(k));
        __m256 a, b;
        table_pairs(encode, k, &a, &b);
        __m256 y = _mm256_add_ps(a, _mm256_mul_ps(_mm256_sub_ps(b, a), f));
        y = _mm256_blendv_ps(lo, y, positive);
        y = _mm256_blendv_ps(y, hi, top);
        __m256i q = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(y, scale), half));
        __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
        _mm_storeu_si128((__m128i *)(out + i), packed);
    }
    encode_portable(sums + i, n - i, encode, out + i);
}
#endif

int sy__render_encode_paths(const float *lin, size_t n, uint16_t *portable, uint16_t *simd) {
    static sy__transfer tf; /* built once per call: a test hook, not a hot path */
    sy__transfer_init(&tf);
    encode_portable(lin, n, tf.encode, portable);
#if SY__X86_PATH
    if (__builtin_cpu_supports("avx2")) {
        encode_avx2(lin, n, tf.encode, simd);
        return 1;
    }
#endif
    encode_portable(lin, n, tf.encode, simd);
    return 0;
}

/* One grid row: horizontal taps over the vertically filtered span (which
 * starts at source column `col0`; one spare float for the 4-lane loads)
 * into `sums` (3 floats a pixel), then linear -> 16-bit sRGB. */
SY__RENDER_CLONES static void horizontal_sums(const float *acc, int32_t col0, const sy__axis *ax, int32_t x0,
                                              int32_t x1, float *sums) {
    for (int32_t i = x0; i <= x1; i++, sums += 3) {
        size_t k = (size_t)(i - ax->lo);
        const float *w = ax->w + k * ax->taps;
        const float *p = acc + (size_t)(ax->first[k] - col0) * 3;
        sy__f4 sum = {0, 0, 0, 0};
        for (uint32_t t = 0; t < ax->count[k]; t++, p += 3) {
            sy__f4 v;
            __builtin_memcpy(&v, p, sizeof v);
            sum = sum + v * w[t];
        }
        sums[0] = sum[0], sums[1] = sum[1], sums[2] = sum[2];
    }
}

static void horizontal(const float *acc, int32_t col0, const sy__axis *ax, int32_t x0, int32_t x1,
                       const float *encode, const float *gamut, int simd, float *sums, uint16_t *out) {
    horizontal_sums(acc, col0, ax, x0, x1, sums);
    if (gamut) sy__gamut_linear(gamut, sums, (size_t)(x1 - x0 + 1));
    size_t n = (size_t)(x1 - x0 + 1) * 3;
#if SY__X86_PATH
    if (simd) {
        encode_avx2(sums, n, encode, out);
        return;
    }
#endif
    (void)simd;
    encode_portable(sums, n, encode, out);
}

sy_status sy__resize_region(sy_context *ctx, const sy__axis *ax, const sy__axis *ay, const sy__transfer *tf,
                            const float *gamut, const sy_pixels *src, sy__grid_region *g, sy_error *err) {
    size_t gw = (size_t)(g->x1 - g->x0 + 1), gh = (size_t)(g->y1 - g->y0 + 1);
    int given = g->px != NULL; /* the caller's rows (held grids), else allocated here */
    if (!given) {
        g->stride = sy__grid_region_stride(g);
        g->px = sy__alloc(ctx, gh, g->stride * sizeof(uint16_t), "render grid region", err);
        if (!g->px) return err ? err->code : SY_E_BUDGET;
    }
    /* Source columns the region reads. */
    int32_t col0 = INT32_MAX, col1 = 0;
    for (int32_t i = g->x0; i <= g->x1; i++) {
        size_t k = (size_t)(i - ax->lo);
        if (ax->first[k] < col0) col0 = ax->first[k];
        if (ax->first[k] + (int32_t)ax->count[k] > col1) col1 = ax->first[k] + (int32_t)ax->count[k];
    }
    size_t span = (size_t)(col1 - col0) * 3;
    /* Grid rows are "pulled": each source row is decoded once into a ring of
     * the last `slots` rows, and each grid row sums its window of them in
     * one pass. Windows only move down and hold at most `slots` rows, so a
     * row is overwritten only after every window that holds it is done;
     * `slots` is bounded by the taps, independent of the downscale factor. */
    const int32_t *first = ay->first - ay->lo;
    const uint32_t *count = ay->count - ay->lo;
    uint32_t slots = 1;
    for (int32_t j = g->y0; j <= g->y1; j++)
        if (count[j] > slots) slots = count[j];
    float *ring = sy__alloc(ctx, slots, span * sizeof(float) + sizeof(float), "render resize rows", err);
    float *acc = sy__alloc(ctx, span + 4, sizeof(float), "render resize accumulators", err);
    float *sums = sy__alloc(ctx, gw * 3, sizeof(float), "render resize sums", err);
    const float **rows = sy__alloc(ctx, slots, sizeof *rows, "render resize rows", err);
    sy_status st = SY_OK;
#if SY__X86_PATH
    const int simd = __builtin_cpu_supports("avx2");
#else
    const int simd = 0;
#endif
    if (!ring || !acc || !sums || !rows) {
        st = err ? err->code : SY_E_BUDGET;
        goto done;
    }
    memset(acc + span, 0, 4 * sizeof(float)); /* the 4-lane loads' spare lane */
    const size_t ring_stride = span + 1;
    int64_t next = first[g->y0]; /* the next source row to decode */
    for (int32_t j = g->y0; j <= g->y1; j++) {
        if (((j - g->y0) & 31) == 31 && (st = sy__check_cancel(ctx, err)) != SY_OK) goto done;
        int64_t f = first[j], end = f + (int64_t)count[j];
        if (next < f) next = f; /* nobody needs the rows between */
        for (; next < end; next++)
            linearize(tf->lin8, src->data + (size_t)next * src->stride + (size_t)col0 * 3,
                      ring + (size_t)(next % slots) * ring_stride, span);
        for (uint32_t t = 0; t < count[j]; t++) rows[t] = ring + (size_t)((f + t) % slots) * ring_stride;
        vertical_sums(acc, rows, ay->w + (size_t)(j - ay->lo) * ay->taps, count[j], span);
        horizontal(acc, col0, ax, g->x0, g->x1, tf->encode, gamut, simd, sums, g->px + (size_t)(j - g->y0) * g->stride);
    }
done:
    sy__free(ctx, ring);
    sy__free(ctx, acc);
    sy__free(ctx, sums);
    sy__free(ctx, (void *)rows);
    if (st != SY_OK && !given) {
        sy__free(ctx, g->px);
        g->px = NULL;
    }
    return st;
}
