/* sy_color.h — JFIF (BT.601 full-range) YCbCr <-> R'G'B' in 16-bit fixed
 * point, shared by the cell builder, the strip sink and conversions. */
#ifndef SY_COLOR_H
#define SY_COLOR_H

#include <stddef.h>
#include <stdint.h>

static inline uint8_t sy__clamp8(int v) { return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v; }

static inline void sy__rgb_to_ycc(const uint8_t rgb[3], uint8_t ycc[3]) {
    int r = rgb[0], g = rgb[1], b = rgb[2];
    ycc[0] = sy__clamp8((19595 * r + 38470 * g + 7471 * b + 32768) >> 16);
    ycc[1] = sy__clamp8((-11059 * r - 21709 * g + 32768 * b + (128 << 16) + 32768) >> 16);
    ycc[2] = sy__clamp8((32768 * r - 27439 * g - 5329 * b + (128 << 16) + 32768) >> 16);
}

/* In place, `width` interleaved pixels. */
static inline void sy__rgb_to_ycc_row(uint8_t *row, uint32_t width) {
    for (uint32_t x = 0; x < width; x++) sy__rgb_to_ycc(row + 3 * x, row + 3 * x);
}

/* Planar Y, Cb, Cr (same resolution) to interleaved RGB. */
static inline void sy__ycc_planes_to_rgb(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, uint8_t *out,
                                         uint32_t n) {
    for (uint32_t x = 0; x < n; x++) {
        int Y = y[x] << 16, u = cb[x] - 128, v = cr[x] - 128;
        out[3 * x] = sy__clamp8((Y + 91881 * v + 32768) >> 16);
        out[3 * x + 1] = sy__clamp8((Y - 22554 * u - 46802 * v + 32768) >> 16);
        out[3 * x + 2] = sy__clamp8((Y + 116130 * u + 32768) >> 16);
    }
}

/* In place: `n` interleaved JFIF YCbCr pixels to R'G'B' (same arithmetic as above). */
static inline void sy__ycc_row_to_rgb(uint8_t *row, uint32_t n) {
    for (uint32_t x = 0; x < n; x++) {
        uint8_t *p = row + 3 * (size_t)x;
        int Y = p[0] << 16, u = p[1] - 128, v = p[2] - 128;
        p[0] = sy__clamp8((Y + 91881 * v + 32768) >> 16);
        p[1] = sy__clamp8((Y - 22554 * u - 46802 * v + 32768) >> 16);
        p[2] = sy__clamp8((Y + 116130 * u + 32768) >> 16);
    }
}

/* The same over `n` rows of `width` pixels (vectorized; ycc_rows.c). */
void sy__ycc_rows_to_rgb(uint8_t *const *rows, uint32_t n, uint32_t width);

#endif
