/* sy_jpeg_writer.h — streaming baseline JPEG encoder fed with YCbCr 4:2:0
 * planes, 16 rows at a time (libjpeg raw-data API: no colour conversion or
 * downsampling inside libjpeg). Standard Huffman tables and a single scan, so
 * libjpeg never buffers the image. (engine-private)
 * Order: create, markers (metadata), strips (or R'G'B' rows for a writer
 * made by sy__jpeg_writer_create_rgb), finish, destroy. */
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

/* One strip of planes for the writer, in one allocation: 16 luma rows and
 * 8 rows of each chroma plane, with the strides above. Producers (the still
 * writer, the collage strips) fill the real rows and columns, then
 * sy__jpeg_writer_write_padded pads the rest and encodes it. */
typedef struct sy__jpeg_strip {
    uint8_t *mem;
    uint8_t *rows[3][SY__JPEG_STRIP_ROWS]; /* Y: 16 rows, Cb and Cr: 8 rows each */
    uint32_t stride[3];
    uint32_t width;
} sy__jpeg_strip;

/* Allocates the planes for an image `width` pixels wide (`what` names the
 * allocation in budget errors). */
sy_status sy__jpeg_strip_init(sy_context *ctx, uint32_t width, const char *what, sy__jpeg_strip *s, sy_error *err);
void sy__jpeg_strip_free(sy_context *ctx, sy__jpeg_strip *s);

sy_status sy__jpeg_writer_create(sy_context *ctx, FILE *file, const char *path, uint32_t width, uint32_t height,
                                 int quality, sy__jpeg_writer **out, sy_error *err);
/* The largest XMP packet one APP1 holds: 65,533 payload bytes less the
 * 29 of "http://ns.adobe.com/xap/1.0/" and its NUL. */
#define SY__JPEG_XMP_MAX 65504u

/* Writes APP markers (Exif APP1, XMP APP1, ICC APP2 chunks) before the first strip.
 * Any pointer may be NULL. */
sy_status sy__jpeg_writer_write_metadata(sy__jpeg_writer *w, const uint8_t *exif_tiff, size_t exif_len,
                                         const uint8_t *xmp, size_t xmp_len, const uint8_t *icc, size_t icc_len,
                                         sy_error *err);
/* Extended XMP `data` (the packet the written XMP names by `guid`) as APP1
 * chunks of SY__XMP_EXT_CHUNK bytes (jpeg/sy_jpeg_xmp_extension.h), after
 * the metadata and before the first strip; nothing when data is NULL. */
sy_status sy__jpeg_writer_write_xmp_extension(sy__jpeg_writer *w, const char guid[33], const uint8_t *data, size_t len,
                                              sy_error *err);
/* One more APPn segment (`marker` 0xE0..0xEF) with `len` payload bytes, before the first strip. */
sy_status sy__jpeg_writer_write_marker(sy__jpeg_writer *w, int marker, const uint8_t *data, size_t len, sy_error *err);
/* One strip: 16 luma rows and 8 rows of each chroma plane, strides as above,
 * columns past `width` already padded by the caller. The last strip may extend
 * beyond the image height (the extra rows only pad the last MCU row). */
sy_status sy__jpeg_writer_write_strip(sy__jpeg_writer *w, uint8_t *const *y_rows, uint8_t *const *cb_rows,
                                      uint8_t *const *cr_rows, sy_error *err);
/* `s` holding `rows` (1..16) real rows: repeats the last real column of each
 * plane row and the last real rows, so partial MCUs hold image content (no
 * dark fringe after decoding), then writes the strip. */
sy_status sy__jpeg_writer_write_padded(sy__jpeg_writer *w, sy__jpeg_strip *s, uint32_t rows, sy_error *err);
sy_status sy__jpeg_writer_finish(sy__jpeg_writer *w, sy_error *err);

/* ---- R'G'B' scanlines (the sample-photo fixtures) ----
 * The same writer fed interleaved R'G'B' rows: libjpeg converts them to
 * YCbCr 4:2:0 itself (its defaults: ISLOW DCT, standard Huffman tables).
 * Progressive output makes libjpeg hold every coefficient of the image. */
typedef struct sy__jpeg_rgb_options {
    int quality;     /* 1..100 */
    int progressive; /* libjpeg's simple progression */
    uint16_t dpi;    /* JFIF density in dots per inch; 0 = libjpeg's default (aspect 1:1) */
} sy__jpeg_rgb_options;

sy_status sy__jpeg_writer_create_rgb(sy_context *ctx, FILE *file, const char *path, uint32_t width, uint32_t height,
                                     const sy__jpeg_rgb_options *opts, sy__jpeg_writer **out, sy_error *err);
/* `count` rows of width * 3 bytes, top to bottom (after any markers). */
sy_status sy__jpeg_writer_write_rgb_rows(sy__jpeg_writer *w, const uint8_t *const *rows, uint32_t count, sy_error *err);
void sy__jpeg_writer_destroy(sy__jpeg_writer *w);

#endif
