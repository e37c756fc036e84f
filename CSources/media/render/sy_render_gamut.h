/* sy_render_gamut.h — a renderer whose output is in other primaries than its
 * source (engine-private). A moving collage draws Display P3 iPhone movies
 * and sRGB ones onto one canvas: each cell's frames are converted into the
 * canvas's primaries on their way through the renderer, in linear light
 * where the renderer already is (the downscale's sums), so the conversion
 * costs a 3x3 per output pixel rather than a colour transform per frame. */
#ifndef SY_RENDER_GAMUT_H
#define SY_RENDER_GAMUT_H

#include "sy_render.h"

/* sy_renderer_create, with `gamut` (linear RGB source -> linear RGB output,
 * row-major, or NULL for none) applied before any colour adjustment.
 * Values the output's primaries cannot hold are clipped. */
sy_status sy__renderer_create_gamut(sy_context *ctx, const sy_recipe *recipe, uint32_t src_w, uint32_t src_h,
                                    uint32_t dst_w, uint32_t dst_h, const float gamut[9], sy_renderer **out,
                                    sy_error *err);

#endif
