/* sy_vui.h — the head of a VUI, which H.264 (E.1.1) and HEVC (E.2.1) share:
 * aspect ratio, overscan, video signal type (range and colour description).
 * Engine-private, header-only. */
#ifndef SY_VUI_H
#define SY_VUI_H

#include "base/sy_cicp.h"
#include "base/sy_rbsp.h"

/* Reads up to and including video_signal_type; sets *colour (present = 1)
 * only when the stream describes its signal and the bits were all there. */
static inline void sy__vui_read_signal(sy__rbsp *r, sy_cicp *colour) {
    if (sy__rbsp_bit(r) && sy__rbsp_bits(r, 8) == 255) sy__rbsp_skip(r, 32); /* aspect ratio */
    if (sy__rbsp_bit(r)) sy__rbsp_skip(r, 1);                                 /* overscan */
    if (!sy__rbsp_bit(r)) return;                                             /* video_signal_type_present */
    sy__rbsp_skip(r, 3);                                                      /* video_format */
    uint8_t full = (uint8_t)sy__rbsp_bit(r);
    uint16_t primaries = 2, transfer = 2, matrix = 2;
    if (sy__rbsp_bit(r)) {
        primaries = (uint16_t)sy__rbsp_bits(r, 8);
        transfer = (uint16_t)sy__rbsp_bits(r, 8);
        matrix = (uint16_t)sy__rbsp_bits(r, 8);
    }
    if (r->bad) return;
    colour->present = 1;
    colour->full_range = full;
    colour->primaries = primaries;
    colour->transfer = transfer;
    colour->matrix = matrix;
}

#endif
