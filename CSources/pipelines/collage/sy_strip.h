/* sy_strip.h — the strip sink: one 16-row band of the output, composed from
 * background and cells, then handed to the streaming encoder (engine-private).
 * JPEG strips are planar YCbCr 4:2:0 (jpeg/sy_jpeg_writer.h's strip, padded
 * by the writer); PNG and HEIC strips are RGB rows (the HEIF writer gathers a
 * tile row and encodes it). Collages carry no photo metadata (so no
 * location), only their colour profile and gain-map blocks or images. */
#ifndef SY_STRIP_H
#define SY_STRIP_H

#include <stdio.h>
#include "collage/sy_cell.h"
#include "sy_collage.h"
#include "collage/sy_layout.h"
#include "jpeg/sy_jpeg_writer.h"
#include "still/sy_still_internal.h"

#define SY__STRIP_ROWS SY__JPEG_STRIP_ROWS

typedef struct sy__strip_sink sy__strip_sink;

sy_status sy__strip_sink_create(sy_context *ctx, FILE *file, const char *path, const sy_collage_options *opts,
                                uint32_t width, uint32_t height, sy__rgb_space space,
                                const sy__still_extra *extra, sy__strip_sink **out, sy_error *err);
/* (`file`: the JPEG/PNG output's temp file; NULL for HEIC, whose writer
 * makes its own and renames it at finish. `space` is the cells' colour
 * space: Display P3 is tagged with its ICC profile and the background, given
 * in sRGB, is converted into it. `extra` (may be NULL) adds the XMP and APP2
 * blocks of a collage's gain map, whose jpeg_finish appends the map after
 * sy__strip_sink_finish; for HEIC its heic_finish runs inside finish.) */
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
