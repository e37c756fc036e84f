/* lut.c — 3D LUT objects and tetrahedral interpolation: float for table
 * building and sy_lut_apply, 16-bit fixed point for the per-pixel path.
 * Tetrahedral interpolation splits each cell into six tetrahedra along the
 * grey diagonal, so it reproduces any affine table (an identity cube) exactly
 * and keeps neutral greys neutral. */
#include <string.h>

#include "render/sy_render_internal.h"

sy_status sy__lut_create(sy_context *ctx, uint32_t size, sy_lut **out, sy_error *err) {
    if (size < 2 || size > SY_LUT_MAX_SIZE)
        return sy__fail(err, SY_E_USAGE, "sy_lut: size %u is outside 2..%d", size, SY_LUT_MAX_SIZE);
    sy_lut *lut = sy__calloc(ctx, 1, sizeof *lut, "lut", err);
    if (!lut) return err ? err->code : SY_E_BUDGET;
    lut->ctx = ctx;
    lut->size = size;
    for (int c = 0; c < 3; c++) lut->domain_max[c] = 1.0f;
    lut->data = sy__alloc(ctx, (size_t)size * size * size, 3 * sizeof(float), "lut table", err);
    if (!lut->data) {
        sy__free(ctx, lut);
        return err ? err->code : SY_E_BUDGET;
    }
    *out = lut;
    return SY_OK;
}

void sy_lut_destroy(sy_lut *lut) {
    if (!lut) return;
    sy_context *ctx = lut->ctx;
    sy__free(ctx, lut->data);
    sy__free(ctx, lut);
}

uint32_t sy_lut_size(const sy_lut *lut) { return lut ? lut->size : 0; }
const char *sy_lut_title(const sy_lut *lut) { return lut ? lut->title : ""; }

static float clamp01(float v) { return v > 0 ? (v < 1 ? v : 1) : 0; /* NaN -> 0 */ }

void sy__lut_eval(const sy_lut *lut, const float in[3], float out[3]) {
    const uint32_t n1 = lut->size - 1;
    uint32_t i[3];
    float x[3];
    for (int c = 0; c < 3; c++) {
        float t = clamp01((in[c] - lut->domain_min[c]) / (lut->domain_max[c] - lut->domain_min[c])) * n1;
        uint32_t k = (uint32_t)t;
        if (k >= n1) k = n1 - 1;
        i[c] = k;
        x[c] = t - k;
    }
    const size_t sr = 3, sg = 3 * (size_t)lut->size, sb = sg * lut->size;
    const float *c0 = lut->data + i[0] * sr + i[1] * sg + i[2] * sb;
    const float *c3 = c0 + sr + sg + sb, *c1, *c2;
    float x1, x2, x3;
    if (x[0] >= x[1]) {
        if (x[1] >= x[2]) c1 = c0 + sr, c2 = c1 + sg, x1 = x[0], x2 = x[1], x3 = x[2];
        else if (x[0] >= x[2]) c1 = c0 + sr, c2 = c1 + sb, x1 = x[0], x2 = x[2], x3 = x[1];
        else c1 = c0 + sb, c2 = c1 + sr, x1 = x[2], x2 = x[0], x3 = x[1];
    } else {
        if (x[2] >= x[1]) c1 = c0 + sb, c2 = c1 + sg, x1 = x[2], x2 = x[1], x3 = x[0];
        else if (x[2] >= x[0]) c1 = c0 + sg, c2 = c1 + sb, x1 = x[1], x2 = x[2], x3 = x[0];
        else c1 = c0 + sg, c2 = c1 + sr, x1 = x[1], x2 = x[0], x3 = x[2];
    }
    for (int c = 0; c < 3; c++)
        out[c] = clamp01(c0[c] + (c1[c] - c0[c]) * x1 + (c2[c] - c1[c]) * x2 + (c3[c] - c2[c]) * x3);
}

void sy_lut_apply(const sy_lut *lut, const float in[3], float out[3]) {
    if (!lut) {
        for (int c = 0; c < 3; c++) out[c] = in[c];
        return;
    }
    sy__lut_eval(lut, in, out);
}

typedef int32_t lut_i4 __attribute__((vector_size(16)));
typedef uint16_t lut_h4 __attribute__((vector_size(8)));

