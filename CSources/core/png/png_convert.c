/* png_convert.c — a PNG raw row into pixels for the row source
 * (png_reader.c): palette and low-depth gray through a lookup already
 * composited over white, 16-bit samples rounded to 8, alpha and tRNS
 * composited over white; an HDR PNG's row as signal values, or tone-mapped
 * to SDR Display P3 (base/sy_hdr_tone.h). */
#include <math.h>
#include <string.h>

#include "png/sy_png_source_state.h"

static inline uint8_t div255(uint32_t x) { return (uint8_t)((x + 128 + ((x + 128) >> 8)) >> 8); }

/* 8-bit colour c with alpha a over white. */
#define OVER_WHITE8(c, a) div255((uint32_t)(c) * (a) + 255u * (255u - (a)))
/* 16-bit colour c with 16-bit alpha a over white, rounded to 8 bits. */
#define OVER_WHITE16(c, a)                                                                               \
    ((uint8_t)((((uint64_t)((uint32_t)(c) * (a) + 65535u * (65535u - (a)))) * 255u + 2147418112u) /      \
               4294836225u))
/* 16-bit sample rounded to 8 bits. */
#define TO8(v) ((uint8_t)(((uint32_t)(v) * 255u + 32767u) / 65535u))

void sy__png_build_lut(png_source *s) {
    if (s->h.color_type == CT_PALETTE) {
        for (unsigned i = 0; i < 256; i++) {
            uint8_t *e = s->lut + 3 * i;
            if (i >= s->plte_count) { /* out-of-range index: black, as libpng's default */
                e[0] = e[1] = e[2] = 0;
                continue;
            }
            const uint8_t *p = s->plte + 3 * i;
            uint32_t a = s->has_trns ? s->alpha[i] : 255u;
            for (int c = 0; c < 3; c++) e[c] = OVER_WHITE8(p[c], a);
        }
    } else if (s->h.color_type == CT_GRAY && s->h.depth <= 8) {
        unsigned max = (1u << s->h.depth) - 1;
        for (unsigned v = 0; v < 256; v++) {
            uint8_t g = v <= max ? (uint8_t)(v * 255u / max) : 0;
            if (s->has_trns && v == s->trns[0]) g = 255;
            s->lut[3 * v] = s->lut[3 * v + 1] = s->lut[3 * v + 2] = g;
        }
    }
}

/* Sample `i` of a raw row at the image's bit depth. */
static inline unsigned raw_sample(const uint8_t *src, unsigned depth, size_t i) {
    if (depth == 16) return (unsigned)src[2 * i] << 8 | src[2 * i + 1];
    if (depth == 8) return src[i];
    unsigned per_byte = 8 / depth;
    return (src[i / per_byte] >> (8 - depth * (i % per_byte + 1))) & ((1u << depth) - 1);
}

/* One unfiltered raw row of an HDR PNG as signal values 0..1 (R, G, B per
 * pixel; narrow-range codes stretched to full range) and alpha 0..1. */
void sy__png_signal_row(const png_source *s, const uint8_t *src, uint32_t w) {
    const unsigned depth = s->h.depth, ct = s->h.color_type;
    const float max = (float)((1u << depth) - 1);
    float *rgb = s->signal, *alpha = s->signal_alpha;
    for (uint32_t i = 0; i < w; i++) {
        float a = 1, *px = rgb + 3 * (size_t)i;
        if (ct == CT_PALETTE) {
            unsigned v = raw_sample(src, depth, i);
            for (int c = 0; c < 3; c++) px[c] = v < s->plte_count ? s->plte[3 * v + c] / 255.0f : 0;
            if (s->has_trns) a = s->alpha[v] / 255.0f;
        } else {
            unsigned colours = ct == CT_RGB || ct == CT_RGBA ? 3 : 1, n = colours + (ct == CT_GRAY_ALPHA || ct == CT_RGBA);
            unsigned v[4];
            for (unsigned c = 0; c < n; c++) v[c] = raw_sample(src, depth, (size_t)i * n + c);
            for (int c = 0; c < 3; c++) px[c] = v[colours == 3 ? c : 0] / max;
            if (n > colours) a = v[colours] / max;
            else if (s->has_trns && v[0] == s->trns[0] && (colours == 1 || (v[1] == s->trns[1] && v[2] == s->trns[2])))
                a = 0;
        }
        if (!s->hdr.full_range) /* codes 16..235 (scaled to the depth) span the signal */
            for (int c = 0; c < 3; c++) {
                float x = (px[c] * 255.0f - 16.0f) / 219.0f;
                px[c] = x < 0 ? 0 : x > 1 ? 1 : x;
            }
        if (alpha) alpha[i] = a;
    }
}

