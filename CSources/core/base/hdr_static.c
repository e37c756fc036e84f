/* hdr_static.c — see sy_hdr_static.h. */
#include <stdio.h>
#include <string.h>

#include "base/sy_hdr_static.h"
#include "base/sy_fourcc.h"
#include "base/sy_nal.h"
#include "base/sy_rbsp.h"

enum { SEI_MASTERING_DISPLAY = 137, SEI_CONTENT_LIGHT_LEVEL = 144 };

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static void read_mastering(sy__rbsp *r, sy_hdr_static_metadata *m) {
    sy_hdr_static_metadata v = *m;
    for (int c = 0; c < 3; c++) {
        v.primaries_x[c] = (uint16_t)sy__rbsp_bits(r, 16);
        v.primaries_y[c] = (uint16_t)sy__rbsp_bits(r, 16);
    }
    v.white_x = (uint16_t)sy__rbsp_bits(r, 16);
    v.white_y = (uint16_t)sy__rbsp_bits(r, 16);
    v.max_luminance = sy__rbsp_bits(r, 32);
    v.min_luminance = sy__rbsp_bits(r, 32);
    if (r->bad) return;
    v.has_mastering = 1;
    *m = v;
}

static void read_light_level(sy__rbsp *r, sy_hdr_static_metadata *m) {
    uint16_t cll = (uint16_t)sy__rbsp_bits(r, 16), fall = (uint16_t)sy__rbsp_bits(r, 16);
    if (r->bad) return;
    m->max_cll = cll;
    m->max_fall = fall;
    m->has_light_level = 1;
}

int sy__hdr_static_from_sei(const uint8_t *nal, size_t n, size_t header, sy_hdr_static_metadata *m) {
    sy__rbsp r;
    sy__rbsp_init(&r, nal, n, header);
    int found = 0;
    /* messages until the rbsp trailing bits (the last byte) */
    while (!r.bad && r.byte + 1 < r.n) {
        uint32_t type = sy__rbsp_sei_number(&r), size = sy__rbsp_sei_number(&r);
        if (r.bad || size > r.n - r.byte) break;
        if (type == SEI_MASTERING_DISPLAY && size >= 24) {
            read_mastering(&r, m);
            found |= m->has_mastering;
            size -= 24;
        } else if (type == SEI_CONTENT_LIGHT_LEVEL && size >= 4) {
            read_light_level(&r, m);
            found |= m->has_light_level;
            size -= 4;
        }
        for (uint32_t i = 0; i < size && !r.bad; i++) (void)sy__rbsp_bits(&r, 8); /* the rest, or another message */
    }
    return found;
}

/* 0.16 fixed point chromaticity -> 0.00002 units */
static uint16_t chroma_16(uint32_t v) { return (uint16_t)((v * 50000ull + 32768) >> 16); }

int sy__hdr_static_from_box(uint32_t type, const uint8_t *p, size_t n, sy_hdr_static_metadata *m) {
    if (type == SY_FOURCC('m', 'd', 'c', 'v') && n >= 24) {
        for (int c = 0; c < 3; c++) {
            m->primaries_x[c] = (uint16_t)be16(p + 4 * c);
            m->primaries_y[c] = (uint16_t)be16(p + 4 * c + 2);
        }
        m->white_x = (uint16_t)be16(p + 12);
        m->white_y = (uint16_t)be16(p + 14);
        m->max_luminance = be32(p + 16);
        m->min_luminance = be32(p + 20);
        m->has_mastering = 1;
        return 1;
    }
    if (type == SY_FOURCC('c', 'l', 'l', 'i') && n >= 4) {
        m->max_cll = (uint16_t)be16(p);
        m->max_fall = (uint16_t)be16(p + 2);
        m->has_light_level = 1;
        return 1;
    }
    if (type == SY_FOURCC('S', 'm', 'D', 'm') && n >= 4 + 24) {
        p += 4; /* FullBox version and flags */
        static const int sei_index[3] = {2, 0, 1}; /* stored R, G, B; the SEI's order is G, B, R */
        for (int c = 0; c < 3; c++) {
            m->primaries_x[sei_index[c]] = chroma_16(be16(p + 4 * c));
            m->primaries_y[sei_index[c]] = chroma_16(be16(p + 4 * c + 2));
        }
        m->white_x = chroma_16(be16(p + 12));
        m->white_y = chroma_16(be16(p + 14));
        m->max_luminance = (uint32_t)((be32(p + 16) * 10000ull + 128) >> 8);    /* 24.8 cd/m² */
        m->min_luminance = (uint32_t)((be32(p + 20) * 10000ull + 8192) >> 14);  /* 18.14 cd/m² */
        m->has_mastering = 1;
        return 1;
    }
    if (type == SY_FOURCC('C', 'o', 'L', 'L') && n >= 4 + 4) {
        m->max_cll = (uint16_t)be16(p + 4);
        m->max_fall = (uint16_t)be16(p + 6);
        m->has_light_level = 1;
        return 1;
    }
    return 0;
}

void sy__hdr_static_from_sample(const uint8_t *data, size_t len, uint32_t length_size, int hevc,
                                sy_hdr_static_metadata *m) {
    if (length_size < 1 || length_size > 4) return;
    const uint8_t *nal;
    uint32_t n;
    for (size_t pos = 0; sy__nal_next(data, len, length_size, &pos, &nal, &n);) {
        size_t header = sy__nal_sei_header(nal, n, hevc);
        if (header) sy__hdr_static_from_sei(nal, n, header, m);
    }
}

void sy__hdr_static_merge(sy_hdr_static_metadata *m, const sy_hdr_static_metadata *from) {
    if (!m->has_mastering && from->has_mastering) {
        memcpy(m->primaries_x, from->primaries_x, sizeof m->primaries_x);
        memcpy(m->primaries_y, from->primaries_y, sizeof m->primaries_y);
        m->white_x = from->white_x;
        m->white_y = from->white_y;
        m->max_luminance = from->max_luminance;
        m->min_luminance = from->min_luminance;
        m->has_mastering = 1;
    }
    if (!m->has_light_level && from->has_light_level) {
        m->max_cll = from->max_cll;
        m->max_fall = from->max_fall;
        m->has_light_level = 1;
    }
}

void sy__hdr_static_master_display(const sy_hdr_static_metadata *m, char *out, size_t cap) {
    if (!cap) return;
    out[0] = 0;
    if (!m->has_mastering) return;
    snprintf(out, cap, "G(%u,%u)B(%u,%u)R(%u,%u)WP(%u,%u)L(%u,%u)", m->primaries_x[0], m->primaries_y[0],
             m->primaries_x[1], m->primaries_y[1], m->primaries_x[2], m->primaries_y[2], m->white_x, m->white_y,
             m->max_luminance, m->min_luminance);
}
