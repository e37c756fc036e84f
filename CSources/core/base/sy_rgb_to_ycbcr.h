/* sy_rgb_to_ycbcr.h — 8-bit R'G'B' -> Y'CbCr 4:2:0 for the HEVC encoders
 * (engine-private): BT.601, BT.709 or BT.2020 (non-constant luminance)
 * matrix, limited or full range, 16-bit fixed point. Chroma is sited as
 * HEVC decoders assume (type 0: on even columns, between row pairs): a
 * [1 2 1] filter across columns, averaged over the two rows (edges clamp).
 * Shared by the HEIF writer (tile rows) and the video encoder (whole frames). */
#ifndef SY_RGB_TO_YCBCR_H
#define SY_RGB_TO_YCBCR_H

#include <stddef.h>
#include <stdint.h>

typedef struct sy__ycbcr_matrix {
    int32_t yr, yg, yb, y_offset;
    int32_t ur, ug, ub, vr, vg, vb;
} sy__ycbcr_matrix;

/* matrix_coefficients as in ISO/IEC 23091-2: 1 (BT.709), 5 or 6 (BT.601),
 * 9 (BT.2020 NCL). Returns 0 for any other value (m untouched). */
int sy__ycbcr_matrix_init(sy__ycbcr_matrix *m, uint16_t matrix_coefficients, int full_range);

/* `width` luma samples from one interleaved RGB row. */
void sy__rgb_to_luma_row(const sy__ycbcr_matrix *m, const uint8_t *rgb, uint32_t width, uint8_t *y);

/* (width + 1) / 2 Cb and Cr samples from two RGB rows (a == b for a lone last row). */
void sy__rgb_to_chroma420_row(const sy__ycbcr_matrix *m, const uint8_t *a, const uint8_t *b, uint32_t width,
                              uint8_t *cb, uint8_t *cr);

/* A whole picture: plane[0] gets width x height luma samples, plane[1..2]
 * (width+1)/2 x (height+1)/2 chroma samples, rows `stride[i]` bytes apart. */
void sy__rgb_to_ycbcr420(const sy__ycbcr_matrix *m, const uint8_t *rgb, size_t rgb_stride, uint32_t width,
                         uint32_t height, uint8_t *const plane[3], const size_t stride[3]);

/* Only what the rectangle [x0, x1) x [y0, y1) of an RGB picture determines:
 * its luma samples and every chroma sample whose filter reaches into it, the
 * same values sy__rgb_to_ycbcr420 gives them; every other sample is left as
 * it was. For a picture that changed only inside the rectangle since the
 * planes were last filled. `scratch`: width + 4 bytes. */
void sy__rgb_to_ycbcr420_rect(const sy__ycbcr_matrix *m, const uint8_t *rgb, size_t rgb_stride, uint32_t width,
                              uint32_t height, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1,
                              uint8_t *const plane[3], const size_t stride[3], uint8_t *scratch);

#endif
