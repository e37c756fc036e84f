/* mpf.c — the Multi-Picture Format index (CIPA DC-007) in JPEG APP2 "MPF\0":
 * a TIFF header, an index IFD with MPFVersion / NumberOfImages / MPEntry, and
 * 16 bytes per image (attribute, size, offset from the TIFF header, two
 * dependent-image entries). */
#include <string.h>

#include "gainmap/sy_gainmap_internal.h"

static uint32_t rd16(const uint8_t *p, int le) { return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 : (uint32_t)p[0] << 8 | p[1]; }
static uint32_t rd32(const uint8_t *p, int le) {
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
              : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

int sy__mpf_parse(const uint8_t *p, size_t len, sy__mpf_entry *entries, uint32_t max) {
    if (!p || len < 8) return -1;
    int le;
    if (p[0] == 'I' && p[1] == 'I') le = 1;
    else if (p[0] == 'M' && p[1] == 'M') le = 0;
    else return -1;
    if (rd16(p + 2, le) != 42) return -1;
    uint32_t ifd = rd32(p + 4, le);
    if (ifd > len || len - ifd < 2) return -1;
    uint32_t n = rd16(p + ifd, le), images = 0, mp_count = 0, mp_at = 0;
    if ((size_t)n * 12 > len - ifd - 2) return -1;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = p + ifd + 2 + (size_t)i * 12;
        uint32_t tag = rd16(e, le), type = rd16(e + 2, le), count = rd32(e + 4, le);
        if (tag == 0xB001 && type == 4 && count == 1) images = rd32(e + 8, le);
        if (tag == 0xB002 && type == 7) mp_count = count, mp_at = rd32(e + 8, le);
    }
    if (images == 0 || mp_count != images * 16 || mp_at > len || len - mp_at < mp_count) return -1;
    uint32_t k = images < max ? images : max;
    for (uint32_t i = 0; i < k; i++) {
        const uint8_t *e = p + mp_at + (size_t)i * 16;
        entries[i] = (sy__mpf_entry){rd32(e, le), rd32(e + 4, le), rd32(e + 8, le)};
    }
    return (int)k;
}

static uint8_t *put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v; return p + 2; }
static uint8_t *put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
    return p + 4;
}
static uint8_t *entry(uint8_t *p, uint32_t tag, uint32_t type, uint32_t count, uint32_t value) {
    return put32(put32(put16(put16(p, tag), type), count), value);
}

void sy__mpf_build(uint8_t out[SY__MPF_PAYLOAD_LEN], uint32_t primary_size, uint32_t map_size, uint32_t map_offset) {
    uint8_t *p = out;
    memcpy(p, "MPF\0", 4), p += 4;
    memcpy(p, "MM\0*", 4), p = put32(p + 4, 8);                /* big-endian TIFF header, IFD at 8 */
    p = put16(p, 3);
    memcpy(p, "\xB0\x00\x00\x07\x00\x00\x00\x04" "0100", 12), p += 12; /* MPFVersion "0100" */
    p = entry(p, 0xB001, 4, 1, 2);                             /* NumberOfImages */
    p = entry(p, 0xB002, 7, 32, 50);                           /* MPEntry: 2 x 16 bytes at 50 */
    p = put32(p, 0);                                           /* no attribute IFD */
    p = put32(put32(put32(p, 0x00030000u), primary_size), 0);  /* Baseline MP Primary, offset 0 */
    p = put16(put16(p, 0), 0);
    p = put32(put32(put32(p, 0), map_size), map_offset);       /* "Undefined": the gain map */
    put16(put16(p, 0), 0);
}
