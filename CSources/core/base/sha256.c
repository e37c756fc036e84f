/* sha256.c — SHA-256 (FIPS 180-4), written from the standard's description.
 * Shared by the file identity (SPEC E7 gate) and the organize fingerprints,
 * which hash every decoded pixel: on x86 CPUs with the SHA extensions the
 * block function uses SHA-NI (sha256rnds2/msg1/msg2, chosen per digest by
 * CPUID), about 5x faster than the portable rounds it must equal. */
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define SY_SHA_NI 1
static int cpu_has_sha_ni(void);
#endif

#include "base/sy_internal.h"
#include "base/sy_sha256.h"

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void sy__sha256_init(sy__sha256 *s) {
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof h0);
    s->fill = 0;
    s->bytes = 0;
#ifdef SY_SHA_NI
    s->use_sha_ni = cpu_has_sha_ni();
#else
    s->use_sha_ni = 0;
#endif
}

void sy__sha256_force_portable(sy__sha256 *s) { s->use_sha_ni = 0; }

static void sha256_block_portable(uint32_t *state, const uint8_t *p) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6], h = state[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    state[0] += a, state[1] += b, state[2] += c, state[3] += d, state[4] += e, state[5] += f, state[6] += g, state[7] += h;
}

#ifdef SY_SHA_NI
/* 64-byte blocks with the SHA extensions. The state lives as ABEF / CDGH
 * vectors; each 4-round group adds K, runs two sha256rnds2, and the message
 * schedule W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16] is built four
 * words at a time with sha256msg1 / alignr / sha256msg2. */
__attribute__((target("sha,sse4.1,ssse3")))
static void sha256_blocks_shani(uint32_t *state, const uint8_t *p, size_t blocks) {
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i tmp = _mm_loadu_si128((const __m128i *)&state[0]);   /* D C B A (lane 0 = A) */
    __m128i st1 = _mm_loadu_si128((const __m128i *)&state[4]);   /* H G F E */
    tmp = _mm_shuffle_epi32(tmp, 0xB1);                          /* C D A B */
    st1 = _mm_shuffle_epi32(st1, 0x1B);                          /* E F G H */
    __m128i st0 = _mm_alignr_epi8(tmp, st1, 8);                  /* A B E F */
    st1 = _mm_blend_epi16(st1, tmp, 0xF0);                       /* C D G H */
    for (; blocks > 0; blocks--, p += 64) {
        __m128i save0 = st0, save1 = st1, w[4];
        for (int i = 0; i < 16; i++) {
            __m128i *x = &w[i & 3];
            if (i < 4) {
                *x = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), bswap);
            } else {
                __m128i t = _mm_add_epi32(_mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]),
                                          _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4));
                *x = _mm_sha256msg2_epu32(t, w[(i + 3) & 3]);
            }
            __m128i msg = _mm_add_epi32(*x, _mm_loadu_si128((const __m128i *)&K[4 * i]));
            st1 = _mm_sha256rnds2_epu32(st1, st0, msg);
            st0 = _mm_sha256rnds2_epu32(st0, st1, _mm_shuffle_epi32(msg, 0x0E));
        }
        st0 = _mm_add_epi32(st0, save0);
        st1 = _mm_add_epi32(st1, save1);
    }
    tmp = _mm_shuffle_epi32(st0, 0x1B);                          /* F E B A */
    st1 = _mm_shuffle_epi32(st1, 0xB1);                          /* D C H G */
    st0 = _mm_blend_epi16(tmp, st1, 0xF0);                       /* D C B A */
    st1 = _mm_alignr_epi8(st1, tmp, 8);                          /* H G F E */
    _mm_storeu_si128((__m128i *)&state[0], st0);
    _mm_storeu_si128((__m128i *)&state[4], st1);
}

static int cpu_has_sha_ni(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) || !(c & bit_SSSE3)) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b >> 29) & 1; /* CPUID.(EAX=7,ECX=0):EBX.SHA[bit 29] */
}
#endif

static void sha256_blocks(sy__sha256 *s, const uint8_t *p, size_t blocks) {
#ifdef SY_SHA_NI
    if (s->use_sha_ni) {
        sha256_blocks_shani(s->h, p, blocks);
        return;
    }
#endif
    for (; blocks > 0; blocks--, p += 64) sha256_block_portable(s->h, p);
}

void sy__sha256_update(sy__sha256 *s, const uint8_t *p, size_t n) {
    s->bytes += n;
    while (n > 0) {
        if (s->fill == 0 && n >= 64) {
            size_t blocks = n / 64;
            sha256_blocks(s, p, blocks);
            p += 64 * blocks, n -= 64 * blocks;
            continue;
        }
        size_t take = SY__MIN(64 - s->fill, n);
        memcpy(s->block + s->fill, p, take);
        s->fill += take, p += take, n -= take;
        if (s->fill == 64) {
            sha256_blocks(s, s->block, 1);
            s->fill = 0;
        }
    }
}

void sy__sha256_hex(sy__sha256 *s, char out[65]) {
    uint64_t bits = s->bytes * 8;
    uint8_t pad[72] = {0x80};
    size_t padlen = (s->fill < 56 ? 56 : 120) - s->fill;
    for (int i = 0; i < 8; i++) pad[padlen + i] = (uint8_t)(bits >> (56 - 8 * i));
    sy__sha256_update(s, pad, padlen + 8);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        uint8_t byte = (uint8_t)(s->h[i / 4] >> (24 - 8 * (i % 4)));
        out[2 * i] = hex[byte >> 4];
        out[2 * i + 1] = hex[byte & 15];
    }
    out[64] = 0;
}


sy_status sy_digest_sha256(const void *data, size_t len, uint32_t flags, char out[65]) {
    if ((!data && len) || !out) return SY_E_USAGE;
    sy__sha256 s;
    sy__sha256_init(&s);
    if (flags & SY_DIGEST_PORTABLE) sy__sha256_force_portable(&s);
    sy__sha256_update(&s, data, len);
    sy__sha256_hex(&s, out);
    return SY_OK;
}
