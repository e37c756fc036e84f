/* sy_rbsp.h — bit reader over one NAL unit's payload, for parameter-set
 * parsing (HEVC and H.264 SPS). Engine-private, header-only.
 *
 * Emulation-prevention bytes (00 00 03) are skipped on the fly, so nothing is
 * copied and an SPS of any length can be read. Reads past the end return 0
 * and set the sticky `bad` flag, so a parser can read a whole structure and
 * check once; exp-Golomb codes longer than 32 bits also set it. */
#ifndef SY_RBSP_H
#define SY_RBSP_H

#include <stddef.h>
#include <stdint.h>

typedef struct sy__rbsp {
    const uint8_t *p;
    size_t n;
    size_t byte;    /* index of the current byte */
    unsigned bit;   /* next bit in it, 0 = most significant */
    unsigned zeros; /* consecutive zero bytes just consumed (for 00 00 03) */
    int bad;        /* a read went past the end or a code was malformed */
} sy__rbsp;

/* Starts after `header` bytes of NAL header (2 for HEVC, 1 for H.264). */
static inline void sy__rbsp_init(sy__rbsp *r, const uint8_t *nal, size_t n, size_t header) {
    r->p = nal;
    r->n = n;
    r->byte = header;
    r->bit = 0;
    r->zeros = 0;
    r->bad = header > n;
}

static inline unsigned sy__rbsp_bit(sy__rbsp *r) {
    if (r->bad || r->byte >= r->n) {
        r->bad = 1;
        return 0;
    }
    unsigned b = (r->p[r->byte] >> (7 - r->bit)) & 1u;
    if (++r->bit == 8) {
        r->bit = 0;
        r->zeros = r->p[r->byte] == 0 ? r->zeros + 1 : 0;
        r->byte++;
        if (r->zeros >= 2 && r->byte < r->n && r->p[r->byte] == 3) { /* emulation prevention */
            r->byte++;
            r->zeros = 0;
        }
    }
    return b;
}

/* n <= 32 bits, most significant first. */
static inline uint32_t sy__rbsp_bits(sy__rbsp *r, unsigned n) {
    uint32_t v = 0;
    for (unsigned i = 0; i < n; i++) v = (v << 1) | sy__rbsp_bit(r);
    return v;
}

static inline void sy__rbsp_skip(sy__rbsp *r, unsigned n) {
    for (unsigned i = 0; i < n && !r->bad; i++) (void)sy__rbsp_bit(r);
}

/* ue(v), at most 32 bits of value. */
static inline uint32_t sy__rbsp_ue(sy__rbsp *r) {
    unsigned zeros = 0;
    while (!sy__rbsp_bit(r)) {
        if (r->bad || ++zeros > 31) {
            r->bad = 1;
            return 0;
        }
    }
    uint32_t rest = zeros ? sy__rbsp_bits(r, zeros) : 0;
    return (uint32_t)(((uint64_t)1 << zeros) - 1 + rest);
}

/* se(v) */
static inline int32_t sy__rbsp_se(sy__rbsp *r) {
    uint32_t k = sy__rbsp_ue(r);
    return (k & 1) ? (int32_t)((k + 1) / 2) : -(int32_t)(k / 2);
}

/* An SEI message's payload type or size: bytes summed while they are 0xFF
 * (H.265 7.3.5, H.264 7.3.2.3.1); bounded so a run of 0xFF cannot wrap. */
static inline uint32_t sy__rbsp_sei_number(sy__rbsp *r) {
    uint32_t v = 0, b;
    do {
        b = sy__rbsp_bits(r, 8);
        v += b;
    } while (b == 0xFF && !r->bad && v < (1u << 24));
    return v;
}

#endif
