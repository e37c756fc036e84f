/* sy_resample.h — streaming separable resampler (engine-private).
 *
 * Pulls source rows top to bottom from an sy__source, resamples a window of
 * it to dst_w x dst_h with a Catmull-Rom cubic widened by the scale factor
 * (antialiased downscale, sharp upscale), and pushes output rows in order.
 * Vertical pass first (vectorizable over whole rows), then horizontal.
 * Memory: a ring of `taps` source rows + two int32 rows + weight tables. */
#ifndef SY_RESAMPLE_H
#define SY_RESAMPLE_H

#include "../base/sy_source.h"

/* Receives output row y (dst_w * 3 bytes, same channel kind as the source). */
typedef sy_status (*sy__row_sink)(void *user, uint32_t y, const uint8_t *row, sy_error *err);

typedef struct sy__window {
    double x, y, width, height; /* in source pixels (edges, not centres) */
} sy__window;

sy_status sy__resample_stream(sy_context *ctx, sy__source *src, sy__window window, uint32_t dst_w,
                              uint32_t dst_h, sy__row_sink sink, void *user, sy_error *err);

#endif
