/* heif_writer_x265.h — x265 wrapper for the HEIF writer (engine-private).
 *
 * One encoder encodes any number of same-sized, independent still pictures
 * (intra only: every picture is an IDR sharing one VPS/SPS/PPS set), which is
 * what HEIF grid tiles need. Finished pictures are handed to a sink as HEIF
 * item data: VCL NAL units, each prefixed by its 4-byte big-endian length.
 * All x265 calls live here (x265_api_get / x265_encoder_open are macros keyed
 * to X265_BUILD, out of Swift's reach).
 */
#ifndef SY_HEIF_WRITER_X265_H
#define SY_HEIF_WRITER_X265_H

#include "base/sy_internal.h"

typedef struct sy__hw_encoder sy__hw_encoder;

/* Receives picture `index` (the value given to sy__hw_encoder_push). `data`
 * is borrowed for the duration of the call. */
typedef sy_status (*sy__hw_sink)(void *user, uint32_t index, const uint8_t *data, size_t len, sy_error *err);

typedef struct sy__hw_encoder_config {
    uint32_t width, height;    /* picture size (>= 64 each; even for 4:2:0) */
    int monochrome;            /* 1: 4:0:0 (luma plane only), 0: 4:2:0 */
    int quality;               /* 1..100, mapped to CRF by sy__hw_quality_to_crf */
    uint32_t threads;          /* 0 = x265 default (one pool thread per core) */
    const char *preset;        /* x265 preset name */
    uint16_t primaries, transfer, matrix; /* VUI colour description */
    uint8_t full_range;
} sy__hw_encoder_config;

/* quality 1..100 -> x265 CRF (see sy_heif_writer.h for the table). */
double sy__hw_quality_to_crf(int quality);

/* Rough bytes x265 allocates for one encoder of this picture size (charged to
 * the context budget by create, released by destroy). */
size_t sy__hw_encoder_estimate(uint32_t width, uint32_t height, int monochrome);

sy_status sy__hw_encoder_create(sy_context *ctx, const sy__hw_encoder_config *cfg, sy__hw_sink sink, void *user,
                                sy__hw_encoder **out, sy_error *err);

/* The hvcC record (HEVCDecoderConfigurationRecord with VPS/SPS/PPS arrays).
 * Borrowed; valid until destroy. */
const uint8_t *sy__hw_encoder_hvcc(const sy__hw_encoder *enc, size_t *len);

/* Submits one picture (planes copied by x265 before returning). Pictures that
 * complete during the call are delivered to the sink. plane[1..2] ignored for
 * monochrome. */
sy_status sy__hw_encoder_push(sy__hw_encoder *enc, uint8_t *const plane[3], const size_t stride[3], uint32_t index,
                              sy_error *err);

/* Drains every picture still in flight. No push after flush. */
sy_status sy__hw_encoder_flush(sy__hw_encoder *enc, sy_error *err);

void sy__hw_encoder_destroy(sy__hw_encoder *enc);

#endif
