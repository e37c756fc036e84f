/* sy_hevc.h — decode one HEVC still (a HEIF tile or image item) with libde265
 * and convert it to 8-bit 3-channel rows (engine-private). */
#ifndef SY_HEVC_H
#define SY_HEVC_H

#include "base/sy_internal.h"
#include "heif/sy_heif.h"

/* A decoded picture, planar, 8 or 16 bits per sample (16 when bit_depth > 8). */
typedef struct sy__yuv {
    uint32_t width, height;      /* luma size as decoded (may exceed ispe: cropping is the caller's) */
    uint8_t bit_depth;           /* 8..16 */
    uint8_t chroma;              /* 0 = 4:0:0, 1 = 4:2:0, 2 = 4:2:2, 3 = 4:4:4 */
    uint8_t *plane[3];           /* engine-allocated (one block); plane[1..2] NULL for 4:0:0 */
    uint32_t stride[3];          /* in bytes */
    uint32_t plane_width[3], plane_height[3];
    size_t bytes;
    sy_heif_nclx vui;            /* colour description from the SPS VUI (2 = unspecified when absent);
                                    sy__yuv_rows uses it when the nclx it is given is NULL or not present */
} sy__yuv;

typedef struct sy__hevc_decoder sy__hevc_decoder;

/* A decoder configured from an hvcC record (parameter-set NAL arrays). Reusable
 * for every tile sharing that hvcC. */
sy_status sy__hevc_decoder_create(sy_context *ctx, const uint8_t *hvcc, size_t hvcc_len, sy__hevc_decoder **out,
                                  sy_error *err);
/* Decodes one image item's data (length-prefixed NAL units, prefix size from
 * hvcC lengthSizeMinusOne) into `out` (released with sy__yuv_release). */
sy_status sy__hevc_decode(sy__hevc_decoder *dec, const uint8_t *data, size_t len, sy__yuv *out, sy_error *err);
void sy__hevc_decoder_destroy(sy__hevc_decoder *dec);
void sy__yuv_release(sy_context *ctx, sy__yuv *yuv);

/* Converts rows [y0, y0+rows) of `yuv` into interleaved 8-bit rows:
 * to_rgb = 1 -> R'G'B' using the nclx matrix/range (when `nclx` is NULL or
 * not present, the VUI's in yuv->vui, which is BT.601 limited range when the
 * stream says nothing, as HEIF defaults; BT.709, BT.2020 NCL supported),
 * to_rgb = 0 -> full-range BT.601 YCbCr (JFIF) for the JPEG pipeline. 4:0:0
 * gives grey. Chroma is upsampled bilinearly (HEVC siting: co-sited
 * horizontally, centred vertically). `out` rows are width*3 bytes. */
void sy__yuv_rows(const sy__yuv *yuv, const sy_heif_nclx *nclx, int to_rgb, uint32_t y0, uint32_t rows,
                  uint8_t *const *out);

#endif
