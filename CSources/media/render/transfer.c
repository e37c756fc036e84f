/* transfer.c — the sRGB transfer curves and their interpolated lookup tables.
 * Sources are treated as sRGB-encoded (Display P3 shares the curve). */
#include "render/sy_render_internal.h"

double sy__srgb_decode(double v) {
    if (v <= 0.0) return 0.0;
    if (v >= 1.0) return 1.0;
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

double sy__srgb_encode(double v) {
    if (v <= 0.0) return 0.0;
    if (v >= 1.0) return 1.0;
    return v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1.0 / 2.4) - 0.055;
}

void sy__transfer_init(sy__transfer *t) {
    for (int i = 0; i <= SY__TF_STEPS; i++) {
        double x = (double)i / SY__TF_STEPS;
        t->decode[i] = (float)sy__srgb_decode(x);
        t->encode[i] = (float)sy__srgb_encode(x);
    }
    /* The spare entry keeps the lerp in bounds for inputs rounding to 1. */
    t->decode[SY__TF_STEPS + 1] = t->decode[SY__TF_STEPS];
    t->encode[SY__TF_STEPS + 1] = t->encode[SY__TF_STEPS];
    for (int i = 0; i < 256; i++) t->lin8[i] = (float)sy__srgb_decode(i / 255.0);
}