/* The three channels of a node as one 4-lane vector (lane 3 is the next
 * node's red, ignored; the table has a spare entry at its end). */
static inline lut_i4 node(const uint16_t *p) {
    lut_h4 h;
    __builtin_memcpy(&h, p, sizeof h);
    return __builtin_convertvector(h, lut_i4);
}

void sy__lut16_index_table(const sy__lut16 *lut, const uint16_t *pre, uint32_t *table) {
    const uint32_t n1 = lut->size - 1;
    for (uint32_t v = 0; v < 65536; v++) {
        uint32_t f = (pre ? pre[v] : v) * n1, i = f / 65535u;
        if (i >= n1) i = n1 - 1;
        table[v] = i << 13 | (((f - i * 65535u) * 4097u) >> 16); /* fraction 0..4096 */
    }
}

SY__RENDER_CLONES void sy__lut16_apply_row(const sy__lut16 *lut, const uint32_t *restrict index,
                                           uint16_t *restrict px, uint32_t npx) {
    const uint32_t sr = 3, sg = 3 * lut->size, sb = sg * lut->size;
    const uint16_t *restrict d = lut->data;
    for (uint32_t p = 0; p < npx; p++, px += 3) {
        uint32_t er = index[px[0]], eg = index[px[1]], eb = index[px[2]];
        int32_t x1 = (int32_t)(er & 8191), x2 = (int32_t)(eg & 8191), x3 = (int32_t)(eb & 8191);
        /* Sort the fractions (with their axis strides) in descending order,
         * branch-free: the tetrahedron walks c0 -> +first -> +second -> c3.
         * Ties pick either order with the same result. */
        uint32_t s1 = sr, s2 = sg, s3 = sb;
#define SORT2(a, b, sa, sb)                                                       \
    do {                                                                          \
        int32_t lt_ = a < b, ta_ = lt_ ? b : a, tb_ = lt_ ? a : b;                \
        uint32_t tsa_ = lt_ ? sb : sa, tsb_ = lt_ ? sa : sb;                      \
        a = ta_, b = tb_, sa = tsa_, sb = tsb_;                                   \
    } while (0)
        SORT2(x1, x2, s1, s2);
        SORT2(x2, x3, s2, s3);
        SORT2(x1, x2, s1, s2);
#undef SORT2
        const uint16_t *c0 = d + (er >> 13) * sr + (eg >> 13) * sg + (eb >> 13) * sb;
        lut_i4 v0 = node(c0), v1 = node(c0 + s1), v2 = node(c0 + s1 + s2), v3 = node(c0 + sr + sg + sb);
        lut_i4 o = v0 + (((v1 - v0) * x1 + (v2 - v1) * x2 + (v3 - v2) * x3 + 2048) >> 12);
        px[0] = (uint16_t)o[0];
        px[1] = (uint16_t)o[1];
        px[2] = (uint16_t)o[2];
    }
}

sy_status sy_lut_from_filter(sy_context *ctx, const char *id, uint32_t size, sy_lut **out, sy_error *err) {
    if (!ctx || !out || !id) return sy__fail(err, SY_E_USAGE, "sy_lut_from_filter: NULL argument");
    int32_t index = sy_filter_find(id);
    if (index < 0) return sy__fail(err, SY_E_USAGE, "sy_lut_from_filter: unknown filter id '%.64s'", id);
    sy__transfer *tf = sy__alloc(ctx, 1, sizeof *tf, "transfer tables", err);
    if (!tf) return err ? err->code : SY_E_BUDGET;
    sy_lut *lut = NULL;
    sy_status st = sy__lut_create(ctx, size, &lut, err);
    if (st == SY_OK) {
        sy__transfer_init(tf);
        sy__look_prep look;
        sy__look_prepare(sy__filter_look(index), &look);
        float *p = lut->data;
        for (uint32_t b = 0; b < size; b++)
            for (uint32_t g = 0; g < size; g++)
                for (uint32_t r = 0; r < size; r++, p += 3) {
                    float in[3] = {(float)r / (size - 1), (float)g / (size - 1), (float)b / (size - 1)};
                    sy__look_apply(&look, tf, in, p);
                }
        sy_filter_info info;
        sy_filter_at((size_t)index, &info);
        snprintf(lut->title, sizeof lut->title, "%s", info.name);
        *out = lut;
    }
    sy__free(ctx, tf);
    return st;
}
