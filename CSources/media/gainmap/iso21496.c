/* iso21496.c — ISO 21496-1 gain-map metadata, the binary form shared by the
 * JPEG APP2 block ("urn:iso:std:iso:ts:21496:-1\0" + payload) and the HEIF
 * 'tmap' item (u8 version 0 + payload). Big-endian:
 *   u16 minimum_version, u16 writer_version, then (unless the payload stops
 *   there: the primary's "an ISO gain map follows" block)
 *   u8 flags (0x80 multichannel, 0x40 use base colour space, 0x08 common
 *   denominator, 0x04 backward direction), u32 N/D base and alternate
 *   headroom (log2), per channel s32/u32 gain min, gain max (log2), u32/u32
 *   gamma, s32/u32 base offset, alternate offset; with the common-denominator
 *   flag one u32 D first and only numerators after it.
 * The engine's numbers are sy_gainmap_params (hdrgm names): capacity min/max
 * are the SDR/HDR headrooms, offset_sdr/offset_hdr the base/alternate offsets
 * (swapped with the headrooms when the base is the HDR rendition). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gainmap/sy_gainmap_internal.h"

#define FLAG_MULTICHANNEL 0x80u
#define FLAG_BASE_COLOUR 0x40u
#define FLAG_COMMON_DENOMINATOR 0x08u
#define FLAG_BACKWARD 0x04u

typedef struct reader {
    const uint8_t *p;
    size_t len, at;
    int short_read;
} reader;

static uint32_t take_u32(reader *r) {
    if (r->at > r->len || r->len - r->at < 4) {
        r->short_read = 1;
        return 0;
    }
    const uint8_t *b = r->p + r->at;
    r->at += 4;
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* One fraction; `is_signed` reads the numerator as s32. d == 0 marks it invalid. */
static double take_fraction(reader *r, int is_signed, uint32_t common_d, int *bad) {
    uint32_t n = take_u32(r);
    uint32_t d = common_d ? common_d : take_u32(r);
    if (d == 0) {
        *bad = 1;
        return 0;
    }
    double num = is_signed ? (double)(int32_t)n : (double)n;
    return num / d;
}

int sy__iso21496_parse(const uint8_t *p, size_t len, sy_gainmap_params *out, uint8_t *flags_out, char *why,
                       size_t why_len) {
    memset(out, 0, sizeof *out);
    if (flags_out) *flags_out = 0;
    if (!p || len < 4) return snprintf(why, why_len, "ISO 21496-1 metadata of %zu bytes is too short", len), -1;
    uint16_t minimum = (uint16_t)(p[0] << 8 | p[1]);
    if (minimum != 0) return snprintf(why, why_len, "ISO 21496-1 minimum_version %u is not 0", minimum), -1;
    if (len == 4) return 0; /* version only: the primary's signal */
    uint8_t flags = p[4];
    reader r = {p, len, 5, 0};
    int bad = 0;
    uint32_t common_d = 0;
    if (flags & FLAG_COMMON_DENOMINATOR) {
        common_d = take_u32(&r);
        if (common_d == 0) bad = 1;
    }
    double base_headroom = take_fraction(&r, 0, common_d, &bad);
    double alternate_headroom = take_fraction(&r, 0, common_d, &bad);
    uint32_t channels = flags & FLAG_MULTICHANNEL ? 3 : 1;
    double v[5][3];
    for (uint32_t c = 0; c < channels; c++)
        for (int k = 0; k < 5; k++) v[k][c] = take_fraction(&r, k != 2, common_d, &bad);
    if (r.short_read) return snprintf(why, why_len, "ISO 21496-1 metadata cut short (%zu bytes)", len), -1;
    if (bad) return snprintf(why, why_len, "ISO 21496-1 fraction with a zero denominator"), -1;
    for (uint32_t c = channels; c < 3; c++)
        for (int k = 0; k < 5; k++) v[k][c] = v[k][0];
    int backward = (flags & FLAG_BACKWARD) || base_headroom > alternate_headroom;
    out->channels = channels;
    for (int c = 0; c < 3; c++) {
        out->min_log2[c] = v[0][c], out->max_log2[c] = v[1][c], out->gamma[c] = v[2][c];
        out->offset_sdr[c] = backward ? v[4][c] : v[3][c];
        out->offset_hdr[c] = backward ? v[3][c] : v[4][c];
    }
    out->base_is_hdr = (uint8_t)backward;
    out->capacity_min = backward ? alternate_headroom : base_headroom;
    out->capacity_max = backward ? base_headroom : alternate_headroom;
    if (flags_out) *flags_out = flags;
    return sy__gainmap_params_check(out, "ISO 21496-1", why, why_len) < 0 ? -1 : 1;
}

static size_t put_u32(uint8_t *out, size_t at, uint32_t v) {
    out[at] = (uint8_t)(v >> 24), out[at + 1] = (uint8_t)(v >> 16), out[at + 2] = (uint8_t)(v >> 8);
    out[at + 3] = (uint8_t)v;
    return at + 4;
}

/* v as n / 2^k with the largest k <= 30 whose numerator fits (s32 or u32):
 * about 1e-9 for values under 1, never coarser than the range checks need. */
