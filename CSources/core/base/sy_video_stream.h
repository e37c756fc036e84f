/* sy_video_stream.h — the per-codec stream decoders behind sy_video_reader
 * (engine-private): one decoder instance for a whole track, fed the track's
 * samples in decode order and handing back pictures in presentation order.
 *
 * Protocol (video_reader.c drives it):
 *   receive() until it gives nothing, then send() the next sample (tagged with
 *   its decode-order index), ... ; after the last sample finish(), then
 *   receive() until nothing is left. A received picture is borrowed until
 *   release(), which must come before the next call.
 * Samples are ISO/IEC 14496-15 samples: NAL units each prefixed by a
 * big-endian length of the configuration record's size. The decoder checks
 * the framing and any in-band SPS before its codec library sees the bytes.
 * Error messages start with "sample N: " when a sample is to blame; the
 * reader prefixes the file name.
 *
 * The constructors sit with their codecs: sy__hevc_stream_create
 * (hevc/sy_hevc.h), sy__h264_stream_create (h264/sy_h264.h). */
#ifndef SY_VIDEO_STREAM_H
#define SY_VIDEO_STREAM_H

#include "base/sy_internal.h"
#include "base/sy_cicp.h"
#include "base/sy_yuv.h"
#include "sy_image.h" /* sy_hdr_static_metadata */

/* What the parameter sets say, known when the decoder is created. */
typedef struct sy__vstream_params {
    uint32_t width, height; /* output picture size (after the conformance window / frame cropping) */
    uint8_t bit_depth;      /* luma */
    uint8_t chroma;         /* 0 = 4:0:0, 1 = 4:2:0, 2 = 4:2:2, 3 = 4:4:4 */
    sy_cicp colour;         /* VUI video signal type; present = 0 when the SPS has none */
    uint16_t sar[2];        /* VUI sample aspect ratio as written (width:height of a sample); 0:0 = none */
    sy_hdr_static_metadata hdr; /* SEI of the configuration record and sample 0 (mastering display, light level) */
    uint8_t length_size;    /* bytes of each NAL unit's length prefix in the samples (1, 2 or 4) */
    size_t charged;         /* codec memory charged to the context (estimate) */
} sy__vstream_params;

/* The picture facts every codec's SPS gives (its own struct's fields of the same names). */
static inline void sy__vstream_params_picture(sy__vstream_params *p, uint32_t width, uint32_t height, uint8_t bit_depth,
                                              uint8_t chroma, sy_cicp colour, const uint16_t sar[2]) {
    p->width = width;
    p->height = height;
    p->bit_depth = bit_depth;
    p->chroma = chroma;
    p->colour = colour;
    p->sar[0] = sar[0];
    p->sar[1] = sar[1];
}

typedef struct sy__vstream sy__vstream;

typedef struct sy__vstream_ops {
    /* Hands one sample to the codec. *may_vanish = 1 when the codec may
     * legitimately never output a picture for it (HEVC RASL pictures). */
    sy_status (*send)(sy__vstream *s, const uint8_t *data, size_t len, uint32_t tag, int *may_vanish,
                      sy_error *err);
    /* End of stream: pictures still held become available to receive(). */
    sy_status (*finish)(sy__vstream *s, sy_error *err);
    /* The next picture in presentation order, if one is ready (*got = 1):
     * planes borrowed until release(); *tag = its sample's tag. */
    sy_status (*receive)(sy__vstream *s, sy__yuv *pic, uint32_t *tag, int *got, sy_error *err);
    void (*release)(sy__vstream *s);
    void (*destroy)(sy__vstream *s);
    /* 1 when no other picture is predicted from this sample's picture (a
     * well-framed sample, before send()): a consumer that needs only a later
     * picture may leave it unsent. HEVC: a sub-layer non-reference picture
     * in a stream of one temporal sub-layer (with more, higher sub-layers may
     * refer to it); H.264: nal_ref_idc 0. Cautious: 0 when unsure. */
    int (*disposable)(const sy__vstream *s, const uint8_t *data, size_t len);
    /* 1 when decoding may start at this sample although earlier samples were
     * decoded (no later sample refers to a picture before it): HEVC an IDR
     * or BLA (not a CRA: with earlier pictures decoded, its leading pictures
     * are decoded too and would miss theirs); H.264 an IDR. Cautious: 0 when
     * unsure. */
    int (*random_access)(const sy__vstream *s, const uint8_t *data, size_t len);
} sy__vstream_ops;

struct sy__vstream {
    const sy__vstream_ops *ops;
    sy_context *ctx;
    sy__vstream_params params;
};

/* Decoding threads a stream decoder starts with: the online cores plus one
 * (one with a single core), at most SY__VSTREAM_MAX_THREADS, unless set. Set
 * is process-wide and read when a decoder is created (0 = back to
 * automatic); tests use it to compare thread counts, whose output must be
 * bit-exact. */
#define SY__VSTREAM_MAX_THREADS 4
void sy__vstream_set_threads(int threads);
int sy__vstream_threads(void);

#endif
