/* sy_vui.h — the head of a VUI, which H.264 (E.1.1) and HEVC (E.2.1) share:
 * aspect ratio, overscan, video signal type (range and colour description).
 * Engine-private, header-only. */
#ifndef SY_VUI_H
#define SY_VUI_H

#include "base/sy_cicp.h"
#include "base/sy_rbsp.h"

/* The sample aspect ratio (width:height of one sample) an aspect_ratio_idc
 * names (H.264 Table E-1, HEVC Table E-1: the same list); 0:0 for 0
 * (unspecified), the reserved values and 255 (Extended_SAR, read apart). */
static inline void sy__vui_sar_of_idc(unsigned idc, uint16_t sar[2]) {
    static const uint8_t table[17][2] = {{0, 0},   {1, 1},    {12, 11}, {10, 11}, {16, 11}, {40, 33},
                                         {24, 11}, {20, 11},  {32, 11}, {80, 33}, {18, 11}, {15, 11},
                                         {64, 33}, {160, 99}, {4, 3},   {3, 2},   {2, 1}};
    sar[0] = idc < 17 ? table[idc][0] : 0;
    sar[1] = idc < 17 ? table[idc][1] : 0;
}

/* Reads up to and including video_signal_type; sets sar[] to the sample
 * aspect ratio as the stream states it (0:0 when it says none; the values
 * as written, a zero one included: judging them is the reader's) and
 * *colour (present = 1) only when the stream describes its signal and the
 * bits were all there. */
static inline void sy__vui_read_signal(sy__rbsp *r, uint16_t sar[2], sy_cicp *colour) {
    sar[0] = sar[1] = 0;
    if (sy__rbsp_bit(r)) { /* aspect_ratio_info_present_flag */
        unsigned idc = sy__rbsp_bits(r, 8);
        uint16_t w = 0, h = 0;
        if (idc == 255) {
            w = (uint16_t)sy__rbsp_bits(r, 16);
            h = (uint16_t)sy__rbsp_bits(r, 16);
        }
        if (r->bad) return;
        if (idc == 255) sar[0] = w, sar[1] = h;
        else sy__vui_sar_of_idc(idc, sar);
    }
    if (sy__rbsp_bit(r)) sy__rbsp_skip(r, 1); /* overscan */
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