static size_t put_fraction(uint8_t *out, size_t at, double v, int is_signed) {
    double limit = is_signed ? 2147483647.0 : 4294967295.0;
    if (!is_signed && v < 0) v = 0;
    uint32_t d = 1u << 30;
    while (d > 1 && fabs(v) * d > limit) d >>= 1;
    double n = nearbyint(v * d);
    if (n > limit) n = limit;
    if (n < -limit) n = -limit;
    at = put_u32(out, at, is_signed ? (uint32_t)(int32_t)n : (uint32_t)n);
    return put_u32(out, at, d);
}

size_t sy__iso21496_build(const sy_gainmap_params *p, uint8_t out[SY__ISO21496_MAX_LEN]) {
    size_t at = 0;
    memset(out, 0, 4); /* minimum_version 0, writer_version 0 */
    at = 4;
    uint32_t channels = p->channels == 3 ? 3 : 1;
    /* The map is applied in the base image's colour space, and no other is
     * written (a tmap colr, a map ICC): say so, as iPhones do (flag 0 would
     * point at an alternate colour space the file does not have). */
    out[at++] = (uint8_t)((channels == 3 ? FLAG_MULTICHANNEL : 0) | FLAG_BASE_COLOUR);
    double base = p->base_is_hdr ? p->capacity_max : p->capacity_min;
    double alternate = p->base_is_hdr ? p->capacity_min : p->capacity_max;
    at = put_fraction(out, at, base, 0);
    at = put_fraction(out, at, alternate, 0);
    for (uint32_t c = 0; c < channels; c++) {
        at = put_fraction(out, at, p->min_log2[c], 1);
        at = put_fraction(out, at, p->max_log2[c], 1);
        at = put_fraction(out, at, p->gamma[c], 0);
        at = put_fraction(out, at, p->base_is_hdr ? p->offset_hdr[c] : p->offset_sdr[c], 1);
        at = put_fraction(out, at, p->base_is_hdr ? p->offset_sdr[c] : p->offset_hdr[c], 1);
    }
    return at;
}

/* ---- the Apple map read as an ISO map, and back ---- */

/* Apple: ratio = 1 + (H - 1) * rec709_inverse(code); ISO with min 0, offsets
 * 0: ratio = 2^(log2 H * code^(1/gamma)). The shared pixels cannot mean
 * exactly the same to both; the gamma is the least-squares fit in stops. */
static double apple_stops(double code, double headroom) {
    double g = code < 0.081 ? code / 4.5 : pow((code + 0.099) / 1.099, 1 / 0.45);
    return log2(1 + (headroom - 1) * g);
}

static double fit_error(double gamma, double headroom) {
    double lh = log2(headroom), e = 0;
    for (int v = 1; v < 256; v++) {
        double d = lh * pow(v / 255.0, 1 / gamma) - apple_stops(v / 255.0, headroom);
        e += d * d;
    }
    return e;
}

void sy__iso21496_from_apple(double headroom, sy_gainmap_params *out) {
    memset(out, 0, sizeof *out);
    if (!(headroom > 1.0 + 1.0 / 64)) headroom = 1.0 + 1.0 / 64; /* a map that applies no gain still needs Max > Min */
    double lo = 0.2, hi = 5; /* golden-section search: the error is unimodal in gamma */
    const double k = 0.6180339887498949;
    for (int i = 0; i < 60; i++) {
        double a = hi - k * (hi - lo), b = lo + k * (hi - lo);
        if (fit_error(a, headroom) < fit_error(b, headroom)) hi = b;
        else lo = a;
    }
    out->channels = 1;
    for (int c = 0; c < 3; c++) out->max_log2[c] = log2(headroom), out->gamma[c] = (lo + hi) / 2;
    out->capacity_max = log2(headroom);
}

double sy__iso21496_apple_headroom(const sy_gainmap_params *p) {
    double stops = p->max_log2[0];
    for (uint32_t c = 1; c < (p->channels == 3 ? 3u : 1u); c++) stops = fmax(stops, p->max_log2[c]);
    return stops > 0 ? exp2(stops) : 1;
}

/* Largest difference in stops, over the 256 codes, between Apple's gain for
 * `headroom` and the ISO numbers' (channel 0; offsets left out, as in
 * sy_gainmap_log2_gain). */
static double apple_mismatch(const sy_gainmap_params *p, double headroom) {
    double worst = 0;
    for (int v = 0; v < 256; v++) {
        double r = pow(v / 255.0, 1 / p->gamma[0]);
        double l = p->min_log2[0] * (1 - r) + p->max_log2[0] * r;
        worst = fmax(worst, fabs(l - apple_stops(v / 255.0, headroom)));
    }
    return worst;
}

int sy__iso21496_contradicts_apple(const sy_gainmap_params *iso, double headroom) {
    if (iso->base_is_hdr || iso->channels == 3 || !(iso->gamma[0] > 0)) return 1; /* Apple cannot say these */
    if (!(headroom >= 1)) return 1;
    sy_gainmap_params fit;
    sy__iso21496_from_apple(headroom, &fit);
    /* Apple's own 'tmap' numbers (iPhone 15 Plus: 0.093 stops off its
     * headroom's curve at worst, our fit 0.08 there) stay within a tenth of
     * a stop of the best gamma fit; a description made up from GainMapMax
     * alone misses by far more (GainMapMin -1: 1 stop everywhere). */
    return apple_mismatch(iso, headroom) > apple_mismatch(&fit, headroom) + 0.1;
}
