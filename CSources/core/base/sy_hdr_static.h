/* sy_hdr_static.h — HDR10 static metadata (sy_hdr_static_metadata, sy_image.h)
 * read from where files keep it, and said the way x265 takes it
 * (engine-private).
 *
 * Where it lives:
 *  - SEI messages (HEVC prefix SEI, H.264 SEI): payload 137, mastering display
 *    colour volume (6 x u16 primaries G, B, R as x/y pairs, u16 white x/y,
 *    u32 max and min luminance), and 144, content light level (u16 MaxCLL,
 *    u16 MaxFALL). An encoder puts them before the first picture's slices.
 *  - ISO sample-entry boxes `mdcv` (the SEI's 24 bytes) and `clli` (its 4).
 *  - QuickTime / VP9-binding FullBoxes `SmDm` (primaries R, G, B and white
 *    point in 0.16 fixed point, max luminance 24.8, min 18.14) and `CoLL`. */
#ifndef SY_HDR_STATIC_H
#define SY_HDR_STATIC_H

#include <stddef.h>
#include <stdint.h>

#include "sy_image.h"

/* One SEI NAL unit (`header` = 2 for HEVC, 1 for H.264), emulation-prevention
 * bytes in place. Fills what it finds; 1 when it found either message. */
int sy__hdr_static_from_sei(const uint8_t *nal, size_t n, size_t header, sy_hdr_static_metadata *m);

/* The payload of one sample-entry box of type `type` (mdcv, clli, SmDm,
 * CoLL); 1 when it was one of them and well formed. */
int sy__hdr_static_from_box(uint32_t type, const uint8_t *payload, size_t n, sy_hdr_static_metadata *m);

/* The SEI of a sample's length-prefixed NAL units (`hevc` picks the NAL header). */
void sy__hdr_static_from_sample(const uint8_t *data, size_t len, uint32_t length_size, int hevc,
                                sy_hdr_static_metadata *m);

/* Fills in from `from` what `m` lacks (a box said it first: the SEI only completes). */
void sy__hdr_static_merge(sy_hdr_static_metadata *m, const sy_hdr_static_metadata *from);

/* x265's "master-display" value, G(x,y)B(x,y)R(x,y)WP(x,y)L(max,min); "" without one. */
void sy__hdr_static_master_display(const sy_hdr_static_metadata *m, char *out, size_t cap);

#endif
