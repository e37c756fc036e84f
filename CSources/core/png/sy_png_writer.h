/* sy_png_writer.h — streaming PNG encoder over zlib (engine-private).
 * Rows go in top to bottom; each is filtered (adaptive per row: the filter with
 * the smallest sum of absolute differences) and deflated into IDAT chunks of
 * at most 64 KiB. Memory: two rows + one filtered row + zlib's state. */
#ifndef SY_PNG_WRITER_H
#define SY_PNG_WRITER_H

#include <stdio.h>
#include "base/sy_internal.h"

typedef struct sy__png_writer sy__png_writer;

/* Writes the signature and IHDR (8-bit RGB, non-interlaced) to `file`.
 * `level` is the zlib level 0..9. `path` is used in messages only. */
sy_status sy__png_writer_create(sy_context *ctx, FILE *file, const char *path, uint32_t width,
                                uint32_t height, int level, sy__png_writer **out, sy_error *err);
/* Writes an ancillary chunk (eXIf, iCCP, iTXt...) before the first row. */
sy_status sy__png_writer_add_chunk(sy__png_writer *w, const char *type, const uint8_t *data, uint32_t len,
                                   sy_error *err);
/* The metadata chunks before the first row: eXIf (the TIFF as is), iCCP
 * (the profile zlib-compressed) and iTXt XML:com.adobe.xmp. Any pointer may
 * be NULL (that chunk is not written). */
sy_status sy__png_writer_write_metadata(sy__png_writer *w, const uint8_t *exif_tiff, size_t exif_len,
                                        const uint8_t *xmp, size_t xmp_len, const uint8_t *icc, size_t icc_len,
                                        sy_error *err);
/* Appends `count` RGB rows (width*3 bytes each). */
sy_status sy__png_writer_write_rows(sy__png_writer *w, const uint8_t *const *rows, uint32_t count,
                                    sy_error *err);
/* Flushes the last IDAT and writes IEND; fails if fewer than `height` rows came in. */
sy_status sy__png_writer_finish(sy__png_writer *w, sy_error *err);
/* Frees the writer (NULL is fine). Does not close the FILE. */
void sy__png_writer_destroy(sy__png_writer *w);

#endif
