/* sy_gif_palette.h — one palette for a whole GIF, chosen in Oklab, and the
 * mapping of RGB frames onto it with ordered dithering (engine-private).
 *
 * Order: histogram_create -> histogram_add (sampled frames) -> palette_build
 * -> mapper_create -> mapper_row (every row of every frame) -> destroy both.
 * Why one shared palette and an ordered (Bayer) dither: a pixel that does not
 * change between frames maps to the same index in every frame, so a still
 * background neither shimmers nor costs bytes (the writer makes it
 * transparent); error diffusion and per-frame palettes both move the noise
 * from frame to frame. Memory: the histogram 1.1 MB (32768 bins of 5 bits per
 * channel, 4096 flat-colour counters), the mapper's nearest-colour cache 1.25 MB (2^18 exact colours,
 * direct-mapped, filled on first use). Not thread-safe: one job per builder and mapper. */
#ifndef SY_GIF_PALETTE_H
#define SY_GIF_PALETTE_H

#include "base/sy_internal.h"

typedef struct sy__gif_histogram sy__gif_histogram;
typedef struct sy__gif_mapper sy__gif_mapper;

sy_status sy__gif_histogram_create(sy_context *ctx, sy__gif_histogram **out, sy_error *err);
/* Counts every pixel of an RGB image (rows of width*3 bytes at `stride`). */
void sy__gif_histogram_add(sy__gif_histogram *h, const uint8_t *rgb, size_t stride, uint32_t width, uint32_t height);
/* Up to `colors` (2..256) entries: median cut on the histogram in Oklab, refined
 * by k-means, then each flat colour (an exact colour of runs covering >= 0.5%
 * of the pixels, at most 16) put in exactly; *count gets the number made
 * (fewer when the frames have fewer colours). */
sy_status sy__gif_palette_build(sy__gif_histogram *h, uint32_t colors, uint8_t palette[256 * 3], uint32_t *count,
                                sy_error *err);
void sy__gif_histogram_destroy(sy__gif_histogram *h);

/* `amplitude` = the dither's peak-to-peak offset in 8-bit sRGB units (0 = none). */
sy_status sy__gif_mapper_create(sy_context *ctx, const uint8_t *palette, uint32_t count, float amplitude,
                                sy__gif_mapper **out, sy_error *err);
/* Row `y` of an image: palette indices of width RGB pixels, dithered by position. */
void sy__gif_mapper_row(sy__gif_mapper *m, const uint8_t *rgb, uint32_t width, uint32_t y, uint8_t *indices);
void sy__gif_mapper_destroy(sy__gif_mapper *m);

#endif
