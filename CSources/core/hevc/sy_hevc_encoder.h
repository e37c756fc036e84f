/* sy_hevc_encoder.h — the engine's one x265 encoder (engine-private), used by
 * the HEIF writer (still pictures: grid tiles, auxiliary images) and by the
 * video encoder (movie tracks). Every x265 call lives in hevc_encoder.c
 * (x265_api_get / x265_encoder_open are macros keyed to X265_BUILD, out of
 * Swift's reach).
 *
 * Order of operations: open (x265 is configured for the use, opened, and its
 * VPS/SPS/PPS turned into an hvcC record) -> push pictures -> flush (drains
 * every picture still in flight; no push after it) -> destroy. Finished
 * pictures go to the sink during push and flush, in decode order, as
 * length-prefixed NAL units (4-byte big-endian lengths): the parameter sets
 * live only in the hvcC.
 *
 * Memory: an estimate of x265's own allocations is charged to the context by
 * open and released by destroy (a budget below it fails open with
 * SY_E_BUDGET); plus one packet buffer grown to the largest picture.
 * Threads: x265 runs its own pool, one frame thread (the HEIF writer runs two
 * still encoders at once: heif/sy_heif_tile_lanes.h); output bytes depend only on the pictures and the
 * options, not on timing or the pool size. The sink is called on the
 * caller's thread. */
#ifndef SY_HEVC_ENCODER_H
#define SY_HEVC_ENCODER_H

#include "base/sy_internal.h"
#include "base/sy_cicp.h"
#include "sy_image.h" /* sy_hdr_static_metadata */

typedef struct sy__hevc_encoder sy__hevc_encoder;

typedef enum sy__hevc_use {
    /* Independent still pictures (HEIF items): intra only, every picture an
     * IDR sharing one parameter-set set, constant quality (CRF), Main Still
     * Picture for 4:2:0, RExt for 4:0:0. Pictures carry only slice data. */
    SY__HEVC_STILLS,
    /* A movie track: Main profile 4:2:0, closed GOPs, B-frames, average
     * bitrate without a VBV, one frame thread (deterministic bytes). SEI is kept. */
    SY__HEVC_VIDEO,
} sy__hevc_use;

typedef struct sy__hevc_encoder_options {
    sy__hevc_use use;
    uint32_t width, height;     /* picture size: 64..16384 each, even for 4:2:0 */
    int monochrome;             /* stills only: 1 = 4:0:0 (luma plane only), 0 = 4:2:0 */
    const char *preset;         /* x265 preset name (required) */
    uint32_t threads;           /* x265 pool threads; 0 = one per core (stills: 2+ also encode two tiles at once) */
    sy_cicp colour;             /* VUI colour description (`present` ignored: always written) */
    struct {
        int quality;            /* 1..100 -> CRF: q100 -> 12, q90 -> 22, q50 -> 34, q1 -> 51 (hevc_encoder.c) */
        uint32_t pictures;      /* pictures this encoder takes; 1 = one frame thread (nothing to overlap),
                                   0 = unknown/many */
        uint32_t min_cu_size;   /* smallest coding unit, 8, 16 or 32; 0 = the preset's */
        uint32_t rd_level;      /* x265's rate-distortion level, 1..6; 0 = the preset's */
    } still;
    struct {
        uint32_t fps_num, fps_den; /* frame rate, reduced */
        uint32_t keyint;           /* IDR at most this many frames apart (>= 1) */
        uint32_t bframes;          /* 0..8 */
        uint32_t lookahead;        /* rate-control look-ahead, > bframes */
        uint32_t kbps;             /* average bitrate */
        uint8_t bit_depth;         /* 8 (0 = 8) or 10: Main 10 through x265's 10-bit library; pushed planes
                                      then hold 16-bit samples (0..1023) */
        sy_hdr_static_metadata hdr; /* mastering display / light level SEI with each IRAP (has_* = 0: none) */
        uint32_t keyframe_at;      /* picture N (0-based push order) coded as an IDR too; 0 = none */
    } video;
} sy__hevc_encoder_options;

/* One finished picture (an access unit). `data` is borrowed for the duration
 * of the sink call. */
typedef struct sy__hevc_packet {
    const uint8_t *data;
    size_t len;
    int64_t pts;  /* the value given to push for this picture */
    int keyframe; /* holds an IRAP NAL unit (IDR/CRA/BLA) */
} sy__hevc_packet;

typedef sy_status (*sy__hevc_sink)(void *user, const sy__hevc_packet *packet, sy_error *err);

/* Fails with SY_E_USAGE for a size x265 cannot encode or an unknown preset,
 * SY_E_BUDGET when the estimate does not fit, SY_E_UNSUPPORTED without an
 * 8-bit (or, asked for, 10-bit) libx265, SY_E_CODEC when x265 refuses the
 * configuration. */
sy_status sy__hevc_encoder_open(sy_context *ctx, const sy__hevc_encoder_options *opts, sy__hevc_sink sink,
                                void *user, sy__hevc_encoder **out, sy_error *err);

/* The hvcC record (HEVCDecoderConfigurationRecord with VPS/SPS/PPS arrays).
 * Borrowed; valid until destroy. */
const uint8_t *sy__hevc_encoder_hvcc(const sy__hevc_encoder *enc, size_t *len);

/* How many positions after its presentation position x265 may output a
 * picture (2 with the B-pyramid, 1 with plain B-frames, 0 without), as x265
 * settled it when opening. */
uint32_t sy__hevc_encoder_reorder_delay(const sy__hevc_encoder *enc);

/* Submits one 8-bit picture (x265 copies the planes before returning;
 * plane[1..2] ignored for monochrome). Pictures completed during the call go
 * to the sink. */
sy_status sy__hevc_encoder_push(sy__hevc_encoder *enc, uint8_t *const plane[3], const size_t stride[3], int64_t pts,
                                sy_error *err);

/* Video: the picture to be pushed with `pts` carries this
 * user_data_registered_itu_t_t35 SEI message (T.35 bytes, country code
 * first; an HDR10+ message) in a prefix SEI NAL unit first in its access
 * unit (sy_hevc_attached.h). */
sy_status sy__hevc_encoder_attach_t35(sy__hevc_encoder *enc, int64_t pts, const uint8_t *payload, size_t len,
                                      sy_error *err);

/* Video: the picture to be pushed with `pts` ends its access unit with this
 * NAL unit (header included, emulation prevention in place: a Dolby Vision
 * RPU, type 62), written as it is. */
sy_status sy__hevc_encoder_attach_last_nal(sy__hevc_encoder *enc, int64_t pts, const uint8_t *nal, size_t len,
                                           sy_error *err);

/* Video: the QP offsets (added to x265's adaptive quantization and
 * cuTree, per block of `block` x `block` luma samples, cols x rows of them,
 * row by row) that go with every picture pushed from now on: the caller
 * writes them before each push. Zero until written. Asked before the first
 * push (x265 takes offsets with every picture or with none); NULL and
 * SY_E_USAGE otherwise, or for a still, or without adaptive quantization. */
float *sy__hevc_encoder_block_offsets(sy__hevc_encoder *enc, uint32_t *cols, uint32_t *rows, uint32_t *block,
                                      sy_error *err);

/* Drains every picture still in flight to the sink. Once flushed, push fails
 * and flush does nothing. */
sy_status sy__hevc_encoder_flush(sy__hevc_encoder *enc, sy_error *err);

/* NULL is ignored. */
void sy__hevc_encoder_destroy(sy__hevc_encoder *enc);

#endif
