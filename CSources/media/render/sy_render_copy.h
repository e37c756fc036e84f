/* sy_render_copy.h — whether a renderer only copies a rectangle
 * (engine-private). A transcode whose recipe crops and does nothing else can
 * then take the decoder's own Y'CbCr samples of that rectangle instead of
 * going through RGB and back, which blurs 4:2:0 chroma a little each time. */
#ifndef SY_RENDER_COPY_H
#define SY_RENDER_COPY_H

#include "sy_render.h"

/* 1 when every output pixel (u, v) is source pixel (x0 + u, y0 + v), bytes
 * unchanged (no turn, flip, scale, border, tone, colour, filter, vignette or
 * sharpening), with the rectangle's top-left in *x0, *y0; else 0. */
int sy__renderer_copies_rect(const sy_renderer *r, uint32_t *x0, uint32_t *y0);

#endif
