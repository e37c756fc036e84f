/* yuv_convert.c — decoded HEVC planes to interleaved 8-bit R'G'B' or JFIF YCbCr.
 *
 * Every conversion is one affine map of (Y, Cb, Cr) per output channel in
 * 32-bit fixed point (SY__S fraction bits); the map folds together the input
 * range (limited/full, 8..16 bits), the nclx matrix (or identity / YCgCo) and
 * the output (R'G'B', or full-range BT.601 YCbCr for the JPEG path). Rows are
 * converted in chunks of CHUNK pixels through small stack buffers (no
 * allocation), with loops the compiler vectorizes (for AVX2 too, see
 * VECTOR_CLONES).
 *
 * Chroma upsampling is bilinear for the HEVC default chroma siting (type 0):
 * horizontally co-sited with even luma columns (odd columns average their two
 * neighbours), vertically (4:2:0) centred between two luma rows (weights 3/4,
 * 1/4). The interpolated chroma is kept unrounded (x2 for 4:2:2, x8 for 4:2:0)
 * and the scale folded into the coefficients. Edges replicate.
 *
 * Full-range 8-bit BT.601 input to JFIF output is copied / upsampled directly. */
#include <math.h>
#include <string.h>

#include "base/sy_cicp.h"
#include "base/sy_hdr_tone.h"
#include "hevc/sy_hevc.h"

#define SY__S 19
#define CHUNK 256

/* The row loops are built twice, for AVX2 and for the baseline x86-64 (SSE2),
 * and the loader picks one for the CPU at start-up: with 8-lane int32 maths
 * and byte shuffles a row takes under half the instructions (the loops are
 * the same C, so the bytes are too). */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef VECTOR_CLONES
#define VECTOR_CLONES
#endif

typedef struct affine {
    int32_t a[3][3]; /* output channel k = (a[k][0]*Y + a[k][1]*U + a[k][2]*V + b[k]) >> SY__S */
    int32_t b[3];
} affine;

/* ---- colour maths (double, once per call) ---- */

typedef struct kind {
    int form; /* 0 = Kr/Kb YCbCr, 1 = identity (GBR), 2 = YCgCo */
    double kr, kb;
} kind;

/* Luma weights of a set of primaries: the Y row of their RGB -> XYZ. */
static int primaries_weights(unsigned primaries, double *kr, double *kb) {
    double m[9];
    if (!sy__cicp_rgb_to_xyz((uint16_t)primaries, m)) return 0;
    *kr = m[3];
    *kb = m[5];
    return 1;
}

static kind matrix_kind(unsigned matrix, unsigned primaries) {
    kind k = {0, 0.299, 0.114}; /* 2 (unspecified), 5, 6 and anything unknown: BT.601 */
    switch (matrix) {
    case 0: k.form = 1; break;
    case 1: k.kr = 0.2126, k.kb = 0.0722; break;
    case 4: k.kr = 0.30, k.kb = 0.11; break;
    case 7: k.kr = 0.212, k.kb = 0.087; break;
    case 8: k.form = 2; break;
    case 9:
    case 10: k.kr = 0.2627, k.kb = 0.0593; break; /* 10 (constant luminance) approximated by NCL */
    case 12:
    case 13:
        if (!primaries_weights(primaries, &k.kr, &k.kb)) k.kr = 0.2126, k.kb = 0.0722;
        break;
    default: break;
    }
    return k;
}

/* The map from raw samples to output values, in reals: output channel r =
 * A[r][0]*Y + A[r][1]*U + A[r][2]*V + B[r]. n: sample bits as fed to the
 * kernel; cs: log2 of the chroma scale (0, 1 or 3); mono: chroma absent;
 * rgb_scale: the value of R'G'B' 1.0 (255 for 8-bit output); offset: added to
 * every B first. */
