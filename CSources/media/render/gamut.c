/* gamut.c — a change of primaries as a 3x3 on linear RGB: on the
 * downscale's linear sums (resize.c), or on 16-bit encoded rows where the
 * renderer never leaves the encoded values (upscaling, turns at full size). */
#pragma STDC FP_CONTRACT OFF
#include "render/sy_render_internal.h"

void sy__gamut_linear(const float m[9], float *rgb, size_t pixels) {
    for (size_t i = 0; i < pixels; i++, rgb += 3) {
        float r = rgb[0], g = rgb[1], b = rgb[2];
        rgb[0] = m[0] * r + m[1] * g + m[2] * b;
        rgb[1] = m[3] * r + m[4] * g + m[5] * b;
        rgb[2] = m[6] * r + m[7] * g + m[8] * b;
    }
}

void sy__gamut_row16(const float m[9], const sy__transfer *tf, uint16_t *row, size_t pixels) {
    for (size_t i = 0; i < pixels; i++, row += 3) {
        float v[3];
        for (int c = 0; c < 3; c++) v[c] = sy__tf_lerp(tf->decode, row[c] * (1.0f / 65535.0f));
        sy__gamut_linear(m, v, 1);
        for (int c = 0; c < 3; c++) row[c] = (uint16_t)(sy__tf_lerp(tf->encode, v[c]) * 65535.0f + 0.5f);
    }
}
