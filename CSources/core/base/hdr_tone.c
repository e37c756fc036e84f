/* hdr_tone.c — HDR video signals to SDR Display P3 (sy_hdr_tone.h).
 *
 * Display light first, as an HDR display would show the picture:
 *   PQ  (ST 2084): the signal is absolute luminance, E' -> cd/m^2 by the EOTF;
 *   HLG (BT.2100): the signal is scene light, E' -> E by the inverse OETF, then
 *       the OOTF of a 1000 cd/m^2 display (gamma 1.2): Fd = 1000 * Ys^0.2 * E,
 *       Ys the scene luminance.
 * Then SDR: HDR reference white, 203 cd/m^2 (BT.2408; HLG's 75 % signal), is
 * SDR white 1.0. The colours go to Display P3 (which holds nearly every
 * colour HDR video carries), then the largest of R, G, B is tone-mapped and
 * the pixel scaled with it (ST 2094-40's "maxRGB", as ffmpeg's tonemap does):
 * hue and saturation are kept and nothing leaves the gamut, where a curve on
 * luminance would turn a bright saturated red (an HLG full-signal red is 3.8x
 * reference white in R alone) pink-white to keep its luminance. Up to the
 * knee (0.7) values are kept; above it a curve with the same slope at the
 * knee reaches 1.0 at the display's peak (1000 cd/m^2, 4.93x reference
 * white: an HLG display's nominal peak, and what a PQ clip is taken to reach
 * when it says nothing; a PQ clip that says how bright it gets — MaxCLL, else
 * its mastering display's peak, as ffmpeg's tonemap and libplacebo read
 * them — reaches white there, so a 4000-nit grade keeps its highlights):
 *   m' = k + u / (1 + u * bend),  u = m - k,  bend = 1/(1-k) - 1/(peak-k).
 * Reference white lands at 0.855 linear (93 % of the sRGB signal); highlights
 * keep their gradation instead of clipping. What P3 cannot hold (a negative
 * component) is clipped. Out: the sRGB curve, 8 bits. */
#include <math.h>
#include <pthread.h>

#include "base/sy_cicp.h"
#include "base/sy_hdr_tone.h"

#define STEPS 4096
#define REFERENCE_WHITE 203.0 /* cd/m^2 */
#define PEAK 1000.0           /* cd/m^2: HLG's nominal display, PQ's when it says nothing */
#define MIN_PEAK 400          /* cd/m^2: a content peak said lower is taken as this (above the knee) */
#define MAX_PEAK 10000        /* PQ's ceiling */
#define KNEE 0.7f

static float pq_linear[STEPS + 2];  /* PQ signal -> display light / reference white */
static float hlg_linear[STEPS + 2]; /* HLG signal -> scene light 0..1 */
static float srgb_encode[STEPS + 2]; /* linear 0..1 -> sRGB signal 0..1 */
static float ootf_gain[STEPS + 2];   /* HLG scene luminance 0..1 -> its OOTF gain, peak / white * Ys^0.2 */
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static double pq_eotf(double e) {
    const double m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128;
    const double c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32;
    double p = pow(e, 1 / m2);
    double num = p - c1 > 0 ? p - c1 : 0;
    return 10000.0 * pow(num / (c2 - c3 * p), 1 / m1);
}

static double hlg_inverse_oetf(double e) {
    const double a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a);
    return e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12;
}

static double srgb_curve(double v) { return v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055; }

static void build_tables(void) {
    for (int i = 0; i <= STEPS; i++) {
        double x = (double)i / STEPS;
        pq_linear[i] = (float)(pq_eotf(x) / REFERENCE_WHITE);
        hlg_linear[i] = (float)hlg_inverse_oetf(x);
        srgb_encode[i] = (float)srgb_curve(x);
        ootf_gain[i] = (float)(PEAK / REFERENCE_WHITE * pow(x, 0.2));
    }
    /* the spare entry keeps the lerp in bounds at 1.0 */
    pq_linear[STEPS + 1] = pq_linear[STEPS];
    hlg_linear[STEPS + 1] = hlg_linear[STEPS];
    srgb_encode[STEPS + 1] = srgb_encode[STEPS];
    ootf_gain[STEPS + 1] = ootf_gain[STEPS];
}

static inline float lerp_table(const float *t, float x) {
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    float p = x * STEPS;
    int i = (int)p;
    return t[i] + (p - (float)i) * (t[i + 1] - t[i]);
}


int sy__cicp_is_hdr_transfer(uint16_t transfer) {
    return transfer == SY_CICP_TRANSFER_PQ || transfer == SY_CICP_TRANSFER_HLG;
}

uint16_t sy__cicp_frame_primaries(uint16_t primaries, uint16_t transfer) {
    return sy__cicp_is_hdr_transfer(transfer) ? SY_CICP_PRIMARIES_DISPLAY_P3 : primaries;
}

uint16_t sy__hdr_content_peak(const sy_hdr_static_metadata *grade) {
    uint32_t cll = grade->has_light_level ? grade->max_cll : 0;
    uint32_t nits = cll ? cll : grade->has_mastering ? (grade->max_luminance + 5000) / 10000 : 0;
    if (!nits) return 0;
    return (uint16_t)(nits < MIN_PEAK ? MIN_PEAK : nits > MAX_PEAK ? MAX_PEAK : nits);
}

/* Peak over reference white: `peak` for PQ (0: the nominal 1000), HLG's display always 1000. */
static double relative_peak(uint16_t transfer, uint16_t peak) {
    double nits = transfer == SY_CICP_TRANSFER_PQ && peak ? (peak < MIN_PEAK ? MIN_PEAK : peak) : PEAK;
    return nits / REFERENCE_WHITE;
}