static void real_map(const kind *k, int full, int to_rgb, double rgb_scale, double offset, int n, int cs, int mono,
                     double A[3][3], double B[3]) {
    double maxv = (double)((1u << n) - 1), unit = (double)(1u << (n - 8));
    double yoff = full ? 0 : 16 * unit, yr = full ? maxv : 219 * unit;
    double cmid = (double)(1u << (n - 1)), cr = full ? maxv : 224 * unit;
    double csc = (double)(1u << cs);
    /* normalised component j = s[j] * raw_j + t[j]  (raw chroma carries the x2^cs scale) */
    double s[3], t[3];
    s[0] = 1.0 / yr, t[0] = -yoff / yr;
    if (k->form == 1 && !mono) { /* identity: chroma quantised like luma */
        s[1] = s[2] = 1.0 / (yr * csc);
        t[1] = t[2] = -yoff / yr;
    } else {
        s[1] = s[2] = 1.0 / (cr * csc);
        t[1] = t[2] = -cmid / cr;
    }
    /* M: normalised (Y, C1, C2) -> R'G'B' in 0..1 */
    double M[3][3];
    if (mono) {
        double g[3][3] = {{1, 0, 0}, {1, 0, 0}, {1, 0, 0}};
        memcpy(M, g, sizeof M);
        s[1] = s[2] = t[1] = t[2] = 0;
    } else if (k->form == 1) {
        double g[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}}; /* R = Cr, G = Y, B = Cb */
        memcpy(M, g, sizeof M);
    } else if (k->form == 2) {
        double g[3][3] = {{1, -1, 1}, {1, 1, 0}, {1, -1, -1}}; /* C1 = Cg, C2 = Co */
        memcpy(M, g, sizeof M);
    } else {
        double kr = k->kr, kb = k->kb, kg = 1.0 - kr - kb;
        double g[3][3] = {{1, 0, 2 * (1 - kr)},
                          {1, -2 * kb * (1 - kb) / kg, -2 * kr * (1 - kr) / kg},
                          {1, 2 * (1 - kb), 0}};
        memcpy(M, g, sizeof M);
    }
    /* O: R'G'B' (0..1) -> output code values */
    double O[3][3], o[3];
    if (to_rgb) {
        double g[3][3] = {{rgb_scale, 0, 0}, {0, rgb_scale, 0}, {0, 0, rgb_scale}};
        memcpy(O, g, sizeof O);
        o[0] = o[1] = o[2] = 0;
    } else {
        double g[3][3] = {{0.299 * 255, 0.587 * 255, 0.114 * 255},
                          {-0.168735892 * 255, -0.331264108 * 255, 0.5 * 255},
                          {0.5 * 255, -0.418687589 * 255, -0.081312411 * 255}};
        memcpy(O, g, sizeof O);
        o[0] = 0, o[1] = o[2] = 128;
    }
    for (int r = 0; r < 3; r++) {
        double OM[3];
        for (int j = 0; j < 3; j++) OM[j] = O[r][0] * M[0][j] + O[r][1] * M[1][j] + O[r][2] * M[2][j];
        B[r] = o[r] + offset;
        for (int j = 0; j < 3; j++) {
            A[r][j] = OM[j] * s[j];
            B[r] += OM[j] * t[j];
        }
    }
}

/* The same map in fixed point, for 8-bit output. */
static void build_affine(const kind *k, int full, int to_rgb, int n, int cs, int mono, affine *out) {
    double A[3][3], B[3];
    real_map(k, full, to_rgb, 255.0, 0.5, n, cs, mono, A, B); /* + 0.5: the >> rounds to nearest */
    const double one = (double)(1u << SY__S);
    for (int r = 0; r < 3; r++) {
        for (int j = 0; j < 3; j++) out->a[r][j] = (int32_t)lrint(A[r][j] * one);
        out->b[r] = (int32_t)lrint(B[r] * one);
    }
}

/* ---- kernels ---- */

