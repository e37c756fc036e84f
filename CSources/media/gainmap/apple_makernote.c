/* apple_makernote.c — HDRHeadroom (tag 33) and HDRGain (tag 48) from the Apple
 * MakerNote inside Exif: "Apple iOS\0" + u16 1 + "MM", then a big-endian IFD
 * whose offsets count from the MakerNote start. Both are SRATIONAL. */
#include <math.h>
#include <string.h>

#include "gainmap/sy_gainmap_internal.h"

typedef struct tiff {
    const uint8_t *p;
    size_t len;
    int le;
} tiff;

static uint32_t rd16(const tiff *t, size_t at) {
    if (at > t->len || t->len - at < 2) return 0;
    const uint8_t *b = t->p + at;
    return t->le ? (uint32_t)b[0] | (uint32_t)b[1] << 8 : (uint32_t)b[0] << 8 | b[1];
}
static uint32_t rd32(const tiff *t, size_t at) {
    if (at > t->len || t->len - at < 4) return 0;
    const uint8_t *b = t->p + at;
    return t->le ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24
                 : (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

/* Entry offset of `tag` in the IFD at `ifd`, or 0. */
static size_t find(const tiff *t, size_t ifd, uint32_t tag) {
    if (ifd == 0 || ifd >= t->len) return 0;
    uint32_t n = rd16(t, ifd);
    for (uint32_t i = 0; i < n && i < 1024; i++) {
        size_t e = ifd + 2 + (size_t)i * 12;
        if (e + 12 > t->len) return 0;
        if (rd16(t, e) == tag) return e;
    }
    return 0;
}

static int srational(const tiff *t, size_t e, double *out) {
    if (!e || rd16(t, e + 2) != 10 || rd32(t, e + 4) != 1) return 0;
    size_t at = rd32(t, e + 8);
    int32_t n = (int32_t)rd32(t, at), d = (int32_t)rd32(t, at + 4);
    if (at + 8 > t->len || d == 0) return 0;
    *out = (double)n / d;
    return isfinite(*out);
}

int sy__apple_makernote_headroom(const uint8_t *p, size_t len, double *m33, double *m48) {
    if (!p || len < 8) return 0;
    tiff t = {p, len, 0};
    if (p[0] == 'I' && p[1] == 'I') t.le = 1;
    else if (!(p[0] == 'M' && p[1] == 'M')) return 0;
    size_t exif_ptr = find(&t, rd32(&t, 4), 0x8769);
    if (!exif_ptr) return 0;
    size_t mn = find(&t, rd32(&t, exif_ptr + 8), 0x927C);
    if (!mn) return 0;
    uint32_t mn_len = rd32(&t, mn + 4), mn_at = rd32(&t, mn + 8);
    if (mn_at > len || len - mn_at < mn_len || mn_len < 16 || memcmp(p + mn_at, "Apple iOS\0", 10) != 0) return 0;
    tiff m = {p + mn_at, mn_len, 0};
    if (memcmp(m.p + 12, "MM", 2) != 0) return 0;
    return srational(&m, find(&m, 14, 33), m33) && srational(&m, find(&m, 14, 48), m48);
}

double sy__apple_headroom_from_makernote(double m33, double m48) {
    double stops;
    if (m33 < 1) stops = m48 <= 0.01 ? 1.8 - 20 * m48 : 1.601 - 0.101 * m48;
    else stops = m48 <= 0.01 ? 3.0 - 70 * m48 : 2.303 - 0.303 * m48;
    return exp2(stops > 0 ? stops : 0);
}
