/* sy_render_held.h — a renderer's downscale grid kept across renderers of
 * one decoded source (engine-private). An editor's slider preview changes
 * colours, not geometry: every render of a drag samples the same grid, so
 * the session resamples the source once per crop instead of once per
 * render. Grid values depend only on the source, the axes and the grid
 * index (see resize.c), so a held grid gives the same bytes as resampling. */
#ifndef SY_RENDER_HELD_H
#define SY_RENDER_HELD_H

#include "sy_render.h"

typedef struct sy__held_grid sy__held_grid;

/* Makes `r` read its grid from `*held`: keeps `*held` when it is the grid
 * of the same source buffer and axes covering what `r` samples, else
 * replaces it with a new one computed on up to `threads` threads. A renderer
 * without a grid, or whose grid is above the piece cap, holds nothing (and
 * `*held` is left as it is). The caller frees `*held` when the source pixels
 * change (a new decode may reuse the buffer's address) and keeps it alive as
 * long as `r` renders. */
sy_status sy__renderer_hold_grid(sy_context *ctx, sy_renderer *r, const sy_pixels *src, uint32_t threads,
                                 sy__held_grid **held, sy_error *err);

void sy__held_grid_free(sy_context *ctx, sy__held_grid *g);

#endif
