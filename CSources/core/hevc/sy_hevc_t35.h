/* sy_hevc_t35.h — user_data_registered_itu_t_t35 SEI messages waiting for
 * the pictures they go with (engine-private; hevc_encoder.c).
 *
 * A movie re-encode hands each picture's HDR10+ message (base/sy_hdr10plus.h)
 * on with the picture. x265 3.5 could carry it (x265_picture.userSEI), but
 * reuses a recycled frame's payload buffer without checking its size, so a
 * longer message after a shorter one would overrun it; the encoder writes
 * the SEI NAL unit itself instead, first in the picture's access unit, when
 * the picture comes out (matched by its pts). A handful wait at a time: the
 * pictures in x265's look-ahead and reorder window. */
#ifndef SY_HEVC_T35_H
#define SY_HEVC_T35_H

#include "base/sy_internal.h"

typedef struct sy__hevc_t35 {
    int64_t pts;
    size_t len;
    uint8_t *bytes;
} sy__hevc_t35;

typedef struct sy__hevc_t35_queue {
    sy__hevc_t35 *items;
    uint32_t count, cap;
} sy__hevc_t35_queue;

/* Keeps a copy of `payload` (the T.35 bytes, country code first) for the picture shown at `pts`. */
sy_status sy__hevc_t35_add(sy_context *ctx, sy__hevc_t35_queue *q, int64_t pts, const uint8_t *payload, size_t len,
                           sy_error *err);

/* Bytes the length-prefixed prefix SEI NAL unit of the message for `pts` may take; 0 when none waits. */
size_t sy__hevc_t35_bound(const sy__hevc_t35_queue *q, int64_t pts);

/* Writes that NAL unit (4-byte length prefix, emulation prevention applied)
 * to `out` (sy__hevc_t35_bound bytes at least), forgets the message, and
 * returns the bytes written; 0 when none waits for `pts`. */
size_t sy__hevc_t35_take(sy_context *ctx, sy__hevc_t35_queue *q, int64_t pts, uint8_t *out);

void sy__hevc_t35_free(sy_context *ctx, sy__hevc_t35_queue *q);

#endif
