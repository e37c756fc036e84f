/* rgb_to_ycbcr.c — R'G'B' -> Y'CbCr 4:2:0 rows and pictures (see sy_rgb_to_ycbcr.h).
 *
 * Coefficients are scaled by 2^16 and rounded once, so the HEIF writer and
 * the video encoder produce identical samples for identical input. Chroma
 * sums six weighted samples before one multiply (scale 2^19), keeping one rounding.
 */
#include "base/sy_rgb_to_ycbcr.h"

/* The row loops are built for AVX2 and for baseline x86-64; the loader picks
 * one at start-up (the same C and integer maths, so the same bytes). */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones) && !defined(__SANITIZE_ADDRESS__)
#define ROW_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef ROW_CLONES
#define ROW_CLONES
#endif

int sy__ycbcr_matrix_init(sy__ycbcr_matrix *m, uint16_t matrix_coefficients, int full_range) {
    double kr, kb;
    switch (matrix_coefficients) {
    case 1: kr = 0.2126, kb = 0.0722; break;
    case 5:
    case 6: kr = 0.299, kb = 0.114; break;
    case 9: kr = 0.2627, kb = 0.0593; break;
    default: return 0;
    }
    double kg = 1.0 - kr - kb;
    double ys = full_range ? 1.0 : 219.0 / 255.0, cs = full_range ? 1.0 : 224.0 / 255.0;
    double cb = 0.5 / (1.0 - kb), cr = 0.5 / (1.0 - kr);
    const double one = 65536.0;
#define FIX(v) ((int32_t)((v) * one + ((v) < 0 ? -0.5 : 0.5)))
    m->yr = FIX(ys * kr), m->yg = FIX(ys * kg), m->yb = FIX(ys * kb);
    m->y_offset = full_range ? 0 : 16;
    m->ur = FIX(-cs * kr * cb), m->ug = FIX(-cs * kg * cb), m->ub = FIX(cs * 0.5);
    m->vr = FIX(cs * 0.5), m->vg = FIX(-cs * kg * cr), m->vb = FIX(-cs * kb * cr);
#undef FIX
    return 1;
}

