/* analysis_plane.c — the size and the luma of the analysis plane, shared by
 * the still and the movie fingerprints. */
#include <math.h>

#include "organize/sy_analysis.h"

void sy__analysis_size(uint32_t w, uint32_t h, int ceil_size, uint32_t *aw, uint32_t *ah) {
    double scale = fmin(1.0, (double)SY_FINGERPRINT_ANALYSIS_EDGE / (w > h ? w : h));
    double (*fit)(double) = ceil_size ? ceil : round;
    *aw = (uint32_t)fmax(1.0, fit(w * scale));
    *ah = (uint32_t)fmax(1.0, fit(h * scale));
}

void sy__analysis_luma_row(const uint8_t *rgb, uint32_t w, uint8_t *luma) {
    for (uint32_t x = 0; x < w; x++) {
        const uint8_t *p = rgb + 3 * (size_t)x;
        luma[x] = (uint8_t)((19595 * p[0] + 38470 * p[1] + 7471 * p[2] + 32768) >> 16);
    }
}
