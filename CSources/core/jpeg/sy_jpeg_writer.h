/* sy_jpeg_writer.h — streaming baseline JPEG encoder fed with YCbCr 4:2:0
 * planes, 16 rows at a time (libjpeg raw-data API: no colour conversion or
 * downsampling inside libjpeg). Standard Huffman tables and a single scan, so
 * libjpeg never buffers the image. (engine-private) */
#ifndef SY_JPEG_WRITER_H
#define SY_JPEG_WRITER_H

#include <stdio.h>
#include "base/sy_internal.h"

typedef struct sy__jpeg_writer sy__jpeg_writer;

/* Rows per strip the writer consumes (one iMCU row of 4:2:0). */
#define SY__JPEG_STRIP_ROWS 16

/* Padded plane widths the strip buffers must have (multiples of 16 / 8). */
uint32_t sy__jpeg_luma_stride(uint32_t width);
uint32_t sy__jpeg_chroma_stride(uint32_t width);

sy_status sy__jpeg_writer_create(sy_context *ctx, FILE *file, const char *path, uint32_t width, uint32_t height,
                                 int quality, sy__jpeg_writer **out, sy_error *err);
/* Writes APP markers (Exif APP1, XMP APP1, ICC APP2 chunks) before the first strip.
 * Any pointer may be NULL. */
sy_status sy__jpeg_writer_write_metadata(sy__jpeg_writer *w, const uint8_t *exif_tiff, size_t exif_len,
                                         const uint8_t *xmp, size_t xmp_len, const uint8_t *icc, size_t icc_len,
                                         sy_error *err);
/* One more APPn segment (`marker` 0xE0..0xEF) with `len` payload bytes, before the first strip. */
sy_status sy__jpeg_writer_write_marker(sy__jpeg_writer *w, int marker, const uint8_t *data, size_t len, sy_error *err);
/* One strip: 16 luma rows and 8 rows of each chroma plane, strides as above,
 * columns past `width` already padded by the caller. The last strip may extend
 * beyond the image height (the extra rows only pad the last MCU row). */
sy_status sy__jpeg_writer_write_strip(sy__jpeg_writer *w, uint8_t *const *y_rows, uint8_t *const *cb_rows,
                                      uint8_t *const *cr_rows, sy_error *err);
sy_status sy__jpeg_writer_finish(sy__jpeg_writer *w, sy_error *err);
void sy__jpeg_writer_destroy(sy__jpeg_writer *w);

#endif
