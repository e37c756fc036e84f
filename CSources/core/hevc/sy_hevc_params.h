/* sy_hevc_params.h — HEVC parameter sets read before libavcodec sees anything
 * (engine-private): the hvcC record's NAL arrays, the SPS fields that decide
 * what libavcodec will allocate (size, chroma format, bit depth, DPB size) and
 * its VUI colour description. Shared by the still decoder (HEIF tiles) and
 * the stream decoder (movie tracks), so both refuse oversized pictures and
 * charge libavcodec's memory the same way. */
#ifndef SY_HEVC_PARAMS_H
#define SY_HEVC_PARAMS_H

#include "base/sy_internal.h"
#include "base/sy_cicp.h"

#define SY__HEVC_MAX_SIDE 16384u
#define SY__HEVC_MAX_PS 64u /* parameter-set NAL units kept from hvcC */

enum { SY__HEVC_NAL_VPS = 32, SY__HEVC_NAL_SPS = 33, SY__HEVC_NAL_PPS = 34, SY__HEVC_NAL_PREFIX_SEI = 39 };

/* The NAL unit type of an HEVC NAL (first header byte). */
static inline unsigned sy__hevc_nal_type(const uint8_t *nal) { return (nal[0] >> 1) & 63u; }

/* One SPS. The fields up to the bit depths are required; the rest is read
 * when the SPS parses that far (has_dpb, has_vui). */
typedef struct sy__hevc_sps {
    uint32_t width, height;         /* pic_width/height_in_luma_samples */
    uint32_t out_width, out_height; /* after the conformance window (0 when it eats the picture) */
    uint32_t crop_left, crop_top;   /* luma samples */
    uint8_t chroma;                 /* chroma_format_idc 0..3 */
    uint8_t bit_depth_luma, bit_depth_chroma;
    uint8_t max_sub_layers;         /* sps_max_sub_layers_minus1 + 1 (temporal sub-layers) */
    uint8_t has_dpb;
    uint8_t max_dec_pic_buffering;  /* highest sub-layer, 1..16 */
    uint8_t max_num_reorder;
    uint8_t has_vui;                /* the SPS parsed through video_signal_type */
    sy_cicp colour;            /* present = 1 only when the VUI has a video signal type */
    uint16_t sar[2];           /* VUI sample aspect ratio (width:height of a sample) as written; 0:0 = none */
} sy__hevc_sps;

/* Parses an SPS NAL unit (with its 2-byte header). 1 on success. */
int sy__hevc_sps_parse(const uint8_t *nal, size_t n, sy__hevc_sps *out);

/* What the SPS units seen so far allow libavcodec to allocate (maxima). */
typedef struct sy__hevc_bound {
    uint32_t width, height;
    uint8_t chroma;
    uint8_t bit_depth;
    uint8_t dpb;       /* largest max_dec_pic_buffering (0 when no SPS said) */
    uint8_t seen;
} sy__hevc_bound;

/* Accounts one NAL unit: SPS units must parse and widen `b`. `where` starts
 * the error message. */
sy_status sy__hevc_note_nal(const uint8_t *nal, size_t n, sy__hevc_bound *b, const char *where, sy_error *err);

/* The parameter-set NAL units of an hvcC record, as offsets into it. */
typedef struct sy__hvcc {
    uint32_t length_size; /* NAL length prefix in samples: 1..4 bytes */
    uint32_t ps_count;
    struct {
        uint32_t offset, length;
    } ps[SY__HEVC_MAX_PS];
    sy__hevc_bound bound; /* from the SPS units of the record */
} sy__hvcc;

/* Parses and bounds-checks an hvcC payload (every SPS must parse). Fails
 * with SY_E_BUDGET when an SPS exceeds SY__HEVC_MAX_SIDE. */
sy_status sy__hvcc_parse(const uint8_t *rec, size_t len, sy__hvcc *out, sy_error *err);

#endif
