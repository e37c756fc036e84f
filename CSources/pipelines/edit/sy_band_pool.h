/* sy_band_pool.h — multi-threaded row-band rendering for the still paths
 * (engine-private; see band_pool.c). */
#ifndef SY_BAND_POOL_H
#define SY_BAND_POOL_H

#include "base/sy_internal.h"
#include "sy_render.h"

#define SY__POOL_MIN_BAND_ROWS 64u      /* at least two renderer sub-bands per call */
#define SY__POOL_BAND_BYTES (1u << 20)  /* ring mode: about this many output bytes per band */
#define SY__POOL_SLOTS 4u               /* band buffers in ring mode */

/* Receives band rows [y0, y0 + rows) in order, on the calling thread. */
typedef sy_status (*sy__band_consumer)(void *user, uint32_t y0, uint32_t rows, const uint8_t *px, size_t stride,
                                       sy_error *err);

/* Renders all of r's target with `threads` threads (1..8, the calling thread
 * included). With `whole` (stride `whole_stride`) the bands land there;
 * without, they go through a ring to `consume`. The first failure (a band's
 * or the consumer's) stops the rest and is returned. */
sy_status sy__render_bands(sy_context *ctx, const sy_renderer *r, const sy_pixels *src, uint32_t threads,
                           uint8_t *whole, size_t whole_stride, sy__band_consumer consume, void *user,
                           sy_error *err);

#endif
