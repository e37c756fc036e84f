/* sy_hdr10plus.h — HDR10+ dynamic metadata (SMPTE ST 2094-40, application 4)
 * found in a movie sample, checked, and handed on as it is (engine-private).
 *
 * Where it lives: one user_data_registered_itu_t_t35 SEI message (payload
 * type 4) per picture, in an HEVC prefix SEI or an H.264 SEI NAL unit: ITU-T
 * T.35 country 0xB5, provider 0x003C, provider-oriented code 0x0001,
 * application identifier 4, then the picture's windows, the targeted
 * display's peak, per window MaxSCL, average MaxRGB, MaxRGB percentiles, the
 * bright-pixel fraction and a Bezier tone curve. Samsung's HDR10+ recordings
 * carry one with every picture; a player tone-maps each scene with it, and
 * falls back to the HDR10 static grade (sy_hdr_static.h) without it.
 *
 * The engine does not interpret it: a re-encode that keeps a PQ movie's
 * pixels (the decoder's samples, whole or cropped) gives each new picture its
 * source picture's message byte for byte (x265 writes it as a user SEI). */
#ifndef SY_HDR10PLUS_H
#define SY_HDR10PLUS_H

#include <stddef.h>
#include <stdint.h>

/* A message is at most ~1.3 KB (three windows, 31 x 31 peak-luminance
 * tables); anything longer is not ST 2094-40. */
#define SY__HDR10PLUS_MAX 2048

/* What a message says (the first window's values; what tests and reports read). */
typedef struct sy__hdr10plus {
    uint8_t application_version;   /* 0 or 1 */
    uint8_t windows;               /* 1..3 */
    uint32_t targeted_max_luminance; /* cd/m², 0 = not said */
    uint32_t maxscl[3];            /* R, G, B in 1/100000 of the 10000 cd/m² range */
    uint32_t average_maxrgb;       /* the same units */
    uint8_t percentiles;           /* MaxRGB percentiles given, 0..15 */
    uint16_t fraction_bright_pixels; /* 1/1000 */
    uint8_t tone_mapping;          /* a Bezier curve is given */
    uint16_t knee_x, knee_y;       /* 1/4095 */
    uint8_t anchors;               /* Bezier anchors, 0..15 */
} sy__hdr10plus;

/* Checks `payload` (the T.35 bytes, country code first, emulation prevention
 * removed) against the ST 2094-40 syntax: 1 and *out filled when it is an
 * HDR10+ message that ends within `n` bytes; 0 otherwise (another T.35
 * message, a truncated or malformed one). `out` may be NULL. */
int sy__hdr10plus_parse(const uint8_t *payload, size_t n, sy__hdr10plus *out);

/* The HDR10+ message of one sample's length-prefixed NAL units (`hevc`
 * picks the NAL header): its payload copied into out[0..cap) and its length
 * returned; 0 when the sample has none (or only malformed ones). */
size_t sy__hdr10plus_from_sample(const uint8_t *data, size_t len, uint32_t length_size, int hevc, uint8_t *out,
                                 size_t cap);

#endif
