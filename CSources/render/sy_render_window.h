/* sy_render_window.h — the one frame renderer fed a sliding window of source
 * rows (engine-private). Collage cells use it to render strip-wise from a
 * decoder that streams rows top to bottom: they never hold the whole source.
 *
 * A band's bytes are the same as sy_renderer_render_rows over the whole
 * source would give (the renderer reads only the rows reported here). */
#ifndef SY_RENDER_WINDOW_H
#define SY_RENDER_WINDOW_H

#include "sy_render.h"

/* Source rows [*first, *last] that target rows [y0, y0 + count) read.
 * Returns 0 when those target rows read no source (border rows only). */
int sy__renderer_source_rows(const sy_renderer *r, uint32_t y0, uint32_t count, uint32_t *first, uint32_t *last);

/* sy_renderer_render_rows where `rows` holds only source rows
 * [first, first + n) (`stride` bytes apart, plus 16 readable bytes after the
 * last row) which must cover sy__renderer_source_rows for the band. */
sy_status sy__renderer_render_window(const sy_renderer *r, const uint8_t *rows, size_t stride, uint32_t first,
                                     uint32_t n, uint32_t y0, uint32_t count, uint8_t *dst, size_t dst_stride,
                                     sy_error *err);

#endif