static inline uint8_t clamp8(int32_t v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

static void kernel3(const int32_t *restrict Y, const int32_t *restrict U, const int32_t *restrict V, int n,
                    const affine *m, uint8_t *restrict o) {
    const int32_t a00 = m->a[0][0], a01 = m->a[0][1], a02 = m->a[0][2], b0 = m->b[0];
    const int32_t a10 = m->a[1][0], a11 = m->a[1][1], a12 = m->a[1][2], b1 = m->b[1];
    const int32_t a20 = m->a[2][0], a21 = m->a[2][1], a22 = m->a[2][2], b2 = m->b[2];
    for (int i = 0; i < n; i++) {
        int32_t y = Y[i], u = U[i], v = V[i];
        o[3 * i + 0] = clamp8((a00 * y + a01 * u + a02 * v + b0) >> SY__S);
        o[3 * i + 1] = clamp8((a10 * y + a11 * u + a12 * v + b1) >> SY__S);
        o[3 * i + 2] = clamp8((a20 * y + a21 * u + a22 * v + b2) >> SY__S);
    }
}

static void kernel1(const int32_t *restrict Y, int n, const affine *m, uint8_t *restrict o) {
    const int32_t a0 = m->a[0][0], a1 = m->a[1][0], a2 = m->a[2][0];
    const int32_t b0 = m->b[0], b1 = m->b[1], b2 = m->b[2];
    for (int i = 0; i < n; i++) {
        int32_t y = Y[i];
        o[3 * i + 0] = clamp8((a0 * y + b0) >> SY__S);
        o[3 * i + 1] = clamp8((a1 * y + b1) >> SY__S);
        o[3 * i + 2] = clamp8((a2 * y + b2) >> SY__S);
    }
}

/* ---- sample loading ---- */

/* dst[k] = sample at column min(x0 + k, w - 1), k < n, as int32; 16-bit samples are
 * shifted right by `shift` and masked to the remaining bits (keeps the fixed point in range). */
static void load_row(const uint8_t *row, int wide, uint32_t w, uint32_t x0, int n, int shift, int bits,
                     int32_t *restrict dst) {
    const int32_t mask = (int32_t)((1u << bits) - 1);
    int direct = x0 + (uint32_t)n <= w ? n : (x0 < w ? (int)(w - x0) : 0);
    if (wide) {
        const uint16_t *r = (const uint16_t *)(const void *)row + x0;
        for (int k = 0; k < direct; k++) dst[k] = (r[k] >> shift) & mask;
        int32_t last = (((const uint16_t *)(const void *)row)[w - 1] >> shift) & mask;
        for (int k = direct; k < n; k++) dst[k] = last;
    } else {
        const uint8_t *r = row + x0;
        for (int k = 0; k < direct; k++) dst[k] = r[k];
        for (int k = direct; k < n; k++) dst[k] = row[w - 1];
    }
}

/* Horizontal co-sited bilinear x2: out[2m] = 2 t[m], out[2m+1] = t[m] + t[m+1]; n outputs, t has n/2+2. */
static void upsample_h(const int32_t *restrict t, int n, int32_t *restrict out) {
    int half = n / 2;
    for (int m = 0; m < half; m++) {
        out[2 * m] = 2 * t[m];
        out[2 * m + 1] = t[m] + t[m + 1];
    }
    if (n & 1) out[n - 1] = 2 * t[half];
}

/* Upsampled chroma of plane c for luma row y, columns [x0, x0+n) (x0 even). */
VECTOR_CLONES static void load_chroma(const sy__yuv *yuv, int c, uint32_t y, uint32_t x0, int n, int shift, int bits,
                        int32_t *restrict out) {
    const int wide = yuv->bit_depth > 8;
    const uint32_t cw = yuv->plane_width[c], ch = yuv->plane_height[c];
    const uint8_t *base = yuv->plane[c];
    const size_t stride = yuv->stride[c];
    int32_t t[CHUNK / 2 + 2], t2[CHUNK / 2 + 2];
    switch (yuv->chroma) {
    case 3: load_row(base + (size_t)SY__MIN(y, ch - 1) * stride, wide, cw, x0, n, shift, bits, out); break;
    case 2:
        load_row(base + (size_t)SY__MIN(y, ch - 1) * stride, wide, cw, x0 / 2, n / 2 + 2, shift, bits, t);
        upsample_h(t, n, out);
        break;
    default: { /* 4:2:0 */
        uint32_t j = SY__MIN(y >> 1, ch - 1);
        uint32_t jn = (y & 1) ? SY__MIN(j + 1, ch - 1) : (j ? j - 1 : 0);
        load_row(base + (size_t)j * stride, wide, cw, x0 / 2, n / 2 + 2, shift, bits, t);
        load_row(base + (size_t)jn * stride, wide, cw, x0 / 2, n / 2 + 2, shift, bits, t2);
        for (int k = 0; k < n / 2 + 2; k++) t[k] = 3 * t[k] + t2[k];
        upsample_h(t, n, out);
        break;
    }
    }
}

/* ---- fast path: full-range 8-bit BT.601 -> JFIF (int16 buffers, no matrix) ---- */

static void load8(const uint8_t *row, uint32_t w, uint32_t x0, int n, int16_t *restrict dst) {
    int direct = x0 + (uint32_t)n <= w ? n : (x0 < w ? (int)(w - x0) : 0);
    for (int k = 0; k < direct; k++) dst[k] = row[x0 + k];
    for (int k = direct; k < n; k++) dst[k] = row[w - 1];
}

/* Upsampled chroma (x2^cs, unrounded) of 8-bit plane c for luma row y, columns [x0, x0+n). */
VECTOR_CLONES static void chroma8(const sy__yuv *yuv, int c, uint32_t y, uint32_t x0, int n, int16_t *restrict out) {
    const uint32_t cw = yuv->plane_width[c], ch = yuv->plane_height[c];
    const uint8_t *base = yuv->plane[c];
    const size_t stride = yuv->stride[c];
    int16_t t[CHUNK / 2 + 2], t2[CHUNK / 2 + 2];
    const int m = n / 2 + 2;
    if (yuv->chroma == 2) {
        load8(base + (size_t)SY__MIN(y, ch - 1) * stride, cw, x0 / 2, m, t);
    } else {
        uint32_t j = SY__MIN(y >> 1, ch - 1);
        uint32_t jn = (y & 1) ? SY__MIN(j + 1, ch - 1) : (j ? j - 1 : 0);
        load8(base + (size_t)j * stride, cw, x0 / 2, m, t);
        load8(base + (size_t)jn * stride, cw, x0 / 2, m, t2);
        for (int k = 0; k < m; k++) t[k] = (int16_t)(3 * t[k] + t2[k]);
    }
    for (int k = 0; k < n / 2; k++) {
        out[2 * k] = (int16_t)(2 * t[k]);
        out[2 * k + 1] = (int16_t)(t[k] + t[k + 1]);
    }
    if (n & 1) out[n - 1] = (int16_t)(2 * t[n / 2]);
}

VECTOR_CLONES static void jfif_direct_row(const sy__yuv *yuv, uint32_t y, uint8_t *restrict o) {
    const uint32_t w = yuv->width;
    const uint8_t *yr = yuv->plane[0] + (size_t)SY__MIN(y, yuv->plane_height[0] - 1) * yuv->stride[0];
    for (uint32_t x0 = 0; x0 < w; x0 += CHUNK) {
        int n = (int)SY__MIN((uint32_t)CHUNK, w - x0);
        int16_t Y[CHUNK], U[CHUNK], V[CHUNK];
        uint8_t *q = o + (size_t)x0 * 3;
        int cs = 0;
        load8(yr, yuv->plane_width[0], x0, n, Y);
        if (yuv->chroma == 3) {
            load8(yuv->plane[1] + (size_t)SY__MIN(y, yuv->plane_height[1] - 1) * yuv->stride[1], yuv->plane_width[1],
                  x0, n, U);
            load8(yuv->plane[2] + (size_t)SY__MIN(y, yuv->plane_height[2] - 1) * yuv->stride[2], yuv->plane_width[2],
                  x0, n, V);
        } else {
            cs = yuv->chroma == 1 ? 3 : 1;
            chroma8(yuv, 1, y, x0, n, U);
            chroma8(yuv, 2, y, x0, n, V);
        }
        const int r = cs ? 1 << (cs - 1) : 0;
        for (int i = 0; i < n; i++) {
            q[3 * i] = (uint8_t)Y[i];
            q[3 * i + 1] = (uint8_t)((U[i] + r) >> cs);
            q[3 * i + 2] = (uint8_t)((V[i] + r) >> cs);
        }
    }
}

/* HDR signals (PQ, HLG): row y, columns [x0, x0+n), as R'G'B' signal floats. */
typedef struct hdr_signal {
    float a[3][3], b[3];
    int mono, shift, n_bits;
} hdr_signal;

static void hdr_signal_init(hdr_signal *h, const kind *k, int full, int mono, int shift, int n_bits, int cs) {
    double A[3][3], B[3];
    real_map(k, full, 1, 1.0, 0.0, n_bits, cs, mono, A, B);
    for (int r = 0; r < 3; r++) {
        h->b[r] = (float)B[r];
        for (int j = 0; j < 3; j++) h->a[r][j] = (float)A[r][j];
    }
    h->mono = mono, h->shift = shift, h->n_bits = n_bits;
}

VECTOR_CLONES static void hdr_signal_chunk(const sy__yuv *yuv, const hdr_signal *h, uint32_t y, uint32_t x0, int n,
                                           float *restrict signal) {
    const int wide = yuv->bit_depth > 8;
    const uint8_t *yr = yuv->plane[0] + (size_t)y * yuv->stride[0];
    int32_t Y[CHUNK], U[CHUNK] = {0}, V[CHUNK] = {0};
    load_row(yr, wide, yuv->plane_width[0], x0, n, h->shift, h->n_bits, Y);
    if (!h->mono) {
        load_chroma(yuv, 1, y, x0, n, h->shift, h->n_bits, U);
        load_chroma(yuv, 2, y, x0, n, h->shift, h->n_bits, V);
    }
    for (int i = 0; i < n; i++)
        for (int c = 0; c < 3; c++)
            signal[3 * i + c] = h->a[c][0] * (float)Y[i] + h->a[c][1] * (float)U[i] + h->a[c][2] * (float)V[i] + h->b[c];
}

/* HDR signals, row by row: tone-mapped to 8-bit SDR Display P3 rows (`rgb`),
 * or their gain over that SDR rendition (`gain`), sy_hdr_tone.h. */
static void hdr_rows(const sy__yuv *yuv, const hdr_signal *h, const sy__hdr_map *hdr, uint32_t y0, uint32_t rows,
                     uint8_t *const *rgb, float *const *gain) {
    float signal[3 * CHUNK];
    for (uint32_t r = 0; r < rows; r++) {
        uint32_t y = SY__MIN(y0 + r, yuv->plane_height[0] - 1);
        for (uint32_t x0 = 0; x0 < yuv->width; x0 += CHUNK) {
            int n = (int)SY__MIN((uint32_t)CHUNK, yuv->width - x0);
            hdr_signal_chunk(yuv, h, y, x0, n, signal);
            if (rgb) sy__hdr_to_sdr(hdr, signal, (size_t)n, rgb[r] + (size_t)x0 * 3);
            else sy__hdr_gain(hdr, signal, (size_t)n, gain[r] + x0);
        }
    }
}

/* Grey: 4:0:0, or chroma planes missing. */
static int no_chroma(const sy__yuv *yuv) {
    return yuv->chroma == 0 || yuv->chroma > 3 || !yuv->plane[1] || !yuv->plane[2] || !yuv->plane_width[1] ||
           !yuv->plane_height[1] || !yuv->plane_width[2] || !yuv->plane_height[2];
}

/* The colour description a conversion follows: `colour` when given, else the picture's VUI. */
static const sy_cicp *described(const sy__yuv *yuv, const sy_cicp *colour) {
    return colour && colour->present ? colour : &yuv->vui;
}

/* Sample bits as fed to the kernels: at most 12 (deeper samples are shifted). */
static int sample_depth(const sy__yuv *yuv) { return yuv->bit_depth < 8 ? 8 : yuv->bit_depth > 16 ? 16 : yuv->bit_depth; }
static int sample_shift(const sy__yuv *yuv) { return sample_depth(yuv) > 12 ? sample_depth(yuv) - 12 : 0; }

/* log2 of the chroma scale the loaders give (x8 for 4:2:0, x2 for 4:2:2). */
static int chroma_scale(const sy__yuv *yuv, int mono) { return mono ? 0 : yuv->chroma == 1 ? 3 : yuv->chroma == 2 ? 1 : 0; }

/* When the picture's description is an HDR signal: its mapping and signal map. */
static int hdr_setup(const sy__yuv *yuv, const sy_cicp *colour, sy__hdr_map *hdr, hdr_signal *h) {
    const sy_cicp *c = described(yuv, colour);
    if (!c->present || !sy__hdr_map_init(hdr, c->primaries, c->transfer, c->peak)) return 0;
    const int mono = no_chroma(yuv);
    kind k = matrix_kind(c->matrix, c->primaries);
    hdr_signal_init(h, &k, c->full_range != 0, mono, sample_shift(yuv), sample_depth(yuv) - sample_shift(yuv),
                    chroma_scale(yuv, mono));
    return 1;
}

int sy__yuv_hdr_gain_rows(const sy__yuv *yuv, const sy_cicp *colour, uint32_t y0, uint32_t rows, float *const *out) {
    if (!yuv || !yuv->plane[0] || !yuv->width || !yuv->plane_width[0] || !yuv->plane_height[0] || !out) return 0;
    sy__hdr_map hdr;
    hdr_signal h;
    if (!hdr_setup(yuv, colour, &hdr, &h)) return 0;
    hdr_rows(yuv, &h, &hdr, y0, rows, NULL, out);
    return 1;
}

VECTOR_CLONES void sy__yuv_rows(const sy__yuv *yuv, const sy_cicp *colour, int to_rgb, uint32_t y0,
                                uint32_t rows, uint8_t *const *out) {
    if (!yuv || !out || !yuv->plane[0] || yuv->width == 0 || !yuv->plane_width[0] || !yuv->plane_height[0]) return;
    const int mono = no_chroma(yuv);
    const sy_cicp *c = described(yuv, colour);
    unsigned matrix = c->present ? c->matrix : 2, primaries = c->present ? c->primaries : 2;
    int full = c->present ? c->full_range != 0 : 0;
    int depth = sample_depth(yuv), shift = sample_shift(yuv), n_bits = depth - shift, cs = chroma_scale(yuv, mono);
    kind k = matrix_kind(matrix, primaries);

    if (!to_rgb && !mono && depth == 8 && full && k.form == 0 && k.kr == 0.299 && k.kb == 0.114) {
        for (uint32_t r = 0; r < rows; r++) jfif_direct_row(yuv, y0 + r, out[r]);
        return;
    }
    sy__hdr_map hdr;
    hdr_signal h;
    if (to_rgb && hdr_setup(yuv, colour, &hdr, &h)) {
        hdr_rows(yuv, &h, &hdr, y0, rows, out, NULL);
        return;
    }
    affine m;
    build_affine(&k, full, to_rgb, n_bits, cs, mono, &m);
    const int wide = yuv->bit_depth > 8;
    const uint32_t w = yuv->width;
    for (uint32_t r = 0; r < rows; r++) {
        uint32_t y = SY__MIN(y0 + r, yuv->plane_height[0] - 1);
        const uint8_t *yr = yuv->plane[0] + (size_t)y * yuv->stride[0];
        for (uint32_t x0 = 0; x0 < w; x0 += CHUNK) {
            int n = (int)SY__MIN((uint32_t)CHUNK, w - x0);
            int32_t Y[CHUNK];
            load_row(yr, wide, yuv->plane_width[0], x0, n, shift, n_bits, Y);
            if (mono) {
                kernel1(Y, n, &m, out[r] + (size_t)x0 * 3);
            } else {
                int32_t U[CHUNK], V[CHUNK];
                load_chroma(yuv, 1, y, x0, n, shift, n_bits, U);
                load_chroma(yuv, 2, y, x0, n, shift, n_bits, V);
                kernel3(Y, U, V, n, &m, out[r] + (size_t)x0 * 3);
            }
        }
    }
}
