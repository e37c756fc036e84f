/* sy_av1.h — one AV1 still (an AVIF 'av01' image item, or a grid tile) through
 * libavcodec's libdav1d decoder (engine-private), as sy_hevc.h does for HEVC.
 *
 * The av1C record (AV1-ISOBMFF §2.3) and the item's OBUs are walked and
 * bounds-checked here before libavcodec sees anything: the sequence header
 * (from the item, else from the record's configOBUs) gives the largest frame,
 * bit depth and chroma format, so oversized pictures are refused and the
 * decoder's memory is charged before it is allocated. */
#ifndef SY_AV1_H
#define SY_AV1_H

#include "base/sy_internal.h"
#include "base/sy_cicp.h"
#include "base/sy_yuv.h"

#define SY__AV1_MAX_SIDE 16384u /* the HEVC still decoder's limit (AV1 allows 65536) */

/* The fields of one AV1 sequence header that decide what a decoder allocates
 * and how its samples read. */
typedef struct sy__av1_sequence {
    uint32_t max_width, max_height; /* max_frame_width/height_minus_1 + 1 */
    uint8_t profile;                /* seq_profile 0..2 */
    uint8_t bit_depth;              /* 8, 10 or 12 */
    uint8_t chroma;                 /* 0 = 4:0:0, 1 = 4:2:0, 2 = 4:2:2, 3 = 4:4:4 */
    sy_cicp colour;                 /* color_config (present = 1 when color_description_present_flag) */
    uint8_t full_range;             /* color_range */
} sy__av1_sequence;

/* Parses a sequence header OBU's payload (after its header and size). 1 on success. */
int sy__av1_sequence_parse(const uint8_t *payload, size_t n, sy__av1_sequence *out);

/* An av1C record: its fixed 4 bytes checked (marker, version 1, profile,
 * depth and chroma fields), its configOBUs walked (each with its size, all
 * inside the record) and the first sequence header parsed. */
typedef struct sy__av1c {
    uint8_t profile, bit_depth, chroma;
    uint8_t has_sequence;
    sy__av1_sequence sequence;
} sy__av1c;

sy_status sy__av1c_parse(const uint8_t *rec, size_t len, sy__av1c *out, sy_error *err);

/* Walks an item's OBUs (each inside the data; the last may run to the end
 * without obu_size) and parses the first sequence header into *seq (*has = 1).
 * NULL on success, else why, the OBU at *bad_at. */
const char *sy__av1_walk_item(const uint8_t *data, size_t len, sy__av1_sequence *seq, uint8_t *has, size_t *bad_at);

typedef struct sy__av1_decoder sy__av1_decoder;

/* A decoder configured from an av1C record; reusable for every item sharing it. */
sy_status sy__av1_decoder_create(sy_context *ctx, const uint8_t *av1c, size_t av1c_len, sy__av1_decoder **out,
                                 sy_error *err);
/* Decodes one image item's data (OBUs in the low-overhead format) into `out`
 * (one engine block, released with sy__yuv_release; out->vui from the
 * sequence header). */
sy_status sy__av1_decode(sy__av1_decoder *dec, const uint8_t *data, size_t len, sy__yuv *out, sy_error *err);
void sy__av1_decoder_destroy(sy__av1_decoder *dec);

#endif
