/* sy_bits.h — an MSB-first bit reader over a bounded buffer (engine-private),
 * for headers read before any codec sees them (HDR10+ SEI payloads, AV1
 * sequence headers). A read past the end gives 0 and sets the sticky `bad`
 * flag, so a parser reads on and checks once at the end. */
#ifndef SY_BITS_H
#define SY_BITS_H

#include <stddef.h>
#include <stdint.h>

typedef struct sy__bits {
    const uint8_t *p;
    size_t n, at; /* at: bit index */
    int bad;
} sy__bits;

static inline uint32_t sy__bits_read(sy__bits *b, unsigned count) {
    uint32_t v = 0;
    for (unsigned i = 0; i < count; i++) {
        if (b->at >= b->n * 8) {
            b->bad = 1;
            return 0;
        }
        v = v << 1 | ((b->p[b->at >> 3] >> (7 - (b->at & 7))) & 1u);
        b->at++;
    }
    return v;
}

static inline void sy__bits_skip(sy__bits *b, size_t count) {
    if (count > b->n * 8 - b->at) b->bad = 1, b->at = b->n * 8;
    else b->at += count;
}

#endif
