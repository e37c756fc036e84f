/* sy_orient.h — an EXIF orientation (1..8) as one map from stored pixels to
 * upright ones, and the band-wise placement of stored RGB rows that every
 * upright producer shares (engine-private): the still decode (upright.c),
 * video frames (frame_orient.c, whose track matrix is first named as an EXIF
 * orientation) and collage cells (planar, through the map itself).
 *
 * Stored pixel (x, y) of a stored_w x stored_h picture lands at upright
 *   ux = x0 + xx * x + xy * y,   uy = y0 + yx * x + yy * y.
 * Orientations 1-4 keep rows as rows (xy = yx = 0); 5-8 transpose. */
#ifndef SY_ORIENT_H
#define SY_ORIENT_H

#include <stddef.h>
#include <stdint.h>

typedef struct sy__orient {
    uint8_t orientation;   /* 1..8 */
    uint32_t width, height; /* upright size */
    uint32_t stored_width;
    int32_t x0, xx, xy, y0, yx, yy;
} sy__orient;

/* The map of `orientation` (outside 1..8 is taken as 1, as the decoders do). */
sy__orient sy__orient_plan(uint8_t orientation, uint32_t stored_w, uint32_t stored_h);

/* A track matrix — rotated `rotation` degrees clockwise (0, 90, 180, 270),
 * then flipped horizontally when `mirrored` — as the EXIF orientation that
 * displays the same picture. */
uint8_t sy__orient_from_rotation(uint32_t rotation, int mirrored);

static inline int sy__orient_transposes(const sy__orient *m) { return m->orientation >= 5; }

/* ---- band-wise placement of RGB8 rows (3 bytes per pixel) ----
 *
 * For stored rows [y0, y0 + n) (n <= 16): sy__orient_band_rows gives the
 * row pointers to decode into — for 1-4 the upright rows of `dst` themselves
 * (flipped vertically by choosing the row), for 5-8 the n rows of `band`
 * (stored_w * 3 bytes each). Once they are filled, sy__orient_band_place
 * mirrors them in place (2, 3) or scatters the band (5-8), so each upright
 * row receives a run of n neighbouring pixels per band rather than one pixel
 * per cache line. */
void sy__orient_band_rows(const sy__orient *m, uint8_t *dst, size_t stride, uint8_t *band, uint32_t y0, uint32_t n,
                          uint8_t **rows);
void sy__orient_band_place(const sy__orient *m, uint8_t *const *rows, uint32_t y0, uint32_t n, uint8_t *dst,
                           size_t stride);

#endif
