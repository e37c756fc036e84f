/* cicp_primaries.c — colour primaries code points as matrices: linear RGB
 * to CIE XYZ for a set of primaries, and from one set to another (a gamut
 * change, as a matrix/shaper ICC transform makes it). */
#include <math.h>
#include <string.h>

#include "base/sy_cicp.h"

/* x, y of R, G, B and the white point (ISO/IEC 23091-2 ColourPrimaries). */
static const double *chromaticities(uint16_t primaries) {
    static const struct {
        uint16_t id;
        double xy[8];
    } table[] = {
        {1, {0.640, 0.330, 0.300, 0.600, 0.150, 0.060, 0.3127, 0.3290}},  /* BT.709, sRGB */
        {4, {0.670, 0.330, 0.210, 0.710, 0.140, 0.080, 0.310, 0.316}},    /* BT.470 M */
        {5, {0.640, 0.330, 0.290, 0.600, 0.150, 0.060, 0.3127, 0.3290}},  /* BT.601 625 */
        {6, {0.630, 0.340, 0.310, 0.595, 0.155, 0.070, 0.3127, 0.3290}},  /* BT.601 525 */
        {7, {0.630, 0.340, 0.310, 0.595, 0.155, 0.070, 0.3127, 0.3290}},  /* SMPTE 240M */
        {8, {0.681, 0.319, 0.243, 0.692, 0.145, 0.049, 0.310, 0.316}},    /* generic film */
        {9, {0.708, 0.292, 0.170, 0.797, 0.131, 0.046, 0.3127, 0.3290}},  /* BT.2020 */
        {11, {0.680, 0.320, 0.265, 0.690, 0.150, 0.060, 0.314, 0.351}},   /* DCI-P3 */
        {12, {0.680, 0.320, 0.265, 0.690, 0.150, 0.060, 0.3127, 0.3290}}, /* Display P3 (P3-D65) */
        {22, {0.630, 0.340, 0.295, 0.605, 0.155, 0.077, 0.3127, 0.3290}}, /* EBU 3213 */
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].id == primaries) return table[i].xy;
    return NULL;
}

int sy__cicp_chromaticities(uint16_t primaries, double xy[8]) {
    const double *p = chromaticities(primaries);
    if (p) memcpy(xy, p, 8 * sizeof *xy);
    return p != NULL;
}

static double det3(const double m[9]) {
    return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
}

static int invert3(const double m[9], double out[9]) {
    double d = det3(m);
    if (fabs(d) < 1e-12) return 0;
    out[0] = (m[4] * m[8] - m[5] * m[7]) / d, out[1] = (m[2] * m[7] - m[1] * m[8]) / d;
    out[2] = (m[1] * m[5] - m[2] * m[4]) / d, out[3] = (m[5] * m[6] - m[3] * m[8]) / d;
    out[4] = (m[0] * m[8] - m[2] * m[6]) / d, out[5] = (m[2] * m[3] - m[0] * m[5]) / d;
    out[6] = (m[3] * m[7] - m[4] * m[6]) / d, out[7] = (m[1] * m[6] - m[0] * m[7]) / d;
    out[8] = (m[0] * m[4] - m[1] * m[3]) / d;
    return 1;
}

static void multiply3(const double a[9], const double b[9], double out[9]) {
    double t[9];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) t[3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
    memcpy(out, t, sizeof t);
}

static void white_xyz(const double *xy, double w[3]) {
    w[0] = xy[6] / xy[7], w[1] = 1.0, w[2] = (1.0 - xy[6] - xy[7]) / xy[7];
}

int sy__cicp_rgb_to_xyz(uint16_t primaries, double m[9]) {
    const double *p = chromaticities(primaries);
    if (!p) return 0;
    /* XYZ of each primary at Y = 1, each column scaled so R+G+B = the white. */
    double unscaled[9], inverse[9], w[3];
    for (int c = 0; c < 3; c++) {
        double x = p[2 * c], y = p[2 * c + 1];
        unscaled[c] = x / y, unscaled[3 + c] = 1.0, unscaled[6 + c] = (1.0 - x - y) / y;
    }
    white_xyz(p, w);
    if (!invert3(unscaled, inverse)) return 0;
    for (int c = 0; c < 3; c++) {
        double s = inverse[3 * c] * w[0] + inverse[3 * c + 1] * w[1] + inverse[3 * c + 2] * w[2];
        for (int r = 0; r < 3; r++) m[3 * r + c] = unscaled[3 * r + c] * s;
    }
    return 1;
}

/* Bradford chromatic adaptation from white `ws` to white `wd` (XYZ). */
static void bradford(const double ws[3], const double wd[3], double out[9]) {
    static const double b[9] = {0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296};
    double inverse[9], scale[9] = {0};
    invert3(b, inverse);
    for (int r = 0; r < 3; r++) {
        double s = b[3 * r] * ws[0] + b[3 * r + 1] * ws[1] + b[3 * r + 2] * ws[2];
        double d = b[3 * r] * wd[0] + b[3 * r + 1] * wd[1] + b[3 * r + 2] * wd[2];
        scale[4 * r] = d / s;
    }
    multiply3(inverse, scale, out);
    multiply3(out, b, out);
}

int sy__cicp_frame_gamut(uint16_t from, uint16_t to, float m[9]) {
    if (from == 0 || from == SY_CICP_UNSPECIFIED) from = SY_CICP_PRIMARIES_BT709;
    double d[9];
    if (from == to || !sy__cicp_gamut_matrix(from, to, d)) return 0;
    for (int k = 0; k < 9; k++) m[k] = (float)d[k];
    return 1;
}

int sy__cicp_gamut_matrix(uint16_t from, uint16_t to, double m[9]) {
    double src[9], dst[9], dst_inverse[9];
    if (!sy__cicp_rgb_to_xyz(from, src) || !sy__cicp_rgb_to_xyz(to, dst) || !invert3(dst, dst_inverse)) return 0;
    double ws[3], wd[3];
    white_xyz(chromaticities(from), ws);
    white_xyz(chromaticities(to), wd);
    if (fabs(ws[0] - wd[0]) > 1e-9 || fabs(ws[2] - wd[2]) > 1e-9) {
        double adapt[9];
        bradford(ws, wd, adapt);
        multiply3(adapt, src, src);
    }
    multiply3(dst_inverse, src, m);
    return 1;
}
