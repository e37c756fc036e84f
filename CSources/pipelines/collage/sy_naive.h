/* sy_naive.h — the benchmark baseline: decode every input at full size and
 * keep them all, compose one full canvas, then encode it (engine-private). */
#ifndef SY_NAIVE_H
#define SY_NAIVE_H

#include "collage/sy_prefetch.h"
#include "collage/sy_strip.h"

sy_status sy__naive_render(sy_context *ctx, sy__cell_job *jobs, const sy__layout *layout,
                           uint32_t chroma_shift, sy__strip_sink *sink, sy_error *err);

#endif
