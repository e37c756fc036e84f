/* md5.c — MD5, written from RFC 1321's description (sy_md5.h). One-shot:
 * the only caller hashes one extended XMP packet already in memory. */
#include <string.h>

#include "base/sy_md5.h"

/* T[i] = floor(2^32 * |sin(i + 1)|), RFC 1321 section 3.4. */
static const uint32_t T[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};
/* Per-round shift amounts, four per round. */
static const int S[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

static uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

static void block(uint32_t h[4], const uint8_t b[64]) {
    uint32_t x[16];
    for (int i = 0; i < 16; i++) /* little-endian words */
        x[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16 |
               (uint32_t)b[4 * i + 3] << 24;
    uint32_t a = h[0], bb = h[1], c = h[2], d = h[3];
    for (int i = 0; i < 64; i++) {
        uint32_t f;
        int k;
        switch (i / 16) {
        case 0: f = (bb & c) | (~bb & d), k = i; break;
        case 1: f = (bb & d) | (c & ~d), k = (5 * i + 1) % 16; break;
        case 2: f = bb ^ c ^ d, k = (3 * i + 5) % 16; break;
        default: f = c ^ (bb | ~d), k = (7 * i) % 16; break;
        }
        uint32_t next = bb + rotl(a + f + x[k] + T[i], S[i / 16][i % 4]);
        a = d, d = c, c = bb, bb = next;
    }
    h[0] += a, h[1] += bb, h[2] += c, h[3] += d;
}

void sy__md5_hex_upper(const uint8_t *p, size_t n, char out[33]) {
    uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
    size_t whole = n - n % 64;
    for (size_t at = 0; at < whole; at += 64) block(h, p + at);
    uint8_t tail[128] = {0}; /* the rest, the 0x80 bit, zeros, the bit length (little-endian) */
    size_t rest = n - whole, tail_len = rest < 56 ? 64 : 128;
    if (rest) memcpy(tail, p + whole, rest);
    tail[rest] = 0x80;
    uint64_t bits = (uint64_t)n * 8;
    for (int i = 0; i < 8; i++) tail[tail_len - 8 + i] = (uint8_t)(bits >> (8 * i));
    block(h, tail);
    if (tail_len == 128) block(h, tail + 64);
    static const char hex[] = "0123456789ABCDEF";
    for (int i = 0; i < 16; i++) {
        uint8_t byte = (uint8_t)(h[i / 4] >> (8 * (i % 4)));
        out[2 * i] = hex[byte >> 4], out[2 * i + 1] = hex[byte & 15];
    }
    out[32] = 0;
}
