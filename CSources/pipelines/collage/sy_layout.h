/* sy_layout.h — where each cell goes (engine-private).
 *
 * Shared by still and moving collages. Two layouts:
 *   long — photos stacked at a common width, each at its own aspect.
 *   grid — 2..30 photos in a template that tiles the canvas's inner area
 *          exactly: no empty cell, every gap is exactly `spacing`.
 *
 * Grid templates (opts->columns == 0), chosen by photo count n:
 *   - base column count c: 2 up to 4 photos, 3 up to 9, 4 up to 16, 5 up to 25,
 *     6 up to 30; rows = ceil(n / c);
 *   - the photos are spread over the rows as evenly as possible, the rows with
 *     fewer (so larger) cells on top: 5 = 2+3, 7 = 2+2+3, 8 = 2+3+3,
 *     10 = 3+3+4, 13 = 3+3+3+4, 26 = 5+5+5+5+6; n = rows x c stays uniform
 *     (4 = 2+2, 9 = 3x3, 30 = 6x5);
 *   - 3 photos whose first is portrait: one tall cell on the left, the other
 *     two stacked on the right ("one big, two small"); otherwise 1+2, a wide
 *     cell over two;
 *   - cells take their photo's orientation: in a row every cell has the
 *     row's height and a width in proportion to its photo's aspect ratio,
 *     clamped to 3:4 .. 4:3 (portrait photos get taller, narrower cells; a row of
 *     portraits is taller); an unreadable photo counts as square.
 * Explicit columns (opts->columns = N): rows of N equal cells of one height
 * (the full rows' cells are square up to 4:2:0 rounding); a shorter last row's
 * cells are widened so the row still fills the width.
 *
 * Either way photos keep their input order, which is also reading order
 * (cells sorted by top edge, then left edge) — the strip loop relies on it.
 * The inner area is [margin, margin + inner_width) x [margin, height - margin)
 * with inner_width = width - 2 * margin (rounded down to even when `even`).
 */
#ifndef SY_LAYOUT_H
#define SY_LAYOUT_H

#include "sy_collage.h"

typedef struct sy__rect {
    uint32_t x, y, width, height;
} sy__rect;

typedef struct sy__layout {
    uint32_t width, height;
    uint32_t count;
    sy__rect *cells;   /* count rects in input order, sorted by y then x */
    int scaled_to_fit; /* canvas shrunk for JPEG_MAX_DIMENSION */
    double scale;      /* final width / requested width */
} sy__layout;

/* infos[i] may be NULL for an unreadable input (long layout gives it a 4:3
 * slot, grid a square one). `even` = 1 keeps every cell edge on even
 * coordinates (4:2:0 output). `out->cells` is charged to `ctx`; release with
 * sy__layout_free. */
sy_status sy__layout_compute(sy_context *ctx, const sy_collage_options *opts, const sy_image_info *const *infos,
                             uint32_t count, int even, sy__layout *out, sy_error *err);
/* sy__layout_compute under a tighter height `limit` (0 = the format's), named
 * `limit_name` in messages: a moving collage's movie (HEVC's largest picture). */
sy_status sy__layout_compute_within(sy_context *ctx, const sy_collage_options *opts, const sy_image_info *const *infos,
                                    uint32_t count, int even, uint32_t limit, const char *limit_name, sy__layout *out,
                                    sy_error *err);
void sy__layout_free(sy_context *ctx, sy__layout *layout);

/* Most rows a grid has (30 photos in the narrowest template). */
#define SY__GRID_MAX_ROWS 30u

/* The grid's rows for n photos (2..30): per_row[0..rows) photos in each row,
 * top first. `columns` = 0 picks the template above, N > 0 rows of N with the
 * remainder last. Returns the number of rows. */
uint32_t sy__grid_rows(uint32_t n, uint32_t columns, uint32_t per_row[SY__GRID_MAX_ROWS]);

/* Places a grid of count (2..30) photos in the inner area at (x0, y0) that is
 * `inner` wide; returns the inner area's height, 0 when a cell would be
 * narrower than 2 px (the caller reports that as a usage error). */
uint64_t sy__grid_place(const sy_image_info *const *infos, uint32_t count, uint32_t columns, uint32_t x0,
                        uint32_t y0, uint32_t inner, uint32_t spacing, int even, sy__rect *cells);

#endif
