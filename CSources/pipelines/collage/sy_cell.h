/* sy_cell.h — one prepared collage cell: an input decoded, cropped, resampled
 * and turned upright at exactly the size the layout gives it (engine-private).
 *
 * Pixels are planar. For JPEG output (chroma_shift 1) the planes are YCbCr
 * 4:2:0, ready for libjpeg's raw-data writer; for PNG output (chroma_shift 0)
 * they are full resolution in the source's own kind (RGB or YCbCr). */
#ifndef SY_CELL_H
#define SY_CELL_H

#include "base/sy_source.h"
#include "color/sy_color_transform.h"

typedef struct sy__cell {
    uint32_t width, height;     /* upright, even when chroma_shift is 1 */
    uint32_t chroma_shift;      /* 1 = 4:2:0, 0 = 4:4:4 */
    sy__pixels pixels;          /* kind of the planes (always YCC for 4:2:0) */
    uint8_t *plane[3];          /* one allocation; plane[1], plane[2] point into it */
    uint32_t stride[3];
    size_t bytes;
} sy__cell;

/* Bytes the planes of a width x height cell take. */
size_t sy__cell_plane_bytes(uint32_t width, uint32_t height, uint32_t chroma_shift);

/* What a collage job holds at most (SPEC C13: 12 MB strip-wise), and what of
 * it stays for the strip, its encoder and the cell renderer's rows; the rest,
 * less the cell being built, is what a decoder may use for extra threads. */
#define SY__COLLAGE_JOB_BYTES (12u << 20)
#define SY__COLLAGE_STRIP_RESERVE (3u << 20)

/* A cell read while it is built: `begin` runs once its planes exist (no row
 * final yet), `rows` each time more upright rows are final — always the first
 * `ready` rows, in order. Both run on the building thread. A cell is streamed
 * only when its rows are stored in order (upright or mirrored sideways);
 * otherwise neither runs and the cell is whole when the build returns. */
typedef struct sy__cell_stream {
    void (*begin)(void *user, const sy__cell *cell);
    void (*rows)(void *user, uint32_t ready);
    void *user;
} sy__cell_stream;

/* Decodes `path` (probed as `info`) into `cell`, opening its decoder at the
 * smallest scale that covers the cell, on up to `threads` threads (HEIF tile
 * rows) within the job's memory, announcing rows through `stream` (NULL =
 * none). *working_bytes (if non-NULL) receives the decoder's working estimate
 * (what it needs with one thread). On failure the cell holds nothing — unless
 * `stream` began it: then it keeps its planes (the rows announced are final)
 * for the caller to finish and release. The cell's bytes do not depend on
 * `threads`. */
sy_status sy__cell_build(sy_context *ctx, const char *path, const sy_image_info *info, uint32_t width,
                         uint32_t height, uint32_t chroma_shift, uint32_t threads, sy__rgb_space space,
                         const sy__cell_stream *stream, sy__cell *cell, size_t *working_bytes, sy_error *err);

/* The transform from `path`'s colour into the collage's output `space`
 * (*out = NULL when none is needed, or when the source's profile cannot be
 * used: the pixels are then taken as they are, as a viewer without colour
 * management would). Destroy with sy__color_transform_destroy. */
sy_status sy__cell_colour_open(sy_context *ctx, const char *path, const sy_image_info *info, sy__rgb_space space,
                               sy__color_transform **out, sy_error *err);

/* The same from an already open source (which may deliver a scaled frame).
 * The cell is sy_renderer output for the identity recipe — the source
 * centre-cropped to cover the cell's aspect — fed strip-wise, so its R'G'B'
 * bytes equal sy_render over the whole decoded frame (before the 4:2:0
 * conversion when chroma_shift is 1), then `colour` (NULL = none) takes them
 * into the output space. */
sy_status sy__cell_from_source(sy_context *ctx, sy__source *src, uint32_t width, uint32_t height,
                               uint32_t chroma_shift, const sy__color_transform *colour,
                               const sy__cell_stream *stream, sy__cell *cell, sy_error *err);

/* Paints a neutral grey cell (128,128,128 — in YCbCr 128,128,128 as well). */
sy_status sy__cell_grey(sy_context *ctx, uint32_t width, uint32_t height, uint32_t chroma_shift, sy__cell *cell,
                        sy_error *err);

/* Paints rows [from, height) grey: the rest of a streamed cell whose build
 * failed (`from` even for 4:2:0 cells, as announced rows are). */
void sy__cell_grey_rows(sy__cell *cell, uint32_t from);

/* Gives back the pages of rows [0, rows) of a streamed cell its reader is
 * done with (whole pages only; `rows` even for 4:2:0 cells). */
void sy__cell_discard_rows(sy_context *ctx, sy__cell *cell, uint32_t rows);

void sy__cell_release(sy_context *ctx, sy__cell *cell);

#endif
