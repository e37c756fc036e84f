/* sy_layout.h — where each cell goes (engine-private). */
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

/* infos[i] may be NULL for an unreadable input (long layout gives it a 4:3 slot).
 * `even` = 1 keeps every cell edge on even coordinates (4:2:0 output). */
sy_status sy__layout_compute(sy_context *ctx, const sy_collage_options *opts, const sy_image_info *const *infos,
                             uint32_t count, int even, sy__layout *out, sy_error *err);
void sy__layout_free(sy_context *ctx, sy__layout *layout);

/* Grid template for n photos: columns (rows = ceil(n / columns)). */
uint32_t sy__grid_columns(uint32_t n);

#endif
