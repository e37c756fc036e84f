/* sy_yuv.h — a decoded picture in planar Y'CbCr, as the HEVC and H.264
 * decoders hand it out and the converters and renderers read it
 * (engine-private). Who owns the planes depends on who made the picture: the
 * still decoder allocates one engine block (released with sy__yuv_release,
 * hevc/sy_hevc.h); a stream decoder lends its codec's planes until the next
 * call (base/sy_video_stream.h). */
#ifndef SY_YUV_H
#define SY_YUV_H

#include <stddef.h>
#include <stdint.h>

#include "base/sy_cicp.h"

/* Planar, 8 or 16 bits per sample (16 when bit_depth > 8). */
typedef struct sy__yuv {
    uint32_t width, height;      /* luma size as decoded (may exceed ispe: cropping is the caller's) */
    uint8_t bit_depth;           /* 8..16 */
    uint8_t chroma;              /* 0 = 4:0:0, 1 = 4:2:0, 2 = 4:2:2, 3 = 4:4:4 */
    uint8_t *plane[3];           /* plane[1..2] NULL for 4:0:0 */
    uint32_t stride[3];          /* in bytes */
    uint32_t plane_width[3], plane_height[3];
    size_t bytes;                /* size of an engine-allocated block (0 for a borrowed picture) */
    void *block;                 /* that block when the planes lie inside it (a decoder's own picture
                                    handed over); NULL when plane[0] starts it */
    sy_cicp vui;                 /* colour description from the SPS VUI (2 = unspecified when absent);
                                    sy__yuv_rows uses it when the colour it is given is NULL or not present */
} sy__yuv;

#endif
