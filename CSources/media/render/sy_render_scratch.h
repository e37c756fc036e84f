/* sy_render_scratch.h — grid rows kept from one render to the next
 * (engine-private). A caller that renders frame after frame of one source
 * shape (a movie into its collage cell, a transcode's frames) passes the same
 * scratch every time: the downscaled grid rows land in it instead of in a
 * block allocated, faulted in and freed per frame — on the 2x2 benchmark
 * collage that block was 147,000 of the job's 262,000 page faults. The rows
 * are written whole before they are read, so the bytes are those of
 * sy_renderer_render_rows. One thread at a time per scratch; it grows to the
 * largest region a render needed and is freed with sy__render_scratch_free. */
#ifndef SY_RENDER_SCRATCH_H
#define SY_RENDER_SCRATCH_H

#include "sy_render.h"

typedef struct sy__render_scratch {
    sy_context *ctx; /* the context px was allocated from */
    uint16_t *px;
    size_t elements; /* capacity of px */
} sy__render_scratch;

/* sy_renderer_render_rows with its grid rows in `scratch` (a zeroed one to start). */
sy_status sy__renderer_render_rows_reusing(const sy_renderer *r, const sy_pixels *src, uint32_t y0, uint32_t count,
                                           uint8_t *dst, size_t dst_stride, sy__render_scratch *scratch,
                                           sy_error *err);

void sy__render_scratch_free(sy__render_scratch *scratch);

#endif
