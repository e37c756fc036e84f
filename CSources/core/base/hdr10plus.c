/* hdr10plus.c — see sy_hdr10plus.h. */
#include <string.h>

#include "base/sy_bits.h"
#include "base/sy_hdr10plus.h"
#include "base/sy_nal.h"
#include "base/sy_rbsp.h"

enum { SEI_USER_DATA_REGISTERED_T35 = 4 };

static uint32_t get(sy__bits *b, unsigned count) { return sy__bits_read(b, count); }
static void skip(sy__bits *b, size_t count) { sy__bits_skip(b, count); }

/* A rows x columns table of 4-bit peak luminances, if its flag is set. */
static void skip_peak_table(sy__bits *b) {
    if (!get(b, 1)) return;
    uint32_t rows = get(b, 5), cols = get(b, 5);
    skip(b, (size_t)rows * cols * 4);
}

int sy__hdr10plus_parse(const uint8_t *payload, size_t n, sy__hdr10plus *out) {
    sy__bits b = {payload, n, 0, 0};
    sy__hdr10plus m;
    memset(&m, 0, sizeof m);
    if (get(&b, 8) != 0xB5 || get(&b, 16) != 0x003C || get(&b, 16) != 0x0001 || get(&b, 8) != 4) return 0;
    m.application_version = (uint8_t)get(&b, 8);
    m.windows = (uint8_t)get(&b, 2);
    if (b.bad || m.application_version > 1 || m.windows == 0) return 0;
    for (unsigned w = 1; w < m.windows; w++) skip(&b, 16 * 6 + 8 + 16 * 3 + 1); /* corners, ellipse, overlap */
    m.targeted_max_luminance = get(&b, 27);
    skip_peak_table(&b);
    for (unsigned w = 0; w < m.windows; w++) {
        uint32_t maxscl[3], average;
        for (int c = 0; c < 3; c++) maxscl[c] = get(&b, 17);
        average = get(&b, 17);
        uint8_t percentiles = (uint8_t)get(&b, 4);
        skip(&b, (size_t)percentiles * (7 + 17));
        uint16_t bright = (uint16_t)get(&b, 10);
        if (w == 0) {
            memcpy(m.maxscl, maxscl, sizeof maxscl);
            m.average_maxrgb = average;
            m.percentiles = percentiles;
            m.fraction_bright_pixels = bright;
        }
    }
    skip_peak_table(&b); /* the mastering display's actual peak luminance */
    for (unsigned w = 0; w < m.windows; w++) {
        if (get(&b, 1)) {
            uint16_t x = (uint16_t)get(&b, 12), y = (uint16_t)get(&b, 12);
            uint8_t anchors = (uint8_t)get(&b, 4);
            skip(&b, (size_t)anchors * 10);
            if (w == 0) m.tone_mapping = 1, m.knee_x = x, m.knee_y = y, m.anchors = anchors;
        }
        if (get(&b, 1)) skip(&b, 6); /* colour saturation weight */
    }
    if (b.bad) return 0;
    if (out) *out = m;
    return 1;
}

/* The first HDR10+ message among one SEI NAL unit's messages, into out. */
static size_t from_sei(const uint8_t *nal, size_t n, size_t header, uint8_t *out, size_t cap) {
    sy__rbsp r;
    sy__rbsp_init(&r, nal, n, header);
    while (!r.bad && r.byte + 1 < r.n) { /* messages until the rbsp trailing bits */
        uint32_t type = sy__rbsp_sei_number(&r), size = sy__rbsp_sei_number(&r);
        if (r.bad || size > r.n - r.byte) return 0;
        if (type == SEI_USER_DATA_REGISTERED_T35 && size <= cap && size <= SY__HDR10PLUS_MAX) {
            for (uint32_t i = 0; i < size; i++) out[i] = (uint8_t)sy__rbsp_bits(&r, 8);
            if (!r.bad && sy__hdr10plus_parse(out, size, NULL)) return size;
        } else {
            for (uint32_t i = 0; i < size && !r.bad; i++) (void)sy__rbsp_bits(&r, 8);
        }
    }
    return 0;
}

size_t sy__hdr10plus_from_sample(const uint8_t *data, size_t len, uint32_t length_size, int hevc, uint8_t *out,
                                 size_t cap) {
    if (length_size < 1 || length_size > 4 || !out) return 0;
    const uint8_t *nal;
    uint32_t n;
    for (size_t pos = 0; sy__nal_next(data, len, length_size, &pos, &nal, &n);) {
        size_t header = sy__nal_sei_header(nal, n, hevc);
        size_t got = header ? from_sei(nal, n, header, out, cap) : 0;
        if (got) return got;
    }
    return 0;
}
