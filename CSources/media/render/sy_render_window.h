/* sy_render_window.h — the one frame renderer fed a sliding window of source
 * rows (engine-private). Collage cells use it to render strip-wise from a
 * decoder that streams rows top to bottom: they never hold the whole source.
 *
 * A band's bytes are the same as sy_renderer_render_rows over the whole
 * source would give (the renderer reads only the rows reported here). */
#ifndef SY_RENDER_WINDOW_H
#define SY_RENDER_WINDOW_H

#include "sy_render.h"
#include "base/sy_source.h"

/* Source rows [*first, *last] that target rows [y0, y0 + count) read.
 * Returns 0 when those target rows read no source (border rows only). */
int sy__renderer_source_rows(const sy_renderer *r, uint32_t y0, uint32_t count, uint32_t *first, uint32_t *last);

/* sy_renderer_render_rows where `rows` holds only source rows
 * [first, first + n) (`stride` bytes apart, plus 16 readable bytes after the
 * last row) which must cover sy__renderer_source_rows for the band. */
sy_status sy__renderer_render_window(const sy_renderer *r, const uint8_t *rows, size_t stride, uint32_t first,
                                     uint32_t n, uint32_t y0, uint32_t count, uint8_t *dst, size_t dst_stride,
                                     sy_error *err);

/* Receives target row y (dst_w * 3 bytes of R'G'B', the sink may modify it). */
typedef sy_status (*sy__render_sink)(void *user, uint32_t y, uint8_t *row, sy_error *err);

/* Renders all of `r`'s target from `src` (whose size must be the renderer's
 * source size; YCbCr rows are converted to R'G'B' first), top to bottom in
 * bands of up to 16 rows, reading the decoder's rows once, in order, and
 * holding at most ~2 MiB of them. Rows no band reads are skipped, rows after
 * the last band are left unread. */
sy_status sy__render_source(sy_context *ctx, sy__source *src, const sy_renderer *r, sy__render_sink sink, void *user,
                            sy_error *err);

#endif
