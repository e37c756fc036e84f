/* sy_render_stretch.h — a renderer for pictures whose samples are not square
 * (engine-private). A movie may store its pictures anamorphic: 1440x1080
 * samples each 4/3 as wide as tall, shown 1920x1080 (the stream's VUI sample
 * aspect ratio, the sample entry's `pasp`). Every picture made of such a
 * movie has the displayed shape, so its frames are resampled on one axis —
 * by the one renderer, whose downscale and cubic paths already take a scale
 * per axis. */
#ifndef SY_RENDER_STRETCH_H
#define SY_RENDER_STRETCH_H

#include "sy_render.h"

/* sy_renderer_create with the identity recipe, except that the whole source
 * fills the whole dst_w x dst_h target, each axis scaled on its own (the
 * source's samples are dst_w/src_w : dst_h/src_h as wide as tall), rather
 * than covering it with a centre crop. */
sy_status sy__renderer_create_stretched(sy_context *ctx, uint32_t src_w, uint32_t src_h, uint32_t dst_w,
                                        uint32_t dst_h, sy_renderer **out, sy_error *err);

#endif