static inline uint8_t clamp8(int32_t v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

ROW_CLONES void sy__rgb_to_luma_row(const sy__ycbcr_matrix *m, const uint8_t *rgb, uint32_t width, uint8_t *y) {
    const int32_t yr = m->yr, yg = m->yg, yb = m->yb, bias = (m->y_offset << 16) + 32768;
    for (uint32_t x = 0; x < width; x++) {
        const uint8_t *p = rgb + 3 * (size_t)x;
        y[x] = clamp8((yr * p[0] + yg * p[1] + yb * p[2] + bias) >> 16);
    }
}

/* One chroma sample from the three columns xl, xm, xr of both rows. */
static inline void chroma_sample(const sy__ycbcr_matrix *m, const uint8_t *a, const uint8_t *b, size_t xl, size_t xm,
                                 size_t xr, uint8_t *cb, uint8_t *cr) {
    const int32_t bias = (128 << 19) + (1 << 18); /* +128 offset and rounding at scale 2^19 (weights sum to 8) */
    int32_t s[3];
    for (int c = 0; c < 3; c++)
        s[c] = a[xl + c] + 2 * a[xm + c] + a[xr + c] + b[xl + c] + 2 * b[xm + c] + b[xr + c];
    *cb = clamp8((m->ur * s[0] + m->ug * s[1] + m->ub * s[2] + bias) >> 19);
    *cr = clamp8((m->vr * s[0] + m->vg * s[1] + m->vb * s[2] + bias) >> 19);
}

/* Samples whose three columns are all inside the row: no edge clamps, so
 * the compiler can vectorize the loop. */
ROW_CLONES static void chroma_interior(const sy__ycbcr_matrix *m, const uint8_t *a, const uint8_t *b, uint32_t from,
                                       uint32_t to, uint8_t *cb, uint8_t *cr) {
    for (uint32_t cx = from; cx < to; cx++) {
        size_t xm = (size_t)6 * cx;
        chroma_sample(m, a, b, xm - 3, xm, xm + 3, cb + cx, cr + cx);
    }
}

/* HEVC's default 4:2:0 siting (chroma_sample_loc_type 0, what decoders
 * assume): each chroma sample sits on an even luma column, halfway between
 * two luma rows. So the filter is [1 2 1]/4 across columns 2cx-1..2cx+1 and
 * the average of the two rows; a centred 2x2 box would shift chroma by half a
 * pixel, which costs ~3-6 dB of chroma PSNR on sharp colour edges. Edge
 * columns repeat the outermost one. */
void sy__rgb_to_chroma420_row(const sy__ycbcr_matrix *m, const uint8_t *a, const uint8_t *b, uint32_t width,
                              uint8_t *cb, uint8_t *cr) {
    if (width == 0) return;
    uint32_t cw = (width + 1) / 2, last = width - 1;
    /* interior: 2cx - 1 >= 0 and 2cx + 1 <= last */
    uint32_t from = 1, to = width / 2 < cw ? width / 2 : cw;
    if (to < from) to = from;
    for (uint32_t cx = 0; cx < cw; cx++) {
        if (cx == from && from < to) {
            chroma_interior(m, a, b, from, to, cb, cr);
            cx = to - 1;
            continue;
        }
        uint32_t xc = 2 * cx;
        size_t xl = (size_t)(xc ? xc - 1 : 0) * 3, xm = (size_t)xc * 3, xr = (size_t)(xc + 1 > last ? last : xc + 1) * 3;
        chroma_sample(m, a, b, xl, xm, xr, cb + cx, cr + cx);
    }
}

void sy__rgb_to_ycbcr420(const sy__ycbcr_matrix *m, const uint8_t *rgb, size_t rgb_stride, uint32_t width,
                         uint32_t height, uint8_t *const plane[3], const size_t stride[3]) {
    for (uint32_t y = 0; y < height; y += 2) {
        const uint8_t *a = rgb + (size_t)y * rgb_stride, *b = y + 1 < height ? a + rgb_stride : a;
        sy__rgb_to_luma_row(m, a, width, plane[0] + (size_t)y * stride[0]);
        if (y + 1 < height) sy__rgb_to_luma_row(m, b, width, plane[0] + (size_t)(y + 1) * stride[0]);
        sy__rgb_to_chroma420_row(m, a, b, width, plane[1] + (size_t)(y / 2) * stride[1],
                                 plane[2] + (size_t)(y / 2) * stride[2]);
    }
}

/* The chroma samples cx0..cx1 of one row pair: the row function run on the
 * luma columns from the sample before cx0 (so cx0's left neighbour is the
 * picture's, not an edge clamp) into `scratch`, the wanted ones copied out. */
static void chroma_span(const sy__ycbcr_matrix *m, const uint8_t *a, const uint8_t *b, uint32_t width, uint32_t cx0,
                        uint32_t cx1, uint8_t *cb, uint8_t *cr, uint8_t *scratch) {
    uint32_t first = cx0 ? cx0 - 1 : 0; /* the chroma sample the span starts at */
    uint32_t x0 = 2 * first, x1 = 2 * cx1 + 2 < width ? 2 * cx1 + 2 : width;
    uint32_t n = (x1 - x0 + 1) / 2;
    uint8_t *scb = scratch, *scr = scratch + n;
    sy__rgb_to_chroma420_row(m, a + (size_t)x0 * 3, b + (size_t)x0 * 3, x1 - x0, scb, scr);
    for (uint32_t cx = cx0; cx <= cx1; cx++) {
        cb[cx] = scb[cx - first];
        cr[cx] = scr[cx - first];
    }
}

void sy__rgb_to_ycbcr420_rect(const sy__ycbcr_matrix *m, const uint8_t *rgb, size_t rgb_stride, uint32_t width,
                              uint32_t height, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1,
                              uint8_t *const plane[3], const size_t stride[3], uint8_t *scratch) {
    if (x1 > width) x1 = width;
    if (y1 > height) y1 = height;
    if (x0 >= x1 || y0 >= y1) return;
    /* Luma: the rectangle's own samples. Chroma: every sample whose [1 2 1]
     * columns (2cx-1..2cx+1) or row pair meet the rectangle. */
    uint32_t cw = (width + 1) / 2, cx0 = x0 / 2, cx1 = x1 / 2 < cw ? x1 / 2 : cw - 1;
    for (uint32_t y = y0 & ~1u; y < y1; y += 2) {
        const uint8_t *a = rgb + (size_t)y * rgb_stride, *b = y + 1 < height ? a + rgb_stride : a;
        if (y >= y0) sy__rgb_to_luma_row(m, a + (size_t)x0 * 3, x1 - x0, plane[0] + (size_t)y * stride[0] + x0);
        if (y + 1 < y1) sy__rgb_to_luma_row(m, b + (size_t)x0 * 3, x1 - x0, plane[0] + (size_t)(y + 1) * stride[0] + x0);
        chroma_span(m, a, b, width, cx0, cx1, plane[1] + (size_t)(y / 2) * stride[1],
                    plane[2] + (size_t)(y / 2) * stride[2], scratch);
    }
}
