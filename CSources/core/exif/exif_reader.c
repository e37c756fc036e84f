/* exif.c — bounded reader for the Exif Orientation tag (0x0112 in IFD0). */
#include "exif/sy_exif.h"

static uint32_t rd16(const uint8_t *p, int le) { return le ? p[0] | p[1] << 8 : p[0] << 8 | p[1]; }
static uint32_t rd32(const uint8_t *p, int le) {
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
              : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

uint8_t sy__exif_orientation(const uint8_t *tiff, size_t len) {
    if (!tiff || len < 8) return 1;
    int le;
    if (tiff[0] == 'I' && tiff[1] == 'I') le = 1;
    else if (tiff[0] == 'M' && tiff[1] == 'M') le = 0;
    else return 1;
    if (rd16(tiff + 2, le) != 42) return 1;
    uint32_t ifd = rd32(tiff + 4, le);
    if (ifd > len - 2) return 1;
    uint32_t entries = rd16(tiff + ifd, le);
    for (uint32_t i = 0; i < entries; i++) {
        size_t at = (size_t)ifd + 2 + (size_t)i * 12;
        if (at + 12 > len) return 1;
        const uint8_t *e = tiff + at;
        if (rd16(e, le) != 0x0112) continue;
        uint32_t type = rd16(e + 2, le), count = rd32(e + 4, le);
        if (type != 3 || count < 1) return 1; /* SHORT */
        uint32_t v = rd16(e + 8, le);
        return v >= 1 && v <= 8 ? (uint8_t)v : 1;
    }
    return 1;
}
