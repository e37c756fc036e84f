/* sy_gif_writer.h — a GIF89a writer (engine-private): one global colour
 * table, a looping animation (NETSCAPE2.0), frames as palette indices
 * compressed with our own variable-width LZW (codes up to 12 bits, a clear
 * code when the table fills).
 *
 * Order: open (header, screen, palette, loop) -> frame ... -> finish
 * (trailer) -> destroy. Each frame may cover a sub-rectangle of the screen
 * and mark one index transparent: the previous frame shows through it
 * (disposal "leave in place"). Memory: the LZW table (~48 KB) and one
 * 255-byte block; frames are streamed to the FILE, which the caller owns. */
#ifndef SY_GIF_WRITER_H
#define SY_GIF_WRITER_H

#include <stdio.h>

#include "base/sy_internal.h"

typedef struct sy__gif_writer sy__gif_writer;

/* `palette` holds `colors` (2..256) RGB triplets; the table is padded to a power of two. */
sy_status sy__gif_writer_open(sy_context *ctx, FILE *file, const char *path, uint32_t width, uint32_t height,
                              const uint8_t *palette, uint32_t colors, sy__gif_writer **out, sy_error *err);

/* One frame: the w x h rectangle at (x, y) of the screen, indices at `stride`
 * bytes per row, shown for delay_cs hundredths of a second; transparent =
 * the index that leaves the previous frame visible, or -1 for none. */
sy_status sy__gif_writer_frame(sy__gif_writer *g, const uint8_t *indices, size_t stride, uint32_t x, uint32_t y,
                               uint32_t w, uint32_t h, uint32_t delay_cs, int transparent, sy_error *err);

/* Writes the trailer and flushes (the FILE stays open). */
sy_status sy__gif_writer_finish(sy__gif_writer *g, sy_error *err);
void sy__gif_writer_destroy(sy__gif_writer *g);

#endif
