/* sy_hevc_attached.h — what a movie re-encode hands on with each picture,
 * waiting for the picture to come out of x265 (engine-private;
 * hevc_encoder.c): HDR10+ messages and Dolby Vision RPUs.
 *
 * An HDR10+ message (base/sy_hdr10plus.h) goes into a prefix SEI written
 * first in the picture's access unit. x265 3.5 could carry it
 * (x265_picture.userSEI), but reuses a recycled frame's payload buffer
 * without checking its size, so a longer message after a shorter one would
 * overrun it; the encoder writes the NAL unit itself instead. A Dolby Vision
 * RPU is a whole NAL unit (type 62) that must end the access unit: it is
 * written last, as it came. Both are matched to their picture by its pts; a
 * handful wait at a time (the pictures in x265's look-ahead and reorder
 * window). */
#ifndef SY_HEVC_ATTACHED_H
#define SY_HEVC_ATTACHED_H

#include "base/sy_internal.h"

typedef struct sy__hevc_attached {
    int64_t pts;
    size_t len;
    uint8_t *bytes;
} sy__hevc_attached;

typedef struct sy__hevc_attached_queue {
    sy__hevc_attached *items;
    uint32_t count, cap;
} sy__hevc_attached_queue;

/* Keeps a copy of `bytes` for the picture shown at `pts` (one per picture). */
sy_status sy__hevc_attached_add(sy_context *ctx, sy__hevc_attached_queue *q, int64_t pts, const uint8_t *bytes,
                                size_t len, sy_error *err);

/* As a T.35 message: bytes its length-prefixed prefix SEI NAL unit may take
 * (0 when none waits for `pts`); the NAL unit written to `out` (emulation
 * prevention applied), the message forgotten, the bytes written returned. */
size_t sy__hevc_attached_sei_bound(const sy__hevc_attached_queue *q, int64_t pts);
size_t sy__hevc_attached_take_sei(sy_context *ctx, sy__hevc_attached_queue *q, int64_t pts, uint8_t *out);

/* As a whole NAL unit: the same, written as it came after a 4-byte length. */
size_t sy__hevc_attached_nal_bound(const sy__hevc_attached_queue *q, int64_t pts);
size_t sy__hevc_attached_take_nal(sy_context *ctx, sy__hevc_attached_queue *q, int64_t pts, uint8_t *out);

void sy__hevc_attached_free(sy_context *ctx, sy__hevc_attached_queue *q);

#endif
