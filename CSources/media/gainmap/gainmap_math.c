/* gainmap_math.c — applying a gain map (HDR reconstruction) per the two
 * formulas: Ultra HDR / ISO 21496-1 (log2 boost between GainMapMin and
 * GainMapMax, gamma, offsets; full display capacity) and Apple
 * (SDR x (1 + (headroom - 1) x g), g = inverse Rec.709 OETF of the code). */
#include <math.h>
#include <string.h>

#include "gainmap/sy_gainmap_internal.h"

/* Rec.709 inverse OETF (code 0..1 -> linear 0..1). */
static double rec709_inverse(double v) { return v < 0.081 ? v / 4.5 : pow((v + 0.099) / 1.099, 1 / 0.45); }

static int is_apple(const sy_gainmap_info *info) {
    return info->kind == SY_GAINMAP_APPLE_HEIC || info->kind == SY_GAINMAP_APPLE_JPEG;
}

uint8_t sy_gainmap_neutral_code(const sy_gainmap_info *info) {
    if (is_apple(info)) return 0;
    const sy_gainmap_params *p = &info->params;
    double span = p->max_log2[0] - p->min_log2[0];
    if (!(span > 0) || p->min_log2[0] >= 0) return 0;
    if (p->max_log2[0] <= 0) return 255;
    double r = (0 - p->min_log2[0]) / span; /* L = 0 */
    double v = pow(r, p->gamma[0]) * 255 + 0.5;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

void sy_gainmap_apply(const sy_gainmap_info *info, const float sdr[3], const uint8_t *code, float hdr[3]) {
    if (is_apple(info)) {
        double g = rec709_inverse(code[0] / 255.0), k = 1 + (info->apple_headroom - 1) * g;
        for (int c = 0; c < 3; c++) hdr[c] = (float)(sdr[c] * k);
        return;
    }
    const sy_gainmap_params *p = &info->params;
    for (int c = 0; c < 3; c++) {
        int m = info->map_channels == 3 ? c : 0, q = p->channels == 3 ? c : 0;
        double r = pow(code[m] / 255.0, 1 / p->gamma[q]);
        double l = p->min_log2[q] * (1 - r) + p->max_log2[q] * r;
        double w = p->base_is_hdr ? 0 : 1; /* full HDR display capacity */
        hdr[c] = (float)((sdr[c] + p->offset_sdr[q]) * exp2(l * w) - p->offset_hdr[q]);
    }
}

/* Rec.709 OETF (linear 0..1 -> code 0..1), the inverse of rec709_inverse. */
static double rec709_oetf(double l) { return l < 0.018 ? 4.5 * l : 1.099 * pow(l, 0.45) - 0.099; }

double sy_gainmap_log2_gain(const sy_gainmap_info *info, uint32_t channel, uint8_t code) {
    if (is_apple(info)) return log2(1 + (info->apple_headroom - 1) * rec709_inverse(code / 255.0));
    const sy_gainmap_params *p = &info->params;
    uint32_t q = p->channels == 3 && channel < 3 ? channel : 0;
    double r = pow(code / 255.0, 1 / p->gamma[q]);
    return p->min_log2[q] * (1 - r) + p->max_log2[q] * r;
}

uint8_t sy__gainmap_code_for_log2(const sy_gainmap_info *info, double log2_gain) {
    double v;
    if (is_apple(info)) {
        double g = info->apple_headroom > 1 ? (exp2(log2_gain) - 1) / (info->apple_headroom - 1) : 0;
        v = rec709_oetf(g < 0 ? 0 : g > 1 ? 1 : g);
    } else {
        const sy_gainmap_params *p = &info->params;
        double span = p->max_log2[0] - p->min_log2[0], r = span > 0 ? (log2_gain - p->min_log2[0]) / span : 0;
        v = pow(r < 0 ? 0 : r > 1 ? 1 : r, p->gamma[0]);
    }
    v = v * 255 + 0.5;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

static double srgb_decode(double v) { return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4); }

sy_status sy_gainmap_reconstruct(const sy_gainmap_info *info, const uint8_t *base, size_t base_stride, uint32_t width,
                                 uint32_t height, const sy_gainmap_image *map, float *out, sy_error *err) {
    if (!info || !base || !map || !map->pixels || !out || width == 0 || height == 0)
        return sy__fail(err, SY_E_USAGE, "sy_gainmap_reconstruct: missing argument");
    float lin[256];
    for (int i = 0; i < 256; i++) lin[i] = (float)srgb_decode(i / 255.0);
    sy_gainmap_info local = *info;
    local.map_channels = map->channels;
    const double sx = (double)map->width / width, sy = (double)map->height / height;
    for (uint32_t y = 0; y < height; y++) {
        double my = (y + 0.5) * sy - 0.5;
        if (my < 0) my = 0;
        uint32_t y0 = (uint32_t)my, y1 = y0 + 1 < map->height ? y0 + 1 : y0;
        double fy = my - y0;
        for (uint32_t x = 0; x < width; x++) {
            double mx = (x + 0.5) * sx - 0.5;
            if (mx < 0) mx = 0;
            uint32_t x0 = (uint32_t)mx, x1 = x0 + 1 < map->width ? x0 + 1 : x0;
            if (x0 >= map->width) x0 = x1 = map->width - 1;
            double fx = mx - x0;
            uint8_t code[3];
            for (uint32_t c = 0; c < map->channels; c++) {
                const uint8_t *r0 = map->pixels + (size_t)SY__MIN(y0, map->height - 1) * map->stride;
                const uint8_t *r1 = map->pixels + (size_t)SY__MIN(y1, map->height - 1) * map->stride;
                double v = (r0[x0 * map->channels + c] * (1 - fx) + r0[x1 * map->channels + c] * fx) * (1 - fy) +
                           (r1[x0 * map->channels + c] * (1 - fx) + r1[x1 * map->channels + c] * fx) * fy;
                code[c] = (uint8_t)(v + 0.5);
            }
            const uint8_t *px = base + (size_t)y * base_stride + (size_t)x * 3;
            float sdr[3] = {lin[px[0]], lin[px[1]], lin[px[2]]};
            sy_gainmap_apply(&local, sdr, code, out + ((size_t)y * width + x) * 3);
        }
    }
    return SY_OK;
}
