/* sy_strip.h — the strip sink: one 16-row band of the output, composed from
 * background and cells, then handed to the streaming encoder (engine-private).
 * JPEG strips are planar YCbCr 4:2:0; PNG strips are RGB rows. */
#ifndef SY_STRIP_H
#define SY_STRIP_H

#include <stdio.h>
#include "collage/sy_cell.h"
#include "sy_collage.h"
#include "collage/sy_layout.h"

#define SY__STRIP_ROWS 16

typedef struct sy__strip_sink sy__strip_sink;

sy_status sy__strip_sink_create(sy_context *ctx, FILE *file, const char *path, const sy_collage_options *opts,
                                uint32_t width, uint32_t height, sy__strip_sink **out, sy_error *err);
/* Writes Exif/XMP/ICC into the output before the first strip (conversions;
 * collages write none, so they carry no location). */
struct sy__metadata;
sy_status sy__strip_sink_write_metadata(sy__strip_sink *s, const struct sy__metadata *md, sy_error *err);
/* The PNG part of the above on a bare PNG writer (eXIf, iCCP, iTXt XMP), for
 * the still writer (CSources/edit). */
struct sy__png_writer;
sy_status sy__png_writer_add_metadata(sy_context *ctx, struct sy__png_writer *png, const struct sy__metadata *md,
                                      sy_error *err);
/* Starts the strip at row y0 (a multiple of 16) painted with the background. */
void sy__strip_begin(sy__strip_sink *s, uint32_t y0);
/* Copies the part of `cell` (placed at `rect`) that falls in the current strip. */
void sy__strip_put(sy__strip_sink *s, const sy__cell *cell, const sy__rect *rect);
/* Encodes the current strip. */
sy_status sy__strip_flush(sy__strip_sink *s, sy_error *err);
/* Ends the stream (all strips written). */
sy_status sy__strip_sink_finish(sy__strip_sink *s, sy_error *err);
void sy__strip_sink_destroy(sy__strip_sink *s);

#endif