/* An HDR row: its SDR Display P3 rendition, composited over white. */
static void convert_hdr_row(const png_source *s, const uint8_t *src, uint8_t *dst, uint32_t w) {
    sy__png_signal_row(s, src, w);
    sy__hdr_to_sdr(&s->hdr_map, s->signal, w, dst);
    if (!s->signal_alpha) return;
    for (uint32_t i = 0; i < w; i++) {
        uint32_t a = (uint32_t)lrintf(s->signal_alpha[i] * 255.0f);
        for (int c = 0; c < 3; c++) dst[3 * i + c] = OVER_WHITE8(dst[3 * i + c], a);
    }
}

/* Converts one unfiltered raw row of `w` pixels to RGB. */
void sy__png_convert_row(const png_source *s, const uint8_t *src, uint8_t *dst, uint32_t w) {
    if (s->signal) {
        convert_hdr_row(s, src, dst, w);
        return;
    }
    const uint8_t *lut = s->lut;
    const unsigned depth = s->h.depth;
    switch (s->h.color_type) {
    case CT_GRAY:
    case CT_PALETTE:
        if (depth == 8) {
            for (uint32_t i = 0; i < w; i++) {
                const uint8_t *e = lut + 3u * src[i];
                dst[3 * i] = e[0];
                dst[3 * i + 1] = e[1];
                dst[3 * i + 2] = e[2];
            }
        } else if (depth < 8) {
            const unsigned per_byte = 8 / depth, mask = (1u << depth) - 1;
            uint32_t i = 0;
            for (size_t byte = 0; i < w; byte++) {
                unsigned b = src[byte];
                for (unsigned k = 0; k < per_byte && i < w; k++, i++) {
                    unsigned v = (b >> (8 - depth * (k + 1))) & mask;
                    const uint8_t *e = lut + 3 * v;
                    dst[3 * i] = e[0];
                    dst[3 * i + 1] = e[1];
                    dst[3 * i + 2] = e[2];
                }
            }
        } else { /* 16-bit gray */
            const int trns = s->has_trns;
            const unsigned key = s->trns[0];
            for (uint32_t i = 0; i < w; i++) {
                unsigned v = ((unsigned)src[2 * i] << 8) | src[2 * i + 1];
                uint8_t g = (trns && v == key) ? 255 : TO8(v);
                dst[3 * i] = dst[3 * i + 1] = dst[3 * i + 2] = g;
            }
        }
        break;
    case CT_RGB:
        if (depth == 8) {
            memcpy(dst, src, (size_t)w * 3);
            if (s->has_trns) {
                for (uint32_t i = 0; i < w; i++) {
                    const uint8_t *p = src + 3 * i;
                    if (p[0] == s->trns[0] && p[1] == s->trns[1] && p[2] == s->trns[2])
                        dst[3 * i] = dst[3 * i + 1] = dst[3 * i + 2] = 255;
                }
            }
        } else {
            for (size_t i = 0; i < (size_t)w * 3; i++) {
                unsigned v = ((unsigned)src[2 * i] << 8) | src[2 * i + 1];
                dst[i] = TO8(v);
            }
            if (s->has_trns) {
                for (uint32_t i = 0; i < w; i++) {
                    const uint8_t *p = src + 6 * i;
                    if (((unsigned)p[0] << 8 | p[1]) == s->trns[0] && ((unsigned)p[2] << 8 | p[3]) == s->trns[1] &&
                        ((unsigned)p[4] << 8 | p[5]) == s->trns[2])
                        dst[3 * i] = dst[3 * i + 1] = dst[3 * i + 2] = 255;
                }
            }
        }
        break;
    case CT_GRAY_ALPHA:
        if (depth == 8) {
            for (uint32_t i = 0; i < w; i++) {
                uint32_t a = src[2 * i];
                uint8_t g = OVER_WHITE8(a, src[2 * i + 1]);
                dst[3 * i] = dst[3 * i + 1] = dst[3 * i + 2] = g;
            }
        } else {
            for (uint32_t i = 0; i < w; i++) {
                const uint8_t *p = src + 4 * i;
                uint32_t g = (uint32_t)p[0] << 8 | p[1], a = (uint32_t)p[2] << 8 | p[3];
                uint8_t o = OVER_WHITE16(g, a);
                dst[3 * i] = dst[3 * i + 1] = dst[3 * i + 2] = o;
            }
        }
        break;
    case CT_RGBA:
        if (depth == 8) {
            for (uint32_t i = 0; i < w; i++) {
                const uint8_t *p = src + 4 * i;
                uint32_t a = p[3];
                dst[3 * i] = OVER_WHITE8(p[0], a);
                dst[3 * i + 1] = OVER_WHITE8(p[1], a);
                dst[3 * i + 2] = OVER_WHITE8(p[2], a);
            }
        } else {
            for (uint32_t i = 0; i < w; i++) {
                const uint8_t *p = src + 8 * i;
                uint32_t a = (uint32_t)p[6] << 8 | p[7];
                for (int c = 0; c < 3; c++) {
                    uint32_t v = (uint32_t)p[2 * c] << 8 | p[2 * c + 1];
                    dst[3 * i + c] = OVER_WHITE16(v, a);
                }
            }
        }
        break;
    default: break;
    }
}
