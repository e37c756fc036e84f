/* sy_edit_thumbnail.h — a HEIC save's new `thmb` thumbnail (engine-private):
 * the rendered image's rows, as the one renderer hands them to the still
 * writer, averaged into cells of a small image whose longer side is the
 * source thumbnail's, so it shows the edit (not the old picture) without a
 * second render. Memory: 16 bytes per thumbnail pixel while it accumulates. */
#ifndef SY_EDIT_THUMBNAIL_H
#define SY_EDIT_THUMBNAIL_H

#include "base/sy_internal.h"
#include "still/sy_still_internal.h"

typedef struct sy__thumbnail {
    sy_context *ctx;
    uint32_t src_w, src_h; /* the rendered image */
    uint32_t w, h;         /* the thumbnail; 0 x 0 = none */
    uint32_t rows_in;
    uint32_t *sum;         /* w * h * 3 channel sums */
    uint32_t *count;       /* w * h pixels per cell */
} sy__thumbnail;

/* A thumbnail of a src_w x src_h image with longer side `side` (at most the
 * image's; aspect kept; sides even where they can be). */
sy_status sy__thumbnail_open(sy_context *ctx, uint32_t src_w, uint32_t src_h, uint32_t side, sy__thumbnail *t,
                             sy_error *err);
/* The next `rows` rendered rows, top to bottom. */
void sy__thumbnail_rows(sy__thumbnail *t, const uint8_t *px, size_t stride, uint32_t rows);
/* The averaged thumbnail into the still writer (after every row). */
sy_status sy__thumbnail_write(sy__thumbnail *t, sy__still_writer *w, sy_error *err);
void sy__thumbnail_free(sy__thumbnail *t);

#endif
