/* colour.c — the adjustment sliders as colour transforms.
 *
 * exposure   linear light x 2^EV, clipped at white (an exact 1D table on
 *            16-bit encoded values, so +1 EV doubles linear values);
 * tone       on luminance, hue kept: the encoded luminance l = enc(Y) goes
 *            through one curve and linear RGB is scaled by Y'/Y:
 *              f(l) = l - 0.75 c sin(2 pi l) / (2 pi)        contrast c (S-curve,
 *                                                            slope 1 + 0.75c at mid-grey)
 *                     + 0.945 h l^2 (1 - l)                  highlights h (peak at l = 2/3)
 *                     + 0.945 s l (1 - l)^2                  shadows s (peak at l = 1/3)
 *            (each term alone keeps the curve monotone and fixes black and white);
 * colour     in linear light around the luminance Y (Rec. 709 weights):
 *              saturation s: chroma x (1 + s);
 *              vibrance v:   chroma x (1 + v (1 - S)), S = (max - min) / max,
 *                            so muted colours move most;
 *              warmth w, tint t: channel gains R 2^(0.3w + 0.1t), G 2^(-0.25t),
 *                            B 2^(-0.3w + 0.1t), normalized to keep grey's luminance.
 */
#include "render/sy_render_internal.h"

static const float luma[3] = {0.2126f, 0.7152f, 0.0722f};

void sy__adjust_prepare(const sy_adjustments *a, sy__adjust *out) {
    out->exposure_active = a->exposure != 0;
    out->exposure_gain = (float)exp2(a->exposure);
    out->tone_active = a->contrast != 0 || a->highlights != 0 || a->shadows != 0;
    out->colour_active = a->saturation != 0 || a->vibrance != 0 || a->warmth != 0 || a->tint != 0;
    out->contrast = (float)a->contrast;
    out->highlights = (float)a->highlights;
    out->shadows = (float)a->shadows;
    out->saturation = (float)a->saturation;
    out->vibrance = (float)a->vibrance;
    double g[3] = {exp2(0.3 * a->warmth + 0.1 * a->tint), exp2(-0.25 * a->tint), exp2(-0.3 * a->warmth + 0.1 * a->tint)};
    double y = luma[0] * g[0] + luma[1] * g[1] + luma[2] * g[2];
    for (int c = 0; c < 3; c++) out->wb[c] = (float)(g[c] / y);
}

static float clamp01(float v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

static float tone_curve(const sy__adjust *a, float l) {
    const float two_pi = 6.28318530718f;
    float f = l;
    if (a->contrast != 0) f -= 0.75f * a->contrast * sinf(two_pi * l) / two_pi;
    f += 0.945f * a->highlights * l * l * (1 - l);
    f += 0.945f * a->shadows * l * (1 - l) * (1 - l);
    return clamp01(f);
}

/* Scales the chroma of linear `v` around luminance `y` by k. */
static void chroma_scale(float v[3], float y, float k) {
    for (int c = 0; c < 3; c++) v[c] = y + (v[c] - y) * k;
}

void sy__adjust_apply(const sy__adjust *a, const sy__transfer *tf, const float in[3], float out[3]) {
    float v[3];
    for (int c = 0; c < 3; c++) v[c] = sy__tf_lerp(tf->decode, in[c]);
    if (a->tone_active) {
        float y = luma[0] * v[0] + luma[1] * v[1] + luma[2] * v[2];
        float y2 = sy__tf_lerp(tf->decode, tone_curve(a, sy__tf_lerp(tf->encode, y)));
        if (y > 1e-7f) {
            float k = y2 / y;
            for (int c = 0; c < 3; c++) v[c] = clamp01(v[c] * k);
        } else {
            v[0] = v[1] = v[2] = y2;
        }
    }
    if (a->colour_active) {
        float y = luma[0] * v[0] + luma[1] * v[1] + luma[2] * v[2];
        if (a->saturation != 0) chroma_scale(v, y, 1 + a->saturation);
        if (a->vibrance != 0) {
            float mx = fmaxf(v[0], fmaxf(v[1], v[2])), mn = fminf(v[0], fminf(v[1], v[2]));
            float sat = mx > 1e-7f ? clamp01((mx - mn) / mx) : 0;
            chroma_scale(v, y, 1 + a->vibrance * (1 - sat));
        }
        for (int c = 0; c < 3; c++) v[c] = clamp01(v[c] * a->wb[c]);
    }
    for (int c = 0; c < 3; c++) out[c] = sy__tf_lerp(tf->encode, clamp01(v[c]));
}

void sy__exposure_table(const sy__adjust *a, const sy__transfer *tf, uint16_t *table) {
    for (uint32_t i = 0; i < 65536; i++) {
        float lin = sy__tf_lerp(tf->decode, i / 65535.0f) * a->exposure_gain;
        float e = sy__tf_lerp(tf->encode, lin > 1 ? 1 : lin);
        table[i] = (uint16_t)(e * 65535.0f + 0.5f);
    }
}
