/* rgb_to_ycbcr.c — R'G'B' -> Y'CbCr 4:2:0 rows and pictures (see sy_rgb_to_ycbcr.h).
 *
 * Coefficients are scaled by 2^16 and rounded once, so the HEIF writer and
 * the video encoder produce identical samples for identical input. Chroma
 * sums six weighted samples before one multiply (scale 2^19), keeping one rounding.
 */
#include "base/sy_rgb_to_ycbcr.h"

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

void sy__rgb_to_luma_row(const sy__ycbcr_matrix *m, const uint8_t *rgb, uint32_t width, uint8_t *y) {
    const int32_t yr = m->yr, yg = m->yg, yb = m->yb, bias = (m->y_offset << 16) + 32768;
    for (uint32_t x = 0; x < width; x++) {
        const uint8_t *p = rgb + 3 * (size_t)x;
        y[x] = clamp8((yr * p[0] + yg * p[1] + yb * p[2] + bias) >> 16);
    }
}

/* HEVC's default 4:2:0 siting (chroma_sample_loc_type 0, what decoders
 * assume): each chroma sample sits on an even luma column, halfway between
 * two luma rows. So the filter is [1 2 1]/4 across columns 2cx-1..2cx+1 and
 * the average of the two rows; a centred 2x2 box would shift chroma by half a
 * pixel, which costs ~3-6 dB of chroma PSNR on sharp colour edges. */
void sy__rgb_to_chroma420_row(const sy__ycbcr_matrix *m, const uint8_t *a, const uint8_t *b, uint32_t width,
                              uint8_t *cb, uint8_t *cr) {
    if (width == 0) return;
    const int32_t bias = (128 << 19) + (1 << 18); /* +128 offset and rounding at scale 2^19 (weights sum to 8) */
    uint32_t cw = (width + 1) / 2, last = width - 1;
    for (uint32_t cx = 0; cx < cw; cx++) {
        uint32_t xc = 2 * cx;
        size_t xl = (size_t)(xc ? xc - 1 : 0) * 3, xm = (size_t)xc * 3, xr = (size_t)(xc + 1 > last ? last : xc + 1) * 3;
        int32_t s[3];
        for (int c = 0; c < 3; c++)
            s[c] = a[xl + c] + 2 * a[xm + c] + a[xr + c] + b[xl + c] + 2 * b[xm + c] + b[xr + c];
        cb[cx] = clamp8((m->ur * s[0] + m->ug * s[1] + m->ub * s[2] + bias) >> 19);
        cr[cx] = clamp8((m->vr * s[0] + m->vg * s[1] + m->vb * s[2] + bias) >> 19);
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
