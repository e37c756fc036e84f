/* quality.c — the quality score of sy_fingerprint: sharpness (variance of
 * the 4-neighbour Laplacian) and exposure (clipping, distance of the mean
 * from mid-grey), measured on the analysis luma plane. */
#include "organize/sy_analysis.h"

#define SHARP_HALF 100.0 /* Laplacian variance scoring 0.5 */

void sy__quality_luma(const uint8_t *luma, uint32_t w, uint32_t h, sy_fingerprint *out) {
    uint64_t sum = 0, clipped = 0, n = (uint64_t)w * h;
    for (uint64_t i = 0; i < n; i++) {
        sum += luma[i];
        clipped += luma[i] <= 4 || luma[i] >= 251;
    }
    double s1 = 0, s2 = 0, m = 0;
    if (w >= 3 && h >= 3) {
        for (uint32_t y = 1; y + 1 < h; y++) {
            const uint8_t *r = luma + (size_t)y * w, *up = r - w, *down = r + w;
            for (uint32_t x = 1; x + 1 < w; x++) {
                double l = (double)r[x - 1] + r[x + 1] + up[x] + down[x] - 4.0 * r[x];
                s1 += l, s2 += l * l;
            }
        }
        m = (double)(w - 2) * (h - 2);
    }
    out->sharpness = m > 0 ? s2 / m - (s1 / m) * (s1 / m) : 0;
    out->clipped_fraction = n ? (double)clipped / n : 0;
    out->mean_luma = n ? (double)sum / n : 0;
    double off = (out->mean_luma - 128.0) / 128.0;
    out->quality = out->sharpness / (out->sharpness + SHARP_HALF) * (1.0 - out->clipped_fraction) *
                   (1.0 - 0.5 * off * off);
}
