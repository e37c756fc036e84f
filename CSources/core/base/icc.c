/* icc.c — the colorants of an ICC profile matched against the primaries
 * HEIF and video files name by code point (sy_icc.h). Only the header's
 * colour space and the tag table are read (ICC.1:2022 §7.2, §7.3; XYZType, curveType and
 * parametricCurveType in §10). */
#include <math.h>
#include <string.h>

#include "base/sy_icc.h"

#define ICC_HEADER 128u
#define MAX_TAGS 256u

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }

static double s15(const uint8_t *p) { return (int32_t)be32(p) / 65536.0; }

/* The tag `sig`'s data, at least `min` bytes and inside the profile; NULL otherwise. */
static const uint8_t *tag(const uint8_t *icc, size_t len, const char sig[4], uint32_t min, uint32_t *size) {
    if (!icc || len < ICC_HEADER + 4 || memcmp(icc + 16, "RGB ", 4) != 0) return NULL;
    uint32_t count = be32(icc + ICC_HEADER);
    if (count > MAX_TAGS || (uint64_t)ICC_HEADER + 4 + 12ull * count > len) return NULL;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = icc + ICC_HEADER + 4 + 12 * i;
        if (memcmp(e, sig, 4) != 0) continue;
        uint64_t off = be32(e + 4);
        *size = be32(e + 8);
        if (*size < min || off + *size > len) return NULL;
        return icc + off;
    }
    return NULL;
}

/* One XYZType tag's first XYZ number; 1 if read. */
static int colorant(const uint8_t *icc, size_t len, const char sig[4], double xyz[3]) {
    uint32_t size;
    const uint8_t *t = tag(icc, len, sig, 20, &size);
    if (!t || memcmp(t, "XYZ ", 4) != 0) return 0;
    for (int c = 0; c < 3; c++) xyz[c] = s15(t + 8 + 4 * c);
    return 1;
}

static double srgb_eotf(double v) { return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4); }

/* 1 when the curve tag `sig` is the sRGB curve. */
static int srgb_curve(const uint8_t *icc, size_t len, const char sig[4]) {
    uint32_t size;
    const uint8_t *t = tag(icc, len, sig, 12, &size);
    if (!t) return 0;
    if (memcmp(t, "para", 4) == 0) { /* Y = (aX + b)^g for X >= d, else cX (type 3); type 4 adds offsets e, f */
        uint32_t type = be16(t + 8), params = type == 3 ? 5 : type == 4 ? 7 : 0;
        if (!params || size < 12 + 4 * params) return 0;
        static const double want[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
        for (uint32_t i = 0; i < 5; i++)
            if (fabs(s15(t + 12 + 4 * i) - want[i]) > 0.002) return 0;
        return type == 3 || (fabs(s15(t + 32)) < 0.002 && fabs(s15(t + 36)) < 0.002);
    }
    if (memcmp(t, "curv", 4) == 0) { /* a sampled table: follows the curve at a few points */
        uint32_t n = be32(t + 8);
        if (n < 16 || size < 12 + 2ull * n) return 0;
        for (uint32_t k = 1; k < 8; k++) {
            uint32_t i = n * k / 8;
            double x = (double)i / (n - 1), y = be16(t + 12 + 2 * i) / 65535.0;
            if (fabs(y - srgb_eotf(x)) > 0.005) return 0;
        }
        return 1;
    }
    return 0;
}

uint16_t sy__icc_transfer(const uint8_t *icc, size_t len) {
    return srgb_curve(icc, len, "rTRC") && srgb_curve(icc, len, "gTRC") && srgb_curve(icc, len, "bTRC") ? 13 : 0;
}

uint16_t sy__icc_primaries(const uint8_t *icc, size_t len) {
    /* D50-adapted colorants (Bradford) of each primary set with a D65 white. */
    static const struct {
        uint16_t code;
        double rgb[3][3];
    } known[] = {
        {1, {{0.4361, 0.2225, 0.0139}, {0.3851, 0.7169, 0.0971}, {0.1431, 0.0606, 0.7141}}},
        {12, {{0.5151, 0.2412, -0.0011}, {0.2920, 0.6922, 0.0419}, {0.1571, 0.0666, 0.7841}}},
        {9, {{0.6734, 0.2790, -0.0019}, {0.1656, 0.6753, 0.0299}, {0.1251, 0.0456, 0.7973}}},
    };
    double got[3][3];
    static const char sigs[3][4] = {{'r', 'X', 'Y', 'Z'}, {'g', 'X', 'Y', 'Z'}, {'b', 'X', 'Y', 'Z'}};
    for (int c = 0; c < 3; c++)
        if (!colorant(icc, len, sigs[c], got[c])) return 0;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        int match = 1;
        for (int c = 0; c < 3 && match; c++)
            for (int j = 0; j < 3 && match; j++) match = fabs(got[c][j] - known[k].rgb[c][j]) <= 0.005;
        if (match) return known[k].code;
    }
    return 0;
}

int sy__icc_is_cmyk(const uint8_t *icc, size_t len) {
    return icc && len >= 128 && memcmp(icc + 16, "CMYK", 4) == 0;
}

int sy__icc_is_gray(const uint8_t *icc, size_t len) {
    return icc && len >= 128 && memcmp(icc + 16, "GRAY", 4) == 0;
}
