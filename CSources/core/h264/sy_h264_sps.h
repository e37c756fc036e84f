/* sy_h264_sps.h — the H.264 sequence parameter set fields the reader needs
 * before libavcodec sees the stream (engine-private): picture size and frame
 * cropping, chroma format, bit depths, interlacing, reference frames and the
 * VUI colour description / reorder depth (ITU-T H.264 7.3.2.1.1, E.1.1). */
#ifndef SY_H264_SPS_H
#define SY_H264_SPS_H

#include <stdint.h>
#include <stddef.h>

#include "base/sy_cicp.h"

typedef struct sy__h264_sps {
    uint8_t profile_idc;
    uint8_t chroma;                /* chroma_format_idc (1 when the profile has none) */
    uint8_t bit_depth_luma, bit_depth_chroma;
    uint8_t frame_mbs_only;
    uint32_t max_num_ref_frames;
    uint32_t width, height;         /* coded, in luma samples */
    uint32_t out_width, out_height; /* after frame cropping (0 when it eats the picture) */
    uint8_t has_vui;                /* the VUI parsed through bitstream_restriction (or its end) */
    sy_cicp colour;            /* present = 1 when the VUI has a video signal type */
    uint16_t sar[2];           /* VUI sample aspect ratio (width:height of a sample) as written; 0:0 = none */
    uint8_t has_reorder;
    uint32_t max_num_reorder_frames, max_dec_frame_buffering;
} sy__h264_sps;

/* Parses an SPS NAL unit (with its 1-byte header). 1 when the fields up to
 * frame cropping parse; the VUI is best effort (has_vui). */
int sy__h264_sps_parse(const uint8_t *nal, size_t n, sy__h264_sps *out);

#endif
