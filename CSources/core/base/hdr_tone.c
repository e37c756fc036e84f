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
 * white: an HLG display's nominal peak, and what PQ clips are mastered to
 * when they carry no metadata we read):
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
#define PEAK 1000.0           /* cd/m^2 */
#define KNEE 0.7f

static float pq_linear[STEPS + 2];  /* PQ signal -> display light / reference white */
static float hlg_linear[STEPS + 2]; /* HLG signal -> scene light 0..1 */
static float srgb_encode[STEPS + 2]; /* linear 0..1 -> sRGB signal 0..1 */
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
    }
    /* the spare entry keeps the lerp in bounds at 1.0 */
    pq_linear[STEPS + 1] = pq_linear[STEPS];
    hlg_linear[STEPS + 1] = hlg_linear[STEPS];
    srgb_encode[STEPS + 1] = srgb_encode[STEPS];
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

int sy__hdr_map_init(sy__hdr_map *m, uint16_t primaries, uint16_t transfer) {
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
    double peak = PEAK / REFERENCE_WHITE;
    m->knee = KNEE;
    m->bend = (float)(1 / (1 - (double)KNEE) - 1 / (peak - KNEE));
    return 1;
}

void sy__hdr_to_sdr(const sy__hdr_map *m, const float *signal, size_t n, uint8_t *out) {
    const float hlg_gain = (float)(PEAK / REFERENCE_WHITE);
    const float *g = m->gamut;
    for (size_t i = 0; i < n; i++, signal += 3, out += 3) {
        float x[3];
        for (int c = 0; c < 3; c++) x[c] = lerp_table(m->to_linear, signal[c]);
        if (m->transfer == SY_CICP_TRANSFER_HLG) { /* the OOTF: scene light -> display light */
            float ys = m->weight[0] * x[0] + m->weight[1] * x[1] + m->weight[2] * x[2];
            float gain = ys > 0 ? hlg_gain * powf(ys, 0.2f) : 0;
            for (int c = 0; c < 3; c++) x[c] *= gain;
        }
        float p[3];
        for (int c = 0; c < 3; c++) p[c] = g[3 * c] * x[0] + g[3 * c + 1] * x[1] + g[3 * c + 2] * x[2];
        float top = p[0] > p[1] ? p[0] : p[1];
        top = top > p[2] ? top : p[2];
        if (top > m->knee) {
            float u = top - m->knee, mapped = m->knee + u / (1 + u * m->bend);
            float scale = (mapped < 1 ? mapped : 1) / top;
            for (int c = 0; c < 3; c++) p[c] *= scale;
        }
        for (int c = 0; c < 3; c++) out[c] = (uint8_t)(lerp_table(srgb_encode, p[c]) * 255.0f + 0.5f);
    }
}