int sy__hdr_map_init(sy__hdr_map *m, uint16_t primaries, uint16_t transfer, uint16_t peak_nits) {
    if (!sy__cicp_is_hdr_transfer(transfer)) return 0;
    pthread_once(&tables_once, build_tables);
    double xyz[9], gamut[9];
    if (!sy__cicp_rgb_to_xyz(primaries, xyz)) primaries = 9; /* unspecified or unknown: BT.2020 */
    sy__cicp_rgb_to_xyz(primaries, xyz);
    sy__cicp_gamut_matrix(primaries, SY_CICP_PRIMARIES_DISPLAY_P3, gamut);
    m->transfer = transfer;
    m->to_linear = transfer == SY_CICP_TRANSFER_PQ ? pq_linear : hlg_linear;
    for (int k = 0; k < 3; k++) m->weight[k] = (float)xyz[3 + k];
    for (int k = 0; k < 9; k++) m->gamut[k] = (float)gamut[k];
    double peak = relative_peak(transfer, peak_nits);
    m->knee = KNEE;
    m->bend = (float)(1 / (1 - (double)KNEE) - 1 / (peak - KNEE));
    return 1;
}

/* The loops below are passes over a chunk of pixels with no branches but
 * selects, which the compiler vectorizes (table lookups as gathers on AVX2):
 * ~4x fewer cycles a pixel than one pixel at a time, whose divisions and
 * lookups stalled each other. */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define HDR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef HDR_CLONES
#define HDR_CLONES
#endif

#define CHUNK 256

/* Display light in Display P3 (relative to reference white) into r, g, b,
 * and into `scale` the tone curve's factor for each pixel (1 up to the knee). */
HDR_CLONES static void tone_chunk(const sy__hdr_map *m, const float *restrict signal, int n, float *restrict r,
                                  float *restrict g, float *restrict b, float *restrict scale) {
    const float *lin = m->to_linear;
    for (int i = 0; i < n; i++) {
        r[i] = lerp_table(lin, signal[3 * i]);
        g[i] = lerp_table(lin, signal[3 * i + 1]);
        b[i] = lerp_table(lin, signal[3 * i + 2]);
    }
    if (m->transfer == SY_CICP_TRANSFER_HLG) { /* the OOTF: scene light -> display light */
        const float w0 = m->weight[0], w1 = m->weight[1], w2 = m->weight[2];
        for (int i = 0; i < n; i++) {
            float gain = lerp_table(ootf_gain, w0 * r[i] + w1 * g[i] + w2 * b[i]);
            r[i] *= gain, g[i] *= gain, b[i] *= gain;
        }
    }
    const float *q = m->gamut;
    const float knee = m->knee, bend = m->bend;
    for (int i = 0; i < n; i++) {
        float pr = q[0] * r[i] + q[1] * g[i] + q[2] * b[i];
        float pg = q[3] * r[i] + q[4] * g[i] + q[5] * b[i];
        float pb = q[6] * r[i] + q[7] * g[i] + q[8] * b[i];
        float top = pr > pg ? pr : pg;
        top = top > pb ? top : pb;
        /* above the knee: m' / m = (k (1 + u bend) + u) / ((1 + u bend) m), at most 1 / m */
        float high = top > knee ? top : 1; /* no division by 0 in lanes the select drops */
        float u = high - knee, d = 1 + u * bend;
        float f = (knee * d + u) / (d * high), ceiling = 1 / high;
        f = f < ceiling ? f : ceiling;
        scale[i] = top > knee ? f : 1;
        r[i] = pr, g[i] = pg, b[i] = pb;
    }
}

HDR_CLONES static void to_sdr_chunk(const sy__hdr_map *m, const float *restrict signal, int n, uint8_t *restrict out) {
    float r[CHUNK], g[CHUNK], b[CHUNK], scale[CHUNK];
    tone_chunk(m, signal, n, r, g, b, scale);
    for (int i = 0; i < n; i++) {
        out[3 * i] = (uint8_t)(lerp_table(srgb_encode, r[i] * scale[i]) * 255.0f + 0.5f);
        out[3 * i + 1] = (uint8_t)(lerp_table(srgb_encode, g[i] * scale[i]) * 255.0f + 0.5f);
        out[3 * i + 2] = (uint8_t)(lerp_table(srgb_encode, b[i] * scale[i]) * 255.0f + 0.5f);
    }
}

void sy__hdr_to_sdr(const sy__hdr_map *m, const float *signal, size_t n, uint8_t *out) {
    for (size_t i = 0; i < n; i += CHUNK) {
        int count = (int)(n - i < CHUNK ? n - i : CHUNK);
        to_sdr_chunk(m, signal + 3 * i, count, out + 3 * i);
    }
}

void sy__hdr_gain(const sy__hdr_map *m, const float *signal, size_t n, float *gain) {
    float r[CHUNK], g[CHUNK], b[CHUNK];
    for (size_t i = 0; i < n; i += CHUNK) {
        int count = (int)(n - i < CHUNK ? n - i : CHUNK);
        tone_chunk(m, signal + 3 * i, count, r, g, b, gain + i);
        for (int k = 0; k < count; k++) gain[i + (size_t)k] = 1 / gain[i + (size_t)k];
    }
}

double sy__hdr_headroom(uint16_t peak) { return relative_peak(SY_CICP_TRANSFER_PQ, peak); }
